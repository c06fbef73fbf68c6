"""Words near a type's name by meaning, read where the kinds around them agree.

Part of :mod:`graphmem.retrieval.graphqa`. A question word matches a type's word by
embedding only above ``GraphQASettings.semantic_floor`` (all-MiniLM-L6-v2: "wrote" /
"writer"): below it, right and wrong pairs overlap ("doctor" / ``medic`` .56, "supplies"
/ ``provides`` .51, "terrorising" / ``threatens`` .57, but "stole" / ``brought`` .41). The
kinds of entity the question names around the word tell them apart: the types that join
those two kinds (:mod:`.joining`) are the only ones the word can name there. So a word no
type explains, between two kinds, is read as the one joining type whose name's words are
nearest it, when that cosine is at least :data:`NEAR_FLOOR` and clear of every other
joining type's by :data:`NEAR_MARGIN`, and no type of other kinds is nearer: it matches
that type at :data:`NEAR`. Unlike the reading from the kinds alone, this holds for a verb
asked with "who": the word says the relation, the kinds only choose among the near ones.
Never between two kinds of person (people do many things to each other that no fact
holds), never for the noun a name is attached to (a role the graph may not hold), and
never when another word between the two kinds names a relation already.
"""

from __future__ import annotations

import weakref
from collections.abc import MutableMapping, Sequence

import numpy as np

from graphmem.retrieval.graphqa.direction import _attached_noun, _Token
from graphmem.retrieval.graphqa.joining import _around, _joining, kinds_named
from graphmem.retrieval.graphqa.kinds import names_asked_kind
from graphmem.retrieval.graphqa.tenant import _Vocabulary, _WordVectors
from graphmem.retrieval.graphqa.vocabulary import light_stem

__all__ = ["NEAR", "NEAR_FLOOR", "NEAR_MARGIN", "near_by_kinds"]

NEAR = 0.5
"""The match a word near a joining type's name has with it (it explains the word)."""
NEAR_FLOOR = 0.45
"""The least cosine between the word and one of the type's name words."""
NEAR_MARGIN = 0.05
"""How much nearer than every other type joining the same kinds the word must be."""


def near_by_kinds(
    text: str,
    tokens: Sequence[_Token],
    names: Sequence[tuple[Sequence[int], frozenset[str]]],
    matches: MutableMapping[str, np.ndarray],
    vocab: _Vocabulary,
    vectors: _WordVectors | None,
    floor: float,
) -> None:
    """Give each word no type explains the joining type nearest it by meaning.

    Args:
        text: The question, normalised as ``tokens`` were read from it.
        tokens: The question's words.
        names: Each mention of an entity: its word positions and its entities' types.
        matches: Each word's match per relationship type then per entity type; updated
            in place.
        vocab: The vocabulary the matches are of.
        vectors: The planner's word embeddings (None: no embedder, nothing is read).
        floor: The match from which a word is explained by a type.
    """
    lexicon = vocab.relations
    n_rel = len(lexicon.names)
    if vectors is None or n_rel == 0 or not lexicon.semantic:
        return
    kinds, content, _which = kinds_named(tokens, names, matches, vocab)
    if not content or len(kinds) < 2:
        return
    words = [t.text for t in tokens]
    explained = {i for i in content if float(matches[words[i]][:n_rel].max()) >= floor}
    unexplained = [
        i
        for i in content
        if i not in explained and float(matches[words[i]][n_rel:].max(initial=0.0)) < floor
    ]
    if not unexplained:
        return
    # the noun a name is attached to ("the *navigator* of X", "X's *secretary*") names a
    # role the graph may not hold: a type near it by meaning is no reading of it
    attached = {
        _attached_noun(tokens, text, min(positions), max(positions))
        for positions, _types in names
        if positions
    }
    unexplained = [i for i in unexplained if i not in attached]
    if not unexplained:
        return
    said, owned, people = _name_words(vocab)
    if not said:
        return
    left = vectors.get([words[i] for i in unexplained])
    right = vectors.get([w for _c, w in said])
    cosine = left @ right.T
    near = np.where(owned[None, :, :], cosine[:, None, :], -1.0).max(axis=2)
    for row, i in enumerate(unexplained):
        pair = _around(kinds, i)
        if pair is None:
            continue
        left_kind, right_kind, span = pair
        if any(span[0] < j < span[1] for j in explained):
            continue  # another word between them names the relation
        joining = sorted(
            lexicon.index[t] for t in _joining(vocab, left_kind.types, right_kind.types)
        )
        if not joining:
            continue
        ranked = sorted((float(near[row, r]) for r in joining), reverse=True)
        best = max(joining, key=lambda r: float(near[row, r]))
        second = ranked[1] if len(ranked) > 1 else -1.0
        if ranked[0] < NEAR_FLOOR or ranked[0] - second < NEAR_MARGIN:
            continue
        if float(near[row].max()) > ranked[0]:
            continue  # nearer a type of other kinds: the word says another relation
        between = _joining(vocab, left_kind.types & people, right_kind.types & people)
        if lexicon.names[best] in between:
            continue  # people do many things to each other that no fact holds (.joining)
        match = matches[words[i]].copy()
        match[best] = max(match[best], NEAR)
        matches[words[i]] = match


# The words of each vocabulary's type names, kept while the vocabulary lives (it is rebuilt
# when the store's types change): read once, not on every question. Held by a weak
# reference, so a dropped vocabulary takes its entry with it.
_NAME_WORDS: dict[
    int, tuple[weakref.ref[_Vocabulary], list[tuple[int, str]], np.ndarray, frozenset[str]]
] = {}


def _name_words(
    vocab: _Vocabulary,
) -> tuple[list[tuple[int, str]], np.ndarray, frozenset[str]]:
    """The words of the types' names, which type owns each, and the kinds of person.

    Returns ``(words, owned, people)``: the content words of the relationship types' names
    as the lexicon compares them by embedding (column, surface word), never a
    description's: a description's many words are near many a question word, and both
    readings read the names alike; ``owned[type, word]``; and the entity types that are
    a person first of all, as WordNet knows the type's name (not a team or a crew).
    """
    key = id(vocab)
    kept = _NAME_WORDS.get(key)
    if kept is not None and kept[0]() is vocab:
        return kept[1], kept[2], kept[3]
    lexicon = vocab.relations
    stems = [vocab.name_stems.get(name, ()) for name in lexicon.names]
    said = [(c, w) for c, w in lexicon.semantic if any(light_stem(w) in own for own in stems)]
    keys = [light_stem(w) for _c, w in said]
    owned = np.array([[key in own for key in keys] for own in stems], dtype=bool)
    owned = owned.reshape(len(stems), len(said))
    people = frozenset(t for t in vocab.types.names if names_asked_kind("who", t))
    _NAME_WORDS[key] = (
        weakref.ref(vocab, lambda _gone: _NAME_WORDS.pop(key, None)),
        said,
        owned,
        people,
    )
    return said, owned, people
