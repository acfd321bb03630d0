//! Tokens with roles, on a real server: a read token's client may query
//! and fetch on the telnet port and the web port, and every command that
//! would change the space, every Scheme evaluation and `shutdown` is
//! refused with a message naming it; a write token's client may do all.

use atomweave::types::*;
use atomweave_server::{parse_token_file, Config, Token};

mod common;
use common::*;

fn with_roles() -> Running {
    start(Config { tokens: vec![Token::write("w-token"), Token::read("r-token")], ..Config::default() })
}

/// A telnet client past its token, in the sexpr shell.
fn sexpr_as(srv: &Running, token: &str) -> Client {
    let mut c = Client::connect(srv.addr);
    c.send(&format!("{token}\n"));
    c.read_until("opencog> ");
    c.send("sexpr\n");
    c
}

#[test]
fn a_read_token_queries_and_fetches_and_changes_nothing() {
    let srv = with_roles();
    let mut w = sexpr_as(&srv, "w-token");
    assert_eq!(w.ask("(Inheritance (Concept \"cat\") (Concept \"animal\"))"), "(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"animal\"))");
    assert_eq!(w.ask("(cog-set-tv! (Concept \"cat\") (stv 0.5 0.5))"), "()");
    let before = srv_size(&mut w);

    let mut r = sexpr_as(&srv, "r-token");
    assert_eq!(r.ask("(cog-node 'ConceptNode \"cat\")"), "(ConceptNode \"cat\")");
    assert_eq!(r.ask("ping"), "()");
    assert_eq!(r.ask("(cog-incoming-set (ConceptNode \"animal\"))"), "((InheritanceLink (ConceptNode \"cat\")(ConceptNode \"animal\")))");
    assert!(r.ask("(cog-keys->alist (ConceptNode \"cat\"))").contains("0.5"));
    // A query runs, in a frame of its own: neither it nor its SetLink stays.
    let found = r.ask("(cog-execute-cache! (GetLink (Inheritance (Variable \"$x\") (Concept \"animal\"))) (Predicate \"results\"))");
    assert!(found.contains("(ConceptNode \"cat\")"), "{found}");
    assert_eq!(srv_size(&mut w), before, "the read client's query left nothing in the space");

    for write in [
        "(Concept \"new\")",
        "(cog-set-tv! (Concept \"cat\") (stv 1 1))",
        "(cog-set-value! (Concept \"cat\") (Predicate \"k\") (FloatValue 1))",
        "(cog-set-values! (Concept \"cat\") (alist (cons (Predicate \"k\") (FloatValue 1))))",
        "(cog-update-value! (Concept \"cat\") (Predicate \"k\") (FloatValue 1))",
        "(cog-extract! (Concept \"cat\"))",
        "(cog-extract-recursive! (Concept \"animal\"))",
        "(cog-atomspace-clear)",
        // Not a command at all: a read client runs only those listed as reads.
        "(cog-frobnicate)",
    ] {
        let reply = r.ask(write);
        assert!(reply.starts_with("(error \"") && reply.contains("may only read"), "{write} -> {reply}");
    }
    assert_eq!(srv_size(&mut w), before, "the refused writes changed nothing");
    // Nor may its queries run code: a grounded procedure could do anything.
    for call in [
        "(cog-execute-cache! (ExecutionOutput (GroundedSchema \"scm:cog-new-node\") (List)) (Predicate \"k\"))",
        "(cog-execute-cache! (Satisfaction (Evaluation (GroundedPredicate \"py:os.abort\") (List))) (Predicate \"k\"))",
    ] {
        let reply = r.ask(call);
        assert!(reply.contains("grounded procedures are refused"), "{call} -> {reply}");
    }
    assert_eq!(w.ask("(cog-keys->alist (Concept \"cat\"))"), "(((PredicateNode \"*-TruthValueKey-*\") . (SimpleTruthValue 0.5 0.5)))");

    // The JSON shell: reads and queries answer, writes are refused.
    r.send(".\n");
    r.read_until("opencog> ");
    r.send("json hush\n");
    r.send("AtomSpace.haveNode(\"Concept\", \"cat\")\n");
    assert_eq!(r.line(), "true\n");
    r.send("AtomSpace.haveNode(\n");
    assert!(r.line().contains("expected ) at the end"), "a call that does not parse says why");
    r.send("AtomSpace.execute({\"type\": \"GetLink\", \"outgoing\": [{\"type\": \"InheritanceLink\", \"outgoing\": [{\"type\": \"VariableNode\", \"name\": \"$y\"}, {\"type\": \"ConceptNode\", \"name\": \"animal\"}]}]})\n");
    let found = r.line();
    assert!(found.contains("\"cat\""), "{found}");
    for write in [
        "AtomSpace.makeAtom({\"type\": \"ConceptNode\", \"name\": \"new\"})",
        "AtomSpace.loadAtoms([{\"type\": \"ConceptNode\", \"name\": \"new\"}])",
        "AtomSpace.setTV({\"type\": \"ConceptNode\", \"name\": \"cat\"}, {\"type\": \"SimpleTruthValue\", \"value\": [1, 1]})",
        "AtomSpace.setValue({\"type\": \"ConceptNode\", \"name\": \"cat\"}, {\"type\": \"PredicateNode\", \"name\": \"k\"}, {\"type\": \"FloatValue\", \"value\": [1]})",
        "AtomSpace.extract({\"type\": \"ConceptNode\", \"name\": \"cat\"})",
    ] {
        r.send(&format!("{write}\n"));
        let reply = r.line();
        assert!(reply.starts_with("{\"error\":") && reply.contains("may only read"), "{write} -> {reply}");
    }
    assert_eq!(srv_size(&mut w), before, "the read client's JSON calls changed nothing");
    let space = srv.finish();
    assert!(space.get_node(CONCEPT_NODE, "new").is_none());
}

