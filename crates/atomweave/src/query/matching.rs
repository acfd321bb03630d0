//! The links that run the pattern matcher: GetLink, MeetLink,
//! SatisfactionLink, BindLink, QueryLink and DualLink, and how their
//! groundings become results (tuples, rewrites, groups, anchors).
//!
//! **Invariant:** results come out in a stable order (groundings sorted, `found.rs`),
//! the same on any number of threads; a query refused for its shape adds
//! nothing to the space.

use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle, Value};

use super::limits::MAX_NESTED;
use super::pattern::{self, is_vardecl_type, Pattern};
use super::search::{Bindings, Bound, Flow, Grounding, Search, Val};
use super::{
    bad, beta, check_deadline, crisp, describe, eval, free_variables, has_variables, instantiate, run, search_stack, type_of, unify, with_stack, Executed,
    HashMap, HashSet,
};
use smallvec::SmallVec;

/// One grounding's rewrites among the results: a Bind's all go into its
/// SetLink; a Query's several are one LinkValue.
fn add_rewrites(found: &mut Vec<Value>, built: Vec<Value>, bind: bool) {
    if built.len() == 1 || bind {
        found.extend(built);
    } else {
        found.push(Value::link(built));
    }
}

/// A rewrite built for one grounding; a function or a PutLink is then
/// run, as upstream's instantiator does. A BindLink's results go in a
/// SetLink, so they must be atoms. `None`: a DeleteLink, which deletes.
fn rewrite(space: &AtomSpace, pat: &Pattern, r: pattern::TermId, b: &Bindings<'_>, bind: bool) -> Result<Option<Value>> {
    run_rewrite(space, eval::instantiate(space, pat, r, b)?, bind)
}

/// A rewrite built: a function or a PutLink is run, and so is a function
/// it gives (a PutLink of a LambdaLink reduces to the lambda's body). A
/// DeleteLink extracts its members (recursively, as upstream's) and itself,
/// and gives nothing.
/// Whether a rewrite of type `t` is run once built (a FunctionLink's or
/// a PutLink's value is the rewrite's); a DeleteLink built deletes
/// instead. The batch builder (`instantiate.rs`) leaves both to this path.
pub(super) fn runs_when_built(t: Type) -> bool {
    t.is_a(types::FUNCTION_LINK) || t == types::PUT_LINK
}

fn run_rewrite(space: &AtomSpace, built: Handle, bind: bool) -> Result<Option<Value>> {
    if space.get_type(built) == Some(types::DELETE_LINK) {
        let members = space.outgoing(built).unwrap_or(&[]).to_vec();
        let _ = space.extract(built, false);
        for m in members {
            // Gone already, or a variable left open: as upstream, no error.
            if !has_variables(space, m)? {
                let _ = space.extract(m, true);
            }
        }
        return Ok(None);
    }
    let runs = |h: Handle| space.get_type(h).is_some_and(runs_when_built);
    if !runs(built) {
        return Ok(Some(Value::Atom(built)));
    }
    let value = |e: Executed| match e {
        Executed::Atom(h) => Value::Atom(h),
        Executed::Value(v) => v,
    };
    let mut result = value(run(space, built)?);
    for _ in 0..MAX_NESTED {
        match result {
            Value::Atom(h) if h != built && runs(h) => result = value(run(space, h)?),
            _ => break,
        }
    }
    match result {
        Value::Atom(h) => Ok(Some(Value::Atom(h))),
        v if bind => {
            Err(bad(format!("a BindLink's rewrite {} gives a {}, not an atom: a QueryLink gives values", describe(space, built), v.value_type().name())))
        }
        v => Ok(Some(v)),
    }
}

