//! The `atomweave` binary end to end: generate, load and dump a 1M-atom
//! file; errors exit non-zero with the place named.

use std::collections::BTreeSet;
use std::path::Path;
use std::process::Command;

use atomweave::sexpr::load;
use atomweave::{AtomRead, AtomTable, Handle};

fn atomweave(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_atomweave")).args(args).output().expect("run atomweave")
}

/// Content key of an atom, independent of handle numbers.
fn canon(t: &AtomTable, h: Handle) -> String {
    let ty = t.get_type(h).unwrap();
    let mut s = format!("({}", ty.name());
    match t.name(h) {
        Some(n) => s.push_str(&format!(" {n:?}")),
        None => {
            let mut kids: Vec<String> = t.outgoing(h).unwrap().iter().map(|&c| canon(t, c)).collect();
            if ty.is_unordered() {
                kids.sort();
            }
            s.push_str(&kids.join(" "));
        }
    }
    let tv = t.get_tv(h).unwrap();
    if !tv.is_default() {
        s.push_str(&format!(" {tv:?}"));
    }
    let mut kvs: Vec<String> = t.key_values(h).iter().map(|(k, v)| format!("{}={v:?}", canon(t, *k))).collect();
    kvs.sort();
    s.push_str(&kvs.join(" "));
    s.push(')');
    s
}

fn atom_set(path: &Path) -> BTreeSet<String> {
    let mut t = AtomTable::new();
    let f = std::io::BufReader::new(std::fs::File::open(path).unwrap());
    load(&mut t, f, |_| {}).unwrap();
    t.all_atoms().map(|h| canon(&t, h)).collect()
}

