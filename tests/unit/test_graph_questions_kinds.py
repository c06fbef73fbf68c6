"""Graph questions: the kind of thing "who" and "where" ask for, read from WordNet.

"Who ...?" asks for a person or a group of people, "where ...?" for a place: a walk whose
every answer is of another kind (a kiln to "who made the vase?") answers another question
while a walk reaching the kind asked for exists, and is answered less surely when none
does. Made-up pottery; none of these names is in the evaluation worlds.
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from importlib import resources

import pytest

from graphmem import Memory
from graphmem.retrieval.graphqa import kinds
from graphmem.retrieval.graphqa.kinds import asked_kind_fit, kind_word
from tests.small_worlds import open_world

PEOPLE: dict[str, str] = {}  # of type "person", which "who" would name by its own word
THINGS = {
    "oona": ("potter", "Oona Petrel"),
    "bram": ("labourer", "Bram Sallow"),
    "vase": ("vase", "the Heron Vase"),
    "jug": ("jug", "the Tall Jug"),
    "kiln": ("kiln", "the Brick Kiln"),
    "yard": ("yard", "the Clay Yard"),
}
FACTS = [
    ("vase", "made_in", "kiln"),
    ("vase", "crafted_by", "oona"),  # "made" names it less than made_in
    ("jug", "made_in", "kiln"),
    ("jug", "fired_in", "kiln"),
    ("jug", "kept_in", "yard"),
    ("kiln", "stands_in", "yard"),
    ("bram", "works_in", "yard"),
]


@pytest.fixture
def pottery() -> Iterator[Memory]:
    with open_world("pottery", PEOPLE, THINGS, FACTS) as mem:
        yield mem


def test_who_prefers_the_walk_that_reaches_a_person(pottery: Memory) -> None:
    answers = pottery.ask("who made the Heron Vase?", semantic=False)
    assert answers and answers[0].entity.id == "oona"


def test_who_answered_by_a_thing_only_is_less_sure(pottery: Memory) -> None:
    # no walk from the jug reaches anybody: the kiln is answered, far less surely than
    # "where" of the same walk
    who = pottery.ask("who made the Tall Jug?", semantic=False)
    where = pottery.ask("where was the Tall Jug made?", semantic=False)
    assert where and where[0].entity.id == "kiln"
    assert who.abstained or who.confidence <= 0.5 * where.confidence


def test_kinds_read_from_wordnet() -> None:
    assert asked_kind_fit("who", "potter") == 1.0
    assert asked_kind_fit("who", "kiln") == 0.0
    assert asked_kind_fit("who", "guild") == pytest.approx(0.8)  # a group of people
    assert asked_kind_fit("where", "workshop") == 1.0
    assert asked_kind_fit("where", "Head_Potter") == 0.0
    assert asked_kind_fit("which", "kiln") is None
    assert asked_kind_fit("who", "zqxv") is None  # a word WordNet does not know
    assert asked_kind_fit("when", "concept") is None  # an abstraction may hold anything
    assert kind_word("where") == "where" and kind_word("which") == ""


def test_kinds_of_type_names_as_users_write_them() -> None:
    # a plural by the noun rules ("games" is no "gam"), a CamelCase name's last word, and
    # the game word WordNet has only as a group ("NPC": a council)
    assert asked_kind_fit("who", "games") == asked_kind_fit("who", "game")
    assert asked_kind_fit("who", "wines") is None  # wine: a drink, an abstraction here
    assert asked_kind_fit("who", "HeadPotter") == 1.0
    assert asked_kind_fit("where", "SportsTeam") == asked_kind_fit("where", "team")
    assert asked_kind_fit("who", "npc") == 1.0 and kinds.names_asked_kind("who", "NPC")
    # WordNet's top nouns take the kind of most of what they name: a group is a group, an
    # event an event; "entity" names too many kinds to be judged
    assert asked_kind_fit("who", "group") == pytest.approx(0.8)
    assert asked_kind_fit("when", "event") == 1.0
    assert asked_kind_fit("who", "entity") is None


def test_who_is_the_topics_noun_asks_for_that_kind() -> None:
    # "suppliers" is the supplier type's own word: the cook the chef fact reaches is no
    # supplier, though "who" fits a cook better
    things = {
        "pear": ("restaurant", "the Gilded Pear"),
        "ann": ("cook", "Ann Oak"),
        "fish": ("supplier", "Fish Co"),
    }
    facts = [("pear", "chef", "ann"), ("pear", "buys_from", "fish")]
    with open_world("pear", {}, things, facts) as mem:
        answers = mem.ask("who are the Gilded Pear's suppliers?", semantic=False)
        assert [a.entity.id for a in answers] == ["fish"]
        assert mem.ask("who is the Gilded Pear's chef?", semantic=False)[0].entity.id == "ann"


def test_when_answered_by_no_time_nor_event_abstains() -> None:
    # the description says "date", so the walk's last type names a time; a kiln is none
    descriptions = {"fired_in": "the kiln a pot was fired in, and the date of the firing"}
    with open_world("kiln", {}, THINGS, FACTS, descriptions) as mem:
        answers = mem.ask("when was the Tall Jug fired?", semantic=False)
        assert answers.abstained and "time" in answers.reason


def test_the_topics_noun_deeper_in_the_question_asks_for_no_kind() -> None:
    # "cook" is the cook type's own word, but the question asks who is deputy to one
    things = {
        "pear": ("restaurant", "the Gilded Pear"),
        "ann": ("cook", "Ann Oak"),
        "ben": ("waiter", "Ben Reed"),
    }
    facts = [("pear", "cook", "ann"), ("ben", "deputy_of", "ann")]
    with open_world("pear", {}, things, facts) as mem:
        answers = mem.ask("who is deputy to the Gilded Pear's cook?", semantic=False)
        assert answers and answers[0].entity.id == "ben"


def test_the_kinds_file_is_in_its_generators_format() -> None:
    raw = resources.files("graphmem.retrieval.graphqa").joinpath(kinds.DATA).read_bytes()
    assert len(raw) < 500_000
    lines = gzip.decompress(raw).decode("utf-8").splitlines()
    assert lines[0].startswith(kinds.FORMAT)
    letters = set(kinds.LETTERS.values()) | {"x"}
    for line in lines[1:]:
        lemma, senses = line.split("\t")
        assert lemma.isalpha() and 0 < len(senses) <= kinds.SENSES and set(senses) <= letters


def test_a_noun_asked_with_that_names_no_type_is_read_as_the_kind_of_the_end() -> None:
    # "surveyor" is no entity type, but WordNet's first sense of it is a person, as the
    # walk's end ``person`` is: it explains the word asked with, so the one word left
    # ("seaworthy") no longer outweighs the question. A hospital (an artifact, as ships
    # are) and a region (a place) are not read so.
    people = {"beatrix": "Beatrix Lowe", "tom": "Tom Hale"}
    things = {
        "halcyon": ("ship", "Halcyon"),
        "kestrel": ("ship", "Kestrel"),
        "bristol": ("port", "Bristol"),
    }
    facts = [
        ("halcyon", "passed_by", "beatrix"),
        ("kestrel", "passed_by", "tom"),
        ("halcyon", "registered_at", "bristol"),
    ]
    assert kinds.first_kind("surveyor") == "p" and kinds.first_kind("hospital") == "a"
    with open_world("yard", people, things, facts) as mem:
        answers = mem.ask("Which surveyor passed the Halcyon as seaworthy?", semantic=False)
        assert [a.entity.id for a in answers] == ["beatrix"]
        assert "'seaworthy'" in answers.reason and not answers.abstained
        for other in ("hospital", "region"):
            refused = mem.ask(f"Which {other} passed the Halcyon as seaworthy?", semantic=False)
            assert refused.abstained and not list(refused), other
