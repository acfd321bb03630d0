//! What the shells' commands run against: the space, the store behind it,
//! and the commits that make a client's writes durable.
//!
//! Every write a command makes goes to the store (which queues it) and is
//! numbered. A committer thread makes queued writes durable (the store's
//! `barrier`) and publishes how far it got, so that:
//! - with [`Durability::Always`] (the default), a connection holds its replies
//!   until every write they acknowledge is durable. Writes that arrive
//!   while a commit runs share the next one (a group commit), so many
//!   clients cost one commit, not one each;
//! - with [`Durability::Within`], replies go out at once and the committer makes
//!   each write durable within the given time.
//!
//! A commit that fails leaves the store broken: what it held may be lost,
//! so no later write is acknowledged (each is refused with the error) and
//! connections waiting on it are closed; the server says so on stderr.

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use atomweave::{AtomSpace, Handle};
use atomweave_store::registry::{Locked, StoreHandle};
use atomweave_store::StorageNode;
use parking_lot::{Condvar, Mutex};
use tokio::sync::watch;

/// When a write acknowledged to a client is durable in the store.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub enum Durability {
    /// Before the reply that acknowledges it is sent (group commit).
    #[default]
    Always,
    /// At most this long after it was acknowledged.
    Within(Duration),
}

impl std::str::FromStr for Durability {
    type Err = String;

    /// `always`, or a number of milliseconds.
    fn from_str(s: &str) -> Result<Durability, String> {
        match s {
            "always" => Ok(Durability::Always),
            ms => ms
                .parse::<u64>()
                .map(|ms| Durability::Within(Duration::from_millis(ms)))
                .map_err(|_| format!("--sync takes `always` or a number of milliseconds, not `{ms}`")),
        }
    }
}

/// How far the committer got.
#[derive(Clone, Debug, Default)]
pub(crate) struct Durable {
    /// Writes numbered up to this one are durable.
    pub upto: u64,
    /// Set when a commit failed: nothing after `upto` will be.
    pub broken: Option<Arc<str>>,
}

thread_local! {
    /// The newest write made by commands run on this thread since
    /// [`State::take_written`] last looked: a command runs on one thread,
    /// start to end, so its connection finds its writes here.
    static WRITTEN: Cell<u64> = const { Cell::new(0) };
}

/// The store and the numbering of its writes, shared with the committer.
struct Commits {
    /// `None` without a store; its store is taken out (closed to every
    /// call) at shutdown. A call locks the store alone.
    store: Option<StoreHandle>,
    /// Writes handed to the store so far; changed under the store's lock.
    queued: AtomicU64,
    durable: watch::Sender<Durable>,
    /// Set when there are writes to commit, or at shutdown; the committer
    /// waits on it.
    wake: Mutex<Wake>,
    woken: Condvar,
    sync: Durability,
    /// Commits made, and commits the store failed (for `/metrics`).
    committed: AtomicU64,
    failed: AtomicU64,
}

#[derive(Default)]
struct Wake {
    work: bool,
    stop: bool,
}

