//! Worst-case-optimal joins (generic join) for conjunctions whose clauses
//! close a cycle over their variables: triangles, cliques, cycles.
//!
//! The backtracking search in `search.rs` grounds one clause at a time and
//! probes the next from what it bound; on a cycle that enumerates every
//! path around it only to discard most at the closing clause. Here the
//! variables are bound one at a time instead, in a planned order, each to
//! the intersection of the candidate lists of the clauses that hold it,
//! under the variables bound so far. A clause's list for a variable is
//! read up the incoming set of the clause's thinnest anchor (a constant or
//! a bound variable) and matched as the backtracking search would, then
//! kept (up to [`MEMO_MAX`] atoms) keyed by the clause's shape: clauses
//! alike up to the names of their variables (the three edges of a
//! triangle) share their lists. A clause whose every grounding is read
//! anyway (a list with nothing bound) is indexed whole, once, for every
//! list the search will want of it.
//!
//! What the join does not cover stays with the backtracking search: globs,
//! choices, types in the pattern (SignNodes), clauses without variables;
//! and, as the matcher chooses ([`Strategy::Auto`]), conditions that may
//! have effects. Absent, Always and evaluatable clauses are checked as
//! there (`finish`, `filter_always`, `evals_hold`), so the groundings are
//! the same; a condition is evaluated on the partial groundings each search
//! reaches, so one that fails with an error on some may fail in one search
//! and not the other. [`Strategy`] chooses per query and lets tests compare
//! the two.

use std::cell::Cell;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use rayon::prelude::*;
use smallvec::SmallVec;

use super::found::{self, Found};
use super::pattern::{Clause, Kind, Term, TermId};
use super::search::{bound_set, Anchor, Bindings, Bound, Ctx, Flow, Grounding, Search};
use super::{HashMap, HashSet};
use crate::error::Result;
use crate::Handle;

/// How conjunctions of clauses are searched.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Strategy {
    /// The join for conjunctions whose clauses close a cycle, backtracking
    /// for the rest.
    #[default]
    Auto,
    /// Backtracking over clauses, always.
    Backtrack,
    /// The join wherever it applies, cyclic or not.
    Join,
}

thread_local! {
    static STRATEGY: Cell<Strategy> = const { Cell::new(Strategy::Auto) };
}

/// Runs `f` with `strategy` for the queries it executes on this thread: to
/// compare the two searches, or to force one. The groundings are the same
/// either way (see the module documentation for conditions); only the time
/// differs.
pub fn with_strategy<R>(strategy: Strategy, f: impl FnOnce() -> R) -> R {
    struct Restore(Strategy);
    impl Drop for Restore {
        fn drop(&mut self) {
            STRATEGY.set(self.0);
        }
    }
    let _restore = Restore(STRATEGY.replace(strategy));
    f()
}

/// This thread's strategy (the threads of a split search take their starter's).
pub(super) fn strategy() -> Strategy {
    STRATEGY.get()
}

/// First-variable candidates above which the join is split across threads.
const PARALLEL_MIN: usize = 64;
/// Candidates above which reading a whole clause is split.
const PARALLEL_ROWS: usize = 8192;
/// Rows above which packing and sorting them is split: below, the other
/// thread's wake-up and the merging cost more than they save (100,000
/// rows sorted in 1.0 ms on one thread, 1.1-1.3 ms on two).
const PARALLEL_SORT: usize = 1 << 18;
/// Most atoms the whole-clause indexes of one join hold: 256 M, 1 GB.
const ARENA_MAX: usize = 1 << 28;
/// Atoms a thread's kept candidate lists (and those the threads share) may
/// hold before they are dropped or no more are kept (the search goes on,
/// reading lists again): 16 M, 64 MB; also the most atoms a whole clause is
/// read into for its indexes.
const MEMO_MAX: usize = 1 << 24;
/// Shards of the lists the threads of a split join share.
const SHARDS: usize = 64;

/// A planned join of one conjunction.
pub(super) struct Plan {
    /// Variables in the order they are bound.
    order: Vec<usize>,
    /// Per present clause: its shape and its variables by slot (the order
    /// of first occurrence).
    shapes: Vec<(u32, SmallVec<[usize; 4]>)>,
    /// Per step: the clauses whose lists are intersected.
    steps: Vec<SmallVec<[Part; 4]>>,
    /// Per step: the lists to read once its variable is bound, as (step,
    /// position among that step's parts).
    ready: Vec<SmallVec<[(usize, usize); 4]>>,
    /// Per shape: the lists its clauses' parts read, as (slot, bound slots).
    needs: Vec<SmallVec<[(u8, u64); 4]>>,
}

/// A clause's part in a step: the list it gives of the step's variable.
#[derive(Clone, Copy)]
struct Part {
    clause: usize,
    /// The step after which the list is known (`None`: from the start).
    after: Option<usize>,
    /// The variable's slot in the clause, and the slots bound before it.
    slot: u8,
    bound: u64,
}

