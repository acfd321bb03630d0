//! [`AtomSink`]: the write API shared by [`AtomTable`] and [`AtomSpace`], so
//! loaders (the Atomese reader, storage backends) fill either.

use crate::{AtomSpace, AtomTable, Handle, Result, TruthValue, Type, Value};

/// Somewhere atoms can be added.
pub trait AtomSink {
    /// Adds a node, or returns the existing one.
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle>;
    /// Adds a link, or returns the existing one.
    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle>;
    /// Sets the truth value.
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()>;
    /// Sets the value under `key`.
    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()>;
    /// Is `h` an atom here?
    fn contains(&self, h: Handle) -> bool;
}

impl AtomSink for AtomTable {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        AtomTable::add_node(self, t, name)
    }
    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        AtomTable::add_link(self, t, outgoing)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        AtomTable::set_tv(self, h, tv)
    }
    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        AtomTable::set_value(self, h, key, v)
    }
    fn contains(&self, h: Handle) -> bool {
        crate::AtomRead::contains(self, h)
    }
}

impl AtomSink for &AtomSpace {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        AtomSpace::add_node(self, t, name)
    }
    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        AtomSpace::add_link(self, t, outgoing)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        AtomSpace::set_tv(self, h, tv)
    }
    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        AtomSpace::set_value(self, h, key, v)
    }
    fn contains(&self, h: Handle) -> bool {
        AtomSpace::contains(self, h)
    }
}