impl Commits {
    /// The store, locked; `None` without one, or once shutdown took it.
    fn lock(&self) -> Option<Locked<'_>> {
        self.store.as_ref()?.store().lock()
    }

    /// Numbers a write just handed to the store (under its lock), for the
    /// connection that made it, and wakes the committer.
    fn written(&self) {
        let n = self.queued.fetch_add(1, Ordering::AcqRel) + 1;
        WRITTEN.with(|w| w.set(n));
        let mut wake = self.wake.lock();
        if !wake.work {
            wake.work = true;
            self.woken.notify_one();
        }
    }

    /// Makes every queued write durable, or marks the store broken.
    fn commit(&self) {
        let Some(mut st) = self.lock() else { return };
        let target = self.queued.load(Ordering::Acquire);
        if target <= self.durable.borrow().upto || self.durable.borrow().broken.is_some() {
            return;
        }
        match st.barrier() {
            Ok(()) => {
                self.committed.fetch_add(1, Ordering::Relaxed);
                self.durable.send_modify(|d| d.upto = target);
            }
            Err(e) => {
                self.failed.fetch_add(1, Ordering::Relaxed);
                let msg: Arc<str> = format!("the store failed to commit ({e}); no write is acknowledged from here on: restart the server").into();
                eprintln!("atomweave serve: {msg}");
                self.durable.send_modify(|d| d.broken = Some(msg));
            }
        }
    }

    fn run(&self) {
        loop {
            {
                let mut wake = self.wake.lock();
                while !wake.work && !wake.stop {
                    self.woken.wait(&mut wake);
                }
                if wake.stop {
                    return;
                }
                wake.work = false;
            }
            if let Durability::Within(delay) = self.sync {
                // Writes of the next moments join this commit.
                std::thread::sleep(delay);
            }
            self.commit();
        }
    }
}

/// What the shells' commands run against: the space, and the store behind
/// it if there is one. Changes are written through to the store,
/// deletions delete there too.
pub struct State {
    pub space: AtomSpace,
    commits: Arc<Commits>,
    /// Started with a store: once it is closed, writes are refused, not
    /// silently kept in memory only.
    pub(crate) has_store: bool,
    /// Held across the read and write of an update when there is no store
    /// (the store's lock does it otherwise), so concurrent increments from
    /// many clients all count.
    updates: Mutex<()>,
    committer: Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl State {
    pub fn new(space: AtomSpace, store: Option<Box<dyn StorageNode>>, sync: Durability) -> State {
        let has_store = store.is_some();
        let commits = Arc::new(Commits {
            store: store.map(StoreHandle::new),
            queued: AtomicU64::new(0),
            durable: watch::Sender::new(Durable::default()),
            wake: Mutex::new(Wake::default()),
            woken: Condvar::new(),
            sync,
            committed: AtomicU64::new(0),
            failed: AtomicU64::new(0),
        });
        let committer = has_store.then(|| {
            let c = commits.clone();
            std::thread::Builder::new().name("atomweave-commit".into()).spawn(move || c.run()).expect("a committer thread")
        });
        State { space, commits, has_store, updates: Mutex::new(()), committer: Mutex::new(committer) }
    }

    /// A state over a frame of its own above this one's space, with no
    /// store: what runs in it stays out of the space.
    pub(crate) fn frame(&self) -> Result<State, String> {
        let frame = AtomSpace::new_child(&[&self.space]).map_err(|e| format!("a frame for the query: {e}"))?;
        Ok(State::new(frame, None, Durability::Always))
    }

    /// The store, locked; `Ok(None)` without one, an error once it is
    /// closed or broken.
    fn store(&self) -> Result<Option<Locked<'_>>, String> {
        if let Some(msg) = &self.commits.durable.borrow().broken {
            return Err(msg.to_string());
        }
        match self.commits.lock() {
            Some(st) => Ok(Some(st)),
            None if self.has_store => Err("the server is shutting down; its store is closed".into()),
            None => Ok(None),
        }
    }

    /// Numbers a write just handed to the store (whose lock `_held` is),
    /// for the connection that made it, and wakes the committer.
    fn written(&self, _held: &Locked<'_>) {
        self.commits.written();
    }

    /// The server's store as the `scm` shell's calls (`store-atom`, ...)
    /// see it: their writes are numbered and committed as the other
    /// shells' are. `None` without a store.
    #[cfg(feature = "scheme")]
    pub(crate) fn for_scheme(&self) -> Option<Box<dyn StorageNode>> {
        let url = self.commits.lock()?.url().to_string();
        Some(Box::new(Through { commits: self.commits.clone(), url }))
    }

    /// The newest write made on this thread since the last call (0: none).
    pub(crate) fn take_written() -> u64 {
        WRITTEN.with(|w| w.replace(0))
    }

