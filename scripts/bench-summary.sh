#!/usr/bin/env bash
# Prints the summary at the end of `make bench`.
set -euo pipefail
dir=${1:-bench-results}
echo
echo "== summary ($(date -u +%Y-%m-%d), $(nproc) cores) =="
echo "-- atomspace_bm, 1 thread (K-ops/s and ns/op; AtomTable, then AtomSpace):"
sed -n '/^   test/,/^$/p' "$dir/bench.txt"
echo "-- atomspace_bm, AtomSpace on 1 and 2 threads (aggregate), and the scaling:"
sed -n '/^   test/,/^$/p' "$dir/bench-threads-2.txt"
echo "-- atom-bench, batched (add_links):"
grep -E '^(insert|memory|search)' "$dir/atom-bench.txt"
echo "-- atom-bench, one add_link call per link:"
grep -E '^insert' "$dir/atom-bench-single.txt"
echo "-- query-bench (pattern matcher):"
grep -E '^  ' "$dir/query-bench.txt"
echo "-- atomspace_bm through Scheme, compiled, 100 ops per entry (AtomSpace, then Scheme):"
sed -n '/^   test/,/^$/p' "$dir/bench-scheme.txt"
echo "-- atomspace_bm through Scheme, interpreted, entering Guile for every op:"
sed -n '/^   test/,/^$/p' "$dir/bench-scheme-r1.txt"
echo "-- atomspace_bm through Python (AtomSpace, then Python):"
sed -n '/^   test/,/^$/p' "$dir/bench-python.txt"
echo "-- python -m atomweave.benchmark (node operations):"
grep -E '^(add_node|ConceptNode|atom\.(tv|out|incoming)|BindLink|GetLink)' "$dir/python-benchmark.txt" || true
echo "-- Atomese load of a random 1M-atom file:"
grep -E '^(rate|per atom)' "$dir/load-1m.txt"
echo "-- Atomese dump of the same file (load excluded):"
cat "$dir/dump-1m.txt"
echo "-- word pairs, 1 M atoms (make bench-scale for 10 M and 100 M):"
cat "$dir/scale.txt"
echo "-- shell-bench (the CogServer protocol, in-process server on loopback):"
sed -n '/^  test/,/^  seed/p' "$dir/shell-bench.txt"
echo "-- files:"
ls "$dir"/*.png "$dir"/*.csv 2>/dev/null | wc -l | xargs echo "  CSV and PNG files in $dir/:"
