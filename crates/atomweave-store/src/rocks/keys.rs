//! The keys of upstream's atomspace-rocks layout, and the atom ids in them.
//!
//! This file is where key bytes are made and taken apart; it is not where
//! atoms or values are written as text (`text.rs`) nor where keys are read
//! or written (the other files). Upstream's prefixes:
//! - `a@SID:` -> the atom's s-expression, after its alpha-equivalence hash
//!   (`h@...`) when it is a scope link;
//! - `n@SEXPR`, `l@SEXPR` -> the SID of a node, a link;
//! - `k@SID:KID` -> the value of atom SID under key atom KID;
//! - `i@SID:TYPE-LID` -> nothing: link LID, of type TYPE, holds atom SID;
//! - `h@HASH` -> the SIDs (each followed by a space) with that hash;
//! - frames (nested AtomSpaces): `f@`, `d@`, `o@`, `z...@`, and a frame id
//!   inside `k@` keys;
//! - `*-Version-*` ("1" or "2") and `*-NextUnusedAID-*` (the highest id issued).
//!
//! Invariant: a SID is an id in base 62, least significant digit first,
//! digits `0-9A-Za-z`; [`sid`] and [`aid`] are inverses on every id.

use crate::{Result, StoreError};

pub(super) const VERSION_KEY: &[u8] = b"*-Version-*";
pub(super) const AID_KEY: &[u8] = b"*-NextUnusedAID-*";
/// The versions whose layout this code reads: upstream's RocksStorageNode
/// writes "2", its MonoStorageNode and older RocksStorageNodes "1".
pub(super) const VERSIONS: [&[u8]; 2] = [b"1", b"2"];
/// The version a new store gets, as upstream gives one.
pub(super) const NEW_VERSION: &[u8] = b"2";

/// Upstream's key of a frame (a nested AtomSpace): a store that holds one has frames.
pub(super) const FRAME_PREFIX: &[u8] = b"f@";

const DIGITS: &[u8; 62] = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/// Appends the SID of atom id `aid`.
pub(super) fn push_sid(out: &mut Vec<u8>, mut aid: u64) {
    loop {
        out.push(DIGITS[(aid % 62) as usize]);
        aid /= 62;
        if aid == 0 {
            return;
        }
    }
}

/// The SID of atom id `aid`.
pub(super) fn sid(aid: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(6);
    push_sid(&mut out, aid);
    out
}

/// The atom id a SID names; damage (an empty SID, a byte that is no
/// digit, an id past 64 bits) is an error naming the SID.
pub(super) fn aid(sid: &[u8]) -> Result<u64> {
    let bad = || StoreError::Corrupt(format!("`{}` is not an atom id of a RocksDB store", String::from_utf8_lossy(sid)));
    if sid.is_empty() {
        return Err(bad());
    }
    let mut aid: u64 = 0;
    for &c in sid.iter().rev() {
        let d = match c {
            b'0'..=b'9' => c - b'0',
            b'A'..=b'Z' => c - b'A' + 10,
            b'a'..=b'z' => c - b'a' + 36,
            _ => return Err(bad()),
        };
        aid = aid.checked_mul(62).and_then(|a| a.checked_add(u64::from(d))).ok_or_else(bad)?;
    }
    Ok(aid)
}

/// `a@SID:`: the atom's s-expression.
pub(super) fn atom_key(aid: u64) -> Vec<u8> {
    let mut k = b"a@".to_vec();
    push_sid(&mut k, aid);
    k.push(b':');
    k
}

/// `n@SEXPR` or `l@SEXPR`: the atom's id, by its s-expression.
pub(super) fn content_key(link: bool, sexpr: &str) -> Vec<u8> {
    let mut k = Vec::with_capacity(sexpr.len() + 2);
    k.extend_from_slice(if link { b"l@" } else { b"n@" });
    k.extend_from_slice(sexpr.as_bytes());
    k
}

