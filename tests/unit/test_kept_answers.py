"""The store's revision, and the fast routes' kept answers: a write or time makes them stale.

The fast snapshot route (:func:`graphmem.doors.http.fast.fast_snapshot`) is driven here as
the server drives it, over a real store; its kept bodies must always equal what the store
answers now.
"""

from __future__ import annotations

import asyncio
import io
import time
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed")

import graphmem  # noqa: E402
from graphmem import Entity, NotFound, Relationship, UnsupportedOperation  # noqa: E402
from graphmem.core.models import utcnow  # noqa: E402
from graphmem.core.store import TraceEvent, open_store  # noqa: E402
from graphmem.doors import schemas as s  # noqa: E402
from graphmem.doors.http.fast import fast_snapshot  # noqa: E402
from graphmem.doors.http.state import ServerConfig, ServerState  # noqa: E402
from graphmem.memory import Memory  # noqa: E402
from graphmem.policy.governance import GovernancePolicy  # noqa: E402

TENANT = "village"


class Served:
    """A ServerState over a store, with the tracer's count of store snapshots."""

    def __init__(self, url: str = "memory://", **options: Any) -> None:
        self.snapshots = 0
        self.store = open_store(url, tracer=self._trace, **options)
        self.state = ServerState(ServerConfig(store=self.store, tenant=TENANT))
        self.state.open()
        self.mem = self.state.memory(None)

    def _trace(self, event: TraceEvent) -> None:
        if event.name == "identity_snapshot":
            self.snapshots += 1

    def get(self, npc: str, route: str = "snapshot", query: bytes = b"") -> tuple[int, bytes]:
        """What the fast route answers: status and body."""
        sent: list[dict[str, Any]] = []

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        path = f"/v1/npcs/{npc}/{route}"
        scope = {
            "type": "http",
            "method": "GET",
            "path": path,
            "raw_path": path.encode(),
            "query_string": query,
            "headers": [],
        }
        assert asyncio.run(fast_snapshot(self.state, scope, send))
        return sent[0]["status"], sent[1]["body"]

    def fresh(self, npc: str) -> bytes:
        """The snapshot as the store answers it now, not kept."""
        return self.mem.identity_snapshot(npc).model_dump_json().encode("utf-8")

    def check(self, npc: str = "mira") -> bytes:
        """The route's answer, which must equal the store's, twice (the second kept)."""
        status, body = self.get(npc)
        assert status == 200 and body == self.fresh(npc)
        before = self.snapshots
        assert self.get(npc) == (200, body)
        assert self.snapshots == before  # kept: no store call
        return body


def _world(mem: Memory) -> None:
    mem.upsert_entities(
        [
            Entity(id="mira", type="npc", name="Mira"),
            Entity(id="tomas", type="npc", name="Tomas"),
            Entity(id="forge", type="location", name="the Old Forge"),
        ]
    )
    mem.upsert_relationships([Relationship(source_id="tomas", target_id="mira", type="trusts")])


def test_revision_moves_with_every_write_and_only_then() -> None:
    with graphmem.open("memory://", tenant=TENANT) as mem:
        store = mem.store
        assert "revision" in store.capabilities
        first = store.revision(TENANT)
        _world(mem)
        seen = store.revision(TENANT)
        assert seen != first
        mem.identity_snapshot("mira")
        mem.find_entities(type="npc")
        assert store.revision(TENANT) == seen  # reads leave it
        mem.conversation("s").append("user", "Hello.")
        assert store.revision(TENANT) != seen  # any write, any room
        assert store.revision("another tenant") == store.revision(TENANT)


def test_identity_expiry_is_the_next_bound_of_the_entitys_facts() -> None:
    now = utcnow()
    with graphmem.open("memory://", tenant=TENANT) as mem:
        _world(mem)
        store = mem.store
        assert store.identity_expiry(TENANT, "mira", after=now) is None
        later, latest = now + timedelta(hours=1), now + timedelta(hours=2)
        mem.upsert_relationships(
            [
                Relationship(source_id="mira", target_id="forge", type="owns", valid_at=latest),
                Relationship(
                    source_id="forge", target_id="mira", type="shelters", invalid_at=later
                ),
                Relationship(source_id="tomas", target_id="forge", type="owns", valid_at=now),
            ]
        )
        assert store.identity_expiry(TENANT, "mira", after=now) == later
        assert store.identity_expiry(TENANT, "mira", after=later) == latest
        assert store.identity_expiry(TENANT, "mira", after=latest) is None
        assert store.identity_expiry(TENANT, "tomas", after=now) is None  # bounds after only
        with pytest.raises(NotFound):
            store.identity_expiry(TENANT, "nobody", after=now)


