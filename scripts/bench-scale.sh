#!/usr/bin/env bash
# The scale benchmark (`make bench-scale`; `make bench` runs its first
# size): word-pair data (`atomweave generate --shape pairs`) at each size
# given, generated, loaded, dumped, stored into LMDB and read back, with
# the rates, the resident bytes an atom and the disk bytes an atom; then
# the store queried without loading it (`atomweave read-through-bench`):
# 1,000 random incoming-set fetches and a two-clause join, cold and warm,
# the peak resident memory, and the join over the store loaded whole.
#
#   scripts/bench-scale.sh BIN OUTDIR SIZE...
#
# Each size takes about 60 bytes an atom of memory and 250 of disk (the
# text, the store and a sort's files), in OUTDIR/scale-SIZE, removed after.
set -euo pipefail
bin=$1 out=$2
shift 2
mkdir -p "$out"
summary=$out/scale.txt
printf '%-11s %9s %10s %9s %9s %9s %8s %8s %6s\n' atoms "gen M/s" "load M/s" "B/atom" "peak GB" "dump M/s" "store K/s" "disk B" same > "$summary"
through=$out/read-through.txt
printf '%-11s %10s %10s %9s %9s %9s %6s %9s %8s\n' atoms "fetch cold" "fetch warm" "join cold" "join warm" "loaded" "warm/l" groundings "peak MB" > "$through"

# Seconds since the epoch, to the millisecond.
now() { date +%s.%N; }
# $1 per ($3 - $2) seconds, divided by $4.
per_second() { awk -v n="$1" -v a="$2" -v b="$3" -v d="$4" 'BEGIN { printf "%.2f", n / (b - a) / d }'; }

for n in "$@"; do
    dir=$out/scale-$n
    rm -rf "$dir" && mkdir -p "$dir"
    echo "== $n atoms (in $dir)"

    t0=$(now)
    "$bin" generate --shape pairs -n "$n" -o "$dir/pairs.scm"
    t1=$(now)
    atoms=$(head -1 "$dir/pairs.scm" | sed -E 's/^;; Word pairs: ([0-9]+) atoms.*/\1/')
    gen=$(per_second "$atoms" "$t0" "$t1" 1e6)

    /usr/bin/time -f '%M' -o "$dir/load.rss" "$bin" load -q -T 2 "$dir/pairs.scm" | tee "$dir/load.txt"
    load=$(awk '/^rate/ { printf "%.2f", $2 / 1e6 }' "$dir/load.txt")
    per_atom=$(awk '/^per atom/ { print $3 }' "$dir/load.txt")
    peak=$(awk '{ printf "%.2f", $1 / 1048576 }' "$dir/load.rss")

    t0=$(now)
    "$bin" dump "$dir/pairs.scm" > /dev/null
    t1=$(now)
    dump=$(per_second "$atoms" "$t0" "$t1" 1e6)

    "$bin" load -q -T 2 "$dir/pairs.scm" --to "lmdb://$dir/lmdb" | tee "$dir/store.txt"
    store=$(awk '/^stored/ { gsub(/\(/, "", $(NF-1)); printf "%.0f", $(NF-1) / 1e3 }' "$dir/store.txt")
    disk=$(du -sb "$dir/lmdb" | awk -v n="$atoms" '{ printf "%.1f", $1 / n }')

    # The store reopened holds the same atoms as the text: the same lines
    # dumped, in whatever order.
    digest() { "$bin" dump "$@" | LC_ALL=C sort -S 1G -T "$dir" | md5sum; }
    if [ "$(digest "$dir/pairs.scm")" = "$(digest --from "lmdb://$dir/lmdb")" ]; then same=yes; else same=NO; fi

    printf '%-11s %9s %10s %9s %9s %9s %8s %8s %6s\n' "$atoms" "$gen" "$load" "$per_atom" "$peak" "$dump" "$store" "$disk" "$same" >> "$summary"

    # The store queried without loading it (times in ms).
    words=$(head -1 "$dir/pairs.scm" | sed -E 's/.* ([0-9]+) words,.*/\1/')
    "$bin" read-through-bench --from "lmdb://$dir/lmdb" --words "$words" --loaded | tee "$dir/through.txt"
    ms() { awk -v a="$1" -v b="$2" '$1 == a && $2 == b { for (i = 1; i < NF; i++) if ($(i + 1) == "ms" || $(i + 1) == "ms\n") { print $i; exit } }' "$dir/through.txt"; }
    grounds=$(awk '$1 == "join" && $2 == "warm" { print $3 }' "$dir/through.txt")
    peak_mb=$(awk '$1 == "peak" { print $2 }' "$dir/through.txt")
    ratio=$(awk -v w="$(ms join warm)" -v l="$(ms join loaded)" 'BEGIN { printf "%.2f", w / l }')
    printf '%-11s %10s %10s %9s %9s %9s %6s %9s %8s\n' "$atoms" "$(ms fetches cold)" "$(ms fetches warm)" "$(ms join cold)" "$(ms join warm)" "$(ms join loaded)" "$ratio" "$grounds" "$peak_mb" >> "$through"
    rm -rf "$dir"
    [ "$same" = yes ] || { echo "bench-scale: the store reopened does not hold the atoms of the text ($n)" >&2; exit 1; }
done
echo
echo "-- scale: word pairs (gen, load -T 2 and dump rates in M atoms/s; resident bytes an atom; peak resident; LMDB store rate; disk bytes an atom)"
cat "$summary"
echo
echo "-- read-through: the stored pairs queried without loading them (ms: 1,000 incoming-set fetches; the join through one word, cold, warm and over the store loaded; peak resident while reading through)"
cat "$through"
