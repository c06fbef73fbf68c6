"""The nouns English has for the far end of common relations: a small built-in lexicon.

A question names a relation by its verb ("who does X *report* to?") or by the noun of the
one at the far end ("who is X's *boss*?", "who are Y's *children*?"). The verb is in the
type's name; the noun is in no name, and only a description a user wrote may give it. So
that a world described by its type names alone answers both wordings, each light stem of
a name word here brings the nouns that name the *target* of such a fact, seen from its
source: the boss one reports to, the master an apprentice learns from, the child of a
parent. They count as a description's words do (:mod:`.tenant`): words of the
type's targets, so "X's boss" walks from X as the source of ``reports_to``; but they match
a question's words as nouns only (:func:`noun_key`), never by embedding.

Only relations between people and roles every kind of world has (work, teaching,
family, marriage, friendship, ownership); English only, as the rest of graph questions.
A description, when given, is read as well; nothing here is removed by it.

Beside these hand lists, :func:`derived_words` reads WordNet's relation words
(:mod:`.relwords`): synonyms, derived nouns by voice ("employee" of ``employs``) and near
hypernyms, each with its strength, counted less than a name's own words. The hand lists
keep only what WordNet lacks or gets wrong: kin, "answer to" of reports, "take to court"
of sues, the nouns of the far end ("boss" of reports_to), the verb families it splits.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from graphmem.retrieval.graphqa.relwords import related

__all__ = [
    "KIN_NOUNS",
    "CONVERSE_VERBS",
    "RELATION_VERBS",
    "SOURCE_NOUNS",
    "SPARE_SOURCE_NOUNS",
    "TARGET_NOUNS",
    "DerivedWords",
    "converse_verbs",
    "derived_words",
    "kin_steps",
    "noun_key",
    "related_verbs",
    "source_nouns",
    "target_nouns",
]

TARGET_NOUNS: Mapping[str, tuple[str, ...]] = {
    # work
    "reports": ("boss", "manager", "superior", "supervisor"),
    "supervises": ("subordinate", "staff"),
    "manages": ("subordinate", "staff"),
    "employs": ("staff", "worker"),
    "serves": ("master", "lord", "employer", "liege"),
    "obeys": ("master", "superior", "lord", "boss"),
    "works": ("employer",),
    # teaching
    "apprentice": ("master", "teacher", "mentor"),
    "mentors": ("mentee", "trainee", "protege", "apprentice"),
    "trains": ("student", "apprentice"),
    "teaches": ("student", "pupil"),
    "tutors": ("student", "pupil"),
    "studies": ("teacher", "tutor"),
    # family and marriage
    "parent": ("child", "son", "daughter", "kid"),
    "child": ("parent", "father", "mother"),
    "father": ("child", "son", "daughter"),
    "mother": ("child", "son", "daughter"),
    "son": ("parent", "father", "mother"),
    "daughter": ("parent", "father", "mother"),
    "married": ("husband", "wife", "spouse", "partner"),
    "weds": ("husband", "wife", "spouse"),
    "spouse": ("husband", "wife", "spouse", "partner"),
    "engaged": ("fiance", "fiancee", "betrothed"),
    "betrothed": ("fiance", "fiancee", "betrothed"),
    "sibling": ("brother", "sister", "sibling"),
    # friendship and enmity
    "friend": ("friend", "companion"),
    "befriended": ("friend", "companion"),
    "allied": ("ally", "friend"),
    "hates": ("enemy", "foe"),
    # love
    "affair": ("lover", "paramour", "mistress"),
    "loves": ("lover", "beloved", "sweetheart"),
    "rivals": ("rival", "enemy"),
    "feuds": ("enemy", "foe", "rival"),
    # ownership
    "owns": ("property", "possession", "belonging"),
}
"""A word of a type's name (any form: :func:`~.vocabulary.light_stem` compares them) ->
the nouns naming the target of its facts, seen from the source."""


SOURCE_NOUNS: Mapping[str, tuple[str, ...]] = {
    # family: the mother is a parent, the son a child
    "parent": ("mother", "father"),
    "child": ("son", "daughter", "kid"),
    "father": ("dad",),
    "mother": ("mum", "mom"),
    # work: one who reports to another is their subordinate; one who manages, their boss
    "reports": ("subordinate", "underling"),
    "supervises": ("boss", "superior"),
    "manages": ("boss", "superior"),
    # one who leads or runs a thing is its leader (never "boss": one's boss is the one
    # reported to, and a world has both)
    "leads": ("leader", "head"),
    "heads": ("leader", "chief"),
    "runs": ("proprietor",),
}
"""A word of a type's name -> other nouns naming the *source* of its facts, as the name's
own noun does ("the *parent* of X", "X's *mother*": from X as the target of ``parent_of``).
They are read as that noun is: for direction, one who does it (:mod:`.direction`)."""

SPARE_SOURCE_NOUNS: Mapping[str, tuple[str, ...]] = {
    "leads": ("boss",),
    "heads": ("boss",),
    "runs": ("boss",),
    "commands": ("boss",),
}
"""Source nouns a type takes only when no type of the world has them already: the boss of
a gang is the one who heads it, unless someone reports to a boss there (:data:`TARGET_NOUNS`
"reports"), whose boss "X's boss" then means."""

KIN_NOUNS = frozenset(
    ("child", "children", "kid", "kids", "son", "sons", "daughter", "daughters")
    + ("parent", "parents", "father", "fathers", "mother", "mothers")
)
"""Nouns of kin that "grand" makes two steps of ("grandchildren": the children's children)
and each "great" before it one more (:func:`kin_steps`)."""


def kin_steps(word: str) -> tuple[str, int] | None:
    """A "grand" kin noun as its kin noun and how many steps it is, else None.

    >>> kin_steps("grandchildren"), kin_steps("granddaughter"), kin_steps("grandeur")
    (('children', 2), ('daughter', 2), None)
    """
    word = word.lower()
    if word.startswith("grand") and word[5:] in KIN_NOUNS:
        return word[5:], 2
    return None


RELATION_VERBS: tuple[tuple[str, ...], ...] = (
    # making and writing
    ("write", "author", "pen", "compose"),
    ("make", "build", "create", "craft", "forge", "produce", "manufacture", "construct"),
    ("found", "establish", "start"),
    ("publish", "print", "release"),
    ("cite", "reference", "quote"),
    ("review", "referee", "assess", "evaluate", "judge"),
    # leading and governing
    ("lead", "head", "run", "direct", "manage", "chair", "command", "captain", "helm")
    + ("leader", "organize", "organise"),
    ("rule", "govern", "reign", "control", "chief"),
    ("advise", "counsel", "consult"),
    # having and keeping
    ("own", "possess", "have"),
    ("hold", "keep", "store", "contain", "house"),
    ("carry", "transport", "haul", "ship", "convey"),
    ("wield", "carry", "bear", "brandish"),
    ("wear", "don"),
    ("give", "grant", "award", "donate", "bestow"),
    ("buy", "purchase", "acquire"),
    ("steal", "rob", "take"),
    ("owe", "debt"),
    ("supply", "provide", "deliver"),
    ("fund", "finance", "sponsor", "pay", "support", "bankroll", "donate"),
    # places and movement
    ("live", "reside", "dwell", "inhabit", "stay"),
    ("locate", "situate", "lie", "sit", "base"),
    ("bound", "head", "destine", "sail", "travel", "go"),
    ("moor", "berth", "dock", "anchor"),
    ("border", "adjoin", "neighbor", "neighbour", "adjacent", "next", "beside"),
    ("connect", "link", "join"),
    ("visit", "frequent", "attend"),
    ("guard", "protect", "defend", "watch", "patrol", "escort"),
    ("spy", "watch", "observe"),
    # belonging and work
    ("belong", "member", "join", "part"),
    ("work", "serve", "labour", "labor", "employ"),
    ("enroll", "enrol", "attend", "take", "register"),
    ("teach", "lecture", "instruct", "tutor"),
    ("train", "coach", "mentor", "tutor", "school", "protege"),
    ("learn", "apprentice"),  # "who did X learn the trade under?" of ``apprenticed_to``
    ("study", "research", "investigate", "examine", "explore"),
    ("inspect", "examine", "check", "audit"),
    ("report", "answer", "obey"),  # "who does X answer to?"
    ("succeed", "replace", "relieve", "supersede", "supplant"),  # "who took over from X?"
    ("substitute", "deputise", "deputize", "relieve", "cover"),  # "who stands in for X?"
    ("sue", "prosecute", "court"),  # "who did X take to court?"
    ("collaborate", "cooperate", "partner"),
    ("treat", "cure", "heal", "nurse"),
    ("tax", "levy", "collect"),
    # feelings and bonds
    ("love", "adore", "cherish"),
    ("like", "enjoy", "fancy"),
    ("hate", "despise", "loathe", "detest"),
    ("trust", "rely", "depend"),
    ("distrust", "mistrust", "suspect", "doubt"),
    ("know", "meet"),
    ("rival", "compete", "oppose"),
    ("ally", "side", "back"),
    ("admire", "respect", "revere"),
    ("worship", "revere", "venerate"),
    ("follow", "obey"),
    ("attack", "raid", "assault", "invade"),
    ("kill", "murder", "slay"),
)
"""Families of English verbs that name one relation ("who *wrote* X?" of ``authored``,
"where is the cargo *kept*?" of ``stored_in``), read by light stem. A word of a type's name
brings the rest of its families, counted a little less than the name's own words, unless
another type of the world is named by that word (``chairs`` beside ``heads``)."""


def related_verbs(words: Iterable[str], stem: Callable[[str], str]) -> list[str]:
    """The other verbs of the :data:`RELATION_VERBS` families of ``words``, by ``stem``.

    >>> related_verbs(["authored"], str.lower)
    []
    >>> related_verbs(["author"], str.lower)
    ['write', 'pen', 'compose']
    """
    table = _families(stem)
    found: dict[str, None] = {}
    for word in words:
        key = stem(word)
        for member in table.get(key, ()):
            if stem(member) != key:
                found[member] = None
    return list(found)


@lru_cache(maxsize=4)
def _families(stem: Callable[[str], str]) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for family in RELATION_VERBS:
        for word in family:
            key = stem(word)
            table[key] = tuple(dict.fromkeys((*table.get(key, ()), *family)))
    return table


CONVERSE_VERBS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("supervise", "oversee", "manage"), ("report", "answer")),
    (("employ", "hire"), ("work",)),
    (("own", "possess"), ("belong",)),
    (("contain", "include", "comprise"), ("constitute",)),
    (("teach", "tutor", "instruct", "mentor"), ("learn",)),
    (("lead", "command"), ("follow",)),
    (("give", "send", "supply", "provide", "deliver"), ("receive", "get", "obtain")),
    (("sell",), ("buy",)),
)
"""Pairs of English verb families whose facts are one fact read from its other end: "Y
*supervises* X" is "X *reports* to Y", "X *employs* Y" is "Y *works* for X", "X *owns* Y"
is "Y *belongs* to X", "X *contains* Y" is "Y *constitutes* (makes up) X", "X *teaches*
Y" is "Y *learns* from X", "X *leads* Y" is "Y *follows* X", "X *gives* (supplies) Y
to Z" is "Z *receives* (gets) Y", "X *sells* to Y" is "Y *buys* from X". WordNet has no
such pointer. A word of one family in a question names a type named by the other,
walked the other way (:func:`converse_verbs`; :mod:`.direction`)."""


def converse_verbs(words: Iterable[str], stem: Callable[[str], str]) -> list[str]:
    """The verbs of the :data:`CONVERSE_VERBS` families across from ``words``, by ``stem``.

    >>> converse_verbs(["reports", "to"], str.lower)
    []
    >>> converse_verbs(["report", "to"], str.lower)
    ['supervise', 'oversee', 'manage']
    """
    keys = {stem(w) for w in words}
    found: dict[str, None] = {}
    for one, other in CONVERSE_VERBS:
        for side, across in ((one, other), (other, one)):
            if keys & {stem(w) for w in side}:
                found.update(dict.fromkeys(w for w in across if stem(w) not in keys))
    return list(found)


_PLURALS = {
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "wives": "wife",
    "bosses": "boss",
}


def noun_key(word: str) -> str:
    """The key a noun of :data:`TARGET_NOUNS` is matched by: its singular, marked.

    Nouns match as nouns only, singular or plural, never by a verb that shares their stem
    ("who *manages* the account?" says nothing of a manager).

    >>> [noun_key(w) for w in ("managers", "manager", "manages", "children", "bosses")]
    ['=manager', '=manager', '=manage', '=child', '=boss']
    """
    word = word.lower()
    if word in _PLURALS:
        word = _PLURALS[word]
    elif word.endswith("ies") and len(word) > 4:
        word = word[:-3] + "y"
    elif word.endswith(("ses", "xes", "ches", "shes")):
        word = word[:-2]
    elif word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        word = word[:-1]
    return "=" + word


def target_nouns(words: Iterable[str], stem: Callable[[str], str]) -> list[str]:
    """The nouns of :data:`TARGET_NOUNS` for the words of a type name, compared by ``stem``.

    >>> target_nouns(["reports", "to"], str.lower)
    ['boss', 'manager', 'superior', 'supervisor']
    >>> target_nouns(["directed", "by"], str.lower)
    []
    """
    table = _by_stem(stem)
    found: dict[str, None] = {}
    for word in words:
        found.update(dict.fromkeys(table.get(stem(word), ())))
    return list(found)


@lru_cache(maxsize=4)
def _by_stem(stem: Callable[[str], str]) -> dict[str, tuple[str, ...]]:
    table: dict[str, tuple[str, ...]] = {}
    for word, nouns in TARGET_NOUNS.items():
        key = stem(word)
        table[key] = tuple(dict.fromkeys((*table.get(key, ()), *nouns)))
    return table


def source_nouns(
    words: Iterable[str],
    stem: Callable[[str], str],
    table_of: Mapping[str, tuple[str, ...]] = SOURCE_NOUNS,
) -> list[str]:
    """The nouns of :data:`SOURCE_NOUNS` for the words of a type name, compared by ``stem``.

    ``table_of``: another table of the same shape (:data:`SPARE_SOURCE_NOUNS`).

    >>> source_nouns(["parent", "of"], str.lower)
    ['mother', 'father']
    >>> source_nouns(["heads"], str.lower, SPARE_SOURCE_NOUNS)
    ['boss']
    """
    table: dict[str, tuple[str, ...]] = {}
    for word, nouns in table_of.items():
        key = stem(word)
        table[key] = tuple(dict.fromkeys((*table.get(key, ()), *nouns)))
    found: dict[str, None] = {}
    for word in words:
        found.update(dict.fromkeys(table.get(stem(word), ())))
    return list(found)


@dataclass
class DerivedWords:
    """The words WordNet gives a type name's words, each with its strength (0..1).

    Attributes:
        verbs: Verbs (and phrases) naming the same relation ("hire" of employs, "look"
            of tends, "own" of owner).
        targets: Nouns naming the target of the type's facts ("employee" of ``employs``,
            "employer" of ``employed_by``).
        sources: Nouns naming the source, as the name's own noun does ("employer" of
            ``employs``, "proprietor" of ``owner``).
    """

    verbs: dict[str, float] = field(default_factory=dict)
    targets: dict[str, float] = field(default_factory=dict)
    sources: dict[str, float] = field(default_factory=dict)


def derived_words(words: Iterable[str], passive: bool = False) -> DerivedWords:
    """The words of WordNet (:mod:`.relwords`) for the content words of a type name.

    A noun of the one who does what a verb says names the source of an active type's
    facts and the target of a passive one's (``passive``: a name ending in "by"); a noun
    of the one it is done to, the other end. A noun in a type's name keeps its role:
    its synonyms name what it names.

    >>> found = derived_words(["employs"])
    >>> found.verbs["hire"], found.targets["employee"], found.sources["employer"]
    (0.9, 0.72, 0.72)
    >>> derived_words(["employed", "by"], passive=True).targets["employer"]
    0.72
    """
    out = DerivedWords()
    for word in words:
        for other, strength, role in related(word):
            if role in ("s", "v"):
                table = out.verbs
            elif role == "n":
                table = out.sources
            else:  # a noun of the doer ("a") or of the one it is done to ("p")
                table = out.sources if (role == "a") != passive else out.targets
            table[other] = max(table.get(other, 0.0), strength)
    return out
