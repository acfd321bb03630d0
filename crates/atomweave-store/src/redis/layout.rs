//! Where an atom lives in Redis, and its records' bytes.
//!
//! An atom's id is a 128-bit hash of its content (XXH3-128 of its type
//! name and name, or of its type name and its members' ids, an unordered
//! link's sorted), so every process on every host computes the same id
//! for the same atom without asking anyone. Its low bits pick one of the
//! store's buckets; every key of a bucket carries the bucket's group as
//! its hash tag, so the atom's record, its values and the index of the
//! links that hold it lie in one slot, on one node.
//!
//! Keys of bucket `b` (in hexadecimal, after its tag `{g}`, `g = b %`
//! [`GROUPS`]):
//! - `r{g}b:T`: a hash of the records of the bucket's atoms of type code
//!   `T` (decimal): field = id (12 bytes), value = [`Record`] bytes;
//! - `v{g}b:` + id: a hash of the atom's values other than its truth value:
//!   field = the key atom's reference, value = [`encode_value`] bytes;
//! - `i{g}b`: a sorted set (every score 0, ordered by bytes) of incoming
//!   entries ([`Entry`]): `X6 T P L` with `X6` the first 6 bytes of the
//!   member's id, `T` the link's type code (LEB128), `P` the member's
//!   position (one byte, 255 for "255 or more") and `L` the link's id;
//!   the links holding X, or holding it with type T, are one range;
//! - `h{g}b`: a sorted set of the bucket's hubs: member `X6`, score the
//!   number of pages (a power of two) its entries are spread over;
//! - `i{g}b:` + `X6` in hexadecimal + `:p`: page `p` of hub X's entries,
//!   the links `L` with [`page_of`]`(L, P) = p`, in the format above.
//!
//! A hub (an atom that a writer's space shows held by [`HUB`] links or
//! more) would make its bucket's index one sorted set too big for the
//! compact encoding (four times the bytes an entry); its own pages of
//! about [`PAGE_ENTRIES`] stay compact. A writer places an entry by what
//! it knows, so one atom's entries may lie in the bucket's index and in
//! pages at once: readers read both, and every page up to the largest
//! page count any writer recorded (`ZADD GT`).
//!
//! Small hashes and sorted sets stay in Redis's compact listpack
//! encoding; the bucket count (fixed when the store is made) keeps them
//! small. The store's own keys (`aw{aw}:meta`, `aw{aw}:types`,
//! `aw{aw}:codes`) share one slot.
//!
//! **Invariant:** an id names one content for good (a second content with
//! the same id is refused as a collision when it is read or written); a
//! record is written only after the entries that index it, and removed
//! before them, so an entry whose record is missing is skipped by readers.

use atomweave::{TruthValue, Type};
use xxhash_rust::xxh3::Xxh3;

use crate::codec::put_varint;
use crate::{Result, StoreError};

/// An atom's content id: 96 bits of a 128-bit hash. Ids are a third of
/// the store's bytes (an atom's own, its members' in its record, its
/// links' in its index); 96 bits keep the chance that two of 10^10
/// atoms share one below one in a billion, and a shared id is found
/// when either atom is read (its record does not hash to it).
#[derive(Copy, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Debug)]
pub(crate) struct Id(pub(crate) u128);

/// Bytes of an id as stored.
pub(crate) const ID_BYTES: usize = 12;

impl Id {
    fn of_hash(h: u128) -> Id {
        Id(h & ((1 << (8 * ID_BYTES)) - 1))
    }

    pub(crate) fn bytes(self) -> [u8; ID_BYTES] {
        self.0.to_be_bytes()[16 - ID_BYTES..].try_into().expect("the low bytes")
    }

    pub(crate) fn from_bytes(b: &[u8]) -> Result<Id> {
        let b: [u8; ID_BYTES] = b.try_into().map_err(|_| StoreError::Corrupt(format!("an atom id of {} bytes, not {ID_BYTES}", b.len())))?;
        let mut all = [0u8; 16];
        all[16 - ID_BYTES..].copy_from_slice(&b);
        Ok(Id(u128::from_be_bytes(all)))
    }

