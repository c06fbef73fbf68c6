"""Graph questions: a noun reaches a type through the nouns WordNet says it is a kind of.

"Backer" is no word of ``sponsors`` and WordNet gives it no synonym the type has; but a
backer is a kind of patron, sponsor or supporter (WordNet's hypernyms of its senses), and
those are the nouns of ``sponsors``. So "who is X's backer?" walks ``sponsors`` to X with no
description and no model; a snitch, a kind of informer, reaches ``informs_on``. A noun no
fact of the entity named has still abstains. None of these names is in the evaluation worlds.
"""

from __future__ import annotations

from graphmem.retrieval.graphqa.relwords import kinds_of
from tests.small_worlds import open_world, top

PEOPLE = {"hobb": "Hobb Merriweather", "ysolde": "Ysolde Crane", "tam": "Tam Pellow"}
THINGS = {
    "revue": ("show", "the Lantern Revue"),
    "gang": ("gang", "the Salt Rats"),
    "hall": ("theatre", "Copperhall"),
}
FACTS = [
    ("hobb", "sponsors", "revue"),
    ("tam", "informs_on", "gang"),
    ("revue", "staged_at", "hall"),
    ("ysolde", "directs", "revue"),
]


def test_kinds_of_a_noun_are_its_hypernyms() -> None:
    assert {"sponsor", "patron", "supporter"} <= {w for w, _s in kinds_of("backer")}
    assert "informer" in {w for w, _s in kinds_of("snitches")}  # any form
    assert kinds_of("sponsored") == ()  # a verb's form: no kinds


def test_a_noun_reaches_the_type_of_what_it_is_a_kind_of() -> None:
    with open_world("playhouse", PEOPLE, THINGS, FACTS) as mem:
        answers = mem.ask("Who is the Lantern Revue's backer?", semantic=False)
        assert [a.entity.id for a in answers][:1] == ["hobb"]
        assert answers.unexplained == ()
        assert top(mem, "Who is the snitch inside the Salt Rats?") == ["tam"]


def test_a_kind_no_fact_of_the_entity_has_still_abstains() -> None:
    with open_world("playhouse", PEOPLE, THINGS, FACTS) as mem:
        # Copperhall is sponsored by no one
        assert mem.ask("Who is Copperhall's backer?", semantic=False).abstained
