//! FilterLink: `(Filter PATTERN INPUT)` matches each item of its input (the
//! members of a SetLink or ListLink, of a LinkValue, or a lone atom or
//! value) against a pattern, and gives what matched, what the pattern's
//! variables took, or a Rule's rewrites of it.
//!
//! The pattern is a Lambda (declared variables, a body), a Rule (a body and
//! rewrites), a DefinedSchema naming one, or any other atom (its free
//! variables in order of first appearance). Matching is one-to-one over
//! ordered members (an unordered link's in their stored order), with globs
//! taking runs; items that are code are executed before they are compared.
//! Variables may take values that are not atoms (a FloatValue, a LinkValue):
//! rewrites compute with them ([`super::flow`]).

use super::flow::{self, Env};
use super::pattern::MAX_DEPTH;
use super::{bad, beta, describe, free_variables, type_of, HashMap};
use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, Value};

/// A filter's pattern, read once.
struct Scope {
    vars: Vec<Handle>,
    /// A variable's type restriction (the atom after it in a TypedVariableLink).
    restrict: HashMap<Handle, Handle>,
    body: Handle,
    rewrites: Vec<Handle>,
}

impl Scope {
    fn read(space: &AtomSpace, f: Handle) -> Result<Scope> {
        let f = beta::definition(space, f)?;
        let out = space.outgoing(f).unwrap_or(&[]);
        let mut scope = Scope { vars: Vec::new(), restrict: HashMap::default(), body: f, rewrites: Vec::new() };
        let is_decl = |h: Handle| {
            matches!(space.get_type(h), Some(types::VARIABLE_NODE | types::GLOB_NODE | types::TYPED_VARIABLE_LINK | types::VARIABLE_LIST | types::VARIABLE_SET))
        };
        match type_of(space, f)? {
            types::LAMBDA_LINK => match *out {
                [decl, body] => {
                    scope.declare(space, decl)?;
                    scope.body = body;
                }
                [body] => {
                    scope.vars = free_variables(space, body)?;
                    scope.body = body;
                }
                _ => return Err(bad(format!("{} must hold a variable declaration and a body", describe(space, f)))),
            },
            types::RULE_LINK => match out {
                [decl, body, rewrites @ ..] if is_decl(*decl) => {
                    scope.declare(space, *decl)?;
                    scope.body = *body;
                    scope.rewrites = rewrites.to_vec();
                }
                [body, rewrites @ ..] => {
                    scope.vars = free_variables(space, *body)?;
                    scope.body = *body;
                    scope.rewrites = rewrites.to_vec();
                }
                [] => return Err(bad(format!("{} must hold a pattern", describe(space, f)))),
            },
            _ => scope.vars = free_variables(space, f)?,
        }
        Ok(scope)
    }

    fn declare(&mut self, space: &AtomSpace, decl: Handle) -> Result<()> {
        let out = space.outgoing(decl).unwrap_or(&[]);
        match type_of(space, decl)? {
            types::VARIABLE_NODE | types::GLOB_NODE => self.vars.push(decl),
            types::TYPED_VARIABLE_LINK => {
                let [v, r] = *out else { return Err(bad(format!("{} must hold a variable and its type", describe(space, decl)))) };
                self.vars.push(v);
                self.restrict.insert(v, r);
            }
            types::VARIABLE_LIST | types::VARIABLE_SET => {
                for &m in out {
                    self.declare(space, m)?;
                }
            }
            _ => return Err(bad(format!("{} is not a variable declaration", describe(space, decl)))),
        }
        Ok(())
    }

    fn is_glob(&self, space: &AtomSpace, h: Handle) -> bool {
        space.get_type(h) == Some(types::GLOB_NODE) && self.vars.contains(&h)
    }
}

