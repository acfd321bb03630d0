//! `atomweave report DIR`: one self-contained HTML page of a `make bench`
//! results directory: atomspace_bm's table beside upstream's figures, every
//! table the run wrote, and a chart per method (the `bench-plot` PNGs,
//! drawn when missing, embedded in the page). No script, no network: the
//! file is the whole report.

use std::fmt::Write as _;
use std::fs;
use std::path::{Path, PathBuf};

use base64::Engine as _;

/// The text files of `make bench`, in the order shown, with their titles.
const TABLES: &[(&str, &str)] = &[
    ("bench.txt", "atomspace_bm, one thread (AtomTable and AtomSpace)"),
    ("bench-threads-2.txt", "atomspace_bm, AtomSpace on 1 and 2 threads"),
    ("atom-bench.txt", "atom-bench, batched (add_links)"),
    ("atom-bench-single.txt", "atom-bench, one add_link call per link"),
    ("query-bench.txt", "query-bench (the pattern matcher)"),
    ("bench-scheme.txt", "atomspace_bm through Scheme, compiled, 100 ops per entry"),
    ("bench-scheme-r1.txt", "atomspace_bm through Scheme, interpreted, one op per entry"),
    ("bench-python.txt", "atomspace_bm through Python"),
    ("python-benchmark.txt", "python -m atomweave.benchmark"),
    ("load-1m.txt", "Atomese load of a random 1M-atom file"),
    ("dump-1m.txt", "Atomese dump of the same atoms"),
    ("shell-bench.txt", "shell-bench (the CogServer protocol)"),
    ("persist-redis-cluster.txt", "persist-bench into a Redis Cluster (3 masters, 3 replicas, loopback)"),
    ("bench-scaling.txt", "atomspace_bm as the space grows (-S)"),
];

/// Upstream's single-thread atomspace_bm figures, K-ops/s, from the seeds'
/// diary (2025-01; Intel i5-13500 / AMD Threadripper 5975WX).
const UPSTREAM: &[(&str, &str)] = &[
    ("getType", "227 K / 262 K"),
    ("getTV", "24.9 K / 13.7 K"),
    ("setTV", "3105 / 2407"),
    ("getIncomingSet", "15.0 K / 7787"),
    ("getOutgoingSet", "115 K / 81.7 K"),
    ("addNode", "1868 / 1462"),
    ("addLink", "365-516 / 262-331"),
    ("removeAtom", "4949 / 2747"),
];

/// Other upstream figures the seeds give, beside which file of ours answers them.
const UPSTREAM_OTHER: &[(&str, &str, &str)] = &[
    ("Python add node (benchmark.py, 2016)", "5.8 us", "python-benchmark.txt"),
    ("Python bindlink (benchmark.py, 2016)", "40 us", "python-benchmark.txt"),
    ("Python scheme_eval_h (benchmark.py, 2016)", "75 us", "python-benchmark.txt"),
    ("Through Guile, compiled: addNode, addLink (2019)", "~368, ~203 K-ops/s", "bench-scheme.txt"),
    ("CogServer shell round trip, trivial command (2019)", "6.3 ms", "shell-bench.txt"),
    ("CogServer shell round trip, Scheme command (2019)", "31 ms", "shell-bench.txt"),
    ("Memory per atom", "0.5-2 KB (typically 1.3-1.5 KB)", "bench.txt"),
    ("PostgreSQL load (2014-2018)", "4-9 K atoms/s", "docs/BENCHMARKS.md (persist-bench)"),
];

