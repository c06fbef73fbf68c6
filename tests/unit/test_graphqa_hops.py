"""Multi-hop structure of graph questions: the way a noun walks a type on the way.

Each test fails without its rule: a noun in "-ee" for the one a verb is done to, a "-mate"
compound holding both ways, a noun attached to the topic read the way it walks a type, a
step's cost when the types are read with their descriptions, and the word asked with that
names a kind of entity read as what the answer is, not as a word of a further step.
"""

from __future__ import annotations

import pytest

from graphmem import InvalidInput, Memory
from graphmem.retrieval.graphqa import GraphQASettings
from graphmem.retrieval.graphqa.direction import kind_takes, noun_way
from tests.small_worlds import SynonymEmbedder, open_world, top

PEOPLE = {"anika": "Anika Brandt", "ben": "Ben Ortiz", "carl": "Carl Weiss", "dana": "Dana Holt"}
CLUBS = {
    "alder": ("club", "Alder Club"),
    "birch": ("club", "Birch Club"),
    "cedar": ("club", "Cedar Club"),
}


def test_a_noun_in_ee_is_the_one_the_verb_is_done_to() -> None:
    # "Anika's trainee" is the one Anika trains, not her trainer
    facts = [
        ("anika", "trains", "ben"),
        ("carl", "trains", "anika"),
        ("ben", "belongs_to", "alder"),
        ("carl", "belongs_to", "birch"),
        ("anika", "belongs_to", "cedar"),
    ]
    with open_world("ee", PEOPLE, CLUBS, facts) as mem:
        assert top(mem, "Who is Anika Brandt's trainee?") == ["ben"]
        assert top(mem, "Which club is Anika Brandt's trainee in?") == ["alder"]
        # the agent noun still reads the other way
        assert top(mem, "Who is Anika Brandt's trainer?") == ["carl"]


def test_a_mate_compound_holds_both_ways() -> None:
    # teammates stored one way are found from either end
    facts = [
        ("anika", "teammate", "ben"),
        ("carl", "teammate", "dana"),
        ("ben", "belongs_to", "alder"),
        ("anika", "belongs_to", "birch"),
        ("dana", "belongs_to", "cedar"),
        ("carl", "belongs_to", "cedar"),
    ]
    with open_world("mate", PEOPLE, CLUBS, facts) as mem:
        assert top(mem, "Who is the teammate of Ben Ortiz?") == ["anika"]
        assert top(mem, "Which club is the teammate of Ben Ortiz in?") == ["birch"]


def test_the_way_a_noun_names_a_type() -> None:
    assert noun_way("manager", "boss") == "out"  # X's manager: X -manager-> Y
    assert noun_way("captain_of", "captain") == "in"  # X's captain: Y -captain_of-> X
    assert noun_way("owns", "owner") is None  # a verb's noun: read elsewhere (read_cue)
    assert noun_way("owns", "owner", -1.0) == "in"  # the question's cue wins


def test_a_noun_the_topic_kind_takes_only_the_other_way_does_not_restrict_the_walk() -> None:
    # "Kaya's boss" read as ``manager`` (a restaurant's manager, never a person's) names
    # the person Kaya takes orders from
    things = {"nori": ("restaurant", "Nori Bar"), "casa": ("restaurant", "Casa Lumen")}
    facts = [
        ("nori", "manager", "carl"),
        ("casa", "manager", "dana"),
        ("anika", "takes_orders_from", "ben"),
        ("ben", "works_at", "nori"),
        ("anika", "works_at", "nori"),
    ]
    with open_world("boss", PEOPLE, things, facts) as mem:
        qa = mem._retrieval().answerer(False, None)
        firsts = {p.steps[0].type for p in qa.plan("Who is Anika's boss?")}
        assert "takes_orders_from" in firsts
        # what a restaurant's manager is still answered
        assert top(mem, "Who is Nori Bar's manager?") == ["carl"]


def test_a_noun_no_entity_of_the_topic_kind_takes_still_restricts_the_walk() -> None:
    # "Anika's captain" where only ships have captains and people captain none: as before,
    # the noun asks what the graph does not hold
    things = {"gull": ("ship", "Grey Gull")}
    facts = [
        ("ben", "captain_of", "gull"),
        ("anika", "belongs_to", "alder"),
        ("ben", "trains", "anika"),
    ]
    with open_world("captain", PEOPLE, {**CLUBS, **things}, facts) as mem:
        assert mem.ask("Who is Anika Brandt's captain?", semantic=False).abstained


