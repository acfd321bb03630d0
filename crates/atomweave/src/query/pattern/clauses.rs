//! The body as alternatives of clause conjunctions: present, absent and
//! always clauses, and the evaluatable ones (comparisons, And/Or/Not of
//! them) run once their variables are grounded.

use super::*;

impl<'s> Compiler<'s> {
    /// The body as alternatives of conjunctions.
    pub(super) fn clauses(&mut self, h: Handle) -> Result<Vec<Vec<Clause>>> {
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

    pub(super) fn clause(&mut self, h: Handle, kind: Kind) -> Result<Clause> {
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
    pub(super) fn vars_of(&mut self, h: Handle, quoted: bool) -> Result<u64> {
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
    pub(super) fn evaluatable(&self, h: Handle) -> bool {
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
            Some(types::EVALUATION_LINK) => super::super::is_grounded_evaluation(self.space, h),
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
}
