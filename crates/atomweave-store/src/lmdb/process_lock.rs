//! Who may write an LMDB store, across processes.
//!
//! LMDB serialises write transactions itself, but a whole space stored into
//! an empty store spans many of them (records first, indexes at the end),
//! and nothing else may run in between: another writer's content lookups
//! would miss the records not indexed yet, and its index entries would
//! break the appends. So that store holds `atomweave.lock` (an `flock`)
//! exclusively from its first transaction to its last, and every other
//! transaction, read or write, holds it shared while it runs: they wait
//! for the whole-space store, and it for them.
//!
//! A lock dies with its process, so an unfinished-store marker found while
//! holding the lock was left by a store that stopped (a recycled pid cannot
//! make a dead writer look alive).

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;
use std::sync::Arc;

use std::sync::Mutex;

/// The lock file of one store, and how this process holds it.
pub(crate) struct StoreLock {
    file: File,
    held: Mutex<Held>,
}

#[derive(Default)]
struct Held {
    /// Shared holds in this process (transactions running).
    shared: u32,
    exclusive: bool,
}

/// One hold of the lock; released when dropped.
pub(crate) struct Guard {
    lock: Arc<StoreLock>,
    exclusive: bool,
}

fn flock(file: &File, op: libc::c_int) -> std::io::Result<()> {
    loop {
        // SAFETY: flock takes a descriptor this `File` owns and an operation; no memory is passed.
        if unsafe { libc::flock(file.as_raw_fd(), op) } == 0 {
            return Ok(());
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

impl StoreLock {
    pub(crate) fn open(dir: &Path) -> std::io::Result<Arc<StoreLock>> {
        let file = std::fs::OpenOptions::new().create(true).truncate(false).read(true).write(true).open(dir.join("atomweave.lock"))?;
        Ok(Arc::new(StoreLock { file, held: Mutex::new(Held::default()) }))
    }

    /// Holds the lock shared (waiting for a whole-space store of another
    /// process); within this process's exclusive hold, costs nothing.
    pub(crate) fn shared(self: &Arc<Self>) -> std::io::Result<Guard> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        if held.shared == 0 && !held.exclusive {
            flock(&self.file, libc::LOCK_SH)?;
        }
        held.shared += 1;
        Ok(Guard { lock: self.clone(), exclusive: false })
    }

    /// Holds the lock exclusively: no transaction of another process runs
    /// until the guard is dropped. Take it holding nothing shared.
    pub(crate) fn exclusive(self: &Arc<Self>) -> std::io::Result<Guard> {
        let mut held = self.held.lock().unwrap_or_else(|e| e.into_inner());
        assert!(held.shared == 0 && !held.exclusive, "the store lock is taken exclusively only when not held");
        flock(&self.file, libc::LOCK_EX)?;
        held.exclusive = true;
        Ok(Guard { lock: self.clone(), exclusive: true })
    }
}

impl Drop for Guard {
    fn drop(&mut self) {
        let mut held = self.lock.held.lock().unwrap_or_else(|e| e.into_inner());
        if self.exclusive {
            held.exclusive = false;
        } else {
            held.shared -= 1;
        }
        if held.shared == 0 && !held.exclusive {
            // Unlocking a held flock cannot fail on a valid descriptor.
            let _ = flock(&self.lock.file, libc::LOCK_UN);
        } else if !held.exclusive && self.exclusive {
            let _ = flock(&self.lock.file, libc::LOCK_SH);
        }
    }
}