#[test]
fn a_million_atoms_survive_load_and_dump() {
    let dir = tempdir();
    let gen = dir.path().join("gen.scm");
    let out = atomweave(&["generate", "-n", "1000000", "-R", "7", "-o", gen.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));

    let out = atomweave(&["load", "-q", gen.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report = String::from_utf8(out.stdout).unwrap();
    let atoms_line = report.lines().find(|l| l.starts_with("atoms")).unwrap();
    let loaded: usize = atoms_line.split_whitespace().nth(1).unwrap().parse().unwrap();
    assert!(loaded >= 1_000_000, "{report}");
    assert!(report.contains("atoms/s") && report.contains("per atom"), "{report}");

    let out = atomweave(&["dump", gen.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let dumped = dir.path().join("dump.scm");
    std::fs::write(&dumped, &out.stdout).unwrap();

    let original = atom_set(&gen);
    assert_eq!(original.len(), loaded);
    assert_eq!(atom_set(&dumped), original);
}

#[test]
fn load_and_dump_on_one_thread_or_several_agree() {
    let dir = tempdir();
    let gen = dir.path().join("gen.scm");
    let out = atomweave(&["generate", "-n", "20000", "-R", "3", "-o", gen.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let atoms_line = |threads: &str| {
        let out = atomweave(&["load", "-q", "-T", threads, gen.to_str().unwrap()]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        String::from_utf8(out.stdout).unwrap().lines().find(|l| l.starts_with("atoms")).unwrap().to_string()
    };
    assert_eq!(atoms_line("1"), atoms_line("2"));
    let dump = |threads: &str| atomweave(&["dump", "-T", threads, gen.to_str().unwrap()]).stdout;
    let one = dump("1");
    assert!(one.len() > 250_000);
    assert_eq!(one, dump("3"));
    let out = atomweave(&["load", "-T", "0", gen.to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("--threads"));
}

#[test]
fn dump_by_type_and_repl_form() {
    let dir = tempdir();
    let f = dir.path().join("small.scm");
    std::fs::write(&f, "(Inheritance (stv 0.9 0.8) (Concept \"cat\") (Concept \"animal\"))\n").unwrap();
    let out = atomweave(&["dump", f.to_str().unwrap(), "--type", "ConceptNode"]);
    let text = String::from_utf8(out.stdout).unwrap();
    let lines: BTreeSet<&str> = text.lines().collect();
    assert_eq!(lines, BTreeSet::from(["(ConceptNode \"cat\")", "(ConceptNode \"animal\")"]));
    let out = atomweave(&["dump", f.to_str().unwrap(), "--form", "repl"]);
    assert_eq!(String::from_utf8(out.stdout).unwrap(), "(Inheritance (stv 0.9 0.8)\n  (Concept \"cat\")\n  (Concept \"animal\"))\n");
}

#[test]
fn errors_exit_non_zero_and_say_where() {
    let dir = tempdir();
    let f = dir.path().join("bad.scm");
    std::fs::write(&f, "(Concept \"ok\")\n(Concept \"a\" (Bogus 1))\n").unwrap();
    let out = atomweave(&["load", f.to_str().unwrap()]);
    assert!(!out.status.success());
    let err = String::from_utf8(out.stderr).unwrap();
    assert!(err.contains("bad.scm") && err.contains("line 2") && err.contains("Bogus"), "{err}");
    let out = atomweave(&["load", dir.path().join("missing.scm").to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8(out.stderr).unwrap().contains("missing.scm"));
    let out = atomweave(&["dump", f.to_str().unwrap(), "--type", "NoSuchType"]);
    assert!(!out.status.success());
}

#[test]
fn query_prints_each_result_and_fails_on_a_bad_query() {
    let dir = tempdir();
    let data = dir.path().join("animals.scm");
    std::fs::write(&data, "(Inheritance (Concept \"Ben\") (Concept \"human\"))\n(Inheritance (Concept \"Linas\") (Concept \"human\"))\n").unwrap();
    let queries = dir.path().join("q.scm");
    std::fs::write(&queries, "(Satisfaction (Inheritance (Variable \"$x\") (Concept \"cat\")))\n").unwrap();
    let get = r#"(GetLink (InheritanceLink (VariableNode "$H") (ConceptNode "human")))"#;
    let out = atomweave(&["query", data.to_str().unwrap(), "-e", get, "-f", queries.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    let (set, tv) = text.split_once(")\n(").expect("two results");
    assert!(set.starts_with("(Set\n") && set.contains("(Concept \"Ben\")") && set.contains("(Concept \"Linas\")"), "{text}");
    assert_eq!(tv.trim(), "stv 0 1)");

    let bad = r#"(Bind (Inheritance (Variable "$x") (Concept "human")) (List (Variable "$y")))"#;
    let out = atomweave(&["query", data.to_str().unwrap(), "-e", bad]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("-e #1") && err.contains("$y") && err.contains("rewrite"), "{err}");
    let out = atomweave(&["query", data.to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no query"));
}

#[test]
fn query_from_a_store_answers_as_over_the_file_and_read_through_bench_runs() {
    let dir = tempdir();
    let data = dir.path().join("pairs.scm");
    let out = atomweave(&["generate", "--shape", "pairs", "-n", "20000", "-o", data.to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let store = format!("lmdb://{}", dir.path().join("db").display());
    assert!(atomweave(&["load", "-q", data.to_str().unwrap(), "--to", &store]).status.success());
    let join = r#"(Get (VariableList (Variable "$a") (Variable "$b")) (And (Evaluation (Predicate "ANY") (List (Variable "$a") (Word "ba"))) (Evaluation (Predicate "ANY") (List (Word "ba") (Variable "$b")))))"#;
    let loaded = atomweave(&["query", "-q", data.to_str().unwrap(), "-e", join]);
    let through = atomweave(&["query", "--from", &store, "-e", join]);
    assert!(loaded.status.success() && through.status.success(), "{}", String::from_utf8_lossy(&through.stderr));
    assert!(loaded.stdout.len() > 1000, "a join of some size: {}", String::from_utf8_lossy(&loaded.stdout));
    assert_eq!(String::from_utf8(through.stdout).unwrap(), String::from_utf8(loaded.stdout).unwrap());

    let missing = atomweave(&["query", "--from", &format!("lmdb://{}", dir.path().join("none").display()), "-e", join]);
    assert!(!missing.status.success() && String::from_utf8_lossy(&missing.stderr).contains("no store there"));

    let words = std::fs::read_to_string(&data).unwrap().lines().next().unwrap().split(' ').nth(5).unwrap().to_string();
    let bench = atomweave(&["read-through-bench", "--from", &store, "--words", &words, "-n", "50", "--loaded"]);
    assert!(bench.status.success(), "{}", String::from_utf8_lossy(&bench.stderr));
    let text = String::from_utf8(bench.stdout).unwrap();
    for line in ["fetches cold", "fetches warm", "join    cold", "join    warm", "join    loaded", "peak"] {
        assert!(text.contains(line), "{line}: {text}");
    }
}

#[test]
fn load_to_dump_from_copy_and_persist_bench() {
    let dir = tempdir();
    let data = dir.path().join("store.scm");
    std::fs::write(
        &data,
        "(Inheritance (stv 0.9 0.8) (Concept \"cat\") (Concept \"animal\"))\n(Concept \"dog\" (alist (cons (Predicate \"k\") (FloatValue 1 2))))\n",
    )
    .unwrap();
    let db = format!("lmdb://{}", dir.path().join("db").display());
    let out = atomweave(&["load", "-q", data.to_str().unwrap(), "--to", &db]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(String::from_utf8_lossy(&out.stdout).contains("stored       5 atoms"));
    let db2 = format!("lmdb://{}", dir.path().join("db2").display());
    let out = atomweave(&["copy", "-q", &db, &db2]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let out = atomweave(&["dump", "--from", &db2]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let text = String::from_utf8(out.stdout).unwrap();
    assert!(text.contains("(SimpleTruthValue 0.9 0.8)") && text.contains("(FloatValue 1 2)") && text.contains("\"dog\""), "{text}");
    let typo = dir.path().join("no-such-store");
    let out = atomweave(&["copy", "-q", &format!("lmdb://{}", typo.display()), &db2]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("no store there"));
    assert!(!typo.exists(), "a mistyped source must not become an empty store");
    let out = atomweave(&["dump", "--from", "postgres://atomweave@127.0.0.1:1/x"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("cannot be reached"), "{err}");
    assert_eq!(err.matches("127.0.0.1:1").count(), 1, "the URL once: {err}");
    for backend in ["lmdb", "postgres", "rocks", "redis", "redis-cluster"] {
        let out = atomweave(&["persist-bench", "-n", "2000", "--words", "100", "-q", "--backend", backend]);
        assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
        let report = String::from_utf8(out.stdout).unwrap();
        for phase in ["store", "load", "update", "incoming", "by-type", "bytes per atom"] {
            assert!(report.contains(phase), "{report}");
        }
        assert_eq!(report.lines().any(|l| l.trim_start().starts_with("copy")), backend == "rocks", "{report}");
        // The servers' CPU is measured where they run here (a number, not a dash).
        let server_cpu = report.lines().find(|l| l.trim_start().starts_with("store")).unwrap().split_whitespace().last().unwrap().to_string();
        assert_eq!(server_cpu.parse::<f64>().is_ok(), !matches!(backend, "lmdb" | "rocks"), "{report}");
    }
}

#[test]
fn a_copy_through_a_redis_cluster_holds_the_same_atoms() {
    let dir = tempdir();
    let gen = dir.path().join("gen.scm");
    assert!(atomweave(&["generate", "-n", "20000", "-R", "3", "-o", gen.to_str().unwrap()]).status.success());
    let a = format!("lmdb://{}", dir.path().join("a").display());
    assert!(atomweave(&["load", "-q", gen.to_str().unwrap(), "--to", &a]).status.success());
    let cluster = atomweave_store::redis::scratch::Scratch::cluster(3, 1).unwrap();
    let redis = cluster.url("");
    let b = dir.path().join("b.scm");
    for (from, to) in [(a.clone(), redis.clone()), (redis.clone(), format!("file://{}", b.display()))] {
        let out = atomweave(&["copy", "-q", &from, &to]);
        assert!(out.status.success(), "copy {from} {to}: {}", String::from_utf8_lossy(&out.stderr));
    }
    let out = atomweave(&["dump", "--from", &a]);
    assert!(out.status.success());
    let sorted = |text: &str| {
        let mut lines: Vec<String> = text.lines().filter(|l| !l.trim().is_empty()).map(str::to_string).collect();
        lines.sort();
        lines
    };
    let (want, got) = (sorted(&String::from_utf8(out.stdout).unwrap()), sorted(&std::fs::read_to_string(&b).unwrap()));
    assert!(want.len() > 1_000, "{} lines", want.len());
    assert!(want == got, "the dumps differ: {} lines against {}", want.len(), got.len());
}

#[test]
fn persist_bench_leaves_a_non_empty_dir_alone() {
    let tmp = tempdir();
    let dir = tmp.path().join("keep");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("precious.txt"), "keep me").unwrap();
    let out = atomweave(&["persist-bench", "-n", "100", "-q", "--dir", dir.to_str().unwrap()]);
    assert!(!out.status.success() && String::from_utf8_lossy(&out.stderr).contains("not empty"));
    assert_eq!(std::fs::read_to_string(dir.join("precious.txt")).unwrap(), "keep me");
}

/// A scratch directory, removed when the test ends, pass or fail.
fn tempdir() -> tempfile::TempDir {
    tempfile::Builder::new().prefix("atomweave-cli-").tempdir().unwrap()
}

/// A load that fails keeps nothing, and says so: with the error, what read
/// fine before it, in this file and in the files before it.
#[test]
fn a_failed_load_says_nothing_was_loaded() {
    let dir = tempfile::tempdir().unwrap();
    let good = dir.path().join("good.scm");
    let bad = dir.path().join("bad.scm");
    std::fs::write(&good, "(Concept \"a\")\n(Concept \"b\")\n").unwrap();
    std::fs::write(&bad, "(Concept \"c\")\n(define x 1)\n").unwrap();
    let store = format!("lmdb://{}", dir.path().join("kb").display());
    let out = atomweave(&["load", "--data-only", good.to_str().unwrap(), bad.to_str().unwrap(), "--to", &store]);
    assert!(!out.status.success());
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("bad.scm: line 2, column 1"), "{err}");
    assert!(err.contains("`define` is Scheme") && err.contains("leave out --data-only"), "{err}");
    assert!(err.contains("nothing was loaded: not the 1 expressions before it in this file, nor the 2 of the 1 file(s) before it ("), "{err}");
    assert!(err.contains("good.scm)"), "the files before it are named: {err}");
    assert!(!dir.path().join("kb").exists(), "no store was made");
    // Without --data-only, Guile evaluates the definition.
    let out = atomweave(&["load", good.to_str().unwrap(), bad.to_str().unwrap(), "--to", &store]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(atom_lines(&["dump", "--from", &store]), ["(ConceptNode \"a\")", "(ConceptNode \"b\")", "(ConceptNode \"c\")"]);
}

/// A store written in upstream's RocksDB layout (the store crate's
/// fixture writer) is dumped whole, and copied into LMDB the same.
#[test]
fn dump_and_copy_read_an_upstream_rocks_store() {
    let dir = tempfile::tempdir().unwrap();
    rocks_fixture::write_sample(&dir.path().join("rocks"));
    let rocks = format!("rocks://{}", dir.path().join("rocks").display());
    let lines = atom_lines(&["dump", "--from", &rocks]);
    let text = lines.join("\n");
    // Atoms no link holds, each with its members and values inline.
    for want in [
        "(InheritanceLink (alist (cons (PredicateNode \"*-TruthValueKey-*\")(SimpleTruthValue 0.9 0.8))",
        "(ConceptNode \"cat\" (alist (cons (PredicateNode \"*-TruthValueKey-*\")(CountTruthValue 1 0.5 42))(cons (PredicateNode \"key\")(FloatValue 1 2.5 -3 1e20))))",
        "(ConceptNode \"animal\" (alist (cons (PredicateNode \"key\")(StringValue \"a\" \"b\\\"c\"))))",
        "(LinkValue (ConceptNode \"x\")(FloatValue 0.5)(ListLink (ConceptNode \"y\")))",
        "(BoolValue #t #f #t)",
        "(ListLink (alist (cons (PredicateNode \"key\")(VoidValue))))",
        "(ConceptNode \"say \\\"hi\\\"\\\\\")",
        "(ConceptNode \"far\" (alist (cons (PredicateNode \"key\")(ConceptNode \"cat\"))))",
        "(LambdaLink (alist (cons (PredicateNode \"key\")(FloatValue 3))) (VariableNode \"$x\")",
    ] {
        assert!(text.contains(want), "{want} in:\n{text}");
    }
    let lmdb = format!("lmdb://{}", dir.path().join("lmdb").display());
    let out = atomweave(&["copy", "-q", &rocks, &lmdb]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert_eq!(atom_lines(&["dump", "--from", &lmdb]), lines);
}

#[path = "../../atomweave-store/tests/rocks_fixture/mod.rs"]
mod rocks_fixture;

fn corpus(name: &str) -> String {
    format!("{}/../../tests/corpus/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// What a successful command prints, line by line, sorted.
fn atom_lines(args: &[&str]) -> Vec<String> {
    let out = atomweave(args);
    assert!(out.status.success(), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
    let mut lines: Vec<String> = String::from_utf8(out.stdout).unwrap().lines().map(str::to_owned).collect();
    lines.sort();
    lines
}

#[test]
fn scheme_in_data_is_evaluated_and_families_are_asked_for() {
    let lines = atom_lines(&["dump", &corpus("definitions.scm")]);
    assert!(lines.contains(&"(SimilarityLink (ConceptNode \"cat\")(ConceptNode \"dog\"))".to_string()), "{lines:?}");
    assert_eq!(lines.len(), 10, "{lines:?}");

    let out = atomweave(&["load", &corpus("nlp-parse.scm")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("in the `nlp` type family") && err.contains("--types nlp"), "{err}");
    assert_eq!(atom_lines(&["dump", "--types", "nlp", &corpus("nlp-parse.scm")]).len(), 7);

    let out = atomweave(&["dump", "--data-only", &corpus("transcript.scm.txt")]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("REPL transcript"), "{err}");
    assert!(!err.contains('\u{1b}'), "the terminal's codes are not replayed: {err:?}");

    let dir = tempdir();
    let file = dir.path().join("unknown.scm");
    std::fs::write(&file, "(FooBarNode \"x\")\n(QuuxLink (FooBarNode \"x\"))\n(Thing \"y\")\n").unwrap();
    let out = atomweave(&["dump", "--declare-unknown", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && err.contains("unknown atom type `Thing`"), "a name that ends in neither Node nor Link: {err}");
    std::fs::write(&file, "(FooBarNode \"x\")\n(QuuxLink (FooBarNode \"x\"))\n").unwrap();
    let out = atomweave(&["dump", "--declare-unknown", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success() && err.contains("declared 2 unknown type(s): FooBarNode (Node), QuuxLink (Link)"), "{err}");
}

/// Invalid UTF-8 is read as U+FFFD with a warning that names the place
/// (a binary file's capped); `--strict` refuses the file instead.
#[test]
fn invalid_utf8_is_reported_or_with_strict_refused() {
    let dir = tempdir();
    let file = dir.path().join("bad.scm");
    let mut text = b"(Concept \"a\")\n(Concept \"\xC3\xA9\xFF\")\n".to_vec();
    for _ in 0..12 {
        text.extend_from_slice(b"; \xFE\n");
    }
    std::fs::write(&file, &text).unwrap();
    let f = file.to_str().unwrap();
    let out = atomweave(&["dump", f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("(ConceptNode \"\u{e9}\u{FFFD}\")"));
    let warnings: Vec<&str> = err.lines().collect();
    assert_eq!(warnings.len(), 11, "{err}");
    assert_eq!(warnings[0], format!("atomweave: {f}: line 2, column 12: invalid UTF-8: a bad or cut-short sequence starts with byte 0xFF, read as U+FFFD"));
    assert_eq!(warnings[1], format!("atomweave: {f}: line 3, column 3: invalid UTF-8: a bad or cut-short sequence starts with byte 0xFE, read as U+FFFD"));
    assert_eq!(warnings[10], format!("atomweave: {f}: 3 more places of invalid UTF-8, each read as U+FFFD (13 in all)"));

    let out = atomweave(&["load", "--strict", f]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "{err}");
    assert!(err.contains(&format!("{f}: line 2, column 12: invalid UTF-8: a bad or cut-short sequence starts with byte 0xFF")), "{err}");
    assert!(err.contains("nothing was loaded") && !err.contains("read as U+FFFD"), "{err}");
}

#[test]
fn dumps_of_the_same_atoms_match_after_a_store_round_trip() {
    let dir = tempdir();
    let file = dir.path().join("g.scm");
    let out = atomweave(&["generate", "-n", "30000", "-R", "3", "-o", file.to_str().unwrap()]);
    assert!(out.status.success());
    let store = format!("lmdb://{}", dir.path().join("kb").display());
    let file = file.to_str().unwrap();
    let out = atomweave(&["load", "-q", file, &corpus("setlocale-preamble.scm"), "--to", &store]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let direct = atom_lines(&["dump", file, &corpus("setlocale-preamble.scm")]);
    assert!(direct.iter().any(|l| l.starts_with("(SetLink")), "the file has unordered links");
    assert_eq!(atom_lines(&["dump", "--from", &store]), direct);
}

#[test]
fn scheme_in_data_means_what_guile_makes_of_it() {
    let dir = tempdir();
    let file = |name: &str, text: &str| {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        p.to_str().unwrap().to_owned()
    };
    // A constructor redefined by the file: what follows is a call of it.
    let shadow = file("shadow.scm", "(define (Word w) (WordNode (string-downcase w)))\n(Word \"Hello\")\n(Concept \"c\")\n");
    assert_eq!(atom_lines(&["dump", &shadow]), ["(ConceptNode \"c\")", "(WordNode \"hello\")"]);
    // A procedure named like a type is not declared as one.
    let person = file("person.scm", "(define (PersonNode n) (Concept n))\n(PersonNode \"bob\")\n");
    let out = atomweave(&["dump", "--declare-unknown", &person]);
    assert_eq!(String::from_utf8_lossy(&out.stdout), "(ConceptNode \"bob\")\n");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("declared"), "{}", String::from_utf8_lossy(&out.stderr));
    // A family's type is enabled, not declared as a plain link.
    let ext = file("ext.scm", "(ExtensionalSimilarityLink (Concept \"b\") (Concept \"a\"))\n(ExtensionalSimilarityLink (Concept \"a\") (Concept \"b\"))\n");
    let out = atomweave(&["dump", "--declare-unknown", &ext]);
    assert_eq!(String::from_utf8_lossy(&out.stdout).lines().count(), 1, "unordered, as pln has it");
    assert!(!String::from_utf8_lossy(&out.stderr).contains("declared"));
    // Scheme that makes a child space: the dump goes through the space.
    let child = file("child.scm", "(define c (cog-new-atomspace (cog-atomspace)))\n(Concept \"a\")\n");
    assert_eq!(atom_lines(&["dump", &child]), ["(ConceptNode \"a\")"]);
    // A Scheme error names its own form and counts the forms before it.
    let err = file("err.scm", "(define x 1)\n(define y (car '()))\n(Concept \"after\")\n");
    let out = atomweave(&["load", &err]);
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && msg.contains("err.scm: line 2, column 1: evaluating Scheme: In procedure car"), "{msg}");
    assert!(msg.contains("not the 1 expressions before it"), "{msg}");
    // Data that uses the file's variables, line after line (past the run
    // after which Guile reads the rest), then plain data again.
    let mut text = String::from("(define p (Predicate \"likes\"))\n");
    for i in 0..40 {
        text.push_str(&format!("(Evaluation p (List (Concept \"a{i}\")))\n"));
    }
    text.push_str("(Concept \"plain\")\n");
    let lines = atom_lines(&["dump", &file("vars.scm", &text)]);
    assert_eq!(lines.len(), 41, "{lines:?}");
    assert!(lines.contains(&"(EvaluationLink (PredicateNode \"likes\")(ListLink (ConceptNode \"a39\")))".to_string()), "{lines:?}");
    // Scheme from a pipe cannot be read again from where it starts: said so.
    let mut child = Command::new(env!("CARGO_BIN_EXE_atomweave"))
        .args(["load", "/dev/stdin"])
        .stdin(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    std::io::Write::write_all(&mut child.stdin.take().unwrap(), b"(define x 1)\n(Concept \"a\")\n").unwrap();
    let out = child.wait_with_output().unwrap();
    let msg = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success() && msg.contains("cannot be a pipe"), "{msg}");
}

#[test]
fn profile_query_runs_one_query_in_a_loop() {
    let out = atomweave(&["profile-query", "-n", "50", "-e", r#"(Get (Inheritance (Variable "$x") (Concept "mammal")))"#]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    assert!(text.contains(r#"(Set (Concept "cat") (Concept "dog") (Concept "whale"))"#), "{text}");
    assert!(text.contains("50 executions in"), "{text}");
    let two = atomweave(&["profile-query", "-n", "1", "-e", r#"(Concept "a") (Concept "b")"#]);
    assert!(!two.status.success());
    assert!(String::from_utf8_lossy(&two.stderr).contains("one expression is profiled, and this text holds 2"));
}

#[test]
fn query_bench_checks_its_graph_queries_against_direct_counts() {
    let out = atomweave(&["query-bench", "--only", "triangles", "--nodes", "300", "--edges", "3000", "-T", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    for case in ["triangles", "4-cliques", "3-hop paths from gene-0"] {
        assert_eq!(text.matches(&format!("{case}, as the direct count")).count(), 2, "{case}: {text}");
    }
    // This denser graph holds 4-cliques, so the check is not of nothing.
    assert!(!text.contains("4-cliques: direct count 0 "), "{text}");
    // Pinned where the process may run on two cores or more (the affinity
    // mask the bench reads); else left to the scheduler, as the header says.
    #[cfg(target_os = "linux")]
    {
        // SAFETY: a zeroed cpu_set_t is an empty set, filled by the call.
        let cores = unsafe {
            let mut set: libc::cpu_set_t = std::mem::zeroed();
            assert_eq!(libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set), 0);
            libc::CPU_COUNT(&set)
        };
        assert_eq!(text.contains("worker threads each kept on a core of its own"), cores >= 2, "{cores} cores: {text}");
    }
}

#[test]
fn query_bench_runs_morks_workloads_on_morks_data() {
    let out = atomweave(&["query-bench", "--suite", "mork", "--only", "cliques", "-T", "2"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    // The counts `mork bench clique` prints for its graph, which is this one.
    for (k, n) in [(3, 7824), (4, 2320), (5, 102), (6, 0)] {
        assert!(text.contains(&format!("{k}-cliques {n:>6}:")), "{k}-cliques: {text}");
    }
    // Smaller than MORK's, each checked against its direct computation.
    for part in ["transitive", "finite-domain"] {
        let out = atomweave(&["query-bench", "--suite", "mork", "--only", part, "--scale", "100", "-T", "2"]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{part}: {}{}", text, String::from_utf8_lossy(&out.stderr));
        assert!(text.contains("-T 2"), "{part}: {text}");
    }
    let wrong = atomweave(&["query-bench", "--suite", "mork", "--only", "triangles"]);
    assert!(!wrong.status.success());
    let said = String::from_utf8_lossy(&wrong.stderr);
    assert!(said.contains("--only triangles: not a part of this suite, whose parts are cliques, transitive, finite-domain"), "{said}");
}

#[test]
fn a_files_exit_ends_the_load_as_guile_l_does() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("exits.scm");
    for (exit, status) in [("(exit)", 0), ("(exit 3)", 3), ("(exit #f)", 1)] {
        std::fs::write(&file, format!("(Concept \"a\")\n(display \"before\")\n(newline)\n{exit}\n(display \"after\")\n(Concept \"b\")\n")).unwrap();
        let out = atomweave(&["load", "-q", file.to_str().unwrap()]);
        let text = String::from_utf8_lossy(&out.stdout);
        assert_eq!(out.status.code(), Some(status), "{exit}: {text}{}", String::from_utf8_lossy(&out.stderr));
        // Its output flushed, and nothing after the exit run.
        assert!(text.contains("before") && !text.contains("after"), "{exit}: {text}");
        assert!(out.stderr.is_empty(), "{exit}: {}", String::from_utf8_lossy(&out.stderr));
    }
    // Where work follows the file (a dump of it), the quit is an error of
    // the file, not a silent end.
    let out = atomweave(&["dump", file.to_str().unwrap()]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("quit"), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn query_bench_runs_the_genomics_loop_through_scheme_and_checks_its_counts() {
    let out = atomweave(&["query-bench", "--suite", "genomics", "--scale", "100"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}{}", text, String::from_utf8_lossy(&out.stderr));
    for part in ["triangles, 681 genes", "pentagons, the short run's 12 pathways", "pentagons, the listed genes'"] {
        let line = text.lines().find(|l| l.contains(part)).unwrap_or_else(|| panic!("{part}: {text}"));
        assert!(line.ends_with("as the direct count"), "{line}");
    }
    // Its files are the benchmark's, in a directory of their own.
    let dir = tempfile::tempdir().unwrap();
    let out = atomweave(&["generate", "--shape", "genomics", "-n", "20000", "-o", dir.path().to_str().unwrap()]);
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let interactions = std::fs::read_to_string(dir.path().join("biogrid-full.scm")).unwrap();
    assert!(interactions.starts_with("(e i (l (g \""), "{}", &interactions[..80]);
    assert!(std::fs::read_to_string(dir.path().join("gene-list.scm")).unwrap().contains("(define gene-list (list"));
    let out = atomweave(&["generate", "--shape", "genomics"]);
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("name their directory with -o DIR"));
}

#[test]
fn output_into_a_closed_pipe_ends_quietly() {
    use std::os::unix::process::ExitStatusExt;
    let mut child = Command::new(env!("CARGO_BIN_EXE_atomweave"))
        .args(["query-bench", "--only", "animals", "-n", "10"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader leaves before the first line
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.signal(), Some(libc::SIGPIPE), "{:?}", out.status);
    assert!(!String::from_utf8_lossy(&out.stderr).contains("panicked"));
}

#[test]
fn load_and_dump_report_bytes_per_second() {
    let dir = tempdir();
    let file = dir.path().join("a.scm");
    std::fs::write(&file, "(Inheritance (Concept \"cat\") (Concept \"animal\"))\n").unwrap();
    let file = file.to_str().unwrap();
    let load = atomweave(&["load", "-q", file]);
    assert!(String::from_utf8_lossy(&load.stdout).lines().any(|l| l.starts_with("rate") && l.ends_with(" MB/s")));
    let dump = atomweave(&["dump", "--stats", file]);
    assert!(dump.status.success());
    assert!(String::from_utf8_lossy(&dump.stdout).contains("(InheritanceLink"), "the dump itself stays on stdout");
    let stats = String::from_utf8_lossy(&dump.stderr);
    assert!(stats.starts_with("dump: 3 atoms, ") && stats.contains(" atoms/s, ") && stats.trim_end().ends_with(" MB/s"), "{stats}");
}

/// `--help` (and atomspace_bm's `-?`) lists the user's commands first and
/// the benchmarks under their own heading, each command once; every
/// listed command still parses.
#[test]
fn help_lists_the_users_commands_apart_from_the_benchmarks() {
    for flag in ["--help", "-?"] {
        let out = atomweave(&[flag]);
        assert!(out.status.success(), "{flag}");
        let text = String::from_utf8(out.stdout).unwrap();
        let (users, benches) = text.split_once("Benchmarks and profiling:").expect("a benchmarks heading");
        let (_, users) = users.split_once("Commands:").expect("a commands heading");
        let listed = |part: &str| -> Vec<String> {
            part.lines().filter_map(|l| l.strip_prefix("  ")).filter_map(|l| l.split_whitespace().next()).map(str::to_string).collect()
        };
        let (users, benches) = (listed(users), listed(benches.split("Options:").next().unwrap()));
        for c in ["load", "dump", "query", "copy", "serve"] {
            assert!(users.iter().any(|u| u == c) && !benches.iter().any(|b| b == c), "{c} among the user's commands: {text}");
        }
        for c in
            ["bench", "atom-bench", "query-bench", "persist-bench", "shell-bench", "profile-query", "read-through-bench", "generate", "bench-plot", "report"]
        {
            assert!(benches.iter().any(|b| b == c) && !users.iter().any(|u| u == c), "{c} among the benchmarks: {text}");
            assert!(atomweave(&[c, "--help"]).status.success(), "{c} --help");
        }
    }
}

#[test]
fn files_that_load_modules_by_old_names_run() {
    let dir = tempdir();
    let file = dir.path().join("old.scm");
    let text = "(use-modules (opencog) (opencog query))\n(Inheritance (Concept \"cat\") (Concept \"animal\"))\n\
                (cog-bind (Bind (Inheritance (Variable \"$x\") (Concept \"animal\")) (Evaluation (Predicate \"is\") (Variable \"$x\"))))\n";
    std::fs::write(&file, text).unwrap();
    let out = atomweave(&["dump", file.to_str().unwrap()]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{err}");
    assert_eq!(err.matches("(opencog query) is an old name").count(), 1, "{err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("(EvaluationLink (PredicateNode \"is\")(ConceptNode \"cat\"))"));
}
