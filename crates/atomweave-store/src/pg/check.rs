//! The store checked against itself (`PgStore::check`, for tests and
//! `atomweave` tools).
//!
//! Invariant: it reads only, and reports the first kind of broken
//! reference it finds (a member not stored below its link, a value of an
//! atom or key not stored, a type code not in the type table, a row with
//! both or neither of a name and members) as [`StoreError::Corrupt`].

use super::errors::pg_err;
use super::PgStore;
use crate::{Batching, Result, StoreError};

impl PgStore {
    /// Checks the store's invariants: every member of a stored link is
    /// stored below it, every value belongs to a stored atom under a stored
    /// key, every type code is in the type table. Returns the number of atoms.
    pub fn check(&mut self) -> Result<u64> {
        self.flush()?;
        let url = self.url.clone();
        let c = self.client()?;
        let mut count = |sql: &str| -> Result<i64> { Ok(c.query_one(sql, &[]).map_err(|e| pg_err(&url, e))?.get(0)) };
        let checks = [
            ("SELECT count(*) FROM atoms a, unnest(a.outgoing) m WHERE NOT EXISTS (SELECT 1 FROM atoms b WHERE b.uuid = m AND b.height < a.height)", "links hold atoms that are not stored below them"),
            ("SELECT count(*) FROM atom_values v WHERE NOT EXISTS (SELECT 1 FROM atoms a WHERE a.uuid = v.atom) OR NOT EXISTS (SELECT 1 FROM atoms a WHERE a.uuid = v.key)", "values belong to atoms or keys that are not stored"),
            ("SELECT count(*) FROM atoms a WHERE NOT EXISTS (SELECT 1 FROM atomweave_types t WHERE t.code = a.type)", "atoms have type codes missing from the type table"),
            ("SELECT count(*) FROM atoms WHERE (name IS NULL) = (outgoing IS NULL)", "atoms have both or neither of a name and an outgoing set"),
        ];
        for (sql, what) in checks {
            let n = count(sql)?;
            if n > 0 {
                return Err(StoreError::Corrupt(format!("{n} {what}")));
            }
        }
        Ok(count("SELECT count(*) FROM atoms")? as u64)
    }
}
