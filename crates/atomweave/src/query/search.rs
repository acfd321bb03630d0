//! The search: backtracking over clauses, each started from its cheapest
//! anchor (a constant or an already grounded variable) and grown up the
//! incoming sets to candidate groundings, which are then unified top-down.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use super::HashSet;
use rayon::prelude::*;
use smallvec::SmallVec;

use super::eval;
use super::found::{self, Found};
use super::pattern::{Clause, Kind, Pattern, Term, TermId};
use crate::error::Result;
use crate::{AtomSpace, Handle};

/// A variable's grounding.
#[derive(Clone, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) enum Val {
    One(Handle),
    Run(Box<[Handle]>),
}

/// Groundings of every variable, in declaration order (`None` for a
/// variable local to an AbsentLink).
pub(crate) type Grounding = SmallVec<[Option<Val>; 4]>;

/// A grounding in progress. Runs borrow the outgoing sets they cover; a
/// glob of an unordered link holds a bag (its members sorted): it matches
/// any order of them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Bound<'b> {
    One(Handle),
    Run(Cow<'b, [Handle]>),
    Bag(Vec<Handle>),
}

pub(crate) type Bindings<'b> = Vec<Option<Bound<'b>>>;

type K<'k, 'b> = &'k mut dyn FnMut(&mut Bindings<'b>) -> Flow;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Flow {
    Go,
    Stop,
}

/// First-clause candidates above which the search is split across threads:
/// two chunks of the smallest size at least. A candidate's work is often
/// large (a neighbour's incoming set read, for each neighbour of a gene in
/// the genomics loop's triangles, half of whose time went to genes of fewer
/// than 256 neighbours), and the split costs a few microseconds.
const PARALLEL_MIN: usize = 32;
/// [`PARALLEL_MIN`] for searches with evaluatable clauses.
const PARALLEL_MIN_EVALS: usize = 256;

pub(crate) struct Search<'a> {
    pub space: &'a AtomSpace,
    pub pat: &'a Pattern,
}

/// What a term stands for once the bindings are applied.
enum Ground {
    /// Every variable in it is grounded and this atom exists.
    Atom(Handle),
    /// Every variable is grounded but no such atom exists.
    Missing,
    /// Some variable, glob or choice is open.
    Open,
}

/// One step of a path down a term: a link term and a member position.
type Step = (TermId, usize);

/// What a clause search starts from.
pub(super) enum Anchor {
    Ground(Handle),
    Nothing,
    /// Walk up from this atom along the path of (link term, member position).
    Up(Handle, Vec<(TermId, usize)>),
    /// No anchor: scan atoms by type.
    Scan,
    /// A ChoiceLink clause: each choice from its own anchor.
    Choice(Vec<(TermId, Anchor)>),
}

pub(super) struct Ctx<'c> {
    pub alt: &'c [Clause],
    pub present: Vec<&'c Clause>,
    pub stop: AtomicBool,
    pub first_only: bool,
    /// This thread's `Limits::max_groundings`, read once per search.
    pub max_groundings: usize,
    /// Are there evaluatable clauses (to run as their variables are bound)?
    pub evals: bool,
}

impl<'a> Search<'a> {
    /// Every distinct grounding of the pattern (all alternatives), sorted,
    /// or just the first when `first_only`.
    pub fn groundings(&self, first_only: bool) -> Result<Vec<Grounding>> {
        super::with_stack(super::search_stack(self.pat.match_size), || self.groundings_here(first_only))
    }

    fn groundings_here(&self, first_only: bool) -> Result<Vec<Grounding>> {
        let mut all = Vec::new();
        for alt in &self.pat.alternatives {
            all.push(self.solve_alternative(alt, first_only)?);
            // A search stopped by its deadline may look complete.
            super::check_deadline()?;
            if first_only && all.last().is_some_and(|g| !g.is_empty()) {
                break;
            }
        }
        match all.len() {
            1 => Ok(all.pop().unwrap_or_default()),
            // Each alternative counted its own; their union is counted here.
            _ => found::joined(all.into_iter().map(Found::from).collect(), super::max_groundings()),
        }
    }

