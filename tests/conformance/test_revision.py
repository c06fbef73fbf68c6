"""``revision`` and ``identity_expiry``: when a kept answer is still the answer, every backend.

A store with the ``revision`` capability moves the revision on with every write of every
room and never with a read; one without it refuses both operations
(``UnsupportedOperation``), so nothing can be kept over it.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta

import pytest

from graphmem import (
    ChangeSet,
    Chunk,
    GraphStore,
    NotFound,
    Record,
    Relationship,
    Turn,
    UnsupportedOperation,
)
from graphmem.core.models import utcnow

from .helpers import ent, rel

WRITES: dict[str, Callable[[GraphStore, str], object]] = {
    "upsert_entities": lambda s, t: s.upsert_entities(t, [ent("tomas", name="Tomas Reed")]),
    "update_entity": lambda s, t: s.update_entity(t, "mira", name="Mira Vell"),
    "upsert_relationships": lambda s, t: s.upsert_relationships(t, [rel("tomas", "mira")]),
    "invalidate_relationship": lambda s, t: s.invalidate_relationship(t, "mira", "tomas", "knows"),
    "delete_relationship": lambda s, t: s.delete_relationship(t, "mira", "tomas", "knows"),
    "append_turn": lambda s, t: s.append_turn(t, Turn(session_id="s", role="u", content="Hi.")),
    "put_records": lambda s, t: s.put_records(t, "note", [Record(kind="note", id="n")]),
    "upsert_chunks": lambda s, t: s.upsert_chunks(t, [Chunk(id="c", text="lore")]),
    "delete_entities": lambda s, t: s.delete_entities(t, ["tomas"]),
    "clear": lambda s, t: s.clear(t),
    "write_changes": lambda s, t: s.write_changes(
        t,
        ChangeSet(entities=[ent("tomas", name="Tomas Reed")], relationships=[rel("tomas", "mira")]),
    ),
    "write_records": lambda s, t: s.write_records(t, [Record(kind="note", id="n")]),
    "append_turns": lambda s, t: s.append_turns(
        t, "s", [Turn(session_id="s", role="u", content="Hi.")]
    ),
    "load": lambda s, t: s.load(t, s.dump(t)),
}


@pytest.fixture
def pair(store: GraphStore, tenant: str) -> GraphStore:
    store.upsert_entities(tenant, [ent("mira"), ent("tomas")])
    store.upsert_relationships(tenant, [rel("mira", "tomas")])
    return store


@pytest.mark.parametrize("write", sorted(WRITES))
def test_every_write_moves_the_revision_and_reads_do_not(
    pair: GraphStore, tenant: str, write: str
) -> None:
    if "revision" not in pair.capabilities:
        with pytest.raises(UnsupportedOperation):
            pair.revision(tenant)
        with pytest.raises(UnsupportedOperation):
            pair.identity_expiry(tenant, "mira", after=utcnow())
        return
    before = pair.revision(tenant)
    pair.identity_snapshot(tenant, "mira")
    pair.neighbors(tenant, "mira")
    assert pair.revision(tenant) == before
    WRITES[write](pair, tenant)
    assert pair.revision(tenant) != before


def test_identity_expiry_is_the_next_bound_of_the_entitys_facts(
    store: GraphStore, tenant: str
) -> None:
    if "revision" not in store.capabilities:
        pytest.skip("no revision: the store refuses identity_expiry (tested above)")
    now = utcnow()
    store.upsert_entities(tenant, [ent("mira"), ent("tomas"), ent("forge")])
    assert store.identity_expiry(tenant, "mira", after=now) is None
    soon, later = now + timedelta(minutes=1), now + timedelta(minutes=2)
    store.upsert_relationships(
        tenant,
        [
            Relationship(source_id="mira", target_id="forge", type="owns", valid_at=later),
            Relationship(source_id="tomas", target_id="mira", type="knows", invalid_at=soon),
        ],
    )
    assert store.identity_expiry(tenant, "mira", after=now) == soon
    assert store.identity_expiry(tenant, "mira", after=soon) == later
    assert store.identity_expiry(tenant, "forge", after=later) is None
    with pytest.raises(NotFound):
        store.identity_expiry(tenant, "nobody", after=now)
