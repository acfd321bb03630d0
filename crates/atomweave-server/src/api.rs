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
//! | `/api/query?q=Q` | query Q executed: its result, and its rows (a SetLink's or a LinkValue's members, each a row of its ListLink's members) |
//!
//! Errors are `{"error": "..."}` with a 4xx status.

use std::sync::atomic::Ordering::Relaxed;

use atomweave::query::{self, Executed};
use atomweave::sexpr::{self, parse_str, write_structure_upto, write_value_upto};
use atomweave::types::{self, Type};
use atomweave::{AtomSpace, Handle, Value};
use serde_json::{json, Value as Json};

use crate::{Role, Shared};

/// Most atoms one page holds.
const MAX_PAGE: usize = 1000;
/// Longest text of one atom or value in a reply; longer ones are cut.
const MAX_TEXT: usize = 64 * 1024;

/// The answer to `GET path?query`: a status and a JSON body.
pub(crate) fn answer(shared: &Shared, role: Role, path: &str, query: &str) -> (&'static str, String) {
    let param = Params(form_urlencoded::parse(query.as_bytes()).into_owned().collect());
    let result = match path {
        "/api/overview" => Ok(overview(shared)),
        "/api/atoms" => atoms(&shared.state.space, &param),
        "/api/atom" => atom(&shared.state.space, &param),
        "/api/query" => run_query(shared, role, &param),
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

fn overview(shared: &Shared) -> Json {
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

/// A page's offset and length from `offset` and `limit` (50 by default).
fn page(param: &Params) -> Result<(usize, usize), String> {
    let number =
        |k: &str, default: usize| param.get(k).map_or(Ok(default), |v| v.parse::<usize>().map_err(|_| format!("{k} must be a whole number, not {v:?}")));
    let (offset, limit) = (number("offset", 0)?, number("limit", 50)?);
    if limit == 0 || limit > MAX_PAGE {
        return Err(format!("limit is from 1 to {MAX_PAGE}"));
    }
    Ok((offset, limit))
}

fn atoms(space: &AtomSpace, param: &Params) -> Result<Json, String> {
    let name = param.get("type").unwrap_or("Atom");
    let t = Type::from_name(name).ok_or_else(|| format!("unknown type {name:?}"))?;
    let subtypes = matches!(param.get("subtypes"), Some("1" | "true")) || name == "Atom";
    let (offset, limit) = page(param)?;
    let prefix = param.get("prefix").unwrap_or("");
    let matching = |h: &Handle| prefix.is_empty() || space.name(*h).is_some_and(|n| n.starts_with(prefix));
    let mut total = 0;
    let mut items = Vec::new();
    for h in space.handles_by_type(t, subtypes).filter(matching) {
        if total >= offset && items.len() < limit {
            items.push(text(space, h));
        }
        total += 1;
    }
    Ok(json!({ "type": t.name(), "prefix": prefix, "total": total, "offset": offset, "atoms": items }))
}

/// The atom the parameter `atom` names, which must be in the space.
fn named(space: &AtomSpace, param: &Params) -> Result<Handle, String> {
    let given = param.get("atom").ok_or("give the atom as ?atom=(ConceptNode \"a\")")?;
    let exprs = parse_str(given).map_err(|e| e.to_string())?;
    let [e] = &exprs[..] else { return Err(format!("one atom expected, {} given", exprs.len())) };
    sexpr::lookup(space, e).map_err(|e| e.to_string())?.ok_or_else(|| format!("the space holds no {given}"))
}

fn atom(space: &AtomSpace, param: &Params) -> Result<Json, String> {
    let h = named(space, param)?;
    let (offset, limit) = page(param)?;
    let t = space.get_type(h).ok_or("the atom was just removed")?;
    let incoming = space.incoming(h).map(|i| i.to_vec()).unwrap_or_default();
    let values: Vec<Json> = space
        .key_values(h)
        .into_iter()
        .map(|(k, v)| {
            let floats = match &v {
                Value::Float(xs) => Some(xs.to_vec()),
                Value::Truth(tv) => Some(vec![tv.mean(), tv.confidence()]),
                _ => None,
            };
            json!({ "key": text(space, k), "type": v.value_type().name(), "value": value_text(space, &v), "floats": floats })
        })
        .collect();
    Ok(json!({
        "atom": text(space, h),
        "type": t.name(),
        "name": space.name(h),
        "outgoing": space.outgoing(h).unwrap_or(&[]).iter().map(|&m| text(space, m)).collect::<Vec<_>>(),
        "incoming": {
            "total": incoming.len(),
            "offset": offset,
            "atoms": incoming.iter().skip(offset).take(limit).map(|&l| text(space, l)).collect::<Vec<_>>(),
        },
        "values": values,
    }))
}

fn run_query(shared: &Shared, role: Role, param: &Params) -> Result<Json, String> {
    let q = param.get("q").ok_or("give the query as ?q=(Get ...)")?;
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
    let row = |v: &Value| -> Vec<String> {
        match v {
            Value::Atom(a) if space.get_type(*a) == Some(types::LIST_LINK) => space.outgoing(*a).unwrap_or(&[]).iter().map(|&m| text(space, m)).collect(),
            Value::Link(vs) => vs.iter().map(|x| value_text(space, x)).collect(),
            v => vec![value_text(space, v)],
        }
    };
    Ok(json!({ "result": value_text(space, &result), "rows": members.iter().map(row).collect::<Vec<_>>() }))
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
