"""Record owners, binary payloads and batch gets; relationship reads at two clocks.

Two clocks: ``as_of`` is world time (when a fact held), ``recorded_as_of`` memory time
(what the store held then, from ``created_at`` / ``expired_at``).
"""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import GraphStore, InvalidInput, Memory, Record, TenantDump
from graphmem.core.models import utcnow

from .helpers import ent, flt, keys, rel

T0 = datetime(2030, 1, 1, tzinfo=UTC)
LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)
AUDIO = bytes(range(256)) * 3 + b"\x00\xff\x00"


def rec(record_id: str, owner: str | None = None, minutes: int = 0, **data: object) -> Record:
    at = T0 + timedelta(minutes=minutes)
    return Record(id=record_id, kind="note", owner=owner, data=data, created_at=at, updated_at=at)


# --------------------------------------------------------------------------- records


def test_find_by_owner_returns_that_owners_records_only(store: GraphStore, tenant: str) -> None:
    store.put_records(
        tenant,
        "note",
        [
            rec("a", "mira", 1, n=1),
            rec("b", "tomas", 2, n=1),
            rec("c", "mira", 3, n=2),
            rec("d", None, 4, n=1),
        ],
    )

    def owned(owner: str, **where: object) -> list[str]:
        found = store.find_records(tenant, "note", owner=owner, where=where, newest_first=False)  # type: ignore[arg-type]
        return [r.id for r in found]

    assert owned("mira") == ["a", "c"]
    assert owned("mira", n=2) == ["c"]
    assert owned("tomas") == ["b"]
    assert owned("nobody") == []
    assert [r.id for r in store.find_records(tenant, "note", owner="mira", limit=1)] == ["c"]
    assert store.get_record(tenant, "note", "a").owner == "mira"


def test_changing_or_deleting_a_record_moves_it_between_owners(
    store: GraphStore, tenant: str
) -> None:
    store.put_records(tenant, "note", [rec("a", "mira"), rec("b", "mira")])

    store.put_records(tenant, "note", [rec("a", "tomas"), rec("b", None)])
    assert [r.id for r in store.find_records(tenant, "note", owner="mira")] == []
    assert [r.id for r in store.find_records(tenant, "note", owner="tomas")] == ["a"]

    store.delete_records(tenant, "note", ["a"])
    assert store.find_records(tenant, "note", owner="tomas") == []
    assert store.find_records(tenant, "fact", owner="tomas") == []


@pytest.mark.parametrize("owner", ["", " ", "a\nb", "x" * 513])
def test_a_bad_owner_is_invalid_input(store: GraphStore, tenant: str, owner: str) -> None:
    with pytest.raises(InvalidInput):
        store.find_records(tenant, "note", owner=owner)
    bad = Record.model_construct(
        id="a", kind="note", data={}, owner=owner, blob=None, created_at=T0, updated_at=T0
    )
    with pytest.raises(InvalidInput):
        store.put_records(tenant, "note", [bad])
    assert store.count_records(tenant, "note") == 0


def test_get_records_returns_those_that_exist_in_the_order_asked(
    store: GraphStore, tenant: str
) -> None:
    store.put_records(tenant, "note", [rec("a", n=1), rec("b", n=2), rec("c", n=3)])

    got = store.get_records(tenant, "note", ["c", "zzz", "a"])

    assert [r.id for r in got] == ["c", "a"]
    assert got[0] == store.get_record(tenant, "note", "c")
    assert store.get_records(tenant, "note", []) == []
    assert store.get_records(tenant, "fact", ["a"]) == []
    with pytest.raises(InvalidInput):
        store.get_records(tenant, "note", "a")
    with pytest.raises(InvalidInput):
        store.get_records(tenant, "no such kind!", ["a"])


def test_a_blob_is_stored_as_bytes(store: GraphStore, tenant: str) -> None:
    [stored] = store.put_records(
        tenant, "clip", [Record(id="a", kind="clip", blob=AUDIO, created_at=T0, updated_at=T0)]
    )

    assert stored.blob == AUDIO
    got = store.get_record(tenant, "clip", "a")
    assert isinstance(got.blob, bytes) and got.blob == AUDIO
    assert store.find_records(tenant, "clip")[0].blob == AUDIO
    store.put_records(tenant, "clip", [Record(id="a", kind="clip", data={"v": 2})])
    assert store.get_record(tenant, "clip", "a").blob is None


