"""MCP at /mcp of a real `atomweave serve`, driven by the protocol's own
Python SDK (PyPI's `mcp`) as an agent's client would drive it: in the
handshake era (`initialize`), in the 2026-07-28 era (each request
carrying its version), and in the SDK's default mode, which discovers the
server's versions first. Each lists the tools, adds atoms in a batch,
reads them back, queries in pages, and a read token's client is refused
the write.

Run by `make test-mcp` (in `make test`), with ATOMWEAVE_BIN naming the
binary. The server is stopped by its pid whatever happens.
"""

import asyncio
import json

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client


@pytest.fixture(scope="module")
def server(atomweave_serve, tmp_path_factory):
    tokens = tmp_path_factory.mktemp("mcp") / "tokens"
    tokens.write_text("w-token write\nr-token read\n")
    served = atomweave_serve("--token-file", str(tokens))
    return f"http://127.0.0.1:{served.web}/mcp"


def connect(url, token, mode):
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"})
    return Client(streamable_http_client(url, http_client=http), mode=mode)


def structured(result):
    assert not result.is_error, result
    # The text content is the same JSON, for clients that read text only.
    assert json.loads(result.content[0].text) == result.structured_content
    return result.structured_content


@pytest.mark.parametrize("mode", ["legacy", "2026-07-28", "auto"])
def test_an_sdk_client_reads_and_writes_in_bulk(server, mode):
    async def session():
        async with connect(server, "w-token", mode) as client:
            tools = await client.list_tools()
            names = [t.name for t in tools.tools]
            assert names == ["query", "get_atoms", "find_atoms", "add_atoms", "count_atoms", "list_types"]
            # Each era's client gets its own atoms: names by mode.
            atomese = "\n".join(f'(Inheritance (Concept "{mode} {i}") (Concept "{mode}"))' for i in range(30))
            added = structured(await client.call_tool("add_atoms", {"atomese": atomese}))
            assert added["added"] == 30
            got = structured(await client.call_tool("get_atoms", {"atoms": [f'(Concept "{mode}")'], "incoming_limit": 10}))
            hub = got["atoms"][0]
            assert hub["incoming"]["total"] == 30 and len(hub["incoming"]["atoms"]) == 10
            q = f'(Get (Inheritance (Variable "$x") (Concept "{mode}")))'
            first = structured(await client.call_tool("query", {"atomese": q, "limit": 20}))
            rest = structured(await client.call_tool("query", {"atomese": q, "offset": 20, "limit": 20}))
            assert first["total"] == 30 and len(first["rows"]) == 20 and len(rest["rows"]) == 10
            assert sorted(r[0] for r in first["rows"] + rest["rows"]) == sorted(f'(ConceptNode "{mode} {i}")' for i in range(30))
            bad = await client.call_tool("add_atoms", {"atomese": '(Concept "x") (NoSuchLink (Concept "y"))'})
            assert bad.is_error and "nothing was added" in bad.content[0].text
            counts = structured(await client.call_tool("count_atoms", {}))
            assert dict(counts["types"])["InheritanceLink"] >= 30

        async with connect(server, "r-token", mode) as reader:
            names = [t.name for t in (await reader.list_tools()).tools]
            assert "add_atoms" not in names and "query" in names
            refused = await reader.call_tool("add_atoms", {"atomese": '(Concept "z")'})
            assert refused.is_error and "may only read" in refused.content[0].text
            found = structured(await reader.call_tool("find_atoms", {"type": "ConceptNode", "prefix": f"{mode} "}))
            assert found["total"] == 30

    asyncio.run(session())


def test_an_acknowledged_batch_survives_a_kill(atomweave_serve, tmp_path):
    store = f"lmdb://{tmp_path / 'kb'}"
    atomese = "\n".join(f'(Member (Concept "kept {i}") (Concept "kept"))' for i in range(100))

    async def add(url):
        async with Client(url) as client:
            assert structured(await client.call_tool("add_atoms", {"atomese": atomese}))["added"] == 100

    async def incoming(url):
        async with Client(url) as client:
            got = structured(await client.call_tool("get_atoms", {"atoms": ['(Concept "kept")']}))
            return got["atoms"][0]["incoming"]["total"]

    first = atomweave_serve("--store", store)
    asyncio.run(add(f"http://127.0.0.1:{first.web}/mcp"))
    # No shutdown, no flush: what the reply acknowledged must already be in the store.
    first.proc.kill()
    first.proc.wait()
    second = atomweave_serve("--store", store)
    assert asyncio.run(incoming(f"http://127.0.0.1:{second.web}/mcp")) == 100


def test_a_wrong_token_is_refused(server):
    async def session():
        async with connect(server, "nobody", "auto") as client:
            await client.list_tools()

    # The SDK's error is its own; the status it got is checked below.
    with pytest.raises(Exception):
        asyncio.run(session())
    # What the SDK saw: a 401 naming the scheme it wants.
    r = httpx2.post(server, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}, headers={"Authorization": "Bearer nobody"})
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer"), r
