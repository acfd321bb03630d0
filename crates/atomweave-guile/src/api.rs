//! The `(opencog)` primitives: upstream's cog-* functions over the core, and
//! a constructor for every type (`ConceptNode`, `Concept`, `FloatValue`).

use std::ffi::CString;
use std::sync::atomic::{AtomicUsize, Ordering};

use atomweave::query::{self, Executed};
use atomweave::sexpr;
use atomweave::{types, AtomSpace, Handle, TruthValue, Type, Value};
use hashbrown::HashMap;
use parking_lot::RwLock;

use crate::error::{guard, Error, R};
use crate::ffi::{self, Scm, Subr, EOL, UNSPECIFIED};
use crate::smob::{self, Atom};

/// The fluid holding the current atomspace object (per thread and dynamic
/// state, as upstream; new threads inherit it).
static CURRENT: AtomicUsize = AtomicUsize::new(0);

/// Type-name symbols seen so far (each protected from the collector, so its
/// address stays its identity).
static TYPE_SYMBOLS: RwLock<Option<HashMap<usize, Type, foldhash::fast::FixedState>>> = RwLock::new(None);

pub(crate) fn init(default_space: u32) {
    // SAFETY: in Guile mode; the objects are protected for the process's life.
    unsafe {
        let fluid = ffi::scm_gc_protect_object(ffi::scm_make_fluid_with_default(smob::space_obj(default_space)));
        CURRENT.store(fluid.bits(), Ordering::Relaxed);
    }
}

// ----- arguments -----

/// The current atomspace's index.
pub fn current() -> u32 {
    // SAFETY: the fluid made at init; fluid-ref does not throw.
    let x = unsafe { ffi::scm_fluid_ref(Scm::from_bits(CURRENT.load(Ordering::Relaxed))) };
    smob::space_of(x).unwrap_or(0)
}

pub(crate) fn set_current(i: u32) {
    // SAFETY: the fluid made at init.
    unsafe { ffi::scm_fluid_set_x(Scm::from_bits(CURRENT.load(Ordering::Relaxed)), smob::space_obj(i)) };
}

/// The spaces marked copy-on-write (`cog-atomspace-cow!`), by index. A
/// mark only: atomweave's child spaces always keep what they change on a
/// base atom for themselves, marked or not.
static COPY_ON_WRITE: parking_lot::Mutex<std::collections::BTreeSet<u32>> = parking_lot::Mutex::new(std::collections::BTreeSet::new());

/// An optional atomspace argument (the current one when absent).
fn space_arg(x: Scm) -> R<u32> {
    if x.is_undefined() {
        return Ok(current());
    }
    smob::space_of(x).ok_or_else(|| Error::wrong_type("an atomspace", x))
}

/// A type, named by a symbol or string.
pub fn type_arg(x: Scm) -> R<Type> {
    if let Some(t) = TYPE_SYMBOLS.read().as_ref().and_then(|m| m.get(&x.bits())) {
        return Ok(*t);
    }
    let symbol = x.is_symbol();
    let name = if symbol { ffi::symbol_name(x) } else { ffi::to_string(x) };
    let name = name.ok_or_else(|| Error::wrong_type("an atom type (a symbol such as 'ConceptNode)", x))?;
    let t = Type::from_name(&name).ok_or_else(|| Error::msg(format!("unknown atom type {name:?}")))?;
    if symbol {
        // SAFETY: protecting keeps the symbol interned, so its address keeps naming it.
        unsafe { ffi::scm_gc_protect_object(x) };
        TYPE_SYMBOLS.write().get_or_insert_with(HashMap::default).insert(x.bits(), t);
    }
    Ok(t)
}

/// Each type's name as a symbol, made once (and protected) on first use.
static TYPE_NAMES: [AtomicUsize; types::MAX_TYPES] = [const { AtomicUsize::new(0) }; types::MAX_TYPES];

fn type_symbol(t: Type) -> Scm {
    let slot = &TYPE_NAMES[t.id() as usize];
    match slot.load(Ordering::Acquire) {
        0 => {
            // SAFETY: protected for good, so the word stays valid; two threads
            // racing here store the same (interned) symbol.
            let sym = unsafe { ffi::scm_gc_protect_object(ffi::symbol(t.name())) };
            slot.store(sym.bits(), Ordering::Release);
            sym
        }
        // SAFETY: stored above from a protected symbol.
        bits => unsafe { Scm::from_bits(bits) },
    }
}

fn atom_arg(x: Scm) -> R<Atom> {
    Atom::from_scm(x).ok_or_else(|| Error::wrong_type("an atom", x))
}

/// A live atom.
fn live_atom(x: Scm) -> R<Atom> {
    let a = atom_arg(x)?;
    a.get_type()?;
    Ok(a)
}

/// The handle of `a` in space `into` (copied there by content from another
/// hierarchy, as upstream does).
pub fn handle_in(into: u32, a: Atom) -> R<Handle> {
    Ok(smob::space_at(into).import(&a.space(), a.h)?)
}

/// The atom `a` as seen from space `index`, if it is there (never added).
fn find_in(index: u32, a: Atom) -> Option<Handle> {
    smob::space_at(index).find(&a.space(), a.h)
}

/// The atom and the space an incoming-set call reads: the current one, or
/// the one given (upstream's incoming set is the links seen from a space).
fn atom_and_space(a: Scm, s: Scm) -> R<(u32, Option<Handle>)> {
    let a = live_atom(a)?;
    let space = space_arg(s)?;
    Ok((space, find_in(space, a)))
}

/// Where a change of `at`'s values goes: the current space when it sees
/// the atom (a child space keeps the change for itself, as upstream's
/// copy-on-write does, and a read-only base is untouched), else the atom's
/// own space.
fn write_target(at: Atom) -> Atom {
    let here = current();
    if here != at.space && smob::space_at(here).same_hierarchy(&at.space()) && smob::space_at(here).contains(at.h) {
        return Atom { space: here, h: at.h };
    }
    at
}

fn f64_arg(x: Scm) -> R<f64> {
    ffi::to_f64(x).ok_or_else(|| Error::wrong_type("a number", x))
}

fn tv_arg(x: Scm) -> R<TruthValue> {
    smob::tv_of(x).ok_or_else(|| Error::wrong_type("a truth value such as (stv 0.9 0.8)", x))
}

