"""The tenant room of ``NetworkXStore``: dump, load, clear, and the list of tenants."""

from __future__ import annotations

from collections.abc import Mapping
from contextlib import nullcontext
from typing import Any

from graphmem.backends.load_plan import (
    MENTION_KINDS,
    LoadPlan,
    plan_load,
    turns_missing,
    turns_taken,
)
from graphmem.backends.networkx.base import _operation
from graphmem.backends.networkx.chunks import ChunkRoom
from graphmem.backends.networkx.records import RecordRoom
from graphmem.backends.networkx.state import _Tenant, _whole
from graphmem.core.errors import InvalidInput, StoreClosed
from graphmem.core.models import Turn
from graphmem.core.store import TenantDump, traced


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
            for kind in MENTION_KINDS
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
        """Write a dump at once: all of it or nothing.

        The dump is checked by :func:`~graphmem.backends.load_plan.plan_load`, then
        against the tenant (relationship ends, turn ids taken, parents and heads outside
        the dump, mentioned nodes), all before the one change record is made.
        """
        plan = plan_load(dump)
        data = self._tenant(tenant)
        entities = {e.id for e in plan.entities}
        missing = sorted(
            {
                end
                for r in plan.relationships
                for end in (r.source_id, r.target_id)
                if end not in entities and end not in data.graph._node
            }
        )
        if missing:
            raise InvalidInput(
                f"relationships point at entities that do not exist: {missing[:10]}",
                missing_ids=missing,
            )
        taken = [turn_id for turn_id in plan.turn_ids if turn_id in data.turns]
        if taken:
            raise turns_taken(tenant, taken)
        unknown = [
            turn_id
            for turn_id, session_id in plan.refs
            if turn_id not in data.turns or data.turns[turn_id].session_id != session_id
        ]
        if unknown:
            raise turns_missing(unknown)
        _check_mentioned(data, plan, entities)
        records = self._stored_records(data, plan.records, None, "records")
        record: dict[str, Any] = {"op": "put", "tenant": tenant}
        if plan.entities:
            record["entities"] = plan.entities
        if plan.relationships:
            record["relationships"] = plan.relationships
        if plan.turns:
            record["turns"] = plan.turns
        if plan.heads:
            record["heads"] = plan.heads
        if records:
            record["records"] = records
        if plan.chunks:
            record["chunks"] = plan.chunks
        if plan.mentions:
            record["mentions"] = [list(mention) for mention in plan.mentions]
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


def _check_mentioned(data: _Tenant, plan: LoadPlan, entities: set[str]) -> None:
    """Check every mention of a load names a node and an entity, stored or in the dump."""
    nodes: dict[str, tuple[set[str], Mapping[str, object]]] = {
        "turn": (set(plan.turn_ids), data.turns),
        "chunk": ({c.id for c in plan.chunks}, data.chunks),
    }
    for kind, node_id, entity_id in plan.mentions:
        loaded, stored = nodes[kind]
        if node_id not in loaded and node_id not in stored:
            name, what = node_id, kind
        elif entity_id not in entities and entity_id not in data.graph._node:
            name, what = entity_id, "entity"
        else:
            continue
        raise InvalidInput(
            f"dump.mentions name an unknown {what} {name!r} (neither stored nor in the dump); "
            "nothing was written",
            missing=[(kind, node_id, entity_id)],
        )
