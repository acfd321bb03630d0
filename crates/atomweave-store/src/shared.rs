//! One store reached along several paths of a proxy tree: upstream's
//! StorageNode is one atom and one connection however many proxies name
//! it (a ReadWriteProxy that reads a store and writes it through a
//! WriteBufferProxy), and an embedded store may be opened once per process.
//! Each path holds a [`SharedStore`]; the last one closed closes the store.

use std::sync::{Arc, Mutex, MutexGuard};

use atomweave::{AtomSpace, Handle, Type, Value};

use crate::{Result, StorageNode, StoreError};

/// A handle on a store that other paths share.
pub struct SharedStore {
    url: String,
    store: Arc<Mutex<Option<Box<dyn StorageNode>>>>,
}

impl SharedStore {
    /// The first handle on `store`.
    pub fn new(store: Box<dyn StorageNode>) -> SharedStore {
        SharedStore { url: store.url().to_string(), store: Arc::new(Mutex::new(Some(store))) }
    }

    /// Another handle on the same store.
    pub fn another(&self) -> SharedStore {
        SharedStore { url: self.url.clone(), store: self.store.clone() }
    }

    fn lock(&self) -> MutexGuard<'_, Option<Box<dyn StorageNode>>> {
        self.store.lock().unwrap_or_else(|e| e.into_inner())
    }

    fn with<R>(&self, f: impl FnOnce(&mut dyn StorageNode) -> Result<R>) -> Result<R> {
        match self.lock().as_mut() {
            Some(s) => f(&mut **s),
            None => Err(StoreError::Unsupported(format!("{}: closed", self.url))),
        }
    }
}

impl StorageNode for SharedStore {
    fn url(&self) -> &str {
        &self.url
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
        self.lock().as_ref().map_or_else(|| format!("{}: closed\n", self.url), |s| s.monitor())
    }
    /// The last handle closes the store; the others make what they wrote durable.
    fn close(self: Box<Self>) -> Result<()> {
        let SharedStore { url, store } = *self;
        match Arc::try_unwrap(store) {
            Ok(only) => only.into_inner().unwrap_or_else(|e| e.into_inner()).map_or(Ok(()), |s| s.close()),
            Err(shared) => {
                let other = SharedStore { url, store: shared };
                other.with(|s| s.barrier())
            }
        }
    }
}