    /// Waits until write `n` is durable, if the sync policy holds replies
    /// for that; an error if it never will be.
    pub(crate) async fn durable(&self, n: u64) -> Result<(), Arc<str>> {
        if n == 0 || self.commits.sync != Durability::Always {
            return Ok(());
        }
        let mut rx = self.commits.durable.subscribe();
        let d = rx.wait_for(|d| d.upto >= n || d.broken.is_some()).await.map_err(|_| Arc::<str>::from("the server stopped"))?;
        match (&d.broken, d.upto >= n) {
            (_, true) => Ok(()),
            (Some(msg), false) => Err(msg.clone()),
            (None, false) => unreachable!("waited for one of the two"),
        }
    }

    /// Makes every write so far durable now, whatever the sync policy.
    pub(crate) fn barrier(&self) -> Result<(), String> {
        self.commits.commit();
        match &self.commits.durable.borrow().broken {
            Some(msg) => Err(msg.to_string()),
            None => Ok(()),
        }
    }

    /// Commits the store made, and commits it failed.
    pub(crate) fn commits(&self) -> (u64, u64) {
        (self.commits.committed.load(Ordering::Relaxed), self.commits.failed.load(Ordering::Relaxed))
    }

    /// How many writes are queued and not yet durable (for `stats`).
    pub(crate) fn lag(&self) -> u64 {
        self.commits.queued.load(Ordering::Acquire).saturating_sub(self.commits.durable.borrow().upto)
    }

    /// Stores `h` and every atom under it, with their values: a command
    /// may set values on members too.
    pub(crate) fn stored(&self, h: Handle) -> Result<(), String> {
        let Some(mut st) = self.store()? else { return Ok(()) };
        self.store_tree(&mut *st, h, &mut std::collections::HashSet::new()).map_err(|e| e.to_string())?;
        self.written(&st);
        Ok(())
    }

    /// Stores `h` and every atom under it but those in `seen`, which it
    /// adds them to.
    fn store_tree(&self, st: &mut dyn StorageNode, h: Handle, seen: &mut std::collections::HashSet<Handle>) -> Result<(), atomweave_store::StoreError> {
        let mut todo = vec![h];
        while let Some(x) = todo.pop() {
            if seen.insert(x) {
                st.store_atom(&self.space, x)?;
                todo.extend_from_slice(self.space.outgoing(x).unwrap_or(&[]));
            }
        }
        Ok(())
    }

    /// Writes through what code run on the space changed ([`AtomSpace::recording`]):
    /// atoms added (with their members), values set or removed, each once
    /// (a store writes what the space holds now), and atoms removed (found
    /// in the store by their content), unless the space holds that content
    /// again. A write no store could take (a stream value) is skipped and
    /// reported after the others are made; so is a recording that
    /// overflowed, whose changes are not all known.
    pub(crate) fn write_through(&self, changes: &atomweave::Changes) -> Result<(), String> {
        use atomweave::Change;
        if changes.is_empty() {
            return Ok(());
        }
        let Some(mut st) = self.store()? else { return Ok(()) };
        let space = &self.space;
        let mut refused: Vec<String> = Vec::new();
        let mut lasting = |e: atomweave_store::StoreError| match e {
            atomweave_store::StoreError::Unsupported(why) => {
                refused.push(why);
                Ok(())
            }
            e => Err(e.to_string()),
        };
        let mut stored = std::collections::HashSet::new();
        let mut values = std::collections::HashSet::new();
        for change in changes.iter() {
            match change {
                Change::Atom(h) if space.contains(*h) => self.store_tree(&mut *st, *h, &mut stored).or_else(&mut lasting)?,
                Change::Value(h, k) if space.contains(*h) && space.contains(*k) && values.insert((*h, *k)) => {
                    st.store_value(space, *h, *k).or_else(&mut lasting)?
                }
                Change::Removed(text) => {
                    let expr = atomweave::sexpr::parse_str(text).map_err(|e| e.to_string())?;
                    let again = expr.first().map(|e| atomweave::sexpr::lookup(space, e)).transpose().map_err(|e| e.to_string())?.flatten();
                    if again.is_none() {
                        let scratch = AtomSpace::new();
                        if let Some(&h) = atomweave::sexpr::load_str(&mut &scratch, text).map_err(|e| e.to_string())?.last() {
                            st.delete(&scratch, h, true).map_err(|e| e.to_string())?;
                        }
                    }
                }
                _ => {}
            }
        }
        self.written(&st);
        if changes.overflowed() {
            refused.push(format!(
                "the query made more than {} changes: those past them are in the space, not the store (store them, or the space)",
                atomweave::Changes::MAX
            ));
        }
        match refused.is_empty() {
            true => Ok(()),
            false => Err(format!("the query ran, but not all it changed was written to the store: {}", refused.join("; "))),
        }
    }

