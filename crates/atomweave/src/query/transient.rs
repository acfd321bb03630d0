//! Scratch frames: upstream's transient atomspace, a child space over the
//! space a query runs in, where a grounded call's arguments and whatever it
//! adds go, gone when the call returns.
//!
//! Making and dropping a child space per call costs tens of microseconds,
//! most of a cheap callback's cost; so during one execution (a
//! [`Session`]) each thread keeps its last frame and reuses it for the next
//! call over the same space, if the call left it untouched and nothing
//! else holds it (a Python object of the frame, a child of it). When the thread's
//! outermost session ends the frame goes: a frame holds its base, which
//! must not outlive the user's last handle on it.

use std::cell::RefCell;
use std::ops::Deref;

use crate::error::Result;
use crate::{AtomSpace, WeakSpace};

thread_local! {
    /// This thread's spare frame, with the space it is over.
    static SPARE: RefCell<Option<(WeakSpace, AtomSpace)>> = const { RefCell::new(None) };
    /// How many sessions this thread is in.
    static SESSIONS: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// One execution on this thread: the spare frame lives while it (and any
/// session around it) does.
pub(crate) struct Session(());

impl Session {
    pub(crate) fn enter() -> Session {
        SESSIONS.set(SESSIONS.get() + 1);
        Session(())
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let left = SESSIONS.get() - 1;
        SESSIONS.set(left);
        if left == 0 {
            // Taken out first: dropping it may run code that looks at SPARE.
            let spare = SPARE.with_borrow_mut(Option::take);
            drop(spare);
        }
    }
}

/// A scratch frame over a space, for one call.
pub(crate) struct Scratch(Option<AtomSpace>);

impl Scratch {
    /// An empty frame over `space`: this thread's spare one if it is over
    /// `space`, else a new one.
    pub(crate) fn over(space: &AtomSpace) -> Result<Scratch> {
        let spare = SPARE.with_borrow_mut(|s| match s.take() {
            Some((base, frame)) if base.is(space) => Some(frame),
            other => {
                *s = other;
                None
            }
        });
        match spare {
            Some(frame) => Ok(Scratch(Some(frame))),
            None => Ok(Scratch(Some(AtomSpace::new_scratch(space)?))),
        }
    }
}

impl Deref for Scratch {
    type Target = AtomSpace;
    fn deref(&self) -> &AtomSpace {
        self.0.as_ref().expect("held until dropped")
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let Some(frame) = self.0.take() else { return };
        // Kept only if no one else holds it and the call left it as it was
        // (no atom added, none hidden, not made read-only): a frame that
        // changed goes, and its store gives its slot numbers back.
        if !frame.is_sole_handle() || SESSIONS.get() == 0 || !frame.is_untouched_frame() {
            return;
        }
        let Some(base) = frame.bases().first().map(AtomSpace::downgrade) else { return };
        let replaced = SPARE.with_borrow_mut(|s| s.replace((base, frame)));
        drop(replaced);
    }
}
