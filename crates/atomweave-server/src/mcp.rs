//! MCP, the Model Context Protocol, at `/mcp` on the web port: tools with
//! which a language-model agent reads and writes the space in bulk (a
//! query's groundings a page at a time, many atoms with their incoming
//! sets, a batch of Atomese text added at once, counts by type, the type
//! hierarchy).
//!
//! Both eras of the protocol's Streamable HTTP transport are spoken on the
//! one endpoint, each request a POST answered by one JSON object:
//! - 2026-07-28 (the current revision): no handshake; every request
//!   carries its protocol version and the client's capabilities in
//!   `params._meta`, mirrored in the `MCP-Protocol-Version`, `Mcp-Method`
//!   and `Mcp-Name` headers, which must agree with the body;
//! - 2025-03-26 to 2025-11-25: `initialize` first, then requests.
//!
//! No session is kept in either (every tool call stands alone), so no
//! `Mcp-Session-Id` is minted, and GET and DELETE get 405. What a client
//! may do follows its token's role as everywhere on the server: a read
//! token's client is not offered `add_atoms` and is refused it; queries
//! run in a frame dropped after the reply, under the server's limits.
//!
//! Written here rather than with an SDK: the protocol's part used is a
//! handful of JSON-RPC methods, and the transport must be the web port's
//! own (its token rule, TLS, limits); the SDKs' HTTP transports bring a
//! server stack of their own.

use base64::Engine as _;
use serde_json::{json, Map, Value as Json};

use crate::api;
use crate::{Role, Shared};

/// The revision whose requests carry their version in `_meta`.
pub(crate) const MODERN: &str = "2026-07-28";
/// The handshake revisions served, newest first.
const LEGACY: [&str; 3] = ["2025-11-25", "2025-06-18", "2025-03-26"];
/// Where a 2026-07-28 request's version and capabilities are.
const META_VERSION: &str = "io.modelcontextprotocol/protocolVersion";
const META_CAPABILITIES: &str = "io.modelcontextprotocol/clientCapabilities";

/// Most atoms one `get_atoms` call names.
const MAX_GET: usize = 100;
/// How long a client may keep `tools/list`'s and `server/discover`'s
/// answers: they change only with the server's binary.
const LIST_TTL_MS: u64 = 3_600_000;

/// Every version served, newest first.
fn supported() -> Vec<&'static str> {
    let mut all = vec![MODERN];
    all.extend(LEGACY);
    all
}

/// The answer to one POST: its status, and its body (none for a
/// notification, answered 202); the request's id, and whether it did
/// what was asked (for the server's figures).
pub(crate) struct Reply {
    pub status: &'static str,
    pub body: Option<String>,
    pub id: Option<Json>,
    pub ok: bool,
}

/// A JSON-RPC error, and the HTTP status it goes with.
struct Fail {
    status: &'static str,
    code: i64,
    message: String,
    data: Option<Json>,
}

impl Fail {
    fn new(status: &'static str, code: i64, message: impl Into<String>) -> Fail {
        Fail { status, code, message: message.into(), data: None }
    }

    fn invalid_request(message: impl Into<String>) -> Fail {
        Fail::new("400 Bad Request", -32600, message)
    }

    /// The headers disagree with the body, or one is missing.
    fn header_mismatch(message: impl Into<String>) -> Fail {
        Fail::new("400 Bad Request", -32020, message)
    }

    fn unsupported_version(requested: &str) -> Fail {
        Fail {
            data: Some(json!({ "supported": supported(), "requested": requested })),
            ..Fail::new(
                "400 Bad Request",
                -32022,
                format!("unsupported protocol version {requested:?}: {MODERN} in each request's _meta, or {} through initialize", LEGACY.join(", ")),
            )
        }
    }
}

/// How a request is served: with its version in `_meta`, or after a handshake.
#[derive(Copy, Clone, PartialEq)]
enum Era {
    Modern,
    Legacy,
}

