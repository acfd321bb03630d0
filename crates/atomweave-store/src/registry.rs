//! The stores a front end has open, and the handles that share one store.
//!
//! A [`Registry`] is a front end's table of open stores: Python's
//! `cog_open`s, Scheme's `cog-open`s and the stores an embedder gives
//! Scheme, each entry under the front end's own key, the newest the
//! current store. A [`StoreHandle`] is one holder of an open store: a
//! registry entry, each path of a proxy tree that names the store twice
//! ([`proxy::open_node`](crate::proxy::open_node)), the server's store.
//! The last handle closed closes the store; closing another makes what
//! was written durable (a barrier) and leaves the store open. A
//! [`StoreRef`] reaches a store for calls and holds nothing open.
//!
//! Invariant: the table's lock guards the table alone. A call finds its
//! entry, clones the store's reference and lets the table go, then locks
//! that store alone for as long as it runs: a slow call on one store holds
//! up no other store, nor an open or close of another. A closed store
//! stays closed: a call that reaches it after (having found it before)
//! gets an error, never a store half closed, and a close waits for a call
//! still using the store.

use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use atomweave::{AtomSpace, Handle, Type, Value};

use crate::{Result, StorageNode, StoreError};

/// Takes a lock even if a thread panicked holding it: a store call that
/// panicked (caught by a front end) leaves the store as its error would.
fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a call on a closed store is told.
const CLOSED: &str = "the StorageNode was closed";

/// An open store: the store (`None` once closed), under its own lock.
struct Slot {
    url: String,
    store: Mutex<Option<Box<dyn StorageNode>>>,
    /// The [`StoreHandle`]s holding it open.
    holders: AtomicUsize,
}

/// A store reached for calls. It holds nothing open: once the store's
/// last handle is closed, the store is closed to it too.
#[derive(Clone)]
pub struct StoreRef(Arc<Slot>);

/// A store locked for one caller, open.
pub struct Locked<'a>(MutexGuard<'a, Option<Box<dyn StorageNode>>>);

impl Deref for Locked<'_> {
    type Target = dyn StorageNode;

    fn deref(&self) -> &(dyn StorageNode + 'static) {
        self.0.as_deref().expect("locked open")
    }
}

impl DerefMut for Locked<'_> {
    fn deref_mut(&mut self) -> &mut (dyn StorageNode + 'static) {
        self.0.as_deref_mut().expect("locked open")
    }
}

impl StoreRef {
    /// The URL the store was opened with.
    pub fn url(&self) -> &str {
        &self.0.url
    }

    /// The store, locked for this caller alone (after a call still using
    /// it); `None` once it is closed.
    pub fn lock(&self) -> Option<Locked<'_>> {
        let store = lock(&self.0.store);
        store.is_some().then_some(Locked(store))
    }

    /// Runs `f` on the store, locked alone; an error once it is closed.
    /// Nothing is read through on this thread meanwhile: the store may be
    /// the one a space reads through, and it is locked.
    pub fn call<T>(&self, f: impl FnOnce(&mut dyn StorageNode) -> Result<T>) -> Result<T> {
        match self.lock() {
            Some(mut store) => atomweave::without_read_through(|| f(&mut *store)),
            None => Err(StoreError::Unsupported(format!("{}: {CLOSED}", self.url()))),
        }
    }

    /// Takes the store out (after a call still using it): closed to every
    /// handle and call from here on, for the caller to close.
    pub fn take(&self) -> Option<Box<dyn StorageNode>> {
        lock(&self.0.store).take()
    }
}

/// One holder of an open store. The last one closed closes the store;
/// closing another makes what was written durable.
pub struct StoreHandle {
    store: StoreRef,
    /// Counted among the holders (until closed).
    holding: bool,
}

impl StoreHandle {
    /// The first handle on `store`.
    pub fn new(store: Box<dyn StorageNode>) -> StoreHandle {
        let slot = Slot { url: store.url().to_string(), store: Mutex::new(Some(store)), holders: AtomicUsize::new(1) };
        StoreHandle { store: StoreRef(Arc::new(slot)), holding: true }
    }

    /// Another handle on the same store.
    pub fn another(&self) -> StoreHandle {
        self.store.0.holders.fetch_add(1, Ordering::AcqRel);
        StoreHandle { store: self.store.clone(), holding: true }
    }

