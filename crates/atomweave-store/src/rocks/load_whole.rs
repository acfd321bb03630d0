//! Every atom and value of an upstream RocksDB store loaded into a space:
//! one pass over the `a@` records, a chunk at a time, added in bulk, then
//! one pass over the `k@` values.
//!
//! Invariant: each `a@` record holds its atom's whole s-expression, so a
//! chunk is added without the records of its members: its nodes in one
//! `add_nodes`, its links a level at a time (a level's members all lie
//! below it) in one `add_links` each, or one at a time, in record order,
//! where a StateLink or GrantLink (added by key) is among them. A value
//! whose atom or key is not stored is damage, reported.

use atomweave::{AtomSpace, Handle, LinkBatch, NodeBatch};

use super::keys::{self, split_value_key};
use super::read::{add_tree, aid_text, apply_value, atom_record_text, decode_value, internal_key, with_aid, KeyKind};
use super::text::{Item, Tree};
use super::{backend, RocksStore};
use crate::{HashMap, Result, StoreError};

/// Atom records read and added at a time.
const LOAD_CHUNK: usize = 16384;

/// Levels of fewer links than this are added a link at a time (a batch
/// takes every shard's lock).
const SMALL_LEVEL: usize = 8;

/// Adds the atoms of `tree` in bulk; gives the atom of each item.
fn add_chunk(space: &AtomSpace, tree: &Tree) -> Result<Vec<Handle>> {
    if tree.items.iter().any(|i| matches!(i, Item::Link { t, .. } if t.is_added_by_key())) {
        return add_tree(space, tree);
    }
    let n = tree.items.len();
    // Each link's members (item indices, in `kids`) and level.
    let mut level = vec![0u32; n];
    let mut kids: Vec<u32> = Vec::with_capacity(n);
    let mut kid_range = vec![(0u32, 0u32); n];
    let mut stack: Vec<u32> = Vec::new();
    let mut nodes = NodeBatch::new();
    for (i, item) in tree.items.iter().enumerate() {
        match *item {
            Item::Node { t, start, end } => nodes.push(t, tree.name(start, end)),
            Item::Link { arity, .. } => {
                let members = stack.split_off(stack.len() - arity as usize);
                level[i] = 1 + members.iter().map(|&m| level[m as usize]).max().unwrap_or(0);
                kid_range[i] = (kids.len() as u32, (kids.len() + members.len()) as u32);
                kids.extend(members);
            }
        }
        stack.push(i as u32);
    }
    let mut made = vec![Handle::from_u32(u32::MAX); n];
    let mut added = space.add_nodes(&nodes)?.into_iter();
    for (i, item) in tree.items.iter().enumerate() {
        if matches!(item, Item::Node { .. }) {
            made[i] = added.next().expect("one atom per node");
        }
    }
    let mut links: Vec<usize> = (0..n).filter(|&i| level[i] > 0).collect();
    links.sort_by_key(|&i| level[i]);
    let mut batch = LinkBatch::new();
    let mut members = Vec::new();
    for group in links.chunk_by(|&a, &b| level[a] == level[b]) {
        batch.clear();
        for &i in group {
            let Item::Link { t, .. } = tree.items[i] else { unreachable!("links only") };
            let (a, b) = kid_range[i];
            members.clear();
            members.extend(kids[a as usize..b as usize].iter().map(|&m| made[m as usize]));
            if group.len() < SMALL_LEVEL {
                made[i] = space.add_link(t, &members)?;
            } else {
                batch.push(t, &members);
            }
        }
        if group.len() >= SMALL_LEVEL {
            for (&i, h) in group.iter().zip(space.add_links(&batch)?) {
                made[i] = h;
            }
        }
    }
    Ok(made)
}

impl RocksStore {
    /// `load_atomspace`.
    pub(super) fn load_whole(&mut self, space: &AtomSpace, progress: &mut dyn FnMut(u64)) -> Result<u64> {
        // Ids are dense from 1: a vector, grown as records need.
        let mut handle_of: Vec<u32> = Vec::new();
        let mut internal: HashMap<u64, KeyKind> = HashMap::default();
        let mut tree = Tree::default();
        // (id, its root item) of each record of the chunk.
        let mut roots: Vec<(u64, usize)> = Vec::with_capacity(LOAD_CHUNK);
        let mut n = 0u64;
        let mut records = self.db.prefix_iterator(b"a@");
        loop {
            tree.clear();
            roots.clear();
            for entry in records.by_ref() {
                let (k, v) = entry.map_err(backend)?;
                if !k.starts_with(b"a@") {
                    break;
                }
                let sid = k[2..].strip_suffix(b":").ok_or_else(|| StoreError::Corrupt(format!("`{}` is not an atom key", String::from_utf8_lossy(&k))))?;
                let aid = keys::aid(sid)?;
                let text = atom_record_text(aid, &v)?;
                if let Some(kind) = internal_key(text) {
                    internal.insert(aid, kind);
                    continue;
                }
                tree.push(text).map_err(|e| with_aid(e, aid))?;
                roots.push((aid, tree.items.len() - 1));
                if roots.len() == LOAD_CHUNK {
                    break;
                }
            }
            if roots.is_empty() {
                break;
            }
            let made = add_chunk(space, &tree)?;
            for &(aid, root) in &roots {
                let slot = usize::try_from(aid)
                    .ok()
                    .filter(|&a| a < u32::MAX as usize)
                    .ok_or_else(|| StoreError::Corrupt(format!("atom id {aid} is beyond what a store makes")))?;
                if handle_of.len() <= slot {
                    handle_of.resize((slot + 1).max(handle_of.len() * 2), u32::MAX);
                }
                handle_of[slot] = made[root].to_u32();
                self.ids.insert(made[root], aid);
            }
            n += roots.len() as u64;
            progress(n);
        }
        drop(records);
        let atom = |aid: u64| -> Option<Handle> { handle_of.get(aid as usize).filter(|&&h| h != u32::MAX).map(|&h| Handle::from_u32(h)) };
        let mut known: HashMap<u64, KeyKind> = internal;
        for entry in self.db.prefix_iterator(b"k@") {
            let (k, v) = entry.map_err(backend)?;
            if !k.starts_with(b"k@") {
                break;
            }
            let (aid, key) = split_value_key(&k)?;
            let h = atom(aid).ok_or_else(|| StoreError::Corrupt(format!("a value of atom {}, which is not stored", aid_text(aid))))?;
            let kind = match known.get(&key) {
                Some(&kind) => kind,
                None => {
                    let kh = atom(key).ok_or_else(|| StoreError::Corrupt(format!("a value under key atom {}, which is not stored", aid_text(key))))?;
                    known.insert(key, KeyKind::Atom(kh));
                    KeyKind::Atom(kh)
                }
            };
            apply_value(space, h, kind, decode_value(space, &v)?).map_err(|e| with_aid(e, aid))?;
        }
        progress(n);
        Ok(n)
    }
}
