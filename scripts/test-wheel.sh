#!/usr/bin/env bash
# The portable wheel as a user gets it (`make test-wheel`): installed with
# plain `pip install` into a fresh virtualenv, on a PATH that holds nothing
# but that virtualenv (no cargo, no Guile, no compiler); its extension links
# neither libguile nor libpython; the classic example runs from it; then
# the pytest suite runs over it in its portable configuration.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
whl=$(ls -t "$root"/dist/atomweave-*-abi3-*.whl 2>/dev/null | head -1 || true)
[ -n "$whl" ] || { echo "test-wheel: no abi3 wheel in dist/ (make wheel)" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

python3 -m venv "$tmp/venv"
bare=(env -i HOME="$tmp" PATH="$tmp/venv/bin")
if "${bare[@]}" sh -c 'command -v cargo || command -v guile || command -v cc' >/dev/null 2>&1; then
    echo "test-wheel: the bare PATH still finds a build tool" >&2; exit 1
fi
"${bare[@]}" "$tmp/venv/bin/python" -m pip install -q --no-index "$whl"

so=$(ls "$tmp"/venv/lib/python3*/site-packages/atomweave/_atomweave*.so)
if ldd "$so" | grep -Ei 'guile|python'; then
    echo "test-wheel: the wheel's extension links the libraries above" >&2; exit 1
fi

(cd "$tmp" && "${bare[@]}" "$tmp/venv/bin/python" "$root/examples/python/classic.py" > classic.out)
grep -q '^The atomspace holds 12 atoms$' "$tmp/classic.out" || { cat "$tmp/classic.out"; echo "test-wheel: the classic example gave the above" >&2; exit 1; }
echo "test-wheel: $(basename "$whl") installs and runs the classic example; its extension links no libguile"

"$tmp/venv/bin/python" -m pip install -q "pytest>=7"
cd "$root" && ATOMWEAVE_PORTABLE=1 ATOMWEAVE_BIN="${ATOMWEAVE_BIN:-}" "$tmp/venv/bin/python" -m pytest -q -p no:cacheprovider crates/atomweave-py/tests
