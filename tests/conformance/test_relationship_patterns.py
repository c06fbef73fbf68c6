"""relationship_patterns: the (source type, type, target type) shapes of current facts."""

from __future__ import annotations

import time
from datetime import timedelta

from graphmem import ChangeSet, GraphStore, RelationshipPattern
from graphmem.core.models import utcnow

from .helpers import ent, rel


def _village(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(
        tenant,
        [ent("mira"), ent("tomas"), ent("forge", "location"), ent("mill", "location")]
        + [ent("hammer", "item")],
    )
    store.upsert_relationships(
        tenant,
        [
            rel("mira", "forge", "works_at"),
            rel("tomas", "mill", "works_at"),
            rel("mira", "tomas", "knows"),
            rel("tomas", "mira", "knows"),
            rel("mira", "hammer", "owns"),
            rel("forge", "mill", "borders"),
        ],
    )


def test_patterns_count_each_shape_sorted_by_type(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    assert store.relationship_patterns(tenant) == [
        RelationshipPattern("location", "borders", "location", 1),
        RelationshipPattern("npc", "knows", "npc", 2),
        RelationshipPattern("npc", "owns", "item", 1),
        RelationshipPattern("npc", "works_at", "location", 2),
    ]


def test_one_type_between_several_entity_types_is_one_pattern_each(
    store: GraphStore, tenant: str
) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b", "item"), ent("c", "location")])
    store.upsert_relationships(tenant, [rel("a", "b", "near"), rel("a", "c", "near")])

    patterns = store.relationship_patterns(tenant)

    assert [(p.source_type, p.type, p.target_type, p.facts) for p in patterns] == [
        ("npc", "near", "item", 1),
        ("npc", "near", "location", 1),
    ]


def test_only_current_facts_count(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)
    store.invalidate_relationship(tenant, "mira", "hammer", "owns")
    later = rel("tomas", "forge", "owns", valid_at=utcnow() + timedelta(days=1))
    store.upsert_entities(tenant, [ent("anvil", "item")])
    store.upsert_relationships(tenant, [later, rel("tomas", "anvil", "owns")])

    owns = [p for p in store.relationship_patterns(tenant) if p.type == "owns"]

    assert owns == [RelationshipPattern("npc", "owns", "item", 1)]


def test_patterns_follow_entity_types_and_deletes(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)
    assert len(store.relationship_patterns(tenant)) == 4  # read once, then change
    store.update_entity(tenant, "hammer", type="tool")
    store.delete_entities(tenant, ["tomas"])

    assert store.relationship_patterns(tenant) == [
        RelationshipPattern("location", "borders", "location", 1),
        RelationshipPattern("npc", "owns", "tool", 1),
        RelationshipPattern("npc", "works_at", "location", 1),
    ]


def test_a_fact_counts_from_the_moment_it_holds(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("a"), ent("b")])
    soon = utcnow() + timedelta(seconds=0.3)
    store.upsert_relationships(tenant, [rel("a", "b", valid_at=soon)])

    assert store.relationship_patterns(tenant) == []
    time.sleep(max(0.0, (soon - utcnow()).total_seconds()) + 0.05)
    assert store.relationship_patterns(tenant) == [RelationshipPattern("npc", "knows", "npc", 1)]


def test_a_deleted_fact_stops_counting(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)
    assert len(store.relationship_patterns(tenant)) == 4
    store.delete_relationship(tenant, "forge", "mill", "borders")

    assert [p.type for p in store.relationship_patterns(tenant)] == ["knows", "owns", "works_at"]


def test_patterns_follow_writes_of_changes(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)
    assert len(store.relationship_patterns(tenant)) == 4  # computed, so cached where kept

    store.write_changes(
        tenant,
        ChangeSet(
            entities=[ent("ale", "item")],
            relationships=[rel("tomas", "ale", "owns")],
            delete_relationships=[("forge", "mill", "borders")],
        ),
    )
    assert [(p.type, p.facts) for p in store.relationship_patterns(tenant)] == [
        ("knows", 2),
        ("owns", 2),
        ("works_at", 2),
    ]
    store.write_changes(tenant, ChangeSet(delete_entities=["mira"]))
    assert [(p.type, p.facts) for p in store.relationship_patterns(tenant)] == [
        ("owns", 1),
        ("works_at", 1),
    ]


def test_empty_and_other_tenants_have_none(
    store: GraphStore, tenant: str, new_tenant: object
) -> None:
    assert store.relationship_patterns(tenant) == []
    _village(store, tenant)
    other = new_tenant()  # type: ignore[operator]

    assert store.relationship_patterns(other) == []
    assert len(store.relationship_patterns(tenant)) == 4


# --------------------------------------------------------------------------- co-occurrence


def roles(store: GraphStore, tenant: str) -> dict[tuple[str, str, str, str], int]:
    return {tuple(p[:4]): p.entities for p in store.relationship_cooccurrence(tenant)}  # type: ignore[misc]


def test_cooccurrence_counts_entities_with_both_roles(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)

    assert roles(store, tenant) == {
        # the forge borders the mill and is worked at
        ("borders", "in", "borders", "in"): 1,
        ("borders", "in", "works_at", "in"): 1,
        ("borders", "out", "borders", "out"): 1,
        ("borders", "out", "works_at", "in"): 1,
        # mira and tomas know each other both ways and work somewhere
        ("knows", "in", "knows", "in"): 2,
        ("knows", "in", "knows", "out"): 2,
        ("knows", "in", "owns", "out"): 1,
        ("knows", "in", "works_at", "out"): 2,
        ("knows", "out", "knows", "out"): 2,
        ("knows", "out", "owns", "out"): 1,
        ("knows", "out", "works_at", "out"): 2,
        ("owns", "in", "owns", "in"): 1,
        ("owns", "out", "owns", "out"): 1,
        ("owns", "out", "works_at", "out"): 1,
        ("works_at", "in", "works_at", "in"): 2,
        ("works_at", "out", "works_at", "out"): 2,
    }


def test_cooccurrence_is_sorted_and_ordered_within_pairs(store: GraphStore, tenant: str) -> None:
    _village(store, tenant)
    pairs = store.relationship_cooccurrence(tenant)

    assert [p[:4] for p in pairs] == sorted(p[:4] for p in pairs)
    assert all((p.type_a, p.direction_a) <= (p.type_b, p.direction_b) for p in pairs)


def test_cooccurrence_reads_current_facts_and_follows_writes(
    store: GraphStore, tenant: str
) -> None:
    _village(store, tenant)
    assert roles(store, tenant)[("owns", "out", "works_at", "out")] == 1
    store.invalidate_relationship(tenant, "mira", "hammer", "owns")

    assert ("owns", "out", "works_at", "out") not in roles(store, tenant)
    store.delete_entities(tenant, ["tomas"])
    assert roles(store, tenant)[("works_at", "out", "works_at", "out")] == 1


def test_a_fact_from_an_entity_to_itself_gives_it_both_roles(
    store: GraphStore, tenant: str
) -> None:
    store.upsert_entities(tenant, [ent("narcissus")])
    store.upsert_relationships(tenant, [rel("narcissus", "narcissus", "admires")])

    assert roles(store, tenant) == {
        ("admires", "in", "admires", "in"): 1,
        ("admires", "in", "admires", "out"): 1,
        ("admires", "out", "admires", "out"): 1,
    }


def test_cooccurrence_of_an_empty_tenant_is_empty(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("a")])

    assert store.relationship_cooccurrence(tenant) == []
