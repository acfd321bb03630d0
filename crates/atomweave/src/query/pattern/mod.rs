//! Compiling a query link into a [`Pattern`]: variables with their type
//! restrictions, the body as alternatives of clause conjunctions, and the
//! rewrites, all as [`Term`] trees.
//!
//! The compiler's parts: [`variables`] (declarations and type
//! restrictions), [`terms`] (atoms to terms, shared subterms once),
//! [`clauses`] (the body as alternatives of conjunctions, evaluatable
//! clauses apart) and [`rewrites`].
//!
//! **Invariant:** a pattern that compiles is well formed: every variable
//! of a rewrite is grounded by the body, limits (variables, clauses,
//! alternatives, depth) are checked here, before anything runs.

mod clauses;
mod rewrites;
mod terms;
mod variables;

use super::{bad, describe, HashMap, HashSet};
use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle};

pub(crate) type TermId = u32;

/// A node of a compiled pattern or rewrite. Subterms the query shares are
/// compiled once and shared here too.
#[derive(Debug)]
pub(crate) enum Term {
    /// An atom matched by identity: a node, or a link holding no variable.
    Const(Handle),
    /// A variable (an index into [`Pattern::vars`]).
    Var(usize),
    /// A glob: a run of members of a link.
    Glob(usize),
    /// A link of this type whose members are terms.
    Link { ty: Type, kids: Vec<TermId>, unordered: bool, globs: bool },
    /// Any one of these terms (a ChoiceLink inside a clause).
    Choice(Vec<TermId>),
}

/// A declared variable.
#[derive(Debug)]
pub(crate) struct Var {
    pub handle: Handle,
    pub glob: bool,
    /// Allowed types, as a bit set over type numbers; `None`: any.
    types: Option<Vec<u64>>,
    /// Deep type specifications (Signatures, DefinedTypes, TypeCoInh) an
    /// atom may fit instead of one of `types`.
    deep: Vec<Handle>,
    /// Run length bounds of a glob.
    pub lo: usize,
    pub hi: usize,
    /// A type in the pattern (`(SignNode "ConceptNode")`, a Signature's
    /// types): it matches any atom of that type, and is no result.
    pub hidden: bool,
}

impl Var {
    /// The types the variable is restricted to, if it is.
    pub fn allowed_types(&self) -> Option<impl Iterator<Item = Type> + '_> {
        // Deep specifications admit atoms of any type that fit them.
        self.types
            .as_ref()
            .filter(|_| self.deep.is_empty())
            .map(|bits| (0..bits.len() * 64).filter(|&i| bits[i / 64] & (1 << (i % 64)) != 0).map(|i| Type(i as u16)))
    }

    /// Do the two variables admit the same atoms (same kind, same restrictions)?
    pub fn same_restriction(&self, other: &Var) -> bool {
        (self.glob, &self.types, &self.deep, self.lo, self.hi, self.hidden) == (other.glob, &other.types, &other.deep, other.lo, other.hi, other.hidden)
    }

    #[inline]
    pub fn allows(&self, t: Type) -> bool {
        let i = usize::from(t.0);
        self.types.as_ref().is_none_or(|bits| bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0))
    }

    /// May atom `a` (of type `t`) ground the variable: its type allowed, or
    /// it fits one of the deep specifications?
    pub fn admits(&self, space: &AtomSpace, a: Handle, t: Type) -> bool {
        if self.allows(t) {
            return true;
        }
        // A specification that cannot be checked admits nothing.
        self.deep.iter().any(|&spec| super::value_is_type(space, spec, &crate::Value::Atom(a)).unwrap_or(false))
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    Present,
    Absent,
    Always,
    /// Evaluated (EqualLink, GreaterThanLink, ...) once its variables are grounded.
    Eval,
}

#[derive(Debug, Clone, Copy)]
pub(crate) struct Clause {
    pub kind: Kind,
    /// The pattern term.
    pub root: TermId,
    /// The clause's atom in the query.
    pub atom: Handle,
    /// Variables occurring in the clause, as a bit set.
    pub vars: u64,
    /// Evaluated (e.g. a GreaterThanLink), not looked for in the space.
    pub evaluated: bool,
}