/// The answer to a POST to `/mcp` with JSON body `body`; `header` gives
/// every value of a request header.
pub(crate) fn answer(shared: &Shared, role: Role, header: &dyn Fn(&str) -> Vec<String>, body: &[u8]) -> Reply {
    let msg: Json = match serde_json::from_slice(body) {
        Ok(m) => m,
        Err(e) => return error(None, Fail::new("400 Bad Request", -32700, format!("the body is no JSON: {e}"))),
    };
    let Json::Object(msg) = msg else {
        let why = if msg.is_array() { "one JSON-RPC message a POST: batches are not part of MCP since 2025-06-18" } else { "a JSON-RPC message is an object" };
        return error(None, Fail::invalid_request(why));
    };
    let id = msg.get("id").cloned();
    if let Some(id) = &id {
        if !(id.is_string() || id.is_i64() || id.is_u64()) {
            return error(None, Fail::invalid_request("a request's id is a string or an integer"));
        }
    }
    if msg.get("jsonrpc").and_then(Json::as_str) != Some("2.0") {
        return error(id, Fail::invalid_request("\"jsonrpc\": \"2.0\" expected"));
    }
    let Some(method) = msg.get("method").and_then(Json::as_str) else {
        let why = if msg.contains_key("result") || msg.contains_key("error") {
            "this server sends no requests, so it takes no responses"
        } else {
            "a request names its method"
        };
        return error(id, Fail::invalid_request(why));
    };
    let no_params = Map::new();
    let params = match msg.get("params") {
        None => &no_params,
        Some(Json::Object(p)) => p,
        Some(_) => return error(id, Fail::new("400 Bad Request", -32602, "params is an object")),
    };
    let era = match era(header, method, params) {
        Ok(era) => era,
        Err(fail) => return error(id, fail),
    };
    if id.is_none() {
        // A notification (`notifications/initialized`, ...): nothing to answer.
        return Reply { status: "202 Accepted", body: None, id, ok: true };
    }
    match call(shared, role, era, method, params) {
        Ok(mut result) => {
            let ok = result.get("isError") != Some(&Json::Bool(true));
            if era == Era::Modern {
                result["resultType"] = json!("complete");
                result["_meta"] = json!({ "io.modelcontextprotocol/serverInfo": server_info() });
            }
            Reply { status: "200 OK", body: Some(json!({ "jsonrpc": "2.0", "id": id, "result": result }).to_string()), id, ok }
        }
        Err(fail) => error(id, fail),
    }
}

/// What a request whose writes the store could not make durable gets
/// instead of its answer: they are in the space, not acknowledged.
pub(crate) fn not_durable(id: Option<Json>, why: &str) -> Reply {
    let why = format!("the store did not make this request's writes durable ({why}); the server acknowledges no further writes");
    error(id, Fail::new("200 OK", -32603, why))
}

/// The one value of header `name`, checked: an error if it is given
/// twice or holds what no header value may.
fn one_header(header: &dyn Fn(&str) -> Vec<String>, name: &str) -> Result<Option<String>, Fail> {
    let mut values = header(name);
    if values.len() > 1 {
        return Err(Fail::header_mismatch(format!("the {name} header is given {} times", values.len())));
    }
    let value = values.pop();
    if let Some(v) = &value {
        if !v.bytes().all(|b| b == b'\t' || (b' '..=b'~').contains(&b)) {
            return Err(Fail::header_mismatch(format!(
                "the {name} header holds characters a header value may not (non-ASCII values are sent as =?base64?...?=)"
            )));
        }
    }
    Ok(value)
}

