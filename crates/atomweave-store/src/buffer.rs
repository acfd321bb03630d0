//! WriteBufferProxy: upstream's proxy that holds writes back and passes
//! them on in batches, `(ProxyParameters (WriteBufferProxy "w") TARGET
//! (Number SECONDS))`.
//!
//! Atoms and values to store wait in a set (so an atom written a thousand
//! times in a burst is written once, with what it holds then); a drain
//! thread writes them to the targets every SECONDS (60 when not given), and
//! `barrier`, `close` and every call that must see the stores up to date
//! (a delete, a whole-space store, an update) write them first. Durability
//! is what the user chose: a write is on its way for at most SECONDS, and
//! a crash in that window loses it. A write the drain thread could not make
//! is kept and its error reported by the next call.

use std::collections::HashSet;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::thread::JoinHandle;
use std::time::Duration;

use atomweave::{AtomSpace, Handle, Type, Value};

use crate::{Result, StorageNode, StoreError};

/// How long writes wait when the ProxyParameters give no time.
pub const DEFAULT_INTERVAL: Duration = Duration::from_secs(60);

/// A WriteBufferProxy over `inner` (a WriteThruProxy over its targets).
pub struct WriteBuffer {
    url: String,
    shared: Arc<Shared>,
    drain: Option<JoinHandle<()>>,
    interval: Duration,
}

struct Shared {
    pending: Mutex<Pending>,
    /// The stores written to; a flush holds it from taking the pending
    /// writes to writing them, so a barrier that follows a drain waits for it.
    inner: Mutex<Box<dyn StorageNode>>,
    wake: Condvar,
}

#[derive(Default)]
struct Pending {
    atoms: HashSet<(AtomSpace, Handle)>,
    values: HashSet<(AtomSpace, Handle, Handle)>,
    stop: bool,
    /// A drain's failure, for the next call to report.
    failed: Option<String>,
    flushes: u64,
    atoms_written: u64,
    values_written: u64,
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    /// The drain thread's turn: what is pending is written and made
    /// durable (the targets' barrier), as the interval promises; handed
    /// to a store that writes behind, it would wait there for the store's
    /// next batch or barrier, with no bound on its time. What was handed
    /// on is made durable even when a later write failed.
    fn drain(&self) -> Result<()> {
        let (handed, result) = self.flush();
        if handed > 0 {
            lock(&self.inner).barrier()?;
        }
        result
    }

    /// Writes what is pending: how many atoms and values it handed on, and
    /// the first failure. A write that failed goes back, to be tried at the
    /// next flush, unless no store could ever take it (refused as
    /// unsupported: it is reported and dropped), and the writes after a
    /// failure that may pass go back untried.
    fn flush(&self) -> (u64, Result<()>) {
        let mut inner = lock(&self.inner);
        let (atoms, values) = {
            let mut p = lock(&self.pending);
            (std::mem::take(&mut p.atoms), std::mem::take(&mut p.values))
        };
        let (mut atoms_done, mut values_done) = (0, 0);
        let mut result = Ok(());
        let mut stopped = false;
        let mut left_atoms = atoms.into_iter();
        // An atom extracted since it was written is not stored: that would
        // bring it back.
        for (space, h) in left_atoms.by_ref() {
            if !space.contains(h) {
                continue;
            }
            match inner.store_atom(&space, h) {
                Ok(()) => atoms_done += 1,
                Err(e) => {
                    let lasting = matches!(e, StoreError::Unsupported(_));
                    result = result.and(Err(e));
                    if !lasting {
                        lock(&self.pending).atoms.insert((space, h));
                        stopped = true;
                        break;
                    }
                }
            }
        }
        let mut left_values = values.into_iter();
        if !stopped {
            for (space, h, key) in left_values.by_ref() {
                if !space.contains(h) {
                    continue;
                }
                match inner.store_value(&space, h, key) {
                    Ok(()) => values_done += 1,
                    Err(e) => {
                        let lasting = matches!(e, StoreError::Unsupported(_));
                        result = result.and(Err(e));
                        if !lasting {
                            lock(&self.pending).values.insert((space, h, key));
                            break;
                        }
                    }
                }
            }
        }
        let mut p = lock(&self.pending);
        p.atoms.extend(left_atoms);
        p.values.extend(left_values);
        p.flushes += 1;
        p.atoms_written += atoms_done;
        p.values_written += values_done;
        (atoms_done + values_done, result)
    }
}

