//! Stores as the backing of a read-through space: an open store handed to
//! [`AtomSpace::set_backing`], so that the space reads atoms, values and
//! incoming sets from it as calls need them (the core's
//! `space/read_through.rs` says when).
//!
//! Only a store that finds atoms by content cheaply reads through (LMDB,
//! Redis: [`StorageNode::reads_through`]); the others are refused with a word on
//! what to do instead. This is not where fetched atoms are kept (the
//! space) nor how they are found (the store's `fetch_*` calls).

use atomweave::{AtomSpace, BackingStore, Handle, Type};

use crate::registry::{StoreHandle, StoreRef};
use crate::{Result, StorageNode, StoreError};

/// A store reached by a read-through space.
pub struct Backing {
    store: StoreRef,
    /// The store's holder, where the space owns the store.
    _held: Option<StoreHandle>,
}

fn core(e: StoreError) -> atomweave::Error {
    match e {
        StoreError::Space(e) => e,
        e => atomweave::Error::Backing(e.to_string()),
    }
}

impl Backing {
    /// A backing over a store another holder keeps open (a front end's
    /// registry): once that closes it, reads through it fail.
    pub fn over(store: StoreRef) -> Result<Backing> {
        Self::check(&store)?;
        Ok(Backing { store, _held: None })
    }

    /// A backing that owns `store`: it closes when the space lets it go.
    pub fn owning(store: Box<dyn StorageNode>) -> Result<Backing> {
        let held = StoreHandle::new(store);
        let store = held.store().clone();
        Self::check(&store)?;
        Ok(Backing { store, _held: Some(held) })
    }

    fn check(store: &StoreRef) -> Result<()> {
        if store.call(|s| Ok(s.reads_through()))? {
            return Ok(());
        }
        Err(StoreError::Unsupported(format!(
            "{}: only an LMDB (lmdb:///dir) or Redis (redis://, redis+cluster://) store can be read through; load this one (load-atomspace, `atomweave load`) or copy it to LMDB (`atomweave copy`)",
            store.url()
        )))
    }

    fn call<T>(&self, f: impl FnOnce(&mut dyn StorageNode) -> Result<T>) -> atomweave::Result<T> {
        self.store.call(f).map_err(core)
    }
}

/// A new space that reads through the store at `url`, which must exist.
pub fn open_space(url: &str) -> Result<AtomSpace> {
    let space = AtomSpace::new();
    space.set_backing(Some(Box::new(Backing::owning(crate::open_existing(url)?)?)))?;
    Ok(space)
}

/// Upstream's `fetch-query` on the store `store` reaches: a store that
/// reads through runs `query` over `space` reading through the store (the
/// atoms it touches stay in the space, and take their stored values, as
/// `fetch-incoming-set` gives them), and sets the result on `query` under
/// `key`; unless `fresh`, a result already there is given again. Any
/// other store runs its own `fetch_query` (a `cog://` server runs the
/// query there). One fetch-query at a time attaches the store: another
/// thread's waits; one nested in it (a grounded call) runs in its reading.
pub fn fetch_query(space: &AtomSpace, store: &StoreRef, query: Handle, key: Handle, fresh: bool) -> Result<atomweave::Value> {
    if !store.call(|s| Ok(s.reads_through()))? {
        return store.call(|s| s.fetch_query(space, query, key, fresh));
    }
    if !fresh {
        if let Some(v) = space.get_value(query, key) {
            return Ok(v);
        }
    }
    thread_local! {
        static ATTACHED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
    }
    static ONE_AT_A_TIME: std::sync::Mutex<()> = std::sync::Mutex::new(());
    let v = if ATTACHED.with(|a| a.get()) {
        atomweave::query::execute_value(space, query)
    } else {
        let _one = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
        if space.is_read_through() {
            // A space opened over a store: it reads through it already.
            atomweave::query::execute_value(space, query)
        } else {
            /// Detaches the store however the query ends.
            struct Attached<'a>(&'a AtomSpace);
            impl Drop for Attached<'_> {
                fn drop(&mut self) {
                    ATTACHED.with(|a| a.set(false));
                    let _ = self.0.set_backing(None);
                }
            }
            space.set_backing(Some(Box::new(Backing::over(store.clone())?)))?;
            ATTACHED.with(|a| a.set(true));
            let _attached = Attached(space);
            atomweave::query::execute_value(space, query)
        }
    }?;
    space.set_value(query, key, v.clone())?;
    Ok(v)
}

impl BackingStore for Backing {
    fn url(&self) -> String {
        self.store.url().to_string()
    }

    fn fetch_incoming(&self, space: &AtomSpace, h: Handle) -> atomweave::Result<()> {
        self.call(|s| s.fetch_incoming_set(space, h, false)).map(drop)
    }

    fn incoming_count(&self, space: &AtomSpace, h: Handle, limit: usize) -> atomweave::Result<Option<usize>> {
        self.call(|s| s.incoming_count(space, h, limit))
    }

    fn fetch_type(&self, space: &AtomSpace, t: Type, subtypes: bool) -> atomweave::Result<()> {
        if t == atomweave::types::ATOM && subtypes {
            return self.call(|s| s.load_atomspace(space, &mut |_| {})).map(drop);
        }
        let types = if subtypes { t.subtypes() } else { vec![t] };
        self.call(|s| types.iter().try_for_each(|&t| s.load_atoms_of_type(space, t).map(drop)))
    }

    fn fetch_values(&self, space: &AtomSpace, h: Handle) -> atomweave::Result<()> {
        self.call(|s| s.fetch_atom(space, h)).map(drop)
    }

    fn fetch_node(&self, space: &AtomSpace, t: Type, name: &str) -> atomweave::Result<Option<Handle>> {
        self.call(|s| s.fetch_node(space, t, name))
    }

    fn fetch_link(&self, space: &AtomSpace, t: Type, outgoing: &[Handle]) -> atomweave::Result<Option<Handle>> {
        self.call(|s| s.fetch_link(space, t, outgoing))
    }
}