/// The era of a request, once its headers are found to agree with it.
fn era(header: &dyn Fn(&str) -> Vec<String>, method: &str, params: &Map<String, Json>) -> Result<Era, Fail> {
    let in_header = one_header(header, "MCP-Protocol-Version")?;
    let meta = params.get("_meta").and_then(Json::as_object);
    let Some(version) = meta.and_then(|m| m.get(META_VERSION)) else {
        return match in_header.as_deref() {
            // Before 2025-06-18 there was no header: 2025-03-26.
            None => Ok(Era::Legacy),
            Some(v) if LEGACY.contains(&v) => Ok(Era::Legacy),
            Some(MODERN) => {
                Err(Fail::new("400 Bad Request", -32602, format!("a {MODERN} request carries {META_VERSION} and {META_CAPABILITIES} in params._meta")))
            }
            Some(v) => Err(Fail::unsupported_version(v)),
        };
    };
    let version = version.as_str().ok_or_else(|| Fail::new("400 Bad Request", -32602, format!("{META_VERSION} is a string")))?;
    if in_header.as_deref() != Some(version) {
        return Err(Fail::header_mismatch(format!("the MCP-Protocol-Version header ({in_header:?}) must be the body's {version}")));
    }
    if version != MODERN {
        return Err(Fail::unsupported_version(version));
    }
    if !meta.and_then(|m| m.get(META_CAPABILITIES)).is_some_and(Json::is_object) {
        return Err(Fail::new("400 Bad Request", -32602, format!("{META_CAPABILITIES} (an object) is missing from params._meta")));
    }
    let given = one_header(header, "Mcp-Method")?;
    if given.as_deref() != Some(method) {
        return Err(Fail::header_mismatch(format!("the Mcp-Method header ({given:?}) must be the body's method {method:?}")));
    }
    if method == "tools/call" {
        let name = params.get("name").and_then(Json::as_str);
        let given = one_header(header, "Mcp-Name")?.map(|h| decode_header(&h)).transpose()?;
        if given.as_deref() != name {
            return Err(Fail::header_mismatch(format!("the Mcp-Name header ({given:?}) must be the body's tool name {name:?}")));
        }
    }
    Ok(Era::Modern)
}

/// A header value, decoded if it was sent as `=?base64?...?=`.
fn decode_header(value: &str) -> Result<String, Fail> {
    let Some(encoded) = value.strip_prefix("=?base64?").and_then(|v| v.strip_suffix("?=")) else {
        return Ok(value.to_string());
    };
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded)
        .map_err(|e| Fail::header_mismatch(format!("a base64 header value that does not decode: {e}")))?;
    String::from_utf8(bytes).map_err(|_| Fail::header_mismatch("a base64 header value that is not UTF-8"))
}

/// A JSON-RPC error; without an id (none given, or none readable) if
/// `id` is `None`.
fn error(id: Option<Json>, fail: Fail) -> Reply {
    let mut e = json!({ "code": fail.code, "message": fail.message });
    if let Some(data) = fail.data {
        e["data"] = data;
    }
    let mut body = json!({ "jsonrpc": "2.0", "error": e });
    if let Some(id) = &id {
        body["id"] = id.clone();
    }
    Reply { status: fail.status, body: Some(body.to_string()), id, ok: false }
}

fn server_info() -> Json {
    json!({ "name": "atomweave", "title": "atomweave AtomSpace server", "version": env!("CARGO_PKG_VERSION") })
}

const INSTRUCTIONS: &str = "An AtomSpace: a typed hypergraph of atoms (nodes with a type and a name, links with a type and an outgoing set of atoms), written in Atomese, e.g. (EvaluationLink (PredicateNode \"likes\") (ListLink (ConceptNode \"Alice\") (ConceptNode \"Bob\"))). Find atoms with find_atoms, read them with their incoming sets with get_atoms, query with a pattern (GetLink, BindLink/QueryLink, MeetLink) through query, add Atomese text with add_atoms. list_types gives the types; count_atoms how many atoms of each there are.";

