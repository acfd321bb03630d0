//! Links libguile-3.0, found by pkg-config (Debian: guile-3.0-dev), and
//! compiles the Scheme modules a process loads at start to Guile bytecode
//! with the same Guile (`build/compile-modules.scm`), so that `boot` loads
//! them from memory in milliseconds instead of compiling them every time.
//! `$OUT_DIR/modules.rs` lists them for `lib.rs`.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The modules `boot` loads, in load order (each uses the ones before it),
/// as paths under `scheme/` without `.scm`.
const MODULES: &[&str] = &[
    "opencog",
    "opencog/exec",
    "opencog/persist",
    "opencog/persist-rocks",
    "opencog/persist-lmdb",
    "opencog/persist-file",
    "opencog/persist-sql",
    "opencog/persist-cog",
    "atomweave/shell",
];

fn main() {
    if let Err(e) = pkg_config::Config::new().atleast_version("3.0").probe("guile-3.0") {
        panic!("atomweave-guile needs Guile 3.0's development files (Debian: apt-get install guile-3.0-dev): {e}");
    }
    let guile = pkg_config::get_variable("guile-3.0", "guile").unwrap_or_else(|_| "guile".into());
    let crate_dir = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var_os("OUT_DIR").expect("cargo sets OUT_DIR"));
    let scheme = crate_dir.join("scheme");
    let script = crate_dir.join("build/compile-modules.scm");
    println!("cargo:rerun-if-changed={}", script.display());
    for m in MODULES {
        println!("cargo:rerun-if-changed={}", scheme.join(format!("{m}.scm")).display());
    }

    let status = Command::new(&guile)
        .arg("--no-auto-compile")
        .arg("-s")
        .arg(&script)
        .arg(&scheme)
        .arg(&out)
        .args(MODULES)
        // The build's Guile finds only its own modules, not a user's copies.
        .env_remove("GUILE_LOAD_PATH")
        .env_remove("GUILE_LOAD_COMPILED_PATH")
        .status()
        .unwrap_or_else(|e| panic!("atomweave-guile compiles its Scheme modules with `{guile}` (Debian: apt-get install guile-3.0): {e}"));
    assert!(status.success(), "compiling atomweave-guile's Scheme modules with `{guile}` failed ({status}); its output is above");

    std::fs::write(out.join("modules.rs"), modules_rs(&scheme, &out)).expect("write $OUT_DIR/modules.rs");
}

/// `MODULES` for `lib.rs`: each module's source and bytecode.
fn modules_rs(scheme: &Path, out: &Path) -> String {
    let mut rs = String::from("/// The modules [`boot`] loads, in load order (each uses the ones before it).\nconst MODULES: &[Module] = &[\n");
    for m in MODULES {
        let source = scheme.join(format!("{m}.scm"));
        let compiled = out.join(format!("{m}.go"));
        rs += &format!("    Module {{ source: include_str!({source:?}), compiled: include_bytes!({compiled:?}) }},\n");
    }
    rs + "];\n"
}
