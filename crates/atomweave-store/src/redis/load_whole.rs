//! The whole store loaded into a space in bulk: every record read bucket
//! by bucket, each checked against its id, then the nodes added in one
//! `add_nodes` and the links a level at a time (a level's members all
//! lie below it) in `add_links` calls, so that the space's cache misses
//! overlap; then truth values, and the values of the atoms that have
//! them, read a group's pipeline at a time.
//!
//! **Invariant:** a link whose member's record is missing (a write cut
//! short) is not loaded, nor anything holding it.

use atomweave::{AtomSpace, Handle, LinkBatch, NodeBatch, TruthValue, Type};

use super::conn::Group;
use super::layout::{split_value, Body, Buckets, Id, Record, Ref};
use super::RedisStore;
use crate::{codec, HashMap, Result, StoreError};

/// Atoms added per `add_nodes` or `add_links` call.
const CHUNK: usize = 1 << 16;

/// Not yet given a level.
const UNKNOWN: u32 = u32::MAX;
/// A link some member of which is not stored (or holds such a link).
const MISSING: u32 = u32::MAX - 1;
/// Its members' levels being worked out.
const VISITING: u32 = u32::MAX - 2;

/// The store's records, each known by its place in `records`.
struct Known {
    records: Vec<(Id, (u32, Record))>,
    /// Each link's members' places (`MISSING` for one not stored), from
    /// `starts[i]` to `starts[i + 1]`.
    members: Vec<u32>,
    starts: Vec<u32>,
    place: HashMap<Id, u32>,
}

impl Known {
    fn new(records: Vec<(Id, (u32, Record))>) -> Known {
        let place: HashMap<Id, u32> = records.iter().enumerate().map(|(i, (id, _))| (*id, i as u32)).collect();
        let mut members = Vec::new();
        let mut starts = Vec::with_capacity(records.len() + 1);
        for (_, (_, rec)) in &records {
            starts.push(members.len() as u32);
            if let Body::Link(ms) = &rec.body {
                members.extend(ms.iter().map(|m| place.get(&m.id).copied().unwrap_or(MISSING)));
            }
        }
        starts.push(members.len() as u32);
        Known { records, members, starts, place }
    }

    fn members(&self, i: u32) -> &[u32] {
        &self.members[self.starts[i as usize] as usize..self.starts[i as usize + 1] as usize]
    }

    /// Each record's level (nodes 0, a link one above its highest member),
    /// or `MISSING` (a work list: links nest arbitrarily deep; a damaged
    /// store's cycle of records is `MISSING` too).
    fn levels(&self) -> Vec<u32> {
        let mut level = vec![UNKNOWN; self.records.len()];
        let mut work = Vec::new();
        for start in 0..self.records.len() as u32 {
            work.push(start);
            while let Some(&i) = work.last() {
                match level[i as usize] {
                    UNKNOWN => {
                        // Its members go above it on the list, and are done
                        // when it is on top again.
                        level[i as usize] = VISITING;
                        work.extend(self.members(i).iter().copied().filter(|&m| m != MISSING && level[m as usize] == UNKNOWN));
                    }
                    VISITING => {
                        let top = self.members(i).iter().try_fold(0u32, |top, &m| match m {
                            MISSING => None,
                            m => Some(level[m as usize]).filter(|&l| l < VISITING).map(|l| top.max(l + 1)),
                        });
                        level[i as usize] = top.unwrap_or(MISSING);
                        work.pop();
                    }
                    _ => {
                        work.pop();
                    }
                }
            }
        }
        level
    }
}

