//! Compiling a query link into a [`Pattern`]: variables with their type
//! restrictions, the body as alternatives of clause conjunctions, and the
//! rewrites, all as [`Term`] trees.

use super::{HashMap, HashSet};

use super::{bad, describe};
use crate::error::Result;
use crate::types::{self, Type};
use crate::{AtomSpace, Handle};

pub(crate) type TermId = u32;

/// A node of a compiled pattern or rewrite.
#[derive(Debug)]
pub(crate) enum Term {
    /// An atom matched by identity: a node, or a link holding no variable.
    Const(Handle),
    /// A variable (an index into [`Pattern::vars`]).
    Var(usize),
    /// A glob: a run of members of an ordered link.
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
    /// Run length bounds of a glob.
    pub lo: usize,
    pub hi: usize,
}

impl Var {
    #[inline]
    pub fn allows(&self, t: Type) -> bool {
        let i = usize::from(t.0);
        self.types.as_ref().is_none_or(|bits| bits.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0))
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

#[derive(Debug)]
pub(crate) struct Clause {
    pub kind: Kind,
    /// The pattern term (for `Eval`, unused: the atom is evaluated).
    pub root: TermId,
    /// The clause's atom in the query.
    pub atom: Handle,
    /// Variables occurring in the clause, as a bit set.
    pub vars: u64,
    /// An Absent or Always clause that is evaluated (e.g. a GreaterThanLink),
    /// not looked for in the space.
    pub evaluated: bool,
}

/// A compiled query.
#[derive(Debug)]
pub(crate) struct Pattern {
    pub terms: Vec<Term>,
    pub vars: Vec<Var>,
    /// Alternatives (from OrLink/ChoiceLink of clauses), each a conjunction.
    pub alternatives: Vec<Vec<Clause>>,
    pub rewrites: Vec<TermId>,
    /// The query's variables and every link that contains one: never groundings.
    pub forbidden: HashSet<Handle>,
}

/// Most variables a query may declare (they are tracked in `u64` bit sets).
const MAX_VARS: usize = 64;
/// Most alternatives OrLinks may multiply out to.
const MAX_ALTERNATIVES: usize = 4096;

pub(crate) fn is_vardecl_type(t: Type) -> bool {
    matches!(t, types::VARIABLE_NODE | types::GLOB_NODE | types::TYPED_VARIABLE_LINK | types::VARIABLE_LIST | types::VARIABLE_SET)
}

struct Compiler<'s> {
    space: &'s AtomSpace,
    terms: Vec<Term>,
    vars: Vec<Var>,
    index: HashMap<Handle, usize>,
}

impl Pattern {
    /// Compiles `vardecl` (if any), `body` and `rewrites`. Without a
    /// declaration, the body's variables in order of first appearance.
    pub fn compile(space: &AtomSpace, vardecl: Option<Handle>, body: Handle, rewrites: &[Handle]) -> Result<Pattern> {
        let mut c = Compiler { space, terms: Vec::new(), vars: Vec::new(), index: HashMap::default() };
        match vardecl {
            Some(d) => c.declare(d)?,
            None => c.free_variables(body, false)?,
        }
        let mut seen = 0u64;
        let alternatives = c.clauses(body)?;
        for alt in &alternatives {
            for cl in alt {
                seen |= cl.vars;
            }
        }
        if let Some(v) = c.vars.iter().enumerate().find(|(i, _)| seen & (1 << i) == 0) {
            return Err(bad(format!("declared variable {} does not occur in the body", describe(space, v.1.handle))));
        }
        for alt in &alternatives {
            let present = alt.iter().filter(|c| c.kind == Kind::Present).fold(0, |m, c| m | c.vars);
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
        let rewrites = rewrites.iter().map(|&r| c.rewrite(r)).collect::<Result<Vec<_>>>()?;
        let forbidden = forbidden(space, c.vars.iter().map(|v| v.handle));
        Ok(Pattern { terms: c.terms, vars: c.vars, alternatives, rewrites, forbidden })
    }

    pub fn term(&self, id: TermId) -> &Term {
        &self.terms[id as usize]
    }
}

/// The variables and every link above them: what the query itself is made of.
pub(crate) fn forbidden(space: &AtomSpace, vars: impl Iterator<Item = Handle>) -> HashSet<Handle> {
    let mut set: HashSet<Handle> = HashSet::default();
    let mut work: Vec<Handle> = vars.collect();
    while let Some(h) = work.pop() {
        if set.insert(h) {
            if let Some(inc) = space.incoming(h) {
                work.extend(inc.iter().copied().filter(|l| !set.contains(l)));
            }
        }
    }
    set
}

impl Compiler<'_> {
    fn ty(&self, h: Handle) -> Result<Type> {
        self.space.get_type(h).ok_or(crate::Error::InvalidHandle(h))
    }

