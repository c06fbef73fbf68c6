"""What kind of thing an entity type names, and how well it fits what a question word asks.

Part of :mod:`graphmem.retrieval.graphqa`. "Who ...?" asks for a person, or a group of
people ("who sponsors the club?": a company); "where ...?" for a place, a building or a
natural object; "when ...?" for a time or an event. The kind of an entity type's name
(its last word: ``head_keeper`` is a keeper) is read from WordNet 3.0's lexicographer
files, generated once into ``nounkinds.tsv.gz`` by :mod:`graphmem.tools.nounkinds`: a
sense of each kind counts by its rank (the first sense most). A word WordNet does not
know is judged by nothing: :func:`asked_kind_fit` is None.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache, lru_cache

from graphmem.retrieval.graphqa.relwords import _NOUN_RULES, data_lines
from graphmem.retrieval.graphqa.vocabulary import _type_words

__all__ = [
    "FORMAT",
    "compound_head",
    "first_kind",
    "LETTERS",
    "SENSES",
    "asked_kind_fit",
    "kind_word",
    "names_asked_kind",
    "noun_fits",
]

FORMAT = "# graphmem nounkinds 1"
"""The first words of the header line; a reader refuses any other."""
DATA = "nounkinds.tsv.gz"
LETTERS: Mapping[int, str] = {
    18: "p",
    14: "g",
    15: "l",
    6: "a",
    17: "o",
    5: "n",
    28: "t",
    11: "e",
}
"""WordNet's lexicographer file numbers of the kinds kept, and their letters."""
_SENSE_FACTOR = (1.0, 0.8, 0.6, 0.5)
SENSES = len(_SENSE_FACTOR)
"""How many senses of a noun are kept, most frequent first (each counts by its rank)."""
# Words of games and apps WordNet has in another sense only ("NPC": the National
# Productivity Council, a group): a non-player character is a person.
_OWN_WORDS: Mapping[str, str] = {"npc": "p", "npcs": "p"}
# How well each kind answers what a question word asks for: "who" a person, or a group
# of people, or an animal of a zoo ("who shares Koko's enclosure?"); "where" a place.
_FITS: Mapping[str, Mapping[str, float]] = {
    "who": {"p": 1.0, "g": 0.8, "n": 0.8},
    "whom": {"p": 1.0, "g": 0.8, "n": 0.8},
    "whose": {"p": 1.0, "g": 0.8, "n": 0.8},
    "where": {"l": 1.0, "a": 1.0, "o": 1.0, "g": 0.6},
    "when": {"t": 1.0, "e": 1.0},
}


@cache
def _table() -> dict[str, str]:
    table: dict[str, str] = {}
    for line in data_lines(DATA, FORMAT, "graphmem.tools.nounkinds"):
        lemma, letters = line.split("\t")
        table[lemma] = letters
    return table


def _senses(word: str) -> str | None:
    """The kind letters of ``word``'s senses (a plural read as its singular); None: unknown."""
    if word in _OWN_WORDS:
        return _OWN_WORDS[word]
    table = _table()
    forms = [word] + [
        word[: len(word) - len(suffix)] + replacement
        for suffix, replacement in _NOUN_RULES
        if word.endswith(suffix) and len(word) > len(suffix) + 1
    ]
    return next((table[form] for form in forms if form in table), None)


@lru_cache(maxsize=4096)
def compound_head(word: str) -> str | None:
    """The noun a closed compound ends with: "racecourse" is a course, "storeroom" a room.

    Both its parts are nouns WordNet knows, and the head is of the compound's kind.

    >>> compound_head("racecourse"), compound_head("storeroom"), compound_head("artwork")
    ('course', 'room', None)
    """
    if len(word) < 7 or not word.isalpha() or _senses(word) is None:
        return None
    for cut in range(3, len(word) - 3):
        head, mod = word[cut:], word[:cut]
        if _senses(mod) is not None and _senses(head) is not None and noun_fits(head, word):
            return head
    return None


