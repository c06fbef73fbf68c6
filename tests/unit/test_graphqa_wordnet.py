"""Graph questions read relation words from WordNet: words no type name nor hand list has.

A small made-up world (a market garden); its question words reach the type names only
through ``graphmem/retrieval/graphqa/relwords.tsv.gz`` (synonyms, derived nouns by voice).
"""

from __future__ import annotations

import gzip
from collections.abc import Iterator
from importlib import resources

import pytest

from graphmem import Memory
from graphmem.retrieval.graphqa import lexicon, relwords
from graphmem.retrieval.graphqa.vocabulary import light_stem
from graphmem.tools.relwords import FORMAT, parse_line
from tests.small_worlds import open_world, top

PEOPLE = {"ada": "Ada Quill", "bo": "Bodil Reyes", "cy": "Cyrus Marten", "dee": "Delia Holt"}
THINGS = {
    "leeks": ("crop", "the Winter Leeks"),
    "kale": ("crop", "the Curly Kale"),
    "stall": ("shop", "the Corner Stall"),
}
FACTS = [
    ("ada", "grows", "leeks"),
    ("bo", "grows", "kale"),
    ("ada", "sells", "kale"),
    ("cy", "employed_by", "ada"),
    ("dee", "employed_by", "bo"),
    ("bo", "sues", "cy"),
    ("cy", "runs", "stall"),
]


@pytest.fixture(scope="module")
def garden() -> Iterator[Memory]:
    with open_world("garden", PEOPLE, THINGS, FACTS) as mem:
        yield mem


def _hand_words() -> set[str]:
    words = {light_stem(w) for family in lexicon.RELATION_VERBS for w in family}
    for table in (lexicon.TARGET_NOUNS, lexicon.SOURCE_NOUNS):
        words |= {light_stem(w) for nouns in table.values() for w in nouns}
    return words


def test_a_wordnet_verb_plans_its_type(garden: Memory) -> None:
    # "farm" is in no type name and no hand family: WordNet relates it to "grow"
    assert light_stem("farm") not in _hand_words()
    assert top(garden, "What does Ada farm?") == ["leeks"]
    assert top(garden, "Who farms the Curly Kale?") == ["bo"]


def test_a_derived_noun_keeps_the_direction_of_a_passive_type(garden: Memory) -> None:
    # employed_by: the employee is its source, the employer its target
    assert light_stem("employee") not in _hand_words()
    assert top(garden, "Who is Ada's employee?") == ["cy"]
    assert top(garden, "Who is Cyrus's employer?") == ["ada"]


def test_a_wordnet_synonym_of_a_verb_plans_its_type(garden: Memory) -> None:
    assert light_stem("litigate") not in _hand_words()
    assert top(garden, "Who did Bodil litigate against?") == ["cy"]


def test_derived_evidence_counts_less_than_the_name_itself() -> None:
    found = lexicon.derived_words(["grows"])
    assert 0 < found.verbs["farm"] < 1
    assert "grow" not in found.verbs  # the name's own word is no derived word


def test_the_data_file_is_in_its_generators_format() -> None:
    raw = resources.files("graphmem.retrieval.graphqa").joinpath(relwords.DATA).read_bytes()
    assert len(raw) < 1_500_000
    lines = gzip.decompress(raw).decode("utf-8").splitlines()
    assert lines[0].startswith(f"# {FORMAT}")
    heads = set()
    for line in lines:
        if line.startswith("#"):
            continue
        head, pos, entries = parse_line(line)
        assert pos in ("v", "n", "x", "g", "h") and head == head.lower() and entries
        for word, strength, role in entries:
            # an "h" line: the nouns its head is a kind of ("backer": sponsor)
            roles = ("n",) if pos == "h" else ("s", "a", "p", "v")
            assert 0 < strength <= 100 and role in roles and word
        heads.add((head, pos))
    assert ("tend", "v") in heads and ("owner", "n") in heads
    assert ("in_charge_of", "g") in heads  # a short definition: direct, head, lead
    assert ("backer", "h") in heads
    assert resources.files("graphmem.retrieval.graphqa").joinpath("WORDNET-LICENSE").is_file()


def test_an_irregular_form_is_read_as_its_verb_but_born_is_not_bear() -> None:
    # "sworn" and "swore" are forms of "swear" (WordNet's list of irregular forms, past
    # the hand list); "born" is read as itself, not as a form of "bear" (to carry), which
    # the family of ``wields`` holds
    assert light_stem("sworn") == light_stem("swore") == light_stem("swears")
    assert light_stem("born") != light_stem("bear")
    people = {"gr": "Grell Mordane", "ves": "Vesper Nakamura", "ox": "Oskar Lind"}
    things = {"axe": ("weapon", "the Houndtooth Axe")}
    facts = [("gr", "swore_vendetta_on", "ves"), ("ox", "wields", "axe")]
    with open_world("vendetta", people, things, facts) as mem:
        assert top(mem, "Who has sworn a vendetta against Vesper?") == ["gr"]
        assert top(mem, "What does Oskar bear?") == ["axe"]
        born = mem.ask("Where was Oskar Lind born?", semantic=False)
        assert born.abstained and not list(born)


def test_a_later_sense_of_a_verb_of_many_senses_keeps_its_synonyms() -> None:
    # "hold" has more than sixty words: its sense "carry" (strength .45) was cut before
    words = {w: s for w, s, role in relwords.related("holds") if role == "s"}
    assert words["carry"] >= 0.45
    assert lexicon.derived_words(["holds"]).verbs["carry"] >= 0.45
    people = {"mara": "Mara Voss", "tobin": "Tobin Hale"}
    things = {
        "lantern": ("tool", "the Brass Lantern"),
        "rope": ("tool", "the Tarred Rope"),
        "hut": ("shelter", "the Ridge Hut"),
    }
    facts = [("mara", "holds", "lantern"), ("tobin", "holds", "rope"), ("tobin", "built", "hut")]
    with open_world("ridge", people, things, facts) as mem:
        assert top(mem, "What does Mara carry?") == ["lantern"]
        assert top(mem, "Who carries the Tarred Rope?") == ["tobin"]