    fn out(&self, h: Handle) -> &[Handle] {
        self.space.outgoing(h).unwrap_or(&[])
    }

    fn add_var(&mut self, h: Handle) -> Result<usize> {
        if let Some(&i) = self.index.get(&h) {
            return Ok(i);
        }
        if self.vars.len() == MAX_VARS {
            return Err(bad(format!("more than {MAX_VARS} variables")));
        }
        let glob = self.ty(h)? == types::GLOB_NODE;
        self.vars.push(Var { handle: h, glob, types: None, lo: 1, hi: usize::MAX });
        self.index.insert(h, self.vars.len() - 1);
        Ok(self.vars.len() - 1)
    }

    fn declare(&mut self, d: Handle) -> Result<()> {
        match self.ty(d)? {
            types::VARIABLE_NODE | types::GLOB_NODE => self.add_var(d).map(drop),
            types::TYPED_VARIABLE_LINK => {
                let [v, spec] = *self.out(d) else {
                    return Err(bad(format!("{} must hold a variable and a type", describe(self.space, d))));
                };
                if !matches!(self.ty(v)?, types::VARIABLE_NODE | types::GLOB_NODE) {
                    return Err(bad(format!(
                        "{} must start with a VariableNode or GlobNode, not {}",
                        describe(self.space, d),
                        describe(self.space, v)
                    )));
                }
                let i = self.add_var(v)?;
                let mut bits = vec![0u64; types::type_count().div_ceil(64)];
                let mut any_type = false;
                self.restriction(spec, i, &mut bits, &mut any_type)?;
                if any_type {
                    self.vars[i].types = Some(bits);
                }
                Ok(())
            }
            types::VARIABLE_LIST | types::VARIABLE_SET => {
                for &m in self.out(d).to_vec().iter() {
                    if matches!(self.ty(m)?, types::VARIABLE_LIST | types::VARIABLE_SET) || !is_vardecl_type(self.ty(m)?) {
                        return Err(bad(format!(
                            "{} may hold only VariableNodes, GlobNodes and TypedVariableLinks, not {}",
                            describe(self.space, d),
                            describe(self.space, m)
                        )));
                    }
                    self.declare(m)?;
                }
                Ok(())
            }
            _ => Err(bad(format!("{} is not a variable declaration", describe(self.space, d)))),
        }
    }

