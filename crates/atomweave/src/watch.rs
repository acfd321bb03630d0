//! The changes made to one space while code runs, for a front end that
//! writes them through to a store: a server running a query whose Put adds
//! atoms, whose Delete removes some and whose SetValue sets values, on
//! whatever threads the query uses.
//!
//! A note is taken where an atom may be new (its add did not find it
//! without a lock), a value or truth value is set, or an atom is removed.
//! Notes can name an atom that was there already: writing it again is
//! harmless. Nothing is noted while no one records, at the cost of one
//! atomic load on those paths.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::Handle;

/// One change to a space.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Change {
    /// The atom may be new, or its truth value was set.
    Atom(Handle),
    /// The value under the key (the second handle) was set or removed.
    Value(Handle, Handle),
    /// An atom was removed: its structure, as the network shells print it
    /// (`(ListLink (ConceptNode "a"))`), since its handle is dead.
    Removed(String),
}

/// What a recording noted, in order: at most [`Changes::MAX`] changes,
/// and whether more were made ([`Changes::overflowed`]).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Changes {
    list: Vec<Change>,
    overflowed: bool,
}

impl Changes {
    /// Most changes one recording keeps: a long query, or other threads
    /// busy on the space, would otherwise grow it without bound.
    pub const MAX: usize = 1 << 22;

    /// The changes noted, in the order they were made.
    pub fn iter(&self) -> impl Iterator<Item = &Change> {
        self.list.iter()
    }

    pub fn is_empty(&self) -> bool {
        self.list.is_empty() && !self.overflowed
    }

    /// Were more than [`Changes::MAX`] made? Those past it are not known.
    pub fn overflowed(&self) -> bool {
        self.overflowed
    }

    fn push(&mut self, change: Change) {
        if self.list.len() < Self::MAX {
            self.list.push(change);
        } else {
            self.overflowed = true;
        }
    }
}

/// A space's recordings under way.
#[derive(Default)]
pub(crate) struct Watch {
    /// How many recordings are under way: the paths that note read this alone.
    active: AtomicUsize,
    recordings: Mutex<Vec<(usize, Changes)>>,
    next: AtomicUsize,
}

impl Watch {
    #[inline]
    pub(crate) fn active(&self) -> bool {
        self.active.load(Ordering::Relaxed) > 0
    }

    /// Notes `change` for every recording under way.
    pub(crate) fn note(&self, change: impl FnOnce() -> Change) {
        if !self.active() {
            return;
        }
        let change = change();
        let mut all = self.recordings.lock().unwrap_or_else(|e| e.into_inner());
        for (_, changes) in all.iter_mut() {
            changes.push(change.clone());
        }
    }

    /// Runs `f`, recording: what it returns, and the changes noted meanwhile.
    pub(crate) fn record<T>(&self, f: impl FnOnce() -> T) -> (T, Changes) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.recordings.lock().unwrap_or_else(|e| e.into_inner()).push((id, Changes::default()));
        self.active.fetch_add(1, Ordering::AcqRel);
        let recording = Recording(self, id);
        let result = f();
        (result, recording.end())
    }

    /// Ends recording `id`: its notes.
    fn end(&self, id: usize) -> Changes {
        self.active.fetch_sub(1, Ordering::AcqRel);
        let mut all = self.recordings.lock().unwrap_or_else(|e| e.into_inner());
        let i = all.iter().position(|(r, _)| *r == id).expect("a recording under way");
        all.swap_remove(i).1
    }
}

/// A recording under way; ended however the code recorded ends (a panic
/// included), so that the space stops noting for it.
struct Recording<'a>(&'a Watch, usize);

impl Recording<'_> {
    fn end(self) -> Changes {
        let notes = self.0.end(self.1);
        std::mem::forget(self);
        notes
    }
}

impl Drop for Recording<'_> {
    fn drop(&mut self) {
        self.0.end(self.1);
    }
}
