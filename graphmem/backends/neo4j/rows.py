"""What the Neo4j rooms check before anything is sent, and the rows they send.

Input is validated in Python (a model that skipped validation is never trusted: its
ids and type names are checked again here); a batch becomes ``UNWIND`` rows, sent in
slices of :data:`~graphmem.backends.neo4j.plumbing.BATCH_ROWS`. Also the query files of
each node kind, so the kind-generic operations are written once.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.backends.neo4j.mapping import (
    entity_props,
    record_props,
    relationship_props,
    wire_time,
)
from graphmem.backends.neo4j.plumbing import (
    BATCH_ROWS,
    NO_LIMIT,
    T,
)
from graphmem.checks import (
    check_id,
    check_ids,
)
from graphmem.errors import InvalidInput
from graphmem.models import (
    Chunk,
    Entity,
    Record,
    Relationship,
    check_safe_name,
    utcnow,
)
from graphmem.store import check_owner

_DIRECTIONS = ("out", "in", "both")


_MENTION_KINDS = ("turn", "chunk")


@dataclass(frozen=True, slots=True)
class _MentionQueries:
    link: str
    get: str
    find: str
    add: str


@dataclass(frozen=True, slots=True)
class _KindQueries:
    """The label and query files of one node kind (entity, turn, chunk)."""

    label: str
    put_embeddings: str
    count_embeddings: str
    query_vectors: str
    scan_vectors: str
    query_text: str
    mentions: _MentionQueries | None = None


_KINDS: Mapping[str, _KindQueries] = {
    "entity": _KindQueries(
        label="Entity",
        put_embeddings="embeddings/put_entity_embeddings",
        count_embeddings="embeddings/count_entity_embeddings",
        query_vectors="search/query_entity_vectors",
        scan_vectors="search/scan_entity_vectors",
        query_text="search/query_entity_text",
    ),
    "turn": _KindQueries(
        label="Turn",
        put_embeddings="embeddings/put_turn_embeddings",
        count_embeddings="embeddings/count_turn_embeddings",
        query_vectors="search/query_turn_vectors",
        scan_vectors="search/scan_turn_vectors",
        query_text="search/query_turn_text",
        mentions=_MentionQueries(
            link="mentions/link_turn_mentions",
            get="mentions/get_turn_mentions",
            find="mentions/find_mentioning_turns",
            add="tenant/add_turn_mentions",
        ),
    ),
    "chunk": _KindQueries(
        label="Chunk",
        put_embeddings="embeddings/put_chunk_embeddings",
        count_embeddings="embeddings/count_chunk_embeddings",
        query_vectors="search/query_chunk_vectors",
        scan_vectors="search/scan_chunk_vectors",
        query_text="search/query_chunk_text",
        mentions=_MentionQueries(
            link="mentions/link_chunk_mentions",
            get="mentions/get_chunk_mentions",
            find="mentions/find_mentioning_chunks",
            add="tenant/add_chunk_mentions",
        ),
    ),
}
"""Every kind's queries, so the retrieval operations are written once for all kinds."""


def _node_kind(kind: object) -> _KindQueries:
    spec = _KINDS.get(kind) if isinstance(kind, str) else None
    if spec is None:
        raise InvalidInput(f"kind must be one of {tuple(_KINDS)}, got {kind!r}", kind=kind)
    return spec


def _mention_queries(kind: object) -> _MentionQueries:
    spec = _node_kind(kind)
    if spec.mentions is None:
        raise InvalidInput(
            f"kind must be one of ('turn', 'chunk') for mentions, got {kind!r}", kind=kind
        )
    return spec.mentions


def _limit(value: int | None) -> int:
    """A limit as sent to the server: :data:`NO_LIMIT` for none, and never above it."""
    return NO_LIMIT if value is None else min(value, NO_LIMIT)


def _check_scope(scope_ids: Sequence[str] | None) -> list[str] | None:
    if scope_ids is None:
        return None
    return list(dict.fromkeys(check_ids(scope_ids, "scope_ids")))


def _slices(rows: Sequence[T], size: int = BATCH_ROWS) -> Iterator[Sequence[T]]:
    for start in range(0, len(rows), size):
        yield rows[start : start + size]


