//! MCP at `/mcp` on a real server, over real HTTP: both eras of the
//! protocol (2026-07-28's per-request `_meta` with its mirrored headers,
//! and the `initialize` handshake of 2025), every tool against the space a
//! client built, the errors of each layer, the token roles, and writes
//! that reach the store.

use atomweave_server::{Config, Token};
use serde_json::{json, Value as Json};

mod common;
use common::*;

const MODERN: &str = "2026-07-28";

/// A 2026-07-28 request's `_meta`.
fn meta() -> Json {
    json!({
        "io.modelcontextprotocol/protocolVersion": MODERN,
        "io.modelcontextprotocol/clientCapabilities": {},
        "io.modelcontextprotocol/clientInfo": { "name": "atomweave-tests", "version": "1" },
    })
}

/// POSTs `body` to /mcp with `headers` (and JSON's Content-Type and Accept).
fn post(srv: &Running, headers: &[String], body: &Json) -> (String, Json) {
    let mut all = vec!["Content-Type: application/json".to_string(), "Accept: application/json, text/event-stream".to_string()];
    all.extend_from_slice(headers);
    let body = body.to_string();
    all.push(format!("Content-Length: {}", body.len()));
    let r = http_request(srv.web, "POST", "/mcp", &all, body.as_bytes());
    let json = if r.body.is_empty() { Json::Null } else { serde_json::from_str(&r.body).unwrap_or_else(|_| Json::String(r.body.clone())) };
    (r.status, json)
}

/// A 2026-07-28 request of `method` with `params` (its `_meta` added), its
/// headers as a client must send them, as `token`'s holder.
fn modern(srv: &Running, method: &str, mut params: Json, token: Option<&str>) -> (String, Json) {
    params["_meta"] = meta();
    let mut headers = vec![format!("MCP-Protocol-Version: {MODERN}"), format!("Mcp-Method: {method}")];
    if let Some(name) = params.get("name").and_then(Json::as_str) {
        headers.push(format!("Mcp-Name: {name}"));
    }
    if let Some(t) = token {
        headers.push(format!("Authorization: Bearer {t}"));
    }
    post(srv, &headers, &json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params }))
}

/// Calls tool `name` with `arguments` (2026-07-28): the result.
fn call(srv: &Running, name: &str, arguments: Json, token: Option<&str>) -> Json {
    let (status, reply) = modern(srv, "tools/call", json!({ "name": name, "arguments": arguments }), token);
    assert_eq!(status, "HTTP/1.1 200 OK", "{reply}");
    assert_eq!(reply["id"], 7, "{reply}");
    assert_eq!(reply["result"]["resultType"], "complete", "{reply}");
    reply["result"].clone()
}

/// A tool's structured answer, which must be no error.
fn found(result: &Json) -> &Json {
    assert_eq!(result["isError"], false, "{result}");
    // The text content is the same JSON, for clients that read only text.
    assert_eq!(serde_json::from_str::<Json>(result["content"][0]["text"].as_str().unwrap()).unwrap(), result["structuredContent"]);
    &result["structuredContent"]
}

/// A tool's error text, which it must be.
fn tool_error(result: &Json) -> String {
    assert_eq!(result["isError"], true, "{result}");
    result["content"][0]["text"].as_str().unwrap().to_string()
}

const ANIMALS: &str = r#"
    (Inheritance (Concept "cat") (Concept "mammal"))
    (Inheritance (Concept "dog") (Concept "mammal"))
    (Inheritance (Concept "mammal") (Concept "animal"))
    (cog-set-value! (Concept "cat") (Predicate "weights") (FloatValue 3.5 4 4.5))
    (Concept "mouse" (stv 0.9 0.5))
"#;

