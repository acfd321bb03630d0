//! The pattern-matcher corpus: every `tests/query-corpus/*.scm` case, run in
//! name order. Each case loads its data, loads and executes its query, and
//! checks the result against its expectation; all failures are collected and
//! reported together.
//!
//! Case format (sections start with a line that is exactly the marker; lines
//! before the first marker are free `;` comments):
//!
//! ```text
//! ;; data            Atomese loaded into the (base) space
//! ;; child-data      optional: atoms loaded into a child space of the data space;
//!                    the query is then loaded into and executed in the child
//! ;; child-extract   optional: atoms extracted (recursively) in the child space,
//!                    i.e. hidden from it; implies a child space
//! ;; query           exactly one query expression
//! ;; expect          exactly one atom: the result must be that very atom
//! ;; expect-atoms    zero or more atoms: the result is a QueueValue of exactly this
//!                    set (a tuple in it, a LinkValue of atoms, written as the
//!                    ListLink of them)
//! ;; expect-tv       (stv S C): the result is a truth value
//! ;; expect-value    one value as the writer prints it, e.g. `(FloatValue 1 2)`:
//!                    the result (an atom: its Atomese, one line) prints so
//! ;; expect-error    one line: a substring of the error message (case-insensitive);
//!                    the space's atom count must be unchanged by the failed execute
//! ```
//!
//! Expected atoms are loaded into the space the query ran in only after it
//! ran, so they are never among the atoms it searched.

use std::fs;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::Duration;

use atomweave::query::{execute, with_strategy, Executed, Strategy};
use atomweave::sexpr::{atom_to_string, load_str, write_value, Form};
use atomweave::{AtomSpace, Handle, TruthValue, Value};

const MIN_CASES: usize = 70;
/// A case that runs longer than this is reported as hanging (its thread is
/// left behind; the process ends with the test).
const CASE_TIMEOUT: Duration = Duration::from_secs(60);

#[derive(Debug, Clone)]
enum Expect {
    Atom(String),
    Atoms(String),
    Tv(f64, f64),
    Value(String),
    Error(String),
}

#[derive(Debug, Clone)]
struct Case {
    data: String,
    child_data: Option<String>,
    child_extract: Option<String>,
    query: String,
    expect: Expect,
}

fn corpus_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests").join("query-corpus")
}

fn parse_case(text: &str) -> Result<Case, String> {
    let mut sections: Vec<(String, String)> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let marker = line.trim_end();
        if matches!(
            marker,
            ";; data"
                | ";; child-data"
                | ";; child-extract"
                | ";; query"
                | ";; expect"
                | ";; expect-atoms"
                | ";; expect-tv"
                | ";; expect-value"
                | ";; expect-error"
        ) {
            let key = marker[3..].to_string();
            if sections.iter().any(|(k, _)| *k == key) {
                return Err(format!("line {}: section `{marker}` appears twice", i + 1));
            }
            sections.push((key, String::new()));
        } else if let Some((_, body)) = sections.last_mut() {
            body.push_str(line);
            body.push('\n');
        } else if !(line.trim().is_empty() || line.trim_start().starts_with(';')) {
            return Err(format!("line {}: text before the first section marker is not a comment", i + 1));
        }
    }
    let take = |key: &str| sections.iter().find(|(k, _)| k == key).map(|(_, b)| b.clone());
    let query = take("query").ok_or("no `;; query` section")?;
    let mut expects = Vec::new();
    if let Some(b) = take("expect") {
        expects.push(Expect::Atom(b));
    }
    if let Some(b) = take("expect-atoms") {
        expects.push(Expect::Atoms(b));
    }
    if let Some(b) = take("expect-tv") {
        expects.push(Expect::Tv(0.0, 0.0));
        let body: String = b.lines().filter(|l| !l.trim_start().starts_with(';')).collect::<Vec<_>>().join(" ");
        let inner = body.trim().strip_prefix('(').and_then(|s| s.strip_suffix(')')).ok_or("expect-tv: expected (stv S C)")?;
        let words: Vec<&str> = inner.split_whitespace().collect();
        match words.as_slice() {
            ["stv", s, c] => {
                let s: f64 = s.parse().map_err(|_| format!("expect-tv: bad strength {s:?}"))?;
                let c: f64 = c.parse().map_err(|_| format!("expect-tv: bad confidence {c:?}"))?;
                *expects.last_mut().unwrap() = Expect::Tv(s, c);
            }
            _ => return Err("expect-tv: expected (stv S C)".into()),
        }
    }
    if let Some(b) = take("expect-value") {
        let body: Vec<&str> = b.lines().map(str::trim).filter(|l| !l.is_empty() && !l.starts_with(';')).collect();
        expects.push(Expect::Value(body.join(" ")));
    }
    if let Some(b) = take("expect-error") {
        let lines: Vec<&str> = b.lines().map(str::trim).filter(|l| !l.is_empty()).collect();
        if lines.len() != 1 {
            return Err("expect-error: expected exactly one non-empty line".into());
        }
        expects.push(Expect::Error(lines[0].to_string()));
    }
    if expects.len() != 1 {
        return Err(format!("expected exactly one expect section, found {}", expects.len()));
    }
    Ok(Case {
        data: take("data").unwrap_or_default(),
        child_data: take("child-data"),
        child_extract: take("child-extract"),
        query,
        expect: expects.pop().unwrap(),
    })
}