def _check_items(items: object, model: type[T], what: str) -> list[T]:
    if isinstance(items, (model, str, Mapping)) or not isinstance(items, Iterable):  # noqa: UP038
        raise InvalidInput(f"{what} takes a list of {model.__name__}; wrap one in [...]")
    out = list(items)
    for index, item in enumerate(out):
        if not isinstance(item, model):
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}, not a {model.__name__}",
                index=index,
            )
    return out


def _check_chunks(items: object, what: str) -> list[Chunk]:
    chunks = _check_items(items, Chunk, what)
    for index, chunk in enumerate(chunks):
        check_id(chunk.id, f"{what}[{index}] id")
    return chunks


def _check_entities(items: object, what: str) -> list[Entity]:
    entities = _check_items(items, Entity, what)
    for index, entity in enumerate(entities):
        # model_construct skips validation: never trust a type that reaches the store.
        check_safe_name(entity.type, f"{what}[{index}] type")
        check_id(entity.id, f"{what}[{index}] id")
    return entities


def _check_relationships(items: object, what: str) -> list[Relationship]:
    rels = _check_items(items, Relationship, what)
    for index, rel in enumerate(rels):
        # The type becomes a relationship type through $(...): check it here, always.
        check_safe_name(rel.type, f"{what}[{index}] type")
        check_id(rel.source_id, f"{what}[{index}] source_id")
        check_id(rel.target_id, f"{what}[{index}] target_id")
    return rels


def _check_direction(value: object) -> str:
    if not isinstance(value, str) or value not in _DIRECTIONS:
        raise InvalidInput(f"direction must be one of out, in, both; got {value!r}", value=value)
    return value


def _check_records(items: object, kind: str | None, what: str) -> list[Record]:
    """Records of a batch, each of ``kind`` (when given) and with a safe kind name."""
    checked = _check_items(items, Record, what)
    for index, record in enumerate(checked):
        check_safe_name(record.kind, f"{what}[{index}].kind")
        if record.owner is not None:
            check_owner(record.owner)
        if record.blob is not None and not isinstance(record.blob, bytes):
            raise InvalidInput(f"{what}[{index}].blob must be bytes", index=index)
        if kind is not None and record.kind != kind:
            raise InvalidInput(
                f"{what}[{index}] is of kind {record.kind!r}, not {kind!r}; put records of "
                "one kind per call. Nothing was written.",
                index=index,
            )
    return checked


def _clock_mode(
    as_of: datetime | None, recorded_as_of: datetime | None
) -> tuple[str, datetime, datetime | None]:
    """The ``$mode, $at, $recorded`` of a relationship read at two clocks (Relationship.held)."""
    if as_of is not None:
        return "as_of", as_of, recorded_as_of
    if recorded_as_of is not None:
        return "current", recorded_as_of, recorded_as_of
    return "current", utcnow(), None


_Written = tuple[list[Record], list[Entity], list[Relationship]]
"""What a ``write_changes`` transaction stored: records, entities, relationships."""


def _dedupe(items: Sequence[T], key: Callable[[T], object]) -> list[T]:
    # The last item with a key wins, at the position of the first (like dict assignment).
    latest: dict[object, T] = {}
    for item in items:
        latest[key(item)] = item
    return list(latest.values())


def _entity_row(entity: Entity, tenant: str) -> dict[str, Any]:
    return {
        "id": entity.id,
        "created_at": wire_time(entity.created_at),
        "updated_at": wire_time(entity.updated_at),
        "props": entity_props(entity, tenant),
    }


def _record_row(record: Record, tenant: str) -> dict[str, Any]:
    return {
        "id": record.id,
        "created_at": wire_time(record.created_at),
        "updated_at": wire_time(record.updated_at),
        "props": record_props(record, tenant),
    }


_RELATIONSHIP_TIMES = ("valid_at", "invalid_at", "expired_at")


def _relationship_row(index: int, rel: Relationship, tenant: str) -> dict[str, Any]:
    """A row of relationships/upsert_relationships: times as text, next to the props."""
    props = relationship_props(rel, tenant)
    row = {
        "index": index,
        "source_id": rel.source_id,
        "target_id": rel.target_id,
        "type": rel.type,
        "created_at": wire_time(rel.created_at),
        "props": {k: v for k, v in props.items() if k not in _RELATIONSHIP_TIMES},
    }
    row.update((key, wire_time(props[key])) for key in _RELATIONSHIP_TIMES)
    return row


def _relationship_key(rel: Relationship) -> tuple[str, str, str]:
    return rel.key
