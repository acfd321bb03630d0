//! A real server on a free loopback port, driven with raw sockets and with
//! the `cog://` client.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::Duration;

use atomweave::types::*;
use atomweave::{AtomSpace, TruthValue, Value};
use atomweave_server::{Config, Server, Token};

mod common;
use common::*;

#[test]
fn command_shell_help_stats_and_errors() {
    let srv = start(Config::default());
    let mut c = Client::connect(srv.addr);
    assert_eq!(c.read_until("opencog> "), "opencog> ", "no greeting, only the prompt");
    c.send("help\n");
    let help = c.read_until("opencog> ");
    assert!(help.starts_with("Available commands:\n") && help.contains("  sexpr:") && help.contains("  shutdown:"), "{help}");
    c.send("h\r\n");
    assert_eq!(c.read_until("opencog> "), help, "h and CRLF endings");
    c.send("\n");
    assert_eq!(c.read_until("opencog> "), "opencog> ");
    c.send("frobnicate\n");
    let err = c.read_until("opencog> ");
    assert!(err.starts_with("command \"frobnicate\" not found\nAvailable commands:"), "{err}");
    c.send("py\n");
    assert!(c.read_until("opencog> ").contains("not available"));
    c.send("stats\n");
    let stats = c.read_until("opencog> ");
    for field in ["connections: 1 open", "commands: ", "atoms: 0", "uptime: ", "memory: "] {
        assert!(stats.contains(field), "{field} in {stats}");
    }
    c.send("list\n");
    let list = c.read_until("opencog> ");
    assert!(list.contains("sexpr") && list.contains("scm      built in"), "{list}");
    c.send("quit\n");
    assert!(c.closed());
    // Ctrl-D closes too.
    let mut c = Client::connect(srv.addr);
    c.read_until("opencog> ");
    c.send("\x04");
    assert!(c.closed());
}

#[test]
fn sexpr_and_json_shells() {
    let srv = start(Config::default());
    let mut c = Client::sexpr(srv.addr);
    assert_eq!(c.ask("(cog-node 'ConceptNode \"a\")"), "()");
    assert_eq!(c.ask("(cog-set-tv! (ConceptNode \"a\") (stv 0.5 0.25))"), "()");
    assert_eq!(c.ask("(cog-node 'Concept \"a\")"), "(ConceptNode \"a\")");
    assert_eq!(c.ask("(cog-set-values! (ListLink (ConceptNode \"a\")(ConceptNode \"b\")) (alist (cons (PredicateNode \"k\") (FloatValue 1 2))))"), "()");
    assert_eq!(c.ask("(cog-link 'ListLink (ConceptNode \"a\") (ConceptNode \"b\"))"), "(ListLink (ConceptNode \"a\")(ConceptNode \"b\"))");
    assert_eq!(c.ask("(cog-value (ListLink (ConceptNode \"a\")(ConceptNode \"b\")) (PredicateNode \"k\"))"), "(FloatValue 1 2)");
    assert_eq!(c.ask("(cog-update-value! (ListLink (ConceptNode \"a\")(ConceptNode \"b\")) (PredicateNode \"k\") (FloatValue 1 1))"), "()");
    assert_eq!(c.ask("(cog-keys->alist (ListLink (ConceptNode \"a\")(ConceptNode \"b\")))"), "(((PredicateNode \"k\") . (FloatValue 2 3)))");
    assert_eq!(c.ask("(cog-keys->alist (ConceptNode \"a\"))"), "(((PredicateNode \"*-TruthValueKey-*\") . (SimpleTruthValue 0.5 0.25)))");
    assert_eq!(c.ask("(cog-incoming-set (ConceptNode \"b\"))"), "((ListLink (ConceptNode \"a\")(ConceptNode \"b\")))");
    assert_eq!(c.ask("(cog-incoming-by-type (ConceptNode \"b\") 'SetLink)"), "()");
    assert_eq!(c.ask("(cog-get-atoms 'Node #t)").matches("Node \"").count(), 3, "a, b and the key");
    assert_eq!(c.ask("(cog-version)"), env!("CARGO_PKG_VERSION"));
    assert_eq!(c.ask("(ping)"), "()");
    // A malformed command is answered and the connection stays usable.
    assert!(c.ask("(cog-node 'NoSuchType \"x\")").starts_with("(error \"unknown type"));
    assert!(c.ask("(cog-frob)").starts_with("(error \"unknown command"));
    assert!(c.ask(")(").starts_with("(error"));
    assert_eq!(c.ask("(ping)"), "()");
    // A multi-line expression is evaluated once complete.
    c.send("(cog-node 'ConceptNode\n");
    assert_eq!(c.ask("\"a\")"), "(ConceptNode \"a\")");
    assert_eq!(c.ask("(cog-extract! (ConceptNode \"a\"))"), "#f");
    assert_eq!(c.ask("(cog-extract-recursive! (ConceptNode \"a\"))"), "#t");
    // Leaving the shell gives the command prompt back.
    c.send(".\n");
    assert_eq!(c.read_until("opencog> "), "opencog> ");
    c.send("json\n");
    let banner = c.read_until("json> ");
    assert!(banner.starts_with("Entering JSON shell"), "{banner}");
    c.send("AtomSpace.haveNode(\"Concept\", \"b\")\n");
    assert_eq!(c.read_until("json> "), "true\njson> ");
    c.send("AtomSpace.haveNode(\"Concept\", \"a\")\n");
    assert_eq!(c.read_until("json> "), "false\njson> ");
    c.send("AtomSpace.nope()\n");
    assert!(c.read_until("json> ").starts_with("{\"error\":"));
    c.send("\x04\n");
    assert_eq!(c.read_until("opencog> "), "Exiting the shell\nopencog> ");
}

