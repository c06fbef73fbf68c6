"""What the Neo4j rooms check before anything is sent, and the rows they send.

Input is validated in Python (a model that skipped validation is never trusted: its
ids and type names are checked again here); a batch becomes ``UNWIND`` rows, sent in
slices of :data:`~graphmem.backends.neo4j.plumbing.BATCH_ROWS`. Also the query files of
each node kind, so the kind-generic operations are written once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.backends.neo4j.mapping import (
    entity_props,
    nullable_column,
    record_props,
    relationship_columns,
    wire_time,
)
from graphmem.backends.neo4j.plumbing import (
    BATCH_ROWS,
    NO_LIMIT,
    T,
)
from graphmem.core.checks import check_ids
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    Entity,
    Record,
    Relationship,
    utcnow,
)

_DIRECTIONS = ("out", "in", "both")


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


def _check_direction(value: object) -> str:
    if not isinstance(value, str) or value not in _DIRECTIONS:
        raise InvalidInput(f"direction must be one of out, in, both; got {value!r}", value=value)
    return value


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


def _relationship_params(
    tenant: str, batch: Sequence[Relationship], indexes: Sequence[int]
) -> dict[str, Any]:
    """The parameters of relationships/upsert_relationships for ``batch[i]``, ``i`` in ``indexes``.

    Columns, not a map per row (see the query); times as text.
    """
    rels = [batch[index] for index in indexes]
    return {
        "tenant": tenant,
        "index": list(indexes),
        "source_ids": [rel.source_id for rel in rels],
        "target_ids": [rel.target_id for rel in rels],
        "created_at": [wire_time(rel.created_at) for rel in rels],
        "valid_at": nullable_column([wire_time(rel.valid_at) for rel in rels]),
        "invalid_at": nullable_column([wire_time(rel.invalid_at) for rel in rels]),
        "expired_at": nullable_column([wire_time(rel.expired_at) for rel in rels]),
        **relationship_columns(rels),
    }


def _relationship_key(rel: Relationship) -> tuple[str, str, str]:
    return rel.key
