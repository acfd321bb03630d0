//! Rewrites: the terms a BindLink or QueryLink instantiates per
//! grounding, and the check that the body grounds each of their variables.

use super::*;

impl<'s> Compiler<'s> {
    /// A rewrite: every variable in it must be one every alternative of
    /// the body grounds.
    pub(super) fn rewrite(&mut self, h: Handle, grounded: u64) -> Result<TermId> {
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
                super::super::free::bound_by_scope(self.space, h)?.into_iter().filter_map(|v| self.index.get(&v).map(|&i| (v, i))).collect();
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
        } else if t.is_a(types::SCOPE_LINK) && super::super::free::bound_by_scope(self.space, h)?.iter().any(|v| self.index.contains_key(v)) {
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
            inner.extend(super::super::free::bound_by_scope(self.space, h)?);
        }
        for &m in self.out(h) {
            self.check_rewrite_vars_in(m, quoted, &inner, grounded, seen)?;
        }
        Ok(())
    }
}
