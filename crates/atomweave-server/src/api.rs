//! The web port's JSON API under `/api/`, which the browser UI reads: the
//! space's overview, atoms by type and name, one atom with its
//! neighbourhood, and queries. Every route only reads: a query runs in a
//! frame of its own over the space, dropped after the reply, whatever the
//! client's role, and calls no grounded procedure for a read token's
//! client. Atoms are named by their Atomese text, in the URL and in the
//! replies.
//!
//! | route | answer |
//! |---|---|
//! | `/api/overview` | counts (atoms, nodes, links, by type), connections, commands, uptime, memory, the store's commits and lag |
//! | `/api/atoms?type=T&prefix=P&subtypes=1&offset=N&limit=L` | the atoms of type T (nodes whose name starts with P), a page of them, and how many there are |
//! | `/api/atom?atom=A&offset=N&limit=L` | atom A: type, name, outgoing set, a page of its incoming set and its size, its values |
//! | `/api/query?q=Q&offset=N&limit=L` | query Q executed: its result, how many rows it has, and a page of them (a SetLink's or a LinkValue's members, each a row of its ListLink's members) |
//!
//! Errors are `{"error": "..."}` with a 4xx status. The MCP tools
//! ([`crate::mcp`]) answer with the same functions.

use std::sync::atomic::Ordering::Relaxed;

use atomweave::query::{self, Executed};
use atomweave::sexpr::{self, parse_str, write_structure_upto, write_value_upto};
use atomweave::types::{self, Type};
use atomweave::{AtomSpace, Handle, Value};
use serde_json::{json, Value as Json};

use crate::{Role, Shared};

/// Most atoms one page holds.
pub(crate) const MAX_PAGE: usize = 1000;
/// Longest text of one atom or value in a reply; longer ones are cut.
const MAX_TEXT: usize = 64 * 1024;
/// Most bytes of atoms' and values' texts one reply gathers: past it the
/// request is an error, whatever its pages ask (a page of atoms each of
/// a thousand members would be gigabytes).
pub(crate) const MAX_TEXTS: usize = crate::MAX_REPLY / 4;

/// The answer to `GET path?query`: a status and a JSON body.
pub(crate) fn answer(shared: &Shared, role: Role, path: &str, query: &str) -> (&'static str, String) {
    let param = Params(form_urlencoded::parse(query.as_bytes()).into_owned().collect());
    let texts = &mut Texts::new(MAX_TEXTS);
    let result = match path {
        "/api/overview" => Ok(overview(shared)),
        "/api/atoms" => atoms(&shared.state.space, &param, texts),
        "/api/atom" => atom(&shared.state.space, &param, texts),
        "/api/query" => run_query(shared, role, &param, texts),
        _ => Err(format!("no route {path}; the API has /api/overview, /api/atoms, /api/atom and /api/query")),
    };
    match result {
        Ok(body) => ("200 OK", body.to_string()),
        Err(msg) => ("400 Bad Request", json!({ "error": msg }).to_string()),
    }
}

/// A request's parameters, decoded.
struct Params(Vec<(String, String)>);

impl Params {
    fn get(&self, k: &str) -> Option<&str> {
        self.0.iter().find(|(key, _)| key == k).map(|(_, v)| v.as_str())
    }
}

pub(crate) fn overview(shared: &Shared) -> Json {
    let space = &shared.state.space;
    let mut by_type: Vec<(&str, usize)> = Type::all().into_iter().map(|t| (t.name(), space.count_of_type(t, false))).filter(|&(_, n)| n > 0).collect();
    by_type.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(b.0)));
    let s = &shared.stats;
    let (commits, errors) = shared.state.commits();
    json!({
        "atoms": space.size(),
        "nodes": space.num_nodes(),
        "links": space.num_links(),
        "types": by_type.iter().map(|(t, n)| json!([t, n])).collect::<Vec<_>>(),
        "connections": s.open.load(Relaxed),
        "accepted": s.accepted.load(Relaxed),
        "commands": s.commands.load(Relaxed),
        "uptime_secs": shared.started.elapsed().as_secs_f64(),
        "resident_bytes": crate::resident_bytes(),
        "store": { "commits": commits, "errors": errors, "lag": shared.state.lag() },
    })
}

/// A page's offset and length from `offset` and `limit` (`default` when
/// not given).
fn page(param: &Params, default: usize) -> Result<(usize, usize), String> {
    let number =
        |k: &str, default: usize| param.get(k).map_or(Ok(default), |v| v.parse::<usize>().map_err(|_| format!("{k} must be a whole number, not {v:?}")));
    let (offset, limit) = (number("offset", 0)?, number("limit", default)?);
    check_limit(limit)?;
    Ok((offset, limit))
}

