"""The tenant room of ``Neo4jStore``: dump, load, clear, and the list of tenants.

A load is checked without the server first (the plan); the rest (taken turn ids, parents
and heads already stored, relationship ends, mentioned nodes) inside the one write
transaction, whose failure rolls everything back.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

import neo4j

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
from graphmem.backends.neo4j.rows import (
    _MENTION_KINDS,
    _check_chunks,
    _check_entities,
    _check_items,
    _check_records,
    _check_relationships,
    _dedupe,
    _mention_queries,
    _relationship_key,
    _slices,
)
from graphmem.checks import check_id
from graphmem.errors import InvalidInput
from graphmem.models import (
    Record,
    Turn,
    check_safe_name,
    utcnow,
)
from graphmem.store import TenantDump


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
                    key=lambda m: (_MENTION_KINDS.index(m[0]), m[1], m[2]),
                ),
            )

        return self._execute(work, write=False)

    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump into the tenant at once: all of it, or nothing if any part is bad.

        Everything that can be checked without the server is checked first; the rest
        (taken turn ids, parents and heads already stored, relationship ends) inside the
        one write transaction, whose failure rolls everything back.
        """
        tenant = self._check(tenant)
        if not isinstance(dump, TenantDump):
            raise InvalidInput("load takes a TenantDump")
        entities = _dedupe(_check_entities(dump.entities, "dump.entities"), lambda e: e.id)
        rels = _dedupe(
            _check_relationships(dump.relationships, "dump.relationships"),
            _relationship_key,
        )
        turns = _check_items(dump.turns, Turn, "dump.turns")
        records = _dedupe(
            _check_records(dump.records, None, "dump.records"), lambda r: (r.kind, r.id)
        )
        for index, turn in enumerate(turns):  # model_construct skips validation
            check_safe_name(turn.role, f"dump.turns[{index}] role")
        plan = _plan_turns(turns, dump.heads)
        chunks = _dedupe(_check_chunks(dump.chunks, "dump.chunks"), lambda c: c.id)
        mentions = _plan_mentions(dump.mentions)
        now = utcnow()

        def work(tx: neo4j.ManagedTransaction) -> None:
            if plan.turn_ids or plan.refs:
                check = self._run(
                    tx,
                    "tenant/check_turn_refs",
                    {"tenant": tenant, "turn_ids": plan.turn_ids, "refs": plan.refs},
                )[0]
                if check["taken"]:
                    raise InvalidInput(
                        f"turn ids already stored in tenant {tenant!r}: "
                        f"{', '.join(map(repr, sorted(check['taken'])))}; a load adds new "
                        "turns only (nothing was written)",
                        turn_ids=sorted(check["taken"]),
                    )
                if check["missing"]:
                    raise InvalidInput(
                        "parents or heads that are neither in the dump nor turns of the same "
                        f"session: {', '.join(map(repr, sorted(set(check['missing']))))} "
                        "(nothing was written)",
                        turn_ids=sorted(set(check["missing"])),
                    )
            if entities:
                self._upsert_entities_tx(tx, tenant, entities, now)
            if rels:
                self._upsert_relationships_tx(tx, tenant, rels)
            for group in plan.session_groups():
                self._run(tx, "tenant/create_turns", {"tenant": tenant, "sessions": group})
            for links in _slices(plan.links):
                self._run(tx, "tenant/link_turns", {"tenant": tenant, "links": list(links)})
            for heads in _slices(plan.heads):
                self._run(tx, "tenant/set_heads", {"tenant": tenant, "heads": list(heads)})
            by_kind: dict[str, list[Record]] = {}
            for record in records:
                by_kind.setdefault(record.kind, []).append(record)
            for kind, of_kind in sorted(by_kind.items()):
                self._put_records_tx(tx, tenant, kind, of_kind, now)
            if chunks:
                self._upsert_chunks_tx(tx, tenant, chunks)
            for kind, rows in mentions.items():
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


class _TurnPlan:
    """The turns of a load, checked and arranged into query rows."""

    def __init__(self) -> None:
        self.turn_ids: list[str] = []
        self.refs: list[dict[str, str]] = []
        self.sessions: list[dict[str, Any]] = []
        self.links: list[dict[str, str]] = []
        self.heads: list[dict[str, str]] = []

    def session_groups(self) -> Iterator[list[dict[str, Any]]]:
        """The ``$sessions`` parameter of each create_turns query: at most BATCH_ROWS turns."""
        group: list[dict[str, Any]] = []
        size = 0
        for session in self.sessions:
            for part in _slices(session["turns"]):
                if group and size + len(part) > BATCH_ROWS:
                    yield group
                    group, size = [], 0
                group.append({"session_id": session["session_id"], "turns": list(part)})
                size += len(part)
        if group:
            yield group


