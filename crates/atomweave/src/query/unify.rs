//! Queries whose body is IdenticalLinks: `(Identical A B)` asks that A and
//! B be one atom, which binds variables by unification, not by search.
//! `(Get (Identical (Inheritance $X (Concept "B")) (Inheritance (Concept
//! "A") $Y)))` finds X = A, Y = B with nothing in the space.
//!
//! The clauses are unified first. A variable left free after that stands
//! in terms the space must hold: those terms are searched for (as present
//! clauses), and each grounding found completes the bindings. So
//! `(Identical $dog (Evaluation $prop (Concept "dog")))` finds every
//! `$prop` whose Evaluation is there, with `$dog` that Evaluation (a
//! ChoiceLink term: whichever of its alternatives is there).

use super::pattern::MAX_DEPTH;
use super::search::{Search, Val};
use super::{bad, beta, describe, pattern::Pattern, type_of, HashMap};
use crate::error::Result;
use crate::types;
use crate::{AtomSpace, Handle};

/// Bindings of variables to terms (which may hold variables).
type Subst = HashMap<Handle, Handle>;

/// The clauses of a body made of IdenticalLinks alone (one, or an AndLink
/// of them); empty for any other body.
fn clauses(space: &AtomSpace, body: Handle) -> Vec<Handle> {
    let clauses: Vec<Handle> = match space.get_type(body) {
        Some(types::IDENTICAL_LINK) => vec![body],
        Some(types::AND_LINK) => space.outgoing(body).unwrap_or(&[]).to_vec(),
        _ => return Vec::new(),
    };
    if clauses.iter().all(|&c| space.get_type(c) == Some(types::IDENTICAL_LINK)) {
        clauses
    } else {
        Vec::new()
    }
}

/// Is `body` IdenticalLinks alone, which [`solve`] solves?
pub(crate) fn applies(space: &AtomSpace, body: Handle) -> bool {
    !clauses(space, body).is_empty()
}

/// The groundings of a body made of IdenticalLinks ([`applies`]), one map
/// per solution, each declared variable bound to an atom of the space.
/// `decls` are the variables with their declarations (a TypedVariableLink
/// or the variable), in order.
pub(crate) fn solve(space: &AtomSpace, decls: &[(Handle, Handle)], body: Handle) -> Result<Vec<HashMap<Handle, Handle>>> {
    let vars: Vec<Handle> = decls.iter().map(|&(v, _)| v).collect();
    let vars = &vars[..];
    let clauses = clauses(space, body);
    let mut sols: Vec<Subst> = vec![Subst::default()];
    for &c in &clauses {
        let members = space.outgoing(c).unwrap_or(&[]);
        let Some((&first, rest)) = members.split_first() else { continue };
        for &other in rest {
            let mut next = Vec::new();
            for s in &sols {
                let mut found = Vec::new();
                unify(space, vars, first, other, s.clone(), 0, &mut found)?;
                next.extend(found);
            }
            sols = next;
        }
    }
    let mut out = Vec::new();
    for s in sols {
        out.extend(complete(space, decls, &s)?);
    }
    Ok(out)
}

/// Follows `x`'s binding in `s`, if it is a bound variable.
fn walk(vars: &[Handle], s: &Subst, mut x: Handle) -> Handle {
    while vars.contains(&x) {
        match s.get(&x) {
            Some(&y) if y != x => x = y,
            _ => break,
        }
    }
    x
}

/// Every way `a` and `b` unify under `s` (an unordered link's members in
/// any order), pushed to `found`.
fn unify(space: &AtomSpace, vars: &[Handle], a: Handle, b: Handle, mut s: Subst, depth: usize, found: &mut Vec<Subst>) -> Result<()> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("terms nested more than {MAX_DEPTH} deep")));
    }
    if super::expired() {
        return Err(crate::Error::TimedOut);
    }
    let (a, b) = (walk(vars, &s, a), walk(vars, &s, b));
    if a == b {
        found.push(s);
        return Ok(());
    }
    for (v, t) in [(a, b), (b, a)] {
        if vars.contains(&v) {
            if occurs(space, vars, &s, v, t) {
                return Ok(());
            }
            s.insert(v, t);
            found.push(s);
            return Ok(());
        }
    }
    let (ta, tb) = (type_of(space, a)?, type_of(space, b)?);
    let (oa, ob) = (space.outgoing(a).unwrap_or(&[]), space.outgoing(b).unwrap_or(&[]));
    if ta != tb || !space.is_link(a) || !space.is_link(b) || oa.len() != ob.len() {
        return Ok(());
    }
    if !ta.is_unordered() {
        return unify_seq(space, vars, oa, ob, s, depth, found);
    }
    // Every order of b's members against a's (unordered links are small).
    if oa.len() > 8 {
        return Err(bad(format!("{}: unifying unordered links of more than 8 members is not supported", describe(space, a))));
    }
    let mut perm: Vec<Handle> = ob.to_vec();
    permutations(&mut perm, 0, &mut |p| unify_seq(space, vars, oa, p, s.clone(), depth, found))
}

fn unify_seq(space: &AtomSpace, vars: &[Handle], xs: &[Handle], ys: &[Handle], s: Subst, depth: usize, found: &mut Vec<Subst>) -> Result<()> {
    let mut sols = vec![s];
    for (&x, &y) in xs.iter().zip(ys) {
        let mut next = Vec::new();
        for s in sols {
            unify(space, vars, x, y, s, depth + 1, &mut next)?;
        }
        sols = next;
    }
    found.extend(sols);
    Ok(())
}

