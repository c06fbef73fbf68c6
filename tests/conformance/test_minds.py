"""NPC minds on every backend: events, witnessing, nested belief, telling, two clocks,
salience and forgetting, perspective snapshots and session recaps."""

from __future__ import annotations

import io
import threading
import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import pytest

from graphmem import GraphStore, InvalidInput, Memory, NotFound
from graphmem.core.models import utcnow
from graphmem.minds import Fact, Hearing, MindSettings, PerspectiveIdentity, TrustPolicy

T0 = datetime(2020, 6, 1, 12, 0, tzinfo=UTC)
AUDIO = bytes(range(256)) * 40


def minute(n: int) -> datetime:
    return T0 + timedelta(minutes=n)


def where(fact_object: str) -> Callable[[Fact], bool]:
    return lambda fact: fact.object == fact_object


@pytest.fixture
def hall(mem: Memory) -> Memory:
    """A hall with a chest; Mira, Tomas and Ada in it, Bren outside in the yard."""
    mem.upsert_entities(
        [
            {"id": "hall", "type": "location", "name": "the hall"},
            {"id": "yard", "type": "location", "name": "the yard"},
            {"id": "chest", "type": "item", "name": "the chest"},
            {"id": "bed", "type": "item", "name": "the bed"},
            {"id": "sword", "type": "item", "name": "the sword"},
            {"id": "mira", "type": "npc", "name": "Mira"},
            {"id": "tomas", "type": "npc", "name": "Tomas"},
            {"id": "ada", "type": "npc", "name": "Ada"},
            {"id": "bren", "type": "player", "name": "Bren"},
            {"id": "campaign", "type": "concept", "name": "The Drowned Bell"},
        ]
    )
    mem.upsert_relationships(
        [
            {"source_id": s, "target_id": t, "type": "located_in", "valid_at": T0}
            for s, t in [
                ("chest", "hall"),
                ("bed", "hall"),
                ("mira", "hall"),
                ("tomas", "hall"),
                ("ada", "hall"),
                ("bren", "yard"),
            ]
        ]
    )
    return mem


def place_of(mem: Memory, npc: str, thing: str = "sword", **kw: object) -> str | None:
    belief = mem.belief(npc, thing, "located_in", **kw)  # type: ignore[arg-type]
    return belief.fact.object if belief is not None and belief.fact.holds else None


# --------------------------------------------------------------------------- events