impl WriteBuffer {
    /// A buffer named `url` (the proxy atom, printed) over `inner`, written
    /// out every `interval`.
    pub fn new(url: String, inner: Box<dyn StorageNode>, interval: Duration) -> Result<WriteBuffer> {
        let shared = Arc::new(Shared { pending: Mutex::default(), inner: Mutex::new(inner), wake: Condvar::new() });
        let worker = shared.clone();
        let drain = std::thread::Builder::new()
            .name("atomweave:write-buffer".into())
            .spawn(move || loop {
                let stop = {
                    let p = lock(&worker.pending);
                    let (p, _) = worker.wake.wait_timeout_while(p, interval, |p| !p.stop).unwrap_or_else(|e| e.into_inner());
                    p.stop
                };
                if stop {
                    return;
                }
                if let Err(e) = worker.drain() {
                    lock(&worker.pending).failed = Some(e.to_string());
                }
            })
            .map_err(|e| StoreError::Backend(format!("{url}: cannot start its drain thread: {e}")))?;
        Ok(WriteBuffer { url, shared, drain: Some(drain), interval })
    }

    /// The drain thread's failure, if one happened since the last call.
    fn reported(&self) -> Result<()> {
        match lock(&self.shared.pending).failed.take() {
            Some(msg) => Err(StoreError::Backend(format!("{}: a buffered write failed: {msg}", self.url))),
            None => Ok(()),
        }
    }

    /// Writes what is pending, then runs `f` on the stores.
    fn through<R>(&mut self, f: impl FnOnce(&mut dyn StorageNode) -> Result<R>) -> Result<R> {
        self.reported()?;
        self.shared.flush().1?;
        f(&mut **lock(&self.shared.inner))
    }

    fn stop_drain(&mut self) {
        lock(&self.shared.pending).stop = true;
        self.shared.wake.notify_all();
        if let Some(t) = self.drain.take() {
            let _ = t.join();
        }
    }
}

impl Drop for WriteBuffer {
    /// Dropped unclosed (an error path): the pending writes still go out.
    fn drop(&mut self) {
        if self.drain.is_some() {
            self.stop_drain();
            let _ = self.shared.flush();
        }
    }
}

impl StorageNode for WriteBuffer {
    fn url(&self) -> &str {
        &self.url
    }

    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.reported()?;
        lock(&self.shared.pending).atoms.insert((space.clone(), h));
        Ok(())
    }

    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.reported()?;
        lock(&self.shared.pending).values.insert((space.clone(), h, key));
        Ok(())
    }

    forward_calls!(through);

    fn monitor(&self) -> String {
        let p = lock(&self.shared.pending);
        let head = format!(
            "{}: waiting {} atoms and {} values; {} flushes (every {} s) wrote {} atoms and {} values\n",
            self.url,
            p.atoms.len(),
            p.values.len(),
            p.flushes,
            self.interval.as_secs_f64(),
            p.atoms_written,
            p.values_written
        );
        drop(p);
        head + &lock(&self.shared.inner).monitor()
    }

    fn close(mut self: Box<Self>) -> Result<()> {
        self.stop_drain();
        let reported = self.reported();
        let flushed = self.shared.flush().1;
        let inner = std::mem::replace(&mut *lock(&self.shared.inner), crate::proxy::null(&self.url));
        let closed = inner.close();
        reported.and(flushed).and(closed)
    }
}
