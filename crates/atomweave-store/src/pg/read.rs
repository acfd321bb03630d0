//! Atoms found in the store by content, and stored atoms brought into a
//! space.
//!
//! Invariant: reads change nothing stored; a stored atom is added to a
//! space only after its members (rows by height), and enters the uuid
//! cache under its uuid; a row that refers to one not stored is
//! [`StoreError::Corrupt`].

use atomweave::{AtomSpace, Handle, Type};

use super::schema::{holding, link_digest, node_digest, stored_of, Stored, READ_COLUMNS};
use super::PgStore;
use crate::{codec, Batching, HashMap, HashSet, Result, StoreError};

impl PgStore {
    /// The uuids of those of `hs` the store holds, without storing
    /// anything; atoms not stored are left out.
    pub(super) fn lookup(&mut self, space: &AtomSpace, hs: &[Handle]) -> Result<HashMap<Handle, i64>> {
        // Every atom below, by height, so members are resolved first.
        let mut order: Vec<(i16, Handle)> = Vec::new();
        let mut seen: HashMap<Handle, i16> = HashMap::default();
        let mut stack: Vec<(Handle, bool)> = hs.iter().map(|&h| (h, false)).collect();
        while let Some((h, expanded)) = stack.pop() {
            if seen.contains_key(&h) {
                continue;
            }
            if let Some(&(_, ht)) = self.ids.get(&h) {
                seen.insert(h, ht);
                continue;
            }
            let members = space.outgoing(h).ok_or(atomweave::Error::InvalidHandle(h))?;
            if !expanded && !members.is_empty() {
                stack.push((h, true));
                stack.extend(members.iter().filter(|m| !seen.contains_key(*m)).map(|&m| (m, false)));
                continue;
            }
            let ht = if space.is_link(h) { members.iter().map(|m| seen[m]).max().unwrap_or(0).saturating_add(1) } else { 0 };
            seen.insert(h, ht);
            order.push((ht, h));
        }
        order.sort_by_key(|x| x.0);
        let mut reloaded = false;
        let mut start = 0;
        while start < order.len() {
            let end = start + order[start..].iter().take_while(|x| x.0 == order[start].0).count();
            let mut digests: Vec<Vec<u8>> = Vec::new();
            let mut of_digest: HashMap<[u8; 16], Handle> = HashMap::default();
            for &(_, h) in &order[start..end] {
                let t = space.get_type(h).expect("walked");
                let code = match self.types.known(t) {
                    Some(c) => c,
                    None if !reloaded => {
                        // Another process may have added the type: reread once per lookup.
                        reloaded = true;
                        match self.code_known(t)? {
                            Some(c) => c,
                            None => continue,
                        }
                    }
                    None => continue,
                };
                let d = if let Some(name) = space.name(h) {
                    node_digest(code, name)
                } else {
                    let members: Option<Vec<i64>> = space.outgoing(h).expect("walked").iter().map(|m| self.ids.get(m).map(|x| x.0)).collect();
                    // A member not stored: neither is the link.
                    let Some(mut members) = members else { continue };
                    if t.is_unordered() {
                        members.sort_unstable();
                    }
                    link_digest(code, &members)
                };
                digests.push(d.to_vec());
                of_digest.insert(d, h);
            }
            if !digests.is_empty() {
                for r in self.query("SELECT a.digest, a.uuid, a.height FROM unnest($1::bytea[]) AS d(digest) JOIN atoms a USING (digest)", &[&digests])? {
                    let d: Vec<u8> = r.get(0);
                    if let Some(&h) = d.as_slice().try_into().ok().and_then(|d: [u8; 16]| of_digest.get(&d)) {
                        self.ids.insert(h, (r.get(1), r.get(2)));
                    }
                }
            }
            start = end;
        }
        Ok(hs.iter().filter_map(|h| self.ids.get(h).map(|x| (*h, x.0))).collect())
    }

    pub(super) fn lookup_one(&mut self, space: &AtomSpace, h: Handle) -> Result<Option<i64>> {
        Ok(self.lookup(space, &[h])?.get(&h).copied())
    }