def test_witnesses_believe_what_they_saw_and_the_absent_keep_old_beliefs(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.record_event(
        "left", actor="ada", changes=[Fact(subject="ada", predicate="located_in", object="hall",
                                           holds=False)], at=minute(2),
    )  # fmt: skip
    moved = hall.record_event(
        "moved", actor="tomas", changes=[("sword", "located_in", "bed")], at=minute(3)
    )

    assert moved.place == "hall"  # where the world places the actor
    assert moved.witnesses == ("mira", "tomas")
    assert [r.target_id for r in hall.get_relationships("sword", types=["located_in"])] == ["bed"]
    assert place_of(hall, "mira") == "bed"
    assert place_of(hall, "tomas") == "bed"
    assert place_of(hall, "ada") == "chest"  # a false belief: she left before the move
    assert place_of(hall, "bren") is None  # never saw anything
    assert hall.beliefs("bren") == []
    old = hall.get_relationships("sword", types=["located_in"], as_of=minute(2))
    assert [r.target_id for r in old] == ["chest"]


def test_nested_beliefs_follow_who_saw_whom(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.record_event(
        "left", actor="ada", changes=[Fact(subject="ada", predicate="located_in", object="hall",
                                           holds=False)], at=minute(2),
    )  # fmt: skip
    hall.record_event(
        "moved", actor="tomas", changes=[("sword", "located_in", "bed")], at=minute(3)
    )

    assert place_of(hall, "mira", of="tomas") == "bed"
    assert place_of(hall, "mira", of="ada") == "chest"  # Mira saw Ada leave before the move
    assert place_of(hall, "ada", of="mira") == "chest"  # Ada does not know it moved
    assert place_of(hall, "tomas", of="ada") == "chest"
    assert place_of(hall, "bren", of="mira") is None
    assert [b.chain for b in hall.beliefs("mira", "sword", of="tomas")] == [("tomas",)]
    with pytest.raises(NotFound):
        hall.beliefs("nobody")


def test_beliefs_of_any_order_are_read_from_shared_witnessing(
    store: GraphStore, tenant: str, hall: Memory
) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.record_event(
        "left", actor="ada", changes=[Fact(subject="ada", predicate="located_in", object="hall",
                                           holds=False)], at=minute(2),
    )  # fmt: skip
    moved = hall.record_event(
        "moved", actor="mira", changes=[("sword", "located_in", "bed")], at=minute(3)
    )
    assert moved.witnesses == ("mira", "tomas")
    eighth = ["tomas", "mira", "tomas", "mira", "tomas", "mira", "tomas"]

    assert place_of(hall, "mira", of=eighth) == "bed"  # order 8: both saw the move
    assert place_of(hall, "mira", of=[*eighth[:-1], "ada"]) == "chest"  # Ada left first
    assert place_of(hall, "ada", of=["mira", "tomas", "mira"]) == "chest"
    assert place_of(hall, "tomas", of=["mira", "mira", "ada"]) == "chest"  # repeats collapse
    deep = hall.belief("mira", "sword", "located_in", of=eighth)
    assert deep is not None and deep.chain == tuple(eighth) and deep.how == "witnessed"
    assert deep.event_id == moved.id
    assert place_of(hall, "tomas", of=["ada", "mira"], as_of=minute(2)) == "chest"
    assert place_of(hall, "tomas", of=["ada", "mira"], as_of=minute(0)) is None
    assert store.count_records(tenant, "evidence") == 3  # one record per event and fact
    shallow = Memory(store, tenant, owns_store=False, minds=MindSettings(depth=2))
    with pytest.raises(InvalidInput, match="depth"):
        shallow.belief("mira", "sword", "located_in", of=["tomas", "ada"])


def test_repeated_events_stay_distinct_and_are_listed(hall: Memory) -> None:
    for n in range(3):
        hall.record_event(
            "visited", actor="bren", place="hall", present=["bren"], at=minute(n), session_id="s1"
        )
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(5))

    visits = hall.events(type="visited")
    assert len(visits) == 3 and len({e.id for e in visits}) == 3
    assert [e.at for e in visits] == [minute(0), minute(1), minute(2)]
    assert len(hall.events(session_id="s1")) == 3
    assert [e.type for e in hall.events(about="sword")] == ["hid"]
    assert [e.type for e in hall.events(witness="tomas")] == ["hid"]
    assert [e.type for e in hall.events(since=minute(2), until=minute(6))] == ["visited", "hid"]
    assert [e.type for e in hall.events(limit=1)] == ["hid"]
    assert hall.events(place="yard") == []


def test_attribute_facts_change_the_entity_and_are_believed(hall: Memory) -> None:
    hall.record_event(
        "angered", actor="tomas", changes=[{"subject": "mira", "predicate": "mood",
                                            "value": "angry"}], at=minute(1),
    )  # fmt: skip

    assert hall.get_entity("mira").attributes["mood"] == "angry"
    [belief] = hall.beliefs("ada", "mira", predicate="mood")
    assert belief.fact.value == "angry" and belief.how == "witnessed"
    hall.record_event(
        "calmed", actor="tomas", changes=[{"subject": "mira", "predicate": "mood",
                                           "value": "angry", "holds": False}], at=minute(2),
    )  # fmt: skip
    assert "mood" not in hall.get_entity("mira").attributes
    assert hall.belief("ada", "mira", "mood").fact.holds is False  # type: ignore[union-attr]


def test_observe_reveals_what_is_at_the_place(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.record_event(
        "came", actor="bren", changes=[("bren", "located_in", "hall")], place="hall", at=minute(2)
    )
    assert place_of(hall, "bren") is None  # the sword is in the chest: not seen yet

    seen = hall.observe("hall", at=minute(3))

    assert seen.type == "observed" and "bren" in seen.witnesses
    assert place_of(hall, "bren") == "chest"
    assert place_of(hall, "mira", of="bren") == "chest"
    assert any(f.subject == "chest" for f in seen.reveals)


def test_a_world_fact_newer_than_the_event_is_left_alone(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "bed")], at=minute(9))
    late = hall.record_event(
        "hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1)
    )

    assert [r.target_id for r in hall.get_relationships("sword", types=["located_in"])] == ["bed"]
    assert place_of(hall, "tomas") == "bed"  # older news does not replace a belief
    assert late.id in {b.event_id for b in hall.beliefs("tomas", "sword", history=True)}