/// A compiled query.
#[derive(Debug, Default)]
pub(crate) struct Pattern {
    pub terms: Vec<Term>,
    pub vars: Vec<Var>,
    /// Alternatives (from OrLink/ChoiceLink of clauses), each a conjunction.
    pub alternatives: Vec<Vec<Clause>>,
    pub rewrites: Vec<TermId>,
    /// The variables every alternative grounds: what a result reports.
    pub grounded: u64,
    /// What the query is made of, never a grounding: see [`Forbidden`].
    pub forbidden: Forbidden,
    /// The links of the query itself: a clause with no variables is present
    /// only if its atom is held by something else too.
    pub own_links: HashSet<Handle>,
    /// A GroupLink's grouping of the results, if the body holds one.
    pub group: Option<Group>,
    /// The AnchorNode among the declarations, if any: each grounding is
    /// attached to it by a MemberLink, as upstream's anchored queries do.
    pub anchor: Option<Handle>,
    /// The most terms one alternative (or the term) puts on the matcher's
    /// stack: what its search needs of the stack ([`super::search_stack`]).
    pub match_size: usize,
}

/// `(Group VARS... [(Interval (Number lo) (Number hi))])` in a body: the
/// results are grouped by the groundings of VARS, and a group is kept if it
/// holds from lo to hi groundings (hi < 0: no upper bound).
#[derive(Debug, Default)]
pub(crate) struct Group {
    pub vars: Vec<usize>,
    pub lo: usize,
    pub hi: usize,
}

/// Most variables a query may declare, and most clauses a conjunction may
/// hold (both are tracked in `u64` bit sets).
const MAX_VARS: usize = 64;
const MAX_CLAUSES: usize = 64;
/// Most alternatives OrLinks may multiply out to.
const MAX_ALTERNATIVES: usize = 4096;
/// Deepest query: compiling, matching and rewriting recurse this deep.
pub(crate) const MAX_DEPTH: usize = 256;
/// Most terms one alternative may hold for matching, counting a shared
/// subterm at each place it occurs and no constants: the matcher takes a
/// stack frame or two per term, kept until the conjunction is matched
/// (some 500 bytes each in a release build: 1 MiB in all; see
/// [`super::search_stack`]).
const MAX_MATCH_SIZE: usize = 2048;

pub(crate) fn is_vardecl_type(t: Type) -> bool {
    matches!(t, types::VARIABLE_NODE | types::GLOB_NODE | types::TYPED_VARIABLE_LINK | types::VARIABLE_LIST | types::VARIABLE_SET)
}

/// The query's variables and the links that hold one. Found by walking up
/// from the variables; when they sit in very many links (a large rule
/// base), the walk stops and each candidate is checked by looking inside it.
#[derive(Debug)]
pub(crate) struct Forbidden {
    /// The variables and the links that hold one; only the variables when
    /// not `complete`.
    set: HashSet<Handle>,
    complete: bool,
}

impl Default for Forbidden {
    /// Nothing is forbidden.
    fn default() -> Self {
        Forbidden { set: HashSet::default(), complete: true }
    }
}

/// Links the upward walk visits before it gives way to checking candidates.
const FORBIDDEN_WALK: usize = 4096;

impl Forbidden {
    pub fn new(space: &AtomSpace, mut vars: Vec<Handle>) -> Forbidden {
        // The truth- and attention-value keys are not the user's atoms: no
        // variable stands for them, as none would upstream, where they are
        // in no space.
        vars.extend(crate::sexpr::value_key_atoms(|t, n| space.get_node(t, n)));
        let mut set: HashSet<Handle> = HashSet::default();
        let mut work = vars.clone();
        while let Some(h) = work.pop() {
            if set.len() > FORBIDDEN_WALK {
                return Forbidden { set: vars.into_iter().collect(), complete: false };
            }
            if set.insert(h) {
                if let Some(inc) = space.incoming(h) {
                    work.extend(inc.iter().copied().filter(|l| !set.contains(l)));
                }
            }
        }
        Forbidden { set, complete: true }
    }

    /// Is `h` one of the query's variables, or a link holding one?
    #[inline]
    pub fn contains(&self, space: &AtomSpace, h: Handle) -> bool {
        if self.set.contains(&h) {
            return true;
        }
        if self.complete {
            return false;
        }
        // A node that is not a variable is not forbidden.
        let Some(out) = space.outgoing(h).filter(|o| !o.is_empty()) else { return false };
        // A memo: a link's members may share members, 2^depth paths deep.
        let mut work = out.to_vec();
        let mut seen: HashSet<Handle> = HashSet::default();
        while let Some(x) = work.pop() {
            if self.set.contains(&x) {
                return true;
            }
            if seen.insert(x) {
                work.extend_from_slice(space.outgoing(x).unwrap_or(&[]));
            }
        }
        false
    }
}