    /// Extracts `h` from the space and the store; false if links hold it
    /// and `recursive` is not set.
    pub(crate) fn delete(&self, h: Handle, recursive: bool) -> Result<bool, String> {
        match self.store()? {
            Some(mut st) => {
                let done = st.delete(&self.space, h, recursive).map_err(|e| e.to_string())?;
                self.written(&st);
                Ok(done)
            }
            None => Ok(self.space.extract(h, recursive).is_ok()),
        }
    }

    /// Adds `delta` to the value under `key`, atomically among updates.
    pub(crate) fn update(&self, h: Handle, key: Handle, delta: &[f64]) -> Result<(), String> {
        match self.store()? {
            Some(mut st) => {
                st.update_value(&self.space, h, key, delta).map_err(|e| e.to_string())?;
                self.written(&st);
                Ok(())
            }
            None => {
                let _held = self.updates.lock();
                atomweave_store::update_in_space(&self.space, h, key, delta).map(drop).map_err(|e| e.to_string())
            }
        }
    }

    /// Stops the committer and takes the store out, for shutdown to
    /// flush and close it.
    pub(crate) fn take_store(&self) -> Option<Box<dyn StorageNode>> {
        {
            let mut wake = self.commits.wake.lock();
            wake.stop = true;
            self.commits.woken.notify_one();
        }
        if let Some(t) = self.committer.lock().take() {
            let _ = t.join();
        }
        self.commits.store.as_ref()?.store().take()
    }

    /// Shutdown flushed and closed the store: everything queued is durable.
    pub(crate) fn closed_durably(&self) {
        let n = self.commits.queued.load(Ordering::Acquire);
        self.commits.durable.send_modify(|d| d.upto = n);
    }
}

/// The server's store, for the `scm` shell ([`State::for_scheme`]).
#[cfg(feature = "scheme")]
struct Through {
    commits: Arc<Commits>,
    url: String,
}

#[cfg(feature = "scheme")]
impl Through {
    /// Runs `f` on the store; `write` numbers it as a write.
    fn with<T>(&mut self, write: bool, f: impl FnOnce(&mut dyn StorageNode) -> atomweave_store::Result<T>) -> atomweave_store::Result<T> {
        use atomweave_store::StoreError;
        if let Some(msg) = &self.commits.durable.borrow().broken {
            return Err(StoreError::Backend(msg.to_string()));
        }
        let mut st = self.commits.lock().ok_or_else(|| StoreError::Backend("the server is shutting down; its store is closed".into()))?;
        let done = f(&mut *st)?;
        if write {
            self.commits.written();
        }
        Ok(done)
    }
}

