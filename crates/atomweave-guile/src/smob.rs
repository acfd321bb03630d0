//! The Scheme objects: atoms, atomspaces, truth values and other values, as
//! SMOBs (Guile's foreign objects with a printer and `equal?`).
//!
//! - An atom is one word: its space's index in [`SPACES`] and its handle.
//!   Handles are never reused (the store never reuses a slot number: `store/slots.rs`), so an atom object whose
//!   atom was extracted names nothing; it never names a newer atom.
//! - An atomspace is its index in [`SPACES`]. Spaces made from Scheme live as
//!   long as the process (a few kilobytes each when empty). A space Scheme
//!   sees only during a `scm:` call (the query's scratch frame) is held for
//!   the call alone, under an index of its own never given again ([`Call`]):
//!   an object of it kept past the call names a space that is gone.
//! - A truth value is three words of numbers, allocated without a finalizer.
//! - Any other value holds its elements as a Scheme list (numbers, strings,
//!   booleans, atoms, values): the collector sees everything a value holds,
//!   and nothing Scheme-visible lives on the Rust heap.

use std::sync::atomic::{AtomicUsize, Ordering};

use atomweave::sexpr::{self, Form};
use atomweave::{types, AtomSpace, Handle, QueueValue, StreamValue, TruthValue, Type, Value, MAX_VALUE_NESTING, MAX_VALUE_SIZE};

use crate::error::{Error, R};
use crate::ffi::{self, scm_t_bits, Scm};

/// Every space Scheme has seen; an atom or atomspace object holds an index.
pub static SPACES: boxcar::Vec<AtomSpace> = boxcar::Vec::new();

static ATOM: AtomicUsize = AtomicUsize::new(0);
static SPACE: AtomicUsize = AtomicUsize::new(0);
static TV: AtomicUsize = AtomicUsize::new(0);
static VALUE: AtomicUsize = AtomicUsize::new(0);

/// TV SMOB flag: a count truth value (else simple).
const TV_COUNT: usize = 1;

fn tag(t: &AtomicUsize) -> scm_t_bits {
    t.load(Ordering::Relaxed)
}

/// Registers the SMOB types (once per process).
pub(crate) fn init() {
    let types: [(&std::ffi::CStr, &AtomicUsize, ffi::SmobPrint, ffi::SmobEqualp); 4] = [
        (c"cog-atom", &ATOM, print_atom, equal_atoms),
        (c"cog-atomspace", &SPACE, print_space, equal_spaces),
        (c"cog-truth-value", &TV, print_tv, equal_tvs),
        (c"cog-value", &VALUE, print_value, equal_values),
    ];
    for (name, slot, print, equal) in types {
        // SAFETY: called in Guile mode, from the extension's init.
        unsafe {
            let tag = ffi::scm_make_smob_type(name.as_ptr(), 0);
            ffi::scm_set_smob_print(tag, print);
            ffi::scm_set_smob_equalp(tag, equal);
            slot.store(tag, Ordering::Relaxed);
        }
    }
    // SAFETY: protected for the process's life.
    DEFAULT_TV.store(unsafe { ffi::scm_gc_protect_object(tv_obj(TruthValue::DEFAULT)) }.bits(), Ordering::Relaxed);
}

// ----- atomspaces -----

/// The index of each space in [`SPACES`], so a space is registered once.
static INDEX: std::sync::LazyLock<std::sync::Mutex<std::collections::HashMap<AtomSpace, u32>>> = std::sync::LazyLock::new(Default::default);

/// Registers a space for the process's life (once); its index. A query's
/// scratch frame that a call holds keeps that call's index.
pub fn register(space: AtomSpace) -> u32 {
    if space.is_scratch() {
        if let Some(i) = Call::index_of(&space) {
            return i;
        }
    }
    let mut index = INDEX.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&i) = index.get(&space) {
        return i;
    }
    let i = u32::try_from(SPACES.push(space.clone())).ok().filter(|&i| i < CALL_BIT).expect("fewer than 2^31 atomspaces");
    index.insert(space, i);
    i
}

