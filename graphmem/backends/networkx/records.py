"""The record room of ``NetworkXStore``: records by kind, and ``write_changes``.

``write_records`` and ``write_changes`` are one change record each, so one SQLite
transaction on a ``file://`` store.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Any

from graphmem.backends.model_checks import check_models
from graphmem.backends.networkx.base import _operation
from graphmem.backends.networkx.graph import GraphRoom, _same_json
from graphmem.backends.networkx.state import _Tenant
from graphmem.core.checks import check_ids, check_limit
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
    """Records by kind, and change sets written as one change record."""

    @staticmethod
    def _stored_records(
        data: _Tenant, batch: list[Record], kind: str | None, what: str
    ) -> list[Record]:
        """The records of a batch as they will be stored (last of an id wins)."""
        now = utcnow()
        stored: dict[tuple[str, str], Record] = {}
        for index, item in enumerate(batch):
            if kind is not None and item.kind != kind:
                raise InvalidInput(
                    f"{what}[{index}] is of kind {item.kind!r}, not {kind!r}; "
                    "put records of one kind per call. Nothing was written.",
                    index=index,
                )
            old = data.records.get(item.kind, {}).get(item.id)
            if old is not None:
                created = old.created_at
                item = item.model_copy(
                    update={"created_at": created, "updated_at": max(now, created)}
                )
            stored[(item.kind, item.id)] = item
        return list(stored.values())

    @_operation
    def put_records(self, tenant: str, kind: str, records: Sequence[Record]) -> list[Record]:
        """Insert or replace records of one kind by id, in one atomic batch."""
        check_safe_name(kind, "record kind")
        batch = check_models(records, Record, "records")
        stored = self._stored_records(self._tenant(tenant), batch, kind, "records")
        if stored:
            self._commit({"op": "put", "tenant": tenant, "records": stored})
        by_id = {r.id: r for r in stored}
        return [by_id[r.id] for r in batch]

    @_operation
    def write_records(
        self,
        tenant: str,
        put: Sequence[Record] = (),
        delete: Mapping[str, Sequence[str]] | None = None,
    ) -> list[Record]:
        """Put records of any kinds and delete records by kind and id, in one atomic write."""
        batch = check_models(put, Record, "put")
        deletes = check_record_deletes(delete, batch)
        written = self._write_checked(tenant, ChangeSet(records=batch, delete_records=deletes))
        return list(written.records)

    @_operation
    def write_changes(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """Put and delete records, entities and relationships, in one atomic write."""
        return self._write_checked(tenant, check_changes(changes))

    def _write_checked(self, tenant: str, changes: ChangeSet) -> ChangeSet:
        """One change record for a checked change set: all of it is durable, or none."""
        records = check_models(changes.records, Record, "records")
        entities = check_models(changes.entities, Entity, "entities")
        rels = check_models(changes.relationships, Relationship, "relationships")
        data = self._tenant(tenant)
        graph = data.graph
        gone = frozenset(i for i in changes.delete_entities if i in graph._node)
        dropped = [
            key
            for key in changes.delete_relationships
            if key[0] not in gone
            and key[1] not in gone
            and key[2] in graph._succ.get(key[0], {}).get(key[1], {})
        ]
        added = self._stored_entities(data, entities)
        stored_rels = self._stored_relationships(data, tenant, rels, added, gone)
        stored = self._stored_records(data, records, None, "records")
        present = {
            kind: [i for i in ids if i in data.records.get(kind, {})]
            for kind, ids in changes.delete_records.items()
        }
        present = {kind: ids for kind, ids in present.items() if ids}
        change: dict[str, Any] = {"op": "put", "tenant": tenant}
        for name, value in (
            ("entities", list(added.values())),
            ("relationships", list(stored_rels.values())),
            ("records", stored),
            ("delete_records", present),
            ("delete_entities", sorted(gone)),
            ("delete_relationships", [list(key) for key in dropped]),
        ):
            if value:
                change[name] = value
        if len(change) > 2:
            self._commit(change)
        return stored_changes(changes, stored, added.values(), stored_rels.values())

    @_operation
    def get_record(self, tenant: str, kind: str, record_id: str) -> Record:
        """Return one record; ``NotFound`` if unknown."""
        check_safe_name(kind, "record kind")
        found = self._tenant(tenant).records.get(kind, {}).get(record_id)
        if found is None:
            raise NotFound(
                f"no record {record_id!r} of kind {kind!r} in tenant {tenant!r}",
                record_id=record_id,
                kind=kind,
                tenant=tenant,
            )
        return found

    @_operation
    def get_records(self, tenant: str, kind: str, record_ids: Sequence[str]) -> list[Record]:
        """Return the records of ``kind`` that exist among ``record_ids``, in the order asked."""
        check_safe_name(kind, "record kind")
        by_id = self._tenant(tenant).records.get(kind, {})
        return [by_id[i] for i in check_ids(record_ids, "record_ids") if i in by_id]

    @_operation
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
        """Records of a kind by owner, data equality and creation time, newest first."""
        check_safe_name(kind, "record kind")
        check_limit(limit)
        wanted = list(check_where(where).items())
        low = as_utc(since, "since")
        high = as_utc(until, "until")
        found = []
        data = self._tenant(tenant)
        candidates: Any
        if owner is None:
            candidates = data.records.get(kind, {}).values()
        else:
            by_id = data.records.get(kind, {})
            ids = data.owned.get(kind, {}).get(check_owner(owner), {})
            candidates = [by_id[i] for i in ids]
        for item in candidates:
            if low is not None and item.created_at < low:
                continue
            if high is not None and item.created_at >= high:
                continue
            values = item.data
            if any(k not in values or not _same_json(values[k], v) for k, v in wanted):
                continue
            found.append(item)
        found.sort(key=lambda r: (r.created_at, r.id), reverse=newest_first)
        return found[:limit] if limit else found

    @_operation
    def delete_records(self, tenant: str, kind: str, ids: Sequence[str]) -> int:
        """Delete records of a kind by id; return how many existed. Missing is fine."""
        check_safe_name(kind, "record kind")
        by_id = self._tenant(tenant).records.get(kind, {})
        present = [i for i in dict.fromkeys(check_ids(ids, "ids")) if i in by_id]
        if present:
            self._commit({"op": "delete_records", "tenant": tenant, "kind": kind, "ids": present})
        return len(present)

    @_operation
    def count_records(self, tenant: str, kind: str) -> int:
        """The number of records of a kind."""
        check_safe_name(kind, "record kind")
        return len(self._tenant(tenant).records.get(kind, {}))