    /// Reads a type restriction into `bits` (and glob bounds into the variable).
    fn restriction(&mut self, spec: Handle, var: usize, bits: &mut [u64], any_type: &mut bool) -> Result<()> {
        let t = self.ty(spec)?;
        let mut set = |t: Type| bits[usize::from(t.0) / 64] |= 1 << (usize::from(t.0) % 64);
        match t {
            types::TYPE_NODE | types::TYPE_INH_NODE => {
                let name = self.space.name(spec).unwrap_or_default();
                let named = Type::from_name(name).ok_or_else(|| bad(format!("unknown type {name:?} in {}", describe(self.space, spec))))?;
                if t == types::TYPE_NODE {
                    set(named);
                } else {
                    named.subtypes().into_iter().for_each(set);
                }
                *any_type = true;
            }
            types::TYPE_CHOICE => {
                for &m in self.out(spec).to_vec().iter() {
                    self.restriction(m, var, bits, any_type)?;
                }
            }
            types::INTERVAL_LINK => {
                let nums: Vec<f64> = self.out(spec).iter().filter_map(|&n| self.number(n)).collect();
                let ([lo, hi], true) = (nums[..] .try_into().unwrap_or([f64::NAN; 2]), self.vars[var].glob) else {
                    return Err(bad(format!("{} must bound a GlobNode with two NumberNodes", describe(self.space, spec))));
                };
                if !(lo >= 0.0) {
                    return Err(bad(format!("{}: the lower bound must be 0 or more", describe(self.space, spec))));
                }
                self.vars[var].lo = lo as usize;
                self.vars[var].hi = if hi < 0.0 { usize::MAX } else { hi as usize };
            }
            _ => return Err(bad(format!("unsupported type restriction {}", describe(self.space, spec)))),
        }
        Ok(())
    }

    fn number(&self, h: Handle) -> Option<f64> {
        if self.space.get_type(h)? != types::NUMBER_NODE {
            return None;
        }
        self.space.name(h)?.split_whitespace().next()?.parse().ok()
    }

    /// Declares the body's unquoted variables, in order of first appearance.
    fn free_variables(&mut self, h: Handle, quoted: bool) -> Result<()> {
        let t = self.ty(h)?;
        match t {
            types::VARIABLE_NODE | types::GLOB_NODE if !quoted => return self.add_var(h).map(drop),
            types::QUOTE_LINK if !quoted => return self.each_member(h, true),
            types::UNQUOTE_LINK if quoted => return self.each_member(h, false),
            _ => {}
        }
        if t.is_link() {
            self.each_member(h, quoted)?;
        }
        Ok(())
    }

    fn each_member(&mut self, h: Handle, quoted: bool) -> Result<()> {
        for &m in self.out(h).to_vec().iter() {
            self.free_variables(m, quoted)?;
        }
        Ok(())
    }

    fn push(&mut self, t: Term) -> TermId {
        self.terms.push(t);
        (self.terms.len() - 1) as TermId
    }

    /// Compiles a term; `choice` makes ChoiceLinks alternatives (in patterns, not rewrites).
    fn term(&mut self, h: Handle, quoted: bool, choice: bool) -> Result<TermId> {
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
                    let kids = self.out(h).to_vec().into_iter().map(|m| self.term(m, false, choice)).collect::<Result<Vec<_>>>()?;
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
        let out = self.out(h).to_vec();
        let kids = out.iter().map(|&m| self.term(m, quoted, choice)).collect::<Result<Vec<_>>>()?;
        let same = kids.iter().zip(&out).all(|(&k, &m)| matches!(self.terms[k as usize], Term::Const(c) if c == m));
        if same {
            // Nothing to match inside: compare the link itself.
            self.terms.truncate(kids.first().map_or(self.terms.len(), |&k| k as usize));
            return Ok(self.push(Term::Const(h)));
        }
        let globs = kids.iter().any(|&k| matches!(self.terms[k as usize], Term::Glob(_)));
        let unordered = ty.is_unordered();
        if unordered && kids.iter().filter(|&&k| matches!(self.terms[k as usize], Term::Glob(_))).count() > 1 {
            return Err(bad(format!("{} holds more than one glob: an unordered link may hold one", describe(self.space, h))));
        }
        Ok(self.push(Term::Link { ty, kids, unordered, globs }))
    }

    fn only_member(&self, h: Handle) -> Result<Handle> {
        match *self.out(h) {
            [m] => Ok(m),
            _ => Err(bad(format!("{} must hold exactly one atom", describe(self.space, h)))),
        }
    }

