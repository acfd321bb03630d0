//! Compiling a query link into a [`Pattern`]: variables with their type
//! restrictions, the body as alternatives of clause conjunctions, and the
//! rewrites, all as [`Term`] trees.

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

    fn add_var(&mut self, h: Handle) -> Result<usize> {
        if let Some(&i) = self.index.get(&h) {
            return Ok(i);
        }
        if self.vars.len() == MAX_VARS {
            return Err(bad(format!("more than {MAX_VARS} variables")));
        }
        let glob = self.ty(h)? == types::GLOB_NODE;
        self.vars.push(Var { handle: h, glob, types: None, deep: Vec::new(), lo: 1, hi: usize::MAX, hidden: false });
        self.index.insert(h, self.vars.len() - 1);
        Ok(self.vars.len() - 1)
    }

    fn declare_new(&mut self, v: Handle) -> Result<usize> {
        if self.index.contains_key(&v) {
            return Err(bad(format!("variable {} is declared twice", self.describe(v))));
        }
        self.add_var(v)
    }

    fn declare(&mut self, d: Handle) -> Result<()> {
        match self.ty(d)? {
            types::VARIABLE_NODE | types::GLOB_NODE => self.declare_new(d).map(drop),
            types::TYPED_VARIABLE_LINK => {
                let [v, spec] = *self.out(d) else {
                    return Err(bad(format!("{} must hold a variable and a type", self.describe(d))));
                };
                if !matches!(self.ty(v)?, types::VARIABLE_NODE | types::GLOB_NODE) {
                    return Err(bad(format!("{} must start with a VariableNode or GlobNode, not {}", self.describe(d), self.describe(v))));
                }
                let i = self.declare_new(v)?;
                let mut bits = vec![0u64; types::type_count().div_ceil(64)];
                let mut restricted = false;
                self.restriction(spec, i, &mut bits, &mut restricted)?;
                if restricted {
                    self.vars[i].types = Some(bits);
                }
                Ok(())
            }
            types::VARIABLE_LIST | types::VARIABLE_SET => {
                for &m in self.out(d) {
                    let t = self.ty(m)?;
                    if t == types::ANCHOR_NODE {
                        if self.anchor.replace(m).is_some() {
                            return Err(bad(format!("{} names more than one AnchorNode", self.describe(d))));
                        }
                        continue;
                    }
                    if matches!(t, types::VARIABLE_LIST | types::VARIABLE_SET) || !is_vardecl_type(t) {
                        return Err(bad(format!(
                            "{} may hold only VariableNodes, GlobNodes, TypedVariableLinks and an AnchorNode, not {}",
                            self.describe(d),
                            self.describe(m)
                        )));
                    }
                    self.declare(m)?;
                }
                Ok(())
            }
            _ => Err(bad(format!("{} is not a variable declaration", self.describe(d)))),
        }
    }

    /// Reads a type restriction into `bits` (and glob bounds into the variable).
    fn restriction(&mut self, spec: Handle, var: usize, bits: &mut [u64], restricted: &mut bool) -> Result<()> {
        let t = self.ty(spec)?;
        let mut set = |t: Type| bits[usize::from(t.0) / 64] |= 1 << (usize::from(t.0) % 64);
        match t {
            types::TYPE_NODE | types::TYPE_INH_NODE | types::SIGN_NODE => {
                let name = self.space.name(spec).unwrap_or_default();
                let named = Type::from_name(name).ok_or_else(|| bad(format!("unknown type {name:?} in {}", self.describe(spec))))?;
                if t != types::TYPE_INH_NODE {
                    set(named);
                } else {
                    named.subtypes().into_iter().for_each(set);
                }
                *restricted = true;
            }
            types::TYPE_CHOICE => {
                // An empty choice allows no type at all.
                *restricted = true;
                for &m in self.out(spec) {
                    self.restriction(m, var, bits, restricted)?;
                }
            }
            // Deep types: checked on each candidate (see `Var::admits`).
            types::SIGNATURE_LINK | types::DEFINED_TYPE_NODE | types::TYPE_CO_INH_NODE => {
                *restricted = true;
                self.vars[var].deep.push(spec);
            }
            types::INTERVAL_LINK => {
                let (lo, hi) = self.interval(spec, var)?;
                self.vars[var].lo = lo;
                self.vars[var].hi = hi;
            }
            _ => return Err(bad(format!("unsupported type restriction {}", self.describe(spec)))),
        }
        Ok(())
    }

    /// A glob's `(IntervalLink (NumberNode lo) (NumberNode hi))`: whole
    /// numbers, 0 <= lo <= hi, a negative hi for no upper bound.
    fn interval(&self, spec: Handle, var: usize) -> Result<(usize, usize)> {
        let what = || self.describe(spec);
        if !self.vars[var].glob {
            return Err(bad(format!("{} bounds a run's length: only a GlobNode takes one", what())));
        }
        let bound = |n: Handle| -> Option<f64> {
            let v = super::eval::numbers_of(self.space, n)?;
            match v[..] {
                [x] if x.is_finite() && x.fract() == 0.0 => Some(x),
                _ => None,
            }
        };
        let [lo, hi] = *self.out(spec) else {
            return Err(bad(format!("{} must hold two NumberNodes, the least and most atoms the glob takes", what())));
        };
        let (Some(lo), Some(hi)) = (bound(lo), bound(hi)) else {
            return Err(bad(format!("{}: the bounds must be NumberNodes holding one whole number each", what())));
        };
        if lo < 0.0 || (hi >= 0.0 && hi < lo) {
            return Err(bad(format!("{}: need 0 <= least <= most (a negative most: no limit)", what())));
        }
        Ok((lo as usize, if hi < 0.0 { usize::MAX } else { hi as usize }))
    }

    /// Declares the body's unquoted variables, in order of first appearance;
    /// not those of a scope inside it (a GetLink in an EqualLink binds its own).
    fn free_variables(&mut self, h: Handle, quoted: bool, seen: &mut HashSet<(Handle, bool)>) -> Result<()> {
        if !seen.insert((h, quoted)) {
            return Ok(());
        }
        let t = self.ty(h)?;
        if !quoted && t == types::DEFINED_PREDICATE_NODE {
            if let Some(def) = self.expansion(h)? {
                return self.free_variables(def, false, seen);
            }
        }
        if !quoted && seen.len() > 1 && t.is_a(types::SCOPE_LINK) {
            return Ok(());
        }
        let quoted = match t {
            types::VARIABLE_NODE | types::GLOB_NODE if !quoted => return self.add_var(h).map(drop),
            types::QUOTE_LINK if !quoted => true,
            types::UNQUOTE_LINK if quoted => false,
            _ => quoted,
        };
        for &m in self.out(h) {
            self.free_variables(m, quoted, seen)?;
        }
        Ok(())
    }

    /// A typed variable that only evaluated clauses hold (a recursive
    /// predicate over it) ranges over the atoms of its types: a clause of
    /// the variable alone, scanned last, grounds it, as upstream searches
    /// by type when no clause can start a search.
    fn typed_scans(&mut self, alt: &mut Vec<Clause>) -> Result<()> {
        let present = alt.iter().filter(|c| c.kind == Kind::Present).fold(0, |m, c| m | c.vars);
        let loose = alt.iter().filter(|c| matches!(c.kind, Kind::Eval | Kind::Always) || c.evaluated).fold(0, |m, c| m | c.vars) & !present;
        for i in (0..self.vars.len()).filter(|&i| loose & (1 << i) != 0) {
            if self.vars[i].types.is_some() && !self.vars[i].glob && !self.vars[i].hidden {
                let v = self.vars[i].handle;
                let root = self.term(v, false, false)?;
                alt.push(Clause { kind: Kind::Present, root, atom: v, vars: 1 << i, evaluated: false });
            }
        }
        Ok(())
    }

    /// `alt` with the clauses its evaluated clauses imply: an atom of data
    /// inside one (the Evaluation in `(IsTrue (Evaluation p $x))` or in
    /// `(GreaterThan (StrengthOf (Evaluation p $x)) ...)`), holding a
    /// variable no present clause grounds, must be present for the clause
    /// to be about anything, as upstream takes it.
    fn implied(&mut self, mut alt: Vec<Clause>) -> Result<Vec<Clause>> {
        let present = alt.iter().filter(|c| c.kind == Kind::Present).fold(0, |m, c| m | c.vars);
        let mut terms = Vec::new();
        // A Put or a ContinuationLink applies a predicate: its arguments
        // are not data that must be there.
        let space = self.space;
        let applies = |h: Handle| matches!(space.get_type(h), Some(types::PUT_LINK | types::CONTINUATION_LINK));
        for cl in alt.iter().filter(|c| c.kind == Kind::Eval && !applies(c.atom)) {
            let loose = cl.vars & !present;
            if loose != 0 {
                self.data_within(cl.atom, loose, &mut terms, 0)?;
            }
        }
        for t in terms {
            if !alt.iter().any(|c| c.atom == t && c.kind == Kind::Present) {
                alt.push(self.clause(t, Kind::Present)?);
            }
        }
        Ok(alt)
    }

    /// The atoms of data within code `h` that hold any of `loose`.
    fn data_within(&mut self, h: Handle, loose: u64, out: &mut Vec<Handle>, depth: usize) -> Result<()> {
        if depth > MAX_DEPTH {
            return Err(bad(format!("the query is nested more than {MAX_DEPTH} deep")));
        }
        for &m in self.out(h) {
            let t = self.ty(m)?;
            if !t.is_link() || self.vars_of(m, false)? & loose == 0 {
                continue;
            }
            let code = self.evaluatable(m) || t.is_a(types::FUNCTION_LINK) || t.is_a(types::EVALUATABLE_LINK) && t != types::EVALUATION_LINK;
            if code {
                self.data_within(m, loose, out, depth + 1)?;
            } else if !out.contains(&m) {
                out.push(m);
            }
        }
        Ok(())
    }

    /// The body's GroupLink (at most one), read.
    fn group(&self) -> Result<Option<Group>> {
        let g = match self.groups[..] {
            [] => return Ok(None),
            [g] => g,
            _ => return Err(bad("a body may hold one GroupLink".into())),
        };
        let mut group = Group { vars: Vec::new(), lo: 1, hi: usize::MAX };
        for &m in self.out(g) {
            match self.ty(m)? {
                types::INTERVAL_LINK => {
                    let bound = |n: Handle| super::eval::numbers_of(self.space, n).and_then(|v| v.first().copied());
                    match *self.out(m) {
                        [lo, hi] => match (bound(lo), bound(hi)) {
                            (Some(lo), Some(hi)) if lo >= 0.0 && lo.fract() == 0.0 && hi.fract() == 0.0 => {
                                group.lo = lo as usize;
                                group.hi = if hi < 0.0 { usize::MAX } else { hi as usize };
                            }
                            _ => return Err(bad(format!("{}: the group's size bounds are two whole numbers, the least 0 or more", self.describe(m)))),
                        },
                        _ => return Err(bad(format!("{} must hold two NumberNodes", self.describe(m)))),
                    }
                }
                _ => match self.index.get(&m) {
                    Some(&v) => group.vars.push(v),
                    None => return Err(bad(format!("{} groups by {}, which is not one of the query's variables", self.describe(g), self.describe(m)))),
                },
            }
        }
        if group.vars.is_empty() {
            return Err(bad(format!("{} names no variable to group by", self.describe(g))));
        }
        Ok(Some(group))
    }

    fn push(&mut self, t: Term) -> TermId {
        self.terms.push(t);
        (self.terms.len() - 1) as TermId
    }

    /// A type standing in a pattern: a variable of its own (each place one,
    /// never shared), restricted to the type, that is no result.
    fn sign(&mut self, spec: Handle) -> Result<TermId> {
        if self.vars.len() == MAX_VARS {
            return Err(bad(format!("more than {MAX_VARS} variables (a type in a pattern counts as one)")));
        }
        self.vars.push(Var { handle: spec, glob: false, types: None, deep: Vec::new(), lo: 1, hi: usize::MAX, hidden: true });
        let i = self.vars.len() - 1;
        let mut bits = vec![0u64; types::type_count().div_ceil(64)];
        let mut restricted = false;
        self.restriction(spec, i, &mut bits, &mut restricted)?;
        self.vars[i].types = Some(bits);
        Ok(self.push(Term::Var(i)))
    }

    /// A Signature's shape: its types are variables of their own
    /// ([`sign`](Self::sign)), its other atoms are matched as they are.
    fn shape(&mut self, h: Handle) -> Result<TermId> {
        let t = self.ty(h)?;
        if t.is_a(types::TYPE_NODE) || t == types::TYPE_CHOICE {
            return self.sign(h);
        }
        if !t.is_link() {
            return Ok(self.push(Term::Const(h)));
        }
        let kids = self.out(h).iter().map(|&m| self.shape(m)).collect::<Result<Vec<_>>>()?;
        Ok(self.push(Term::Link { ty: t, kids, unordered: t.is_unordered(), globs: false }))
    }

    /// Compiles a term; `choice` makes ChoiceLinks alternatives (in patterns, not rewrites).
    fn term(&mut self, h: Handle, quoted: bool, choice: bool) -> Result<TermId> {
        // Each place a type stands in is a variable of its own: not memoized.
        if !quoted && choice {
            match self.ty(h)? {
                types::SIGN_NODE => return self.sign(h),
                types::SIGNATURE_LINK => return self.only_member(h).and_then(|m| self.shape(m)),
                _ => {}
            }
        }
        if let Some(&id) = self.memo.get(&(h, quoted, choice)) {
            return Ok(id);
        }
        let id = self.compile_term(h, quoted, choice)?;
        self.memo.insert((h, quoted, choice), id);
        Ok(id)
    }

    fn compile_term(&mut self, h: Handle, quoted: bool, choice: bool) -> Result<TermId> {
        let t = self.ty(h)?;
        if !quoted {
            if let Some(&v) = self.index.get(&h) {
                return Ok(self.push(if self.vars[v].glob { Term::Glob(v) } else { Term::Var(v) }));
            }
            match t {
                types::QUOTE_LINK => return self.only_member(h).and_then(|m| self.term(m, true, choice)),
                types::LOCAL_QUOTE_LINK => {
                    let inner = self.only_member(h)?;
                    return self.link(inner, false, choice);
                }
                types::CHOICE_LINK if choice => {
                    let out = self.out(h);
                    if out.is_empty() {
                        return Err(bad(format!("{} offers no choice", self.describe(h))));
                    }
                    let mut kids = Vec::with_capacity(out.len());
                    let mut vars = None;
                    for &m in out {
                        let v = self.vars_of(m, false)?;
                        if *vars.get_or_insert(v) != v {
                            return Err(bad(format!("the choices of {} must hold the same variables", self.describe(h))));
                        }
                        kids.push(self.term(m, false, choice)?);
                    }
                    return Ok(self.push(Term::Choice(kids)));
                }
                _ => {}
            }
        } else if t == types::UNQUOTE_LINK {
            return self.only_member(h).and_then(|m| self.term(m, false, choice));
        }
        if t.is_link() {
            self.link(h, quoted, choice)
        } else {
            Ok(self.push(Term::Const(h)))
        }
    }

    /// A link term of `h`'s own type, members compiled in the given quoting.
    fn link(&mut self, h: Handle, quoted: bool, choice: bool) -> Result<TermId> {
        let ty = self.ty(h)?;
        if !ty.is_link() {
            return Ok(self.push(Term::Const(h)));
        }
        let out = self.out(h);
        let kids = out.iter().map(|&m| self.term(m, quoted, choice)).collect::<Result<Vec<_>>>()?;
        if kids.iter().zip(out).all(|(&k, &m)| matches!(self.terms[k as usize], Term::Const(c) if c == m)) {
            // Nothing to match inside: compare the link itself.
            return Ok(self.push(Term::Const(h)));
        }
        let globs = kids.iter().filter(|&&k| matches!(self.terms[k as usize], Term::Glob(_))).count();
        let unordered = ty.is_unordered();
        if unordered && globs > 1 {
            return Err(bad(format!("{} holds more than one glob: an unordered link may hold one", self.describe(h))));
        }
        Ok(self.push(Term::Link { ty, kids, unordered, globs: globs > 0 }))
    }

    fn only_member(&self, h: Handle) -> Result<Handle> {
        match *self.out(h) {
            [m] => Ok(m),
            _ => Err(bad(format!("{} must hold exactly one atom", self.describe(h)))),
        }
    }

    /// The pattern DefinedPredicate `h` names, to expand in a body: its
    /// definition, unless that is a LambdaLink (a predicate of arguments,
    /// evaluated, not matched).
    fn expansion(&self, h: Handle) -> Result<Option<Handle>> {
        let def = super::beta::definition(self.space, h)?;
        // Not among the query's atoms, so not yet checked.
        check_depth(self.space, def)?;
        Ok((self.ty(def)? != types::LAMBDA_LINK).then_some(def))
    }

    fn nonempty(&self, h: Handle) -> Result<&'s [Handle]> {
        let out = self.out(h);
        if out.is_empty() {
            return Err(bad(format!("{} is empty", self.describe(h))));
        }
        Ok(out)
    }

    /// The body as alternatives of conjunctions.
    fn clauses(&mut self, h: Handle) -> Result<Vec<Vec<Clause>>> {
        let t = self.ty(h)?;
        let one = |c: Clause| Ok(vec![vec![c]]);
        match t {
            // Not a clause: how the results are grouped (read in `group`).
            types::GROUP_LINK => {
                self.groups.push(h);
                Ok(vec![Vec::new()])
            }
            types::AND_LINK | types::SEQUENTIAL_AND_LINK if !self.evaluatable(h) => {
                let mut alts = vec![Vec::new()];
                for &m in self.nonempty(h)? {
                    let sub = self.clauses(m)?;
                    if alts.len() * sub.len() > MAX_ALTERNATIVES {
                        return Err(bad(format!("the body's OrLinks make more than {MAX_ALTERNATIVES} alternatives")));
                    }
                    alts = alts.iter().flat_map(|a| sub.iter().map(move |s| a.iter().chain(s).copied().collect())).collect();
                }
                Ok(alts)
            }
            types::OR_LINK | types::SEQUENTIAL_OR_LINK | types::CHOICE_LINK if !self.evaluatable(h) => {
                let mut alts = Vec::new();
                for &m in self.nonempty(h)? {
                    alts.extend(self.clauses(m)?);
                    if alts.len() > MAX_ALTERNATIVES {
                        return Err(bad(format!("the body's OrLinks make more than {MAX_ALTERNATIVES} alternatives")));
                    }
                }
                Ok(alts)
            }
            types::PRESENT_LINK | types::ABSENT_LINK | types::ALWAYS_LINK => {
                let kind = match t {
                    types::PRESENT_LINK => Kind::Present,
                    types::ABSENT_LINK => Kind::Absent,
                    _ => Kind::Always,
                };
                let mut conj = Vec::new();
                for &m in self.nonempty(h)? {
                    conj.push(self.clause(m, kind)?);
                }
                Ok(vec![conj])
            }
            types::NOT_LINK if !self.evaluatable(h) => {
                let m = self.only_member(h)?;
                one(self.clause(m, Kind::Absent)?)
            }
            // A DefinedPredicate that names a pattern: that pattern, in its
            // place, its variables the query's (upstream expands it so).
            types::DEFINED_PREDICATE_NODE => {
                let Some(def) = self.expansion(h)? else {
                    return Err(bad(format!(
                        "{} names a LambdaLink, a predicate of arguments: in a query body, apply it with an EvaluationLink or a PutLink",
                        self.describe(h)
                    )));
                };
                if self.expanded.len() >= MAX_EXPANSIONS {
                    return Err(bad(format!("{}: more than {MAX_EXPANSIONS} definitions expanded in one body (does one name itself?)", self.describe(h))));
                }
                self.expanded.push(def);
                self.clauses(def)
            }
            _ if self.evaluatable(h) => one(self.clause(h, Kind::Eval)?),
            // A Put of a predicate, a ContinuationLink: code evaluated on
            // each grounding (upstream's recursion through definitions).
            types::PUT_LINK | types::CONTINUATION_LINK => one(self.clause(h, Kind::Eval)?),
            // Code the matcher does not run yet: matching it as data would
            // answer wrong.
            t if t.is_a(types::EVALUATABLE_LINK) && t != types::EVALUATION_LINK => {
                Err(bad(format!("{} in a query body is not supported yet: the matcher does not run {}", self.describe(h), t.name())))
            }
            _ => one(self.clause(h, Kind::Present)?),
        }
    }

    fn clause(&mut self, h: Handle, kind: Kind) -> Result<Clause> {
        let evaluated = kind == Kind::Eval || (matches!(kind, Kind::Absent | Kind::Always) && self.evaluatable(h));
        if evaluated {
            self.check_evaluatable(h, &mut HashSet::default())?;
        }
        let hidden_before = self.vars.len();
        let root = self.term(h, false, true)?;
        // The types standing in it (variables of their own, made just now).
        let hidden = (hidden_before..self.vars.len()).filter(|&i| self.vars[i].hidden).fold(0u64, |m, i| m | 1 << i);
        let vars = self.vars_of(h, false)? | hidden;
        Ok(Clause { kind, root, atom: h, vars, evaluated })
    }

    /// The variables under `h`, as a bit set.
    fn vars_of(&mut self, h: Handle, quoted: bool) -> Result<u64> {
        if let Some(&v) = self.var_memo.get(&(h, quoted)) {
            return Ok(v);
        }
        let t = self.ty(h)?;
        let mut vars = 0;
        match self.index.get(&h) {
            Some(&v) if !quoted => vars = 1 << v,
            _ => {
                let quoted = match t {
                    types::QUOTE_LINK if !quoted => true,
                    types::UNQUOTE_LINK if quoted => false,
                    _ => quoted,
                };
                for &m in self.out(h) {
                    vars |= self.vars_of(m, quoted)?;
                }
            }
        }
        self.var_memo.insert((h, quoted), vars);
        Ok(vars)
    }

    /// Is `h` evaluated rather than matched?
    fn evaluatable(&self, h: Handle) -> bool {
        self.evaluatable_in(h, &mut HashMap::default())
    }

    /// [`evaluatable`](Self::evaluatable), with a memo of the connectives
    /// met (a member shared by several is looked at once).
    fn evaluatable_in(&self, h: Handle, memo: &mut HashMap<Handle, bool>) -> bool {
        match self.space.get_type(h) {
            Some(
                types::EQUAL_LINK
                | types::IDENTICAL_LINK
                | types::GREATER_THAN_LINK
                | types::LESS_THAN_LINK
                | types::TRUE_LINK
                | types::FALSE_LINK
                | types::IS_TRUE_LINK
                | types::IS_FALSE_LINK,
            ) => true,
            Some(types::EVALUATION_LINK) => super::is_grounded_evaluation(self.space, h),
            Some(types::NOT_LINK | types::AND_LINK | types::OR_LINK | types::SEQUENTIAL_AND_LINK | types::SEQUENTIAL_OR_LINK) => {
                if let Some(&known) = memo.get(&h) {
                    return known;
                }
                let out = self.out(h);
                let known = !out.is_empty() && out.iter().all(|&m| self.evaluatable_in(m, memo));
                memo.insert(h, known);
                known
            }
            _ => false,
        }
    }

    /// The arity each evaluatable link needs; `seen` holds the links
    /// already checked (a member shared by several is checked once).
    fn check_evaluatable(&self, h: Handle, seen: &mut HashSet<Handle>) -> Result<()> {
        if !seen.insert(h) {
            return Ok(());
        }
        let out = self.out(h);
        let ok = match self.ty(h)? {
            types::EQUAL_LINK | types::IDENTICAL_LINK => out.len() >= 2,
            types::GREATER_THAN_LINK | types::LESS_THAN_LINK => out.len() == 2,
            types::NOT_LINK => out.len() == 1,
            types::TRUE_LINK | types::FALSE_LINK => true,
            _ => !out.is_empty(),
        };
        if !ok {
            let need = match self.ty(h)? {
                types::EQUAL_LINK | types::IDENTICAL_LINK => "two or more atoms",
                types::NOT_LINK => "one atom",
                types::GREATER_THAN_LINK | types::LESS_THAN_LINK => "two numbers",
                _ => "at least one condition",
            };
            return Err(bad(format!("{} must hold {need}", self.describe(h))));
        }
        if matches!(self.ty(h)?, types::NOT_LINK | types::AND_LINK | types::OR_LINK | types::SEQUENTIAL_AND_LINK | types::SEQUENTIAL_OR_LINK) {
            for &m in out {
                self.check_evaluatable(m, seen)?;
            }
        }
        Ok(())
    }

    /// A rewrite: every variable in it must be one every alternative of
    /// the body grounds.
    fn rewrite(&mut self, h: Handle, grounded: u64) -> Result<TermId> {
        self.check_rewrite_vars(h, false, grounded, &mut HashSet::default())?;
        self.rewrite_term(h)
    }

    /// A rewrite's term. A scope in it (a PutLink, a LambdaLink) that binds
    /// a variable of the query's name binds its own: that variable is not
    /// the query's there, and stays as it is, as upstream's instantiation
    /// leaves it.
    fn rewrite_term(&mut self, h: Handle) -> Result<TermId> {
        let t = self.ty(h)?;
        if t.is_link() && t.is_a(types::SCOPE_LINK) {
            let shadowed: Vec<(Handle, usize)> =
                super::free::bound_by_scope(self.space, h)?.into_iter().filter_map(|v| self.index.get(&v).map(|&i| (v, i))).collect();
            if !shadowed.is_empty() {
                // Compiled apart: what is memoized here must not be reused
                // outside the scope, where the variables are the query's.
                let memo = std::mem::take(&mut self.memo);
                for (v, _) in &shadowed {
                    self.index.remove(v);
                }
                let id = self.term(h, false, false);
                self.index.extend(shadowed);
                self.memo = memo;
                return id;
            }
        }
        if !t.is_link() || matches!(t, types::QUOTE_LINK | types::LOCAL_QUOTE_LINK) || !self.shadows_within(h, &mut HashMap::default())? {
            return self.term(h, false, false);
        }
        let out = self.out(h).to_vec();
        let kids = out.iter().map(|&m| self.rewrite_term(m)).collect::<Result<Vec<_>>>()?;
        let globs = kids.iter().any(|&k| matches!(self.terms[k as usize], Term::Glob(_)));
        Ok(self.push(Term::Link { ty: t, kids, unordered: t.is_unordered(), globs }))
    }

    /// Does a scope under `h` (outside quotes) bind a query variable's name?
    fn shadows_within(&self, h: Handle, memo: &mut HashMap<Handle, bool>) -> Result<bool> {
        if let Some(&b) = memo.get(&h) {
            return Ok(b);
        }
        let t = self.ty(h)?;
        let found = if !t.is_link() || matches!(t, types::QUOTE_LINK | types::LOCAL_QUOTE_LINK) {
            false
        } else if t.is_a(types::SCOPE_LINK) && super::free::bound_by_scope(self.space, h)?.iter().any(|v| self.index.contains_key(v)) {
            true
        } else {
            let mut any = false;
            for &m in self.out(h) {
                if self.shadows_within(m, memo)? {
                    any = true;
                    break;
                }
            }
            any
        };
        memo.insert(h, found);
        Ok(found)
    }

    fn check_rewrite_vars(&self, h: Handle, quoted: bool, grounded: u64, seen: &mut HashSet<(Handle, bool)>) -> Result<()> {
        self.check_rewrite_vars_in(h, quoted, &[], grounded, seen)
    }

    /// `scopes`: the variables bound by the scopes of the rewrite around
    /// `h` (a PutLink, a LambdaLink): there a variable that is not the
    /// query's, or shares a query variable's name, is that scope's own.
    fn check_rewrite_vars_in(&self, h: Handle, quoted: bool, scopes: &[Handle], grounded: u64, seen: &mut HashSet<(Handle, bool)>) -> Result<()> {
        if !seen.insert((h, quoted)) {
            return Ok(());
        }
        let t = self.ty(h)?;
        if !quoted && matches!(t, types::VARIABLE_NODE | types::GLOB_NODE) {
            if scopes.contains(&h) {
                return Ok(());
            }
            return match self.index.get(&h) {
                Some(&v) if grounded & (1 << v) != 0 => Ok(()),
                Some(_) => {
                    Err(bad(format!("variable {} in the rewrite is not grounded: it occurs only in clauses that need not be present", self.describe(h))))
                }
                None => Err(bad(format!("variable {} in the rewrite is bound by nothing: declare it and use it in the body", self.describe(h)))),
            };
        }
        let quoted = match t {
            types::QUOTE_LINK if !quoted => true,
            types::UNQUOTE_LINK if quoted => false,
            _ => quoted,
        };
        let mut inner = scopes.to_vec();
        if !quoted && t.is_a(types::SCOPE_LINK) {
            inner.extend(super::free::bound_by_scope(self.space, h)?);
        }
        for &m in self.out(h) {
            self.check_rewrite_vars_in(m, quoted, &inner, grounded, seen)?;
        }
        Ok(())
    }
}
