"""graphmem mcp, driven by the MCP SDK's own client: over stdio in a subprocess, and over HTTP."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the server extra is not installed")

from mcp import Client, StdioServerParameters  # noqa: E402

import graphmem  # noqa: E402
from graphmem.mcp_server import TOOLS  # noqa: E402


def _structured(result: Any) -> Any:
    assert not result.is_error, result.content
    return result.structured_content


def _world(url: str) -> None:
    with graphmem.open(url, tenant="village") as mem:
        mem.upsert_entities(
            [
                {
                    "id": "odile",
                    "type": "npc",
                    "name": "Odile Marrow",
                    "attributes": {"occupation": "ferrywoman"},
                },
                {"id": "halden", "type": "npc", "name": "Halden Crook"},
            ]
        )
        mem.upsert_relationships(
            [{"source_id": "odile", "target_id": "halden", "type": "distrusts"}]
        )
        mem.add_documents(["Halden Crook runs the mill and waters the flour."], embed=False)


async def _exercise(client: Client) -> dict[str, Any]:
    listed = await client.list_tools()
    tools = {tool.name: tool for tool in listed.tools}
    assert sorted(tools) == sorted(TOOLS)
    for tool in tools.values():
        assert tool.description and len(tool.description) > 30, tool.name
        assert tool.input_schema["type"] == "object"
    seen: dict[str, Any] = {}
    remembered = _structured(
        await client.call_tool(
            "remember_fact", {"subject": "Mira", "relation": "works_at", "value": "the forge"}
        )
    )
    assert (remembered["decision"], remembered["fact"]["trust"]) == ("add", 0.6)
    recalled = _structured(
        await client.call_tool("recall_facts", {"query": "where does Mira work"})
    )
    assert recalled["facts"][0]["fact"]["value"] == "the forge"
    snapshot = _structured(await client.call_tool("npc_snapshot", {"npc_id": "odile"}))
    assert snapshot["prompt"].startswith("Odile Marrow (npc)\nOccupation: ferrywoman")
    assert snapshot["identity"]["relationships"][0]["type"] == "distrusts"
    first = _structured(
        await client.call_tool(
            "append_turn", {"session_id": "s1", "role": "user", "content": "Who runs the mill?"}
        )
    )
    answer = _structured(
        await client.call_tool(
            "append_turn",
            {
                "session_id": "s1",
                "role": "assistant",
                "content": "Halden Crook.",
                "trajectory": {"tools": [{"name": "retrieve"}], "observations": "the lore says so"},
                "hidden_artifacts": [{"id": "scratch"}],
            },
        )
    )
    assert answer["parent_id"] == first["id"]
    history = _structured(await client.call_tool("read_history", {"session_id": "s1"}))
    assert [t["content"] for t in history["turns"]] == ["Who runs the mill?", "Halden Crook."]
    assert history["turns"][1]["trajectory"]["tools"][0]["name"] == "retrieve"
    branches = _structured(await client.call_tool("list_branches", {"session_id": "s1"}))
    assert branches["branches"][0]["length"] == 2
    found = _structured(await client.call_tool("search_session_log", {"text": "mill"}))
    assert [t["content"] for t in found["turns"]] == ["Who runs the mill?"]
    retrieved = _structured(
        await client.call_tool("retrieve", {"query": "who runs the mill", "kinds": ["chunk"]})
    )
    assert retrieved["results"][0]["provenance"]["evidence"]
    assert "mill" in retrieved["context"]
    gone = _structured(await client.call_tool("forget_fact", {"fact_id": remembered["fact"]["id"]}))
    assert gone["status"] == "invalidated"
    retired = _structured(
        await client.call_tool(
            "invalidate_relationship",
            {"source_id": "odile", "type": "distrusts", "target_id": "halden"},
        )
    )
    assert retired["invalid_at"] is not None
    missing = await client.call_tool("npc_snapshot", {"npc_id": "nobody"})
    assert missing.is_error
    assert "NotFound: no entity 'nobody'" in missing.content[0].text
    bad = await client.call_tool(
        "append_turn", {"session_id": "s1", "role": "bad role", "content": "x"}
    )
    assert bad.is_error and "InvalidInput" in bad.content[0].text
    seen["answer"] = answer
    return seen


def _mcp_args(url: str) -> list[str]:
    return ["-m", "graphmem", "mcp", "--store", url, "--tenant", "village", "--embedder", "hashing"]


def test_mcp_over_stdio_in_a_subprocess(tmp_path: Path) -> None:
    url = (tmp_path / "world.graphmem").as_uri()
    _world(url)
    params = StdioServerParameters(command=sys.executable, args=_mcp_args(url))

    async def main() -> dict[str, Any]:
        async with Client(params, read_timeout_seconds=60) as client:
            return await _exercise(client)

    seen = asyncio.run(main())
    # The server closed its store: the file opens again, and holds what the agent wrote.
    with graphmem.open(url, tenant="village") as mem:
        [turn] = [t for t in mem.conversation("s1").turns() if t.id == seen["answer"]["id"]]
        assert turn.hidden_artifacts[0].id == "scratch"
        assert [f.status for f in mem.fact_memory(actor="mcp-agent").facts(include_all=True)] == [
            "invalidated"
        ]


def test_mcp_over_streamable_http(tmp_path: Path) -> None:
    import socket

    url = (tmp_path / "world.graphmem").as_uri()
    _world(url)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, *_mcp_args(url), "--http", "--port", str(port)]
    log = tmp_path / "mcp.log"
    with log.open("w") as output:
        process = subprocess.Popen(command, stdout=output, stderr=subprocess.STDOUT)
    try:

        async def main() -> None:
            for _ in range(300):
                try:
                    async with Client(f"http://127.0.0.1:{port}/mcp", read_timeout_seconds=60) as c:
                        await _exercise(c)
                        return
                except (OSError, ExceptionGroup, RuntimeError) as exc:
                    if process.poll() is not None:
                        raise AssertionError(
                            f"graphmem mcp --http exited: {log.read_text()}"
                        ) from exc
                    await asyncio.sleep(0.1)
            raise AssertionError("graphmem mcp --http did not answer")

        asyncio.run(main())
    finally:
        process.terminate()
        process.wait(timeout=30)


def test_mcp_http_refuses_other_addresses(capsys: pytest.CaptureFixture[str]) -> None:
    from graphmem.cli import main

    status = main(["mcp", "--store", "memory://", "--tenant", "t", "--http", "--host", "0.0.0.0"])
    assert status == 2
    assert "loopback addresses only" in capsys.readouterr().err


def test_tool_schemas_describe_every_argument() -> None:
    from graphmem.mcp_server import build_server

    with graphmem.open("memory://", tenant="t") as mem:
        server = build_server(mem)
        tools = asyncio.run(server.list_tools())
    for tool in tools:
        schema = json.loads(json.dumps(tool.input_schema))
        assert schema["type"] == "object", tool.name
        assert tool.output_schema is not None, tool.name
    assert {t.name for t in tools} == set(TOOLS)