def test_a_write_through_each_path_gives_a_fresh_answer() -> None:
    served = Served()
    mem = served.mem
    _world(mem)
    answers = [served.check()]

    def changed() -> None:
        answers.append(served.check())
        assert answers[-1] != answers[-2]

    mem.update_entity("mira", attributes={"mood": "wary"})
    changed()
    mem.upsert_entities([Entity(id="tomas", type="npc", name="Tomas Reed")])  # a related one
    changed()
    mem.upsert_relationships([Relationship(source_id="mira", target_id="forge", type="owns")])
    changed()
    mem.invalidate("mira", "forge", "owns")
    changed()
    mem.delete_relationship("tomas", "mira", "trusts")
    changed()
    # Governance: a workspace fact is an edge while believed; forget, rollback, retention.
    facts = mem.fact_memory(actor="gm", policy=GovernancePolicy(retention_max_entries=1))
    learned = facts.learn("Mira", "works_at", "the Old Forge", scope="workspace")
    changed()
    assert b"works_at" in answers[-1]
    facts.forget(learned.fact.id)
    changed()
    facts.rollback_to(learned.audit_id)
    changed()
    assert b"works_at" in answers[-1]
    facts.learn("Mira", "fears", "Tomas Reed", scope="workspace")
    changed()
    purged = facts.apply_retention()
    assert purged is not None and purged.facts
    changed()
    # A whole tenant: export, clear (gone: 404), import.
    saved = io.StringIO()
    mem.export_jsonl(saved)
    mem.clear()
    assert served.get("mira")[0] == 404
    mem.import_jsonl(io.StringIO(saved.getvalue()))
    assert served.check() == answers[-1]
    mem.delete_entities(["tomas"])
    changed()


def test_the_prompt_route_is_kept_by_its_budget() -> None:
    served = Served()
    _world(served.mem)
    mem = served.mem
    for budget in (b"max_tokens=5", b"max_tokens=200", b""):
        status, body = served.get("mira", "prompt", budget)
        text = mem.identity_snapshot("mira").to_prompt(
            max_tokens=int(budget.split(b"=")[1]) if budget else None
        )
        assert status == 200 and s.PromptOut.model_validate_json(body).prompt == text
    before = served.snapshots
    assert served.get("mira", "prompt", b"max_tokens=5")[1] != served.get("mira", "prompt")[1]
    assert served.snapshots == before
    mem.update_entity("mira", name="Mira Vell")
    assert b"Mira Vell" in served.get("mira", "prompt", b"max_tokens=200")[1]


def test_a_fact_that_begins_or_ends_as_time_passes_gives_a_fresh_answer() -> None:
    served = Served()
    mem = served.mem
    _world(mem)
    start = utcnow() + timedelta(seconds=0.6)
    end = start + timedelta(seconds=0.6)
    mem.upsert_relationships(
        [
            Relationship(source_id="mira", target_id="forge", type="owns", valid_at=start),
            Relationship(source_id="forge", target_id="mira", type="shelters", invalid_at=end),
        ]
    )
    before = served.check()
    assert b'"owns"' not in before and b'"shelters"' in before
    time.sleep(max(0.0, (start - utcnow()).total_seconds()) + 0.05)
    held = served.check()
    assert b'"owns"' in held and b'"shelters"' in held
    time.sleep(max(0.0, (end - utcnow()).total_seconds()) + 0.05)
    after = served.check()
    assert b'"owns"' in after and b'"shelters"' not in after


def test_a_file_writer_keeps_answers_and_a_read_only_opener_never(tmp_path: Path) -> None:
    url = (tmp_path / "world.graphmem").as_uri()
    writer = Served(url, preload=True)
    assert writer.state.answers is not None and writer.state.inline_reads
    _world(writer.mem)
    writer.check()
    reader = Served(url, read_only=True)
    assert reader.state.answers is None  # it cannot know what the writer does
    assert "revision" not in reader.store.capabilities
    with pytest.raises(UnsupportedOperation, match="no revision"):
        reader.store.revision(TENANT)
    with pytest.raises(UnsupportedOperation):
        reader.store.identity_expiry(TENANT, "mira", after=utcnow())
    seen = reader.mem.identity_snapshot("mira")
    writer.mem.update_entity("mira", attributes={"mood": "wary"})
    assert writer.check() == reader.fresh("mira") != seen.model_dump_json().encode()
    reader.store.close()
    writer.store.close()