/// One line of Atomese for an atom: the REPL form with its line breaks
/// folded, or, while the space has no whole-space read view (child spaces),
/// the same built from single-atom reads.
fn show_atom(space: &AtomSpace, h: Handle) -> String {
    match space.read() {
        Some(r) => fold(&atom_to_string(&r, h, Form::Repl).unwrap()),
        None => {
            let mut out = String::new();
            show_atom_slow(space, h, &mut out);
            out
        }
    }
}

fn fold(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut lines = s.lines();
    if let Some(first) = lines.next() {
        out.push_str(first);
    }
    for l in lines {
        out.push(' ');
        out.push_str(l.trim_start());
    }
    out
}

fn show_atom_slow(space: &AtomSpace, h: Handle, out: &mut String) {
    let Some(t) = space.get_type(h) else {
        out.push_str(&format!("#<invalid {h:?}>"));
        return;
    };
    out.push('(');
    out.push_str(t.short_name().unwrap_or(t.name()));
    if let Some(name) = space.name(h) {
        out.push_str(&format!(" {name:?}"));
    }
    for &c in space.outgoing(h).unwrap_or(&[]) {
        out.push(' ');
        show_atom_slow(space, c, out);
    }
    out.push(')');
}

fn show_value(space: &AtomSpace, v: &Value) -> String {
    if let Some(r) = space.read() {
        let mut out = String::new();
        write_value(&r, v, &mut out).unwrap();
        return out;
    }
    match v {
        Value::Atom(h) => show_atom(space, *h),
        Value::Link(items) => {
            let parts: Vec<String> = items.iter().map(|i| show_value(space, i)).collect();
            format!("(LinkValue {})", parts.join(" "))
        }
        Value::Truth(TruthValue::Simple { strength, confidence }) => format!("(stv {strength} {confidence})"),
        other => format!("{other:?}"),
    }
}

fn show_executed(space: &AtomSpace, e: &Executed) -> String {
    match e {
        Executed::Atom(h) => format!("atom {}", show_atom(space, *h)),
        Executed::Value(v) => format!("value {}", show_value(space, v)),
    }
}

fn load(space: &AtomSpace, text: &str, what: &str) -> Result<Vec<Handle>, String> {
    let mut s = space;
    load_str(&mut s, text).map_err(|e| format!("loading the {what}: {e}"))
}

fn sorted(mut v: Vec<Handle>) -> Vec<Handle> {
    v.sort();
    v
}