#[test]
fn the_handshake_era_initializes_and_lists_the_tools() {
    let srv = start(Config::default());
    let init = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } });
    let (status, reply) = post(&srv, &[], &init);
    assert_eq!(status, "HTTP/1.1 200 OK");
    let result = &reply["result"];
    assert_eq!(result["protocolVersion"], "2025-06-18", "{reply}");
    assert_eq!(result["serverInfo"]["name"], "atomweave");
    assert!(result["capabilities"]["tools"].is_object(), "{reply}");
    // A version it does not speak gets its newest; the client decides.
    let mut old = init.clone();
    old["params"]["protocolVersion"] = json!("2024-11-05");
    assert_eq!(post(&srv, &[], &old).1["result"]["protocolVersion"], "2025-11-25");
    // Notifications are accepted, with no body and no session.
    let note = br#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#;
    let headers = ["Content-Type: application/json".into(), "MCP-Protocol-Version: 2025-06-18".into(), format!("Content-Length: {}", note.len())];
    let r = http_request(srv.web, "POST", "/mcp", &headers, note);
    assert_eq!(r.status, "HTTP/1.1 202 Accepted");
    assert!(r.body.is_empty() && !r.head.to_ascii_lowercase().contains("mcp-session-id"), "{}", r.head);
    let v = ["MCP-Protocol-Version: 2025-06-18".to_string()];
    assert_eq!(post(&srv, &v, &json!({ "jsonrpc": "2.0", "id": "p", "method": "ping" })).1, json!({ "jsonrpc": "2.0", "id": "p", "result": {} }));
    let (_, listed) = post(&srv, &v, &json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/list" }));
    let names: Vec<&str> = listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["query", "get_atoms", "find_atoms", "add_atoms", "count_atoms", "list_types"]);
    for t in listed["result"]["tools"].as_array().unwrap() {
        assert_eq!(t["inputSchema"]["type"], "object", "{t}");
        assert!(t["description"].as_str().unwrap().len() > 40, "{t}");
    }
    // The handshake era's results carry no 2026 fields.
    assert!(listed["result"].get("resultType").is_none());
    // Tools work in this era too.
    let (_, added) =
        post(&srv, &v, &json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": { "name": "add_atoms", "arguments": { "atomese": ANIMALS } } }));
    assert_eq!(added["result"]["structuredContent"]["added"], 5, "{added}");
    // An unknown method: a JSON-RPC error.
    let (status, unknown) = post(&srv, &v, &json!({ "jsonrpc": "2.0", "id": 4, "method": "resources/list" }));
    assert_eq!((status.as_str(), unknown["error"]["code"].as_i64()), ("HTTP/1.1 200 OK", Some(-32601)), "{unknown}");
}

