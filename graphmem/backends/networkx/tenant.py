"""The tenant room of ``NetworkXStore``: dump, load, clear, and the list of tenants."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from typing import Any

from graphmem.backends.networkx.base import (
    _check_kind,
    _check_models,
    _operation,
)
from graphmem.backends.networkx.chunks import ChunkRoom
from graphmem.backends.networkx.records import RecordRoom
from graphmem.backends.networkx.state import (
    _MENTION_KINDS,
    _Tenant,
    _whole,
)
from graphmem.errors import InvalidInput, StoreClosed
from graphmem.models import (
    Chunk,
    Entity,
    Record,
    Relationship,
    Turn,
)
from graphmem.store import (
    TenantDump,
    traced,
)


class TenantRoom(RecordRoom, ChunkRoom):
    """A whole tenant at once: dump, load, clear; and every tenant that holds something."""

    @_operation
    def dump(self, tenant: str) -> TenantDump:
        """Everything the tenant holds."""
        return self._dump(self._tenant(tenant))

    def _dump(self, data: _Tenant) -> TenantDump:
        graph = _whole(data).graph
        entities = sorted((n["e"] for n in graph._node.values()), key=lambda e: e.id)
        rels = sorted((d["r"] for _s, _t, d in graph.edges(data=True)), key=lambda r: r.key)
        turns: list[Turn] = []
        heads: dict[str, str | None] = {}
        for session_id in sorted(data.sessions):
            session = data.sessions[session_id]
            turns.extend(sorted((data.turns[t] for t in session.order), key=lambda t: t.created_at))
            heads[session_id] = session.head
        records = sorted(
            (r for by_id in data.records.values() for r in by_id.values()),
            key=lambda r: (r.kind, r.created_at, r.id),
        )
        chunks = sorted(data.chunks.values(), key=lambda c: c.id)
        mentions = [
            (kind, node_id, entity_id)
            for kind in _MENTION_KINDS
            for node_id, entity_ids in sorted(data.mentions[kind].items())
            for entity_id in sorted(entity_ids)
        ]
        return TenantDump(
            entities=entities,
            relationships=rels,
            turns=turns,
            heads=heads,
            records=records,
            chunks=chunks,
            mentions=mentions,
        )

    @_operation
    def load(self, tenant: str, dump: TenantDump) -> None:
        """Write a dump at once: all of it or nothing."""
        if not isinstance(dump, TenantDump):
            raise InvalidInput("load takes a TenantDump")
        data = self._tenant(tenant)
        entities = {e.id: e for e in _check_models(dump.entities, Entity, "entities")}
        rels = _check_models(dump.relationships, Relationship, "relationships")
        turns = _check_models(dump.turns, Turn, "turns")
        records = self._stored_records(
            data, _check_models(dump.records, Record, "records"), None, "records"
        )
        missing = sorted(
            {
                end
                for r in rels
                for end in (r.source_id, r.target_id)
                if end not in entities and end not in data.graph._node
            }
        )
        if missing:
            raise InvalidInput(
                f"relationships point at entities that do not exist: {missing[:10]}",
                missing_ids=missing,
            )
        heads = _check_turn_tree(data, turns, dump.heads)
        chunks = {c.id: c for c in _check_models(dump.chunks, Chunk, "chunks")}
        mentions = _check_dump_mentions(data, dump, entities, chunks, turns)
        record: dict[str, Any] = {"op": "put", "tenant": tenant}
        if entities:
            record["entities"] = list(entities.values())
        if rels:
            record["relationships"] = list({r.key: r for r in rels}.values())
        if turns:
            record["turns"] = turns
        if heads:
            record["heads"] = heads
        if records:
            record["records"] = records
        if chunks:
            record["chunks"] = list(chunks.values())
        if mentions:
            record["mentions"] = mentions
        if len(record) > 2:
            self._commit(record)

    @_operation
    def clear(self, tenant: str) -> None:
        """Delete everything the tenant holds."""
        if tenant in self._tenants:
            self._commit({"op": "clear", "tenant": tenant})

    def list_tenants(self) -> list[str]:
        """Every tenant that holds something (an entity, turn, chunk or record), sorted."""
        with self._lock:
            if self._closed:
                raise StoreClosed(f"the store {self._url} is closed; open it again", url=self._url)
            # A reader first syncs what the writer committed, as before any operation.
            following = self._follow.following() if self._follow is not None else nullcontext()
            with traced(self._tracer, "list_tenants", {}), following:
                return sorted(
                    name
                    for name, data in self._tenants.items()
                    if data.graph.number_of_nodes()
                    or data.turns
                    or data.chunks
                    or any(data.records.values())
                )


def _check_dump_mentions(
    data: _Tenant,
    dump: TenantDump,
    entities: Mapping[str, Entity],
    chunks: Mapping[str, Chunk],
    turns: Sequence[Turn],
) -> list[list[str]]:
    """Check the mentions of a dump name known nodes; return them as journal rows."""
    turn_ids = {t.id for t in turns}
    rows: list[list[str]] = []
    for index, mention in enumerate(dump.mentions):
        if not isinstance(mention, tuple | list) or len(mention) != 3:
            raise InvalidInput(f"mentions[{index}] must be (kind, node_id, entity_id)")
        kind, node_id, entity_id = (str(part) for part in mention)
        _check_kind(kind, _MENTION_KINDS)
        known = (
            node_id in chunks or node_id in data.chunks
            if kind == "chunk"
            else node_id in turn_ids or node_id in data.turns
        )
        if not known:
            raise InvalidInput(f"mentions[{index}] names an unknown {kind} {node_id!r}")
        if entity_id not in entities and entity_id not in data.graph._node:
            raise InvalidInput(f"mentions[{index}] names an unknown entity {entity_id!r}")
        rows.append([kind, node_id, entity_id])
    return rows


def _check_turn_tree(
    data: _Tenant, turns: list[Turn], heads: Mapping[str, str | None]
) -> dict[str, str | None]:
    """Check that ``turns`` extend the stored trees soundly; return the heads to set."""
    batch: dict[str, Turn] = {}
    for turn in turns:
        if turn.id in data.turns or turn.id in batch:
            raise InvalidInput(
                f"turn id {turn.id!r} is already stored or repeated", turn_id=turn.id
            )
        batch[turn.id] = turn
    for turn in turns:
        parent_id = turn.parent_id
        if parent_id is None:
            continue
        parent = batch.get(parent_id) or data.turns.get(parent_id)
        if parent is None:
            raise InvalidInput(
                f"turn {turn.id!r} names parent {parent_id!r}, which is neither stored nor in "
                "the batch",
                turn_id=turn.id,
            )
        if parent.session_id != turn.session_id:
            raise InvalidInput(
                f"turn {turn.id!r} of session {turn.session_id!r} names a parent in session "
                f"{parent.session_id!r}",
                turn_id=turn.id,
            )
    # A cycle can only form inside the batch: walk each chain with a bound.
    for turn in turns:
        steps, current = 0, turn.parent_id
        while current is not None and current in batch:
            steps += 1
            if steps > len(batch):
                raise InvalidInput(f"the parents of turn {turn.id!r} form a cycle")
            current = batch[current].parent_id
    last: dict[str, str] = {}
    for turn in turns:
        last[turn.session_id] = turn.id
    out: dict[str, str | None] = {}
    for session_id in dict.fromkeys([*last, *heads]):
        head = heads.get(session_id)
        if head is None:
            head = last.get(session_id)
            if head is None:
                continue
        found = batch.get(head) or data.turns.get(head)
        if found is None or found.session_id != session_id:
            raise InvalidInput(
                f"head {head!r} of session {session_id!r} is not a turn of that session",
                session_id=session_id,
            )
        out[session_id] = head
    return out
