"""Small builders and comparisons shared by the conformance tests."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from datetime import datetime
from typing import Any

from graphmem import (
    ChangeSet,
    Chunk,
    Entity,
    EntityFilter,
    GraphStore,
    Provenance,
    Record,
    Relationship,
    RelationshipFilter,
    TenantDump,
    Turn,
    TurnFilter,
)
from graphmem.core.store import ScopedSearch


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
        "records": rows(dump.records),
    }


StoreCall = Callable[[GraphStore, str], Any]

# One call of every GraphStore method, with the tenant as given.
STORE_CALLS: dict[str, StoreCall] = {
    "upsert_entities": lambda s, t: s.upsert_entities(t, [ent("a")]),
    "get_entity": lambda s, t: s.get_entity(t, "a"),
    "get_entities": lambda s, t: s.get_entities(t, ["a"]),
    "update_entity": lambda s, t: s.update_entity(t, "a", name="X"),
    "delete_entities": lambda s, t: s.delete_entities(t, ["a"]),
    "find_entities": lambda s, t: s.find_entities(t, EntityFilter()),
    "count_entities": lambda s, t: s.count_entities(t),
    "upsert_relationships": lambda s, t: s.upsert_relationships(t, [rel("a", "b")]),
    "get_relationships": lambda s, t: s.get_relationships(t, "a", OUT),
    "delete_relationship": lambda s, t: s.delete_relationship(t, "a", "b", "knows"),
    "invalidate_relationship": lambda s, t: s.invalidate_relationship(t, "a", "b", "knows"),
    "count_relationships": lambda s, t: s.count_relationships(t),
    "relationship_patterns": lambda s, t: s.relationship_patterns(t),
    "relationship_cooccurrence": lambda s, t: s.relationship_cooccurrence(t),
    "neighbors": lambda s, t: s.neighbors(t, "a"),
    "find_path": lambda s, t: s.find_path(t, "a", "b"),
    "visible_subgraph": lambda s, t: s.visible_subgraph(t, "a"),
    "identity_snapshot": lambda s, t: s.identity_snapshot(t, "a"),
    "append_turn": lambda s, t: s.append_turn(t, Turn(session_id="s", role="user", content="x")),
    "append_turns": lambda s, t: s.append_turns(
        t, "s", [Turn(session_id="s", role="user", content="y")]
    ),
    "get_turn": lambda s, t: s.get_turn(t, "x"),
    "head": lambda s, t: s.head(t, "s"),
    "fork": lambda s, t: s.fork(t, "s", "x"),
    "branch": lambda s, t: s.branch(t, "s"),
    "list_turns": lambda s, t: s.list_turns(t, "s"),
    "count_turns": lambda s, t: s.count_turns(t),
    "delete_turn": lambda s, t: s.delete_turn(t, "x"),
    "delete_conversation": lambda s, t: s.delete_conversation(t, "s"),
    "search_turns": lambda s, t: s.search_turns(t, TurnFilter()),
    "list_sessions": lambda s, t: s.list_sessions(t),
    "put_records": lambda s, t: s.put_records(t, "note", [Record(id="r", kind="note")]),
    "get_record": lambda s, t: s.get_record(t, "note", "r"),
    "get_records": lambda s, t: s.get_records(t, "note", ["r"]),
    "find_records": lambda s, t: s.find_records(t, "note"),
    "delete_records": lambda s, t: s.delete_records(t, "note", ["r"]),
    "count_records": lambda s, t: s.count_records(t, "note"),
    "write_records": lambda s, t: s.write_records(
        t, [Record(id="r", kind="note")], delete={"other": ["x"]}
    ),
    "write_changes": lambda s, t: s.write_changes(
        t, ChangeSet(records=[Record(id="r", kind="note")], delete_entities=["x"])
    ),
    "dump": lambda s, t: s.dump(t),
    "load": lambda s, t: s.load(t, TenantDump(entities=[ent("a")])),
    "clear": lambda s, t: s.clear(t),
    "get_turns": lambda s, t: s.get_turns(t, ["x"]),
    "turn_window": lambda s, t: s.turn_window(t, ["x"]),
    "upsert_chunks": lambda s, t: s.upsert_chunks(t, [Chunk(id="c", text="some lore")]),
    "get_chunks": lambda s, t: s.get_chunks(t, ["c"]),
    "delete_chunks": lambda s, t: s.delete_chunks(t, ["c"]),
    "count_chunks": lambda s, t: s.count_chunks(t),
    "link_mentions": lambda s, t: s.link_mentions(t, "chunk", {"c": ["a"]}),
    "get_mentions": lambda s, t: s.get_mentions(t, "chunk", ["c"]),
    "find_mentioning": lambda s, t: s.find_mentioning(t, "chunk", ["a"]),
    "put_embeddings": lambda s, t: s.put_embeddings(t, "entity", ["a"], [[1.0, 0.0]]),
    "embedding_dimension": lambda s, t: s.embedding_dimension(t, "entity"),
    "count_embeddings": lambda s, t: s.count_embeddings(t, "entity"),
    "vector_search": lambda s, t: s.vector_search(t, "entity", [1.0, 0.0], 3),
    "fulltext_search": lambda s, t: s.fulltext_search(t, "entity", "a", 3),
    "hybrid_search": lambda s, t: s.hybrid_search(
        t, ["entity", "chunk"], vector=[1.0, 0.0], text="a", k=3
    ),
    "expand": lambda s, t: s.expand(t, ["a"]),
    "entity_version": lambda s, t: s.entity_version(t),
    "revision": lambda s, t: s.revision(t),
    "identity_expiry": lambda s, t: s.identity_expiry(t, "a", after=datetime(2030, 1, 1)),
    "search_context": lambda s, t: s.search_context(
        t, ["turn", "chunk"], vector=None, text="a", k=3, scope_ids=["a"], window_depth=1
    ),
    "gather": lambda s, t: s.gather(
        t, chunk_ids=["c"], mentions_of={"turn": ["x"]}, seed_ids=["a"], mentioning=["chunk"]
    ),
    "search_scoped": lambda s, t: s.search_scoped(
        t, [ScopedSearch(["chunk", "turn"], None, "a", 3, ["a"])], read=True
    ),
}
