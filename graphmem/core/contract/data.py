"""The data the contract's operations take and return: dumps, hits, change sets."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, TypeAlias

from graphmem.core.models import (
    Chunk,
    Entity,
    NodeKind,
    Record,
    Relationship,
    Subgraph,
    Turn,
)

MAX_TURN_WINDOW = 8
"""The largest ``depth`` of :meth:`ConversationStore.turn_window` (server backends bound
their path patterns by it)."""

JSONScalar: TypeAlias = str | int | float | bool | None
"""A value ``find_records(where=...)`` compares against: JSON equality, so ``1 == 1.0`` but
``True != 1``."""


# --------------------------------------------------------------------------- data


@dataclass(slots=True)
class TenantDump:
    """Everything one tenant holds, as plain models (for export, import and copying).

    Attributes:
        entities: Every entity.
        relationships: Every relationship, invalidated ones included.
        turns: Every turn of every conversation, all branches.
        heads: The head turn id of each conversation, by session id.
        records: Every generic record, of every kind.
        chunks: Every chunk.
        mentions: ``(kind, node_id, entity_id)`` for every ``MENTIONS`` edge, kind being
            ``turn`` or ``chunk``.

    Embeddings are not part of a dump: they are derived data, recomputed by the
    embedder that made them (a ``file://`` store keeps them in its file all the same).
    """

    entities: list[Entity] = field(default_factory=list)
    relationships: list[Relationship] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    heads: dict[str, str | None] = field(default_factory=dict)
    records: list[Record] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    mentions: list[tuple[str, str, str]] = field(default_factory=list)


class SearchHit(NamedTuple):
    """One hit of :meth:`SearchStore.vector_search` or :meth:`SearchStore.fulltext_search`."""

    id: str
    """The id of the entity, turn or chunk."""
    score: float
    """Cosine similarity (vector search) or the full-text relevance (higher is better)."""


class RelationshipPattern(NamedTuple):
    """One shape of fact a tenant holds, from :meth:`EntityGraphStore.relationship_patterns`."""

    source_type: str
    """The entity type at the start of the facts."""
    type: str
    """The relationship type."""
    target_type: str
    """The entity type at the end of the facts."""
    facts: int
    """How many current facts have this shape."""


class RoleCooccurrence(NamedTuple):
    """How many entities take part in facts in two ways (``relationship_cooccurrence``).

    A *role* is a relationship type and a direction: ``("directed_by", "in")`` is being the
    target of a ``directed_by`` fact (a director). Roles are ordered (``type_a``,
    ``direction_a``) <= (``type_b``, ``direction_b``); a pair of a role with itself counts
    the entities that have the role.
    """

    type_a: str
    direction_a: str
    """``out``: the entity is the source of the facts; ``in``: their target."""
    type_b: str
    direction_b: str
    entities: int
    """How many entities have both roles (in current facts)."""


class SearchPair(NamedTuple):
    """The two rankings of one kind from :meth:`SearchStore.hybrid_search`."""

    vector: list[SearchHit]
    """What :meth:`SearchStore.vector_search` gives (``[]`` without a query vector)."""
    text: list[SearchHit]
    """What :meth:`SearchStore.fulltext_search` gives (``[]`` without query text)."""


@dataclass(frozen=True, slots=True)
class ChangeSet:
    """Records, entities and relationships to put and delete in one atomic write.

    The argument (and the result) of :meth:`RecordStore.write_changes`. Every field is
    optional; puts follow the rules of the batch call of their kind (``put_records``,
    ``upsert_entities``, ``upsert_relationships``), deletes those of ``delete_records``,
    ``delete_entities`` (an entity goes with its relationships) and
    ``delete_relationship``; a missing id or key to delete is fine.

    Attributes:
        records: Records of any kinds to insert or replace.
        delete_records: Record ids to delete, by kind.
        entities: Entities to insert or replace.
        delete_entities: Entity ids to delete, with their relationships.
        relationships: Relationships to insert or replace; both ends must exist once the
            entities of the same call are written.
        delete_relationships: ``(source_id, target_id, type)`` keys to delete.
    """

    records: Sequence[Record] = ()
    delete_records: Mapping[str, Sequence[str]] = field(default_factory=dict)
    entities: Sequence[Entity] = ()
    delete_entities: Sequence[str] = ()
    relationships: Sequence[Relationship] = ()
    delete_relationships: Sequence[tuple[str, str, str]] = ()

    @property
    def empty(self) -> bool:
        """Whether it changes nothing."""
        return not (
            self.records
            or any(self.delete_records.values())
            or self.entities
            or self.delete_entities
            or self.relationships
            or self.delete_relationships
        )


@dataclass(frozen=True, slots=True)
class SearchContext:
    """What :meth:`SearchStore.search_context` gives: the searches and what ranks them.

    Attributes:
        hits: Each kind's two rankings, exactly as :meth:`SearchStore.hybrid_search`.
        window: The turns of the turn hits (both rankings) and those within
            ``window_depth`` PARENT edges of them, as :meth:`ConversationStore.turn_window`
            (``[]`` when no window was asked or no turn was hit).
        entity_version: The tenant's entity version
            (:meth:`EntityGraphStore.entity_version`).
        unknown_scope: The ids of ``scope_ids`` that are not entities of the tenant, in
            the order given.
    """

    hits: dict[NodeKind, SearchPair]
    window: list[Turn]
    entity_version: str
    unknown_scope: list[str]


@dataclass(frozen=True, slots=True)
class Gathered:
    """What :meth:`SearchStore.gather` gives (each part empty when not asked for).

    Attributes:
        chunks: The chunks asked that exist, in the order asked (as ``get_chunks``).
        turns: The turns asked that exist, in the order asked (as ``get_turns``).
        entities: The entities asked that exist, in the order asked (as ``get_entities``).
        mentions: For each kind of ``mentions_of``, what its nodes mention (as
            ``get_mentions``).
        subgraph: The walk from the seeds (as ``expand``; empty without seeds).
        mentioning: For each kind of ``mentioning``, the nodes mentioning each entity of
            the subgraph, keyed by entity id in id order (as ``find_mentioning``).
    """

    chunks: list[Chunk] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
    entities: list[Entity] = field(default_factory=list)
    mentions: dict[NodeKind, dict[str, list[str]]] = field(default_factory=dict)
    subgraph: Subgraph = field(default_factory=lambda: Subgraph(entities=(), relationships=()))
    mentioning: dict[NodeKind, dict[str, list[str]]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class ScopedSearch:
    """One search of :meth:`SearchStore.search_scoped`: a scoped ``hybrid_search``.

    Attributes:
        kinds: The kinds to search (as ``hybrid_search``).
        vector: The query vector, or None for full text only.
        text: The query text, or None for the vector side only.
        k: Hits per kind and side.
        scope_ids: The entities the search is narrowed to (required: the nodes that
            mention one of them, or those entities for ``entity``).
    """

    kinds: Sequence[NodeKind]
    vector: object
    text: str | None
    k: int
    scope_ids: Sequence[str]


@dataclass(frozen=True, slots=True)
class ScopedHits:
    """What :meth:`SearchStore.search_scoped` gives.

    Attributes:
        hits: One answer per search, in the order given, each exactly what
            :meth:`SearchStore.hybrid_search` gives for it.
        chunks: With ``read``, every chunk hit of any search (either side), once, in id
            order (as ``get_chunks``).
        turns: With ``read``, every turn hit likewise (as ``get_turns``).
    """

    hits: list[dict[NodeKind, SearchPair]] = field(default_factory=list)
    chunks: list[Chunk] = field(default_factory=list)
    turns: list[Turn] = field(default_factory=list)