/// Runs one case; `Err` says what went wrong.
fn run_case(case: &Case) -> Result<(), String> {
    let base = AtomSpace::new();
    load(&base, &case.data, "data")?;
    let child = if case.child_data.is_some() || case.child_extract.is_some() {
        let child = AtomSpace::new_child(&[&base]).map_err(|e| format!("making the child space: {e}"))?;
        if let Some(text) = &case.child_data {
            load(&child, text, "child data")?;
        }
        if let Some(text) = &case.child_extract {
            for h in load(&child, text, "child-extract atoms")? {
                child.extract(h, true).map_err(|e| format!("extracting {} in the child: {e}", show_atom(&child, h)))?;
            }
        }
        Some(child)
    } else {
        None
    };
    let space = child.as_ref().unwrap_or(&base);

    let qs = load(space, &case.query, "query")?;
    if qs.len() != 1 {
        return Err(format!("the query section holds {} expressions, not one", qs.len()));
    }
    let q = qs[0];
    let size_before = space.size();
    let result = execute(space, q);

    match (&case.expect, result) {
        (Expect::Error(want), Err(e)) => {
            let msg = e.to_string();
            let mut problems = Vec::new();
            if !msg.to_lowercase().contains(&want.to_lowercase()) {
                problems.push(format!("error message {msg:?} does not contain {want:?}"));
            }
            let size_after = space.size();
            if size_after != size_before {
                problems.push(format!("the failed execute changed the atom count from {size_before} to {size_after}"));
            }
            if problems.is_empty() {
                Ok(())
            } else {
                Err(problems.join("; "))
            }
        }
        (Expect::Error(want), Ok(got)) => Err(format!("expected an error containing {want:?}, got {}", show_executed(space, &got))),
        (_, Err(e)) => Err(format!("execute failed: {e}")),
        (Expect::Atom(text), Ok(got)) => {
            let want = load(space, text, "expected atom")?;
            if want.len() != 1 {
                return Err(format!("the expect section holds {} atoms, not one", want.len()));
            }
            match got {
                Executed::Atom(h) if h == want[0] => Ok(()),
                other => Err(format!("expected atom {}\n      got {}", show_atom(space, want[0]), show_executed(space, &other))),
            }
        }
        (Expect::Atoms(text), Ok(got)) => {
            let mut want = sorted(load(space, text, "expected atoms")?);
            want.dedup();
            let items = match &got {
                Executed::Value(Value::Queue(q)) => q.snapshot(),
                other => {
                    return Err(format!("expected a QueueValue, got {}", show_executed(space, other)));
                }
            };
            let tuple = |vs: &[Value]| -> Option<Handle> {
                let members: Option<Vec<Handle>> = vs.iter().map(|v| if let Value::Atom(h) = v { Some(*h) } else { None }).collect();
                space.get_link(atomweave::types::LIST_LINK, &members?)
            };
            let mut atoms = Vec::with_capacity(items.len());
            for it in items.iter() {
                match it {
                    Value::Atom(h) => atoms.push(*h),
                    Value::Link(vs) if tuple(vs).is_some() => atoms.push(tuple(vs).unwrap()),
                    other => {
                        return Err(format!(
                            "the QueueValue holds {}, neither an atom nor an expected tuple: {}",
                            show_value(space, other),
                            show_executed(space, &got)
                        ))
                    }
                }
            }
            let atoms = sorted(atoms);
            let mut distinct = atoms.clone();
            distinct.dedup();
            let show_set = |hs: &[Handle]| hs.iter().map(|&h| show_atom(space, h)).collect::<Vec<_>>().join(" ");
            if distinct.len() != atoms.len() {
                return Err(format!("the QueueValue holds duplicates: {}", show_executed(space, &got)));
            }
            if atoms != want {
                let missing: Vec<Handle> = want.iter().copied().filter(|h| !atoms.contains(h)).collect();
                let extra: Vec<Handle> = atoms.iter().copied().filter(|h| !want.contains(h)).collect();
                return Err(format!(
                    "QueueValue differs\n      expected {{{}}}\n      got      {}\n      missing  {{{}}}\n      extra    {{{}}}",
                    show_set(&want),
                    show_executed(space, &got),
                    show_set(&missing),
                    show_set(&extra)
                ));
            }
            Ok(())
        }
        (Expect::Value(want), Ok(got)) => {
            let shown = match &got {
                Executed::Atom(h) => show_atom(space, *h),
                Executed::Value(v) => show_value(space, v),
            };
            if shown == *want {
                Ok(())
            } else {
                Err(format!("expected {want}\n      got      {shown}"))
            }
        }
        (Expect::Tv(s, c), Ok(got)) => match got {
            // A FormulaTruthValue given: its reading.
            Executed::Value(Value::Stream(st)) => match st.sample() {
                Ok(Value::Truth(tv)) if (tv.mean() - s).abs() < 1e-9 && (tv.confidence() - c).abs() < 1e-9 => Ok(()),
                other => Err(format!("expected a stream reading (stv {s} {c}), got {other:?}")),
            },
            Executed::Value(Value::Truth(tv)) if (tv.mean() - s).abs() < 1e-9 && (tv.confidence() - c).abs() < 1e-9 => Ok(()),
            other => Err(format!("expected (stv {s} {c}), got {}", show_executed(space, &other))),
        },
    }
}