/// Refuses a page of no atoms or of more than [`MAX_PAGE`].
pub(crate) fn check_limit(limit: usize) -> Result<(), String> {
    if limit == 0 || limit > MAX_PAGE {
        return Err(format!("limit is from 1 to {MAX_PAGE}"));
    }
    Ok(())
}

fn atoms(space: &AtomSpace, param: &Params, texts: &mut Texts) -> Result<Json, String> {
    let (offset, limit) = page(param, 50)?;
    let subtypes = matches!(param.get("subtypes"), Some("1" | "true"));
    atoms_page(space, param.get("type").unwrap_or("Atom"), param.get("prefix").unwrap_or(""), subtypes, (offset, limit), texts)
}

/// The atoms of type `type_name` (and its subtypes with `subtypes`, or for
/// `Atom`, `Node` and `Link`) whose name starts with `prefix`: a page of them, and how many.
pub(crate) fn atoms_page(
    space: &AtomSpace,
    type_name: &str,
    prefix: &str,
    subtypes: bool,
    (offset, limit): (usize, usize),
    texts: &mut Texts,
) -> Result<Json, String> {
    let t = Type::from_name(type_name).ok_or_else(|| format!("unknown type {type_name:?}"))?;
    // Atom, Node and Link are held by no atom of exactly their type.
    let subtypes = subtypes || matches!(t, types::ATOM | types::NODE | types::LINK);
    let matching = |h: &Handle| prefix.is_empty() || space.name(*h).is_some_and(|n| n.starts_with(prefix));
    let mut total = 0;
    let mut items = Vec::new();
    for h in space.handles_by_type(t, subtypes).filter(matching) {
        if total >= offset && items.len() < limit {
            items.push(texts.atom(space, h)?);
        }
        total += 1;
    }
    Ok(json!({ "type": t.name(), "prefix": prefix, "total": total, "offset": offset, "atoms": items }))
}

/// The atom that Atomese text `given` names, which must be in the space.
pub(crate) fn named(space: &AtomSpace, given: &str) -> Result<Handle, String> {
    let exprs = parse_str(given).map_err(|e| e.to_string())?;
    let [e] = &exprs[..] else { return Err(format!("one atom expected, {} given", exprs.len())) };
    sexpr::lookup(space, e).map_err(|e| e.to_string())?.ok_or_else(|| format!("the space holds no {given}"))
}

fn atom(space: &AtomSpace, param: &Params, texts: &mut Texts) -> Result<Json, String> {
    let h = named(space, param.get("atom").ok_or("give the atom as ?atom=(ConceptNode \"a\")")?)?;
    atom_page(space, h, page(param, 50)?, texts)
}

/// Atom `h`: its type, name, outgoing set, a page of its incoming set and
/// its size, its values.
pub(crate) fn atom_page(space: &AtomSpace, h: Handle, (offset, limit): (usize, usize), texts: &mut Texts) -> Result<Json, String> {
    let t = space.get_type(h).ok_or("the atom was just removed")?;
    let incoming = space.incoming(h).map(|i| i.to_vec()).unwrap_or_default();
    // The truth value first, under its key's name, unless it is the default one.
    let mut values = Vec::new();
    if let Some(tv) = space.get_tv(h).filter(|tv| !tv.is_default()).and(space.get_tv_value(h)) {
        values.push(value_json(space, texts, format!("(PredicateNode \"{}\")", sexpr::TV_KEY), &tv)?);
    }
    for (k, v) in space.key_values(h) {
        let key = texts.atom(space, k)?;
        values.push(value_json(space, texts, key, &v)?);
    }
    let outgoing: Vec<String> = space.outgoing(h).unwrap_or(&[]).iter().map(|&m| texts.atom(space, m)).collect::<Result<_, _>>()?;
    let page: Vec<String> = incoming.iter().skip(offset).take(limit).map(|&l| texts.atom(space, l)).collect::<Result<_, _>>()?;
    Ok(json!({
        "atom": texts.atom(space, h)?,
        "type": t.name(),
        "name": space.name(h),
        "outgoing": outgoing,
        "incoming": { "total": incoming.len(), "offset": offset, "atoms": page },
        "values": values,
    }))
}

/// One value of an atom under `key`: its type, its text, and its numbers
/// (a FloatValue's, a truth value's mean and confidence) for a chart.
fn value_json(space: &AtomSpace, texts: &mut Texts, key: String, v: &Value) -> Result<Json, String> {
    let floats = match v {
        Value::Float(xs) => Some(xs.to_vec()),
        Value::Truth(tv) => Some(vec![tv.mean(), tv.confidence()]),
        _ => None,
    };
    Ok(json!({ "key": key, "type": v.value_type().name(), "value": texts.value(space, v)?, "floats": floats }))
}

