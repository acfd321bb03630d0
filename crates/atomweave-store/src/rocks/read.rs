//! Atoms found in an upstream RocksDB store by their text, and stored
//! atoms and values brought into a space, one atom at a time: what
//! `fetch-atom`, `fetch-value`, `fetch-incoming-set` and `load-atoms-of-type`
//! do. Not the whole-store load (`load_whole.rs`), which adds in bulk.
//!
//! Invariant: reads change nothing stored; an atom is added after its
//! members; a stored atom found here enters the id cache under its id; a
//! value upstream keeps for itself (the flags under `*-IsKeyFlag-*`,
//! `*-IsMessageFlag-*`) is not a value of the space, and the value under
//! `*-TruthValueKey-*` is the atom's truth value.

use atomweave::sexpr::{eval_value, parse_str, TV_KEY};
use atomweave::types::PREDICATE_NODE;
use atomweave::{AtomSource, AtomSpace, Handle, TruthValue, Type, Value};

use super::keys::{self, atom_key, content_key, incoming_link, incoming_prefix, split_value_key, value_key, values_prefix};
use super::text::{excerpt, push_atom, push_quoted, Item, Tree};
use super::{backend, RocksStore, IS_KEY_FLAG, IS_MESSAGE_FLAG};
use crate::{Batching, HashMap, HashSet, Result, StoreError};

/// A key and its value, as read.
pub(super) type Entry = (Box<[u8]>, Box<[u8]>);

/// What a key atom of a stored value is to the space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum KeyKind {
    /// The truth value's key: the value is the atom's truth value.
    Truth,
    /// One of upstream's flags: not a value of the space.
    Flag,
    /// An atom of the space.
    Atom(Handle),
}

/// The text of a node, as upstream writes it.
pub(super) fn node_text(t: Type, name: &str) -> String {
    let mut s = format!("({} ", t.name());
    push_quoted(&mut s, name);
    s.push(')');
    s
}

/// Whether `text` is one of the atoms upstream keeps for its own use as
/// keys, and which.
pub(super) fn internal_key(text: &str) -> Option<KeyKind> {
    let rest = text.strip_prefix("(PredicateNode \"")?.strip_suffix("\")")?;
    match rest {
        TV_KEY => Some(KeyKind::Truth),
        IS_KEY_FLAG | IS_MESSAGE_FLAG => Some(KeyKind::Flag),
        _ => None,
    }
}

/// Reads a stored value: truth values and FloatValues straight from
/// their numbers (most values a store holds), the rest with the core's
/// Atomese reader, adding the atoms they hold. `None`: upstream's `#f`,
/// no value.
pub(super) fn decode_value(space: &AtomSpace, bytes: &[u8]) -> Result<Option<Value>> {
    let text = std::str::from_utf8(bytes).map_err(|_| StoreError::Corrupt("a stored value is not UTF-8".into()))?.trim();
    if text == "#f" || text == "'()" {
        return Ok(None);
    }
    let bad = |why: String| StoreError::Corrupt(format!("the stored value `{}`: {why}", excerpt(text)));
    for head in ["(SimpleTruthValue ", "(stv ", "(CountTruthValue ", "(ctv ", "(FloatValue "] {
        let Some(body) = text.strip_prefix(head).and_then(|b| b.strip_suffix(')')) else { continue };
        let xs = body.split_ascii_whitespace().map(parse_number).collect::<Option<Vec<f64>>>().ok_or_else(|| bad("a number that is not one".into()))?;
        return Ok(Some(match (head, xs.as_slice()) {
            ("(FloatValue ", _) => Value::float(xs),
            ("(SimpleTruthValue " | "(stv ", [s, c]) => Value::Truth(TruthValue::simple(*s, *c)),
            ("(CountTruthValue " | "(ctv ", [m, c, n]) => Value::Truth(TruthValue::count(*m, *c, *n)),
            _ => return Err(bad(format!("a truth value of {} numbers", xs.len()))),
        }));
    }
    let exprs = parse_str(text).map_err(|e| bad(e.to_string()))?;
    let [expr] = exprs.as_slice() else { return Err(bad("not one expression".into())) };
    Ok(Some(eval_value(&mut &*space, expr).map_err(|e| bad(e.to_string()))?))
}

/// Sets a value read from the store on `h`, as its key says: the truth
/// value, nothing (upstream's flags), or a value; `None` (upstream's `#f`) removes it.
pub(super) fn apply_value(space: &AtomSpace, h: Handle, kind: KeyKind, v: Option<Value>) -> Result<()> {
    match (kind, v) {
        (KeyKind::Flag, _) => {}
        (KeyKind::Truth, Some(Value::Truth(tv))) => space.set_tv(h, tv)?,
        (KeyKind::Truth, None) => space.set_tv(h, TruthValue::DEFAULT)?,
        (KeyKind::Truth, Some(_)) => return Err(StoreError::Corrupt("a value under the truth value's key that is not a truth value".into())),
        (KeyKind::Atom(k), Some(v)) => space.set_value(h, k, v)?,
        (KeyKind::Atom(k), None) => drop(space.remove_value(h, k)),
    }
    Ok(())
}

