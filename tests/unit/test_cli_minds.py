"""``graphmem snapshot`` at two clocks and from an NPC's perspective (file:// stores)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import graphmem
from graphmem.cli.program import main

T0 = datetime(2020, 1, 1, tzinfo=UTC)


@pytest.fixture
def world(tmp_path: Path) -> str:
    url = (tmp_path / "world.graphmem").as_uri()
    with graphmem.open(url, tenant="t") as mem:
        mem.upsert_entities(
            [
                {"id": "hall", "type": "location", "name": "the hall"},
                {"id": "chest", "type": "item", "name": "the chest"},
                {"id": "bed", "type": "item", "name": "the bed"},
                {"id": "sword", "type": "item", "name": "the sword"},
                {"id": "mira", "type": "npc", "name": "Mira"},
            ]
        )
        mem.upsert_relationships(
            [{"source_id": "mira", "target_id": "hall", "type": "located_in", "valid_at": T0}]
        )
        mem.record_event(
            "hid", actor="mira", changes=[("sword", "located_in", "chest")], at=T0.replace(hour=1)
        )
        mem.record_event(
            "moved", actor="mira", changes=[("sword", "located_in", "bed")], at=T0.replace(hour=3)
        )
    return url


def test_snapshot_from_the_npcs_perspective_at_a_world_time(
    world: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["snapshot", "--store", world, "--tenant", "t", "mira", "--perspective"]
    assert main(argv) == 0
    assert "- the sword located in the bed" in capsys.readouterr().out
    assert main([*argv, "--as-of", "2020-01-01T02:00:00"]) == 0
    assert "- the sword located in the chest" in capsys.readouterr().out
    assert main([*argv, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["beliefs"][0]["holder"] == "mira"


def test_snapshot_of_the_world_at_a_memory_time(
    world: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["snapshot", "--store", world, "--tenant", "t", "mira"]
    assert main([*argv, "--recorded-as-of", "2001-01-01T00:00:00+00:00"]) == 0
    assert "Facts:" not in capsys.readouterr().out  # the store held nothing of her then
    assert main([*argv, "--as-of", "yesterday"]) == 2
    assert "ISO 8601" in capsys.readouterr().err


def test_claims_and_a_nested_belief_from_the_command_line(
    world: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with graphmem.open(world, tenant="t") as mem:
        mem.upsert_entities([{"id": "ada", "type": "npc", "name": "Ada"}])
        mem.upsert_relationships(
            [{"source_id": "ada", "target_id": "hall", "type": "located_in", "valid_at": T0}]
        )
    store = ["--store", world, "--tenant", "t"]
    lie = ["sword", "located_in", "chest"]  # the sword is in the bed

    assert main(["announce", *store, "mira", *lie]) == 0
    assert capsys.readouterr().out.strip() == "heard by ada; believed by ada"  # she saw nothing
    assert main(["belief", *store, "ada", "sword", "located_in"]) == 0
    assert capsys.readouterr().out.strip() == "sword located in chest (told, confidence 0.80)"
    assert main(["belief", *store, "mira", "sword", "located_in"]) == 0
    assert "located in bed (witnessed" in capsys.readouterr().out  # her lie changed nothing
    deep = ["belief", *store, "mira", "sword", "located_in", "--of", "ada", "--of", "mira"]
    assert main([*deep, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["fact"]["object"] == "chest"  # Ada thinks she
    assert main(["tell", *store, "ada", "mira", *lie]) == 0
    assert capsys.readouterr().out.strip() == "mira believes: sword located in bed"
    assert main(["announce", *store, "mira", *lie, "--place", "hall", "--audience", "ada"]) == 2
    assert main(["belief", *store, "nobody", "sword", "located_in"]) == 2
