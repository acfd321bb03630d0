#!/usr/bin/env bash
# Runs upstream's genomics benchmark, its query-loop/bio-loop.scm, unchanged
# (with its load-data.scm), on the data files `atomweave generate --shape
# genomics` writes under the benchmark's own file names, and prints what it
# prints: its load times, then three triangle runs, three short pentagon
# runs and one long pentagon run, each with its time.
#
#   scripts/bio-loop.sh BENCHMARK_SOURCE_DIR [ATOMS]
#
# BENCHMARK_SOURCE_DIR: a checkout of github.com/opencog/benchmark (its
# large data files, absent from the public repository, are not needed).
# ATOMS: the graph's size (default the benchmark's full size, 2.5 M atoms).
# `query-bench --suite genomics` runs the same queries with each count
# checked against a direct count; this runs upstream's own program.
set -euo pipefail

src=${1:?usage: scripts/bio-loop.sh BENCHMARK_SOURCE_DIR [ATOMS]}
atoms=${2:-2500000}
bin=${ATOMWEAVE_BIN:-$(cd "$(dirname "$0")/.." && pwd)/target/release/atomweave}
for f in bio-loop.scm load-data.scm; do
    [ -f "$src/query-loop/$f" ] || { echo "bio-loop: no $src/query-loop/$f (a checkout of opencog/benchmark?)" >&2; exit 2; }
done
[ -x "$bin" ] || { echo "bio-loop: no $bin (make build-release, or set ATOMWEAVE_BIN)" >&2; exit 2; }

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
"$bin" generate --shape genomics -n "$atoms" -o "$work"
cp "$src/query-loop/bio-loop.scm" "$src/query-loop/load-data.scm" "$work/"
cd "$work"
"$bin" load -q bio-loop.scm
