"""An event's changes applied to the world state (what is true), beside the minds."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from graphmem.core.models import Provenance, Relationship, RelationshipFilter
from graphmem.core.store import GraphStore
from graphmem.minds.models import Event, Fact, MindSettings

__all__ = ["apply"]


def apply(
    store: GraphStore, tenant: str, settings: MindSettings, changes: Sequence[Fact], event: Event
) -> None:
    """Apply an event's changes to the world state (facts already newer are left)."""
    at = event.at
    provenance = Provenance(session_id=event.session_id, source="observed", evidence=(event.id,))
    fresh: list[Relationship] = []
    attributes: dict[str, dict[str, Any]] = {}
    removed: dict[str, list[str]] = {}
    for fact in changes:
        if fact.object is None:
            if fact.holds:
                attributes.setdefault(fact.subject, {})[fact.predicate] = fact.value
            else:
                removed.setdefault(fact.subject, []).append(fact.predicate)
            continue
        held = store.get_relationships(
            tenant, fact.subject, RelationshipFilter(types=(fact.predicate,))
        )
        if not settings.is_single_valued(fact.predicate):
            held = [r for r in held if r.target_id == fact.object]
        if any(r.valid_at is not None and r.valid_at > at for r in held):
            continue  # the world already holds a later state of this
        for rel in held:
            if (rel.valid_at or rel.created_at) >= at:
                continue  # it starts at or after `at`: ending it then leaves it no time
            if (rel.target_id == fact.object) != fact.holds:  # the fact this one ends
                store.invalidate_relationship(tenant, rel.source_id, rel.target_id, rel.type, at=at)
        if fact.holds and not any(r.target_id == fact.object for r in held):
            fresh.append(
                Relationship(
                    source_id=fact.subject,
                    target_id=fact.object,
                    type=fact.predicate,
                    provenance=provenance,
                    valid_at=at,
                )
            )
    if fresh:
        store.upsert_relationships(tenant, fresh)
    for subject in dict.fromkeys([*attributes, *removed]):
        store.update_entity(
            tenant,
            subject,
            attributes=attributes.get(subject),
            remove_attributes=removed.get(subject, ()),
        )
