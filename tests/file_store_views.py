"""Steps of NPC minds and governed facts, and what a reader reads of them (file store tests).

Imported by the test and by the writer process it starts, so both run the same code.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem import FactMemory, Memory

T0 = datetime(2020, 6, 1, 12, 0, tzinfo=UTC)
NPCS = ("mira", "tomas", "ada")


def _world(mem: Memory, facts: FactMemory) -> None:
    mem.upsert_entities(
        [
            {"id": "hall", "type": "location", "name": "the hall"},
            {"id": "yard", "type": "location", "name": "the yard"},
            {"id": "chest", "type": "item", "name": "the chest"},
            {"id": "sword", "type": "item", "name": "the sword"},
            *({"id": n, "type": "npc", "name": n.title()} for n in NPCS),
        ]
    )
    mem.upsert_relationships(
        [{"source_id": n, "target_id": "hall", "type": "located_in", "valid_at": T0} for n in NPCS]
    )
    facts.learn("Mira", "works_at", "the forge")


def _hide(mem: Memory, facts: FactMemory) -> None:
    mem.record_event(
        "hid",
        actor="mira",
        changes=[("sword", "located_in", "chest")],
        at=T0 + timedelta(minutes=1),
        session_id="s1",
    )
    facts.learn("Mira", "works_at", "the mill")  # invalidates the forge


def _move(mem: Memory, facts: FactMemory) -> None:
    # Mira moves it with only Tomas watching: Ada's belief stays, the others' supersede.
    mem.record_event(
        "moved",
        actor="mira",
        changes=[("sword", "located_in", "yard")],
        present=["mira", "tomas"],
        at=T0 + timedelta(minutes=2),
        session_id="s1",
    )
    mem.tell("tomas", "ada", ("sword", "located_in", "yard"))
    facts.learn("Tomas", "mood", "grumpy")


def _recap(mem: Memory, facts: FactMemory) -> None:
    mem.save_recap("s1", "The sword went to the yard.", campaign="hall", audio=b"\x00\x01RIFF")
    facts.learn("Ada", "home", "the old mill house")


STEPS: tuple[Callable[[Memory, FactMemory], None], ...] = (_world, _hide, _move, _recap)


def minds_view(mem: Memory, facts: FactMemory) -> dict[str, Any]:
    """What a user reads of minds and governed facts, as JSON data."""
    store, tenant = mem.store, mem.tenant
    owned: dict[str, dict[str, list[str]]] = {}
    for record in store.dump(tenant).records:
        if record.owner is not None:
            owners = owned.setdefault(record.kind, {})
            owners[record.owner] = sorted(
                r.id for r in store.find_records(tenant, record.kind, owner=record.owner)
            )
    return {
        "beliefs": {npc: [b.model_dump(mode="json") for b in mem.beliefs(npc)] for npc in NPCS},
        "nested": {
            npc: [b.model_dump(mode="json") for b in mem.beliefs(npc, of="ada")]
            for npc in NPCS
            if npc != "ada"
        },
        "sword": {
            npc: (b.fact.object if (b := mem.belief(npc, "sword", "located_in")) else None)
            for npc in NPCS
        },
        "owned": owned,
        "events": [e.model_dump(mode="json") for e in mem.events()],
        "recaps": [r.model_dump(mode="json") for r in mem.recaps()],
        "facts": [repr(f) for f in facts.facts()],
        "audit": [repr(e) for e in facts.audit_log()],
        "verified": facts.verify(),
        "perspective": mem.identity_snapshot("ada", perspective=True).model_dump(mode="json"),
    }