#[test]
fn the_2026_era_discovers_and_checks_its_headers() {
    let srv = start(Config::default());
    let (status, d) = modern(&srv, "server/discover", json!({}), None);
    assert_eq!(status, "HTTP/1.1 200 OK", "{d}");
    let result = &d["result"];
    assert_eq!(result["resultType"], "complete");
    assert_eq!(result["supportedVersions"], json!([MODERN, "2025-11-25", "2025-06-18", "2025-03-26"]));
    assert_eq!(result["serverInfo"]["name"], "atomweave");
    assert_eq!(result["_meta"]["io.modelcontextprotocol/serverInfo"]["name"], "atomweave");
    assert!(result["ttlMs"].as_u64().unwrap() > 0 && result["cacheScope"] == "public", "{d}");
    let (_, listed) = modern(&srv, "tools/list", json!({}), None);
    assert_eq!(listed["result"]["tools"].as_array().unwrap().len(), 6);
    assert!(listed["result"]["ttlMs"].as_u64().unwrap() > 0 && listed["result"]["cacheScope"] == "private", "{listed}");

    let body = |method: &str, params: Json| json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let with_meta = |mut p: Json| {
        p["_meta"] = meta();
        p
    };
    let code = |(status, reply): (String, Json)| (status, reply["error"]["code"].as_i64().unwrap_or(0));
    let bad = "HTTP/1.1 400 Bad Request".to_string();
    // The version header missing, or not the body's.
    assert_eq!(code(post(&srv, &["Mcp-Method: tools/list".into()], &body("tools/list", with_meta(json!({}))))), (bad.clone(), -32020));
    let h = |v: &str, m: &str| vec![format!("MCP-Protocol-Version: {v}"), format!("Mcp-Method: {m}")];
    assert_eq!(code(post(&srv, &h("2025-11-25", "tools/list"), &body("tools/list", with_meta(json!({}))))), (bad.clone(), -32020));
    // A version of the handshake era in _meta: the headers are checked first, then the version.
    let mut legacy = meta();
    legacy["io.modelcontextprotocol/protocolVersion"] = json!("2025-11-25");
    assert_eq!(code(post(&srv, &h(MODERN, "tools/list"), &body("tools/list", json!({ "_meta": legacy.clone() })))), (bad.clone(), -32020));
    assert_eq!(code(post(&srv, &h("2025-11-25", "tools/list"), &body("tools/list", json!({ "_meta": legacy })))), (bad.clone(), -32022));
    // A header given twice, or holding what a header may not.
    let mut twice = h(MODERN, "tools/list");
    twice.push("Mcp-Method: tools/call".into());
    assert_eq!(code(post(&srv, &twice, &body("tools/list", with_meta(json!({}))))), (bad.clone(), -32020));
    let mut raw = h(MODERN, "tools/call");
    raw.push("Mcp-Name: count_atoms\u{e9}".into());
    assert_eq!(code(post(&srv, &raw, &body("tools/call", with_meta(json!({ "name": "count_atoms\u{e9}" }))))), (bad.clone(), -32020));
    // The method header missing, or not the body's.
    assert_eq!(code(post(&srv, &[format!("MCP-Protocol-Version: {MODERN}")], &body("tools/list", with_meta(json!({}))))), (bad.clone(), -32020));
    assert_eq!(code(post(&srv, &h(MODERN, "server/discover"), &body("tools/list", with_meta(json!({}))))), (bad.clone(), -32020));
    // The tool's name header: plain, base64 (as clients send names that are not plain ASCII), or wrong.
    let call_body = body("tools/call", with_meta(json!({ "name": "count_atoms" })));
    let mut named = h(MODERN, "tools/call");
    named.push("Mcp-Name: query".into());
    assert_eq!(code(post(&srv, &named, &call_body)), (bad.clone(), -32020));
    assert_eq!(code(post(&srv, &h(MODERN, "tools/call"), &call_body)), (bad.clone(), -32020));
    named[2] = "Mcp-Name: =?base64?Y291bnRfYXRvbXM=?=".into();
    let (status, counted) = post(&srv, &named, &call_body);
    assert_eq!(status, "HTTP/1.1 200 OK", "{counted}");
    assert_eq!(counted["result"]["structuredContent"]["atoms"], 0, "{counted}");
    // A version it does not speak: the versions it does.
    let mut old = meta();
    old["io.modelcontextprotocol/protocolVersion"] = json!("2099-01-01");
    let (status, e) = post(&srv, &h("2099-01-01", "tools/list"), &body("tools/list", json!({ "_meta": old })));
    assert_eq!((status, e["error"]["code"].as_i64()), (bad.clone(), Some(-32022)));
    assert_eq!(e["error"]["data"]["requested"], "2099-01-01");
    assert!(e["error"]["data"]["supported"].as_array().unwrap().contains(&json!(MODERN)), "{e}");
    assert_eq!(code(post(&srv, &["MCP-Protocol-Version: 1999-01-01".into()], &body("tools/list", json!({})))).1, -32022);
    // The client's capabilities are required; so is _meta with the 2026 header.
    let mut no_caps = meta();
    no_caps.as_object_mut().unwrap().remove("io.modelcontextprotocol/clientCapabilities");
    assert_eq!(code(post(&srv, &h(MODERN, "tools/list"), &body("tools/list", json!({ "_meta": no_caps })))), (bad.clone(), -32602));
    assert_eq!(code(post(&srv, &h(MODERN, "tools/list"), &body("tools/list", json!({})))), (bad.clone(), -32602));
    // A method it does not have (initialize is not one of this era's): 404.
    assert_eq!(code(post(&srv, &h(MODERN, "initialize"), &body("initialize", with_meta(json!({}))))), ("HTTP/1.1 404 Not Found".into(), -32601));
    // An unknown tool is a protocol error; a bad argument, the tool's.
    let (status, e) = modern(&srv, "tools/call", json!({ "name": "drop_everything" }), None);
    assert_eq!((status.as_str(), e["error"]["code"].as_i64()), ("HTTP/1.1 200 OK", Some(-32602)), "{e}");
    assert!(e["error"]["message"].as_str().unwrap().contains("query, get_atoms"), "{e}");
    let unclosed = tool_error(&call(&srv, "query", json!({ "atomese": "(Get", "limit": 5 }), None));
    assert!(unclosed.contains("line 1"), "{unclosed}");
    assert!(tool_error(&call(&srv, "query", json!({ "q": "(Get)" }), None)).contains("takes no argument \"q\""));
    assert!(tool_error(&call(&srv, "find_atoms", json!({ "type": "ConceptNode", "limit": 0 }), None)).contains("limit is from 1"));
    assert!(tool_error(&call(&srv, "find_atoms", json!({ "type": "NoSuchNode" }), None)).contains("NoSuchNode"));
}