/// Writes the report of `dir` to `out` (default `dir/report.html`); returns its path.
pub fn write(dir: &Path, out: Option<&Path>) -> Result<PathBuf, String> {
    if !dir.is_dir() {
        return Err(format!("{}: not a directory (make bench writes bench-results/)", dir.display()));
    }
    let csvs = csv_files(dir)?;
    let tables: Vec<_> = TABLES.iter().filter(|(f, _)| dir.join(f).is_file()).collect();
    if csvs.is_empty() && tables.is_empty() {
        return Err(format!("{}: no benchmark results here (make bench writes them)", dir.display()));
    }
    let mut page = String::new();
    head(&mut page, dir);
    if let Ok(text) = fs::read_to_string(dir.join("bench.txt")) {
        beside_upstream(&mut page, &text);
    }
    upstream_other(&mut page);
    for (file, title) in &tables {
        let text = fs::read_to_string(dir.join(file)).map_err(|e| format!("{}: {e}", dir.join(file).display()))?;
        let _ = writeln!(
            page,
            "<section><h2 id=\"{}\">{}</h2><p class=\"file\">{}</p><pre>{}</pre></section>",
            anchor(file),
            escape(title),
            escape(file),
            escape(text.trim_end())
        );
    }
    charts(&mut page, &csvs)?;
    page.push_str("</main></body></html>\n");
    let out = out.map_or_else(|| dir.join("report.html"), Path::to_path_buf);
    fs::write(&out, page).map_err(|e| format!("writing {}: {e}", out.display()))?;
    Ok(out)
}

fn csv_files(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut csvs = Vec::new();
    for entry in fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))? {
        let path = entry.map_err(|e| format!("{}: {e}", dir.display()))?.path();
        if path.file_name().and_then(|n| n.to_str()).is_some_and(|n| n.ends_with(super::plot::SUFFIX)) {
            csvs.push(path);
        }
    }
    csvs.sort();
    Ok(csvs)
}

fn head(page: &mut String, dir: &Path) {
    let cpu = fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| t.lines().find_map(|l| l.strip_prefix("model name").map(|m| m.trim_start_matches([' ', '\t', ':']).to_string())));
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let _ = writeln!(page, "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>atomweave benchmark report</title>\n<style>{STYLE}</style></head>\n<body><main>\n<h1>atomweave benchmark report</h1>\n<p>Results in <code>{}</code>; reported on {} ({cores} cores, atomweave {}). Each table is the file <code>make bench</code> wrote; the figures of upstream's are from the seeds' diary.</p>",
        escape(&dir.display().to_string()),
        escape(cpu.as_deref().unwrap_or("this machine")),
        env!("CARGO_PKG_VERSION"),
    );
}

/// atomspace_bm's first table as rows, beside upstream's K-ops/s.
fn beside_upstream(page: &mut String, bench: &str) {
    let Some((layers, rows)) = parse_table(bench) else { return };
    page.push_str("<section><h2 id=\"beside-upstream\">atomspace_bm beside upstream, one thread</h2>\n<table><thead><tr><th>method</th>");
    for l in &layers {
        let _ = write!(page, "<th>{} K-ops/s</th><th>{} ns/op</th>", escape(l), escape(l));
    }
    page.push_str("<th>upstream K-ops/s<br>(i5-13500 / TR 5975WX, 2025-01)</th></tr></thead><tbody>\n");
    for (method, values) in rows {
        let _ = write!(page, "<tr><td>{}</td>", escape(&method));
        for v in values {
            let _ = write!(page, "<td class=\"n\">{}</td>", escape(&v));
        }
        let upstream = UPSTREAM.iter().find(|(m, _)| *m == method).map_or("", |(_, f)| f);
        let _ = writeln!(page, "<td class=\"n\">{}</td></tr>", escape(upstream));
    }
    page.push_str("</tbody></table></section>\n");
}

/// A table's rows: the method, then its figures as printed.
type Rows = Vec<(String, Vec<String>)>;

/// The layers and rows of the first `test` table of atomspace_bm's output.
fn parse_table(text: &str) -> Option<(Vec<String>, Rows)> {
    let mut lines = text.lines().skip_while(|l| !l.trim_start().starts_with("test "));
    let layers: Vec<String> = lines.next()?.split_whitespace().skip(1).map(str::to_string).collect();
    let rows = lines
        .skip_while(|l| !l.trim_start().starts_with("----"))
        .skip(1)
        .take_while(|l| !l.trim().is_empty())
        .filter_map(|l| {
            let mut words = l.split_whitespace();
            let method = words.next()?.to_string();
            Some((method, words.map(str::to_string).collect()))
        })
        .collect::<Vec<_>>();
    (!layers.is_empty() && !rows.is_empty()).then_some((layers, rows))
}

