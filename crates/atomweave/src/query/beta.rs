//! Beta reduction: a LambdaLink applied to arguments (directly, or named by
//! a DefinedSchemaNode through its DefineLink), as an ExecutionOutputLink
//! applies it. The body is copied with each declared variable replaced by
//! its argument; what is quoted (QuoteLink) is copied as it is.

use super::{bad, describe, pattern::MAX_DEPTH, run_reduced, Executed, HashMap};
use crate::error::Result;
use crate::types;
use crate::{AtomSpace, Handle, Value};

/// What a schema or predicate stands for: itself, or the body a
/// DefineLink gives a DefinedSchemaNode or DefinedPredicateNode.
pub(crate) fn definition(space: &AtomSpace, schema: Handle) -> Result<Handle> {
    if !space.get_type(schema).is_some_and(|t| t.is_a(types::DEFINED_PROCEDURE_NODE) || t == types::DEFINED_PREDICATE_NODE) {
        return Ok(schema);
    }
    let defines = space.incoming_by_type(schema, types::DEFINE_LINK);
    defines
        .iter()
        .find_map(|&d| match space.outgoing(d)? {
            [name, body] if *name == schema => Some(*body),
            _ => None,
        })
        .ok_or_else(|| bad(format!("{} is not defined (no DefineLink names it)", describe(space, schema))))
}

/// Each variable a declaration declares, in order, with its entry (its
/// TypedVariableLink, or itself).
pub(crate) fn declarations(space: &AtomSpace, decl: Handle) -> Vec<(Handle, Handle)> {
    // An entry's variable: a TypedVariableLink's first member, else the entry.
    let var = |e: Handle| match space.get_type(e) {
        Some(types::TYPED_VARIABLE_LINK) => space.outgoing(e).and_then(|o| o.first().copied()).unwrap_or(e),
        _ => e,
    };
    match space.get_type(decl) {
        Some(types::VARIABLE_LIST | types::VARIABLE_SET) => space.outgoing(decl).unwrap_or(&[]).iter().map(|&e| (var(e), e)).collect(),
        _ => vec![(var(decl), decl)],
    }
}

/// `h` with the variables of `map` replaced, its quotes consumed (the
/// quoted atom built), added to the space: a rewrite's instantiation.
pub(crate) fn substitute_consuming(space: &AtomSpace, h: Handle, map: &HashMap<Handle, Handle>) -> Result<Handle> {
    substitute_in(space, h, map, 0, &mut HashMap::default(), Quotes::Consume, false)
}

/// The variables a declaration declares, in order.
fn declared(space: &AtomSpace, decl: Handle) -> Vec<Handle> {
    declarations(space, decl).into_iter().map(|(v, _)| v).collect()
}

/// `lambda` applied to `args`: its body with the arguments in place of its
/// variables, added to the space.
pub(crate) fn apply(space: &AtomSpace, lambda: Handle, args: &[Handle]) -> Result<Handle> {
    if space.get_type(lambda) != Some(types::LAMBDA_LINK) {
        return Err(bad(format!(
            "{} is not a LambdaLink: only a LambdaLink, a DefinedSchemaNode defined as one, or a GroundedSchemaNode is executed",
            describe(space, lambda)
        )));
    }
    let (body, map) = bindings(space, lambda, args)?;
    substitute(space, body, &map)
}

/// The body `f` applies to arguments, and its variables bound to `args`:
/// a LambdaLink's declared ones, or any other term's free variables in
/// order of first appearance (upstream's Evaluation of a pattern).
pub(crate) fn bindings(space: &AtomSpace, f: Handle, args: &[Handle]) -> Result<(Handle, HashMap<Handle, Handle>)> {
    let (vars, body) = match (space.get_type(f), space.outgoing(f).unwrap_or(&[])) {
        (Some(types::LAMBDA_LINK), &[decl, body]) => (declared(space, decl), body),
        (Some(types::LAMBDA_LINK), &[body]) => (super::free_variables(space, body)?, body),
        (Some(types::LAMBDA_LINK), _) => return Err(bad(format!("{} must hold a variable declaration and a body", describe(space, f)))),
        // A scope without a declaration (a FormulaPredicate): the variables
        // of its members, in order of first appearance, are its parameters.
        (Some(t), out) if t.is_a(types::SCOPE_LINK) => {
            let mut vars = Vec::new();
            for &m in out {
                for v in super::free_variables(space, m)? {
                    if !vars.contains(&v) {
                        vars.push(v);
                    }
                }
            }
            (vars, f)
        }
        _ => (super::free_variables(space, f)?, f),
    };
    // Code with no parameters ignores its arguments, as upstream's does.
    if vars.is_empty() && space.get_type(f) != Some(types::LAMBDA_LINK) {
        return Ok((body, HashMap::default()));
    }
    if vars.len() != args.len() {
        return Err(bad(format!("{} takes {} arguments, but {} were given", describe(space, f), vars.len(), args.len())));
    }
    Ok((body, vars.into_iter().zip(args.iter().copied()).collect()))
}