#[test]
fn the_tools_read_and_write_the_space_in_bulk() {
    let srv = start(Config::default());
    let added = call(&srv, "add_atoms", json!({ "atomese": ANIMALS }), None);
    assert_eq!(found(&added)["added"], 5);
    assert_eq!(found(&added)["atoms"][0], "(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"mammal\"))");
    // A batch with one bad expression adds nothing.
    let before = found(&call(&srv, "count_atoms", json!({}), None))["atoms"].clone();
    let refused = tool_error(&call(&srv, "add_atoms", json!({ "atomese": "(Concept \"new\") (ListLink (NoSuchNode \"x\"))" }), None));
    assert!(refused.contains("expression 2") && refused.contains("nothing was added"), "{refused}");
    let unclosed = tool_error(&call(&srv, "add_atoms", json!({ "atomese": "(Concept \"new\") (Concept" }), None));
    assert!(unclosed.contains("line 1"), "a syntax error names its place: {unclosed}");
    let counts = call(&srv, "count_atoms", json!({}), None);
    assert_eq!(found(&counts)["atoms"], before);
    assert_eq!(found(&counts)["types"][0], json!(["ConceptNode", 5]));

    // Many atoms at once, each with a page of its incoming set; a missing one gets an error of its own.
    let got = call(&srv, "get_atoms", json!({ "atoms": ["(Concept \"mammal\")", "(Concept \"cat\")", "(Concept \"unicorn\")"], "incoming_limit": 1 }), None);
    let atoms = &found(&got)["atoms"];
    assert_eq!(atoms[0]["incoming"]["total"], 3);
    assert_eq!(atoms[0]["incoming"]["atoms"].as_array().unwrap().len(), 1);
    assert_eq!(atoms[1]["values"].as_array().unwrap().iter().find(|v| v["type"] == "FloatValue").unwrap()["floats"], json!([3.5, 4.0, 4.5]));
    assert!(atoms[2]["error"].as_str().unwrap().contains("holds no"), "{got}");
    let mouse = call(&srv, "get_atoms", json!({ "atoms": ["(Concept \"mouse\")"] }), None);
    assert_eq!(found(&mouse)["atoms"][0]["values"][0]["floats"], json!([0.9, 0.5]), "{mouse}");
    assert!(tool_error(&call(&srv, "get_atoms", json!({ "atoms": [] }), None)).contains("1 to 100"));

    let mammals = call(&srv, "find_atoms", json!({ "type": "ConceptNode", "prefix": "m", "limit": 1 }), None);
    assert_eq!((found(&mammals)["total"].as_u64(), found(&mammals)["atoms"].as_array().unwrap().len()), (Some(2), 1));
    let links = call(&srv, "find_atoms", json!({ "type": "Link" }), None);
    assert_eq!(found(&links)["total"], 3);

    // A query's rows in pages; the query leaves nothing in the space.
    let q = "(Get (Inheritance (Variable \"$x\") (Variable \"$y\")))";
    let first = call(&srv, "query", json!({ "atomese": q, "limit": 2 }), None);
    assert_eq!((found(&first)["total"].as_u64(), found(&first)["rows"].as_array().unwrap().len()), (Some(3), 2));
    let rest = call(&srv, "query", json!({ "atomese": q, "offset": 2, "limit": 2 }), None);
    let mut rows: Vec<Json> = found(&first)["rows"].as_array().unwrap().clone();
    rows.extend(found(&rest)["rows"].as_array().unwrap().iter().cloned());
    rows.sort_by_key(|r| r.to_string());
    assert_eq!(rows[0], json!(["(ConceptNode \"cat\")", "(ConceptNode \"mammal\")"]));
    assert_eq!(rows.len(), 3);
    assert_eq!(found(&call(&srv, "count_atoms", json!({}), None))["atoms"], before);

    let types = call(&srv, "list_types", json!({ "under": "InheritanceLink" }), None);
    let t = &found(&types)["types"][0];
    assert_eq!((t["name"].as_str(), t["kind"].as_str(), t["count"].as_u64()), (Some("InheritanceLink"), Some("link"), Some(3)), "{types}");
    let all = call(&srv, "list_types", json!({}), None);
    assert!(found(&all)["types"].as_array().unwrap().len() > 100);
}