fn atoms_list(space: u32, hs: impl DoubleEndedIterator<Item = Handle>) -> Scm {
    ffi::list(hs.map(|h| Atom { space, h }.to_scm()))
}

/// Spaces as a list: upstream's AtomSpace is an atom whose outgoing set is
/// its bases and whose incoming set is the spaces made over it.
fn spaces_list(spaces: impl DoubleEndedIterator<Item = AtomSpace>) -> Scm {
    ffi::list(spaces.map(|s| smob::space_obj(smob::register(s))))
}

/// The trailing arguments every constructor takes: a truth value and an
/// atomspace, in any order, after the atom's own arguments.
#[derive(Default)]
struct Extras {
    tv: Option<TruthValue>,
    /// Values to set, `(alist (key . value) ...)`: the pairs.
    values: Option<Scm>,
    /// An attention value, `(av sti lti vlti)`: its elements.
    av: Option<Scm>,
    space: Option<u32>,
}

impl Extras {
    fn take(&mut self, x: Scm) -> bool {
        if let Some(tv) = smob::tv_of(x) {
            self.tv = Some(tv);
        } else if let Some(pairs) = alist_pairs(x) {
            self.values = Some(pairs);
        } else if let Some((types::ATTENTION_VALUE, xs)) = smob::value_parts(x) {
            self.av = Some(xs);
        } else if let Some(s) = smob::space_of(x) {
            self.space = Some(s);
        } else {
            return false;
        }
        true
    }

    fn finish(self, space: u32, h: Handle) -> R<Scm> {
        let s = smob::space_at(space);
        if let Some(tv) = self.tv {
            s.set_tv(h, tv)?;
        }
        if let Some(xs) = self.av {
            let key = s.add_node(types::PREDICATE_NODE, atomweave::sexpr::AV_KEY)?;
            s.set_value(h, key, smob::build_value(types::ATTENTION_VALUE, xs.list_iter(), &mut |a| handle_in(space, a))?)?;
        }
        if let Some(pairs) = self.values {
            set_values(Atom { space, h }, pairs)?;
        }
        Ok(Atom { space, h }.to_scm())
    }
}

/// Sets the values of the association list `alist`, `((key . value) ...)`
/// (a value of #f removes the key's), on `at`: every pair is checked
/// before the first value is set.
fn set_values(at: Atom, alist: Scm) -> R<()> {
    let mut kvs = Vec::new();
    for pair in proper_list(alist)?.list_iter() {
        if !pair.is_pair() {
            return Err(Error::wrong_type("an association list of (key . value)", pair));
        }
        // SAFETY: a pair.
        let (k, v) = unsafe { (pair.car(), pair.cdr()) };
        let key = handle_in(at.space, atom_arg(k)?)?;
        let value = if v.is_false() { None } else { Some(smob::from_scm(v, &mut |m| handle_in(at.space, m))?) };
        kvs.push((key, value));
    }
    for (k, v) in kvs {
        match v {
            Some(v) => at.space().set_value(at.h, k, v)?,
            None => at.space().remove_value(at.h, k)?,
        }
    }
    Ok(())
}

/// `(alist (key . value) ...)` as a constructor's argument: its pairs.
fn alist_pairs(x: Scm) -> Option<Scm> {
    // SAFETY: car and cdr of a pair.
    (x.is_pair() && ffi::symbol_name(unsafe { x.car() }).as_deref() == Some("alist")).then(|| unsafe { x.cdr() })
}

/// Adds a node: `args` are the name, then an optional truth value and atomspace.
/// A NumberNode's name may be numbers: `(Number 3)`, `(Number 42 43 44)`.
fn new_node(t: Type, args: impl Iterator<Item = Scm>) -> R<Scm> {
    let mut args = args.peekable();
    let Some(name) = args.next() else { return Err(Error::msg(format!("{} needs a name", t.name()))) };
    let mut numbers = Vec::new();
    if t.is_a(types::NUMBER_NODE) {
        if let Some(first) = ffi::to_f64(name) {
            numbers.push(first);
            while let Some(x) = args.peek().and_then(|&x| ffi::to_f64(x)) {
                numbers.push(x);
                args.next();
            }
        }
    }
    let mut extra = Extras::default();
    for x in args {
        if !extra.take(x) {
            return Err(Error::wrong_type("a truth value, an (alist ...) or an atomspace after the node's name", x));
        }
    }
    let space = extra.space.unwrap_or_else(current);
    let add = |name: &str| smob::space_at(space).add_node(t, name);
    let added = if !numbers.is_empty() {
        add(&query::number_name(&numbers))
    } else {
        match ffi::with_str(name, add) {
            Some(h) => h,
            None => add(&ffi::symbol_name(name).ok_or_else(|| Error::wrong_type("a node name (a string)", name))?),
        }
    };
    match added {
        Err(atomweave::Error::ReadOnly(_)) => Ok(EOL),
        h => extra.finish(space, h?),
    }
}