/// Most bound slots a kept list's key holds; a part with more reads its
/// list each time.
const KEY_VALS: usize = 3;

/// What a list is kept under: the clause's shape, the slot of the variable
/// listed, which slots were bound and to what (in slot order).
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
struct Key {
    shape: u32,
    slot: u8,
    bound: u64,
    vals: [Handle; KEY_VALS],
}

/// A candidate list: in the prebuilt indexes, or kept by a memo.
#[derive(Clone)]
enum List<'m> {
    Prebuilt(&'m [Handle]),
    Kept(Arc<[Handle]>),
}

impl std::ops::Deref for List<'_> {
    type Target = [Handle];
    fn deref(&self) -> &[Handle] {
        match self {
            List::Prebuilt(l) => l,
            List::Kept(l) => l,
        }
    }
}

/// Whole indexes of clause shapes whose every grounding was read (a
/// list with nothing bound needs that anyway): for each list their
/// clauses' parts read, every list at once. Built before a join splits
/// across threads, then only read.
#[derive(Default)]
struct Prebuilt {
    /// Per (shape, slot, bound slots): its lists, by the atoms of the
    /// bound slots. A list missing is empty.
    indexes: HashMap<(u32, u8, u64), Index>,
    arena: Vec<Handle>,
}

/// The lists of one index: sorted keys, and where each key's list starts
/// in the arena (it ends where the next one starts). Built in one pass
/// over sorted groundings. A lookup is a binary search, or for keys of one
/// atom whose handles are dense enough, one read of `direct`.
#[derive(Default)]
struct Index {
    keys: Vec<[Handle; KEY_VALS]>,
    starts: Vec<u32>,
    /// By handle: the key's place plus one (0: none).
    direct: Vec<u32>,
}

impl Index {
    fn find(&self, vals: &[Handle; KEY_VALS]) -> Option<usize> {
        if self.direct.is_empty() {
            return self.keys.binary_search(vals).ok();
        }
        self.direct.get(vals[0].0 as usize).filter(|&&at| at != 0).map(|&at| at as usize - 1)
    }
}

impl Prebuilt {
    fn list<'m>(&'m self, index: &Index, vals: &[Handle; KEY_VALS]) -> List<'m> {
        List::Prebuilt(match index.find(vals) {
            Some(i) => &self.arena[index.starts[i] as usize..index.starts[i + 1] as usize],
            None => &[],
        })
    }

    /// Adds the lists of `packed` (sorted keys and atoms, each key's atoms
    /// a list) as index `which` and gives its keys' first atoms, in order.
    /// `index_whole` keeps the arena within ARENA_MAX atoms.
    fn add_grouped<T: Copy>(&mut self, packed: &[T], key: impl Fn(T) -> u128, atom: impl Fn(T) -> Handle, which: (u32, u8, u64), width: usize) -> Vec<Handle> {
        let mut index = Index::default();
        let mut vals = [Handle(0); KEY_VALS];
        let mut last = None;
        self.arena.reserve(packed.len());
        for &p in packed {
            let k = key(p);
            if last != Some(k) {
                for (i, v) in vals.iter_mut().take(width).enumerate() {
                    *v = Handle((k >> (32 * (width - 1 - i))) as u32);
                }
                index.keys.push(vals);
                index.starts.push(self.arena.len() as u32);
                last = Some(k);
            }
            self.arena.push(atom(p));
        }
        index.starts.push(self.arena.len() as u32);
        // A table by handle costs at most 8 bytes a grounding here.
        let top = index.keys.last().map_or(0, |k| k[0].0 as usize);
        if width == 1 && top < 2 * packed.len() {
            index.direct = vec![0; top + 1];
            for (i, k) in index.keys.iter().enumerate() {
                index.direct[k[0].0 as usize] = i as u32 + 1;
            }
        }
        let firsts = index.keys.iter().map(|k| k[0]).collect();
        self.indexes.insert(which, index);
        firsts
    }
}

/// Packs each row of `n` atoms, across threads when there are many.
fn pack<T: Send>(rows: &[Handle], n: usize, f: impl Fn(&[Handle]) -> T + Sync + Send) -> Vec<T> {
    if rows.len() / n >= PARALLEL_SORT && rayon::current_num_threads() > 1 {
        rows.par_chunks_exact(n).map(f).collect()
    } else {
        rows.chunks_exact(n).map(f).collect()
    }
}

/// Sorts and removes repeats, across threads when long.
fn sort_dedup<T: Ord + Send>(v: &mut Vec<T>) {
    if v.len() >= PARALLEL_SORT && rayon::current_num_threads() > 1 {
        v.par_sort_unstable();
    } else {
        v.sort_unstable();
    }
    v.dedup();
}

