"""The record room of ``Neo4jStore``: records by kind, and ``write_changes``.

``write_records`` and ``write_changes`` put and delete records, entities and
relationships in one transaction, in the order the protocol gives (deletes first).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

import neo4j

from graphmem.backends.model_checks import check_models, check_records, dedupe
from graphmem.backends.neo4j.graph import GraphRoom
from graphmem.backends.neo4j.mapping import (
    attribute_columns,
    record_from_row,
    to_datetime,
    wire_time,
)
from graphmem.backends.neo4j.rows import (
    _limit,
    _record_row,
    _relationship_key,
    _slices,
    _Written,
)
from graphmem.core.checks import check_id, check_ids
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import (
    Entity,
    Record,
    Relationship,
    check_safe_name,
    utcnow,
)
from graphmem.core.store import (
    ChangeSet,
    JSONScalar,
    as_utc,
    check_changes,
    check_owner,
    check_record_deletes,
    check_where,
    stored_changes,
)


class RecordRoom(GraphRoom):
    """Records by kind, and change sets written in one transaction."""

    def _put_records_tx(
        self,
        tx: neo4j.ManagedTransaction,
        tenant: str,
        kind: str,
        batch: Sequence[Record],
        now: datetime,
    ) -> list[Record]:
        stored: dict[str, tuple[Any, Any]] = {}
        rows = [_record_row(record, tenant) for record in batch]
        for chunk in _slices(rows):
            params = {"tenant": tenant, "kind": kind, "rows": list(chunk), "now": wire_time(now)}
            for row in self._run(tx, "records/put_records", params):
                stored[row["id"]] = (row["created_at"], row["updated_at"])
        return [
            record.model_copy(
                update={
                    "created_at": to_datetime(stored[record.id][0]),
                    "updated_at": to_datetime(stored[record.id][1]),
                }
            )
            for record in batch
        ]

    def put_records(self, tenant: str, kind: str, records: Sequence[Record]) -> list[Record]:
        """Insert or replace records of one kind by id, in one atomic batch."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        given = check_records(records, kind, "records")
        batch = dedupe(given, lambda r: r.id)
        if not batch:
            return []
        now = utcnow()
        stored = self._execute(
            lambda tx: self._put_records_tx(tx, tenant, kind, batch, now), write=True
        )
        by_id = {record.id: record for record in stored}
        return [by_id[record.id] for record in given]

    def write_records(
        self,
        tenant: str,
        put: Sequence[Record] = (),
        delete: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Record]:
        """Put records of any kinds and delete records by kind and id, in one transaction."""
        tenant = self._check(tenant)
        given = check_records(put, None, "put")
        deletes = check_record_deletes(delete, given)
        written = self._write_checked(tenant, ChangeSet(records=given, delete_records=deletes))
        return list(written.records)

    def write_changes(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """Put and delete records, entities and relationships, in one transaction."""
        tenant = self._check(tenant)
        return self._write_checked(tenant, check_changes(changes))

    def _write_checked(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """One transaction for a checked change set, in the order the protocol gives."""
        given = check_records(changes.records, None, "records")
        entities = check_models(changes.entities, Entity, "entities")
        rels = check_models(changes.relationships, Relationship, "relationships")
        records = dedupe(given, lambda r: (r.kind, r.id))
        entity_batch = dedupe(entities, lambda e: e.id)
        rel_batch = dedupe(rels, _relationship_key)
        if changes.empty:
            return stored_changes(changes, [], [], [])
        now = utcnow()
        keys = [
            {"source_id": source, "target_id": target, "type": type_}
            for source, target, type_ in changes.delete_relationships
        ]

        def work(tx: neo4j.ManagedTransaction) -> _Written:
            for part in _slices(keys):
                params = {"tenant": tenant, "keys": list(part)}
                self._run(tx, "relationships/delete_relationships", params)
            for ids in _slices(list(changes.delete_entities)):
                self._run(tx, "entities/delete_entities", {"tenant": tenant, "ids": list(ids)})
            stored_entities = (
                self._upsert_entities_tx(tx, tenant, entity_batch, now) if entity_batch else []
            )
            stored_rels = self._upsert_relationships_tx(tx, tenant, rel_batch) if rel_batch else []
            stored: list[Record] = []
            for kind in dict.fromkeys(r.kind for r in records):
                of_kind = [r for r in records if r.kind == kind]
                stored.extend(self._put_records_tx(tx, tenant, kind, of_kind, now))
            for kind, ids in changes.delete_records.items():
                self._run(
                    tx, "records/delete_records", {"tenant": tenant, "kind": kind, "ids": ids}
                )
            return stored, stored_entities, stored_rels

        stored, stored_entities, stored_rels = self._execute(work, write=True)
        return stored_changes(changes, stored, stored_entities, stored_rels)

    def get_record(self, tenant: str, kind: str, record_id: str) -> Record:
        """Return one record; ``NotFound`` if there is no record of ``kind`` with that id."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        record_id = check_id(record_id, "record id")
        rows = self._read(
            "records/get_record", {"tenant": tenant, "kind": kind, "record_id": record_id}
        )
        if not rows:
            raise NotFound(
                f"no record {record_id!r} of kind {kind!r} in tenant {tenant!r}",
                record_id=record_id,
                kind=kind,
                tenant=tenant,
            )
        return record_from_row(rows[0]["record"])

    def get_records(self, tenant: str, kind: str, record_ids: Sequence[str]) -> list[Record]:
        """Return the records of ``kind`` that exist among ``record_ids``, in the order asked."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        wanted = check_ids(record_ids, "record_ids")
        if not wanted:
            return []
        params = {"tenant": tenant, "kind": kind, "record_ids": wanted}
        return [record_from_row(row["record"]) for row in self._read("records/get_records", params)]

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

        With an ``owner``, one query through the (tenant, kind, owner) index.
        """
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0
        ):
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        params = {
            "tenant": tenant,
            "kind": kind,
            "where": attribute_columns(check_where(where)),
            "since": as_utc(since, "since"),
            "until": as_utc(until, "until"),
            "limit": _limit(limit),
            "newest_first": bool(newest_first),
        }
        if owner is not None:
            params["owner"] = check_owner(owner)
            rows = self._read("records/find_owned_records", params)
        else:
            rows = self._read("records/find_records", params)
        return [record_from_row(row["record"]) for row in rows]

    def delete_records(self, tenant: str, kind: str, ids: Sequence[str]) -> int:
        """Delete records of ``kind`` by id, in one batch; return how many existed."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        wanted = list(dict.fromkeys(check_ids(ids, "ids")))
        if not wanted:
            return 0
        params = {"tenant": tenant, "kind": kind, "ids": wanted}
        rows = self._write("records/delete_records", params)
        return int(rows[0]["deleted"])

    def count_records(self, tenant: str, kind: str) -> int:
        """The number of records of ``kind``."""
        tenant = self._check(tenant)
        check_safe_name(kind, "record kind")
        rows = self._read("records/count_records", {"tenant": tenant, "kind": kind})
        return int(rows[0]["count"])
