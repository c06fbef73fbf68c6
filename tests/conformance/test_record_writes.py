"""``write_records``: records of several kinds put and deleted in one atomic write."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from graphmem import GraphStore, InvalidInput, Record
from graphmem.core.models import utcnow

from .helpers import canonical


def note(record_id: str, kind: str = "fact", **data: Any) -> Record:
    return Record(id=record_id, kind=kind, data=data)


def test_puts_of_several_kinds_and_deletes_in_one_call(store: GraphStore, tenant: str) -> None:
    store.put_records(tenant, "fact", [note("old", v=0), note("keep", v=0)])

    stored = store.write_records(
        tenant,
        [note("f1", v=1), note("a1", "audit", seq=1), note("keep", v=2)],
        delete={"fact": ["old", "never-there"], "audit": []},
    )

    assert [(r.kind, r.id) for r in stored] == [("fact", "f1"), ("audit", "a1"), ("fact", "keep")]
    assert sorted(r.id for r in store.find_records(tenant, "fact")) == ["f1", "keep"]
    assert store.get_record(tenant, "audit", "a1").data == {"seq": 1}
    assert store.get_record(tenant, "fact", "keep").data == {"v": 2}


def test_puts_follow_put_records_rules(store: GraphStore, tenant: str) -> None:
    then = utcnow() - timedelta(days=3)
    first = store.write_records(
        tenant, [Record(id="r", kind="fact", data={}, created_at=then, updated_at=then)]
    )
    assert first[0].created_at == then

    again = store.write_records(
        tenant,
        [note("r", v=1), note("r", "audit", v=9), note("r", v=2)],  # last of (kind, id) wins
    )

    assert [(r.kind, r.data) for r in again] == [
        ("fact", {"v": 2}),
        ("audit", {"v": 9}),
        ("fact", {"v": 2}),
    ]
    assert again[0].created_at == then  # a replaced record keeps its created_at
    assert again[0].updated_at >= then


def test_nothing_to_do_writes_nothing(store: GraphStore, tenant: str) -> None:
    before = canonical(store.dump(tenant))
    assert store.write_records(tenant) == []
    assert store.write_records(tenant, [], delete={"fact": ["missing"]}) == []
    assert canonical(store.dump(tenant)) == before


BAD_WRITES: dict[str, Callable[[GraphStore, str], Any]] = {
    "unsafe put kind": lambda s, t: s.write_records(
        t, [note("ok")] + [Record.model_construct(id="x", kind="bad kind", data={})]
    ),
    "not a record": lambda s, t: s.write_records(t, [note("ok"), {"id": "x"}]),  # type: ignore[list-item]
    "a single record": lambda s, t: s.write_records(t, note("ok")),  # type: ignore[arg-type]
    "unsafe delete kind": lambda s, t: s.write_records(t, [note("ok")], delete={"a b": ["x"]}),
    "kind with a line break": lambda s, t: s.write_records(t, [], delete={"fact\n": ["x"]}),
    "ids as one string": lambda s, t: s.write_records(t, [note("ok")], delete={"fact": "f0"}),  # type: ignore[dict-item]
    "empty id": lambda s, t: s.write_records(t, [note("ok")], delete={"fact": [""]}),
    "not a mapping": lambda s, t: s.write_records(t, [note("ok")], delete=[("fact", ["f0"])]),  # type: ignore[arg-type]
    "put and deleted": lambda s, t: s.write_records(t, [note("f0", v=5)], delete={"fact": ["f0"]}),
}


@pytest.mark.parametrize("case", sorted(BAD_WRITES))
def test_bad_input_anywhere_writes_nothing(store: GraphStore, tenant: str, case: str) -> None:
    store.put_records(tenant, "fact", [note("f0", v=0)])
    before = canonical(store.dump(tenant))

    with pytest.raises(InvalidInput):
        BAD_WRITES[case](store, tenant)

    assert canonical(store.dump(tenant)) == before


def test_the_write_survives_a_reopen(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    store.put_records(tenant, "fact", [note("gone"), note("stays")])
    store.write_records(tenant, [note("new"), note("a1", "audit")], delete={"fact": ["gone"]})
    before = canonical(store.dump(tenant))

    again = reopen()

    assert canonical(again.dump(tenant)) == before
    assert sorted(r.id for r in again.find_records(tenant, "fact")) == ["new", "stays"]


def test_writes_stay_in_their_tenant(
    store: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    other = new_tenant()
    store.put_records(other, "fact", [note("f0")])
    store.write_records(tenant, [note("f1")], delete={"fact": ["f0"]})
    assert [r.id for r in store.find_records(other, "fact")] == ["f0"]
    assert [r.id for r in store.find_records(tenant, "fact")] == ["f1"]