    /// The alternative's distinct groundings, sorted.
    fn solve_alternative(&self, alt: &[Clause], first_only: bool) -> Result<Vec<Grounding>> {
        let always: Vec<&Clause> = alt.iter().filter(|c| c.kind == Kind::Always).collect();
        let ctx = Ctx {
            alt,
            present: alt.iter().filter(|c| c.kind == Kind::Present).collect(),
            stop: AtomicBool::new(false),
            first_only: first_only && always.is_empty(),
            max_groundings: super::max_groundings(),
            evals: alt.iter().any(|c| c.kind == Kind::Eval),
        };
        let mut found = if ctx.present.is_empty() {
            // Nothing to search: the conditions alone decide.
            let mut b: Bindings = vec![None; self.pat.vars.len()];
            let mut out = Found::default();
            if self.evals_hold(&ctx, &b, None)? {
                self.finish(&ctx, &mut b, &mut out)?;
            }
            out.into_sorted(ctx.max_groundings)?
        } else if let Some(plan) = self.join_plan(&ctx) {
            self.join(&ctx, &plan)?
        } else {
            self.solve_top(&ctx)?
        };
        if !always.is_empty() {
            found = self.filter_always(&always, found)?;
        }
        Ok(found)
    }

    /// The first clause, over its candidates, in parallel when there are many.
    fn solve_top(&self, ctx: &Ctx<'_>) -> Result<Vec<Grounding>> {
        let empty: Bindings<'a> = vec![None; self.pat.vars.len()];
        let Some((ci, cands)) = self.next_clause(ctx, &empty, 0) else { return Ok(Vec::new()) };
        let run = |chunk: &[Handle]| -> Result<Found> {
            let mut b = empty.clone();
            let mut out = Found::default();
            for &cand in chunk {
                if ctx.stop.load(Ordering::Relaxed) || self.over(ctx, ci, cand, &mut b, 1 << ci, &mut out, None)? == Flow::Stop {
                    break;
                }
            }
            Ok(out)
        };
        // Conditions (grounded predicates, which may have effects) run on
        // one thread up to more candidates: their calls go in turns more often.
        let min = if ctx.evals { PARALLEL_MIN_EVALS } else { PARALLEL_MIN };
        if cands.len() < min || rayon::current_num_threads() < 2 || ctx.first_only {
            return run(&cands).and_then(|f| f.into_sorted(ctx.max_groundings));
        }
        let chunk = cands.len().div_ceil(rayon::current_num_threads() * 8).max(16);
        let parts = super::split(super::search_stack(self.pat.match_size), |inherited| {
            cands.par_chunks(chunk).map(|c| inherited.enter(|| run(c))).collect::<Result<Vec<Found>>>()
        })?;
        found::joined(parts, ctx.max_groundings)
    }

    /// Grounds present clause `ci` as `cand`, then the clauses after it;
    /// `before`: the variables bound before it (`None` for the first
    /// clause: no clause was evaluated yet).
    #[allow(clippy::too_many_arguments)]
    fn over(&self, ctx: &Ctx<'_>, ci: usize, cand: Handle, b: &mut Bindings<'a>, done: u64, out: &mut Found, before: Option<u64>) -> Result<Flow> {
        if self.pat.forbidden.contains(self.space, cand) {
            return Ok(Flow::Go);
        }
        let mut err = None;
        let flow = self.unify(ctx.present[ci].root, cand, b, &mut |b| match self.step(ctx, b, done, out, before) {
            Ok(f) => f,
            Err(e) => {
                err = Some(e);
                Flow::Stop
            }
        });
        err.map_or(Ok(flow), Err)
    }