/// What a PutLink gives: its body with the variables (declared, else the
/// body's free ones) replaced by the arguments, one result per member of a
/// SetLink of arguments (a ListLink for several variables). A body that is
/// a DeleteLink extracts the atoms it names instead (recursively), giving
/// nothing, as upstream's. `None` for one result means deleted; with
/// whether the arguments were a set (then the results go in a SetLink).
pub(crate) fn put(space: &AtomSpace, put: Handle) -> Result<(Vec<Option<Handle>>, bool)> {
    let out = space.outgoing(put).unwrap_or(&[]);
    let (vars, body, args) = match *out {
        // A DefinedSchema or a LambdaLink: its own variables.
        [f, args] if matches!(space.get_type(definition(space, f)?), Some(types::LAMBDA_LINK)) => {
            let lambda = definition(space, f)?;
            match *space.outgoing(lambda).unwrap_or(&[]) {
                [decl, body] => (declared(space, decl), body, args),
                [body] => (super::free_variables(space, body)?, body, args),
                _ => return Err(bad(format!("{} must hold a variable declaration and a body", describe(space, lambda)))),
            }
        }
        [body, args] => (super::free_variables(space, body)?, body, args),
        [decl, body, args] => (declared(space, decl), body, args),
        _ => return Err(bad(format!("{} must hold a body and its arguments, after an optional variable declaration", describe(space, put)))),
    };
    // Arguments that are code (a GetLink, a function) are run first.
    let args = match space.get_type(args) {
        Some(t) if t.is_a(types::SATISFYING_LINK) || t.is_a(types::FUNCTION_LINK) || t == types::PUT_LINK => match super::execute(space, args)? {
            super::Executed::Atom(h) => h,
            super::Executed::Value(_) => return Err(bad(format!("{}: its arguments give a value, not atoms", describe(space, put)))),
        },
        _ => args,
    };
    let set = space.get_type(args) == Some(types::SET_LINK);
    let tuples: Vec<Handle> = if set { space.outgoing(args).unwrap_or(&[]).to_vec() } else { vec![args] };
    let mut results = Vec::with_capacity(tuples.len());
    for tuple in tuples {
        let values: Vec<Handle> =
            if vars.len() != 1 && space.get_type(tuple) == Some(types::LIST_LINK) { space.outgoing(tuple).unwrap_or(&[]).to_vec() } else { vec![tuple] };
        if values.len() != vars.len() {
            return Err(bad(format!("{} takes {} arguments, but {} were given", describe(space, put), vars.len(), values.len())));
        }
        let map: HashMap<Handle, Handle> = vars.iter().copied().zip(values).collect();
        if space.get_type(body) == Some(types::DELETE_LINK) {
            for &m in space.outgoing(body).unwrap_or(&[]) {
                if let Some(x) = lookup(space, m, &map)? {
                    // Gone already, or held by links that go with it: as upstream.
                    let _ = space.extract(x, true);
                }
            }
            results.push(None);
        } else {
            results.push(Some(substitute_in(space, body, &map, 0, &mut HashMap::default(), Quotes::Consume, false)?));
        }
    }
    Ok((results, set))
}

/// `h` with the variables of `map` replaced, added to the space.
pub(crate) fn substitute(space: &AtomSpace, h: Handle, map: &HashMap<Handle, Handle>) -> Result<Handle> {
    substitute_in(space, h, map, 0, &mut HashMap::default(), Quotes::Keep, false)
}