/// A number as C's `strtod` reads what `%g` writes (`1e+20`, `inf`, `nan`).
fn parse_number(s: &str) -> Option<f64> {
    match s {
        "nan" | "-nan" | "+nan.0" => Some(f64::NAN),
        "inf" | "+inf.0" => Some(f64::INFINITY),
        "-inf" | "-inf.0" => Some(f64::NEG_INFINITY),
        _ => s.parse().ok(),
    }
}

/// Adds the atoms of `tree` one at a time, members first; gives the atom
/// of each item.
pub(super) fn add_tree(space: &AtomSpace, tree: &Tree) -> Result<Vec<Handle>> {
    let mut made = Vec::with_capacity(tree.items.len());
    let mut stack: Vec<Handle> = Vec::new();
    for item in &tree.items {
        let h = match *item {
            Item::Node { t, start, end } => space.add_node(t, tree.name(start, end))?,
            Item::Link { t, arity } => {
                let members = stack.split_off(stack.len() - arity as usize);
                space.add_link(t, &members)?
            }
        };
        stack.push(h);
        made.push(h);
    }
    Ok(made)
}

/// The s-expression of a stored atom's `a@` record: after the
/// alpha-equivalence hash upstream puts before a scope link's.
pub(super) fn atom_record_text(aid: u64, bytes: &[u8]) -> Result<&str> {
    let text = std::str::from_utf8(bytes).map_err(|_| StoreError::Corrupt(format!("atom {}'s text is not UTF-8", aid_text(aid))))?;
    let open = text.find('(').ok_or_else(|| StoreError::Corrupt(format!("atom {}'s record `{}` holds no s-expression", aid_text(aid), excerpt(text))))?;
    Ok(&text[open..])
}

/// An atom id as upstream shows it: its SID.
pub(super) fn aid_text(aid: u64) -> String {
    String::from_utf8(keys::sid(aid)).expect("SIDs are ASCII")
}

impl RocksStore {
    /// Atom `h`'s text and whether it is a link.
    pub(super) fn text_of(space: &AtomSpace, h: Handle) -> Result<(bool, String)> {
        let mut s = String::new();
        push_atom(space, h, &mut s)?;
        Ok((space.name(h).is_none(), s))
    }

    /// The id of the atom with this text, if the store holds it.
    pub(super) fn find_text(&self, link: bool, text: &str) -> Result<Option<u64>> {
        match self.db.get_pinned(content_key(link, text)).map_err(backend)? {
            Some(sid) => Ok(Some(keys::aid(&sid)?)),
            None => Ok(None),
        }
    }

    /// The id of `h` if the store holds it, without storing anything.
    pub(super) fn lookup(&mut self, space: &AtomSpace, h: Handle) -> Result<Option<u64>> {
        if let Some(&aid) = self.ids.get(&h) {
            return Ok(Some(aid));
        }
        let (link, text) = Self::text_of(space, h)?;
        let found = self.find_text(link, &text)?;
        if let Some(aid) = found {
            self.ids.insert(h, aid);
        }
        Ok(found)
    }

    /// The id of the truth value's key atom, if the store holds it.
    pub(super) fn find_tv_aid(&mut self) -> Result<Option<u64>> {
        if self.tv_aid.is_none() {
            self.tv_aid = self.find_text(false, &node_text(PREDICATE_NODE, TV_KEY))?;
        }
        Ok(self.tv_aid)
    }

    /// The text of the atom stored as `aid`.
    pub(super) fn stored_text(&self, aid: u64) -> Result<String> {
        let bytes = self
            .db
            .get_pinned(atom_key(aid))
            .map_err(backend)?
            .ok_or_else(|| StoreError::Corrupt(format!("atom {} is referred to but not stored", aid_text(aid))))?;
        Ok(atom_record_text(aid, &bytes)?.to_string())
    }

    /// The atom stored as `aid`, added to the space (or what upstream keeps it as).
    pub(super) fn materialize(&mut self, space: &AtomSpace, aid: u64, known: &mut HashMap<u64, KeyKind>) -> Result<KeyKind> {
        if let Some(&k) = known.get(&aid) {
            return Ok(k);
        }
        let text = self.stored_text(aid)?;
        let kind = match internal_key(&text) {
            Some(k) => k,
            None => {
                let mut tree = Tree::default();
                tree.push(&text).map_err(|e| with_aid(e, aid))?;
                let h = *add_tree(space, &tree)?.last().expect("an atom has an item");
                self.ids.insert(h, aid);
                KeyKind::Atom(h)
            }
        };
        known.insert(aid, kind);
        Ok(kind)
    }

