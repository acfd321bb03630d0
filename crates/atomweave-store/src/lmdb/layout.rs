//! The bytes of the LMDB store's tables: keys, records, incoming edges.
//!
//! Invariant: what these functions encode, they decode to the same (a
//! record's type code, flags, truth value and name or members; a key's
//! ids); ids in keys are big-endian, so keys sort as the ids do and a
//! member's edges are one run; and bytes that do not decode (a short
//! record, a member id not below its link's) are a
//! [`StoreError::Corrupt`], never a panic.

use std::borrow::Cow;

use atomweave::{TruthValue, Type};

use crate::{Result, StoreError};

/// Longest key LMDB takes (its default build).
const MAX_KEY: usize = 511;

pub(super) fn be(id: u64) -> [u8; 8] {
    id.to_be_bytes()
}

/// The atom and key ids of a `values` key ([`value_key`]); a key
/// of another length is damage, not a panic.
pub(super) fn value_key_ids(k: &[u8]) -> Result<(u64, u64)> {
    let k: [u8; 16] = k.try_into().map_err(|_| StoreError::Corrupt(format!("a value key of {} bytes, not 16", k.len())))?;
    let (id, key) = k.split_at(8);
    Ok((u64::from_be_bytes(id.try_into().expect("8 bytes")), u64::from_be_bytes(key.try_into().expect("8 bytes"))))
}

/// An incoming edge's data under its member: link type code, link.
pub(super) fn edge_data(code: u16, link: u64) -> [u8; 10] {
    let mut e = [0u8; 10];
    e[..2].copy_from_slice(&code.to_be_bytes());
    e[2..].copy_from_slice(&be(link));
    e
}

/// What follows the type code in a node's `nodes` key: its name, or for a
/// name too long for a key, 0xFF (never a UTF-8 byte) and the name's hash.
pub(super) fn key_tail(name: &str) -> Cow<'_, [u8]> {
    if 2 + name.len() <= MAX_KEY {
        Cow::Borrowed(name.as_bytes())
    } else {
        let mut k = vec![0xFF];
        // XXH3's output is fixed by its specification: stored hashes stay valid.
        k.extend_from_slice(&xxhash_rust::xxh3::xxh3_128(name.as_bytes()).to_be_bytes());
        Cow::Owned(k)
    }
}

/// A link's members, each once (an incoming set lists a link once).
pub(super) fn distinct(members: &[u64]) -> impl Iterator<Item = u64> + '_ {
    members.iter().enumerate().filter(|&(i, m)| !members[..i].contains(m)).map(|(_, &m)| m)
}

pub(super) use crate::codec::put_varint;

/// The member ids of a link record's body.
pub(super) fn members_of(id: u64, mut body: &[u8], out: &mut Vec<u64>) -> Result<()> {
    out.clear();
    while !body.is_empty() {
        let (mut x, mut shift) = (0u64, 0);
        loop {
            let (&b, rest) = body.split_first().ok_or_else(|| StoreError::Corrupt(format!("link {id}'s members end early")))?;
            body = rest;
            if shift > 63 {
                return Err(StoreError::Corrupt(format!("link {id} has a member id too long")));
            }
            x |= u64::from(b & 0x7f) << shift;
            shift += 7;
            if b < 0x80 {
                break;
            }
        }
        // Members are stored before the links that hold them: a member id
        // not below the link's is damage, and following it could loop.
        if x >= id {
            return Err(StoreError::Corrupt(format!("link {id} holds atom {x}, which was not stored before it")));
        }
        out.push(x);
    }
    Ok(())
}

/// Link ids fit the low 48 bits of a packed incoming edge.
pub(super) const EDGE_LINK_BITS: u32 = 48;

/// A decoded atom record.
pub(super) enum Record {
    Node(Type, String, TruthValue),
    Link(Type, Vec<u64>, TruthValue),
}

const LINK_FLAG: u8 = 1;
const STV_FLAG: u8 = 2;
const CTV_FLAG: u8 = 4;

/// A record: type code, flags, truth value, then the name or member ids.
pub(super) fn encode_record(code: u16, link: bool, tv: TruthValue, payload: impl FnOnce(&mut Vec<u8>)) -> Vec<u8> {
    let mut rec = code.to_le_bytes().to_vec();
    rec.push(0);
    rec[2] = u8::from(link) * LINK_FLAG;
    match tv {
        _ if tv.is_default() => {}
        TruthValue::Simple { strength, confidence } => {
            rec[2] |= STV_FLAG;
            rec.extend_from_slice(&strength.to_le_bytes());
            rec.extend_from_slice(&confidence.to_le_bytes());
        }
        TruthValue::Count { mean, confidence, count } => {
            rec[2] |= CTV_FLAG;
            for x in [mean, confidence, count] {
                rec.extend_from_slice(&x.to_le_bytes());
            }
        }
    }
    payload(&mut rec);
    rec
}

/// The parts of a record: type code, is it a link, truth value, payload.
pub(super) fn split_record(id: u64, bytes: &[u8]) -> Result<(u16, bool, TruthValue, &[u8])> {
    let short = || StoreError::Corrupt(format!("atom {id} has a short record"));
    if bytes.len() < 3 {
        return Err(short());
    }
    let (code, flags) = (u16::from_le_bytes([bytes[0], bytes[1]]), bytes[2]);
    let f = |i: usize| f64::from_le_bytes(bytes[3 + 8 * i..11 + 8 * i].try_into().expect("8 bytes"));
    let (tv, rest) = if flags & STV_FLAG != 0 {
        if bytes.len() < 19 {
            return Err(short());
        }
        (TruthValue::simple(f(0), f(1)), &bytes[19..])
    } else if flags & CTV_FLAG != 0 {
        if bytes.len() < 27 {
            return Err(short());
        }
        (TruthValue::count(f(0), f(1), f(2)), &bytes[27..])
    } else {
        (TruthValue::DEFAULT, &bytes[3..])
    };
    Ok((code, flags & LINK_FLAG != 0, tv, rest))
}

/// A node's `nodes` key, and whether it is hashed.
pub(super) fn node_key(code: u16, name: &str) -> (Vec<u8>, bool) {
    let tail = key_tail(name);
    let hashed = matches!(tail, Cow::Owned(_));
    let mut k = code.to_be_bytes().to_vec();
    k.extend_from_slice(&tail);
    (k, hashed)
}

/// A link's `links` key: the hash of its type code and member ids.
pub(super) fn link_key(code: u16, members: &[u64]) -> u64 {
    let mut h = xxhash_rust::xxh3::Xxh3Default::new();
    h.update(&code.to_le_bytes());
    members.iter().for_each(|m| h.update(&m.to_le_bytes()));
    h.digest()
}

/// A `values` key: atom id, key id.
pub(super) fn value_key(id: u64, key_id: u64) -> [u8; 16] {
    let mut k = [0u8; 16];
    k[..8].copy_from_slice(&be(id));
    k[8..].copy_from_slice(&be(key_id));
    k
}
