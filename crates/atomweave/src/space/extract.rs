//! Removing atoms: one, recursively with the links that hold it, or all.
//!
//! **Invariant:** an atom goes only with an empty incoming set (a
//! recursive extract removes the links first, in every space of the
//! hierarchy); in a frame, extracting a base atom hides it from that frame
//! and its children only.

use std::sync::atomic::Ordering;

use crate::error::{Error, Result};
use crate::handle::{Handle, SHARDS};
use crate::store::{ShardAccess, ShardMask};
use crate::watch::Change;

use super::frames::{foreign_memberships, OwnerLocks};
use super::AtomSpace;

impl AtomSpace {
    /// Removes the atom. Without `recursive`, an atom that links contain is
    /// refused ([`Error::HasIncoming`]); with it, those links go first, even
    /// links other threads add meanwhile and links of child spaces. In a
    /// child space, extracting a base atom hides it (and, recursively, the
    /// links that contain it) from the child alone.
    pub fn extract(&self, h: Handle, recursive: bool) -> Result<()> {
        self.writable("no atom is extracted")?;
        self.extract_any(h, recursive)
    }

    /// [`extract`](Self::extract), read-only or not.
    fn extract_any(&self, h: Handle, recursive: bool) -> Result<()> {
        match self.extract_one(h) {
            Err(Error::HasIncoming { .. }) if recursive => {}
            done => return done,
        }
        // A work list, not recursion: links nest thousands deep.
        let mut work = vec![h];
        while let Some(&top) = work.last() {
            let result = if top == h || self.owner(top).is_some() {
                self.extract_one(top)
            } else {
                // A child space's link, registered with an atom here.
                self.space_of(top).map_or(Err(Error::InvalidHandle(top)), |sp| sp.extract_one(top))
            };
            match result {
                Ok(()) => {
                    work.pop();
                }
                Err(Error::HasIncoming { atom, incoming }) => {
                    let blocking = self.blocking_links(top);
                    if blocking.is_empty() {
                        return Err(Error::HasIncoming { atom, incoming });
                    }
                    work.extend(blocking);
                }
                // Gone already: reached twice, or extracted by another thread.
                Err(Error::InvalidHandle(_)) if top != h => {
                    work.pop();
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// The links that keep `top` from being extracted from this space and
    /// can themselves be extracted.
    fn blocking_links(&self, top: Handle) -> Vec<Handle> {
        let holder = if self.recs().rec(top).is_some() {
            Some(self.clone())
        } else if self.owner(top).is_some() {
            // A base atom to hide: the links this space sees go first.
            return self.incoming(top).map(|i| i.to_vec()).unwrap_or_default();
        } else {
            self.space_of(top)
        };
        let Some(holder) = holder else { return Vec::new() };
        let links = holder.recs().own_incoming_in(&holder.read_shard(top.shard()), top).to_vec();
        links.into_iter().filter(|&l| self.space_of(l).is_some()).collect()
    }

    fn extract_one(&self, h: Handle) -> Result<()> {
        // Its text, while it can be read, for the recordings under way.
        let text = self.inner.watch.active().then(|| {
            let mut s = String::new();
            crate::sexpr::write_structure(self, h, &mut s).map(|()| s)
        });
        let done = if self.recs().rec(h).is_some() {
            self.extract_own(h)
        } else if !self.is_root() && self.owner(h).is_some() {
            self.hide(h)
        } else {
            Err(Error::InvalidHandle(h))
        };
        if let (Ok(()), Some(Ok(text))) = (&done, text) {
            self.inner.watch.note(|| Change::Removed(text));
        }
        done
    }

    /// Extracts an atom of this space's own store.
    fn extract_own(&self, h: Handle) -> Result<()> {
        // Outgoing sets never change, so the shards read here stay the right ones.
        if self.is_root() {
            let mask = ShardMask::of(self.recs().outgoing(h).ok_or(Error::InvalidHandle(h))?).with(h.shard());
            // The values go once the locks, the statement's temporary, have.
            let _values = self.recs().extract_in(&mut self.store().lock(mask), h)?;
            return Ok(());
        }
        let out = self.recs().outgoing(h).ok_or(Error::InvalidHandle(h))?;
        let mask = ShardMask::of(out).with(h.shard());
        let mut foreign: Vec<(Handle, AtomSpace)> = Vec::new();
        for &x in out {
            if self.recs().rec(x).is_none() && !foreign.iter().any(|(f, _)| *f == x) {
                if let Some(o) = self.inner.bases.iter().find_map(|b| b.holder(x)) {
                    foreign.push((x, o.clone()));
                }
            }
        }
        let mut locks = self.store().lock(mask);
        let mut owners = OwnerLocks::lock(&foreign);
        let values = self.recs().extract_in(&mut locks, h)?;
        for (x, o) in &foreign {
            owners.remove(*x, o, h);
        }
        drop((owners, locks));
        drop(values);
        Ok(())
    }

    /// Hides the base atom `x` from this child space, if no visible link contains it.
    fn hide(&self, x: Handle) -> Result<()> {
        let visible = self.incoming(x).map_or(0, |i| i.len());
        if visible > 0 {
            return Err(Error::HasIncoming { atom: x, incoming: visible });
        }
        let holder = self.holder(x).ok_or(Error::InvalidHandle(x))?;
        // This space's links take `x` in under this lock (`add_link` holds
        // it), so links of this space that arrived meanwhile are all listed.
        let mut sh = self.write_shard(x.shard());
        let mine = holder.recs().own_incoming_in(&holder.read_shard(x.shard()), x).iter().filter(|&&l| self.recs().rec(l).is_some()).count();
        if mine > 0 {
            return Err(Error::HasIncoming { atom: x, incoming: mine });
        }
        let values = self.recs().hide_in(&mut sh, x);
        self.inner.hides.store(true, Ordering::Release);
        drop(sh);
        drop(values);
        Ok(())
    }

    /// Removes every atom of this space (for a child space: its own atoms,
    /// the values it set on base atoms, and what it hid), and the links of
    /// child spaces that hold them. Handles of the removed atoms stay invalid.
    /// A read-only space is cleared too: read-only guards atoms and values
    /// against changes, not the space against its owner (as upstream's).
    pub fn clear(&self) {
        if self.has_live_descendants() {
            // Children's links hold atoms here: remove each the way extract does.
            for h in self.own_atoms() {
                let _ = self.extract_any(h, true);
            }
        }
        let mut locks = self.store().lock(ShardMask::all());
        if !self.is_root() {
            let memberships = foreign_memberships(self.store(), &self.inner.bases, |s| locks.shard_ref(s));
            for (l, x, o) in memberships {
                o.recs().inc_remove_in(&mut o.write_shard(x.shard()), x, l);
            }
        }
        let values: Vec<_> = (0..SHARDS).map(|s| self.recs().clear_shard(locks.shard(s), s)).collect();
        drop(locks);
        drop(values);
        // Over a store, what was read is gone: it is read again when asked for.
        self.forget_read();
    }
}
