//! The `sexpr` shell: one Atomese command in, one s-expression out, per
//! line. It is what the network StorageNode client (`cog://`) speaks, and
//! what `atomweave bench --server` measures.
//!
//! Commands and replies are upstream's (the reply is shown without its
//! newline; atoms print as `(ListLink (ConceptNode "a")(ConceptNode "b"))`):
//!
//! | command | reply |
//! |---|---|
//! | `(cog-node 'T "name")`, `(cog-link 'T A ...)` | the atom, or `()` |
//! | `(cog-set-value! A K V)` (`V` = `#f` removes), `(cog-set-values! A (alist ...))`, `(cog-set-tv! A TV)` | `()`; A is added |
//! | `(cog-update-value! A K (FloatValue d ...))` | `()`; adds the delta atomically |
//! | `(cog-value A K)` | the value, or ` #f` |
//! | `(cog-keys->alist A)` | `((K . V)...)` |
//! | `(cog-incoming-set A)`, `(cog-incoming-by-type A 'T)` | `(L...)` |
//! | `(cog-get-atoms 'T)`, `(cog-get-atoms 'T #t)` (subtypes too) | `(A...)` |
//! | `(cog-extract! A)`, `(cog-extract-recursive! A)` | `#t` (also if A is absent), `#f` if links hold A |
//! | `(cog-execute-cache! Q K [M [#t]])` | the result, kept on Q under K; a kept one unless `#t` |
//! | `(cog-atomspace-clear)` | `#t` |
//! | `(cog-version)` | `0.1.0` |
//! | `(barrier)` | `()` once every write before it is durable in the store |
//! | `(ping)`, `ping`, `(cog-atomspace)` | `()` |
//! | `(ConceptNode "a")`, any atom, also with values (not upstream) | the atom, added |
//!
//! Where upstream differs, on purpose: a read (`cog-value`,
//! `cog-incoming-set`, ...) looks atoms up and never adds them; and a bad
//! command is answered `(error "what was wrong")`, changing nothing, where
//! upstream logs it and sends nothing, which leaves its client waiting.

use atomweave::query::{self, Executed};
use atomweave::sexpr::{self, parse_str, write_str_literal, write_structure_upto, write_value_upto, Expr, TooLarge};
use atomweave::types::Type;
use atomweave::{AtomSpace, Handle, Value};

use crate::{Role, State};

/// Runs one complete command and appends its reply (without the newline);
/// whether it succeeded (else the reply is an error).
pub fn eval(cx: &State, command: &str, out: &mut String) -> bool {
    eval_as(cx, Role::Write, command, out)
}

/// [`eval`] for a client of role `role`: a read token's may not run a
/// command that changes the space (adding an atom included), and its
/// `cog-execute-cache!` runs in a frame of its own over the space, dropped
/// after the reply.
pub fn eval_as(cx: &State, role: Role, command: &str, out: &mut String) -> bool {
    let end = out.len().saturating_add(crate::MAX_REPLY);
    let result = parse_str(command).map_err(|e| e.to_string()).and_then(|exprs| match exprs.as_slice() {
        [] => Ok(()),
        [e] if role == Role::Read => run_read(cx, e, out, end),
        [e] => run(cx, e, out, end),
        _ => Err("one command per line".to_string()),
    });
    if let Err(msg) = &result {
        out.clear();
        error_reply(msg, out);
    }
    result.is_ok()
}

/// `(error "msg")`, the reply to a command that failed.
pub fn error_reply(msg: &str, out: &mut String) {
    out.push_str("(error ");
    write_str_literal(out, msg);
    out.push(')');
}

/// Whether the text fed so far holds an unfinished expression (an open
/// list, string or block comment): the shells then wait for more lines. Fed
/// line by line, so a long multi-line expression is scanned once, not once
/// per line. Scheme's character literals (`#\(`) and block comments
/// (`#| ... |#`, nested) count as the scm shell's text needs.
#[derive(Default)]
pub struct Balance {
    depth: i64,
    in_str: bool,
    escaped: bool,
    comment: bool,
    /// The last byte was `#` (outside strings and comments).
    hash: bool,
    /// The next byte is a character literal's.
    char_lit: bool,
    /// Block comment nesting, and its last byte when that was `|` or `#`.
    block: u32,
    block_last: u8,
}