fn permutations(v: &mut [Handle], k: usize, f: &mut dyn FnMut(&[Handle]) -> Result<()>) -> Result<()> {
    if k == v.len() {
        return f(v);
    }
    for i in k..v.len() {
        v.swap(k, i);
        permutations(v, k + 1, f)?;
        v.swap(k, i);
    }
    Ok(())
}

/// Does variable `v` occur in `t` (under `s`)? Binding it there would make
/// an infinite term.
fn occurs(space: &AtomSpace, vars: &[Handle], s: &Subst, v: Handle, t: Handle) -> bool {
    let mut seen = super::HashSet::default();
    let mut todo = vec![t];
    while let Some(x) = todo.pop() {
        let x = walk(vars, s, x);
        if x == v {
            return true;
        }
        if seen.insert(x) {
            todo.extend_from_slice(space.outgoing(x).unwrap_or(&[]));
        }
    }
    false
}

/// `t` with the bindings of `s` in place, all the way down (terms built
/// in `space`; a ChoiceLink kept, to be resolved against the space).
fn resolve(space: &AtomSpace, vars: &[Handle], s: &Subst, t: Handle, depth: usize, memo: &mut HashMap<Handle, Handle>) -> Result<Handle> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("terms nested more than {MAX_DEPTH} deep")));
    }
    let t = walk(vars, s, t);
    if let Some(&done) = memo.get(&t) {
        return Ok(done);
    }
    let ty = type_of(space, t)?;
    if !space.is_link(t) {
        return Ok(t);
    }
    let members = space.outgoing(t).unwrap_or(&[]).iter().map(|&m| resolve(space, vars, s, m, depth + 1, memo)).collect::<Result<Vec<_>>>()?;
    let built = space.add_link(ty, &members)?;
    memo.insert(t, built);
    Ok(built)
}

/// The groundings one unifier gives: itself, if it binds every variable
/// to a closed term; else one for each grounding, in the space, of the
/// terms that hold the variables left free.
fn complete(space: &AtomSpace, decls: &[(Handle, Handle)], s: &Subst) -> Result<Vec<HashMap<Handle, Handle>>> {
    let vars: Vec<Handle> = decls.iter().map(|&(v, _)| v).collect();
    let vars = &vars[..];
    // Resolved in a scratch frame: the terms with variables are patterns, not data.
    let scratch = AtomSpace::new_child(&[space])?;
    let mut memo = HashMap::default();
    let terms: Vec<(Handle, Handle)> = vars.iter().map(|&v| resolve(&scratch, vars, s, v, 0, &mut memo).map(|t| (v, t))).collect::<Result<_>>()?;
    let free: Vec<Handle> = vars.iter().copied().filter(|v| terms.iter().any(|&(_, t)| t == *v)).collect();
    let patterns: Vec<Handle> =
        terms.iter().filter(|&&(v, t)| t != v).map(|&(_, t)| t).filter(|&t| super::holds_any(&scratch, t, |x| free.contains(&x))).collect();
    if patterns.is_empty() {
        // Nothing to search: the unifier is the one solution, its terms built.
        let mut one = HashMap::default();
        for &(v, t) in &terms {
            one.insert(v, space.import(&scratch, t)?);
        }
        return Ok(vec![one]);
    }
    let mut clauses = patterns.clone();
    clauses.dedup();
    let body = scratch.add_link(types::PRESENT_LINK, &clauses)?;
    // The free variables keep their declarations (their types).
    let entries: Vec<Handle> = decls.iter().filter(|(v, _)| free.contains(v)).map(|&(_, e)| e).collect();
    let decl = scratch.add_link(types::VARIABLE_LIST, &entries)?;
    let pat = Pattern::compile(&scratch, body, Some(decl), body, &[])?;
    let mut out = Vec::new();
    for g in (Search { space: &scratch, pat: &pat }).groundings(false)? {
        let map: HashMap<Handle, Handle> = pat
            .vars
            .iter()
            .zip(&g)
            .filter_map(|(var, val)| match val {
                Some(Val::One(h)) => Some((var.handle, *h)),
                _ => None,
            })
            .collect();
        let mut one = HashMap::default();
        for &(v, t) in &terms {
            let x = match map.get(&v) {
                Some(&h) => h,
                None => present(space, &scratch, t, &map)?,
            };
            one.insert(v, x);
        }
        out.push(one);
    }
    Ok(out)
}

/// The atom of `space` that term `t` (of `scratch`) stands for under
/// `map`: a ChoiceLink, whichever alternative is there.
fn present(space: &AtomSpace, scratch: &AtomSpace, t: Handle, map: &HashMap<Handle, Handle>) -> Result<Handle> {
    if scratch.get_type(t) == Some(types::CHOICE_LINK) {
        for &alt in scratch.outgoing(t).unwrap_or(&[]) {
            if let Ok(x) = present(space, scratch, alt, map) {
                return Ok(x);
            }
        }
        return Err(bad(format!("no alternative of {} is there", describe(scratch, t))));
    }
    match beta::lookup(scratch, t, map)? {
        Some(x) => space.import(scratch, x),
        None => Err(bad(format!("{} is not there", describe(scratch, t)))),
    }
}
