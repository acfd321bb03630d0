//! Adding one atom: find it by content in the shard's dedupe table, or
//! take a slot, copy the name or outgoing set into the arena, publish the
//! record and register the link in its members' incoming sets; and the
//! lock-free lookups by content that share the dedupe test.
//!
//! **Invariant:** one live atom per content in a store; the caller holds
//! the atom's home shard (from its hash) and, for a link, the shards of
//! its members.

use std::sync::atomic::Ordering;

use crate::dedupe::{Dedupe, DedupeBook, Vacancy};
use crate::error::{Error, Result};
use crate::handle::Handle;
use crate::types::Type;

use super::incoming::Distinct;
use super::locks::ShardAccess;
use super::record::{Slot, IS_LINK, LEN_ESCAPE, LEN_SHIFT, LIVE, TYPE_SHIFT};
use super::slots::{blocks_of_kind, lane, CHUNK};
use super::{shard_of_hash, short, Records, Shard};

impl Records {
    /// Adds a node; `hash` from [`Store::hash_node`]. The shard must be locked by the caller.
    /// With `defer`, the caller grows the dedupe table after unlocking when it asks to be
    /// ([`Store::grow_if_wanted`]).
    pub(crate) fn add_node_in(&self, sh: &mut Shard, hash: u64, t: Type, name: &str, defer: bool) -> Result<Handle> {
        let s = shard_of_hash(hash);
        let recs = &self.records[s];
        let view = self.view(s);
        let vacancy = match self.nodes_by_content[s].find_or_vacancy(
            &mut sh.node_book,
            short(hash),
            view.is_node(t, name),
            || self.live_of_kind(s, blocks_of_kind(&sh.by_type, false).copied(), false),
            defer,
        ) {
            Ok(l) => return Ok(Handle::new(s, l)),
            Err(v) => v,
        };
        let len = name.len();
        let too_big = || Error::InvalidValue("a shard's node names would exceed 4 GiB".into());
        let l32 = u32::try_from(len).map_err(|_| too_big())?;
        let long = len >= LEN_ESCAPE as usize;
        let l = lane();
        let local = sh.alloc_slot(l, recs, &self.hashes[s], &self.slots()[s], t)?;
        let off = if long {
            let mut bytes = l32.to_le_bytes().to_vec();
            bytes.extend_from_slice(name.as_bytes());
            self.names[s].push_in(&mut sh.lanes[l].names, &mut sh.names_end, CHUNK, &bytes)
        } else {
            self.names[s].push_in(&mut sh.lanes[l].names, &mut sh.names_end, CHUNK, name.as_bytes())
        };
        let Some(off) = off else {
            sh.free_slot(l, t, local);
            return Err(too_big());
        };
        let len_field = if long { LEN_ESCAPE } else { l32 };
        let word = LIVE | (u64::from(t.0) << TYPE_SHIFT) | (u64::from(len_field) << LEN_SHIFT) | u64::from(off);
        self.publish(&self.nodes_by_content[s], &mut sh.node_book, vacancy, s, local, word, hash);
        sh.nodes += 1;
        Ok(Handle::new(s, local))
    }

    /// Adds a link whose outgoing set is already canonical, and says whether
    /// it is new. The caller holds the home shard (from `hash`) and the shards
    /// of every target. Members must be atoms of this store, or be listed in
    /// `foreign`: atoms of base spaces that the caller has found live and
    /// whose owners' incoming sets it updates itself. `defer` as for `add_node_in`.
    pub(crate) fn add_link_in(
        &self,
        acc: &mut impl ShardAccess,
        hash: u64,
        t: Type,
        out: &[Handle],
        foreign: &[Handle],
        defer: bool,
    ) -> Result<(Handle, bool)> {
        for &x in out {
            // A foreign member may have been hidden here since the caller looked.
            if self.rec(x).is_none() && (!foreign.contains(&x) || self.is_hidden(x)) {
                return Err(Error::InvalidHandle(x));
            }
        }
        // From before the link can be seen until it is in its members'
        // incoming sets, lock-free readers of those sets wait.
        // Checked above: a member is this store's unless foreign.
        let _sections = self.seq_sections(out, |x| !foreign.contains(&x));
        self.insert_link(acc, hash, t, out, |_, x| (!foreign.contains(&x)).then(|| self.slot(x)), defer)
    }