/// A method's result; a failure is a JSON-RPC error.
fn call(shared: &Shared, role: Role, era: Era, method: &str, params: &Map<String, Json>) -> Result<Json, Fail> {
    let capabilities = json!({ "tools": { "listChanged": false } });
    match (method, era) {
        ("server/discover", _) => Ok(json!({
            "supportedVersions": supported(),
            "capabilities": capabilities,
            "serverInfo": server_info(),
            "instructions": INSTRUCTIONS,
            "ttlMs": LIST_TTL_MS,
            "cacheScope": "public",
        })),
        ("initialize", Era::Legacy) => {
            let asked = params.get("protocolVersion").and_then(Json::as_str).unwrap_or("");
            // A version this server does not speak gets the newest it does; the client decides.
            let version = LEGACY.iter().find(|&&v| v == asked).unwrap_or(&LEGACY[0]);
            Ok(json!({ "protocolVersion": version, "capabilities": capabilities, "serverInfo": server_info(), "instructions": INSTRUCTIONS }))
        }
        ("ping", Era::Legacy) => Ok(json!({})),
        ("tools/list", _) => {
            let tools: Vec<Json> = TOOLS.iter().filter(|t| role == Role::Write || t.read_only).map(Tool::definition).collect();
            // The list depends on the client's role: no cache shared between clients.
            Ok(json!({ "tools": tools, "ttlMs": LIST_TTL_MS, "cacheScope": "private" }))
        }
        ("tools/call", _) => {
            let name = params.get("name").and_then(Json::as_str).ok_or_else(|| Fail::new("200 OK", -32602, "tools/call names its tool in params.name"))?;
            let tool = TOOLS.iter().find(|t| t.name == name).ok_or_else(|| {
                let names: Vec<&str> = TOOLS.iter().map(|t| t.name).collect();
                Fail::new("200 OK", -32602, format!("Unknown tool: {name}; the tools are {}", names.join(", ")))
            })?;
            let no_arguments = Map::new();
            let arguments = match params.get("arguments") {
                None | Some(Json::Null) => &no_arguments,
                Some(Json::Object(a)) => a,
                Some(_) => return Err(Fail::new("200 OK", -32602, "tools/call's arguments is an object")),
            };
            let outcome = if !tool.read_only && role == Role::Read {
                Err(crate::read_only_refusal(&format!("the tool {name}")))
            } else {
                Args(arguments).check(tool).and_then(|()| (tool.run)(shared, role, &Args(arguments)))
            };
            Ok(match outcome {
                Ok(found) => json!({ "content": [{ "type": "text", "text": found.to_string() }], "structuredContent": found, "isError": false }),
                // What went wrong, for the agent to mend its call.
                Err(why) => json!({ "content": [{ "type": "text", "text": why }], "isError": true }),
            })
        }
        _ => {
            // The 2026-07-28 transport answers an unknown method 404; the
            // handshake era answers JSON-RPC errors with 200.
            let status = if era == Era::Modern { "404 Not Found" } else { "200 OK" };
            let served = if era == Era::Modern { "server/discover, tools/list and tools/call" } else { "initialize, ping, tools/list and tools/call" };
            Err(Fail::new(status, -32601, format!("Method not found: {method}; this server answers {served}")))
        }
    }
}

/// A tool's arguments.
struct Args<'a>(&'a Map<String, Json>);

impl Args<'_> {
    /// Refuses arguments the tool does not take.
    fn check(&self, tool: &Tool) -> Result<(), String> {
        let takes: Vec<&str> = tool.arguments.iter().map(|a| a.0).collect();
        match self.0.keys().find(|k| !takes.contains(&k.as_str())) {
            Some(k) => Err(format!("{} takes no argument {k:?}; it takes {}", tool.name, takes.join(", "))),
            None => Ok(()),
        }
    }

    fn text(&self, k: &str) -> Result<&str, String> {
        match self.0.get(k) {
            Some(Json::String(s)) => Ok(s),
            Some(other) => Err(format!("{k} is a string, not {other}")),
            None => Err(format!("{k} is required")),
        }
    }

    fn text_or(&self, k: &str, default: &'static str) -> Result<&str, String> {
        if self.0.contains_key(k) {
            self.text(k)
        } else {
            Ok(default)
        }
    }

    fn number(&self, k: &str, default: usize) -> Result<usize, String> {
        match self.0.get(k) {
            None => Ok(default),
            Some(v) => v.as_u64().and_then(|n| usize::try_from(n).ok()).ok_or_else(|| format!("{k} is a whole number, not {v}")),
        }
    }

    fn flag(&self, k: &str) -> Result<bool, String> {
        match self.0.get(k) {
            None => Ok(false),
            Some(v) => v.as_bool().ok_or_else(|| format!("{k} is true or false, not {v}")),
        }
    }

    /// `offset` and `limit`, the latter checked.
    fn page(&self, default: usize) -> Result<(usize, usize), String> {
        let limit = self.number("limit", default)?;
        api::check_limit(limit)?;
        Ok((self.number("offset", 0)?, limit))
    }
}

/// One tool: what it is called, what it does, what it takes.
struct Tool {
    name: &'static str,
    title: &'static str,
    description: &'static str,
    /// Each argument: its name, its JSON Schema, whether it is required.
    arguments: &'static [(&'static str, &'static str, bool)],
    /// Changes nothing: a read token's client may call it.
    read_only: bool,
    /// May change what is there (not only add to it).
    destructive: bool,
    run: fn(&Shared, Role, &Args) -> Result<Json, String>,
}

