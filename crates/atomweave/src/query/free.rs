//! Free variables: the VariableNodes and GlobNodes in an atom that no
//! scope inside it binds, as upstream's `FreeVariables` finds them. What
//! Scheme's `cog-free-variables` and `cog-closed?` and Python's
//! `get_free_variables` and `is_closed` answer; not the matcher's notion of
//! a query's variables (see [`pattern`](super::pattern)).

use smallvec::SmallVec;

use super::pattern::is_vardecl_type;
use crate::{types, AtomSpace, Error, Handle, Result};

/// The free variables of `h`, each once, in order of first appearance. A
/// scope (a ScopeLink: Lambda, Get, Bind, ForAll, ...) binds the variables
/// its declaration names within its body; one without a declaration binds
/// every variable in it. Quoted variables are not variables.
pub fn free_variables(space: &AtomSpace, h: Handle) -> Result<Vec<Handle>> {
    // Variables bound by the scopes around a place: a chain of frames.
    let mut frames: Vec<(Option<usize>, SmallVec<[Handle; 4]>)> = Vec::new();
    let bound = |frames: &[(Option<usize>, SmallVec<[Handle; 4]>)], mut at: Option<usize>, v: Handle| {
        while let Some(i) = at {
            if frames[i].1.contains(&v) {
                return true;
            }
            at = frames[i].0;
        }
        false
    };
    let mut free = Vec::new();
    // An explicit stack: atoms may nest deeper than a thread's stack allows;
    // and a memo: a member shared in one place (quoted or not, in one
    // scope) is walked once, not once per path to it.
    let mut todo: Vec<(Handle, bool, Option<usize>)> = vec![(h, false, None)];
    let mut seen: super::HashSet<(Handle, bool, Option<usize>)> = Default::default();
    while let Some((x, quoted, scope)) = todo.pop() {
        if !seen.insert((x, quoted, scope)) {
            continue;
        }
        let t = space.get_type(x).ok_or(Error::InvalidHandle(x))?;
        if matches!(t, types::VARIABLE_NODE | types::GLOB_NODE) {
            if !quoted && !bound(&frames, scope, x) && !free.contains(&x) {
                free.push(x);
            }
            continue;
        }
        let out = space.outgoing(x).unwrap_or(&[]);
        let (quoted, scope, body) = match t {
            types::QUOTE_LINK if !quoted => (true, scope, out),
            types::UNQUOTE_LINK if quoted => (false, scope, out),
            _ if !quoted && t.is_a(types::SCOPE_LINK) => match out.split_first() {
                Some((&decl, body)) if space.get_type(decl).is_some_and(is_vardecl_type) => {
                    frames.push((scope, declared(space, decl)));
                    (false, Some(frames.len() - 1), body)
                }
                // No declaration: the scope binds every variable in it.
                _ => continue,
            },
            _ => (quoted, scope, out),
        };
        // Pushed in reverse, so that they are met in order.
        todo.extend(body.iter().rev().map(|&m| (m, quoted, scope)));
    }
    Ok(free)
}

/// The variables scope link `h` binds: those its declaration names, or
/// without one, those free in its body (upstream's PutLink and LambdaLink
/// bind their body's variables so).
pub(crate) fn bound_by_scope(space: &AtomSpace, h: Handle) -> Result<SmallVec<[Handle; 4]>> {
    match space.outgoing(h).unwrap_or(&[]) {
        [decl, ..] if space.get_type(*decl).is_some_and(is_vardecl_type) => Ok(declared(space, *decl)),
        [body, ..] => Ok(free_variables(space, *body)?.into_iter().collect()),
        [] => Ok(SmallVec::new()),
    }
}

/// The variables a declaration (a variable, a TypedVariableLink, a
/// VariableList or VariableSet of these) names.
pub(crate) fn declared(space: &AtomSpace, decl: Handle) -> SmallVec<[Handle; 4]> {
    let mut vars = SmallVec::new();
    let mut todo = vec![decl];
    while let Some(d) = todo.pop() {
        match space.get_type(d) {
            Some(types::VARIABLE_NODE | types::GLOB_NODE) => vars.push(d),
            Some(types::TYPED_VARIABLE_LINK) => todo.extend(space.outgoing(d).and_then(|o| o.first()).copied()),
            Some(types::VARIABLE_LIST | types::VARIABLE_SET) => todo.extend(space.outgoing(d).unwrap_or(&[]).iter().rev()),
            _ => {}
        }
    }
    vars
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sexpr;

    fn free(text: &str) -> Vec<String> {
        let space = AtomSpace::new();
        let h = sexpr::load_str(&mut &space, text).unwrap()[0];
        free_variables(&space, h).unwrap().into_iter().map(|v| space.name(v).unwrap().to_string()).collect()
    }

    #[test]
    fn variables_outside_every_scope_are_free_in_order() {
        assert_eq!(free(r#"(Inheritance (Concept "A") (Concept "B"))"#), Vec::<String>::new());
        assert_eq!(free(r#"(List (Variable "$y") (Inheritance (Variable "$x") (Variable "$y")) (Glob "$g"))"#), ["$y", "$x", "$g"]);
    }

    #[test]
    fn a_scope_binds_what_it_declares_and_only_inside_it() {
        assert_eq!(free(r#"(Lambda (Variable "$x") (Inheritance (Variable "$x") (Variable "$y")))"#), ["$y"]);
        assert_eq!(
            free(
                r#"(List (Variable "$x") (Get (VariableList (TypedVariable (Variable "$x") (Type "ConceptNode")) (Variable "$z")) (And (Variable "$x") (Variable "$z") (Variable "$w"))))"#
            ),
            ["$x", "$w"]
        );
        // No declaration: every variable inside is bound.
        assert_eq!(free(r#"(Get (Inheritance (Variable "$x") (Concept "B")))"#), Vec::<String>::new());
    }

    #[test]
    fn quoted_variables_are_not_variables_until_unquoted() {
        assert_eq!(free(r#"(List (Quote (Variable "$q")) (Quote (Unquote (Variable "$u"))))"#), ["$u"]);
        // A quoted scope is not a scope.
        assert_eq!(free(r#"(Quote (Lambda (Variable "$x") (Unquote (Variable "$x"))))"#), ["$x"]);
    }
}