/// Atoms in the served space, by a write client in the sexpr shell.
fn srv_size(w: &mut Client) -> usize {
    w.ask("(cog-get-atoms 'Atom #t)").matches("Node \"").count() + w.ask("(cog-get-atoms 'Link #t)").matches("Link (").count()
}

#[test]
fn a_read_token_may_not_run_scheme_nor_stop_the_server() {
    let srv = with_roles();
    let mut r = Client::connect(srv.addr);
    r.send("r-token\n");
    r.read_until("opencog> ");
    for cmd in ["scm", "py", "(cog-new-node 'ConceptNode \"x\")", "shutdown"] {
        r.send(&format!("{cmd}\n"));
        let reply = r.read_until("opencog> ");
        assert!(reply.starts_with("error: ") && reply.contains("may only read"), "{cmd} -> {reply}");
    }
    r.send("stats\n");
    assert!(r.read_until("opencog> ").contains("atoms: "), "stats is a read");
    // The server still serves, and a write token's client may do it all.
    let mut w = sexpr_as(&srv, "w-token");
    assert_eq!(w.ask("(Concept \"x\")"), "(ConceptNode \"x\")");
}

#[test]
fn the_web_port_applies_the_roles() {
    let srv = with_roles();
    assert_eq!(ws(srv.web, "/sexpr").err().unwrap(), "401 Unauthorized");
    assert_eq!(ws(srv.web, "/sexpr?token=nope").err().unwrap(), "401 Unauthorized");
    assert_eq!(ws(srv.web, "/scm?token=r-token").err().unwrap(), "403 Forbidden");
    let mut r = ws(srv.web, "/sexpr?token=r-token").unwrap();
    assert!(ws_ask(&mut r, "(Concept \"web\")").contains("may only read"));
    assert_eq!(ws_ask(&mut r, "(cog-node 'ConceptNode \"web\")"), "()\n");
    let mut j = ws(srv.web, "/json?token=r-token").unwrap();
    assert!(ws_ask(&mut j, "AtomSpace.makeAtom({\"type\": \"ConceptNode\", \"name\": \"web\"})").contains("may only read"));
    assert!(http_get(srv.web, "/metrics?token=r-token").starts_with("HTTP/1.1 200"), "the figures are a read");
    let mut w = ws(srv.web, "/sexpr?token=w-token").unwrap();
    assert_eq!(ws_ask(&mut w, "(Concept \"web\")"), "(ConceptNode \"web\")\n");
    assert_eq!(srv.finish().size(), 1);
}

#[test]
fn token_files_name_each_tokens_role_and_bad_ones_are_refused() {
    let tokens = parse_token_file("# the team\nalpha write\n\n  beta   read  \n").unwrap();
    let got: Vec<(&str, &str)> = tokens.iter().map(|t| (t.secret.as_str(), t.role.name())).collect();
    assert_eq!(got, [("alpha", "write"), ("beta", "read")]);
    for (text, why) in [
        ("alpha admin\n", "line 1: the role is `read` or `write`, not `admin`"),
        ("alpha\n", "line 1: expected a token and its role"),
        ("a read\nb write extra\n", "line 2: expected a token and its role"),
        ("a read\na write\n", "line 2: this token is given twice"),
        ("# nothing\n\n", "holds no token"),
    ] {
        let err = parse_token_file(text).err().unwrap();
        assert!(err.contains(why), "{text:?} -> {err}");
    }
    // A token given twice (once with each role) stops the server's start.
    let err = std::thread::spawn(|| {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let config = Config { port: 0, http_port: None, tokens: vec![Token::write("same"), Token::read("same")], ..Config::default() };
        rt.block_on(atomweave_server::Server::bind(config)).err().unwrap().to_string()
    })
    .join()
    .unwrap();
    assert!(err.contains("given twice"), "{err}");
}
