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
use crate::sexpr::AtomSource;

/// `a` against `b` by content, then by handle: lexicographic, with an
/// atom's handle as the last key where its content equals another's (only
/// possible across frames), so the order is total and transitive.
pub(crate) fn cmp(c: &(impl AtomSource + ?Sized), mut a: Handle, mut b: Handle) -> Ordering {
    loop {
        if a == b {
            return Ordering::Equal;
        }
        let (Some(ta), Some(tb)) = (c.get_type(a), c.get_type(b)) else { return a.cmp(&b) };
        if ta != tb {
            return ta.name().cmp(tb.name());
        }
        // Named atoms (nodes, and a foreign AST's leaves) by name, before
        // the links of their type.
        match (c.name(a), c.name(b)) {
            (Some(na), Some(nb)) => return na.as_bytes().cmp(nb.as_bytes()).then(a.cmp(&b)),
            (Some(_), None) => return Ordering::Less,
            (None, Some(_)) => return Ordering::Greater,
            (None, None) => {}
        }
        let (oa, ob) = (c.outgoing(a).unwrap_or_default(), c.outgoing(b).unwrap_or_default());
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

/// Atom `a` of `ca` against atom `b` of `cb` (two spaces: handles say
/// nothing across them) by the same content order; equal content is
/// equal. Members are compared in order, on a work list: no recursion; a
/// pair of links met again (a shared member) compared equal the first time.
pub fn content_cmp<A: AtomSource + ?Sized, B: AtomSource + ?Sized>(ca: &A, a: Handle, cb: &B, b: Handle) -> Ordering {
    let mut todo = vec![(a, b)];
    let mut done: std::collections::HashSet<(Handle, Handle)> = std::collections::HashSet::new();
    while let Some((x, y)) = todo.pop() {
        let (Some(tx), Some(ty)) = (ca.get_type(x), cb.get_type(y)) else { return x.cmp(&y) };
        if tx != ty {
            return tx.name().cmp(ty.name());
        }
        match (ca.name(x), cb.name(y)) {
            (Some(nx), Some(ny)) => match nx.as_bytes().cmp(ny.as_bytes()) {
                Ordering::Equal => continue,
                o => return o,
            },
            (Some(_), None) => return Ordering::Less,
            (None, Some(_)) => return Ordering::Greater,
            (None, None) => {}
        }
        let (ox, oy) = (ca.outgoing(x).unwrap_or_default(), cb.outgoing(y).unwrap_or_default());
        if ox.len() != oy.len() {
            return ox.len().cmp(&oy.len());
        }
        if !done.insert((x, y)) {
            continue;
        }
        todo.extend(ox.iter().copied().zip(oy.iter().copied()).rev());
    }
    Ordering::Equal
}

/// Puts `out` in content order.
pub(crate) fn sort(c: &(impl AtomSource + ?Sized), out: &mut [Handle]) {
    out.sort_unstable_by(|&a, &b| cmp(c, a, b));
}

/// Is `out` in content order?
pub(crate) fn is_sorted(c: &(impl AtomSource + ?Sized), out: &[Handle]) -> bool {
    out.is_sorted_by(|&a, &b| cmp(c, a, b) != Ordering::Greater)
}