/// Every case, each once as the matcher chooses its search and once with
/// the join forced wherever it applies: both must give the expected results.
#[test]
fn query_corpus() {
    let dir = corpus_dir();
    let mut files: Vec<PathBuf> = fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("reading {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "scm"))
        .collect();
    files.sort();

    let mut failures: Vec<String> = Vec::new();
    let mut passed = 0;
    for strategy in [Strategy::Auto, Strategy::Join] {
        for path in &files {
            let name = path.file_stem().unwrap().to_string_lossy().into_owned();
            let text = fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
            let case = match parse_case(&text) {
                Ok(c) => c,
                Err(e) => {
                    failures.push(format!("{name}: malformed case: {e}"));
                    continue;
                }
            };
            // Each case on its own thread: a panic or a hang fails that case only.
            let (tx, rx) = mpsc::channel();
            std::thread::Builder::new()
                .name(name.clone())
                .spawn(move || {
                    let r = catch_unwind(AssertUnwindSafe(|| with_strategy(strategy, || run_case(&case)))).unwrap_or_else(|p| {
                        let msg = p
                            .downcast_ref::<String>()
                            .cloned()
                            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
                            .unwrap_or_else(|| "(non-string panic)".into());
                        Err(format!("panicked: {msg}"))
                    });
                    let _ = tx.send(r);
                })
                .unwrap();
            match rx.recv_timeout(CASE_TIMEOUT) {
                Ok(Ok(())) => passed += 1,
                Ok(Err(e)) => failures.push(format!("{name} ({strategy:?}): {e}")),
                Err(_) => failures.push(format!("{name} ({strategy:?}): no result within {CASE_TIMEOUT:?} (hang?)")),
            }
        }
    }

    eprintln!("query corpus: {passed} of {} runs passed ({} cases, two strategies)", 2 * files.len(), files.len());
    assert!(files.len() >= MIN_CASES, "the corpus holds {} cases, fewer than {MIN_CASES}", files.len());
    if !failures.is_empty() {
        panic!("{} of {} query runs failed:\n\n{}\n", failures.len(), 2 * files.len(), failures.join("\n\n"));
    }
}

/// Every executable or evaluatable link type of the type table either has
/// a corpus case (its name opens an expression in one) or is listed under
/// "Not supported" in docs/EXECUTION.md.
#[test]
fn every_executable_type_is_run_or_listed() {
    let mut corpus = String::new();
    for entry in fs::read_dir(corpus_dir()).unwrap() {
        corpus.push_str(&fs::read_to_string(entry.unwrap().path()).unwrap());
        corpus.push('\n');
    }
    let doc_path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/EXECUTION.md");
    let doc = fs::read_to_string(&doc_path).unwrap_or_else(|e| panic!("reading {}: {e}", doc_path.display()));
    let listed = doc.split("## Not supported").nth(1).expect("docs/EXECUTION.md has a `## Not supported` section");
    let opens = |name: &str| corpus.match_indices(&format!("({name}")).any(|(i, m)| corpus[i + m.len()..].starts_with(|c: char| c.is_whitespace() || c == ')'));
    let mut missing = Vec::new();
    for t in atomweave::types::Type::all() {
        if !t.is_link() || !(t.is_a(atomweave::types::EXECUTABLE_LINK) || t.is_a(atomweave::types::EVALUATABLE_LINK)) {
            continue;
        }
        let in_corpus = opens(t.name()) || t.short_name().is_some_and(opens);
        let in_doc = listed.split(|c: char| !c.is_alphanumeric()).any(|w| w == t.name());
        if !in_corpus && !in_doc {
            missing.push(t.name());
        }
    }
    assert!(missing.is_empty(), "executable types with neither a corpus case nor a line in docs/EXECUTION.md: {missing:?}");
}
