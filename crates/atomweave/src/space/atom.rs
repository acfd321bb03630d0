//! Reading one atom: its type, name, outgoing and incoming sets, truth
//! value and values, as the space sees it (a frame's own values over its
//! bases').
//!
//! Over a store (`read_through.rs`), an incoming set or a value is
//! fetched before its first reading.
//!
//! **Invariant:** nothing here takes a write lock; values are read under
//! the owning shard's read lock, the rest without a lock.

use smallvec::SmallVec;

use crate::handle::Handle;
use crate::read::AtomSource;
use crate::store::TvEntry;
use crate::types::Type;
use crate::value::{TruthValue, Value};

use super::AtomSpace;

/// An incoming set copied out of a space: up to eight links without
/// allocating. [`AtomSpace::read`] gives them in place instead.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Incoming(SmallVec<[Handle; 8]>);

impl std::ops::Deref for Incoming {
    type Target = [Handle];
    fn deref(&self) -> &[Handle] {
        &self.0
    }
}

impl IntoIterator for Incoming {
    type Item = Handle;
    type IntoIter = smallvec::IntoIter<[Handle; 8]>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl AtomSpace {
    /// Is `h` an atom of this space? Lock-free.
    #[inline]
    pub fn contains(&self, h: Handle) -> bool {
        self.owner(h).is_some()
    }

    /// The atom's type. Lock-free.
    #[inline]
    pub fn get_type(&self, h: Handle) -> Option<Type> {
        self.record(h).map(|r| r.ty())
    }

    /// Is the atom a link? Lock-free.
    #[inline]
    pub fn is_link(&self, h: Handle) -> bool {
        self.record(h).is_some_and(|r| r.is_link())
    }

    /// The node's name (`None` for links and invalid handles). Lock-free.
    #[inline]
    pub fn name(&self, h: Handle) -> Option<&str> {
        self.owner(h)?.recs().name(h)
    }

    /// The link's outgoing set (empty for nodes). Lock-free: outgoing sets
    /// never change, and their memory is never reused while the space lives.
    #[inline]
    pub fn outgoing(&self, h: Handle) -> Option<&[Handle]> {
        self.owner(h)?.recs().outgoing(h)
    }

    /// Number of atoms in the outgoing set.
    pub fn arity(&self, h: Handle) -> Option<usize> {
        self.outgoing(h).map(|o| o.len())
    }

    /// The links that contain the atom, each once, in no particular order:
    /// a copy, taken without a lock in a space without child spaces.
    #[inline]
    pub fn incoming(&self, h: Handle) -> Option<Incoming> {
        self.through_incoming(h);
        self.incoming_here(h)
    }

    /// [`incoming`](Self::incoming) of what the space holds now, nothing
    /// read through a store.
    #[inline]
    fn incoming_here(&self, h: Handle) -> Option<Incoming> {
        let mut links = SmallVec::new();
        if self.is_root() && !self.has_children() {
            match self.recs().incoming_copy(h, &mut links) {
                // A child space made meanwhile may have registered its links here.
                Some(live) if !self.has_children() => return live.then_some(Incoming(links)),
                _ => links.clear(),
            }
        }
        // The holder's set lists the links of every space that holds `h`.
        let o = self.owner(h)?;
        links.extend_from_slice(o.recs().own_incoming_in(&o.read_shard(h.shard()), h));
        links.retain(|l| self.contains(*l));
        Some(Incoming(links))
    }

    /// Number of links that contain the atom. Lock-free in a space without
    /// child spaces.
    #[inline]
    pub fn incoming_size(&self, h: Handle) -> Option<usize> {
        self.through_incoming(h);
        self.incoming_size_here(h)
    }

    /// [`incoming_size`](Self::incoming_size) of what the space holds now.
    #[inline]
    pub(super) fn incoming_size_here(&self, h: Handle) -> Option<usize> {
        if self.is_root() && !self.has_children() {
            let size = self.recs().incoming_size(h);
            // A child space made meanwhile may have registered its links here.
            if !self.has_children() {
                return size;
            }
        }
        self.incoming_here(h).map(|i| i.len())
    }

    /// The links of type `t` that contain the atom.
    pub fn incoming_by_type(&self, h: Handle, t: Type) -> Vec<Handle> {
        let inc = self.incoming(h);
        inc.as_deref().unwrap_or(&[]).iter().copied().filter(|&l| self.get_type(l) == Some(t)).collect()
    }

    /// The truth value (the default one when none was set). Lock-free for
    /// atoms of a root space, but for streams and count truth values
    /// whose numbers do not fit in the entry. A
    /// FormulaTruthValue is run: its reading is the truth value (the
    /// default one if it fails; [`get_tv_value`](Self::get_tv_value) gives
    /// the stream itself, whose reading reports the failure).
    #[inline]
    pub fn get_tv(&self, h: Handle) -> Option<TruthValue> {
        if self.is_root() {
            // (`tv_entry` fetches for the rest.)
            self.through_values(h);
            let rec = self.recs().rec(h)?;
            if !rec.has_tv() {
                return Some(TruthValue::DEFAULT);
            }
            if let Some(tv) = self.recs().unlocked_tv(h) {
                return Some(tv);
            }
            // The guard goes at the `;`: a stream is read with no lock held.
            let entry = self.recs().get_tv_in(&self.read_shard(h.shard()), h);
            return entry.map(TvEntry::sampled);
        }
        self.tv_entry(h).map(TvEntry::sampled)
    }

    /// The truth value as a value: a truth value, or the FormulaTruthValue
    /// stream that computes it.
    pub fn get_tv_value(&self, h: Handle) -> Option<Value> {
        self.tv_entry(h).map(|e| match e {
            TvEntry::Tv(tv) => Value::Truth(tv),
            TvEntry::Stream(s) => Value::Stream(s),
        })
    }

    /// The truth value's entry, as this space keeps it, else as the base
    /// that shows `h` does. No lock is held when it returns: a stream's
    /// reading runs code that may change this space.
    pub(super) fn tv_entry(&self, h: Handle) -> Option<TvEntry> {
        self.through_values(h);
        self.owner(h)?;
        self.view_path(h).into_iter().find_map(|s| s.recs().get_tv_in(&s.read_shard(h.shard()), h))
    }

    /// The value under `key`; under the truth-value key, the truth value.
    pub fn get_value(&self, h: Handle, key: Handle) -> Option<Value> {
        if self.is_tv_key(key) {
            return self.get_tv_value(h);
        }
        self.through_values(h);
        self.owner(h)?;
        self.value_through(h, key)
    }

    fn value_through(&self, h: Handle, key: Handle) -> Option<Value> {
        self.view_path(h).into_iter().find_map(|s| s.recs().get_value_in(&s.read_shard(h.shard()), h, key))
    }

    /// Keys and values of the atom, truth value excluded; a child's values
    /// override its bases' under the same key.
    pub fn key_values(&self, h: Handle) -> Vec<(Handle, Value)> {
        self.through_values(h);
        if self.owner(h).is_none() {
            return Vec::new();
        }
        let mut kvs: Vec<(Handle, Value)> = Vec::new();
        for s in self.view_path(h).into_iter().rev() {
            for (k, v) in s.recs().key_values_in(&s.read_shard(h.shard()), h) {
                match kvs.iter_mut().find(|(kk, _)| kk == k) {
                    Some(slot) => slot.1 = v.clone(),
                    None => kvs.push((*k, v.clone())),
                }
            }
        }
        kvs
    }
}
