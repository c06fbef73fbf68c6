"""Graph questions: how a question attaches its words, read on a small made-up bakery.

Relations named by a noun for their target (``boss``, ``mentor``, ``parent``, ``owner``:
``X -boss-> Y`` says Y is X's boss), "which *kind*" questions whose best walk reaches
another kind, and no-answer questions a walk would answer through another entity (a step
no word asks for) or a noun of the topic no relation explains. None of these words or
names is in the evaluation worlds.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from graphmem import Memory
from tests.small_worlds import SynonymEmbedder, open_world, top

PEOPLE = {
    "ilse": "Ilse Brandt",
    "jory": "Jory Pell",
    "kasimir": "Kasimir Voll",
    "lotte": "Lotte Hain",
    "mads": "Mads Orr",
    "nell": "Nell Quist",
}
THINGS = {
    "sunrise": ("bakery", "Sunrise Bakery"),
    "stone_oven": ("oven", "the Stone Oven"),
    "rye": ("loaf", "the Rye Loaf"),
    "seed": ("loaf", "the Seed Loaf"),
    "gold_crust": ("prize", "the Gold Crust"),
    "whisk": ("tool", "the Copper Whisk"),
    "kitchen": ("room", "the Back Kitchen"),
}
FACTS = [
    ("jory", "boss", "ilse"),  # Ilse is Jory's boss
    ("kasimir", "boss", "ilse"),
    ("ilse", "boss", "lotte"),
    ("mads", "mentor", "jory"),  # Jory is Mads's mentor
    ("mads", "parent", "lotte"),  # Lotte is Mads's parent
    ("ilse", "married_to", "nell"),
    ("sunrise", "owner", "lotte"),
    ("stone_oven", "belongs_to", "sunrise"),
    ("rye", "baked_in", "stone_oven"),
    ("seed", "baked_in", "stone_oven"),
    ("seed", "won", "gold_crust"),
    ("kasimir", "carries", "whisk"),
    ("kasimir", "located_in", "kitchen"),
    ("nell", "apprentice_of", "mads"),
    ("kasimir", "apprentice_of", "nell"),
]


@pytest.fixture
def bakery() -> Iterator[Memory]:
    with open_world("bakery", PEOPLE, THINGS, FACTS) as mem:
        yield mem


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Who is Jory Pell's boss?", ["ilse"]),
        ("Who is the boss of Ilse Brandt?", ["lotte"]),
        ("Whose boss is Ilse Brandt?", ["jory", "kasimir"]),
        ("Who is Ilse Brandt the boss of?", ["jory", "kasimir"]),
        ("Who does Ilse Brandt boss?", ["jory", "kasimir"]),
        ("Who is Mads Orr's mentor?", ["jory"]),
        ("Who mentors Mads Orr?", ["jory"]),
        ("Who does Jory Pell mentor?", ["mads"]),
        ("Who is Mads Orr's mother?", ["lotte"]),
        ("Who are Lotte Hain's children?", ["mads"]),
        # "is apprenticed to" says a state of Nell, no passive: Nell -apprentice_of-> Mads
        ("Name the one Nell Quist is apprenticed to.", ["mads"]),
    ],
)
def test_a_relation_named_by_a_noun_for_its_target_walks_the_way_the_noun_attaches(
    bakery: Memory, question: str, expected: list[str]
) -> None:
    assert top(bakery, question) == expected


def test_which_kind_tries_the_next_walk_when_the_best_reaches_another_kind(
    bakery: Memory,
) -> None:
    # "owns" names ``owner`` (bakery -> person) better than ``belongs_to``: the best walk
    # ends at Lotte, a person; the next one at the bakery asked for
    answers = bakery.ask("Which bakery owns the oven where the Rye Loaf is baked?", semantic=False)
    assert not answers.abstained, answers.reason
    assert answers[0].entity.id == "sunrise"


def test_a_relation_reached_only_through_another_entity_abstains(bakery: Memory) -> None:
    # Kasimir has no marriage; his boss Ilse has one: "who is X married to?" is not asked
    # of Ilse, and no word of the question asks for the step to her
    answers = bakery.ask("Who is Kasimir Voll married to?", semantic=False)
    assert answers.abstained and not answers
    assert [a.entity.id for a in bakery.ask("Who is Ilse Brandt married to?", semantic=False)] == [
        "nell"
    ]


def test_a_step_through_a_verb_of_holding_needs_no_word(bakery: Memory) -> None:
    # a thing is where its holder is: no word asks for ``carries``, and it is walked
    assert top(bakery, "Which room is the Copper Whisk in?") == ["kitchen"]


def test_a_walk_there_and_back_no_word_asks_for_abstains(bakery: Memory) -> None:
    # the Rye Loaf won nothing; the Seed Loaf, baked in the same oven, did
    answers = bakery.ask("Which prize did the Rye Loaf win?", semantic=False)
    assert answers.abstained and not answers
    assert top(bakery, "Which prize did the Seed Loaf win?") == ["gold_crust"]


def test_a_noun_of_the_topic_no_relation_explains_abstains() -> None:
    # "agent" reads by meaning as a kind of entity (a loaf, here), never as a relation:
    # "Jory's agent" is no question about his boss, his only fact
    synonyms = SynonymEmbedder(("agent", "loaf"))
    with open_world("bakery", PEOPLE, THINGS, FACTS, embedder=synonyms) as mem:
        answers = mem.ask("Who is Jory Pell's agent?", semantic=True)
        assert answers.abstained and not answers
        assert "agent" in answers.reason
        assert [a.entity.id for a in mem.ask("Who is Jory Pell's boss?", semantic=True)] == ["ilse"]