/// Adds a link: `args` are atoms or lists of atoms, and optionally a truth
/// value and an atomspace.
fn new_link(t: Type, args: impl Iterator<Item = Scm>) -> R<Scm> {
    let mut members = Vec::new();
    // DataLog text in a DatalogAst: its clauses, once the space is known.
    let mut programs: Vec<(usize, String)> = Vec::new();
    // The s-expression an SexprAst is given as text.
    let mut sexpr: Option<String> = None;
    let mut extra = Extras::default();
    for x in args {
        if let Some(a) = Atom::from_scm(x) {
            members.push(a);
        } else if let Some(text) = ffi::to_string(x).filter(|_| t == types::DATALOG_AST) {
            programs.push((members.len(), text));
        } else if let Some(text) = if t == types::SEXPR_AST { foreign_text(x)? } else { None } {
            if sexpr.replace(text).is_some() {
                return Err(Error::msg("SexprAst takes one s-expression (text, a symbol or a quoted list), or atoms"));
            }
        } else if (x.is_pair() && alist_pairs(x).is_none()) || x.is_null() {
            for y in proper_list(x)?.list_iter() {
                members.push(Atom::from_scm(y).ok_or_else(|| Error::wrong_type(&format!("an atom in the outgoing set of {}", t.name()), y))?);
            }
        } else if t.has_named_leaves() && (ffi::to_string(x).is_some() || x.is_symbol()) {
            return Err(Error::msg(format!("{} of text is not supported by atomweave: it reads SexprAst and DatalogAst text only", t.name())));
        } else if !extra.take(x) {
            return Err(Error::wrong_type(&format!("an atom, a list of atoms, a truth value or an atomspace in {}", t.name()), x));
        }
    }
    let space = extra.space.unwrap_or_else(current);
    if let Some(text) = sexpr {
        if !members.is_empty() {
            return Err(Error::msg("SexprAst takes either an s-expression or atoms, not both"));
        }
        let h = atomweave::foreign::sexpr(&mut &*smob::space_at(space), &text);
        return match h {
            Err(atomweave::Error::ReadOnly(_)) => Ok(EOL),
            h => extra.finish(space, h?),
        };
    }
    for (at, text) in programs.into_iter().rev() {
        let clauses = atomweave::foreign::datalog(&smob::space_at(space), &text)?;
        members.splice(at..at, clauses.into_iter().map(|h| Atom { space, h }));
    }
    let out = members.iter().map(|&a| handle_in(space, a)).collect::<R<Vec<_>>>()?;
    let to = smob::space_at(space);
    match to.add_link(t, &out) {
        // As upstream: a read-only space gives no atom for one it lacks.
        Err(atomweave::Error::ReadOnly(_)) => Ok(EOL),
        h => {
            let h = h?;
            let versions: Vec<smob::SpaceRef> = members.iter().map(|a| a.space()).collect();
            let versions: Vec<&AtomSpace> = versions.iter().map(|s| &**s).collect();
            to.take_newer_version(h, &versions)?;
            extra.finish(space, h)
        }
    }
}

/// The text a foreign AST is given as: a string, a symbol's name, or a
/// quoted list that is not a list of atoms, written out as Guile writes it.
fn foreign_text(x: Scm) -> R<Option<String>> {
    if let Some(text) = ffi::to_string(x).or_else(|| ffi::symbol_name(x)) {
        return Ok(Some(text));
    }
    // A circular list is refused here, before it is walked; an alist is values.
    if !x.is_pair() || alist_pairs(x).is_some() || proper_list(x)?.list_iter().all(|y| Atom::from_scm(y).is_some()) {
        return Ok(None);
    }
    // Through the shell: a record's printer is Scheme code, and may throw or jump.
    let text = crate::call_shell(crate::Shell::Write, &[x]).map_err(Error::msg)?;
    Ok(ffi::to_string(text))
}

/// The truth- and attention-value keys of `space`, which listings leave
/// out: upstream holds them in no space.
fn value_keys(space: &AtomSpace) -> Vec<Handle> {
    atomweave::sexpr::value_key_atoms(|t, n| space.get_node(t, n))
}

/// `(AtomSpace [NAME] [BASE ...])`: a new space, named, over the bases.
fn new_space(args: Scm) -> R<Scm> {
    let mut name = None;
    let mut bases = Vec::new();
    for x in args.list_iter() {
        match (ffi::to_string(x), smob::space_of(x)) {
            (Some(n), _) if name.is_none() && bases.is_empty() => name = Some(n),
            (_, Some(s)) => bases.push(smob::space_at(s)),
            _ => return Err(Error::wrong_type("a name, then base atomspaces", x)),
        }
    }
    let space = match (name, bases.is_empty()) {
        (Some(n), true) => AtomSpace::new_named(&n),
        (None, true) => AtomSpace::new(),
        (_, false) => AtomSpace::new_child(&bases.iter().map(|s| &**s).collect::<Vec<_>>())?,
    };
    Ok(smob::space_obj(smob::register(space)))
}

/// `(TYPE args...)`: an atom or value of type `t`.
fn construct(t: Type, args: Scm) -> R<Scm> {
    if t == types::ATOM_SPACE {
        return new_space(args);
    }
    if t.is_node() {
        new_node(t, args.list_iter())
    } else if t.is_link() {
        new_link(t, args.list_iter())
    } else {
        let space = current();
        let v = smob::build_value(t, args.list_iter(), &mut |a| handle_in(space, a))?;
        // An attention value is a FloatValue in the core, keeping its type
        // here so that an atom's constructor knows it.
        Ok(if t == types::ATTENTION_VALUE { smob::value_obj(t, args) } else { smob::to_scm(&v, space) })
    }
}

/// A constructor per type number, as a plain C function Guile can call.
unsafe extern "C" fn ctor<const T: u16>(args: Scm) -> Scm {
    guard("atom constructor", || construct(Type::from_id(T).ok_or_else(|| Error::msg(format!("no type has number {T}")))?, args))
}

