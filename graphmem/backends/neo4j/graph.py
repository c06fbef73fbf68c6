"""The graph room of ``Neo4jStore``: entities and relationships (walks: :mod:`.traversal`).

Batch writes are ``UNWIND`` queries in one transaction; a relationship's type is spliced
in only after the safe-name check.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from datetime import datetime
from functools import partial
from typing import Any

import neo4j

from graphmem.backends.model_checks import (
    check_attribute_names,
    check_models,
    dedupe,
    empty_interval_error,
)
from graphmem.backends.neo4j.mapping import (
    attribute_columns,
    entity_from_row,
    relationship_from_row,
    to_datetime,
    wire_time,
)
from graphmem.backends.neo4j.plumbing import BATCH_ROWS, Neo4jBase, Rows, Statement
from graphmem.backends.neo4j.rows import (
    _clock_mode,
    _entity_row,
    _limit,
    _relationship_key,
    _relationship_params,
    _slices,
)
from graphmem.core.checks import check_id, check_ids
from graphmem.core.errors import InvalidInput, NotFound, UnsupportedOperation
from graphmem.core.models import (
    Entity,
    EntityFilter,
    Relationship,
    RelationshipFilter,
    check_safe_name,
    utcnow,
)
from graphmem.core.store import (
    RelationshipPattern,
    RoleCooccurrence,
    as_utc,
)


def _relationship_parts(batch: Sequence[Relationship]) -> list[tuple[str, list[int]]]:
    """The positions in ``batch`` of each statement of ``relationships/upsert_relationships``.

    A type is written out in the query (:data:`~graphmem.backends.neo4j.queries.TYPE_SLOT`:
    Neo4j 5.26.0 mis-plans a dynamic one), so each type is its own statement, in slices of
    :data:`BATCH_ROWS`; the rows themselves are built statement by statement
    (:func:`_relationship_statements`).
    """
    by_type: dict[str, list[int]] = {}
    for index, rel in enumerate(batch):
        by_type.setdefault(rel.type, []).append(index)
    return [
        (rel_type, list(part))
        for rel_type, indexes in sorted(by_type.items())
        for part in _slices(indexes)
    ]


def _relationship_statements(
    tenant: str, batch: Sequence[Relationship], parts: Sequence[tuple[str, list[int]]]
) -> list[Callable[[], Statement]]:
    """The statements of ``parts``, each built when it is called.

    Each part's rows are sorted by source, so concurrent batches lock their ends in one
    order.
    """

    def build(rel_type: str, indexes: list[int]) -> Statement:
        ordered = sorted(indexes, key=lambda i: (batch[i].source_id, batch[i].target_id))
        params = _relationship_params(tenant, batch, ordered)
        return "relationships/upsert_relationships", params, rel_type

    return [partial(build, rel_type, indexes) for rel_type, indexes in parts]


def _entity_statements(
    tenant: str, batch: Sequence[Entity], now: datetime
) -> list[Callable[[], Statement]]:
    """The statements of ``entities/upsert_entities`` for ``batch``, each built when called."""
    sent_now = wire_time(now)

    def build(chunk: Sequence[Entity]) -> Statement:
        rows = [_entity_row(entity, tenant) for entity in chunk]
        return "entities/upsert_entities", {"tenant": tenant, "rows": rows, "now": sent_now}, None

    return [partial(build, chunk) for chunk in _slices(batch)]


def _entities_as_stored(batch: Sequence[Entity], results: Sequence[Rows]) -> list[Entity]:
    """``batch`` as stored, from the rows of its ``entities/upsert_entities`` statements."""
    stored: dict[str, Mapping[str, Any]] = {}
    for result in results:
        stored.update((row["id"], row) for row in result[0]["changed"])
    # Only replaced entities come back (their created_at is kept, updated_at is now);
    # every other one is stored as it was sent.
    return [
        entity.model_copy(
            update={
                "created_at": to_datetime(stored[entity.id]["created_at"]),
                "updated_at": to_datetime(stored[entity.id]["updated_at"]),
            }
        )
        if entity.id in stored
        else entity  # models are frozen: the one sent is the one stored
        for entity in batch
    ]


def _relationships_as_stored(
    tenant: str, batch: Sequence[Relationship], results: Sequence[Rows]
) -> list[Relationship]:
    """``batch`` as stored, from its statements' rows; ``InvalidInput`` naming missing ends.

    In a transaction the error is raised inside it, so the statements written roll back.
    """
    kept: dict[int, Any] = {}
    missing: set[str] = set()
    for result in results:
        kept.update((row["index"], row["created_at"]) for row in result[0]["changed"])
        missing.update(result[0]["missing"])
    if missing:
        raise InvalidInput(
            f"relationship ends are not entities of tenant {tenant!r}: "
            f"{', '.join(map(repr, sorted(missing)))}; upsert them first (nothing was "
            "written)",
            missing_ids=sorted(missing),
            tenant=tenant,
        )
    # The query keeps the first created_at of a replaced relationship; every other one
    # is what was sent (models are frozen: the one sent is the one stored).
    # model_copy: the query kept created_at <= expired_at already.
    return [
        rel.model_copy(update={"created_at": to_datetime(kept[index])}) if index in kept else rel
        for index, rel in enumerate(batch)
    ]


class GraphRoom(Neo4jBase):
    """Entities and relationships on Neo4j: batch writes, reads, invalidation, summaries."""

    def _upsert_entities_tx(
        self, tx: neo4j.ManagedTransaction, tenant: str, batch: Sequence[Entity], now: datetime
    ) -> list[Entity]:
        results = self._run_pipelined(tx, _entity_statements(tenant, batch, now))
        return _entities_as_stored(batch, results)

    def upsert_entities(self, tenant: str, entities: Sequence[Entity]) -> list[Entity]:
        """Insert or replace entities by id, in one batch; return them as stored.

        At most :data:`BATCH_ROWS` entities are one auto-commit statement (one network
        round trip; repeated after a lost connection, which changes nothing: the write is
        an upsert); more are one transaction.
        """
        tenant = self._check(tenant)
        given = check_models(entities, Entity, "entities")
        batch = dedupe(given, lambda e: e.id)
        if not batch:
            return []
        now = utcnow()
        try:
            if len(batch) <= BATCH_ROWS:
                results = [
                    self._autocommit(name, params, write=True)
                    for name, params, _ in (
                        build() for build in _entity_statements(tenant, batch, now)
                    )
                ]
                stored = _entities_as_stored(batch, results)
            else:
                stored = self._execute(
                    lambda tx: self._upsert_entities_tx(tx, tenant, batch, now), write=True
                )
        finally:  # a write whose outcome is unknown may have landed
            self._entity_written(tenant)
        if len(stored) == len(given):  # no id repeated: in the order given
            return stored
        by_id = {entity.id: entity for entity in stored}
        return [by_id[entity.id] for entity in given]

    def get_entity(self, tenant: str, entity_id: str) -> Entity:
        """Return the entity; ``NotFound`` if there is none with that id."""
        found = self.get_entities(tenant, [check_id(entity_id, "entity id")])
        if not found:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        return found[0]

    def get_entities(self, tenant: str, entity_ids: Sequence[str]) -> list[Entity]:
        """Return the entities that exist among ``entity_ids``, in the order asked."""
        tenant = self._check(tenant)
        ids = check_ids(entity_ids, "entity_ids")
        if not ids:
            return []
        rows = self._read(
            "entities/get_entities", {"tenant": tenant, "ids": list(dict.fromkeys(ids))}
        )
        by_id = {row["entity"]["id"]: entity_from_row(row["entity"]) for row in rows}
        return [by_id[i] for i in ids if i in by_id]

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

        The read and the write happen in one transaction that holds the entity's write
        lock, so concurrent updates of one entity do not lose each other's changes.
        Keys both set and removed end up removed.
        """
        tenant = self._check(tenant)
        check_id(entity_id, "entity id")
        if type is not None:
            check_safe_name(type, "entity type")
        remove_attributes = check_attribute_names(remove_attributes)
        if attributes is not None and not isinstance(attributes, Mapping):
            raise InvalidInput("attributes takes a mapping of attribute names to values")
        # Validate the new name and attribute values before anything is sent.
        Entity(
            id=entity_id,
            type="probe",
            name="probe" if name is None else name,
            attributes=dict(attributes or {}),
        )
        now = utcnow()

        def work(tx: neo4j.ManagedTransaction) -> Entity:
            rows = self._run(tx, "entities/lock_entity", {"tenant": tenant, "id": entity_id})
            if not rows:
                raise NotFound(
                    f"no entity {entity_id!r} in tenant {tenant!r}",
                    entity_id=entity_id,
                    tenant=tenant,
                )
            current = entity_from_row(rows[0]["entity"])
            merged = dict(current.attributes)
            merged.update(attributes or {})
            for key in remove_attributes:
                merged.pop(key, None)
            updated = Entity(
                id=current.id,
                type=type if type is not None else current.type,
                name=name if name is not None else current.name,
                attributes=merged,
                created_at=current.created_at,
                updated_at=current.updated_at,
            )
            return self._upsert_entities_tx(tx, tenant, [updated], now)[0]

        try:
            return self._execute(work, write=True)
        finally:
            self._entity_written(tenant)

    def delete_entities(self, tenant: str, entity_ids: Sequence[str]) -> int:
        """Delete entities and their relationships; return how many existed."""
        tenant = self._check(tenant)
        ids = list(dict.fromkeys(check_ids(entity_ids, "entity_ids")))
        if not ids:
            return 0

        def work(tx: neo4j.ManagedTransaction) -> int:
            deleted = 0
            for chunk in _slices(ids):
                params = {"tenant": tenant, "ids": list(chunk)}
                deleted += self._run(tx, "entities/delete_entities", params)[0]["deleted"]
            return deleted

        try:
            return self._execute(work, write=True)
        finally:
            self._entity_written(tenant)

    def find_entities(self, tenant: str, filter: EntityFilter) -> list[Entity]:
        """Return entities matching every condition of ``filter``, ordered by id."""
        tenant = self._check(tenant)
        if not isinstance(filter, EntityFilter):
            raise InvalidInput("find_entities takes an EntityFilter")
        params = {
            "tenant": tenant,
            "type": filter.type,
            "name_lower": None if not filter.name_contains else filter.name_contains.casefold(),
            "name_exact": None if filter.name is None else filter.name.casefold(),
            "attrs": attribute_columns(filter.attributes),
            "limit": _limit(filter.limit),
        }
        rows = self._read("entities/find_entities", params)
        return [entity_from_row(row["entity"]) for row in rows]

    def count_entities(self, tenant: str) -> int:
        """Return the number of entities."""
        tenant = self._check(tenant)
        return int(self._read("entities/count_entities", {"tenant": tenant})[0]["count"])

    def _upsert_relationships_tx(
        self,
        tx: neo4j.ManagedTransaction,
        tenant: str,
        batch: Sequence[Relationship],
        parts: Sequence[tuple[str, list[int]]] | None = None,
    ) -> list[Relationship]:
        if parts is None:
            parts = _relationship_parts(batch)
        results = self._run_pipelined(tx, _relationship_statements(tenant, batch, parts))
        return _relationships_as_stored(tenant, batch, results)

    def upsert_relationships(
        self, tenant: str, relationships: Sequence[Relationship]
    ) -> list[Relationship]:
        """Insert or replace relationships keyed by (source, target, type), in one batch.

        A batch of one type and at most :data:`BATCH_ROWS` rows is one auto-commit
        statement (one network round trip; repeated after a lost connection, which
        changes nothing: the write is an upsert); a larger one is one transaction, its
        statements pipelined (:meth:`~Neo4jBase._run_pipelined`).
        """
        tenant = self._check(tenant)
        given = check_models(relationships, Relationship, "relationships")
        batch = dedupe(given, _relationship_key)
        if not batch:
            return []
        parts = _relationship_parts(batch)
        if len(parts) == 1:
            results = [
                self._autocommit(name, params, write=True, rel_type=rel_type)
                for name, params, rel_type in (
                    build() for build in _relationship_statements(tenant, batch, parts)
                )
            ]
            stored = _relationships_as_stored(tenant, batch, results)
        else:
            stored = self._execute(
                lambda tx: self._upsert_relationships_tx(tx, tenant, batch, parts), write=True
            )
        if len(stored) == len(given):  # no key repeated: in the order given
            return stored
        by_key = {rel.key: rel for rel in stored}
        return [by_key[rel.key] for rel in given]

    def get_relationships(
        self, tenant: str, entity_id: str, filter: RelationshipFilter
    ) -> list[Relationship]:
        """Return relationships of an entity (outgoing by default); ``NotFound`` if unknown."""
        tenant = self._check(tenant)
        check_id(entity_id, "entity id")
        if not isinstance(filter, RelationshipFilter):
            raise InvalidInput("get_relationships takes a RelationshipFilter")
        if filter.include_invalid:
            mode, at, recorded = "all", utcnow(), None
        else:
            mode, at, recorded = _clock_mode(filter.as_of, filter.recorded_as_of)
        params = {
            "tenant": tenant,
            "entity_id": entity_id,
            "direction": filter.direction,
            "types": None if filter.types is None else list(filter.types),
            "mode": mode,
            "at": at,
            "recorded": recorded,
            "limit": _limit(filter.limit),
        }
        rows = self._read("relationships/get_relationships", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        return [relationship_from_row(row) for row in rows[0]["rels"]]

    def delete_relationship(self, tenant: str, source_id: str, target_id: str, type: str) -> bool:
        """Delete one relationship; return whether it existed."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "source_id": check_id(source_id, "source id"),
            "target_id": check_id(target_id, "target id"),
            "type": check_safe_name(type, "relationship type"),
        }
        return bool(self._write("relationships/delete_relationship", params)[0]["deleted"])

    def invalidate_relationship(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        type: str,
        *,
        at: datetime | None = None,
    ) -> Relationship:
        """Mark a fact as no longer holding from ``at`` (default now) and expired now."""
        tenant = self._check(tenant)
        if at is not None and not isinstance(at, datetime):
            raise InvalidInput(f"at must be a datetime, got {at!r}")
        now = utcnow()
        at_utc = as_utc(at, "at")
        params = {
            "tenant": tenant,
            "source_id": check_id(source_id, "source id"),
            "target_id": check_id(target_id, "target id"),
            "type": check_safe_name(type, "relationship type"),
            "at": at_utc,
            "now": now,
        }

        def work(tx: neo4j.ManagedTransaction) -> Relationship:
            rows = self._run(tx, "relationships/invalidate_relationship", params)
            if not rows:
                raise NotFound(
                    f"no {type} relationship from {source_id!r} to {target_id!r} in tenant "
                    f"{tenant!r}",
                    source_id=source_id,
                    target_id=target_id,
                    type=type,
                    tenant=tenant,
                )
            rel = relationship_from_row(rows[0]["rel"])
            if rows[0]["empty"] and at_utc is not None:  # nothing was set
                start = rel.valid_at if rel.valid_at is not None else rel.created_at
                raise empty_interval_error(
                    tenant, rel.key, at_utc, start, dated=rel.valid_at is not None
                )
            return rel

        return self._execute(work, write=True)

    def count_relationships(self, tenant: str) -> int:
        """Return the number of relationships, invalidated ones included."""
        tenant = self._check(tenant)
        return int(self._read("relationships/count_relationships", {"tenant": tenant})[0]["count"])

    def relationship_patterns(self, tenant: str) -> list[RelationshipPattern]:
        """Each (source type, type, target type) of the current facts, with its count; one query."""
        tenant = self._check(tenant)
        rows = self._read(
            "relationships/count_relationship_patterns", {"tenant": tenant, "now": utcnow()}
        )
        return [
            RelationshipPattern(row["source_type"], row["type"], row["target_type"], row["facts"])
            for row in rows
        ]

    def relationship_cooccurrence(self, tenant: str) -> list[RoleCooccurrence]:
        """For every two roles some entity has both of, how many entities do; one query."""
        tenant = self._check(tenant)
        rows = self._read(
            "relationships/count_role_cooccurrence", {"tenant": tenant, "now": utcnow()}
        )
        return [
            RoleCooccurrence(
                row["type_a"],
                row["direction_a"],
                row["type_b"],
                row["direction_b"],
                row["entities"],
            )
            for row in rows
        ]

    def entity_version(self, tenant: str) -> str:
        """This store's entity writes, and the tenant's entity count and latest update.

        One query. Writes by other processes are seen when they change the count or the
        latest ``updated_at``.
        """
        tenant = self._check(tenant)
        row = self._read("entities/get_entity_version", {"tenant": tenant})[0]
        with self._entity_writes_lock:
            written = self._entity_writes.get(tenant, 0)
        latest = row["latest"]
        return f"{written}:{row['count']}:{'' if latest is None else latest}"

    def revision(self, tenant: str) -> int:
        """Refused: other processes write the database unseen (no ``revision`` capability)."""
        raise self._no_revision(tenant)

    def identity_expiry(self, tenant: str, entity_id: str, *, after: datetime) -> datetime | None:
        """Refused with :meth:`revision`: without it an expiry cannot make a cache safe."""
        raise self._no_revision(tenant)

    def _no_revision(self, tenant: str) -> UnsupportedOperation:
        self._check(tenant)
        return UnsupportedOperation(
            f"the store {self.url} cannot know every write: other clients write the "
            "database too, so it has no revision (its answers must be read, not cached)",
            url=self.url,
        )