impl Balance {
    pub fn feed(&mut self, text: &str) {
        for b in text.bytes() {
            if self.comment {
                self.comment = b != b'\n';
            } else if self.in_str {
                match b {
                    _ if self.escaped => self.escaped = false,
                    b'\\' => self.escaped = true,
                    b'"' => self.in_str = false,
                    _ => {}
                }
            } else if self.char_lit {
                self.char_lit = false;
            } else if self.block > 0 {
                match (self.block_last, b) {
                    (b'|', b'#') => self.block -= 1,
                    (b'#', b'|') => self.block += 1,
                    _ => {}
                }
                // A closing or opening pair's bytes start no other pair.
                self.block_last = if matches!((self.block_last, b), (b'|', b'#') | (b'#', b'|')) { 0 } else { b };
            } else if std::mem::take(&mut self.hash) && matches!(b, b'\\' | b'|') {
                if b == b'\\' {
                    self.char_lit = true;
                } else {
                    self.block = 1;
                    self.block_last = 0;
                }
            } else {
                match b {
                    b'"' => self.in_str = true,
                    b';' => self.comment = true,
                    b'(' => self.depth += 1,
                    b')' => self.depth -= 1,
                    b'#' => self.hash = true,
                    _ => {}
                }
            }
        }
    }

    pub fn incomplete(&self) -> bool {
        self.in_str || self.depth > 0 || self.block > 0
    }
}

/// The error of a reply that would pass `end`.
fn too_long(_: TooLarge) -> String {
    format!("the reply would be longer than {} MiB (members shared inside links print at every place they occur)", crate::MAX_REPLY >> 20)
}

/// [`run`] for a read token's client.
/// Only the commands named here run: one added later is refused until it
/// is listed, rather than let through unchecked.
fn run_read(cx: &State, e: &Expr, out: &mut String, end: usize) -> Result<(), String> {
    let head = match e {
        Expr::Symbol(s, _) => s.as_str(),
        Expr::List(items, _) => match items.first() {
            Some(Expr::Symbol(h, _)) => h.as_str(),
            _ => "",
        },
        _ => "",
    };
    match head {
        "cog-node"
        | "cog-link"
        | "cog-value"
        | "cog-keys->alist"
        | "cog-incoming-set"
        | "cog-incoming-by-type"
        | "cog-get-atoms"
        | "cog-version"
        | "barrier"
        | "ping"
        | "cog-atomspace" => run(cx, e, out, end),
        "cog-execute-cache!" => run(&cx.frame()?, e, out, end),
        _ => Err(crate::read_only_refusal(if head.is_empty() { "this command" } else { head })),
    }
}