    /// Grounds the remaining clauses (`done`: the present clauses grounded;
    /// `before`: the variables bound before the last one was).
    fn step(&self, ctx: &Ctx<'_>, b: &mut Bindings<'a>, done: u64, out: &mut Found, before: Option<u64>) -> Result<Flow> {
        if !self.evals_hold(ctx, b, before)? {
            return Ok(Flow::Go);
        }
        if done.count_ones() as usize == ctx.present.len() {
            return self.finish(ctx, b, out);
        }
        let Some((ci, cands)) = self.next_clause(ctx, b, done) else { return Ok(Flow::Go) };
        // The same for every candidate: read once.
        let bound = ctx.evals.then(|| bound_set(b));
        for cand in cands {
            if self.over(ctx, ci, cand, b, done | 1 << ci, out, bound)? == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Go)
    }

    /// Every present clause is grounded and the evaluatable ones hold:
    /// check the rest and keep the grounding.
    pub(super) fn finish(&self, ctx: &Ctx<'_>, b: &mut Bindings<'a>, out: &mut Found) -> Result<Flow> {
        for cl in ctx.alt.iter().filter(|c| c.kind == Kind::Absent) {
            if self.holds(cl, b)? {
                return Ok(Flow::Go);
            }
        }
        out.push(b.iter().map(|v| v.as_ref().map(Val::from)).collect(), ctx.max_groundings)?;
        if ctx.first_only {
            ctx.stop.store(true, Ordering::Relaxed);
            return Ok(Flow::Stop);
        }
        Ok(Flow::Go)
    }

    /// Do the evaluatable clauses whose variables are all grounded hold?
    /// Each is evaluated once per grounding: at the step that bound its
    /// last variable (those all bound `before` held already), so a grounded
    /// predicate with effects runs once for each grounding, as upstream's.
    pub(super) fn evals_hold(&self, ctx: &Ctx<'_>, b: &Bindings<'_>, before: Option<u64>) -> Result<bool> {
        if !ctx.evals {
            return Ok(true);
        }
        let bound = bound_set(b);
        let new = |vars: u64| before.is_none_or(|p| vars & !p != 0);
        for cl in ctx.alt.iter().filter(|c| c.kind == Kind::Eval && c.vars & !bound == 0 && new(c.vars)) {
            if !eval::truth(self.space, self.pat, cl.atom, b)? {
                return Ok(false);
            }
        }
        Ok(true)
    }

    /// Keeps the groups of groundings (by the variables outside the Always
    /// clauses) in which every grounding satisfies them.
    fn filter_always(&self, always: &[&Clause], mut found: Vec<Grounding>) -> Result<Vec<Grounding>> {
        let inside = always.iter().fold(0u64, |m, c| m | c.vars);
        let key = |g: &Grounding| -> Grounding { g.iter().enumerate().map(|(i, v)| if inside & (1 << i) == 0 { v.clone() } else { None }).collect() };
        let mut failed: HashSet<Grounding> = HashSet::default();
        for g in &found {
            let b: Bindings = g.iter().map(|v| v.as_ref().map(Bound::from)).collect();
            for c in always {
                if !self.holds(c, &b)? {
                    failed.insert(key(g));
                    break;
                }
            }
        }
        found.retain(|g| !failed.contains(&key(g)));
        Ok(found)
    }

    /// Does an Absent or Always clause hold under `b`: evaluated, or found in the space?
    fn holds(&self, cl: &Clause, b: &Bindings<'_>) -> Result<bool> {
        if cl.evaluated {
            return eval::truth(self.space, self.pat, cl.atom, b);
        }
        Ok(self.exists(cl.root, b))
    }