/// One result: the grounding of one variable; for several, a ListLink of
/// them added to the space (`as_atom`) or a LinkValue.
fn tuple(space: &AtomSpace, pat: &Pattern, wanted: &[usize], g: &Grounding, as_atom: bool) -> Result<Value> {
    // A variable this grounding's alternative does not ground: itself.
    let one = |i: usize| match &g[i] {
        Some(Val::One(h)) => Ok(*h),
        Some(Val::Run(r)) => space.add_link(types::LIST_LINK, r),
        None => Ok(pat.vars[i].handle),
    };
    match wanted {
        [i] => one(*i).map(Value::Atom),
        _ => {
            let members = wanted.iter().map(|&i| one(i)).collect::<Result<Vec<_>>>()?;
            if as_atom {
                return space.add_link(types::LIST_LINK, &members).map(Value::Atom);
            }
            Ok(Value::link(members.into_iter().map(Value::Atom).collect::<Vec<_>>()))
        }
    }
}

/// Results grouped as a GroupLink asks: one LinkValue per group of
/// groundings that agree on the group's variables (first met first), its
/// results without repeats, kept if the group's groundings number from its
/// least to its most.
fn grouped(group: &pattern::Group, groundings: &[Grounding], found: Vec<Value>) -> Vec<Value> {
    let mut order: Vec<Vec<Option<Val>>> = Vec::new();
    let mut members: HashMap<Vec<Option<Val>>, (usize, Vec<Value>)> = HashMap::default();
    for (g, v) in groundings.iter().zip(found) {
        let key: Vec<Option<Val>> = group.vars.iter().map(|&i| g[i].clone()).collect();
        let entry = members.entry(key.clone()).or_insert_with(|| {
            order.push(key);
            (0, Vec::new())
        });
        entry.0 += 1;
        if !entry.1.contains(&v) {
            entry.1.push(v);
        }
    }
    order.into_iter().filter_map(|k| members.remove(&k)).filter(|(n, _)| (group.lo..=group.hi).contains(n)).map(|(_, vs)| Value::link(vs)).collect()
}

/// A query's variables with their declarations, in order: declared, or
/// the body's free ones.
fn declarations(space: &AtomSpace, vardecl: Option<Handle>, body: Handle) -> Result<Vec<(Handle, Handle)>> {
    let Some(d) = vardecl else { return Ok(free_variables(space, body)?.into_iter().map(|v| (v, v)).collect()) };
    let decls = beta::declarations(space, d);
    if let Some(&(v, _)) = decls.iter().find(|&&(v, _)| !matches!(space.get_type(v), Some(types::VARIABLE_NODE | types::GLOB_NODE))) {
        return Err(bad(format!("{} declares {}, which is not a variable", describe(space, d), describe(space, v))));
    }
    Ok(decls)
}

/// One result of a solved body: a variable's atom, or for several, a
/// ListLink of them (`as_atom`) or a LinkValue.
fn solved_tuple(space: &AtomSpace, vars: &[(Handle, Handle)], m: &HashMap<Handle, Handle>, as_atom: bool) -> Result<Value> {
    let atoms =
        vars.iter().map(|(v, _)| m.get(v).copied().ok_or_else(|| bad(format!("variable {} is not bound", describe(space, *v))))).collect::<Result<Vec<_>>>()?;
    Ok(match atoms[..] {
        [one] => Value::Atom(one),
        _ if as_atom => Value::Atom(space.add_link(types::LIST_LINK, &atoms)?),
        _ => Value::link(atoms.into_iter().map(Value::Atom).collect::<Vec<_>>()),
    })
}

/// A SetLink of the results added to the space (they are atoms), or a
/// QueueValue of them, as upstream's Meet and Query give.
fn deliver(space: &AtomSpace, as_set: bool, mut found: Vec<Value>) -> Result<Executed> {
    // Atoms and LinkValues of atoms are kept once, by their handles; other
    // values (computed by a rewrite) are all kept.
    let mut atoms: HashSet<Handle> = HashSet::default();
    let mut lists: HashSet<SmallVec<[Handle; 4]>> = HashSet::default();
    let atoms_of = |vs: &[Value]| vs.iter().map(|x| if let Value::Atom(h) = x { Some(*h) } else { None }).collect::<Option<SmallVec<_>>>();
    found.retain(|v| match v {
        Value::Atom(h) => atoms.insert(*h),
        Value::Link(vs) => atoms_of(vs).is_none_or(|k| lists.insert(k)),
        _ => true,
    });
    if as_set {
        let atoms: Vec<Handle> = found.iter().filter_map(|v| if let Value::Atom(h) = v { Some(*h) } else { None }).collect();
        return Ok(Executed::Atom(space.add_link(types::SET_LINK, &atoms)?));
    }
    Ok(Executed::Value(Value::Queue(crate::QueueValue::new(found))))
}

