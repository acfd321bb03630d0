//! The store's meta table as this process holds it: the next atom id and
//! the type table (code -> type name, a [`TypeCodes`](crate::type_codes::TypeCodes)).
//!
//! Invariant: the copy here is reread from the table at the start of
//! every transaction ([`LmdbStore::refresh_meta`]), so neither a write of
//! ours that failed nor another process's write leaves a stale next id or
//! code behind; a code, once in the table, names its type for good.

use heed::{RoTxn, RwTxn};

use atomweave::Type;

use super::{backend, LmdbStore};
use crate::{Result, StoreError};

impl LmdbStore {
    /// The code of a type read from a record (so the store has one).
    pub(super) fn record_code(&mut self, t: Type) -> Result<u16> {
        self.types.code(t).ok_or_else(|| StoreError::Corrupt(format!("no code for type {}", t.name())))
    }

    /// The store's code for `t`, given now (in the meta table, in `w`)
    /// if it has none.
    pub(super) fn code(&mut self, w: &mut RwTxn<'_>, t: Type) -> Result<u16> {
        if let Some(c) = self.types.code(t) {
            return Ok(c);
        }
        let code = u16::try_from(self.types.len()).map_err(|_| StoreError::Backend("more than 65536 types".into()))?;
        let mut key = b"type:".to_vec();
        key.extend_from_slice(&code.to_be_bytes());
        self.db.meta.put(w, &key, t.name().as_bytes()).map_err(backend)?;
        self.types.insert(code, t.name());
        Ok(code)
    }

    /// Rereads what the store's meta table says: the next id and the type
    /// table. Done at the start of every write, so that a failed write of
    /// ours, or a write by another process, leaves no stale copy here.
    pub(super) fn refresh_meta(&mut self, r: &RoTxn<'_>) -> Result<()> {
        self.next_id = match self.db.meta.get(r, b"next_id").map_err(backend)? {
            Some(v) => u64::from_le_bytes(v.try_into().map_err(|_| StoreError::Corrupt("next_id".into()))?),
            None => 1,
        };
        // Reads do this too, so the common case, an unchanged table, only compares names.
        let mut unchanged = true;
        let mut count = 0;
        for entry in self.db.meta.prefix_iter(r, b"type:").map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let code = k.get(5..7).map(|c| u16::from_be_bytes([c[0], c[1]]));
            if code.is_none_or(|c| !self.types.names(c, v)) {
                unchanged = false;
                break;
            }
            count += 1;
        }
        if unchanged && count == self.types.len() {
            return Ok(());
        }
        self.types.clear();
        for entry in self.db.meta.prefix_iter(r, b"type:").map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let code = u16::from_be_bytes(k.get(5..7).and_then(|c| c.try_into().ok()).ok_or_else(|| StoreError::Corrupt("a type code".into()))?);
            let name = std::str::from_utf8(v).map_err(|_| StoreError::Corrupt("a type name".into()))?;
            self.types.insert(code, name);
        }
        Ok(())
    }

    /// The next store id. Ids stay below 2^32 (a space's handles do): a
    /// next id past that is damage, as loading would say.
    pub(super) fn new_id(&mut self) -> Result<u64> {
        let id = self.next_id;
        if id >= u64::from(u32::MAX) {
            return Err(StoreError::Corrupt(format!("the store's next atom id is {id}, past any a store makes")));
        }
        self.next_id += 1;
        Ok(id)
    }

    pub(super) fn reload_meta(&mut self) -> Result<()> {
        let env = self.env.clone();
        let _lock = self.shared_lock()?;
        let r = env.read_txn().map_err(backend)?;
        self.refresh_meta(&r)
    }
}
