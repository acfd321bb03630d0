//! The store checked against itself (`LmdbStore::check`, for tests and
//! `atomweave` tools).
//!
//! Invariant: it reads only, in one transaction, and reports the first
//! disagreement between the records and the indexes (a content key, a
//! `links` entry or an incoming edge that the records do not call for, or
//! one they call for that is missing, a value of an atom not stored) as
//! [`StoreError::Corrupt`].

use heed::RoTxn;

use super::layout::{be, distinct, link_key, node_key, value_key_ids, Record};
use super::{backend, LmdbStore};
use crate::{Batching, Result, StoreError};

impl LmdbStore {
    /// Checks the store's invariants: every member of a stored link is
    /// stored, every content key and incoming edge points at a stored atom
    /// that matches it, every value belongs to a stored atom. Returns the
    /// number of atoms.
    pub fn check(&mut self) -> Result<u64> {
        self.flush()?;
        self.reading(|s, r| s.check_in(r))
    }

    /// [`check`](Self::check), in the read transaction `r`.
    fn check_in(&mut self, r: &RoTxn<'_>) -> Result<u64> {
        let bad = |msg: String| Err(StoreError::Corrupt(msg));
        let mut n = 0;
        // The link and edge entries the records call for, compared with the
        // tables' as sorted lists (a member may have millions of edges).
        let mut want_links: Vec<(u64, u64)> = Vec::new();
        let mut want_edges: Vec<(u64, u16, u64)> = Vec::new();
        for entry in self.db.atoms.iter(r).map_err(backend)? {
            let (k, _) = entry.map_err(backend)?;
            let id = u64::from_be_bytes(k.try_into().map_err(|_| StoreError::Corrupt("an atom key".into()))?);
            n += 1;
            match self.record(r, id)?.expect("iterated") {
                Record::Node(t, name, _) => {
                    let code = self.record_code(t)?;
                    let (key, hashed) = node_key(code, &name);
                    let ids = self.db.nodes.get(r, &key).map_err(backend)?.unwrap_or_default();
                    if !(if hashed { ids.chunks_exact(8).any(|c| c == id.to_le_bytes()) } else { ids == id.to_le_bytes() }) {
                        return bad(format!("atom {id} cannot be found by its content"));
                    }
                }
                Record::Link(t, members, _) => {
                    let code = self.record_code(t)?;
                    for &m in &members {
                        if self.db.atoms.get(r, &be(m)).map_err(backend)?.is_none() {
                            return bad(format!("link {id} holds atom {m}, which is not stored"));
                        }
                    }
                    want_edges.extend(distinct(&members).map(|m| (m, code, id)));
                    want_links.push((link_key(code, &members), id));
                }
            }
        }
        let mut links: Vec<(u64, u64)> = Vec::with_capacity(want_links.len());
        for entry in self.db.links.iter(r).map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let (Ok(k), Ok(v)) = (<[u8; 8]>::try_from(k), <[u8; 8]>::try_from(v)) else { return bad("a links entry that is not 8 + 8 bytes".into()) };
            links.push((u64::from_be_bytes(k), u64::from_be_bytes(v)));
        }
        want_links.sort_unstable();
        if let Some((hash, id)) = first_difference(&want_links, &links) {
            return bad(format!("the links table and the records disagree about link {id} (hash {hash:016x})"));
        }
        drop((links, want_links));
        let mut edges: Vec<(u64, u16, u64)> = Vec::with_capacity(want_edges.len());
        for entry in self.db.incoming.iter(r).map_err(backend)? {
            let (k, v) = entry.map_err(backend)?;
            let (Ok(k), Ok(v)) = (<[u8; 8]>::try_from(k), <[u8; 10]>::try_from(v)) else {
                return bad(format!("an incoming edge of {} + {} bytes, not 8 + 10", k.len(), v.len()));
            };
            edges.push((u64::from_be_bytes(k), u16::from_be_bytes([v[0], v[1]]), u64::from_be_bytes(v[2..].try_into().expect("10 bytes"))));
        }
        want_edges.sort_unstable();
        if let Some((m, _, l)) = first_difference(&want_edges, &edges) {
            return bad(format!("the incoming table and the records disagree about the edge from {m} to link {l}"));
        }
        for entry in self.db.values.iter(r).map_err(backend)? {
            let (k, _) = entry.map_err(backend)?;
            let (a, key) = value_key_ids(k)?;
            for x in [a, key].into_iter().filter(|&x| x != 0) {
                if self.db.atoms.get(r, &be(x)).map_err(backend)?.is_none() {
                    return bad(format!("a value of atom {a} under key {key} refers to atom {x}, which is not stored"));
                }
            }
        }
        Ok(n)
    }
}

/// The first entry in one sorted list and not the other, if the lists differ.
fn first_difference<T: Ord + Copy>(a: &[T], b: &[T]) -> Option<T> {
    let (mut i, mut j) = (0, 0);
    while i < a.len() || j < b.len() {
        match (a.get(i), b.get(j)) {
            (Some(x), Some(y)) if x == y => (i, j) = (i + 1, j + 1),
            (Some(x), Some(y)) => return Some(*x.min(y)),
            (Some(x), None) | (None, Some(x)) => return Some(*x),
            (None, None) => unreachable!("the loop condition"),
        }
    }
    None
}
