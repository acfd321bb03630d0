//! One copy of each content, for whatever writes a whole space out (the
//! text writer, the stores): at or below a space of two bases the space
//! sees each base's copy of a shared content, each with its own truth
//! value and values, where a file or a store keeps one atom per content.
//!
//! It is not a merge: the copy kept is the one the space's own lookups
//! find, with its values only.

use hashbrown::hash_map::Entry;
use hashbrown::HashMap;
use smallvec::SmallVec;

use crate::{types, AtomSpace, Handle, Type};

type Map<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// The atoms of a space, one copy per content (see [`AtomSpace::one_copy_each`]).
pub struct Copies {
    kept: Vec<Handle>,
    /// Each atom met to the copy that stands for its content (empty where
    /// the space sees every content once).
    copy: Map<Handle, Handle>,
}

impl Copies {
    /// The copies kept, members before the links that hold them (in a
    /// space that sees every content once: its atoms, as
    /// `handles_by_type` gives them).
    pub fn kept(&self) -> &[Handle] {
        &self.kept
    }

    /// The copies kept, as [`kept`](Self::kept).
    pub fn into_kept(self) -> Vec<Handle> {
        self.kept
    }

    /// The copy that stands for `h`'s content (`h` itself for an atom the
    /// walk did not meet).
    pub fn chosen(&self, h: Handle) -> Handle {
        self.copy.get(&h).copied().unwrap_or(h)
    }
}

impl AtomSpace {
    /// The atoms of this space, one copy per content: every atom, or at or
    /// below a space of two bases (not [`is_chain`](Self::is_chain)), where
    /// the space may see a content twice, the copy its own lookups find (a
    /// node's by `get_node`, a link's by `get_link` over its members'
    /// copies), else the first met. Writing every copy would give a
    /// content the truth values and values of several atoms, mixed
    /// differently by each writer. The copies come out members first.
    pub fn one_copy_each(&self) -> Copies {
        let all: Vec<Handle> = self.handles_by_type(types::ATOM, true).collect();
        if self.is_chain() {
            return Copies { kept: all, copy: Map::default() };
        }
        let mut copy: Map<Handle, Handle> = Map::with_capacity_and_hasher(all.len(), Default::default());
        // Each link content (its members' copies) to its copy; most links
        // have few members, kept in the key itself.
        let mut links: Map<(Type, SmallVec<[Handle; 4]>), Handle> = Map::default();
        let mut kept = Vec::new();
        // A stack, not recursion: links nest without limit.
        let mut stack = Vec::new();
        for &h in &all {
            stack.push(h);
            while let Some(&x) = stack.last() {
                if copy.contains_key(&x) {
                    stack.pop();
                    continue;
                }
                let chosen = match (self.get_type(x), self.name(x), self.outgoing(x)) {
                    (Some(t), Some(name), _) => self.get_node(t, name).unwrap_or(x),
                    (Some(t), None, Some(out)) => {
                        let before = stack.len();
                        stack.extend(out.iter().filter(|m| !copy.contains_key(*m)));
                        if stack.len() > before {
                            continue;
                        }
                        let mut members: SmallVec<[Handle; 4]> = out.iter().map(|m| copy[m]).collect();
                        // The copies of an unordered link's members, in any order, are one content.
                        if t.is_unordered() {
                            members.sort_unstable();
                        }
                        match links.entry((t, members)) {
                            Entry::Occupied(e) => *e.get(),
                            Entry::Vacant(e) => {
                                let found = self.get_link(t, &e.key().1).unwrap_or(x);
                                *e.insert(found)
                            }
                        }
                    }
                    // Extracted meanwhile: it stands for itself (a store reports it gone).
                    _ => x,
                };
                stack.pop();
                if !copy.contains_key(&chosen) {
                    copy.insert(chosen, chosen);
                    kept.push(chosen);
                }
                copy.insert(x, chosen);
            }
        }
        Copies { kept, copy }
    }
}
