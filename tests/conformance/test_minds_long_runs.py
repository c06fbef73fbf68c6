"""Long runs of the same claim, past the newest evidence a slot's head keeps: what a
chain holds now (read from the head's window and, in process, from how far an earlier
fold got) is what a fold of the slot's whole history says, after every step."""

from __future__ import annotations

import random
from datetime import UTC, datetime, timedelta

from graphmem import GraphStore, Memory
from graphmem.minds import Belief, Fact
from graphmem.minds.beliefs import WINDOW

T0 = datetime(2020, 3, 1, 9, tzinfo=UTC)
NPCS = ("ana", "bo", "cy", "dee")


def held_in_history(mem: Memory, npc: str, of: list[str]) -> Belief | None:
    """The version of the whole history that is not retired (what a full fold says)."""
    live = [
        b
        for b in mem.beliefs(npc, "gem", of=of, history=True)
        if b.fact.predicate == "located_in" and b.retired_at is None
    ]
    return live[-1] if live else None


def same(a: Belief | None, b: Belief | None) -> bool:
    if a is None or b is None:
        return a is b
    return (a.id, a.fact, a.how, a.valid_from, a.recorded_at, a.recall_count, a.confidence) == (
        b.id, b.fact, b.how, b.valid_from, b.recorded_at, b.recall_count, b.confidence,
    )  # fmt: skip


def test_a_long_run_of_the_same_claim_reads_as_its_whole_history(
    store: GraphStore, tenant: str
) -> None:
    mem = Memory(store, tenant, owns_store=False)
    mem.upsert_entities(
        [
            {"id": "inn", "type": "location", "name": "the inn"},
            {"id": "gem", "type": "item", "name": "the gem"},
            {"id": "jar", "type": "item", "name": "the jar"},
            {"id": "bag", "type": "item", "name": "the bag"},
            *({"id": n, "type": "npc", "name": n.title()} for n in NPCS),
        ]
    )
    mem.upsert_relationships(
        [{"source_id": n, "target_id": "inn", "type": "located_in", "valid_at": T0} for n in NPCS]
    )
    rng = random.Random(7)
    at = T0
    mem.record_event("hid", actor="ana", changes=[("gem", "located_in", "jar")], at=at)
    chains = [["ana"], ["bo"], ["cy", "dee"], ["dee", "ana", "bo"]]
    for step in range(2 * WINDOW + 20):
        at += timedelta(minutes=1)
        speaker, listener = rng.sample(NPCS, 2)
        roll = rng.random()
        if roll < 0.55:  # the same claim again and again: a long run
            mem.announce(speaker, ("gem", "located_in", "jar"), at=at)
        elif roll < 0.75:
            mem.tell(speaker, listener, ("gem", "located_in", "bag"), at=at)  # a lie
        elif roll < 0.85:
            mem.recall(listener, about="gem", at=at)
        elif roll < 0.92:
            mem.believe(listener, ("gem", "located_in", "jar"), how="rumour", at=at,
                        confidence=0.5)  # fmt: skip
        else:
            mem.observe("inn", at=at)
        if step % 7 == 0 or step > 2 * WINDOW:
            for npc, *of in chains:
                now = mem.belief(npc, "gem", "located_in", of=of)
                assert same(now, held_in_history(mem, npc, of)), (step, npc, of)
    for npc in NPCS:
        for other in NPCS:
            if other != npc:
                now = mem.belief(npc, "gem", "located_in", of=[other])
                assert same(now, held_in_history(mem, npc, [other]))
    assert any(b.recall_count for n in NPCS for b in mem.beliefs(n))
    assert mem.belief("ana", "gem", "located_in") is not None
    assert isinstance(mem.belief("ana", "gem", "located_in").fact, Fact)
