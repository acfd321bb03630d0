//! The names a store gives: type codes (its own type table, by name) and
//! uuids.
//!
//! Invariant: a code, once in `atomweave_types`, names one type for good,
//! and a type gets its code in a transaction of its own, before any write
//! that needs it; uuids come from the shared sequence in blocks of
//! [`ID_BLOCK`](super::ID_BLOCK), so processes sharing a store never give
//! one uuid twice.

use atomweave::Type;

use super::errors::pg_err;
use super::{PgStore, ID_BLOCK};
use crate::{Result, StoreError};

impl PgStore {
    pub(super) fn reload_types(&mut self) -> Result<()> {
        let url = self.url.clone();
        let rows = self.client()?.query("SELECT code, name FROM atomweave_types", &[]).map_err(|e| pg_err(&url, e))?;
        self.names_of_code.clear();
        self.code_of_type.clear();
        for r in rows {
            let (code, name): (i16, String) = (r.get(0), r.get(1));
            if let Some(t) = Type::from_name(&name) {
                self.code_of_type.insert(t, code);
            }
            self.names_of_code.insert(code, name);
        }
        Ok(())
    }

    /// The store's code for `t`, if it has one (rereading the table once:
    /// another process may have added it).
    pub(super) fn code_known(&mut self, t: Type) -> Result<Option<i16>> {
        if let Some(&c) = self.code_of_type.get(&t) {
            return Ok(Some(c));
        }
        self.reload_types()?;
        Ok(self.code_of_type.get(&t).copied())
    }

    /// Gives every type in `ts` a code, in transactions of its own (before a
    /// write's, so a failed write leaves no code half made).
    pub(super) fn ensure_codes(&mut self, ts: impl IntoIterator<Item = Type>) -> Result<()> {
        let url = self.url.clone();
        for t in ts {
            if self.code_of_type.contains_key(&t) {
                continue;
            }
            loop {
                // Two processes may pick the same next code: one wins, the other tries again.
                let c = self.client()?;
                c.execute(
                    "INSERT INTO atomweave_types (code, name) SELECT coalesce(max(code), 0) + 1, $1 FROM atomweave_types ON CONFLICT DO NOTHING",
                    &[&t.name()],
                )
                .map_err(|e| pg_err(&url, e))?;
                if let Some(r) = c.query_opt("SELECT code FROM atomweave_types WHERE name = $1", &[&t.name()]).map_err(|e| pg_err(&url, e))? {
                    let code: i16 = r.get(0);
                    self.code_of_type.insert(t, code);
                    self.names_of_code.insert(code, t.name().to_string());
                    break;
                }
            }
        }
        Ok(())
    }

    pub(super) fn type_of_code(&mut self, code: i16) -> Result<Type> {
        if !self.names_of_code.contains_key(&code) {
            self.reload_types()?;
        }
        let name = self.names_of_code.get(&code).ok_or_else(|| StoreError::Corrupt(format!("type code {code} is not in the store's type table")))?;
        atomweave::types::from_name_or_family(name)
            .ok_or_else(|| StoreError::Backend(format!("the store holds atoms of type {name}, which is not known here (register it first)")))
    }

    /// `n` fresh uuids.
    pub(super) fn take_ids(&mut self, n: usize) -> Result<Vec<i64>> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n && !self.free.is_empty() {
            out.push(self.free.start);
            self.free.start += 1;
        }
        if out.len() < n {
            let blocks = ((n - out.len()) as i64 + ID_BLOCK - 1) / ID_BLOCK;
            let url = self.url.clone();
            let rows = self.client()?.query("SELECT nextval('atomweave_ids') FROM generate_series(1, $1::bigint)", &[&blocks]).map_err(|e| pg_err(&url, e))?;
            for r in rows {
                let base: i64 = r.get(0);
                let end = out.len() + (n - out.len()).min(ID_BLOCK as usize);
                let used = (end - out.len()) as i64;
                out.extend(base..base + used);
                if used < ID_BLOCK {
                    self.free = base + used..base + ID_BLOCK;
                }
            }
        }
        Ok(out)
    }
}
