"""RedisStorageNode from Python and from Scheme, against a real
redis-server that this module starts for itself (Debian's redis-server
package, a temporary directory, a free port) and stops by its pid. Without
the binary the tests fail, saying what to install; they never skip."""

import shutil
import socket
import subprocess
import tempfile
import time

import pytest

import atomweave
from atomweave import (
    AtomSpace,
    ConceptNode,
    InheritanceLink,
    TruthValue,
    barrier,
    cog_close,
    cog_open,
    load_atomspace,
    scheme_eval,
    store_atom,
)


@pytest.fixture(scope="module")
def redis_url():
    server = shutil.which("redis-server")
    assert server, "no redis-server on PATH: install Debian's redis-server package (make test does)"
    root = tempfile.mkdtemp(prefix="atomweave-pytest-redis-")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [server, "--port", str(port), "--bind", "127.0.0.1", "--dir", root, "--save", "", "--appendonly", "yes"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5) as c:
                    c.sendall(b"PING\r\n")
                    if c.recv(16).startswith(b"+PONG"):
                        break
            except OSError:
                pass
            assert proc.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}"
    finally:
        proc.kill()
        proc.wait()
        shutil.rmtree(root, ignore_errors=True)


def test_python_round_trip(storage_round_trip, redis_url):
    fresh, sn2 = storage_round_trip(atomweave.RedisStorageNode, redis_url)
    # Everything stored; `fresh` also holds the StorageNode atom itself.
    assert load_atomspace(AtomSpace(), sn2) == 4
    cog_close(sn2)


@pytest.mark.scheme
def test_scheme_reads_what_python_wrote(space, redis_url):
    sn = atomweave.RedisStorageNode(redis_url)
    cog_open(sn)
    store_atom(InheritanceLink(ConceptNode("from-python"), ConceptNode("to-scheme"), tv=TruthValue(0.25, 0.5)))
    barrier()
    cog_close(sn)
    fresh = AtomSpace()
    out = scheme_eval(
        fresh,
        f"""
        (use-modules (opencog persist))
        (define sn (RedisStorageNode "{redis_url}"))
        (cog-open sn)
        (fetch-incoming-set (Concept "from-python"))
        (cog-close sn)
        (cog-tv (Inheritance (Concept "from-python") (Concept "to-scheme")))
        """,
    )
    assert "0.25" in out and "0.5" in out, out


def test_an_unreachable_server_is_a_clear_error(space):
    sn = atomweave.RedisStorageNode("redis://127.0.0.1:1?timeout=1")
    with pytest.raises(Exception, match="redis"):
        cog_open(sn)
