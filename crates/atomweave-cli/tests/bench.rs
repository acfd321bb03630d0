//! `atomweave bench`, `atom-bench` and `bench-plot` end to end, on small spaces.

use std::process::Command;

fn atomweave(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_atomweave")).args(args).output().expect("run atomweave");
    (out.status.success(), String::from_utf8(out.stdout).unwrap(), String::from_utf8(out.stderr).unwrap())
}

const METHODS: [&str; 14] = [
    "noop",
    "addNode",
    "addLink",
    "getType",
    "getTV",
    "setTV",
    "getValue",
    "setValue",
    "getIncomingSet",
    "getIncomingSetSize",
    "getOutgoingSet",
    "getNodeHandles",
    "getHandlesByType",
    "removeAtom",
];

#[test]
fn all_methods_on_both_layers_print_the_diary_table() {
    let (ok, out, err) = atomweave(&["bench", "-X", "-A", "-b", "-n", "3000", "-s", "5000", "--repeat", "1", "-q", "-g"]);
    assert!(ok, "{err}");
    assert!(out.contains("AtomTable") && out.contains("AtomSpace") && out.contains("Scheme"), "{out}");
    for m in METHODS {
        let line = out.lines().find(|l| l.split_whitespace().next() == Some(m)).unwrap_or_else(|| panic!("no row for {m}:\n{out}"));
        let fields: Vec<&str> = line.split_whitespace().collect();
        let kops: f64 = fields[1].parse().unwrap_or_else(|_| panic!("{line}"));
        let ns: f64 = fields[2].parse().unwrap_or_else(|_| panic!("{line}"));
        assert!(kops > 0.0 && ns > 0.0, "{line}");
        let scheme_ns: f64 = fields[6].parse().unwrap_or_else(|_| panic!("the Scheme column is measured: {line}"));
        assert!(scheme_ns > 0.0, "{line}");
    }
    assert!(out.contains("B/atom") && out.contains("+RSS MiB"), "{out}");
}

