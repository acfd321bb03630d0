//! Atoms read from Redis into a space: records fetched in waves (an
//! atom's, then its members' not yet known, many in flight), checked
//! against their ids, and added members first; incoming sets read as
//! ranges of their member's index (and a hub's pages), a page at a time;
//! whole types and the whole store read bucket by bucket.
//!
//! **Invariant:** reads change nothing in the store. A record that does
//! not hash to its id is damage (or a hash collision) and an error; an
//! index entry whose link record is missing, or a link whose member is
//! missing, is a write still under way (or cut short) and is skipped.

use atomweave::{AtomSource, AtomSpace, Handle, Type, Value};
use redis::Value as RValue;

use super::conn::{Call, Group};
use super::layout::{decode_entry, entry_prefix, entry_range, hub_name, split_value, Body, Buckets, Id, Record, Ref, CODES_KEY, TYPES_KEY};
use super::RedisStore;
use crate::{codec, HashMap, HashSet, Result, StoreError};

/// Incoming entries read per page.
const PAGE: usize = 10_000;
/// A hub's pages read per round trip.
const PAGES_PER_WAVE: usize = 64;
/// Buckets read per wave when a whole type or store is read.
const BUCKETS_PER_WAVE: u32 = 1024;

/// What takes a page of entries (with the store, to read on).
type EachPage<'a> = &'a mut dyn FnMut(&mut RedisStore, Vec<Vec<u8>>) -> Result<()>;

fn entries_of(v: RValue) -> Vec<Vec<u8>> {
    match v {
        RValue::Array(xs) => xs.into_iter().filter_map(bytes_of).collect(),
        _ => Vec::new(),
    }
}

fn bytes_of(v: RValue) -> Option<Vec<u8>> {
    match v {
        RValue::BulkString(b) => Some(b),
        RValue::SimpleString(s) => Some(s.into_bytes()),
        _ => None,
    }
}

/// The field-value pairs of an `HGETALL` reply.
pub(super) fn pairs(v: RValue) -> Vec<(Vec<u8>, Vec<u8>)> {
    match v {
        RValue::Map(m) => m.into_iter().filter_map(|(k, v)| Some((bytes_of(k)?, bytes_of(v)?))).collect(),
        RValue::Array(xs) => {
            let mut it = xs.into_iter();
            let mut out = Vec::new();
            while let (Some(k), Some(v)) = (it.next(), it.next()) {
                if let (Some(k), Some(v)) = (bytes_of(k), bytes_of(v)) {
                    out.push((k, v));
                }
            }
            out
        }
        _ => Vec::new(),
    }
}

impl RedisStore {
    /// The store's code for type `t`, given now if it has none.
    pub(super) fn code_of(&mut self, t: Type) -> Result<u32> {
        if let Some(&c) = self.codes.get(&t) {
            return Ok(c);
        }
        let reply = self.conn.one(Call::Script {
            script: &self.scripts.code,
            keys: vec![TYPES_KEY.into(), CODES_KEY.into(), super::layout::META_KEY.into()],
            args: vec![t.name().as_bytes().to_vec()],
        })?;
        let code = match reply {
            RValue::Int(c) => u32::try_from(c).map_err(|_| StoreError::Corrupt(format!("type code {c}")))?,
            v => return Err(StoreError::Backend(format!("{}: a type code came back as {v:?}", self.url))),
        };
        self.codes.insert(t, code);
        self.types.insert(code, t);
        Ok(code)
    }

    /// The store's code for type `t`, if it has given it one (a read:
    /// nothing is written).
    pub(super) fn stored_code(&mut self, t: Type) -> Result<Option<u32>> {
        if let Some(&c) = self.codes.get(&t) {
            return Ok(Some(c));
        }
        let mut c = redis::cmd("HGET");
        c.arg(TYPES_KEY).arg(t.name());
        let Some(code) = bytes_of(self.conn.one(Call::Cmd(c))?) else { return Ok(None) };
        let code: u32 = String::from_utf8_lossy(&code).parse().map_err(|_| StoreError::Corrupt(format!("the code of type {} in {TYPES_KEY}", t.name())))?;
        self.codes.insert(t, code);
        self.types.insert(code, t);
        Ok(Some(code))
    }

