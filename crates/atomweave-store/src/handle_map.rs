//! Store ids of a space's atoms, kept by handle: what the database
//! stores look an atom up by before they ask the store.
//!
//! Invariant: an entry is the id of the atom that handle names in the
//! space the cache belongs to ([`SpaceIds`]), and a cache given another
//! space forgets every entry (handles are a space's own); a map keeps
//! every entry whether it is a vector or a hash map, and never holds the
//! `absent` mark as a value.

use atomweave::{AtomSpace, Handle, WeakSpace};

use crate::HashMap;

/// Values by handle number, `absent` marking none. Handle numbers are
/// dense in a space that has only grown, so this is a vector, not a hash
/// map (a whole-space store looks every atom and member up here); but
/// numbers are never reused, and a space shares its numbering with its
/// hierarchy, so they may lie far above the entries: where a vector would
/// be more than four times the entries (and [`SLACK`]), they go in a map,
/// and back into a vector once filled in.
pub(crate) struct HandleMap<V> {
    dense: Vec<V>,
    sparse: Option<HashMap<u32, V>>,
    absent: V,
    len: usize,
    /// The highest number in the map, while there is one.
    top: usize,
}

/// Room a vector may have beyond four times its entries: 8 MB of ids.
const SLACK: usize = 1 << 20;

/// Whether numbers below `len` may take a vector for `entries` entries.
fn fits(len: usize, entries: usize) -> bool {
    len <= 4 * entries + SLACK
}

impl<V: Copy + PartialEq> HandleMap<V> {
    pub(crate) fn new(absent: V) -> Self {
        HandleMap { dense: Vec::new(), sparse: None, absent, len: 0, top: 0 }
    }

    pub(crate) fn get(&self, h: &Handle) -> Option<&V> {
        let n = h.to_u32();
        let found = match &self.sparse {
            Some(m) => m.get(&n),
            None => self.dense.get(n as usize),
        };
        found.filter(|v| **v != self.absent)
    }

    pub(crate) fn contains_key(&self, h: &Handle) -> bool {
        self.get(h).is_some()
    }

    pub(crate) fn insert(&mut self, h: Handle, v: V) {
        debug_assert!(v != self.absent, "the absent mark is not a value");
        let i = h.to_u32() as usize;
        if let Some(m) = &mut self.sparse {
            if m.insert(i as u32, v).is_none() {
                self.len += 1;
            }
            self.top = self.top.max(i);
            if self.len.is_power_of_two() && fits(self.top + 1, self.len) {
                self.make_dense(self.top + 1);
            }
            return;
        }
        if i >= self.dense.len() {
            if !fits(i + 1, self.len + 1) {
                self.make_sparse(self.len + 1);
                return self.insert(h, v);
            }
            let len = (i + 1).max((self.dense.len() * 2).min(4 * (self.len + 1) + SLACK));
            self.dense.resize(len, self.absent);
        }
        if std::mem::replace(&mut self.dense[i], v) == self.absent {
            self.len += 1;
        }
    }

    pub(crate) fn clear(&mut self) {
        *self = HandleMap::new(self.absent);
    }

    /// Room for `entries` handles numbered up to `top`, made once.
    pub(crate) fn reserve(&mut self, top: u32, entries: usize) {
        let entries = entries.max(self.len);
        let len = (top as usize + 1).max(if self.sparse.is_some() { self.top + 1 } else { 0 });
        if !fits(len, entries) {
            match &mut self.sparse {
                Some(m) => m.reserve(entries - m.len()),
                None => self.make_sparse(entries),
            }
        } else if self.sparse.is_some() {
            self.make_dense(len);
        } else if self.dense.len() < len {
            self.dense.reserve_exact(len - self.dense.len());
            self.dense.resize(len, self.absent);
        }
    }

    fn make_sparse(&mut self, capacity: usize) {
        let mut m = HashMap::with_capacity_and_hasher(capacity, Default::default());
        for (n, v) in std::mem::take(&mut self.dense).into_iter().enumerate().filter(|(_, v)| *v != self.absent) {
            m.insert(n as u32, v);
            self.top = n;
        }
        self.sparse = Some(m);
    }