#[test]
fn the_scheme_layer_does_the_work_in_each_mode() {
    for flags in [&["-r", "1"][..], &["-M", "-r", "10"], &["-C", "-r", "100"]] {
        let mut args = vec!["bench", "-g", "-m", "addNode", "-m", "addLink", "-m", "setTV", "-m", "removeAtom", "-m", "getNodeHandles"];
        args.extend_from_slice(flags);
        args.extend_from_slice(&["-n", "400", "-s", "3000", "--repeat", "1", "--json"]);
        let (ok, out, err) = atomweave(&args);
        assert!(ok, "{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        let results = doc["results"].as_array().unwrap();
        for m in ["addNode", "addLink", "setTV", "removeAtom", "getNodeHandles"] {
            let layer = |l: &str| results.iter().find(|r| r["method"] == m && r["layer"] == l).unwrap_or_else(|| panic!("{m} {l}: {out}"));
            let (space, scheme) = (layer("AtomSpace"), layer("Scheme"));
            assert!(scheme.get("error").is_none(), "{flags:?}: {scheme}");
            assert_eq!(scheme["ops"], 400, "{flags:?}: {scheme}");
            // Same seed, same operations: the same atoms added or removed.
            assert_eq!(scheme["atoms_after"], space["atoms_after"], "{flags:?} {m}");
        }
    }
    // Whole entries only: -n must allow one.
    let (ok, out, err) = atomweave(&["bench", "-g", "-C", "-r", "100", "-m", "getTV", "-n", "50", "-s", "1000", "--repeat", "1", "-q"]);
    assert!(ok && err.contains("smaller than -r"), "{out} {err}");
}

#[test]
fn the_diary_scaling_command_writes_csv_and_plots() {
    let tmp = tempfile::Builder::new().prefix("atomweave-bench-").tempdir().unwrap();
    let dir = tmp.path();
    let d = dir.to_str().unwrap();
    let (ok, out, err) = atomweave(&["bench", "-m", "addLink", "-k", "-S", "100", "-n", "10000", "-s", "5000", "-f", "--out", d, "-q"]);
    assert!(ok, "{err}");
    assert!(out.contains("p99") && out.contains("std"), "-k prints statistics: {out}");
    let stats_line = out.lines().find(|l| l.contains("p50")).unwrap();
    let p50: f64 = stats_line.split("p50").nth(1).unwrap().split_whitespace().next().unwrap().parse().unwrap();
    assert!(p50 > 0.0, "{stats_line}");
    let csv = std::fs::read_to_string(dir.join("addLink_benchmark.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(lines.next(), Some("layer,atoms,ns_per_op,rss_bytes"));
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 100, "one row per batch of 100");
    let first: usize = rows[0][1].parse().unwrap();
    let last: usize = rows[99][1].parse().unwrap();
    assert!(last >= first + 99 * 100, "-S 100 grows the space before every batch: {first} -> {last}");
    let (ok, out, err) = atomweave(&["bench-plot", d]);
    assert!(ok, "{err}");
    let png = std::fs::read(dir.join("addLink_benchmark.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert!(out.contains("addLink_benchmark.png"));
}

#[test]
fn threads_json_list_sizes_and_errors() {
    let (ok, out, err) = atomweave(&["bench", "-m", "getType", "-m", "addNode", "-T", "2", "-n", "2001", "-s", "3000", "--json", "--repeat", "1"]);
    assert!(ok, "{err}");
    let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
    let results = doc["results"].as_array().unwrap();
    // Each method on one thread, then on two, as the table's columns.
    assert_eq!(results.len(), 4);
    assert_eq!((results[0]["threads"].as_u64(), results[1]["threads"].as_u64()), (Some(1), Some(2)));
    assert_eq!((results[0]["layer"].as_str(), results[1]["layer"].as_str()), (Some("AtomSpace, 1 thread"), Some("AtomSpace")));
    let ratio = results[1]["kops_per_sec"].as_f64().unwrap() / results[0]["kops_per_sec"].as_f64().unwrap();
    assert!((results[1]["scaling"].as_f64().unwrap() - ratio).abs() < 1e-9 && results[0]["scaling"].is_null(), "{out}");
    assert!(results.iter().all(|r| r["ops"] == 2001), "every thread count shares -n operations: {out}");
    assert!(results[3]["kops_per_sec"].as_f64().unwrap() > 0.0);
    let (ok, out, err) = atomweave(&["bench", "-m", "getTV", "-T", "2", "-n", "20000", "-s", "3000", "--repeat", "1", "-q"]);
    assert!(ok, "{err}");
    assert!(out.contains("1 thread") && out.contains("2 threads") && out.contains("scaling"), "{out}");
    let row = out.lines().find(|l| l.trim_start().starts_with("getTV")).unwrap();
    let scaling: f64 = row.split_whitespace().last().unwrap().trim_end_matches('x').parse().unwrap();
    let kops: Vec<f64> = row.split_whitespace().skip(1).step_by(2).take(2).map(|k| k.parse().unwrap()).collect();
    // Printed to two decimals, from K-ops/s rounded to whole numbers.
    assert!((scaling - kops[1] / kops[0]).abs() < 0.01 * scaling + 0.006, "{row}");

    let (ok, out, _) = atomweave(&["bench", "-l"]);
    assert!(ok && METHODS.iter().all(|m| out.contains(m)), "{out}");
    let (ok, out, _) = atomweave(&["bench", "-t"]);
    assert!(ok && out.contains("handle") && out.contains("bytes"), "{out}");
    let (ok, out, _) = atomweave(&["bench", "-?"]);
    assert!(ok && out.contains("pointerCast"), "-? is help, and says why pointerCast is gone: {out}");
    let (ok, _, err) = atomweave(&["bench", "-m", "nosuch"]);
    assert!(!ok && err.contains("unknown method"), "{err}");
    let (ok, _, err) = atomweave(&["bench", "-A", "-S", "10", "-T", "2"]);
    assert!(!ok && err.contains("-S"), "{err}");
    let (ok, _, err) = atomweave(&["bench"]);
    assert!(!ok && err.contains("-A"), "{err}");
}

#[test]
fn atom_bench_inserts_and_finds() {
    let (ok, out, err) = atomweave(&["atom-bench", "-n", "20000", "--concepts", "1000", "--searches", "200", "-T", "2"]);
    assert!(ok, "{err}");
    for word in ["insert", "us per structure", "bytes per atom", "search present", "search absent", "full traversal"] {
        assert!(out.contains(word), "{word}: {out}");
    }
    let atoms_line = out.lines().find(|l| l.starts_with("atoms")).unwrap();
    let atoms: usize = atoms_line.split_whitespace().nth(1).unwrap().parse().unwrap();
    // 1000 concepts, the predicate, and at most two links per structure.
    assert!(atoms > 1001 + 20000 && atoms <= 1001 + 40000, "{atoms_line}");
    // Batched and one call per link, on one thread or two, the same pairs make the same atoms.
    for args in [["--batch", "1", "-T", "1"], ["--batch", "1", "-T", "2"], ["--batch", "300", "-T", "1"]] {
        let (ok, out, err) = atomweave(&[&["atom-bench", "-n", "20000", "--concepts", "1000", "--searches", "200", "--json"][..], &args].concat());
        assert!(ok, "{err}");
        let doc: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(doc["atoms"].as_u64(), Some(atoms as u64), "{args:?}: {out}");
    }
}
