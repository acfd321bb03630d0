//! The Python layer (`-c`): each method runs in `python -m
//! atomweave.atomspace_bm`, through the `atomweave` package, on the same
//! random space; its JSON comes back as a `Measured`.

use std::process::Command;

use super::{BenchArgs, Measured, Method};

/// The interpreter to run: `$ATOMWEAVE_PYTHON`, else `python3`.
fn interpreter() -> String {
    std::env::var("ATOMWEAVE_PYTHON").unwrap_or_else(|_| "python3".into())
}

pub(super) fn measure(args: &BenchArgs, method: Method) -> Result<Measured, String> {
    if args.threads > 1 {
        return Err("single-threaded layer".into());
    }
    if args.grow > 0 {
        return Err("not with -S".into());
    }
    let python = interpreter();
    let out = Command::new(&python)
        .args(["-m", "atomweave.atomspace_bm", "-m", method.name()])
        .args(["-s", &args.size.to_string(), "-R", &args.seed.to_string(), "-p", &args.link_fraction.to_string()])
        .args(["-n", &args.n.to_string(), "--batch", &args.batch.to_string()])
        .output()
        .map_err(|e| {
            eprintln!("atomweave bench -c: cannot run {python}: {e} (set ATOMWEAVE_PYTHON)");
            "not built".to_string()
        })?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    if !out.status.success() {
        if stderr.contains("No module named") {
            eprintln!("atomweave bench -c: {python} has no atomweave package: `make py-build` (then ATOMWEAVE_PYTHON=.venv/bin/python) or `pip install .`");
            return Err("not built".into());
        }
        eprintln!("atomweave bench -c ({}): {}", method.name(), stderr.trim());
        return Err("failed".into());
    }
    from_json(args, &out.stdout)
}

/// A worker's JSON (the Python and Scheme layers print the same fields).
pub(super) fn from_json(args: &BenchArgs, stdout: &[u8]) -> Result<Measured, String> {
    let v: serde_json::Value = serde_json::from_slice(stdout).map_err(|e| format!("bad JSON: {e}"))?;
    let num = |k: &str| v[k].as_f64().ok_or_else(|| format!("no {k} in the worker's JSON"));
    let atoms_after = num("atoms_after")? as usize;
    Ok(Measured {
        threads: 1,
        ops: num("ops")? as usize,
        wall: num("wall")?,
        batch_ns: v["batch_ns"].as_array().map(|a| a.iter().filter_map(serde_json::Value::as_f64).collect()).unwrap_or_default(),
        rows: Vec::new(),
        atoms_after,
        rss_growth: num("rss_growth")? as isize,
        rss_per_atom: num("rss_built")? / args.size as f64,
        counted_per_atom: num("heap_bytes")? / atoms_after.max(1) as f64,
    })
}