/// Executes `(Filter PATTERN INPUT)` with the variables of `env` bound.
/// `None`: a lone item that did not match.
pub(crate) fn filter(space: &AtomSpace, h: Handle, env: &Env, depth: usize) -> Result<Option<Value>> {
    let [f, input] = *space.outgoing(h).unwrap_or(&[]) else {
        return Err(bad(format!("{} must hold a pattern and what it filters", describe(space, h))));
    };
    let scope = Scope::read(space, f)?;
    let input = match env.get(&input) {
        Some(v) => v.clone(),
        None if type_of(space, input)?.is_a(types::EXECUTABLE_LINK) => flow::exec(space, input, env, depth + 1)?,
        None => Value::Atom(input),
    };
    // The rewrites see the outer bindings, under the pattern's own.
    let outer: Env = env.iter().filter(|(v, _)| !scope.vars.contains(v)).map(|(v, x)| (*v, x.clone())).collect();
    let one = |item: &Value| apply(space, &scope, item, &outer, depth);
    match input {
        Value::Link(_) | Value::Queue(_) => {
            let items = match input {
                Value::Link(vs) => vs.to_vec(),
                Value::Queue(q) => q.snapshot(),
                _ => unreachable!("matched above"),
            };
            let mut kept = Vec::new();
            for item in &items {
                kept.extend(one(item)?);
            }
            Ok(Some(Value::link(kept)))
        }
        Value::Atom(a) if matches!(space.get_type(a), Some(types::SET_LINK | types::LIST_LINK)) => {
            let mut kept = Vec::new();
            for &m in space.outgoing(a).unwrap_or(&[]) {
                if let Some(Value::Atom(r)) = one(&Value::Atom(m))? {
                    kept.push(r);
                }
            }
            Ok(Some(Value::Atom(space.add_link(type_of(space, a)?, &kept)?)))
        }
        item => one(&item),
    }
}

/// The filter applied to one item: `None` if it does not match.
fn apply(space: &AtomSpace, scope: &Scope, item: &Value, outer: &Env, depth: usize) -> Result<Option<Value>> {
    let mut b = Env::default();
    let mut m = Matcher { space, scope };
    if !m.matches(scope.body, item, &mut b, false, 0)? {
        return Ok(None);
    }
    let body_type = type_of(space, scope.body)?;
    if is_type_spec(body_type) {
        return Ok(Some(item.clone()));
    }
    let signature = body_type == types::LINK_SIGNATURE_LINK;
    if scope.rewrites.is_empty() {
        let mut vals: Vec<Value> = scope.vars.iter().filter_map(|v| b.get(v).cloned()).collect();
        return Ok(Some(match vals.len() {
            1 => vals.pop().expect("one"),
            _ if signature => {
                let Some(&kind) = space.outgoing(scope.body).and_then(|o| o.first()) else {
                    return Err(bad(format!("{} must name the type it builds", describe(space, scope.body))));
                };
                let kind = flow::named_type(space, kind)?;
                flow::build(space, kind, vals, scope.body)?
            }
            _ => {
                let atoms = vals.into_iter().map(|v| flow::atom_of(space, v, scope.body)).collect::<Result<Vec<_>>>()?;
                Value::Atom(space.add_link(types::LIST_LINK, &atoms)?)
            }
        }));
    }
    let mut env = outer.clone();
    env.extend(b);
    let mut results = Vec::with_capacity(scope.rewrites.len());
    for &r in &scope.rewrites {
        results.push(flow::exec(space, r, &env, depth + 1)?);
    }
    Ok(Some(match results.len() {
        1 => results.pop().expect("one"),
        _ if signature || results.iter().any(|v| !matches!(v, Value::Atom(_))) => Value::link(results),
        _ => {
            let atoms: Vec<Handle> = results.into_iter().filter_map(|v| if let Value::Atom(a) = v { Some(a) } else { None }).collect();
            Value::Atom(space.add_link(types::LIST_LINK, &atoms)?)
        }
    }))
}

/// Is an atom of this type a type specification (matched by an item's
/// type, giving the item itself)?
fn is_type_spec(t: Type) -> bool {
    t.is_a(types::TYPE_NODE) || t == types::TYPE_CHOICE || t == types::SIGNATURE_LINK
}

