from datetime import UTC, datetime, timedelta

import pytest

from graphmem import Entity, InvalidInput, NPCIdentity, Provenance, Relationship, estimate_tokens

T0 = datetime(2024, 5, 1, tzinfo=UTC)


def identity():
    npc = Entity(
        id="mira",
        type="npc",
        name="Mira",
        attributes={
            "alignment": "neutral good",
            "personality": "blunt, loyal",
            "occupation": "blacksmith",
            "speaking_style": "short sentences",
            "appearance": "soot-streaked apron",
            "hobby": "carving",
        },
    )
    others = [
        Entity(id="tomas", type="npc", name="Tomas"),
        Entity(id="forge", type="location", name="The Forge"),
        Entity(id="guild", type="faction", name="Smiths' Guild"),
    ]
    rels = [
        Relationship(
            source_id="mira",
            target_id="forge",
            type="works_at",
            provenance=Provenance(confirmed=True, confidence=0.6),
            created_at=T0,
        ),
        Relationship(
            source_id="mira",
            target_id="tomas",
            type="distrusts",
            provenance=Provenance(source="inferred", confidence=0.4),
            created_at=T0,
        ),
        Relationship(
            source_id="tomas",
            target_id="mira",
            type="owes_money_to",
            provenance=Provenance(confidence=0.9),
            created_at=T0 + timedelta(days=1),
        ),
        Relationship(
            source_id="mira",
            target_id="guild",
            type="member_of",
            provenance=Provenance(confidence=0.9),
            created_at=T0,
        ),
    ]
    return NPCIdentity(entity=npc, relationships=rels, related_entities=others)


def test_well_known_attributes_come_first_in_their_order():
    lines = identity().to_prompt().splitlines()
    assert lines[0] == "Mira (npc)"
    assert [line.split(":")[0] for line in lines[1:6]] == [
        "Occupation",
        "Appearance",
        "Speaking style",
        "Personality",
        "Alignment",
    ]


def test_facts_ordered_confirmed_then_confidence_then_newer():
    text = identity().to_prompt()
    facts = text.split("Facts:\n")[1].splitlines()
    assert facts[0] == "- Mira works at The Forge (confirmed, confidence 0.60)"
    # other attributes are the NPC's own facts, at full confidence
    assert facts[1] == "- Hobby: carving"
    # both 0.9; the newer (Tomas owes) before the older (member of)
    assert facts[2] == "- Tomas owes money to Mira (confidence 0.90)"
    assert facts[3] == "- Mira member of Smiths' Guild (confidence 0.90)"
    assert facts[-1] == "- Mira distrusts Tomas (inferred, confidence 0.40)"


@pytest.mark.parametrize("budget", [12, 30, 45, 60, 80, 200])
def test_budget_is_respected_and_drops_from_the_least_important_end(budget):
    full = identity().to_prompt()
    text = identity().to_prompt(max_tokens=budget)
    assert estimate_tokens(text) <= budget
    if estimate_tokens(full) <= budget:
        assert text == full
    kept = [line for line in text.splitlines() if line.startswith("- ") and "omitted" not in line]
    ordered = [line for line in full.split("Facts:\n")[1].splitlines()]
    assert kept == ordered[: len(kept)]  # a prefix: the least important go first
    if kept:
        assert kept[0].endswith("(confirmed, confidence 0.60)")  # the confirmed fact goes last


def test_header_survives_tight_budgets_and_is_cut_when_it_alone_is_too_big():
    text = identity().to_prompt(max_tokens=40)
    assert text.startswith("Mira (npc)\nOccupation: blacksmith")
    tiny = identity().to_prompt(max_tokens=3)
    assert estimate_tokens(tiny) <= 3 and tiny.startswith("Mira")


@pytest.mark.parametrize("bad", [0, -5])
def test_non_positive_budget_is_invalid(bad):
    with pytest.raises(InvalidInput):
        identity().to_prompt(max_tokens=bad)