    /// The type the store's code `code` names.
    pub(super) fn type_of(&mut self, code: u32) -> Result<Type> {
        if let Some(&t) = self.types.get(&code) {
            return Ok(t);
        }
        let mut c = redis::cmd("HGET");
        c.arg(CODES_KEY).arg(code);
        let name = bytes_of(self.conn.one(Call::Cmd(c))?).ok_or_else(|| StoreError::Corrupt(format!("type code {code} has no name in {CODES_KEY}")))?;
        let name = String::from_utf8_lossy(&name).into_owned();
        let t = Type::from_name(&name)
            .ok_or_else(|| StoreError::Backend(format!("the store holds atoms of type {name}, which this atomweave does not know: register it first")))?;
        self.types.insert(code, t);
        self.codes.insert(t, code);
        Ok(t)
    }

    /// The records of `refs` (`None` where there is none).
    pub(super) fn fetch_records(&self, refs: &[Ref]) -> Result<Vec<Option<Record>>> {
        // One pipeline of HGETs per group; `places` says where each reply goes.
        let mut groups: HashMap<u32, (redis::Pipeline, Vec<usize>)> = HashMap::default();
        for (i, r) in refs.iter().enumerate() {
            let (pipe, places) = groups.entry(Buckets::group(self.buckets.of(r.id))).or_insert_with(|| (redis::pipe(), Vec::new()));
            pipe.cmd("HGET").arg(self.buckets.records(r.id, r.code)).arg(&r.id.bytes()[..]);
            places.push(i);
        }
        let mut order = Vec::with_capacity(groups.len());
        let calls: Vec<Group> = groups
            .into_values()
            .map(|(pipe, places)| {
                order.push(places);
                Group { pipe }
            })
            .collect();
        let mut out: Vec<Option<Record>> = vec![None; refs.len()];
        for (replies, places) in self.conn.run_groups(calls, &[])?.into_iter().zip(order) {
            for (v, i) in replies.into_iter().zip(places) {
                out[i] = bytes_of(v).map(|b| Record::decode(&b)).transpose()?;
            }
        }
        Ok(out)
    }

    /// Brings the atoms `wanted` into the space, with the members they
    /// need: their records are taken from `known` or fetched. `None` for
    /// an atom the store does not hold whole. Atoms the space lacked get
    /// their stored truth value; so do the `wanted` ones, whose values
    /// are loaded too when `with_values`.
    pub(super) fn materialize(
        &mut self,
        space: &AtomSpace,
        wanted: &[Ref],
        known: &mut HashMap<Id, (u32, Record)>,
        with_values: bool,
    ) -> Result<Vec<Option<Handle>>> {
        // Fetch, in waves, every record not known yet: the atoms', then
        // their members', down to the nodes.
        let mut seen: HashSet<Id> = HashSet::default();
        let mut next: Vec<Ref> = wanted.to_vec();
        while !next.is_empty() {
            next.retain(|r| seen.insert(r.id));
            let unknown: Vec<Ref> = next.iter().copied().filter(|r| !known.contains_key(&r.id)).collect();
            for (r, rec) in unknown.iter().zip(self.fetch_records(&unknown)?) {
                // No record: not stored, or a write under way; placed as None.
                if let Some(rec) = rec {
                    known.insert(r.id, (r.code, rec));
                }
            }
            let mut more = Vec::new();
            for r in &next {
                if let Some((_, Record { body: Body::Link(members), .. })) = known.get(&r.id) {
                    more.extend(members.iter().filter(|m| !seen.contains(&m.id)).copied());
                }
            }
            next = more;
        }
        // Place them, members first (a work list: links nest deep).
        let mut placed: HashMap<Id, Option<Handle>> = HashMap::default();
        let mut out = Vec::with_capacity(wanted.len());
        for w in wanted {
            let mut work = vec![w.id];
            while let Some(&id) = work.last() {
                if placed.contains_key(&id) {
                    work.pop();
                    continue;
                }
                let Some((code, rec)) = known.get(&id) else {
                    placed.insert(id, None);
                    work.pop();
                    continue;
                };
                let code = *code;
                let t = self.type_of(code)?;
                let h = match &rec.body {
                    Body::Node(name) => {
                        if Id::node(t, name) != id {
                            return Err(StoreError::Corrupt(format!("the record of ({} \"{name}\") is stored under another atom's id", t.name())));
                        }
                        let had = space.get_node(t, name);
                        let h = space.add_node(t, name)?;
                        (had.is_none()).then(|| space.set_tv(h, rec.tv)).transpose()?;
                        Some(h)
                    }
                    Body::Link(members) => {
                        let pending: Vec<Id> = members.iter().map(|m| m.id).filter(|m| !placed.contains_key(m)).collect();
                        if !pending.is_empty() {
                            work.extend(pending);
                            continue;
                        }
                        let hs: Option<Vec<Handle>> = members.iter().map(|m| placed[&m.id]).collect();
                        match hs {
                            None => None,
                            Some(hs) => {
                                let mut ids: Vec<Id> = members.iter().map(|m| m.id).collect();
                                if Id::link(t, &mut ids) != id {
                                    return Err(StoreError::Corrupt(format!("the record of a {} is stored under another atom's id", t.name())));
                                }
                                let had = space.get_link(t, &hs);
                                let h = space.add_link(t, &hs)?;
                                (had.is_none()).then(|| space.set_tv(h, rec.tv)).transpose()?;
                                Some(h)
                            }
                        }
                    }
                };
                if let Some(h) = h {
                    self.ids.insert(h, id);
                }
                placed.insert(id, h);
                work.pop();
            }
            let h = placed[&w.id];
            if let Some(h) = h {
                let (_, rec) = &known[&w.id];
                let (tv, has_values) = (rec.tv, rec.has_values);
                space.set_tv(h, tv)?;
                if with_values && has_values {
                    self.load_values(space, *w, h, known)?;
                }
            }
            out.push(h);
        }
        Ok(out)
    }