/// `k@SID:`: the prefix of every value of the atom.
pub(super) fn values_prefix(aid: u64) -> Vec<u8> {
    let mut k = b"k@".to_vec();
    push_sid(&mut k, aid);
    k.push(b':');
    k
}

/// `k@SID:KID`: the atom's value under one key.
pub(super) fn value_key(aid: u64, key: u64) -> Vec<u8> {
    let mut k = values_prefix(aid);
    push_sid(&mut k, key);
    k
}

/// `i@SID:` (every link holding the atom) or `i@SID:TYPE-` (those of one type).
pub(super) fn incoming_prefix(aid: u64, link_type: Option<&str>) -> Vec<u8> {
    let mut k = b"i@".to_vec();
    push_sid(&mut k, aid);
    k.push(b':');
    if let Some(t) = link_type {
        k.extend_from_slice(t.as_bytes());
        k.push(b'-');
    }
    k
}

/// `i@SID:TYPE-LID`: link LID of type TYPE holds atom SID.
pub(super) fn incoming_key(aid: u64, link_type: &str, link: u64) -> Vec<u8> {
    let mut k = incoming_prefix(aid, Some(link_type));
    push_sid(&mut k, link);
    k
}

/// The ids in a `k@SID:KID` key.
pub(super) fn split_value_key(key: &[u8]) -> Result<(u64, u64)> {
    let bad = || StoreError::Corrupt(format!("`{}` is not a value key of a RocksDB store", String::from_utf8_lossy(key)));
    let rest = key.strip_prefix(b"k@").ok_or_else(bad)?;
    let colon = rest.iter().position(|&c| c == b':').ok_or_else(bad)?;
    let (s, k) = (&rest[..colon], &rest[colon + 1..]);
    if k.contains(&b':') {
        return Err(StoreError::Unsupported(format!(
            "`{}` is a value of a frame (a nested AtomSpace): atomweave reads RocksDB stores of one AtomSpace",
            String::from_utf8_lossy(key)
        )));
    }
    Ok((aid(s)?, aid(k)?))
}

/// The link id at the end of an `i@SID:TYPE-LID` key.
pub(super) fn incoming_link(key: &[u8]) -> Result<u64> {
    let dash =
        key.iter().rposition(|&c| c == b'-').ok_or_else(|| StoreError::Corrupt(format!("`{}` is not an incoming-set key", String::from_utf8_lossy(key))))?;
    aid(&key[dash + 1..])
}

/// The end of the run of keys that start with `prefix`: the first key past them.
pub(super) fn prefix_end(prefix: &[u8]) -> Vec<u8> {
    let mut end = prefix.to_vec();
    while let Some(last) = end.pop() {
        if last < 0xff {
            end.push(last + 1);
            return end;
        }
    }
    end
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Upstream's base 62 puts the least significant digit first.
    #[test]
    fn sids_are_base_62_least_significant_first() {
        for (n, s) in [(0u64, "0"), (1, "1"), (10, "A"), (61, "z"), (62, "01"), (63, "11"), (3844, "001")] {
            assert_eq!(sid(n), s.as_bytes());
            assert_eq!(aid(s.as_bytes()).unwrap(), n);
        }
        for n in [u64::MAX, 1 << 40, 123_456_789] {
            assert_eq!(aid(&sid(n)).unwrap(), n);
        }
        for bad in ["", "a-b", "zzzzzzzzzzzzzzzzzz"] {
            assert!(aid(bad.as_bytes()).is_err(), "{bad}");
        }
        assert_eq!(split_value_key(b"k@A:1").unwrap(), (10, 1));
        assert!(split_value_key(b"k@A:2:1").unwrap_err().to_string().contains("frame"));
        assert_eq!(incoming_link(b"i@1:ListLink-B").unwrap(), 11);
        assert_eq!(prefix_end(b"k@1:"), b"k@1;");
    }
}
