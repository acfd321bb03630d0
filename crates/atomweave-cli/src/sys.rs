//! Process facts the reports need.

/// Resident set size of this process, from `/proc/self/status` (0 where unavailable).
pub fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find(|l| l.starts_with("VmRSS:")).and_then(|l| l.split_whitespace().nth(1)).and_then(|kb| kb.parse::<usize>().ok()))
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