impl Tool {
    fn definition(&self) -> Json {
        let properties: Map<String, Json> =
            self.arguments.iter().map(|(k, schema, _)| (k.to_string(), serde_json::from_str(schema).expect("a tool's schemas are JSON"))).collect();
        let required: Vec<&str> = self.arguments.iter().filter(|a| a.2).map(|a| a.0).collect();
        json!({
            "name": self.name,
            "title": self.title,
            "description": self.description,
            "inputSchema": { "type": "object", "properties": properties, "required": required, "additionalProperties": false },
            "annotations": { "readOnlyHint": self.read_only, "destructiveHint": self.destructive, "idempotentHint": true, "openWorldHint": false },
        })
    }
}

const OFFSET: (&str, &str, bool) = ("offset", r#"{"type": "integer", "minimum": 0, "description": "How many to skip (0)."}"#, false);
const LIMIT: (&str, &str, bool) = ("limit", r#"{"type": "integer", "minimum": 1, "maximum": 1000, "description": "How many at most (a page: 100)."}"#, false);

/// The tools, in the order `tools/list` gives them.
const TOOLS: [Tool; 6] = [
    Tool {
        name: "query",
        title: "Run a query",
        description: "Executes one Atomese expression (a pattern: GetLink, QueryLink/BindLink, MeetLink; or any executable atom) in a frame over the space that is dropped afterwards, so the query adds nothing to the space. Returns the result's text, how many rows it has (the members of the SetLink or LinkValue it gives; a row is a ListLink's members), and a page of the rows.",
        arguments: &[
            ("atomese", r#"{"type": "string", "description": "One Atomese expression, e.g. (Get (Inheritance (Variable \"$x\") (Concept \"animal\")))"}"#, true),
            OFFSET,
            LIMIT,
        ],
        read_only: true,
        destructive: false,
        run: |shared, role, a| {
            api::query_page(shared, role, a.text("atomese")?, a.page(100)?, &mut api::Texts::new(api::MAX_TEXTS))
        },
    },
    Tool {
        name: "get_atoms",
        title: "Read atoms",
        description: "For each atom named (Atomese text), its type, name, outgoing set, values and truth value, and a page of its incoming set with the set's size. An atom the space does not hold gets an error of its own.",
        arguments: &[
            ("atoms", r#"{"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 100, "description": "Atoms as Atomese, e.g. [\"(Concept \\\"cat\\\")\"]"}"#, true),
            ("incoming_offset", r#"{"type": "integer", "minimum": 0, "description": "Where each incoming page starts (0)."}"#, false),
            ("incoming_limit", r#"{"type": "integer", "minimum": 1, "maximum": 1000, "description": "Most incoming links given per atom (50)."}"#, false),
        ],
        read_only: true,
        destructive: false,
        run: |shared, _, a| {
            let space = &shared.state.space;
            let named = match a.0.get("atoms") {
                Some(Json::Array(xs)) if !xs.is_empty() && xs.len() <= MAX_GET => xs,
                _ => return Err(format!("atoms is a list of 1 to {MAX_GET} atoms, each Atomese text")),
            };
            let offset = a.number("incoming_offset", 0)?;
            let limit = a.number("incoming_limit", 50)?;
            api::check_limit(limit)?;
            // One budget for the whole answer: a hundred atoms' pages could be gigabytes.
            let texts = &mut api::Texts::new(api::MAX_TEXTS);
            let mut found = Vec::with_capacity(named.len());
            for given in named {
                let Some(text) = given.as_str() else { return Err(format!("{given} is no Atomese text")) };
                found.push(match api::named(space, text) {
                    Ok(h) => api::atom_page(space, h, (offset, limit), texts)?,
                    Err(why) => json!({ "atom": given, "error": why }),
                });
            }
            Ok(json!({ "atoms": found }))
        },
    },
    Tool {
        name: "find_atoms",
        title: "Find atoms",
        description: "The atoms of a type (with its subtypes if asked; Node, Link and Atom include them always) whose name starts with a prefix: how many there are, and a page of them as Atomese.",
        arguments: &[
            ("type", r#"{"type": "string", "description": "A type name, e.g. ConceptNode, EvaluationLink, Node (see list_types)."}"#, true),
            ("prefix", r#"{"type": "string", "description": "Nodes whose name starts with this; empty for all."}"#, false),
            ("subtypes", r#"{"type": "boolean", "description": "Include the type's subtypes (false)."}"#, false),
            OFFSET,
            LIMIT,
        ],
        read_only: true,
        destructive: false,
        run: |shared, _, a| {
            let (name, prefix, subtypes) = (a.text("type")?, a.text_or("prefix", "")?, a.flag("subtypes")?);
            api::atoms_page(&shared.state.space, name, prefix, subtypes, a.page(100)?, &mut api::Texts::new(api::MAX_TEXTS))
        },
    },
    Tool {
        name: "add_atoms",
        title: "Add atoms",
        description: "Adds a batch of Atomese text: any number of atoms, with values and truth values, e.g. (Inheritance (Concept \"cat\") (Concept \"animal\")) or (cog-set-value! (Concept \"cat\") (Predicate \"weight\") (FloatValue 4.2)). Every expression is checked before any is added: a batch with a malformed expression adds nothing. The atoms are written through to the server's store before the reply. Needs a write token.",
        arguments: &[("atomese", r#"{"type": "string", "description": "Atomese text: one or more expressions."}"#, true)],
        read_only: false,
        // A value set replaces the one under its key.
        destructive: true,
        run: |shared, _, a| add(shared, a.text("atomese")?),
    },
    Tool {
        name: "count_atoms",
        title: "Count atoms",
        description: "How many atoms, nodes and links the space holds, and how many of each type, most first; with the server's figures (connections, commands, memory, the store's lag).",
        arguments: &[],
        read_only: true,
        destructive: false,
        run: |shared, _, _| Ok(api::overview(shared)),
    },
    Tool {
        name: "list_types",
        title: "List types",
        description: "The atom types under one (Atom for all): each with its parents, whether it is a Node or a Link type, and how many atoms of exactly that type the space holds.",
        arguments: &[("under", r#"{"type": "string", "description": "A type name (Atom)."}"#, false)],
        read_only: true,
        destructive: false,
        run: |shared, _, a| list_types(shared, a.text_or("under", "Atom")?),
    },
];

/// Adds Atomese `text`, all of it or, if any expression is bad, none.
fn add(shared: &Shared, text: &str) -> Result<Json, String> {
    let exprs = atomweave::sexpr::parse_str(text).map_err(|e| e.to_string())?;
    if exprs.is_empty() {
        return Err("the text holds no Atomese".into());
    }
    for (i, e) in exprs.iter().enumerate() {
        atomweave::sexpr::check(e).map_err(|e| format!("expression {} (nothing was added): {e}", i + 1))?;
    }
    let space = &shared.state.space;
    let mut added = Vec::with_capacity(exprs.len());
    // Checked, an expression fails now only if the space or the store
    // does (out of room, the store broken): say how far the batch got.
    let failed = |n: usize, e: String| format!("expression {} failed, after the {n} before it were added: {e}", n + 1);
    for e in &exprs {
        let h = atomweave::sexpr::eval(&mut &*space, e).map_err(|e| failed(added.len(), e.to_string()))?;
        shared.state.stored(h).map_err(|e| failed(added.len(), e))?;
        added.push(h);
    }
    let texts = &mut api::Texts::new(api::MAX_TEXTS);
    let shown: Vec<String> = added.iter().take(api::MAX_PAGE).map(|&h| texts.atom(space, h)).collect::<Result<_, _>>()?;
    Ok(json!({ "added": added.len(), "atoms": shown, "size": space.size() }))
}

fn list_types(shared: &Shared, under: &str) -> Result<Json, String> {
    use atomweave::types::Type;
    let top = Type::from_name(under).ok_or_else(|| format!("unknown type {under:?}"))?;
    let space = &shared.state.space;
    let types: Vec<Json> = top
        .subtypes()
        .into_iter()
        .map(|t| {
            let kind = if t.is_node() { "node" } else if t.is_link() { "link" } else { "abstract" };
            json!({ "name": t.name(), "parents": t.parents().iter().map(|p| p.name()).collect::<Vec<_>>(), "kind": kind, "count": space.count_of_type(t, false) })
        })
        .collect();
    Ok(json!({ "under": top.name(), "types": types }))
}