struct Compiler<'s> {
    space: &'s AtomSpace,
    terms: Vec<Term>,
    vars: Vec<Var>,
    index: HashMap<Handle, usize>,
    memo: HashMap<(Handle, bool, bool), TermId>,
    var_memo: HashMap<(Handle, bool), u64>,
    /// The GroupLinks met among the clauses.
    groups: Vec<Handle>,
    anchor: Option<Handle>,
    /// The definitions of the DefinedPredicates the body names, expanded
    /// in its place (their links are the query's own, like the body's).
    expanded: Vec<Handle>,
}

/// Most DefinedPredicates expanded inside one another in a body: one that
/// names itself must not expand without end.
const MAX_EXPANSIONS: usize = 64;

/// The deepest nesting under `h`, or an error past [`MAX_DEPTH`]. Shared
/// subterms are measured once.
pub(crate) fn check_depth(space: &AtomSpace, h: Handle) -> Result<()> {
    // A node, or a link of nodes: no walk (evaluation asks for every step).
    if space.outgoing(h).unwrap_or(&[]).iter().all(|&m| space.outgoing(m).is_none_or(<[Handle]>::is_empty)) {
        return Ok(());
    }
    fn depth(space: &AtomSpace, h: Handle, level: usize, seen: &mut HashMap<Handle, usize>) -> Result<usize> {
        if level > MAX_DEPTH {
            return Err(bad(format!("atoms nested more than {MAX_DEPTH} deep cannot be queried or evaluated")));
        }
        if let Some(&d) = seen.get(&h) {
            // Met again lower down: its depth counts from here.
            if level + d > MAX_DEPTH {
                return Err(bad(format!("atoms nested more than {MAX_DEPTH} deep cannot be queried or evaluated")));
            }
            return Ok(d);
        }
        let mut d = 0;
        for &m in space.outgoing(h).unwrap_or(&[]) {
            d = d.max(1 + depth(space, m, level + 1, seen)?);
        }
        seen.insert(h, d);
        Ok(d)
    }
    depth(space, h, 0, &mut HashMap::default()).map(drop)
}

/// How many terms each term puts on the matcher's stack: itself and its
/// members', a shared member at each place (constants are compared in
/// place, a choice tries one alternative at a time). Members come before
/// the links that hold them, so one pass in order sees them first.
fn match_sizes(terms: &[Term]) -> Vec<usize> {
    let mut sizes: Vec<usize> = Vec::with_capacity(terms.len());
    for t in terms {
        let size = match t {
            Term::Const(_) => 0,
            Term::Var(_) | Term::Glob(_) => 1,
            Term::Choice(alts) => 1 + alts.iter().map(|&a| sizes[a as usize]).max().unwrap_or(0),
            Term::Link { kids, .. } => kids.iter().fold(1usize, |n, &k| n.saturating_add(sizes[k as usize])),
        };
        sizes.push(size);
    }
    sizes
}

pub(crate) fn own_links(space: &AtomSpace, roots: &[Handle]) -> HashSet<Handle> {
    let mut set: HashSet<Handle> = HashSet::default();
    let mut work = roots.to_vec();
    while let Some(h) = work.pop() {
        if let Some(out) = space.outgoing(h).filter(|o| !o.is_empty()) {
            if set.insert(h) {
                work.extend_from_slice(out);
            }
        }
    }
    set
}

