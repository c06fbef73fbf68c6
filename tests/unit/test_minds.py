"""NPC minds without I/O: facts, chains, trust, settings, the two clocks, salience, rendering."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from graphmem import InvalidInput, Relationship
from graphmem.minds import (
    Belief,
    Event,
    Fact,
    MindSettings,
    TrustPolicy,
    default_recap,
    recency,
    salience,
)
from graphmem.minds.beliefs import collapse, index_id, slot_of, slot_owner, visible_at
from graphmem.minds.models import Hearing
from graphmem.minds.render import belief_line
from graphmem.minds.salience import relevance_by_words, score

T0 = datetime(2030, 1, 1, tzinfo=UTC)


def belief(**overrides: object) -> Belief:
    values: dict[str, object] = {
        "id": "b1",
        "holder": "ada",
        "fact": Fact(subject="sword", predicate="located_in", object="chest"),
        "how": "witnessed",
        "valid_from": T0,
        "recorded_at": T0,
    }
    values.update(overrides)
    return Belief(**values)  # type: ignore[arg-type]


# --------------------------------------------------------------------------- facts


def test_a_fact_has_an_object_or_a_value() -> None:
    assert Fact(subject="mira", predicate="mood", value=True).value is True
    assert Fact(subject="mira", predicate="level", value=3).value == 3
    for bad in (
        {"subject": "mira", "predicate": "mood"},
        {"subject": "mira", "predicate": "knows", "object": "tomas", "value": 1},
        {"subject": "mira", "predicate": "not safe", "object": "tomas"},
        {"subject": "mira", "predicate": "level", "value": float("nan")},
        {"subject": "", "predicate": "knows", "object": "tomas"},
    ):
        with pytest.raises(InvalidInput):
            Fact(**bad)  # type: ignore[arg-type]


def test_same_claim_is_json_equality() -> None:
    one = Fact(subject="m", predicate="level", value=1)
    assert one.same_claim(Fact(subject="m", predicate="level", value=1.0))
    assert not one.same_claim(Fact(subject="m", predicate="level", value=True))
    assert not one.same_claim(Fact(subject="m", predicate="level", value=1, holds=False))


def test_chains_collapse_repeats() -> None:
    assert collapse(["a", "b", "b", "a"]) == ("a", "b", "a")
    assert collapse([]) == ()


def test_the_default_trust_policy() -> None:
    policy = TrustPolicy()
    claim = Fact(subject="sword", predicate="located_in", object="bed")

    def hears(held: Belief | None, saw_more: bool = False) -> bool:
        seen = held if held is not None and held.how == "witnessed" else None
        return policy.adopts(Hearing("ada", "tomas", claim, False, held, seen, saw_more))

    assert hears(None)  # nothing held: believed
    assert hears(belief(fact=claim))  # agrees
    assert not hears(belief())  # what she saw beats hearsay
    assert hears(belief(), saw_more=True)  # unless he saw more
    assert hears(belief(how="told"))  # hearsay replaces hearsay
    # told since, but she saw it herself: the word of one who saw less does not count
    assert not policy.adopts(
        Hearing("ada", "tomas", claim, False, belief(how="told"), belief(), False)
    )
    assert not TrustPolicy(defer_to_who_saw_more=False).adopts(
        Hearing("ada", "tomas", claim, False, belief(), belief(), True)
    )
    assert (
        TrustPolicy(pairs={("ada", "tomas"): False}).adopts(
            Hearing("ada", "tomas", claim, False, None, None, True)
        )
        is False
    )
    with pytest.raises(InvalidInput):
        TrustPolicy(rule=lambda h: "yes").adopts(  # type: ignore[arg-type,return-value]
            Hearing("ada", "tomas", claim, False, None, None, True)
        )
    with pytest.raises(InvalidInput):
        TrustPolicy(rule="always")  # type: ignore[arg-type]


def test_settings_are_checked() -> None:
    assert MindSettings().is_single_valued("located_in")
    assert MindSettings(presence="inside").is_single_valued("inside")
    assert not MindSettings().is_single_valued("knows")
    for bad in (
        {"depth": 0},
        {"depth": 65},
        {"depth": True},
        {"tell_decay": 0},
        {"tell_decay": 1.5},
        {"presence": "located in"},
        {"observers": ()},
        {"weights": (0, 0, 0)},
        {"weights": (1, -1, 1)},
        {"max_audio_bytes": 0},
    ):
        with pytest.raises(InvalidInput):
            MindSettings(**bad)  # type: ignore[arg-type]


def test_slots_and_keys() -> None:
    settings = MindSettings()
    here = Fact(subject="sword", predicate="located_in", object="chest")
    there = Fact(subject="sword", predicate="located_in", object="bed")
    knows = Fact(subject="mira", predicate="knows", object="tomas")
    assert slot_of(here, settings) == slot_of(there, settings)  # one place at a time
    assert slot_of(knows, settings) != slot_of(knows.model_copy(update={"object": "ada"}), settings)
    assert index_id("ada", "x") != index_id("mira", "x")
    assert index_id("a", "b\x1fx") != index_id("a\x1fb", "x")
    assert slot_owner(slot_of(here, settings)) == slot_owner(slot_of(there, settings))


# --------------------------------------------------------------------------- two clocks


def test_relationship_held_at_two_clocks() -> None:
    learned, ended, expired = T0, T0 + timedelta(days=10), T0 + timedelta(days=12)
    rel = Relationship(
        source_id="mira",
        target_id="forge",
        type="works_at",
        created_at=learned,
        invalid_at=ended,
        expired_at=expired,
    )
    day = timedelta(days=1)
    assert not rel.held(as_of=learned - day)  # no valid_at: it holds from created_at
    assert rel.held(as_of=learned + day) and not rel.held(as_of=ended)
    assert not rel.held(recorded_as_of=learned - day)
    assert rel.held(recorded_as_of=learned + day)
    # before it expired, its end was not recorded: still held at any later world time
    assert rel.held(as_of=ended + day, recorded_as_of=expired - day)
    assert not rel.held(as_of=ended + day, recorded_as_of=expired + day)
    assert not rel.held(recorded_as_of=expired + day)  # current then? no, expired
    fresh = Relationship(source_id="a", target_id="b", type="knows", created_at=T0 + 100 * day)
    assert fresh.is_current(T0)  # current reads ignore created_at


def test_belief_versions_at_two_clocks() -> None:
    old = belief(
        valid_to=T0 + timedelta(hours=5),
        retired_at=T0 + timedelta(days=1),
        retired_because="superseded",
    )
    hour = timedelta(hours=1)
    assert not visible_at(old, None, None)  # retired
    assert visible_at(old, T0 + hour, None) and not visible_at(old, T0 + 6 * hour, None)
    assert visible_at(old, None, T0 + hour) and not visible_at(old, None, T0 + 2 * 24 * hour)
    assert visible_at(old, T0 + 6 * hour, T0 + hour)  # its end was not recorded yet
    assert not visible_at(old, T0 - hour, T0 + hour)


# --------------------------------------------------------------------------- salience


def test_recency_and_salience_decay_per_game_hour() -> None:
    b = belief(importance=0.5)
    settings = MindSettings()
    assert recency(b, T0, 0.995) == 1.0
    assert recency(b, T0 - timedelta(hours=3), 0.995) == 1.0
    assert recency(b, T0 + timedelta(hours=10), 0.995) == pytest.approx(0.995**10)
    assert salience(b, T0 + timedelta(hours=10), settings) == pytest.approx(0.5 * 0.995**10)
    touched = b.model_copy(update={"last_recalled_at": T0 + timedelta(hours=10)})
    assert recency(touched, T0 + timedelta(hours=10), 0.995) == 1.0


def test_score_is_a_weighted_mean_and_relevance_counts_words() -> None:
    sword = belief(importance=0.2)
    cup = belief(id="b2", fact=Fact(subject="cup", predicate="located_in", object="shelf"))
    names = {"sword": "the old sword", "chest": "the chest"}
    ranked = score([cup, sword], T0, MindSettings(), relevance_by_words("old sword", names))
    assert [r.belief.id for r in ranked] == ["b1", "b2"]
    assert ranked[0].score == pytest.approx((1.0 + 0.2 + 1.0) / 3)
    only_importance = MindSettings(weights=(0.0, 1.0, 0.0))
    assert score([sword], T0, only_importance, None)[0].score == pytest.approx(0.2)


# --------------------------------------------------------------------------- text


def test_belief_lines_say_where_a_belief_came_from() -> None:
    names = {"sword": "The sword", "chest": "the chest", "tomas": "Tomas"}
    assert belief_line(belief(), names) == "- The sword located in the chest"
    rumour = belief(how="rumour", confidence=0.25)
    assert (
        belief_line(rumour, names) == "- The sword located in the chest (rumour, confidence 0.25)"
    )
    told = belief(how="told", told_by="tomas", sources=("tomas",))
    assert belief_line(told, names) == "- The sword located in the chest (heard from Tomas)"
    denied = belief(fact=Fact(subject="sword", predicate="located_in", object="chest", holds=False))
    assert belief_line(denied, names) == "- The sword not located in the chest"


def test_default_recap_keeps_the_most_important_events_in_time_order() -> None:
    events = [
        Event(id=f"e{n}", type="rang", at=T0 + timedelta(minutes=n), importance=n / 10)
        for n in range(5)
    ]
    text = default_recap("s1", [], events, {}, max_events=2)
    assert text.splitlines() == [
        "Previously (session s1):",
        "- Rang",
        "- Rang",
        "- (3 lesser events left out)",
    ]
    assert default_recap("s1", [], list(reversed(events)), {}, max_events=2) == text
    assert default_recap("s1", [], [], {}).endswith("nothing was recorded in this session.")


def test_event_text_names_what_happened() -> None:
    told = Event(
        id="e",
        type="told",
        at=T0,
        actor="tomas",
        claims=(Fact(subject="sword", predicate="located_in", object="chest"),),
    )
    assert told.describe({"tomas": "Tomas"}) == "Tomas told: that sword located in chest"
    assert Event(id="e", type="storm", at=T0, place="hall").describe() == "Storm in hall"
    assert told.entity_ids == ["tomas", "sword", "chest"]
