//! The `json` shell: upstream's `AtomSpace.verb(args)` calls with JSON
//! arguments, one per line, each answered by one line of JSON.
//!
//! Atoms are `{"type": "ConceptNode", "name": "a"}` or `{"type":
//! "ListLink", "outgoing": [...]}` (short type names are accepted); values
//! are `{"type": "FloatValue", "value": [1, 2]}`. Errors reply
//! `{"error": "what was wrong"}` and change nothing.
//!
//! | call | reply |
//! |---|---|
//! | `AtomSpace.version()` | `"0.1.0"` |
//! | `AtomSpace.getSubTypes("Node", recursive?)`, `getSuperTypes(...)` | `["ConceptNode", ...]` |
//! | `AtomSpace.getAtoms("Node", subtypes?)` | `[atom, ...]` |
//! | `AtomSpace.haveNode("Concept", "a")`, `haveLink("List", [atom, ...])`, `haveAtom(atom)` | `true` / `false` |
//! | `AtomSpace.makeAtom(atom)` | the atom |
//! | `AtomSpace.loadAtoms([atom, ...])` | `true` |
//! | `AtomSpace.getIncoming(atom, "Type"?)` | `[atom, ...]` |
//! | `AtomSpace.getValues(atom)` | `[{"key": atom, "value": value}, ...]` |
//! | `AtomSpace.getTV(atom)` | `{"type": "SimpleTruthValue", "value": [s, c]}` |
//! | `AtomSpace.setTV(atom, tv)`, `setValue(atom, key, value)` | `true` |
//! | `AtomSpace.extract(atom, recursive?)` | `true` / `false` |
//! | `AtomSpace.execute(atom)` | the result: an atom or a value |

use atomweave::query::{self, Executed};
use atomweave::sexpr::parse::MAX_NESTING;
use atomweave::types::Type;
use atomweave::{AtomSpace, Handle, TruthValue, Value};
use serde_json::{json, Value as Json};

use crate::{Role, State};

/// Runs one call and appends its reply line (with the newline); whether it
/// succeeded (else the reply is an error). A reply longer than
/// [`crate::MAX_REPLY`] is an error.
pub fn eval(cx: &State, line: &str, out: &mut String) -> bool {
    let start = out.len();
    let mut w = Writer::new(&cx.space, out);
    match call(cx, line, &mut w) {
        Ok(answer) => {
            if let Some(v) = answer {
                out.push_str(&v.to_string());
            }
            out.push('\n');
            true
        }
        Err(msg) => {
            out.truncate(start);
            error_reply(&msg, out);
            false
        }
    }
}

/// [`eval`] for a client of role `role`: a read token's may not call a
/// verb that changes the space, and its `execute` runs in a frame of its
/// own over the space, dropped after the reply.
pub fn eval_as(cx: &State, role: Role, line: &str, out: &mut String) -> bool {
    if role == Role::Write {
        return eval(cx, line, out);
    }
    // Only the verbs named here run: one added later is refused until it
    // is listed, rather than let through unchecked. A call that does not
    // parse gets its own error from `eval`.
    match Call::verb(line) {
        Err(_)
        | Ok("version" | "getSubTypes" | "getSuperTypes" | "getAtoms" | "haveNode" | "haveLink" | "haveAtom" | "getIncoming" | "getValues" | "getTV") => {
            eval(cx, line, out)
        }
        Ok("execute") => match cx.frame() {
            Ok(frame) => eval(&frame, line, out),
            Err(msg) => {
                error_reply(&msg, out);
                false
            }
        },
        Ok(verb) => {
            error_reply(&crate::read_only_refusal(verb), out);
            false
        }
    }
}

/// `{"error": "msg"}` and a newline.
pub fn error_reply(msg: &str, out: &mut String) {
    out.push_str(&json!({ "error": msg }).to_string());
    out.push('\n');
}

/// What a verb answers: JSON, or `None` where it wrote its (possibly long)
/// answer to the [`Writer`] itself.
type Answer = Result<Option<Json>, String>;

/// A call's verb and arguments: `AtomSpace.verb(arg, ...)`.
struct Call<'l> {
    verb: &'l str,
    args: Vec<Json>,
}