impl Pattern {
    /// Compiles `vardecl` (if any), `body` and `rewrites`; `query` is the
    /// query link itself. Without a declaration, the body's variables in
    /// order of first appearance.
    pub fn compile(space: &AtomSpace, query: Handle, vardecl: Option<Handle>, body: Handle, rewrites: &[Handle]) -> Result<Pattern> {
        // Its walks recurse over the atoms: what they walk is checked first
        // (a query's own atoms, or a body evaluated on its own).
        for &h in std::iter::once(&query).chain(vardecl.as_ref()).chain([&body]).chain(rewrites) {
            check_depth(space, h)?;
        }
        let mut c = Compiler::new(space);
        match vardecl {
            // An anchor alone: the body's variables, groundings attached to it.
            Some(d) if space.get_type(d) == Some(types::ANCHOR_NODE) => {
                c.anchor = Some(d);
                c.free_variables(body, false, &mut HashSet::default())?
            }
            Some(d) => c.declare(d)?,
            None => c.free_variables(body, false, &mut HashSet::default())?,
        }
        let mut alternatives = c.clauses(body)?.into_iter().map(|alt| c.implied(alt)).collect::<Result<Vec<_>>>()?;
        for alt in &mut alternatives {
            c.typed_scans(alt)?;
        }
        let mut seen = 0u64;
        let mut somewhere = 0u64;
        for alt in &alternatives {
            if alt.iter().filter(|c| c.kind == Kind::Present).count() > MAX_CLAUSES {
                return Err(bad(format!("more than {MAX_CLAUSES} clauses must be present at once")));
            }
            let present = alt.iter().filter(|c| c.kind == Kind::Present).fold(0, |m, c| m | c.vars);
            somewhere |= present;
            for cl in alt {
                seen |= cl.vars;
            }
            for cl in alt.iter().filter(|c| matches!(c.kind, Kind::Eval | Kind::Always) || c.evaluated) {
                let loose = cl.vars & !present;
                if loose != 0 {
                    let v = c.vars[loose.trailing_zeros() as usize].handle;
                    return Err(bad(format!(
                        "variable {} occurs only in {}: no clause that must be present grounds it",
                        describe(space, v),
                        describe(space, cl.atom)
                    )));
                }
            }
        }
        if let Some(v) = c.vars.iter().enumerate().find(|(i, _)| seen & (1 << i) == 0) {
            return Err(bad(format!("declared variable {} does not occur in the body", describe(space, v.1.handle))));
        }
        // A variable some alternatives ground and others do not stands for
        // itself in the others' results, as upstream reports it.
        let grounded = somewhere;
        let sizes = match_sizes(&c.terms);
        let mut match_size = 0;
        for alt in &alternatives {
            let size = alt.iter().fold(0usize, |n, cl| n.saturating_add(sizes[cl.root as usize]));
            if size > MAX_MATCH_SIZE {
                return Err(bad(format!("the query is too large to match: {size} variable terms in one conjunction, at most {MAX_MATCH_SIZE}")));
            }
            match_size = match_size.max(size);
        }
        let mut rewrite_terms = Vec::new();
        for &r in rewrites {
            rewrite_terms.push(c.rewrite(r, grounded)?);
        }
        let forbidden = Forbidden::new(space, c.vars.iter().map(|v| v.handle).collect());
        let group = c.group()?;
        Ok(Pattern {
            terms: c.terms,
            vars: c.vars,
            alternatives,
            rewrites: rewrite_terms,
            grounded,
            forbidden,
            own_links: own_links(space, &[&[query][..], &c.expanded].concat()),
            group,
            anchor: c.anchor,
            match_size,
        })
    }

    /// Compiles atom `p` as one pattern term over its free variables, for
    /// DualLink: its And, Or and evaluatable links are matched as links.
    pub fn compile_term(space: &AtomSpace, p: Handle) -> Result<(Pattern, TermId)> {
        check_depth(space, p)?;
        let mut c = Compiler::new(space);
        c.free_variables(p, false, &mut HashSet::default())?;
        let root = c.term(p, false, false)?;
        let size = match_sizes(&c.terms)[root as usize];
        if size > MAX_MATCH_SIZE {
            return Err(bad(format!("the pattern is too large to match: {size} variable terms, at most {MAX_MATCH_SIZE}")));
        }
        Ok((Pattern { terms: c.terms, vars: c.vars, match_size: size, ..Pattern::default() }, root))
    }

    pub fn term(&self, id: TermId) -> &Term {
        &self.terms[id as usize]
    }

    /// Is `h` in the space only as part of the query itself?
    pub fn only_in_query(&self, space: &AtomSpace, h: Handle) -> bool {
        self.own_links.contains(&h) && space.incoming(h).is_some_and(|inc| inc.iter().all(|l| self.own_links.contains(l)))
    }
}

impl<'s> Compiler<'s> {
    fn new(space: &'s AtomSpace) -> Self {
        Compiler {
            space,
            terms: Vec::new(),
            vars: Vec::new(),
            index: HashMap::default(),
            memo: HashMap::default(),
            var_memo: HashMap::default(),
            groups: Vec::new(),
            anchor: None,
            expanded: Vec::new(),
        }
    }

    fn ty(&self, h: Handle) -> Result<Type> {
        self.space.get_type(h).ok_or(crate::Error::InvalidHandle(h))
    }

    fn out(&self, h: Handle) -> &'s [Handle] {
        self.space.outgoing(h).unwrap_or(&[])
    }

    fn describe(&self, h: Handle) -> String {
        describe(self.space, h)
    }
}
