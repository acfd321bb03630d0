//! [`LinkBatch`] and [`NodeBatch`]: atoms gathered to be added in one call,
//! for bulk loads.

use crate::handle::Handle;
use crate::types::Type;

/// Typed rows of any length kept flat, one vector for all their items: the
/// shape both batches share.
#[derive(Clone, Debug)]
pub(crate) struct Rows<T> {
    pub(crate) types: Vec<Type>,
    /// End of each row's items in `items`.
    ends: Vec<usize>,
    items: Vec<T>,
}

impl<T> Default for Rows<T> {
    fn default() -> Self {
        Rows { types: Vec::new(), ends: Vec::new(), items: Vec::new() }
    }
}

impl<T: Clone> Rows<T> {
    fn with_capacity(rows: usize, items: usize) -> Self {
        Rows { types: Vec::with_capacity(rows), ends: Vec::with_capacity(rows), items: Vec::with_capacity(items) }
    }

    fn push(&mut self, t: Type, items: impl IntoIterator<Item = T>) {
        self.types.push(t);
        self.items.extend(items);
        self.ends.push(self.items.len());
    }

    fn len(&self) -> usize {
        self.types.len()
    }

    fn clear(&mut self) {
        self.types.clear();
        self.ends.clear();
        self.items.clear();
    }

    fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.types.truncate(len);
            self.ends.truncate(len);
            self.items.truncate(self.ends.last().copied().unwrap_or(0));
        }
    }

    /// Where row `i`'s items lie in `items`.
    #[inline]
    fn range(&self, i: usize) -> std::ops::Range<usize> {
        let start = if i == 0 { 0 } else { self.ends[i - 1] };
        start..self.ends[i]
    }

    #[inline]
    fn row(&self, i: usize) -> &[T] {
        &self.items[self.range(i)]
    }
}

/// The methods both batches have, on their rows (`what`: "links", "nodes").
macro_rules! rows_methods {
    ($batch:ident, $what:literal) => {
        impl $batch {
            /// An empty batch.
            pub fn new() -> Self {
                Self::default()
            }

            #[doc = concat!("The ", $what, " in the batch.")]
            pub fn len(&self) -> usize {
                self.0.len()
            }

            /// Is the batch empty?
            pub fn is_empty(&self) -> bool {
                self.0.len() == 0
            }

            /// Empties the batch, keeping its memory.
            pub fn clear(&mut self) {
                self.0.clear();
            }

            #[doc = concat!("Drops the ", $what, " from the `len`th on.")]
            pub fn truncate(&mut self, len: usize) {
                self.0.truncate(len);
            }
        }
    };
}

rows_methods!(LinkBatch, "links");
rows_methods!(NodeBatch, "nodes");

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
pub struct LinkBatch(
    pub(crate) Rows<Handle>,
    /// Whether every unordered link's members are in content order already
    /// ([`trust_member_order`](Self::trust_member_order)). Any push clears
    /// it; `clear` and `truncate` may keep it (an empty batch, or a prefix
    /// of one, is still in order).
    bool,
);

impl LinkBatch {
    /// An empty batch with room for `links` links of `members` members in all.
    pub fn with_capacity(links: usize, members: usize) -> Self {
        LinkBatch(Rows::with_capacity(links, members), false)
    }

    /// Appends a link of type `t` over `outgoing`. Nothing is checked until
    /// the batch is added.
    pub fn push(&mut self, t: Type, outgoing: &[Handle]) {
        self.0.push(t, outgoing.iter().copied());
        self.1 = false;
    }

    /// Marks the batch as the loader's, of links over nodes whose unordered
    /// links' members it put in content order (on placeholders, as the
    /// file was read): a table adds them without comparing them again.
    pub(crate) fn trust_member_order(&mut self, trusted: bool) {
        self.1 = trusted;
    }

    /// Was the members' order marked as trusted since the last push?
    pub(crate) fn member_order_trusted(&self) -> bool {
        self.1
    }

    /// Appends a link of type `t` over the members `outgoing` yields.
    pub(crate) fn push_with(&mut self, t: Type, outgoing: impl IntoIterator<Item = Handle>) {
        self.0.push(t, outgoing);
        self.1 = false;
    }

    /// The links, in the order they were pushed.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Type, &[Handle])> + '_ {
        (0..self.len()).map(|i| (self.0.types[i], self.outgoing(i)))
    }

    /// The types of the links, in order.
    #[inline]
    pub(crate) fn types(&self) -> &[Type] {
        &self.0.types
    }

    /// Does the batch hold a StateLink or GrantLink? A space adds those by
    /// key (a new state replaces the old, a grant refuses a second), so
    /// their order is their meaning.
    pub(crate) fn holds_keyed(&self) -> bool {
        self.0.types.iter().any(|&t| t.is_added_by_key())
    }

    /// Every link's members, one after the other.
    #[inline]
    pub(crate) fn members(&self) -> &[Handle] {
        &self.0.items
    }

    #[inline]
    pub(crate) fn outgoing(&self, i: usize) -> &[Handle] {
        self.0.row(i)
    }

    /// Where link `i`'s members lie in [`members`](Self::members).
    #[inline]
    pub(crate) fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.0.range(i)
    }
}

/// Nodes to add together with [`AtomSpace::add_nodes`](crate::AtomSpace::add_nodes)
/// or [`AtomTable::add_nodes`](crate::AtomTable::add_nodes): as [`LinkBatch`]
/// for links, a batch fetches the next nodes' dedupe probes and names while
/// it adds this one. The names are kept in one string, so a batch reused
/// with [`clear`](Self::clear) allocates nothing.
///
/// ```
/// use atomweave::{types, AtomSpace, NodeBatch};
/// let space = AtomSpace::new();
/// let mut batch = NodeBatch::new();
/// batch.push(types::CONCEPT_NODE, "a");
/// batch.push(types::CONCEPT_NODE, "a");
/// let nodes = space.add_nodes(&batch).unwrap();
/// assert_eq!(nodes[0], nodes[1]);
/// ```
#[derive(Clone, Debug, Default)]
pub struct NodeBatch(Rows<u8>);

impl NodeBatch {
    /// Appends a node of type `t` named `name`. Nothing is checked until
    /// the batch is added.
    pub fn push(&mut self, t: Type, name: &str) {
        self.0.push(t, name.bytes());
    }

    /// The nodes, in the order they were pushed.
    pub fn iter(&self) -> impl ExactSizeIterator<Item = (Type, &str)> + '_ {
        (0..self.len()).map(|i| self.get(i))
    }

    /// The types of the nodes, in order.
    #[inline]
    pub(crate) fn types(&self) -> &[Type] {
        &self.0.types
    }

    /// Node `i`'s type and name.
    #[inline]
    pub(crate) fn get(&self, i: usize) -> (Type, &str) {
        // SAFETY: each row is the bytes of one `&str`, pushed whole.
        (self.0.types[i], unsafe { std::str::from_utf8_unchecked(self.0.row(i)) })
    }
}
