#!/usr/bin/env bash
# `atomweave report` in a real browser (`make test-report`): a small results
# directory, its page rendered by headless Chromium (Debian's package,
# installed when missing), the screenshot checked: the page is not blank,
# every chart drew (both layers' line colours in each of the two charts,
# which stand side by side), and the browser logged no console error.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bin="$root/target/release/atomweave"
if ! command -v chromium >/dev/null; then
    echo "test-report: installing chromium"
    SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
    $SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
fi
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$bin" bench -X -A -q -n 20000 --repeat 1 > "$dir/bench.txt"
"$bin" bench -X -m addNode -m getIncomingSet -q -S 4 -n 20000 --repeat 1 -f --out "$dir" > "$dir/bench-scaling.txt"
page=$("$bin" report "$dir")
[ "$page" = "$dir/report.html" ] || { echo "test-report: report wrote $page" >&2; exit 1; }
# Tall enough for the whole page; no sandbox as root (a throwaway profile).
if ! chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir="$dir/profile" \
    --window-size=1300,7000 --screenshot="$dir/shot.png" --enable-logging=stderr --v=0 \
    "file://$page" > /dev/null 2> "$dir/chromium.log"; then
    cat "$dir/chromium.log" >&2; echo "test-report: chromium failed" >&2; exit 1
fi
if grep -E 'CONSOLE|Uncaught' "$dir/chromium.log"; then
    echo "test-report: the page logged the console messages above" >&2; exit 1
fi
python3 - "$dir/shot.png" <<'PY'
import struct, sys, zlib

def rows(path):
    """The screenshot's rows, one at a time, as bytes of RGB(A) (8-bit PNG)."""
    data = open(path, "rb").read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat = 8, b""
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and colour in (2, 6), (depth, colour)
    bpp = 3 if colour == 2 else 4
    raw, stride, prev = zlib.decompress(idat), w * bpp, bytearray(w * bpp)
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1: line[i] = (line[i] + a) & 255
            elif f == 2: line[i] = (line[i] + b) & 255
            elif f == 3: line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        yield w, bpp, line
        prev = line

# The two charts stand side by side: each half of the page must show both
# layers' colours (tab10 blue and orange), so each chart drew.
near = lambda px, q: all(abs(x - y) < 40 for x, y in zip(px, q))
colours = {"blue": (31, 119, 180), "orange": (255, 127, 14)}
found = {(half, c): 0 for half in (0, 1) for c in colours}
ink = total = 0
for w, bpp, line in rows(sys.argv[1]):
    for x in range(0, w):
        px = tuple(line[x * bpp:x * bpp + 3])
        total += 1
        if px != (255, 255, 255):
            ink += 1
            for name, c in colours.items():
                if near(px, c):
                    found[(2 * x // w, name)] += 1
print(f"test-report: {ink / total:.1%} of the screenshot inked; chart colours (left, right): {found}")
assert ink / total > 0.02, "the page is blank"
assert all(n > 200 for n in found.values()), "a chart did not draw"
PY
echo "test-report: the report renders in headless Chromium"
