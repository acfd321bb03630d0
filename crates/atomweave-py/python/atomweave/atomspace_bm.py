"""The Python layer of ``atomweave bench -c``: atomspace_bm's methods, each
operation made through the Python API.

``atomweave bench -c`` runs ``python -m atomweave.atomspace_bm`` once per
method and repeat, and prints its result as the table's Python column. The
space is the bench's random space of the same seed (built by the Rust
core); the inputs are drawn here, the same way, from Python's own random
generator. Each batch of ``--batch`` operations is timed with one clock
reading, as the other layers are. Output: one JSON object.
"""

import argparse
import json
import random
import sys
import time

from . import AtomSpace, FloatValue, TruthValue, types
try:
    from ._atomweave import _bench_space
except ImportError:
    raise ImportError(
        "atomweave.atomspace_bm needs the native module's benchmark pieces (atomweave-py's bench feature), "
        "which the portable wheel leaves out: build the development package (make py-build)"
    ) from None

# The loop body of each method: `x` is one input, `a` the space.
BODIES = {
    "noop": "x",
    "getType": "x.type",
    "getTV": "x.tv",
    "setTV": "x[0].tv = x[1]",
    "getValue": "x.get_value(key)",
    "setValue": "x.set_value(key, value)",
    "getIncomingSet": "x.incoming",
    "getIncomingSetSize": "len(x.incoming)",
    "getOutgoingSet": "x.out",
    "addNode": "a.add_node(concept, x)",
    "addLink": "a.add_link(inheritance, x)",
    "removeAtom": "a.remove(x, True)",
    "getHandlesByType": "len(a.get_atoms_by_type(x, False))",
    "getNodeHandles": "a.get_node(x[0], x[1])",
}


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * 4096


def _poisson(rng, mean):
    limit, k, p = pow(2.718281828459045, -mean), 0, rng.random()
    while p > limit:
        k += 1
        p *= rng.random()
    return k


def _inputs(method, ops, atoms, a, rng):
    pick = lambda: atoms[rng.randrange(len(atoms))]  # noqa: E731
    if method in ("noop", "getType", "getTV", "getValue", "setValue", "getIncomingSet", "getIncomingSetSize", "getOutgoingSet"):
        return [pick() for _ in range(ops)]
    if method == "setTV":
        return [(pick(), TruthValue(rng.random(), rng.random())) for _ in range(ops)]
    if method == "addNode":
        return [f"bench node py-{i}" for i in range(ops)]
    if method == "addLink":
        return [[pick() for _ in range(max(1, _poisson(rng, 2.0)))] for _ in range(ops)]
    if method == "removeAtom":
        chosen = atoms[:]
        rng.shuffle(chosen)
        return chosen[: min(ops, len(chosen))]
    if method == "getHandlesByType":
        return [pick().type for _ in range(ops)]
    if method == "getNodeHandles":
        nodes = [h for h in atoms if h.is_node()]
        return [(n.type, n.name) for n in (nodes[rng.randrange(len(nodes))] for _ in range(ops))]
    raise ValueError(f"unknown method {method!r}")


def run(method, size, seed, link_fraction, ops, batch):
    """Measures one method; returns the figures ``atomweave bench`` reads."""
    if method not in BODIES:
        raise ValueError(f"unknown method {method!r}")
    rss0 = _rss()
    a = AtomSpace()
    atoms = _bench_space(a, seed, size, link_fraction)
    rss_built = _rss() - rss0
    key = a.add_node(types.PredicateNode, "bench key")
    value = FloatValue([1.0, 2.0, 3.0])
    if method == "getValue":
        for h in atoms[::2]:
            h.set_value(key, FloatValue([1.0]))
    if method == "getHandlesByType":
        ops = max(1, ops // 100)
    rng = random.Random(seed ^ 0x5EED)
    inputs = _inputs(method, ops, atoms, a, rng)
    # One compiled loop per method, so the loop is as tight as Python allows.
    scope = {"a": a, "key": key, "value": value, "concept": types.ConceptNode, "inheritance": types.InheritanceLink}
    exec(f"def _batch(chunk):\n    for x in chunk:\n        {BODIES[method]}\n", scope)
    timed = scope["_batch"]
    rss_start = _rss()
    batch_ns, wall = [], 0.0
    for start in range(0, len(inputs), batch):
        chunk = inputs[start : start + batch]
        t0 = time.perf_counter()
        timed(chunk)
        secs = time.perf_counter() - t0
        wall += secs
        batch_ns.append(secs * 1e9 / len(chunk))
    return {
        "method": method,
        "ops": len(inputs),
        "wall": wall,
        "batch_ns": batch_ns,
        "atoms_after": len(a),
        "heap_bytes": a._heap_bytes(),
        "rss_growth": _rss() - rss_start,
        "rss_built": rss_built,
    }


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m atomweave.atomspace_bm", description=__doc__.split("\n\n")[0])
    p.add_argument("-m", "--method", required=True, help="an atomspace_bm method name (getType, addNode, ...)")
    p.add_argument("-s", "--size", type=int, default=1 << 18, help="atoms in the random space")
    p.add_argument("-R", "--seed", type=int, default=1, help="random seed")
    p.add_argument("-p", "--link-fraction", type=float, default=0.2, help="fraction of links in the space")
    p.add_argument("-n", "--ops", type=int, default=1_000_000, help="operations")
    p.add_argument("--batch", type=int, default=100, help="operations per clock reading")
    args = p.parse_args(argv)
    try:
        result = run(args.method, args.size, args.seed, args.link_fraction, args.ops, max(1, args.batch))
    except ValueError as e:
        print(f"atomspace_bm: {e}", file=sys.stderr)
        return 2
    json.dump(result, sys.stdout)
    print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