/// Indexes of [`Call`]s have this bit; the rest count calls.
const CALL_BIT: u32 = 1 << 31;

/// The spaces of calls under way: each index, space and how many calls
/// (nested ones over the same space) hold it.
static CALLS: parking_lot::Mutex<Vec<(u32, AtomSpace, usize)>> = parking_lot::Mutex::new(Vec::new());
static NEXT_CALL: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// A space registered for a call: a query's scratch frame is made for
/// each query (or each callback), and registered for good each would stay
/// for the process's life. Held while this lives; dropped, the frame can go
/// (or serve the next callback), and its index names a space that is gone.
/// Any other space is registered for good, as [`register`] does.
pub struct Call {
    /// A call's own index (with [`CALL_BIT`]), or the space's for good.
    pub index: u32,
}

impl Call {
    /// Registers `space` for the call.
    pub fn enter(space: &AtomSpace) -> Call {
        if !space.is_scratch() {
            return Call { index: register(space.clone()) };
        }
        let mut calls = CALLS.lock();
        if let Some(entry) = calls.iter_mut().find(|(_, s, _)| s == space) {
            entry.2 += 1;
            return Call { index: entry.0 };
        }
        // Indexes are not given twice until 2^31 calls have been made.
        let index = CALL_BIT | (NEXT_CALL.fetch_add(1, Ordering::Relaxed) & !CALL_BIT);
        calls.push((index, space.clone(), 1));
        Call { index }
    }

    /// The index of the call that holds `space`, if one does.
    fn index_of(space: &AtomSpace) -> Option<u32> {
        CALLS.lock().iter().find(|(_, s, _)| s == space).map(|&(i, ..)| i)
    }
}

impl Drop for Call {
    fn drop(&mut self) {
        if self.index & CALL_BIT == 0 {
            return;
        }
        let mut calls = CALLS.lock();
        if let Some(at) = calls.iter().position(|&(i, ..)| i == self.index) {
            calls[at].2 -= 1;
            if calls[at].2 == 0 {
                // Dropped outside the lock: the frame's drop does work.
                let gone = calls.swap_remove(at);
                drop(calls);
                drop(gone);
            }
        }
    }
}

/// A registered space, as [`space_at`] gives it.
pub enum SpaceRef {
    Held(&'static AtomSpace),
    Call(AtomSpace),
}

impl std::ops::Deref for SpaceRef {
    type Target = AtomSpace;
    fn deref(&self) -> &AtomSpace {
        match self {
            SpaceRef::Held(s) => s,
            SpaceRef::Call(s) => s,
        }
    }
}

/// The space registered as `i`. A call's space after the call reads as an
/// empty read-only space (a new one each time, so that nothing done to one
/// is seen through another): its atoms read as extracted, and adding to it
/// is refused.
pub fn space_at(i: u32) -> SpaceRef {
    if i & CALL_BIT == 0 {
        return SpaceRef::Held(&SPACES[i as usize]);
    }
    if let Some((_, s, _)) = CALLS.lock().iter().find(|&&(c, ..)| c == i) {
        return SpaceRef::Call(s.clone());
    }
    let gone = AtomSpace::new();
    gone.set_read_only(true);
    SpaceRef::Call(gone)
}

pub fn space_obj(i: u32) -> Scm {
    // SAFETY: allocation only.
    unsafe { ffi::scm_new_smob(tag(&SPACE), i as usize) }
}

/// The space index an atomspace object holds.
pub fn space_of(x: Scm) -> Option<u32> {
    // SAFETY: a SMOB of our type has a data word.
    x.is_smob(tag(&SPACE)).then(|| unsafe { x.smob_data(1) } as u32)
}

// ----- atoms -----

/// An atom: its space (an index in [`SPACES`]) and handle.
#[derive(Copy, Clone, Debug)]
pub struct Atom {
    pub space: u32,
    pub h: Handle,
}

impl Atom {
    pub fn space(self) -> SpaceRef {
        space_at(self.space)
    }

