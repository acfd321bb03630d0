"""The Python benchmark: how fast the atomweave Python API is.

Run it as ``python -m atomweave.benchmark``; ``-h`` lists the options. It
re-creates the classic OpenCog ``benchmark.py`` (same options)::

    usage: benchmark.py [-h] [-v | -c]
                        [-a | -t {spread,node,bindlink,traverse,scheme}] [-i N]

Tests:
  spread    a spread of tests across the areas below (the default)
  node      atomspace node operations: adding atoms (space methods and type
            constructors), lookups, names, types, truth values, outgoing and
            incoming sets, atoms by type, removal
  bindlink  all the bindlink forms, run with ``execute_atom``: BindLink,
            GetLink, MeetLink, QueryLink, SatisfactionLink, DualLink
  traverse  traversal of atomspace lists: iterating a space, walking the
            incoming and outgoing sets of a few thousand atoms, atoms by type
  scheme    the Scheme evaluation functions (``scheme_eval``,
            ``scheme_eval_h``): a call from Python into Guile and back

How it measures. Each test times one loop of many operations with
``time.perf_counter`` (so the clock's own cost is spread over the loop), with
the garbage collector off during the loop as ``timeit`` does. The loop's
setup (a fresh space, the names to add, the atoms to walk) is made before the
clock starts and is not counted. Every operation does real work: adds use
names (or outgoing sets) the space does not hold yet, removes remove atoms
that are there, and re-adding an existing atom is reported as the lookup it
is. After the loop a check confirms the work happened (e.g. the space grew
by one atom per add). The loop runs ``-i N`` times (10 by default), each on a
fresh setup; the report gives the average over the iterations (total
operations / total time) and, beside it, the best iteration. The times
include Python's own loop overhead, shown on the ``noop`` row.
"""

from __future__ import annotations

import argparse
import gc
import platform
import random
import sys
import time
from dataclasses import dataclass, field
from typing import Any, Callable, List, Optional

from . import (
    AndLink,
    scheme_eval,
    scheme_eval_h,
    AtomSpace,
    BindLink,
    ConceptNode,
    DualLink,
    EvaluationLink,
    GetLink,
    InheritanceLink,
    ListLink,
    MeetLink,
    PredicateNode,
    QueryLink,
    SatisfactionLink,
    TruthValue,
    TypeNode,
    TypedVariableLink,
    VariableList,
    VariableNode,
    evaluate_atom,
    execute_atom,
    pop_default_atomspace,
    push_default_atomspace,
    set_default_atomspace,
    types,
)

GROUPS = ("spread", "node", "bindlink", "traverse", "scheme")

GROUP_TITLES = {
    "spread": "a spread of tests across areas",
    "node": "atomspace node operations",
    "bindlink": "all the bindlink forms",
    "traverse": "traversal of atomspace lists",
    "scheme": "scheme evaluation functions",
}


# Operations per timed loop, chosen so that a loop takes some 5-30 ms and
# `-a` with 10 iterations stays well under 30 s on a small VM.
N_ATOMS = 50_000  # adds, lookups, property reads, removes
N_QUERY = 5_000  # executions of a small query
N_BIG_QUERY = 40  # executions of a query with 1000 groundings
N_BY_TYPE = 200  # get_atoms_by_type calls on a 1000-atom space
PASSES = 5  # passes over the traversal space's atoms per timed loop

CONCEPT = types.ConceptNode
INHERITANCE = types.InheritanceLink


@dataclass
class Test:
    """One row: `setup()` makes the state of one iteration (not timed),
    `run(state)` does the operations (timed) and returns how many it did,
    `check(state)` raises if they did not do the work they claim. A
    read-only test (`reuse`) makes its state once for all its iterations."""

    name: str
    groups: tuple
    setup: Callable[[], Any]
    run: Callable[[Any], int]
    description: str
    check: Optional[Callable[[Any], None]] = None
    reuse: bool = False