    /// Loads the stored values of atom `r` (in the space as `h`), but its
    /// truth value (in its record).
    fn load_values(&mut self, space: &AtomSpace, r: Ref, h: Handle, known: &mut HashMap<Id, (u32, Record)>) -> Result<()> {
        let mut c = redis::cmd("HGETALL");
        c.arg(self.buckets.values(r.id));
        for (field, bytes) in pairs(self.conn.one(Call::Cmd(c))?) {
            let key = Ref::read(&mut field.as_slice())?;
            let (refs, body) = split_value(&bytes)?;
            let mut wanted = vec![key];
            wanted.extend(&refs);
            let hs = self.materialize(space, &wanted, known, false)?;
            let Some(Some(kh)) = hs.first().copied() else { continue };
            let atoms = &hs[1..];
            let v: Value = codec::decode(body, &mut |i| {
                atoms.get(i as usize).copied().flatten().ok_or_else(|| StoreError::Corrupt("a value holds an atom the store does not hold whole".into()))
            })?;
            space.set_value(h, kh, v)?;
        }
        Ok(())
    }

    /// Loads the links holding `h` (of type `t`; with `recursive`, the
    /// links holding those, and so on), with their values; how many.
    pub(super) fn fetch_incoming(&mut self, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        self.ids.use_space(space);
        let code = match t {
            Some(t) => match self.stored_code(t)? {
                Some(c) => Some(c),
                None => return Ok(0),
            },
            None => None,
        };
        let root = self.id_of(space, h)?;
        let mut visited: HashSet<Id> = HashSet::default();
        visited.insert(root);
        let mut work = vec![root];
        let mut loaded = 0;
        let mut known = HashMap::default();
        while let Some(member) = work.pop() {
            let prefix = entry_prefix(member, if member == root { code } else { None });
            self.each_entries(member, &prefix, &mut |this, page| {
                let links: Vec<Ref> = page.iter().map(|e| decode_entry(e).map(|e| e.link)).collect::<Result<_>>()?;
                let fresh: Vec<Ref> = links.into_iter().filter(|l| !visited.contains(&l.id)).collect();
                let hs = this.materialize(space, &fresh, &mut known, true)?;
                for (l, lh) in fresh.iter().zip(hs) {
                    // The entry's member prefix may be another atom's of the bucket.
                    let holds = matches!(known.get(&l.id), Some((_, Record { body: Body::Link(ms), .. })) if ms.iter().any(|m| m.id == member));
                    if lh.is_some() && holds && visited.insert(l.id) {
                        loaded += 1;
                        if recursive {
                            work.push(l.id);
                        }
                    }
                }
                Ok(())
            })?;
            known.clear();
        }
        Ok(loaded)
    }

    /// How many pages hub `id`'s entries lie in (0 for an atom no writer
    /// took for a hub).
    pub(super) fn pages_of(&self, id: Id) -> Result<u32> {
        self.pages_in(self.conn.one(Call::Cmd(self.pages_cmd(id)))?)
    }

    fn pages_cmd(&self, id: Id) -> redis::Cmd {
        let mut c = redis::cmd("ZSCORE");
        c.arg(self.buckets.hubs(id)).arg(&hub_name(id)[..]);
        c
    }