/// What a variable is bound to, as one atom (the join binds no runs).
fn bound_one(b: &Bindings<'_>, v: usize) -> Handle {
    match &b[v] {
        Some(Bound::One(h)) => *h,
        _ => unreachable!("a grounding binds every variable of its clause to one atom"),
    }
}

/// Lists shared by the threads of a split join.
struct Shared {
    shards: Vec<Mutex<HashMap<Key, Arc<[Handle]>>>>,
    held: std::sync::atomic::AtomicUsize,
}

/// One thread's kept lists, in front of the shared ones.
struct Memo<'m> {
    local: HashMap<Key, Arc<[Handle]>>,
    held: usize,
    shared: Option<&'m Shared>,
}

impl<'m> Memo<'m> {
    fn get(&mut self, key: Key, read: impl FnOnce() -> Vec<Handle>) -> List<'m> {
        if let Some(l) = self.local.get(&key) {
            return List::Kept(l.clone());
        }
        let shard = self.shared.map(|s| (s, foldhash_of(&key) % SHARDS));
        if let Some((s, i)) = shard {
            if let Some(l) = s.shards[i].lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
                self.keep(key, l.clone());
                return List::Kept(l.clone());
            }
        }
        let l: Arc<[Handle]> = read().into();
        if let Some((s, i)) = shard {
            if s.held.fetch_add(l.len(), Ordering::Relaxed) < MEMO_MAX {
                s.shards[i].lock().unwrap_or_else(|e| e.into_inner()).insert(key, l.clone());
            }
        }
        self.keep(key, l.clone());
        List::Kept(l)
    }

    fn keep(&mut self, key: Key, l: Arc<[Handle]>) {
        self.held += l.len() + 8;
        if self.held > MEMO_MAX {
            self.local.clear();
            self.held = l.len() + 8;
        }
        self.local.insert(key, l);
    }
}

fn foldhash_of(key: &Key) -> usize {
    use std::hash::BuildHasher;
    foldhash::fast::FixedState::with_seed(0).hash_one(key) as usize
}

