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

use crate::State;

/// Runs one call and appends its reply line (with the newline); whether it
/// succeeded (else the reply is an error).
pub fn eval(cx: &State, line: &str, out: &mut String) -> bool {
    match call(cx, line) {
        Ok(v) => {
            out.push_str(&v.to_string());
            out.push('\n');
            true
        }
        Err(msg) => {
            error_reply(&msg, out);
            false
        }
    }
}

/// `{"error": "msg"}` and a newline.
pub fn error_reply(msg: &str, out: &mut String) {
    out.push_str(&json!({ "error": msg }).to_string());
    out.push('\n');
}

fn call(cx: &State, line: &str) -> Result<Json, String> {
    let space = &cx.space;
    let rest = line.strip_prefix("AtomSpace.").ok_or("expected a call such as AtomSpace.getAtoms(\"Node\", true)")?;
    let open = rest.find('(').ok_or("expected ( after the verb")?;
    let verb = &rest[..open];
    let inner = rest[open + 1..].trim_end().strip_suffix(')').ok_or("expected ) at the end of the call")?;
    let args: Vec<Json> = serde_json::from_str(&format!("[{inner}]")).map_err(|e| format!("bad arguments: {e}"))?;
    let arg = |i: usize| args.get(i).ok_or_else(|| format!("{verb} needs argument {}", i + 1));
    let flag = |i: usize| args.get(i).and_then(Json::as_bool).unwrap_or(false);
    Ok(match verb {
        "version" => json!(env!("CARGO_PKG_VERSION")),
        "getSubTypes" | "getSuperTypes" => {
            let t = type_named(arg(0)?)?;
            let mut found: Vec<Type> = if verb == "getSubTypes" {
                Type::all().into_iter().filter(|&s| s != t && s.is_a(t) && (flag(1) || s.parents().contains(&t))).collect()
            } else if flag(1) {
                Type::all().into_iter().filter(|&s| s != t && t.is_a(s)).collect()
            } else {
                t.parents()
            };
            found.sort_by_key(|t| t.name());
            json!(found.iter().map(|t| t.name()).collect::<Vec<_>>())
        }
        "getAtoms" => {
            let t = type_named(arg(0)?)?;
            Json::Array(space.handles_by_type(t, flag(1)).map(|h| atom_json(space, h)).collect::<Result<_, _>>()?)
        }
        "haveNode" => {
            let t = type_named(arg(0)?)?;
            let name = arg(1)?.as_str().ok_or("haveNode takes the name as a string")?;
            json!(space.get_node(t, name).is_some())
        }
        "haveLink" => {
            let t = type_named(arg(0)?)?;
            let members = arg(1)?.as_array().ok_or("haveLink takes an array of atoms")?;
            let mut out = Vec::with_capacity(members.len());
            for m in members {
                match find(space, m)? {
                    Some(h) => out.push(h),
                    None => return Ok(json!(false)),
                }
            }
            json!(space.get_link(t, &out).is_some())
        }
        "haveAtom" => json!(find(space, arg(0)?)?.is_some()),
        "makeAtom" => {
            cx.stored(make(cx, arg(0)?)?)?;
            json!(true)
        }
        "loadAtoms" => {
            let atoms = arg(0)?.as_array().ok_or("loadAtoms takes an array of atoms")?;
            // All are checked before any is added.
            for a in atoms {
                check(a)?;
            }
            for a in atoms {
                cx.stored(make(cx, a)?)?;
            }
            json!(true)
        }
        "getIncoming" => {
            let Some(h) = find(space, arg(0)?)? else { return Ok(json!([])) };
            let links = match args.get(1) {
                Some(t) => space.incoming_by_type(h, type_named(t)?),
                None => space.incoming(h).map(|i| i.to_vec()).unwrap_or_default(),
            };
            Json::Array(links.iter().map(|&l| atom_json(space, l)).collect::<Result<_, _>>()?)
        }
        "getValues" => {
            let Some(h) = find(space, arg(0)?)? else { return Ok(json!([])) };
            let mut vals = Vec::new();
            let tv = space.get_tv(h).unwrap_or_default();
            if !tv.is_default() {
                vals.push(json!({ "key": { "type": "PredicateNode", "name": atomweave::sexpr::TV_KEY }, "value": value_json(space, &Value::Truth(tv))? }));
            }
            for (k, v) in space.key_values(h) {
                vals.push(json!({ "key": atom_json(space, k)?, "value": value_json(space, &v)? }));
            }
            Json::Array(vals)
        }
        "getTV" => {
            let Some(h) = find(space, arg(0)?)? else { return Ok(json!([])) };
            json!([{ "value": value_json(space, &Value::Truth(space.get_tv(h).unwrap_or_default()))? }])
        }
        "setTV" => {
            // Upstream's form puts the truth value in the atom: {..., "value": tv}.
            let (atom, tv) = match args.as_slice() {
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
            space.set_tv(h, tv).map_err(|e| e.to_string())?;
            cx.stored(h)?;
            json!(true)
        }
        "setValue" => {
            // Upstream's form puts key and value in the atom: {..., "key": k, "value": v}.
            let (atom, key, value) = match args.as_slice() {
                [atom] => match (atom.get("key"), atom.get("value")) {
                    (Some(k), Some(v)) => (atom, k, v),
                    _ => return Err("setValue takes an atom with \"key\" and \"value\", or an atom, a key and a value".into()),
                },
                [atom, key, value] => (atom, key, value),
                _ => return Err("setValue takes an atom, a key and a value".into()),
            };
            check(atom)?;
            // Everything that can be refused is, before anything is added.
            let tv_key = matches!(check(key)?, (t, Some(name), _) if t == atomweave::types::PREDICATE_NODE && name == atomweave::sexpr::TV_KEY);
            let checked = value_of(cx, value, false)?;
            if tv_key && !matches!(checked, Value::Truth(_)) {
                return Err("the truth-value key holds a SimpleTruthValue or CountTruthValue".into());
            }
            let h = make(cx, atom)?;
            let k = make(cx, key)?;
            let v = value_of(cx, value, true)?;
            space.set_value(h, k, v).map_err(|e| e.to_string())?;
            cx.stored(h)?;
            json!(true)
        }
        "extract" => {
            let Some(h) = find(space, arg(0)?)? else { return Ok(json!(false)) };
            json!(cx.delete(h, flag(1))?)
        }
        "execute" => {
            check(arg(0)?)?;
            let q = make(cx, arg(0)?)?;
            cx.stored(q)?;
            match query::execute(space, q).map_err(|e| e.to_string())? {
                Executed::Atom(h) => atom_json(space, h)?,
                Executed::Value(v) => value_json(space, &v)?,
            }
        }
        other => return Err(format!("unknown verb `{other}`")),
    })
}

fn type_named(j: &Json) -> Result<Type, String> {
    let name = j.as_str().ok_or("expected a type name string")?;
    Type::from_name(name).ok_or_else(|| format!("unknown type `{name}`"))
}

/// Most atoms and values one atom's or value's JSON may hold, counting a
/// shared member at each place it occurs (as JSON repeats it): a link
/// built by doubling would otherwise hold 2^depth of them.
const MAX_JSON_PARTS: usize = 1 << 20;

/// An atom's JSON: type, then name or outgoing.
///
/// An atom nested deeper than an Atomese expression may be (a chain a
/// Scheme loop built) is an error: the JSON is built, written and freed
/// by recursion. So is one of more than a million parts.
pub fn atom_json(space: &AtomSpace, h: Handle) -> Result<Json, String> {
    let mut budget = MAX_JSON_PARTS;
    atom_json_in(space, h, 0, &mut budget)
}

fn spend(budget: &mut usize) -> Result<(), String> {
    *budget = budget
        .checked_sub(1)
        .ok_or_else(|| format!("the atom or value has more than {MAX_JSON_PARTS} parts as JSON (members it shares are repeated at every place)"))?;
    Ok(())
}

fn atom_json_in(space: &AtomSpace, h: Handle, depth: usize, budget: &mut usize) -> Result<Json, String> {
    if depth > MAX_NESTING {
        return Err(format!("an atom nested more than {MAX_NESTING} deep cannot be sent as JSON"));
    }
    spend(budget)?;
    let Some(t) = space.get_type(h) else { return Ok(Json::Null) };
    Ok(match space.name(h) {
        Some(name) => json!({ "type": t.name(), "name": name }),
        None => {
            let members = space.outgoing(h).unwrap_or(&[]).iter().map(|&c| atom_json_in(space, c, depth + 1, budget)).collect::<Result<Vec<_>, _>>()?;
            json!({ "type": t.name(), "outgoing": members })
        }
    })
}

/// A value as JSON (LinkValues nest at most `MAX_VALUE_NESTING` deep).
fn value_json(space: &AtomSpace, v: &Value) -> Result<Json, String> {
    let mut budget = MAX_JSON_PARTS;
    value_json_in(space, v, &mut budget)
}

fn value_json_in(space: &AtomSpace, v: &Value, budget: &mut usize) -> Result<Json, String> {
    spend(budget)?;
    let t = v.value_type().name();
    Ok(match v {
        Value::Float(xs) => json!({ "type": t, "value": xs.to_vec() }),
        Value::String(ss) => json!({ "type": t, "value": ss.to_vec() }),
        Value::Bool(bs) => json!({ "type": t, "value": bs.to_vec() }),
        Value::Link(vs) => json!({ "type": t, "value": vs.iter().map(|v| value_json_in(space, v, budget)).collect::<Result<Vec<_>, _>>()? }),
        // What it is made of, as the Atomese writer shows it: no code runs.
        Value::Stream(st) => match st.random_len() {
            Some(n) => json!({ "type": t, "value": [n] }),
            None => json!({ "type": t, "value": st.atoms().iter().map(|&a| atom_json_in(space, a, 0, budget)).collect::<Result<Vec<_>, _>>()? }),
        },
        Value::Queue(q) => json!({ "type": t, "value": q.snapshot().iter().map(|v| value_json_in(space, v, budget)).collect::<Result<Vec<_>, _>>()? }),
        Value::Void => json!({ "type": t, "value": [] }),
        Value::Truth(tv) => json!({ "type": t, "value": tv.to_vec() }),
        Value::Atom(h) => atom_json_in(space, *h, 0, budget)?,
        Value::Space(s) => json!({ "type": t, "name": s.space().space_name() }),
    })
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
