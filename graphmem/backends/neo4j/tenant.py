"""The tenant room of ``Neo4jStore``: dump, load, clear, and the list of tenants.

A load is checked without the server first (the plan); the rest (taken turn ids, parents
and heads already stored, relationship ends, mentioned nodes) inside the one write
transaction, whose failure rolls everything back.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

import neo4j

from graphmem.backends.load_plan import MENTION_KINDS, plan_load, turns_missing, turns_taken
from graphmem.backends.neo4j.chunks import ChunkRoom
from graphmem.backends.neo4j.mapping import (
    chunk_from_row,
    entity_from_row,
    record_from_row,
    relationship_from_row,
    turn_from_row,
    turn_props,
    wire_time,
)
from graphmem.backends.neo4j.plumbing import BATCH_ROWS
from graphmem.backends.neo4j.records import RecordRoom
from graphmem.backends.neo4j.rows import _mention_queries, _slices
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    Record,
    Turn,
    utcnow,
)
from graphmem.core.store import TenantDump


class TenantRoom(RecordRoom, ChunkRoom):
    """A whole tenant at once: dump, load, clear; and every tenant that holds something."""

    def dump(self, tenant: str) -> TenantDump:
        """Everything the tenant holds (embeddings aside), read in one transaction."""
        tenant = self._check(tenant)
        params = {"tenant": tenant}

        def work(tx: neo4j.ManagedTransaction) -> TenantDump:
            return TenantDump(
                entities=[
                    entity_from_row(r["entity"])
                    for r in self._run(tx, "tenant/dump_entities", params)
                ],
                relationships=[
                    relationship_from_row(r["rel"])
                    for r in self._run(tx, "tenant/dump_relationships", params)
                ],
                turns=[
                    turn_from_row(r["turn"]) for r in self._run(tx, "tenant/dump_turns", params)
                ],
                heads={
                    r["session_id"]: r["head_id"]
                    for r in self._run(tx, "tenant/dump_heads", params)
                },
                records=[
                    record_from_row(r["record"])
                    for r in self._run(tx, "tenant/dump_records", params)
                ],
                chunks=[
                    chunk_from_row(r["chunk"]) for r in self._run(tx, "tenant/dump_chunks", params)
                ],
                mentions=sorted(
                    (
                        (r["kind"], r["node_id"], r["entity_id"])
                        for r in self._run(tx, "tenant/dump_mentions", params)
                    ),
                    key=lambda m: (MENTION_KINDS.index(m[0]), m[1], m[2]),
                ),
            )

        return self._execute(work, write=False)

    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump into the tenant at once: all of it, or nothing if any part is bad.

        Everything that can be checked without the server is checked first
        (:func:`~graphmem.backends.load_plan.plan_load`); the rest (taken turn ids,
        parents and heads already stored, relationship ends, mentioned nodes) inside the
        one write transaction, whose failure rolls everything back.
        """
        tenant = self._check(tenant)
        plan = plan_load(dump)
        refs = [{"id": turn_id, "session": session} for turn_id, session in plan.refs]
        mentions = plan.mentions_by_kind()
        now = utcnow()

        def work(tx: neo4j.ManagedTransaction) -> None:
            if plan.turn_ids or refs:
                check = self._run(
                    tx,
                    "tenant/check_turn_refs",
                    {"tenant": tenant, "turn_ids": plan.turn_ids, "refs": refs},
                )[0]
                if check["taken"]:
                    raise turns_taken(tenant, check["taken"])
                if check["missing"]:
                    raise turns_missing(check["missing"])
            if plan.entities:
                self._upsert_entities_tx(tx, tenant, plan.entities, now)
            if plan.relationships:
                self._upsert_relationships_tx(tx, tenant, plan.relationships)
            for group in _session_groups(plan.parents_first):
                self._run(tx, "tenant/create_turns", {"tenant": tenant, "sessions": group})
            links = [{"id": turn_id, "parent_id": parent} for turn_id, parent in plan.links]
            for part in _slices(links):
                self._run(tx, "tenant/link_turns", {"tenant": tenant, "links": list(part)})
            heads = [{"session_id": s, "head_id": h} for s, h in plan.heads.items()]
            for part in _slices(heads):
                self._run(tx, "tenant/set_heads", {"tenant": tenant, "heads": list(part)})
            by_kind: dict[str, list[Record]] = {}
            for record in plan.records:
                by_kind.setdefault(record.kind, []).append(record)
            for kind, of_kind in sorted(by_kind.items()):
                self._put_records_tx(tx, tenant, kind, of_kind, now)
            if plan.chunks:
                self._upsert_chunks_tx(tx, tenant, plan.chunks)
            for kind, pairs in mentions.items():
                rows = [{"node_id": node_id, "entity_id": e} for node_id, e in pairs]
                for part in _slices(rows):
                    params = {"tenant": tenant, "rows": list(part)}
                    missing = self._run(tx, _mention_queries(kind).add, params)
                    if missing:
                        first = missing[0]
                        what = kind if first["missing_node"] else "entity"
                        name = first["node_id"] if first["missing_node"] else first["entity_id"]
                        raise InvalidInput(
                            f"dump.mentions name an unknown {what} {name!r} (neither stored "
                            "nor in the dump); nothing was written",
                            missing=[(kind, m["node_id"], m["entity_id"]) for m in missing],
                        )

        try:
            self._execute(work, write=True)
        finally:
            self._entity_written(tenant)

    def clear(self, tenant: str) -> None:
        """Delete everything the tenant holds.

        In batches of 1,000 nodes, each committed on its own (``CALL ... IN
        TRANSACTIONS``), so a tenant of any size is cleared within the server's memory;
        one auto-commit query, retried on retryable errors, since running it again only
        deletes what is left. A failure part-way leaves part of the tenant: clear again.
        """
        tenant = self._check(tenant)
        try:
            self._autocommit("tenant/clear_tenant", {"tenant": tenant}, write=True)
        finally:
            self._entity_written(tenant)

    def list_tenants(self) -> list[str]:
        """Every tenant that holds something (an entity, turn, chunk or record), sorted."""
        self._check_open()
        return [row["tenant"] for row in self._read("admin/list_tenants", {})]


def _session_groups(turns: Sequence[Turn]) -> Iterator[list[dict[str, Any]]]:
    """The ``$sessions`` parameter of each create_turns query: at most BATCH_ROWS turns.

    Each session's turns in the order given (parents first: the query numbers them so).
    """
    by_session: dict[str, list[dict[str, Any]]] = {}
    for turn in turns:
        props = turn_props(turn)
        props["created_at"] = wire_time(turn.created_at)  # stored as DateTime by the query
        by_session.setdefault(turn.session_id, []).append(props)
    group: list[dict[str, Any]] = []
    size = 0
    for session_id, rows in by_session.items():
        for part in _slices(rows):
            if group and size + len(part) > BATCH_ROWS:
                yield group
                group, size = [], 0
            group.append({"session_id": session_id, "turns": list(part)})
            size += len(part)
    if group:
        yield group
