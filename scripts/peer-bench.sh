#!/usr/bin/env bash
# MORK's kernel benchmarks (`mork bench`) beside atomweave's versions of
# them (`atomweave query-bench --suite mork`), on this machine, taking
# turns, and a table of both with the ratio.
#
#   scripts/peer-bench.sh MORK_SOURCE_DIR [ROUNDS]
#
# MORK_SOURCE_DIR is a clone of trueagi-io/MORK (a bare one will do); the
# pinned commit below is checked out into a work directory outside this
# tree and built there with MORK's own toolchain (a nightly Rust). Not part
# of `make bench`: this project's repositories do not hold MORK.
#
# Environment:
#   PEER_BENCH_DIR      the work directory (default ${TMPDIR:-/tmp}/atomweave-peer-bench)
#   PATHMAP_SOURCE_DIR  a clone of PathMap for MORK's `../PathMap` (default: the
#                       one beside MORK_SOURCE_DIR; without one, crates.io's pathmap)
#   MORK_GIT_DEPS_DIR   a directory of clones named as the git dependencies of
#                       MORK's workspace (gxhash, tracking-allocator,
#                       distr-combinators), fetched instead of GitHub's (for
#                       machines that cannot reach GitHub)
#   THREADS             atomweave's threads (default 2)
set -euo pipefail

MORK_COMMIT=45bdb9ad94e4a99876d64058d2922be1566bc372 # 14 July 2026
WORKLOADS=clique,transitive,finite_domain

[ $# -ge 1 ] || { echo "usage: $0 MORK_SOURCE_DIR [ROUNDS]" >&2; exit 2; }
src=$(cd "$1" && pwd)
rounds=${2:-3}
threads=${THREADS:-2}
here=$(cd "$(dirname "$0")/.." && pwd)
work=${PEER_BENCH_DIR:-${TMPDIR:-/tmp}/atomweave-peer-bench}
mkdir -p "$work"

# MORK at the pinned commit, in a copy of its own, without the large
# resource files other workloads read (a shallow mirror may lack them).
if [ ! -d "$work/MORK/.git" ]; then
    git clone --quiet --no-checkout "$src" "$work/MORK"
    git -C "$work/MORK" sparse-checkout set --no-cone '/*' '!/kernel/resources/big*'
fi
git -C "$work/MORK" checkout --quiet --force "$MORK_COMMIT"

# Its workspace names PathMap by path (a sibling checkout).
pathmap=${PATHMAP_SOURCE_DIR:-$src/../PathMap}
if [ -d "$pathmap" ]; then
    rm -rf "$work/PathMap"
    git clone --quiet "$pathmap" "$work/PathMap"
else
    echo "peer-bench: no PathMap beside MORK: crates.io's pathmap 0.3 instead" >&2
    sed -i 's|pathmap = { path = "../PathMap/", |pathmap = { |' "$work/MORK/Cargo.toml"
fi

# Its git dependencies from local clones, where GitHub is out of reach:
# cargo fetches with git, which reads each URL as the clone's path.
if [ -n "${MORK_GIT_DEPS_DIR:-}" ]; then
    export CARGO_NET_GIT_FETCH_WITH_CLI=true
    n=0
    while read -r name url; do
        [ -d "$MORK_GIT_DEPS_DIR/$name" ] || { echo "peer-bench: no $MORK_GIT_DEPS_DIR/$name for $url" >&2; exit 1; }
        export "GIT_CONFIG_KEY_$n=url.$MORK_GIT_DEPS_DIR/$name.insteadOf" "GIT_CONFIG_VALUE_$n=$url"
        n=$((n + 1))
    done < <(git -C "$work/MORK" grep -hoE '^[a-z_-]+ *= *\{[^}]*git *= *"[^"]+"' -- '*Cargo.toml' 2>/dev/null |
        sed -E 's/^([a-z_-]+) *=.*git *= *"([^"]+)".*/\1 \2/' | sort -u)
    export GIT_CONFIG_COUNT=$n
fi

echo "peer-bench: building MORK $MORK_COMMIT in $work/MORK (cargo +nightly)" >&2
(cd "$work/MORK/kernel" && cargo +nightly build --release --quiet)
mork="$work/MORK/target/release/mork"
echo "peer-bench: building atomweave" >&2
(cd "$here" && cargo build --release --quiet -p atomweave-cli)
aw="$here/target/release/atomweave"

# Taking turns, so neither gets the warmer machine.
out="$work/runs"
rm -rf "$out"
mkdir -p "$out"
for r in $(seq 1 "$rounds"); do
    echo "peer-bench: round $r of $rounds" >&2
    (cd "$work/MORK/kernel" && "$mork" bench "$WORKLOADS") >"$out/mork.$r" 2>&1
    "$aw" query-bench --suite mork -T "$threads" >"$out/atomweave.$r" 2>&1
done

# Microseconds of each workload in each run, then the medians.
python3 - "$out" "$rounds" "$threads" "$MORK_COMMIT" <<'EOF'
import re, statistics, sys
out, rounds, threads, commit = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]

def mork(text):
    got = {}
    for k, t in re.findall(r"found \d+ (\d)-cliques \(expected \d+\) in (\d+) µs", text):
        got[f"{k}-cliques"] = float(t)
    for name, key in (("trans elapsed", "2-hop step"), ("detect trans elapsed", "triangle closing")):
        m = re.search(rf"^{name} (\d+) µs", text, re.M)
        if m:
            got[key] = float(m.group(1))
    m = re.search(r"\(10000 inputs\) in (\d+) µs", text)
    if m:
        got["finite domain"] = float(m.group(1))
    return got

def atomweave(text):
    got = {}
    for k, ms in re.findall(rf"(\d)-cliques +\d+: -T 1 +[\d.]+ ms, -T {threads} +([\d.]+) ms", text):
        got[f"{k}-cliques"] = float(ms) * 1e3
    m = re.search(rf"-T {threads}:  trans \d+ in ([\d.]+) s;  dtrans \d+ in ([\d.]+) s;", text)
    if m:
        got["2-hop step"], got["triangle closing"] = float(m.group(1)) * 1e6, float(m.group(2)) * 1e6
    m = re.search(rf"mork finite domain: .* -T {threads} ([\d.]+) ms", text)
    if m:
        got["finite domain"] = float(m.group(1)) * 1e3
    return got

runs = {"mork": [], "atomweave": []}
for r in range(1, rounds + 1):
    runs["mork"].append(mork(open(f"{out}/mork.{r}").read()))
    runs["atomweave"].append(atomweave(open(f"{out}/atomweave.{r}").read()))
print(f"MORK {commit[:7]} `mork bench clique,transitive,finite_domain` beside `atomweave query-bench --suite mork -T {threads}`, medians of {rounds}")
print(f"{'workload':<18} {'MORK':>14} {'atomweave':>14} {'MORK / atomweave':>18}")
for w in ["3-cliques", "4-cliques", "5-cliques", "6-cliques", "2-hop step", "triangle closing", "finite domain"]:
    m = [x[w] for x in runs["mork"] if w in x]
    a = [x[w] for x in runs["atomweave"] if w in x]
    show = lambda v: f"{statistics.median(v) / 1e3:>11.3f} ms" if v else f"{'-':>14}"
    ratio = f"{statistics.median(m) / statistics.median(a):>17.3g}x" if m and a else f"{'-':>18}"
    print(f"{w:<18} {show(m)} {show(a)} {ratio}")
print(f"(runs in {out})")
EOF