    /// The store, for calls.
    pub fn store(&self) -> &StoreRef {
        &self.store
    }

    /// Closes this handle: the store too if it is the last (see
    /// [`StorageNode::close`]).
    pub fn close(self) -> Result<()> {
        StorageNode::close(Box::new(self))
    }

    fn with<T>(&self, f: impl FnOnce(&mut dyn StorageNode) -> Result<T>) -> Result<T> {
        self.store.call(f)
    }

    /// Lets go of the store: whether this was its last holder.
    fn release(&mut self) -> bool {
        std::mem::replace(&mut self.holding, false) && self.store.0.holders.fetch_sub(1, Ordering::AcqRel) == 1
    }
}

impl Drop for StoreHandle {
    /// A handle dropped without a close holds the store no longer (as a
    /// store dropped unclosed, nothing is made durable).
    fn drop(&mut self) {
        self.release();
    }
}

impl StorageNode for StoreHandle {
    fn url(&self) -> &str {
        self.store.url()
    }
    fn store_atom(&mut self, space: &AtomSpace, h: Handle) -> Result<()> {
        self.with(|s| s.store_atom(space, h))
    }
    fn store_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<()> {
        self.with(|s| s.store_value(space, h, key))
    }
    fn fetch_query(&mut self, space: &AtomSpace, query: Handle, key: Handle, fresh: bool) -> Result<Value> {
        self.with(|s| s.fetch_query(space, query, key, fresh))
    }
    forward_calls!(with);

    fn monitor(&self) -> String {
        self.store.lock().map_or_else(|| format!("{}: closed\n", self.url()), |s| s.monitor())
    }

    /// The last handle closes the store; the others make what was written
    /// durable (nothing to do when the last closed it meanwhile: its close
    /// did).
    fn close(mut self: Box<Self>) -> Result<()> {
        if self.release() {
            return self.store.take().map_or(Ok(()), |s| s.close());
        }
        match self.store.lock() {
            Some(mut s) => s.barrier(),
            None => Ok(()),
        }
    }
}

/// A front end's open stores, under its keys (`K`), the newest the
/// current one. Each entry is a [`StoreHandle`], its store's only holder
/// unless the front end made more.
pub struct Registry<K> {
    entries: Mutex<Vec<(K, StoreHandle)>>,
}

impl<K> Default for Registry<K> {
    fn default() -> Self {
        Registry::new()
    }
}

impl<K> Registry<K> {
    pub const fn new() -> Registry<K> {
        Registry { entries: Mutex::new(Vec::new()) }
    }