/// `h` with the variables of `map` replaced, if the space holds that atom
/// (nothing is added).
pub(crate) fn lookup(space: &AtomSpace, h: Handle, map: &HashMap<Handle, Handle>) -> Result<Option<Handle>> {
    lookup_in(space, h, map, 0, &mut HashMap::default())
}

/// [`lookup`] at `depth`, with a memo of the members already looked up
/// (a member shared by several is looked up once).
fn lookup_in(space: &AtomSpace, h: Handle, map: &HashMap<Handle, Handle>, depth: usize, memo: &mut HashMap<Handle, Option<Handle>>) -> Result<Option<Handle>> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("a lambda body nested more than {MAX_DEPTH} deep")));
    }
    if let Some(&a) = map.get(&h) {
        return Ok(Some(a));
    }
    let t = space.get_type(h).ok_or(crate::Error::InvalidHandle(h))?;
    // By the record: a foreign AST's leaf is a node of a link type.
    if !space.is_link(h) || t == types::QUOTE_LINK {
        return Ok(Some(h));
    }
    if let Some(&known) = memo.get(&h) {
        return Ok(known);
    }
    let out = space.outgoing(h).unwrap_or(&[]);
    let mut members = Vec::with_capacity(out.len());
    for &m in out {
        match lookup_in(space, m, map, depth + 1, memo)? {
            Some(x) => members.push(x),
            None => break,
        }
    }
    // A member missing: so is the link.
    let found = if members.len() == out.len() { space.get_link(t, &members) } else { None };
    memo.insert(h, found);
    Ok(found)
}

/// How a substitution treats QuoteLinks: a lambda's body keeps what is
/// quoted as it is; a PutLink consumes its quotes (the quoted atom is
/// built, unquoted parts substituted), as upstream's does.
#[derive(Copy, Clone, PartialEq, Eq)]
enum Quotes {
    Keep,
    Consume,
}

fn substitute_in(
    space: &AtomSpace,
    h: Handle,
    map: &HashMap<Handle, Handle>,
    depth: usize,
    memo: &mut HashMap<(Handle, bool), Handle>,
    quotes: Quotes,
    quoted: bool,
) -> Result<Handle> {
    if depth > MAX_DEPTH {
        return Err(bad(format!("a lambda body nested more than {MAX_DEPTH} deep")));
    }
    if !quoted {
        if let Some(&a) = map.get(&h) {
            return Ok(a);
        }
    }
    if let Some(&done) = memo.get(&(h, quoted)) {
        return Ok(done);
    }
    let t = space.get_type(h).ok_or(crate::Error::InvalidHandle(h))?;
    let out = space.outgoing(h).unwrap_or(&[]);
    let consumed = match (quotes, t, out) {
        (Quotes::Keep, types::QUOTE_LINK, _) => return Ok(h),
        (Quotes::Consume, types::QUOTE_LINK, &[m]) if !quoted => Some(substitute_in(space, m, map, depth + 1, memo, quotes, true)?),
        (Quotes::Consume, types::UNQUOTE_LINK, &[m]) if quoted => Some(substitute_in(space, m, map, depth + 1, memo, quotes, false)?),
        _ => None,
    };
    if let Some(x) = consumed {
        memo.insert((h, quoted), x);
        return Ok(x);
    }
    if !space.is_link(h) {
        return Ok(h);
    }
    let mut members = Vec::with_capacity(out.len());
    for &m in out {
        members.push(substitute_in(space, m, map, depth + 1, memo, quotes, quoted)?);
    }
    let built = space.add_link(t, &members)?;
    memo.insert((h, quoted), built);
    Ok(built)
}