    /// The body as alternatives of conjunctions.
    fn clauses(&mut self, h: Handle) -> Result<Vec<Vec<Clause>>> {
        let t = self.ty(h)?;
        let out = self.out(h).to_vec();
        let one = |c: Clause| Ok(vec![vec![c]]);
        match t {
            types::AND_LINK if !self.evaluatable(h) => {
                let mut alts = vec![Vec::new()];
                for m in out {
                    let sub = self.clauses(m)?;
                    if alts.len() * sub.len() > MAX_ALTERNATIVES {
                        return Err(bad(format!("the body's OrLinks make more than {MAX_ALTERNATIVES} alternatives")));
                    }
                    alts = alts.iter().flat_map(|a| sub.iter().map(move |s| a.iter().chain(s).map(Clause::copy).collect())).collect();
                }
                Ok(alts)
            }
            types::OR_LINK | types::CHOICE_LINK if !self.evaluatable(h) => {
                let mut alts = Vec::new();
                for m in out {
                    alts.extend(self.clauses(m)?);
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
                for m in out {
                    conj.push(self.clause(m, kind)?);
                }
                Ok(vec![conj])
            }
            types::NOT_LINK if !self.evaluatable(h) => {
                let [m] = out[..] else { return Err(bad(format!("{} must hold exactly one atom", describe(self.space, h)))) };
                one(self.clause(m, Kind::Absent)?)
            }
            _ if self.evaluatable(h) => one(self.clause(h, Kind::Eval)?),
            _ => one(self.clause(h, Kind::Present)?),
        }
    }

    fn clause(&mut self, h: Handle, kind: Kind) -> Result<Clause> {
        let root = self.term(h, false, true)?;
        let mut vars = 0u64;
        self.collect_vars(h, false, &mut vars)?;
        let evaluated = kind == Kind::Eval || (matches!(kind, Kind::Absent | Kind::Always) && self.evaluatable(h));
        Ok(Clause { kind, root, atom: h, vars, evaluated })
    }

    fn collect_vars(&self, h: Handle, quoted: bool, vars: &mut u64) -> Result<()> {
        let t = self.ty(h)?;
        if !quoted {
            if let Some(&v) = self.index.get(&h) {
                *vars |= 1 << v;
                return Ok(());
            }
        }
        let quoted = match t {
            types::QUOTE_LINK if !quoted => true,
            types::UNQUOTE_LINK if quoted => false,
            _ => quoted,
        };
        for &m in self.out(h) {
            self.collect_vars(m, quoted, vars)?;
        }
        Ok(())
    }

    /// Is `h` evaluated rather than matched?
    fn evaluatable(&self, h: Handle) -> bool {
        match self.space.get_type(h) {
            Some(types::EQUAL_LINK | types::IDENTICAL_LINK | types::GREATER_THAN_LINK | types::LESS_THAN_LINK | types::TRUE_LINK | types::FALSE_LINK) => true,
            Some(types::NOT_LINK | types::AND_LINK | types::OR_LINK) => {
                let out = self.out(h);
                !out.is_empty() && out.iter().all(|&m| self.evaluatable(m))
            }
            _ => false,
        }
    }

    /// A rewrite: every variable in it must be one the body grounds.
    fn rewrite(&mut self, h: Handle) -> Result<TermId> {
        self.check_rewrite_vars(h, false)?;
        self.term(h, false, false)
    }

    fn check_rewrite_vars(&self, h: Handle, quoted: bool) -> Result<()> {
        let t = self.ty(h)?;
        if !quoted && matches!(t, types::VARIABLE_NODE | types::GLOB_NODE) && !self.index.contains_key(&h) {
            return Err(bad(format!("variable {} in the rewrite is bound by nothing: declare it and use it in the body", describe(self.space, h))));
        }
        let quoted = match t {
            types::QUOTE_LINK if !quoted => true,
            types::UNQUOTE_LINK if quoted => false,
            _ => quoted,
        };
        for &m in self.out(h) {
            self.check_rewrite_vars(m, quoted)?;
        }
        Ok(())
    }
}

impl Clause {
    fn copy(&self) -> Clause {
        Clause { kind: self.kind, root: self.root, atom: self.atom, vars: self.vars, evaluated: self.evaluated }
    }
}