def test_bad_events_write_nothing(hall: Memory) -> None:
    before = hall.count_relationships()
    with pytest.raises(InvalidInput):
        hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "nowhere")])
    with pytest.raises(InvalidInput):
        hall.record_event("not a type", actor="mira")
    with pytest.raises(InvalidInput):
        hall.record_event("hid", actor="mira", changes=("sword", "located_in", "chest"))  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        hall.record_event("hid", actor="mira", importance=2.0)
    with pytest.raises(InvalidInput):
        hall.record_event("hid", changes=[{"subject": "sword", "predicate": "located_in"}])
    tiny = Memory(hall.store, hall.tenant, owns_store=False,
                  minds=MindSettings(max_beliefs_per_event=2))  # fmt: skip
    with pytest.raises(InvalidInput, match="max_beliefs_per_event"):
        tiny.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")])
    assert hall.events() == []
    assert hall.count_relationships() == before
    hall.record_event("rang", place="hall", event_id="bell", at=minute(1))
    with pytest.raises(InvalidInput, match="taken"):
        hall.record_event("rang", place="hall", event_id="bell", at=minute(2))
    assert [e.at for e in hall.events()] == [minute(1)]
    assert hall.beliefs("mira") == []


# --------------------------------------------------------------------------- telling


def test_tell_passes_a_belief_on_with_its_source_chain_and_decay(hall: Memory) -> None:
    hall.record_event(
        "hid", actor="mira", changes=[("sword", "located_in", "chest")], present=["tomas"],
        at=minute(1),
    )  # fmt: skip
    hall.record_event(
        "moved", actor="mira", changes=[("sword", "located_in", "bed")], present=["mira"],
        at=minute(2),
    )  # fmt: skip

    [told] = hall.tell("tomas", "bren", ("sword", "located_in", "chest"), at=minute(3))
    assert told.how == "told" and told.told_by == "tomas" and told.sources == ("tomas",)
    assert told.confidence == pytest.approx(0.8)
    [again] = hall.tell("bren", "ada", about="sword", at=minute(4), decay=0.5)
    assert again.sources == ("tomas", "bren") and again.told_by == "bren"
    assert again.confidence == pytest.approx(0.4)

    holders = {b.holder: b for b in hall.who_knows(("sword", "located_in", "chest"))}
    assert sorted(holders) == ["ada", "bren", "tomas"]  # Mira knows better: the bed
    assert [b.holder for b in hall.who_knows(("sword", "located_in", "bed"))] == ["mira"]
    assert place_of(hall, "tomas", of="bren") == "chest"  # he knows he told Bren
    assert hall.belief("tomas", "sword", "located_in", of="bren").how == "inferred"  # type: ignore[union-attr]
    assert place_of(hall, "bren", of="tomas") == "chest"
    assert [e.type for e in hall.events(witness="bren")] == ["told", "told"]
    assert hall.events(type="told")[0].claims[0].object == "chest"


def test_a_lie_is_a_claim_not_a_belief(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))

    [heard] = hall.tell("mira", "bren", ("sword", "located_in", "bed"), at=minute(2))  # a lie

    assert heard.fact.object == "bed" and heard.how == "told" and heard.told_by == "mira"
    assert heard.confidence == pytest.approx(0.8)  # her own word, times the decay
    assert place_of(hall, "mira") == "chest"  # what she says never changes what she believes
    assert place_of(hall, "mira", of="bren") == "bed"  # she knows he took it
    assert place_of(hall, "bren", of="mira") == "bed"  # he thinks she is honest
    [told] = hall.events(type="told")
    assert told.claims[0].object == "bed" and told.adopted == (("bren",),)
    with pytest.raises(InvalidInput, match="believes nothing"):
        hall.tell("bren", "mira", about="chest")
    with pytest.raises(InvalidInput):
        hall.tell("mira", "mira", about="sword")
    with pytest.raises(InvalidInput):
        hall.tell("mira", "ghost", about="sword")
    assert len(hall.events(type="told")) == 1


