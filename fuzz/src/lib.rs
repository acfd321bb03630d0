//! What the fuzz targets share: a reader that hands its input over in
//! pieces, and a comparison of two spaces that does not depend on handles.
//!
//! Not a test library for the project: only the targets in `fuzz_targets/`
//! use it.

use std::cell::RefCell;
use std::collections::HashMap;
use std::io::{self, BufRead, Read};

use atomweave::types::ATOM;
use atomweave::{AtomSpace, Handle, Value};
use atomweave_server::{Durability, State};

/// Runs `f` on `n` empty spaces. They are kept from run to run and cleared
/// first: making a space costs more than most runs (its shards and arenas),
/// and clearing one is a path worth fuzzing too. Every 1024 runs they are
/// made afresh, because a cleared space keeps its name and outgoing arenas
/// (lock-free readers may still point into them) and would grow without end.
pub fn with_spaces<R>(n: usize, f: impl FnOnce(&[AtomSpace]) -> R) -> R {
    thread_local!(static SPACES: RefCell<(u32, Vec<AtomSpace>)> = const { RefCell::new((0, Vec::new())) });
    SPACES.with_borrow_mut(|(runs, spaces)| {
        *runs += 1;
        if *runs % 1024 == 0 || spaces.len() != n {
            *spaces = (0..n).map(|_| AtomSpace::new()).collect();
        } else {
            for s in spaces.iter() {
                s.set_read_only(false);
                s.clear();
            }
        }
        f(spaces)
    })
}

/// Hands `data` over at most a few bytes per `fill_buf`, the sizes cycling
/// through `sizes`, so that every token and UTF-8 sequence is cut somewhere.
pub struct Chunks<'a> {
    data: &'a [u8],
    pos: usize,
    sizes: &'a [u8],
    turn: usize,
}

impl<'a> Chunks<'a> {
    pub fn new(data: &'a [u8], sizes: &'a [u8]) -> Self {
        Chunks { data, pos: 0, sizes, turn: 0 }
    }
}

impl Read for Chunks<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.fill_buf()?.len().min(buf.len());
        buf[..n].copy_from_slice(&self.data[self.pos..self.pos + n]);
        self.consume(n);
        Ok(n)
    }
}

impl BufRead for Chunks<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        let size = self.sizes.get(self.turn % self.sizes.len().max(1)).map_or(1, |&s| usize::from(s % 16) + 1);
        let end = (self.pos + size).min(self.data.len());
        Ok(&self.data[self.pos..end])
    }
    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.turn += 1;
    }
}

/// Panics unless `a` and `b` hold the same atoms (and, with `values`, the
/// same values on them; the truth value always), whatever their handles.
///
/// The truth- and attention-value keys are not compared as atoms: they print
/// inside the atoms whose values they key, so a form without values has none.
pub fn assert_same_space(a: &AtomSpace, b: &AtomSpace, values: bool) {
    let user_atoms = |s: &AtomSpace| {
        let keys = atomweave::sexpr::value_key_atoms(|t, n| s.get_node(t, n));
        s.handles_by_type(atomweave::types::ATOM, true).filter(|h| !keys.contains(h) || s.incoming_size(*h) != Some(0)).collect::<Vec<Handle>>()
    };
    let atoms = user_atoms(a);
    assert_eq!(atoms.len(), user_atoms(b).len(), "the spaces differ in size");
    let mut map: HashMap<Handle, Handle> = HashMap::with_capacity(atoms.len());
    // Members before the links that hold them, with a stack: handles say
    // nothing about the order atoms were made in.
    let mut todo: Vec<Handle> = atoms.clone();
    while let Some(&h) = todo.last() {
        if map.contains_key(&h) {
            todo.pop();
            continue;
        }
        let t = a.get_type(h).unwrap();
        let found = match a.name(h) {
            Some(name) => b.get_node(t, name),
            None => {
                let members = a.outgoing(h).unwrap();
                let unmapped: Vec<Handle> = members.iter().copied().filter(|m| !map.contains_key(m)).collect();
                if !unmapped.is_empty() {
                    todo.extend(unmapped);
                    continue;
                }
                b.get_link(t, &members.iter().map(|m| map[m]).collect::<Vec<_>>())
            }
        };
        let Some(g) = found else {
            panic!("{} is missing after the round trip", atomweave::sexpr::atom_to_string(&a.read().unwrap(), h, atomweave::sexpr::Form::Wire).unwrap())
        };
        assert_eq!(a.get_tv(h).map(|tv| format!("{tv:?}")), b.get_tv(g).map(|tv| format!("{tv:?}")));
        map.insert(h, g);
        todo.pop();
    }
    if !values {
        return;
    }
    for &h in &atoms {
        let theirs = b.key_values(map[&h]);
        assert_eq!(a.key_values(h).len(), theirs.len(), "the number of values differs");
        for (k, v) in &a.key_values(h) {
            let mine = format!("{:?}", mapped(v, &map));
            let key = map.get(k).copied().or_else(|| b.get_node(a.get_type(*k)?, a.name(*k)?)).expect("the key read back");
            let other = b.get_value(map[&h], key).map(|v| format!("{v:?}"));
            assert_eq!(Some(mine), other);
        }
    }
}

/// `v` with its atoms replaced by their counterparts.
fn mapped(v: &Value, map: &HashMap<Handle, Handle>) -> Value {
    match v {
        Value::Atom(h) => Value::Atom(map[h]),
        Value::Link(items) => Value::Link(items.iter().map(|x| mapped(x, map)).collect()),
        other => other.clone(),
    }
}

/// Feeds each line of `data` to a shell's `eval` on an empty space, checks
/// each reply with `check`, and then that the space's counts agree with
/// its atoms.
pub fn run_shell(data: &[u8], eval: fn(&State, &str, &mut String) -> bool, check: fn(&str)) {
    let Ok(text) = std::str::from_utf8(data) else { return };
    // The state shares the scratch space (an AtomSpace clones as a reference).
    let state = with_spaces(1, |spaces| State::new(spaces[0].clone(), None, Durability::Always));
    let mut out = String::new();
    for line in text.lines() {
        out.clear();
        eval(&state, line, &mut out);
        check(&out);
    }
    assert_eq!(state.space.size(), state.space.handles_by_type(ATOM, true).count());
}
