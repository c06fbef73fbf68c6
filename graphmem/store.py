"""The storage contract: the ``GraphStore`` protocol, the backend registry and ``open_store``.

Every backend implements :class:`GraphStore`; ``tests/conformance`` is the executable form
of this contract and runs against every registered backend. The protocol is
coarse-grained on purpose: batch writes, and graph questions (snapshot, neighbours, path,
the active branch of a conversation) answered natively by the backend in one call, so
that a server backend answers each in one round trip.

Every operation takes the tenant first. An empty tenant raises ``IdentityRequired``
before anything is read or written (fail closed); nothing is ever read across tenants.

Backends register a URL scheme. Built-in: ``memory://`` and ``file:///path`` (the
embedded networkx backend). Plugins join through the ``graphmem.backends`` entry-point
group (name = scheme, value = ``"module:factory"``) or :func:`register_backend`.
"""

from __future__ import annotations

import importlib
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, NamedTuple, Protocol, TypeAlias, runtime_checkable
from urllib.parse import urlsplit

from graphmem.checks import (
    INVISIBLE_CHARACTERS,
    as_utc,
    check_owner,
    check_printable_name,
    check_tenant,
    check_text,
)
from graphmem.errors import (
    BackendUnavailable,
    IdentityRequired,
    InvalidInput,
    StoreReadOnly,
    UnsupportedOperation,
)
from graphmem.models import (
    NODE_KINDS,
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
    check_safe_name,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "ENTRY_POINT_GROUP",
    "INVISIBLE_CHARACTERS",
    "MAX_TURN_WINDOW",
    "BackendFactory",
    "ChangeSet",
    "Gathered",
    "GraphStore",
    "JSONScalar",
    "ReadOnlyStore",
    "RelationshipPattern",
    "RoleCooccurrence",
    "SearchContext",
    "SearchHit",
    "SearchPair",
    "StoreCheck",
    "TenantDump",
    "TraceEvent",
    "Tracer",
    "WRITE_METHODS",
    "as_utc",
    "check_changes",
    "check_owner",
    "check_printable_name",
    "check_gather",
    "check_record_deletes",
    "check_search_kinds",
    "check_store",
    "check_tenant",
    "check_where",
    "check_window_depth",
    "stored_changes",
    "install_schema",
    "open_store",
    "redact_url",
    "register_backend",
    "registered_schemes",
    "search_each",
    "traced",
]

ENTRY_POINT_GROUP = "graphmem.backends"

MAX_TURN_WINDOW = 8
"""The largest ``depth`` of :meth:`GraphStore.turn_window` (server backends bound their
path patterns by it)."""

JSONScalar: TypeAlias = str | int | float | bool | None
"""A value ``find_records(where=...)`` compares against: JSON equality, so ``1 == 1.0`` but
``True != 1``."""


def check_record_deletes(
    delete: Mapping[str, Sequence[str]] | None, put: Sequence[Record] = ()
) -> dict[str, list[str]]:
    """Check ``write_records``' deletes for any backend: safe kinds to lists of unique ids.

    Raises:
        InvalidInput: Not a mapping of safe kind names to lists of non-empty string ids,
            or a ``(kind, id)`` that ``put`` writes too.
    """
    if delete is None:
        return {}
    if not isinstance(delete, Mapping):
        raise InvalidInput("delete maps record kinds to lists of ids, e.g. {'fact': ['f1']}")
    out: dict[str, list[str]] = {}
    for kind, ids in delete.items():
        check_safe_name(kind, "record kind")
        if isinstance(ids, str) or not isinstance(ids, Sequence):
            raise InvalidInput(f"delete[{kind!r}] takes a list of ids; wrap a single id in [...]")
        for value in ids:
            if not isinstance(value, str) or not value:
                raise InvalidInput(f"delete[{kind!r}]: {value!r} is not an id (a non-empty str)")
        if ids:
            out[kind] = list(dict.fromkeys(ids))
    both = sorted(
        {(r.kind, r.id) for r in put if isinstance(r, Record) and r.id in out.get(r.kind, ())}
    )
    if both:
        raise InvalidInput(
            f"records {both} are both put and deleted in one write: do one or the other. "
            "Nothing was written.",
        )
    return out


