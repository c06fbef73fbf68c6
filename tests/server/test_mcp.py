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
from graphmem.doors.mcp.server import TOOLS  # noqa: E402


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
                {"id": "hall", "type": "location", "name": "the hall"},
                {"id": "chest", "type": "item", "name": "the chest"},
                {"id": "sword", "type": "item", "name": "the sword"},
                {"id": "mira", "type": "npc", "name": "Mira"},
                {"id": "tomas", "type": "npc", "name": "Tomas"},
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
    await client.call_tool(
        "append_turn",
        {"session_id": "s2", "role": "user", "content": "The ferry sank", "turn_id": "D2:9"},
    )
    said = _structured(
        await client.call_tool("retrieve", {"query": "the ferry sank", "kinds": ["turn"]})
    )
    assert said["results"][0]["turn_id"] == "D2:9"
    for text in ("You like to cook risotto", "I like to cook risotto"):
        await client.call_tool(
            "append_turn",
            {"session_id": "s3", "role": "user", "content": text, "speaker": "Kate"},
        )
    cooks = _structured(
        await client.call_tool(
            "retrieve", {"query": "What does Kate like to cook?", "kinds": ["turn"], "k": 2}
        )
    )["results"]
    assert cooks[0]["content"].endswith("I like to cook risotto")  # what she says of herself
    assert cooks[0]["signals"]["first_person"] == 1.0
    distrust = _structured(
        await client.call_tool("retrieve", {"query": "whom does Odile Marrow distrust?", "k": 3})
    )
    facts = [r for r in distrust["results"] if r["kind"] == "relationship"]
    assert facts[0]["content"] == "Odile Marrow distrusts Halden Crook"
    related = _structured(
        await client.call_tool(
            "relate_entities", {"source_id": "mira", "type": "trusts", "target_id": "odile"}
        )
    )
    assert related["decision"] == "add" and related["fact"]["status"] == "active"
    asked = _structured(
        await client.call_tool("ask", {"question": "who does Odile Marrow distrust?"})
    )
    assert asked["answers"][0]["entity"]["id"] == "halden"
    assert asked["answers"][0]["facts"][0]["type"] == "distrusts"
    assert asked["abstained"] is False and asked["confidence"] > 0
    by_first_name = _structured(
        await client.call_tool("ask", {"question": "who does Odile distrust?"})
    )
    assert by_first_name["answers"][0]["entity"]["id"] == "halden"
    unknown = _structured(await client.call_tool("ask", {"question": "who is Odile's husband?"}))
    assert unknown["answers"] == [] and unknown["abstained"] and "'husband'" in unknown["reason"]
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
    for flag in ({"perspective": 0}, {"perspective": "true"}):  # a boolean is true or false
        not_bool = await client.call_tool("npc_snapshot", {"npc_id": "odile", **flag})
        assert not_bool.is_error and "perspective" in not_bool.content[0].text, flag
    not_bool = await client.call_tool("npc_beliefs", {"npc_id": "odile", "history": 1})
    assert not_bool.is_error and "history" in not_bool.content[0].text
    seen["answer"] = answer
    await _exercise_minds(client)
    return seen


def _at(minute: int) -> str:
    return f"1312-03-14T20:{minute:02d}:00Z"


