//! Whole-space reads: the atoms of a type, and counts. Over a store
//! (`read_through.rs`), each reads the store's atoms of its types first.

use crate::handle::{Handle, SHARDS};
use crate::read::AtomRead;
use crate::store::Records;
use crate::types::Type;

use super::frames::Visit;
use super::AtomSpace;

impl AtomSpace {
    /// Atoms of type `t` (and its subtypes when `subtypes`). The iterator
    /// copies only the list of slot blocks (one entry per 64 atoms) and reads
    /// records lock-free; atoms added or removed meanwhile may or may not show.
    pub fn handles_by_type(&self, t: Type, subtypes: bool) -> Box<dyn Iterator<Item = Handle> + '_> {
        self.through_types(t, subtypes);
        let own = self.own_by_type(t, subtypes);
        if self.is_root() {
            return Box::new(own);
        }
        // Every space below once (a handle lives in one store, so nothing
        // shows twice), with what this frame or a base hid filtered out.
        let mut below = Vec::new();
        self.walk(|s| {
            below.push(s);
            Visit::<()>::Descend
        });
        let hides = self.hides_on_path();
        let from_bases = below.into_iter().skip(1).flat_map(move |s| s.own_by_type(t, subtypes));
        Box::new(own.chain(from_bases.filter(move |&h| !hides || self.contains(h))))
    }

    /// The atoms of type `t` (and subtypes) in this space's own store.
    fn own_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        // One read lock per shard, and only the types the shard holds:
        // `Atom` with subtypes covers some 250 types. Sorted back to type
        // order (type ids ascend as `Type::subtypes` lists them).
        let mut blocks: Vec<(Type, usize, u32)> = Vec::new();
        for s in 0..SHARDS {
            let sh = self.read_shard(s);
            if subtypes {
                for ty in Records::types_in(&sh).filter(|ty| ty.is_a(t)) {
                    blocks.extend(Records::blocks_in(&sh, ty).iter().map(|&b| (ty, s, b)));
                }
            } else {
                blocks.extend(Records::blocks_in(&sh, t).iter().map(|&b| (t, s, b)));
            }
        }
        if subtypes {
            blocks.sort_by_key(|&(ty, s, _)| (ty.0, s));
        }
        blocks.into_iter().flat_map(move |(_, s, b)| self.recs().block_atoms(s, b))
    }

    /// Atoms of type `t` (or its subtypes) that no link contains.
    pub fn root_set_by_type(&self, t: Type, subtypes: bool) -> impl Iterator<Item = Handle> + '_ {
        self.handles_by_type(t, subtypes).filter(move |&h| self.incoming_size(h) == Some(0))
    }

    /// Number of atoms.
    pub fn size(&self) -> usize {
        self.through_types(crate::types::ATOM, true);
        self.size_here()
    }

    /// [`size`](Self::size) of what the space holds now.
    pub(super) fn size_here(&self) -> usize {
        if self.is_root() {
            self.read_own().size()
        } else {
            self.handles_by_type(crate::types::ATOM, true).count()
        }
    }

    /// Number of nodes.
    pub fn num_nodes(&self) -> usize {
        self.through_types(crate::types::ATOM, true);
        if self.is_root() {
            self.read_own().num_nodes()
        } else {
            // By the record: a foreign AST's leaf is a node of a link type.
            self.handles_by_type(crate::types::ATOM, true).filter(|&h| !self.is_link(h)).count()
        }
    }

    /// Number of links.
    pub fn num_links(&self) -> usize {
        self.through_types(crate::types::ATOM, true);
        if self.is_root() {
            self.read_own().num_links()
        } else {
            self.handles_by_type(crate::types::LINK, true).filter(|&h| self.is_link(h)).count()
        }
    }

    /// Number of atoms of type `t` (and its subtypes when `subtypes`).
    pub fn count_of_type(&self, t: Type, subtypes: bool) -> usize {
        self.through_types(t, subtypes);
        self.count_of_type_here(t, subtypes)
    }

    /// [`count_of_type`](Self::count_of_type) of what the space holds now.
    pub(super) fn count_of_type_here(&self, t: Type, subtypes: bool) -> usize {
        if self.is_root() {
            self.read_own().count_of_type(t, subtypes)
        } else {
            self.handles_by_type(t, subtypes).count()
        }
    }
}
