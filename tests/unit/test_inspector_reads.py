"""The reads behind the inspector: a neighbourhood under both clocks, beliefs beside truth.

On the demo village (memory://): Odile's trust in Halden is contradicted in session 3 (the
old fact invalidated, a new one valid from then), and Kestrel moves Odile's ferry while she
is away, so what she believes of it is false.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta

import pytest

import graphmem
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.doors.aio import AsyncMemory
from graphmem.tools.demos.village import build_demo_world

HERON = {"subject": "patient_heron", "predicate": "located_in"}


@pytest.fixture
def mem():
    with graphmem.open("memory://", tenant="village") as memory:
        build_demo_world(memory)
        yield memory


def _keys(sub):
    return {(r.source_id, r.type, r.target_id) for r in sub.relationships}


def test_a_neighbourhood_is_its_facts_both_ways_and_their_ends(mem):
    sub = mem.neighborhood("odile")
    keys = _keys(sub)
    assert ("odile", "distrusts", "halden") in keys  # outgoing
    assert ("pip", "admires", "odile") in keys  # incoming
    assert ("odile", "trusts", "halden") not in keys  # invalidated: not a current fact
    ids = [e.id for e in sub.entities]
    assert ids[0] == "odile" and len(ids) == len(set(ids))
    assert {i for k in keys for i in (k[0], k[2])} == set(ids)
    fact = next(r for r in sub.relationships if r.type == "distrusts" and r.target_id == "halden")
    assert fact.provenance.confirmed and fact.provenance.evidence  # provenance travels along
    assert _keys(mem.neighborhood("odile", direction="out")) == {k for k in keys if k[0] == "odile"}


def test_the_clocks_show_the_world_as_it_was(mem):
    old = next(
        r
        for r in mem.neighborhood("odile", include_invalid=True).relationships
        if (r.type, r.target_id) == ("trusts", "halden")
    )
    assert old.invalid_at is not None
    before = old.invalid_at - timedelta(microseconds=1)
    then = _keys(mem.neighborhood("odile", as_of=before))
    assert ("odile", "trusts", "halden") in then
    assert ("odile", "distrusts", "halden") not in then
    # Memory time: before the store learned the replacement, it did not hold it either.
    learned = _keys(mem.neighborhood("odile", recorded_as_of=old.created_at))
    assert ("odile", "distrusts", "halden") not in learned
    ever = _keys(mem.neighborhood("odile", include_invalid=True))
    assert {("odile", "trusts", "halden"), ("odile", "distrusts", "halden")} <= ever


def test_filters_and_limits(mem):
    only = mem.neighborhood("odile", rel_types=["trusts", "distrusts"])
    assert {k[1] for k in _keys(only)} <= {"trusts", "distrusts"} and _keys(only)
    npcs = mem.neighborhood("odile", node_types=["npc"])
    types = {e.id: e.type for e in npcs.entities}
    assert set(types.values()) == {"npc"}  # the centre is an npc too; others were dropped
    assert all(types.get(k[0]) and types.get(k[2]) for k in _keys(npcs))
    assert len(mem.neighborhood("odile", limit=3).relationships) <= 3
    with pytest.raises(NotFound):
        mem.neighborhood("nobody")
    with pytest.raises(InvalidInput):
        mem.neighborhood("odile", rel_types=["no spaces"])
    with pytest.raises(InvalidInput):
        mem.neighborhood("odile", node_types=["bad-name"])


def test_a_false_belief_is_marked_beside_the_truth(mem):
    mem.record_event(
        "moored",
        actor="odile",
        changes=[{**HERON, "object": "ferry_landing"}],
        present=["odile", "kestrel"],
    )
    mem.record_event(
        "moved", actor="kestrel", changes=[{**HERON, "object": "ashgrove"}], present=["kestrel"]
    )
    mem.tell("odile", "pip", {**HERON, "object": "ferry_landing"})
    mem.record_event(
        "mood",
        actor="odile",
        changes=[{"subject": "odile", "predicate": "mood", "value": "calm"}],
        present=["odile"],
    )
    [heron, mood] = sorted(mem.check_beliefs("odile"), key=lambda c: c.belief.fact.predicate)
    assert (heron.belief.fact.object, heron.truth, heron.agrees) == (
        "ferry_landing",
        ("ashgrove",),
        False,
    )
    assert heron.belief.how == "witnessed"
    assert (mood.truth, mood.agrees) == (("calm",), True)
    [kestrel] = [c for c in mem.check_beliefs("kestrel") if c.belief.fact.predicate == "located_in"]
    assert (kestrel.belief.fact.object, kestrel.agrees) == ("ashgrove", True)
    [pip] = mem.check_beliefs("pip")
    assert (pip.belief.how, pip.belief.told_by, pip.agrees) == ("told", "odile", False)
    # Before Kestrel moved it, Odile was right.
    moored = heron.belief.valid_from
    [then] = [c for c in mem.check_beliefs("odile", as_of=moored) if c.belief.fact.object]
    assert then.agrees and then.truth == ("ferry_landing",)
    assert mem.check_beliefs("bram") == []
    with pytest.raises(NotFound):
        mem.check_beliefs("nobody")


def test_a_denial_agrees_when_the_world_does_not_hold_it(mem):
    mem.believe("odile", {**HERON, "object": "ashgrove", "holds": False}, how="inferred")
    [check] = mem.check_beliefs("odile")
    assert check.agrees and check.truth == ("ferry_landing",)  # the village moors it there


def test_the_async_memory_answers_the_same(mem):
    async def main():
        twin = AsyncMemory(mem)
        try:
            sub = await twin.neighborhood("odile", rel_types=["distrusts"])
            return _keys(sub), await twin.check_beliefs("odile")
        finally:
            await twin.aclose()

    keys, checks = asyncio.run(main())
    assert keys == {("odile", "distrusts", "halden"), ("odile", "distrusts", "vesna")}
    assert checks == []
