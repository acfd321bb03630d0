//! [`LinkBatch`]: links gathered to be added in one call, for bulk loads.

use crate::handle::Handle;
use crate::types::Type;

/// Links to add together with [`AtomSpace::add_links`](crate::AtomSpace::add_links)
/// or [`AtomTable::add_links`](crate::AtomTable::add_links).
///
/// Adding links one call at a time waits for each link's cache misses (its
/// dedupe probe, its members' incoming sets) before starting the next; a
/// batch starts fetching the next links' memory while it adds this one, and
/// takes the shard locks once. The members are kept in one flat vector, so
/// a batch reused with [`clear`](Self::clear) allocates nothing.
///
/// ```
/// use atomweave::{types, AtomSpace, LinkBatch};
/// let space = AtomSpace::new();
/// let a = space.add_node(types::CONCEPT_NODE, "a").unwrap();
/// let b = space.add_node(types::CONCEPT_NODE, "b").unwrap();
/// let mut batch = LinkBatch::new();
/// batch.push(types::LIST_LINK, &[a, b]);
/// batch.push(types::LIST_LINK, &[b, a]);
/// let links = space.add_links(&batch).unwrap();
/// assert_eq!(space.outgoing(links[1]).unwrap(), &[b, a]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct LinkBatch {
    pub(crate) types: Vec<Type>,
    /// End of each link's members in `members`.
    pub(crate) ends: Vec<usize>,
    pub(crate) members: Vec<Handle>,
}

impl LinkBatch {
    /// An empty batch.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty batch with room for `links` links of `members` members in all.
    pub fn with_capacity(links: usize, members: usize) -> Self {
        LinkBatch { types: Vec::with_capacity(links), ends: Vec::with_capacity(links), members: Vec::with_capacity(members) }
    }

    /// Appends a link of type `t` over `outgoing`. Nothing is checked until
    /// the batch is added.
    pub fn push(&mut self, t: Type, outgoing: &[Handle]) {
        self.types.push(t);
        self.members.extend_from_slice(outgoing);
        self.ends.push(self.members.len());
    }

    /// Links in the batch.
    pub fn len(&self) -> usize {
        self.types.len()
    }

    /// Is the batch empty?
    pub fn is_empty(&self) -> bool {
        self.types.is_empty()
    }

    /// Empties the batch, keeping its memory.
    pub fn clear(&mut self) {
        self.types.clear();
        self.ends.clear();
        self.members.clear();
    }

    /// The links, in the order they were pushed.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Type, &[Handle])> + '_ {
        (0..self.len()).map(|i| (self.types[i], self.outgoing(i)))
    }

    #[inline]
    pub(crate) fn outgoing(&self, i: usize) -> &[Handle] {
        &self.members[self.range(i)]
    }

    /// Where link `i`'s members lie in `members`.
    #[inline]
    pub(crate) fn range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        start..self.ends[i]
    }
}