def check_where(where: Mapping[str, JSONScalar] | None) -> dict[str, JSONScalar]:
    """Check a ``find_records`` condition map (data keys to JSON scalars) for any backend."""
    if where is None:
        return {}
    if not isinstance(where, Mapping):
        raise InvalidInput("where must be a mapping of data keys to JSON scalars")
    out: dict[str, JSONScalar] = {}
    for key, value in where.items():
        if not isinstance(key, str) or not key:
            raise InvalidInput(f"where has key {key!r}: keys must be non-empty strings")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise InvalidInput(
                f"where[{key!r}] is a {type(value).__name__}: compare with JSON scalars only "
                "(str, int, float, bool, None)"
            )
        if isinstance(value, float) and value != value:
            raise InvalidInput(f"where[{key!r}] is NaN, which equals nothing")
        check_text(key, "a where key")
        if isinstance(value, str):
            check_text(value, f"where[{key!r}]")
        out[key] = value
    return out


# --------------------------------------------------------------------------- tracing


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One store operation or query, as reported to a tracer.

    Attributes:
        name: The operation (embedded backend) or query file name (server backends).
        params: Its parameters.
        seconds: Wall time it took.
        round_trips: Server round trips it made (0 for the embedded backend).
    """

    name: str
    params: Mapping[str, Any]
    seconds: float
    round_trips: int = 0


Tracer = Callable[[TraceEvent], None]


@contextmanager
def traced(
    tracer: Tracer | None, name: str, params: Mapping[str, Any], round_trips: int = 0
) -> Iterator[None]:
    """Time the enclosed block and report it to ``tracer`` (no cost when it is None)."""
    if tracer is None:
        yield
        return
    start = time.perf_counter()
    try:
        yield
    finally:
        tracer(TraceEvent(name, dict(params), time.perf_counter() - start, round_trips))


# --------------------------------------------------------------------------- contract


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


@dataclass(frozen=True, slots=True)
class ChangeSet:
    """Records, entities and relationships to put and delete in one atomic write.

    The argument (and the result) of :meth:`GraphStore.write_changes`. Every field is
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


def _check_batch(items: object, model: type[Any], what: str) -> list[Any]:
    if isinstance(items, model | str | Mapping) or not isinstance(items, Sequence):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    for index, item in enumerate(items):
        if not isinstance(item, model):
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}, not a {model.__name__}", index=index
            )
    return list(items)


def _check_id_list(ids: object, what: str) -> list[str]:
    if isinstance(ids, str) or not isinstance(ids, Sequence):
        raise InvalidInput(f"{what} takes a list of ids; wrap a single id in [...]")
    for value in ids:
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"{what}: {value!r} is not an id (a non-empty string)")
    return list(dict.fromkeys(ids))


def check_changes(changes: object) -> ChangeSet:
    """Check a :meth:`GraphStore.write_changes` argument for any backend.

    Returns the change set with plain lists, each id and key to delete once.

    Raises:
        InvalidInput: Not a :class:`ChangeSet`; an item of the wrong model; an id that is
            not a non-empty string; a relationship key that is not ``(source, target,
            type)`` with a safe type; anything both put and deleted in the call; a
            relationship put whose end the call deletes.
    """
    if not isinstance(changes, ChangeSet):
        raise InvalidInput("write_changes takes a ChangeSet")
    records = _check_batch(changes.records, Record, "records")
    delete_records = check_record_deletes(changes.delete_records, records)
    entities = _check_batch(changes.entities, Entity, "entities")
    delete_entities = _check_id_list(changes.delete_entities, "delete_entities")
    relationships = _check_batch(changes.relationships, Relationship, "relationships")
    raw_keys = changes.delete_relationships
    if isinstance(raw_keys, str) or not isinstance(raw_keys, Sequence):
        raise InvalidInput("delete_relationships takes a list of (source_id, target_id, type)")
    keys: dict[tuple[str, str, str], None] = {}
    for key in raw_keys:
        if isinstance(key, str) or not isinstance(key, Sequence) or len(key) != 3:
            raise InvalidInput(f"delete_relationships: {key!r} is not (source_id, target_id, type)")
        source, target, type_ = key
        _check_id_list([source, target], "delete_relationships")
        keys[(source, target, check_safe_name(type_, "relationship type"))] = None
    gone = set(delete_entities)
    both = sorted(e.id for e in entities if e.id in gone)
    both_keys = sorted(r.key for r in relationships if r.key in keys)
    ends = sorted({end for r in relationships for end in (r.source_id, r.target_id) if end in gone})
    if both or both_keys or ends:
        raise InvalidInput(
            "a write_changes call both puts and deletes "
            + "; ".join(
                part
                for part in (
                    f"entities {both}" if both else "",
                    f"relationships {both_keys}" if both_keys else "",
                    f"relationships ending at deleted entities {ends}" if ends else "",
                )
                if part
            )
            + ": do one or the other. Nothing was written.",
        )
    return ChangeSet(records, delete_records, entities, delete_entities, relationships, list(keys))


