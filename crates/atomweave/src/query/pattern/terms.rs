//! Atoms of a query compiled to [`Term`]s: constants, variables, globs,
//! links and choices, each shared subterm compiled once.

use super::*;

impl<'s> Compiler<'s> {
    /// `alt` with the clauses its evaluated clauses imply: an atom of data
    /// inside one (the Evaluation in `(IsTrue (Evaluation p $x))` or in
    /// `(GreaterThan (StrengthOf (Evaluation p $x)) ...)`), holding a
    /// variable no present clause grounds, must be present for the clause
    /// to be about anything, as upstream takes it.
    pub(super) fn implied(&mut self, mut alt: Vec<Clause>) -> Result<Vec<Clause>> {
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
    pub(super) fn group(&self) -> Result<Option<Group>> {
        let g = match self.groups[..] {
            [] => return Ok(None),
            [g] => g,
            _ => return Err(bad("a body may hold one GroupLink".into())),
        };
        let mut group = Group { vars: Vec::new(), lo: 1, hi: usize::MAX };
        for &m in self.out(g) {
            match self.ty(m)? {
                types::INTERVAL_LINK => {
                    let bound = |n: Handle| super::super::eval::numbers_of(self.space, n).and_then(|v| v.first().copied());
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

    pub(super) fn push(&mut self, t: Term) -> TermId {
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
    pub(super) fn term(&mut self, h: Handle, quoted: bool, choice: bool) -> Result<TermId> {
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

    pub(super) fn only_member(&self, h: Handle) -> Result<Handle> {
        match *self.out(h) {
            [m] => Ok(m),
            _ => Err(bad(format!("{} must hold exactly one atom", self.describe(h)))),
        }
    }

    /// The pattern DefinedPredicate `h` names, to expand in a body: its
    /// definition, unless that is a LambdaLink (a predicate of arguments,
    /// evaluated, not matched).
    pub(super) fn expansion(&self, h: Handle) -> Result<Option<Handle>> {
        let def = super::super::beta::definition(self.space, h)?;
        // Not among the query's atoms, so not yet checked.
        check_depth(self.space, def)?;
        Ok((self.ty(def)? != types::LAMBDA_LINK).then_some(def))
    }

    pub(super) fn nonempty(&self, h: Handle) -> Result<&'s [Handle]> {
        let out = self.out(h);
        if out.is_empty() {
            return Err(bad(format!("{} is empty", self.describe(h))));
        }
        Ok(out)
    }
}
