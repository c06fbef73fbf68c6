"""``write_changes``: records, entities and relationships put and deleted in one atomic write."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from typing import Any

import pytest

from graphmem import ChangeSet, GraphStore, InvalidInput, Record, RelationshipFilter
from graphmem.core.models import utcnow

from .helpers import canonical, ent, rel

ALL = RelationshipFilter(direction="both", include_invalid=True)


def note(record_id: str, kind: str = "fact", **data: Any) -> Record:
    return Record(id=record_id, kind=kind, data=data)


def seed(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("mira"), ent("tomas"), ent("forge", "location")])
    store.upsert_relationships(tenant, [rel("mira", "tomas"), rel("tomas", "mira", "hates")])
    store.put_records(tenant, "fact", [note("old", v=0)])


def test_every_kind_of_change_in_one_call(store: GraphStore, tenant: str) -> None:
    seed(store, tenant)

    written = store.write_changes(
        tenant,
        ChangeSet(
            records=[note("f1", v=1), note("a1", "audit", seq=1)],
            delete_records={"fact": ["old", "never-there"]},
            entities=[ent("ada", "player")],
            delete_entities=["forge", "never-there"],
            relationships=[rel("ada", "mira", "trusts"), rel("mira", "tomas", confidence=0.5)],
            delete_relationships=[("tomas", "mira", "hates"), ("x", "y", "knows")],
        ),
    )

    assert [(r.kind, r.id) for r in written.records] == [("fact", "f1"), ("audit", "a1")]
    assert [e.id for e in written.entities] == ["ada"]
    assert [r.key for r in written.relationships] == [
        ("ada", "mira", "trusts"),
        ("mira", "tomas", "knows"),
    ]
    assert [r.id for r in store.find_records(tenant, "fact")] == ["f1"]
    assert store.get_entities(tenant, ["ada", "forge"])[0].id == "ada"
    assert len(store.get_entities(tenant, ["forge"])) == 0
    assert sorted(r.key for r in store.get_relationships(tenant, "mira", ALL)) == [
        ("ada", "mira", "trusts"),
        ("mira", "tomas", "knows"),
    ]
    replaced = store.get_relationships(tenant, "mira", RelationshipFilter(types=("knows",)))
    assert replaced[0].provenance.confidence == 0.5


def test_puts_follow_the_rules_of_their_batch_calls(store: GraphStore, tenant: str) -> None:
    then = utcnow() - timedelta(days=3)
    seed(store, tenant)
    store.upsert_relationships(tenant, [rel("mira", "forge", "works_at", created_at=then)])
    entity_created = store.get_entity(tenant, "mira").created_at

    written = store.write_changes(
        tenant,
        ChangeSet(
            entities=[ent("mira", occupation="smith"), ent("mira", occupation="miller")],
            relationships=[rel("mira", "forge", "works_at", confidence=0.7)],
        ),
    )

    assert [e.attributes["occupation"] for e in written.entities] == ["miller", "miller"]
    assert written.entities[0].created_at == entity_created  # replaced: keeps created_at
    assert written.relationships[0].created_at == then
    stored = store.get_relationships(tenant, "mira", RelationshipFilter(types=("works_at",)))
    assert stored[0].created_at == then and stored[0].provenance.confidence == 0.7


def test_a_relationship_may_end_at_an_entity_of_the_same_call(
    store: GraphStore, tenant: str
) -> None:
    store.write_changes(
        tenant,
        ChangeSet(
            entities=[ent("mira"), ent("value:f1", "value", "angry")],
            relationships=[rel("mira", "value:f1", "mood")],
            records=[note("f1", v=1)],
        ),
    )

    snapshot = store.identity_snapshot(tenant, "mira")
    assert [(r.type, r.target_id) for r in snapshot.relationships] == [("mood", "value:f1")]
    assert [e.name for e in snapshot.related_entities] == ["angry"]


def test_deleting_an_entity_takes_its_relationships(store: GraphStore, tenant: str) -> None:
    seed(store, tenant)

    store.write_changes(tenant, ChangeSet(delete_entities=["tomas"]))

    assert store.get_relationships(tenant, "mira", ALL) == []
    assert store.count_relationships(tenant) == 0


def test_nothing_to_do_writes_nothing(store: GraphStore, tenant: str) -> None:
    seed(store, tenant)
    before = canonical(store.dump(tenant))

    empty = store.write_changes(tenant, ChangeSet())
    missing = store.write_changes(
        tenant,
        ChangeSet(
            delete_records={"fact": ["missing"]},
            delete_entities=["missing"],
            delete_relationships=[("mira", "tomas", "owes")],
        ),
    )

    assert empty.records == [] and missing.entities == []
    assert canonical(store.dump(tenant)) == before


BAD_CHANGES: dict[str, Callable[[], Any]] = {
    "not a change set": lambda: {"records": []},
    "a relationship to a missing entity": lambda: ChangeSet(
        records=[note("f9")], relationships=[rel("mira", "nobody")]
    ),
    "a relationship to an entity deleted in the call": lambda: ChangeSet(
        delete_entities=["tomas"], relationships=[rel("mira", "tomas", "owes")]
    ),
    "an entity put and deleted": lambda: ChangeSet(
        entities=[ent("mira")], delete_entities=["mira"]
    ),
    "a relationship put and deleted": lambda: ChangeSet(
        relationships=[rel("mira", "tomas")], delete_relationships=[("mira", "tomas", "knows")]
    ),
    "a record put and deleted": lambda: ChangeSet(
        records=[note("old", v=9)], delete_records={"fact": ["old"]}
    ),
    "an unsafe relationship type to delete": lambda: ChangeSet(
        delete_relationships=[("mira", "tomas", "knows\n")]
    ),
    "a key that is not a triple": lambda: ChangeSet(delete_relationships=[("mira", "tomas")]),  # type: ignore[list-item]
    "entity ids as one string": lambda: ChangeSet(delete_entities="mira"),
    "not an entity": lambda: ChangeSet(entities=[note("x")]),  # type: ignore[list-item]
    "a single relationship": lambda: ChangeSet(relationships=rel("mira", "tomas")),  # type: ignore[arg-type]
}


@pytest.mark.parametrize("case", sorted(BAD_CHANGES))
def test_bad_input_anywhere_writes_nothing(store: GraphStore, tenant: str, case: str) -> None:
    seed(store, tenant)
    before = canonical(store.dump(tenant))

    with pytest.raises(InvalidInput) as raised:
        store.write_changes(tenant, BAD_CHANGES[case]())

    assert canonical(store.dump(tenant)) == before
    if case == "a relationship to a missing entity":
        assert raised.value.data.get("missing_ids") == ["nobody"]


def test_the_write_survives_a_reopen(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    seed(store, tenant)
    store.write_changes(
        tenant,
        ChangeSet(
            records=[note("new")],
            delete_records={"fact": ["old"]},
            entities=[ent("ada", "player")],
            delete_entities=["forge"],
            relationships=[rel("ada", "mira", "trusts")],
            delete_relationships=[("tomas", "mira", "hates")],
        ),
    )
    before = canonical(store.dump(tenant))

    again = reopen()

    assert canonical(again.dump(tenant)) == before
    assert sorted(r.key for r in again.get_relationships(tenant, "mira", ALL)) == [
        ("ada", "mira", "trusts"),
        ("mira", "tomas", "knows"),
    ]


def test_writes_stay_in_their_tenant(
    store: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    other = new_tenant()
    seed(store, other)
    seed(store, tenant)
    before = canonical(store.dump(other))

    store.write_changes(
        tenant,
        ChangeSet(
            delete_records={"fact": ["old"]},
            delete_entities=["forge"],
            delete_relationships=[("mira", "tomas", "knows")],
            relationships=[rel("tomas", "mira", "hates", confidence=0.2)],
        ),
    )

    assert canonical(store.dump(other)) == before
