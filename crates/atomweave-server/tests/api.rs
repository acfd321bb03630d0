//! The web port's JSON API (`/api/...`), which the browser UI reads, on a
//! real server: answers checked against the space a client built, paging,
//! errors, the token rule, and queries that leave nothing behind.

use atomweave_server::{Config, Token};
use serde_json::Value as Json;

mod common;
use common::*;

/// `GET /api/...` with `params` (encoded here) as `token`'s holder: the
/// status line and the JSON body.
fn api(srv: &Running, route: &str, params: &[(&str, &str)], token: Option<&str>) -> (String, Json) {
    let mut query: Vec<String> = params.iter().map(|(k, v)| format!("{k}={}", form_urlencoded::byte_serialize(v.as_bytes()).collect::<String>())).collect();
    if let Some(t) = token {
        query.push(format!("token={t}"));
    }
    let reply = http_get(srv.web, &format!("/api/{route}?{}", query.join("&")));
    let (head, body) = reply.split_once("\r\n\r\n").unwrap_or_else(|| panic!("no body in {reply:?}"));
    let status = head.lines().next().unwrap().to_string();
    // A refusal before the API (the token rule) is plain text.
    (status, serde_json::from_str(body).unwrap_or_else(|_| Json::String(body.to_string())))
}

/// A space of animals: 3 inheritance links, 4 concepts, values on one.
fn animals(srv: &Running) {
    let mut c = Client::sexpr(srv.addr);
    for (a, b) in [("cat", "mammal"), ("dog", "mammal"), ("mammal", "animal")] {
        c.ask(&format!("(Inheritance (Concept \"{a}\") (Concept \"{b}\"))"));
    }
    c.ask("(cog-set-value! (Concept \"cat\") (Predicate \"weights\") (FloatValue 3.5 4 4.5))");
}

#[test]
fn overview_counts_by_type() {
    let srv = start(Config::default());
    animals(&srv);
    let (status, o) = api(&srv, "overview", &[], None);
    assert_eq!(status, "HTTP/1.1 200 OK");
    // 4 concepts, the key's PredicateNode, 3 links.
    assert_eq!((o["atoms"].as_u64(), o["nodes"].as_u64(), o["links"].as_u64()), (Some(8), Some(5), Some(3)));
    assert_eq!(o["types"], serde_json::json!([["ConceptNode", 4], ["InheritanceLink", 3], ["PredicateNode", 1]]));
    assert!(o["connections"].as_u64().unwrap() >= 1 && o["resident_bytes"].as_u64().unwrap() > 0, "{o}");
}

#[test]
fn atoms_by_type_and_prefix_in_pages() {
    let srv = start(Config::default());
    animals(&srv);
    let (_, all) = api(&srv, "atoms", &[("type", "ConceptNode"), ("limit", "2")], None);
    assert_eq!(all["total"], 4);
    assert_eq!(all["atoms"].as_array().unwrap().len(), 2, "{all}");
    let (_, next) = api(&srv, "atoms", &[("type", "ConceptNode"), ("limit", "2"), ("offset", "3")], None);
    assert_eq!(next["atoms"].as_array().unwrap().len(), 1, "the last page");
    let (_, m) = api(&srv, "atoms", &[("type", "ConceptNode"), ("prefix", "ma")], None);
    assert_eq!(m["atoms"], serde_json::json!(["(ConceptNode \"mammal\")"]));
    let (_, links) = api(&srv, "atoms", &[("type", "Link"), ("subtypes", "1")], None);
    assert_eq!(links["total"], 3);
    let (status, bad) = api(&srv, "atoms", &[("type", "NoSuchNode")], None);
    assert!(status.starts_with("HTTP/1.1 400") && bad["error"].as_str().unwrap().contains("NoSuchNode"), "{bad}");
    let (status, _) = api(&srv, "atoms", &[("limit", "0")], None);
    assert!(status.starts_with("HTTP/1.1 400"));
}

#[test]
fn an_atom_with_its_neighbourhood_and_values() {
    let srv = start(Config::default());
    animals(&srv);
    let (_, m) = api(&srv, "atom", &[("atom", "(Concept \"mammal\")"), ("limit", "1")], None);
    assert_eq!((m["type"].as_str(), m["name"].as_str()), (Some("ConceptNode"), Some("mammal")));
    assert_eq!(m["incoming"]["total"], 3, "{m}");
    assert_eq!(m["incoming"]["atoms"].as_array().unwrap().len(), 1, "a page of one");
    let (_, cat) = api(&srv, "atom", &[("atom", "(Concept \"cat\")")], None);
    let weights = cat["values"].as_array().unwrap().iter().find(|v| v["key"] == "(PredicateNode \"weights\")").unwrap();
    assert_eq!(weights["floats"], serde_json::json!([3.5, 4.0, 4.5]));
    let (_, link) = api(&srv, "atom", &[("atom", "(Inheritance (Concept \"cat\") (Concept \"mammal\"))")], None);
    assert_eq!(link["outgoing"], serde_json::json!(["(ConceptNode \"cat\")", "(ConceptNode \"mammal\")"]));
    let (status, missing) = api(&srv, "atom", &[("atom", "(Concept \"unicorn\")")], None);
    assert!(status.starts_with("HTTP/1.1 400") && missing["error"].as_str().unwrap().contains("holds no"), "{missing}");
    assert_eq!(srv.finish().size(), 8, "looking added nothing");
}

#[test]
fn queries_answer_in_rows_and_leave_nothing() {
    let srv = start(Config { tokens: vec![Token::write("w"), Token::read("r")], ..Config::default() });
    let mut c = Client::connect(srv.addr);
    c.send("w\nsexpr\n");
    c.read_until("opencog> ");
    for (a, b) in [("cat", "mammal"), ("dog", "mammal")] {
        c.ask(&format!("(Inheritance (Concept \"{a}\") (Concept \"{b}\"))"));
    }
    let (status, _) = api(&srv, "overview", &[], None);
    assert!(status.starts_with("HTTP/1.1 401"), "the token rule: {status}");
    let get = "(Get (VariableList (Variable \"$x\") (Variable \"$y\")) (Inheritance (Variable \"$x\") (Variable \"$y\")))";
    for token in ["w", "r"] {
        let (status, q) = api(&srv, "query", &[("q", get)], Some(token));
        assert_eq!(status, "HTTP/1.1 200 OK", "{q}");
        let mut rows: Vec<String> = q["rows"].as_array().unwrap().iter().map(|r| r.to_string()).collect();
        rows.sort();
        assert_eq!(
            rows,
            ["[\"(ConceptNode \\\"cat\\\")\",\"(ConceptNode \\\"mammal\\\")\"]", "[\"(ConceptNode \\\"dog\\\")\",\"(ConceptNode \\\"mammal\\\")\"]"]
        );
    }
    let (status, e) = api(&srv, "query", &[("q", "(Get (Inheritance (Variable \"$x\")")], Some("w"));
    assert!(status.starts_with("HTTP/1.1 400") && !e["error"].as_str().unwrap().is_empty(), "{e}");
    let call = "(ExecutionOutput (GroundedSchema \"scm:cog-new-node\") (List))";
    let (_, refused) = api(&srv, "query", &[("q", call)], Some("r"));
    assert!(refused["error"].as_str().unwrap().contains("grounded procedures are refused"), "{refused}");
    assert_eq!(srv.finish().size(), 5, "the queries left nothing in the space");
}
