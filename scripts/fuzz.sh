#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ (or those named) for SECONDS each,
# or until RUNS executions when RUNS is set, and prints one line per target:
# executions, seconds, executions per second, corpus size.
#
#   scripts/fuzz.sh SECONDS [TARGET...]
#
# Installs what it needs when missing (a nightly toolchain, cargo-fuzz).
# New inputs go to fuzz/corpus/TARGET (not committed; fuzz/seeds/TARGET, or
# fuzz/seeds/atomese for the reader and writer, is the committed seed corpus), a crashing input to fuzz/artifacts/TARGET/.
# Exits non-zero when a target crashed or failed an assertion.
set -euo pipefail

seconds=${1:?usage: scripts/fuzz.sh SECONDS [TARGET...]}
shift
cd "$(dirname "$0")/../fuzz"

if ! rustup run nightly rustc --version >/dev/null 2>&1; then
    echo "fuzz: installing the nightly toolchain (cargo-fuzz needs -Zsanitizer)"
    rustup toolchain install nightly --profile minimal
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
    echo "fuzz: installing cargo-fuzz"
    cargo install cargo-fuzz --locked
fi

targets=("$@")
[ ${#targets[@]} -gt 0 ] || mapfile -t targets < <(cargo +nightly fuzz list)
if ! out=$(cargo +nightly fuzz build 2>&1); then
    echo "$out" >&2
    exit 1
fi
bin=target/x86_64-unknown-linux-gnu/release

# The targets keep their spaces from run to run; LeakSanitizer cannot see
# a space's segments through its arenas (mmap'd) and would report them.
export ASAN_OPTIONS=detect_leaks=0
status=0
printf '%-12s %12s %8s %10s %8s\n' target executions seconds exec/s corpus
for t in "${targets[@]}"; do
    mkdir -p "corpus/$t" "artifacts/$t"
    flags=(-max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -artifact_prefix="artifacts/$t/" -print_final_stats=1)
    [ -n "${RUNS:-}" ] && flags+=(-runs="$RUNS")
    [ "$t" != value_codec ] && flags+=(-dict=atomese.dict)
    seeds=seeds/$t
    [ -d "$seeds" ] || seeds=seeds/atomese
    log=$(mktemp)
    if ! "$bin/$t" "${flags[@]}" "corpus/$t" "$seeds" >"$log" 2>&1; then
        status=1
        echo "fuzz: $t FAILED; the input is in fuzz/artifacts/$t/, the log follows" >&2
        grep -v '^#' "$log" | tail -40 >&2
    fi
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    printf '%-12s %12s %8s %10s %8s\n' "$t" "${runs:-?}" "${secs:-?}" "$(( ${runs:-0} / (${secs:-1} > 0 ? ${secs:-1} : 1) ))" "$(ls "corpus/$t" | wc -l)"
    rm -f "$log"
done
exit $status
