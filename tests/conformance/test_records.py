"""Generic records: put (upsert by id, atomic), get, find, delete, count, dump / load, JSONL."""

from __future__ import annotations

import io
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import GraphStore, InvalidInput, Memory, NotFound, Record, TenantDump

from .conftest import Harness
from .helpers import canonical

T0 = datetime(2030, 1, 1, tzinfo=UTC)


def rec(record_id: str, kind: str = "note", minutes: int = 0, **data: object) -> Record:
    at = T0 + timedelta(minutes=minutes)
    return Record(id=record_id, kind=kind, data=data, created_at=at, updated_at=at)


def test_put_then_get_returns_the_record_as_given(store: GraphStore, tenant: str) -> None:
    stored = store.put_records(tenant, "note", [rec("a", text="The well is dry", n=3)])

    assert stored == [rec("a", text="The well is dry", n=3)]
    got = store.get_record(tenant, "note", "a")
    assert got.data == {"text": "The well is dry", "n": 3}
    assert got.created_at == T0 and got.updated_at == T0


def test_put_replaces_by_id_and_keeps_created_at(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("a", text="old")])
    before = datetime.now(UTC)

    [replaced] = store.put_records(tenant, "note", [rec("a", minutes=99, text="new")])

    assert replaced.data == {"text": "new"}
    assert replaced.created_at == T0
    assert replaced.updated_at >= before
    assert store.get_record(tenant, "note", "a") == replaced
    assert store.count_records(tenant, "note") == 1


def test_last_record_of_an_id_in_a_batch_wins(store: GraphStore, tenant: str) -> None:
    out = store.put_records(tenant, "note", [rec("a", v=1), rec("b", v=2), rec("a", v=3)])

    assert [r.data["v"] for r in out] == [3, 2, 3]
    assert store.get_record(tenant, "note", "a").data == {"v": 3}
    assert store.count_records(tenant, "note") == 2


def test_kinds_are_separate_collections(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("a", v=1)])
    store.put_records(tenant, "fact", [rec("a", kind="fact", v=2)])

    assert store.get_record(tenant, "note", "a").data == {"v": 1}
    assert store.get_record(tenant, "fact", "a").data == {"v": 2}
    assert store.count_records(tenant, "note") == 1
    assert store.delete_records(tenant, "note", ["a"]) == 1
    assert store.get_record(tenant, "fact", "a").data == {"v": 2}


def test_get_unknown_record_is_not_found(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("a")])

    with pytest.raises(NotFound) as info:
        store.get_record(tenant, "note", "zzz")
    assert info.value.record_id == "zzz"
    with pytest.raises(NotFound):
        store.get_record(tenant, "other", "a")


def test_a_record_of_another_kind_fails_the_whole_batch(store: GraphStore, tenant: str) -> None:
    with pytest.raises(InvalidInput):
        store.put_records(tenant, "note", [rec("a"), rec("b", kind="fact")])

    assert store.count_records(tenant, "note") == 0
    assert store.count_records(tenant, "fact") == 0


@pytest.mark.parametrize("kind", ["", "1abc", "a-b", "a b", "x" * 65])
def test_kind_must_be_a_safe_name(store: GraphStore, tenant: str, kind: str) -> None:
    with pytest.raises(InvalidInput):
        store.put_records(tenant, kind, [])
    with pytest.raises(InvalidInput):
        store.find_records(tenant, kind)
    with pytest.raises(InvalidInput):
        store.count_records(tenant, kind)


def test_put_takes_a_list_of_records(store: GraphStore, tenant: str) -> None:
    with pytest.raises(InvalidInput):
        store.put_records(tenant, "note", rec("a"))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        store.put_records(tenant, "note", [{"id": "a", "kind": "note"}])  # type: ignore[list-item]
    assert store.count_records(tenant, "note") == 0


def test_record_data_must_be_json() -> None:
    with pytest.raises(InvalidInput):
        Record(kind="note", data={"when": datetime.now(UTC)})
    with pytest.raises(InvalidInput):
        Record(kind="note", data={"x": float("nan")})
    with pytest.raises(InvalidInput):
        Record(kind="note", created_at=T0, updated_at=T0 - timedelta(seconds=1))


def test_find_orders_newest_first_by_default(store: GraphStore, tenant: str) -> None:
    store.put_records(
        tenant, "note", [rec("b", minutes=2), rec("a", minutes=1), rec("c", minutes=3)]
    )

    assert [r.id for r in store.find_records(tenant, "note")] == ["c", "b", "a"]
    assert [r.id for r in store.find_records(tenant, "note", newest_first=False)] == [
        "a",
        "b",
        "c",
    ]
    assert [r.id for r in store.find_records(tenant, "note", limit=2)] == ["c", "b"]


def test_find_breaks_time_ties_by_id(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("b"), rec("a"), rec("c")])

    assert [r.id for r in store.find_records(tenant, "note", newest_first=False)] == [
        "a",
        "b",
        "c",
    ]


