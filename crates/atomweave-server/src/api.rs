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

fn atoms(space: &AtomSpace, param: &Params) -> Result<Json, String> {
    let (offset, limit) = page(param, 50)?;
    let subtypes = matches!(param.get("subtypes"), Some("1" | "true"));
    atoms_page(space, param.get("type").unwrap_or("Atom"), param.get("prefix").unwrap_or(""), subtypes, offset, limit)
}

/// The atoms of type `type_name` (and its subtypes with `subtypes`, or for
/// `Atom`) whose name starts with `prefix`: a page of them, and how many.
pub(crate) fn atoms_page(space: &AtomSpace, type_name: &str, prefix: &str, subtypes: bool, offset: usize, limit: usize) -> Result<Json, String> {
    let t = Type::from_name(type_name).ok_or_else(|| format!("unknown type {type_name:?}"))?;
    let subtypes = subtypes || t == types::ATOM;
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

/// The atom that Atomese text `given` names, which must be in the space.
pub(crate) fn named(space: &AtomSpace, given: &str) -> Result<Handle, String> {
    let exprs = parse_str(given).map_err(|e| e.to_string())?;
    let [e] = &exprs[..] else { return Err(format!("one atom expected, {} given", exprs.len())) };
    sexpr::lookup(space, e).map_err(|e| e.to_string())?.ok_or_else(|| format!("the space holds no {given}"))
}

fn atom(space: &AtomSpace, param: &Params) -> Result<Json, String> {
    let h = named(space, param.get("atom").ok_or("give the atom as ?atom=(ConceptNode \"a\")")?)?;
    let (offset, limit) = page(param, 50)?;
    atom_page(space, h, offset, limit)
}

/// Atom `h`: its type, name, outgoing set, a page of its incoming set and
/// its size, its values.
pub(crate) fn atom_page(space: &AtomSpace, h: Handle, offset: usize, limit: usize) -> Result<Json, String> {
    let t = space.get_type(h).ok_or("the atom was just removed")?;
    let incoming = space.incoming(h).map(|i| i.to_vec()).unwrap_or_default();
    let value = |key: String, v: &Value| {
        let floats = match v {
            Value::Float(xs) => Some(xs.to_vec()),
            Value::Truth(tv) => Some(vec![tv.mean(), tv.confidence()]),
            _ => None,
        };
        json!({ "key": key, "type": v.value_type().name(), "value": value_text(space, v), "floats": floats })
    };
    // The truth value first, under its key's name, unless it is the default one.
    let tv = space.get_tv(h).filter(|tv| !tv.is_default()).and(space.get_tv_value(h));
    let mut values: Vec<Json> = tv.iter().map(|v| value(format!("(PredicateNode \"{}\")", sexpr::TV_KEY), v)).collect();
    values.extend(space.key_values(h).into_iter().map(|(k, v)| value(text(space, k), &v)));
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
    let (offset, limit) = page(param, MAX_PAGE)?;
    query_page(shared, role, q, offset, limit)
}

/// Query `q` (one Atomese expression) executed in a frame of its own over
/// the space, dropped after: its result, how many rows it has, and a page
/// of them.
pub(crate) fn query_page(shared: &Shared, role: Role, q: &str, offset: usize, limit: usize) -> Result<Json, String> {
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
    let rows: Vec<Vec<String>> = members.iter().skip(offset).take(limit).map(row).collect();
    Ok(json!({ "result": value_text(space, &result), "total": members.len(), "offset": offset, "rows": rows }))
}

/// An atom's Atomese text, cut at [`MAX_TEXT`].
pub(crate) fn text(space: &AtomSpace, h: Handle) -> String {
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