#[test]
fn the_roles_apply_and_writes_reach_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().display());
    let config = || Config { tokens: vec![Token::write("w-token"), Token::read("r-token")], store: Some(url.clone()), ..Config::default() };
    let srv = start(config());
    // No token, no answer.
    let (status, _) = modern(&srv, "tools/list", json!({}), None);
    assert_eq!(status, "HTTP/1.1 401 Unauthorized");
    let (_, listed) = modern(&srv, "tools/list", json!({}), Some("r-token"));
    let names: Vec<&str> = listed["result"]["tools"].as_array().unwrap().iter().map(|t| t["name"].as_str().unwrap()).collect();
    assert!(!names.contains(&"add_atoms") && names.contains(&"query"), "{names:?}");
    let refused = tool_error(&call(&srv, "add_atoms", json!({ "atomese": "(Concept \"a\")" }), Some("r-token")));
    assert!(refused.contains("add_atoms") && refused.contains("may only read"), "{refused}");
    assert_eq!(found(&call(&srv, "add_atoms", json!({ "atomese": ANIMALS }), Some("w-token")))["added"], 5);
    assert_eq!(found(&call(&srv, "count_atoms", json!({}), Some("r-token")))["atoms"], 9);
    // A read token's query calls no grounded procedure.
    let grounded = call(&srv, "query", json!({ "atomese": "(ExecutionOutput (GroundedSchema \"py:f\") (List))" }), Some("r-token"));
    assert!(tool_error(&grounded).contains("grounded"), "{grounded}");
    srv.finish();

    // What was acknowledged is in the store: a new server has it.
    let srv = start(config());
    let got = call(&srv, "get_atoms", json!({ "atoms": ["(Concept \"cat\")"] }), Some("r-token"));
    let cat = &found(&got)["atoms"][0];
    assert_eq!(cat["incoming"]["total"], 1, "{got}");
    assert!(cat["values"].as_array().unwrap().iter().any(|v| v["floats"] == json!([3.5, 4.0, 4.5])), "{got}");
}