def test_kind_takes_reads_the_kinds_facts() -> None:
    things = {"nori": ("restaurant", "Nori Bar")}
    with open_world("takes", PEOPLE, things, [("nori", "manager", "carl")]) as mem:
        vocab = mem._retrieval().answerer(False, None)._vocab()
        assert kind_takes(vocab, {"restaurant": 1.0}, "manager", "out", 0.02)
        assert not kind_takes(vocab, {"person": 1.0}, "manager", "out", 0.02)
        assert kind_takes(vocab, {"person": 1.0}, "manager", "in", 0.02)
        assert kind_takes(vocab, {"person": 1.0}, "manager", None, 0.02)


def test_a_step_costs_more_when_the_types_are_read_with_their_descriptions() -> None:
    # a description's words explain more of a question by chance than a type's name, so
    # each step of a path planned with them costs ``described_hop``; with the names alone,
    # ``hop``: the score of walking on from the dojo to its city drops by one such cost
    things = {"kaze": ("dojo", "Kaze Dojo"), "millhaven": ("city", "Millhaven")}
    facts = [("tom", "trains_at", "kaze"), ("kaze", "located_in", "millhaven")]
    described = {
        "trains_at": "the person practises at the dojo as a student",
        "located_in": "the dojo's hall is in the city",
    }
    question = "Which city does Tom Becker practise in?"

    def longer_by(mem: Memory, **weights: float) -> float:
        plans = mem._retrieval().answerer(False, GraphQASettings(**weights)).plan(question)
        by_path = {tuple(str(s) for s in p.steps): p.score for p in plans}
        return by_path[("->trains_at",)] - by_path[("->trains_at", "->located_in")]

    people = {"tom": "Tom Becker"}
    with open_world("dojo", people, things, facts, described) as mem:
        base = longer_by(mem, hop=0.2, described_hop=0.2)
        assert longer_by(mem, hop=0.2, described_hop=0.7) == pytest.approx(base + 0.5)
        assert longer_by(mem, hop=0.9, described_hop=0.2) == pytest.approx(base)
        assert GraphQASettings().described_hop > GraphQASettings().hop
    with open_world("dojo", people, things, facts) as mem:
        base = longer_by(mem, hop=0.2, described_hop=0.2)
        assert longer_by(mem, hop=0.2, described_hop=0.7) == pytest.approx(base)
        assert longer_by(mem, hop=0.7, described_hop=0.2) == pytest.approx(base + 0.5)
    # the walk back "same" asks for is no chance of a description: it costs ``hop``
    people = {"tom": "Tom Becker", "ann": "Ann Lee"}
    with open_world(
        "dojo", people, things, [*facts, ("ann", "trains_at", "kaze")], described
    ) as mem:
        shared = "Who else practises at the same dojo as Tom Becker?"

        def there_and_back(weight: float) -> float:
            plans = mem._retrieval().answerer(False, GraphQASettings(described_hop=weight))
            scores = {tuple(str(s) for s in p.steps): p.score for p in plans.plan(shared)}
            return scores[("->trains_at", "<-trains_at")]

        assert there_and_back(0.7) == pytest.approx(there_and_back(0.2) - 0.5)
        assert top(mem, shared) == ["ann"]
    with pytest.raises(InvalidInput, match="described_hop"):
        GraphQASettings(described_hop=-1.0)


def test_the_word_asked_with_that_names_a_kind_is_no_word_of_a_further_step() -> None:
    # "which *coach*": a service ("a regular bus service") is what is asked for; the road
    # it runs on, described with "bus" too, is one step further than the question goes
    facts = [
        ("anika", "drives", "mail"),
        ("ben", "drives", "flyer"),
        ("mail", "runs_on", "coast_road"),
        ("flyer", "runs_on", "moor_lane"),
    ]
    things = {
        "mail": ("service", "the Coast Mail"),
        "flyer": ("service", "the Moor Flyer"),
        "coast_road": ("road", "the Coast Road"),
        "moor_lane": ("road", "Moor Lane"),
    }
    described = {
        "drives": "a service this driver is rostered to work",
        "runs_on": "a road this bus service travels over",
    }
    synonyms = SynonymEmbedder(("coach", "bus"))
    with open_world("buses", PEOPLE, things, facts, described, embedder=synonyms) as mem:
        mem.describe_entity_type("service", "a regular bus service")
        mem.describe_entity_type("road", "a road of the county")
        answers = mem.ask("Which coach does Anika Brandt drive?")
        assert [a.entity.id for a in answers][:1] == ["mail"]
        assert [str(s) for s in answers[0].path] == ["->drives"]
        # a word no entity type names is still a word of the step that names it
        assert [a.entity.id for a in mem.ask("Which road does the Moor Flyer run on?")] == [
            "moor_lane"
        ]