fn upstream_other(page: &mut String) {
    page.push_str(
        "<section><h2 id=\"upstream\">Other upstream figures</h2>\n<table><thead><tr><th>what</th><th>upstream</th><th>ours: see</th></tr></thead><tbody>\n",
    );
    for (what, figure, ours) in UPSTREAM_OTHER {
        let _ = writeln!(page, "<tr><td>{}</td><td class=\"n\">{}</td><td>{}</td></tr>", escape(what), escape(figure), escape(ours));
    }
    page.push_str("</tbody></table></section>\n");
}

/// A chart per method: its PNG (drawn now when the run left none), inline.
fn charts(page: &mut String, csvs: &[PathBuf]) -> Result<(), String> {
    if csvs.is_empty() {
        return Ok(());
    }
    page.push_str("<section><h2 id=\"charts\">Time and memory against space size</h2>\n<div class=\"charts\">\n");
    for csv in csvs {
        let png = csv.with_extension("png");
        let stale = match (fs::metadata(&png).and_then(|m| m.modified()), fs::metadata(csv).and_then(|m| m.modified())) {
            (Ok(p), Ok(c)) => p < c,
            _ => true,
        };
        if stale {
            super::plot::plot_file(csv, &png)?;
        }
        let bytes = fs::read(&png).map_err(|e| format!("{}: {e}", png.display()))?;
        let method = csv.file_name().and_then(|n| n.to_str()).and_then(|n| n.strip_suffix(super::plot::SUFFIX)).unwrap_or_default();
        let _ = writeln!(page, "<figure><img alt=\"{m}: ns per operation and resident memory against atoms in the space\" src=\"data:image/png;base64,{}\"><figcaption>{m}</figcaption></figure>",
            base64::engine::general_purpose::STANDARD.encode(bytes),
            m = escape(method),
        );
    }
    page.push_str("</div></section>\n");
    Ok(())
}

fn anchor(file: &str) -> String {
    file.trim_end_matches(".txt").replace(|c: char| !c.is_ascii_alphanumeric(), "-")
}

/// Text as HTML text.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            c => out.push(c),
        }
    }
    out
}

const STYLE: &str = "body{font-family:sans-serif;margin:0;background:#fff;color:#222}main{max-width:1250px;margin:auto;padding:1em 2em}\
h1{font-size:1.6em}h2{font-size:1.25em;margin-top:1.6em;border-bottom:1px solid #ddd}\
table{border-collapse:collapse;font-size:.9em}th,td{border:1px solid #ccc;padding:.25em .6em;text-align:left}td.n{text-align:right;font-variant-numeric:tabular-nums}\
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:.85em}p.file{color:#666;font-size:.85em;margin:.2em 0}\
.charts{display:grid;grid-template-columns:repeat(auto-fill,minmax(560px,1fr));gap:1em}figure{margin:0}figure img{width:100%;height:auto;border:1px solid #eee}figcaption{text-align:center;color:#444}";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_table_parses_into_layers_and_rows() {
        let text = "atomweave bench: ...\n\n   test                             AtomTable             AtomSpace\n   name                      K-ops/s    ns/op      K-ops/s    ns/op\n   ----                      -------    -----      -------    -----\n  addNode                       6888    145.2         6350    157.5\n  getType                      51275     19.5        55130     18.1\n\n   memory ...\n";
        let (layers, rows) = parse_table(text).unwrap();
        assert_eq!(layers, ["AtomTable", "AtomSpace"]);
        assert_eq!(rows.len(), 2);
        assert_eq!(rows[0], ("addNode".to_string(), vec!["6888".into(), "145.2".into(), "6350".into(), "157.5".into()]));
        assert!(parse_table("no table here").is_none());
    }

    #[test]
    fn text_is_escaped() {
        assert_eq!(escape("<a href=\"x\">&</a>"), "&lt;a href=&quot;x&quot;&gt;&amp;&lt;/a&gt;");
    }
}
