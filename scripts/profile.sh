#!/usr/bin/env bash
# `make profile`: where the time of one query, or of one benchmark method,
# goes. Records with perf where the kernel lets this user record, else (or
# with PROFILER=callgrind) with valgrind's callgrind, and prints the
# functions that took the most. See docs/PROFILING.md.
#
#   QUERY='(Get ...)' DATA=file.scm   the query profile-query runs
#                                     (default: its animals BindLink)
#   METHOD=getIncomingSet             an atomspace_bm method instead
#                                     (atomweave bench -m METHOD)
#   PROFILER=auto|perf|callgrind      (default auto)
#   PROFILE_OUT=profile-results       where the recording goes
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/target/release/atomweave"
out=${PROFILE_OUT:-$root/profile-results}
profiler=${PROFILER:-auto}
mkdir -p "$out"

if [ "$profiler" = auto ]; then
    if command -v perf >/dev/null && perf record -q -o /dev/null -- true >/dev/null 2>&1; then
        profiler=perf
    else
        profiler=callgrind
    fi
fi
if [ "$profiler" = callgrind ] && ! command -v valgrind >/dev/null; then
    echo "profile: installing valgrind"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq valgrind
fi

# Callgrind runs the program some 50 times slower: a fixed, smaller amount
# of work there, a duration under perf.
if [ -n "${METHOD:-}" ]; then
    n=$([ "$profiler" = callgrind ] && echo 20000 || echo 2000000)
    cmd=("$bin" bench -m "$METHOD" -n "$n" --repeat 1 -q)
else
    cmd=("$bin" profile-query -q)
    [ -n "${DATA:-}" ] && cmd+=($DATA)
    [ -n "${QUERY:-}" ] && cmd+=(-e "$QUERY")
    if [ "$profiler" = callgrind ]; then cmd+=(-n "${ITERATIONS:-20000}"); else cmd+=(-s "${SECONDS_TO_RUN:-10}"); fi
fi

echo "profile: ${cmd[*]} under $profiler"
case "$profiler" in
perf)
    perf record -q -g -o "$out/perf.data" -- "${cmd[@]}"
    echo "profile: the functions that took the most (self time); recording in $out/perf.data (perf report -i it)"
    perf report -i "$out/perf.data" --stdio --no-children -g none --sort symbol --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40 || true
    ;;
callgrind)
    valgrind --tool=callgrind --callgrind-out-file="$out/callgrind.out" -- "${cmd[@]}" 2> "$out/valgrind.log"
    echo "profile: the functions that took the most (instructions, self); recording in $out/callgrind.out (kcachegrind or callgrind_annotate it)"
    callgrind_annotate "$out/callgrind.out" 2>/dev/null | sed -n '/^Ir/,$p' | head -40 || true
    ;;
*)
    echo "profile: PROFILER is auto, perf or callgrind, not $profiler" >&2; exit 2
    ;;
esac
