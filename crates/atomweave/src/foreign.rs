//! Foreign languages read into Atomese, as upstream's foreign abstract
//! syntax trees: text in another language, parsed into the atoms it means.
//! DataLog (the declarative subset of Prolog) and s-expressions.
//!
//! An s-expression (`SexprAst`) is kept as its tree: a list is an
//! `SexprAst` link of its items, a token (a symbol, a number, a string with
//! its quotes) an `SexprAst` leaf named by it. Upstream's leaves are links
//! that carry a name; here a leaf is a node of the link type
//! ([`Type::has_named_leaves`](crate::Type::has_named_leaves)), so it
//! prints as `(SexprAst "name")`, which reads back as the same leaf.
//!
//! A fact `likes(john, mary).` is `(Evaluation (Predicate "likes") (List
//! (Concept "john") (Concept "mary")))`; a term in an argument is such an
//! Evaluation too; a name that starts with a capital letter or `_` is a
//! `(Variable NAME)`; a quoted name keeps its quotes. A rule `head :- a,
//! b.` is `(Implication (And a b) head)` (one condition is not wrapped).

use crate::sink::AtomSink;
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

/// The tree of the one s-expression `text` holds, as `SexprAst` atoms
/// added to `sink`: a token alone is a leaf, a list a link of its items
/// (nested at most 256 deep). Bad text adds nothing: it is read through
/// once before anything is added.
pub fn sexpr<S: AtomSink>(sink: &mut S, text: &str) -> Result<Handle> {
    sexpr_into(&mut crate::sexpr::load::DryRun, text)?;
    sexpr_into(sink, text)
}