/// Runs a command, its reply written to `out` up to `end` bytes: one
/// function per command.
fn run(cx: &State, e: &Expr, out: &mut String, end: usize) -> Result<(), String> {
    let space = &cx.space;
    let (head, args) = match e {
        Expr::Symbol(s, _) if s == "ping" => return nil(out),
        Expr::List(items, _) => match items.split_first() {
            Some((Expr::Symbol(h, _), rest)) => (h.as_str(), rest),
            _ => return Err("expected a command such as (cog-node 'ConceptNode \"a\")".into()),
        },
        _ => return Err("expected a command such as (cog-node 'ConceptNode \"a\")".into()),
    };
    match head {
        "cog-node" => cog_node(space, args, out, end),
        "cog-link" => cog_link(space, args, out, end),
        "cog-set-value!" if matches!(args, [_, _, v] if is_none(v)) => remove_value(cx, args, out),
        "cog-set-value!" | "cog-set-values!" | "cog-set-tv!" => set_values(cx, e, out),
        "cog-update-value!" => update_value(cx, args, out),
        "cog-value" => cog_value(space, args, out, end),
        "cog-keys->alist" => keys_alist(space, args, out, end),
        "cog-incoming-set" => incoming_set(space, args, out, end),
        "cog-incoming-by-type" => incoming_by_type(space, args, out, end),
        "cog-get-atoms" => get_atoms(space, args, out, end),
        "cog-extract!" | "cog-extract-recursive!" => extract(cx, head, args, out),
        "cog-execute-cache!" => execute_cache(cx, args, out, end),
        "cog-atomspace-clear" => clear(cx, out),
        "cog-version" => {
            out.push_str(env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        "barrier" if args.is_empty() => {
            cx.barrier()?;
            nil(out)
        }
        "ping" | "cog-atomspace" if args.is_empty() => nil(out),
        _ if Type::from_name(head).is_some_and(|t| t.is_atom()) => add_atom(cx, e, out, end),
        _ => Err(format!("unknown command `{head}`; the sexpr shell knows cog-node, cog-link, cog-value, cog-set-value!, cog-set-values!, cog-set-tv!, cog-update-value!, cog-keys->alist, cog-incoming-set, cog-incoming-by-type, cog-get-atoms, cog-extract!, cog-extract-recursive!, cog-execute-cache!, cog-atomspace-clear, cog-version, barrier, ping, and atoms")),
    }
}

/// `()`, the reply of a command that answers nothing.
fn nil(out: &mut String) -> Result<(), String> {
    out.push_str("()");
    Ok(())
}

/// `(cog-node 'T "name")`: the node, or `()`.
fn cog_node(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let [t, name] = args else { return Err("cog-node takes a type and a name".into()) };
    let t = type_arg(t)?;
    let name = match name {
        Expr::Str(s, _) => s.as_str(),
        _ => return Err("cog-node takes the name as a string".into()),
    };
    if !t.is_node() && !t.has_named_leaves() {
        return Err(format!("{t} is not a Node type"));
    }
    atom_or_nil(space, space.get_node(t, name), out, end)
}

/// `(cog-link 'T A ...)`: the link, or `()` (also when a member is absent).
fn cog_link(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let Some((t, members)) = args.split_first() else { return Err("cog-link takes a type and atoms".into()) };
    let t = type_arg(t)?;
    if !t.is_link() {
        return Err(format!("{t} is not a Link type"));
    }
    let mut out_set = Vec::with_capacity(members.len());
    for m in members {
        match find(space, m)? {
            Some(h) => out_set.push(h),
            None => return nil(out),
        }
    }
    atom_or_nil(space, space.get_link(t, &out_set), out, end)
}

/// `(cog-set-value! A K #f)`: the value under K removed; A is added.
fn remove_value(cx: &State, args: &[Expr], out: &mut String) -> Result<(), String> {
    let space = &cx.space;
    check(&args[..2])?;
    let h = add(space, &args[0])?;
    let key = add(space, &args[1])?;
    space.remove_value(h, key).map_err(|e| e.to_string())?;
    cx.stored(h)?;
    nil(out)
}

/// `(cog-set-value! A K V)`, `(cog-set-values! A (alist ...))`,
/// `(cog-set-tv! A TV)`: the command is evaluated as Atomese, which sets
/// the values on A.
fn set_values(cx: &State, e: &Expr, out: &mut String) -> Result<(), String> {
    let h = add(&cx.space, e)?;
    cx.stored(h)?;
    nil(out)
}

/// `(cog-update-value! A K (FloatValue d ...))`: the delta added atomically.
fn update_value(cx: &State, args: &[Expr], out: &mut String) -> Result<(), String> {
    let space = &cx.space;
    let [a, k, delta] = args else { return Err("cog-update-value! takes an atom, a key and a FloatValue".into()) };
    let delta = float_value(delta)?;
    check(&args[..2])?;
    let h = add(space, a)?;
    let key = add(space, k)?;
    cx.update(h, key, &delta)?;
    nil(out)
}

/// `(cog-value A K)`: the value, or ` #f`.
fn cog_value(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let [a, k] = args else { return Err("cog-value takes an atom and a key".into()) };
    let h = find(space, a)?;
    // The truth-value key need not be an atom of the space.
    let value = if sexpr::is_tv_key_expr(k) {
        h.and_then(|h| space.get_tv(h)).map(Value::Truth)
    } else {
        h.zip(find(space, k)?).and_then(|(h, key)| space.get_value(h, key))
    };
    match value {
        Some(v) => write_value_upto(space, &v, out, end).map_err(too_long)?,
        None => out.push_str(" #f"),
    }
    Ok(())
}

/// `(cog-keys->alist A)`: `((K . V)...)`, the truth value first when it is
/// not the default.
fn keys_alist(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let [a] = args else { return Err("cog-keys->alist takes an atom".into()) };
    out.push('(');
    if let Some(h) = find(space, a)? {
        let tv = space.get_tv(h).unwrap_or_default();
        let pair = |out: &mut String, k: Option<Handle>, v: &Value| -> Result<(), TooLarge> {
            out.push('(');
            match k {
                Some(k) => write_structure_upto(space, k, out, end)?,
                None => {
                    out.push_str("(PredicateNode ");
                    write_str_literal(out, sexpr::TV_KEY);
                    out.push(')');
                }
            }
            out.push_str(" . ");
            write_value_upto(space, v, out, end)?;
            out.push(')');
            Ok(())
        };
        if !tv.is_default() {
            pair(out, None, &Value::Truth(tv)).map_err(too_long)?;
        }
        for (k, v) in space.key_values(h) {
            pair(out, Some(k), &v).map_err(too_long)?;
        }
    }
    out.push(')');
    Ok(())
}

/// `(cog-incoming-set A)`: `(L...)`.
fn incoming_set(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let [a] = args else { return Err("cog-incoming-set takes an atom".into()) };
    let links = match find(space, a)? {
        Some(h) => space.incoming(h).map(|i| i.to_vec()).unwrap_or_default(),
        None => Vec::new(),
    };
    atom_list(space, &links, out, end)
}

/// `(cog-incoming-by-type A 'T)`: `(L...)`, the links of type T.
fn incoming_by_type(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let [a, t] = args else { return Err("cog-incoming-by-type takes an atom and a type".into()) };
    let t = type_arg(t)?;
    let links = match find(space, a)? {
        Some(h) => space.incoming_by_type(h, t),
        None => Vec::new(),
    };
    atom_list(space, &links, out, end)
}

/// `(cog-get-atoms 'T)`, `(cog-get-atoms 'T #t)` (subtypes too): `(A...)`.
fn get_atoms(space: &AtomSpace, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let (t, subtypes) = match args {
        [t] => (type_arg(t)?, false),
        [t, Expr::Symbol(b, _)] if b == "#t" || b == "#f" => (type_arg(t)?, b == "#t"),
        _ => return Err("cog-get-atoms takes a type and an optional #t for subtypes".into()),
    };
    let atoms: Vec<Handle> = space.handles_by_type(t, subtypes).collect();
    atom_list(space, &atoms, out, end)
}

/// `(cog-extract! A)`, `(cog-extract-recursive! A)`: `#t` (also if A is
/// absent), `#f` if links hold A.
fn extract(cx: &State, head: &str, args: &[Expr], out: &mut String) -> Result<(), String> {
    let [a] = args else { return Err(format!("{head} takes an atom")) };
    let recursive = head == "cog-extract-recursive!";
    let done = match find(&cx.space, a)? {
        Some(h) => cx.delete(h, recursive)?,
        None => true,
    };
    out.push_str(if done { "#t" } else { "#f" });
    Ok(())
}

/// `(cog-execute-cache! Q K [M [#t]])`: the result, kept on Q under K (and
/// the time it was computed under M); a kept one unless `#t`.
fn execute_cache(cx: &State, args: &[Expr], out: &mut String, end: usize) -> Result<(), String> {
    let space = &cx.space;
    let (q, k, meta, fresh) = match args {
        [q, k] => (q, k, None, false),
        [q, k, m] => (q, k, Some(m), false),
        [q, k, m, Expr::Symbol(f, _)] if f == "#t" || f == "#f" => (q, k, Some(m), f == "#t"),
        _ => return Err("cog-execute-cache! takes a query, a key, and optional metadata key and #t to recompute".into()),
    };
    check(&args[..2 + usize::from(meta.is_some())])?;
    let query_was_absent = find(space, q)?.is_none();
    let q = add(space, q)?;
    let key = add(space, k)?;
    let meta = meta.map(|m| add(space, m)).transpose()?;
    let kept = if fresh { None } else { space.get_value(q, key) };
    let result = match kept {
        Some(v) => v,
        None => execute_and_keep(cx, q, key, meta, query_was_absent)?,
    };
    write_value_upto(space, &result, out, end).map_err(too_long)
}

/// Executes the query `q` and keeps its result on it under `key` (and the
/// time under `meta`), written through to the store with what the query
/// changed. A query that fails leaves no trace, itself included when the
/// command added it (`query_was_absent`).
fn execute_and_keep(cx: &State, q: Handle, key: Handle, meta: Option<Handle>, query_was_absent: bool) -> Result<Value, String> {
    let space = &cx.space;
    let (executed, changes) = space.recording(|| query::execute(space, q));
    // What the query changed (a Put's atoms, a Delete's) goes to the store too.
    cx.write_through(&changes)?;
    let v = match executed {
        Ok(Executed::Atom(h)) => Value::Atom(h),
        Ok(Executed::Value(v)) => v,
        Err(e) => {
            if query_was_absent {
                let _ = space.extract(q, false);
            }
            return Err(e.to_string());
        }
    };
    space.set_value(q, key, v.clone()).map_err(|e| e.to_string())?;
    if let Some(m) = meta {
        let computed = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0.0, |d| d.as_secs_f64());
        space.set_value(q, m, Value::float(vec![computed])).map_err(|e| e.to_string())?;
    }
    cx.stored(q)?;
    Ok(v)
}

/// `(cog-atomspace-clear)`: `#t`; refused when the space is kept in a store.
fn clear(cx: &State, out: &mut String) -> Result<(), String> {
    if cx.has_store {
        return Err("this server keeps its space in a store, which cog-atomspace-clear would not clear: the atoms would come back at the next start; extract them instead".into());
    }
    cx.space.clear();
    out.push_str("#t");
    Ok(())
}

/// Any atom, also with values: the atom, added.
fn add_atom(cx: &State, e: &Expr, out: &mut String, end: usize) -> Result<(), String> {
    let h = add(&cx.space, e)?;
    cx.stored(h)?;
    write_structure_upto(&cx.space, h, out, end).map_err(too_long)
}

/// `'ConceptNode`, `'Concept` or a bare type name.
fn type_arg(e: &Expr) -> Result<Type, String> {
    let name = match e {
        Expr::Quote(q, _) => match q.as_ref() {
            Expr::Symbol(s, _) => s,
            _ => return Err("expected a type such as 'ConceptNode".into()),
        },
        Expr::Symbol(s, _) => s,
        _ => return Err("expected a type such as 'ConceptNode".into()),
    };
    Type::from_name(name).ok_or_else(|| format!("unknown type `{name}`"))
}

/// The atom an expression names, if the space holds it; adds nothing.
fn find(space: &AtomSpace, e: &Expr) -> Result<Option<Handle>, String> {
    sexpr::lookup(space, e).map_err(|e| e.to_string())
}

/// Checks expressions as [`add`] would take them, adding nothing, so that a
/// command adds all of its atoms or none.
fn check(exprs: &[Expr]) -> Result<(), String> {
    exprs.iter().try_for_each(|e| sexpr::check(e).map_err(|e| e.to_string()))
}

/// The atom an expression names, added (with any values written in it).
fn add(space: &AtomSpace, e: &Expr) -> Result<Handle, String> {
    sexpr::eval(&mut &*space, e).map_err(|e| e.to_string())
}

fn float_value(e: &Expr) -> Result<Vec<f64>, String> {
    match e {
        Expr::List(items, _) if matches!(items.first(), Some(Expr::Symbol(h, _)) if h == "FloatValue") => items[1..]
            .iter()
            .map(|x| match x {
                Expr::Number(n, _) => Ok(*n),
                _ => Err("FloatValue holds numbers".to_string()),
            })
            .collect(),
        _ => Err("expected a delta such as (FloatValue 1 0 0)".into()),
    }
}

/// `#f` or `'()`: "no value", to `cog-set-value!`.
fn is_none(e: &Expr) -> bool {
    match e {
        Expr::Symbol(s, _) => s == "#f",
        Expr::Quote(q, _) => matches!(q.as_ref(), Expr::List(items, _) if items.is_empty()),
        _ => false,
    }
}

fn atom_or_nil(space: &AtomSpace, h: Option<Handle>, out: &mut String, end: usize) -> Result<(), String> {
    match h {
        Some(h) => write_structure_upto(space, h, out, end).map_err(too_long),
        None => nil(out),
    }
}

fn atom_list(space: &AtomSpace, atoms: &[Handle], out: &mut String, end: usize) -> Result<(), String> {
    out.push('(');
    for &h in atoms {
        write_structure_upto(space, h, out, end).map_err(too_long)?;
    }
    out.push(')');
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ask(cx: &State, cmd: &str) -> String {
        let mut out = String::new();
        eval(cx, cmd, &mut out);
        out
    }

    #[test]
    fn commands_answer_one_expression() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        let space = &cx.space;
        assert_eq!(ask(&cx, "ping"), "()");
        assert_eq!(ask(&cx, "(ping)"), "()");
        assert_eq!(ask(&cx, "(cog-node 'ConceptNode \"a\")"), "()");
        assert_eq!(ask(&cx, "(Concept \"a\")"), "(ConceptNode \"a\")");
        assert_eq!(ask(&cx, "(cog-node 'Concept \"a\")"), "(ConceptNode \"a\")");
        assert_eq!(ask(&cx, "(cog-set-tv! (ConceptNode \"b\") (stv 0.5 0.25))"), "()");
        assert_eq!(ask(&cx, "(List (Concept \"a\") (Concept \"b\"))").matches("ListLink").count(), 1);
        assert_eq!(ask(&cx, "(cog-link 'ListLink (Concept \"a\") (Concept \"zz\"))"), "()");
        assert_eq!(ask(&cx, "(cog-link 'List (Concept \"a\") (Concept \"b\"))"), "(ListLink (ConceptNode \"a\")(ConceptNode \"b\"))");
        assert_eq!(ask(&cx, "(cog-incoming-set (Concept \"zz\"))"), "()");
        assert_eq!(space.get_node(atomweave::types::CONCEPT_NODE, "zz"), None, "a read adds nothing");
        assert!(ask(&cx, "(cog-incoming-by-type (Concept \"a\") 'ListLink)").starts_with("((ListLink"));
        assert_eq!(ask(&cx, "(cog-incoming-by-type (Concept \"a\") 'SetLink)"), "()");
        assert_eq!(ask(&cx, "(cog-set-value! (Concept \"a\") (Predicate \"k\") (FloatValue 1 2))"), "()");
        assert_eq!(ask(&cx, "(cog-value (Concept \"a\") (Predicate \"k\"))"), "(FloatValue 1 2)");
        assert_eq!(ask(&cx, "(cog-update-value! (Concept \"a\") (Predicate \"k\") (FloatValue 1 1 1))"), "()");
        assert_eq!(ask(&cx, "(cog-value (Concept \"a\") (Predicate \"k\"))"), "(FloatValue 2 3 1)");
        assert_eq!(ask(&cx, "(cog-value (Concept \"a\") (Predicate \"none\"))"), " #f");
        assert_eq!(ask(&cx, "(cog-keys->alist (Concept \"a\"))"), "(((PredicateNode \"k\") . (FloatValue 2 3 1)))");
        assert_eq!(ask(&cx, "(cog-keys->alist (Concept \"b\"))"), "(((PredicateNode \"*-TruthValueKey-*\") . (SimpleTruthValue 0.5 0.25)))");
        assert_eq!(ask(&cx, "(cog-get-atoms 'ListLink)").matches("(ListLink").count(), 1);
        assert_eq!(ask(&cx, "(cog-extract! (Concept \"a\"))"), "#f", "held by the ListLink");
        assert_eq!(ask(&cx, "(cog-extract-recursive! (Concept \"a\"))"), "#t");
        assert_eq!(ask(&cx, "(cog-extract! (Concept \"never\"))"), "#t", "as upstream: absent counts as extracted");
        assert_eq!(ask(&cx, "(cog-set-value! (Concept \"b\") (Predicate \"k\") (FloatValue 1))"), "()");
        assert_eq!(ask(&cx, "(cog-set-value! (Concept \"b\") (Predicate \"k\") #f)"), "()");
        assert_eq!(ask(&cx, "(cog-value (Concept \"b\") (Predicate \"k\"))"), " #f");
        assert_eq!(ask(&cx, "(cog-get-atoms 'Link #t)"), "()");
        assert_eq!(ask(&cx, "(cog-version)"), env!("CARGO_PKG_VERSION"));
        assert_eq!(ask(&cx, "(cog-atomspace-clear)"), "#t");
        assert_eq!(space.size(), 0);
    }

    #[test]
    fn execute_cache_keeps_results_until_asked_to_recompute() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        ask(&cx, "(Inheritance (Concept \"cat\") (Concept \"animal\"))");
        let q = "(GetLink (Inheritance (Variable \"$x\") (Concept \"animal\")))";
        let first = ask(&cx, &format!("(cog-execute-cache! {q} (Predicate \"results\"))"));
        assert!(first.contains("cat") && !first.contains("dog"), "{first}");
        ask(&cx, "(Inheritance (Concept \"dog\") (Concept \"animal\"))");
        assert_eq!(ask(&cx, &format!("(cog-execute-cache! {q} (Predicate \"results\"))")), first, "kept");
        let fresh = ask(&cx, &format!("(cog-execute-cache! {q} (Predicate \"results\") (Predicate \"when\") #t)"));
        assert!(fresh.contains("cat") && fresh.contains("dog"), "{fresh}");
        assert!(ask(&cx, &format!("(cog-value {q} (Predicate \"when\"))")).starts_with("(FloatValue "));
    }

    #[test]
    fn bad_commands_are_errors_that_change_nothing() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        let space = &cx.space;
        for bad in [
            "(cog-frobnicate)",
            "(cog-node 'NoSuchNode \"a\")",
            "(cog-node 'ListLink \"a\")",
            "(ListLink (Concept \"a\") (NoSuch \"b\"))",
            "(cog-set-value! (Concept \"a\") (Predicate \"k\"))",
            "((",
            "42",
            "(Concept \"a\") (Concept \"b\")",
        ] {
            let reply = ask(&cx, bad);
            assert!(reply.starts_with("(error \""), "{bad} -> {reply}");
        }
        assert_eq!(space.size(), 0, "nothing was added");
        // Commands that fail after a first argument checked out add nothing either.
        for bad in [
            "(cog-update-value! (Concept \"x\") (NoSuch \"k\") (FloatValue 1))",
            "(cog-set-value! (Concept \"x\") (NoSuch \"k\") #f)",
            "(cog-execute-cache! (Concept \"x\") (NoSuch \"k\"))",
        ] {
            assert!(ask(&cx, bad).starts_with("(error \""), "{bad}");
            assert_eq!(space.size(), 0, "{bad} added something");
        }
        // A query that fails leaves no query link behind.
        assert!(ask(&cx, "(cog-execute-cache! (BindLink (Concept \"q\")) (Predicate \"r\"))").starts_with("(error"));
        assert_eq!(space.count_of_type(atomweave::types::BIND_LINK, false), 0);
    }

    #[test]
    fn a_value_holding_its_own_atom_prints_once() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        assert_eq!(ask(&cx, "(cog-set-value! (Concept \"a\") (Predicate \"k\") (Concept \"a\"))"), "()");
        assert_eq!(ask(&cx, "(cog-value (Concept \"a\") (Predicate \"k\"))"), "(ConceptNode \"a\")");
        assert_eq!(ask(&cx, "(cog-keys->alist (Concept \"a\"))"), "(((PredicateNode \"k\") . (ConceptNode \"a\")))");
    }

    #[test]
    fn the_truth_value_key_need_not_be_an_atom() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        assert_eq!(ask(&cx, "(cog-set-tv! (Concept \"t\") (stv 0.5 0.25))"), "()");
        let tv_key = "(PredicateNode \"*-TruthValueKey-*\")";
        assert_eq!(cx.space.get_node(atomweave::types::PREDICATE_NODE, sexpr::TV_KEY), None);
        assert_eq!(ask(&cx, &format!("(cog-value (Concept \"t\") {tv_key})")), "(SimpleTruthValue 0.5 0.25)");
        // A value written inside an atom that is only asked about is not set.
        assert_eq!(ask(&cx, "(cog-keys->alist (Concept \"t\" (stv 0.9 0.9)))"), format!("(({tv_key} . (SimpleTruthValue 0.5 0.25)))"));
    }

    #[test]
    fn balance_fed_line_by_line_matches_the_whole() {
        let text = "(List\n  (Concept \"a ( \\\" \") ; (\n  (Concept \"b\"))\n";
        let mut b = Balance::default();
        for (i, line) in text.split_inclusive('\n').enumerate() {
            b.feed(line);
            assert_eq!(b.incomplete(), i < 2, "after line {i}");
        }
    }

    #[test]
    fn incomplete_expressions_wait_for_more() {
        let incomplete = |text: &str| {
            let mut b = Balance::default();
            b.feed(text);
            b.incomplete()
        };
        assert!(incomplete("(Concept \"a\""));
        assert!(incomplete("(Concept \"a)"));
        assert!(!incomplete("(Concept \"a (\")"));
        assert!(!incomplete("(Concept \"a\") ; ("));
        assert!(!incomplete("ping"));
        // Scheme: character literals and block comments.
        assert!(!incomplete("(display #\\()"));
        assert!(!incomplete("(string #\\; #\\\" #\\))"));
        assert!(incomplete("(display #\\a"));
        assert!(incomplete("#| ( |# (a"));
        assert!(!incomplete("#| ( |# (a)"));
        assert!(incomplete("#| #| |# (still comment) "));
        assert!(!incomplete("#| #| |# ) |# (b)"));
        assert!(!incomplete("(vector-ref #(1 2) 0)"));
    }
}