    /// The node's id: its type's name and its name.
    pub(crate) fn node(t: Type, name: &str) -> Id {
        let mut h = Xxh3::new();
        h.update(b"N");
        h.update(t.name().as_bytes());
        h.update(&[0]);
        h.update(name.as_bytes());
        Id::of_hash(h.digest128())
    }

    /// The link's id: its type's name and its members' ids, in the order
    /// given, which an unordered link's are sorted into first (so that any
    /// order of them names the one atom).
    pub(crate) fn link(t: Type, members: &mut [Id]) -> Id {
        if t.is_unordered() {
            members.sort_unstable();
        }
        let mut h = Xxh3::new();
        h.update(b"L");
        h.update(t.name().as_bytes());
        h.update(&[0]);
        for m in members {
            h.update(&m.bytes());
        }
        Id::of_hash(h.digest128())
    }
}

/// Hash tags buckets share: every key of the buckets `b` with one
/// `b % GROUPS` lies in one slot, so one command (a script) writes a
/// group's share of a batch; 1,024 tags spread evenly over a cluster's
/// masters, and move between them whole when it is resharded.
pub(crate) const GROUPS: u32 = 1024;

/// The store's bucket count: a power of two, fixed when the store is made.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct Buckets(pub(crate) u32);

impl Buckets {
    /// About 128 atoms a bucket at 2 M atoms: listpacks of a few hundred
    /// entries, whose inserts stay cheap.
    pub(crate) const DEFAULT: Buckets = Buckets(1 << 14);

    pub(crate) fn of(self, id: Id) -> u32 {
        (id.0 as u32) & (self.0 - 1)
    }

    /// The hash-tag group of bucket `b`.
    pub(crate) fn group(b: u32) -> u32 {
        b % GROUPS
    }

    /// The hash of the atom's records (of type code `code`).
    pub(crate) fn records(self, id: Id, code: u32) -> Vec<u8> {
        Self::records_in(self.of(id), code)
    }

    /// The records of type code `code` in bucket `b`.
    pub(crate) fn records_in(b: u32, code: u32) -> Vec<u8> {
        format!("r{{{:x}}}{b:x}:{code}", Self::group(b)).into_bytes()
    }

    /// The atom's values hash.
    pub(crate) fn values(self, id: Id) -> Vec<u8> {
        let b = self.of(id);
        let mut k = format!("v{{{:x}}}{b:x}:", Self::group(b)).into_bytes();
        k.extend_from_slice(&id.bytes());
        k
    }

    /// The incoming index holding the atom's entries.
    pub(crate) fn incoming(self, id: Id) -> Vec<u8> {
        let b = self.of(id);
        format!("i{{{:x}}}{b:x}", Self::group(b)).into_bytes()
    }

    /// The hubs of the atom's bucket.
    pub(crate) fn hubs(self, id: Id) -> Vec<u8> {
        let b = self.of(id);
        format!("h{{{:x}}}{b:x}", Self::group(b)).into_bytes()
    }

    /// Page `p` of hub `id`'s entries.
    pub(crate) fn page(self, id: Id, p: u32) -> Vec<u8> {
        let b = self.of(id);
        let x: String = hub_name(id).iter().map(|x| format!("{x:02x}")).collect();
        format!("i{{{:x}}}{b:x}:{x}:{p:x}", Self::group(b)).into_bytes()
    }

    /// Every key that may hold entries of `id`, a hub of `pages` pages
    /// (or none): its bucket's index, then its pages.
    pub(crate) fn entry_keys(self, id: Id, pages: u32) -> Vec<Vec<u8>> {
        std::iter::once(self.incoming(id)).chain((0..pages).map(|p| self.page(id, p))).collect()
    }

    /// The keys that may hold the entry of `link` for hub `id` of at
    /// most `pages` pages: its bucket's index, and its page under each
    /// page count a writer may have used.
    pub(crate) fn entry_places(self, id: Id, link: Id, pages: u32) -> Vec<Vec<u8>> {
        let mut at: Vec<u32> = std::iter::successors(Some(MIN_PAGES), |p| p.checked_mul(2)).take_while(|&p| p <= pages).map(|p| page_of(link, p)).collect();
        at.sort_unstable();
        at.dedup();
        std::iter::once(self.incoming(id)).chain(at.into_iter().map(|p| self.page(id, p))).collect()
    }
}

