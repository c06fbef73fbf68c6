"""How graphmem's models are stored in Neo4j, and read back. No driver import, no I/O.

Nodes (every one carries ``tenant``; every query filters on it):

- ``(:Entity {tenant, id, type, name, name_lower, attributes_json, created_at,
  updated_at, embedding?})`` plus one *filter column* per top-level attribute (below).
- ``(:Turn {tenant, id, session, role, speaker, content, summary, turn_id, created_at,
  seq, trajectory_json?, artifacts_json?, hidden_artifacts_json?})``; an agent turn's
  trajectory digest and artifacts are JSON text, present only when the turn has them.
  ``(:Turn)-[:PARENT]->(:Turn)`` to the turn before it on its branch.
- ``(:Conversation {tenant, id, session, seq})-[:HEAD]->(:Turn)``; ``id`` is the session id,
  ``seq`` the number of turns ever appended (it orders turns created in the same
  microsecond).
- ``(:Chunk {tenant, id, text, source, attributes_json, created_at, search_text,
  embedding?, embedding_dim?})``; ``(:Turn|Chunk)-[:MENTIONS]->(:Entity)``.
- ``(:Record {tenant, kind, id, data_json, owner?, blob?, created_at, updated_at})`` plus
  the filter columns of its ``data`` (the policy layer's facts and audit entries, NPC
  beliefs, events, recaps); ``blob`` is a byte array.

Entity relationships are real relationship types, ``(:Entity)-[:<type>]->(:Entity)``, with
``confidence, source, created_at`` and, when not at their empty defaults, ``attributes_json,
session_id, confirmed, evidence, valid_at, invalid_at, expired_at`` (an absent one reads
as the default: no attributes, no session, not confirmed, no evidence, no time). A
relationship carries no ``tenant``: its ends do.

Attributes are JSON data, stored as ``attributes_json`` (the exact text, so nested values,
key order and the int / float distinction round-trip). For attribute-equality filtering
on the server, each top-level attribute is also stored as a filter column:

- ``attr.<key>``: the value itself when it is a string, a boolean, a float or an integer in
  Neo4j's 64-bit range, so ``find_entities`` compares natively (``1 = 1.0`` as in Python);
- ``attrjson.<key>``: canonical JSON text (sorted keys, integral floats written as
  integers) for lists, maps, ``null`` and larger integers.

A filter is turned into columns the same way and compared column by column, so a
filter value matches exactly the stored values equal to it. ``{"k": None}`` matches
entities that hold ``k`` with the value null, not entities without ``k``.

Retrieval adds two things to ``Entity``, ``Turn`` and ``Chunk`` nodes:

- ``search_text``: the text the full-text index of the label covers, written with every
  upsert: an entity's name, aliases and description (:func:`graphmem.core.models.entity_text`),
  a turn's content, a chunk's title attribute and text. Aliases live inside the JSON
  attributes, which Lucene cannot see; this denormalised copy is what it indexes.
- ``embedding`` (a float32 list, unit length) and ``embedding_dim`` (its length): the
  vector index covers ``embedding``; ``embedding_dim`` is what the per-(tenant, kind)
  dimension rule and ``count_embeddings`` read, through the ``(tenant, embedding_dim)``
  range index of each label.

Times are stored as Neo4j ``DateTime`` values in UTC and come back as aware Python
datetimes with microsecond precision.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from graphmem.core.models import (
    Artifact,
    ArtifactRef,
    Chunk,
    Entity,
    Provenance,
    Record,
    Relationship,
    Trajectory,
    Turn,
    chunk_search_text,
    entity_text,
)

__all__ = [
    "ATTR_JSON_PREFIX",
    "ATTR_PREFIX",
    "attribute_columns",
    "chunk_from_row",
    "chunk_props",
    "entity_from_row",
    "entity_props",
    "record_from_row",
    "record_props",
    "relationship_from_row",
    "relationship_columns",
    "nullable_column",
    "to_datetime",
    "turn_from_row",
    "turn_props",
    "wire_time",
]

ATTR_PREFIX = "attr."
ATTR_JSON_PREFIX = "attrjson."
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def wire_time(value: datetime | None) -> str | None:
    """A time as it is sent to a query: ISO 8601 text in UTC (``datetime(...)`` in Cypher).

    The driver's own conversion of a Python datetime into a Bolt DateTime costs some
    60-240 microseconds (it goes through ``neo4j.time``); a string costs one. Ingest sends
    several times per row, so the text is what crosses the wire.

    >>> wire_time(datetime(2024, 5, 1, 12, 0, 0, 123456, tzinfo=UTC))
    '2024-05-01T12:00:00.123456+00:00'
    """
    if value is None:
        return None
    if value.tzinfo is UTC:  # every model's time (Timestamp): no conversion needed
        return value.isoformat()
    if value.tzinfo is None:
        value = value.replace(tzinfo=UTC)
    return value.astimezone(UTC).isoformat()


def to_datetime(value: Any) -> datetime:
    """A stored time as an aware UTC datetime.

    ``value`` is what a query returns: ISO 8601 text (``toString(t.created_at)``, the fast
    way, see :func:`wire_time`), a driver ``DateTime``, or a Python datetime.

    >>> to_datetime("2024-05-01T12:00:00.123456789Z").isoformat()
    '2024-05-01T12:00:00.123456+00:00'
    """
    if isinstance(value, str):
        # A named zone after the offset ("...+01:00[Europe/Paris]") adds nothing here.
        parsed = datetime.fromisoformat(value.split("[", 1)[0] if "[" in value else value)
        if parsed.tzinfo is UTC:  # toString of a stored time: "...Z"
            return parsed
        value = parsed
    if hasattr(value, "to_native"):
        value = value.to_native()  # nanoseconds are cut to microseconds
    if not isinstance(value, datetime):
        raise TypeError(f"expected a stored DateTime, got {type(value).__name__}")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


def _optional_datetime(value: Any) -> datetime | None:
    return None if value is None else to_datetime(value)


def _canonical(value: Any) -> Any:
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        return int(value)
    if isinstance(value, Mapping):
        return {key: _canonical(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_canonical(item) for item in value]
    return value


def _canonical_json(value: Any) -> str:
    return json.dumps(_canonical(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def attribute_columns(attributes: Mapping[str, Any]) -> dict[str, Any]:
    """The filter columns of an attribute map (for storing, and for filtering alike).

    >>> attribute_columns({"level": 3, "tags": ["a"], "boss": None})
    {'attr.level': 3, 'attrjson.tags': '["a"]', 'attrjson.boss': 'null'}
    """
    columns: dict[str, Any] = {}
    for key, value in attributes.items():
        if isinstance(value, bool | str | float) or (
            isinstance(value, int) and _INT64_MIN <= value <= _INT64_MAX
        ):
            columns[ATTR_PREFIX + key] = value
        else:
            columns[ATTR_JSON_PREFIX + key] = _canonical_json(value)
    return columns


def _attributes_json(attributes: Mapping[str, Any]) -> str:
    if not attributes:
        return "{}"
    return json.dumps(attributes, separators=(",", ":"), ensure_ascii=False, allow_nan=False)


INDEXED_NAME_BYTES = 4_000
"""The longest casefolded name (UTF-8 bytes) kept in ``name_lower``, the property of the
``(tenant, name_lower)`` range index: a range index refuses a key over about 8 KB ("Property
value is too large to index"). A longer name goes to ``name_lower_long``, which no index
covers; ``entities/find_entities`` reads either."""


def _name_columns(name: str) -> dict[str, str]:
    folded = name.casefold()
    if len(folded) * 4 <= INDEXED_NAME_BYTES or len(folded.encode()) <= INDEXED_NAME_BYTES:
        return {"name_lower": folded}
    return {"name_lower_long": folded}


def entity_props(entity: Entity, tenant: str) -> dict[str, Any]:
    """Every stored property of an entity except its times and embedding."""
    props: dict[str, Any] = {
        "tenant": tenant,
        "id": entity.id,
        "type": entity.type,
        "name": entity.name,
        **_name_columns(entity.name),
        "attributes_json": _attributes_json(entity.attributes),
        "search_text": entity_text(entity),
    }
    props.update(attribute_columns(entity.attributes))
    return props


def entity_from_row(row: Mapping[str, Any]) -> Entity:
    """An entity from its stored properties."""
    return Entity(
        id=row["id"],
        type=row["type"],
        name=row["name"],
        attributes=json.loads(row["attributes_json"] or "{}"),
        created_at=to_datetime(row["created_at"]),
        updated_at=to_datetime(row["updated_at"]),
    )


def relationship_columns(rels: Sequence[Relationship]) -> dict[str, list[Any] | None]:
    """The stored properties of relationships except their times, one list per property.

    Row ``i`` of each list is ``rels[i]``'s (``relationships/upsert_relationships`` takes
    its rows as columns). A property at its empty default (no attributes, no evidence,
    not confirmed, no session) is null, so not stored: :func:`relationship_from_row`
    reads it back as the default; a column that is null in every row is null itself.
    Nor is the tenant stored: the two ends carry it, and no query reads it from the
    relationship (each property is work for the server, in the statement and in its
    commit).
    """
    provenances = [rel.provenance for rel in rels]
    columns: dict[str, list[Any]] = {
        "confidence": [p.confidence for p in provenances],
        "source": [p.source for p in provenances],
        "confirmed": [True if p.confirmed else None for p in provenances],
        "session_id": [p.session_id for p in provenances],
        "evidence": [list(p.evidence) if p.evidence else None for p in provenances],
        "attributes_json": [
            _attributes_json(rel.attributes) if rel.attributes else None for rel in rels
        ],
    }
    return {name: nullable_column(values) for name, values in columns.items()}


def nullable_column(values: list[Any]) -> list[Any] | None:
    """``values``, or None when every one of them is None (nothing to send row by row)."""
    return values if any(value is not None for value in values) else None


def relationship_from_row(row: Mapping[str, Any]) -> Relationship:
    """A relationship from its stored properties plus ``source_id, target_id, type``.

    The queries project each property by name, so one the relationship lacks comes as
    null: the model's default stands in for it (properties at their empty defaults are
    not stored, see :func:`relationship_columns`).
    """
    confidence = row.get("confidence")
    return Relationship(
        source_id=row["source_id"],
        target_id=row["target_id"],
        type=row["type"],
        attributes=json.loads(row.get("attributes_json") or "{}"),
        provenance=Provenance(
            session_id=row.get("session_id"),
            confidence=1.0 if confidence is None else confidence,
            source=row.get("source") or "stated",
            confirmed=bool(row.get("confirmed") or False),
            evidence=tuple(row.get("evidence") or ()),
        ),
        valid_at=_optional_datetime(row.get("valid_at")),
        invalid_at=_optional_datetime(row.get("invalid_at")),
        created_at=to_datetime(row["created_at"]),
        expired_at=_optional_datetime(row.get("expired_at")),
    )


def turn_props(turn: Turn) -> dict[str, Any]:
    """The stored properties of a turn (tenant and seq are set by the query)."""
    props: dict[str, Any] = {
        "id": turn.id,
        "session": turn.session_id,
        "role": turn.role,
        "speaker": turn.speaker,
        "content": turn.content,
        "search_text": turn.content,
        "summary": turn.summary,
        "turn_id": turn.turn_id,
        "created_at": turn.created_at,
        "trajectory_json": (
            turn.trajectory.model_dump_json() if turn.trajectory is not None else None
        ),
        "artifacts_json": _models_json(turn.artifacts),
        "hidden_artifacts_json": _models_json(turn.hidden_artifacts),
    }
    return {key: value for key, value in props.items() if value is not None}


def _models_json(models: tuple[Artifact, ...] | tuple[ArtifactRef, ...]) -> str | None:
    if not models:
        return None
    return json.dumps([m.model_dump(mode="json") for m in models], separators=(",", ":"))


_UNSET: Any = object()
_TURN_FIELDS = frozenset(Turn.model_fields)


def _stored_turn(**values: Any) -> Turn:
    """A ``Turn`` of values graphmem validated when it stored them: every field given.

    What ``Turn.model_construct`` does, without its per-field defaults pass (a third of
    its cost): 3 microseconds a turn instead of 10, and 15 for a validated one. A unit
    test checks that the result equals the validated turn (tests/unit/test_neo4j_offline).
    """
    turn = Turn.__new__(Turn)
    object.__setattr__(turn, "__dict__", values)
    object.__setattr__(turn, "__pydantic_fields_set__", set(_TURN_FIELDS))
    object.__setattr__(turn, "__pydantic_extra__", None)
    object.__setattr__(turn, "__pydantic_private__", None)
    return turn


def turn_from_row(row: Mapping[str, Any], parent_id: str | None = _UNSET) -> Turn:
    """A turn from its stored properties plus ``parent_id`` (from the row unless given).

    A turn graphmem stored is valid: one without an agent's trajectory or artifacts (the
    common case, thousands at a time in a history) is built without validating each
    value again, at a fraction of the cost (:func:`_stored_turn`).
    """
    fields: dict[str, Any] = {
        "id": row["id"],
        "parent_id": row.get("parent_id") if parent_id is _UNSET else parent_id,
        "session_id": row["session"],
        "role": row["role"],
        "speaker": row.get("speaker"),
        "content": row["content"],
        "summary": row.get("summary"),
        "turn_id": row.get("turn_id"),
        "created_at": to_datetime(row["created_at"]),
    }
    trajectory = row.get("trajectory_json")
    artifacts = row.get("artifacts_json")
    hidden = row.get("hidden_artifacts_json")
    if trajectory is None and artifacts is None and hidden is None:
        return _stored_turn(**fields, trajectory=None, artifacts=(), hidden_artifacts=())
    return Turn(
        **fields,
        trajectory=Trajectory.model_validate_json(trajectory) if trajectory else None,
        artifacts=json.loads(artifacts or "[]"),
        hidden_artifacts=json.loads(hidden or "[]"),
    )


TURN_COLUMNS = (
    "id",
    "session",
    "role",
    "speaker",
    "content",
    "summary",
    "turn_id",
    "created_at",
    "trajectory_json",
    "artifacts_json",
    "hidden_artifacts_json",
)
"""The values of a turn, in order, where a query returns turns as lists
(``conversations/get_branch``)."""


def turn_from_values(values: Sequence[Any], parent_id: str | None) -> Turn:
    """A turn from its values in :data:`TURN_COLUMNS` order, and its parent's id."""
    turn_key, session, role, speaker, content, summary, turn_id, created_at, *extras = values
    if extras[0] is None and extras[1] is None and extras[2] is None:
        return _stored_turn(
            id=turn_key,
            parent_id=parent_id,
            session_id=session,
            role=role,
            speaker=speaker,
            content=content,
            summary=summary,
            turn_id=turn_id,
            created_at=to_datetime(created_at),
            trajectory=None,
            artifacts=(),
            hidden_artifacts=(),
        )
    return turn_from_row(dict(zip(TURN_COLUMNS, values, strict=True)), parent_id)