/// The state of one thread's join: the candidate lists of each step, and
/// a buffer for each step's intersection.
struct State<'m> {
    prebuilt: &'m Prebuilt,
    /// Per step and part: its whole index, if prebuilt.
    indexes: Vec<SmallVec<[Option<&'m Index>; 4]>>,
    memo: Memo<'m>,
    lists: Vec<SmallVec<[List<'m>; 4]>>,
    cands: Vec<Vec<Handle>>,
}

impl<'a> Search<'a> {
    /// The join's plan for the conjunction of `ctx`, if the strategy and
    /// the clauses call for one.
    pub(super) fn join_plan(&self, ctx: &Ctx<'_>) -> Option<Plan> {
        let strategy = STRATEGY.get();
        if strategy == Strategy::Backtrack || ctx.present.len() < 2 {
            return None;
        }
        // (Compiling refuses conditions over variables no present clause binds.)
        let vars = ctx.present.iter().fold(0u64, |m, c| m | c.vars);
        if ctx.present.iter().any(|c| c.vars == 0) || (0..64).any(|v| vars & 1 << v != 0 && self.pat.vars[v].glob) {
            return None;
        }
        if strategy == Strategy::Auto {
            // Conditions run on the partial groundings each search reaches:
            // one with effects (a grounded or defined predicate) would see
            // other calls than it does under backtracking.
            let effects = ctx.alt.iter().filter(|c| c.kind == Kind::Eval).any(|c| may_have_effects(self.space, c.atom));
            if effects || acyclic(ctx.present.iter().map(|c| c.vars).collect()) {
                return None;
            }
        }
        let mut shapes = Vec::with_capacity(ctx.present.len());
        let mut ids: HashMap<Vec<u64>, u32> = HashMap::default();
        for c in &ctx.present {
            let (mut tokens, mut slots) = (Vec::new(), SmallVec::new());
            self.shape(c.root, &mut slots, &mut tokens)?;
            // Each of the clause's variables has its slot, and no other does
            // (a variable in a Signature is matched as a constant).
            if slots.iter().fold(0u64, |m, &v| m | 1 << v) != c.vars {
                return None;
            }
            let n = ids.len() as u32;
            shapes.push((*ids.entry(tokens).or_insert(n), slots));
        }
        let order = self.order(ctx, vars);
        let at: HashMap<usize, usize> = order.iter().enumerate().map(|(i, &v)| (v, i)).collect();
        let mut steps = Vec::with_capacity(order.len());
        let mut ready = vec![SmallVec::new(); order.len()];
        let mut needs = vec![SmallVec::<[(u8, u64); 4]>::new(); ids.len()];
        for (i, &v) in order.iter().enumerate() {
            let before: u64 = order[..i].iter().fold(0, |m, &u| m | 1 << u);
            let holding = || ctx.present.iter().enumerate().filter(|(_, c)| c.vars & 1 << v != 0);
            // A clause joins the step if it is bound in part, or has no
            // other variable; one with none bound only narrows (its own
            // later steps check it), and reading it all may cost much.
            let mut with: SmallVec<[usize; 4]> = holding().filter(|(_, c)| c.vars & before != 0 || c.vars == 1 << v).map(|(ci, _)| ci).collect();
            if with.is_empty() {
                let empty: Bindings = vec![None; self.pat.vars.len()];
                with.extend(holding().min_by_key(|(_, c)| self.cost(&self.anchor(c.root, &empty), c.root)).map(|(ci, _)| ci));
            }
            let mut step = SmallVec::new();
            for clause in with {
                let (shape, slots) = &shapes[clause];
                let slot = slots.iter().position(|&u| u == v).unwrap_or(0) as u8;
                let bound = slots.iter().enumerate().filter(|(_, &u)| before & 1 << u != 0).fold(0u64, |m, (s, _)| m | 1 << s);
                let after = slots.iter().filter(|&&u| before & 1 << u != 0).map(|u| at[u]).max();
                if let Some(j) = after {
                    ready[j].push((i, step.len()));
                }
                let need = &mut needs[*shape as usize];
                if !need.contains(&(slot, bound)) {
                    need.push((slot, bound));
                }
                step.push(Part { clause, after, slot, bound });
            }
            steps.push(step);
        }
        Some(Plan { order, shapes, steps, ready, needs })
    }

    /// The variables in binding order: each next the one joined to the most
    /// clauses already bound in part, then the one with the thinnest start.
    fn order(&self, ctx: &Ctx<'_>, vars: u64) -> Vec<usize> {
        let empty: Bindings = vec![None; self.pat.vars.len()];
        let costs: Vec<usize> = ctx.present.iter().map(|c| self.cost(&self.anchor(c.root, &empty), c.root)).collect();
        let mut order = Vec::new();
        let mut chosen = 0u64;
        while chosen != vars {
            let best = (0..64usize).filter(|&v| vars & !chosen & 1 << v != 0).min_by_key(|&v| {
                let holding = ctx.present.iter().zip(&costs).filter(|(c, _)| c.vars & 1 << v != 0);
                let joined = holding.clone().filter(|(c, _)| c.vars & chosen != 0).count();
                let start = holding.map(|(c, &cost)| if c.vars & chosen != 0 { 0 } else { cost }).min().unwrap_or(usize::MAX);
                (usize::MAX - joined, start, v)
            });
            let Some(v) = best else { break };
            chosen |= 1 << v;
            order.push(v);
        }
        order
    }

    /// The shape of term `t`: its structure with each variable replaced by
    /// its slot and its type restriction; `None` where the join does not
    /// apply (a glob, a choice, a type in the pattern).
    fn shape(&self, t: TermId, slots: &mut SmallVec<[usize; 4]>, out: &mut Vec<u64>) -> Option<()> {
        match self.pat.term(t) {
            Term::Const(h) => out.extend([0, u64::from(h.0)]),
            // A type in the pattern (a SignNode's variable) may be shared by
            // clauses that do not all count it, and a Choice's alternatives
            // may bind different variables: both stay with backtracking.
            Term::Var(v) if self.pat.vars[*v].hidden => return None,
            Term::Glob(_) | Term::Choice(_) | Term::Link { globs: true, .. } => return None,
            Term::Var(v) => {
                let slot = slots.iter().position(|u| u == v).unwrap_or_else(|| {
                    slots.push(*v);
                    slots.len() - 1
                });
                let var = &self.pat.vars[*v];
                let class = self.pat.vars.iter().position(|u| u.same_restriction(var)).unwrap_or(*v);
                out.extend([1, slot as u64, class as u64]);
            }
            Term::Link { ty, kids, unordered, .. } => {
                out.extend([2, u64::from(ty.0), u64::from(*unordered), kids.len() as u64]);
                for &k in kids {
                    self.shape(k, slots, out)?;
                }
            }
        }
        Some(())
    }

    /// Every grounding of the conjunction, by the join.
    pub(super) fn join(&self, ctx: &Ctx<'_>, plan: &Plan) -> Result<Vec<Grounding>> {
        let b: Bindings<'a> = vec![None; self.pat.vars.len()];
        let shared = Shared { shards: (0..SHARDS).map(|_| Mutex::new(HashMap::default())).collect(), held: Default::default() };
        // The lists known from the start, each shape read whole once.
        let mut prebuilt = Prebuilt::default();
        for step in &plan.steps {
            for part in step.iter().filter(|p| p.after.is_none()) {
                let (shape, slots) = &plan.shapes[part.clause];
                if !prebuilt.indexes.contains_key(&(*shape, part.slot, 0)) {
                    self.index_whole(ctx.present[part.clause], slots, *shape, &plan.needs[*shape as usize], &b, &mut prebuilt);
                }
            }
        }
        let prebuilt = &prebuilt;
        let indexes: Vec<SmallVec<[Option<&Index>; 4]>> =
            plan.steps.iter().map(|s| s.iter().map(|p| prebuilt.indexes.get(&(plan.shapes[p.clause].0, p.slot, p.bound))).collect()).collect();
        // A clause not indexed whole is read for its list alone.
        let mut lists: Vec<SmallVec<[List<'_>; 4]>> = Vec::with_capacity(plan.steps.len());
        for (i, step) in plan.steps.iter().enumerate() {
            let read = |(k, p): (usize, &Part)| match (p.after, indexes[i][k]) {
                (None, Some(ix)) => prebuilt.list(ix, &[Handle(0); KEY_VALS]),
                (None, None) => List::Kept(self.list(ctx.present[p.clause], plan.order[i], &mut b.clone()).into()),
                // Read once its variables are bound.
                (Some(_), _) => List::Prebuilt(&[]),
            };
            lists.push(step.iter().enumerate().map(read).collect());
        }
        let state = |shared| State {
            prebuilt,
            indexes: indexes.clone(),
            memo: Memo { local: HashMap::default(), held: 0, shared },
            lists: lists.clone(),
            cands: vec![Vec::new(); plan.steps.len()],
        };
        let mut first = Vec::new();
        let mut st = state(None);
        intersect(&st.lists[0], &mut first);
        let run = |chunk: &[Handle], st: &mut State<'_>| -> Result<Found> {
            let mut b = b.clone();
            let mut out = Found::default();
            self.bind_each(ctx, plan, 0, chunk, &mut b, st, &mut out)?;
            Ok(out)
        };
        if first.len() < PARALLEL_MIN || rayon::current_num_threads() < 2 || ctx.first_only {
            return run(&first, &mut st).and_then(|f| f.into_sorted(ctx.max_groundings));
        }
        // Small parts: the work of a first candidate may vary a hundredfold.
        let chunk = first.len().div_ceil(rayon::current_num_threads() * 64).max(4);
        let parts = super::split(super::search_stack(self.pat.match_size), |inherited| {
            first.par_chunks(chunk).map_init(|| state(Some(&shared)), |s, c| inherited.enter(|| run(c, s))).collect::<Result<Vec<Found>>>()
        })?;
        found::joined(parts, ctx.max_groundings)
    }

    /// Every grounding of simple `clause` under `b`, as the atoms of its
    /// slots, row after row; across threads when there are many. `None`
    /// for a clause that is not simple, or whose groundings could hold
    /// more than [`MEMO_MAX`] atoms.
    fn rows(&self, clause: &Clause, slots: &[usize], b: &Bindings<'a>) -> Option<Vec<Handle>> {
        if !self.is_simple(clause.root) {
            return None;
        }
        let cands = match self.anchor(clause.root, b) {
            // The anchor's links are matched whole below: no need to sift them first.
            Anchor::Up(h, path) if path.len() == 1 => self.space.incoming(h).map_or_else(Vec::new, |i| i.to_vec()),
            anchor => self.expand(clause.root, anchor),
        };
        // A simple clause matches a candidate one way at most.
        if cands.len().saturating_mul(slots.len()) > MEMO_MAX {
            return None;
        }
        let read = |cands: &[Handle]| {
            let mut rows = Vec::with_capacity(cands.len() * slots.len());
            let (mut vars, mut stack) = (SmallVec::new(), Vec::new());
            self.space.prefetch(cands);
            for (j, &cand) in cands.iter().enumerate() {
                self.space.prefetch_ahead(cands, j);
                if super::expired() || self.pat.forbidden.contains(self.space, cand) {
                    continue;
                }
                if self.match_simple(clause.root, cand, b, &mut vars, &mut stack) {
                    rows.extend(slots.iter().map(|&u| vars.iter().find(|&&(w, _)| w == u).map_or_else(|| bound_one(b, u), |&(_, h)| h)));
                }
            }
            rows
        };
        if cands.len() < PARALLEL_ROWS || rayon::current_num_threads() < 2 {
            return Some(read(&cands));
        }
        let parts: Vec<Vec<Handle>> = super::split(0, |inherited| cands.par_chunks(PARALLEL_ROWS / 2).map(|c| inherited.enter(|| read(c))).collect());
        Some(parts.concat())
    }

    /// Is term `t` made of ordered links (no StateLink), constants and
    /// variables only? It matches an atom one way at most: no search.
    fn is_simple(&self, t: TermId) -> bool {
        match self.pat.term(t) {
            Term::Const(_) | Term::Var(_) => true,
            Term::Link { ty, kids, unordered: false, globs: false } if *ty != crate::types::STATE_LINK => kids.iter().all(|&k| self.is_simple(k)),
            _ => false,
        }
    }

    /// Matches simple term `t` (see [`is_simple`](Self::is_simple))
    /// against atom `a` as [`unify`](Search::unify) would, without
    /// continuations: the variables `b` leaves open are bound in `vars`.
    fn match_simple(&self, t: TermId, a: Handle, b: &Bindings<'_>, vars: &mut SmallVec<[(usize, Handle); 4]>, stack: &mut Vec<(TermId, Handle)>) -> bool {
        vars.clear();
        stack.clear();
        stack.push((t, a));
        while let Some((t, a)) = stack.pop() {
            match self.pat.term(t) {
                Term::Const(h) if *h == a => {}
                Term::Var(v) => {
                    let had = match &b[*v] {
                        Some(Bound::One(h)) => Some(*h),
                        Some(_) => return false,
                        None => vars.iter().find(|(u, _)| u == v).map(|&(_, h)| h),
                    };
                    match had {
                        Some(h) if h != a => return false,
                        Some(_) => {}
                        None if !self.may_ground(*v, a) => return false,
                        None => vars.push((*v, a)),
                    }
                }
                Term::Link { ty, kids, .. } if self.space.get_type(a) == Some(*ty) => {
                    let out = self.space.outgoing(a).unwrap_or(&[]);
                    if out.len() != kids.len() {
                        return false;
                    }
                    stack.extend(kids.iter().copied().zip(out.iter().copied()).rev());
                }
                _ => return false,
            }
        }
        true
    }

    /// Reads every grounding of `clause` (nothing bound) and indexes it for
    /// each list its shape's parts `need`: the lists of a slot's atoms,
    /// grouped by the atoms of the bound slots. A clause that is not
    /// simple or has too many groundings to keep, and an index whose key
    /// would not fit [`KEY_VALS`] slots, are left to be read list by list.
    fn index_whole(&self, clause: &Clause, slots: &[usize], shape: u32, needs: &[(u8, u64)], b: &Bindings<'a>, out: &mut Prebuilt) {
        // The arena's places are u32: it holds at most ARENA_MAX atoms.
        let Some(rows) = self.rows(clause, slots, b).filter(|r| out.arena.len() + r.len() * needs.len() <= ARENA_MAX) else { return };
        let n = slots.len();
        // Keyed indexes first: the keys of one keyed by a single slot are
        // that slot's list, sorted already.
        let mut needs: SmallVec<[(u8, u64); 4]> = needs.iter().copied().filter(|&(_, bound)| bound.count_ones() as usize <= KEY_VALS).collect();
        needs.sort_by_key(|&(_, bound)| bound == 0);
        let mut columns: SmallVec<[(u8, Vec<Handle>); 2]> = SmallVec::new();
        for (slot, bound) in needs {
            let width = bound.count_ones() as usize;
            let keys = (0..n).filter(|s| bound & 1 << s != 0);
            if width == 0 {
                let list = match columns.iter_mut().find(|(s, _)| *s == slot) {
                    Some((_, keys)) => std::mem::take(keys),
                    None => {
                        let mut col = pack(&rows, n, |row| row[usize::from(slot)]);
                        sort_dedup(&mut col);
                        col
                    }
                };
                out.add_grouped(&list, |_| 0, |h| h, (shape, slot, bound), 0);
            } else if width == 1 {
                let k = keys.clone().next().unwrap_or(0);
                let mut packed = pack(&rows, n, |row| u64::from(row[k].0) << 32 | u64::from(row[usize::from(slot)].0));
                sort_dedup(&mut packed);
                let keys = out.add_grouped(&packed, |p| u128::from(p >> 32), |p| Handle(p as u32), (shape, slot, bound), 1);
                columns.push((k as u8, keys));
            } else {
                // Key slots then the listed slot, 32 bits each, most significant first.
                let mut packed =
                    pack(&rows, n, |row| keys.clone().fold(0u128, |key, s| key << 32 | u128::from(row[s].0)) << 32 | u128::from(row[usize::from(slot)].0));
                sort_dedup(&mut packed);
                out.add_grouped(&packed, |p| p >> 32, |p| Handle(p as u32), (shape, slot, bound), width);
            }
        }
    }

    /// Binds step `i`'s variable to each of `cands` in turn, then the steps after.
    #[allow(clippy::too_many_arguments)]
    fn bind_each(&self, ctx: &Ctx<'_>, plan: &Plan, i: usize, cands: &[Handle], b: &mut Bindings<'a>, st: &mut State<'_>, out: &mut Found) -> Result<Flow> {
        let v = plan.order[i];
        // The first step: no clause was evaluated yet, as the backtracking search.
        let before = (i > 0 && ctx.evals).then(|| bound_set(b));
        for &x in cands {
            if ctx.stop.load(Ordering::Relaxed) || super::expired() {
                return Ok(Flow::Stop);
            }
            b[v] = Some(Bound::One(x));
            let flow = if self.evals_hold(ctx, b, before)? { self.descend(ctx, plan, i, b, st, out)? } else { Flow::Go };
            b[v] = None;
            if flow == Flow::Stop {
                return Ok(Flow::Stop);
            }
        }
        Ok(Flow::Go)
    }

    /// Step `i`'s variable is bound: the steps after it.
    fn descend(&self, ctx: &Ctx<'_>, plan: &Plan, i: usize, b: &mut Bindings<'a>, st: &mut State<'_>, out: &mut Found) -> Result<Flow> {
        if i + 1 == plan.order.len() {
            return self.finish(ctx, b, out);
        }
        self.read_lists(ctx, plan, i, b, st);
        let lists = &st.lists[i + 1];
        if lists.iter().any(|l| l.is_empty()) {
            return Ok(Flow::Go);
        }
        if let [one] = &lists[..] {
            let one = one.clone();
            return self.bind_each(ctx, plan, i + 1, &one, b, st, out);
        }
        let mut cands = std::mem::take(&mut st.cands[i + 1]);
        intersect(lists, &mut cands);
        let flow = self.bind_each(ctx, plan, i + 1, &cands, b, st, out);
        st.cands[i + 1] = cands;
        flow
    }

    /// Reads the lists known once step `after`'s variable is bound.
    fn read_lists(&self, ctx: &Ctx<'_>, plan: &Plan, after: usize, b: &mut Bindings<'a>, st: &mut State<'_>) {
        for &(i, k) in &plan.ready[after] {
            let part = plan.steps[i][k];
            let (clause, v) = (ctx.present[part.clause], plan.order[i]);
            let (shape, slots) = &plan.shapes[part.clause];
            if part.bound.count_ones() as usize > KEY_VALS {
                st.lists[i][k] = List::Kept(self.list(clause, v, b).into());
                continue;
            }
            let mut vals = [Handle(0); KEY_VALS];
            let bound = slots.iter().enumerate().filter(|(s, _)| part.bound & 1 << s != 0);
            for (val, (_, &u)) in vals.iter_mut().zip(bound) {
                *val = bound_one(b, u);
            }
            st.lists[i][k] = match st.indexes[i][k] {
                Some(index) => st.prebuilt.list(index, &vals),
                None => st.memo.get(Key { shape: *shape, slot: part.slot, bound: part.bound, vals }, || self.list(clause, v, b)),
            };
        }
    }

    /// The atoms variable `v` takes in the groundings of clause `c` that
    /// agree with `b`, sorted.
    fn list(&self, c: &Clause, v: usize, b: &mut Bindings<'a>) -> Vec<Handle> {
        let mut found = Vec::new();
        let simple = self.is_simple(c.root);
        let (mut vars, mut stack) = (SmallVec::new(), Vec::new());
        for cand in self.expand(c.root, self.anchor(c.root, b)) {
            if self.pat.forbidden.contains(self.space, cand) {
                continue;
            }
            if simple {
                if self.match_simple(c.root, cand, b, &mut vars, &mut stack) {
                    found.extend(vars.iter().find(|&&(u, _)| u == v).map(|&(_, h)| h));
                }
                continue;
            }
            self.unify(c.root, cand, b, &mut |b| {
                if let Some(Bound::One(h)) = b[v] {
                    found.push(h);
                }
                Flow::Go
            });
        }
        found.sort_unstable();
        found.dedup();
        found
    }
}

/// The atoms in every one of the sorted `lists`, into `out`: the
/// shortest, narrowed by each of the others (merged when alike in length,
/// else searched).
fn intersect(lists: &[List<'_>], out: &mut Vec<Handle>) {
    out.clear();
    if let [x, y] = lists {
        // The common case (a triangle's closing edge), merged directly.
        let (mut i, mut j) = (0, 0);
        while let (Some(&p), Some(&q)) = (x.get(i), y.get(j)) {
            if p <= q {
                i += 1;
            }
            if q <= p {
                j += 1;
            }
            if p == q {
                out.push(p);
            }
        }
        return;
    }
    let mut by_len: SmallVec<[&[Handle]; 4]> = lists.iter().map(|l| &l[..]).collect();
    by_len.sort_unstable_by_key(|l| l.len());
    let Some((first, rest)) = by_len.split_first() else { return };
    out.extend_from_slice(first);
    for other in rest {
        if out.is_empty() {
            break;
        }
        if other.len() / 16 > out.len() {
            let mut from = 0;
            out.retain(|x| match other[from..].binary_search(x) {
                Ok(i) => {
                    from += i + 1;
                    true
                }
                Err(i) => {
                    from += i;
                    false
                }
            });
        } else {
            let mut j = 0;
            out.retain(|x| {
                while j < other.len() && other[j] < *x {
                    j += 1;
                }
                j < other.len() && other[j] == *x
            });
        }
    }
}

/// Is the hypergraph of the clauses' variable sets acyclic (GYO
/// reduction: drop variables only one clause holds, and clauses another
/// contains, until nothing changes)? Backtracking is cheap there.
fn acyclic(mut sets: Vec<u64>) -> bool {
    loop {
        let mut changed = false;
        for i in 0..sets.len() {
            let others = sets.iter().enumerate().filter(|&(j, _)| j != i).fold(0u64, |m, (_, s)| m | s);
            if sets[i] & !others != 0 {
                sets[i] &= others;
                changed = true;
            }
        }
        let before = sets.len();
        let mut i = 0;
        while i < sets.len() {
            let s = sets[i];
            if s == 0 || sets.iter().enumerate().any(|(j, &t)| j != i && s & !t == 0) {
                sets.swap_remove(i);
            } else {
                i += 1;
            }
        }
        changed |= sets.len() != before;
        if sets.len() <= 1 {
            return true;
        }
        if !changed {
            return false;
        }
    }
}

/// Could evaluating condition `atom` have effects: does it call a grounded
/// or defined predicate or schema, or execute something? A walk over the
/// condition's atoms, each once.
fn may_have_effects(space: &crate::AtomSpace, atom: Handle) -> bool {
    use crate::types;
    let mut seen: HashSet<Handle> = HashSet::default();
    let mut todo = vec![atom];
    while let Some(h) = todo.pop() {
        if !seen.insert(h) {
            continue;
        }
        // By kind, as the evaluator dispatches: subtypes call as their parents do.
        let kinds = [
            types::GROUNDED_PREDICATE_NODE,
            types::GROUNDED_SCHEMA_NODE,
            types::DEFINED_PREDICATE_NODE,
            types::DEFINED_SCHEMA_NODE,
            types::EXECUTION_OUTPUT_LINK,
        ];
        let calls = space.get_type(h).is_some_and(|t| kinds.iter().any(|&k| t.is_a(k)));
        if calls {
            return true;
        }
        todo.extend_from_slice(space.outgoing(h).unwrap_or(&[]));
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cycles_are_told_from_trees() {
        // A triangle and a 4-cycle are cyclic; a path, a star and a clause
        // holding all the others' variables are not.
        assert!(!acyclic(vec![0b011, 0b110, 0b101]));
        assert!(!acyclic(vec![0b0011, 0b0110, 0b1100, 0b1001]));
        assert!(acyclic(vec![0b0011, 0b0110, 0b1100]));
        assert!(acyclic(vec![0b0011, 0b0101, 0b1001]));
        assert!(acyclic(vec![0b011, 0b110, 0b101, 0b111]));
        assert!(acyclic(vec![0b1, 0b1]));
    }

    #[test]
    fn conditions_that_call_something_are_told_from_comparisons() {
        let space = crate::AtomSpace::new();
        let atom = |text: &str| crate::sexpr::load_str(&mut &space, text).unwrap()[0];
        assert!(!may_have_effects(&space, atom(r#"(Not (Equal (Variable "$a") (Variable "$b")))"#)));
        assert!(!may_have_effects(&space, atom(r#"(GreaterThan (Plus (Variable "$a") (Number 1)) (Number 2))"#)));
        assert!(may_have_effects(
            &space,
            atom(r#"(And (Evaluation (GroundedPredicate "py:f") (List (Variable "$a"))) (Equal (Variable "$a") (Variable "$b")))"#)
        ));
        assert!(may_have_effects(&space, atom(r#"(Evaluation (DefinedPredicate "d") (List (Variable "$a")))"#)));
        assert!(may_have_effects(&space, atom(r#"(Equal (ExecutionOutput (GroundedSchema "scm:g") (List (Variable "$a"))) (Number 1))"#)));
    }

    #[test]
    fn intersections_merge_and_search() {
        let h = |v: &[u32]| List::Kept(v.iter().map(|&i| Handle(i)).collect::<Vec<_>>().into());
        let all = |lists: &[List<'_>]| {
            let mut out = vec![Handle(99)];
            intersect(lists, &mut out);
            out
        };
        let long: Vec<u32> = (0..1000).map(|i| i * 2).collect();
        assert_eq!(all(&[h(&[1, 2, 3, 4]), h(&[2, 4, 6])]), vec![Handle(2), Handle(4)]);
        assert_eq!(all(&[h(&long), h(&[3, 4, 1998, 2000])]), vec![Handle(4), Handle(1998)]);
        assert_eq!(all(&[h(&[5]), h(&[]), h(&[5])]), Vec::<Handle>::new());
        assert_eq!(all(&[h(&[7, 9])]), vec![Handle(7), Handle(9)]);
    }
}