/// Links holding an atom, as a writer's space shows them, from which its
/// entries are paged.
pub(crate) const HUB: usize = 256;
/// Entries a hub's page holds at most on average (between half and all
/// of this): half the 128 Redis keeps compact by default
/// (`zset-max-listpack-entries`), so that the fullest of a thousand
/// pages stays compact too.
pub(crate) const PAGE_ENTRIES: usize = 64;
/// The fewest pages a hub has.
const MIN_PAGES: u32 = HUB.div_ceil(PAGE_ENTRIES) as u32;

/// The pages for an atom held by `incoming` links: none below [`HUB`].
pub(crate) fn pages_for(incoming: usize) -> Option<u32> {
    (incoming >= HUB).then(|| u32::try_from(incoming.div_ceil(PAGE_ENTRIES).next_power_of_two()).unwrap_or(1 << 31))
}

/// The page of a hub of `pages` pages that holds `link`'s entry: bits of
/// the link's id apart from those that pick its bucket.
pub(crate) fn page_of(link: Id, pages: u32) -> u32 {
    ((link.0 >> 64) as u32) & (pages - 1)
}

/// A hub's name in its bucket's `h` set and its pages' keys.
pub(crate) fn hub_name(id: Id) -> [u8; MEMBER_PREFIX] {
    id.bytes()[..MEMBER_PREFIX].try_into().expect("a prefix of the id")
}

/// The store's own keys, in one slot.
pub(crate) const META_KEY: &str = "aw{aw}:meta";
/// Type name -> code.
pub(crate) const TYPES_KEY: &str = "aw{aw}:types";
/// Code -> type name.
pub(crate) const CODES_KEY: &str = "aw{aw}:codes";
/// The layout this code reads and writes (`layout` in the meta hash).
pub(crate) const LAYOUT: &str = "1";

fn varint(b: &mut &[u8]) -> Result<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let (&byte, rest) = b.split_first().ok_or_else(|| StoreError::Corrupt("a record cut short".into()))?;
        *b = rest;
        v |= u64::from(byte & 0x7f) << shift;
        if byte & 0x80 == 0 {
            return Ok(v);
        }
    }
    Err(StoreError::Corrupt("an overlong number in a record".into()))
}

fn take<'a>(b: &mut &'a [u8], n: usize) -> Result<&'a [u8]> {
    if b.len() < n {
        return Err(StoreError::Corrupt("a record cut short".into()));
    }
    let (head, rest) = b.split_at(n);
    *b = rest;
    Ok(head)
}

/// A reference to an atom: its type code and id.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug)]
pub(crate) struct Ref {
    pub(crate) code: u32,
    pub(crate) id: Id,
}

impl Ref {
    pub(crate) fn put(self, out: &mut Vec<u8>) {
        put_varint(out, u64::from(self.code));
        out.extend_from_slice(&self.id.bytes());
    }

    pub(crate) fn read(b: &mut &[u8]) -> Result<Ref> {
        let code = u32::try_from(varint(b)?).map_err(|_| StoreError::Corrupt("a type code out of range".into()))?;
        Ok(Ref { code, id: Id::from_bytes(take(b, ID_BYTES)?)? })
    }
}

// The record's first byte.
const LINK: u8 = 1;
const TV_SIMPLE: u8 = 2;
const TV_COUNT: u8 = 4;
/// The atom has values other than its truth value (under `v{b}` + id).
pub(crate) const HAS_VALUES: u8 = 8;

/// An atom's record: what it is, its truth value, whether it has values.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Record {
    pub(crate) tv: TruthValue,
    pub(crate) has_values: bool,
    pub(crate) body: Body,
}

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Body {
    Node(String),
    Link(Vec<Ref>),
}