#[test]
fn the_http_layer_refuses_what_is_no_mcp_post() {
    let srv = start(Config { max_line: 4096, handshake_timeout: std::time::Duration::from_secs(1), ..Config::default() });
    let json_headers = |extra: &[&str]| -> Vec<String> {
        let mut h = vec!["Content-Type: application/json".to_string()];
        h.extend(extra.iter().map(|s| s.to_string()));
        h
    };
    let ping = br#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#;
    let with_length = |extra: &[&str], body: &[u8]| {
        let mut h = json_headers(extra);
        h.push(format!("Content-Length: {}", body.len()));
        http_request(srv.web, "POST", "/mcp", &h, body)
    };
    assert_eq!(with_length(&[], ping).status, "HTTP/1.1 200 OK");
    let get = http_request(srv.web, "GET", "/mcp", &[], b"");
    assert!(get.status == "HTTP/1.1 405 Method Not Allowed" && get.head.contains("Allow: POST"), "{}", get.head);
    assert_eq!(http_request(srv.web, "DELETE", "/mcp", &[], b"").status, "HTTP/1.1 405 Method Not Allowed");
    assert_eq!(http_request(srv.web, "POST", "/mcp", &json_headers(&[]), ping).status, "HTTP/1.1 411 Length Required");
    let form = http_request(srv.web, "POST", "/mcp", &["Content-Type: text/plain".into(), format!("Content-Length: {}", ping.len())], ping);
    assert_eq!(form.status, "HTTP/1.1 415 Unsupported Media Type");
    assert_eq!(with_length(&["Accept: text/html"], ping).status, "HTTP/1.1 406 Not Acceptable");
    assert_eq!(with_length(&[], &[b' '; 5000]).status, "HTTP/1.1 413 Content Too Large");
    assert_eq!(with_length(&["Origin: https://evil.example"], ping).status, "HTTP/1.1 403 Forbidden");
    // A body that ends before its Content-Length; one that stops coming.
    let cut_short = |close: bool| {
        let mut s = std::net::TcpStream::connect(srv.web).unwrap();
        let head = format!("POST /mcp HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"", srv.web);
        std::io::Write::write_all(&mut s, head.as_bytes()).unwrap();
        if close {
            s.shutdown(std::net::Shutdown::Write).unwrap();
        }
        let mut out = String::new();
        std::io::Read::read_to_string(&mut s, &mut out).unwrap();
        out
    };
    assert!(cut_short(true).starts_with("HTTP/1.1 400 Bad Request"));
    assert!(cut_short(false).starts_with("HTTP/1.1 408 Request Timeout"));
    // Not JSON: a JSON-RPC error with no id (none could be read).
    let parse = with_length(&[], b"{nope");
    assert_eq!(parse.status, "HTTP/1.1 400 Bad Request");
    let parsed: Json = serde_json::from_str(&parse.body).unwrap();
    assert_eq!(parsed["error"]["code"], -32700);
    assert!(parsed.get("id").is_none(), "{parsed}");
    let batch = with_length(&[], format!("[{}]", String::from_utf8_lossy(ping)).as_bytes());
    assert!(batch.status == "HTTP/1.1 400 Bad Request" && batch.body.contains("batches"), "{}", batch.body);
    let response = with_length(&[], br#"{"jsonrpc":"2.0","id":1,"result":{}}"#);
    assert!(response.status == "HTTP/1.1 400 Bad Request" && response.body.contains("no responses"), "{}", response.body);
    let no_version = with_length(&[], br#"{"id":1,"method":"ping"}"#);
    assert!(no_version.body.contains("-32600"), "{}", no_version.body);
    // Elsewhere, only GET.
    assert!(http_request(srv.web, "POST", "/api/overview", &[], b"").status.starts_with("HTTP/1.1 501"));
    // MCP's requests are among the server's figures.
    let metrics = http_get(srv.web, "/metrics");
    assert!(metrics.contains("shell=\"mcp\",outcome=\"ok\"} 1") || metrics.contains("outcome=\"ok\",shell=\"mcp\"} 1"), "{metrics}");
}