/// The type of an atom or value.
fn type_of_value(space: &AtomSpace, v: &Value) -> Option<Type> {
    match v {
        Value::Atom(a) => space.get_type(*a),
        v => Some(v.value_type()),
    }
}

/// The members of a link atom or a LinkValue.
fn members(space: &AtomSpace, v: &Value) -> Option<Vec<Value>> {
    match v {
        Value::Atom(a) if space.is_link(*a) => Some(space.outgoing(*a).unwrap_or(&[]).iter().map(|&m| Value::Atom(m)).collect()),
        Value::Link(vs) => Some(vs.to_vec()),
        Value::Queue(q) => Some(q.snapshot()),
        _ => None,
    }
}

struct Matcher<'a> {
    space: &'a AtomSpace,
    scope: &'a Scope,
}

impl Matcher<'_> {
    /// Does item `g` match pattern `p`, extending `b`? `quoted`: `p`'s
    /// variables are plain atoms here.
    fn matches(&mut self, p: Handle, g: &Value, b: &mut Env, quoted: bool, level: usize) -> Result<bool> {
        let space = self.space;
        if level > MAX_DEPTH {
            return Err(bad(format!("a filter's pattern or item nested more than {MAX_DEPTH} deep")));
        }
        if super::expired() {
            return Err(crate::Error::TimedOut);
        }
        if *g == Value::Atom(p) {
            return Ok(true);
        }
        // An item that is code is compared by what it gives.
        if let Value::Atom(a) = g {
            if type_of(space, *a)?.is_a(types::EXECUTABLE_LINK) {
                let r = flow::execute(space, *a)?;
                return Ok(r != *g && self.matches(p, &r, b, quoted, level + 1)?);
            }
        }
        let pt = type_of(space, p)?;
        if !quoted && is_type_spec(pt) {
            return type_ok(space, p, g, 0);
        }
        if !quoted && self.scope.vars.contains(&p) {
            if let Some(old) = b.get(&p) {
                return Ok(old == g);
            }
            if !self.allowed(p, g)? {
                return Ok(false);
            }
            let v = if pt == types::GLOB_NODE { self.run(std::slice::from_ref(g), matches!(g, Value::Atom(_)))? } else { g.clone() };
            b.insert(p, v);
            return Ok(true);
        }
        let out = space.outgoing(p).unwrap_or(&[]);
        match (pt, out) {
            (types::QUOTE_LINK, &[m]) if !quoted => self.matches(m, g, b, true, level + 1),
            (types::UNQUOTE_LINK, &[m]) if quoted => self.matches(m, g, b, false, level + 1),
            (types::LOCAL_QUOTE_LINK, &[m]) if !quoted => self.link(m, g, b, quoted, level + 1),
            (types::CHOICE_LINK, alternatives) if !quoted => {
                for &alt in alternatives {
                    let mut tried = b.clone();
                    if self.matches(alt, g, &mut tried, quoted, level + 1)? {
                        *b = tried;
                        return Ok(true);
                    }
                }
                Ok(false)
            }
            (types::STRING_OF_LINK, _) if !quoted => Ok(flow::execute(space, p)? == *g),
            _ if space.is_link(p) => self.link(p, g, b, quoted, level + 1),
            _ => Ok(false),
        }
    }

    /// Link pattern `p` (a LinkSignature: of the type it names) against `g`.
    fn link(&mut self, p: Handle, g: &Value, b: &mut Env, quoted: bool, level: usize) -> Result<bool> {
        let space = self.space;
        let pt = type_of(space, p)?;
        let out = space.outgoing(p).unwrap_or(&[]);
        let (want, elems) = match (pt, out) {
            (types::LINK_SIGNATURE_LINK, [kind, rest @ ..]) if !quoted => (flow::named_type(space, *kind)?, rest),
            _ => (pt, out),
        };
        if type_of_value(space, g) != Some(want) {
            return Ok(false);
        }
        let Some(seq) = members(space, g) else {
            // A lone value against a LinkSignature of one member: that member takes it.
            return match elems {
                [one] if pt == types::LINK_SIGNATURE_LINK => self.matches(*one, g, b, quoted, level + 1),
                _ => Ok(false),
            };
        };
        let atoms = matches!(g, Value::Atom(_));
        if quoted || !elems.iter().any(|&e| self.scope.is_glob(space, e)) {
            if seq.len() != elems.len() {
                return Ok(false);
            }
            for (&e, item) in elems.iter().zip(&seq) {
                if !self.matches(e, item, b, quoted, level + 1)? {
                    return Ok(false);
                }
            }
            return Ok(true);
        }
        self.globs(elems, &seq, atoms, b, level)
    }

    /// Pattern members with globs against a sequence: each glob takes one
    /// item or more, and stops where the next pattern member matches the
    /// next item (no backtracking, as upstream).
    fn globs(&mut self, elems: &[Handle], seq: &[Value], atoms: bool, b: &mut Env, level: usize) -> Result<bool> {
        let space = self.space;
        if seq.len() < elems.len() {
            return Ok(false);
        }
        let mut j = 0;
        for (i, &e) in elems.iter().enumerate() {
            if j >= seq.len() {
                return Ok(false);
            }
            if !self.scope.is_glob(space, e) {
                if !self.matches(e, &seq[j], b, false, level + 1)? {
                    return Ok(false);
                }
                j += 1;
                continue;
            }
            let (lo, hi) = self.bounds(e)?;
            let start = j;
            while j < seq.len() && j - start < hi {
                if j > start {
                    if let Some(&next) = elems.get(i + 1) {
                        let mut trial = b.clone();
                        if self.matches(next, &seq[j], &mut trial, false, level + 1)? {
                            break;
                        }
                    }
                }
                if !self.allowed(e, &seq[j])? {
                    break;
                }
                j += 1;
            }
            if j - start < lo.max(1) {
                return Ok(false);
            }
            let run = self.run(&seq[start..j], atoms)?;
            match b.get(&e) {
                Some(old) if *old != run => return Ok(false),
                Some(_) => {}
                None => {
                    b.insert(e, run);
                }
            }
        }
        Ok(j == seq.len())
    }

    /// A glob's run: a ListLink of atoms taken from a link, else a LinkValue.
    fn run(&self, items: &[Value], atoms: bool) -> Result<Value> {
        let handles: Option<Vec<Handle>> = items.iter().map(|v| if let Value::Atom(a) = v { Some(*a) } else { None }).collect();
        match handles {
            Some(hs) if atoms => Ok(Value::Atom(self.space.add_link(types::LIST_LINK, &hs)?)),
            _ => Ok(Value::link(items.to_vec())),
        }
    }

    /// A glob's least and most items: its IntervalLink's, else one or more.
    fn bounds(&self, glob: Handle) -> Result<(usize, usize)> {
        let space = self.space;
        let Some(&r) = self.scope.restrict.get(&glob) else { return Ok((1, usize::MAX)) };
        if space.get_type(r) != Some(types::INTERVAL_LINK) {
            return Ok((1, usize::MAX));
        }
        let bound = |n: Handle| super::eval::numbers_of(space, n).and_then(|v| v.first().copied());
        match *space.outgoing(r).unwrap_or(&[]) {
            [lo, hi] => match (bound(lo), bound(hi)) {
                (Some(lo), Some(hi)) if lo >= 0.0 => Ok((lo as usize, if hi < 0.0 { usize::MAX } else { hi as usize })),
                _ => Err(bad(format!("{} must hold two whole numbers", describe(space, r)))),
            },
            _ => Err(bad(format!("{} must hold two whole numbers", describe(space, r)))),
        }
    }

    /// Does `g` meet variable `v`'s type restriction?
    fn allowed(&self, v: Handle, g: &Value) -> Result<bool> {
        let space = self.space;
        let Some(&r) = self.scope.restrict.get(&v) else { return Ok(true) };
        let rt = type_of(space, r)?;
        if rt == types::INTERVAL_LINK {
            return Ok(true);
        }
        // Atom and Value restrict nothing.
        if rt == types::TYPE_NODE && matches!(flow::named_type(space, r)?, types::ATOM | types::VALUE) {
            return Ok(true);
        }
        type_ok(space, r, g, 0)
    }
}

