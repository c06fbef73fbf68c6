"""An agent builds a world from nothing over MCP (the SDK's own client), and asks about it."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the server extra is not installed")

from mcp import Client  # noqa: E402

import graphmem  # noqa: E402
from graphmem.doors.mcp.server import TOOLS, build_server  # noqa: E402
from graphmem.retrieval import HashingEmbedder  # noqa: E402


async def call(client: Client, tool: str, **arguments: Any) -> Any:
    """A tool's structured result; its text block is the same JSON, compact."""
    result = await client.call_tool(tool, arguments)
    assert not result.is_error, result.content
    [block] = result.content
    assert json.loads(block.text) == result.structured_content
    assert "\n" not in block.text and ": " not in block.text.replace('": "', "")
    return result.structured_content


async def build_world(client: Client) -> dict[str, Any]:
    """Entities, relationships, a remembered fact and a forked conversation, from nothing."""
    made = await call(
        client,
        "upsert_entities",
        entities=[
            {"name": "Mira", "type": "npc", "attributes": {"occupation": "smith"}},
            {"name": "Tomas", "type": "npc"},
            {"id": "forge", "name": "the Old Forge", "type": "location"},
        ],
    )
    assert [e["id"] for e in made["entities"]] == ["mira", "tomas", "forge"]
    again = await call(client, "upsert_entities", entities=[{"name": "mira", "type": "npc"}])
    assert again["entities"][0]["id"] == "mira"  # the entity of that name, not a new one
    related = await call(
        client,
        "upsert_relationships",
        relationships=[
            {"source": "Tomas", "type": "trusts", "target": "Mira"},
            {"source": "mira", "type": "owns", "target": "the old forge", "confidence": 0.8},
        ],
    )
    assert [(r["source_id"], r["target_id"]) for r in related["relationships"]] == [
        ("tomas", "mira"),
        ("mira", "forge"),
    ]
    remembered = await call(
        client,
        "remember_fact",
        subject="Mira",
        relation="works_at",
        value="the Lantern tavern",
    )
    assert remembered["fact"]["edge"][0] == "mira"
    new_subject = await call(
        client,
        "remember_fact",
        subject="Halden Crook",
        relation="runs",
        value="the mill",
        subject_type="npc",
    )
    assert new_subject["fact"]["edge"][0] == "halden_crook"
    first = await call(client, "append_turn", session_id="s1", role="user", content="Hello.")
    await call(client, "append_turn", session_id="s1", role="assistant", content="Go away.")
    forked = await call(client, "fork_conversation", session_id="s1", turn_id=first["id"])
    assert forked["id"] == first["id"]
    kinder = await call(
        client, "append_turn", session_id="s1", role="assistant", content="Welcome in."
    )
    assert kinder["parent_id"] == first["id"]
    return {"first": first, "kinder": kinder}


async def check_world(client: Client, seen: dict[str, Any]) -> None:
    """Read the world back through the tools, and ask it questions."""
    history = await call(client, "read_history", session_id="s1")
    assert [t["content"] for t in history["turns"]] == ["Hello.", "Welcome in."]
    branches = await call(client, "list_branches", session_id="s1")
    assert len(branches["branches"]) == 2
    works = await call(client, "ask", question="Where does Mira work?")
    assert works["answers"][0]["entity"]["name"] == "the Lantern tavern"
    trusted = await call(client, "ask", question="Who does Tomas trust?")
    assert trusted["answers"][0]["entity"]["id"] == "mira"
    mira = await call(client, "get_entity", entity="MIRA")
    assert mira["attributes"] == {}  # the second upsert replaced the first
    found = await call(client, "find_entities", name="the old forge")
    assert [e["id"] for e in found["entities"]] == ["forge"]
    npcs = await call(client, "find_entities", type="npc")
    assert [e["id"] for e in npcs["entities"]] == ["halden_crook", "mira", "tomas"]
    snapshot = await call(client, "npc_snapshot", npc_id="mira")
    assert "works at the Lantern tavern" in snapshot["prompt"].replace("_", " ")


async def check_errors(client: Client) -> None:
    """What an agent is told when a write cannot be done, and that nothing was written."""
    unknown = await client.call_tool(
        "upsert_relationships",
        {"relationships": [{"source": "Mira", "type": "knows", "target": "Nobody"}]},
    )
    assert unknown.is_error and "upsert_entities first" in unknown.content[0].text
    unsafe = await client.call_tool(
        "remember_fact", {"subject": "Ghost", "relation": "likes (a lot)", "value": "x"}
    )
    assert unsafe.is_error and "cannot be a relationship" in unsafe.content[0].text
    private = await client.call_tool(
        "remember_fact",
        {"subject": "Wanda", "relation": "email", "value": "wanda@example.com"},
    )
    assert private.is_error
    gone = await call(client, "find_entities", name_contains="wanda")
    assert gone["entities"] == []  # the subject made for a refused fact is gone again
    missing = await client.call_tool("get_entity", {"entity": "nobody"})
    assert missing.is_error and "NotFound" in missing.content[0].text
    deleted = await call(client, "delete_entities", entity_ids=["tomas", "nobody"])
    assert deleted == {"deleted": 1}


def test_an_agent_builds_a_world_from_nothing_and_asks_about_it() -> None:
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder()) as mem:
        server = build_server(mem)

        async def main() -> None:
            async with Client(server) as client:
                seen = await build_world(client)
                await check_world(client, seen)
                await check_errors(client)

        asyncio.run(main())


def test_the_tool_list_is_lean() -> None:
    """Every tool is listed, without generated titles; the whole list stays small."""
    with graphmem.open("memory://", tenant="t") as mem:
        server = build_server(mem)

        async def main() -> list[Any]:
            async with Client(server) as client:
                return (await client.list_tools()).tools

        tools = asyncio.run(main())
    assert {t.name for t in tools} == set(TOOLS)
    listed = [t.model_dump(mode="json", by_alias=True, exclude_none=True) for t in tools]
    text = json.dumps(listed, separators=(",", ":"))
    for tool in listed:
        schema = tool["inputSchema"]
        for part in [schema, *schema["properties"].values(), *schema.get("$defs", {}).values()]:
            assert "title" not in part, tool["name"]
    # 123,535 bytes for 26 tools before the lean form; 70,673 for 32 after (measured).
    assert len(text) < 80_000, len(text)