#[cfg(feature = "scheme")]
impl StorageNode for Through {
    fn url(&self) -> &str {
        &self.url
    }
    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> atomweave_store::Result<()> {
        self.with(true, |s| s.store_atom(space, h))
    }
    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> atomweave_store::Result<()> {
        self.with(true, |s| s.store_value(space, h, key))
    }
    fn update_value(&mut self, space: &AtomSpace, h: Handle, key: Handle, delta: &[f64]) -> atomweave_store::Result<atomweave::Value> {
        self.with(true, |s| s.update_value(space, h, key, delta))
    }
    fn fetch_atom(&mut self, space: &AtomSpace, h: Handle) -> atomweave_store::Result<bool> {
        self.with(false, |s| s.fetch_atom(space, h))
    }
    fn fetch_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> atomweave_store::Result<bool> {
        self.with(false, |s| s.fetch_value(space, h, key))
    }
    fn fetch_incoming_set(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> atomweave_store::Result<usize> {
        self.with(false, |s| s.fetch_incoming_set(space, h, recursive))
    }
    fn fetch_incoming_by_type(&mut self, space: &AtomSpace, h: Handle, t: atomweave::Type) -> atomweave_store::Result<usize> {
        self.with(false, |s| s.fetch_incoming_by_type(space, h, t))
    }
    fn load_atoms_of_type(&mut self, space: &AtomSpace, t: atomweave::Type) -> atomweave_store::Result<usize> {
        self.with(false, |s| s.load_atoms_of_type(space, t))
    }
    fn load_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> atomweave_store::Result<u64> {
        self.with(false, |s| s.load_atomspace(space, progress))
    }
    fn store_atomspace(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> atomweave_store::Result<u64> {
        self.with(true, |s| s.store_atomspace(space, progress))
    }
    fn delete(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> atomweave_store::Result<bool> {
        self.with(true, |s| s.delete(space, h, recursive))
    }
    fn barrier(&mut self) -> atomweave_store::Result<()> {
        self.with(false, |s| s.barrier())
    }
    fn fetch_query(&mut self, space: &AtomSpace, query: Handle, key: Handle, fresh: bool) -> atomweave_store::Result<atomweave::Value> {
        self.with(false, |s| s.fetch_query(space, query, key, fresh))
    }
    /// The server closes its store at shutdown; Scheme cannot.
    fn close(self: Box<Self>) -> atomweave_store::Result<()> {
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomweave::types::{CONCEPT_NODE, PREDICATE_NODE};

    /// What a recorded change names is written as the space holds it at
    /// the end: an atom removed, then made again (here by another client)
    /// stays in the store; a value the store cannot hold is reported
    /// without stopping the rest.
    #[test]
    fn write_through_writes_the_final_state_and_reports_what_it_cannot() {
        let dir = tempfile::tempdir().unwrap();
        let url = format!("lmdb://{}", dir.path().display());
        let space = AtomSpace::new();
        let state = State::new(space.clone(), Some(atomweave_store::open(&url).unwrap()), Durability::Always);
        let x = space.add_node(CONCEPT_NODE, "x").unwrap();
        state.stored(x).unwrap();
        let k = space.add_node(PREDICATE_NODE, "k").unwrap();
        let ((), changes) = space.recording(|| {
            space.extract(x, false).unwrap();
            let z = space.add_node(CONCEPT_NODE, "z").unwrap();
            space.set_value(z, k, atomweave::Value::Stream(atomweave::StreamValue::random(2))).unwrap();
            space.add_node(CONCEPT_NODE, "y").unwrap();
        });
        // Another client makes and stores `x` again before the write-through.
        state.stored(space.add_node(CONCEPT_NODE, "x").unwrap()).unwrap();
        let err = state.write_through(&changes).unwrap_err();
        assert!(err.contains("is not stored"), "{err}");
        state.barrier().unwrap();
        let mut st = state.take_store().unwrap();
        let back = AtomSpace::new();
        st.load_atomspace(&back, &mut |_| {}).unwrap();
        assert!(back.get_node(CONCEPT_NODE, "x").is_some(), "the atom made again was deleted from the store");
        assert!(back.get_node(CONCEPT_NODE, "y").is_some(), "the change after the refused one was not written");
    }
}
