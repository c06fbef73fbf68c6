"""Entities, relationships and graph questions of :class:`graphmem.Memory`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.core.batches import coerce_batch
from graphmem.core.checks import check_ids, check_safe_names
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    VALUE_ENTITY_TYPE,
    Direction,
    Entity,
    EntityFilter,
    NPCIdentity,
    Relationship,
    RelationshipFilter,
    Subgraph,
)
from graphmem.memory.base import MemoryBase, _types


class EntityMethods(MemoryBase):
    """Entities and facts of the tenant, and the questions the graph answers in one call."""

    # ------------------------------------------------------------------ entities

    def upsert_entities(self, entities: Iterable[Entity | Mapping[str, Any]]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored."""
        self._check_open()
        return self._store.upsert_entities(self._tenant, coerce_batch(Entity, entities, "entities"))

    def get_entity(self, entity_id: str) -> Entity:
        """Return one entity. Raises ``NotFound`` if there is none with that id."""
        self._check_open()
        return self._store.get_entity(self._tenant, entity_id)

    def get_entities(self, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        self._check_open()
        return self._store.get_entities(self._tenant, check_ids(entity_ids, "entity_ids"))

    def update_entity(
        self,
        entity_id: str,
        *,
        name: str | None = None,
        type: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        remove_attributes: Sequence[str] = (),
    ) -> Entity:
        """Merge ``attributes`` into an entity (and rename / retype it); bump ``updated_at``."""
        self._check_open()
        return self._store.update_entity(
            self._tenant,
            entity_id,
            name=name,
            type=type,
            attributes=attributes,
            remove_attributes=remove_attributes,
        )

    def delete_entities(self, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed."""
        self._check_open()
        if isinstance(entity_ids, str):
            entity_ids = [entity_ids]
        return self._store.delete_entities(self._tenant, check_ids(entity_ids, "entity_ids"))

    def find_entities(
        self,
        *,
        type: str | None = None,
        name: str | None = None,
        name_contains: str | None = None,
        attributes: Mapping[str, Any] | None = None,
        limit: int | None = None,
    ) -> list[Entity]:
        """Entities by type, whole name or name substring (any case) and attribute equality."""
        self._check_open()
        flt = EntityFilter(
            type=type,
            name=name,
            name_contains=name_contains,
            attributes={} if attributes is None else attributes,
            limit=limit,
        )
        return self._store.find_entities(self._tenant, flt)

    def resolve_entity(self, text: str) -> Entity | None:
        """The entity ``text`` names: its id, else the one entity of that name (any case).

        None when no entity has that id or name; the names are compared as governed facts
        compare them (spaces collapsed, casefolded), and a fact's value node names nothing.

        Raises:
            InvalidInput: ``text`` is empty, or several entities share the name (the
                error lists their ids: use one of them).
        """
        self._check_open()
        if not isinstance(text, str) or not text.strip():
            raise InvalidInput("an entity id or name must be a non-empty string")
        from graphmem.policy.consolidation import norm

        if len(text) <= 512:
            found = self._store.get_entities(self._tenant, [text])
            if found and found[0].type != VALUE_ENTITY_TYPE:
                return found[0]
        key = norm(text)
        named = [
            e
            for e in self._store.find_entities(self._tenant, EntityFilter(name=text))
            if e.type != VALUE_ENTITY_TYPE and norm(e.name) == key
        ]
        if len(named) > 1:
            ids = [e.id for e in named]
            raise InvalidInput(
                f"{len(named)} entities are named {text!r}: {ids}; name one by its id",
                entity_ids=ids,
            )
        return named[0] if named else None

    def count_entities(self) -> int:
        """How many entities the tenant holds."""
        self._check_open()
        return self._store.count_entities(self._tenant)

    # ------------------------------------------------------------------ relationships

    def upsert_relationships(
        self, relationships: Iterable[Relationship | Mapping[str, Any]]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch.

        With ``auto_index`` and an embedder ready (the one given to the memory, or the
        default one once its model is loaded), the sentences retrieval compares questions
        with are embedded for the new fact shapes now, not by the first question that
        meets them (:meth:`graphmem.retrieval.service.Retrieval.index_facts`).
        """
        self._check_open()
        rels = coerce_batch(Relationship, relationships, "relationships")
        stored = self._store.upsert_relationships(self._tenant, rels)
        if self._auto_index:
            self._index_facts(stored)
        return stored

    def get_relationships(
        self,
        entity_id: str,
        *,
        direction: Direction = "out",
        types: Sequence[str] | None = None,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        include_invalid: bool = False,
        limit: int | None = None,
    ) -> list[Relationship]:
        """An entity's relationships: outgoing by default, current facts unless a clock is given.

        ``as_of`` is world time (facts that held then, invalidated since or not);
        ``recorded_as_of`` memory time (what the store held then); see
        :meth:`graphmem.Relationship.held` for the rules of each and of both.
        """
        self._check_open()
        flt = RelationshipFilter(
            direction=direction,
            types=_types(types),
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            include_invalid=include_invalid,
            limit=limit,
        )
        return self._store.get_relationships(self._tenant, entity_id, flt)

    def delete_relationship(self, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed. Prefer :meth:`invalidate`."""
        self._check_open()
        return self._store.delete_relationship(self._tenant, source_id, target_id, type)

    def invalidate(
        self, source_id: str, target_id: str, type: str, *, at: datetime | None = None
    ) -> Relationship:
        """Mark a fact as no longer holding from ``at`` (default now); it stays readable.

        Raises:
            InvalidInput: ``at`` is at or before the fact's start (its ``valid_at``, or
                ``created_at`` without one), which would leave it no validity at all;
                nothing is written.
            NotFound: No such fact.
        """
        self._check_open()
        return self._store.invalidate_relationship(self._tenant, source_id, target_id, type, at=at)

    def count_relationships(self) -> int:
        """How many relationships the tenant holds, invalidated ones included."""
        self._check_open()
        return self._store.count_relationships(self._tenant)

    # ------------------------------------------------------------------ graph questions

    def neighbors(
        self,
        entity_id: str,
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        max_nodes: int | None = None,
        direction: Direction = "both",
    ) -> list[Entity]:
        """Entities within ``depth`` hops over current facts, nearest first, start excluded."""
        self._check_open()
        return self._store.neighbors(
            self._tenant,
            entity_id,
            depth=depth,
            rel_types=rel_types,
            node_types=node_types,
            max_nodes=max_nodes,
            direction=direction,
        )

    def find_path(
        self,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """The shortest directed path of current facts, both ends included; [] when none."""
        self._check_open()
        return self._store.find_path(
            self._tenant, source_id, target_id, max_depth=max_depth, rel_types=rel_types
        )

    def visible_subgraph(self, entity_id: str, *, depth: int = 1) -> Subgraph:
        """What an NPC can see: itself, the entities within ``depth`` hops and their facts."""
        self._check_open()
        return self._store.visible_subgraph(self._tenant, entity_id, depth=depth)

    def neighborhood(
        self,
        entity_id: str,
        *,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        direction: Direction = "both",
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        include_invalid: bool = False,
        limit: int | None = None,
    ) -> Subgraph:
        """An entity, its facts (with provenance and validity) and their other ends.

        Under both clocks, in two store calls: see
        :func:`graphmem.retrieval.neighborhood.neighborhood`.
        """
        self._check_open()
        from graphmem.retrieval.neighborhood import neighborhood

        return neighborhood(
            self._store,
            self._tenant,
            entity_id,
            rel_types=_types(rel_types),
            node_types=check_safe_names(node_types, "entity type"),
            direction=direction,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            include_invalid=include_invalid,
            limit=limit,
        )

    def expand(
        self,
        seed_ids: Sequence[str],
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
    ) -> Subgraph:
        """The seeds and every entity within ``depth`` hops of any, with the facts among them.

        One store call whatever the number of seeds (a typed multi-source walk).
        """
        self._check_open()
        return self._store.expand(
            self._tenant,
            check_ids(seed_ids, "seed_ids"),
            depth=depth,
            rel_types=rel_types,
            direction=direction,
            within=within,
            max_nodes=max_nodes,
        )

    def identity_snapshot(
        self,
        npc_id: str,
        *,
        perspective: bool = False,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """Who the NPC is, in one store call; ``.to_prompt(max_tokens)`` renders it.

        Now by default; at world time ``as_of`` and / or as the memory stood at
        ``recorded_as_of`` (the rules of :meth:`graphmem.Relationship.held`).

        With ``perspective=True``, who the NPC is *as it sees things*: a
        :class:`graphmem.minds.PerspectiveIdentity` of its own beliefs at those clocks
        (two store reads), rendered with "heard from X" where it matters, under the same
        token budget rules.
        """
        self._check_open()
        if perspective:
            return self._minds().perspective(npc_id, as_of=as_of, recorded_as_of=recorded_as_of)
        if as_of is None and recorded_as_of is None:
            return self._store.identity_snapshot(self._tenant, npc_id)
        return self._store.identity_snapshot(
            self._tenant, npc_id, as_of=as_of, recorded_as_of=recorded_as_of
        )
