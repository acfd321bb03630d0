//! Atoms taken out of Redis: each link's record and values first, then
//! the entries indexing it, so that no reader finds a record without its
//! entries (entries without a record are skipped).

use atomweave::{AtomSpace, Handle};

use super::conn::Call;
use super::layout::{decode_entry, entry, entry_prefix, Body, Id, Record, Ref};
use super::RedisStore;
use crate::{HashSet, Result};

impl RedisStore {
    /// The links that hold `member` in the store (their records read and
    /// checked to hold it), with their records.
    fn holders(&mut self, member: Id) -> Result<Vec<(Ref, Record)>> {
        let mut links: Vec<Ref> = Vec::new();
        self.each_entries(member, &entry_prefix(member, None), &mut |_, page| {
            for e in page {
                links.push(decode_entry(&e)?.link);
            }
            Ok(())
        })?;
        links.sort_unstable_by_key(|l| l.id);
        links.dedup();
        let records = self.fetch_records(&links)?;
        Ok(links
            .into_iter()
            .zip(records)
            .filter_map(|(l, r)| r.filter(|r| matches!(&r.body, Body::Link(ms) if ms.iter().any(|m| m.id == member))).map(|r| (l, r)))
            .collect())
    }

    /// Deletes `h` from the store (with `recursive`, the links holding it
    /// first, outermost first); `None` if links hold it and `recursive` is
    /// not set; whether the store held it.
    pub(super) fn delete_from_store(&mut self, space: &AtomSpace, h: Handle, recursive: bool) -> Result<Option<bool>> {
        self.ids.use_space(space);
        let t = space.get_type(h).ok_or(atomweave::Error::InvalidHandle(h))?;
        let Some(code) = self.stored_code(t)? else { return Ok(Some(false)) };
        let root = Ref { code, id: self.id_of(space, h)? };
        let Some(Some(rec)) = self.fetch_records(&[root])?.pop() else { return Ok(Some(false)) };
        // Every atom to delete, each after the links holding it.
        let mut order: Vec<(Ref, Record)> = Vec::new();
        let mut seen: HashSet<Id> = HashSet::default();
        let mut work = vec![(root, rec)];
        while let Some((r, rec)) = work.pop() {
            if !seen.insert(r.id) {
                continue;
            }
            let holders = self.holders(r.id)?;
            if !holders.is_empty() && !recursive {
                return Ok(None);
            }
            order.push((r, rec));
            work.extend(holders);
        }
        // Each atom's holders were found after it: the reverse order takes
        // holders first (one reached twice may go before a holder: a
        // reader skips that holder, its member missing).
        for (r, rec) in order.iter().rev() {
            let mut del = redis::cmd("HDEL");
            del.arg(self.buckets.records(r.id, r.code)).arg(&r.id.bytes()[..]);
            let mut vals = redis::cmd("DEL");
            vals.arg(self.buckets.values(r.id));
            self.conn.run(&[Call::Cmd(del), Call::Cmd(vals)])?;
            if let Body::Link(members) = &rec.body {
                let mut calls: Vec<Call<'_>> = Vec::new();
                for (pos, m) in members.iter().enumerate() {
                    for key in self.buckets.entry_places(m.id, r.id, self.pages_of(m.id)?) {
                        let mut c = redis::cmd("ZREM");
                        c.arg(key).arg(entry(m.id, *r, pos));
                        calls.push(Call::Cmd(c));
                    }
                }
                self.conn.run(&calls)?;
            }
        }
        Ok(Some(true))
    }
}
