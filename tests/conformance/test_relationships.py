"""Relationships: upsert keyed by (source, target, type), reads, delete, invalidate, as_of."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem import GraphStore, InvalidInput, NotFound, Provenance, Relationship
from graphmem.core.models import utcnow

from .helpers import BOTH, EVERY, IN, OUT, ent, flt, keys, rel

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


@pytest.fixture
def village(store: GraphStore, tenant: str) -> GraphStore:
    store.upsert_entities(tenant, [ent("mira"), ent("tomas"), ent("ada"), ent("forge", "location")])
    return store


def test_upsert_returns_relationships_as_stored(village: GraphStore, tenant: str) -> None:
    given = Relationship(
        source_id="mira",
        target_id="tomas",
        type="knows",
        attributes={"since": "childhood", "strength": 0.5},
        provenance=Provenance(
            session_id="s1", confidence=0.75, source="inferred", confirmed=True, evidence=("t1",)
        ),
        valid_at=LONG_AGO,
        created_at=LONG_AGO + timedelta(days=1),
    )

    [stored] = village.upsert_relationships(tenant, [given])

    assert stored.model_dump() == given.model_dump()
    assert village.get_relationships(tenant, "mira", OUT) == [stored]


def test_upsert_replaces_by_source_target_and_type(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas", confidence=0.5, mood="wary")])

    village.upsert_relationships(tenant, [rel("mira", "tomas", confidence=0.9, mood="warm")])

    [got] = village.get_relationships(tenant, "mira", OUT)
    assert got.provenance.confidence == 0.9
    assert got.attributes == {"mood": "warm"}
    assert village.count_relationships(tenant) == 1


def test_last_relationship_with_a_key_wins_within_a_batch(village: GraphStore, tenant: str) -> None:
    stored = village.upsert_relationships(
        tenant,
        [
            rel("mira", "tomas", confidence=0.2, n=1),
            rel("ada", "mira"),
            rel("mira", "tomas", confidence=0.8, n=2),
        ],
    )

    [got] = village.get_relationships(tenant, "mira", OUT)
    assert (got.provenance.confidence, got.attributes) == (0.8, {"n": 2})
    assert village.count_relationships(tenant) == 2
    assert keys(stored) == [("mira", "tomas", "knows"), ("ada", "mira", "knows")] + [got.key]
    assert stored[0] == got and stored[2] == got


def test_other_types_between_the_same_ends_are_separate(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(
        tenant, [rel("mira", "tomas", "knows"), rel("mira", "tomas", "hates"), rel("tomas", "mira")]
    )

    assert village.count_relationships(tenant) == 3
    assert keys(village.get_relationships(tenant, "mira", OUT)) == [
        ("mira", "tomas", "hates"),
        ("mira", "tomas", "knows"),
    ]


def test_replace_keeps_created_at(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas", created_at=LONG_AGO)])

    [stored] = village.upsert_relationships(
        tenant, [rel("mira", "tomas", confidence=0.3, created_at=LONG_AGO + timedelta(days=5))]
    )

    [got] = village.get_relationships(tenant, "mira", OUT)
    assert stored == got
    assert got.created_at == LONG_AGO
    assert got.provenance.confidence == 0.3


def test_get_reads_outgoing_by_default(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(
        tenant, [rel("mira", "tomas"), rel("ada", "mira"), rel("mira", "forge", "works_at")]
    )

    assert keys(village.get_relationships(tenant, "mira", OUT)) == [
        ("mira", "forge", "works_at"),
        ("mira", "tomas", "knows"),
    ]


def test_get_reads_incoming(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(
        tenant, [rel("mira", "tomas"), rel("ada", "mira"), rel("tomas", "mira", "hates")]
    )

    assert keys(village.get_relationships(tenant, "mira", IN)) == [
        ("ada", "mira", "knows"),
        ("tomas", "mira", "hates"),
    ]


def test_get_reads_both_directions_ordered_by_key(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(
        tenant, [rel("mira", "tomas"), rel("ada", "mira"), rel("tomas", "mira", "hates")]
    )

    assert keys(village.get_relationships(tenant, "mira", BOTH)) == [
        ("ada", "mira", "knows"),
        ("mira", "tomas", "knows"),
        ("tomas", "mira", "hates"),
    ]


def test_self_loop_is_read_once_in_both_directions(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "mira", "trusts")])

    assert keys(village.get_relationships(tenant, "mira", BOTH)) == [("mira", "mira", "trusts")]


def test_get_filters_by_type(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(
        tenant,
        [
            rel("mira", "tomas", "knows"),
            rel("mira", "tomas", "hates"),
            rel("mira", "forge", "works_at"),
            rel("ada", "mira", "hates"),
        ],
    )

    hates = village.get_relationships(tenant, "mira", flt(direction="both", types=("hates",)))
    two = village.get_relationships(tenant, "mira", flt(types=("hates", "works_at")))

    assert keys(hates) == [("ada", "mira", "hates"), ("mira", "tomas", "hates")]
    assert keys(two) == [("mira", "forge", "works_at"), ("mira", "tomas", "hates")]


def test_get_limit_keeps_the_first_by_key(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(
        tenant, [rel("mira", "tomas"), rel("mira", "ada"), rel("mira", "forge", "works_at")]
    )

    got = village.get_relationships(tenant, "mira", flt(limit=2))

    assert keys(got) == [("mira", "ada", "knows"), ("mira", "forge", "works_at")]


def test_get_for_unknown_entity_is_not_found(village: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as info:
        village.get_relationships(tenant, "nobody", OUT)

    assert info.value.entity_id == "nobody"


def test_entity_without_relationships_reads_empty(village: GraphStore, tenant: str) -> None:
    assert village.get_relationships(tenant, "ada", EVERY) == []


def test_delete_returns_whether_it_existed(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas"), rel("mira", "tomas", "hates")])

    assert village.delete_relationship(tenant, "mira", "tomas", "knows") is True
    assert village.delete_relationship(tenant, "mira", "tomas", "knows") is False
    assert village.delete_relationship(tenant, "tomas", "mira", "hates") is False

    assert keys(village.get_relationships(tenant, "mira", EVERY)) == [("mira", "tomas", "hates")]
    assert village.count_relationships(tenant) == 1
    # The entities stay.
    assert village.count_entities(tenant) == 4


def test_delete_with_unknown_ends_is_not_an_error(village: GraphStore, tenant: str) -> None:
    assert village.delete_relationship(tenant, "nobody", "tomas", "knows") is False


def test_invalidate_keeps_the_edge_and_sets_both_ends(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas", created_at=LONG_AGO)])
    before = utcnow()

    result = village.invalidate_relationship(tenant, "mira", "tomas", "knows")

    after = utcnow()
    assert result.invalid_at is not None and before <= result.invalid_at <= after
    assert result.expired_at is not None and before <= result.expired_at <= after
    assert result.created_at == LONG_AGO
    assert village.count_relationships(tenant) == 1
    assert village.get_relationships(tenant, "mira", OUT) == []
    assert village.get_relationships(tenant, "mira", flt(include_invalid=True)) == [result]


def test_invalidate_at_a_given_time(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas", valid_at=LONG_AGO)])
    at = LONG_AGO + timedelta(days=30)
    before = utcnow()

    result = village.invalidate_relationship(tenant, "mira", "tomas", "knows", at=at)

    assert result.invalid_at == at
    assert result.expired_at is not None and result.expired_at >= before
    assert result.valid_at == LONG_AGO


@pytest.mark.parametrize("offset", [timedelta(days=-1), timedelta(0)])
def test_invalidating_at_or_before_valid_at_is_refused_and_writes_nothing(
    village: GraphStore, tenant: str, offset: timedelta
) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas", valid_at=LONG_AGO)])
    (stored,) = village.get_relationships(tenant, "mira", OUT)

    with pytest.raises(InvalidInput, match="would never hold") as caught:
        village.invalidate_relationship(tenant, "mira", "tomas", "knows", at=LONG_AGO + offset)

    assert "valid_at" in caught.value.message
    assert village.get_relationships(tenant, "mira", flt(include_invalid=True)) == [stored]
    assert keys(village.get_relationships(tenant, "mira", flt(as_of=LONG_AGO))) == [
        ("mira", "tomas", "knows")
    ]


def test_invalidating_an_undated_fact_before_it_was_learned_is_refused(
    village: GraphStore, tenant: str
) -> None:
    learned = LONG_AGO + timedelta(days=10)
    village.upsert_relationships(tenant, [rel("mira", "tomas", created_at=learned)])
    (stored,) = village.get_relationships(tenant, "mira", OUT)

    with pytest.raises(InvalidInput, match="created_at") as caught:
        village.invalidate_relationship(
            tenant, "mira", "tomas", "knows", at=learned - timedelta(days=1)
        )

    assert caught.value.data["source_id"] == "mira"
    assert village.get_relationships(tenant, "mira", flt(include_invalid=True)) == [stored]
    later = village.invalidate_relationship(
        tenant, "mira", "tomas", "knows", at=learned + timedelta(days=1)
    )
    assert later.invalid_at == learned + timedelta(days=1)
    assert keys(village.get_relationships(tenant, "mira", flt(as_of=learned))) == [
        ("mira", "tomas", "knows")
    ]


def test_invalidate_unknown_relationship_is_not_found(village: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound):
        village.invalidate_relationship(tenant, "mira", "tomas", "knows")


def test_as_of_reads_before_and_after_invalidation(village: GraphStore, tenant: str) -> None:
    valid_from = LONG_AGO
    ended = LONG_AGO + timedelta(days=100)
    village.upsert_relationships(
        tenant, [rel("mira", "tomas", valid_at=valid_from), rel("mira", "ada", valid_at=valid_from)]
    )
    village.invalidate_relationship(tenant, "mira", "tomas", "knows", at=ended)

    def at(when: datetime) -> list[tuple[str, str, str]]:
        return keys(village.get_relationships(tenant, "mira", flt(as_of=when)))

    assert at(valid_from - timedelta(days=1)) == []
    assert at(valid_from) == [("mira", "ada", "knows"), ("mira", "tomas", "knows")]
    assert at(ended - timedelta(seconds=1)) == [
        ("mira", "ada", "knows"),
        ("mira", "tomas", "knows"),
    ]
    assert at(ended) == [("mira", "ada", "knows")]
    assert at(utcnow()) == [("mira", "ada", "knows")]
    assert keys(village.get_relationships(tenant, "mira", OUT)) == [("mira", "ada", "knows")]


def test_include_invalid_returns_every_stored_fact(village: GraphStore, tenant: str) -> None:
    tomorrow = utcnow() + timedelta(days=1)
    village.upsert_relationships(
        tenant,
        [
            rel("mira", "tomas"),
            rel("mira", "ada"),
            rel("mira", "forge", "visits", valid_at=tomorrow),
        ],
    )
    village.invalidate_relationship(tenant, "mira", "tomas", "knows")

    every = village.get_relationships(tenant, "mira", flt(include_invalid=True))

    assert keys(every) == [
        ("mira", "ada", "knows"),
        ("mira", "forge", "visits"),
        ("mira", "tomas", "knows"),
    ]


def test_future_valid_at_is_not_current(village: GraphStore, tenant: str) -> None:
    soon = utcnow() + timedelta(days=1)
    village.upsert_relationships(tenant, [rel("mira", "tomas", valid_at=soon)])

    assert village.get_relationships(tenant, "mira", OUT) == []
    assert village.get_relationships(tenant, "tomas", IN) == []
    assert keys(village.get_relationships(tenant, "mira", flt(as_of=soon))) == [
        ("mira", "tomas", "knows")
    ]
    assert village.count_relationships(tenant) == 1


def test_reupserting_an_invalidated_fact_makes_it_current_again(
    village: GraphStore, tenant: str
) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas", created_at=LONG_AGO)])
    village.invalidate_relationship(tenant, "mira", "tomas", "knows")

    village.upsert_relationships(tenant, [rel("mira", "tomas")])

    [got] = village.get_relationships(tenant, "mira", OUT)
    assert got.invalid_at is None and got.expired_at is None
    assert got.created_at == LONG_AGO


def test_dangling_end_is_invalid_and_nothing_is_written(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "ada", "old")])
    batch = [
        rel("mira", "tomas"),
        rel("mira", "ghost"),
        rel("phantom", "ada"),
        rel("mira", "ada", "old", confidence=0.1),
    ]

    with pytest.raises(InvalidInput) as info:
        village.upsert_relationships(tenant, batch)

    assert "ghost" in str(info.value) and "phantom" in str(info.value)
    assert village.count_relationships(tenant) == 1
    [old] = village.get_relationships(tenant, "mira", EVERY)
    assert old.key == ("mira", "ada", "old") and old.provenance.confidence == 1.0
    assert village.get_relationships(tenant, "tomas", EVERY) == []
    assert village.count_entities(tenant) == 4  # no ghost entity was created


def test_count_includes_invalidated(village: GraphStore, tenant: str) -> None:
    village.upsert_relationships(tenant, [rel("mira", "tomas"), rel("ada", "tomas")])
    village.invalidate_relationship(tenant, "ada", "tomas", "knows")

    assert village.count_relationships(tenant) == 2
