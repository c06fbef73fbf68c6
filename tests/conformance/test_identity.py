"""NPC identity snapshots and their prompt rendering under a token budget."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem import GraphStore, InvalidInput, Memory, NotFound, estimate_tokens
from graphmem.core.models import utcnow

from .helpers import ent, ids, keys, rel

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


@pytest.fixture
def mira(store: GraphStore, tenant: str) -> GraphStore:
    store.upsert_entities(
        tenant,
        [
            ent(
                "mira",
                name="Mira",
                alignment="lawful good",
                personality="stern but fair",
                occupation="smith",
                speaking_style="clipped",
                appearance="soot-streaked",
                favourite_food="plums",
            ),
            ent("tomas", name="Tomas"),
            ent("guild", "faction", name="Smiths' Guild"),
            ent("forge", "location", name="The Forge"),
            ent("stranger", name="Stranger"),
            ent("unrelated", name="Unrelated"),
        ],
    )
    store.upsert_relationships(
        tenant,
        [
            rel("mira", "forge", "works_at"),
            rel("mira", "guild", "member_of"),
            rel("tomas", "mira", "hates"),
            rel("stranger", "mira", "owes"),
            rel("tomas", "guild", "member_of"),  # does not touch mira
        ],
    )
    store.invalidate_relationship(tenant, "stranger", "mira", "owes")
    return store


def test_snapshot_has_the_entity(mira: GraphStore, tenant: str) -> None:
    snap = mira.identity_snapshot(tenant, "mira")

    assert snap.entity == mira.get_entity(tenant, "mira")


def test_snapshot_has_current_facts_in_both_directions(mira: GraphStore, tenant: str) -> None:
    snap = mira.identity_snapshot(tenant, "mira")

    assert sorted(keys(snap.relationships)) == [
        ("mira", "forge", "works_at"),
        ("mira", "guild", "member_of"),
        ("tomas", "mira", "hates"),
    ]


def test_snapshot_related_entities_are_the_other_ends_by_id(mira: GraphStore, tenant: str) -> None:
    snap = mira.identity_snapshot(tenant, "mira")

    assert ids(snap.related_entities) == ["forge", "guild", "tomas"]
    assert snap.related_entities[2] == mira.get_entity(tenant, "tomas")


def test_snapshot_skips_future_facts(mira: GraphStore, tenant: str) -> None:
    mira.upsert_relationships(
        tenant, [rel("mira", "unrelated", "marries", valid_at=utcnow() + timedelta(days=3))]
    )

    snap = mira.identity_snapshot(tenant, "mira")

    assert "unrelated" not in ids(snap.related_entities)
    assert ("mira", "unrelated", "marries") not in keys(snap.relationships)


def test_snapshot_of_isolated_entity(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("hermit")])

    snap = store.identity_snapshot(tenant, "hermit")

    assert snap.entity.id == "hermit"
    assert snap.relationships == ()
    assert snap.related_entities == ()


def test_snapshot_of_unknown_entity_is_not_found(store: GraphStore, tenant: str) -> None:
    with pytest.raises(NotFound) as info:
        store.identity_snapshot(tenant, "nobody")

    assert info.value.entity_id == "nobody"


def test_memory_snapshot_is_the_store_snapshot(mira: GraphStore, mem: Memory, tenant: str) -> None:
    assert mem.identity_snapshot("mira") == mira.identity_snapshot(tenant, "mira")


def test_prompt_renders_well_known_attributes_first_in_order(mira: GraphStore, mem: Memory) -> None:
    lines = mem.identity_snapshot("mira").to_prompt().splitlines()

    assert lines[:6] == [
        "Mira (npc)",
        "Occupation: smith",
        "Appearance: soot-streaked",
        "Speaking style: clipped",
        "Personality: stern but fair",
        "Alignment: lawful good",
    ]
    text = "\n".join(lines)
    assert text.index("Favourite food: plums") > text.index("Alignment: lawful good")
    for fact in ("Mira works at The Forge", "Mira member of Smiths' Guild", "Tomas hates Mira"):
        assert fact in text
    assert "owes" not in text


def _npc_with_facts(mem: Memory) -> None:
    mem.upsert_entities(
        [ent("npc", name="Mira", occupation="smith")]
        + [ent(f"e{i}", name=f"Person{i}") for i in range(6)]
    )
    mem.upsert_relationships(
        [
            rel("npc", "e0", "confirmed_old", confirmed=True, confidence=0.2, created_at=LONG_AGO),
            rel("npc", "e1", "sure_new", confidence=0.9, created_at=LONG_AGO + timedelta(days=9)),
            rel("npc", "e2", "sure_old", confidence=0.9, created_at=LONG_AGO),
            rel("npc", "e3", "doubtful", confidence=0.3, created_at=LONG_AGO + timedelta(days=20)),
            rel("npc", "e4", "certain", confidence=1.0, created_at=LONG_AGO),
            rel("npc", "e5", "guess", confidence=0.1, created_at=LONG_AGO + timedelta(days=30)),
        ]
    )


# Most important first: confirmed, then confidence, then newer.
IMPORTANCE = ["confirmed old", "certain", "sure new", "sure old", "doubtful", "guess"]


def _kept(text: str) -> list[str]:
    return [word for word in IMPORTANCE if f" {word} " in text]


def test_prompt_without_budget_keeps_every_fact(mem: Memory) -> None:
    _npc_with_facts(mem)

    text = mem.identity_snapshot("npc").to_prompt()

    assert _kept(text) == IMPORTANCE


def test_prompt_budget_drops_least_confident_and_oldest_first(mem: Memory) -> None:
    _npc_with_facts(mem)
    snap = mem.identity_snapshot("npc")
    full = snap.to_prompt()

    seen_prefixes = set()
    for budget in range(1, estimate_tokens(full) + 1):
        kept = _kept(snap.to_prompt(max_tokens=budget))
        # Whatever survives is always the most important facts, in order.
        assert kept == IMPORTANCE[: len(kept)], (budget, kept)
        seen_prefixes.add(len(kept))
    # Some budget keeps the confirmed fact alone, and some drop "guess" but keep "doubtful".
    assert 1 in seen_prefixes and 5 in seen_prefixes


def test_prompt_budget_keeps_confirmed_fact_longest(mem: Memory) -> None:
    _npc_with_facts(mem)
    snap = mem.identity_snapshot("npc")
    header = "Mira (npc)\nOccupation: smith"
    confirmed = "- Mira confirmed old Person0 (confirmed, confidence 0.20)"
    budget = estimate_tokens(f"{header}\nFacts:\n{confirmed}")

    text = snap.to_prompt(max_tokens=budget)

    assert text.startswith(header)
    assert confirmed in text
    assert _kept(text) == ["confirmed old"]


@pytest.mark.parametrize("budget", [1, 3, 8, 15, 25, 40, 60, 100, 1000])
def test_prompt_fits_within_the_budget(mem: Memory, budget: int) -> None:
    _npc_with_facts(mem)

    text = mem.identity_snapshot("npc").to_prompt(max_tokens=budget)

    assert text
    assert estimate_tokens(text) <= budget


@pytest.mark.parametrize("budget", [0, -1])
def test_prompt_budget_must_be_positive(mem: Memory, budget: int) -> None:
    mem.upsert_entities([ent("npc")])

    with pytest.raises(InvalidInput):
        mem.identity_snapshot("npc").to_prompt(max_tokens=budget)
