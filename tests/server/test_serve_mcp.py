"""One ``graphmem serve --mcp`` process answers HTTP and MCP on one file:// store."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the server extra is not installed")

import httpx  # noqa: E402
import httpx2  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402
from mcp.client.streamable_http import streamable_http_client  # noqa: E402
from server_support import graphmem_serve  # noqa: E402
from test_mcp_world import build_world, call, check_world  # noqa: E402

from graphmem.doors.http.keys import add_key  # noqa: E402


@asynccontextmanager
async def _mcp_client(url: str, key: str) -> AsyncIterator[Client]:
    """The SDK's client over streamable HTTP, sending the API key with every request."""
    headers = {"Authorization": f"Bearer {key}"}
    async with (
        httpx2.AsyncClient(headers=headers, timeout=60) as http,
        Client(streamable_http_client(f"{url}/mcp", http_client=http)) as client,
    ):
        yield client


def test_one_process_serves_http_and_mcp_on_one_file_store(tmp_path: Path) -> None:
    store = (tmp_path / "world.graphmem").as_uri()
    keys_file = tmp_path / "keys.toml"
    keys = {t: add_key(keys_file, tenant=t, name=t) for t in ("alpha", "beta")}
    with graphmem_serve(
        "--store",
        store,
        "--keys",
        str(keys_file),
        "--embedder",
        "hashing",
        "--mcp",
        log=tmp_path / "serve.log",
    ) as served:
        http = httpx.Client(
            base_url=served.url, headers={"Authorization": f"Bearer {keys['alpha']}"}, timeout=60
        )
        with http:
            written = http.post(
                "/v1/entities",
                json={"entities": [{"id": "ferry", "type": "item", "name": "the Ferry"}]},
            )
            assert written.status_code == 200, written.text

            async def over_mcp() -> None:
                async with _mcp_client(served.url, keys["alpha"]) as client:
                    seen = await build_world(client)
                    await check_world(client, seen)
                    ferry = await call(client, "get_entity", entity="The ferry")
                    assert ferry["id"] == "ferry"  # written over HTTP, read over MCP
                async with _mcp_client(served.url, keys["beta"]) as other:
                    found = await call(other, "find_entities")
                    assert found["entities"] == []  # another key, another tenant

            asyncio.run(over_mcp())
            # what the agent wrote over MCP, read over HTTP from the same process
            asked = http.post("/v1/ask", json={"question": "Where does Mira work?"})
            assert asked.status_code == 200, asked.text
            assert asked.json()["answers"][0]["entity"]["name"] == "the Lantern tavern"
            refused = httpx.post(
                f"{served.url}/mcp",
                json={"jsonrpc": "2.0", "id": 1, "method": "ping"},
                timeout=60,
            )
            assert refused.status_code == 401
            assert refused.headers["content-type"] == "application/problem+json"
            # a second process reads the file while the server writes it
            reader = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "graphmem",
                    "snapshot",
                    "--store",
                    store,
                    "--tenant",
                    "alpha",
                    "mira",
                    "--json",
                ],
                capture_output=True,
                text=True,
                timeout=120,
            )
            assert reader.returncode == 0, reader.stderr
            identity: dict[str, Any] = json.loads(reader.stdout)
            assert {r["type"] for r in identity["relationships"]} >= {"owns", "works_at"}
            asyncio.run(_read_only_mcp_beside(store))
            # a second writer is refused, and told the two ways that work
            writer = subprocess.run(
                [sys.executable, "-m", "graphmem", "mcp", "--store", store, "--tenant", "alpha"],
                capture_output=True,
                text=True,
                timeout=120,
                stdin=subprocess.DEVNULL,
            )
            assert writer.returncode == 2, writer.stderr
            assert "graphmem serve --mcp" in writer.stderr and "--read-only" in writer.stderr
        assert served.stop() == 0


async def _read_only_mcp_beside(store: str) -> None:
    """``graphmem mcp --read-only`` reads the file the server writes, with read tools only."""
    args = ["-m", "graphmem", "mcp", "--store", store, "--tenant", "alpha", "--read-only"]
    params = StdioServerParameters(command=sys.executable, args=[*args, "--embedder", "hashing"])
    async with Client(params, read_timeout_seconds=60) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert "ask" in tools and "upsert_entities" not in tools and "append_turn" not in tools
        assert all(t.annotations and t.annotations.read_only_hint for t in tools.values())
        works = await call(client, "ask", question="Where does Mira work?")
        assert works["answers"][0]["entity"]["name"] == "the Lantern tavern"


@pytest.mark.embeddings
def test_a_question_read_as_a_phrase_answers_alike_over_http_and_mcp(tmp_path: Path) -> None:
    # the server's own model (no --embedder): the word-level reading abstains on the
    # question, its phrase said of the pub's kind answers, in both doors the same way
    from graphmem.retrieval import SentenceTransformerEmbedder
    from tests.pubs import ASKED, ENTITIES, FACTS, READ_AS

    if not SentenceTransformerEmbedder.available():
        pytest.skip("the embeddings extra is not installed")
    store = (tmp_path / "pubs.graphmem").as_uri()
    keys_file = tmp_path / "keys.toml"
    key = add_key(keys_file, tenant="pubs", name="pubs")
    with graphmem_serve(
        "--store", store, "--keys", str(keys_file), "--mcp", log=tmp_path / "serve.log"
    ) as served:
        headers = {"Authorization": f"Bearer {key}"}
        with httpx.Client(base_url=served.url, headers=headers, timeout=60) as http:
            assert http.post("/v1/entities", json={"entities": ENTITIES}).status_code == 200
            assert http.post("/v1/relationships", json={"relationships": FACTS}).status_code == 200
            asked = http.post("/v1/ask", json={"question": ASKED})
            assert asked.status_code == 200, asked.text
            over_http = asked.json()

        async def over_mcp() -> Any:
            async with _mcp_client(served.url, key) as client:
                # (not `call`: its compactness check reads the reason's own ": " as spacing)
                result = await client.call_tool("ask", {"question": ASKED})
                assert not result.is_error, result.content
                return result.structured_content

        answered = asyncio.run(over_mcp())
    for found in (over_http, answered):
        assert [a["entity"]["id"] for a in found["answers"]] == ["quay"]
        assert found["reason"].startswith(READ_AS) and 0 < found["confidence"] <= 0.4
        assert found["answers"][0]["path"] == [{"type": "stands_in", "direction": "out"}]