impl<'l> Call<'l> {
    fn parse(line: &'l str) -> Result<Call<'l>, String> {
        let (verb, rest) = Call::split(line)?;
        let inner = rest.trim_end().strip_suffix(')').ok_or("expected ) at the end of the call")?;
        let args = serde_json::from_str(&format!("[{inner}]")).map_err(|e| format!("bad arguments: {e}"))?;
        Ok(Call { verb, args })
    }

    /// The verb of a call, its arguments left unread (a role's check needs
    /// no more).
    fn verb(line: &'l str) -> Result<&'l str, String> {
        Call::split(line).map(|(verb, _)| verb)
    }

    /// The verb, and what follows its `(`.
    fn split(line: &'l str) -> Result<(&'l str, &'l str), String> {
        let rest = line.strip_prefix("AtomSpace.").ok_or("expected a call such as AtomSpace.getAtoms(\"Node\", true)")?;
        let open = rest.find('(').ok_or("expected ( after the verb")?;
        Ok((&rest[..open], &rest[open + 1..]))
    }

    /// Argument `i` (from 0), which the verb needs.
    fn arg(&self, i: usize) -> Result<&Json, String> {
        self.args.get(i).ok_or_else(|| format!("{} needs argument {}", self.verb, i + 1))
    }

    /// Argument `i` as a flag: false unless it is `true`.
    fn flag(&self, i: usize) -> bool {
        self.args.get(i).and_then(Json::as_bool).unwrap_or(false)
    }
}

/// Runs a call: one function per verb.
fn call(cx: &State, line: &str, w: &mut Writer<'_>) -> Answer {
    let c = Call::parse(line)?;
    match c.verb {
        "version" => Ok(Some(json!(env!("CARGO_PKG_VERSION")))),
        "getSubTypes" | "getSuperTypes" => related_types(&c),
        "getAtoms" => get_atoms(cx, &c, w),
        "haveNode" => have_node(cx, &c),
        "haveLink" => have_link(cx, &c),
        "haveAtom" => Ok(Some(json!(find(&cx.space, c.arg(0)?)?.is_some()))),
        "makeAtom" => {
            cx.stored(make(cx, c.arg(0)?)?)?;
            Ok(Some(json!(true)))
        }
        "loadAtoms" => load_atoms(cx, &c),
        "getIncoming" => get_incoming(cx, &c, w),
        "getValues" => get_values(cx, &c, w),
        "getTV" => get_tv(cx, &c, w),
        "setTV" => set_tv(cx, &c),
        "setValue" => set_value(cx, &c),
        "extract" => {
            let Some(h) = find(&cx.space, c.arg(0)?)? else { return Ok(Some(json!(false))) };
            Ok(Some(json!(cx.delete(h, c.flag(1))?)))
        }
        "execute" => execute(cx, &c, w),
        other => Err(format!("unknown verb `{other}`")),
    }
}

/// `getSubTypes("T", recursive?)`, `getSuperTypes("T", recursive?)`: the
/// type names, sorted.
fn related_types(c: &Call<'_>) -> Answer {
    let t = type_named(c.arg(0)?)?;
    let mut found: Vec<Type> = if c.verb == "getSubTypes" {
        Type::all().into_iter().filter(|&s| s != t && s.is_a(t) && (c.flag(1) || s.parents().contains(&t))).collect()
    } else if c.flag(1) {
        Type::all().into_iter().filter(|&s| s != t && t.is_a(s)).collect()
    } else {
        t.parents()
    };
    found.sort_by_key(|t| t.name());
    Ok(Some(json!(found.iter().map(|t| t.name()).collect::<Vec<_>>())))
}

/// `getAtoms("T", subtypes?)`: `[atom, ...]`.
fn get_atoms(cx: &State, c: &Call<'_>, w: &mut Writer<'_>) -> Answer {
    let t = type_named(c.arg(0)?)?;
    w.list(cx.space.handles_by_type(t, c.flag(1)), |w, h| w.atom(h))?;
    Ok(None)
}

/// `haveNode("T", "name")`: whether the space holds it.
fn have_node(cx: &State, c: &Call<'_>) -> Answer {
    let t = type_named(c.arg(0)?)?;
    let name = c.arg(1)?.as_str().ok_or("haveNode takes the name as a string")?;
    Ok(Some(json!(cx.space.get_node(t, name).is_some())))
}

/// `haveLink("T", [atom, ...])`: whether the space holds it.
fn have_link(cx: &State, c: &Call<'_>) -> Answer {
    let t = type_named(c.arg(0)?)?;
    let members = c.arg(1)?.as_array().ok_or("haveLink takes an array of atoms")?;
    let mut out = Vec::with_capacity(members.len());
    for m in members {
        match find(&cx.space, m)? {
            Some(h) => out.push(h),
            None => return Ok(Some(json!(false))),
        }
    }
    Ok(Some(json!(cx.space.get_link(t, &out).is_some())))
}

/// `loadAtoms([atom, ...])`: `true`; all are checked before any is added.
fn load_atoms(cx: &State, c: &Call<'_>) -> Answer {
    let atoms = c.arg(0)?.as_array().ok_or("loadAtoms takes an array of atoms")?;
    for a in atoms {
        check(a)?;
    }
    for a in atoms {
        cx.stored(make(cx, a)?)?;
    }
    Ok(Some(json!(true)))
}

/// `getIncoming(atom, "T"?)`: `[atom, ...]`.
fn get_incoming(cx: &State, c: &Call<'_>, w: &mut Writer<'_>) -> Answer {
    let space = &cx.space;
    let Some(h) = find(space, c.arg(0)?)? else { return Ok(Some(json!([]))) };
    let links = match c.args.get(1) {
        Some(t) => space.incoming_by_type(h, type_named(t)?),
        None => space.incoming(h).map(|i| i.to_vec()).unwrap_or_default(),
    };
    w.list(links, |w, l| w.atom(l))?;
    Ok(None)
}

/// `getValues(atom)`: `[{"key": atom, "value": value}, ...]`, the truth
/// value first when it is not the default.
fn get_values(cx: &State, c: &Call<'_>, w: &mut Writer<'_>) -> Answer {
    let space = &cx.space;
    let Some(h) = find(space, c.arg(0)?)? else { return Ok(Some(json!([]))) };
    let tv = space.get_tv(h).unwrap_or_default();
    let tv = (!tv.is_default()).then_some((None, Value::Truth(tv)));
    let values = tv.into_iter().chain(space.key_values(h).into_iter().map(|(k, v)| (Some(k), v)));
    w.list(values, |w, (k, v)| {
        w.out.push_str("{\"key\":");
        match k {
            Some(k) => w.atom(k)?,
            None => push_json(w.out, &json!({ "type": "PredicateNode", "name": atomweave::sexpr::TV_KEY })),
        }
        w.out.push_str(",\"value\":");
        w.value(&v)?;
        w.out.push('}');
        Ok(())
    })?;
    Ok(None)
}

/// `getTV(atom)`: `[{"value": tv}]`.
fn get_tv(cx: &State, c: &Call<'_>, w: &mut Writer<'_>) -> Answer {
    let space = &cx.space;
    let Some(h) = find(space, c.arg(0)?)? else { return Ok(Some(json!([]))) };
    w.out.push_str("[{\"value\":");
    w.value(&Value::Truth(space.get_tv(h).unwrap_or_default()))?;
    w.out.push_str("}]");
    Ok(None)
}

/// `setTV(atom, tv)`, or upstream's form with the truth value in the atom:
/// `setTV({..., "value": tv})`. The atom is added.
fn set_tv(cx: &State, c: &Call<'_>) -> Answer {
    let (atom, tv) = match c.args.as_slice() {
        [atom] => (atom, atom.get("value").ok_or("setTV takes an atom with a \"value\", or an atom and a truth value")?),
        [atom, tv] => (atom, tv),
        _ => return Err("setTV takes an atom and a truth value".into()),
    };
    check(atom)?;
    let tv = match value_of(cx, tv, false)? {
        Value::Truth(tv) => tv,
        _ => return Err("setTV takes a SimpleTruthValue or CountTruthValue".into()),
    };
    let h = make(cx, atom)?;
    cx.space.set_tv(h, tv).map_err(|e| e.to_string())?;
    cx.stored(h)?;
    Ok(Some(json!(true)))
}

/// `setValue(atom, key, value)`, or upstream's form with key and value in
/// the atom: `setValue({..., "key": k, "value": v})`. Everything that can
/// be refused is, before anything is added.
fn set_value(cx: &State, c: &Call<'_>) -> Answer {
    let (atom, key, value) = match c.args.as_slice() {
        [atom] => match (atom.get("key"), atom.get("value")) {
            (Some(k), Some(v)) => (atom, k, v),
            _ => return Err("setValue takes an atom with \"key\" and \"value\", or an atom, a key and a value".into()),
        },
        [atom, key, value] => (atom, key, value),
        _ => return Err("setValue takes an atom, a key and a value".into()),
    };
    check(atom)?;
    let tv_key = matches!(check(key)?, (t, Some(name), _) if t == atomweave::types::PREDICATE_NODE && name == atomweave::sexpr::TV_KEY);
    let checked = value_of(cx, value, false)?;
    if tv_key && !matches!(checked, Value::Truth(_)) {
        return Err("the truth-value key holds a SimpleTruthValue or CountTruthValue".into());
    }
    let h = make(cx, atom)?;
    let k = make(cx, key)?;
    let v = value_of(cx, value, true)?;
    cx.space.set_value(h, k, v).map_err(|e| e.to_string())?;
    cx.stored(h)?;
    Ok(Some(json!(true)))
}

/// `execute(atom)`: the result, an atom or a value; the query is added,
/// and what it changed is written through to the store.
fn execute(cx: &State, c: &Call<'_>, w: &mut Writer<'_>) -> Answer {
    let space = &cx.space;
    check(c.arg(0)?)?;
    let q = make(cx, c.arg(0)?)?;
    cx.stored(q)?;
    let (executed, changes) = space.recording(|| query::execute(space, q));
    // What the query changed (a Put's atoms, a Delete's) goes to the store too.
    cx.write_through(&changes)?;
    match executed.map_err(|e| e.to_string())? {
        Executed::Atom(h) => w.atom(h)?,
        Executed::Value(v) => w.value(&v)?,
    }
    Ok(None)
}

fn type_named(j: &Json) -> Result<Type, String> {
    let name = j.as_str().ok_or("expected a type name string")?;
    Type::from_name(name).ok_or_else(|| format!("unknown type `{name}`"))
}

/// Appends `v` as JSON text.
fn push_json(out: &mut String, v: &(impl serde::Serialize + ?Sized)) {
    out.push_str(&serde_json::to_string(v).expect("plain data serializes"));
}

/// Writes atoms and values as JSON text straight into a reply (keys in
/// the order `serde_json` sorts them), refused once the reply passes
/// `end`: an atom whose members share members prints them at every
/// place, 2^depth times for a link built by doubling.
pub struct Writer<'a> {
    space: &'a AtomSpace,
    out: &'a mut String,
    end: usize,
}

impl<'a> Writer<'a> {
    /// A writer into `out` of atoms of `space`, up to `MAX_REPLY` more bytes.
    pub fn new(space: &'a AtomSpace, out: &'a mut String) -> Self {
        let end = out.len().saturating_add(crate::MAX_REPLY);
        Writer { space, out, end }
    }