    /// `add_link_in` once its members are checked and the sequence
    /// sections of their shards are open. `member(i, out[i])` is the slot
    /// whose incoming set takes the link, `None` for a foreign member.
    #[inline(always)]
    pub(super) fn insert_link<'r>(
        &'r self,
        acc: &mut impl ShardAccess,
        hash: u64,
        t: Type,
        out: &[Handle],
        member: impl Fn(usize, Handle) -> Option<&'r Slot>,
        defer: bool,
    ) -> Result<(Handle, bool)> {
        let s = shard_of_hash(hash);
        let recs = &self.records[s];
        let sh = acc.shard(s);
        let view = self.view(s);
        let vacancy = match self.links_by_content[s].find_or_vacancy(
            &mut sh.link_book,
            short(hash),
            view.is_link(t, out),
            || self.live_of_kind(s, blocks_of_kind(&sh.by_type, true).copied(), true),
            defer,
        ) {
            Ok(l) => return Ok((Handle::new(s, l), false)),
            Err(v) => v,
        };
        let l = lane();
        let local = sh.alloc_slot(l, recs, &self.hashes[s], &self.slots()[s], t)?;
        let long = out.len() >= LEN_ESCAPE as usize;
        let off = if long {
            let mut members = vec![Handle(out.len() as u32)];
            members.extend_from_slice(out);
            self.outgoing[s].push_in(&mut sh.lanes[l].outgoing, &mut sh.outgoing_end, CHUNK, &members)
        } else {
            self.outgoing[s].push_in(&mut sh.lanes[l].outgoing, &mut sh.outgoing_end, CHUNK, out)
        };
        let Some(off) = off else {
            sh.free_slot(l, t, local);
            return Err(Error::InvalidValue("a shard's outgoing sets would exceed 2^32 members".into()));
        };
        let len_field = if long { LEN_ESCAPE } else { out.len() as u32 };
        let word = LIVE | IS_LINK | (u64::from(t.0) << TYPE_SHIFT) | (u64::from(len_field) << LEN_SHIFT) | u64::from(off);
        self.publish(&self.links_by_content[s], &mut sh.link_book, vacancy, s, local, word, hash);
        sh.links += 1;
        let h = Handle::new(s, local);
        for i in Distinct::of(out) {
            let x = out[i];
            if let Some(slot) = member(i, x) {
                acc.shard(x.shard()).inc_push(slot, &self.pool_cells[x.shard()], h);
            }
        }
        Ok((h, true))
    }

    /// Shard `s`'s link (or node) dedupe table.
    pub(super) fn dedupe(&self, s: usize, links: bool) -> &Dedupe {
        if links {
            &self.links_by_content[s]
        } else {
            &self.nodes_by_content[s]
        }
    }

    /// Makes slot `local` of shard `s` hold the atom `word` describes, with
    /// its content `hash` kept beside it and entered in `table` at `vacancy`.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn publish(&self, table: &Dedupe, book: &mut DedupeBook, vacancy: Vacancy, s: usize, local: u32, word: u64, hash: u64) {
        // The hash first: a growth reading records without the lock takes
        // the hash of any record it finds live.
        self.hashes[s].get(local as usize).expect("allocated slot").store(short(hash), Ordering::Relaxed);
        self.records[s].get(local as usize).expect("allocated slot").rec.store(word, Ordering::Release);
        table.fill(book, vacancy, short(hash), local);
    }

    /// Starts fetching what adding this link reads first: the members' slots
    /// and the dedupe probe. Called before taking the shard locks: prefetches
    /// are not held back by the locks' fences, so these misses overlap them.
    #[inline]
    pub(crate) fn prefetch_link(&self, hash: u64, out: &[Handle]) {
        self.links_by_content[shard_of_hash(hash)].prefetch(short(hash));
        for &x in out.iter().take(8) {
            self.records[x.shard()].prefetch(x.local() as usize);
        }
    }

    /// Starts fetching `h`'s slot; see [`Records::prefetch_link`].
    #[inline]
    pub(crate) fn prefetch_slot(&self, h: Handle) {
        self.records[h.shard()].prefetch(h.local() as usize);
    }

    /// Starts fetching link `h`'s outgoing set; its record should be in
    /// cache already (from [`Records::prefetch_slot`]), or this waits for it.
    #[inline]
    pub(crate) fn prefetch_outgoing(&self, h: Handle) {
        if let Some(rec) = self.rec(h) {
            if rec.is_link() {
                self.outgoing[h.shard()].prefetch(rec.payload() as usize);
            }
        }
    }

    /// Starts fetching what atom `h` is made of: a link's outgoing set, a
    /// node's name. Its record should be in cache, as for
    /// [`Records::prefetch_outgoing`].
    #[inline]
    pub(crate) fn prefetch_contents(&self, h: Handle) {
        if let Some(rec) = self.rec(h) {
            let (s, at) = (h.shard(), rec.payload() as usize);
            if rec.is_link() {
                self.outgoing[s].prefetch(at);
            } else {
                self.names[s].prefetch(at);
            }
        }
    }

    /// The node of this content, found without a lock.
    #[inline]
    pub(crate) fn find_node(&self, hash: u64, t: Type, name: &str) -> Option<Handle> {
        let s = shard_of_hash(hash);
        let view = self.view(s);
        self.nodes_by_content[s].find(short(hash), view.is_node(t, name)).map(|l| Handle::new(s, l))
    }

    /// The link of this content, found without a lock.
    #[inline]
    pub(crate) fn find_link(&self, hash: u64, t: Type, out: &[Handle]) -> Option<Handle> {
        let s = shard_of_hash(hash);
        let view = self.view(s);
        self.links_by_content[s].find(short(hash), view.is_link(t, out)).map(|l| Handle::new(s, l))
    }
}