/// `(VardeclOf RULE)`, `(PremiseOf RULE [N])`, `(ConclusionOf RULE [N])`:
/// a rule's variable declaration (as written, or its premise's free
/// variables), or its premise (the N-th member of it) or N-th conclusion
/// as a LambdaLink over the declared variables it uses, added to the space.
pub(crate) fn rule_part(space: &AtomSpace, h: Handle) -> Result<Handle> {
    let t = space.get_type(h).ok_or(crate::Error::InvalidHandle(h))?;
    let out = space.outgoing(h).unwrap_or(&[]);
    let (rule, index) = match *out {
        [r] => (r, None),
        [r, n] if t != types::VARDECL_OF_LINK => {
            let i = match super::eval::numbers_of(space, n).as_deref() {
                Some(&[x]) if x >= 0.0 && x.is_finite() => (x + 0.5) as usize,
                _ => return Err(bad(format!("{}: the index must be one NumberNode, 0 or more", describe(space, h)))),
            };
            (r, Some(i))
        }
        _ => return Err(bad(format!("{} must hold a rule, and optionally an index", describe(space, h)))),
    };
    let rule = definition(space, rule)?;
    let parts = space.outgoing(rule).unwrap_or(&[]);
    if !space.get_type(rule).is_some_and(|r| r.is_a(types::PRENEX_LINK) || r == types::RULE_LINK) || parts.is_empty() {
        return Err(bad(format!("{}: {} is not a rule", describe(space, h), describe(space, rule))));
    }
    let is_decl = |d: Handle| {
        matches!(space.get_type(d), Some(types::VARIABLE_LIST | types::VARIABLE_SET | types::TYPED_VARIABLE_LINK | types::VARIABLE_NODE | types::GLOB_NODE))
    };
    let (decl, body, conclusions) = match parts {
        [d, body, rest @ ..] if is_decl(*d) => (Some(*d), *body, rest),
        [body, rest @ ..] => (None, *body, rest),
        [] => unreachable!("checked above"),
    };
    // Each declared variable with its declaration (TypedVariable or itself).
    let entries: Vec<(Handle, Handle)> = match decl {
        Some(d) => declarations(space, d),
        None => super::free_variables(space, body)?.into_iter().map(|v| (v, v)).collect(),
    };
    let as_decl = |entries: &[(Handle, Handle)]| -> Result<Handle> {
        match entries {
            [(_, e)] => Ok(*e),
            _ => space.add_link(types::VARIABLE_LIST, &entries.iter().map(|(_, e)| *e).collect::<Vec<_>>()),
        }
    };
    if t == types::VARDECL_OF_LINK {
        return match decl {
            Some(d) => Ok(d),
            None => as_decl(&entries),
        };
    }
    let pick = |within: &[Handle], what: &str| -> Result<Handle> {
        let i = index.unwrap_or(0);
        within.get(i).copied().ok_or_else(|| bad(format!("{}: index {i} is out of range: the rule has {} {what}", describe(space, h), within.len())))
    };
    let term = match (t, index) {
        (types::PREMISE_OF_LINK, None) => body,
        (types::PREMISE_OF_LINK, Some(_)) => pick(space.outgoing(body).unwrap_or(&[]), "premises")?,
        _ => pick(conclusions, "conclusions")?,
    };
    let used = super::free_variables(space, term)?;
    let kept: Vec<(Handle, Handle)> = entries.into_iter().filter(|(v, _)| used.contains(v)).collect();
    if kept.is_empty() {
        return space.add_link(types::LAMBDA_LINK, &[term]);
    }
    let decl = as_decl(&kept)?;
    space.add_link(types::LAMBDA_LINK, &[decl, term])
}

/// PutLink executed: the body with the arguments in place, run; for a
/// SetLink of arguments, a SetLink of the results.
pub(super) fn execute_put(space: &AtomSpace, query: Handle) -> Result<Executed> {
    let (results, set_args) = put(space, query)?;
    let kept: Vec<Handle> = results.iter().flatten().copied().collect();
    match (set_args, kept.as_slice()) {
        (true, _) => {
            let mut ran = Vec::with_capacity(kept.len());
            for &r in &kept {
                ran.push(match run_reduced(space, r)? {
                    Executed::Atom(h) => h,
                    Executed::Value(_) => return Err(bad(format!("{}: a member of its set of results gives a value, not an atom", describe(space, query)))),
                });
            }
            Ok(Executed::Atom(space.add_link(types::SET_LINK, &ran)?))
        }
        (false, [one]) => run_reduced(space, *one),
        (false, _) => Ok(Executed::Value(Value::Void)),
    }
}