/// The constructors of type numbers below 512 (every built-in type); the
/// rest get a Scheme closure over `cog-new-atom`.
fn ctor_table() -> Vec<Subr> {
    seq_macro::seq!(N in 0..512 {
        vec![#(ctor::<N> as Subr,)*]
    })
}

// ----- the primitives -----

subrs! {
    cog_new_node "cog-new-node" (t, rest) { new_node(type_of_kind(t, true)?, rest.list_iter()) }
    cog_new_link "cog-new-link" (t, rest) { new_link(type_of_kind(t, false)?, rest.list_iter()) }
    cog_construct "cog-new-atom" (t, rest) {
        match Atom::from_scm(t) {
            // Upstream's form: ATOM [ATOMSPACE], the atom in that space
            // (the current one by default), copied with its truth value
            // from another hierarchy.
            Some(a) => {
                let mut args = rest.list_iter();
                let space = args.next().map_or(Ok(current()), space_arg)?;
                if let Some(extra) = args.next() {
                    return Err(Error::wrong_type("nothing after the atomspace", extra));
                }
                let h = smob::space_at(space).import(&smob::space_at(a.space), a.h)?;
                Ok(Atom { space, h }.to_scm())
            }
            None => construct(type_arg(t)?, rest),
        }
    }
    cog_node "cog-node" (t, name, s) {
        let t = type_of_kind(t, true)?;
        let space = space_arg(s)?;
        let found = ffi::with_str(name, |name| smob::space_at(space).get_node(t, name)).ok_or_else(|| Error::wrong_type("a node name (a string)", name))?;
        Ok(found.map_or(EOL, |h| Atom { space, h }.to_scm()))
    }
    cog_link "cog-link" (t, rest) {
        let t = type_of_kind(t, false)?;
        let mut space = current();
        let mut members = Vec::new();
        for x in rest.list_iter() {
            if let Some(s) = smob::space_of(x) {
                space = s;
            } else if x.is_pair() || x.is_null() {
                members.extend(proper_list(x)?.list_iter().map(atom_arg).collect::<R<Vec<_>>>()?);
            } else {
                members.push(atom_arg(x)?);
            }
        }
        let to = smob::space_at(space);
        let mut out = Vec::with_capacity(members.len());
        for a in members {
            if !(a.space == space || a.space().same_hierarchy(&to)) {
                return Ok(EOL);
            }
            out.push(a.h);
        }
        Ok(to.get_link(t, &out).map_or(EOL, |h| Atom { space, h }.to_scm()))
    }
    cog_extract "cog-extract!" (a, s) { extract(a, s, false) }
    cog_extract_recursive "cog-extract-recursive!" (a, s) { extract(a, s, true) }
    cog_name "cog-name" (a) {
        if let Some(s) = smob::space_of(a) {
            return Ok(ffi::string(smob::space_at(s).space_name()));
        }
        let a = live_atom(a)?;
        Ok(ffi::string(a.space().name(a.h).unwrap_or("")))
    }
    cog_type "cog-type" (a) {
        if smob::space_of(a).is_some() {
            return Ok(type_symbol(types::ATOM_SPACE));
        }
        if let Some((t, _)) = smob::value_parts(a) {
            return Ok(type_symbol(t));
        }
        if let Some(tv) = smob::tv_of(a) {
            return Ok(type_symbol(tv.value_type()));
        }
        Ok(type_symbol(live_atom(a)?.get_type()?))
    }
    cog_arity "cog-arity" (a) {
        if let Some(s) = smob::space_of(a) {
            return Ok(ffi::from_i64(smob::space_at(s).bases().len() as i64));
        }
        // A value's arity is its size, as upstream's.
        if smob::value_parts(a).is_some() || smob::is_tv(a) {
            return Ok(ffi::from_i64(value_list(a)?.list_iter().count() as i64));
        }
        let a = live_atom(a)?;
        Ok(ffi::from_i64(a.space().arity(a.h).unwrap_or(0) as i64))
    }
    cog_outgoing_set "cog-outgoing-set" (a) {
        if let Some(s) = smob::space_of(a) {
            return Ok(spaces_list(smob::space_at(s).bases().iter().cloned()));
        }
        let a = live_atom(a)?;
        Ok(atoms_list(a.space, a.space().outgoing(a.h).unwrap_or(&[]).iter().copied()))
    }
    cog_outgoing_atom "cog-outgoing-atom" (a, n) {
        let i = ffi::to_i64(n).filter(|&i| i >= 0).ok_or_else(|| Error::wrong_type("an index", n))? as usize;
        if let Some(s) = smob::space_of(a) {
            let space = smob::space_at(s);
            let bases = space.bases();
            return bases.get(i).map(|b| smob::space_obj(smob::register(b.clone()))).ok_or_else(|| Error::msg(format!("index {i} is past the end of the {} base spaces", bases.len())));
        }
        let a = live_atom(a)?;
        let space = a.space();
        let out = space.outgoing(a.h).unwrap_or(&[]);
        out.get(i).map(|&h| Atom { space: a.space, h }.to_scm()).ok_or_else(|| Error::msg(format!("index {i} is past the end of an outgoing set of {}", out.len())))
    }
    cog_version "cog-version" () { Ok(ffi::string(env!("CARGO_PKG_VERSION"))) }
    cog_free_variables "cog-free-variables" (a) {
        let at = live_atom(a)?;
        Ok(atoms_list(at.space, atomweave::query::free_variables(&at.space(), at.h)?.into_iter()))
    }
    cog_incoming_set "cog-incoming-set" (a, s) {
        if let Some(sp) = smob::space_of(a) {
            return Ok(spaces_list(smob::space_at(sp).children().into_iter()));
        }
        let (space, h) = atom_and_space(a, s)?;
        let inc = h.and_then(|h| smob::space_at(space).incoming(h)).unwrap_or_default();
        Ok(atoms_list(space, inc.iter().copied()))
    }
    cog_incoming_size "cog-incoming-size" (a, s) {
        if let Some(sp) = smob::space_of(a) {
            return Ok(ffi::from_i64(smob::space_at(sp).children().len() as i64));
        }
        let (space, h) = atom_and_space(a, s)?;
        Ok(ffi::from_i64(h.and_then(|h| smob::space_at(space).incoming_size(h)).unwrap_or(0) as i64))
    }
    cog_incoming_by_type "cog-incoming-by-type" (a, t, s) {
        let t = type_arg(t)?;
        let (space, h) = atom_and_space(a, s)?;
        Ok(atoms_list(space, h.map(|h| smob::space_at(space).incoming_by_type(h, t)).unwrap_or_default().into_iter()))
    }
    cog_tv "cog-tv" (a) {
        let a = atom_arg(a)?;
        // A FormulaTruthValue is given as itself; its readings are the numbers.
        Ok(smob::to_scm(&a.space().get_tv_value(a.h).ok_or_else(|| Error::msg("the atom was extracted from its atomspace"))?, a.space))
    }
    cog_set_tv "cog-set-tv!" (a, tv) {
        let at = write_target(atom_arg(a)?);
        match stream_arg(tv) {
            Some(stream) => at.space().set_tv_stream(at.h, stream)?,
            None => at.space().set_tv(at.h, tv_arg(tv)?)?,
        }
        Ok(at.to_scm())
    }
    cog_new_stv "cog-new-stv" (s, c) { Ok(smob::tv_obj(TruthValue::simple(f64_arg(s)?, f64_arg(c)?))) }
    cog_new_ctv "cog-new-ctv" (m, c, n) { Ok(smob::tv_obj(TruthValue::count(f64_arg(m)?, f64_arg(c)?, f64_arg(n)?))) }
    cog_mean "cog-mean" (x) { Ok(ffi::from_f64(tv_or_atom(x)?.mean())) }
    cog_confidence "cog-confidence" (x) { Ok(ffi::from_f64(tv_or_atom(x)?.confidence())) }
    cog_count "cog-count" (x) { Ok(ffi::from_f64(tv_or_atom(x)?.count_of())) }
    cog_inc_count "cog-inc-count!" (a, n) {
        let at = write_target(atom_arg(a)?);
        at.space().increment_count(at.h, f64_arg(n)?)?;
        Ok(at.to_scm())
    }
    cog_keys "cog-keys" (a) {
        let a = live_atom(a)?;
        Ok(atoms_list(a.space, keys(a)?.into_iter().map(|(k, _)| k)))
    }
    cog_keys_alist "cog-keys->alist" (a) {
        let a = live_atom(a)?;
        let kvs = keys(a)?;
        // SAFETY: cons does not throw; the key object is on the stack while
        // the value's is made.
        Ok(ffi::list(kvs.iter().map(|(k, v)| unsafe { ffi::scm_cons(Atom { space: a.space, h: *k }.to_scm(), smob::to_scm(v, a.space)) })))
    }
    cog_value "cog-value" (a, k) {
        let a = live_atom(a)?;
        let k = handle_in(a.space, atom_arg(k)?)?;
        Ok(a.space().get_value(a.h, k).map_or(ffi::BOOL_F, |v| smob::to_scm(&v, a.space)))
    }
    cog_value_ref "cog-value-ref" (v, n) {
        let i = ffi::to_i64(n).filter(|&i| i >= 0).ok_or_else(|| Error::wrong_type("an index", n))? as usize;
        let xs = value_list(v)?;
        xs.list_iter().nth(i).ok_or_else(|| Error::msg(format!("index {i} is past the end of the value")))
    }
    cog_set_value "cog-set-value!" (a, k, v) {
        let at = write_target(live_atom(a)?);
        let key = handle_in(at.space, atom_arg(k)?)?;
        if v.is_false() || v.is_null() {
            at.space().remove_value(at.h, key)?;
        } else {
            let value = smob::from_scm(v, &mut |m| handle_in(at.space, m))?;
            at.space().set_value(at.h, key, value)?;
        }
        Ok(at.to_scm())
    }
    cog_set_values "cog-set-values!" (a, alist) {
        let at = write_target(live_atom(a)?);
        set_values(at, alist)?;
        Ok(at.to_scm())
    }
    cog_value_to_list "cog-value->list" (v) { value_list(v) }
    cog_value_is_type "cog-value-is-type?" (spec, v) {
        let spec = atom_arg(spec)?;
        let value = smob::from_scm(v, &mut |m| handle_in(spec.space, m))?;
        Ok(Scm::bool(query::value_is_type(&spec.space(), spec.h, &value)?))
    }
    load_table "%load-table" (a, path) {
        let at = write_target(live_atom(a)?);
        let path = ffi::to_string(path).ok_or_else(|| Error::wrong_type("a file name", path))?;
        let file = std::fs::File::open(&path).map_err(|e| Error::msg(format!("load-table: {path}: {e}")))?;
        atomweave::csv::load_table(&at.space(), at.h, std::io::BufReader::new(file))?;
        Ok(at.to_scm())
    }
    cog_atom "cog-atom" (n, s) {
        let space = space_arg(s)?;
        // Upstream's form: the version of ATOM in the space, else #f.
        if let Some(a) = Atom::from_scm(n) {
            return Ok(find_in(space, a).map_or(ffi::BOOL_F, |h| Atom { space, h }.to_scm()));
        }
        let h = ffi::to_i64(n).and_then(|n| u32::try_from(n).ok()).ok_or_else(|| Error::wrong_type("a handle (cog-handle's number)", n))?;
        let h = Handle::from_u32(h);
        Ok(if smob::space_at(space).contains(h) { Atom { space, h }.to_scm() } else { EOL })
    }
    cog_handle "cog-handle" (a) { Ok(ffi::from_i64(atom_arg(a)?.h.to_u32() as i64)) }
    cog_atom_p "cog-atom?" (x) { Ok(Scm::bool(smob::is_atom(x))) }
    cog_node_p "cog-node?" (x) { Ok(Scm::bool(Atom::from_scm(x).and_then(|a| a.get_type().ok()).is_some_and(|t| t.is_node()))) }
    cog_link_p "cog-link?" (x) { Ok(Scm::bool(Atom::from_scm(x).and_then(|a| a.get_type().ok()).is_some_and(|t| t.is_link()))) }
    cog_value_p "cog-value?" (x) { Ok(Scm::bool(smob::is_value(x))) }
    cog_tv_p "cog-tv?" (x) { Ok(Scm::bool(smob::is_tv(x))) }
    cog_atomspace_p "cog-atomspace?" (x) { Ok(Scm::bool(smob::space_of(x).is_some())) }
    cog_subtype_p "cog-subtype?" (sup, t) { Ok(Scm::bool(type_arg(t)?.is_a(type_arg(sup)?))) }
    define_new "%atomweave-define-new-types" () {
        let upto = types::type_count();
        let from = DEFINED_UPTO.swap(upto, Ordering::Relaxed);
        define_constructors((from..upto).filter_map(|i| Type::from_id(i as u16)), false);
        Ok(ffi::UNSPECIFIED)
    }
    define_types "%atomweave-define-types" (family) {
        let name = ffi::to_string(family).ok_or_else(|| Error::wrong_type("a type family's name (a string)", family))?;
        define_constructors(types::load_family(&name).map_err(|e| Error::msg(e.to_string()))?, false);
        Ok(ffi::UNSPECIFIED)
    }
    cog_get_types "cog-get-types" () { Ok(ffi::list(Type::all().into_iter().map(type_symbol))) }
    cog_get_subtypes "cog-get-subtypes" (t) { Ok(ffi::list(type_arg(t)?.subtypes().into_iter().map(type_symbol))) }
    cog_atomspace "cog-atomspace" (a) {
        if a.is_undefined() {
            return Ok(smob::space_obj(current()));
        }
        Ok(smob::space_obj(atom_arg(a)?.space))
    }
    cog_set_atomspace "cog-set-atomspace!" (s) {
        let new = smob::space_of(s).ok_or_else(|| Error::wrong_type("an atomspace", s))?;
        let old = current();
        set_current(new);
        Ok(smob::space_obj(old))
    }
    cog_new_atomspace "cog-new-atomspace" (rest) {
        let bases = rest.list_iter().map(|x| space_arg(x).map(smob::space_at)).collect::<R<Vec<_>>>()?;
        let space = if bases.is_empty() { AtomSpace::new() } else { AtomSpace::new_child(&bases.iter().map(|s| &**s).collect::<Vec<_>>())? };
        Ok(smob::space_obj(smob::register(space)))
    }
    cog_atomspace_env "cog-atomspace-env" (s) {
        let bases: Vec<Scm> = smob::space_at(space_arg(s)?).bases().iter().map(|b| smob::space_obj(crate::register_space(b.clone()))).collect();
        Ok(ffi::list(bases.into_iter()))
    }
    cog_atomspace_ro "cog-atomspace-ro!" (s) {
        smob::space_at(space_arg(s)?).set_read_only(true);
        Ok(UNSPECIFIED)
    }
    cog_atomspace_rw "cog-atomspace-rw!" (s) {
        smob::space_at(space_arg(s)?).set_read_only(false);
        Ok(UNSPECIFIED)
    }
    // Its index: one per space (a call's frame's is never given again).
    cog_atomspace_uuid "cog-atomspace-uuid" (s) { Ok(ffi::from_i64(i64::from(space_arg(s)?))) }
    cog_atomspace_readonly_p "cog-atomspace-readonly?" (s) { Ok(Scm::bool(smob::space_at(space_arg(s)?).is_read_only())) }
    cog_atomspace_cow "cog-atomspace-cow!" (on, s) {
        let space = space_arg(s)?;
        let mut cow = COPY_ON_WRITE.lock();
        if on.is_false() {
            cow.remove(&space);
        } else {
            cow.insert(space);
        }
        Ok(UNSPECIFIED)
    }
    cog_atomspace_cow_p "cog-atomspace-cow?" (s) { Ok(Scm::bool(COPY_ON_WRITE.lock().contains(&space_arg(s)?))) }
    cog_atomspace_clear "cog-atomspace-clear" (s) {
        smob::space_at(space_arg(s)?).clear();
        Ok(UNSPECIFIED)
    }
    cog_count_atoms "cog-count-atoms" (t, s) {
        let t = type_arg(t)?;
        let space = smob::space_at(space_arg(s)?);
        let keys = value_keys(&space).into_iter().filter(|&k| space.get_type(k) == Some(t)).count();
        Ok(ffi::from_i64((space.count_of_type(t, false) - keys) as i64))
    }
    cog_get_atoms "cog-get-atoms" (t, subtypes, s) {
        let t = type_arg(t)?;
        let space = space_arg(s)?;
        let keys = value_keys(&smob::space_at(space));
        let hs: Vec<Handle> = smob::space_at(space).handles_by_type(t, flag(subtypes)).filter(|h| !keys.contains(h)).collect();
        Ok(atoms_list(space, hs.into_iter()))
    }
    cog_get_all_roots "cog-get-all-roots" (s) {
        let space = space_arg(s)?;
        let keys = value_keys(&smob::space_at(space));
        let hs: Vec<Handle> = smob::space_at(space).root_set_by_type(types::ATOM, true).filter(|h| !keys.contains(h)).collect();
        Ok(atoms_list(space, hs.into_iter()))
    }
    may_see_twice "%atomweave-may-see-a-content-twice?" (s) {
        // At or below a space of two bases: each base's copy of a shared content.
        Ok(Scm::bool(!smob::space_at(space_arg(s)?).is_chain()))
    }
    one_copy_roots "%atomweave-one-copy-roots" (s) {
        // What `export-all-atoms` writes for such a space: its roots in the
        // REPL form, as `display` prints each, but one copy of each content
        // (`dump_space`), so that the file reads back as its lookups see it.
        let space = smob::space_at(space_arg(s)?);
        let mut text = Vec::new();
        sexpr::dump_space(&space, sexpr::Select::Roots, sexpr::Form::Repl, &mut text, |_| {}).map_err(|e| Error::msg(format!("export-all-atoms: {e}")))?;
        Ok(ffi::string(&String::from_utf8_lossy(&text)))
    }
    cog_report_counts "cog-report-counts" (s) {
        let space = smob::space_at(space_arg(s)?);
        let counts: Vec<(Type, usize)> = Type::all().into_iter().map(|t| (t, space.count_of_type(t, false))).filter(|&(_, n)| n > 0).collect();
        // SAFETY: cons does not throw.
        Ok(ffi::list(counts.into_iter().map(|(t, n)| unsafe { ffi::scm_cons(type_symbol(t), ffi::from_i64(n as i64)) })))
    }
    // Both run in the current atomspace, as upstream's do.
    cog_execute "cog-execute!" (a) {
        let space = current();
        let h = handle_in(space, live_atom(a)?)?;
        Ok(match query::execute(&smob::space_at(space), h)? {
            Executed::Atom(h) => Atom { space, h }.to_scm(),
            Executed::Value(v) => smob::to_scm(&v, space),
        })
    }
    cog_evaluate "cog-evaluate!" (a) {
        let space = current();
        let h = handle_in(space, live_atom(a)?)?;
        Ok(smob::tv_obj(query::evaluate(&smob::space_at(space), h)?))
    }
}

/// `x`, if it is a proper list (not improper, not circular).
fn proper_list(x: Scm) -> R<Scm> {
    // SAFETY: scm_ilength takes any object and does not throw.
    if unsafe { ffi::scm_ilength(x) } < 0 {
        return Err(Error::wrong_type("a proper list", x));
    }
    Ok(x)
}

fn flag(x: Scm) -> bool {
    !x.is_undefined() && !x.is_false()
}

/// A type that must be a node type (or a link type).
fn type_of_kind(x: Scm, node: bool) -> R<Type> {
    let t = type_arg(x)?;
    match (node, t.is_node(), t.is_link()) {
        (true, true, _) | (false, _, true) => Ok(t),
        _ => Err(Error::msg(format!("{} is not a {} type", t.name(), if node { "node" } else { "link" }))),
    }
}

fn extract(a: Scm, s: Scm, recursive: bool) -> R<Scm> {
    let a = atom_arg(a)?;
    // Upstream extracts from the current space (a frame hides a base atom).
    let index = space_arg(s)?;
    let Some(h) = find_in(index, a) else { return Ok(ffi::BOOL_F) };
    match smob::space_at(index).extract(h, recursive) {
        Ok(()) => Ok(ffi::BOOL_T),
        Err(atomweave::Error::HasIncoming { .. }) | Err(atomweave::Error::InvalidHandle(_)) => Ok(ffi::BOOL_F),
        Err(e) => Err(e.into()),
    }
}

/// A FormulaTruthValue object, else `None`.
fn stream_arg(x: Scm) -> Option<atomweave::StreamValue> {
    if !smob::is_value(x) {
        return None;
    }
    match smob::from_scm(x, &mut |m| Ok(m.h)) {
        Ok(Value::Stream(s)) if s.stream_type() == types::FORMULA_TRUTH_VALUE => Some(s),
        _ => None,
    }
}

/// The numbers of a truth value, of a FormulaTruthValue's reading (a
/// failure to compute it is an error), or of an atom's truth value.
fn tv_or_atom(x: Scm) -> R<TruthValue> {
    if let Some(tv) = smob::tv_of(x) {
        return Ok(tv);
    }
    let stream = match (stream_arg(x), Atom::from_scm(x)) {
        (Some(s), _) => s,
        (None, Some(a)) => match a.space().get_tv_value(a.h).ok_or_else(|| Error::msg("the atom was extracted from its atomspace"))? {
            Value::Stream(s) => s,
            v => return Ok(v.as_truth().unwrap_or_default()),
        },
        (None, None) => return Err(Error::wrong_type("a truth value or an atom", x)),
    };
    stream.sample()?.as_truth().ok_or_else(|| Error::msg("the FormulaTruthValue's reading is not a truth value"))
}

/// The atom's keys and values, the truth value first when it is not the
/// default. Core data: each becomes a Scheme object only as it goes into a
/// list (the collector does not see Rust's heap).
fn keys(a: Atom) -> R<Vec<(Handle, Value)>> {
    let space = a.space();
    let mut out = Vec::new();
    if let Some(tv) = space.get_tv(a.h).filter(|tv| !tv.is_default()) {
        out.push((space.value_key(sexpr::TV_KEY)?, Value::Truth(tv)));
    }
    out.extend(space.key_values(a.h));
    Ok(out)
}

/// A value's elements as a fresh list; for a node its name, for a link its
/// outgoing set (as upstream).
fn value_list(v: Scm) -> R<Scm> {
    if let Some((_, xs)) = smob::value_parts(v) {
        // A stream lists a reading, taken now.
        if let Ok(Value::Stream(st)) = smob::from_scm(v, &mut |a| Ok(a.h)) {
            let space = st.space().map_or(current(), smob::register);
            return value_list(smob::to_scm(&st.sample()?, space));
        }
        return Ok(ffi::list(xs.list_iter().collect::<Vec<_>>().into_iter()));
    }
    if let Some(tv) = smob::tv_of(v) {
        return Ok(ffi::list(tv.to_vec().into_iter().map(ffi::from_f64)));
    }
    let a = live_atom(v).map_err(|_| Error::wrong_type("a value", v))?;
    let space = a.space();
    // A NumberNode is a vector of numbers, as upstream lists it.
    if let Some(xs) = atomweave::query::numbers_of(&space, a.h) {
        return Ok(ffi::list(xs.into_iter().map(ffi::from_f64)));
    }
    Ok(match space.name(a.h) {
        Some(name) => ffi::list([ffi::string(name)].into_iter()),
        None => atoms_list(a.space, space.outgoing(a.h).unwrap_or(&[]).iter().copied()),
    })
}

/// Defines and exports the primitives and constructors in the current module.
pub(crate) fn define_all() {
    let prims: &[(&str, i32, i32, i32, Subr)] = &[
        ("cog-new-node", 1, 0, 1, cog_new_node as Subr),
        ("cog-new-link", 1, 0, 1, cog_new_link as Subr),
        ("cog-new-atom", 1, 0, 1, cog_construct as Subr),
        ("cog-node", 2, 1, 0, cog_node as Subr),
        ("cog-link", 1, 0, 1, cog_link as Subr),
        ("cog-extract!", 1, 1, 0, cog_extract as Subr),
        ("cog-extract-recursive!", 1, 1, 0, cog_extract_recursive as Subr),
        ("cog-name", 1, 0, 0, cog_name as Subr),
        ("cog-type", 1, 0, 0, cog_type as Subr),
        ("cog-arity", 1, 0, 0, cog_arity as Subr),
        ("cog-outgoing-set", 1, 0, 0, cog_outgoing_set as Subr),
        ("cog-outgoing-atom", 2, 0, 0, cog_outgoing_atom as Subr),
        ("cog-version", 0, 0, 0, cog_version as Subr),
        ("cog-free-variables", 1, 0, 0, cog_free_variables as Subr),
        ("cog-incoming-set", 1, 1, 0, cog_incoming_set as Subr),
        ("cog-incoming-size", 1, 1, 0, cog_incoming_size as Subr),
        ("cog-incoming-by-type", 2, 1, 0, cog_incoming_by_type as Subr),
        ("cog-tv", 1, 0, 0, cog_tv as Subr),
        ("cog-set-tv!", 2, 0, 0, cog_set_tv as Subr),
        ("cog-new-stv", 2, 0, 0, cog_new_stv as Subr),
        ("stv", 2, 0, 0, cog_new_stv as Subr),
        ("cog-new-ctv", 3, 0, 0, cog_new_ctv as Subr),
        ("ctv", 3, 0, 0, cog_new_ctv as Subr),
        ("cog-mean", 1, 0, 0, cog_mean as Subr),
        ("cog-confidence", 1, 0, 0, cog_confidence as Subr),
        ("cog-count", 1, 0, 0, cog_count as Subr),
        ("cog-inc-count!", 2, 0, 0, cog_inc_count as Subr),
        ("cog-keys", 1, 0, 0, cog_keys as Subr),
        ("cog-keys->alist", 1, 0, 0, cog_keys_alist as Subr),
        ("cog-value", 2, 0, 0, cog_value as Subr),
        ("cog-value-ref", 2, 0, 0, cog_value_ref as Subr),
        ("cog-set-value!", 3, 0, 0, cog_set_value as Subr),
        ("%load-table", 2, 0, 0, load_table as Subr),
        ("cog-value-is-type?", 2, 0, 0, cog_value_is_type as Subr),
        ("cog-set-values!", 2, 0, 0, cog_set_values as Subr),
        ("cog-value->list", 1, 0, 0, cog_value_to_list as Subr),
        ("cog-atom", 1, 1, 0, cog_atom as Subr),
        ("cog-handle", 1, 0, 0, cog_handle as Subr),
        ("cog-atom?", 1, 0, 0, cog_atom_p as Subr),
        ("cog-node?", 1, 0, 0, cog_node_p as Subr),
        ("cog-link?", 1, 0, 0, cog_link_p as Subr),
        ("cog-value?", 1, 0, 0, cog_value_p as Subr),
        ("cog-tv?", 1, 0, 0, cog_tv_p as Subr),
        ("cog-atomspace?", 1, 0, 0, cog_atomspace_p as Subr),
        ("cog-subtype?", 2, 0, 0, cog_subtype_p as Subr),
        ("cog-get-types", 0, 0, 0, cog_get_types as Subr),
        ("cog-get-subtypes", 1, 0, 0, cog_get_subtypes as Subr),
        ("cog-atomspace", 0, 1, 0, cog_atomspace as Subr),
        ("cog-set-atomspace!", 1, 0, 0, cog_set_atomspace as Subr),
        ("cog-new-atomspace", 0, 0, 1, cog_new_atomspace as Subr),
        ("cog-atomspace-env", 0, 1, 0, cog_atomspace_env as Subr),
        ("cog-atomspace-ro!", 0, 1, 0, cog_atomspace_ro as Subr),
        ("cog-atomspace-rw!", 0, 1, 0, cog_atomspace_rw as Subr),
        ("cog-atomspace-readonly?", 0, 1, 0, cog_atomspace_readonly_p as Subr),
        ("cog-atomspace-uuid", 0, 1, 0, cog_atomspace_uuid as Subr),
        ("cog-atomspace-cow!", 1, 1, 0, cog_atomspace_cow as Subr),
        ("cog-atomspace-cow?", 0, 1, 0, cog_atomspace_cow_p as Subr),
        ("cog-atomspace-clear", 0, 1, 0, cog_atomspace_clear as Subr),
        ("cog-count-atoms", 1, 1, 0, cog_count_atoms as Subr),
        ("cog-get-atoms", 1, 2, 0, cog_get_atoms as Subr),
        ("cog-get-all-roots", 0, 1, 0, cog_get_all_roots as Subr),
        ("%atomweave-may-see-a-content-twice?", 0, 1, 0, may_see_twice as Subr),
        ("%atomweave-one-copy-roots", 0, 1, 0, one_copy_roots as Subr),
        ("cog-report-counts", 0, 1, 0, cog_report_counts as Subr),
        ("cog-execute!", 1, 0, 0, cog_execute as Subr),
        ("%atomweave-define-types", 1, 0, 0, define_types as Subr),
        ("%atomweave-define-new-types", 0, 0, 0, define_new as Subr),
        ("cog-evaluate!", 1, 0, 0, cog_evaluate as Subr),
    ];
    for &(name, req, opt, rst, f) in prims
        .iter()
        .chain(&crate::persist::primitives())
        .chain(&crate::plain_read::primitives())
        .chain(&crate::load::primitives())
        .chain(&crate::plain_eval::primitives())
    {
        define(name, req, opt, rst, f);
    }
    DEFINED_UPTO.store(types::type_count(), Ordering::Relaxed);
    define_constructors(Type::all(), true);
}

/// Which types have a constructor, by number.
static DEFINED: [std::sync::atomic::AtomicBool; types::MAX_TYPES] = [const { std::sync::atomic::AtomicBool::new(false) }; types::MAX_TYPES];

/// How many types there were when constructors were last defined.
static DEFINED_UPTO: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

/// Defines, in `(opencog)`, the constructors of types registered since it
/// last looked (from Rust or Python: `load_types`, a store reading a
/// family's type, `--declare-unknown`), so Scheme sees every type. Cheap
/// when there are none. Must run in Guile mode.
pub(crate) fn define_new_types() {
    if types::type_count() > DEFINED_UPTO.load(Ordering::Relaxed) {
        // SAFETY: well-formed code over our own primitive, which does not throw.
        unsafe {
            ffi::scm_c_eval_string(
                c"(save-module-excursion (lambda () (set-current-module (resolve-module '(opencog))) ((@ (opencog) %atomweave-define-new-types))))".as_ptr(),
            )
        };
    }
}

/// Defines and exports a constructor per type of `types` in the current
/// module, under its long and short names.
/// With `again`, also those defined before: `(opencog)` defines every type's
/// (its extension may be loaded in more than one module, as when Guile
/// compiles it); a family's module or a later type gets one only where no
/// module has it yet, so that two modules a program uses never export the
/// same name.
fn define_constructors(types: impl IntoIterator<Item = Type>, again: bool) {
    let ctors = ctor_table();
    for t in types.into_iter().filter(|t| !DEFINED[t.id() as usize].swap(true, Ordering::Relaxed) || again) {
        let f = ctors.get(t.id() as usize).copied();
        for name in [Some(t.name()), t.short_name()].into_iter().flatten() {
            match f {
                Some(f) => define(name, 0, 0, 1, f),
                None => {
                    let code = CString::new(format!("(define ({name} . args) (apply cog-new-atom '{} args))", t.name())).expect("type names hold no NUL");
                    // SAFETY: well-formed code over a defined primitive; does not throw.
                    unsafe { ffi::scm_c_eval_string(code.as_ptr()) };
                    export(name);
                }
            }
        }
    }
}

fn define(name: &str, req: i32, opt: i32, rst: i32, f: Subr) {
    let c = CString::new(name).expect("names hold no NUL");
    // SAFETY: in Guile mode; `f` takes `req + opt` (+1 if `rst`) SCM arguments.
    unsafe { ffi::scm_c_define_gsubr(c.as_ptr(), req, opt, rst, f) };
    export(name);
}

fn export(name: &str) {
    let c = CString::new(name).expect("names hold no NUL");
    // SAFETY: a defined name in the current module; the list ends with NULL.
    unsafe { ffi::scm_c_export(c.as_ptr(), std::ptr::null::<std::ffi::c_char>()) };
}