    fn make_dense(&mut self, len: usize) {
        let mut dense = vec![self.absent; len];
        for (n, v) in self.sparse.take().into_iter().flatten() {
            dense[n as usize] = v;
        }
        self.dense = dense;
    }
}

impl<V: Copy + PartialEq> std::ops::Index<&Handle> for HandleMap<V> {
    type Output = V;

    fn index(&self, h: &Handle) -> &V {
        self.get(h).expect("a handle with an entry")
    }
}

/// A store's ids of one space's atoms, by handle: handles are a space's
/// own, so a call with another space starts the cache afresh
/// ([`use_space`](Self::use_space)).
pub(crate) struct SpaceIds<V> {
    ids: HandleMap<V>,
    /// Held weakly: a read-through space holds its store, which must not
    /// hold the space alive in turn.
    space: Option<WeakSpace>,
}

impl<V: Copy + PartialEq> SpaceIds<V> {
    /// An empty cache; `absent` marks "not known" (no id is it).
    pub(crate) fn new(absent: V) -> Self {
        SpaceIds { ids: HandleMap::new(absent), space: None }
    }

    /// Ids of atoms of `space` from here on: another space's are forgotten.
    pub(crate) fn use_space(&mut self, space: &AtomSpace) {
        if !self.space.as_ref().is_some_and(|w| w.is(space)) {
            self.ids.clear();
            self.space = Some(space.downgrade());
        }
    }
}

impl<V> std::ops::Deref for SpaceIds<V> {
    type Target = HandleMap<V>;

    fn deref(&self) -> &HandleMap<V> {
        &self.ids
    }
}

impl<V> std::ops::DerefMut for SpaceIds<V> {
    fn deref_mut(&mut self) -> &mut HandleMap<V> {
        &mut self.ids
    }
}

/// LMDB's store ids of one space's atoms. Store ids start at 1; 0 marks
/// "not known".
pub(crate) type IdCache = SpaceIds<u64>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_handle_map_stays_a_vector_while_dense_and_a_map_once_not() {
        let h = Handle::from_u32;
        let mut m = HandleMap::new(0u64);
        for n in 0..10_000 {
            m.insert(h(n), u64::from(n) + 1);
        }
        assert!(m.sparse.is_none());
        assert_eq!(m.get(&h(9_999)), Some(&10_000));
        assert_eq!(m.get(&h(10_000)), None);
        // One number far above the rest: the entries move to a map, every one kept.
        m.insert(h(100_000_000), 7);
        assert!(m.sparse.is_some() && m.dense.is_empty());
        assert_eq!(m.len, 10_001);
        assert!((0..10_000).all(|n| m[&h(n)] == u64::from(n) + 1));
        assert_eq!(m.get(&h(100_000_000)), Some(&7));
        m.insert(h(5), 9);
        assert_eq!((m.len, m[&h(5)]), (10_001, 9), "a value replaced is not counted again");
        m.clear();
        assert_eq!(m.get(&h(5)), None);

        // A first number that is high but within the slack: a vector.
        m.insert(h(600_000), 1);
        assert!(m.sparse.is_none());
        // Beyond it: a map, and a vector again once the numbers below are filled in.
        m.clear();
        m.insert(h(3_000_000), 1);
        assert!(m.sparse.is_some());
        for n in 1..700_000 {
            m.insert(h(n), 2);
        }
        assert!(m.sparse.is_none(), "filled in: a vector again");
        assert_eq!((m.len, m.get(&h(3_000_000)), m.get(&h(699_999)), m.get(&h(0))), (700_000, Some(&1), Some(&2), None));

        // Reserved for few entries numbered high: a map, keeping what it held.
        let mut m = HandleMap::new(u32::MAX);
        m.insert(h(3), 30);
        m.reserve(50_000_000, 100);
        assert!(m.sparse.is_some() && m.dense.is_empty());
        m.insert(h(49_999_999), 3);
        assert_eq!((m.get(&h(49_999_999)), m.get(&h(3))), (Some(&3), Some(&30)));
        // For many: a vector of them all.
        m.reserve(50_000_000, 40_000_000);
        assert!(m.sparse.is_none() && m.dense.len() == 50_000_001);
        assert_eq!((m.get(&h(49_999_999)), m.get(&h(3)), m.get(&h(4))), (Some(&3), Some(&30), None));
    }
}