    fn room(&self) -> Result<(), String> {
        if self.out.len() > self.end {
            return Err(format!("the reply would be longer than {} MiB (members shared inside links are repeated at every place)", crate::MAX_REPLY >> 20));
        }
        Ok(())
    }

    /// `[a, b, ...]`, each item written by `item`.
    fn list<T>(&mut self, items: impl IntoIterator<Item = T>, mut item: impl FnMut(&mut Self, T) -> Result<(), String>) -> Result<(), String> {
        self.out.push('[');
        for (i, x) in items.into_iter().enumerate() {
            if i > 0 {
                self.out.push(',');
            }
            item(self, x)?;
        }
        self.out.push(']');
        self.room()
    }

    /// An atom: `{"name":...,"type":...}` or `{"outgoing":[...],"type":...}`.
    /// One nested deeper than an Atomese expression may be (a chain a
    /// Scheme loop built) is an error: it is written by recursion.
    pub fn atom(&mut self, h: Handle) -> Result<(), String> {
        self.atom_at(h, 0)
    }

    fn atom_at(&mut self, h: Handle, depth: usize) -> Result<(), String> {
        if depth > MAX_NESTING {
            return Err(format!("an atom nested more than {MAX_NESTING} deep cannot be sent as JSON"));
        }
        self.room()?;
        let space = self.space;
        let Some(t) = space.get_type(h) else {
            self.out.push_str("null");
            return Ok(());
        };
        match space.name(h) {
            Some(name) => {
                self.out.push_str("{\"name\":");
                push_json(self.out, name);
            }
            None => {
                self.out.push_str("{\"outgoing\":");
                self.list(space.outgoing(h).unwrap_or(&[]).iter(), |w, &c| w.atom_at(c, depth + 1))?;
            }
        }
        self.out.push_str(",\"type\":");
        push_json(self.out, t.name());
        self.out.push('}');
        Ok(())
    }