/// The patterns in the space (links of `term`'s type holding variables)
/// that `term` grounds, each matched whole against it.
fn dual(space: &AtomSpace, query: Handle, term: Handle) -> Result<Vec<Handle>> {
    let t = type_of(space, term)?;
    let own = pattern::own_links(space, &[query]);
    let mut holders: HashSet<Handle> = HashSet::default();
    let mut work: Vec<Handle> = space.handles_by_type(types::VARIABLE_NODE, true).collect();
    while let Some(h) = work.pop() {
        for l in space.incoming(h).into_iter().flatten() {
            if holders.insert(l) {
                work.push(l);
            }
        }
    }
    let mut found = Vec::new();
    for p in holders.into_iter().filter(|&p| p != term && !own.contains(&p) && space.get_type(p) == Some(t)) {
        let Ok((pat, root)) = Pattern::compile_term(space, p) else { continue };
        if pat.vars.is_empty() {
            continue;
        }
        let mut b: Bindings = vec![None; pat.vars.len()];
        let matched = with_stack(search_stack(pat.match_size), || (Search { space, pat: &pat }).unify(root, term, &mut b, &mut |_| Flow::Stop));
        if matched == Flow::Stop {
            found.push(p);
        }
    }
    check_deadline()?;
    found.sort_unstable();
    Ok(found)
}

/// GetLink, MeetLink, SatisfactionLink: the body's groundings, as a
/// SetLink, a LinkValue or a verdict; on an anchor, each in a MemberLink.
pub(super) fn get(space: &AtomSpace, query: Handle, t: Type, out: &[Handle]) -> Result<Executed> {
    let (vardecl, body) = match *out {
        [body] => (None, body),
        [decl, body] => (Some(decl), body),
        _ => return Err(bad(format!("{} must hold a body, after an optional variable declaration", describe(space, query)))),
    };
    if unify::applies(space, body) {
        let sols = unify::solve(space, &declarations(space, vardecl, body)?, body)?;
        if t == types::SATISFACTION_LINK {
            return Ok(Executed::Value(Value::Truth(crisp(!sols.is_empty()))));
        }
        let vars = declarations(space, vardecl, body)?;
        let get = t == types::GET_LINK;
        let found = sols.iter().map(|m| solved_tuple(space, &vars, m, get)).collect::<Result<Vec<_>>>()?;
        return deliver(space, get, found);
    }
    let pat = Pattern::compile(space, query, vardecl, body, &[])?;
    let search = Search { space, pat: &pat };
    // Anchored: every grounding goes on the anchor, in a MemberLink
    // (several variables' in a ListLink, in declaration order).
    if let Some(anchor) = pat.anchor {
        let results = search.groundings(false)?;
        let wanted: Vec<usize> = (0..pat.vars.len()).filter(|&i| pat.grounded & (1 << i) != 0 && !pat.vars[i].hidden).collect();
        for g in &results {
            let Value::Atom(member) = tuple(space, &pat, &wanted, g, true)? else {
                return Err(bad(format!("{}: a grounding that is a value cannot go on an anchor", describe(space, query))));
            };
            space.add_link(types::MEMBER_LINK, &[member, anchor])?;
        }
        return Ok(match t {
            types::SATISFACTION_LINK => Executed::Value(Value::Truth(crisp(!results.is_empty()))),
            _ => Executed::Atom(anchor),
        });
    }
    if t == types::SATISFACTION_LINK {
        let found = !search.groundings(true)?.is_empty();
        return Ok(Executed::Value(Value::Truth(crisp(found))));
    }
    let results = search.groundings(false)?;
    if pat.group.is_some() && t != types::MEET_LINK {
        return Err(bad(format!("{}: a GroupLink groups the results of a MeetLink or a QueryLink", describe(space, query))));
    }
    let wanted: Vec<usize> = (0..pat.vars.len()).filter(|&i| pat.grounded & (1 << i) != 0 && !pat.vars[i].hidden).collect();
    // A Get's tuple is a ListLink of the space; a Meet's, a LinkValue.
    let get = t == types::GET_LINK;
    let found = results.iter().map(|g| tuple(space, &pat, &wanted, g, get)).collect::<Result<Vec<_>>>()?;
    if let Some(group) = &pat.group {
        return deliver(space, false, grouped(group, &results, found));
    }
    deliver(space, get, found)
}