def stored_changes(
    changes: ChangeSet,
    records: Iterable[Record],
    entities: Iterable[Entity],
    relationships: Iterable[Relationship],
) -> ChangeSet:
    """A :meth:`GraphStore.write_changes` result for any backend.

    ``records``, ``entities`` and ``relationships``: what the backend stored, one per key;
    the result has one item per input position of ``changes`` (as stored for its key) and
    its deletes as given.
    """
    by_record = {(r.kind, r.id): r for r in records}
    by_entity = {e.id: e for e in entities}
    by_rel = {r.key: r for r in relationships}
    return ChangeSet(
        records=[by_record[(r.kind, r.id)] for r in changes.records],
        delete_records=changes.delete_records,
        entities=[by_entity[e.id] for e in changes.entities],
        delete_entities=changes.delete_entities,
        relationships=[by_rel[r.key] for r in changes.relationships],
        delete_relationships=changes.delete_relationships,
    )


class SearchHit(NamedTuple):
    """One hit of :meth:`GraphStore.vector_search` or :meth:`GraphStore.fulltext_search`."""

    id: str
    """The id of the entity, turn or chunk."""
    score: float
    """Cosine similarity (vector search) or the full-text relevance (higher is better)."""


class RelationshipPattern(NamedTuple):
    """One shape of fact a tenant holds, from :meth:`GraphStore.relationship_patterns`."""

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
    """The two rankings of one kind from :meth:`GraphStore.hybrid_search`."""

    vector: list[SearchHit]
    """What :meth:`GraphStore.vector_search` gives (``[]`` without a query vector)."""
    text: list[SearchHit]
    """What :meth:`GraphStore.fulltext_search` gives (``[]`` without query text)."""


def check_window_depth(depth: object) -> int:
    """``depth`` of :meth:`GraphStore.turn_window`, checked (an integer within 0..8)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= MAX_TURN_WINDOW:
        raise InvalidInput(
            f"depth must be an integer within 0..{MAX_TURN_WINDOW}, got {depth!r}", depth=depth
        )
    return depth


def check_search_kinds(
    kinds: Sequence[NodeKind], vector: ArrayLike | None, text: str | None
) -> list[NodeKind]:
    """The kinds of a :meth:`GraphStore.hybrid_search`, checked, without repeats."""
    if isinstance(kinds, str) or not isinstance(kinds, Sequence):
        raise InvalidInput("kinds takes a list of node kinds; wrap a single kind in [...]")
    wanted = list(dict.fromkeys(kinds))
    bad = [kind for kind in wanted if kind not in NODE_KINDS]
    if bad or not wanted:
        raise InvalidInput(f"kinds must be among {NODE_KINDS}, got {list(kinds)!r}", kinds=kinds)
    if vector is None and text is None:
        raise InvalidInput("hybrid_search needs a query vector, a query text or both")
    return wanted


def search_each(
    store: GraphStore,
    tenant: str,
    kinds: Sequence[NodeKind],
    *,
    vector: ArrayLike | None,
    text: str | None,
    k: int,
    scope_ids: Sequence[str] | None = None,
) -> dict[NodeKind, SearchPair]:
    """:meth:`GraphStore.hybrid_search` as a ``vector_search`` and a ``fulltext_search`` per kind.

    For a backend with nothing better to do: each call is checked by the store as usual,
    and a search only reads, so a failure part-way changes nothing.
    """
    out: dict[NodeKind, SearchPair] = {}
    for kind in check_search_kinds(kinds, vector, text):
        by_vector = (
            store.vector_search(tenant, kind, vector, k, scope_ids=scope_ids)
            if vector is not None
            else []
        )
        by_text = (
            store.fulltext_search(tenant, kind, text, k, scope_ids=scope_ids)
            if text is not None
            else []
        )
        out[kind] = SearchPair(by_vector, by_text)
    return out


@dataclass(frozen=True, slots=True)
class SearchContext:
    """What :meth:`GraphStore.search_context` gives: the searches and what ranks them.

    Attributes:
        hits: Each kind's two rankings, exactly as :meth:`GraphStore.hybrid_search`.
        window: The turns of the turn hits (both rankings) and those within
            ``window_depth`` PARENT edges of them, as :meth:`GraphStore.turn_window`
            (``[]`` when no window was asked or no turn was hit).
        entity_version: The tenant's entity version (:meth:`GraphStore.entity_version`).
        unknown_scope: The ids of ``scope_ids`` that are not entities of the tenant, in
            the order given.
    """

    hits: dict[NodeKind, SearchPair]
    window: list[Turn]
    entity_version: str
    unknown_scope: list[str]


@dataclass(frozen=True, slots=True)
class Gathered:
    """What :meth:`GraphStore.gather` gives (each part empty when not asked for).

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


