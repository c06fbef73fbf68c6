"""Entities: batch upsert (replace), get, update, delete, find, count."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Entity, EntityFilter, GraphStore, NotFound
from graphmem.core.models import utcnow

from .helpers import BOTH, EVERY, ent, ids, rel

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


def test_upsert_returns_the_entities_as_stored(store: GraphStore, tenant: str) -> None:
    stored = store.upsert_entities(
        tenant, [ent("mira", occupation="smith"), ent("forge", "location")]
    )

    assert ids(stored) == ["mira", "forge"]
    assert stored[0] == store.get_entity(tenant, "mira")
    assert stored[1] == store.get_entity(tenant, "forge")


def test_get_returns_every_field(store: GraphStore, tenant: str) -> None:
    original = Entity(
        id="mira",
        type="npc",
        name="Mira Ashford",
        attributes={"occupation": "smith", "age": 41, "tags": ["stern", "fair"], "x": None},
        created_at=LONG_AGO,
        updated_at=LONG_AGO + timedelta(days=1),
    )
    store.upsert_entities(tenant, [original])

    got = store.get_entity(tenant, "mira")

    assert got.model_dump() == original.model_dump()


def test_get_unknown_id_is_not_found(store: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as info:
        store.get_entity(tenant, "nobody")

    assert info.value.entity_id == "nobody"


def test_upsert_replaces_whole_entity(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("mira", name="Mira", occupation="smith", mood="calm")])

    store.upsert_entities(tenant, [ent("mira", type="player", name="Mira II", age=3)])

    got = store.get_entity(tenant, "mira")
    assert (got.type, got.name) == ("player", "Mira II")
    assert got.attributes == {"age": 3}  # replaced, not merged
    assert store.count_entities(tenant) == 1


def test_replace_keeps_created_at_and_bumps_updated_at(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(
        tenant,
        [Entity(id="mira", type="npc", name="Mira", created_at=LONG_AGO, updated_at=LONG_AGO)],
    )
    before = utcnow()

    [stored] = store.upsert_entities(
        tenant,
        [
            Entity(
                id="mira",
                type="npc",
                name="Mira",
                created_at=LONG_AGO + timedelta(days=9),
                updated_at=LONG_AGO + timedelta(days=9),
            )
        ],
    )

    got = store.get_entity(tenant, "mira")
    assert stored == got
    assert got.created_at == LONG_AGO
    assert got.updated_at >= before


def test_last_entity_with_an_id_wins_within_a_batch(store: GraphStore, tenant: str) -> None:
    stored = store.upsert_entities(
        tenant, [ent("mira", name="First", a=1), ent("tomas"), ent("mira", name="Last", b=2)]
    )

    got = store.get_entity(tenant, "mira")
    assert (got.name, got.attributes) == ("Last", {"b": 2})
    assert store.count_entities(tenant) == 2
    # One result per input position, each the entity as stored for that id.
    assert stored == [got, store.get_entity(tenant, "tomas"), got]


def test_empty_batch_is_a_no_op(store: GraphStore, tenant: str) -> None:
    assert store.upsert_entities(tenant, []) == []
    assert store.count_entities(tenant) == 0


def test_get_entities_keeps_the_order_asked_and_skips_missing(
    store: GraphStore, tenant: str
) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b"), ent("c")])

    got = store.get_entities(tenant, ["c", "missing", "a", "b"])

    assert ids(got) == ["c", "a", "b"]
    assert store.get_entities(tenant, []) == []


def test_update_merges_attributes(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("mira", occupation="smith", mood="calm")])

    updated = store.update_entity(tenant, "mira", attributes={"mood": "angry", "age": 41})

    assert updated.attributes == {"occupation": "smith", "mood": "angry", "age": 41}
    assert store.get_entity(tenant, "mira") == updated


def test_update_removes_attributes(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("mira", occupation="smith", mood="calm", age=4)])

    updated = store.update_entity(
        tenant, "mira", attributes={"age": 5}, remove_attributes=["mood", "not_there"]
    )

    assert updated.attributes == {"occupation": "smith", "age": 5}
    assert store.get_entity(tenant, "mira").attributes == {"occupation": "smith", "age": 5}


def test_update_removal_wins_over_a_value_set_in_the_same_call(
    store: GraphStore, tenant: str
) -> None:
    store.upsert_entities(tenant, [ent("mira", mood="calm", age=4)])

    updated = store.update_entity(
        tenant, "mira", attributes={"mood": "angry", "age": 5}, remove_attributes=["mood"]
    )

    assert updated.attributes == {"age": 5}
    assert store.get_entity(tenant, "mira").attributes == {"age": 5}


def test_update_renames_and_retypes(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("mira", occupation="smith")])

    store.upsert_entities(tenant, [ent("tomas")])
    store.upsert_relationships(tenant, [rel("mira", "tomas"), rel("tomas", "mira", "hates")])

    updated = store.update_entity(tenant, "mira", name="Mira the Bold", type="player")

    got = store.get_entity(tenant, "mira")
    assert got == updated
    assert (got.name, got.type, got.attributes) == (
        "Mira the Bold",
        "player",
        {"occupation": "smith"},
    )
    assert ids(store.find_entities(tenant, EntityFilter(type="npc"))) == ["tomas"]
    assert ids(store.find_entities(tenant, EntityFilter(type="player"))) == ["mira"]
    # Its relationships stay, and walks see the new type.
    assert [r.key for r in store.get_relationships(tenant, "mira", BOTH)] == [
        ("mira", "tomas", "knows"),
        ("tomas", "mira", "hates"),
    ]
    assert store.neighbors(tenant, "tomas", node_types=["player"]) == [got]


def test_update_keeps_created_at_and_bumps_updated_at(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(
        tenant,
        [Entity(id="mira", type="npc", name="Mira", created_at=LONG_AGO, updated_at=LONG_AGO)],
    )
    before = utcnow()

    updated = store.update_entity(tenant, "mira", attributes={"mood": "calm"})

    assert updated.created_at == LONG_AGO
    assert updated.updated_at >= before


def test_update_unknown_id_is_not_found(store: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as info:
        store.update_entity(tenant, "nobody", name="X")

    assert info.value.entity_id == "nobody"


def test_delete_returns_how_many_existed(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b"), ent("c")])

    assert store.delete_entities(tenant, ["a", "missing", "c"]) == 2

    assert ids(store.get_entities(tenant, ["a", "b", "c"])) == ["b"]
    assert store.count_entities(tenant) == 1
    with pytest.raises(NotFound):
        store.get_entity(tenant, "a")


def test_delete_missing_is_not_an_error(store: GraphStore, tenant: str) -> None:
    assert store.delete_entities(tenant, ["nobody"]) == 0
    assert store.delete_entities(tenant, []) == 0


def test_delete_removes_its_relationships(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b"), ent("c")])
    store.upsert_relationships(
        tenant, [rel("a", "b"), rel("b", "a", "hates"), rel("c", "b"), rel("a", "c")]
    )

    store.delete_entities(tenant, ["b"])

    assert store.count_relationships(tenant) == 1
    assert [r.key for r in store.get_relationships(tenant, "a", EVERY)] == [("a", "c", "knows")]
    assert [r.key for r in store.get_relationships(tenant, "c", BOTH)] == [("a", "c", "knows")]
    # A new entity with the old id starts with no relationships.
    store.upsert_entities(tenant, [ent("b")])
    assert store.get_relationships(tenant, "b", EVERY) == []


def test_delete_removes_invalidated_relationships_too(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b")])
    store.upsert_relationships(tenant, [rel("a", "b")])
    store.invalidate_relationship(tenant, "a", "b", "knows")

    store.delete_entities(tenant, ["a"])

    assert store.count_relationships(tenant) == 0


def _village(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(
        tenant,
        [
            ent("mira", name="Mira Ashford", occupation="smith", level=3),
            ent("tomas", name="Tomas the Miller", occupation="miller", level=3),
            ent("ashlyn", name="Ashlyn", occupation="smith", level=5),
            ent("forge", "location", name="The Ash Forge"),
            ent("sword", "item", name="Ashen Sword", level=3),
        ],
    )


def test_find_by_type_ordered_by_id(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    assert ids(store.find_entities(tenant, EntityFilter(type="npc"))) == ["ashlyn", "mira", "tomas"]
    assert ids(store.find_entities(tenant, EntityFilter(type="location"))) == ["forge"]
    assert store.find_entities(tenant, EntityFilter(type="quest")) == []


def test_find_everything_without_conditions(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    assert ids(store.find_entities(tenant, EntityFilter())) == [
        "ashlyn",
        "forge",
        "mira",
        "sword",
        "tomas",
    ]


def test_find_by_name_substring_is_case_insensitive(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    found = store.find_entities(tenant, EntityFilter(name_contains="ASH"))

    assert ids(found) == ["ashlyn", "forge", "mira", "sword"]
    assert ids(store.find_entities(tenant, EntityFilter(name_contains="miller"))) == ["tomas"]
    assert store.find_entities(tenant, EntityFilter(name_contains="dragon")) == []


def test_find_by_whole_name_is_case_insensitive(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)
    store.upsert_entities(tenant, [ent("ash", "concept", name="ASHLYN")])

    assert ids(store.find_entities(tenant, EntityFilter(name="ashlyn"))) == ["ash", "ashlyn"]
    assert store.find_entities(tenant, EntityFilter(name="Ash")) == []  # not a part of one
    both = EntityFilter(name="Ashlyn", type="npc", name_contains="lyn")
    assert ids(store.find_entities(tenant, both)) == ["ashlyn"]


def test_find_by_whole_name_follows_renames_and_deletes(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    store.update_entity(tenant, "ashlyn", name="Ashlyn the Bold")
    store.delete_entities(tenant, ["mira"])
    store.upsert_entities(tenant, [ent("tomas", name="Ashlyn")])

    assert store.find_entities(tenant, EntityFilter(name="mira ashford")) == []
    assert ids(store.find_entities(tenant, EntityFilter(name="ashlyn"))) == ["tomas"]
    assert ids(store.find_entities(tenant, EntityFilter(name="ASHLYN THE BOLD"))) == ["ashlyn"]
    assert store.find_entities(tenant, EntityFilter(name="tomas the miller")) == []


def test_find_by_attribute_equality(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    smiths = store.find_entities(tenant, EntityFilter(attributes={"occupation": "smith"}))
    level3_smiths = store.find_entities(
        tenant, EntityFilter(attributes={"occupation": "smith", "level": 3})
    )

    assert ids(smiths) == ["ashlyn", "mira"]
    assert ids(level3_smiths) == ["mira"]
    assert store.find_entities(tenant, EntityFilter(attributes={"level": "3"})) == []


def test_find_combines_every_condition(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    found = store.find_entities(
        tenant, EntityFilter(type="npc", name_contains="ash", attributes={"level": 3})
    )

    assert ids(found) == ["mira"]


def test_find_limit_keeps_the_first_by_id(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    assert ids(store.find_entities(tenant, EntityFilter(limit=2))) == ["ashlyn", "forge"]
    assert ids(store.find_entities(tenant, EntityFilter(type="npc", limit=1))) == ["ashlyn"]


def test_counts(store: GraphStore, tenant: str) -> None:
    assert store.count_entities(tenant) == 0
    _village(store, tenant)
    assert store.count_entities(tenant) == 5
    store.upsert_entities(tenant, [ent("mira"), ent("newcomer")])
    assert store.count_entities(tenant) == 6
    store.delete_entities(tenant, ["mira", "tomas"])
    assert store.count_entities(tenant) == 4


def test_returned_entities_are_read_only_values(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("mira", occupation="smith")])
    got = store.get_entity(tenant, "mira")

    with pytest.raises((TypeError, ValueError)):
        got.attributes["occupation"] = "baker"  # type: ignore[index]

    assert store.get_entity(tenant, "mira").attributes == {"occupation": "smith"}


def test_the_name_index_survives_a_reopen(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    _village(store, tenant)
    store.update_entity(tenant, "mira", name="Mira")

    again = reopen()

    assert ids(again.find_entities(tenant, EntityFilter(name="MIRA"))) == ["mira"]
    assert again.find_entities(tenant, EntityFilter(name="Mira Ashford")) == []
