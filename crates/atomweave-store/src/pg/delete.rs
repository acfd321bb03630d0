//! Atoms taken out of the store.
//!
//! Invariant: an atom goes in one transaction with everything that names
//! it: its values, the links above it (only with `recursive`; else
//! nothing is deleted), and every value that holds a deleted atom, which
//! could not be loaded again.

use atomweave::{AtomSpace, Handle};

use super::errors::pg_err;
use super::schema::holding;
use super::PgStore;
use crate::{codec, HashSet, Result};

impl PgStore {
    /// Deletes the atom (with `recursive`, the links above it) from the
    /// store in one transaction: whether the store held it, or `None` when
    /// links hold it and `recursive` is not set (nothing is deleted).
    pub(super) fn delete_from_store(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<Option<bool>> {
        let Some(id) = self.lookup_one(space, h)? else { return Ok(Some(false)) };
        let url = self.url.clone();
        let mut t = self.client()?.transaction().map_err(|e| pg_err(&url, e))?;
        // The atom and, with `recursive`, everything above it.
        let mut doomed = vec![id];
        let mut work = vec![id];
        while !work.is_empty() {
            let holders: Vec<i64> = t
                .query(concat!("SELECT uuid FROM atoms WHERE ", holding!(), " FOR UPDATE"), &[&work])
                .map_err(|e| pg_err(&url, e))?
                .iter()
                .map(|r| r.get(0))
                .filter(|u| !doomed.contains(u))
                .collect();
            if !holders.is_empty() && !recursive {
                return Ok(None);
            }
            doomed.extend(&holders);
            work = holders;
        }
        t.execute("DELETE FROM atom_values WHERE atom = ANY($1) OR key = ANY($1)", &[&doomed]).map_err(|e| pg_err(&url, e))?;
        // Values holding a deleted atom could not be loaded again. A scan
        // of every value; values other than truth values are few next to
        // atoms, and deletes are rare.
        let gone: HashSet<i64> = doomed.iter().copied().collect();
        let mut holding: (Vec<i64>, Vec<i64>) = (Vec::new(), Vec::new());
        for r in t.query("SELECT atom, key, value FROM atom_values", &[]).map_err(|e| pg_err(&url, e))? {
            let mut holds = false;
            codec::decode(r.get::<_, &[u8]>(2), &mut |a| {
                holds |= gone.contains(&(a as i64));
                Ok(Handle::from_u32(u32::MAX))
            })?;
            if holds {
                holding.0.push(r.get(0));
                holding.1.push(r.get(1));
            }
        }
        if !holding.0.is_empty() {
            t.execute(
                "DELETE FROM atom_values v USING unnest($1::bigint[], $2::bigint[]) AS g(atom, key) WHERE v.atom = g.atom AND v.key = g.key",
                &[&holding.0, &holding.1],
            )
            .map_err(|e| pg_err(&url, e))?;
        }
        t.execute("DELETE FROM atoms WHERE uuid = ANY($1)", &[&doomed]).map_err(|e| pg_err(&url, e))?;
        t.commit().map_err(|e| pg_err(&url, e))?;
        self.ids.clear();
        Ok(Some(true))
    }
}