_MENTION_KINDS: tuple[NodeKind, ...] = ("turn", "chunk")


def _check_mention_kinds(kinds: object, what: str) -> list[NodeKind]:
    if isinstance(kinds, str) or not isinstance(kinds, Sequence):
        raise InvalidInput(f"{what} takes a list of kinds; wrap a single kind in [...]")
    bad = [kind for kind in kinds if kind not in _MENTION_KINDS]
    if bad:
        raise InvalidInput(f"{what} must be among {_MENTION_KINDS}, got {list(kinds)!r}")
    return list(dict.fromkeys(kinds))


def check_gather(
    *,
    chunk_ids: Sequence[str],
    turn_ids: Sequence[str],
    entity_ids: Sequence[str],
    mentions_of: Mapping[NodeKind, Sequence[str]] | None,
    seed_ids: Sequence[str],
    mentioning: Sequence[NodeKind],
    mentioning_limit: int | None,
) -> tuple[list[str], list[str], list[str], dict[NodeKind, list[str]], list[str], list[NodeKind]]:
    """The id lists and kinds of a :meth:`GraphStore.gather`, checked, without repeats.

    The walk's own arguments (depth, types, direction, scope, cap) are checked as
    :meth:`GraphStore.expand` checks them, by the backend.

    Raises:
        InvalidInput: A list that is not a list of non-empty string ids, a kind that is
            not ``turn`` or ``chunk``, or a ``mentioning_limit`` that is not a positive
            integer.
    """
    if mentions_of is not None and not isinstance(mentions_of, Mapping):
        raise InvalidInput("mentions_of maps node kinds to lists of ids, e.g. {'chunk': ['c1']}")
    of: dict[NodeKind, list[str]] = {}
    for kind, ids in (mentions_of or {}).items():
        _check_mention_kinds([kind], "the kinds of mentions_of")
        of[kind] = _check_id_list(ids, f"mentions_of[{kind!r}]")
    if mentioning_limit is not None and (
        not isinstance(mentioning_limit, int)
        or isinstance(mentioning_limit, bool)
        or mentioning_limit <= 0
    ):
        raise InvalidInput(
            f"mentioning_limit must be a positive integer, got {mentioning_limit!r}",
            limit=mentioning_limit,
        )
    return (
        _check_id_list(chunk_ids, "chunk_ids"),
        _check_id_list(turn_ids, "turn_ids"),
        _check_id_list(entity_ids, "entity_ids"),
        of,
        _check_id_list(seed_ids, "seed_ids"),
        _check_mention_kinds(mentioning, "mentioning"),
    )


