"""The graph room of ``NetworkXStore``: entities and relationships (walks: :mod:`.traversal`).

A relationship is current at a time by its validity and expiry; the summaries of the
current facts are kept until a write or the next instant a fact changes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from datetime import datetime
from operator import attrgetter
from typing import Any

from graphmem.backends.model_checks import (
    check_attribute_names,
    check_models,
    empty_interval_error,
)
from graphmem.backends.networkx.base import NetworkXBase, _operation, _valid_tenants
from graphmem.backends.networkx.state import (
    _EMPTY,
    _Tenant,
    _whole,
)
from graphmem.core.checks import as_utc, check_ids
from graphmem.core.errors import InvalidInput, NotFound, StoreClosed, UnsupportedOperation
from graphmem.core.models import (
    Entity,
    EntityFilter,
    Relationship,
    RelationshipFilter,
    check_safe_name,
    utcnow,
)
from graphmem.core.store import RelationshipPattern, RoleCooccurrence, check_tenant

_REL_KEY = attrgetter("source_id", "target_id", "type")
_DIRECTIONS = ("out", "in", "both")


def _is_current(rel: Relationship, now: datetime) -> bool:
    # Inlined fast path of Relationship.is_current: most facts carry no validity bounds.
    if rel.expired_at is None and rel.invalid_at is None and rel.valid_at is None:
        return True
    return rel.is_current(now)


class GraphRoom(NetworkXBase):
    """Entities and relationships in process: batch writes, reads, invalidation, summaries."""

    @staticmethod
    def _stored_entities(data: _Tenant, batch: Sequence[Entity]) -> dict[str, Entity]:
        """The entities of a batch as they will be stored (last of an id wins)."""
        nodes = data.graph._node
        now = utcnow()
        stored: dict[str, Entity] = {}
        for entity in batch:
            old = nodes.get(entity.id)
            if old is not None:
                created = old["e"].created_at
                entity = entity.model_copy(
                    update={"created_at": created, "updated_at": max(now, created)}
                )
            stored[entity.id] = entity
        return stored

    @_operation
    def upsert_entities(self, tenant: str, entities: Sequence[Entity]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored."""
        batch = check_models(entities, Entity, "entities")
        stored = self._stored_entities(self._tenant(tenant), batch)
        if stored:
            self._commit({"op": "put", "tenant": tenant, "entities": list(stored.values())})
        return [stored[e.id] for e in batch]

    @_operation
    def get_entity(self, tenant: str, entity_id: str) -> Entity:
        """Return one entity; ``NotFound`` if unknown."""
        return self._entity(tenant, entity_id)

    def _entity(self, tenant: str, entity_id: str) -> Entity:
        node = self._tenant(tenant).graph._node.get(entity_id)
        if node is None:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        entity: Entity = node["e"]
        return entity

    @_operation
    def get_entities(self, tenant: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        nodes = self._tenant(tenant).graph._node
        return [nodes[i]["e"] for i in check_ids(entity_ids, "entity_ids") if i in nodes]

    @_operation
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
        """Merge attributes into an entity, rename or retype it; bump ``updated_at``."""
        old = self._entity(tenant, entity_id)
        remove_attributes = check_attribute_names(remove_attributes)
        if attributes is not None and not isinstance(attributes, Mapping):
            raise InvalidInput("attributes takes a mapping of attribute names to values")
        merged = {**old.attributes, **(attributes or {})}
        for key in remove_attributes:  # removal wins over a value set in the same call
            merged.pop(key, None)
        data = old.model_dump()
        data.update(
            name=old.name if name is None else name,
            type=old.type if type is None else type,
            attributes=merged,
            updated_at=max(utcnow(), old.created_at),
        )
        entity = Entity.model_validate(data)
        self._commit({"op": "put", "tenant": tenant, "entities": [entity]})
        return entity

    @_operation
    def delete_entities(self, tenant: str, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed."""
        nodes = self._tenant(tenant).graph._node
        present = [i for i in dict.fromkeys(check_ids(entity_ids, "entity_ids")) if i in nodes]
        if present:
            self._commit({"op": "delete_entities", "tenant": tenant, "ids": present})
        return len(present)

    @_operation
    def find_entities(self, tenant: str, filter: EntityFilter) -> list[Entity]:
        """Entities matching every condition of ``filter``, ordered by id."""
        if not isinstance(filter, EntityFilter):
            raise InvalidInput("filter must be an EntityFilter")
        needle = filter.name_contains.casefold() if filter.name_contains else None
        wanted = filter.attributes.items()
        found = []
        data = self._tenant(tenant)
        nodes: Iterable[Any]
        if filter.name is not None:
            named = data.named().get(filter.name.casefold(), ())
            nodes = [data.graph._node[entity_id] for entity_id in named]
        else:
            nodes = _whole(data).graph._node.values()
        for node in nodes:
            entity: Entity = node["e"]
            if filter.type is not None and entity.type != filter.type:
                continue
            if needle is not None and needle not in entity.name.casefold():
                continue
            attrs = entity.attributes
            if any(k not in attrs or not _same_json(attrs[k], v) for k, v in wanted):
                continue
            found.append(entity)
        found.sort(key=lambda e: e.id)
        return found[: filter.limit] if filter.limit else found

    @_operation
    def count_entities(self, tenant: str) -> int:
        """The number of entities."""
        return int(self._tenant(tenant).graph.number_of_nodes())

    @staticmethod
    def _stored_relationships(
        data: _Tenant,
        tenant: str,
        batch: Sequence[Relationship],
        added: Mapping[str, Entity] | None = None,
        gone: frozenset[str] = frozenset(),
    ) -> dict[tuple[str, str, str], Relationship]:
        """The relationships of a batch as they will be stored (last of a key wins).

        ``added``: entities the same write puts; ``gone``: entities it deletes (with their
        relationships, so a replaced one is new again).

        Raises:
            InvalidInput: An end is not an entity (nothing is written).
        """
        graph = data.graph
        added = added or {}
        missing = sorted(
            {
                end
                for r in batch
                for end in (r.source_id, r.target_id)
                if end not in added and (end not in graph._node or end in gone)
            }
        )
        if missing:
            raise InvalidInput(
                f"relationships point at entities that do not exist: {missing[:10]}"
                + (f" and {len(missing) - 10} more" if len(missing) > 10 else "")
                + "; upsert the entities first. Nothing was written.",
                missing_ids=missing,
                tenant=tenant,
            )
        stored: dict[tuple[str, str, str], Relationship] = {}
        succ = graph._succ
        for rel in batch:
            old = succ.get(rel.source_id, {}).get(rel.target_id, {}).get(rel.type)
            if old is not None and old["r"].created_at != rel.created_at:
                created = old["r"].created_at
                if rel.expired_at is not None and rel.expired_at < created:
                    created = rel.expired_at
                rel = rel.model_copy(update={"created_at": created})
            stored[rel.key] = rel
        return stored

    @_operation
    def upsert_relationships(
        self, tenant: str, relationships: Sequence[Relationship]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch."""
        batch = check_models(relationships, Relationship, "relationships")
        stored = self._stored_relationships(self._tenant(tenant), tenant, batch)
        if stored:
            self._commit({"op": "put", "tenant": tenant, "relationships": list(stored.values())})
        return [stored[r.key] for r in batch]

    def _edge(self, tenant: str, source_id: str, target_id: str, type: str) -> Relationship:
        check_safe_name(type, "relationship type")
        edge = self._tenant(tenant).graph._succ.get(source_id, {}).get(target_id, {}).get(type)
        if edge is None:
            raise NotFound(
                f"no relationship ({source_id!r})-[{type}]->({target_id!r}) in tenant {tenant!r}",
                source_id=source_id,
                target_id=target_id,
                type=type,
                tenant=tenant,
            )
        rel: Relationship = edge["r"]
        return rel

    @_operation
    def get_relationships(
        self, tenant: str, entity_id: str, filter: RelationshipFilter
    ) -> list[Relationship]:
        """An entity's relationships by direction, type and validity, ordered by key."""
        if not isinstance(filter, RelationshipFilter):
            raise InvalidInput("filter must be a RelationshipFilter")
        self._entity(tenant, entity_id)
        graph = self._tenant(tenant).graph
        types = filter.types
        now = utcnow()
        timed = filter.as_of is not None or filter.recorded_as_of is not None
        found = []
        adjacencies = []
        if filter.direction in ("out", "both"):
            adjacencies.append(graph._succ[entity_id])
        if filter.direction in ("in", "both"):
            adjacencies.append(graph._pred[entity_id])
        seen: set[tuple[str, str, str]] = set()
        for adjacency in adjacencies:
            for keydict in adjacency.values():
                for type_, edge in keydict.items():
                    rel: Relationship = edge["r"]
                    if types is not None and type_ not in types:
                        continue
                    if not filter.include_invalid:
                        if timed:
                            if not rel.held(filter.as_of, filter.recorded_as_of):
                                continue
                        elif not _is_current(rel, now):
                            continue
                    if rel.key not in seen:  # a self-loop is both out and in
                        seen.add(rel.key)
                        found.append(rel)
        found.sort(key=lambda r: r.key)
        return found[: filter.limit] if filter.limit else found

    @_operation
    def delete_relationship(self, tenant: str, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed."""
        try:
            self._edge(tenant, source_id, target_id, type)
        except NotFound:
            return False
        self._commit(
            {"op": "delete_relationship", "tenant": tenant, "key": [source_id, target_id, type]}
        )
        return True

    @_operation
    def invalidate_relationship(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        type: str,
        *,
        at: datetime | None = None,
    ) -> Relationship:
        """End a fact at ``at`` (default now), expire it now; the edge stays readable."""
        old = self._edge(tenant, source_id, target_id, type)
        now = utcnow()
        data = old.model_dump()
        if at is not None:
            at = as_utc(at, "at")
            start = old.valid_at if old.valid_at is not None else old.created_at
            if at is not None and at <= start:
                raise empty_interval_error(
                    tenant, old.key, at, start, dated=old.valid_at is not None
                )
            data["invalid_at"] = at
        elif old.invalid_at is None:
            data["invalid_at"] = max(now, old.valid_at) if old.valid_at else now
        if old.expired_at is None:
            data["expired_at"] = max(now, old.created_at)
        try:
            rel = Relationship.model_validate(data)
        except InvalidInput as exc:
            raise InvalidInput(f"cannot invalidate at {at}: {exc.message}") from exc
        self._commit({"op": "put", "tenant": tenant, "relationships": [rel]})
        return rel

    @_operation
    def count_relationships(self, tenant: str) -> int:
        """The number of relationships, invalidated ones included."""
        return int(self._tenant(tenant).graph.number_of_edges())

    def _current_facts(
        self, data: _Tenant, name: str, now: datetime
    ) -> tuple[list[Any] | None, Iterator[tuple[str, str, str]], list[datetime | None]]:
        """A cached summary, or the current facts ``(source, type, target)`` to make it from.

        ``until`` (a one-item list) is set, as the facts are read, to the next instant a
        fact becomes or stops being current, for the summary's cache.
        """
        cached = data.summaries.get(name)
        if cached is not None and (cached[0] is None or now < cached[0]):
            return cached[1], iter(()), [None]
        until: list[datetime | None] = [None]

        def facts() -> Iterator[tuple[str, str, str]]:
            for source, targets in data.graph._succ.items():
                for target, keydict in targets.items():
                    for type_, edge in keydict.items():
                        rel = edge["r"]
                        for bound in (rel.valid_at, rel.invalid_at, rel.expired_at):
                            later = bound is not None and bound > now
                            if later and (until[0] is None or bound < until[0]):
                                until[0] = bound
                        if _is_current(rel, now):
                            yield source, type_, target

        return None, facts(), until

    def _keep(
        self, data: _Tenant, name: str, until: list[datetime | None], value: list[Any]
    ) -> list[Any]:
        if data is not _EMPTY:
            data.summaries[name] = (until[0], value)
        return list(value)

    @_operation
    def relationship_patterns(self, tenant: str) -> list[RelationshipPattern]:
        """Each (source type, type, target type) of the current facts, with its count.

        Kept until the next write of entities or facts (or until the next instant a fact
        with validity bounds becomes or stops being current), so asking again is free.
        """
        data = _whole(self._tenant(tenant))
        cached, facts, until = self._current_facts(data, "patterns", utcnow())
        if cached is not None:
            return list(cached)
        nodes = data.graph._node
        counts: dict[tuple[str, str, str], int] = {}
        for source, type_, target in facts:
            key = (type_, nodes[source]["e"].type, nodes[target]["e"].type)
            counts[key] = counts.get(key, 0) + 1
        patterns = [
            RelationshipPattern(source_type, type_, target_type, count)
            for (type_, source_type, target_type), count in sorted(counts.items())
        ]
        return self._keep(data, "patterns", until, patterns)

    @_operation
    def relationship_cooccurrence(self, tenant: str) -> list[RoleCooccurrence]:
        """For every two roles some entity has both of, how many entities have both.

        Kept as :meth:`relationship_patterns` is.
        """
        data = _whole(self._tenant(tenant))
        cached, facts, until = self._current_facts(data, "cooccurrence", utcnow())
        if cached is not None:
            return list(cached)
        roles: dict[str, set[tuple[str, str]]] = {}
        for source, type_, target in facts:
            roles.setdefault(source, set()).add((type_, "out"))
            roles.setdefault(target, set()).add((type_, "in"))
        counts: dict[tuple[str, str, str, str], int] = {}
        for held in roles.values():
            ordered = sorted(held)
            for i, first in enumerate(ordered):
                for second in ordered[i:]:
                    key = (*first, *second)
                    counts[key] = counts.get(key, 0) + 1
        pairs = [RoleCooccurrence(*key, count) for key, count in sorted(counts.items())]
        return self._keep(data, "cooccurrence", until, pairs)

    @_operation
    def entity_version(self, tenant: str) -> str:
        """How many entity writes this store has applied to the tenant (a version)."""
        return f"{self._loads}.{self._entity_writes.get(tenant, 0)}"

    def revision(self, tenant: str) -> int:
        """How many changes this store has applied (every tenant), and loads from its file.

        Not an operation: no lock, no tracing; it is read on the hot path of a server's
        cache, so the tenant is only checked once, as operations check it.
        """
        if self._closed:
            raise StoreClosed(f"the store {self._url} is closed; open it again", url=self._url)
        if type(tenant) is not str or tenant not in _valid_tenants:
            _valid_tenants.add(check_tenant(tenant))
        if self._follow is not None:
            raise self._no_revision()
        return self._revision

    def _no_revision(self) -> UnsupportedOperation:
        return UnsupportedOperation(
            f"the store {self._url} is a read-only opener of a file another process "
            "writes: it learns of those writes only when it reads the file, so it has "
            "no revision",
            url=self._url,
        )


def _same_json(stored: Any, wanted: Any) -> bool:
    """JSON equality: 1 equals 1.0, but True is not 1 (bool is an int in Python)."""
    if isinstance(stored, bool) or isinstance(wanted, bool):
        return type(stored) is type(wanted) and stored == wanted
    return bool(stored == wanted)
