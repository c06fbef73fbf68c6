"""Graph questions: which sense of a word the question uses, read on a small made-up harbour.

A word said after a determiner is a noun ("the *fare* for the Gull"): a verb WordNet
relates to a type ("fare", a sense of come / arrive) does not explain it. A word a
relationship type names by its own word ("eat" of ``eats``) is a relation word of the
question even when it reads by meaning as a kind of entity (food): a path without that
step leaves it unexplained. None of these names is in the evaluation worlds.
"""

from __future__ import annotations

from tests.small_worlds import SynonymEmbedder, open_world, top

PEOPLE = {"brenna": "Brenna Holt"}
THINGS = {
    "gull": ("ferry", "Gull"),
    "saltmere": ("port", "Saltmere"),
    "pip": ("otter", "Pip"),
    "otto": ("otter", "Otto"),
    "clams": ("food", "Clams"),
    "north_pen": ("pen", "North Pen"),
}
FACTS = [
    ("gull", "arrives_at", "saltmere"),
    ("gull", "captained_by", "brenna"),
    ("otto", "eats", "clams"),
    ("otto", "lives_in", "north_pen"),
    ("pip", "lives_in", "north_pen"),
]


def test_a_noun_after_a_determiner_is_no_verb_of_a_type() -> None:
    with open_world("harbour", PEOPLE, THINGS, FACTS) as mem:
        answers = mem.ask("What is the fare for Gull?", semantic=False)
        assert answers.abstained and not answers
        assert "fare" in answers.unexplained
        assert top(mem, "Where does Gull arrive?") == ["saltmere"]


def test_a_word_a_type_names_is_no_kind_by_meaning() -> None:
    # "eat" reads by meaning as the kind "food"; it is the word of ``eats`` all the same:
    # Pip eats nothing the graph knows, and the pen he lives in is no answer
    synonyms = SynonymEmbedder(("eat", "food"))
    with open_world("harbour", PEOPLE, THINGS, FACTS, embedder=synonyms) as mem:
        answers = mem.ask("What does Pip eat?", semantic=True)
        assert answers.abstained and not answers
        assert "eat" in answers.unexplained
        assert [a.entity.id for a in mem.ask("What does Otto eat?", semantic=True)] == ["clams"]


def test_a_particle_after_a_word_a_step_explains_is_explained() -> None:
    # "rules *over*": the particle is part of what "rules" says, no word left unexplained
    with open_world("harbour", PEOPLE, THINGS, [*FACTS, ("brenna", "rules", "saltmere")]) as mem:
        answers = mem.ask("Who rules over Saltmere?", semantic=False)
        assert [a.entity.id for a in answers] == ["brenna"]
        assert answers.unexplained == () and answers.reason == ""


def test_the_kind_asked_with_asks_for_no_step_on_the_way() -> None:
    # "which *inn*" names what the last step reaches: Brenna owns no inn, and the inn she
    # drinks at (an inn, reached by a step nothing else asks for) is no answer
    things = {**THINGS, "anchor": ("inn", "the Anchor"), "oswin": ("person", "Oswin Tarr")}
    facts = [*FACTS, ("brenna", "drinks_at", "anchor"), ("oswin", "owns", "anchor")]
    with open_world("harbour", PEOPLE, things, facts) as mem:
        answers = mem.ask("Which inn does Brenna Holt own?", semantic=False)
        assert answers.abstained and not answers
        assert top(mem, "Which inn does Oswin Tarr own?") == ["anchor"]


def test_a_verb_a_type_names_is_a_relation_word_though_a_kind_has_it() -> None:
    # the description of ``company`` has "sponsors" too; said as a verb, it asks for
    # ``sponsor``: Pip has no sponsor, and his pen is no answer
    things = {**THINGS, "kelpco": ("company", "Kelpco")}
    with open_world("harbour", PEOPLE, things, [*FACTS, ("otto", "sponsor", "kelpco")]) as mem:
        mem.describe_entity_type("company", "a firm that sponsors animals")
        answers = mem.ask("Who sponsors Pip?", semantic=False)
        assert answers.abstained and not answers
        assert top(mem, "Who sponsors Otto?") == ["kelpco"]
