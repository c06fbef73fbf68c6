"""The nouns English has for the far end of common relations: a small built-in lexicon.

A question names a relation by its verb ("who does X *report* to?") or by the noun of the
one at the far end ("who is X's *boss*?", "who are Y's *children*?"). The verb is in the
type's name; the noun is in no name, and only a description a user wrote may give it. So
that a world described by its type names alone answers both wordings, each light stem of
a name word here brings the nouns that name the *target* of such a fact, seen from its
source: the boss one reports to, the master an apprentice learns from, the child of a
parent. They count as a description's words do (:mod:`.vocabulary`): words of the
type's targets, so "X's boss" walks from X as the source of ``reports_to``; but they match
a question's words as nouns only (:func:`noun_key`), never by embedding.

Only relations between people and roles every kind of world has (work, teaching,
family, marriage, friendship, ownership); English only, as the rest of graph questions.
A description, when given, is read as well; nothing here is removed by it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from functools import lru_cache

__all__ = ["TARGET_NOUNS", "noun_key", "target_nouns"]

TARGET_NOUNS: Mapping[str, tuple[str, ...]] = {
    # work
    "reports": ("boss", "manager", "superior", "supervisor"),
    "supervises": ("subordinate", "staff"),
    "manages": ("subordinate", "staff"),
    "employs": ("employee", "staff", "worker"),
    "hires": ("employee",),
    "serves": ("master", "lord", "employer"),
    # teaching
    "apprentice": ("master", "teacher", "mentor"),
    "mentors": ("mentee", "trainee", "protege", "apprentice"),
    "trains": ("trainee", "student", "apprentice"),
    "teaches": ("student", "pupil"),
    "tutors": ("student", "pupil"),
    "studies": ("teacher", "tutor"),
    "visits": ("visitor", "guest"),
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
    "rivals": ("rival", "enemy"),
    # ownership
    "owns": ("property", "possession", "belonging"),
}
"""A word of a type's name (any form: :func:`~.vocabulary.light_stem` compares them) ->
the nouns naming the target of its facts, seen from the source."""


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
