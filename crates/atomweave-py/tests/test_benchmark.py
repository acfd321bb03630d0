"""`python -m atomweave.benchmark`, run as a user runs it: in a subprocess of
this interpreter (the virtualenv's python), one iteration per test."""

import re
import subprocess
import sys

import pytest

# A column row: name, ops per iteration, ops/sec, us/op, best us/op.
ROW = re.compile(r"^(?P<name>\S.*?)\s+(?P<ops>\d+)\s+(?P<rate>\d+)\s+(?P<us>\d+\.\d+)\s+(?P<best>\d+\.\d+)$")

NODE_ROWS = [
    "noop (empty loop baseline)",
    "add_node (new ConceptNode)",
    "add_node (existing: a lookup)",
    "ConceptNode() (new)",
    "add_link (new InheritanceLink)",
    "InheritanceLink() (new)",
    "get_node (present)",
    "get_node (absent)",
    "atom.name",
    "atom.type",
    "atom.tv (get)",
    "atom.tv = TruthValue (set)",
    "atom.out (arity 2)",
    "atom.incoming (~8 links)",
    "get_atoms_by_type [1000 atoms]",
    "remove (node)",
    "remove (link)",
    "remove recursive (node + 2 links)",
]

BINDLINK_ROWS = [
    "BindLink (1 clause, 8 results)",
    "BindLink (2 clauses, 2 variables)",
    "GetLink (1 clause, 3 results)",
    "GetLink (2 clauses, typed variable)",
    "GetLink (2 clauses, 2 variables)",
    "MeetLink",
    "QueryLink",
    "SatisfactionLink (execute_atom)",
    "SatisfactionLink (evaluate_atom)",
    "DualLink",
    "BindLink (1000 results)",
]

TRAVERSE_ROWS = [
    "iterate AtomSpace (per atom)",
    "walk outgoing sets (per link)",
    "walk incoming sets (per node)",
    "incoming_by_type (per node)",
    "neighbours: incoming, then out",
    "atom in space",
    "get_atoms_by_type(ConceptNode)",
    "get_atoms_by_type(InheritanceLink)",
    "get_atoms_by_type(Node)",
    "get_atoms_by_type(Link)",
    "get_atoms_by_type(Atom)",
]


def bench(*args, timeout=300):
    return subprocess.run(
        [sys.executable, "-m", "atomweave.benchmark", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def rows(stdout):
    """{row name: (ops, ops/sec, us/op, best us/op)} of the column output."""
    out = {}
    for line in stdout.splitlines():
        m = ROW.match(line)
        if m:
            name = m["name"]
            assert name not in out, f"row {name!r} printed twice"
            out[name] = (int(m["ops"]), int(m["rate"]), float(m["us"]), float(m["best"]))
    return out


def row(found, name):
    """The row named `name` (or, for names with a count appended, starting so)."""
    hits = [v for k, v in found.items() if k == name or k.startswith(name + " ")]
    assert len(hits) == 1, f"row {name!r}: {len(hits)} matches in {sorted(found)}"
    return hits[0]


def assert_positive(found, names):
    for name in names:
        ops, rate, us, best = row(found, name)
        assert ops > 0 and rate > 0 and us > 0 and best > 0, (name, ops, rate, us, best)
        assert best <= us * 1.0001, (name, best, us)
        # ops/sec and us/op describe the same average (us/op has 3 decimals).
        assert abs(1e6 / rate - us) <= 0.0005 + 0.01 * us, (name, rate, us)


def test_node_rows():
    r = bench("-t", "node", "-i", "1")
    assert r.returncode == 0, r.stderr
    assert "node: atomspace node operations" in r.stdout
    assert re.search(r"^Test\s+Ops/iter\s+Ops/sec\s+us/op\s+best us/op$", r.stdout, re.M)
    found = rows(r.stdout)
    assert_positive(found, NODE_ROWS)
    assert len(found) == len(NODE_ROWS)
    assert "Traceback" not in r.stderr


@pytest.mark.scheme
def test_all_tests():
    r = bench("-a", "-i", "1")
    assert r.returncode == 0, r.stderr
    for title in ("node: atomspace node operations", "bindlink: all the bindlink forms",
                  "traversal of atomspace lists", "scheme: scheme evaluation functions"):
        assert title in r.stdout
    found = rows(r.stdout)
    assert_positive(found, NODE_ROWS + BINDLINK_ROWS + TRAVERSE_ROWS + SCHEME_ROWS)
    assert len(found) == len(NODE_ROWS + BINDLINK_ROWS + TRAVERSE_ROWS + SCHEME_ROWS)


SCHEME_ROWS = ["scheme_eval (trivial)", "scheme_eval_h (new ConceptNode)", "scheme_eval (cog-tv of a node)"]


@pytest.mark.scheme
def test_scheme_rows():
    r = bench("-t", "scheme", "-i", "1", timeout=120)
    assert r.returncode == 0, r.stderr
    found = rows(r.stdout)
    assert_positive(found, SCHEME_ROWS)
    assert "Traceback" not in r.stderr


def test_verbose_bindlink():
    r = bench("-v", "-t", "bindlink", "-i", "2")
    assert r.returncode == 0, r.stderr
    for name in BINDLINK_ROWS:
        assert f"\n{name}: " in r.stdout
    assert len(re.findall(r"^  iteration  [12]: \d+ ops in \d+\.\d+ ms", r.stdout, re.M)) == 2 * (len(BINDLINK_ROWS) + 1)
    averages = re.findall(r"^  average: (\d+) ops/sec, (\d+\.\d+) us/op; best: (\d+\.\d+) us/op$", r.stdout, re.M)
    assert len(averages) == len(BINDLINK_ROWS) + 1
    assert all(float(x) > 0 for a in averages for x in a)


@pytest.mark.parametrize("args", [["-v", "-c"], ["-a", "-t", "node"], ["-t", "nosuch"], ["-i", "0"]])
def test_bad_arguments(args):
    r = bench(*args, timeout=60)
    assert r.returncode == 2
    assert "usage:" in r.stderr
