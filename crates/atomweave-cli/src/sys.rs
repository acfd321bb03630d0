//! Process facts the reports need, and where a benchmark's threads run.

/// Resident set size of this process, from `/proc/self/status` (0 where unavailable).
pub fn rss_bytes() -> usize {
    status_bytes("VmRSS:")
}

/// The most this process has had resident (0 where unavailable).
pub fn peak_rss_bytes() -> usize {
    status_bytes("VmHWM:")
}

/// A size in `/proc/self/status`, in bytes.
fn status_bytes(field: &str) -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with(field)).and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse::<usize>().ok()))
        .map_or(0, |kb| kb * 1024)
}

/// CPU seconds (user + system) a process has used, from `/proc/PID/stat`
/// (`None` where unavailable).
pub fn cpu_seconds(pid: &str) -> Option<f64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    // Fields after the command name, which is in parentheses and may hold spaces.
    let rest = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    // Linux reports in USER_HZ, 100 on every mainstream configuration.
    Some(ticks / 100.0)
}

/// Fields of `/proc/PID/stat` after the command name (which may hold spaces).
fn stat_fields(pid: u32) -> Option<Vec<String>> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    Some(stat[stat.rfind(')')? + 2..].split_whitespace().map(str::to_string).collect())
}

/// The parent of a process.
pub fn parent(pid: u32) -> Option<u32> {
    stat_fields(pid)?.get(1)?.parse().ok()
}

/// CPU seconds of a process and of its children that have ended.
pub fn cpu_seconds_with_children(pid: u32) -> Option<f64> {
    let f = stat_fields(pid)?;
    let ticks: f64 = (11..15).map(|i| f.get(i).and_then(|x| x.parse::<f64>().ok())).sum::<Option<f64>>()?;
    Some(ticks / 100.0)
}

/// The live children of a process.
pub fn children(pid: u32) -> Vec<u32> {
    let Ok(dir) = std::fs::read_dir("/proc") else { return Vec::new() };
    dir.flatten().filter_map(|e| e.file_name().to_str()?.parse::<u32>().ok()).filter(|&p| parent(p) == Some(pid)).collect()
}

/// The cores this process may run on (`taskset`, cgroups), by number.
#[cfg(target_os = "linux")]
fn allowed() -> std::io::Result<Vec<usize>> {
    // SAFETY: a zeroed cpu_set_t is an empty set; the call writes only the
    // set passed, of the size given.
    unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok((0..libc::CPU_SETSIZE as usize).filter(|&c| libc::CPU_ISSET(c, &set)).collect())
    }
}

/// How many cores this process may run on.
#[cfg(target_os = "linux")]
pub fn allowed_cores() -> std::io::Result<usize> {
    allowed().map(|cores| cores.len())
}

/// Keeps the calling thread on the `i`-th core this process may use, as
/// `taskset` would one thread; an error past the last.
#[cfg(target_os = "linux")]
pub fn pin_to_core(i: usize) -> std::io::Result<()> {
    let Some(&core) = allowed()?.get(i) else {
        return Err(std::io::Error::other(format!("no core {i} is allowed")));
    };
    // SAFETY: as in `allowed`; the call reads only the set passed.
    unsafe {
        let mut one: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(core, &mut one);
        if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &one) != 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

#[cfg(not(target_os = "linux"))]
pub fn allowed_cores() -> std::io::Result<usize> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "thread affinity is set on Linux only"))
}

#[cfg(not(target_os = "linux"))]
pub fn pin_to_core(_: usize) -> std::io::Result<()> {
    Err(std::io::Error::new(std::io::ErrorKind::Unsupported, "thread affinity is set on Linux only"))
}

#[cfg(all(test, target_os = "linux"))]
mod tests {
    #[test]
    fn a_pinned_thread_may_run_on_one_allowed_core_only() {
        let before = super::allowed().unwrap();
        for i in 0..before.len() {
            let now = std::thread::spawn(move || {
                super::pin_to_core(i).unwrap();
                super::allowed().unwrap()
            })
            .join()
            .unwrap();
            assert_eq!(now, vec![before[i]], "worker {i} of {before:?}");
        }
        assert!(super::pin_to_core(before.len()).is_err(), "past the last core");
        // The threads' pins are theirs: this one may still run anywhere.
        assert_eq!(super::allowed().unwrap(), before);
    }
}
