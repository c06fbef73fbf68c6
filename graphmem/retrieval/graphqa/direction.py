"""Reading the way a question walks a relation: the noun a name is attached to, and the cue.

Part of :mod:`graphmem.retrieval.graphqa` (moved out of :mod:`.planning`): "who does X
report to?" against "who reports to X?", "X's *mentor*" against "the one X mentors".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.retrieval.graphqa.lexicon import noun_key
from graphmem.retrieval.graphqa.vocabulary import (
    _BE_WORDS,
    _FUNCTION_WORDS,
    _OBJECT_NOUN_ENDINGS,
    _type_words,
    _Vocabulary,
    light_stem,
)

__all__ = ["read_cue"]


@dataclass
class _Token:
    start: int
    end: int
    text: str


def _attached_noun(tokens: Sequence[_Token], text: str, first: int, last: int) -> int | None:
    """The position of the noun the topic's mention is attached to, if any.

    "X's *boss*" (a possessive: the first word after "'s" or a bare "'"), or "the *boss*
    of X" (the word before "of", with at most one small word between "of" and the name,
    and no content word after the name: not "the director of X's *acted* films").

    >>> words = "who is the mother of ann".split()
    >>> toks, at = [], 0
    >>> for w in words:
    ...     toks.append(_Token(at, at + len(w), w)); at += len(w) + 1
    >>> _attached_noun(toks, " ".join(words), 5, 5)
    3
    """
    n = len(tokens)
    if last + 1 < n:
        between = text[tokens[last].end : tokens[last + 1].start]
        after = None
        if tokens[last + 1].text == "s" and between.startswith(("'", "’")):
            after = last + 2
        elif between.strip() in ("'", "’"):
            after = last + 1
        while after is not None and after < n and tokens[after].text in _FUNCTION_WORDS:
            after += 1
        if after is not None and after < n:
            return after
    # "the director of X *acted* films": the name modifies what follows, not the noun
    if last + 1 < n and tokens[last + 1].text not in _FUNCTION_WORDS:
        return None
    for gap in (2, 3):
        p = first - gap
        if p < 0 or tokens[p + 1].text != "of":
            continue
        if gap == 3 and tokens[p + 2].text not in _FUNCTION_WORDS:
            continue
        if tokens[p].text not in _FUNCTION_WORDS:
            return p
    return None


def read_cue(
    tokens: list[_Token],
    text: str,
    first: int,
    last: int,
    matches: Mapping[str, np.ndarray],
    vocab: _Vocabulary,
) -> np.ndarray:
    """The way the question walks each type that joins one kind to itself (see _Reading).

    Read from where the word naming the type stands against the topic's mention (the
    nearest such word outside it). As a verb: the topic before it is its subject ("who
    does X report to?", "whom does X mentor?"), after it its object ("who mentors X?"),
    unless the question ("mentored by X") or the type's name (``managed_by``) is in the
    passive. As a noun of the topic ("X's mentor", "the mentor of X"): one who does it
    ("mentor", "parent", "member") is the source of the fact, what it is done to or
    where ("location") its target. A word only a description gives describes the
    type's targets ("boss" of ``reports_to``: "the manager ... their boss"), so "X's
    boss" walks from X as the source.
    """
    names = vocab.relations.names
    cue = np.zeros(len(names))
    n = len(tokens)
    attached = _attached_noun(tokens, text, first, last)
    for r, name in enumerate(names):
        if name not in vocab.reflexive:
            continue
        stems = vocab.name_stems.get(name, ())
        sources = vocab.source_keys.get(name, frozenset())
        passive_name = _type_words(name)[-1:] == ["by"]
        # (not the noun the name is attached to, not by the name, distance, position)
        best: tuple[bool, bool, int, int] | None = None
        for i, token in enumerate(tokens):
            if first <= i <= last or token.text in _FUNCTION_WORDS:
                continue
            by_name = light_stem(token.text) in stems or noun_key(token.text) in sources
            if not by_name and float(matches[token.text][r]) < 0.5:
                continue
            distance = first - i if i < first else i - last
            # the noun the name is attached to says the first step ("the crew who
            # report to X's *superior*": from X as the source, then back)
            here = (i != attached, not by_name, distance, i)
            if best is None or here < best:
                best = here
        if best is None:
            continue
        p, by_name = best[3], not best[1]
        word = tokens[p].text
        between = text[tokens[last].end : tokens[p].start]
        possessive = (
            p == last + 2 and tokens[last + 1].text == "s" and between.startswith(("'", "’"))
        ) or (p == last + 1 and between.strip() in ("'", "’"))
        of_topic = (
            p < first
            and p + 1 < n
            and tokens[p + 1].text == "of"
            and (p + 2 == first or (p + 3 == first and tokens[p + 2].text in _FUNCTION_WORDS))
        )
        if possessive or of_topic:
            if not by_name:
                cue[r] = 1.0
                continue
            agent = noun_key(word) in sources or (
                not word.endswith(_OBJECT_NOUN_ENDINGS)
                and (light_stem(word) == stems[0] if stems else False)
            )
            source_is_topic = not agent
            if passive_name:
                source_is_topic = not source_is_topic
            cue[r] = 1.0 if source_is_topic else -1.0
            continue
        if not by_name:
            continue
        # "X was apprenticed to Y" is in the voice of ``apprenticed_to`` itself: a
        # participle the name is written with is no passive of it
        participle = word.endswith(("ed", "en")) and word not in _type_words(name)
        passive = (p + 1 < n and tokens[p + 1].text == "by") or (
            participle and p > 0 and tokens[p - 1].text in _BE_WORDS
        )
        subject_is_topic = (p > last) != passive
        if passive_name:
            subject_is_topic = not subject_is_topic
        cue[r] = 1.0 if subject_is_topic else -1.0
    return cue