@dataclass
class Result:
    test: Test
    ops: List[int] = field(default_factory=list)
    seconds: List[float] = field(default_factory=list)

    @property
    def total_ops(self) -> int:
        return sum(self.ops)

    @property
    def ops_per_iteration(self) -> int:
        return self.ops[0] if self.ops else 0

    @property
    def ops_per_sec(self) -> float:
        return self.total_ops / sum(self.seconds)

    @property
    def us_per_op(self) -> float:
        return sum(self.seconds) / self.total_ops * 1e6

    @property
    def best_us_per_op(self) -> float:
        return min(s / n for s, n in zip(self.seconds, self.ops)) * 1e6


class CheckFailed(AssertionError):
    pass


def expect(cond: bool, what: str) -> None:
    if not cond:
        raise CheckFailed(what)


# ---------------------------------------------------------------------------
# Fixtures (built outside the timed loops)


def fresh_space(default: bool = False) -> AtomSpace:
    space = AtomSpace()
    if default:
        set_default_atomspace(space)
    return space


def node_names(n: int, prefix: str = "node ") -> List[str]:
    return [f"{prefix}{i}" for i in range(n)]


def distinct_pairs(nodes: list, n: int) -> List[tuple]:
    """`n` distinct ordered pairs of different nodes (needs n < m*(m-1))."""
    m = len(nodes)
    assert n < m * (m - 1)
    return [(nodes[k % m], nodes[(k % m + k // m + 1) % m]) for k in range(n)]


def space_with_nodes(n: int, default: bool = False):
    space = fresh_space(default)
    names = node_names(n)
    nodes = [space.add_node(CONCEPT, name) for name in names]
    return space, names, nodes


def space_with_links(n_nodes: int, n_links: int, default: bool = False):
    space, _, nodes = space_with_nodes(n_nodes, default)
    links = [space.add_link(INHERITANCE, pair) for pair in distinct_pairs(nodes, n_links)]
    return space, nodes, links


_random_space = None


def random_space():
    """A read-only space for the traversal tests, built once: 2000
    ConceptNodes, 100 PredicateNodes, ~4000 links of a few types (mostly
    InheritanceLinks), their members drawn uniformly, seeded."""
    global _random_space
    if _random_space is None:
        rng = random.Random(20160101)
        space = AtomSpace()
        concepts = [space.add_node(CONCEPT, f"node {i}") for i in range(2000)]
        preds = [space.add_node(types.PredicateNode, f"pred {i}") for i in range(100)]
        links = []
        for _ in range(4000):
            r = rng.random()
            if r < 0.6:
                links.append(space.add_link(INHERITANCE, rng.sample(concepts, 2)))
            elif r < 0.8:
                links.append(space.add_link(types.ListLink, rng.sample(concepts, rng.randint(1, 4))))
            elif r < 0.9:
                links.append(space.add_link(types.SimilarityLink, rng.sample(concepts, 2)))
            else:
                arg = space.add_link(types.ListLink, rng.sample(concepts, 2))
                links.append(space.add_link(types.EvaluationLink, [rng.choice(preds), arg]))
        links = list(dict.fromkeys(links))  # duplicates were found, not added
        _random_space = (space, concepts, preds, links)
    return _random_space


# ---------------------------------------------------------------------------
# node: atomspace node operations


def setup_add_node():
    return fresh_space(), node_names(N_ATOMS)


def run_add_node(state):
    space, names = state
    add_node = space.add_node
    for name in names:
        add_node(CONCEPT, name)
    return len(names)


def check_grew_by_names(state):
    space, names = state[0], state[1]
    expect(len(space) == len(names), f"space has {len(space)} atoms, expected {len(names)}")


def setup_readd_node():
    space, names, _ = space_with_nodes(N_ATOMS)
    random.Random(1).shuffle(names)
    return space, names


def check_unchanged_size(state):
    space, names = state
    expect(len(space) == len(names), "re-adding existing nodes changed the space")


def setup_ctor_node():
    return fresh_space(default=True), node_names(N_ATOMS)


def run_ctor_node(state):
    _, names = state
    for name in names:
        ConceptNode(name)
    return len(names)


def setup_add_link():
    space, _, nodes = space_with_nodes(500)
    outs = [list(p) for p in distinct_pairs(nodes, N_ATOMS)]
    return space, outs, len(space)


def run_add_link(state):
    space, outs, _ = state
    add_link = space.add_link
    for out in outs:
        add_link(INHERITANCE, out)
    return len(outs)


def check_links_added(state):
    space, outs, before = state
    expect(len(space) == before + len(outs), f"space has {len(space)} atoms, expected {before + len(outs)}")


def setup_ctor_link():
    space, _, nodes = space_with_nodes(500, default=True)
    return space, distinct_pairs(nodes, N_ATOMS), len(space)


def run_ctor_link(state):
    _, pairs, _ = state
    for a, b in pairs:
        InheritanceLink(a, b)
    return len(pairs)


def run_get_node(state):
    space, names = state
    get_node = space.get_node
    for name in names:
        get_node(CONCEPT, name)
    return len(names)


def check_get_node(state):
    space, names = state
    expect(space.get_node(CONCEPT, names[-1]) is not None, "get_node missed an existing node")


def setup_get_absent():
    space, _, _ = space_with_nodes(N_ATOMS)
    return space, node_names(N_ATOMS, "absent ")


def check_get_absent(state):
    space, names = state
    expect(space.get_node(CONCEPT, names[-1]) is None, "get_node found an absent node")


def setup_nodes():
    space, _, nodes = space_with_nodes(N_ATOMS)
    return space, nodes


def run_name(state):
    for atom in state[1]:
        atom.name
    return len(state[1])


def run_type(state):
    for atom in state[1]:
        atom.type
    return len(state[1])


def run_tv_get(state):
    for atom in state[1]:
        atom.tv
    return len(state[1])


def setup_tv_set():
    space, nodes = setup_nodes()
    tvs = [TruthValue(i / N_ATOMS, 0.9) for i in range(N_ATOMS)]
    return space, nodes, tvs


def run_tv_set(state):
    _, nodes, tvs = state
    for atom, tv in zip(nodes, tvs):
        atom.tv = tv
    return len(nodes)


def check_tv_set(state):
    _, nodes, tvs = state
    expect(nodes[-1].tv == tvs[-1], "the truth value was not set")


def setup_links():
    space, nodes, links = space_with_links(N_ATOMS // 4, N_ATOMS)
    return space, nodes, links


def run_out(state):
    links = state[2]
    for link in links:
        link.out
    return len(links)


def run_incoming(state):
    nodes = state[1]
    for node in nodes:
        node.incoming
    return len(nodes)


def setup_by_type():
    space, _, _ = space_with_links(1000, 2000)
    return (space,)


def run_by_type(state):
    get_atoms_by_type = state[0].get_atoms_by_type
    for _ in range(N_BY_TYPE):
        get_atoms_by_type(CONCEPT)
    return N_BY_TYPE


def check_by_type(state):
    expect(len(state[0].get_atoms_by_type(CONCEPT)) == 1000, "get_atoms_by_type returned the wrong count")


def run_remove_nodes(state):
    space, nodes = state
    remove = space.remove
    for node in nodes:
        remove(node)
    return len(nodes)


def check_removed_all(state):
    expect(len(state[0]) == 0, f"{len(state[0])} atoms left after removing them all")


def setup_remove_links():
    space, nodes, links = space_with_links(500, N_ATOMS)
    return space, links, len(nodes)


def run_remove_links(state):
    space, links, _ = state
    remove = space.remove
    for link in links:
        remove(link)
    return len(links)


def check_removed_links(state):
    space, _, n_nodes = state
    expect(len(space) == n_nodes, f"{len(space) - n_nodes} links left after removing them all")


def setup_remove_recursive():
    # 25000 nodes, each held by two InheritanceLinks (to its neighbours).
    n = N_ATOMS // 2
    space, _, nodes = space_with_nodes(n)
    for i in range(n):
        space.add_link(INHERITANCE, [nodes[i], nodes[(i + 1) % n]])
    return space, nodes[::2]


def run_remove_recursive(state):
    space, nodes = state
    remove = space.remove
    for node in nodes:
        remove(node, True)
    return len(nodes)


def check_removed_recursive(state):
    space, nodes = state
    expect(len(space) == len(nodes), f"{len(space)} atoms left, expected {len(nodes)} (the odd nodes)")


# ---------------------------------------------------------------------------
# bindlink: all the bindlink forms

ANIMALS = {
    "cat": ("mammal", "animal", "pet"),
    "dog": ("mammal", "animal", "pet"),
    "whale": ("mammal", "animal"),
    "sparrow": ("bird", "animal"),
    "trout": ("fish", "animal"),
    "python": ("reptile", "animal", "pet"),
    "mammal": ("animal",),
    "bird": ("animal",),
}


def animals_space():
    """The small "animals" space: a handful of InheritanceLinks."""
    space = fresh_space(default=True)
    for child, parents in ANIMALS.items():
        for parent in parents:
            InheritanceLink(ConceptNode(child), ConceptNode(parent))
    InheritanceLink(ConceptNode("Ben"), ConceptNode("human"))
    InheritanceLink(ConceptNode("Linas"), ConceptNode("human"))
    return space


def var(name):
    return VariableNode(name)


def query_setup(make_query, expected, run_fn=execute_atom):
    """A setup for one query: the animals space, the query atom (made once,
    outside the loop) and what its result must look like."""

    def setup():
        space = animals_space()
        return space, make_query(), expected, run_fn

    return setup


def run_query(state):
    space, query, _, fn = state
    for _ in range(N_QUERY):
        fn(space, query)
    return N_QUERY


def result_size(result):
    if hasattr(result, "out"):
        return len(result.out)
    if hasattr(result, "to_list"):
        return len(result.to_list())
    return None


def check_query(state):
    space, query, expected, fn = state
    result = fn(space, query)
    if isinstance(expected, int):
        expect(result_size(result) == expected, f"query gave {result!r}, expected {expected} results")
    else:
        expect(expected(result), f"query gave {result!r}")


def q_get():
    # (Get (Inheritance $x (Concept "pet")))
    return GetLink(InheritanceLink(var("$x"), ConceptNode("pet")))


def q_get_typed_two_clauses():
    # the pets that are mammals: two clauses sharing $x, $x typed
    return GetLink(
        TypedVariableLink(var("$x"), TypeNode("ConceptNode")),
        AndLink(
            InheritanceLink(var("$x"), ConceptNode("pet")),
            InheritanceLink(var("$x"), ConceptNode("mammal")),
        ),
    )


def q_get_chain():
    # $x -> $y -> animal, two variables: ListLinks of pairs
    return GetLink(
        VariableList(var("$x"), var("$y")),
        AndLink(
            InheritanceLink(var("$x"), var("$y")),
            InheritanceLink(var("$y"), ConceptNode("animal")),
        ),
    )


def q_bind():
    # the animals, rewritten as (Evaluation (Predicate "is-animal") (List $x))
    return BindLink(
        InheritanceLink(var("$x"), ConceptNode("animal")),
        EvaluationLink(PredicateNode("is-animal"), ListLink(var("$x"))),
    )


def q_bind_two_clauses():
    return BindLink(
        VariableList(var("$x"), var("$y")),
        AndLink(
            InheritanceLink(var("$x"), var("$y")),
            InheritanceLink(var("$y"), ConceptNode("animal")),
        ),
        EvaluationLink(PredicateNode("kind-of"), ListLink(var("$x"), var("$y"))),
    )


def q_meet():
    return MeetLink(InheritanceLink(var("$x"), ConceptNode("mammal")))


def q_query():
    return QueryLink(
        InheritanceLink(var("$x"), ConceptNode("human")),
        EvaluationLink(PredicateNode("is-human"), ListLink(var("$x"))),
    )


def q_satisfaction():
    # is some mammal a pet?
    return SatisfactionLink(
        AndLink(
            InheritanceLink(var("$x"), ConceptNode("mammal")),
            InheritanceLink(var("$x"), ConceptNode("pet")),
        )
    )


def q_dual():
    # the patterns that match a ground term: the clauses of a few queries
    q_get(), q_get_typed_two_clauses(), q_meet(), q_bind()
    return DualLink(InheritanceLink(ConceptNode("cat"), ConceptNode("pet")))


def is_true(tv):
    return getattr(tv, "mean", 0) > 0.5


N_BIG = 1000


def setup_big_bind():
    space = fresh_space(default=True)
    animal = ConceptNode("animal")
    for i in range(N_BIG):
        InheritanceLink(ConceptNode(f"animal {i}"), animal)
    for i in range(N_BIG):
        InheritanceLink(ConceptNode(f"plant {i}"), ConceptNode("plant"))
    query = BindLink(
        InheritanceLink(var("$x"), animal),
        EvaluationLink(PredicateNode("is-animal"), ListLink(var("$x"))),
    )
    return space, query, N_BIG, execute_atom


def run_big_query(state):
    space, query, _, fn = state
    for _ in range(N_BIG_QUERY):
        fn(space, query)
    return N_BIG_QUERY


# ---------------------------------------------------------------------------
# traverse: traversal of atomspace lists


def setup_traverse():
    return random_space()


def run_iterate_space(state):
    space = state[0]
    n = 0
    for _ in range(PASSES):
        for atom in space:
            n += 1
    return n


def run_walk_outgoing(state):
    links = state[3]
    n = 0
    for _ in range(PASSES):
        for link in links:
            for member in link.out:
                n += 1
    expect(n >= PASSES * len(links), "outgoing sets too small")
    return PASSES * len(links)


def run_walk_incoming(state):
    concepts = state[1]
    n = 0
    for _ in range(PASSES):
        for node in concepts:
            for link in node.incoming:
                n += 1
    expect(n > PASSES * len(concepts), "incoming sets too small")
    return PASSES * len(concepts)


def run_incoming_by_type(state):
    concepts = state[1]
    for _ in range(PASSES):
        for node in concepts:
            node.incoming_by_type(INHERITANCE)
    return PASSES * len(concepts)


def run_neighbours(state):
    """Each node's neighbours: its incoming links' members."""
    concepts = state[1]
    n = 0
    for _ in range(PASSES):
        for node in concepts:
            for link in node.incoming:
                for member in link.out:
                    n += 1
    expect(n > 2 * PASSES * len(concepts), "too few neighbours")
    return PASSES * len(concepts)


def run_contains(state):
    space, concepts = state[0], state[1]
    for _ in range(PASSES):
        for node in concepts:
            node in space
    return PASSES * len(concepts)


def by_type_runner(t, calls):
    def run(state):
        get_atoms_by_type = state[0].get_atoms_by_type
        for _ in range(calls):
            get_atoms_by_type(t)
        return calls

    return run


def by_type_label(t, label):
    space = random_space()[0]
    return f"get_atoms_by_type({label}) [{len(space.get_atoms_by_type(t))}]"


# ---------------------------------------------------------------------------
# The table


def run_noop(state):
    for _ in state:
        pass
    return len(state)


def build_tests() -> List[Test]:
    S, N, B, T = "spread", "node", "bindlink", "traverse"
    tests = [
        Test("noop (empty loop baseline)", (S, N, B, T), lambda: list(range(N_ATOMS)), run_noop,
             "an empty Python for loop: the overhead inside every figure below", reuse=True),
        # node
        Test("add_node (new ConceptNode)", (S, N), setup_add_node, run_add_node,
             "AtomSpace.add_node(types.ConceptNode, name) with fresh names", check_grew_by_names),
        Test("add_node (existing: a lookup)", (N,), setup_readd_node, run_add_node,
             "AtomSpace.add_node of nodes already there: finds them, adds nothing", check_unchanged_size, reuse=True),
        Test("ConceptNode() (new)", (S, N), setup_ctor_node, run_ctor_node,
             "the type constructor ConceptNode(name) into the default space, fresh names", check_grew_by_names),
        Test("add_link (new InheritanceLink)", (S, N), setup_add_link, run_add_link,
             "AtomSpace.add_link(types.InheritanceLink, [a, b]) over distinct pairs of 500 nodes",
             check_links_added),
        Test("InheritanceLink() (new)", (N,), setup_ctor_link, run_ctor_link,
             "the type constructor InheritanceLink(a, b), distinct pairs", check_links_added),
        Test("get_node (present)", (S, N), setup_readd_node, run_get_node,
             "AtomSpace.get_node(types.ConceptNode, name) in a space of 50000 nodes, shuffled order",
             check_get_node, reuse=True),
        Test("get_node (absent)", (N,), setup_get_absent, run_get_node,
             "AtomSpace.get_node of names not in the space (returns None)", check_get_absent, reuse=True),
        Test("atom.name", (N,), setup_nodes, run_name, "the name of a node", reuse=True),
        Test("atom.type", (N,), setup_nodes, run_type, "the type number of a node", reuse=True),
        Test("atom.tv (get)", (S, N), setup_nodes, run_tv_get, "the truth value of a node", reuse=True),
        Test("atom.tv = TruthValue (set)", (S, N), setup_tv_set, run_tv_set,
             "setting a different truth value on each node", check_tv_set),
        Test("atom.out (arity 2)", (N,), setup_links, run_out, "the outgoing set of an InheritanceLink", reuse=True),
        Test("atom.incoming (~8 links)", (S, N), setup_links, run_incoming,
             "the incoming set of a node (12500 nodes, 50000 links of arity 2)", reuse=True),
        Test("get_atoms_by_type [1000 atoms]", (N,), setup_by_type, run_by_type,
             "AtomSpace.get_atoms_by_type(types.ConceptNode), 1000 of 3000 atoms: per call", check_by_type, reuse=True),
        Test("remove (node)", (S, N), setup_nodes, run_remove_nodes,
             "AtomSpace.remove of nodes no link holds", check_removed_all),
        Test("remove (link)", (N,), setup_remove_links, run_remove_links,
             "AtomSpace.remove of InheritanceLinks", check_removed_links),
        Test("remove recursive (node + 2 links)", (N,), setup_remove_recursive, run_remove_recursive,
             "AtomSpace.remove(node, recursive=True) of a node held by two links", check_removed_recursive),
        # bindlink
        Test("BindLink (1 clause, 8 results)", (S, B), query_setup(q_bind, 8), run_query,
             "execute_atom of a BindLink over the animals space", check_query),
        Test("BindLink (2 clauses, 2 variables)", (B,), query_setup(q_bind_two_clauses, 4), run_query,
             "execute_atom of a BindLink: $x -> $y -> animal", check_query),
        Test("GetLink (1 clause, 3 results)", (S, B), query_setup(q_get, 3), run_query,
             "execute_atom of (Get (Inheritance $x (Concept \"pet\")))", check_query),
        Test("GetLink (2 clauses, typed variable)", (B,), query_setup(q_get_typed_two_clauses, 2), run_query,
             "execute_atom of a GetLink: the pets that are mammals", check_query),
        Test("GetLink (2 clauses, 2 variables)", (B,), query_setup(q_get_chain, 4), run_query,
             "execute_atom of a GetLink: $x -> $y -> animal", check_query),
        Test("MeetLink", (B,), query_setup(q_meet, 3), run_query,
             "execute_atom of a MeetLink (results as a value)", check_query),
        Test("QueryLink", (S, B), query_setup(q_query, 2), run_query,
             "execute_atom of a QueryLink (results as a value)", check_query),
        Test("SatisfactionLink (execute_atom)", (S, B), query_setup(q_satisfaction, is_true), run_query,
             "execute_atom of a SatisfactionLink: is some mammal a pet?", check_query),
        Test("SatisfactionLink (evaluate_atom)", (B,),
             query_setup(q_satisfaction, is_true, evaluate_atom), run_query,
             "evaluate_atom of the same SatisfactionLink", check_query),
        Test("DualLink", (B,), query_setup(q_dual, lambda r: result_size(r) >= 1), run_query,
             "execute_atom of a DualLink: the patterns matching a ground term", check_query),
        Test("BindLink (1000 results)", (B,), setup_big_bind, run_big_query,
             "execute_atom of a BindLink with 1000 groundings among 2000 links", check_query),
        # traverse
        Test("iterate AtomSpace (per atom)", (S, T), setup_traverse, run_iterate_space,
             "for atom in space: ~6500 atoms, five passes"),
        Test("walk outgoing sets (per link)", (T,), setup_traverse, run_walk_outgoing,
             "link.out and each member, for every link (~4000)"),
        Test("walk incoming sets (per node)", (S, T), setup_traverse, run_walk_incoming,
             "node.incoming and each link, for 2000 ConceptNodes"),
        Test("incoming_by_type (per node)", (T,), setup_traverse, run_incoming_by_type,
             "node.incoming_by_type(types.InheritanceLink), for 2000 ConceptNodes"),
        Test("neighbours: incoming, then out", (T,), setup_traverse, run_neighbours,
             "each node's incoming links and their members, per node"),
        Test("atom in space", (T,), setup_traverse, run_contains,
             "membership test of a node"),
    ]
    for t, label, spread in (
        (CONCEPT, "ConceptNode", True),
        (INHERITANCE, "InheritanceLink", False),
        (types.Node, "Node", False),
        (types.Link, "Link", False),
        (types.Atom, "Atom", False),
    ):
        tests.append(Test(by_type_label(t, label), (S, T) if spread else (T,), setup_traverse,
                          by_type_runner(t, 20), "AtomSpace.get_atoms_by_type, subtypes included: per call"))
    tests += [
        Test("scheme_eval (trivial)", ("scheme",), setup_scheme, run_scheme_eval,
             "scheme_eval(space, \"(+ 2 2)\"): into Guile, evaluate, print the value, back", check_scheme_eval,
             reuse=True),
        Test("scheme_eval_h (new ConceptNode)", ("scheme",), setup_scheme_h, run_scheme_eval_h,
             "scheme_eval_h(space, '(ConceptNode \"n\")') with fresh names: the atom comes back to Python",
             check_scheme_h),
        Test("scheme_eval (cog-tv of a node)", ("scheme",), setup_scheme_tv, run_scheme_eval,
             "scheme_eval of (cog-tv (Concept \"n\")) over nodes that are there", check_scheme_eval, reuse=True),
    ]
    return tests


# ---------------------------------------------------------------------------
# scheme


N_SCHEME = 5000


def setup_scheme():
    return {"space": fresh_space(), "texts": ["(+ 2 2)"] * N_SCHEME, "expect": "4\n"}


def run_scheme_eval(state):
    space, out = state["space"], None
    for text in state["texts"]:
        out = scheme_eval(space, text)
    state["last"] = out
    return len(state["texts"])


def check_scheme_eval(state):
    expect(state["last"] == state["expect"], f"scheme_eval gave {state['last']!r}, not {state['expect']!r}")


def setup_scheme_h():
    names = node_names(N_SCHEME, "scheme node ")
    space = fresh_space()
    return {"space": space, "names": names, "size0": space.size(),
            "texts": [f'(ConceptNode "{n}")' for n in names]}


def run_scheme_eval_h(state):
    space, atoms = state["space"], []
    for text in state["texts"]:
        atoms.append(scheme_eval_h(space, text))
    state["atoms"] = atoms
    return len(state["texts"])


def check_scheme_h(state):
    space, atoms = state["space"], state["atoms"]
    expect(len(space) == len(state["names"]), f"space has {len(space)} atoms, expected {len(state['names'])}")
    expect([a.name for a in atoms] == state["names"], "scheme_eval_h did not return the new nodes")


def setup_scheme_tv():
    space, names, _ = space_with_nodes(N_SCHEME)
    return {"space": space, "texts": [f'(cog-tv (Concept "{n}"))' for n in names], "expect": "(stv 1 0)\n"}


# ---------------------------------------------------------------------------
# Measuring and reporting


def measure(test: Test, iterations: int, on_iteration=None) -> Result:
    result = Result(test)
    shared = test.setup() if test.reuse else None
    for i in range(iterations):
        state = shared if test.reuse else test.setup()
        gc.collect()
        was_enabled = gc.isenabled()
        gc.disable()
        try:
            start = time.perf_counter()
            ops = test.run(state)
            elapsed = time.perf_counter() - start
        finally:
            if was_enabled:
                gc.enable()
        if test.check is not None:
            test.check(state)
        expect(ops > 0 and elapsed > 0, f"{test.name}: no operations timed")
        result.ops.append(ops)
        result.seconds.append(elapsed)
        if on_iteration is not None:
            on_iteration(i, ops, elapsed)
        del state
    del shared
    return result


NAME_WIDTH = 40
HEADER = f"{'Test':<{NAME_WIDTH}} {'Ops/iter':>9} {'Ops/sec':>12} {'us/op':>10} {'best us/op':>11}"


def format_row(r: Result) -> str:
    return (
        f"{r.test.name:<{NAME_WIDTH}} {r.ops_per_iteration:>9d} {r.ops_per_sec:>12.0f}"
        f" {r.us_per_op:>10.3f} {r.best_us_per_op:>11.3f}"
    )


def parse_args(argv=None):
    parser = argparse.ArgumentParser(
        prog="python -m atomweave.benchmark",
        description="atomweave Python Benchmark (after the OpenCog Python Benchmark)",
        formatter_class=argparse.RawTextHelpFormatter,
    )
    out = parser.add_mutually_exclusive_group()
    out.add_argument("-v", "--verbose", action="store_true", help="verbose output")
    out.add_argument("-c", "--columns", action="store_true", help="columnar output (default)")
    which = parser.add_mutually_exclusive_group()
    which.add_argument("-a", "--all", action="store_true", help="run all tests")
    which.add_argument(
        "-t", "--test", choices=GROUPS, default="spread",
        help="Test to benchmark, where:\n"
        + "\n".join(f"  {g:<9} - {GROUP_TITLES[g]}" + (" (default)" if g == "spread" else "") for g in GROUPS),
    )
    parser.add_argument("-i", "--iterations", metavar="N", type=int, default=10,
                        help="iterations to average (default=10)")
    args = parser.parse_args(argv)
    if args.iterations < 1:
        parser.error("-i/--iterations must be at least 1")
    return args


def main(argv=None) -> int:
    args = parse_args(argv)
    # -a: every area once (spread is a subset of the others).
    groups = ["node", "bindlink", "traverse", "scheme"] if args.all else [args.test]

    # The constructor tests replace the default space: work on a default
    # of our own, and give the caller's back at the end.
    push_default_atomspace(AtomSpace())
    try:
        return run(args, groups)
    finally:
        pop_default_atomspace()


def run(args, groups) -> int:
    verbose = args.verbose
    tests = build_tests()
    print(
        f"atomweave Python benchmark: {', '.join(groups)}; {args.iterations} iteration(s) per test, "
        f"python {platform.python_version()}"
    )
    print("Figures: average over the iterations (total ops / total time) and the best iteration.")
    done = set()
    started = time.perf_counter()
    for group in groups:
        title = f"{group}: {GROUP_TITLES[group]}"
        print()
        if verbose:
            print(f"=== {title}")
        else:
            print(f"-- {title}")
            print(HEADER)
        for test in tests:
            if group not in test.groups or test.name in done:
                continue
            done.add(test.name)
            if verbose:
                print(f"\n{test.name}: {test.description}")

                def report(i, ops, secs):
                    print(f"  iteration {i + 1:>2}: {ops} ops in {secs * 1e3:.3f} ms, {secs / ops * 1e6:.3f} us/op")

                r = measure(test, args.iterations, report)
                print(
                    f"  average: {r.ops_per_sec:.0f} ops/sec, {r.us_per_op:.3f} us/op;"
                    f" best: {r.best_us_per_op:.3f} us/op"
                )
            else:
                r = measure(test, args.iterations)
                print(format_row(r), flush=True)
    print(f"\nTotal run time: {time.perf_counter() - started:.1f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # e.g. piped into `head`
        sys.stderr.close()
        sys.exit(1)
