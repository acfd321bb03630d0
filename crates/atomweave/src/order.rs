//! The content order of atoms, in which an unordered link keeps its members:
//! the same set then has the same outgoing set, and prints the same, in any
//! space and any process, whatever handles its members were given.
//!
//! Atoms compare by type name, then a node by its name's bytes and a link by
//! its arity and then its members, left to right, a member by this same
//! order. Within a space equal content is one handle, so two members with
//! different handles differ somewhere: the comparison follows the first
//! differing member down, one path, never a tree, and needs no stack however
//! deep the atoms nest. (Across frames, two handles may hold equal content:
//! the handle breaks the tie where the content runs out.)

use std::cmp::Ordering;

use crate::handle::Handle;
use crate::types::Type;

/// What the content order reads of an atom.
pub(crate) trait Contents {
    fn kind(&self, h: Handle) -> Option<Type>;
    fn label(&self, h: Handle) -> Option<&str>;
    fn members(&self, h: Handle) -> Option<&[Handle]>;
}

/// Any atom source reads contents: a space, a table, a read view.
impl<T: crate::sexpr::AtomSource + ?Sized> Contents for T {
    #[inline]
    fn kind(&self, h: Handle) -> Option<Type> {
        self.get_type(h)
    }
    #[inline]
    fn label(&self, h: Handle) -> Option<&str> {
        self.name(h)
    }
    #[inline]
    fn members(&self, h: Handle) -> Option<&[Handle]> {
        self.outgoing(h)
    }
}

/// `a` against `b` by content, then by handle: lexicographic, with an
/// atom's handle as the last key where its content equals another's (only
/// possible across frames), so the order is total and transitive.
pub(crate) fn cmp(c: &(impl Contents + ?Sized), mut a: Handle, mut b: Handle) -> Ordering {
    loop {
        if a == b {
            return Ordering::Equal;
        }
        let (Some(ta), Some(tb)) = (c.kind(a), c.kind(b)) else { return a.cmp(&b) };
        if ta != tb {
            return ta.name().cmp(tb.name());
        }
        if !ta.is_link() {
            let names = c.label(a).unwrap_or_default().as_bytes().cmp(c.label(b).unwrap_or_default().as_bytes());
            return names.then(a.cmp(&b));
        }
        let (oa, ob) = (c.members(a).unwrap_or_default(), c.members(b).unwrap_or_default());
        if oa.len() != ob.len() {
            return oa.len().cmp(&ob.len());
        }
        // The first members that differ decide: no later member is read.
        match oa.iter().zip(ob).find(|(x, y)| x != y) {
            Some((&x, &y)) => (a, b) = (x, y),
            None => return a.cmp(&b),
        }
    }
}

/// Puts `out` in content order.
pub(crate) fn sort(c: &impl Contents, out: &mut [Handle]) {
    out.sort_unstable_by(|&a, &b| cmp(c, a, b));
}

/// Is `out` in content order?
pub(crate) fn is_sorted(c: &impl Contents, out: &[Handle]) -> bool {
    out.is_sorted_by(|&a, &b| cmp(c, a, b) != Ordering::Greater)
}
