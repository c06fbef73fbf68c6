"""Inputs a user gets wrong are refused with a typed error, never coerced (issue 29).

Each case is one the long fuzz run found raising a builtin error, or storing bytes as
text without a word; each must raise ``InvalidInput`` and write nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from graphmem import Entity, InvalidInput, Memory
from graphmem.core.checks import MAX_NAME_LENGTH
from graphmem.exchange import jsonl

LONG = "x" * (MAX_NAME_LENGTH + 1)


@pytest.fixture
def world(mem: Memory) -> Memory:
    mem.upsert_entities(
        [
            Entity(id="mira", type="npc", name="Mira"),
            Entity(id="forge", type="location", name="The Forge"),
        ]
    )
    mem.conversation("s1").append("player", "Hello")
    return mem


CASES: dict[str, Callable[[Memory], Any]] = {
    "update_entity attributes='x'": lambda m: m.update_entity("mira", attributes="x"),
    "update_entity attributes=nan": lambda m: m.update_entity("mira", attributes=float("nan")),
    "update_entity remove_attributes=[1]": lambda m: m.update_entity("mira", remove_attributes=[1]),
    "record_event attributes='x'": lambda m: m.record_event("moved", actor="mira", attributes="x"),
    "learn a lone surrogate": lambda m: m.learn("Odile\ud800", "works_at", "forge", actor="gm"),
    "recall relevance not callable": lambda m: m.recall("mira", relevance=3),
    "bytes turn content": lambda m: m.conversation("s1").append("player", b"hello"),
    "bytes speaker": lambda m: m.conversation("s1").append("npc", "hi", speaker=b"Mira"),
    "bytes entity name": lambda m: m.upsert_entities([{"id": "b", "type": "npc", "name": b"B"}]),
    "entity name too long": lambda m: m.upsert_entities([{"id": "b", "type": "npc", "name": LONG}]),
    "speaker too long": lambda m: m.conversation("s1").append("npc", "hi", speaker=LONG),
    "attribute key too long": lambda m: m.update_entity("mira", attributes={LONG: 1}),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_refused_with_a_typed_error_and_nothing_written(world: Memory, case: str) -> None:
    counts = (world.count_entities(), world.conversation("s1").count())
    mira = world.get_entity("mira")
    with pytest.raises(InvalidInput):
        CASES[case](world)
    assert (world.count_entities(), world.conversation("s1").count()) == counts
    assert world.get_entity("mira") == mira


def test_recall_with_a_relevance_that_answers_text_is_refused(world: Memory) -> None:
    world.record_event(
        "moved", actor="mira", changes=[("mira", "located_in", "forge")], place="forge"
    )
    assert world.recall("mira", relevance=lambda b: 0.5, mark=False)
    with pytest.raises(InvalidInput, match="relevance"):
        world.recall("mira", relevance=lambda b: "high", mark=False)


def test_a_name_at_the_limit_is_stored(world: Memory) -> None:
    name = "n" * MAX_NAME_LENGTH
    [stored] = world.upsert_entities([Entity(id="big", type="npc", name=name)])
    assert world.get_entity("big").name == stored.name == name


def test_an_export_is_one_record_per_line_for_any_line_splitting_reader(world: Memory) -> None:
    import io

    name = "A\u2028B\x85C\u2029D"  # line breaks to str.splitlines and to JavaScript
    world.upsert_entities([Entity(id="odd", type="npc", name=name)])
    out = io.StringIO()
    count = world.export_jsonl(out)
    text = out.getvalue()
    assert len(text.splitlines()) == count == len(text.split("\n")) - 1
    again = jsonl.read(io.StringIO(text))
    assert [e.name for e in again.entities if e.id == "odd"] == [name]
