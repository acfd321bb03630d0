//! The groundings a search finds, gathered: appended as found, then
//! sorted and made distinct.
//!
//! Sorting, not a hash set: results are wanted in a stable order (the same
//! on any number of threads) whatever gathers them, so the sort is paid
//! anyway, and appending costs less than a hash insert of each grounding.
//! The parts of a search split across threads are joined by one sort
//! (itself parallel) rather than merged set into set on one thread. The
//! limit on groundings counts distinct ones: a gathering that passes it is
//! made distinct first, so duplicates never trip the limit, and memory
//! stays within twice the limit.

use rayon::prelude::*;

use super::search::Grounding;
use crate::error::Result;

/// Groundings above which a sort runs on the query's threads.
const PARALLEL_SORT_MIN: usize = 1 << 14;

/// Groundings being gathered.
#[derive(Default)]
pub(crate) struct Found {
    items: Vec<Grounding>,
    /// Past this many items, make them distinct and check the limit.
    settle_at: usize,
}

impl Found {
    /// Adds `g`; an error once more than `max` distinct groundings are held.
    pub(crate) fn push(&mut self, g: Grounding, max: usize) -> Result<()> {
        self.items.push(g);
        if self.items.len() > self.settle_at.max(max) {
            settle(&mut self.items);
            super::check_groundings(self.items.len(), max)?;
            // At least `max` pushes before the next sort: each costs O(log n).
            self.settle_at = self.items.len() + max;
        }
        Ok(())
    }

    /// The groundings, sorted and distinct; an error if more than `max`.
    pub(crate) fn into_sorted(self, max: usize) -> Result<Vec<Grounding>> {
        joined(vec![self], max)
    }
}

impl From<Vec<Grounding>> for Found {
    fn from(items: Vec<Grounding>) -> Found {
        Found { items, settle_at: 0 }
    }
}

/// The groundings of all `parts`, sorted and distinct; an error if there
/// are more than `max` (each part counted only its own).
pub(crate) fn joined(parts: Vec<Found>, max: usize) -> Result<Vec<Grounding>> {
    let mut parts = parts.into_iter().map(|f| f.items);
    let mut all = parts.next().unwrap_or_default();
    for p in parts {
        all.extend(p);
    }
    settle(&mut all);
    super::check_groundings(all.len(), max)?;
    Ok(all)
}

fn settle(items: &mut Vec<Grounding>) {
    if items.len() >= PARALLEL_SORT_MIN && rayon::current_num_threads() > 1 {
        items.par_sort_unstable();
    } else {
        items.sort_unstable();
    }
    items.dedup();
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::query::search::Val;
    use crate::Handle;

    fn g(a: u32, b: u32) -> Grounding {
        [Some(Val::One(Handle(a))), Some(Val::One(Handle(b)))].into_iter().collect()
    }

    #[test]
    fn parts_join_sorted_and_distinct() {
        let mut one = Found::default();
        let mut two = Found::default();
        for (a, b) in [(3, 1), (1, 2), (3, 1)] {
            one.push(g(a, b), 10).unwrap();
        }
        for (a, b) in [(1, 2), (0, 9)] {
            two.push(g(a, b), 10).unwrap();
        }
        assert_eq!(joined(vec![one, two], 10).unwrap(), vec![g(0, 9), g(1, 2), g(3, 1)]);
        // The union is counted against the limit too: three distinct, over two.
        let parts = || vec![Found::from(vec![g(1, 1), g(2, 2)]), Found::from(vec![g(3, 3)])];
        assert!(joined(parts(), 2).is_err());
        assert_eq!(joined(parts(), 3).unwrap().len(), 3);
    }

    #[test]
    fn the_limit_counts_distinct_groundings() {
        let mut f = Found::default();
        // Forty pushes of three groundings: within a limit of three.
        for i in 0..40 {
            f.push(g(i % 3, 0), 3).unwrap();
        }
        assert!(f.items.len() <= 6, "held {} items for a limit of 3", f.items.len());
        let err = f.push(g(7, 7), 3).and_then(|()| (0..10).try_for_each(|i| f.push(g(8, i), 3))).unwrap_err();
        assert!(err.to_string().contains("more than 3 groundings"), "{err}");
    }

    #[test]
    fn the_limit_holds_for_what_was_never_settled() {
        // Repeats first settle the gathering; four distinct ones then fit
        // below the next settling point, and the end still counts them.
        let mut f = Found::default();
        for _ in 0..4 {
            f.push(g(0, 0), 3).unwrap();
        }
        for i in 1..4 {
            f.push(g(i, 0), 3).unwrap();
        }
        assert!(f.into_sorted(3).unwrap_err().to_string().contains("more than 3 groundings"));
    }
}
