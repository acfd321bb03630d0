//! A rewrite built for many groundings at once, when building is all it
//! does: links of variables and constants, nothing run (no arithmetic, no
//! function or PutLink at its root, no DeleteLink), and no link added by
//! key (StateLink, GrantLink), whose order is its meaning.
//!
//! One link term at a time (members before the links that hold them), over
//! a batch of groundings, through the space's batch path
//! ([`AtomSpace::add_links`]): the cache misses of many links' lookups
//! overlap, where one grounding after another takes them one by one. A
//! query whose rewrite makes millions of links (a transitive step) spends
//! most of its time there. The atoms made are those [`eval::instantiate`]
//! makes grounding by grounding; only the order they are added in differs.
//!
//! [`eval::instantiate`]: super::eval::instantiate

use crate::batch::LinkBatch;
use crate::error::Result;
use crate::types;
use crate::{AtomSpace, Handle};

use super::eval::is_arithmetic;
use super::pattern::{Pattern, Term, TermId};
use super::search::{Grounding, Val};

/// Groundings built in one batch: enough to overlap many lookups' misses,
/// few enough that the shard locks a batch holds are not held for long.
const BATCH: usize = 4096;

/// How to build a plain rewrite: its link terms, members before the
/// links holding them, the rewrite last.
pub(super) struct Plan {
    order: Vec<TermId>,
    /// For each of `order`'s members: a link term's place in `order`.
    kid_places: Vec<Vec<Option<usize>>>,
}

/// The plan of rewrite `r`; `None` unless building it runs nothing.
pub(super) fn plan(pat: &Pattern, r: TermId) -> Option<Plan> {
    let order = link_terms(pat, r)?;
    let kid_places = order
        .iter()
        .map(|&t| match pat.term(t) {
            Term::Link { kids, .. } => kids.iter().map(|k| order.iter().position(|o| o == k)).collect(),
            _ => Vec::new(),
        })
        .collect();
    Some(Plan { order, kid_places })
}

/// The rewrite's atom for each of `groundings`, in their order.
pub(super) fn build(space: &AtomSpace, pat: &Pattern, plan: &Plan, groundings: &[Grounding]) -> Result<Vec<Handle>> {
    let mut roots = Vec::with_capacity(groundings.len());
    // Each link term's atoms for the batch's groundings, by its place in the plan.
    let mut made: Vec<Vec<Handle>> = vec![Vec::new(); plan.order.len()];
    let mut members = Vec::new();
    for chunk in groundings.chunks(BATCH) {
        super::check_deadline()?;
        for (at, &t) in plan.order.iter().enumerate() {
            let Term::Link { ty, kids, .. } = pat.term(t) else { unreachable!("a plan holds link terms") };
            let mut batch = LinkBatch::with_capacity(chunk.len(), chunk.len() * kids.len());
            for (i, g) in chunk.iter().enumerate() {
                members.clear();
                for (&k, place) in kids.iter().zip(&plan.kid_places[at]) {
                    match (pat.term(k), place) {
                        (_, Some(p)) => members.push(made[*p][i]),
                        (Term::Const(h), _) => members.push(*h),
                        (Term::Var(v) | Term::Glob(v), _) => match &g[*v] {
                            Some(Val::One(h)) => members.push(*h),
                            Some(Val::Run(run)) => members.extend_from_slice(run),
                            // Not grounded in this alternative: itself, as upstream.
                            None => members.push(pat.vars[*v].handle),
                        },
                        (Term::Link { .. } | Term::Choice(_), None) => unreachable!("a plan holds every link term, and no ChoiceLink"),
                    }
                }
                batch.push(*ty, &members);
            }
            made[at] = space.add_links(&batch)?;
        }
        roots.extend_from_slice(&made[plan.order.len() - 1]);
    }
    Ok(roots)
}

/// The link terms of rewrite `r`, members before the links holding them
/// (each once), `r` last; `None` unless building `r` runs nothing.
fn link_terms(pat: &Pattern, r: TermId) -> Option<Vec<TermId>> {
    let Term::Link { ty, .. } = pat.term(r) else { return None };
    if super::matching::runs_when_built(*ty) || *ty == types::DELETE_LINK {
        return None;
    }
    let mut order = Vec::new();
    // (term, its members pushed already): an explicit stack, for deep rewrites.
    let mut work = vec![(r, false)];
    while let Some((t, expanded)) = work.pop() {
        let Term::Link { ty, kids, .. } = pat.term(t) else { continue };
        if order.contains(&t) {
            continue;
        }
        if expanded {
            order.push(t);
            continue;
        }
        // A StateLink or GrantLink is added by key (a new state replaces,
        // and extracts, the one before): one grounding after another.
        if is_arithmetic(*ty) || ty.is_added_by_key() || kids.iter().any(|&k| matches!(pat.term(k), Term::Choice(_))) {
            return None;
        }
        work.push((t, true));
        work.extend(kids.iter().map(|&k| (k, false)));
    }
    Some(order)
}
