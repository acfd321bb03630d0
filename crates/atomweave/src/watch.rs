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

/// A space's recordings under way.
#[derive(Default)]
pub(crate) struct Watch {
    /// How many recordings are under way: the paths that note read this alone.
    active: AtomicUsize,
    recordings: Mutex<Vec<(usize, Vec<Change>)>>,
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
        for (_, notes) in all.iter_mut() {
            notes.push(change.clone());
        }
    }

    /// Runs `f`, recording: what it returns, and the changes noted meanwhile.
    pub(crate) fn record<T>(&self, f: impl FnOnce() -> T) -> (T, Vec<Change>) {
        let id = self.next.fetch_add(1, Ordering::Relaxed);
        self.recordings.lock().unwrap_or_else(|e| e.into_inner()).push((id, Vec::new()));
        self.active.fetch_add(1, Ordering::AcqRel);
        let recording = Recording(self, id);
        let result = f();
        (result, recording.end())
    }

    /// Ends recording `id`: its notes.
    fn end(&self, id: usize) -> Vec<Change> {
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
    fn end(self) -> Vec<Change> {
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