    /// Has term `t` a grounding that extends `b`? (Absent and Always clauses.)
    fn exists<'b>(&self, t: TermId, b: &Bindings<'b>) -> bool
    where
        'a: 'b,
    {
        let mut b = b.clone();
        let cands = self.expand(t, self.anchor(t, &b));
        cands.into_iter().any(|c| !self.pat.forbidden.contains(self.space, c) && self.unify(t, c, &mut b, &mut |_| Flow::Stop) == Flow::Stop)
    }

    /// The cheapest present clause still to ground, with its candidates.
    fn next_clause(&self, ctx: &Ctx<'_>, b: &Bindings<'_>, done: u64) -> Option<(usize, Vec<Handle>)> {
        let bound = bound_set(b);
        let mut best: Option<(usize, usize, Anchor)> = None;
        for (i, cl) in ctx.present.iter().enumerate() {
            if done & (1 << i) != 0 {
                continue;
            }
            let anchor = self.anchor(cl.root, b);
            // Clauses joined to what is grounded come first, then the thinnest start.
            let apart = if cl.vars & bound == 0 && bound != 0 { 1 << 30 } else { 0 };
            let cost = self.cost(&anchor, cl.root).saturating_add(apart);
            if best.as_ref().is_none_or(|&(_, c, _)| cost < c) {
                best = Some((i, cost, anchor));
            }
        }
        let (i, _, anchor) = best?;
        Some((i, self.expand(ctx.present[i].root, anchor)))
    }

    pub(super) fn cost(&self, anchor: &Anchor, root: TermId) -> usize {
        match anchor {
            Anchor::Choice(alts) => alts.iter().map(|(t, a)| self.cost(a, *t)).fold(0, usize::saturating_add),
            Anchor::Ground(_) | Anchor::Nothing => 0,
            // Over a store, counted to a million at most: a cost, not a size.
            Anchor::Up(h, _) => self.space.incoming_size_hint(*h, 1 << 20).max(1),
            Anchor::Scan => match self.pat.term(root) {
                Term::Link { ty, .. } => self.space.count_hint(Some(*ty)).saturating_add(1 << 24),
                _ => self.space.count_hint(None).saturating_add(1 << 26),
            },
        }
    }

    /// The thinnest anchor of term `root` under `b`.
    pub(super) fn anchor(&self, root: TermId, b: &Bindings<'_>) -> Anchor {
        if let Term::Choice(alts) = self.pat.term(root) {
            return Anchor::Choice(alts.iter().map(|&a| (a, self.anchor(a, b))).collect());
        }
        match self.ground(root, b) {
            // A clause with no variables is not present just because the query holds it.
            Ground::Atom(h) if matches!(self.pat.term(root), Term::Const(_)) && self.pat.only_in_query(self.space, h) => return Anchor::Nothing,
            Ground::Atom(h) => return Anchor::Ground(h),
            Ground::Missing => return Anchor::Nothing,
            Ground::Open => {}
        }
        // The atom with the thinnest incoming set, then the path down to it.
        let mut atoms: SmallVec<[Handle; 4]> = SmallVec::new();
        self.find_anchor(root, b, &mut Vec::new(), &mut |h, _| atoms.push(h));
        let Some(pick) = self.space.thinnest(&atoms) else { return Anchor::Scan };
        let (mut i, mut found) = (0, None);
        self.find_anchor(root, b, &mut Vec::new(), &mut |h, path| {
            if i == pick {
                found = Some(Anchor::Up(h, path.to_vec()));
            }
            i += 1;
        });
        found.expect("the same walk finds the same atoms")
    }

    /// Walks the term for constants and grounded variables, giving each
    /// with the path of links down to it, in one order every time.
    fn find_anchor(&self, t: TermId, b: &Bindings<'_>, path: &mut Vec<(TermId, usize)>, visit: &mut dyn FnMut(Handle, &[Step])) {
        let at = match self.pat.term(t) {
            Term::Link { kids, .. } => {
                for (i, &k) in kids.iter().enumerate() {
                    path.push((t, i));
                    self.find_anchor(k, b, path, visit);
                    path.pop();
                }
                return;
            }
            _ if path.is_empty() => return,
            // A grounded glob's first member is somewhere in its link.
            Term::Glob(v) => match &b[*v] {
                Some(Bound::One(h)) => *h,
                Some(Bound::Run(r)) if !r.is_empty() => r[0],
                Some(Bound::Bag(r)) if !r.is_empty() => r[0],
                _ => return,
            },
            _ => match self.ground(t, b) {
                Ground::Atom(h) => h,
                _ => return,
            },
        };
        visit(at, path);
    }

    /// Candidate groundings of `root` from its anchor.
    pub(super) fn expand(&self, root: TermId, anchor: Anchor) -> Vec<Handle> {
        match anchor {
            Anchor::Choice(alts) => {
                let mut all: Vec<Handle> = alts.into_iter().flat_map(|(t, a)| self.expand(t, a)).collect();
                all.sort_unstable();
                all.dedup();
                all
            }
            Anchor::Ground(h) => vec![h],
            Anchor::Nothing => Vec::new(),
            Anchor::Up(h, path) => {
                let mut level = vec![h];
                for &(t, pos) in path.iter().rev() {
                    let Term::Link { ty, kids, unordered, globs } = self.pat.term(t) else { unreachable!("paths run through links") };
                    let mut next = Vec::new();
                    for &x in &level {
                        let Some(inc) = self.space.incoming(x) else { continue };
                        self.space.prefetch(&inc);
                        for (j, &l) in inc.iter().enumerate() {
                            self.space.prefetch_ahead(&inc, j);
                            if self.space.get_type(l) != Some(*ty) || self.pat.forbidden.contains(self.space, l) {
                                continue;
                            }
                            if !unordered && !globs {
                                let out = self.space.outgoing(l).unwrap_or(&[]);
                                if out.len() != kids.len() || out[pos] != x {
                                    continue;
                                }
                            }
                            next.push(l);
                        }
                    }
                    // One atom's incoming set holds each link once.
                    if level.len() > 1 {
                        next.sort_unstable();
                        next.dedup();
                    }
                    level = next;
                }
                level
            }
            Anchor::Scan => {
                // A typed variable alone: the atoms of its types.
                if let Term::Var(v) = self.pat.term(root) {
                    if let Some(types) = self.pat.vars[*v].allowed_types() {
                        return types.flat_map(|t| self.space.handles_by_type(t, false)).filter(|h| !self.pat.forbidden.contains(self.space, *h)).collect();
                    }
                }
                let (t, sub) = match self.pat.term(root) {
                    Term::Link { ty, .. } => (*ty, false),
                    _ => (crate::types::ATOM, true),
                };
                self.space.handles_by_type(t, sub).filter(|h| !self.pat.forbidden.contains(self.space, *h)).collect()
            }
        }
    }

    /// The atom term `t` stands for under `b` (looked up, never added).
    fn ground(&self, t: TermId, b: &Bindings<'_>) -> Ground {
        match self.pat.term(t) {
            Term::Const(h) => Ground::Atom(*h),
            Term::Var(v) => match &b[*v] {
                Some(Bound::One(h)) => Ground::Atom(*h),
                _ => Ground::Open,
            },
            Term::Glob(_) | Term::Choice(_) => Ground::Open,
            Term::Link { ty, kids, unordered, .. } => {
                let mut out: SmallVec<[Handle; 4]> = SmallVec::new();
                let mut missing = false;
                for &k in kids {
                    if let Term::Glob(v) = self.pat.term(k) {
                        // A grounded glob stands for its run, spliced in (a
                        // bag has no order to splice into an ordered link).
                        match &b[*v] {
                            Some(Bound::One(h)) => out.push(*h),
                            Some(Bound::Run(r)) => out.extend_from_slice(r),
                            Some(Bound::Bag(r)) if *unordered => out.extend_from_slice(r),
                            _ => return Ground::Open,
                        }
                        continue;
                    }
                    match self.ground(k, b) {
                        Ground::Atom(h) => out.push(h),
                        Ground::Missing => missing = true,
                        Ground::Open => return Ground::Open,
                    }
                }
                match (missing, self.space.get_link(*ty, &out)) {
                    (false, Some(h)) => Ground::Atom(h),
                    _ => Ground::Missing,
                }
            }
        }
    }

    /// Matches term `t` against atom `a`, calling `k` for each way it matches.
    pub(crate) fn unify<'b>(&self, t: TermId, a: Handle, b: &mut Bindings<'b>, k: K<'_, 'b>) -> Flow
    where
        'a: 'b,
    {
        if super::expired() {
            return Flow::Stop;
        }
        match self.pat.term(t) {
            Term::Const(h) => {
                if *h == a {
                    k(b)
                } else {
                    Flow::Go
                }
            }
            Term::Var(v) | Term::Glob(v) => {
                let v = *v;
                match &b[v] {
                    Some(Bound::One(h)) if *h == a => k(b),
                    Some(Bound::Run(r)) if r[..] == [a] => k(b),
                    Some(Bound::Bag(r)) if r[..] == [a] => k(b),
                    Some(_) => Flow::Go,
                    None if !self.may_ground(v, a) => Flow::Go,
                    None => {
                        b[v] = Some(Bound::One(a));
                        let f = k(b);
                        b[v] = None;
                        f
                    }
                }
            }
            Term::Choice(alts) => {
                for &alt in alts {
                    if self.unify(alt, a, b, k) == Flow::Stop {
                        return Flow::Stop;
                    }
                }
                Flow::Go
            }
            Term::Link { ty, kids, unordered, globs } => {
                if self.space.get_type(a) != Some(*ty) {
                    return Flow::Go;
                }
                // A StateLink's state is its closed one: one holding a
                // variable (inside a PutLink's body, say) is no state.
                if *ty == crate::types::STATE_LINK && !self.space.is_closed(a) {
                    return Flow::Go;
                }
                let out: &'a [Handle] = self.space.outgoing(a).unwrap_or(&[]);
                if !unordered {
                    if *globs {
                        return self.glob_seq(kids, out, b, k);
                    }
                    return if out.len() == kids.len() { self.seq(kids, out, b, k) } else { Flow::Go };
                }
                let (plain, glob): (SmallVec<[TermId; 8]>, SmallVec<[TermId; 8]>) =
                    kids.iter().copied().partition(|&k| !matches!(self.pat.term(k), Term::Glob(_)));
                let fits = if glob.is_empty() { out.len() == plain.len() } else { out.len() >= plain.len() };
                if !fits {
                    return Flow::Go;
                }
                let mut used: SmallVec<[bool; 8]> = SmallVec::from_elem(false, out.len());
                // A constant takes a member equal to it, any one of them
                // (they are interchangeable): no search, and no stack.
                let (consts, open): (SmallVec<[TermId; 8]>, SmallVec<[TermId; 8]>) =
                    plain.iter().copied().partition(|&p| matches!(self.pat.term(p), Term::Const(_)));
                if !consts.is_empty() && !self.take_consts(&consts, out, &mut used) {
                    return Flow::Go;
                }
                self.perm(&open, glob.first().copied(), out, &mut used, b, k)
            }
        }
    }

    /// Marks a member of `out` used for each constant term in `consts`, as
    /// many times as it occurs; false when some constant has no member left.
    /// Sorted and merged: an unordered link may hold very many members.
    fn take_consts(&self, consts: &[TermId], out: &[Handle], used: &mut [bool]) -> bool {
        let mut want: Vec<Handle> = consts.iter().filter_map(|&c| if let Term::Const(h) = self.pat.term(c) { Some(*h) } else { None }).collect();
        want.sort_unstable();
        let mut have: Vec<(Handle, usize)> = out.iter().copied().zip(0..).collect();
        have.sort_unstable();
        let mut i = 0;
        for h in want {
            while i < have.len() && have[i].0 < h {
                i += 1;
            }
            if i == have.len() || have[i].0 != h {
                return false;
            }
            used[have[i].1] = true;
            i += 1;
        }
        true
    }

    pub(super) fn may_ground(&self, v: usize, a: Handle) -> bool {
        !self.pat.forbidden.contains(self.space, a) && self.space.get_type(a).is_some_and(|t| self.pat.vars[v].admits(self.space, a, t))
    }

    /// The leading constant terms of `kids` compared with `out` in place
    /// (a continuation each would take stack per member: see
    /// `MAX_MATCH_SIZE`): how many matched, or `None` on a mismatch.
    fn consts(&self, kids: &[TermId], out: &[Handle]) -> Option<usize> {
        let mut n = 0;
        for (&t, &a) in kids.iter().zip(out) {
            match self.pat.term(t) {
                Term::Const(h) if *h == a => n += 1,
                Term::Const(_) => return None,
                _ => break,
            }
        }
        Some(n)
    }

    /// Members in order, one term each.
    fn seq<'b>(&self, kids: &[TermId], out: &'b [Handle], b: &mut Bindings<'b>, k: K<'_, 'b>) -> Flow
    where
        'a: 'b,
    {
        // `out` is as long as `kids` here: compared in place, without
        // the bounds `consts` checks (this is the matcher's inner loop).
        let mut n = 0;
        while let Some(&t) = kids.get(n) {
            let Term::Const(h) = *self.pat.term(t) else { break };
            if h != out[n] {
                return Flow::Go;
            }
            n += 1;
        }
        match kids[n..].split_first() {
            None => k(b),
            Some((&t, rest)) => self.unify(t, out[n], b, &mut |b| self.seq(rest, &out[n + 1..], b, k)),
        }
    }

    /// Members in order, globs taking runs.
    fn glob_seq<'b>(&self, kids: &[TermId], out: &'b [Handle], b: &mut Bindings<'b>, k: K<'_, 'b>) -> Flow
    where
        'a: 'b,
    {
        let Some(n) = self.consts(kids, out) else { return Flow::Go };
        let (kids, out) = (&kids[n..], &out[n..]);
        let Some((&t, rest)) = kids.split_first() else {
            return if out.is_empty() { k(b) } else { Flow::Go };
        };
        let Term::Glob(v) = *self.pat.term(t) else {
            if out.is_empty() {
                return Flow::Go;
            }
            return self.unify(t, out[0], b, &mut |b| self.glob_seq(rest, &out[1..], b, k));
        };
        if let Some(Bound::Bag(r)) = &b[v] {
            // An ordered link fixes the order of a run an unordered one grounded.
            let n = r.len();
            if out.len() < n || !same_bag(&out[..n], r) {
                return Flow::Go;
            }
            let bag = b[v].replace(Bound::Run(Cow::Borrowed(&out[..n])));
            let f = self.glob_seq(rest, &out[n..], b, k);
            b[v] = bag;
            return f;
        }
        let taken = match &b[v] {
            Some(Bound::Run(r)) => out.starts_with(r).then_some(r.len()),
            Some(Bound::One(h)) => (out.first() == Some(h)).then_some(1),
            _ => None,
        };
        if let Some(n) = taken {
            return self.glob_seq(rest, &out[n..], b, k);
        }
        if b[v].is_some() {
            return Flow::Go;
        }
        let var = &self.pat.vars[v];
        let need: usize = rest.iter().map(|&r| if let Term::Glob(g) = self.pat.term(r) { self.pat.vars[*g].lo } else { 1 }).sum();
        let max = out.len().saturating_sub(need).min(var.hi);
        if (0..var.lo.min(out.len())).any(|i| !self.may_ground(v, out[i])) {
            return Flow::Go;
        }
        let mut n = var.lo;
        while n <= max {
            if n > var.lo && !self.may_ground(v, out[n - 1]) {
                break;
            }
            b[v] = Some(Bound::Run(Cow::Borrowed(&out[..n])));
            let f = self.glob_seq(rest, &out[n..], b, k);
            b[v] = None;
            if f == Flow::Stop {
                return Flow::Stop;
            }
            n += 1;
        }
        Flow::Go
    }

    /// Members of an unordered link: each plain term takes a distinct member
    /// (a member equal to one already tried at this step is skipped: it
    /// would give the same groundings), and a glob takes what is left.
    fn perm<'b>(&self, plain: &[TermId], glob: Option<TermId>, out: &'b [Handle], used: &mut SmallVec<[bool; 8]>, b: &mut Bindings<'b>, k: K<'_, 'b>) -> Flow
    where
        'a: 'b,
    {
        let Some((&t, rest)) = plain.split_first() else {
            return match glob {
                None => k(b),
                Some(g) => {
                    let left: Vec<Handle> = out.iter().zip(used.iter()).filter(|(_, &u)| !u).map(|(&h, _)| h).collect();
                    self.bind_rest(g, left, b, k)
                }
            };
        };
        let mut tried: SmallVec<[Handle; 8]> = SmallVec::new();
        for j in 0..out.len() {
            if used[j] || tried.contains(&out[j]) {
                continue;
            }
            tried.push(out[j]);
            used[j] = true;
            let f = self.unify(t, out[j], b, &mut |b| self.perm(rest, glob, out, used, b, k));
            used[j] = false;
            if f == Flow::Stop {
                return Flow::Stop;
            }
        }
        Flow::Go
    }

    /// Binds an unordered link's glob to the members no plain term took.
    fn bind_rest<'b>(&self, g: TermId, mut left: Vec<Handle>, b: &mut Bindings<'b>, k: K<'_, 'b>) -> Flow
    where
        'a: 'b,
    {
        let Term::Glob(v) = *self.pat.term(g) else { unreachable!("a glob term") };
        let var = &self.pat.vars[v];
        left.sort_unstable();
        if left.len() < var.lo || left.len() > var.hi || !left.iter().all(|&h| self.may_ground(v, h)) {
            return Flow::Go;
        }
        let same = match &b[v] {
            None => None,
            Some(Bound::Run(r)) => Some(same_bag(r, &left)),
            Some(Bound::Bag(r)) => Some(*r == left),
            Some(Bound::One(h)) => Some(left == [*h]),
        };
        match same {
            Some(true) => k(b),
            Some(false) => Flow::Go,
            None => {
                b[v] = Some(Bound::Bag(left));
                let f = k(b);
                b[v] = None;
                f
            }
        }
    }
}

/// Do `run` and the sorted `bag` hold the same atoms, as many times each?
fn same_bag(run: &[Handle], bag: &[Handle]) -> bool {
    let mut r = run.to_vec();
    r.sort_unstable();
    r == bag
}

pub(super) fn bound_set(b: &Bindings<'_>) -> u64 {
    b.iter().enumerate().filter(|(_, v)| v.is_some()).fold(0, |m, (i, _)| m | 1 << i)
}

impl From<&Bound<'_>> for Val {
    fn from(b: &Bound<'_>) -> Val {
        match b {
            Bound::One(h) => Val::One(*h),
            Bound::Run(r) => Val::Run(r[..].into()),
            Bound::Bag(r) => Val::Run(r[..].into()),
        }
    }
}

impl<'v> From<&'v Val> for Bound<'v> {
    fn from(v: &'v Val) -> Bound<'v> {
        match v {
            Val::One(h) => Bound::One(*h),
            Val::Run(r) => Bound::Run(Cow::Borrowed(r)),
        }
    }
}
