//! [`AtomRead`]: the read API shared by [`AtomTable`](crate::AtomTable) and a
//! read-locked [`AtomSpace`](crate::AtomSpace) ([`SpaceRead`](crate::SpaceRead)).
//!
//! Everything here returns plain references: the implementor guarantees that
//! no shard changes while it is borrowed.

use std::borrow::Cow;

use crate::handle::{Handle, SHARDS};
use crate::store::Records;
use crate::types::Type;
use crate::value::{TruthValue, Value, TV_KEY};

pub(crate) mod sealed {
    /// Raw access to a store whose shards are stable while `self` is borrowed.
    pub trait Access {
        #[doc(hidden)]
        fn recs(&self) -> &crate::store::Records;
        #[doc(hidden)]
        fn shard(&self, s: usize) -> &crate::store::Shard;
    }
}

/// The types a by-type query covers.
pub(crate) fn query_types(t: Type, subtypes: bool) -> Vec<Type> {
    if subtypes {
        t.subtypes()
    } else {
        vec![t]
    }
}

/// Reading atoms without locks: lookups, types, names, outgoing and incoming
/// sets, values, type scans and counts.
pub trait AtomRead: sealed::Access {
    /// The node of this type and name, if present.
    fn get_node(&self, t: Type, name: &str) -> Option<Handle> {
        let hash = self.recs().hash_node(t, name);
        self.recs().find_node(hash, t, name)
    }

    /// The link of this type and outgoing set, if present.
    fn get_link(&self, t: Type, outgoing: &[Handle]) -> Option<Handle> {
        let out = crate::table::link_key(t, outgoing, self).ok()?;
        let hash = self.recs().hash_link(t, &out);
        self.recs().find_link(hash, t, &out)
    }

    /// Is `h` an atom here?
    #[inline]
    fn contains(&self, h: Handle) -> bool {
        self.recs().rec(h).is_some()
    }

    /// The atom's type.
    #[inline]
    fn get_type(&self, h: Handle) -> Option<Type> {
        self.recs().rec(h).map(|r| r.ty())
    }

    /// Is the atom a link?
    #[inline]
    fn is_link(&self, h: Handle) -> bool {
        self.recs().rec(h).is_some_and(|r| r.is_link())
    }

    /// The node's name (`None` for links and invalid handles).
    #[inline]
    fn name(&self, h: Handle) -> Option<&str> {
        self.recs().name(h)
    }

    /// The link's outgoing set (empty for nodes).
    #[inline]
    fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        self.recs().outgoing(h)
    }

    /// Number of atoms in the outgoing set.
    #[inline]
    fn arity(&self, h: Handle) -> Option<usize> {
        self.outgoing(h).map(<[Handle]>::len)
    }

    /// The links that contain the atom, each once, in no particular order.
    #[inline]
    fn incoming(&self, h: Handle) -> Option<&[Handle]> {
        self.recs().incoming_in(self.shard(h.shard()), h)
    }

    /// Number of links that contain the atom.
    #[inline]
    fn incoming_size(&self, h: Handle) -> Option<usize> {
        self.recs().incoming_size(h)
    }

    /// The links of type `t` that contain the atom.
    fn incoming_by_type(&self, h: Handle, t: Type) -> impl Iterator<Item = Handle> + '_ {
        self.incoming(h).unwrap_or(&[]).iter().copied().filter(move |&l| self.get_type(l) == Some(t))
    }

    /// Atoms of type `t` (and of its subtypes when `subtypes`), read in place.
    fn handles_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        query_types(t, subtypes)
            .into_iter()
            .flat_map(move |t| (0..SHARDS).flat_map(move |s| Records::blocks_in(self.shard(s), t).iter().flat_map(move |&b| self.recs().block_atoms(s, b))))
    }

    /// Atoms of type `t` (or its subtypes) that no link contains.
    fn root_set_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        self.handles_by_type(t, subtypes).filter(move |&h| self.incoming_size(h) == Some(0))
    }

    /// The truth value (the default one when none was set).
    #[inline]
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        let rec = self.recs().rec(h)?;
        if !rec.has_tv() {
            return Some(TruthValue::DEFAULT);
        }
        // A read-locked view runs no code, and is not given out while a
        // truth value is a stream (`AtomSpace::read`); a table has none.
        self.recs().get_tv_in(self.shard(h.shard()), h).map(|e| match e {
            crate::store::TvEntry::Tv(tv) => tv,
            crate::store::TvEntry::Stream(_) => TruthValue::DEFAULT,
        })
    }

    /// The value under `key`; under the truth-value key, the truth value.
    fn get_value(&self, h: Handle, key: Handle) -> Option<Value> {
        if self.is_tv_key(key) {
            return self.get_tv(h).map(Value::Truth);
        }
        self.recs().get_value_in(self.shard(h.shard()), h, key)
    }

    /// Keys and values of the atom, truth value excluded.
    fn key_values(&self, h: Handle) -> &[(Handle, Value)] {
        self.recs().key_values_in(self.shard(h.shard()), h)
    }

    /// Number of atoms.
    fn size(&self) -> usize {
        let (n, l) = node_link_counts(self);
        n + l
    }

    /// Number of nodes.
    fn num_nodes(&self) -> usize {
        node_link_counts(self).0
    }

    /// Number of links.
    fn num_links(&self) -> usize {
        node_link_counts(self).1
    }

    /// Number of atoms of type `t` (and its subtypes when `subtypes`).
    fn count_of_type(&self, t: Type, subtypes: bool) -> usize {
        query_types(t, subtypes).into_iter().map(|t| (0..SHARDS).map(|s| Records::count_in(self.shard(s), t)).sum::<usize>()).sum()
    }

    /// Every atom, nodes and links of every type.
    fn all_atoms(&self) -> impl Iterator<Item = Handle> + '_ {
        (0..SHARDS).flat_map(move |s| {
            let sh = self.shard(s);
            Records::types_in(sh).flat_map(move |t| Records::blocks_in(sh, t).iter().flat_map(move |&b| self.recs().block_atoms(s, b)))
        })
    }
}

