//! Foreign languages read into Atomese, as upstream's foreign abstract
//! syntax trees (`DatalogAst`): text in another language, parsed into the
//! atoms it means. Only DataLog (the declarative subset of Prolog) for now.
//!
//! A fact `likes(john, mary).` is `(Evaluation (Predicate "likes") (List
//! (Concept "john") (Concept "mary")))`; a term in an argument is such an
//! Evaluation too; a name that starts with a capital letter or `_` is a
//! `(Variable NAME)`; a quoted name keeps its quotes. A rule `head :- a,
//! b.` is `(Implication (And a b) head)` (one condition is not wrapped).

use crate::{types, AtomSpace, Error, Handle, Result};

/// Most terms nested in one another: deeper text is refused, not recursed.
const MAX_NESTING: usize = 256;

/// The clauses of DataLog program `text`, as atoms of `space`, in order.
pub fn datalog(space: &AtomSpace, text: &str) -> Result<Vec<Handle>> {
    let mut p = Datalog { space, text, at: 0 };
    let mut clauses = Vec::new();
    loop {
        p.skip_space();
        if p.at == text.len() {
            break;
        }
        clauses.push(p.clause()?);
    }
    if clauses.is_empty() {
        return Err(p.error("no clause (a DataLog clause ends with a period)"));
    }
    Ok(clauses)
}

struct Datalog<'a> {
    space: &'a AtomSpace,
    text: &'a str,
    at: usize,
}

impl<'a> Datalog<'a> {
    /// `what` was wrong at the current place: its line and column, and
    /// the text there.
    fn error(&self, what: &str) -> Error {
        let before = &self.text[..self.at];
        let line = before.matches('\n').count() + 1;
        let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
        let here: String = self.rest().chars().take(30).collect();
        Error::InvalidValue(format!("DataLog: {what}, at line {line}, column {column}: {here:?}"))
    }

    fn rest(&self) -> &'a str {
        &self.text[self.at..]
    }

    fn skip_space(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.at += rest.len() - trimmed.len();
            // A comment runs to the end of its line.
            if trimmed.starts_with('%') {
                self.at += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    fn eat(&mut self, s: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(s) {
            self.at += s.len();
            true
        } else {
            false
        }
    }

    fn clause(&mut self) -> Result<Handle> {
        let head = self.term(0)?;
        let clause = if self.eat(":-") {
            let mut body = vec![self.term(0)?];
            while self.eat(",") {
                body.push(self.term(0)?);
            }
            let condition = match body[..] {
                [one] => one,
                _ => self.space.add_link(types::AND_LINK, &body)?,
            };
            self.space.add_link(types::IMPLICATION_LINK, &[condition, head])?
        } else {
            head
        };
        if !self.eat(".") {
            return Err(self.error("expected a period at the end of the clause"));
        }
        Ok(clause)
    }

    /// A name, alone or applied to arguments.
    fn term(&mut self, depth: usize) -> Result<Handle> {
        if depth > MAX_NESTING {
            return Err(self.error(&format!("terms nested more than {MAX_NESTING} deep")));
        }
        let name = self.name()?;
        if !self.eat("(") {
            let variable = name.starts_with(|c: char| c.is_uppercase() || c == '_');
            return self.space.add_node(if variable { types::VARIABLE_NODE } else { types::CONCEPT_NODE }, &name);
        }
        let mut args = vec![self.term(depth + 1)?];
        while self.eat(",") {
            args.push(self.term(depth + 1)?);
        }
        if !self.eat(")") {
            return Err(self.error("expected ')' after the arguments"));
        }
        let pred = self.space.add_node(types::PREDICATE_NODE, &name)?;
        let list = self.space.add_link(types::LIST_LINK, &args)?;
        self.space.add_link(types::EVALUATION_LINK, &[pred, list])
    }

    /// An identifier, a number, or a quoted name (quotes kept).
    fn name(&mut self) -> Result<String> {
        self.skip_space();
        let rest = self.rest();
        let len = if let Some(body) = rest.strip_prefix('\'') {
            1 + body.find('\'').ok_or_else(|| self.error("a quoted name is not closed"))? + 1
        } else {
            rest.find(|c: char| !(c.is_alphanumeric() || c == '_')).unwrap_or(rest.len())
        };
        if len == 0 {
            return Err(self.error("expected a name"));
        }
        let name = rest[..len].to_string();
        self.at += len;
        Ok(name)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sexpr::load_str;

    fn one(space: &AtomSpace, text: &str) -> Handle {
        *load_str(&mut &*space, text).unwrap().last().unwrap()
    }

    #[test]
    fn facts_rules_variables_and_quotes() {
        let s = AtomSpace::new();
        assert_eq!(datalog(&s, "likes(john, mary).").unwrap(), [one(&s, r#"(Evaluation (Predicate "likes") (List (Concept "john") (Concept "mary")))"#)]);
        assert_eq!(
            datalog(&s, "likes('John', car(bmw)). % a comment\n").unwrap(),
            [one(&s, r#"(Evaluation (Predicate "likes") (List (Concept "'John'") (Evaluation (Predicate "car") (List (Concept "bmw")))))"#)]
        );
        assert_eq!(
            datalog(&s, "girl(sue) :- daughter(sue,mary).").unwrap(),
            [one(
                &s,
                r#"(Implication (Evaluation (Predicate "daughter") (List (Concept "sue") (Concept "mary"))) (Evaluation (Predicate "girl") (List (Concept "sue"))))"#
            )]
        );
        let rule = datalog(&s, "friends(X, Y) :- likes(X, Y), likes(Y, X). a(b).").unwrap();
        assert_eq!(rule.len(), 2);
        assert_eq!(
            rule[0],
            one(
                &s,
                r#"(Implication (And (Evaluation (Predicate "likes") (List (Variable "X") (Variable "Y")))
                                     (Evaluation (Predicate "likes") (List (Variable "Y") (Variable "X"))))
                                (Evaluation (Predicate "friends") (List (Variable "X") (Variable "Y"))))"#
            )
        );
        assert_eq!(datalog(&s, "likes(john, 'M foo, (()), barf').").unwrap().len(), 1);
    }

    #[test]
    fn bad_text_is_an_error_that_says_where() {
        let s = AtomSpace::new();
        for (text, want) in [("likes(john, mary)", "period"), ("likes(john", "')'"), ("'open", "not closed"), ("", "no clause"), ("(x).", "expected a name")] {
            let err = datalog(&s, text).unwrap_err().to_string();
            assert!(err.contains(want), "{text:?}: {err}");
        }
        let err = datalog(&s, "a(b).\nlikes(john mary).").unwrap_err().to_string();
        assert!(err.contains("line 2, column 12") && err.contains("\"mary).\""), "{err}");
        let deep = format!("{}x{}.", "f(".repeat(1000), ")".repeat(1000));
        assert!(datalog(&s, &deep).unwrap_err().to_string().contains("nested"));
    }
}
