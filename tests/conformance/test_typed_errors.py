"""The untyped errors and disagreements issue 17 found, each now a typed error on every backend.

Every case here raised something other than a ``GraphmemError`` (``TypeError``,
``RecursionError``, ``UnicodeEncodeError``), was silently taken (``limit=True`` as 1,
``depth=True``), or never returned (``depth=10**18``). Each must now be ``InvalidInput``
and leave the tenant exactly as it was. The fuzz suite (``test_fuzz.py``) tries the same
kinds of values at random; this table keeps the named ones tried on every run.
"""

from __future__ import annotations

import errno
import io
import json
from collections.abc import Callable, Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem import Entity, InvalidInput, Memory, Relationship
from graphmem.core.checks import MAX_DEPTH
from graphmem.exchange import jsonl

from .helpers import canonical

DEEP = 500


def _nested(depth: int) -> Any:
    value: Any = 1
    for _ in range(depth):
        value = {"x": value}
    return value


def _deep_line() -> io.StringIO:
    header = json.dumps({"kind": "graphmem", "version": 1})
    deep = '{"kind":"entity","attributes":' + '{"x":' * 100_000 + "1" + "}" * 100_001
    return io.StringIO(header + "\n" + deep + "\n")


def _just_deep_enough_line() -> io.StringIO:
    header = json.dumps({"kind": "graphmem", "version": 1})
    entity = {"kind": "entity", "id": "deep", "type": "npc", "name": "Deep"}
    entity["attributes"] = _nested(DEEP)
    return io.StringIO(header + "\n" + json.dumps(entity) + "\n")


CASES: dict[str, Callable[[Memory], object]] = {
    "recent_turns(3600)": lambda m: m.recent_turns(3600),  # type: ignore[arg-type]
    "history(limit='5')": lambda m: m.conversation("s1").history(limit="5"),  # type: ignore[arg-type]
    "history(limit=True)": lambda m: m.conversation("s1").history(limit=True),
    "latest('5')": lambda m: m.conversation("s1").latest("5"),  # type: ignore[arg-type]
    "max_history='5'": lambda m: m.conversation("s1", max_history="5"),  # type: ignore[arg-type]
    "find_entities(limit=True)": lambda m: m.find_entities(limit=True),
    # found by the long fuzz run (-m fuzz_long)
    "add_documents(extractor='spacy')": lambda m: m.add_documents(
        ["Mira works the forge."],
        extractor="spacy",
        embed=False,  # type: ignore[arg-type]
    ),
    "query_with_embedding([1e308, ...])": lambda m: m.query_with_embedding([1e308] * 8),
    "retrieve(preset=[...])": lambda m: m.retrieve("who?", preset=["hybrid"]),  # type: ignore[arg-type]
    "attributes 500 deep": lambda m: m.upsert_entities(
        [{"id": "deep", "type": "npc", "name": "Deep", "attributes": _nested(DEEP)}]
    ),
    "import_jsonl of a line nested 100,000 deep": lambda m: m.import_jsonl(_deep_line()),
    "import_jsonl of attributes 500 deep": lambda m: m.import_jsonl(_just_deep_enough_line()),
    "lone surrogate in a name": lambda m: m.upsert_entities(
        [{"id": "s", "type": "npc", "name": "M\ud800ra"}]
    ),
    "lone surrogate in an attribute": lambda m: m.update_entity(
        "mira", attributes={"mood": "\udfff"}
    ),
    "lone surrogate in a turn": lambda m: m.conversation("s1").append("user", "hi \ud83d"),
    "lone surrogate in an id": lambda m: m.upsert_entities(
        [{"id": "\ud800", "type": "npc", "name": "x"}]
    ),
    "neighbors(depth=True)": lambda m: m.neighbors("mira", depth=True),
    "neighbors(depth=MAX_DEPTH + 1)": lambda m: m.neighbors("mira", depth=MAX_DEPTH + 1),
    "visible_subgraph(depth=10**18)": lambda m: m.visible_subgraph("mira", depth=10**18),
    "expand(depth=10**18)": lambda m: m.expand(["mira"], depth=10**18),
    "retrieve(hops=10**18)": lambda m: m.retrieve("Mira", hops=10**18),
    "attribute beyond 64 bits": lambda m: m.update_entity("mira", attributes={"n": 2**64}),
}


@pytest.fixture
def world(mem: Memory) -> Memory:
    mem.upsert_entities(
        [Entity(id="mira", type="npc", name="Mira"), Entity(id="tomas", type="npc", name="Tomas")]
    )
    mem.upsert_relationships([Relationship(source_id="mira", target_id="tomas", type="knows")])
    mem.conversation("s1").append("user", "hello")
    return mem


@pytest.mark.parametrize("case", sorted(CASES))
def test_named_bad_input_is_invalid_and_writes_nothing(world: Memory, case: str) -> None:
    before = canonical(world.dump())
    with pytest.raises(InvalidInput):
        CASES[case](world)
    assert canonical(world.dump()) == before


def test_the_deepest_walk_allowed_returns_when_nothing_new_is_reached(world: Memory) -> None:
    seen = world.visible_subgraph("mira", depth=MAX_DEPTH)
    assert sorted(e.id for e in seen.entities) == ["mira", "tomas"]
    assert [e.id for e in world.neighbors("mira", depth=MAX_DEPTH)] == ["tomas"]


def test_a_window_older_than_year_one_reads_every_turn(world: Memory) -> None:
    assert [t.content for t in world.recent_turns(timedelta.max)] == ["hello"]


def test_export_to_a_path_that_cannot_be_written_leaves_no_file(
    world: Memory, tmp_path: Path
) -> None:
    folder = tmp_path / "exports"
    folder.mkdir()
    for target in (folder / "missing" / "out.jsonl", folder, folder / "a\x00b"):
        with pytest.raises(InvalidInput):
            world.export_jsonl(target)
    assert sorted(p.name for p in folder.iterdir()) == []


def test_an_export_failing_part_way_keeps_the_older_file(
    world: Memory, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "exports").mkdir()
    target = tmp_path / "exports" / "world.jsonl"
    world.export_jsonl(target)
    old = target.read_text(encoding="utf-8")
    world.upsert_entities([Entity(id="new", type="npc", name="New")])
    lines = jsonl.lines

    def disk_full(*args: Any, **kwargs: Any) -> Iterator[str]:
        produced = lines(*args, **kwargs)
        yield next(produced)
        yield next(produced)
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(jsonl, "lines", disk_full)
    with pytest.raises(InvalidInput, match="No space left"):
        world.export_jsonl(target)
    assert target.read_text(encoding="utf-8") == old
    assert sorted(p.name for p in target.parent.iterdir()) == ["world.jsonl"]


def test_no_turn_follows_one_made_at_the_last_time(world: Memory) -> None:
    chat = world.conversation("late")
    chat.append("user", "at the end of time", created_at=datetime.max)
    before = canonical(world.dump())
    with pytest.raises(InvalidInput, match="last time"):
        chat.append("user", "and after")
    assert canonical(world.dump()) == before
