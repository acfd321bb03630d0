//! Values other than the truth value, by key, and a child space's
//! overlay on its bases' atoms.
//!
//! `foreign` marks a base atom seen from a child space: its slot here
//! holds no atom, only the `HAS_TV`/`HAS_VALUES` flags of what the child
//! set on it, or [`HIDDEN`](super::record) when the child extracted it for
//! itself.
//!
//! **Invariant:** an atom has an entry in its shard's `values` map exactly
//! when its record's `HAS_VALUES` flag is set; replaced and removed values
//! are handed back to the caller to drop outside the shard's lock
//! (dropping a value can free a whole AtomSpace).

use std::sync::atomic::{AtomicU64, Ordering};

use smallvec::SmallVec;

use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::value::Value;

use super::record::{set_flags, Rec, HAS_TV, HAS_VALUES, HIDDEN, LIVE};
use super::{KeyValues, Records, Shard};

impl Records {
    /// The word values are flagged in: the atom's own record, or a base
    /// atom's slot here. The caller holds the shard's write lock.
    #[inline]
    pub(super) fn value_word(&self, sh: &mut Shard, h: Handle, foreign: bool) -> Result<&AtomicU64> {
        let recs = &self.records[h.shard()];
        if foreign {
            recs.ensure(h.local() as usize + 1);
            let w = &recs.get(h.local() as usize).expect("ensured").rec;
            match w.load(Ordering::Acquire) {
                0 => sh.overlay.push(h.local()),
                HIDDEN => return Err(Error::InvalidHandle(h)),
                word if Rec(word).live() => return Err(Error::InvalidHandle(h)),
                _ => {}
            }
            Ok(w)
        } else {
            match recs.get(h.local() as usize) {
                Some(w) if Rec(w.rec.load(Ordering::Acquire)).live() => Ok(&w.rec),
                _ => Err(Error::InvalidHandle(h)),
            }
        }
    }

    /// The flags of `h`'s slot here, whether it holds `h` or overlays it.
    #[inline]
    pub(super) fn slot_flags(&self, h: Handle) -> u64 {
        self.records[h.shard()].get(h.local() as usize).map_or(0, |w| w.rec.load(Ordering::Acquire))
    }

    /// Sets (`Some`) or removes (`None`) the value under `key`, and gives
    /// back the value it replaced or removed, for the caller to drop once
    /// it has let go of the shard (dropping a value can free a whole
    /// AtomSpace) or elsewhere (the loader drops them on its reading thread).
    #[must_use = "the replaced value is to be dropped outside the shard's lock"]
    pub(crate) fn set_value_in(&self, sh: &mut Shard, h: Handle, key: Handle, v: Option<Value>, foreign: bool) -> Result<Option<Value>> {
        let word = self.value_word(sh, h, foreign)?;
        let local = h.local();
        let old = match v {
            Some(v) => {
                let kv = sh.values.entry(local).or_default();
                let old = match kv.iter_mut().find(|(k, _)| *k == key) {
                    Some(slot) => Some(std::mem::replace(&mut slot.1, v)),
                    None => {
                        kv.push((key, v));
                        None
                    }
                };
                set_flags(word, HAS_VALUES, 0);
                old
            }
            None if word.load(Ordering::Acquire) & HAS_VALUES != 0 => {
                let kv = sh.values.entry(local).or_default();
                let old = kv.iter().position(|(k, _)| *k == key).map(|at| kv.remove(at).1);
                if kv.is_empty() {
                    sh.values.remove(&local);
                    set_flags(word, 0, HAS_VALUES);
                }
                old
            }
            None => None,
        };
        Ok(old)
    }

    /// The value under `key` kept here (for an atom of this store, or overlaid on a base atom).
    pub(crate) fn get_value_in(&self, sh: &Shard, h: Handle, key: Handle) -> Option<Value> {
        self.key_values_in(sh, h).iter().find(|(k, _)| *k == key).map(|(_, v)| v.clone())
    }

    /// The values kept here for `h`, truth value excluded.
    pub(crate) fn key_values_in<'s>(&self, sh: &'s Shard, h: Handle) -> &'s [(Handle, Value)] {
        if self.slot_flags(h) & HAS_VALUES == 0 {
            return &[];
        }
        sh.values.get(&h.local()).map_or(&[], SmallVec::as_slice)
    }

    /// Does this store keep anything of `h`: its record, or a truth value
    /// or values a child set on a base atom?
    pub(crate) fn keeps(&self, h: Handle) -> bool {
        self.slot_flags(h) & (LIVE | HAS_TV | HAS_VALUES) != 0
    }

    /// Has this (child) store hidden the base atom `h`?
    #[inline]
    pub(crate) fn is_hidden(&self, h: Handle) -> bool {
        self.slot_flags(h) == HIDDEN
    }

    /// Hides the base atom `h` in this child store, and gives back the
    /// values the child set on it, for the caller to drop once it has let
    /// go of the lock. The caller holds `h`'s shard.
    pub(crate) fn hide_in(&self, sh: &mut Shard, h: Handle) -> KeyValues {
        let recs = &self.records[h.shard()];
        recs.ensure(h.local() as usize + 1);
        let w = &recs.get(h.local() as usize).expect("ensured").rec;
        debug_assert!(!Rec(w.load(Ordering::Acquire)).live());
        if w.load(Ordering::Acquire) == 0 {
            sh.overlay.push(h.local());
        }
        self.tv_remove(sh, h.shard(), h.local());
        let values = sh.values.remove(&h.local()).unwrap_or_default();
        w.store(HIDDEN, Ordering::Release);
        values
    }

    /// Makes a hidden base atom visible again. The caller holds `h`'s shard.
    pub(crate) fn unhide_in(&self, _sh: &mut Shard, h: Handle) {
        if let Some(w) = self.records[h.shard()].get(h.local() as usize) {
            let _ = w.rec.compare_exchange(HIDDEN, 0, Ordering::AcqRel, Ordering::Acquire);
        }
    }
}
