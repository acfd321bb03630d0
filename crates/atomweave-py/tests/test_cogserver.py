"""CogStorageNode from Python against a real `atomweave serve` process."""

import os
import pathlib
import re
import subprocess

import pytest

import atomweave
from atomweave import (
    AtomSpace,
    ConceptNode,
    FloatValue,
    InheritanceLink,
    PredicateNode,
    TruthValue,
    barrier,
    cog_close,
    cog_open,
    fetch_atom,
    fetch_incoming_set,
    load_atomspace,
    store_atom,
    types,
    update_value,
)

ROOT = pathlib.Path(__file__).resolve().parents[3]


def server_binary():
    """The `atomweave` binary `make test` built (debug), or a release one."""
    for p in [os.environ.get("ATOMWEAVE_BIN"), ROOT / "target/debug/atomweave", ROOT / "target/release/atomweave"]:
        if p and pathlib.Path(p).is_file():
            return str(p)
    pytest.fail("no atomweave binary: run `cargo build` (make test builds it) or set ATOMWEAVE_BIN")


@pytest.fixture
def server():
    proc = subprocess.Popen([server_binary(), "serve", "--port", "0", "--no-http"], stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stderr.readline()
        port = int(re.search(r"listening on 127\.0\.0\.1:(\d+)", line).group(1))
        yield f"cog://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait(timeout=20)


def test_upstream_style_cog_storage_script(space, server):
    sn = atomweave.CogStorageNode(server)
    cog_open(sn)
    a = ConceptNode("Apple", TruthValue(1, 0.8))
    b = ConceptNode("Berry")
    ab = InheritanceLink(a, b, tv=TruthValue(0.5, 0.5))
    k = PredicateNode("count")
    store_atom(ab)
    store_atom(a)
    update_value(a, k, [2.0])
    barrier()
    cog_close(sn)

    other = AtomSpace()
    sn2 = atomweave.CogStorageNode(server, atomspace=other)
    cog_open(sn2)
    b2 = other.add_node(types.ConceptNode, "Berry")
    assert fetch_incoming_set(b2) == 1
    a2 = other.get_node(types.ConceptNode, "Apple")
    assert other.get_link(types.InheritanceLink, [a2, b2]).tv == TruthValue(0.5, 0.5)
    # The incoming set brought Apple's structure only; fetch_atom brings its values.
    assert a2.tv != TruthValue(1, 0.8)
    fetch_atom(a2)
    assert a2.tv == TruthValue(1, 0.8)
    third = AtomSpace()
    cog_close(sn2)
    sn3 = atomweave.CogStorageNode(server, atomspace=third)
    cog_open(sn3)
    assert load_atomspace(third) == 4
    cog_close(sn3)
    assert third.get_node(types.ConceptNode, "Apple").get_value(third.get_node(types.PredicateNode, "count")) == FloatValue([2])