/// BindLink, QueryLink: each grounding's rewrites, as a SetLink or a
/// LinkValue.
pub(super) fn bind(space: &AtomSpace, query: Handle, t: Type, out: &[Handle]) -> Result<Executed> {
    let declared = out.first().map(|&d| type_of(space, d)).transpose()?.is_some_and(is_vardecl_type);
    let (vardecl, body, rewrites) = match out {
        [decl, body, rewrites @ ..] if declared && !rewrites.is_empty() => (Some(*decl), *body, rewrites),
        [body, rewrites @ ..] if !declared && !rewrites.is_empty() => (None, *body, rewrites),
        _ => return Err(bad(format!("{} must hold a body and a rewrite, after an optional variable declaration", describe(space, query)))),
    };
    let bind = t == types::BIND_LINK;
    if unify::applies(space, body) {
        let sols = unify::solve(space, &declarations(space, vardecl, body)?, body)?;
        let mut found = Vec::with_capacity(sols.len());
        for m in &sols {
            let built = rewrites.iter().map(|&r| run_rewrite(space, beta::substitute_consuming(space, r, m)?, bind)).collect::<Result<Vec<_>>>()?;
            let built = built.into_iter().flatten().collect();
            add_rewrites(&mut found, built, bind);
        }
        return deliver(space, bind, found);
    }
    let pat = Pattern::compile(space, query, vardecl, body, rewrites)?;
    if pat.group.is_some() && bind {
        return Err(bad(format!("{}: a GroupLink groups the results of a MeetLink or a QueryLink", describe(space, query))));
    }
    let results = Search { space, pat: &pat }.groundings(false)?;
    let mut found = Vec::with_capacity(results.len());
    let plans: Option<Vec<instantiate::Plan>> = pat.rewrites.iter().map(|&r| instantiate::plan(&pat, r)).collect();
    if let Some(plans) = plans {
        // Building is all the rewrites do: in batches.
        let built = plans.iter().map(|p| instantiate::build(space, &pat, p, &results)).collect::<Result<Vec<_>>>()?;
        for i in 0..results.len() {
            add_rewrites(&mut found, built.iter().map(|b| Value::Atom(b[i])).collect(), bind);
        }
    } else {
        for g in &results {
            let b: Bindings = g.iter().map(|v| v.as_ref().map(Bound::from)).collect();
            let built = pat.rewrites.iter().map(|&r| rewrite(space, &pat, r, &b, bind)).collect::<Result<Vec<_>>>()?;
            // Not a BindLink here when grouped: one result per grounding.
            add_rewrites(&mut found, built.into_iter().flatten().collect(), bind);
        }
    }
    if let Some(group) = &pat.group {
        return deliver(space, false, grouped(group, &results, found));
    }
    deliver(space, bind, found)
}

/// DualLink: the patterns in the space (links holding variables) that
/// its term grounds.
pub(super) fn run_dual(space: &AtomSpace, query: Handle, out: &[Handle]) -> Result<Executed> {
    let [term] = *out else { return Err(bad(format!("{} must hold one term", describe(space, query)))) };
    deliver(space, true, dual(space, query, term)?.into_iter().map(Value::Atom).collect())
}