#[test]
fn oversized_lines_are_refused_and_close_the_connection() {
    let srv = start(Config { max_line: 1000, ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    c.send(&format!("(ConceptNode \"{}\")\n", "x".repeat(5000)));
    let reply = c.line();
    assert!(reply.contains("line longer than 1000 bytes"), "{reply}");
    assert!(c.closed());
    // A multi-line expression grows past the limit: refused, and closed.
    let mut c = Client::sexpr(srv.addr);
    // The server may close before all of it is sent.
    let _ = c.wr.write_all(format!("(ConceptNode\n{}", "\"xxxxxxxxxxxxxxxxxxxxxxxx\"\n".repeat(200)).as_bytes());
    assert!(c.line().contains("expression longer than 1000 bytes"));
    assert!(c.closed());
    // Also without a newline in sight.
    let mut c = Client::sexpr(srv.addr);
    c.send(&"y".repeat(100_000));
    assert!(c.line().contains("line longer than 1000 bytes"));
    let space = srv.finish();
    assert_eq!(space.size(), 0, "nothing of the refused lines was added");
}

#[test]
fn abrupt_disconnects_leave_the_server_serving() {
    let srv = start(Config::default());
    for _ in 0..20 {
        let mut c = Client::sexpr(srv.addr);
        c.send("(cog-set-tv! (ConceptNode \"half");
        drop(c);
    }
    let mut c = Client::sexpr(srv.addr);
    assert_eq!(c.ask("(ping)"), "()");
    c.send(".\nstats\n");
    c.read_until("opencog> ");
    // The stats of a later connection show the dropped ones gone.
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    loop {
        c.send("stats\n");
        let s = c.read_until("opencog> ");
        if s.contains("connections: 1 open") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "{s}");
        std::thread::sleep(Duration::from_millis(50));
    }
    assert_eq!(srv.finish().size(), 0, "half a command adds nothing");
}

/// A burst of connections gets no more served than the cap: each takes
/// its place when accepted (the count once went up only when a
/// connection's task ran, so a burst got 6 or 7 of 5).
#[test]
fn a_burst_of_connections_stays_within_the_cap() {
    let srv = start(Config { max_connections: 5, ..Config::default() });
    let burst: Vec<TcpStream> = (0..60).map(|_| TcpStream::connect(srv.addr).unwrap()).collect();
    let mut served = 0;
    for mut s in burst.iter() {
        s.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
        let mut first = [0u8; 9];
        s.read_exact(&mut first).unwrap();
        served += usize::from(&first == b"opencog> ");
    }
    assert_eq!(served, 5);
}

/// A client that takes none of its replies for the write timeout is
/// closed, and its replies' memory with it (it once held them for ever).
#[test]
fn a_client_that_reads_no_replies_is_closed() {
    let srv = start(Config { write_timeout: Duration::from_secs(1), ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    for i in 0..2000 {
        c.ask(&format!("(Concept \"a concept of a fairly long name, number {i}\")"));
    }
    // About 150 MB of replies, more than any socket buffers.
    c.send(&"(cog-get-atoms 'ConceptNode)\n".repeat(1500));
    let mut watcher = Client::connect(srv.addr);
    watcher.read_until("opencog> ");
    let deadline = std::time::Instant::now() + Duration::from_secs(30);
    loop {
        watcher.send("stats\n");
        if watcher.read_until("opencog> ").contains("connections: 1 open") {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "the client that reads nothing is still connected");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn two_hundred_clients_make_the_union_of_their_atoms() {
    let srv = start(Config::default());
    let addr = srv.addr;
    let clients: Vec<_> = (0..200)
        .map(|i| {
            std::thread::spawn(move || {
                let mut c = Client::sexpr(addr);
                // Overlapping: every client makes shared atoms and its own.
                for j in 0..20 {
                    let shared = format!("(ListLink (ConceptNode \"shared {j}\")(ConceptNode \"hub\"))");
                    assert_eq!(c.ask(&format!("(cog-set-tv! {shared} (stv 1 0))")), "()");
                    let own = format!("(Evaluation (Predicate \"by\") (List (Concept \"client {i}\") (Concept \"shared {j}\")))");
                    assert!(c.ask(&own).starts_with("(EvaluationLink"));
                }
            })
        })
        .collect();
    for c in clients {
        c.join().unwrap();
    }
    let space = srv.finish();
    // hub, "by", 20 shared names, 200 client names; 20 shared lists, 4000 own lists and evaluations.
    assert_eq!(space.num_nodes(), 1 + 1 + 20 + 200);
    assert_eq!(space.count_of_type(LIST_LINK, false), 20 + 4000);
    assert_eq!(space.count_of_type(EVALUATION_LINK, false), 4000);
    assert_eq!(space.get_node(CONCEPT_NODE, "hub").and_then(|h| space.incoming_size(h)), Some(20));
}

#[test]
fn a_token_is_required_off_loopback_and_checked() {
    let err = std::thread::spawn(|| {
        let rt = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        rt.block_on(Server::bind(Config { bind: "0.0.0.0".parse().unwrap(), port: 0, ..Config::default() })).err().unwrap().to_string()
    })
    .join()
    .unwrap();
    assert!(err.contains("--token"), "{err}");

    let srv = start(Config { tokens: vec![Token::write("s3cret")], ..Config::default() });
    let mut c = Client::connect(srv.addr);
    c.send("help\n");
    assert!(c.line().contains("token"));
    assert!(c.closed());
    let mut c = Client::connect(srv.addr);
    c.send("s3cret\nsexpr\n");
    c.read_until("opencog> ");
    assert_eq!(c.ask("(ping)"), "()");

    let bad = atomweave_store::open(&format!("{}?token=wrong", srv.url())).err().unwrap().to_string();
    assert!(bad.contains("token"), "{bad}");
    let mut good = atomweave_store::open(&format!("{}?token=s3cret", srv.url())).unwrap();
    let space = AtomSpace::new();
    let a = space.add_node(CONCEPT_NODE, "a").unwrap();
    good.store_atom(&space, a).unwrap();
    good.barrier().unwrap();
}

#[test]
fn shutdown_flushes_the_store() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().display());
    let srv = start(Config { store: Some(url.clone()), ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    assert_eq!(c.ask("(cog-set-tv! (Inheritance (Concept \"cat\") (Concept \"animal\")) (stv 0.9 0.8))"), "()");
    assert_eq!(c.ask("(cog-update-value! (Concept \"cat\") (Predicate \"seen\") (FloatValue 2))"), "()");
    assert_eq!(c.ask("(cog-update-value! (Concept \"cat\") (Predicate \"seen\") (FloatValue 3))"), "()");
    assert_eq!(c.ask("(cog-set-tv! (List (Concept \"m\" (stv 0.5 0.5)) (Concept \"n\")) (stv 1 1))"), "()");
    assert!(c.ask("(cog-atomspace-clear)").starts_with("(error \"this server keeps its space in a store"));
    assert_eq!(c.ask("(Concept \"doomed\")"), "(ConceptNode \"doomed\")");
    assert_eq!(c.ask("(cog-extract! (Concept \"doomed\"))"), "#t");
    c.send(".\nshutdown\n");
    assert!(c.read_until("opencog> Shutting down cogserver\n").ends_with("cogserver\n"));
    let space = srv.finish();
    assert_eq!(space.size(), 7);

    // A new server on the same store starts where the last one stopped.
    let srv = start(Config { store: Some(url), ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    assert_eq!(c.ask("(cog-value (Concept \"cat\") (Predicate \"seen\"))"), "(FloatValue 5)");
    assert_eq!(
        c.ask("(cog-keys->alist (Inheritance (Concept \"cat\") (Concept \"animal\")))"),
        "(((PredicateNode \"*-TruthValueKey-*\") . (SimpleTruthValue 0.9 0.8)))"
    );
    assert_eq!(c.ask("(cog-node 'Concept \"doomed\")"), "()");
    // A value set on a member inside a command was written through too.
    assert_eq!(c.ask("(cog-keys->alist (Concept \"m\"))"), "(((PredicateNode \"*-TruthValueKey-*\") . (SimpleTruthValue 0.5 0.5)))");
}

/// What a query changes (the atoms a Put makes, the links a Delete
/// removes, the values a SetValue sets) is written through to the store as
/// the shells' own writes are, in both shells: once, the store had only
/// the query and its result value, so a restart undid the rest. (The
/// sexpr Put and SetValue are also in what the cached query holds; the
/// Delete and the json Put are only in what it changed.)
#[test]
fn what_a_query_changes_is_written_through() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().display());
    let srv = start(Config { store: Some(url.clone()), ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    assert_eq!(c.ask("(Inheritance (Concept \"cat\") (Concept \"animal\"))"), "(InheritanceLink (ConceptNode \"cat\")(ConceptNode \"animal\"))");
    c.ask("(cog-execute-cache! (Put (Delete (Inheritance (Variable \"$x\") (Concept \"animal\"))) (Concept \"cat\")) (Predicate \"r\"))");
    c.ask("(cog-execute-cache! (Put (Member (Variable \"$z\") (Concept \"club\")) (Concept \"sam\")) (Predicate \"r\"))");
    c.ask("(cog-execute-cache! (SetValue (Concept \"cat\") (Predicate \"k\") (Number 7)) (Predicate \"r\"))");
    let value = c.ask("(cog-value (Concept \"cat\") (Predicate \"k\"))");
    assert!(value.contains('7'), "{value}");
    c.send(".\njson hush\n");
    c.read_until("opencog> ");
    let put = r#"{"type":"PutLink","outgoing":[{"type":"MemberLink","outgoing":[{"type":"VariableNode","name":"$z"},{"type":"ConceptNode","name":"jclub"}]},{"type":"ConceptNode","name":"jsam"}]}"#;
    assert!(c.ask(&format!("AtomSpace.execute({put})")).contains("MemberLink"));
    c.send(".\nshutdown\n");
    c.read_until("Shutting down cogserver\n");
    srv.finish();

    let srv = start(Config { store: Some(url), ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    assert_eq!(c.ask("(cog-link 'Inheritance (Concept \"cat\") (Concept \"animal\"))"), "()");
    assert_eq!(c.ask("(cog-link 'Member (Concept \"sam\") (Concept \"club\"))"), "(MemberLink (ConceptNode \"sam\")(ConceptNode \"club\"))");
    assert_eq!(c.ask("(cog-link 'Member (Concept \"jsam\") (Concept \"jclub\"))"), "(MemberLink (ConceptNode \"jsam\")(ConceptNode \"jclub\"))");
    assert_eq!(c.ask("(cog-value (Concept \"cat\") (Predicate \"k\"))"), value);
}

/// A space below two bases sees each base's copy of a shared content; the
/// server is sent one, the copy the space's lookups find, with its own
/// truth value and values (not the other's, nor a mix).
#[test]
fn a_space_that_sees_a_content_twice_is_stored_one_copy_each() {
    let srv = start(Config::default());
    let (a, b) = (AtomSpace::new(), AtomSpace::new());
    // Made while the bases are empty: they join one hierarchy.
    let below = AtomSpace::new_child(&[&a, &b]).unwrap();
    for (i, base) in [&a, &b].into_iter().enumerate() {
        let x = base.add_node(CONCEPT_NODE, "x").unwrap();
        let own = base.add_node(PREDICATE_NODE, &format!("only in base {i}")).unwrap();
        base.set_tv(x, TruthValue::simple(0.25 + i as f64 / 2.0, 0.5)).unwrap();
        base.set_value(x, own, Value::float(vec![i as f64])).unwrap();
    }
    let x = below.get_node(CONCEPT_NODE, "x").unwrap();
    let mut st = atomweave_store::open(&srv.url()).unwrap();
    // x once, and the two keys.
    assert_eq!(st.store_atomspace(&below, &mut |_| {}).unwrap(), 3);
    st.barrier().unwrap();
    let theirs = srv.finish();
    let tx = theirs.get_node(CONCEPT_NODE, "x").unwrap();
    assert_eq!(theirs.get_tv(tx), below.get_tv(x));
    let keys = |s: &AtomSpace, h| s.key_values(h).iter().map(|(k, v)| (s.name(*k).unwrap().to_string(), v.clone())).collect::<Vec<_>>();
    assert_eq!(keys(&theirs, tx), keys(&below, x));
}

#[test]
fn cog_storage_round_trip() {
    let srv = start(Config::default());
    let mine = AtomSpace::new();
    let cat = mine.add_node(CONCEPT_NODE, "cat").unwrap();
    let animal = mine.add_node(CONCEPT_NODE, "animal").unwrap();
    let inh = mine.add_link(INHERITANCE_LINK, &[cat, animal]).unwrap();
    let key = mine.add_node(PREDICATE_NODE, "k").unwrap();
    mine.set_tv(inh, TruthValue::simple(0.9, 0.8)).unwrap();
    mine.set_value(cat, key, Value::string(["meow", "purr"])).unwrap();
    let mut st = atomweave_store::open(&srv.url()).unwrap();
    // Bulk, pipelined.
    for i in 0..5000 {
        let n = mine.add_node(CONCEPT_NODE, &format!("n{i}")).unwrap();
        mine.add_link(MEMBER_LINK, &[n, animal]).unwrap();
    }
    assert_eq!(st.store_atomspace(&mine, &mut |_| {}).unwrap(), mine.size() as u64);
    st.barrier().unwrap();

    // Another client sees it all.
    let theirs = AtomSpace::new();
    let mut other = atomweave_store::open(&srv.url()).unwrap();
    let tcat = theirs.add_node(CONCEPT_NODE, "cat").unwrap();
    assert!(other.fetch_atom(&theirs, tcat).unwrap());
    let tkey = theirs.add_node(PREDICATE_NODE, "k").unwrap();
    assert_eq!(theirs.get_value(tcat, tkey), mine.get_value(cat, key));
    let tanimal = theirs.add_node(CONCEPT_NODE, "animal").unwrap();
    assert_eq!(other.fetch_incoming_set(&theirs, tanimal, false).unwrap(), 5001);
    assert_eq!(other.fetch_incoming_by_type(&theirs, tanimal, INHERITANCE_LINK).unwrap(), 1);
    let tinh = theirs.get_link(INHERITANCE_LINK, &[tcat, tanimal]).unwrap();
    assert_eq!(theirs.get_tv(tinh), Some(TruthValue::simple(0.9, 0.8)));
    let nobody = theirs.add_node(CONCEPT_NODE, "nobody").unwrap();
    assert!(!other.fetch_atom(&theirs, nobody).unwrap());

    // Counters updated from many clients at once all count.
    let counter_url = srv.url();
    let workers: Vec<_> = (0..8)
        .map(|_| {
            let url = counter_url.clone();
            std::thread::spawn(move || {
                let s = AtomSpace::new();
                let a = s.add_node(CONCEPT_NODE, "counter").unwrap();
                let k = s.add_node(PREDICATE_NODE, "hits").unwrap();
                let mut st = atomweave_store::open(&url).unwrap();
                for _ in 0..250 {
                    st.update_value(&s, a, k, &[1.0]).unwrap();
                }
                st.barrier().unwrap();
            })
        })
        .collect();
    for w in workers {
        w.join().unwrap();
    }
    let c = theirs.add_node(CONCEPT_NODE, "counter").unwrap();
    let hits = theirs.add_node(PREDICATE_NODE, "hits").unwrap();
    assert!(other.fetch_value(&theirs, c, hits).unwrap());
    assert_eq!(theirs.get_value(c, hits), Some(Value::float(vec![2000.0])));

    // Deletion, then a whole-space load elsewhere.
    assert!(!other.delete(&theirs, tanimal, false).unwrap(), "links hold it");
    assert!(other.delete(&theirs, tcat, true).unwrap());
    assert!(theirs.get_link(INHERITANCE_LINK, &[tcat, tanimal]).is_none());
    let third = AtomSpace::new();
    let mut st3 = atomweave_store::open(&srv.url()).unwrap();
    let n = st3.load_atomspace(&third, &mut |_| {}).unwrap();
    assert_eq!(n as usize, third.size());
    assert!(third.get_node(CONCEPT_NODE, "cat").is_none());
    assert_eq!(third.count_of_type(MEMBER_LINK, false), 5000);
    assert_eq!(third.size(), mine.size() - 2 + 2, "cat and its link gone; counter and hits added");

    // Queries run on the server, their results kept there.
    let q = atomweave::sexpr::load_str(&mut &third, "(GetLink (Member (Variable \"$x\") (Concept \"animal\")))").unwrap()[0];
    let rk = third.add_node(PREDICATE_NODE, "results").unwrap();
    let mut cog = atomweave_store::open(&srv.url()).unwrap();
    let found = cog.fetch_query(&third, q, rk, false).unwrap();
    let text = atomweave::sexpr::atom_to_string(&third, q, atomweave::sexpr::Form::Wire).unwrap();
    assert_eq!(text.matches("(ConceptNode \"n").count(), 5000, "the 5000 members, kept on the query here");
    assert!(matches!(found, Value::Atom(_) | Value::Link(_)), "{found:?}");
    let mut probe = Client::sexpr(srv.addr);
    let mut qs = String::new();
    atomweave::sexpr::write_structure(&third, q, &mut qs).unwrap();
    let kept = probe.ask(&format!("(cog-value {qs} (PredicateNode \"results\"))"));
    assert!(kept.matches("(ConceptNode \"n").count() == 5000, "and on the server: {}", &kept[..kept.len().min(200)]);
    st.close().unwrap();
    other.close().unwrap();
}

#[test]
fn web_pages_and_http_requests_are_refused_without_a_token() {
    let srv = start(Config::default());
    let mut s = TcpStream::connect(srv.web).unwrap();
    s.write_all(b"GET /sexpr HTTP/1.1\r\nHost: x\r\nOrigin: http://evil.example\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
        .unwrap();
    let mut reply = String::new();
    s.read_to_string(&mut reply).unwrap();
    assert!(reply.starts_with("HTTP/1.1 403"), "{reply}");
    // A browser's form posted to the telnet port: its body never runs.
    let mut c = Client::connect(srv.addr);
    c.read_until("opencog> ");
    c.send("POST / HTTP/1.1\r\nHost: 127.0.0.1:17001\r\n\r\nsexpr\n(Concept \"posted\")\n");
    assert!(c.line().contains("not HTTP"));
    assert!(c.closed());
    assert_eq!(srv.finish().size(), 0);
}

/// Two servers in one process: stopping one stops its own scm evaluations,
/// not the other's.
#[cfg(feature = "scheme")]
#[test]
fn a_server_that_stops_leaves_another_servers_scheme_running() {
    let one = start(Config::default());
    let two = start(Config::default());
    let scm_client = |addr| {
        let mut c = Client::connect(addr);
        c.read_until("opencog> ");
        c.send("scm\n");
        c.read_until("guile> ");
        c
    };
    let mut c1 = scm_client(one.addr);
    c1.send("(+ 1 1)\n");
    assert_eq!(c1.read_until("guile> "), "2\nguile> ");
    let mut c2 = scm_client(two.addr);
    // Two's evaluation is running while one stops.
    c2.send("(begin (usleep 1500000) 42)\n");
    std::thread::sleep(std::time::Duration::from_millis(150));
    drop(c1);
    one.finish();
    assert_eq!(c2.read_until("guile> "), "42\nguile> ");
}

/// The scm shell's Scheme heap is capped: a vector of 400 MB under a cap
/// of 256 MiB is an out-of-memory error, and the shell goes on (the heap
/// once grew until the machine's memory ran out). The cap is the
/// process's; the other tests' Scheme needs far less.
#[cfg(feature = "scheme")]
#[test]
fn the_scheme_heap_is_capped() {
    let srv = start(Config { scm_max_heap: Some(256 << 20), ..Config::default() });
    let mut c = Client::connect(srv.addr);
    c.read_until("opencog> ");
    c.send("scm hush\n");
    c.send("(make-vector 50000000 0)\n(+ 1 1)\n");
    let reply = c.read_until("2\n");
    assert!(reply.starts_with("ERROR: ") && reply.contains("memory"), "{reply}");
}

/// Built without Scheme, the scm shell says so and the server goes on.
#[cfg(not(feature = "scheme"))]
#[test]
fn scm_shell_without_scheme_says_so() {
    let srv = start(Config::default());
    let mut c = Client::connect(srv.addr);
    c.send("scm\n");
    c.read_until("guile> ");
    c.send("(+ 2 2)\n");
    let reply = c.read_until("guile> ");
    assert!(reply.starts_with("ERROR: this server was built without Scheme"), "{reply}");
    c.send("(ConceptNode \"x\")\n");
    assert!(c.read_until("guile> ").starts_with("ERROR: "), "the shell goes on answering");
    // Counted as errors; not timed, as nothing was evaluated.
    let page = http_get(srv.web, "/metrics");
    let body = page.split_once("\r\n\r\n").unwrap().1;
    assert_eq!(sample(body, "atomweave_commands_total{shell=\"scm\",outcome=\"error\"}"), 2.0);
    assert_eq!(sample(body, "atomweave_command_duration_seconds_count{shell=\"scm\"}"), 0.0);
    assert_eq!(srv.finish().size(), 0);
}

#[cfg(feature = "scheme")]
#[test]
fn scm_shell_evaluates_in_each_servers_own_space() {
    let one = start(Config::default());
    let two = start(Config::default());
    let mut c = Client::connect(one.addr);
    c.read_until("opencog> ");
    c.send("scm\n");
    assert!(c.read_until("guile> ").starts_with("Entering scheme shell"));
    let mut scm = |cmd: &str| {
        c.send(cmd);
        c.read_until("guile> ")
    };
    assert_eq!(scm("(+ 2 2)\n"), "4\nguile> ");
    assert_eq!(scm("(define a (Concept \"a\" (stv 0.5 0.5)))\n"), "guile> ");
    assert_eq!(scm("(cog-tv a)\n"), "(stv 0.5 0.5)\nguile> ");
    // Output, then the value; multi-line expressions wait for their end.
    assert_eq!(scm("(begin (display \"hi\")\n  (List a\n (Concept \"b\")))\n"), "hi(List\n  (Concept \"a\" (stv 0.5 0.5))\n  (Concept \"b\"))\nguile> ");
    // Errors are reported and the connection stays usable.
    let err = scm("(cog-new-link 'ListLink 42)\n");
    assert!(err.starts_with("ERROR: In procedure cog-new-link: expected an atom"), "{err}");
    assert!(scm("(car '())\n").starts_with("ERROR: "));
    assert_eq!(scm("(+ 1\n)\n"), "1\nguile> ");
    // Character literals and block comments do not confuse the line counting.
    assert_eq!(scm("(string #\\( #| ) |# #\\;)\n"), "\"(;\"\nguile> ");
    // Every value is shown, and none is fine.
    assert_eq!(scm("(values 1 2)\n"), "1\n2\nguile> ");
    assert_eq!(scm("(values)\n"), "guile> ");
    c.send(".\n");
    assert_eq!(c.read_until("opencog> "), "Exiting the shell\nopencog> ");

    // The other server's shell sees its own space, not the first one's.
    let mut d = Client::connect(two.addr);
    d.send("scm hush\n(length (cog-get-atoms 'Atom #t))\n");
    assert_eq!(d.read_until("opencog> "), "opencog> ");
    assert_eq!(d.read_until("\n"), "0\n");
    d.send("(Concept \"only here\")\n");
    assert_eq!(d.read_until("\n"), "(Concept \"only here\")\n");
    // An expression at the command prompt runs once.
    let mut e = Client::connect(one.addr);
    e.send("(cog-count-atoms 'ConceptNode)\n");
    assert_eq!(e.read_until("opencog> "), "opencog> ");
    assert_eq!(e.read_until("opencog> "), "2\nopencog> ");
    let space = one.finish();
    assert_eq!(space.size(), 3, "a, b and their ListLink");
    assert_eq!(two.finish().size(), 1);
}

#[test]
fn websocket_shells_and_the_status_page() {
    let srv = start(Config { max_line: 4096, ..Config::default() });
    let mut sx = ws(srv.web, "/sexpr").unwrap();
    assert_eq!(ws_ask(&mut sx, "(ConceptNode \"w\")"), "(ConceptNode \"w\")\n");
    assert_eq!(ws_ask(&mut sx, "(cog-node 'Concept \"w\")"), "(ConceptNode \"w\")\n");
    assert!(ws_ask(&mut sx, "(cog-bogus)").starts_with("(error"));
    let mut js = ws(srv.web, "/json").unwrap();
    assert_eq!(ws_ask(&mut js, "AtomSpace.haveNode(\"Concept\", \"w\")"), "true\n");
    // A message over the limit ends the connection; nothing of it is evaluated.
    sx.send(tungstenite::Message::text(format!("(ConceptNode \"{}\")", "z".repeat(10_000)))).unwrap();
    assert!(!matches!(sx.read(), Ok(tungstenite::Message::Text(_))));
    assert_eq!(ws(srv.web, "/nowhere").err().unwrap(), "404 Not Found");
    let mut sc = ws(srv.web, "/scm").unwrap();
    let named = ws_ask(&mut sc, "(cog-name (cog-node 'ConceptNode \"w\"))");
    if cfg!(feature = "scheme") {
        assert_eq!(named, "\"w\"\n");
    } else {
        assert!(named.starts_with("ERROR: this server was built without Scheme"), "{named}");
    }
    assert_eq!(ws(srv.web, "/py").err().unwrap(), "404 Not Found");
    let page = http_get(srv.web, "/status");
    assert!(page.starts_with("HTTP/1.1 200 OK") && page.contains("atoms: 1"), "{page}");
    let ui = http_get(srv.web, "/");
    assert!(ui.starts_with("HTTP/1.1 200 OK") && ui.contains("text/html") && ui.contains("/ui/app.js"), "{ui}");
    for (file, kind) in [("/ui/app.js", "text/javascript"), ("/ui/app.css", "text/css")] {
        let got = http_get(srv.web, file);
        assert!(got.starts_with("HTTP/1.1 200 OK") && got.contains(kind) && got.len() > 1000, "{file}: {}", &got[..got.len().min(300)]);
    }
    assert!(http_get(srv.web, "/nowhere").starts_with("HTTP/1.1 404"));
    assert!(http_get_as(srv.web, "/", "localhost").starts_with("HTTP/1.1 200 OK"));
    // A page whose domain was pointed at 127.0.0.1 (DNS rebinding) reads nothing.
    let rebound = http_get_as(srv.web, "/", "evil.example");
    assert!(rebound.starts_with("HTTP/1.1 421") && !rebound.contains("atoms:"), "{rebound}");
    let post = {
        let mut s = TcpStream::connect(srv.web).unwrap();
        s.write_all(b"POST / HTTP/1.1\r\n\r\n").unwrap();
        let mut out = String::new();
        s.read_to_string(&mut out).unwrap();
        out
    };
    assert!(post.starts_with("HTTP/1.1 501"), "{post}");
    assert_eq!(srv.finish().size(), 1);

    let srv = start(Config { tokens: vec![Token::write("t0k")], ..Config::default() });
    assert_eq!(ws(srv.web, "/sexpr").err().unwrap(), "401 Unauthorized");
    assert!(http_get(srv.web, "/").starts_with("HTTP/1.1 401"));
    let mut sx = ws(srv.web, "/sexpr?token=t0k").unwrap();
    assert_eq!(ws_ask(&mut sx, "(ping)"), "()\n");
    // With a token too, a web page is refused unless its origin is allowed.
    let from_page = |srv: &Running, origin: &str| {
        let mut s = TcpStream::connect(srv.web).unwrap();
        let req =
            format!("GET /scm?token=t0k HTTP/1.1\r\nHost: x\r\nOrigin: {origin}\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n");
        s.write_all(req.as_bytes()).unwrap();
        let mut reply = vec![0u8; 12];
        s.read_exact(&mut reply).unwrap();
        String::from_utf8(reply).unwrap()
    };
    assert_eq!(from_page(&srv, "http://evil.example"), "HTTP/1.1 403");
    let srv = start(Config { tokens: vec![Token::write("t0k")], allow_origins: vec!["https://app.example".into()], ..Config::default() });
    assert_eq!(from_page(&srv, "http://evil.example"), "HTTP/1.1 403");
    assert_eq!(from_page(&srv, "https://app.example"), "HTTP/1.1 101");
}

#[test]
fn a_stalled_client_delays_no_one() {
    let srv = start(Config::default());
    // A client that sends much and reads nothing fills its socket, and its
    // task waits; everyone else goes on.
    let mut c = Client::sexpr(srv.addr);
    for i in 0..2000 {
        c.ask(&format!("(ConceptNode \"stall {i}\")"));
    }
    let mut stalled = TcpStream::connect(srv.addr).unwrap();
    stalled.write_all(b"sexpr\n").unwrap();
    let flood = "(cog-get-atoms 'Node #t)\n".repeat(2000);
    let writer = std::thread::spawn(move || {
        let _ = stalled.write_all(flood.as_bytes());
        stalled
    });
    std::thread::sleep(Duration::from_millis(300));
    for _ in 0..50 {
        let t = std::time::Instant::now();
        assert_eq!(c.ask("(ping)"), "()");
        assert!(t.elapsed() < Duration::from_secs(1), "a ping waited {:?}", t.elapsed());
    }
    drop(writer.join().unwrap());
}

#[test]
fn fetching_many_large_atoms_and_values_does_not_stall() {
    // Requests (long links) and replies (long values) both larger than the
    // socket buffers: the client must not write them all before reading.
    let srv = start(Config::default());
    let mine = AtomSpace::new();
    let hub = mine.add_node(CONCEPT_NODE, "hub").unwrap();
    let key = mine.add_node(PREDICATE_NODE, "blob").unwrap();
    let blob = Value::string(["x".repeat(8 * 1024)]);
    for i in 0..2048 {
        let mut out = vec![hub];
        out.extend((0..100).map(|j| mine.add_node(CONCEPT_NODE, &format!("member {i} {j} with a long name")).unwrap()));
        let l = mine.add_link(LIST_LINK, &out).unwrap();
        mine.set_value(l, key, blob.clone()).unwrap();
    }
    let mut st = atomweave_store::open(&srv.url()).unwrap();
    st.store_atomspace(&mine, &mut |_| {}).unwrap();
    let theirs = AtomSpace::new();
    let h = theirs.add_node(CONCEPT_NODE, "hub").unwrap();
    let mut other = atomweave_store::open(&srv.url()).unwrap();
    assert_eq!(other.fetch_incoming_set(&theirs, h, false).unwrap(), 2048);
    let k = theirs.get_node(PREDICATE_NODE, "blob").unwrap();
    let links = theirs.incoming(h).unwrap();
    assert!(links.iter().all(|&l| theirs.get_value(l, k).as_ref() == Some(&blob)));
}

/// The json shell answers an atom nested deeper than an Atomese expression
/// may be (a chain a Scheme loop built) with an error, not a stack overflow
/// of the worker building, writing or freeing its JSON; shallower ones print.
#[test]
fn json_refuses_atoms_nested_too_deep_to_send() {
    use atomweave_server::{json_shell, Durability, State};
    std::thread::Builder::new()
        .stack_size(atomweave_server::WORKER_STACK)
        .spawn(|| {
            let space = AtomSpace::new();
            let mut h = space.add_node(CONCEPT_NODE, "leaf").unwrap();
            for _ in 0..100 {
                h = space.add_link(LIST_LINK, &[h]).unwrap();
            }
            let state = State::new(space.clone(), None, Durability::Always);
            let mut out = String::new();
            json_shell::eval(&state, r#"AtomSpace.getIncoming({"type": "ConceptNode", "name": "leaf"})"#, &mut out);
            assert!(out.starts_with(r#"[{"outgoing":[{"#) || out.starts_with(r#"[{"type""#), "{}", &out[..out.len().min(200)]);
            for _ in 0..100_000 {
                h = space.add_link(LIST_LINK, &[h]).unwrap();
            }
            let mut text = String::new();
            let err = json_shell::Writer::new(&space, &mut text).atom(h).unwrap_err();
            assert!(err.contains("nested more than 4096 deep cannot be sent as JSON"), "{err}");
        })
        .unwrap()
        .join()
        .unwrap();
}

/// Links that each print to many megabytes (`leaves` leaves, each under
/// links doubling it `depth` times), as a Put can make them in one command.
fn doubled(leaves: usize, depth: usize) -> AtomSpace {
    let space = AtomSpace::new();
    for k in 0..leaves {
        let mut h = space.add_node(CONCEPT_NODE, &format!("leaf{k}")).unwrap();
        for _ in 0..depth {
            h = space.add_link(LIST_LINK, &[h, h]).unwrap();
        }
    }
    space
}

/// A reply is capped whole, not atom by atom: atoms that each print
/// within the cap are refused together past it (a reply of three such
/// atoms was once 403 MB, and JSON's was built as gigabytes of objects).
#[test]
fn a_reply_is_capped_whole_not_per_atom() {
    use atomweave_server::{json_shell, sexpr_shell, Durability, State, MAX_REPLY};
    let cap = format!("longer than {} MiB", MAX_REPLY >> 20);
    let state = State::new(doubled(3, 22), None, Durability::Always);
    let mut out = String::new();
    assert!(!sexpr_shell::eval(&state, "(cog-get-atoms 'ListLink)", &mut out));
    assert!(out.starts_with("(error") && out.contains(&cap), "{}", &out[..out.len().min(200)]);
    assert!(out.capacity() <= 2 * MAX_REPLY, "a reply's buffer went past the cap: {} bytes", out.capacity());
    let state = State::new(doubled(10, 18), None, Durability::Always);
    out.clear();
    assert!(!json_shell::eval(&state, "AtomSpace.getAtoms(\"ListLink\")", &mut out));
    assert!(out.starts_with("{\"error\"") && out.contains(&cap), "{}", &out[..out.len().min(200)]);
}

/// The value of the sample `name` (with its labels, as the page writes
/// them) on a /metrics page.
fn sample(page: &str, name: &str) -> f64 {
    let line = page.lines().find(|l| l.strip_prefix(name).is_some_and(|rest| rest.starts_with(' '))).unwrap_or_else(|| panic!("no {name} in\n{page}"));
    line[name.len()..].trim().parse().unwrap()
}

#[test]
fn metrics_count_commands_by_shell_and_outcome() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("lmdb://{}", dir.path().join("db").display());
    let srv = start(Config { store: Some(url), ..Config::default() });
    let mut c = Client::sexpr(srv.addr);
    c.ask("(ConceptNode \"a\")");
    c.ask("(ConceptNode \"b\")");
    assert!(c.ask("(cog-bogus)").starts_with("(error"));
    let page = http_get(srv.web, "/metrics");
    let (head, body) = page.split_once("\r\n\r\n").unwrap();
    assert!(head.starts_with("HTTP/1.1 200 OK") && head.contains("application/openmetrics-text"), "{head}");
    assert_eq!(sample(body, "atomweave_commands_total{shell=\"sexpr\",outcome=\"ok\"}"), 2.0);
    assert_eq!(sample(body, "atomweave_commands_total{shell=\"sexpr\",outcome=\"error\"}"), 1.0);
    assert_eq!(sample(body, "atomweave_commands_total{shell=\"json\",outcome=\"ok\"}"), 0.0);
    assert_eq!(sample(body, "atomweave_command_duration_seconds_count{shell=\"sexpr\"}"), 3.0);
    assert_eq!(sample(body, "atomweave_command_duration_seconds_bucket{le=\"+Inf\",shell=\"sexpr\"}"), 3.0);
    assert_eq!(sample(body, "atomweave_atoms"), 2.0);
    assert_eq!(sample(body, "atomweave_connections_open"), 2.0, "the shell's and the scrape's");
    assert!(sample(body, "atomweave_resident_memory_bytes") > 1e6);
    assert!(sample(body, "atomweave_store_commits_total") >= 1.0, "the two writes were committed");
    assert_eq!(sample(body, "atomweave_store_errors_total"), 0.0);
    assert!(body.contains("# TYPE atomweave_commands counter") && body.ends_with("# EOF\n"), "{body}");
    // Counters never go down between scrapes.
    let again = http_get(srv.web, "/metrics");
    assert_eq!(sample(again.split_once("\r\n\r\n").unwrap().1, "atomweave_commands_total{shell=\"sexpr\",outcome=\"ok\"}"), 2.0);
    assert_eq!(srv.finish().size(), 2);
}

#[test]
fn metrics_follow_the_token_rule() {
    let srv = start(Config { tokens: vec![Token::write("t0k")], ..Config::default() });
    assert!(http_get(srv.web, "/metrics").starts_with("HTTP/1.1 401"));
    let ok = http_get(srv.web, "/metrics?token=t0k");
    assert!(ok.starts_with("HTTP/1.1 200 OK") && ok.contains("atomweave_atoms 0"), "{ok}");
    srv.finish();
}
