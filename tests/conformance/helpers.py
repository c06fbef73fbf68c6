"""Small builders and comparisons shared by the conformance tests."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from graphmem import Entity, Provenance, Relationship, RelationshipFilter, TenantDump


def ent(entity_id: str, type: str = "npc", name: str | None = None, **attributes: Any) -> Entity:
    """An entity; its name defaults to the id capitalised."""
    return Entity(
        id=entity_id, type=type, name=name or entity_id.capitalize(), attributes=attributes
    )


def rel(
    source: str,
    target: str,
    type: str = "knows",
    *,
    confidence: float = 1.0,
    confirmed: bool = False,
    source_kind: str = "stated",
    valid_at: datetime | None = None,
    created_at: datetime | None = None,
    **attributes: Any,
) -> Relationship:
    """A relationship ``source -[type]-> target`` with the given provenance."""
    extra: dict[str, Any] = {}
    if created_at is not None:
        extra["created_at"] = created_at
    return Relationship(
        source_id=source,
        target_id=target,
        type=type,
        attributes=attributes,
        provenance=Provenance(confidence=confidence, confirmed=confirmed, source=source_kind),
        valid_at=valid_at,
        **extra,
    )


def ids(items: Iterable[Any]) -> list[str]:
    """The ids of entities or turns, in order."""
    return [item.id for item in items]


def keys(relationships: Iterable[Relationship]) -> list[tuple[str, str, str]]:
    """The (source, target, type) keys of relationships, in order."""
    return [r.key for r in relationships]


def flt(**kwargs: Any) -> RelationshipFilter:
    """A RelationshipFilter (short name for the many reads below)."""
    return RelationshipFilter(**kwargs)


OUT = RelationshipFilter()
IN = RelationshipFilter(direction="in")
BOTH = RelationshipFilter(direction="both")
EVERY = RelationshipFilter(direction="both", include_invalid=True)


def canonical(dump: TenantDump) -> dict[str, Any]:
    """A dump as plain, order-independent data, for equality checks."""

    def rows(items: Iterable[Any]) -> list[Any]:
        return sorted(
            (item.model_dump(mode="json") for item in items),
            key=lambda row: repr(sorted(row.items())),
        )

    return {
        "entities": rows(dump.entities),
        "relationships": rows(dump.relationships),
        "turns": rows(dump.turns),
        "heads": dict(sorted(dump.heads.items())),
    }