def record_props(record: Record, tenant: str) -> dict[str, Any]:
    """Every stored property of a record except its times."""
    props: dict[str, Any] = {
        "tenant": tenant,
        "kind": record.kind,
        "id": record.id,
        "data_json": _attributes_json(record.data),
        "owner": record.owner,
        "blob": record.blob,
    }
    props.update(attribute_columns(record.data))
    return props


def record_from_row(row: Mapping[str, Any]) -> Record:
    """A record from its stored properties."""
    return Record(
        id=row["id"],
        kind=row["kind"],
        data=json.loads(row["data_json"] or "{}"),
        owner=row.get("owner"),
        blob=None if row.get("blob") is None else bytes(row["blob"]),
        created_at=to_datetime(row["created_at"]),
        updated_at=to_datetime(row["updated_at"]),
    )


def chunk_props(chunk: Chunk, tenant: str) -> dict[str, Any]:
    """Every stored property of a chunk except its created_at, embedding and mentions.

    ``source`` is always present (None removes it), so ``SET c += props`` replaces it.
    """
    return {
        "tenant": tenant,
        "id": chunk.id,
        "text": chunk.text,
        "source": chunk.source,
        "attributes_json": _attributes_json(chunk.attributes),
        "search_text": chunk_search_text(chunk),
    }


def chunk_from_row(row: Mapping[str, Any]) -> Chunk:
    """A chunk from its stored properties."""
    return Chunk(
        id=row["id"],
        text=row["text"],
        source=row.get("source"),
        attributes=json.loads(row.get("attributes_json") or "{}"),
        created_at=to_datetime(row["created_at"]),
    )
