"""Graph questions: phrases WordNet defines a verb by, read on a small made-up lighthouse.

WordNet defines "direct", "head" and "lead" as "be in charge of", and "look after" as
"keep under careful scrutiny": a question worded with the phrase reaches the type the
verb names (``directs``; the ``keeper`` noun of "keep"; ``maintains``, whose first sense
has "keep"), with no description and no model, and still abstains when the entity named
has no such fact. None of these names is in the evaluation worlds.
"""

from __future__ import annotations

from graphmem.retrieval.graphqa.relwords import defined
from tests.small_worlds import open_world, top

PEOPLE = {"osric": "Osric Vale", "petra": "Petra Lund", "quill": "Quill Amory"}
THINGS = {
    "lamp": ("lantern", "the Brass Lamp"),
    "loft": ("workshop", "the Tin Loft"),
    "skerry": ("island", "Gull Skerry"),
    "bell": ("bell", "the Fog Bell"),
}
FACTS = [
    ("osric", "directs", "loft"),
    ("lamp", "keeper", "petra"),  # Petra is the lamp's keeper
    ("lamp", "located_on", "skerry"),
    ("quill", "lives_on", "skerry"),
    ("quill", "maintains", "bell"),
]


def test_a_short_definition_names_the_verbs_it_defines() -> None:
    n, verbs = defined(["in", "charge", "of", "the", "loft"])
    assert n == 3 and {"direct", "head", "lead"} <= {w for w, _s in verbs}
    n, verbs = defined(["looks", "after", "the", "lamp"])  # any form of the first word
    assert n == 2 and "keep" in {w for w, _s in verbs}
    assert defined(["charge", "the", "lamp"]) == (0, [])


def test_in_charge_of_reaches_the_type_its_verb_names() -> None:
    with open_world("lighthouse", PEOPLE, THINGS, FACTS) as mem:
        answers = mem.ask("Who is in charge of the Tin Loft?", semantic=False)
        assert [a.entity.id for a in answers][:1] == ["osric"]
        assert answers.unexplained == ()
        assert top(mem, "Which workshop is Osric Vale in charge of?") == ["loft"]


def test_look_after_reaches_a_keeper() -> None:
    with open_world("lighthouse", PEOPLE, THINGS, FACTS) as mem:
        assert top(mem, "Who looks after the Brass Lamp?") == ["petra"]
        assert top(mem, "What does Petra Lund look after?") == ["lamp"]


def test_look_after_reaches_a_type_whose_verb_means_keep() -> None:
    with open_world("lighthouse", PEOPLE, THINGS, FACTS) as mem:
        assert top(mem, "Which bell does Quill Amory look after?") == ["bell"]
        assert top(mem, "Who looks after the Fog Bell?") == ["quill"]


def test_a_defined_phrase_no_fact_has_still_abstains() -> None:
    with open_world("lighthouse", PEOPLE, THINGS, FACTS) as mem:
        answers = mem.ask("Who is in charge of Gull Skerry?", semantic=False)
        assert answers.abstained and not answers
