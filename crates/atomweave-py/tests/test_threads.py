"""Several Python threads on one shared AtomSpace: the space stays
consistent (counts, incoming sets, no duplicates), and queries run from
threads see consistent data."""

import sys
import threading

import pytest

from atomweave import AtomSpace, FloatValue, TruthValue, execute_atom, types
from atomweave.type_constructors import ConceptNode, InheritanceLink

N_THREADS = 8


@pytest.fixture(autouse=True)
def fast_switching():
    """Switch threads often, so their calls interleave."""
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(old)


def run_threads(target, n=N_THREADS):
    """Runs target(i) on n threads started together; re-raises the first error."""
    errors = []
    barrier = threading.Barrier(n)

    def wrap(i):
        try:
            barrier.wait()
            target(i)
        except BaseException as e:  # noqa: BLE001
            errors.append(e)

    threads = [threading.Thread(target=wrap, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not any(t.is_alive() for t in threads), "a thread hung"
    if errors:
        raise errors[0]


def check_consistent(space):
    """Every atom once; every link's members there, and in their incoming sets."""
    atoms = list(space)
    assert len(atoms) == len(set(atoms)) == len(space)
    by_content = set()
    for a in atoms:
        key = (a.type, a.name) if a.is_node() else (a.type, tuple(x.handle for x in a.out))
        assert key not in by_content, f"duplicate atom {a!r}"
        by_content.add(key)
        for m in a.out:
            assert m in space, f"{a!r} holds a missing atom"
            assert a in m.incoming
        for l in a.incoming:
            assert l in space
            assert a in l.out


def test_concurrent_adds_of_the_same_atoms_make_each_once():
    s = AtomSpace()
    hub = s.add_node(types.ConceptNode, "hub")
    M = 500
    results = [None] * N_THREADS

    def work(i):
        mine = []
        for j in range(M):
            n = s.add_node(types.ConceptNode, f"n{j}")
            mine.append((n, s.add_link(types.InheritanceLink, [n, hub])))
        results[i] = mine

    run_threads(work)
    assert len(s) == 1 + 2 * M
    assert len(s.get_atoms_by_type(types.ConceptNode)) == M + 1
    assert len(hub.incoming) == M
    assert len(set(hub.incoming)) == M
    # Every thread got the very same atoms.
    for mine in results[1:]:
        assert mine == results[0]
    check_consistent(s)


def test_concurrent_adds_of_distinct_atoms():
    s = AtomSpace()
    hub = s.add_node(types.ConceptNode, "hub")
    M = 400

    def work(i):
        for j in range(M):
            n = s.add_node(types.ConceptNode, f"t{i}-{j}")
            s.add_link(types.ListLink, [n, hub])

    run_threads(work)
    assert len(s) == 1 + 2 * N_THREADS * M
    assert len(hub.incoming_by_type(types.ListLink)) == N_THREADS * M
    names = {a.name for a in s.get_atoms_by_type(types.ConceptNode)}
    assert names == {"hub"} | {f"t{i}-{j}" for i in range(N_THREADS) for j in range(M)}


def test_concurrent_add_remove_and_read():
    s = AtomSpace()
    hub = s.add_node(types.ConceptNode, "hub")
    M = 300
    stop = threading.Event()
    reader_errors = []

    def reader():
        try:
            while not stop.is_set():
                for a in s.get_atoms_by_type(types.ListLink):
                    try:
                        t = a.type
                    except RuntimeError:
                        continue  # removed by a writer since the listing: allowed
                    assert t == types.ListLink
                inc = hub.incoming
                assert len(inc) == len(set(inc))
                len(s)
        except BaseException as e:  # noqa: BLE001
            reader_errors.append(e)

    readers = [threading.Thread(target=reader) for _ in range(2)]
    for r in readers:
        r.start()

    def work(i):
        for j in range(M):
            n = s.add_node(types.ConceptNode, f"t{i}-{j}")
            s.add_link(types.ListLink, [n, hub])
            s.add_link(types.InheritanceLink, [n, hub])
            if j % 3 == 0:
                assert s.remove(n) is False  # held by links
                assert s.remove(n, recursive=True) is True

    try:
        run_threads(work)
    finally:
        stop.set()
        for r in readers:
            r.join(60)
    if reader_errors:
        raise reader_errors[0]

    kept = [(i, j) for i in range(N_THREADS) for j in range(M) if j % 3 != 0]
    assert len(s.get_atoms_by_type(types.ConceptNode)) == 1 + len(kept)
    assert len(hub.incoming) == 2 * len(kept)
    assert len(s) == 1 + 3 * len(kept)
    for i, j in kept[:50]:
        assert s.get_node(types.ConceptNode, f"t{i}-{j}") is not None
    assert s.get_node(types.ConceptNode, "t0-0") is None
    check_consistent(s)


def test_concurrent_removal_of_shared_atoms_succeeds_once():
    s = AtomSpace()
    nodes = [s.add_node(types.ConceptNode, str(i)) for i in range(300)]
    for n in nodes:
        s.add_link(types.ListLink, [n])
    wins = [0] * N_THREADS

    def work(i):
        for n in nodes:
            if s.remove(n, recursive=True):
                wins[i] += 1

    run_threads(work)
    assert sum(wins) == len(nodes)  # each atom removed by exactly one thread
    assert len(s) == 0


def test_constructors_from_threads_with_atomspace_keyword():
    s = AtomSpace()
    M = 200

    def work(i):
        for j in range(M):
            InheritanceLink(ConceptNode(f"c{j}", atomspace=s), ConceptNode("top", atomspace=s), atomspace=s)

    run_threads(work)
    top = s.get_node(types.ConceptNode, "top")
    assert len(top.incoming) == M
    assert len(s) == 1 + 2 * M


def test_concurrent_values_and_truth_values():
    s = AtomSpace()
    shared = s.add_node(types.ConceptNode, "shared")
    M = 200

    def work(i):
        key = s.add_node(types.PredicateNode, f"key{i}")
        for j in range(M):
            shared.set_value(key, FloatValue([i, j]))
            shared.tv = TruthValue(i / 10, j / 1000)
            got = shared.get_value(key)
            assert got == FloatValue([i, j])

    run_threads(work)
    keys = {k.name for k in shared.get_keys()}
    assert {f"key{i}" for i in range(N_THREADS)} <= keys
    for i in range(N_THREADS):
        assert shared.get_value(s.get_node(types.PredicateNode, f"key{i}")) == FloatValue([i, M - 1])
    tv = shared.tv
    assert tv.confidence == (M - 1) / 1000
    assert tv.mean in {i / 10 for i in range(N_THREADS)}


def test_execute_atom_from_threads():
    s = AtomSpace()
    human = s.add_node(types.ConceptNode, "human")
    base = {f"h{k}" for k in range(50)}
    for n in base:
        s.add_link(types.InheritanceLink, [s.add_node(types.ConceptNode, n), human])
    v = s.add_node(types.VariableNode, "$H")
    query = s.add_link(types.GetLink, [s.add_link(types.InheritanceLink, [v, human])])

    def work(i):
        for j in range(30):
            # Writers and queries at once: each result holds at least the base set,
            # and only atoms that are humans.
            s.add_link(types.InheritanceLink, [s.add_node(types.ConceptNode, f"x{i}-{j}"), human])
            r = execute_atom(s, query)
            got = {a.name for a in r.out}
            assert base <= got
            assert all(n in base or n.startswith("x") for n in got)
            assert f"x{i}-{j}" in got  # this thread's own addition is seen

    run_threads(work)
    final = execute_atom(s, query)
    assert {a.name for a in final.out} == base | {f"x{i}-{j}" for i in range(N_THREADS) for j in range(30)}
    assert len(final.out) == len(set(final.out))


def test_queries_in_parallel_give_the_same_answer():
    s = AtomSpace()
    for i in range(100):
        s.add_link(types.InheritanceLink, [s.add_node(types.ConceptNode, f"a{i}"), s.add_node(types.ConceptNode, f"b{i % 7}")])
    x, y = s.add_node(types.VariableNode, "$x"), s.add_node(types.VariableNode, "$y")
    q = s.add_link(types.GetLink, [s.add_link(types.VariableList, [x, y]), s.add_link(types.InheritanceLink, [x, y])])
    expected = execute_atom(s, q)
    results = [None] * N_THREADS

    def work(i):
        for _ in range(10):
            results[i] = execute_atom(s, q)
            assert results[i] == expected

    run_threads(work)
    assert all(r == expected for r in results)
    assert expected.arity == 100


def test_child_spaces_per_thread():
    base = AtomSpace()
    shared = base.add_node(types.ConceptNode, "shared")
    children = [base.new_child() for _ in range(N_THREADS)]

    def work(i):
        c = children[i]
        for j in range(200):
            c.add_link(types.ListLink, [shared, c.add_node(types.ConceptNode, f"t{i}-{j}")])

    run_threads(work)
    assert len(base) == 1
    for i, c in enumerate(children):
        assert len(c) == 1 + 400
        assert {a.name for a in c.get_atoms_by_type(types.ConceptNode)} == {"shared"} | {f"t{i}-{j}" for j in range(200)}


def test_clear_while_adding_leaves_a_consistent_space():
    s = AtomSpace()

    def work(i):
        for j in range(200):
            a = s.add_node(types.ConceptNode, f"t{i}-{j}")
            try:
                s.add_link(types.ListLink, [a])
            except RuntimeError:
                pass  # a was cleared away by another thread meanwhile
            if i == 0 and j % 50 == 0:
                s.clear()

    run_threads(work)
    check_consistent(s)