    /// The page count in a reply to [`pages_cmd`](Self::pages_cmd).
    fn pages_in(&self, reply: RValue) -> Result<u32> {
        let pages = match reply {
            RValue::Nil => return Ok(0),
            RValue::Double(d) => Some(d),
            v => bytes_of(v).and_then(|b| std::str::from_utf8(&b).ok()?.parse::<f64>().ok()),
        };
        pages
            .filter(|p| *p >= 1.0 && *p <= f64::from(u32::MAX) && p.fract() == 0.0)
            .map(|p| p as u32)
            .filter(|p| p.is_power_of_two())
            .ok_or_else(|| StoreError::Corrupt(format!("{}: a hub's page count that is no power of two: {pages:?}", self.url)))
    }

    /// Reads `member`'s entries that begin with `prefix` from every key
    /// that may hold them (its bucket's index, a hub's pages), handing
    /// `each` at most [`PAGE`] at a time. The bucket's first page comes
    /// with the hub's page count, in one round trip; then a wave of pages'
    /// first pages a round trip.
    pub(super) fn each_entries(&mut self, member: Id, prefix: &[u8], each: EachPage<'_>) -> Result<()> {
        let (first, max) = entry_range(prefix);
        let range = |key: &[u8], min: &[u8]| {
            let mut c = redis::cmd("ZRANGEBYLEX");
            c.arg(key).arg(min).arg(&max).arg("LIMIT").arg(0).arg(PAGE);
            Call::Cmd(c)
        };
        let bucket = self.buckets.incoming(member);
        let mut replies = self.conn.run(&[Call::Cmd(self.pages_cmd(member)), range(&bucket, &first)])?.into_iter();
        let (pages, page) = (replies.next().expect("two replies"), replies.next().expect("two replies"));
        let pages = self.pages_in(pages)?;
        let mut firsts = vec![(bucket, page)];
        let keys = self.buckets.entry_keys(member, pages);
        let mut waves = keys[1..].chunks(PAGES_PER_WAVE);
        loop {
            for (key, reply) in firsts {
                let mut page = entries_of(reply);
                // A key with more than a page is read on, a page at a time.
                loop {
                    let full = page.len() == PAGE;
                    let min = full.then(|| [b"(".as_slice(), page.last().expect("a full page")].concat());
                    if !page.is_empty() {
                        each(self, page)?;
                    }
                    let Some(min) = min else { break };
                    page = entries_of(self.conn.one(range(&key, &min))?);
                }
            }
            let Some(wave) = waves.next() else { return Ok(()) };
            let calls: Vec<Call<'_>> = wave.iter().map(|k| range(k, &first)).collect();
            firsts = wave.iter().cloned().zip(self.conn.run(&calls)?).collect();
        }
    }

    /// Every record of the store (of type code `only`, or all), with its
    /// id and type code.
    pub(super) fn scan_records(&mut self, only: Option<u32>) -> Result<Vec<(Id, (u32, Record))>> {
        let codes: Vec<u32> = match only {
            Some(c) => vec![c],
            None => {
                let mut c = redis::cmd("HKEYS");
                c.arg(CODES_KEY);
                match self.conn.one(Call::Cmd(c))? {
                    RValue::Array(xs) => xs.into_iter().filter_map(bytes_of).filter_map(|b| String::from_utf8(b).ok()?.parse().ok()).collect(),
                    _ => Vec::new(),
                }
            }
        };
        let waves: Vec<(u32, u32)> = codes.iter().flat_map(|&c| (0..self.buckets.0).step_by(BUCKETS_PER_WAVE as usize).map(move |from| (c, from))).collect();
        let start = |&(code, from): &(u32, u32)| {
            let mut groups: HashMap<u32, redis::Pipeline> = HashMap::default();
            for b in from..(from + BUCKETS_PER_WAVE).min(self.buckets.0) {
                groups.entry(Buckets::group(b)).or_insert_with(redis::pipe).cmd("HGETALL").arg(Buckets::records_in(b, code));
            }
            self.conn.start_groups(groups.into_values().map(|pipe| Group { pipe }).collect())
        };
        let mut out = Vec::new();
        // A wave read while the one before is decoded.
        let mut next = waves.first().map(start).transpose()?;
        for (i, (code, _)) in waves.iter().enumerate() {
            let this = next.take().expect("a wave started");
            next = waves.get(i + 1).map(start).transpose()?;
            for reply in self.conn.finish(this)?.into_iter().flatten() {
                for (id, rec) in pairs(reply) {
                    out.push((Id::from_bytes(&id)?, (*code, Record::decode(&rec)?)));
                }
            }
        }
        Ok(out)
    }