@runtime_checkable
class GraphStore(Protocol):
    """The one storage contract. Every method takes the tenant first.

    Errors: unknown ids raise ``NotFound``; bad arguments ``InvalidInput`` (and a failed
    batch writes nothing); an empty tenant ``IdentityRequired``; a closed store
    ``StoreClosed``; an unreachable server ``BackendUnavailable``.

    Rules that hold for every method:

    - Sizes (``depth``, ``max_depth``, ``max_nodes``, ``limit``) must be positive integers.
    - Entity and relationship type arguments must be safe names, wherever they are given
      (writes, deletes, filters): an unsafe one is ``InvalidInput``, never "not found".
      Stores re-check the types of the models they receive, since ``model_construct``
      skips validation.
    - An inserted item keeps the timestamps it carries; replacing one keeps its original
      ``created_at`` (so dump / load and export / import round-trip exactly).
    - Traversals and snapshots walk current facts only (``Relationship.is_current``).
    """

    @property
    def url(self) -> str:
        """The URL the store was opened with, without any password."""
        ...

    @property
    def capabilities(self) -> frozenset[str]:
        """What this store can do, from a shared vocabulary.

        ``entities``, ``relationships``, ``traversal``, ``identity``, ``conversations``,
        ``session_log``: the operations of this protocol (every backend has them);
        ``persistence``: the data outlives ``close`` (``file://``, Neo4j; not
        ``memory://``); ``concurrent_writers``: several processes may write at once;
        ``inline_reads``: reads are answered in process from memory, without I/O, so a
        server may call them on its event loop instead of a worker thread.
        """
        ...

    def close(self) -> None:
        """Release the store; later calls raise ``StoreClosed``. Closing twice is fine."""
        ...

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

    # -- conversations
    def append_turn(self, tenant: str, turn: Turn) -> Turn:
        """Append ``turn`` after the head of its session's conversation; it becomes the head.

        The stored turn's ``parent_id`` is the previous head (``None`` for the first), and
        its ``created_at`` is bumped to one microsecond after the parent's if it is not
        later already, so time increases strictly along a branch. Concurrent appends to
        one conversation serialise: they form one chain and none is lost.
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

    # -- generic records
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

        Either every change is made or none is (one journal entry on ``file://``, one
        transaction on Neo4j): a governed fact, its audit entry and the graph edge that
        shows it are never apart. Changes are made in this order: relationships deleted,
        entities deleted (with their relationships), entities put, relationships put,
        records put, records deleted. Each follows the rules of its own batch call
        (times kept, last of a key wins); a relationship put needs both ends to exist
        once the call's entities are written, else ``InvalidInput`` naming the missing
        ids. Bad input anywhere (see :func:`check_changes`) is ``InvalidInput`` and
        writes nothing.

        Returns:
            What was stored: ``records``, ``entities`` and ``relationships`` with one item
            per input position, as :meth:`put_records`, :meth:`upsert_entities` and
            :meth:`upsert_relationships` return them; the deletes as checked.
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

        The turn hits' window (``window_depth``: as :meth:`turn_window`, of the ids of
        both turn rankings; None: no window), the tenant's :meth:`entity_version`, and
        which ``scope_ids`` are not entities (the scope of a search matches nothing for
        them; retrieval refuses such a scope). A server backend answers it in one round
        trip in the usual case.

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
            InvalidInput: As the calls it stands for (:func:`check_gather`).
        """
        ...

    # -- whole tenant
    def dump(self, tenant: str) -> TenantDump:
        """Everything the tenant holds."""
        ...

    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump into the tenant at once: all of it, or nothing if any part is bad.

        Entities, relationships and records are upserted (relationship ends must exist in
        the store or the dump; records follow :meth:`put_records`). Turns must have new
        ids; each parent must be in the dump or already in the same session. For each
        session in ``dump.heads`` the head becomes that turn; ``None`` there means the
        last turn of that session in the dump. Sessions with turns in the dump but absent
        from ``heads`` get that same default.
        Chunks are upserted; mentions must name nodes and entities in the store or the dump.

        Entities and relationships are upserted (relationship ends must exist in the store
        or the dump). Turns must have new ids; each parent must be in the dump or already in
        the same session. For each session in ``dump.heads`` the head becomes that turn;
        ``None`` there means the last turn of that session in the dump. Sessions with
        turns in the dump but absent from ``heads`` get that same default.
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


# --------------------------------------------------------------------------- registry

BackendFactory = Callable[..., GraphStore]
"""``factory(url, **options) -> GraphStore``."""

_registry: dict[str, BackendFactory | str] = {
    "memory": "graphmem.backends.networkx:open_networkx",
    "file": "graphmem.backends.networkx:open_networkx",
    "neo4j": "graphmem.backends.neo4j:open_neo4j",
    "neo4j+s": "graphmem.backends.neo4j:open_neo4j",
    "bolt": "graphmem.backends.neo4j:open_neo4j",
    "bolt+s": "graphmem.backends.neo4j:open_neo4j",
}
# Schemes whose factory takes read_only=True itself; open_store wraps the others' stores.
_read_only_schemes = {"memory", "file"}
_registry_lock = threading.Lock()
_entry_points_loaded = False