fn sexpr_into<S: AtomSink>(sink: &mut S, text: &str) -> Result<Handle> {
    let error = |what: &str, at: usize| {
        let here: String = text[at..].chars().take(30).collect();
        Error::InvalidValue(format!("SexprAst: {what}, at byte {at}: {here:?}"))
    };
    let bytes = text.as_bytes();
    let skip = |mut at: usize| {
        while bytes.get(at).is_some_and(u8::is_ascii_whitespace) {
            at += 1;
        }
        at
    };
    // Items of the lists open so far, innermost last.
    let mut open: Vec<Vec<Handle>> = Vec::new();
    let mut at = skip(0);
    if at == text.len() {
        // Upstream's empty text is a leaf with an empty name.
        return sink.add_node(types::SEXPR_AST, "");
    }
    let top = loop {
        let done = match bytes.get(at) {
            None => return Err(error("the text ends inside a list", at)),
            Some(b'(') => {
                if open.len() == MAX_NESTING {
                    return Err(error(&format!("lists nested deeper than {MAX_NESTING}"), at));
                }
                open.push(Vec::new());
                at += 1;
                None
            }
            Some(b')') => {
                let items = open.pop().ok_or_else(|| error("a `)` with no `(` before it", at))?;
                at += 1;
                Some(sink.add_link(types::SEXPR_AST, &items)?)
            }
            Some(_) => {
                let start = at;
                if bytes[at] == b'"' {
                    // A string is one token, quotes and all, spaces and parentheses in it too.
                    at += 1;
                    while at < bytes.len() && bytes[at] != b'"' {
                        at += if bytes[at] == b'\\' { 2 } else { 1 };
                    }
                    if at >= bytes.len() {
                        return Err(error("a string with no closing quote", start));
                    }
                    at += 1;
                } else {
                    while at < bytes.len() && !bytes[at].is_ascii_whitespace() && !matches!(bytes[at], b'(' | b')' | b'"') {
                        at += 1;
                    }
                }
                Some(sink.add_node(types::SEXPR_AST, &text[start..at])?)
            }
        };
        at = skip(at);
        if let Some(h) = done {
            match open.last_mut() {
                Some(items) => items.push(h),
                None => break h,
            }
        }
    };
    if at != text.len() {
        return Err(error("more text after the s-expression (SexprAst takes one)", at));
    }
    Ok(top)
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

    #[test]
    fn sexpr_trees_and_leaves() {
        let s = AtomSpace::new();
        let top = sexpr(&mut &s, " (gunk (junk) \"a (b)\" stunk)\n").unwrap();
        let leaf = |n: &str| s.get_node(types::SEXPR_AST, n).unwrap();
        let junk = s.get_link(types::SEXPR_AST, &[leaf("junk")]).unwrap();
        assert_eq!(s.outgoing(top).unwrap(), [leaf("gunk"), junk, leaf("\"a (b)\""), leaf("stunk")]);
        // A token alone is the leaf; the leaf as printed reads back as itself.
        assert_eq!(sexpr(&mut &s, "stunk").unwrap(), leaf("stunk"));
        assert_eq!(one(&s, "(SexprAst \"stunk\")"), leaf("stunk"));
        assert_eq!(one(&s, "(SexprAst \"(gunk (junk) \\\"a (b)\\\" stunk)\")"), top);
        assert_eq!(crate::sexpr::atom_to_string(&s, leaf("gunk"), crate::sexpr::Form::Wire).unwrap(), "(SexprAst \"gunk\")");
        // An empty list is a link without members, not the leaf named "".
        let empty = sexpr(&mut &s, "()").unwrap();
        assert!(s.is_link(empty) && s.outgoing(empty).unwrap().is_empty());
        assert_ne!(sexpr(&mut &s, "").unwrap(), empty);
        assert_eq!(s.count_of_type(types::SEXPR_AST, false), 8);
        for (bad, says) in [("(a (b)", "ends inside"), ("a)", "more text"), ("(a) b", "more text"), (")", "no `(`"), ("(\"a)", "closing quote")] {
            let err = sexpr(&mut &s, bad).unwrap_err().to_string();
            assert!(err.contains(says), "{bad}: {err}");
        }
        let deep = format!("{}x{}", "(".repeat(300), ")".repeat(300));
        assert!(sexpr(&mut &s, &deep).unwrap_err().to_string().contains("nested"));
        assert_eq!(s.count_of_type(types::SEXPR_AST, false), 8);
    }

    #[test]
    fn leaves_and_links_of_one_type_survive_table_growth() {
        // Leaves are nodes kept in their link type's slot blocks: growing
        // the node and link dedupe tables must rebuild each from its own kind.
        let s = AtomSpace::new();
        let trees: Vec<Handle> = (0..20_000).map(|i| sexpr(&mut &s, &format!("(n{i} (m{i}))")).unwrap()).collect();
        let mut t = crate::AtomTable::new();
        for (i, &tree) in trees.iter().enumerate() {
            assert_eq!(s.get_node(types::SEXPR_AST, &format!("n{i}")).map(|h| s.is_link(h)), Some(false));
            let m = s.get_node(types::SEXPR_AST, &format!("m{i}")).unwrap();
            let inner = s.get_link(types::SEXPR_AST, &[m]).unwrap();
            assert_eq!(s.get_link(types::SEXPR_AST, &[s.get_node(types::SEXPR_AST, &format!("n{i}")).unwrap(), inner]), Some(tree));
            t.add_node(types::SEXPR_AST, &format!("n{i}")).unwrap();
        }
        assert_eq!(s.count_of_type(types::SEXPR_AST, false), 80_000);
        // Counted as what they are, in a root and in a child over it.
        assert_eq!((s.num_nodes(), s.num_links()), (40_000, 40_000));
        let child = AtomSpace::new_child(&[&s]).unwrap();
        assert_eq!((child.num_nodes(), child.num_links()), (40_000, 40_000));
        assert_eq!(crate::AtomRead::size(&t), 20_000);
        assert!(t.add_node(types::LIST_LINK, "x").is_err(), "an ordinary link type has no named leaves");
    }

    #[test]
    fn leaves_stay_leaves_in_rewrites_matches_and_order() {
        let s = AtomSpace::new();
        let a = sexpr(&mut &s, "a").unwrap();
        // Content order reads a leaf's name, as a node's: a set of leaves is
        // ordered by them, not by which was made first.
        let leaves: Vec<Handle> = (0..8).rev().map(|i| sexpr(&mut &s, &format!("n{i}")).unwrap()).collect();
        let set = s.add_link(types::SET_LINK, &leaves).unwrap();
        let names: Vec<&str> = s.outgoing(set).unwrap().iter().map(|&h| s.name(h).unwrap()).collect();
        assert_eq!(names, ["n0", "n1", "n2", "n3", "n4", "n5", "n6", "n7"]);
        // A rewrite keeps a leaf (it was rebuilt as a link of no members).
        let put = one(&s, "(Put (List (Variable \"$x\") (SexprAst \"a\")) (Concept \"c\"))");
        let c = s.get_node(types::CONCEPT_NODE, "c").unwrap();
        let crate::query::Executed::Atom(got) = crate::query::execute(&s, put).unwrap() else { panic!("a Put gives an atom") };
        assert_eq!(Some(got), s.get_link(types::LIST_LINK, &[c, a]));
        // A leaf in a pattern matches itself only.
        let get = one(&s, "(Get (Present (List (Variable \"$y\") (SexprAst \"b\"))))");
        sexpr(&mut &s, "()").unwrap();
        one(&s, "(List (Concept \"d\") (SexprAst \"a\"))");
        let found = crate::query::execute(&s, get).unwrap();
        assert!(matches!(found, crate::query::Executed::Atom(h) if s.outgoing(h).unwrap().is_empty()), "no (List ... leaf b) exists: {found:?}");
    }
}