    fn table(&self) -> MutexGuard<'_, Vec<(K, StoreHandle)>> {
        lock(&self.entries)
    }

    /// Adds an open store under `key`: the current one from here on.
    pub fn add(&self, key: K, store: Box<dyn StorageNode>) {
        self.table().push((key, StoreHandle::new(store)));
    }

    /// Adds an open store under `key` unless an entry `taken` picks is
    /// there already: then the store comes back, for the caller to close.
    pub fn add_unless(&self, key: K, store: Box<dyn StorageNode>, taken: impl Fn(&K) -> bool) -> Result<(), Box<dyn StorageNode>> {
        let mut table = self.table();
        if table.iter().any(|(k, _)| taken(k)) {
            return Err(store);
        }
        table.push((key, StoreHandle::new(store)));
        Ok(())
    }

    /// Whether an entry `pick` picks is there.
    pub fn contains(&self, pick: impl Fn(&K) -> bool) -> bool {
        self.table().iter().any(|(k, _)| pick(k))
    }

    /// The store of the newest entry `pick` picks, for calls.
    pub fn find(&self, pick: impl Fn(&K) -> bool) -> Option<StoreRef> {
        self.table().iter().rev().find(|(k, _)| pick(k)).map(|(_, h)| h.store().clone())
    }

    /// The current store (the newest entry's), for calls.
    pub fn current(&self) -> Option<StoreRef> {
        self.table().last().map(|(_, h)| h.store().clone())
    }

    /// The store a front end's call names: the newest entry `pick` picks,
    /// or with no `pick` the current store. The error says which was
    /// missing, `open` being the front end's name for opening a store
    /// (`cog_open`, `cog-open`).
    pub fn named_or_current(&self, pick: Option<impl Fn(&K) -> bool>, open: &str) -> Result<StoreRef, String> {
        match pick {
            Some(pick) => self.find(pick).ok_or_else(|| format!("that StorageNode is not open: {open} it first")),
            None => self.current().ok_or_else(|| format!("no StorageNode is open: {open} one first")),
        }
    }

    /// Takes the newest entry `pick` picks out of the table: its handle,
    /// for the caller to close.
    pub fn remove(&self, pick: impl Fn(&K) -> bool) -> Option<StoreHandle> {
        let mut table = self.table();
        let i = table.iter().rposition(|(k, _)| pick(k))?;
        Some(table.remove(i).1)
    }

    /// Takes the current entry out of the table: its handle, for the
    /// caller to close.
    pub fn remove_current(&self) -> Option<StoreHandle> {
        self.table().pop().map(|(_, h)| h)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc::{channel, Receiver, Sender};
    use std::time::Duration;

    /// What the probe stores saw, in order.
    type Log = Arc<Mutex<Vec<String>>>;

    /// A store that logs its barriers and its close; a gated one's
    /// barrier says it started and waits (at most 5 s) to be let go.
    struct Probe {
        url: String,
        log: Log,
        gate: Option<(Sender<()>, Receiver<()>)>,
    }

    fn probe(url: &str, log: &Log) -> Box<dyn StorageNode> {
        Box::new(Probe { url: url.into(), log: log.clone(), gate: None })
    }

    impl StorageNode for Probe {
        fn url(&self) -> &str {
            &self.url
        }
        fn store_atom(&mut self, _: &AtomSpace, _: Handle) -> Result<()> {
            Ok(())
        }
        fn store_value(&mut self, _: &AtomSpace, _: Handle, _: Handle) -> Result<()> {
            Ok(())
        }
        fn update_value(&mut self, _: &AtomSpace, _: Handle, _: Handle, _: &[f64]) -> Result<Value> {
            Ok(Value::float(Vec::new()))
        }
        fn fetch_atom(&mut self, _: &AtomSpace, _: Handle) -> Result<bool> {
            Ok(false)
        }
        fn fetch_value(&mut self, _: &AtomSpace, _: Handle, _: Handle) -> Result<bool> {
            Ok(false)
        }
        fn fetch_incoming_set(&mut self, _: &AtomSpace, _: Handle, _: bool) -> Result<usize> {
            Ok(0)
        }
        fn fetch_incoming_by_type(&mut self, _: &AtomSpace, _: Handle, _: Type) -> Result<usize> {
            Ok(0)
        }
        fn load_atoms_of_type(&mut self, _: &AtomSpace, _: Type) -> Result<usize> {
            Ok(0)
        }
        fn load_atomspace(&mut self, _: &AtomSpace, _: &mut dyn FnMut(u64)) -> Result<u64> {
            Ok(0)
        }
        fn store_atomspace(&mut self, _: &AtomSpace, _: &mut dyn FnMut(u64)) -> Result<u64> {
            Ok(0)
        }
        fn delete(&mut self, _: &AtomSpace, _: Handle, _: bool) -> Result<bool> {
            Ok(false)
        }
        fn barrier(&mut self) -> Result<()> {
            if let Some((started, go)) = &self.gate {
                started.send(()).expect("the test listens");
                go.recv_timeout(Duration::from_secs(5)).map_err(|_| StoreError::Backend(format!("{}: never let go", self.url)))?;
            }
            lock(&self.log).push(format!("{} barrier", self.url));
            Ok(())
        }
        fn close(self: Box<Self>) -> Result<()> {
            lock(&self.log).push(format!("{} close", self.url));
            Ok(())
        }
    }

    /// A store whose barrier blocks until let go: the barrier's start, and its release.
    fn gated(url: &str, log: &Log) -> (Box<dyn StorageNode>, Receiver<()>, Sender<()>) {
        let (started_tx, started) = channel();
        let (go, go_rx) = channel();
        (Box::new(Probe { url: url.into(), log: log.clone(), gate: Some((started_tx, go_rx)) }), started, go)
    }

    /// Two threads in calls on two stores at once: each call waits for the
    /// other to have started, which a lock held across calls would never
    /// let happen. Opening, finding and removing entries go on meanwhile.
    #[test]
    fn calls_on_two_stores_run_at_once() {
        let log = Log::default();
        let registry: Registry<&str> = Registry::new();
        let (a, a_started, a_go) = gated("a", &log);
        let (b, b_started, b_go) = gated("b", &log);
        registry.add("a", a);
        registry.add("b", b);
        std::thread::scope(|sc| {
            let first = sc.spawn(|| registry.find(|k| *k == "a").unwrap().call(|s| s.barrier()));
            a_started.recv_timeout(Duration::from_secs(5)).expect("a's call started");
            let second = sc.spawn(|| registry.find(|k| *k == "b").unwrap().call(|s| s.barrier()));
            b_started.recv_timeout(Duration::from_secs(5)).expect("b's call started while a's runs");
            // Both calls are running: the table is free all the same.
            registry.add("c", probe("c", &log));
            assert_eq!(registry.current().unwrap().url(), "c");
            registry.remove(|k| *k == "c").unwrap().close().unwrap();
            b_go.send(()).unwrap();
            second.join().unwrap().unwrap();
            a_go.send(()).unwrap();
            first.join().unwrap().unwrap();
        });
        assert_eq!(*lock(&log), ["c close", "b barrier", "a barrier"]);
    }

    /// The last handle closed closes the store; closing another makes it
    /// durable and leaves it open for the rest.
    #[test]
    fn the_last_handle_closes_the_store() {
        let log = Log::default();
        let first = StoreHandle::new(probe("s", &log));
        let second = first.another();
        let third = first.another();
        let calls = first.store().clone();
        first.close().unwrap();
        assert_eq!(*lock(&log), ["s barrier"]);
        assert!(calls.call(|_| Ok(())).is_ok(), "open while others hold it");
        drop(third);
        second.close().unwrap();
        assert_eq!(*lock(&log), ["s barrier", "s close"], "a dropped handle holds it no longer");
    }

    /// A store closed while a call holds its reference: the call gets a
    /// clear error, and the registry no longer has it.
    #[test]
    fn a_closed_store_is_a_clear_error() {
        let log = Log::default();
        let registry: Registry<u32> = Registry::new();
        registry.add(7, probe("lmdb:///kb", &log));
        let found = registry.find(|k| *k == 7).unwrap();
        assert!(registry.add_unless(7, probe("again", &log), |k| *k == 7).is_err(), "one entry per key when asked");
        registry.remove_current().unwrap().close().unwrap();
        let err = found.call(|s| s.barrier()).unwrap_err();
        assert_eq!(err.to_string(), "lmdb:///kb: the StorageNode was closed");
        assert!(found.lock().is_none() && found.take().is_none());
        assert!(registry.find(|k| *k == 7).is_none() && registry.current().is_none() && !registry.contains(|_| true));
        assert_eq!(registry.named_or_current(Some(|k: &u32| *k == 7), "cog-open").err().unwrap(), "that StorageNode is not open: cog-open it first");
        assert_eq!(registry.named_or_current(None::<fn(&u32) -> bool>, "cog_open").err().unwrap(), "no StorageNode is open: cog_open one first");
        assert_eq!(*lock(&log), ["lmdb:///kb close"]);
    }

    /// A close waits for a call still using the store, and closes after it.
    #[test]
    fn a_close_waits_for_the_call_in_progress() {
        let log = Log::default();
        let registry: Registry<()> = Registry::new();
        let (s, started, go) = gated("s", &log);
        registry.add((), s);
        std::thread::scope(|sc| {
            let store = registry.current().unwrap();
            let call = sc.spawn(move || store.call(|s| s.barrier()));
            started.recv_timeout(Duration::from_secs(5)).expect("the call started");
            let closing = sc.spawn(|| registry.remove_current().unwrap().close());
            std::thread::sleep(Duration::from_millis(50));
            assert!(!closing.is_finished(), "the close waits for the call");
            go.send(()).unwrap();
            call.join().unwrap().unwrap();
            closing.join().unwrap().unwrap();
        });
        assert_eq!(*lock(&log), ["s barrier", "s close"]);
    }
}
