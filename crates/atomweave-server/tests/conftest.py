"""What the server's Python tests (the browser UI's, MCP's through its
SDK) share: a real `atomweave serve` (ATOMWEAVE_BIN) on free loopback
ports, stopped by its pid whatever happens."""

import os
import socket
import subprocess
from dataclasses import dataclass

import pytest

BIN = os.environ.get("ATOMWEAVE_BIN", "target/debug/atomweave")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Served:
    """A server started by `atomweave_serve`: its ports and its process."""

    telnet: int
    web: int
    proc: subprocess.Popen


@pytest.fixture(scope="module")
def atomweave_serve():
    """Starts `atomweave serve ARGS...` on free ports and returns it once
    it listens (a `Served`); the servers started are killed when the
    module's tests end."""
    procs = []

    def start(*args):
        port, web = free_port(), free_port()
        proc = subprocess.Popen(
            [BIN, "serve", "--port", str(port), "--http-port", str(web), *args],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        procs.append(proc)
        line = proc.stderr.readline()
        assert "listening on" in line, line
        return Served(port, web, proc)

    try:
        yield start
    finally:
        for proc in procs:
            proc.kill()
            proc.wait()
