"""Words no type's name explains, read from the kinds of entity they stand between.

Part of :mod:`graphmem.retrieval.graphqa`. A question's words of a relation may be words
no type's name, WordNet nor the embedder relate to the type that holds the fact ("which
dishes did Lucia *invent*?" of ``created_by``; "which peak is the team *going for*?" of
``targets``). What the question names around such a word still says which facts it asks
about: the kinds of entity on either side of it (a kind named by an entity type's own
word, "which *dishes*"; the entity a name links to; what "who" / "where" ask for). When
exactly one relationship type of the graph joins those two kinds, and no other word
between them names a relation, the word is read as that type's, with
:data:`JOINED` strength: a step of it explains the word as a weak word of its own would.

Only words that say little of their own are so read: a light verb or particle of a phrase
("going for"), a noun, or a verb of a "which" / "what" question, between kinds that are
not both people. A verb asked with "who" ("who *stole* the cloak?"), any word between two
kinds of person ("which knight *betrayed* Lady Mirren?", "Odile's *husband*"), a noun
naming a type of other kinds ("Lyra's *rival*") and a word WordNet does not know stay
unexplained: the graph may not hold what they ask.
"""

from __future__ import annotations

from collections.abc import Mapping, MutableMapping, Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.retrieval.graphqa.direction import _Token
from graphmem.retrieval.graphqa.kinds import _senses, asked_kind_fit, kind_word
from graphmem.retrieval.graphqa.relwords import _table, lemmas
from graphmem.retrieval.graphqa.tenant import _Vocabulary
from graphmem.retrieval.graphqa.vocabulary import (
    _LIGHT_VERBS,
    _PHRASE_LIGHT,
    _asks_no_relation,
    question_word_at,
)

__all__ = ["JOINED", "join_by_kinds"]

JOINED = 0.6
"""The match a word read from the kinds around it has with the one type joining them."""
# How well an entity type must fit what "who" / "where" ask for to be a kind asked.
_ASKED_FIT = 0.8
# Words after which a word is a noun ("the *books*", "Reyes's *books*").
_NOUN_BEFORE = frozenset(("the", "a", "an", "his", "her", "its", "their", "my", "your", "our", "s"))


@dataclass(frozen=True)
class _Kind:
    """A kind of entity the question names, where: its first and last position."""

    first: int
    last: int
    types: frozenset[str]


def join_by_kinds(
    tokens: Sequence[_Token],
    names: Sequence[tuple[Sequence[int], frozenset[str]]],
    matches: MutableMapping[str, np.ndarray],
    vocab: _Vocabulary,
    floor: float,
) -> None:
    """Give each word no type explains the one type joining the kinds around it.

    Args:
        tokens: The question's words.
        names: Each mention of an entity: its word positions and its entities' types.
        matches: Each word's match per relationship type then per entity type
            (:meth:`~.matching.Matcher.match`); updated in place.
        vocab: The vocabulary the matches are of.
        floor: The match from which a word is explained by a type.
    """
    n_rel = len(vocab.relations.names)
    if n_rel == 0:
        return
    kinds, content, which = kinds_named(tokens, names, matches, vocab)
    words = [t.text for t in tokens]
    # "which dishes did Lucia *invent*?" names the kind it asks for: a verb of its own is
    # read from the kinds; "who *stole* the cloak?" asks what the graph may not hold, as
    # does a verb between two kinds of person ("which knight *betrayed* Lady Mirren?"):
    # people do many things to each other that no fact holds
    people = frozenset(
        t for t in vocab.types.names if (asked_kind_fit("who", t) or 0.0) >= _ASKED_FIT
    )
    if not content or len(kinds) < 2:
        return
    # each word between two kinds: explained by a type joining them, or by none of those
    # (only by types of other kinds: "which routes *lead* up Mount Ilvar?" of ``leads``)
    explaining: set[int] = set()
    loose: dict[int, tuple[tuple[int, int], set[str]]] = {}  # that the kinds around may
    unread: set[int] = set()  # and those that say a relation of their own
    for i in content:
        pair = _around(kinds, i)
        if pair is None:
            continue
        left, right, span = pair
        joining = _joining(vocab, left.types, right.types)
        match = matches[words[i]][:n_rel]
        said = {vocab.relations.names[r] for r in np.flatnonzero(match >= floor).tolist()}
        if said & joining:
            explaining.add(i)
        elif said and i > 0 and words[i - 1] in _NOUN_BEFORE:
            # a noun naming a relation of other kinds ("Lyra's *rival*" of guilds'
            # ``rivals``) asks what the graph does not hold of these
            unread.add(i)
        elif not (left.types <= people and right.types <= people) and (which or _vague(words, i)):
            # between two kinds of person no word is read so, not even a noun: people
            # have husbands, bosses and mothers no fact of the graph may hold
            loose[i] = (span, joining)
        elif not said:
            unread.add(i)
    for i, (span, joining) in loose.items():
        if len(joining) != 1:
            continue
        if any(span[0] < j < span[1] and j != i for j in (*explaining, *unread)):
            # another word between them names the relation ("the *deputy* leader"), or
            # one the graph may not hold ("who *poisoned* the old king?")
            continue
        column = vocab.relations.index[next(iter(joining))]
        row = matches[words[i]].copy()
        row[column] = max(row[column], JOINED)
        matches[words[i]] = row