/// The truth value's bytes, with its flag: none for the default.
pub(crate) fn tv_bytes(tv: TruthValue, out: &mut Vec<u8>) -> u8 {
    match tv {
        TruthValue::Simple { strength, confidence } if tv != TruthValue::DEFAULT => {
            out.extend_from_slice(&strength.to_le_bytes());
            out.extend_from_slice(&confidence.to_le_bytes());
            TV_SIMPLE
        }
        TruthValue::Count { mean, confidence, count } => {
            for x in [mean, confidence, count] {
                out.extend_from_slice(&x.to_le_bytes());
            }
            TV_COUNT
        }
        _ => 0,
    }
}

impl Record {
    pub(crate) fn encode(&self) -> Vec<u8> {
        let mut out = vec![0];
        let mut flags = tv_bytes(self.tv, &mut out);
        if self.has_values {
            flags |= HAS_VALUES;
        }
        match &self.body {
            Body::Node(name) => out.extend_from_slice(name.as_bytes()),
            Body::Link(members) => {
                flags |= LINK;
                members.iter().for_each(|m| m.put(&mut out));
            }
        }
        out[0] = flags;
        out
    }

    pub(crate) fn decode(mut b: &[u8]) -> Result<Record> {
        let flags = *take(&mut b, 1)?.first().expect("one byte");
        let f = |b: &mut &[u8]| -> Result<f64> { Ok(f64::from_le_bytes(take(b, 8)?.try_into().expect("8 bytes"))) };
        let tv = if flags & TV_COUNT != 0 {
            TruthValue::count(f(&mut b)?, f(&mut b)?, f(&mut b)?)
        } else if flags & TV_SIMPLE != 0 {
            TruthValue::simple(f(&mut b)?, f(&mut b)?)
        } else {
            TruthValue::DEFAULT
        };
        let body = if flags & LINK != 0 {
            let mut members = Vec::new();
            while !b.is_empty() {
                members.push(Ref::read(&mut b)?);
            }
            Body::Link(members)
        } else {
            Body::Node(String::from_utf8(b.to_vec()).map_err(|_| StoreError::Corrupt("a node name that is not UTF-8".into()))?)
        };
        Ok(Record { tv, has_values: flags & HAS_VALUES != 0, body })
    }
}

/// Bytes of a member's id that its incoming entries begin with: enough to
/// tell apart the atoms of one bucket (a reader checks the link's record).
const MEMBER_PREFIX: usize = 6;

/// An incoming entry: link `link` holds the member at `position`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Entry {
    pub(crate) link: Ref,
    pub(crate) position: u8,
}

/// The entry saying that `link` holds `member` at `position`.
pub(crate) fn entry(member: Id, link: Ref, position: usize) -> Vec<u8> {
    let mut out = entry_prefix(member, Some(link.code));
    out.push(position.min(255) as u8);
    out.extend_from_slice(&link.id.bytes());
    out
}

/// The `ZRANGEBYLEX`/`ZLEXCOUNT` bounds of the entries beginning with `prefix`.
pub(crate) fn entry_range(prefix: &[u8]) -> (Vec<u8>, Vec<u8>) {
    ([b"[".as_slice(), prefix].concat(), [b"[".as_slice(), prefix, &[0xff; 24]].concat())
}

/// The start of every entry of `member` (of links of type code `code`).
pub(crate) fn entry_prefix(member: Id, code: Option<u32>) -> Vec<u8> {
    let mut out = member.bytes()[..MEMBER_PREFIX].to_vec();
    if let Some(c) = code {
        put_varint(&mut out, u64::from(c));
    }
    out
}

pub(crate) fn decode_entry(e: &[u8]) -> Result<Entry> {
    let mut b = e.get(MEMBER_PREFIX..).ok_or_else(|| StoreError::Corrupt("a short incoming entry".into()))?;
    let code = u32::try_from(varint(&mut b)?).map_err(|_| StoreError::Corrupt("a type code out of range".into()))?;
    let position = *take(&mut b, 1)?.first().expect("one byte");
    let id = Id::from_bytes(b)?;
    Ok(Entry { link: Ref { code, id }, position })
}

