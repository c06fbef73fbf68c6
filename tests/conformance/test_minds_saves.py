"""Saves of NPC minds written by earlier graphmem versions, read on every backend.

``saves/minds_per_chain.jsonl`` is a JSON Lines export made by graphmem as it was before
nested beliefs were answered at read time (commit e92ed87's parent): beliefs stored one
record per version and chain (kind ``belief``). ``saves/minds_per_chain.answers.json``
holds what that version answered from the same world (``saves/README.md`` says how both
were made). A save imported now, or a store that still holds such records, answers the
same: its beliefs are converted to evidence on first use, and the old records go.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from graphmem import GraphStore, InvalidInput, Memory
from graphmem.core.models import Record
from graphmem.exchange import jsonl
from graphmem.minds import Belief

SAVES = Path(__file__).parent / "saves"
SAVE = SAVES / "minds_per_chain.jsonl"
NPCS = ("mira", "tomas", "ada")
T0 = datetime(2020, 1, 1, 12, tzinfo=UTC)


def show(b: Belief | None) -> list[Any] | None:
    """A belief as the earlier version's answers were written down."""
    if b is None:
        return None
    return [
        b.holder, list(b.chain), b.fact.subject, b.fact.predicate, b.fact.object,
        b.fact.value, b.fact.holds, b.how, b.told_by, list(b.sources), round(b.confidence, 6),
        b.importance, b.valid_from.isoformat(),
        None if b.valid_to is None else b.valid_to.isoformat(), b.retired_because,
        b.recall_count, b.recorded_at.isoformat(),
        None if b.retired_at is None else b.retired_at.isoformat(),
    ]  # fmt: skip


def answers(mem: Memory) -> dict[str, Any]:
    """The questions the earlier version answered, asked again."""
    first = mem.beliefs("tomas", history=True)[0].recorded_at
    return {
        "now": {n: [show(b) for b in mem.beliefs(n)] for n in NPCS},
        "nested": {
            f"{a}>{b}": show(mem.belief(a, "ring", "located_in", of=b))
            for a in NPCS
            for b in NPCS
            if a != b
        },
        "as_of_2h30": {
            n: show(mem.belief(n, "ring", "located_in", as_of=T0 + timedelta(hours=2.5)))
            for n in NPCS
        },
        "history_tomas": [show(b) for b in mem.beliefs("tomas", history=True)],
        "recorded_as_of": {
            n: [show(b) for b in mem.beliefs(n, recorded_as_of=first)] for n in NPCS
        },
    }


def expected() -> dict[str, Any]:
    found: dict[str, Any] = json.loads((SAVES / "minds_per_chain.answers.json").read_text())
    return found


def test_a_save_of_per_chain_beliefs_imports_converted(store: GraphStore, tenant: str) -> None:
    mem = Memory(store, tenant, owns_store=False)

    mem.import_jsonl(SAVE)

    assert store.count_records(tenant, "belief") == 0
    assert store.count_records(tenant, "evidence") > 0
    assert answers(mem) == expected()
    held = [b.fact.text() for b in mem.beliefs("ada")]
    assert "ring located in inn" in held  # told by Tomas in the save
    # the world goes on from the converted save
    mem.record_event("moved", actor="mira", changes=[("ring", "located_in", "box")])
    assert mem.belief("tomas", "ring", "located_in").fact.object == "box"
    assert mem.belief("ada", "ring", "located_in").fact.object == "inn"  # in the cellar


def test_a_store_holding_per_chain_beliefs_converts_them_on_first_use(
    store: GraphStore, tenant: str
) -> None:
    store.load(tenant, jsonl.read(SAVE))  # as a store written by the earlier version
    assert store.count_records(tenant, "belief") == 26

    mem = Memory(store, tenant, owns_store=False)

    assert answers(mem) == expected()
    assert store.count_records(tenant, "belief") == 0
    again = Memory(store, tenant, owns_store=False)  # nothing left to convert
    assert answers(again) == expected()


def test_a_bad_per_chain_belief_converts_nothing(store: GraphStore, tenant: str) -> None:
    dump = jsonl.read(SAVE)
    store.load(tenant, dump)
    broken = next(r for r in dump.records if r.kind == "belief")
    data = {k: v for k, v in broken.data.items() if k != "holder"}
    store.put_records(tenant, "belief", [Record(id=broken.id, kind="belief", data=data)])
    before = store.count_records(tenant, "evidence")

    mem = Memory(store, tenant, owns_store=False)
    with pytest.raises(InvalidInput, match=broken.id):
        mem.beliefs("tomas")

    assert store.count_records(tenant, "belief") == 26
    assert store.count_records(tenant, "evidence") == before


def test_a_save_with_a_bad_per_chain_belief_imports_nothing(
    store: GraphStore, tenant: str, tmp_path: Path
) -> None:
    lines = SAVE.read_text().splitlines()
    at = next(i for i, line in enumerate(lines) if '"kind":"belief"' in line)
    broken = json.loads(lines[at])
    del broken["record"]["data"]["subject"]
    lines[at] = json.dumps(broken)
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join(lines) + "\n")
    mem = Memory(store, tenant, owns_store=False)

    with pytest.raises(InvalidInput, match=broken["record"]["id"]):
        mem.import_jsonl(bad)

    assert not mem.dump().entities
    assert store.count_records(tenant, "belief") == 0