def test_what_one_saw_beats_hearsay_unless_the_speaker_saw_more(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    gone = Fact(subject="tomas", predicate="located_in", object="hall", holds=False)
    hall.record_event("left", actor="tomas", changes=[gone], at=minute(2))  # Ada sees him go
    hall.tell("tomas", "ada", ("sword", "located_in", "bed"), at=minute(3))  # he lies

    assert place_of(hall, "ada") == "chest"  # she saw more than he did: not believed
    assert place_of(hall, "ada", of="tomas") == "chest"  # nor does she think he believes it
    assert place_of(hall, "tomas", of="ada") == "chest"  # he knows she did not buy it
    [told] = hall.events(type="told")
    assert told.adopted == ((),) and told.witnesses == ("ada", "tomas")

    # Ada leaves; Mira stayed after her, so Ada believes what Mira tells her
    hall.record_event("left", actor="ada", changes=[gone.model_copy(update={"subject": "ada"})],
                      at=minute(4))  # fmt: skip
    [heard] = hall.tell("mira", "ada", ("sword", "located_in", "bed"), at=minute(5))
    assert heard.fact.object == "bed" and place_of(hall, "ada") == "bed"
    assert place_of(hall, "mira", of="ada") == "bed"


def test_a_trust_policy_per_pair_per_kind_or_a_rule_of_the_game(
    store: GraphStore, tenant: str, hall: Memory
) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    wary = Memory(store, tenant, owns_store=False, minds=MindSettings(
        trust=TrustPolicy(pairs={("bren", "tomas"): False})))  # fmt: skip
    wary.tell("tomas", "bren", ("sword", "located_in", "bed"), at=minute(2))
    assert place_of(hall, "bren") is None  # he never believes Tomas

    gullible = Memory(
        store,
        tenant,
        owns_store=False,
        minds=MindSettings(trust=TrustPolicy(overrides={"witnessed": True})),
    )
    gullible.tell("tomas", "mira", ("sword", "located_in", "bed"), at=minute(3))
    assert place_of(hall, "mira") == "bed"  # she believes anyone over her own eyes

    asked: list[Hearing] = []

    def rule(hearing: Hearing) -> bool | None:
        asked.append(hearing)
        return hearing.speaker == "ada" or None

    ruled = Memory(store, tenant, owns_store=False, minds=MindSettings(trust=TrustPolicy(rule)))
    ruled.tell("ada", "tomas", ("sword", "located_in", "bed"), at=minute(4))
    assert place_of(hall, "tomas") == "bed"
    assert asked[0].held is not None and asked[0].held.how == "witnessed"
    assert not asked[0].public and not asked[0].speaker_saw_more  # both still in the hall
    with pytest.raises(InvalidInput):
        MindSettings(trust=TrustPolicy(pairs={"bren": False}))  # type: ignore[dict-item]


def test_an_announcement_is_common_knowledge_among_who_heard_it(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.upsert_relationships(
        [{"source_id": "bren", "target_id": "hall", "type": "located_in", "valid_at": minute(2)}]
    )

    said = hall.announce("tomas", ("sword", "located_in", "bed"), at=minute(3))

    assert said.type == "announced" and said.place == "hall" and said.actor == "tomas"
    assert said.witnesses == ("ada", "bren", "mira", "tomas")
    assert said.adopted == (("bren",),)  # the others saw it hidden, and he saw no more
    assert place_of(hall, "bren") == "bed" and place_of(hall, "mira") == "chest"
    assert place_of(hall, "ada", of="bren") == "bed"  # she knows he heard it and took it
    assert place_of(hall, "bren", of=["ada", "mira", "bren"]) == "bed"
    assert place_of(hall, "mira", of="ada") == "chest"
    assert place_of(hall, "tomas") == "chest"  # the speaker's belief is untouched

    quiet = hall.announce("mira", ("sword", "located_in", "bed"), audience=["ada", "chest"],
                          at=minute(4))  # fmt: skip
    assert quiet.witnesses == ("ada", "mira") and quiet.place is None
    with pytest.raises(InvalidInput):
        hall.announce("mira", ("sword", "located_in", "bed"), place="hall", audience=["ada"])
    with pytest.raises(InvalidInput, match="nowhere"):
        hall.announce("campaign", ("sword", "located_in", "bed"))


def test_believe_sets_rumours_and_inferences(hall: Memory) -> None:
    rumour = hall.believe(
        "bren", ("sword", "located_in", "bed"), how="rumour", confidence=0.3, at=minute(1)
    )
    assert rumour.how == "rumour" and rumour.confidence == 0.3 and rumour.current
    guess = hall.believe("bren", ("sword", "located_in", "chest"), of="mira", at=minute(1))
    assert guess.chain == ("mira",) and place_of(hall, "bren", of="mira") == "chest"
    with pytest.raises(InvalidInput):
        hall.believe("bren", ("sword", "located_in", "chest"), how="no way")


# --------------------------------------------------------------------------- two clocks


def _tick() -> datetime:
    time.sleep(0.002)
    at = utcnow()
    time.sleep(0.002)
    return at


def test_beliefs_at_world_time_and_at_memory_time(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    between = _tick()
    hall.record_event("moved", actor="mira", changes=[("sword", "located_in", "bed")], at=minute(5))

    assert place_of(hall, "tomas", as_of=minute(0)) is None
    assert place_of(hall, "tomas", as_of=minute(3)) == "chest"
    assert place_of(hall, "tomas", as_of=minute(5)) == "bed"
    assert place_of(hall, "tomas", recorded_as_of=between) == "chest"
    assert place_of(hall, "tomas", as_of=minute(9), recorded_as_of=between) == "chest"
    assert place_of(hall, "tomas", of="mira", as_of=minute(3)) == "chest"
    versions = hall.beliefs("tomas", "sword", history=True)
    assert [(b.fact.object, b.current) for b in versions] == [("chest", False), ("bed", True)]
    assert versions[0].valid_to == minute(5) and versions[0].retired_because == "superseded"
    knew = hall.who_knows(("sword", "located_in", "chest"), as_of=minute(3))
    assert [b.holder for b in knew] == ["ada", "mira", "tomas"]
    assert hall.who_knows(("sword", "located_in", "chest"), recorded_as_of=between) == knew
    assert hall.who_knows(("sword", "located_in", "chest")) == []


def test_perspective_snapshot_at_two_clocks(hall: Memory) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.tell("tomas", "bren", about="sword", at=minute(2))
    hall.record_event("moved", actor="mira", changes=[("sword", "located_in", "bed")], at=minute(5))

    now = hall.identity_snapshot("bren", perspective=True)
    assert isinstance(now, PerspectiveIdentity)
    assert [r.key for r in now.relationships] == [("sword", "chest", "located_in")]
    assert [e.id for e in now.related_entities] == ["chest", "sword", "tomas"]
    text = now.to_prompt()
    assert text.startswith("Bren (player)\nBelieves:")
    assert "the sword located in the chest (heard from Tomas, confidence 0.80)" in text
    assert (
        hall.identity_snapshot("tomas", perspective=True, as_of=minute(3))
        .relationships[0]
        .target_id
        == "chest"
    )
    assert hall.identity_snapshot("tomas", perspective=True).relationships[0].target_id == "bed"
    assert "sword" not in hall.identity_snapshot("bren").to_prompt()  # the world's view
    with pytest.raises(NotFound):
        hall.identity_snapshot("nobody", perspective=True)


def test_perspective_prompt_keeps_the_budget(hall: Memory) -> None:
    for n, thing in enumerate(["chest", "bed"]):
        hall.believe("bren", ("sword", "located_in", thing), of="mira", at=minute(n))
        hall.believe("bren", (thing, "located_in", "hall"), confidence=0.5 + n / 4, at=minute(n))
    view = hall.identity_snapshot("bren", perspective=True)
    full = view.to_prompt()
    short = view.to_prompt(max_tokens=25)

    assert len(full.splitlines()) == 4
    assert short.splitlines()[:3] == full.splitlines()[:3]  # most confident kept first
    with pytest.raises(InvalidInput):
        view.to_prompt(max_tokens=0)


# --------------------------------------------------------------------------- salience


@pytest.fixture
def memories(hall: Memory) -> Memory:
    """Two things everyone in the hall saw at minute 0: one important, one trivial."""
    hall.record_event(
        "hid", actor="mira", changes=[("sword", "located_in", "chest")], importance=0.9,
        at=minute(0),
    )  # fmt: skip
    hall.record_event(
        "sat", actor="tomas", changes=[("tomas", "located_in", "hall")], importance=0.1,
        at=minute(0),
    )  # fmt: skip
    return hall


def test_recall_ranks_by_recency_importance_and_relevance(memories: Memory) -> None:
    hall = memories
    later = minute(60 * 24 * 30)

    top = hall.recall("ada", k=1, at=later, mark=False)
    assert top[0].belief.fact.subject == "sword"  # more important, equally old
    assert 0 < top[0].recency < 0.1  # a month of game hours at 0.995 per hour
    about = hall.recall("ada", about="tomas", k=1, at=later)
    assert about[0].belief.fact.subject == "tomas" and about[0].relevance == 1.0
    words = hall.recall("ada", "where is Tomas now", k=1, at=later, mark=False)
    assert words[0].belief.fact.subject == "tomas"
    [recalled] = hall.beliefs("ada", "tomas", predicate="located_in")
    assert recalled.last_recalled_at == later and recalled.recall_count == 1
    with pytest.raises(InvalidInput):
        hall.recall("ada", k=0)


def test_forget_retires_faded_beliefs_and_keeps_their_trail(memories: Memory) -> None:
    hall = memories
    week = minute(60 * 24 * 7)

    gone = hall.forget("ada", below=0.05, at=week)  # 0.1 x 0.43 < 0.05 <= 0.9 x 0.43
    assert {(b.fact.subject, b.retired_because) for b in gone if not b.chain} == {
        ("tomas", "forgotten")
    }
    assert [b.fact.subject for b in hall.beliefs("ada")] == ["sword"]
    assert place_of(hall, "mira") == "chest"  # other NPCs keep theirs
    trail = hall.beliefs("ada", "tomas", predicate="located_in", history=True)
    assert [(b.current, b.valid_to) for b in trail] == [(False, week)]
    assert hall.beliefs("ada", "tomas", as_of=minute(5), predicate="located_in") != []
    old = hall.forget(older_than=timedelta(days=3), at=week)
    assert {b.holder for b in old} == {"ada", "mira", "tomas"}
    assert hall.beliefs("mira") == []
    # learning it again after forgetting it: a new current version, the old kept aside
    hall.record_event("saw", actor="mira", reveals=[("sword", "located_in", "chest")], at=week)
    assert place_of(hall, "ada") == "chest"
    assert len(hall.beliefs("ada", "sword", predicate="located_in", history=True)) == 2
    with pytest.raises(InvalidInput):
        hall.forget("ada")


# --------------------------------------------------------------------------- storage


def test_minds_survive_reopen(
    store: GraphStore, tenant: str, hall: Memory, reopen: Callable[[], GraphStore]
) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.save_recap("s1", "They hid the sword.", campaign="campaign", audio=AUDIO)

    again = Memory(reopen(), tenant, owns_store=False)

    assert place_of(again, "ada", of="mira") == "chest"
    assert again.recap("s1").audio == AUDIO
    assert [e.type for e in again.events()] == ["hid"]


def test_minds_travel_in_dump_load_and_jsonl(
    store: GraphStore, hall: Memory, new_tenant: Callable[[], str]
) -> None:
    hall.record_event("hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1))
    hall.tell("tomas", "bren", about="sword", at=minute(2))
    hall.save_recap("s1", "They hid the sword.", audio=AUDIO, audio_type="audio/ogg")
    copy = Memory(store, new_tenant(), owns_store=False)
    imported = Memory(store, new_tenant(), owns_store=False)

    copy.store.load(copy.tenant, hall.dump())
    buffer = io.StringIO()
    hall.export_jsonl(buffer)
    buffer.seek(0)
    imported.import_jsonl(buffer)

    assert hall.store.count_records(hall.tenant, "belief") == 0  # no belief is materialised
    assert hall.store.count_records(hall.tenant, "evidence") == 2  # the sighting, the claim
    assert hall.store.count_records(hall.tenant, "belief_head") == 1  # one slot: the sword's
    for other in (copy, imported):
        assert place_of(other, "bren") == "chest"
        assert place_of(other, "tomas", of=["bren", "tomas"]) == "chest"  # order 3, read back
        assert place_of(other, "ada", of=["mira", "tomas", "mira"]) == "chest"
        assert other.belief("bren", "sword", "located_in").sources == ("tomas",)  # type: ignore[union-attr]
        assert other.recap("s1").audio == AUDIO and other.recap("s1").audio_type == "audio/ogg"
        assert [e.type for e in other.events()] == ["hid", "told"]


# --------------------------------------------------------------------------- recaps


def test_recaps_default_summarizer_fallback_and_audio(hall: Memory) -> None:
    chat = hall.conversation("s1")
    chat.append("player", "Where did Mira put the sword?", speaker="Bren")
    hall.record_event(
        "hid", actor="mira", changes=[("sword", "located_in", "chest")], at=minute(1),
        session_id="s1", importance=0.9,
    )  # fmt: skip

    made = hall.save_recap("s1", campaign="campaign")
    assert made.source == "default" and made.events == 1 and made.turns == 1
    assert made.text.splitlines() == [
        "Previously (The Drowned Bell, session s1):",
        "- Mira hid: the sword located in the chest",
        "Said:",
        "- Bren: Where did Mira put the sword?",
    ]
    assert hall.draft_recap("s1", campaign="campaign").text == made.text  # deterministic

    def summarizer(session_id, turns, events, names):  # type: ignore[no-untyped-def]
        return f"{len(events)} event(s) in {session_id}; {names['mira']} was there."

    written = hall.save_recap("s1", campaign="campaign", summarizer=summarizer, audio=AUDIO,
                              audio_type="audio/ogg")  # fmt: skip
    assert written.text == "1 event(s) in s1; Mira was there." and written.source == "summarizer"
    assert written.audio == AUDIO and written.created_at == made.created_at

    def broken(*args):  # type: ignore[no-untyped-def]
        raise RuntimeError("model offline")

    fallback = hall.draft_recap("s1", summarizer=broken)
    assert fallback.source == "default" and "model offline" in fallback.notes[0]
    hall.save_recap("s2", "Nothing much happened.", campaign="other")
    assert [r.session_id for r in hall.recaps("campaign")] == ["s1"]
    assert {r.session_id for r in hall.recaps()} == {"s1", "s2"}
    assert hall.recap("s1").audio == AUDIO
    with pytest.raises(NotFound):
        hall.recap("s9")


def test_recap_bad_input_writes_nothing(hall: Memory) -> None:
    small = Memory(hall.store, hall.tenant, owns_store=False,
                   minds=MindSettings(max_audio_bytes=10))  # fmt: skip
    with pytest.raises(InvalidInput, match="over the limit"):
        small.save_recap("s1", "text", audio=b"x" * 11)
    with pytest.raises(InvalidInput):
        hall.save_recap("s1", "text", audio="not bytes")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        hall.save_recap("s1", "text", summarizer=lambda *a: "x")
    with pytest.raises(InvalidInput):
        hall.save_recap("s1", "   ")
    with pytest.raises(InvalidInput):
        hall.save_recap("", "text")
    with pytest.raises(InvalidInput):
        hall.save_recap("s1", "text", audio=b"x", audio_type="ogg")
    assert hall.recaps() == []
    empty = hall.save_recap("s3")
    assert empty.text.endswith("nothing was recorded in this session.")


def test_events_recorded_at_once_lose_no_belief_version(hall: Memory) -> None:
    spots = [f"spot{i}" for i in range(24)]
    hall.upsert_entities([{"id": s, "type": "item", "name": s} for s in spots])

    def move(first: int) -> None:
        for i in range(first, len(spots), 4):
            hall.record_event(
                "moved", actor="mira", changes=[("sword", "located_in", spots[i])], at=minute(i)
            )

    threads = [threading.Thread(target=move, args=(n,)) for n in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()

    versions = hall.beliefs("tomas", "sword", predicate="located_in", history=True)
    assert sorted(b.fact.object for b in versions) == sorted(spots)
    assert [b.fact.object for b in versions if b.current] == ["spot23"]
    assert place_of(hall, "tomas", as_of=minute(7)) == "spot7"