    /// Sets one stored value (the bytes under `k@AID:KID`) on `h`.
    pub(super) fn set_stored(&mut self, space: &AtomSpace, h: Handle, key: u64, bytes: &[u8], known: &mut HashMap<u64, KeyKind>) -> Result<()> {
        let kind = self.materialize(space, key, known)?;
        apply_value(space, h, kind, decode_value(space, bytes)?)
    }

    /// Sets every stored value of atom `aid` on `h`, its truth value the
    /// stored one or the default.
    pub(super) fn load_values(&mut self, space: &AtomSpace, aid: u64, h: Handle) -> Result<()> {
        space.set_tv(h, TruthValue::DEFAULT)?;
        let mut known = HashMap::default();
        for (k, v) in self.scan(&values_prefix(aid))? {
            let (_, key) = split_value_key(&k)?;
            self.set_stored(space, h, key, &v, &mut known)?;
        }
        Ok(())
    }

    /// Every key and value under `prefix`, read before any is used.
    pub(super) fn scan(&self, prefix: &[u8]) -> Result<Vec<Entry>> {
        let mut out = Vec::new();
        for entry in self.db.prefix_iterator(prefix) {
            let (k, v) = entry.map_err(backend)?;
            if !k.starts_with(prefix) {
                break;
            }
            out.push((k, v));
        }
        Ok(out)
    }

    /// Whether any key starts with `prefix`: the first such key.
    pub(super) fn scan_first(&self, prefix: &[u8]) -> Result<Option<Box<[u8]>>> {
        match self.db.prefix_iterator(prefix).next().transpose().map_err(backend)? {
            Some((k, _)) if k.starts_with(prefix) => Ok(Some(k)),
            _ => Ok(None),
        }
    }

    /// `fetch_value`: one stored value of `h`.
    pub(super) fn fetch_one_value(&mut self, space: &AtomSpace, h: Handle, key: Handle) -> Result<bool> {
        let Some(aid) = self.lookup(space, h)? else { return Ok(false) };
        let key_aid = if space.is_tv_key(key) { self.find_tv_aid()? } else { self.lookup(space, key)? };
        let Some(key_aid) = key_aid else { return Ok(false) };
        let Some(bytes) = self.db.get(value_key(aid, key_aid)).map_err(backend)? else { return Ok(false) };
        let mut known = HashMap::default();
        if !space.is_tv_key(key) {
            known.insert(key_aid, KeyKind::Atom(key));
        }
        self.set_stored(space, h, key_aid, &bytes, &mut known)?;
        Ok(true)
    }

    /// The stored links holding `h` (of type `t`, if given), with their
    /// values; with `recursive`, the links holding those, and so on (a work
    /// list, each link once). Returns how many.
    pub(super) fn fetch_incoming(&mut self, space: &AtomSpace, h: Handle, t: Option<Type>, recursive: bool) -> Result<usize> {
        self.flush()?;
        self.ids.use_space(space);
        let Some(aid) = self.lookup(space, h)? else { return Ok(0) };
        let mut known = HashMap::default();
        let mut seen: HashSet<u64> = HashSet::default();
        let mut work = vec![aid];
        while let Some(member) = work.pop() {
            for (k, _) in self.scan(&incoming_prefix(member, t.map(Type::name)))? {
                let link = incoming_link(&k)?;
                if !seen.insert(link) {
                    continue;
                }
                let KeyKind::Atom(lh) = self.materialize(space, link, &mut known)? else { continue };
                self.load_values(space, link, lh)?;
                if recursive {
                    work.push(link);
                }
            }
        }
        Ok(seen.len())
    }

    /// Every stored atom of type `t`, found under its text's prefix, with its values.
    pub(super) fn load_type(&mut self, space: &AtomSpace, t: Type) -> Result<usize> {
        let prefix = content_key(t.is_link(), &format!("({} ", t.name()));
        let found = self.scan(&prefix)?;
        let mut known = HashMap::default();
        for (_, sid) in &found {
            let aid = keys::aid(sid)?;
            let KeyKind::Atom(h) = self.materialize(space, aid, &mut known)? else { continue };
            self.load_values(space, aid, h)?;
        }
        Ok(found.len())
    }
}

/// `e` with the atom it is about.
pub(super) fn with_aid(e: StoreError, aid: u64) -> StoreError {
    match e {
        StoreError::Corrupt(m) => StoreError::Corrupt(format!("atom {}: {m}", aid_text(aid))),
        e => e,
    }
}