def test_owner_and_blob_survive_reopen(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    store.put_records(
        tenant, "clip", [Record(id="a", kind="clip", owner="camp", blob=AUDIO, data={"n": 1})]
    )

    again = reopen()

    [got] = again.find_records(tenant, "clip", owner="camp")
    assert got.blob == AUDIO and got.data == {"n": 1}


def test_owner_and_blob_survive_dump_load_and_jsonl(
    store: GraphStore, new_tenant: Callable[[], str]
) -> None:
    source, copy, imported = new_tenant(), new_tenant(), new_tenant()
    given = Record(id="a", kind="clip", owner="camp", blob=AUDIO, created_at=T0, updated_at=T0)
    store.put_records(source, "clip", [given])

    store.load(copy, store.dump(source))
    buffer = io.StringIO()
    Memory(store, source, owns_store=False).export_jsonl(buffer)
    buffer.seek(0)
    Memory(store, imported, owns_store=False).import_jsonl(buffer)

    for tenant in (copy, imported):
        [got] = store.find_records(tenant, "clip", owner="camp")
        assert got == given
    assert store.dump(copy).records == [given]
    assert isinstance(store.dump(imported), TenantDump)


# --------------------------------------------------------------------------- relationships


@pytest.fixture
def village(store: GraphStore, tenant: str) -> GraphStore:
    store.upsert_entities(tenant, [ent("mira"), ent("tomas"), ent("ada"), ent("forge", "location")])
    return store


def _tick() -> datetime:
    """A memory time strictly between two writes (the clock moves on before and after)."""
    time.sleep(0.002)
    at = utcnow()
    time.sleep(0.002)
    return at


def test_a_replacement_without_valid_at_never_overlaps_the_fact_it_replaces(
    village: GraphStore, tenant: str
) -> None:
    before_both = _tick()
    village.upsert_relationships(tenant, [rel("mira", "forge", "works_at")])
    between = _tick()
    village.invalidate_relationship(tenant, "mira", "forge", "works_at")
    village.upsert_relationships(tenant, [rel("mira", "tomas", "works_for")])
    after = _tick()

    def at(when: datetime) -> list[tuple[str, str, str]]:
        return keys(village.get_relationships(tenant, "mira", flt(as_of=when)))

    assert at(before_both) == []
    assert at(between) == [("mira", "forge", "works_at")]
    assert at(after) == [("mira", "tomas", "works_for")]


def test_recorded_as_of_reads_what_the_store_held_then(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "forge", "works_at", valid_at=LONG_AGO)])
    first = _tick()
    village.invalidate_relationship(tenant, "mira", "forge", "works_at")
    village.upsert_relationships(tenant, [rel("mira", "tomas", "works_for", valid_at=LONG_AGO)])
    second = _tick()

    def held(**clocks: datetime) -> list[tuple[str, str, str]]:
        return keys(village.get_relationships(tenant, "mira", flt(**clocks)))

    before_anything = LONG_AGO + timedelta(days=1)
    assert held(recorded_as_of=before_anything) == []
    assert held(recorded_as_of=first) == [("mira", "forge", "works_at")]
    assert held(recorded_as_of=second) == [("mira", "tomas", "works_for")]
    # The world long ago, as the memory told it then and as it tells it now: the
    # invalidation of works_at was not recorded yet at `first`; works_for was unknown.
    long_ago = LONG_AGO + timedelta(days=2)
    assert held(as_of=long_ago, recorded_as_of=first) == [("mira", "forge", "works_at")]
    assert held(as_of=long_ago, recorded_as_of=second) == [
        ("mira", "forge", "works_at"),
        ("mira", "tomas", "works_for"),
    ]
    assert held(as_of=second, recorded_as_of=second) == [("mira", "tomas", "works_for")]


def test_a_fact_stored_with_its_end_keeps_it_at_every_memory_time(
    village: GraphStore, tenant: str
) -> None:
    ended = LONG_AGO + timedelta(days=10)
    village.upsert_relationships(
        tenant,
        [rel("mira", "ada", "mentors", valid_at=LONG_AGO).model_copy(update={"invalid_at": ended})],
    )
    now = _tick()

    def held(when: datetime) -> list[tuple[str, str, str]]:
        return keys(village.get_relationships(tenant, "mira", flt(as_of=when, recorded_as_of=now)))

    assert held(LONG_AGO + timedelta(days=1)) == [("mira", "ada", "mentors")]
    assert held(ended) == []


def test_identity_snapshot_at_two_clocks(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "forge", "works_at", valid_at=LONG_AGO)])
    first = _tick()
    village.invalidate_relationship(tenant, "mira", "forge", "works_at")
    village.upsert_relationships(tenant, [rel("tomas", "mira", "knows")])
    second = _tick()

    def snapshot(**clocks: datetime) -> tuple[list[tuple[str, str, str]], list[str]]:
        got = village.identity_snapshot(tenant, "mira", **clocks)
        return keys(got.relationships), [e.id for e in got.related_entities]

    assert snapshot() == ([("tomas", "mira", "knows")], ["tomas"])
    assert snapshot(recorded_as_of=first) == ([("mira", "forge", "works_at")], ["forge"])
    assert snapshot(as_of=LONG_AGO + timedelta(days=1)) == (
        [("mira", "forge", "works_at")],
        ["forge"],
    )
    assert snapshot(as_of=second) == ([("tomas", "mira", "knows")], ["tomas"])
    assert snapshot(as_of=first, recorded_as_of=second) == (
        [("mira", "forge", "works_at")],
        ["forge"],
    )