fn run_query(shared: &Shared, role: Role, param: &Params, texts: &mut Texts) -> Result<Json, String> {
    let q = param.get("q").ok_or("give the query as ?q=(Get ...)")?;
    query_page(shared, role, q, page(param, MAX_PAGE)?, texts)
}

/// Query `q` (one Atomese expression) executed in a frame of its own over
/// the space, dropped after: its result, how many rows it has, and a page
/// of them.
pub(crate) fn query_page(shared: &Shared, role: Role, q: &str, (offset, limit): (usize, usize), texts: &mut Texts) -> Result<Json, String> {
    let exprs = parse_str(q).map_err(|e| e.to_string())?;
    let [e] = &exprs[..] else { return Err(format!("one query expected, {} given", exprs.len())) };
    let frame = shared.state.frame()?;
    let space = &frame.space;
    let h = sexpr::eval(&mut &*space, e).map_err(|e| e.to_string())?;
    let executed = query::with_limits(shared.query_limits(role), || query::execute(space, h)).map_err(|e| e.to_string())?;
    let result = match executed {
        Executed::Atom(a) => Value::Atom(a),
        Executed::Value(v) => v,
    };
    let members: Vec<Value> = match &result {
        Value::Atom(a) if space.get_type(*a).is_some_and(|t| t.is_link()) => space.outgoing(*a).unwrap_or(&[]).iter().map(|&m| Value::Atom(m)).collect(),
        Value::Link(vs) => vs.to_vec(),
        Value::Queue(q) => q.snapshot(),
        other => vec![other.clone()],
    };
    let mut row = |v: &Value| -> Result<Vec<String>, String> {
        match v {
            Value::Atom(a) if space.get_type(*a) == Some(types::LIST_LINK) => space.outgoing(*a).unwrap_or(&[]).iter().map(|&m| texts.atom(space, m)).collect(),
            Value::Link(vs) => vs.iter().map(|x| texts.value(space, x)).collect(),
            v => Ok(vec![texts.value(space, v)?]),
        }
    };
    let rows: Vec<Vec<String>> = members.iter().skip(offset).take(limit).map(&mut row).collect::<Result<_, _>>()?;
    Ok(json!({ "result": texts.value(space, &result)?, "total": members.len(), "offset": offset, "rows": rows }))
}

/// The texts of atoms and values one reply gathers, counted against a
/// limit: past it, an error that says so.
pub(crate) struct Texts {
    used: usize,
    limit: usize,
}

impl Texts {
    pub(crate) fn new(limit: usize) -> Texts {
        Texts { used: 0, limit }
    }

    fn take(&mut self, text: String) -> Result<String, String> {
        self.used += text.len();
        if self.used > self.limit {
            return Err(format!("the answer would hold over {} MiB of Atomese: ask for a smaller page or fewer atoms", self.limit >> 20));
        }
        Ok(text)
    }

    pub(crate) fn atom(&mut self, space: &AtomSpace, h: Handle) -> Result<String, String> {
        self.take(text(space, h))
    }

    fn value(&mut self, space: &AtomSpace, v: &Value) -> Result<String, String> {
        self.take(value_text(space, v))
    }
}

/// An atom's Atomese text, cut at [`MAX_TEXT`].
fn text(space: &AtomSpace, h: Handle) -> String {
    let mut out = String::new();
    if write_structure_upto(space, h, &mut out, MAX_TEXT).is_err() {
        out.push_str(" ...");
    }
    out
}

/// A value's text, cut at [`MAX_TEXT`].
fn value_text(space: &AtomSpace, v: &Value) -> String {
    let mut out = String::new();
    if write_value_upto(space, v, &mut out, MAX_TEXT).is_err() {
        out.push_str(" ...");
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_reply_gathers_texts_up_to_its_limit_then_refuses() {
        let space = AtomSpace::new();
        let items: Vec<Handle> = (0..100).map(|i| space.add_node(types::CONCEPT_NODE, &format!("{i:040}")).unwrap()).collect();
        // Each text is 56 bytes: `(ConceptNode "` 14, the name 40, `")` 2.
        let mut texts = Texts::new(56 * 10);
        for &h in &items[..10] {
            assert_eq!(texts.atom(&space, h).unwrap().len(), 56);
        }
        let over = texts.atom(&space, items[10]).unwrap_err();
        assert!(over.contains("smaller page"), "{over}");
        let page = atoms_page(&space, "ConceptNode", "", false, (0, 100), &mut Texts::new(56 * 50));
        assert!(page.is_err(), "a page of 100 texts over a limit of 50");
        assert_eq!(atoms_page(&space, "ConceptNode", "", false, (0, 50), &mut Texts::new(56 * 50)).unwrap()["atoms"].as_array().unwrap().len(), 50);
    }
}