/// Does `g` have the type `spec` specifies: a TypeNode or SignNode (that
/// type exactly), a TypeInhNode (it or a subtype), a TypeCoInhNode (it or
/// a supertype), a TypeChoice (any of them), a Signature (a shape)?
pub(crate) fn type_ok(space: &AtomSpace, spec: Handle, g: &Value, level: usize) -> Result<bool> {
    if level > MAX_DEPTH {
        return Err(bad(format!("a type specification nested more than {MAX_DEPTH} deep")));
    }
    let Some(gt) = type_of_value(space, g) else { return Ok(false) };
    let out = space.outgoing(spec).unwrap_or(&[]);
    Ok(match type_of(space, spec)? {
        // What a DefineLink names it.
        types::DEFINED_TYPE_NODE => {
            let def = space
                .incoming_by_type(spec, types::DEFINE_LINK)
                .into_iter()
                .find_map(|d| match space.outgoing(d)? {
                    [name, body] if *name == spec => Some(*body),
                    _ => None,
                })
                .ok_or_else(|| bad(format!("{} is not defined (no DefineLink names it)", describe(space, spec))))?;
            type_ok(space, def, g, level + 1)?
        }
        types::TYPE_INH_NODE => gt.is_a(flow::named_type(space, spec)?),
        types::TYPE_CO_INH_NODE => flow::named_type(space, spec)?.is_a(gt),
        t if t.is_a(types::TYPE_NODE) => gt == flow::named_type(space, spec)?,
        types::TYPE_CHOICE => {
            for &alt in out {
                if type_ok(space, alt, g, level + 1)? {
                    return Ok(true);
                }
            }
            false
        }
        types::SIGNATURE_LINK => match *out {
            [shape] => shaped(space, shape, g, level + 1)?,
            _ => return Err(bad(format!("{} must hold one shape", describe(space, spec)))),
        },
        _ => return Err(bad(format!("{} is not a type specification", describe(space, spec)))),
    })
}