    /// The atom object; its space is the one whose version of the atom
    /// `self.space` shows (upstream's atom of a frame stack belongs to the
    /// frame that holds it, or that changed its values).
    pub fn to_scm(self) -> Scm {
        let seen = self.space();
        let space = match seen.bases() {
            [] => self.space,
            // A frame between: its own index; a scratch frame no call
            // holds is not registered (that would keep it for good), and
            // the atom is named as seen from here.
            _ => match seen.version_space(self.h).filter(|&s| *s != *seen) {
                Some(s) if s.is_scratch() => Call::index_of(s).unwrap_or(self.space),
                Some(s) => register(s.clone()),
                None => self.space,
            },
        };
        // SAFETY: allocation only.
        unsafe { ffi::scm_new_smob(tag(&ATOM), ((space as usize) << 32) | self.h.to_u32() as usize) }
    }

    pub fn from_scm(x: Scm) -> Option<Atom> {
        if !x.is_smob(tag(&ATOM)) {
            return None;
        }
        // SAFETY: one of our atoms.
        let w = unsafe { x.smob_data(1) };
        Some(Atom { space: (w >> 32) as u32, h: Handle::from_u32(w as u32) })
    }

    /// The atom's type, or an error if it was extracted.
    pub fn get_type(self) -> R<Type> {
        self.space().get_type(self.h).ok_or_else(|| Error::msg("the atom was extracted from its atomspace"))
    }
}

pub fn is_atom(x: Scm) -> bool {
    x.is_smob(tag(&ATOM))
}

/// An atom's REPL form, with the newline upstream prints after it.
fn atom_text(x: Scm) -> String {
    Atom::from_scm(x).map_or_else(String::new, |a| {
        if a.space().contains(a.h) {
            sexpr::atom_to_string(&*a.space(), a.h, Form::Repl).map_or_else(|e| format!("#<{e}>\n"), |s| s + "\n")
        } else {
            "#<Invalid handle>".into()
        }
    })
}

// The printers make a Scheme string (the Rust one is dropped at the end of
// that statement) and write it last: a port error throws over nothing.
unsafe extern "C" fn print_atom(x: Scm, port: Scm, _: *mut std::ffi::c_void) -> i32 {
    let text = ffi::string(&atom_text(x));
    ffi::display(text, port);
    1
}

unsafe extern "C" fn equal_atoms(a: Scm, b: Scm) -> Scm {
    match (Atom::from_scm(a), Atom::from_scm(b)) {
        // One atom, and one version of it: a frame's copy of a base atom is
        // not `equal?` to the base's (`cog-equal?` compares content).
        (Some(a), Some(b)) => Scm::bool(a.h == b.h && (a.space == b.space || *a.space() == *b.space())),
        _ => ffi::BOOL_F,
    }
}

unsafe extern "C" fn print_space(x: Scm, port: Scm, _: *mut std::ffi::c_void) -> i32 {
    let i = space_of(x).unwrap_or(0);
    let text = ffi::string(&format!("#<AtomSpace {i} atoms={}>", space_at(i).size()));
    ffi::display(text, port);
    1
}

unsafe extern "C" fn equal_spaces(a: Scm, b: Scm) -> Scm {
    match (space_of(a), space_of(b)) {
        (Some(a), Some(b)) => Scm::bool(a == b || *space_at(a) == *space_at(b)),
        _ => ffi::BOOL_F,
    }
}

// ----- truth values -----

/// `(stv 1 0)`, made once: an atom without a truth value costs `cog-tv` no
/// allocation.
static DEFAULT_TV: AtomicUsize = AtomicUsize::new(0);

pub fn tv_obj(tv: TruthValue) -> Scm {
    if tv == TruthValue::DEFAULT {
        let shared = DEFAULT_TV.load(Ordering::Relaxed);
        if shared != 0 {
            // SAFETY: stored by `init` from a protected object.
            return unsafe { Scm::from_bits(shared) };
        }
    }
    // SAFETY: allocation only; the words are numbers.
    unsafe {
        match tv {
            TruthValue::Simple { strength, confidence } => ffi::scm_new_double_smob(tag(&TV), strength.to_bits() as usize, confidence.to_bits() as usize, 0),
            TruthValue::Count { mean, confidence, count } => {
                ffi::scm_new_double_smob(tag(&TV) | (TV_COUNT << 16), mean.to_bits() as usize, confidence.to_bits() as usize, count.to_bits() as usize)
            }
        }
    }
}

pub fn tv_of(x: Scm) -> Option<TruthValue> {
    if !x.is_smob(tag(&TV)) {
        return None;
    }
    // SAFETY: one of our truth values.
    unsafe {
        let f = |n| f64::from_bits(x.smob_data(n) as u64);
        Some(if x.smob_flags() & TV_COUNT != 0 { TruthValue::count(f(1), f(2), f(3)) } else { TruthValue::simple(f(1), f(2)) })
    }
}

unsafe extern "C" fn print_tv(x: Scm, port: Scm, _: *mut std::ffi::c_void) -> i32 {
    let text = ffi::string(&{
        let mut s = String::new();
        sexpr::write_tv(tv_of(x).unwrap_or_default(), &mut s);
        s
    });
    ffi::display(text, port);
    1
}

unsafe extern "C" fn equal_tvs(a: Scm, b: Scm) -> Scm {
    Scm::bool(tv_of(a).is_some() && tv_of(a) == tv_of(b))
}

// ----- other values -----

/// A value object: its type and its elements, a Scheme list.
pub fn value_obj(t: Type, elements: Scm) -> Scm {
    // SAFETY: allocation only; the collector scans SMOB words, so the list lives.
    unsafe { ffi::scm_new_double_smob(tag(&VALUE), t.id() as usize, elements.bits(), 0) }
}

/// A value object's type and elements.
pub fn value_parts(x: Scm) -> Option<(Type, Scm)> {
    if !x.is_smob(tag(&VALUE)) {
        return None;
    }
    // SAFETY: one of our values.
    unsafe { Some((Type::from_id(x.smob_data(1) as u16)?, Scm::from_bits(x.smob_data(2)))) }
}

/// Whether `x` is a value (truth values and atoms included, as upstream).
pub fn is_value(x: Scm) -> bool {
    x.is_smob(tag(&VALUE)) || x.is_smob(tag(&TV)) || is_atom(x)
}

pub fn is_tv(x: Scm) -> bool {
    x.is_smob(tag(&TV))
}

/// A core value as a Scheme object; atoms in it belong to space `space`.
pub fn to_scm(v: &Value, space: u32) -> Scm {
    match v {
        Value::Float(xs) => value_obj(types::FLOAT_VALUE, ffi::list(xs.iter().map(|&x| ffi::from_f64(x)))),
        Value::String(xs) => value_obj(types::STRING_VALUE, ffi::list(xs.iter().map(|s| ffi::string(s)))),
        Value::Bool(xs) => value_obj(types::BOOL_VALUE, ffi::list(xs.iter().map(|&b| Scm::bool(b)))),
        Value::Link(xs) => value_obj(types::LINK_VALUE, ffi::list(xs.iter().map(|x| to_scm(x, space)))),
        Value::Queue(q) => value_obj(types::QUEUE_VALUE, ffi::list(q.snapshot().iter().map(|x| to_scm(x, space)))),
        // What it is made of, not a reading: each reading of the object
        // (cog-value->list, printing) runs it again.
        Value::Stream(st) => match (st.random_len(), st.space()) {
            (Some(n), _) => value_obj(types::RANDOM_STREAM, ffi::list([ffi::from_f64(n as f64)].into_iter())),
            (None, Some(s)) => {
                let index = register(s);
                value_obj(st.stream_type(), ffi::list(st.atoms().iter().map(|&h| Atom { space: index, h }.to_scm())))
            }
            (None, None) => value_obj(st.stream_type(), ffi::EOL),
        },
        Value::Void => value_obj(types::VOID_VALUE, ffi::EOL),
        Value::Truth(tv) => tv_obj(*tv),
        Value::Atom(h) => Atom { space, h: *h }.to_scm(),
        Value::Space(s) => space_obj(register(s.space().clone())),
    }
}

/// A Scheme value object (or truth value, or atom) as a core value, its atoms
/// given as handles of `into` (`atom` maps them).
pub fn from_scm(x: Scm, atom: &mut impl FnMut(Atom) -> R<Handle>) -> R<Value> {
    from_scm_in(x, atom, 0)
}

/// [`from_scm`] of an element `depth` LinkValues down.
fn from_scm_in(x: Scm, atom: &mut impl FnMut(Atom) -> R<Handle>, depth: usize) -> R<Value> {
    if let Some(tv) = tv_of(x) {
        return Ok(Value::Truth(tv));
    }
    if let Some(a) = Atom::from_scm(x) {
        return Ok(Value::Atom(atom(a)?));
    }
    if let Some(s) = space_of(x) {
        return Ok(Value::Space(space_at(s).clone().into()));
    }
    let (t, xs) = value_parts(x).ok_or_else(|| Error::wrong_type("a value (FloatValue, StringValue, LinkValue, a truth value, an atom or an atomspace)", x))?;
    build_value_in(t, xs.list_iter(), atom, depth)
}

/// A value of type `t` from Scheme elements.
pub fn build_value(t: Type, xs: impl Iterator<Item = Scm>, atom: &mut impl FnMut(Atom) -> R<Handle>) -> R<Value> {
    build_value_in(t, xs, atom, 0)
}

/// [`build_value`] of a value `depth` LinkValues down: a Scheme LinkValue
/// may nest deeper than a space allows, and converting it recurses.
fn build_value_in(t: Type, xs: impl Iterator<Item = Scm>, atom: &mut impl FnMut(Atom) -> R<Handle>, depth: usize) -> R<Value> {
    Ok(match t {
        types::FLOAT_VALUE => Value::float(xs.map(|x| ffi::to_f64(x).ok_or_else(|| Error::wrong_type("a number", x))).collect::<R<Vec<_>>>()?),
        types::STRING_VALUE => Value::String(xs.map(|x| ffi::to_string(x).ok_or_else(|| Error::wrong_type("a string", x))).collect::<R<Vec<_>>>()?.into()),
        types::BOOL_VALUE => {
            // #t/#f, or numbers (nonzero is true); one whole number alone is
            // a bit mask, highest bit first, as upstream's constructor reads it.
            let xs: Vec<Scm> = xs.collect();
            match xs[..] {
                [x] if ffi::to_f64(x).is_some_and(|n| n >= 1.0 && n.fract() == 0.0 && n < 2f64.powi(63)) => {
                    let n = ffi::to_f64(x).unwrap_or(0.0) as u64;
                    let bits = 64 - n.leading_zeros();
                    Value::bool((0..bits).rev().map(|i| n >> i & 1 == 1).collect::<Vec<_>>())
                }
                _ => Value::bool(xs.iter().map(|&x| ffi::to_f64(x).map_or(!x.is_false(), |n| n != 0.0)).collect::<Vec<_>>()),
            }
        }
        types::LINK_VALUE | types::QUEUE_VALUE if depth >= MAX_VALUE_NESTING => {
            return Err(Error::msg(format!("LinkValues nest at most {MAX_VALUE_NESTING} deep")))
        }
        types::LINK_VALUE => Value::link(link_items(xs, atom, depth)?),
        types::QUEUE_VALUE => Value::Queue(QueueValue::new(link_items(xs, atom, depth)?)),
        types::VOID_VALUE => Value::Void,
        types::RANDOM_STREAM => match xs.map(ffi::to_f64).collect::<Vec<_>>()[..] {
            [Some(n)] if (0.0..=MAX_VALUE_SIZE as f64).contains(&n) && n.fract() == 0.0 => Value::Stream(StreamValue::random(n as usize)),
            _ => return Err(Error::msg("RandomStream takes how many numbers to draw")),
        },
        // Computed from atoms, in the space of the atoms given (they are run there).
        types::FORMULA_STREAM | types::FUTURE_STREAM | types::FORMULA_TRUTH_VALUE => {
            let atoms: Vec<Atom> = xs.map(|x| Atom::from_scm(x).ok_or_else(|| Error::wrong_type("an atom", x))).collect::<R<_>>()?;
            let Some(first) = atoms.first() else { return Err(Error::msg(format!("{} runs one atom or more", t.name()))) };
            if atoms.iter().any(|a| a.space != first.space) {
                return Err(Error::msg(format!("the atoms of a {} must be of one space", t.name())));
            }
            Value::Stream(StreamValue::computed(t, &space_at(first.space), atoms.iter().map(|a| a.h).collect())?)
        }
        types::ATTENTION_VALUE => match xs.map(|x| ffi::to_f64(x).ok_or_else(|| Error::wrong_type("a number", x))).collect::<R<Vec<_>>>()? {
            n if n.len() == 3 => Value::float(n),
            _ => return Err(Error::msg("AttentionValue takes 3 numbers: sti, lti and vlti")),
        },
        types::SIMPLE_TRUTH_VALUE | types::COUNT_TRUTH_VALUE => {
            let n = xs.map(|x| ffi::to_f64(x).ok_or_else(|| Error::wrong_type("a number", x))).collect::<R<Vec<_>>>()?;
            Value::Truth(match (t, n.as_slice()) {
                (types::SIMPLE_TRUTH_VALUE, &[s, c]) => TruthValue::simple(s, c),
                (types::COUNT_TRUTH_VALUE, &[m, c, n]) => TruthValue::count(m, c, n),
                _ => return Err(Error::msg(format!("{} takes {} numbers", t.name(), if t == types::SIMPLE_TRUTH_VALUE { 2 } else { 3 }))),
            })
        }
        _ => return Err(Error::msg(format!("values of type {} are not supported", t.name()))),
    })
}

/// A LinkValue's items: values, or Scheme lists of them (nested lists
/// flattened, as `(LinkValue (cog-outgoing-set x))` gives them).
fn link_items(xs: impl Iterator<Item = Scm>, atom: &mut impl FnMut(Atom) -> R<Handle>, depth: usize) -> R<Vec<Value>> {
    let mut items = Vec::new();
    // A stack of list iterators: nested lists are walked without recursion.
    let mut todo: Vec<Box<dyn Iterator<Item = Scm>>> = vec![Box::new(xs.collect::<Vec<_>>().into_iter())];
    while let Some(top) = todo.last_mut() {
        let Some(x) = top.next() else {
            todo.pop();
            continue;
        };
        if x.is_pair() || x.is_null() {
            // A list holding itself would nest without end.
            if todo.len() > MAX_VALUE_NESTING {
                return Err(Error::msg(format!("lists nest more than {MAX_VALUE_NESTING} deep in a LinkValue")));
            }
            todo.push(Box::new(x.list_iter()));
        } else {
            items.push(from_scm_in(x, atom, depth + 1)?);
        }
        // A circular list would give items without end.
        if items.len() > MAX_VALUE_SIZE {
            return Err(Error::msg(format!("a LinkValue holds at most {MAX_VALUE_SIZE} items (is the list circular?)")));
        }
    }
    Ok(items)
}

unsafe extern "C" fn print_value(x: Scm, port: Scm, _: *mut std::ffi::c_void) -> i32 {
    let text = ffi::string(&value_text(x));
    ffi::display(text, port);
    1
}

/// A value's printed form, by the core's writer (a LinkValue's atoms are
/// printed from the space of the first of them).
fn value_text(x: Scm) -> String {
    let mut space = None;
    let mut text = String::new();
    let mut handle = |a: Atom| {
        space.get_or_insert(a);
        Ok(a.h)
    };
    if let Ok(v) = from_scm(x, &mut handle) {
        let a = space.map_or(0, |a: Atom| a.space);
        if let Err(e) = sexpr::write_value(&*space_at(a), &v, &mut text) {
            text = format!("#<{e}>");
        }
    }
    text
}

unsafe extern "C" fn equal_values(a: Scm, b: Scm) -> Scm {
    // Compare by content, through the core's values.
    // A stream compares by a reading.
    let conv = |x| match from_scm(x, &mut |a: Atom| Ok(a.h)).ok()? {
        Value::Stream(s) => s.sample().ok(),
        v => Some(v),
    };
    Scm::bool(matches!((conv(a), conv(b)), (Some(x), Some(y)) if x == y))
}