impl<T: sealed::Access> AtomRead for T {}

fn node_link_counts<R: sealed::Access + ?Sized>(r: &R) -> (usize, usize) {
    (0..SHARDS).map(|s| Records::counts_in(r.shard(s))).fold((0, 0), |a, c| (a.0 + c.0, a.1 + c.1))
}

/// What the writer, the content order and the loader read atoms from:
/// any [`AtomRead`] view, or an [`AtomSpace`](crate::AtomSpace) itself (child spaces included, which have no `AtomRead` view).
pub trait AtomSource {
    fn get_type(&self, h: Handle) -> Option<Type>;
    fn name(&self, h: Handle) -> Option<&str>;
    fn outgoing(&self, h: Handle) -> Option<&[Handle]>;
    fn get_tv(&self, h: Handle) -> Option<TruthValue>;
    fn key_values(&self, h: Handle) -> Cow<'_, [(Handle, Value)]>;
    /// Starts fetching what writing `h` reads first (its record and truth
    /// value), so that a writer running ahead overlaps the cache misses
    /// of atoms spread over memory. A hint: it changes nothing.
    fn prefetch(&self, _h: Handle) {}
    /// Starts fetching `h`'s name or outgoing set, once its record is in
    /// cache (after [`prefetch`](Self::prefetch)). A hint, as that is.
    fn prefetch_contents(&self, _h: Handle) {}
    /// Do the two hints do anything? A writer's look-ahead reads outgoing
    /// sets to find what to fetch: wasted where nothing is.
    fn prefetches(&self) -> bool {
        false
    }
    /// Is `key` upstream's truth-value key, `(PredicateNode
    /// "*-TruthValueKey-*")`? Values under it are the atom's truth value.
    /// The type test, lock-free, settles almost every call.
    fn is_tv_key(&self, key: Handle) -> bool {
        self.get_type(key) == Some(crate::types::PREDICATE_NODE) && self.name(key) == Some(TV_KEY)
    }
}

impl<R: AtomRead + ?Sized> AtomSource for R {
    fn get_type(&self, h: Handle) -> Option<Type> {
        AtomRead::get_type(self, h)
    }
    fn name(&self, h: Handle) -> Option<&str> {
        AtomRead::name(self, h)
    }
    fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        AtomRead::outgoing(self, h)
    }
    fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        AtomRead::get_tv(self, h)
    }
    fn key_values(&self, h: Handle) -> Cow<'_, [(Handle, Value)]> {
        Cow::Borrowed(AtomRead::key_values(self, h))
    }
    fn prefetch(&self, h: Handle) {
        self.recs().prefetch_values(h);
    }
    fn prefetch_contents(&self, h: Handle) {
        self.recs().prefetch_contents(h);
    }
    fn prefetches(&self) -> bool {
        true
    }
}