impl RedisStore {
    /// Loads every stored atom with its values; how many.
    pub(super) fn load_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        self.ids.use_space(space);
        let known = Known::new(self.scan_records(None)?);
        let mut by_level: Vec<Vec<u32>> = Vec::new();
        for (i, l) in known.levels().into_iter().enumerate() {
            if l != MISSING {
                let l = l as usize;
                if by_level.len() <= l {
                    by_level.resize_with(l + 1, Vec::new);
                }
                by_level[l].push(i as u32);
            }
        }
        let mut handle: Vec<Option<Handle>> = vec![None; known.records.len()];
        let mut loaded = 0u64;
        for places in &by_level {
            for chunk in places.chunks(CHUNK) {
                self.add_chunk(space, chunk, &known, &mut handle)?;
                loaded += chunk.len() as u64;
                progress(loaded);
            }
        }
        let mut with_values = Vec::new();
        for ((id, (_, rec)), h) in known.records.iter().zip(&handle) {
            let Some(h) = *h else { continue };
            if rec.tv != TruthValue::DEFAULT {
                space.set_tv(h, rec.tv)?;
            }
            if rec.has_values {
                with_values.push((*id, h));
            }
        }
        let handle_of = |id: &Id| known.place.get(id).and_then(|&i| handle[i as usize]);
        self.load_values_of(space, &with_values, &handle_of)?;
        Ok(loaded)
    }

    /// Adds the atoms at `places` (of one level) to the space.
    fn add_chunk(&mut self, space: &AtomSpace, places: &[u32], known: &Known, handle: &mut [Option<Handle>]) -> Result<()> {
        let mut nodes = NodeBatch::new();
        let mut links = LinkBatch::new();
        let (mut node_at, mut link_at) = (Vec::new(), Vec::new());
        let mut one_by_one: Vec<(u32, Type, Vec<Handle>)> = Vec::new();
        let mut members: Vec<Handle> = Vec::new();
        let mut member_ids: Vec<Id> = Vec::new();
        for &i in places {
            let (id, (code, rec)) = &known.records[i as usize];
            let t = self.type_of(*code)?;
            match &rec.body {
                Body::Node(name) => {
                    if Id::node(t, name) != *id {
                        return Err(StoreError::Corrupt(format!("the record of ({} \"{name}\") is stored under another atom's id", t.name())));
                    }
                    nodes.push(t, name);
                    node_at.push(i);
                }
                Body::Link(_) => {
                    members.clear();
                    member_ids.clear();
                    for &m in known.members(i) {
                        members.push(handle[m as usize].expect("a member is added at a lower level"));
                        member_ids.push(known.records[m as usize].0);
                    }
                    if Id::link(t, &mut member_ids) != *id {
                        return Err(StoreError::Corrupt(format!("the record of a {} is stored under another atom's id", t.name())));
                    }
                    // StateLink and GrantLink replace or refuse by key: one at a time.
                    if t.is_added_by_key() {
                        one_by_one.push((i, t, members.clone()));
                    } else {
                        links.push(t, &members);
                        link_at.push(i);
                    }
                }
            }
        }
        let added = node_at.into_iter().zip(space.add_nodes(&nodes)?).chain(link_at.into_iter().zip(space.add_links(&links)?));
        for (i, h) in added {
            handle[i as usize] = Some(h);
            self.ids.insert(h, known.records[i as usize].0);
        }
        for (i, t, out) in one_by_one {
            let h = space.add_link(t, &out)?;
            handle[i as usize] = Some(h);
            self.ids.insert(h, known.records[i as usize].0);
        }
        Ok(())
    }

    /// Loads the values of `atoms` (their ids and handles), one pipeline
    /// of `HGETALL`s per group; values holding atoms not loaded are left.
    fn load_values_of(&mut self, space: &AtomSpace, atoms: &[(Id, Handle)], handle: &dyn Fn(&Id) -> Option<Handle>) -> Result<()> {
        for chunk in atoms.chunks(CHUNK) {
            let mut groups: HashMap<u32, (redis::Pipeline, Vec<Handle>)> = HashMap::default();
            for &(id, h) in chunk {
                let (pipe, hs) = groups.entry(Buckets::group(self.buckets.of(id))).or_insert_with(|| (redis::pipe(), Vec::new()));
                pipe.cmd("HGETALL").arg(self.buckets.values(id));
                hs.push(h);
            }
            let (calls, owners): (Vec<Group>, Vec<Vec<Handle>>) = groups.into_values().map(|(pipe, hs)| (Group { pipe }, hs)).unzip();
            for (replies, hs) in self.conn.run_groups(calls, &[])?.into_iter().zip(owners) {
                for (reply, h) in replies.into_iter().zip(hs) {
                    for (field, bytes) in super::read::pairs(reply) {
                        let key = Ref::read(&mut field.as_slice())?;
                        let Some(kh) = handle(&key.id) else { continue };
                        let (refs, body) = split_value(&bytes)?;
                        let atoms: Option<Vec<Handle>> = refs.iter().map(|r| handle(&r.id)).collect();
                        let Some(atoms) = atoms else { continue };
                        let v = codec::decode(body, &mut |i| {
                            atoms.get(i as usize).copied().ok_or_else(|| StoreError::Corrupt("a value's atom out of range".into()))
                        })?;
                        space.set_value(h, kh, v)?;
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use atomweave::TruthValue;

    fn link(id: u128, members: &[u128]) -> (Id, (u32, Record)) {
        let body = Body::Link(members.iter().map(|&m| Ref { code: 2, id: Id(m) }).collect());
        (Id(id), (2, Record { tv: TruthValue::DEFAULT, has_values: false, body }))
    }

    #[test]
    fn levels_stop_at_missing_members_and_at_cycles_of_damaged_records() {
        let node = (Id(1), (1, Record { tv: TruthValue::DEFAULT, has_values: false, body: Body::Node("a".into()) }));
        let records = vec![link(5, &[4]), node, link(2, &[1, 1]), link(3, &[3]), link(4, &[2, 6]), link(7, &[2]), link(8, &[9]), link(9, &[8])];
        let levels = Known::new(records).levels();
        assert_eq!(levels, [MISSING, 0, 1, MISSING, MISSING, 2, MISSING, MISSING]);
    }
}
