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
use crate::read::AtomSource;

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
    sort_by_atom(c, out, |&h| h);
}

/// Puts `items` in the content order of the atom each names (`atom`).
///
/// A merge sort of our own: the standard library's sorts panic when the
/// order changes under them, and here it can: an atom another thread
/// extracts mid-sort compares by handle from then on. The order is then
/// meaningless, but harmless: adding a link with that member fails, and a
/// value under that key is written in some order.
pub(crate) fn sort_by_atom<T: Copy>(c: &(impl AtomSource + ?Sized), items: &mut [T], atom: impl Fn(&T) -> Handle) {
    // Runs of this length by insertion, then merged pairwise.
    const RUN: usize = 16;
    let greater = |a: &T, b: &T| cmp(c, atom(a), atom(b)) == Ordering::Greater;
    let n = items.len();
    for run in items.chunks_mut(RUN) {
        for i in 1..run.len() {
            let mut j = i;
            while j > 0 && greater(&run[j - 1], &run[j]) {
                run.swap(j - 1, j);
                j -= 1;
            }
        }
    }
    if n <= RUN {
        return;
    }
    let mut from = items.to_vec();
    let mut to = items.to_vec();
    let mut width = RUN;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j) = (start, mid);
            for slot in &mut to[start..end] {
                let left = i < mid && (j >= end || !greater(&from[i], &from[j]));
                *slot = if left { from[i] } else { from[j] };
                if left {
                    i += 1;
                } else {
                    j += 1;
                }
            }
        }
        std::mem::swap(&mut from, &mut to);
        width *= 2;
    }
    items.copy_from_slice(&from);
}

/// Is `out` in content order?
pub(crate) fn is_sorted(c: &(impl AtomSource + ?Sized), out: &[Handle]) -> bool {
    out.is_sorted_by(|&a, &b| cmp(c, a, b) != Ordering::Greater)
}

#[cfg(test)]
mod tests {
    use std::borrow::Cow;
    use std::cell::Cell;

    use super::*;
    use crate::{types, TruthValue, Type, Value};

    /// Nodes named `names[handle]`; once `after` lookups were made, every
    /// odd-numbered one vanishes (as if another thread extracted it).
    struct Vanishing {
        calls: Cell<usize>,
        after: usize,
        names: Vec<String>,
    }

    impl AtomSource for Vanishing {
        fn get_type(&self, h: Handle) -> Option<Type> {
            self.calls.set(self.calls.get() + 1);
            (self.calls.get() < self.after || h.to_u32() % 2 == 0).then_some(types::CONCEPT_NODE)
        }
        fn name(&self, h: Handle) -> Option<&str> {
            Some(&self.names[h.to_u32() as usize])
        }
        fn outgoing(&self, _: Handle) -> Option<&[Handle]> {
            None
        }
        fn get_tv(&self, _: Handle) -> Option<TruthValue> {
            None
        }
        fn key_values(&self, _: Handle) -> Cow<'_, [(Handle, Value)]> {
            Cow::Borrowed(&[])
        }
    }

    /// Handles `0..n` shuffled, and their atoms named so that content and
    /// handle order disagree everywhere.
    fn case(n: usize, after: usize) -> (Vanishing, Vec<Handle>) {
        let names = (0..n).map(|i| format!("{:05}", (i * 7919) % n)).collect();
        let mut out: Vec<Handle> = (0..n as u32).map(Handle::from_u32).collect();
        out.reverse();
        out.rotate_left(n / 3);
        (Vanishing { calls: Cell::new(0), after, names }, out)
    }

    #[test]
    fn sort_survives_members_vanishing_mid_sort() {
        let (c, mut out) = case(1000, 500);
        sort(&c, &mut out);
        let mut seen: Vec<u32> = out.iter().map(|h| h.to_u32()).collect();
        seen.sort_unstable();
        assert_eq!(seen, (0..1000).collect::<Vec<_>>(), "a permutation of what it was given");
    }

    #[test]
    fn sort_orders_by_content() {
        for n in [0, 1, 2, 15, 16, 17, 100, 1000] {
            let (c, mut out) = case(n, usize::MAX);
            sort(&c, &mut out);
            let names: Vec<&str> = out.iter().map(|&h| c.names[h.to_u32() as usize].as_str()).collect();
            assert!(names.is_sorted(), "{n} atoms: {names:?}");
            assert_eq!(names.len(), n);
        }
    }
}
