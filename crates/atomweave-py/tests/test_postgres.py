"""PostgresStorageNode from Python, against a real PostgreSQL server that
this module starts for itself (initdb + pg_ctl from Debian's postgresql
binaries, on a temporary directory and a free port). Without the binaries
the tests fail, saying what to install; they never skip."""

import glob
import os
import shutil
import socket
import subprocess
import tempfile

import pytest

import atomweave
from atomweave import (
    AtomSpace,
    ConceptNode,
    PredicateNode,
    cog_close,
    cog_open,
    load_atomspace,
    store_atomspace,
    types,
    update_value,
)


def _bin_dir():
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    assert found, "no PostgreSQL server binaries in /usr/lib/postgresql/*/bin: install Debian's postgresql package (make test does)"
    return os.path.dirname(found[-1])


@pytest.fixture(scope="module")
def pg_url():
    bin_dir = _bin_dir()
    root = tempfile.mkdtemp(prefix="atomweave-pytest-pg-")
    data = os.path.join(root, "data")
    # PostgreSQL will not run as root: there it runs as the postgres user.
    as_root = os.geteuid() == 0
    if as_root:
        shutil.chown(root, "postgres", "postgres")
    run = (lambda *cmd: ["runuser", "-u", "postgres", "--", *cmd]) if as_root else (lambda *cmd: list(cmd))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    subprocess.run(run(f"{bin_dir}/initdb", "-D", data, "-A", "trust", "-U", "atomweave", "--no-sync"), check=True, capture_output=True)
    with open(os.path.join(data, "postgresql.conf"), "a") as conf:
        conf.write("listen_addresses = '127.0.0.1'\nfsync = off\n")
    ctl = lambda *args: subprocess.run(run(f"{bin_dir}/pg_ctl", "-D", data, "-l", os.path.join(root, "log"), *args), check=True, capture_output=True)
    ctl("-w", "-o", f"-p {port} -k {root}", "start")
    try:
        yield f"postgres://atomweave@127.0.0.1:{port}/postgres"
    finally:
        ctl("-w", "-m", "immediate", "stop")
        shutil.rmtree(root, ignore_errors=True)


def test_upstream_style_postgres_round_trip(storage_round_trip, pg_url):
    def berry():
        update_value(ConceptNode("Berry"), PredicateNode("*-TruthValueKey-*"), [2.0])

    fresh, sn2 = storage_round_trip(atomweave.PostgresStorageNode, pg_url, also=berry)
    assert fresh.get_node(types.ConceptNode, "Berry").tv == atomweave.CountTruthValue(1, 0, 2)
    cog_close(sn2)

    # The whole space, into and out of the same database: found by content, not doubled.
    sn3 = atomweave.PostgresStorageNode(pg_url, atomspace=fresh)
    cog_open(sn3)
    store_atomspace(fresh, sn3)
    third = AtomSpace()
    assert load_atomspace(third, sn3) == len(fresh)
    cog_close(sn3)


def test_an_unreachable_server_is_a_clear_error(space):
    sn = atomweave.PostgresStorageNode("postgres://atomweave@127.0.0.1:1/nowhere")
    with pytest.raises(Exception, match="cannot be reached"):
        cog_open(sn)
