"""The rooms of records and of the whole tenant: :class:`RecordStore`, :class:`TenantAdmin`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from graphmem.core.contract.data import (
    ChangeSet,
    JSONScalar,
    TenantDump,
)
from graphmem.core.models import (
    Record,
)


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
