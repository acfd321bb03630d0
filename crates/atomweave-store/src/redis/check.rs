//! The store's invariants checked from outside: what a reader relies on
//! after any crash of any writer.

use redis::Value as RValue;

use super::conn::{Call, Group};
use super::layout::{entry, Body, Buckets, Id, Record, Ref};
use super::RedisStore;
use crate::{Batching, HashMap, Result, StoreError};

/// A link, a member of it, and the member's position in it.
type Indexed = (Id, Id, usize);

impl RedisStore {
    /// Checks that every stored link's members are stored and that every
    /// link is in its members' incoming indexes (the writes' order
    /// promises both, whenever a writer stops); returns the number of
    /// atoms. Entries without a record (a write cut short) are allowed.
    pub fn check(&mut self) -> Result<u64> {
        self.flush()?;
        let known: HashMap<Id, (u32, Record)> = self.scan_records(None)?.into_iter().collect();
        let mut groups: HashMap<u32, (redis::Pipeline, Vec<Indexed>)> = HashMap::default();
        for (&id, (code, rec)) in &known {
            let Body::Link(members) = &rec.body else { continue };
            for (pos, m) in members.iter().enumerate() {
                if !known.contains_key(&m.id) {
                    return Err(StoreError::Corrupt(format!("a stored link ({:032x}) holds an atom not stored ({:032x})", id.0, m.id.0)));
                }
                let link = Ref { code: *code, id };
                let (pipe, what) = groups.entry(Buckets::group(self.buckets.of(m.id))).or_insert_with(|| (redis::pipe(), Vec::new()));
                pipe.cmd("ZSCORE").arg(self.buckets.incoming(m.id)).arg(entry(m.id, link, pos));
                what.push((id, m.id, pos));
            }
        }
        let (calls, whats): (Vec<Group>, Vec<Vec<Indexed>>) = groups.into_values().map(|(pipe, what)| (Group { pipe }, what)).unzip();
        for (replies, what) in self.conn.run_groups(calls, &[])?.into_iter().zip(whats) {
            // Not in its bucket's index: in a page, if its member is a hub.
            for (_, (l, m, pos)) in replies.iter().zip(what).filter(|(r, _)| matches!(r, RValue::Nil)) {
                let link = Ref { code: known[&l].0, id: l };
                let calls: Vec<Call<'_>> = self
                    .buckets
                    .entry_places(m, l, self.pages_of(m)?)
                    .into_iter()
                    .map(|key| {
                        let mut c = redis::cmd("ZSCORE");
                        c.arg(key).arg(entry(m, link, pos));
                        Call::Cmd(c)
                    })
                    .collect();
                if self.conn.run(&calls)?.iter().all(|r| matches!(r, RValue::Nil)) {
                    return Err(StoreError::Corrupt(format!("a stored link ({:032x}) is missing from its member's ({:032x}) incoming index", l.0, m.0)));
                }
            }
        }
        Ok(known.len() as u64)
    }
}