def kinds_named(
    tokens: Sequence[_Token],
    names: Sequence[tuple[Sequence[int], frozenset[str]]],
    matches: Mapping[str, np.ndarray],
    vocab: _Vocabulary,
) -> tuple[list[_Kind], list[int], bool]:
    """The kinds of entity the question names, its words of a relation, and "which".

    The kinds (in the order they are said): each entity's mention, what "who" / "where"
    ask for, and each entity type's own word ("which *dishes*"); the other words that
    may say a relation (past the small and idle words, the names and the light verbs);
    and whether the question asks with "which" / "what".
    """
    n_rel = len(vocab.relations.names)
    named = {i for positions, _types in names for i in positions}
    kinds = [
        _Kind(min(positions), max(positions), types) for positions, types in names if positions
    ]
    words = [t.text for t in tokens]
    asking = question_word_at(words, named)
    if asking is not None and (asker := kind_word(words[asking])):
        asked = frozenset(
            t for t in vocab.types.names if (asked_kind_fit(asker, t) or 0.0) >= _ASKED_FIT
        )
        if asked:
            kinds.append(_Kind(asking, asking, asked))
    which = asking is not None and words[asking] in ("which", "what")
    content: list[int] = []
    for i, word in enumerate(words):
        if i in named or _asks_no_relation(word):
            continue
        match = matches[word]
        own = frozenset(vocab.types.names[t] for t in np.flatnonzero(match[n_rel:] >= 1.0).tolist())
        if own:  # an entity type's own word: a kind named
            kinds.append(_Kind(i, i, own))
        elif word not in _LIGHT_VERBS:
            content.append(i)
    kinds.sort(key=lambda k: (k.first, k.last))
    return kinds, content, which


def _vague(words: Sequence[str], at: int) -> bool:
    """Whether the word at ``at`` says too little to name a relation of its own.

    A light verb or particle of a phrase ("*going for*", "*came up* with"), a word WordNet
    knows as a noun and no verb ("*money*"), or one said as a noun ("Dr Reyes's *books*").
    """
    word = words[at]
    if word in _PHRASE_LIGHT or at > 0 and words[at - 1] in _NOUN_BEFORE:
        return True
    if _senses(word) is None:
        return False  # a word WordNet does not know ("who *zorbled* the book?") is unread
    entries, _forms = _table()
    return (word, "v") not in entries and not any(pos == "v" for _w, pos in lemmas(word))


def _around(kinds: Sequence[_Kind], at: int) -> tuple[_Kind, _Kind, tuple[int, int]] | None:
    """The two kinds a word at ``at`` stands between, and the span it reads them over.

    The nearest kind on each side; a word at the end of the question ("which dishes
    did Lucia *invent*?") stands after the two nearest before it, one at the start after
    none: the span runs to the question's end (or from its start).
    """
    before = [k for k in kinds if k.last < at]
    after = [k for k in kinds if k.first > at]
    if before and after:
        return before[-1], after[0], (before[-1].last, after[0].first)
    if len(before) >= 2:
        return before[-2], before[-1], (before[-2].last, 1 << 30)
    if len(after) >= 2:
        return after[0], after[1], (-1, after[1].first)
    return None


def _joining(vocab: _Vocabulary, one: frozenset[str], other: frozenset[str]) -> set[str]:
    """The relationship types with facts from a type of ``one`` to ``other`` or back."""
    found: set[str] = set()
    table: Mapping[tuple[str, str], Mapping[str, int]] = vocab.out
    for (source, relation), targets in table.items():
        for target, facts in targets.items():
            if facts and (
                (source in one and target in other) or (source in other and target in one)
            ):
                found.add(relation)
    return found