/// A value's bytes: the atoms it holds, as references, then the value in
/// the stores' binary form ([`codec`](crate::codec)) with each atom
/// written as its place in that list.
pub(crate) fn encode_value(v: &atomweave::Value, mut ref_of: impl FnMut(atomweave::Handle) -> Result<Ref>) -> Result<Vec<u8>> {
    let mut refs: Vec<Ref> = Vec::new();
    let mut body = Vec::new();
    crate::codec::encode(v, &mut body, &mut |h| {
        refs.push(ref_of(h)?);
        Ok(refs.len() as u64 - 1)
    })?;
    let mut out = Vec::with_capacity(body.len() + (ID_BYTES + 1) * refs.len() + 2);
    put_varint(&mut out, refs.len() as u64);
    refs.iter().for_each(|r| r.put(&mut out));
    out.extend_from_slice(&body);
    Ok(out)
}

/// The references a value's bytes hold, and its body for
/// [`codec::decode`](crate::codec::decode).
pub(crate) fn split_value(mut b: &[u8]) -> Result<(Vec<Ref>, &[u8])> {
    let n = varint(&mut b)?;
    let mut refs = Vec::new();
    for _ in 0..n {
        refs.push(Ref::read(&mut b)?);
    }
    Ok((refs, b))
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomweave::types::{CONCEPT_NODE, LIST_LINK};

    #[test]
    fn records_read_back() {
        let a = Ref { code: 3, id: Id::node(CONCEPT_NODE, "a") };
        let b = Ref { code: 300, id: Id::node(CONCEPT_NODE, "b") };
        for r in [
            Record { tv: TruthValue::DEFAULT, has_values: false, body: Body::Node("naïve ☃".into()) },
            Record { tv: TruthValue::simple(0.25, 0.5), has_values: true, body: Body::Node(String::new()) },
            Record { tv: TruthValue::count(1.0, 0.0, 7.0), has_values: false, body: Body::Link(vec![a, b, a]) },
            Record { tv: TruthValue::DEFAULT, has_values: true, body: Body::Link(vec![]) },
        ] {
            assert_eq!(Record::decode(&r.encode()).unwrap(), r);
        }
        assert!(Record::decode(&[LINK, 3, 1, 2]).is_err(), "a member cut short is damage");
    }

    #[test]
    fn ids_follow_content_only() {
        let (a, b) = (Id::node(CONCEPT_NODE, "a"), Id::node(CONCEPT_NODE, "b"));
        assert_eq!(a, Id::node(CONCEPT_NODE, "a"));
        assert_ne!(a, Id::node(atomweave::types::PREDICATE_NODE, "a"));
        assert_ne!(Id::link(LIST_LINK, &mut [a, b]), Id::link(LIST_LINK, &mut [b, a]));
        // An unordered link's members name it in any order.
        assert_eq!(Id::link(atomweave::types::SET_LINK, &mut [a, b]), Id::link(atomweave::types::SET_LINK, &mut [b, a]));
        // The name and the type name are kept apart.
        assert_ne!(Id::node(CONCEPT_NODE, "\0x"), Id::node(CONCEPT_NODE, "x"));
    }

    #[test]
    fn entries_of_one_member_share_its_prefix() {
        let x = Id::node(CONCEPT_NODE, "x");
        let l = Ref { code: 200, id: Id::link(LIST_LINK, &mut [x]) };
        let e = entry(x, l, 300);
        assert!(e.starts_with(&entry_prefix(x, Some(200))) && e.starts_with(&entry_prefix(x, None)));
        assert_eq!(decode_entry(&e).unwrap(), Entry { link: l, position: 255 });
        let keys = Buckets::DEFAULT;
        let tag = format!("{{{:x}}}", Buckets::group(keys.of(x)));
        for key in [keys.incoming(x), keys.values(x), keys.records(x, 7)] {
            assert_eq!(&key[1..1 + tag.len()], tag.as_bytes(), "every key of an atom has its group's tag");
        }
        assert_eq!(keys.records(x, 7), Buckets::records_in(keys.of(x), 7));
    }
}
