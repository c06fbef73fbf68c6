"""Agent turns: trajectory digests and artifacts are stored, dumped, exported and used.

And the two questions that came with the doors: a conversation's branches, and the
tenants of a store.
"""

from __future__ import annotations

import io
import json
from collections.abc import Callable

import pytest

from graphmem import (
    Artifact,
    ArtifactRef,
    GraphStore,
    InvalidInput,
    Memory,
    ToolCall,
    Trajectory,
    Turn,
)

TRAJECTORY = Trajectory(
    tools=(
        ToolCall(name="search_lore", summary="asked about the Drowned Bell"),
        ToolCall(name="read_map"),
    ),
    observations="The chronicle says the bell rang in 1802.",
    reasoning="The player asked for a year; give it and cite the chronicle.",
)
SHOWN = (Artifact(id="chronicle", title="Bell chronicle", media_type="text/markdown", uri="x:1"),)
HIDDEN = (ArtifactRef(id="scratch-7", media_type="text/plain", uri="file:///tmp/scratch-7"),)


def _agent_turn(mem: Memory, session: str = "agent") -> Turn:
    chat = mem.conversation(session)
    chat.append("user", "When did the Drowned Bell ring?")
    return chat.append(
        "assistant",
        "In 1802, says the chronicle.",
        trajectory=TRAJECTORY,
        artifacts=SHOWN,
        hidden_artifacts=HIDDEN,
    )


def test_agent_fields_are_stored_and_read_back(mem: Memory, store: GraphStore, tenant: str) -> None:
    turn = _agent_turn(mem)

    got = store.get_turn(tenant, turn.id)

    assert got == turn
    assert got.trajectory == TRAJECTORY
    assert got.artifacts == SHOWN
    assert got.hidden_artifacts == HIDDEN
    assert mem.conversation("agent").history()[-1] == turn
    assert store.get_turns(tenant, [turn.id]) == [turn]
    assert store.list_turns(tenant, "agent")[-1] == turn
    assert mem.search_turns("chronicle")[0] == turn


def test_agent_fields_accept_dicts(mem: Memory) -> None:
    turn = mem.conversation("s").append(
        "assistant",
        "Done.",
        trajectory={"tools": [{"name": "run_sql"}], "reasoning": "count rows"},
        artifacts=[{"id": "table-1", "title": "Row counts"}],
        hidden_artifacts=[{"id": "raw-1"}],
    )
    assert turn.trajectory == Trajectory(tools=(ToolCall(name="run_sql"),), reasoning="count rows")
    assert [a.id for a in turn.artifacts] == ["table-1"]
    assert [a.id for a in turn.hidden_artifacts] == ["raw-1"]


@pytest.mark.parametrize(
    "fields",
    [
        {"trajectory": {"tools": [{"name": ""}]}},
        {"trajectory": {"tools": [{"name": "x" * 201}]}},
        {"trajectory": {"tools": "search"}},
        {"artifacts": [{"title": "no id"}]},
        {"artifacts": [{"id": "a"}], "hidden_artifacts": [{"id": "a"}]},
        {"hidden_artifacts": [{"id": "h", "content": "secret"}]},
    ],
)
def test_bad_agent_fields_are_invalid_and_write_nothing(mem: Memory, fields: dict) -> None:
    chat = mem.conversation("s")
    with pytest.raises(InvalidInput):
        chat.append("assistant", "x", **fields)
    assert chat.count() == 0


def test_turns_without_agent_fields_keep_their_defaults(mem: Memory) -> None:
    turn = mem.conversation("s").append("player", "Hi")
    assert (turn.trajectory, turn.artifacts, turn.hidden_artifacts) == (None, (), ())


def test_dump_load_and_export_import_keep_agent_fields(
    mem: Memory, store: GraphStore, new_tenant: Callable[[], str]
) -> None:
    turn = _agent_turn(mem)
    plain = mem.conversation("plain").append("player", "Hello")

    copy = Memory(store, new_tenant(), owns_store=False)
    copy.store.load(copy.tenant, mem.dump())
    assert copy.store.get_turn(copy.tenant, turn.id) == turn

    out = io.StringIO()
    mem.export_jsonl(out)
    lines = [json.loads(line) for line in out.getvalue().splitlines()]
    by_id = {line["id"]: line for line in lines if line["kind"] == "turn"}
    assert by_id[turn.id]["trajectory"]["tools"][0]["name"] == "search_lore"
    # A plain turn is written as it was before agent fields existed.
    assert not {"trajectory", "artifacts", "hidden_artifacts"} & set(by_id[plain.id])
    other = Memory(store, new_tenant(), owns_store=False)
    other.import_jsonl(io.StringIO(out.getvalue()))
    assert other.store.get_turn(other.tenant, turn.id) == turn
    assert other.store.get_turn(other.tenant, plain.id) == plain


