//! Changing one atom's truth value or values.
//!
//! **Invariant:** a frame sets values on a base atom in its own store,
//! never in the base's; a replaced value is dropped after the shard's lock
//! is let go (dropping a value may drop a whole AtomSpace).

use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::read::AtomSource;
use crate::store::TvEntry;
use crate::table::tv_of;
use crate::value::{StreamValue, TruthValue, Value};
use crate::watch::Change;

use super::AtomSpace;

impl AtomSpace {
    /// Whether `h` is a base atom seen from this child space (its values are
    /// then kept here, for this space alone).
    fn foreign(&self, h: Handle) -> Result<bool> {
        match self.owner(h) {
            None => Err(Error::InvalidHandle(h)),
            Some(o) => Ok(!std::ptr::eq(o, self)),
        }
    }

    /// Sets the truth value (the default one resets the atom's entry). On a base
    /// atom of a child space, the value is kept for the child alone.
    pub fn set_tv(&self, h: Handle, tv: TruthValue) -> Result<()> {
        self.writable("no truth value is changed")?;
        // Over a store, its stored values first: this change is the newer.
        if !self.through_values(h) {
            return Ok(());
        }
        self.inner.watch.note(|| Change::Atom(h));
        // Replacing a root atom's simple truth value is one store; the lock
        // (out of line, so this stays small) is for the rest.
        if self.is_root() && self.recs().set_tv_lock_free(h, tv) {
            return Ok(());
        }
        self.set_tv_locked(h, tv)
    }

    #[inline(never)]
    fn set_tv_locked(&self, h: Handle, tv: TruthValue) -> Result<()> {
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_tv_in(&mut self.write_shard(h.shard()), h, tv, foreign)
    }

    /// Makes a FormulaTruthValue the atom's truth value: each reading of
    /// the truth value runs it (upstream's `cog-set-tv!` of a stream).
    pub fn set_tv_stream(&self, h: Handle, stream: StreamValue) -> Result<()> {
        self.writable("no truth value is changed")?;
        if !self.through_values(h) {
            return Ok(());
        }
        self.inner.watch.note(|| Change::Atom(h));
        if stream.stream_type() != crate::types::FORMULA_TRUTH_VALUE {
            return Err(Error::InvalidValue(format!("a truth value is a number pair or a FormulaTruthValue, not a {}", stream.stream_type().name())));
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.recs().set_tv_stream_in(&mut self.write_shard(h.shard()), h, stream, foreign)
    }

    /// Atomically adds `n` to the atom's count and returns the new truth value.
    pub fn increment_count(&self, h: Handle, n: f64) -> Result<TruthValue> {
        self.writable("no truth value is changed")?;
        self.through_values(h);
        self.inner.watch.note(|| Change::Atom(h));
        let foreign = !self.is_root() && self.foreign(h)?;
        // Read before the lock: a base's truth value may be a stream, whose
        // reading runs code that may use this shard.
        let base_tv =
            if foreign { self.inner.bases.iter().find_map(|b| b.tv_entry(h)).map_or(TruthValue::DEFAULT, TvEntry::sampled) } else { TruthValue::DEFAULT };
        self.recs().increment_count_in(&mut self.write_shard(h.shard()), h, n, foreign, || base_tv)
    }

    /// Sets the value under `key`; under the truth-value key it sets the truth value.
    pub fn set_value(&self, h: Handle, key: Handle, v: Value) -> Result<()> {
        // The replaced value goes here, after the shard's lock.
        self.replace_value(h, key, v).map(drop)
    }

    /// [`set_value`](Self::set_value), giving back the value it replaced
    /// (none under the truth-value key), for the caller to drop where it
    /// likes: the loader drops them on its reading thread.
    pub(crate) fn replace_value(&self, h: Handle, key: Handle, v: Value) -> Result<Option<Value>> {
        self.writable("no value is changed")?;
        v.check_shape()?;
        if self.is_tv_key(key) {
            return match v {
                Value::Stream(s) => self.set_tv_stream(h, s),
                v => self.set_tv(h, tv_of(&v)?),
            }
            .map(|()| None);
        }
        if !self.through_values(h) {
            return Ok(None);
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.inner.watch.note(|| Change::Value(h, key));
        self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, Some(v), foreign)
    }

    /// Removes the value under `key` (upstream: setting a null value). In a
    /// child space this removes the child's own value; a base's shows again.
    pub fn remove_value(&self, h: Handle, key: Handle) -> Result<()> {
        self.writable("no value is changed")?;
        if self.is_tv_key(key) {
            return self.set_tv(h, TruthValue::DEFAULT);
        }
        if !self.through_values(h) {
            return Ok(());
        }
        let foreign = !self.is_root() && self.foreign(h)?;
        self.inner.watch.note(|| Change::Value(h, key));
        // Named, not `_`: the removed value goes after the statement's
        // temporary, the shard's lock.
        let _removed = self.recs().set_value_in(&mut self.write_shard(h.shard()), h, key, None, foreign)?;
        Ok(())
    }
}