/// Does `g` have the shape of a Signature's body: type specifications
/// where types are wanted, constant atoms where they must be, links (and
/// LinkSignatures, of a type or its subtypes) member by member?
fn shaped(space: &AtomSpace, shape: Handle, g: &Value, level: usize) -> Result<bool> {
    if level > MAX_DEPTH {
        return Err(bad(format!("a signature nested more than {MAX_DEPTH} deep")));
    }
    let st = type_of(space, shape)?;
    if is_type_spec(st) {
        return type_ok(space, shape, g, level + 1);
    }
    if !st.is_link() {
        return Ok(*g == Value::Atom(shape));
    }
    let out = space.outgoing(shape).unwrap_or(&[]);
    let (ok_type, elems) = match (st, out) {
        (types::LINK_SIGNATURE_LINK, [kind, rest @ ..]) => {
            (type_of_value(space, g).is_some_and(|gt| gt.is_a(flow::named_type(space, *kind).unwrap_or(types::NOTYPE))), rest)
        }
        _ => (type_of_value(space, g) == Some(st), out),
    };
    let Some(seq) = members(space, g).filter(|_| ok_type) else { return Ok(false) };
    if seq.len() != elems.len() {
        return Ok(false);
    }
    for (&e, item) in elems.iter().zip(&seq) {
        if !shaped(space, e, item, level + 1)? {
            return Ok(false);
        }
    }
    Ok(true)
}
