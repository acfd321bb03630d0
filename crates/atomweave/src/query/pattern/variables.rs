//! Variable declarations (VariableNode, GlobNode, TypedVariable,
//! VariableList, VariableSet) and their type restrictions.

use super::*;

impl<'s> Compiler<'s> {
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

    pub(super) fn declare(&mut self, d: Handle) -> Result<()> {
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
    pub(super) fn restriction(&mut self, spec: Handle, var: usize, bits: &mut [u64], restricted: &mut bool) -> Result<()> {
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
            let v = super::super::eval::numbers_of(self.space, n)?;
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
    pub(super) fn free_variables(&mut self, h: Handle, quoted: bool, seen: &mut HashSet<(Handle, bool)>) -> Result<()> {
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
    pub(super) fn typed_scans(&mut self, alt: &mut Vec<Clause>) -> Result<()> {
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
}
