"""The storage contract in rooms: one small protocol per area of the store.

:class:`graphmem.core.store.GraphStore` is the union of these protocols; a store that has
every operation of a room *satisfies* it (:func:`satisfied_protocols`). Logic that needs
one area only can type its store with that room (conversations need a
:class:`ConversationStore`), and the conformance suite runs each test module on the
backends that satisfy the rooms it exercises.

::

    BaseStore           url, capabilities, close                 every store
    EntityGraphStore    entities, relationships, traversal,      the graph
                        identity snapshot, entity version
    ConversationStore   turns, branches, turn windows,           conversations
                        the session log
    SearchStore         chunks, mentions, embeddings, vector /   retrieval's indexes
                        full-text / hybrid search, expand,
                        search_context, gather
    RecordStore         generic records by kind, write_changes   policy, minds
                        (records with graph edges, atomically)
    TenantAdmin         dump, load, clear, list_tenants          the whole tenant

Every operation but ``list_tenants`` takes the tenant first. An empty tenant raises
``IdentityRequired`` before anything is read or written (fail closed); nothing is ever
read across tenants.

This module imports only :mod:`graphmem.core.models` (and numpy's types, for checking).
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias, runtime_checkable

from graphmem.core.models import (
    Chunk,
    Direction,
    Entity,
    EntityFilter,
    NodeKind,
    NPCIdentity,
    Record,
    Relationship,
    RelationshipFilter,
    SessionInfo,
    Subgraph,
    Turn,
    TurnFilter,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "MAX_TURN_WINDOW",
    "ROOMS",
    "WRITE_METHODS",
    "BaseStore",
    "ChangeSet",
    "ConversationStore",
    "EntityGraphStore",
    "Gathered",
    "JSONScalar",
    "RecordStore",
    "RelationshipPattern",
    "RoleCooccurrence",
    "SearchContext",
    "SearchHit",
    "SearchPair",
    "SearchStore",
    "TenantAdmin",
    "TenantDump",
    "protocol_members",
    "satisfied_protocols",
    "store_supports",
]

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


# --------------------------------------------------------------------------- rooms


@runtime_checkable
class BaseStore(Protocol):
    """What every store has, whatever rooms it furnishes: its URL, its flags and ``close``.

    Errors of every room: unknown ids raise ``NotFound``; bad arguments ``InvalidInput``
    (and a failed batch writes nothing); an empty tenant ``IdentityRequired``; a closed
    store ``StoreClosed``; an unreachable server ``BackendUnavailable``.
    """

    @property
    def url(self) -> str:
        """The URL the store was opened with, without any password."""
        ...

    @property
    def capabilities(self) -> frozenset[str]:
        """How this store behaves, as flags that are not operations.

        ``persistence``: the data outlives ``close`` (``file://``, Neo4j; not
        ``memory://``); ``concurrent_writers``: several processes may write at once;
        ``inline_reads``: reads are answered in process from memory, without I/O, so a
        server may call them on its event loop instead of a worker thread.

        Which operations a store has is not a flag: it is the protocols it satisfies
        (:func:`satisfied_protocols`, :func:`store_supports`).
        """
        ...

    def close(self) -> None:
        """Release the store; later calls raise ``StoreClosed``. Closing twice is fine."""
        ...


@runtime_checkable
class EntityGraphStore(Protocol):
    """The graph: entities, typed relationships between them, traversal and identity.

    Rules of this room:

    - Sizes (``depth``, ``max_depth``, ``max_nodes``, ``limit``) must be positive integers.
    - Entity and relationship type arguments must be safe names, wherever they are given
      (writes, deletes, filters): an unsafe one is ``InvalidInput``, never "not found".
      Stores re-check the types of the models they receive, since ``model_construct``
      skips validation.
    - An inserted item keeps the timestamps it carries; replacing one keeps its original
      ``created_at`` (so dump / load and export / import round-trip exactly).
    - Traversals and snapshots walk current facts only (``Relationship.is_current``).
    """

    # -- entities
    def upsert_entities(self, tenant: str, entities: Sequence[Entity]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored.

        A replaced entity keeps its original ``created_at`` and gets ``updated_at`` = now.
        Within one batch, the last entity with a given id wins. The result has one item
        per input position: the entity as stored for that id.
        """
        ...

    def get_entity(self, tenant: str, entity_id: str) -> Entity:
        """Return the entity; ``NotFound`` if there is none with that id."""
        ...

    def get_entities(self, tenant: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        ...

    def update_entity(
        self,
        tenant: str,
        entity_id: str,
        *,
        name: str | None = None,
        type: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        remove_attributes: Sequence[str] = (),
    ) -> Entity:
        """Merge ``attributes`` into the entity (and rename / retype it); bump ``updated_at``.

        ``remove_attributes`` are removed after the merge, so removal wins over a value
        set in the same call. ``NotFound`` if the entity is unknown.
        """
        ...

    def delete_entities(self, tenant: str, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed. Missing is fine."""
        ...

    def find_entities(self, tenant: str, filter: EntityFilter) -> list[Entity]:
        """Return entities matching every condition of ``filter``, ordered by id."""
        ...

    def count_entities(self, tenant: str) -> int:
        """Return the number of entities."""
        ...

    # -- relationships
    def upsert_relationships(
        self, tenant: str, relationships: Sequence[Relationship]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch.

        Both ends must exist, else ``InvalidInput`` naming the missing ids and nothing is
        written. A replaced relationship keeps its original ``created_at``. The result has
        one item per input position (the last of a repeated key wins).
        """
        ...

    def get_relationships(
        self, tenant: str, entity_id: str, filter: RelationshipFilter
    ) -> list[Relationship]:
        """Return relationships of an entity (outgoing by default); ``NotFound`` if unknown."""
        ...

    def delete_relationship(self, tenant: str, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed."""
        ...

    def invalidate_relationship(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        type: str,
        *,
        at: datetime | None = None,
    ) -> Relationship:
        """Mark a fact as no longer holding from ``at`` (default now) and expired now.

        The edge is kept, so ``as_of`` reads before ``at`` still return it. Invalidating
        again keeps the first ``expired_at``; ``at`` given again moves ``invalid_at``.
        Upserting the fact anew makes it current again.

        Raises:
            InvalidInput: ``at`` is at or before the fact's start (``valid_at``, else
                ``created_at``): it would hold at no world time. Nothing is written.
            NotFound: No such fact.
        """
        ...

    def count_relationships(self, tenant: str) -> int:
        """Return the number of relationships, invalidated ones included."""
        ...

    def relationship_patterns(self, tenant: str) -> list[RelationshipPattern]:
        """The tenant's vocabulary of facts: each (source type, type, target type) with a count.

        Current facts only (as traversals walk them), in one call; sorted by type, then
        source type, then target type. Graph question answering reads the relationship
        types a question may walk from here, so no code needs to know them in advance.
        """
        ...

    def relationship_cooccurrence(self, tenant: str) -> list[RoleCooccurrence]:
        """Which ways of taking part in facts go together on one entity, and how often.

        For every two roles (a relationship type and ``out`` or ``in``) that some entity has
        both of in current facts, how many entities have both; a role paired with itself
        counts the entities that have it. Sorted by the two roles. Entity types may be
        coarse (every person, year and genre a ``concept``): this tells that an entity
        that directed a film may have acted in one, but is never a film's release year.
        One call; it reads every current fact of the tenant.
        """
        ...

    def entity_version(self, tenant: str) -> str:
        """A token that changes whenever the tenant's entities change.

        Added, renamed, given other aliases, deleted, cleared: an entity linker built at
        one version holds every name of that version.

        Guaranteed for every write through this store object (every ``Memory`` and every
        layer sharing it, in this process). A server backend also folds in what the
        server holds, so writes by other processes are seen when they change the
        tenant's entity count or its latest ``updated_at`` (each rename, update and
        upsert of an existing entity does, stamped with the writer's clock). Opaque:
        compare tokens for equality only.
        """
        ...

    # -- traversal (current facts only)
    def neighbors(
        self,
        tenant: str,
        entity_id: str,
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        max_nodes: int | None = None,
        direction: Direction = "both",
    ) -> list[Entity]:
        """Breadth-first neighbours up to ``depth`` hops, start excluded.

        Ordered by hop count, then id. ``node_types`` filters what is returned (the walk
        passes through other types); ``rel_types`` restricts the edges walked;
        ``max_nodes`` caps the number returned (after the ``node_types`` filter).
        """
        ...

    def find_path(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """Shortest directed path, both ends included; ``[]`` when none within ``max_depth``."""
        ...

    def visible_subgraph(self, tenant: str, entity_id: str, *, depth: int = 1) -> Subgraph:
        """The entity, the entities within ``depth`` hops, and the current facts among them."""
        ...

    def identity_snapshot(
        self,
        tenant: str,
        entity_id: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """The entity, its current relationships (both directions) and their other ends.

        With ``as_of`` (world time) and / or ``recorded_as_of`` (memory time), the
        relationships that :meth:`~graphmem.Relationship.held` then instead, in the same
        one call.
        """
        ...


@runtime_checkable
class ConversationStore(Protocol):
    """Conversations: PARENT-linked turn trees, their active branch, and the session log.

    A conversation is the tree of one session's turns; its head marks the active branch
    (head back to root), and :meth:`fork` moves the head so the next turn branches from
    an older one.
    """

    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append ``turn`` after the head of its session's conversation; it becomes the head.

        The stored turn's ``parent_id`` is the previous head (``None`` for the first), and
        its ``created_at`` is bumped to one microsecond after the parent's if it is not
        later already, so time increases strictly along a branch. Concurrent appends to
        one conversation serialise: they form one chain and none is lost.
        """
        ...

    def append_turns(self, tenant: str, session_id: str, turns: Sequence[Turn]) -> list[Turn]:
        """Append ``turns`` as one chain after the session's head, atomically; the last is the head.

        The head is read and moved in the same transaction, so concurrent appends and
        batches to one conversation stay on one branch (never a silent fork): the first
        turn's parent is the head at the time of the write, each later turn's parent the
        turn before it; the parents the turns carry are ignored. Times increase strictly
        along the chain as in :meth:`append_turn`. All or nothing: a turn of another
        session, a repeated id or one that is taken raises ``InvalidInput`` and writes
        nothing. An empty list writes nothing and returns ``[]``.
        """
        ...

    def get_turn(self, tenant: str, turn_id: str) -> Turn:
        """Return a turn by id; ``NotFound`` if unknown."""
        ...

    def get_turns(self, tenant: str, turn_ids: Sequence[str]) -> list[Turn]:
        """Return the turns that exist among ``turn_ids``, in the order asked."""
        ...

    def head(self, tenant: str, session_id: str) -> Turn | None:
        """The head of the session's active branch, or None before the first turn."""
        ...

    def turn_window(self, tenant: str, turn_ids: Sequence[str], *, depth: int = 1) -> list[Turn]:
        """The turns asked and the turns next to them along PARENT, in one call.

        Every turn within ``depth`` PARENT edges of an asked turn: its ancestors up to
        ``depth`` steps back and its descendants up to ``depth`` steps forward on every
        branch (not its siblings). Each turn once, ordered by ``(created_at, id)``;
        unknown ids are skipped. Conversation recall reads a turn with its context
        through this (a reply ranks by the question it answers).

        Raises:
            InvalidInput: ``depth`` is not an integer within 0..``MAX_TURN_WINDOW``.
        """
        ...

    def fork(self, tenant: str, session_id: str, turn_id: str) -> Turn:
        """Move the session's head to an earlier turn; the next append branches from it.

        ``NotFound`` for an unknown turn; ``InvalidInput`` for a turn of another session.
        """
        ...

    def branch(self, tenant: str, session_id: str, *, limit: int | None = None) -> list[Turn]:
        """The active branch (head back to root), oldest first; the last ``limit`` if given."""
        ...

    def list_turns(self, tenant: str, session_id: str) -> list[Turn]:
        """Every turn of the session, all branches, in the order they were created."""
        ...

    def count_turns(self, tenant: str, session_id: str | None = None) -> int:
        """Turns in one session (all branches), or in every session of the tenant."""
        ...

    def delete_turn(self, tenant: str, turn_id: str) -> bool:
        """Delete a turn; its children are re-linked to its parent, so no branch breaks.

        If it was the head, the head moves to its parent (``None`` for a root).
        Returns whether it existed.
        """
        ...

    def delete_conversation(self, tenant: str, session_id: str) -> int:
        """Delete every turn of a session and its head; return how many turns there were."""
        ...

    def search_turns(self, tenant: str, filter: TurnFilter) -> list[Turn]:
        """Turns across sessions matching every condition of ``filter``, newest first."""
        ...

    def list_sessions(self, tenant: str) -> list[SessionInfo]:
        """Every session with at least one turn, most recently active first."""
        ...


@runtime_checkable
class SearchStore(Protocol):
    """Retrieval's indexes: chunks, MENTIONS, embeddings, vector / full-text search, expand.

    Each kind of node (``entity``, ``turn``, ``chunk``) has a vector index (one dimension
    per kind and tenant) and a full-text index; a graph scope (``scope_ids``) narrows a
    search to a set of entities and the turns and chunks that mention them.
    """

    # -- chunks and mentions
    def upsert_chunks(self, tenant: str, chunks: Sequence[Chunk]) -> list[Chunk]:
        """Insert or replace chunks by id, in one batch; return them as stored.

        A replaced chunk keeps its ``created_at``, its mentions and its embedding. The
        result has one item per input position (the last chunk with a given id wins).
        """
        ...

    def get_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> list[Chunk]:
        """Return the chunks that exist among ``chunk_ids``, in the order asked."""
        ...

    def delete_chunks(self, tenant: str, chunk_ids: Sequence[str]) -> int:
        """Delete chunks with their mentions and embeddings; return how many existed."""
        ...

    def count_chunks(self, tenant: str) -> int:
        """Return the number of chunks."""
        ...

    def link_mentions(
        self, tenant: str, kind: NodeKind, mentions: Mapping[str, Sequence[str]]
    ) -> int:
        """Set the entities each turn or chunk mentions: ``(node)-[:MENTIONS]->(entity)``.

        Args:
            tenant: Whose memory.
            kind: ``turn`` or ``chunk`` (``entity`` is ``InvalidInput``).
            mentions: For each node id, the entity ids it mentions. They *replace* the
                node's earlier mentions (an empty list removes them all).

        Returns:
            The number of ``MENTIONS`` edges the given nodes now have.

        Raises:
            InvalidInput: A node or an entity does not exist (the message names them);
                nothing is written.
        """
        ...

    def get_mentions(
        self, tenant: str, kind: NodeKind, node_ids: Sequence[str]
    ) -> dict[str, list[str]]:
        """The entity ids each turn or chunk mentions, sorted; nodes without any are absent."""
        ...

    def find_mentioning(
        self,
        tenant: str,
        kind: NodeKind,
        entity_ids: Sequence[str],
        *,
        limit: int | None = None,
    ) -> dict[str, list[str]]:
        """For each entity, the ids of the turns or chunks that mention it (sorted by id).

        ``limit`` caps the ids per entity. Entities mentioned nowhere (or unknown) are absent.
        """
        ...

    # -- embeddings and search indexes
    def put_embeddings(
        self, tenant: str, kind: NodeKind, ids: Sequence[str], vectors: ArrayLike
    ) -> None:
        """Store one embedding per node (replacing any earlier one) in the kind's index.

        Args:
            tenant: Whose memory.
            kind: ``entity``, ``turn`` or ``chunk``.
            ids: Node ids; each must exist. The last of a repeated id wins.
            vectors: A ``(len(ids), dimension)`` array of finite numbers. They are stored
                as float32 and compared by cosine similarity, so their length does not
                matter (a zero vector has no direction and is refused).

        Raises:
            InvalidInput: A node does not exist, the shape is wrong, a value is not finite,
                a vector is zero, or the dimension differs from the vectors already in the
                index (one dimension per kind and tenant). Nothing is written.
        """
        ...

    def embedding_dimension(self, tenant: str, kind: NodeKind) -> int | None:
        """The dimension of the kind's vector index, or None while it holds no vector."""
        ...

    def count_embeddings(self, tenant: str, kind: NodeKind) -> int:
        """How many nodes of the kind have an embedding."""
        ...

    def vector_search(
        self,
        tenant: str,
        kind: NodeKind,
        vector: ArrayLike,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes of the kind whose embeddings are nearest to ``vector`` (cosine).

        Exact on the embedded backend; a server backend answers from its vector index in
        one query. Best first; ``score`` is the cosine similarity (-1..1).

        Args:
            tenant: Whose memory.
            kind: ``entity``, ``turn`` or ``chunk``.
            vector: The query vector, of the index's dimension.
            k: How many hits at most (positive).
            scope_ids: Entity ids of a graph scope: only these entities, or only turns
                and chunks that mention at least one of them. Unknown ids match nothing.

        Raises:
            InvalidInput: ``k`` is not positive, or the vector's dimension differs from
                the index's, or it is not finite or zero. An empty index returns ``[]``.
        """
        ...

    def fulltext_search(
        self,
        tenant: str,
        kind: NodeKind,
        query: str,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes of the kind whose text best matches ``query`` (BM25-like), best first.

        Indexed text: a chunk's title attribute and text, a turn's content, an entity's
        name, aliases (``attributes["aliases"]``) and description. The query is plain
        words: any word may match (OR), quotes and operators of the index's query language
        are taken literally, never interpreted, so no query is a syntax error. A query with
        no searchable word returns ``[]``. ``scope_ids`` as in :meth:`vector_search`.

        Raises:
            InvalidInput: ``k`` is not positive or ``query`` is not a string.
        """
        ...

    def hybrid_search(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: ArrayLike | None,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
    ) -> dict[NodeKind, SearchPair]:
        """Vector and full-text search of several kinds in one call, as retrieval needs them.

        The answer for each kind equals ``SearchPair(vector_search(...), fulltext_search(...))``
        with the same arguments (an empty list for a side that is None). One call lets a
        backend check the request once and do the searches together: the embedded backend
        runs them under one lock; a server backend may answer them in fewer round trips.

        Raises:
            InvalidInput: As :meth:`vector_search` and :meth:`fulltext_search`, or both
                ``vector`` and ``text`` are None, or ``kinds`` is not a list of kinds.
        """
        ...

    def expand(
        self,
        tenant: str,
        seed_ids: Sequence[str],
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
    ) -> Subgraph:
        """The seeds and every entity within ``depth`` hops of any of them, in one walk.

        Walks current facts only, of ``rel_types`` when given, in ``direction``; with
        ``within``, only through (and to) those entity ids. Entities come nearest first,
        then by id, seeds first; ``max_nodes`` caps them (seeds always included). The
        relationships are the current facts of the allowed types among the returned
        entities, ordered by key.

        Raises:
            NotFound: A seed is not an entity of the tenant.
        """
        ...

    # -- retrieval: what one retrieve reads, in few calls
    def search_context(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: ArrayLike | None,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
        window_depth: int | None = None,
    ) -> SearchContext:
        """:meth:`hybrid_search`, with what retrieval reads beside it, in one call.

        The turn hits' window (``window_depth``: as
        :meth:`ConversationStore.turn_window`, of the ids of both turn rankings; None: no
        window), the tenant's :meth:`EntityGraphStore.entity_version`, and which
        ``scope_ids`` are not entities (the scope of a search matches nothing for them;
        retrieval refuses such a scope). A server backend answers it in one round trip in
        the usual case. It belongs to this room because it is a search; a store that has
        it reads the other rooms' turns and entities to answer it.

        Raises:
            InvalidInput: As :meth:`hybrid_search`, or a ``window_depth`` that is not an
                integer within 0..``MAX_TURN_WINDOW``.
        """
        ...

    def gather(
        self,
        tenant: str,
        *,
        chunk_ids: Sequence[str] = (),
        turn_ids: Sequence[str] = (),
        entity_ids: Sequence[str] = (),
        mentions_of: Mapping[NodeKind, Sequence[str]] | None = None,
        seed_ids: Sequence[str] = (),
        seed_mentions: bool = False,
        depth: int = 0,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
        mentioning: Sequence[NodeKind] = (),
        mentioning_limit: int | None = None,
    ) -> Gathered:
        """Read nodes, walk the graph from seeds and reach what mentions it, in one call.

        Each part equals the protocol call it stands for with the same arguments:
        ``get_chunks(chunk_ids)``, ``get_turns(turn_ids)``, ``get_entities(entity_ids)``,
        ``get_mentions`` of each kind of ``mentions_of``; then ``expand`` from the seeds
        (``depth``, ``rel_types``, ``direction``, ``within``, ``max_nodes``) and, for each
        kind of ``mentioning``, ``find_mentioning`` of every entity the walk returned
        (``mentioning_limit`` ids each). The seeds are ``seed_ids`` and, with
        ``seed_mentions``, the entities the ``mentions_of`` nodes mention that are within
        ``within`` (when given). Unlike ``expand``, a seed that is not an entity is left
        out, not an error (a retrieval's seeds may name an entity deleted meanwhile).
        A server backend answers it in one round trip.

        Raises:
            InvalidInput: As the calls it stands for (``graphmem.core.store.check_gather``).
        """
        ...


@runtime_checkable
class RecordStore(Protocol):
    """Generic records: JSON documents of a safe-named kind, by id, with an owner.

    What the policy layer and the minds keep beside the graph (governed facts, audit
    entries, beliefs): written atomically in batches, found by data equality and time.
    """

    def put_records(self, tenant: str, kind: str, records: Sequence[Record]) -> list[Record]:
        """Insert or replace records of one ``kind`` by id, in one atomic batch.

        Every record's ``kind`` must equal ``kind`` (a safe name), else ``InvalidInput``
        and nothing is written. A new record is stored with its own ``created_at`` and
        ``updated_at``; a replaced one keeps the stored ``created_at`` and gets
        ``updated_at`` = max(now, that ``created_at``). Within one batch the last record
        with a given id wins. The result has one item per input position: the record as
        stored for that id.
        """
        ...

    def write_records(
        self,
        tenant: str,
        put: Sequence[Record] = (),
        delete: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Record]:
        """Put records of any kinds and delete records by kind and id, in one atomic write.

        Either every change is made or none is (one SQLite transaction on ``file://``, one
        transaction on Neo4j): a governed fact and its audit entry are never apart. Puts
        follow :meth:`put_records` (times, last of a ``(kind, id)`` wins, one result per
        input position); ``delete`` maps a kind to the ids to delete (missing ids are
        fine). Bad input anywhere (an unsafe kind, a record put and deleted in the same
        call) is ``InvalidInput`` and writes nothing.
        """
        ...

    def write_changes(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """Put and delete records, entities and relationships, in one atomic write.

        Either every change is made or none is (one SQLite transaction on ``file://``,
        one transaction on Neo4j): a governed fact, its audit entry and the graph edge
        that shows it are never apart. Changes are made in this order: relationships
        deleted, entities deleted (with their relationships), entities put, relationships
        put, records put, records deleted. Each follows the rules of its own batch call
        (times kept, last of a key wins); a relationship put needs both ends to exist
        once the call's entities are written, else ``InvalidInput`` naming the missing
        ids. Bad input anywhere (see ``graphmem.core.store.check_changes``) is
        ``InvalidInput`` and writes nothing.

        It is in this room, not in :class:`EntityGraphStore`, because it is the records'
        atomic write widened: :meth:`write_records` rides on it, and its caller is the
        policy layer, whose governed facts are records first and graph edges while
        believed. A store that has it writes the graph too (it satisfies
        :class:`EntityGraphStore` as well), since a change set may name entities and
        relationships.

        Returns:
            What was stored: ``records``, ``entities`` and ``relationships`` with one item
            per input position, as :meth:`put_records`,
            :meth:`EntityGraphStore.upsert_entities` and
            :meth:`EntityGraphStore.upsert_relationships` return them; the deletes as
            checked.
        """
        ...

    def get_record(self, tenant: str, kind: str, record_id: str) -> Record:
        """Return one record; ``NotFound`` if there is no record of ``kind`` with that id."""
        ...

    def get_records(self, tenant: str, kind: str, record_ids: Sequence[str]) -> list[Record]:
        """Return the records of ``kind`` that exist among ``record_ids``, in the order asked.

        One call (one round trip) for the whole list, by the records' key.
        """
        ...

    def find_records(
        self,
        tenant: str,
        kind: str,
        *,
        where: Mapping[str, JSONScalar] | None = None,
        owner: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: int | None = None,
        newest_first: bool = True,
    ) -> list[Record]:
        """Records of ``kind`` matching every condition, ordered by ``(created_at, id)``.

        Args:
            tenant: Whose records.
            kind: The record kind (a safe name).
            where: Equality on top-level keys of ``data``, every pair must match; a key
                missing from ``data`` never matches (not even ``None``). Values are JSON
                scalars compared as JSON (``1`` equals ``1.0``, ``True`` is not ``1``).
            owner: Only records with this ``owner``, found through an index (so the cost
                follows the owner's records, not the kind's).
            since: Created at or after this time.
            until: Created before this time.
            limit: At most this many (positive), taken after ordering.
            newest_first: Order newest first (default) or oldest first.
        """
        ...

    def delete_records(self, tenant: str, kind: str, ids: Sequence[str]) -> int:
        """Delete records of ``kind`` by id, in one batch; return how many existed."""
        ...

    def count_records(self, tenant: str, kind: str) -> int:
        """Return the number of records of ``kind``."""
        ...


@runtime_checkable
class TenantAdmin(Protocol):
    """The whole tenant at once: dump, load and clear; and which tenants exist."""

    def dump(self, tenant: str) -> TenantDump:
        """Everything the tenant holds."""
        ...

    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump into the tenant at once: all of it, or nothing if any part is bad.

        Entities, relationships and records are upserted (relationship ends must exist in
        the store or the dump; records follow :meth:`RecordStore.put_records`). Turns must
        have new ids; each parent must be in the dump or already in the same session. For each
        session in ``dump.heads`` the head becomes that turn; ``None`` there means the
        last turn of that session in the dump. Sessions with turns in the dump but absent
        from ``heads`` get that same default.
        Chunks are upserted; mentions must name nodes and entities in the store or the dump.
        """
        ...

    def clear(self, tenant: str) -> None:
        """Delete everything the tenant holds."""
        ...

    def list_tenants(self) -> list[str]:
        """Every tenant that holds something (an entity, turn, chunk or record), sorted.

        An administrator's question (``graphmem tenants``): it is the one operation that
        sees across tenants, and it returns their names only.
        """
        ...


ROOMS: tuple[type[Any], ...] = (
    BaseStore,
    EntityGraphStore,
    ConversationStore,
    SearchStore,
    RecordStore,
    TenantAdmin,
)
"""Every room of the contract, in order; :class:`graphmem.core.store.GraphStore` is their union."""


WRITE_METHODS = frozenset(
    {
        "upsert_entities",
        "update_entity",
        "delete_entities",
        "upsert_relationships",
        "delete_relationship",
        "invalidate_relationship",
        "append_turn",
        "append_turns",
        "fork",
        "delete_turn",
        "delete_conversation",
        "put_records",
        "write_records",
        "write_changes",
        "delete_records",
        "upsert_chunks",
        "delete_chunks",
        "link_mentions",
        "put_embeddings",
        "load",
        "clear",
    }
)
"""The operations of the contract that write: a read-only store refuses each of them."""

_members: dict[type[Any], dict[str, bool]] = {}


def _operations(protocol: type[Any]) -> dict[str, bool]:
    """The protocol's public members, each mapped to whether it is a method."""
    members = _members.get(protocol)
    if members is None:
        if not getattr(protocol, "_is_protocol", False):
            raise TypeError(f"{protocol!r} is not a typing.Protocol")
        members = {}
        for cls in protocol.__mro__:
            if cls is Protocol or not getattr(cls, "_is_protocol", False):
                continue
            for name, value in vars(cls).items():
                if not name.startswith("_") and (callable(value) or isinstance(value, property)):
                    members.setdefault(name, not isinstance(value, property))
        _members[protocol] = members
    return members


def protocol_members(protocol: type[Any]) -> frozenset[str]:
    """The public operations and properties a protocol (a room, or a union of rooms) names.

    >>> sorted(protocol_members(TenantAdmin))
    ['clear', 'dump', 'list_tenants', 'load']

    Raises:
        TypeError: ``protocol`` is not a ``typing.Protocol``.
    """
    return frozenset(_operations(protocol))


def store_supports(store: object, protocol: type[Any]) -> bool:
    """Whether ``store`` has every member of ``protocol``: each present, methods callable.

    A structural check like ``isinstance`` with a runtime-checkable protocol, but without
    evaluating properties (so it answers for a closed store too; a property of the
    protocol may be a plain attribute of the store). It calls nothing: a backend that has
    an operation but cannot run it in some setting still raises ``UnsupportedOperation``
    with the reason when it is called.

    Raises:
        TypeError: ``protocol`` is not a ``typing.Protocol``.
    """
    for name, is_method in _operations(protocol).items():
        try:
            value = inspect.getattr_static(store, name)
        except AttributeError:
            return False
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if is_method and not callable(value):
            return False
    return True


def satisfied_protocols(store: object) -> frozenset[type[Any]]:
    """The rooms of the contract that ``store`` satisfies (see :func:`store_supports`).

    >>> import graphmem
    >>> store = graphmem.open_store("memory://")
    >>> satisfied_protocols(store) == frozenset(ROOMS)
    True
    >>> store.close()
    """
    return frozenset(room for room in ROOMS if store_supports(store, room))