    /// Loads every stored atom of type code `code`, with its values (and
    /// the members they need); how many.
    pub(super) fn load_type(&mut self, space: &AtomSpace, code: u32) -> Result<u64> {
        self.ids.use_space(space);
        let mut known: HashMap<Id, (u32, Record)> = self.scan_records(Some(code))?.into_iter().collect();
        let wanted: Vec<Ref> = known.keys().map(|&id| Ref { code, id }).collect();
        let mut n = 0u64;
        for chunk in wanted.chunks(crate::BATCH) {
            n += self.materialize(space, chunk, &mut known, true)?.iter().filter(|h| h.is_some()).count() as u64;
        }
        Ok(n)
    }

    /// Loads the stored values of `h` (its truth value too); false if the
    /// store does not hold it.
    pub(super) fn fetch_one(&mut self, space: &AtomSpace, h: Handle, key: Option<Handle>) -> Result<bool> {
        self.ids.use_space(space);
        let t = space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        let Some(code) = self.stored_code(t)? else { return Ok(false) };
        let r = Ref { code, id: self.id_of(space, h)? };
        let Some(Some(rec)) = self.fetch_records(&[r])?.pop() else { return Ok(false) };
        let mut known = HashMap::default();
        match key {
            None => {
                space.set_tv(h, rec.tv)?;
                if rec.has_values {
                    self.load_values(space, r, h, &mut known)?;
                }
            }
            Some(k) if space.is_tv_key(k) => space.set_tv(h, rec.tv)?,
            Some(k) => {
                let kt = space.get_type(k).ok_or(atomweave::Error::InvalidHandle(k))?;
                let Some(kcode) = self.stored_code(kt)? else { return Ok(false) };
                let kref = Ref { code: kcode, id: self.id_of(space, k)? };
                let mut field = Vec::new();
                kref.put(&mut field);
                let mut c = redis::cmd("HGET");
                c.arg(self.buckets.values(r.id)).arg(field);
                let Some(bytes) = bytes_of(self.conn.one(Call::Cmd(c))?) else { return Ok(false) };
                let (refs, body) = split_value(&bytes)?;
                let hs = self.materialize(space, &refs, &mut known, false)?;
                let v = codec::decode(body, &mut |i| {
                    hs.get(i as usize).copied().flatten().ok_or_else(|| StoreError::Corrupt("a value holds an atom the store does not hold whole".into()))
                })?;
                space.set_value(h, k, v)?;
            }
        }
        Ok(true)
    }

    /// Loads the stored atom `t` with this content (a node's name, or a
    /// link's members in the space), with its values; `None` if the store
    /// does not hold it.
    pub(super) fn fetch_content(&mut self, space: &AtomSpace, t: Type, name: Option<&str>, outgoing: &[Handle]) -> Result<Option<Handle>> {
        self.ids.use_space(space);
        let Some(code) = self.stored_code(t)? else { return Ok(None) };
        let id = match name {
            Some(name) => Id::node(t, name),
            None => {
                let mut ids = outgoing.iter().map(|&m| self.id_of(space, m)).collect::<Result<Vec<Id>>>()?;
                Id::link(t, &mut ids)
            }
        };
        let mut known = HashMap::default();
        Ok(self.materialize(space, &[Ref { code, id }], &mut known, true)?.pop().flatten())
    }

    /// How many index entries the store holds for `h` (an upper bound on
    /// the links holding it: a link holding it twice has two).
    pub(super) fn count_incoming(&mut self, space: &AtomSpace, h: Handle) -> Result<usize> {
        self.ids.use_space(space);
        let id = self.id_of(space, h)?;
        let (min, max) = entry_range(&entry_prefix(id, None));
        let mut n = 0;
        for wave in self.buckets.entry_keys(id, self.pages_of(id)?).chunks(PAGES_PER_WAVE) {
            let calls: Vec<Call<'_>> = wave
                .iter()
                .map(|k| {
                    let mut c = redis::cmd("ZLEXCOUNT");
                    c.arg(k).arg(&min).arg(&max);
                    Call::Cmd(c)
                })
                .collect();
            for reply in self.conn.run(&calls)? {
                match reply {
                    RValue::Int(k) => n += usize::try_from(k).unwrap_or(0),
                    v => return Err(StoreError::Backend(format!("{}: ZLEXCOUNT answered {v:?}", self.url))),
                }
            }
        }
        Ok(n)
    }
}