async def _exercise_minds(client: Client) -> None:
    """NPC minds through the tools: who saw the sword hidden, who was told, the recap."""

    async def call(tool: str, **arguments: Any) -> Any:
        return _structured(await client.call_tool(tool, arguments))

    for minute, who in enumerate(("mira", "tomas")):
        await call(
            "record_event",
            type="entered",
            actor=who,
            changes=[{"subject": who, "predicate": "located_in", "object": "hall"}],
            at=_at(minute),
            session_id="tavern",
        )
    in_chest = {"subject": "sword", "predicate": "located_in", "object": "chest"}
    hid = await call(
        "record_event",
        type="hid",
        actor="mira",
        changes=[in_chest],
        present=["mira"],
        at=_at(2),
        session_id="tavern",
    )
    assert hid["witnesses"] == ["mira"] and hid["place"] == "hall"
    assert [b["holder"] for b in (await call("who_knows", fact=in_chest))["beliefs"]] == ["mira"]
    assert await call("npc_belief", npc_id="tomas", subject="sword", predicate="located_in") == {
        "belief": None
    }
    told = await call(
        "tell", speaker="mira", listener="tomas", fact=in_chest, at=_at(5), session_id="tavern"
    )
    assert [(b["how"], b["told_by"]) for b in told["beliefs"]] == [("told", "mira")]
    earlier = await call("npc_beliefs", npc_id="tomas", as_of=_at(3))
    assert [b["fact"]["object"] for b in earlier["beliefs"]] == ["hall"]
    nested = await call(
        "npc_belief", npc_id="mira", subject="sword", predicate="located_in", of=["tomas"]
    )
    assert nested["belief"]["chain"] == ["tomas"]
    lie = {**in_chest, "object": "hall"}
    said = await call("announce", speaker="tomas", fact=lie, at=_at(5), session_id="tavern")
    assert said["type"] == "announced" and said["adopted"] == [[]]  # Mira saw it: not believed
    deep = await call(
        "npc_belief", npc_id="tomas", subject="sword", predicate="located_in",
        of=["mira", "tomas", "mira"],
    )  # fmt: skip
    assert deep["belief"]["fact"]["object"] == "chest"
    rumour = await call(
        "believe",
        npc_id="tomas",
        fact={"subject": "mira", "predicate": "mood", "value": "nervous"},
        how="rumour",
        at=_at(6),
    )
    assert rumour["fact"]["value"] == "nervous"
    seen = await call("npc_snapshot", npc_id="tomas", perspective=True)
    assert "the sword located in the chest (heard from Mira" in seen["prompt"]
    assert len(seen["identity"]["beliefs"]) == 3
    past = await call("npc_snapshot", npc_id="sword", as_of=_at(1))
    assert past["identity"]["relationships"] == [] and "beliefs" not in past["identity"]
    looked = await call("observe_place", place_id="hall", present=["tomas"], at=_at(7))
    assert looked["type"] == "observed"
    events = await call("list_events", witness="tomas")
    assert [e["type"] for e in events["events"]] == ["entered", "told", "announced", "observed"]
    recalled = await call("npc_recall", npc_id="tomas", query="the sword", at=_at(8), k=1)
    assert recalled["recollections"][0]["belief"]["fact"]["subject"] == "sword"
    faded = await call("forget_beliefs", npc_id="tomas", about="mira", below=1.0, at=_at(9))
    assert {b["fact"]["subject"] for b in faded["beliefs"]} == {"mira"}
    draft = await call("draft_recap", session_id="tavern")
    assert "Mira hid" in draft["text"] and draft["audio_bytes"] == 0
    saved = await call("save_recap", session_id="tavern", text="Previously: a sword hidden.")
    assert (await call("read_recap", session_id="tavern")) == saved
    assert [r["session_id"] for r in (await call("list_recaps"))["recaps"]] == ["tavern"]
    missing = await client.call_tool("read_recap", {"session_id": "nope"})
    assert missing.is_error and "NotFound" in missing.content[0].text
    refused = await client.call_tool("forget_beliefs", {"npc_id": "tomas"})
    assert refused.is_error and "InvalidInput: forget needs a policy" in refused.content[0].text


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
        facts = mem.fact_memory(actor="mcp-agent").facts(include_all=True)
        # the remembered fact was forgotten; the governed relationship stays believed
        assert sorted((f.relation, f.status) for f in facts) == [
            ("trusts", "active"),
            ("works_at", "invalidated"),
        ]
        assert mem.recap("tavern").text == "Previously: a sword hidden."
        assert mem.belief("tomas", "sword", "located_in") is not None


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
    from graphmem.cli.program import main

    status = main(["mcp", "--store", "memory://", "--tenant", "t", "--http", "--host", "0.0.0.0"])
    assert status == 2
    assert "loopback addresses only" in capsys.readouterr().err


def test_tool_schemas_describe_every_argument() -> None:
    from graphmem.doors.mcp.server import build_server

    with graphmem.open("memory://", tenant="t") as mem:
        server = build_server(mem)
        tools = asyncio.run(server.list_tools())
    for tool in tools:
        schema = json.loads(json.dumps(tool.input_schema))
        assert schema["type"] == "object", tool.name
        assert tool.output_schema is not None, tool.name
    assert {t.name for t in tools} == set(TOOLS)