def test_conversation_dump_and_extend_keep_agent_fields(mem: Memory) -> None:
    turn = _agent_turn(mem)
    copy = mem.load_conversation(mem.conversation("agent").dump(), session_id="copy")
    copied = copy.history()[-1]
    assert (copied.trajectory, copied.artifacts, copied.hidden_artifacts) == (
        turn.trajectory,
        turn.artifacts,
        turn.hidden_artifacts,
    )
    extended = mem.conversation("ext").extend([turn])
    assert extended[0].trajectory == TRAJECTORY


def test_llm_context_uses_the_digest_never_the_hidden_artifacts(mem: Memory) -> None:
    chat = mem.conversation_memory(user="ada", session="s1", strategy="truncation")
    chat.append("user", "When did the Drowned Bell ring?")
    chat.append(
        "assistant",
        "In 1802.",
        trajectory=TRAJECTORY,
        artifacts=SHOWN,
        hidden_artifacts=HIDDEN,
    )

    ctx = chat.llm_context()
    messages = ctx.to_messages()

    assert all(t.hidden_artifacts == () for t in ctx.turns)
    text = json.dumps(messages)
    assert "search_lore" in text and "rang in 1802" in text and "Bell chronicle" in text
    assert "scratch-7" not in text and "file:///tmp/scratch-7" not in text
    assert messages[-1]["role"] == "assistant"
    assert messages[-1]["content"].startswith("In 1802.\n[trajectory: used search_lore")
    # The stored turn keeps its hidden references.
    assert chat.conversation.history()[-1].hidden_artifacts == HIDDEN


def test_rolling_summary_folds_the_digest_never_the_hidden_artifacts(mem: Memory) -> None:
    chat = mem.conversation_memory(user="ada", session="s2", window_turns=1, max_tokens=400)
    chat.append(
        "assistant",
        "In 1802.",
        speaker="Archivist",
        trajectory=TRAJECTORY,
        hidden_artifacts=HIDDEN,
    )
    chat.append("user", "Thanks!")

    summary = chat.llm_context().summary

    assert summary.startswith("Archivist: In 1802. [used search_lore (asked about the Drowned")
    assert "scratch-7" not in summary


# ----------------------------------------------------------------------------- branches


def test_branches_of_a_forked_conversation(mem: Memory) -> None:
    chat = mem.conversation("s")
    ask = chat.append("player", "Can you take me across?")
    offer = chat.append("npc", "Two coppers.")
    first_leaf = chat.append("player", "Deal.")
    chat.fork(ask)
    second_leaf = chat.append("npc", "Not tonight.")
    chat.fork(offer)
    third_leaf = chat.append("player", "One copper?")

    branches = chat.branches()

    assert [b.leaf.id for b in branches] == [first_leaf.id, second_leaf.id, third_leaf.id]
    assert [b.fork_point.id if b.fork_point else None for b in branches] == [
        offer.id,
        ask.id,
        offer.id,
    ]
    assert [b.length for b in branches] == [3, 2, 3]
    assert [b.active for b in branches] == [False, False, True]


def test_branches_of_a_linear_and_an_empty_conversation(mem: Memory) -> None:
    chat = mem.conversation("s")
    assert chat.branches() == []
    chat.append("player", "one")
    last = chat.append("npc", "two")
    [branch] = chat.branches()
    assert (branch.leaf, branch.fork_point, branch.length, branch.active) == (last, None, 2, True)


def test_after_a_fork_every_branch_through_the_head_is_active(mem: Memory) -> None:
    chat = mem.conversation("s")
    root = chat.append("player", "one")
    chat.append("npc", "two")
    chat.fork(root)
    chat.append("npc", "two again")
    chat.fork(root)

    assert [b.active for b in chat.branches()] == [True, True]


def test_branches_stay_whole_after_a_turn_is_deleted(mem: Memory) -> None:
    chat = mem.conversation("s")
    root = chat.append("player", "one")
    middle = chat.append("npc", "two")
    chat.append("player", "three")
    chat.fork(root)
    chat.append("npc", "other")
    chat.delete_turn(middle)

    assert sorted(
        (b.length, b.fork_point.id if b.fork_point else None) for b in chat.branches()
    ) == [
        (2, root.id),
        (2, root.id),
    ]


# ----------------------------------------------------------------------------- tenants


def test_list_tenants_names_the_tenants_holding_something(
    store: GraphStore, new_tenant: Callable[[], str]
) -> None:
    with_entity, with_turn, with_record, emptied = (new_tenant() for _ in range(4))
    Memory(store, with_entity, owns_store=False).upsert_entities(
        [{"id": "a", "type": "npc", "name": "A"}]
    )
    Memory(store, with_turn, owns_store=False).conversation("s").append("player", "hi")
    Memory(store, with_record, owns_store=False).learn("Mira", "works_at", "forge", actor="gm")
    gone = Memory(store, emptied, owns_store=False)
    gone.upsert_entities([{"id": "b", "type": "npc", "name": "B"}])
    gone.clear()

    tenants = store.list_tenants()

    assert tenants == sorted(tenants)
    assert {with_entity, with_turn, with_record} <= set(tenants)
    assert emptied not in tenants
