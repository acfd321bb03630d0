//! The names a store gives: type codes (its own type table, by name, a
//! [`TypeCodes`]) and uuids.
//!
//! Invariant: a code, once in `atomweave_types`, names one type for good,
//! and a type gets its code in a transaction of its own, before any write
//! that needs it; uuids come from the shared sequence in blocks of
//! [`ID_BLOCK`](super::ID_BLOCK), so processes sharing a store never give
//! one uuid twice.

use atomweave::Type;

use super::errors::pg_err;
use super::{PgStore, ID_BLOCK};
use crate::type_codes::TypeCodes;
use crate::Result;

impl PgStore {
    /// Rereads the store's type table.
    pub(super) fn reload_types(&mut self) -> Result<()> {
        let url = self.url.clone();
        let rows = self.client()?.query("SELECT code, name FROM atomweave_types", &[]).map_err(|e| pg_err(&url, e))?;
        self.types = type_codes_of(&rows);
        Ok(())
    }

    /// The store's code for `t`, if it has one (rereading the table once:
    /// another process may have added it).
    pub(super) fn code_known(&mut self, t: Type) -> Result<Option<i16>> {
        if let Some(c) = self.types.known(t) {
            return Ok(Some(c));
        }
        self.reload_types()?;
        Ok(self.types.known(t))
    }

    /// Gives every type in `ts` a code, in transactions of its own (before a
    /// write's, so a failed write leaves no code half made).
    pub(super) fn ensure_codes(&mut self, ts: impl IntoIterator<Item = Type>) -> Result<()> {
        let url = self.url.clone();
        for t in ts {
            if self.types.known(t).is_some() {
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
                    self.types.insert(r.get(0), t.name());
                    break;
                }
            }
        }
        Ok(())
    }

    /// The type a stored code names (rereading the table once if it does
    /// not hold the code: another process may have added it).
    pub(super) fn type_of_code(&mut self, code: i16) -> Result<Type> {
        if !self.types.holds(code) {
            self.reload_types()?;
        }
        self.types.type_of(code)
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

/// The type table rows of `atomweave_types` (code, name) hold.
pub(super) fn type_codes_of(rows: &[postgres::Row]) -> TypeCodes<i16> {
    let mut codes = TypeCodes::default();
    for r in rows {
        codes.insert(r.get(0), r.get::<_, &str>(1));
    }
    codes
}
