"""The rooms of every store and of the graph: :class:`BaseStore`, :class:`EntityGraphStore`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any, Protocol, runtime_checkable

from graphmem.core.contract.data import (
    RelationshipPattern,
    RoleCooccurrence,
)
from graphmem.core.models import (
    Direction,
    Entity,
    EntityFilter,
    NPCIdentity,
    Relationship,
    RelationshipFilter,
    Subgraph,
)


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
        server may call them on its event loop instead of a worker thread;
        ``revision``: every write to the data goes through this store object (no other
        process writes it), so :meth:`EntityGraphStore.revision` knows when an answer
        may have changed (``memory://`` and a ``file://`` writer; not a ``file://``
        reader nor a server backend).

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

    def revision(self, tenant: str) -> int:
        """A number that moves on before any write to the store is applied.

        Every committed write, through any ``Memory`` or layer sharing this store object
        (an entity, a fact, a turn, a record, an import, a clear, any tenant), moves it
        on before the write is seen, so an answer read while it kept one value is still
        the answer while it keeps it, except for the passing of time (see
        :meth:`identity_expiry`). Cheap: no lock, no I/O. Compare for equality only.

        Raises:
            UnsupportedOperation: The store cannot know every write (the ``revision``
                capability is missing): a ``file://`` reader, a server backend.
        """
        ...

    def identity_expiry(self, tenant: str, entity_id: str, *, after: datetime) -> datetime | None:
        """When the entity's current :meth:`identity_snapshot` next changes with time alone.

        The earliest ``valid_at``, ``invalid_at`` or ``expired_at`` later than ``after``
        of the entity's relationships (both directions, current or not): a fact that
        begins or stops holding then. None when there is none: the snapshot changes only
        with a write. With :meth:`revision`: a snapshot taken at ``after`` or later holds
        at every moment before this one while the revision stays the same.

        Raises:
            NotFound: No such entity.
            UnsupportedOperation: As :meth:`revision`.
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
