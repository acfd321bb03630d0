#!/usr/bin/env python3
"""Checks that dependencies run one way: between the workspace's crates
(from their Cargo.toml files) and between the core's modules (from the
`crate::` paths their code names). Prints each edge that runs back up and
exits 1 if there is one. `make check` and `make test` run it.

The core's layers, lowest first; a module may name modules of its own
layer and the layers below, never above:

  foundation  handles, types, errors, batches, arenas, locks, pages, tables of slots
  atoms       values, the store, tables, spaces and their readers
  text        the Atomese reader and writer, foreign ASTs
  execution   the pattern matcher and the executor

Inside the atoms layer the store is lowest: it names only the foundation
and values (it keeps values; it knows nothing of tables, spaces, the
content order or the text forms).

A module's test code (`#[cfg(test)]` onwards, `tests.rs`) is not checked:
tests may use anything.
"""

import importlib.util
import pathlib
import re
import sys
import tomllib

ROOT = pathlib.Path(__file__).resolve().parents[1]
CORE = ROOT / "crates/atomweave/src"

LAYERS = [
    ("foundation", {"handle", "segvec", "lock", "watch", "arena", "dedupe", "pages", "types", "error", "batch", "prefetch"}),
    ("atoms", {"value", "store", "read", "order", "table", "sink", "space", "copies", "csv"}),
    ("text", {"sexpr", "foreign"}),
    ("execution", {"query"}),
]
# The store's own rule, tighter than its layer's.
STORE_MAY_NAME = LAYERS[0][1] | {"value"}

# Edges that run up, each with the reason it stays. Keep this short.
EXCEPTIONS = {
    ("error", "sexpr"): "Error wraps the reader's ParseError and the writer's TooLarge",
    ("space", "sexpr"): "a space's change feed records an extracted atom's text",
}

# Which workspace crates each crate may depend on (build dependencies).
CRATES = {
    "atomweave": set(),
    "atomweave-store": {"atomweave"},
    "atomweave-server": {"atomweave", "atomweave-store", "atomweave-guile"},
    "atomweave-py": {"atomweave", "atomweave-store", "atomweave-bench"},
    "atomweave-guile": {"atomweave", "atomweave-store", "atomweave-py"},
    "atomweave-bench": {"atomweave"},
    "atomweave-cli": {"atomweave", "atomweave-store", "atomweave-server", "atomweave-guile", "atomweave-bench", "atomweave-py"},
}


def rank_of(module):
    for rank, (_, mods) in enumerate(LAYERS):
        if module in mods:
            return rank
    return None


def load_strip_rust():
    """The lexer of scripts/size-report.py: comments and literals blanked."""
    spec = importlib.util.spec_from_file_location("size_report", ROOT / "scripts/size-report.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod.strip_rust


strip_rust = load_strip_rust()


def root_aliases():
    """Names lib.rs re-exports, to the module that defines them."""
    aliases = {}
    lib = (CORE / "lib.rs").read_text()
    for m in re.finditer(r"pub use (\w+)::(\{[^}]*\}|\w+);", lib):
        names = m.group(2).strip("{}").split(",")
        for n in names:
            n = n.strip()
            if n:
                aliases[n] = m.group(1)
    return aliases


def core_edges():
    aliases = root_aliases()
    edges = {}
    for path in sorted(CORE.rglob("*.rs")):
        rel = path.relative_to(CORE)
        top = rel.parts[0].removesuffix(".rs")
        if top == "lib" or path.name == "tests.rs":
            continue
        code = strip_rust(path.read_text()).split("#[cfg(test)]")[0]
        names = re.findall(r"\bcrate::([A-Za-z_]\w*)", code)
        for group in re.findall(r"\bcrate::\{([^}]*)\}", code):
            names += [part.strip().split("::")[0] for part in group.split(",") if part.strip()]
        for name in names:
            dep = aliases.get(name, name)
            if dep != top:
                edges.setdefault((top, dep), str(rel))
    return edges


def core_violations():
    bad = []
    for (src, dep), where in sorted(core_edges().items()):
        rs, rd = rank_of(src), rank_of(dep)
        if rs is None:
            bad.append(f"{where}: module `{src}` is in no layer (add it to LAYERS in scripts/layers.py)")
            continue
        if rd is None:
            if dep[0].islower():
                bad.append(f"{where}: names `crate::{dep}`, which is in no layer")
            continue
        if (src, dep) in EXCEPTIONS:
            continue
        if rd > rs:
            bad.append(f"{where}: `{src}` ({LAYERS[rs][0]}) names `{dep}` ({LAYERS[rd][0]}), a higher layer")
        elif src == "store" and dep not in STORE_MAY_NAME:
            bad.append(f"{where}: the store names `{dep}`; it may name only the foundation and values")
    return bad


def crate_violations():
    bad = []
    for toml in sorted((ROOT / "crates").glob("*/Cargo.toml")):
        meta = tomllib.loads(toml.read_text())
        name = meta["package"]["name"]
        deps = set(meta.get("dependencies", {})) | set(meta.get("build-dependencies", {}))
        allowed = CRATES.get(name)
        if allowed is None:
            bad.append(f"{toml.relative_to(ROOT)}: crate {name} is not in scripts/layers.py's CRATES")
            continue
        for dep in sorted(d for d in deps if d.startswith("atomweave") and d != name):
            if dep not in allowed:
                bad.append(f"{toml.relative_to(ROOT)}: {name} depends on {dep}, which it may not")
    return bad


def main():
    bad = crate_violations() + core_violations()
    for line in bad:
        print(line, file=sys.stderr)
    if bad:
        print(f"layers: {len(bad)} dependencies run the wrong way", file=sys.stderr)
        return 1
    print(f"layers: ok ({len(CRATES)} crates, {sum(len(m) for _, m in LAYERS)} core modules in {len(LAYERS)} layers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