def first_kind(word: str) -> str | None:
    """The kind letter (:data:`LETTERS`) of a noun's first sense, or of a type's last word.

    None when WordNet does not know it; "x" when its first sense is of no kind kept.

    >>> first_kind("surveyors"), first_kind("head_keeper"), first_kind("hospital")
    ('p', 'p', 'a')
    """
    last = _last_word(word)
    said = _senses(last) if last is not None else None
    return said[0] if said else None


def _last_word(entity_type: str) -> str | None:
    """The last word of a type's name (``head_keeper``, ``HeadKeeper``: keeper), if a word."""
    words = _type_words(entity_type)
    return words[-1] if words and words[-1].isalpha() else None


def kind_word(question_word: str) -> str:
    """The question word when it asks for a kind ("who", "where"), else "".

    Given the question's first question word
    (:func:`~graphmem.retrieval.graphqa.vocabulary.question_word_at`).

    >>> kind_word("who"), kind_word("which")
    ('who', '')
    """
    return question_word if question_word in _FITS else ""


@lru_cache(maxsize=4096)
def asked_kind_fit(question_word: str, entity_type: str) -> float | None:
    """How well ``entity_type`` is what ``question_word`` asks for (0..1).

    None when the question word asks for no kind ("what", "which"), or WordNet does not
    know the type's last word (``xq7``) or knows it only as an abstraction, none of the
    kinds of :data:`LETTERS` (``concept``). A word WordNet knows only as other kinds fits 0.

    >>> asked_kind_fit("who", "keeper"), asked_kind_fit("who", "enclosure")
    (1.0, 0.0)
    >>> asked_kind_fit("where", "harbour"), asked_kind_fit("which", "harbour") is None
    (1.0, True)
    """
    fits = _FITS.get(question_word)
    if fits is None:
        return None
    last = _last_word(entity_type)
    if last is None:
        return None
    letters = _senses(last)
    if letters is None or set(letters) == {"x"}:
        # unknown, or only an abstraction ("concept", "movie", "story"): a type of such a
        # name may hold anything (MetaQA's ``concept`` holds people and years)
        return None
    return max((fits.get(k, 0.0) * _SENSE_FACTOR[i] for i, k in enumerate(letters)), default=0.0)


# The one kind each question word asks for by name: "who" a person, "where" a location,
# "when" a time (a group, an artifact or an event fits the walk, not the plan's focus).
_NAMED_KIND: Mapping[str, str] = {"who": "p", "whom": "p", "whose": "p", "where": "l", "when": "t"}


@lru_cache(maxsize=4096)
def names_asked_kind(question_word: str, entity_type: str) -> bool:
    """Whether ``entity_type`` is first of all what ``question_word`` asks for by name.

    WordNet's first sense of the type's last word: a person for "who", a location for
    "where", a time for "when".

    >>> names_asked_kind("who", "worker"), names_asked_kind("where", "ship")
    (True, False)
    """
    kind = _NAMED_KIND.get(question_word)
    last = _last_word(entity_type)
    if kind is None or last is None:
        return False
    letters = _senses(last)
    return letters is not None and letters[:1] == kind


# Kinds one noun may name another by: people and their groups ("the *supplier*" of a
# company), animals with them; places, buildings and things, and the groups that are
# places too ("the *school*"); times and events.
_FAMILIES = ("pgn", "laog", "te")


def _families(letters: str) -> frozenset[int]:
    return frozenset(i for i, family in enumerate(_FAMILIES) for k in letters if k in family)


@lru_cache(maxsize=4096)
def noun_fits(noun: str, entity_type: str) -> bool | None:
    """Whether an entity of ``entity_type`` may be what ``noun`` names, by their kinds.

    WordNet's kinds of the noun's senses and of the type's last word's: False when they
    share no family of kinds (a person and a fruit: "which *cooper* ..." answered by a
    grape), None when either is unknown or only an abstraction.

    >>> noun_fits("cooper", "grape"), noun_fits("supplier", "company"), noun_fits("xq7", "grape")
    (False, True, None)
    """
    last = _last_word(entity_type)
    if last is None:
        return None
    said, kind = _senses(noun), _senses(last)
    if said is None or kind is None:
        return None
    families, kinds = _families(said), _families(kind)
    if not families or not kinds:
        return None
    return bool(families & kinds)