    /// A value: `{"type":...,"value":[...]}`; an atom as [`Writer::atom`].
    /// LinkValues nest at most `MAX_VALUE_NESTING` deep.
    fn value(&mut self, v: &Value) -> Result<(), String> {
        self.room()?;
        let t = v.value_type().name();
        let head = |w: &mut Self| {
            w.out.push_str("{\"type\":");
            push_json(w.out, t);
            w.out.push_str(",\"value\":");
        };
        match v {
            Value::Atom(h) => return self.atom(*h),
            Value::Space(s) => {
                self.out.push_str("{\"name\":");
                push_json(self.out, &s.space().space_name());
                self.out.push_str(",\"type\":");
                push_json(self.out, t);
            }
            Value::Float(xs) => {
                head(self);
                push_json(self.out, &xs[..]);
            }
            Value::String(ss) => {
                head(self);
                push_json(self.out, &ss[..]);
            }
            Value::Bool(bs) => {
                head(self);
                push_json(self.out, &bs[..]);
            }
            Value::Truth(tv) => {
                head(self);
                push_json(self.out, &tv.to_vec());
            }
            Value::Void => {
                head(self);
                self.out.push_str("[]");
            }
            Value::Link(vs) => {
                head(self);
                self.list(vs.iter(), |w, v| w.value(v))?;
            }
            Value::Queue(q) => {
                head(self);
                self.list(q.snapshot().iter(), |w, v| w.value(v))?;
            }
            // What it is made of, as the Atomese writer shows it: no code runs.
            Value::Stream(st) => {
                head(self);
                match st.random_len() {
                    Some(n) => push_json(self.out, &[n]),
                    None => self.list(st.atoms().iter(), |w, &a| w.atom(a))?,
                }
            }
        }
        self.out.push('}');
        Ok(())
    }
}

/// Checks an atom's JSON (types known, shapes right) without adding it.
fn check(j: &Json) -> Result<(Type, Option<&str>, Vec<&Json>), String> {
    let obj = j.as_object().ok_or("expected an atom such as {\"type\": \"ConceptNode\", \"name\": \"a\"}")?;
    let t = type_named(obj.get("type").ok_or("an atom needs a \"type\"")?)?;
    if !t.is_atom() {
        return Err(format!("{t} is not an atom type"));
    }
    // A foreign AST's leaf is named, though its type is a link type.
    if t.is_node() || (t.has_named_leaves() && obj.contains_key("name")) {
        let name = obj.get("name").and_then(Json::as_str).ok_or_else(|| format!("{t} needs a \"name\" string"))?;
        return Ok((t, Some(name), Vec::new()));
    }
    let out = obj.get("outgoing").map_or(Some(&[][..]), |o| o.as_array().map(|a| a.as_slice())).ok_or("\"outgoing\" must be an array")?;
    for m in out {
        check(m)?;
    }
    Ok((t, None, out.iter().collect()))
}

fn find(space: &AtomSpace, j: &Json) -> Result<Option<Handle>, String> {
    let (t, name, out) = check(j)?;
    if let Some(name) = name {
        return Ok(space.get_node(t, name));
    }
    let mut members = Vec::with_capacity(out.len());
    for m in out {
        match find(space, m)? {
            Some(h) => members.push(h),
            None => return Ok(None),
        }
    }
    Ok(space.get_link(t, &members))
}

/// Adds the atom a JSON names; the caller writes it through to the store.
fn make(cx: &State, j: &Json) -> Result<Handle, String> {
    let (t, name, out) = check(j)?;
    match name {
        Some(name) => cx.space.add_node(t, name),
        None => {
            let members = out.into_iter().map(|m| make(cx, m)).collect::<Result<Vec<_>, _>>()?;
            cx.space.add_link(t, &members)
        }
    }
    .map_err(|e| e.to_string())
}

/// The value a JSON names; atoms in it are added only with `add` (without,
/// they are checked and stand as VoidValues).
fn value_of(cx: &State, j: &Json, add: bool) -> Result<Value, String> {
    let obj = j.as_object().ok_or("expected a value such as {\"type\": \"FloatValue\", \"value\": [1, 2]}")?;
    let tname = obj.get("type").and_then(Json::as_str).ok_or("a value needs a \"type\"")?;
    let items = || obj.get("value").and_then(Json::as_array).ok_or_else(|| format!("{tname} needs a \"value\" array"));
    let floats = || -> Result<Vec<f64>, String> { items()?.iter().map(|x| x.as_f64().ok_or_else(|| format!("{tname} holds numbers"))).collect() };
    Ok(match tname {
        "FloatValue" => Value::float(floats()?),
        "StringValue" => Value::String(items()?.iter().map(|x| x.as_str().map(str::to_string).ok_or("StringValue holds strings")).collect::<Result<_, _>>()?),
        "BoolValue" => Value::Bool(items()?.iter().map(|x| x.as_bool().ok_or("BoolValue holds true and false")).collect::<Result<_, _>>()?),
        "LinkValue" => Value::Link(items()?.iter().map(|x| value_of(cx, x, add)).collect::<Result<_, _>>()?),
        "SimpleTruthValue" | "stv" => match floats()?.as_slice() {
            &[s, c] => Value::Truth(TruthValue::simple(s, c)),
            _ => return Err("SimpleTruthValue holds two numbers".into()),
        },
        "CountTruthValue" | "ctv" => match floats()?.as_slice() {
            &[m, c, n] => Value::Truth(TruthValue::count(m, c, n)),
            _ => return Err("CountTruthValue holds three numbers".into()),
        },
        _ if Type::from_name(tname).is_some_and(|t| t.is_atom()) => {
            check(j)?;
            if add {
                Value::Atom(make(cx, j)?)
            } else {
                Value::Void
            }
        }
        other => return Err(format!("unknown value type `{other}`")),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_foreign_ast_leaf_keeps_its_name_both_ways() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        let mut out = String::new();
        eval(&cx, r#"AtomSpace.makeAtom({"type": "SexprAst", "outgoing": [{"type": "SexprAst", "name": "x"}]})"#, &mut out);
        assert_eq!(out.trim_end(), "true");
        let leaf = cx.space.get_node(atomweave::types::SEXPR_AST, "x").expect("the leaf, by its name");
        out.clear();
        eval(&cx, "AtomSpace.getAtoms(\"SexprAst\")", &mut out);
        assert_eq!(out.matches(r#""name":"x""#).count(), 2, "{out}");
        assert!(!cx.space.is_link(leaf));
    }

    #[test]
    fn verbs_answer_json() {
        let cx = State::new(AtomSpace::new(), None, crate::Durability::Always);
        let space = &cx.space;
        let ask = |line: &str| {
            let mut out = String::new();
            eval(&cx, line, &mut out);
            out.trim_end().to_string()
        };
        assert_eq!(ask("AtomSpace.haveNode(\"Concept\", \"a\")"), "false");
        assert_eq!(ask("AtomSpace.makeAtom({\"type\": \"Concept\", \"name\": \"a\"})"), "true");
        assert_eq!(ask("AtomSpace.haveNode(\"ConceptNode\", \"a\")"), "true");
        assert_eq!(
            ask(r#"AtomSpace.loadAtoms([{"type": "ListLink", "outgoing": [{"type": "ConceptNode", "name": "a"}, {"type": "ConceptNode", "name": "b"}]}])"#),
            "true"
        );
        assert_eq!(ask(r#"AtomSpace.haveLink("ListLink", [{"type": "ConceptNode", "name": "a"}, {"type": "ConceptNode", "name": "b"}])"#), "true");
        assert_eq!(ask(r#"AtomSpace.getIncoming({"type": "ConceptNode", "name": "b"})"#).matches("ListLink").count(), 1);
        assert_eq!(ask(r#"AtomSpace.setTV({"type": "ConceptNode", "name": "a"}, {"type": "SimpleTruthValue", "value": [0.5, 0.25]})"#), "true");
        assert_eq!(ask(r#"AtomSpace.getTV({"type": "ConceptNode", "name": "a"})"#), r#"[{"value":{"type":"SimpleTruthValue","value":[0.5,0.25]}}]"#);
        assert_eq!(ask(r#"AtomSpace.setTV({"type": "ConceptNode", "name": "a", "value": {"type": "SimpleTruthValue", "value": [0.75, 0.5]}})"#), "true");
        assert!(ask(r#"AtomSpace.getTV({"type": "ConceptNode", "name": "a"})"#).contains("[0.75,0.5]"));
        assert_eq!(ask(r#"AtomSpace.getTV({"type": "ConceptNode", "name": "nobody"})"#), "[]");
        assert_eq!(
            ask(
                r#"AtomSpace.setValue({"type": "ConceptNode", "name": "a", "key": {"type": "PredicateNode", "name": "k2"}, "value": {"type": "StringValue", "value": ["x"]}})"#
            ),
            "true"
        );
        assert!(ask(r#"AtomSpace.getValues({"type": "ConceptNode", "name": "a"})"#).contains(r#"{"type":"StringValue","value":["x"]}"#));
        assert_eq!(
            ask(r#"AtomSpace.setValue({"type": "ConceptNode", "name": "a"}, {"type": "PredicateNode", "name": "k"}, {"type": "FloatValue", "value": [1, 2]})"#),
            "true"
        );
        assert!(ask(r#"AtomSpace.getValues({"type": "ConceptNode", "name": "a"})"#).contains(r#"{"type":"FloatValue","value":[1.0,2.0]}"#));
        assert_eq!(ask("AtomSpace.getAtoms(\"Node\", true)").matches("\"name\"").count(), 4);
        assert!(ask("AtomSpace.getSubTypes(\"Node\")").contains("\"ConceptNode\""));
        assert!(ask("AtomSpace.getSuperTypes(\"ConceptNode\")").contains("\"Node\""));
        assert_eq!(ask(r#"AtomSpace.extract({"type": "ConceptNode", "name": "a"})"#), "false");
        assert_eq!(ask(r#"AtomSpace.extract({"type": "ConceptNode", "name": "a"}, true)"#), "true");
        assert_eq!(ask("AtomSpace.version()"), format!("\"{}\"", env!("CARGO_PKG_VERSION")));
        let before = space.size();
        for bad in [
            "AtomSpace.frob()",
            "getAtoms(\"Node\")",
            "AtomSpace.makeAtom({\"type\": \"NoSuch\", \"name\": \"x\"})",
            r#"AtomSpace.loadAtoms([{"type": "ConceptNode", "name": "ok"}, {"type": "ListLink", "outgoing": [{"type": "Nope", "name": "x"}]}])"#,
            "AtomSpace.makeAtom({",
            // Refused values: the atom and key named are not added either.
            r#"AtomSpace.setValue({"type": "ConceptNode", "name": "new"}, {"type": "PredicateNode", "name": "*-TruthValueKey-*"}, {"type": "FloatValue", "value": [1]})"#,
            r#"AtomSpace.setValue({"type": "ConceptNode", "name": "new"}, {"type": "PredicateNode", "name": "newkey"}, {"type": "LinkValue", "value": [{"type": "ConceptNode", "name": "held"}, {"type": "Nope"}]})"#,
        ] {
            assert!(ask(bad).starts_with("{\"error\":"), "{bad}");
        }
        assert_eq!(space.size(), before, "failed calls add nothing");
    }
}