def _plan_mentions(mentions: object) -> dict[str, list[dict[str, str]]]:
    """A load's ``(kind, node_id, entity_id)`` triples, checked and grouped by kind."""
    if isinstance(mentions, str | Mapping) or not isinstance(mentions, Iterable):
        raise InvalidInput("dump.mentions takes a list of (kind, node_id, entity_id)")
    grouped: dict[str, dict[tuple[str, str], None]] = {}
    for index, mention in enumerate(mentions):
        if not isinstance(mention, tuple | list) or len(mention) != 3:
            raise InvalidInput(f"mentions[{index}] must be (kind, node_id, entity_id)")
        kind, node_id, entity_id = mention
        _mention_queries(kind)
        key = (
            check_id(node_id, f"mentions[{index}] node_id"),
            check_id(entity_id, f"mentions[{index}] entity_id"),
        )
        grouped.setdefault(kind, {})[key] = None
    return {
        kind: [{"node_id": n, "entity_id": e} for n, e in pairs] for kind, pairs in grouped.items()
    }


def _parents_first(turns: Sequence[Turn], by_id: Mapping[str, Turn]) -> list[Turn]:
    """The dump's turns with every parent in the dump before its children (else in order).

    The load numbers each session's turns in this order (``seq``), which keeps ``seq``
    increasing along every branch: the active branch is read newest first by ``seq``.
    Linear: each turn is walked once. A cycle of parents (which would never reach a
    root) is ``InvalidInput``.
    """
    done: set[str] = set()
    ordered: list[Turn] = []
    for turn in turns:
        path: list[Turn] = []
        on_path: set[str] = set()
        step: Turn | None = turn
        while step is not None and step.id not in done:
            if step.id in on_path:
                raise InvalidInput(f"the parents of turn {turn.id!r} form a cycle", turn_id=turn.id)
            on_path.add(step.id)
            path.append(step)
            step = by_id.get(step.parent_id) if step.parent_id else None
        for ancestor in reversed(path):
            done.add(ancestor.id)
            ordered.append(ancestor)
    return ordered


def _plan_turns(turns: Sequence[Turn], heads: Mapping[str, str | None]) -> _TurnPlan:
    """Check a load's turns and heads without the server; arrange them for the queries."""
    plan = _TurnPlan()
    by_id: dict[str, Turn] = {}
    for turn in turns:
        if turn.id in by_id:
            raise InvalidInput(f"turn id {turn.id!r} occurs twice in the dump", turn_id=turn.id)
        by_id[turn.id] = turn
    plan.turn_ids = list(by_id)
    for turn in turns:
        if turn.parent_id is None:
            continue
        parent = by_id.get(turn.parent_id)
        if parent is None:
            plan.refs.append({"id": turn.parent_id, "session": turn.session_id})
        elif parent.session_id != turn.session_id:
            raise InvalidInput(
                f"turn {turn.id!r} of session {turn.session_id!r} names parent "
                f"{turn.parent_id!r} of session {parent.session_id!r}",
                turn_id=turn.id,
            )
        plan.links.append({"id": turn.id, "parent_id": turn.parent_id})
    grouped: dict[str, list[dict[str, Any]]] = {}
    for turn in _parents_first(turns, by_id):
        props = turn_props(turn)
        props["created_at"] = wire_time(turn.created_at)  # stored as DateTime by the query
        grouped.setdefault(turn.session_id, []).append(props)
    last: dict[str, str] = {}
    for turn in turns:
        last[turn.session_id] = turn.id
    plan.sessions = [{"session_id": s, "turns": rows} for s, rows in grouped.items()]
    resolved: dict[str, str] = dict(last)
    for session_id, head_id in heads.items():
        check_id(session_id, "session id in heads")
        if head_id is None:
            continue  # the last turn of the session in the dump, if it has any
        check_id(head_id, "head id")
        head = by_id.get(head_id)
        if head is None:
            plan.refs.append({"id": head_id, "session": session_id})
        elif head.session_id != session_id:
            raise InvalidInput(
                f"the head of session {session_id!r} is turn {head_id!r} of session "
                f"{head.session_id!r}",
                session_id=session_id,
            )
        resolved[session_id] = head_id
    plan.heads = [{"session_id": s, "head_id": h} for s, h in resolved.items()]
    return plan