def register_backend(
    scheme: str, factory: BackendFactory | str, *, replace: bool = False, read_only: bool = False
) -> None:
    """Register a backend for a URL scheme.

    Args:
        scheme: The URL scheme, e.g. ``"neo4j"``.
        factory: ``factory(url, **options) -> GraphStore``, or its ``"module:attribute"``
            path, imported on first use.
        replace: Allow replacing an existing registration.
        read_only: The factory understands ``read_only=True`` itself. Otherwise
            ``open_store(url, read_only=True)`` wraps its store in a :class:`ReadOnlyStore`.

    Raises:
        InvalidInput: The scheme is taken and ``replace`` is false.
    """
    scheme = scheme.lower()
    with _registry_lock:
        if scheme in _registry and not replace:
            raise InvalidInput(f"a backend is already registered for {scheme}://", scheme=scheme)
        _registry[scheme] = factory
        if read_only:
            _read_only_schemes.add(scheme)
        else:
            _read_only_schemes.discard(scheme)


def _load_entry_points() -> None:
    global _entry_points_loaded
    if _entry_points_loaded:
        return
    from importlib.metadata import entry_points  # slow to import; only needed here

    for ep in entry_points(group=ENTRY_POINT_GROUP):
        _registry.setdefault(ep.name.lower(), ep.value)
    _entry_points_loaded = True


def registered_schemes() -> list[str]:
    """The URL schemes a store can be opened with, sorted."""
    with _registry_lock:
        _load_entry_points()
        return sorted(_registry)


def _resolve(factory: BackendFactory | str) -> BackendFactory:
    if not isinstance(factory, str):
        return factory
    module_name, _, attribute = factory.partition(":")
    module = importlib.import_module(module_name)
    resolved: BackendFactory = getattr(module, attribute)
    return resolved


def redact_url(url: str) -> str:
    """Return ``url`` with any password replaced by ``***``.

    >>> redact_url("neo4j://neo4j:secret@localhost:7687")
    'neo4j://neo4j:***@localhost:7687'
    """
    parts = urlsplit(url)
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return parts._replace(netloc=netloc).geturl()


def open_store(url: str = "memory://", **options: Any) -> GraphStore:
    """Open a store by URL: ``memory://``, ``file:///path/world.graphmem``, or a plugin's.

    Args:
        url: Where the memory lives; the scheme picks the backend.
        **options: Backend options (``tracer=callable`` is understood by every built-in one).
            ``read_only=True`` opens the store for reading only: every write raises
            :class:`~graphmem.errors.StoreReadOnly`, and nothing is ever created (a
            ``file://`` store that does not exist is ``NotFound``).

    Raises:
        InvalidInput: The URL has no scheme or no backend is registered for it.
        BackendUnavailable: The backend cannot open the store.
    """
    if not isinstance(url, str) or "://" not in url:
        raise InvalidInput(
            f"store URL {url!r} has no scheme; use memory://, file:///path/world.graphmem, "
            "neo4j://host or bolt://host",
            url=url,
        )
    scheme = url.split("://", 1)[0].lower()
    with _registry_lock:
        factory = _registry.get(scheme)
        if factory is None:
            _load_entry_points()
            factory = _registry.get(scheme)
        if factory is None:
            known = ", ".join(f"{s}://" for s in sorted(_registry))
            raise InvalidInput(
                f"no graphmem backend is registered for {scheme}:// (known: {known})",
                url=redact_url(url),
            )
    read_only = options.pop("read_only", False)
    if not isinstance(read_only, bool):
        raise InvalidInput(f"read_only must be True or False, got {read_only!r}")
    wrap = read_only and scheme not in _read_only_schemes
    if read_only and not wrap:
        options["read_only"] = True
    extra = scheme
    if isinstance(factory, str) and factory.startswith("graphmem.backends."):
        extra = factory.split(":", 1)[0].split(".")[2]  # graphmem.backends.<extra>
    try:
        if isinstance(factory, str):
            resolved = _resolve(factory)
            with _registry_lock:
                _registry[scheme] = resolved
            factory = resolved
        store = factory(url, **options)
        return ReadOnlyStore(store) if wrap else store
    except (InvalidInput, BackendUnavailable, IdentityRequired):
        raise
    except ImportError as exc:
        raise BackendUnavailable(
            f"the backend for {scheme}:// cannot be imported ({exc}); "
            f"install its extra: pip install 'graphmem[{extra}]'",
            url=redact_url(url),
        ) from exc


