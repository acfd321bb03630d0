//! [`AtomSink`]: the write API shared by [`AtomTable`] and [`AtomSpace`], so
//! loaders (the Atomese reader, storage backends) fill either.

use crate::{AtomSpace, AtomTable, Handle, LinkBatch, NodeBatch, Result, TruthValue, Type, Value};

mod sealed {
    /// The token of [`AtomSink::as_table`](super::AtomSink::as_table):
    /// public, but in a private module, so no other crate can name it.
    #[derive(Clone, Copy)]
    pub struct Sealed(pub(crate) ());
}
pub(crate) use sealed::Sealed;

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
    /// Removes the value under `key` (under the truth-value key: resets
    /// the truth value to the default).
    fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()>;
    /// Sets the value under `key` and gives back the one it replaced, where
    /// the sink can, so that the caller drops it where it likes (the
    /// loader: on its reading thread, off the adding one).
    fn replace_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<Option<Value>> {
        self.set_value(h, key, v).map(|()| None)
    }
    /// Is `h` an atom here?
    fn contains(&self, h: Handle) -> bool;
    /// The sink as an [`AtomTable`], if it is one: a loader then looks
    /// nodes up on its reading thread while another adds, and writes to
    /// the table itself. Sealed (its token cannot be named outside this
    /// crate), so that a sink wrapping a table is never passed by.
    #[doc(hidden)]
    fn as_table(&mut self, _: Sealed) -> Option<&mut AtomTable> {
        None
    }
    /// Starts fetching what setting `h`'s truth value or values reads, so
    /// that a run of such writes overlaps its cache misses. A hint: a sink
    /// may do nothing.
    fn prefetch_values(&self, _h: Handle) {}
    /// Adds the nodes of a batch in order (one at a time, unless the sink
    /// has a bulk path).
    fn add_nodes(&mut self, batch: &NodeBatch) -> Result<Vec<Handle>> {
        batch.iter().map(|(t, name)| self.add_node(t, name)).collect()
    }
    /// Adds the links of a batch in order (one at a time, unless the sink
    /// has a bulk path).
    fn add_links(&mut self, batch: &LinkBatch) -> Result<Vec<Handle>> {
        batch.iter().map(|(t, out)| self.add_link(t, out)).collect()
    }
}

// Every write goes through the table's `TableWriter`.
impl AtomSink for AtomTable {
    fn add_node(&mut self, t: Type, name: &str) -> Result<Handle> {
        self.writer().add_node(t, name)
    }
    fn add_link(&mut self, t: Type, outgoing: &[Handle]) -> Result<Handle> {
        self.writer().add_link(t, outgoing)
    }
    fn set_tv(&mut self, h: Handle, tv: TruthValue) -> Result<()> {
        self.writer().set_tv(h, tv)
    }
    fn set_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<()> {
        self.writer().set_value(h, key, v)
    }
    fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()> {
        self.writer().remove_value(h, key)
    }
    fn replace_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<Option<Value>> {
        self.writer().replace_value(h, key, v)
    }
    fn contains(&self, h: Handle) -> bool {
        crate::AtomRead::contains(self, h)
    }
    fn add_nodes(&mut self, batch: &NodeBatch) -> Result<Vec<Handle>> {
        self.writer().add_nodes(batch)
    }
    fn prefetch_values(&self, h: Handle) {
        self.store.recs.prefetch_values(h);
    }
    fn add_links(&mut self, batch: &LinkBatch) -> Result<Vec<Handle>> {
        self.writer().add_links(batch)
    }
    fn as_table(&mut self, _: Sealed) -> Option<&mut AtomTable> {
        Some(self)
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
    fn remove_value(&mut self, h: Handle, key: Handle) -> Result<()> {
        AtomSpace::remove_value(self, h, key)
    }
    fn replace_value(&mut self, h: Handle, key: Handle, v: Value) -> Result<Option<Value>> {
        AtomSpace::replace_value(self, h, key, v)
    }
    fn contains(&self, h: Handle) -> bool {
        AtomSpace::contains(self, h)
    }
    fn add_nodes(&mut self, batch: &NodeBatch) -> Result<Vec<Handle>> {
        AtomSpace::add_nodes(self, batch)
    }
    fn prefetch_values(&self, h: Handle) {
        AtomSpace::prefetch_values(self, h);
    }
    fn add_links(&mut self, batch: &LinkBatch) -> Result<Vec<Handle>> {
        AtomSpace::add_links(self, batch)
    }
}