def test_find_where_is_json_equality_on_top_level_keys(store: GraphStore, tenant: str) -> None:
    store.put_records(
        tenant,
        "note",
        [
            rec("a", minutes=1, subject="mira", n=1, flag=True, gone=None),
            rec("b", minutes=2, subject="mira", n=1.0, flag=1),
            rec("c", minutes=3, subject="tomas", n=2, nested={"subject": "mira"}),
        ],
    )

    def found(**where: object) -> list[str]:
        return sorted(r.id for r in store.find_records(tenant, "note", where=where))  # type: ignore[arg-type]

    assert found(subject="mira") == ["a", "b"]
    assert found(subject="mira", n=1) == ["a", "b"]
    assert found(flag=True) == ["a"]
    assert found(flag=1) == ["b"]
    assert found(gone=None) == ["a"]
    assert found(subject="MIRA") == []
    assert found() == ["a", "b", "c"]


def test_find_where_rejects_non_scalars(store: GraphStore, tenant: str) -> None:
    with pytest.raises(InvalidInput):
        store.find_records(tenant, "note", where={"x": [1]})  # type: ignore[dict-item]
    with pytest.raises(InvalidInput):
        store.find_records(tenant, "note", where={"x": {"a": 1}})  # type: ignore[dict-item]


def test_find_since_until_on_created_at(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec(f"r{i}", minutes=i) for i in range(5)])

    got = store.find_records(
        tenant,
        "note",
        since=T0 + timedelta(minutes=1),
        until=T0 + timedelta(minutes=4),
        newest_first=False,
    )

    assert [r.id for r in got] == ["r1", "r2", "r3"]


@pytest.mark.parametrize("limit", [0, -1])
def test_find_limit_must_be_positive(store: GraphStore, tenant: str, limit: int) -> None:
    with pytest.raises(InvalidInput):
        store.find_records(tenant, "note", limit=limit)


def test_delete_returns_how_many_existed(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("a"), rec("b"), rec("c")])

    assert store.delete_records(tenant, "note", ["a", "zzz", "a", "b"]) == 2
    assert store.delete_records(tenant, "note", []) == 0
    assert [r.id for r in store.find_records(tenant, "note")] == ["c"]
    assert store.count_records(tenant, "note") == 1


def test_delete_takes_a_list(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("a")])

    with pytest.raises(InvalidInput):
        store.delete_records(tenant, "note", "a")
    assert store.count_records(tenant, "note") == 1


def test_records_are_per_tenant(store: GraphStore, new_tenant: Callable[[], str]) -> None:
    a, b = new_tenant(), new_tenant()
    store.put_records(a, "note", [rec("x", v=1)])

    assert store.count_records(b, "note") == 0
    assert store.find_records(b, "note") == []
    with pytest.raises(NotFound):
        store.get_record(b, "note", "x")
    assert store.delete_records(b, "note", ["x"]) == 0
    assert store.count_records(a, "note") == 1


def test_dump_load_and_clear_carry_records(
    store: GraphStore, new_tenant: Callable[[], str]
) -> None:
    a, b = new_tenant(), new_tenant()
    store.put_records(a, "note", [rec("x", v=1), rec("y", minutes=1, v=[1, {"k": "v"}])])
    store.put_records(a, "fact", [rec("x", kind="fact", v=2)])

    dump = store.dump(a)
    assert sorted((r.kind, r.id) for r in dump.records) == [
        ("fact", "x"),
        ("note", "x"),
        ("note", "y"),
    ]
    store.load(b, dump)
    assert canonical(store.dump(b)) == canonical(dump)

    store.clear(a)
    assert store.count_records(a, "note") == 0
    assert store.dump(a).records == []


def test_load_with_a_bad_record_writes_nothing(store: GraphStore, tenant: str) -> None:
    bad = Record.model_construct(id="z", kind="not a name", data={}, created_at=T0, updated_at=T0)

    with pytest.raises(InvalidInput):
        store.load(tenant, TenantDump(records=[rec("a"), bad]))
    assert store.count_records(tenant, "note") == 0


def test_jsonl_round_trip_carries_records(mem: Memory, store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "note", [rec("x", text="a line\nwith a newline", v=1.5)])
    before = canonical(mem.dump())
    buffer = io.StringIO()
    mem.export_jsonl(buffer)
    mem.clear()

    mem.import_jsonl(io.StringIO(buffer.getvalue()))

    assert canonical(mem.dump()) == before
    assert '"kind":"record"' in buffer.getvalue()


def test_reopen_keeps_records_and_deletes(
    harness: Harness, reopen: Callable[[], GraphStore], tenant: str
) -> None:
    store = harness.current
    store.put_records(tenant, "note", [rec("a", v=1), rec("b", v=2)])
    store.put_records(tenant, "note", [rec("a", v=3)])
    store.delete_records(tenant, "note", ["b"])
    before = canonical(store.dump(tenant))

    again = reopen()

    assert canonical(again.dump(tenant)) == before
    assert again.get_record(tenant, "note", "a").data == {"v": 3}


def test_default_times_are_now(store: GraphStore, tenant: str) -> None:
    before = datetime.now(UTC)
    time.sleep(0.001)
    [stored] = store.put_records(tenant, "note", [Record(kind="note", data={"v": 1})])

    assert stored.created_at >= before
    assert len(stored.id) == 32