# --------------------------------------------------------------------------- schema


def _registered_scheme(url: str) -> str:
    """The scheme of a store URL, which a backend must be registered for."""
    if not isinstance(url, str) or "://" not in url:
        raise InvalidInput(f"store URL {url!r} has no scheme", url=url)
    scheme = url.split("://", 1)[0].lower()
    if scheme not in registered_schemes():
        raise InvalidInput(
            f"no graphmem backend is registered for {scheme}://", url=redact_url(url)
        )
    return scheme


_schema_installers: dict[str, str] = {
    scheme: "graphmem.backends.neo4j.schema:install_schema"
    for scheme in ("neo4j", "neo4j+s", "bolt", "bolt+s")
}


def install_schema(url: str, **options: Any) -> Any:
    """Apply a backend's schema (constraints, vector and full-text indexes) idempotently.

    Args:
        url: The store URL.
        **options: Backend options, e.g. ``dimension=384`` and ``wait=True`` for Neo4j.

    Returns:
        The backend's report (its indexes and their states), or ``None`` for a backend
        that keeps no schema (the embedded one builds its indexes in memory).

    Raises:
        InvalidInput: The URL has no scheme or names no registered backend.
        BackendUnavailable: The server cannot be reached, or indexes did not come online.
    """
    scheme = _registered_scheme(url)
    installer = _schema_installers.get(scheme)
    if installer is None:
        return None
    try:
        return _resolve(installer)(url, **options)
    except ImportError as exc:
        raise BackendUnavailable(
            f"the backend for {scheme}:// cannot be imported ({exc}); "
            "install its extra: pip install 'graphmem[neo4j]'",
            url=redact_url(url),
        ) from exc


# --------------------------------------------------------------------------- read-only


WRITE_METHODS = frozenset(
    {
        "upsert_entities",
        "update_entity",
        "delete_entities",
        "upsert_relationships",
        "delete_relationship",
        "invalidate_relationship",
        "append_turn",
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
"""The :class:`GraphStore` methods that write: a read-only store refuses each of them."""


class ReadOnlyStore:
    """A store whose writes raise ``StoreReadOnly``; every read goes to the store inside.

    What ``open_store(url, read_only=True)`` gives for a backend that has no read-only
    mode of its own (the embedded backend has one). Closing it closes the store inside.
    """

    def __init__(self, store: GraphStore) -> None:
        self._store = store

    def __getattr__(self, name: str) -> Any:
        if name in WRITE_METHODS:

            def refuse(*args: Any, **kwargs: Any) -> Any:
                raise StoreReadOnly(
                    f"the store {redact_url(self._store.url)} was opened with read_only=True; "
                    f"{name} writes",
                    url=redact_url(self._store.url),
                )

            return refuse
        return getattr(self._store, name)

    def __enter__(self) -> ReadOnlyStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self._store.close()


# --------------------------------------------------------------------------- check


@dataclass
class StoreCheck:
    """What :func:`check_store` found.

    Attributes:
        url: The store checked (without any password).
        format: What the store is (e.g. ``sqlite (schema version 1)``).
        counts: Rows (or items) per table or kind, all tenants together.
        problems: Everything found wrong; empty when the store is sound.
    """

    url: str
    format: str
    counts: dict[str, int] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """Whether no problem was found."""
        return not self.problems


_checkers: dict[str, str] = {"file": "graphmem.backends.networkx.sqlite_check:check_url"}


def check_store(url: str) -> StoreCheck:
    """Check a store's integrity without changing it (its writer may be running).

    For ``file://``: SQLite's own integrity check, every checksum and row count, every
    stored model, and graphmem's invariants (no dangling reference, sound PARENT chains).

    Raises:
        InvalidInput: The URL has no scheme or names no registered backend.
        NotFound: There is no store at the URL.
        UnsupportedOperation: The backend has no integrity check.
    """
    scheme = _registered_scheme(url)
    checker = _checkers.get(scheme)
    if checker is None:
        raise UnsupportedOperation(
            f"{scheme}:// has no integrity check here (a memory:// store is new and empty at "
            "every open; a server checks its own database)",
            url=redact_url(url),
        )
    module_name, _, attribute = checker.partition(":")
    report: StoreCheck = getattr(importlib.import_module(module_name), attribute)(url)
    return report