    /// The stored atoms `uuids` (and their members) added to the space, with
    /// their truth values; `known` maps uuids already in the space.
    pub(super) fn materialize(&mut self, space: &AtomSpace, uuids: &[i64], known: &mut HashMap<i64, Handle>) -> Result<()> {
        let mut rows: Vec<Stored> = Vec::new();
        let mut asked: HashSet<i64> = HashSet::default();
        let mut frontier: Vec<i64> = uuids.iter().copied().filter(|u| !known.contains_key(u)).collect();
        while !frontier.is_empty() {
            frontier.retain(|u| asked.insert(*u));
            if frontier.is_empty() {
                break;
            }
            let got = self.query(&format!("SELECT {READ_COLUMNS} FROM unnest($1::bigint[]) AS d(uuid) JOIN atoms USING (uuid)"), &[&frontier])?;
            if got.len() < frontier.len() {
                let found: HashSet<i64> = got.iter().map(|r| r.get(0)).collect();
                let missing = frontier.iter().find(|u| !found.contains(*u)).expect("one missing");
                return Err(StoreError::Corrupt(format!("atom {missing} is referred to but not stored")));
            }
            frontier = Vec::new();
            for r in &got {
                let s = stored_of(r);
                frontier.extend(s.outgoing.iter().flatten().filter(|m| !known.contains_key(*m)));
                rows.push(s);
            }
        }
        rows.sort_by_key(|s| s.height);
        for s in rows {
            self.add_stored(space, &s, known)?;
        }
        Ok(())
    }

    fn add_stored(&mut self, space: &AtomSpace, s: &Stored, known: &mut HashMap<i64, Handle>) -> Result<Handle> {
        let t = self.type_of_code(s.code)?;
        let h = match (&s.name, &s.outgoing) {
            (Some(name), None) => space.add_node(t, name)?,
            (None, Some(out)) => {
                let members = out
                    .iter()
                    .map(|m| known.get(m).copied().ok_or_else(|| StoreError::Corrupt(format!("link {} holds atom {m}, which is not stored below it", s.uuid))))
                    .collect::<Result<Vec<_>>>()?;
                space.add_link(t, &members)?
            }
            _ => return Err(StoreError::Corrupt(format!("atom {} has both or neither of a name and an outgoing set", s.uuid))),
        };
        if !s.tv.is_default() {
            space.set_tv(h, s.tv)?;
        }
        known.insert(s.uuid, h);
        self.ids.insert(h, (s.uuid, s.height));
        Ok(h)
    }

    /// Loads the stored values of atoms `uuids` (in `known`); `key` limits them to one key.
    pub(super) fn load_values(&mut self, space: &AtomSpace, uuids: &[i64], key: Option<i64>, known: &mut HashMap<i64, Handle>) -> Result<usize> {
        let rows = match key {
            None => self.query("SELECT v.atom, v.key, v.value FROM unnest($1::bigint[]) AS d(atom) JOIN atom_values v USING (atom)", &[&uuids])?,
            Some(k) => self
                .query("SELECT v.atom, v.key, v.value FROM unnest($1::bigint[]) AS d(atom) JOIN atom_values v USING (atom) WHERE v.key = $2", &[&uuids, &k])?,
        };
        let mut referred: Vec<i64> = Vec::new();
        for r in &rows {
            referred.push(r.get(1));
            let bytes: &[u8] = r.get(2);
            codec::decode(bytes, &mut |a| {
                referred.push(a as i64);
                Ok(Handle::from_u32(0))
            })?;
        }
        self.materialize(space, &referred, known)?;
        for r in &rows {
            let (atom, k, bytes): (i64, i64, &[u8]) = (r.get(0), r.get(1), r.get(2));
            let v = codec::decode(bytes, &mut |a| Ok(known[&(a as i64)]))?;
            space.set_value(known[&atom], known[&k], v)?;
        }
        Ok(rows.len())
    }

    pub(super) fn fetch_incoming(&mut self, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(id) = self.lookup_one(space, h)? else { return Ok(0) };
        let code = match t {
            Some(t) => match self.code_known(t)? {
                Some(c) => Some(c),
                None => return Ok(0),
            },
            None => None,
        };
        let mut known: HashMap<i64, Handle> = HashMap::default();
        known.insert(id, h);
        let mut visited: HashSet<i64> = HashSet::default();
        visited.insert(id);
        let mut work = vec![id];
        let mut loaded = 0;
        while !work.is_empty() {
            let holders: Vec<i64> = match code {
                Some(c) => self.query(concat!("SELECT DISTINCT uuid FROM atoms WHERE ", holding!(), " AND type = $2"), &[&work, &c])?,
                None => self.query(concat!("SELECT DISTINCT uuid FROM atoms WHERE ", holding!()), &[&work])?,
            }
            .iter()
            .map(|r| r.get(0))
            .filter(|u| visited.insert(*u))
            .collect();
            self.materialize(space, &holders, &mut known)?;
            self.load_values(space, &holders, None, &mut known)?;
            loaded += holders.len();
            work = if recursive { holders } else { Vec::new() };
        }
        Ok(loaded)
    }
}
