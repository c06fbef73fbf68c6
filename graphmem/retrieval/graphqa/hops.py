"""Multi-hop structure of graph questions: what the words say of the steps on the way.

Part of :mod:`graphmem.retrieval.graphqa`: which relationship types the noun a topic is
attached to ("X's *boss*") may start a walk with, read with the kinds of entity that
take them.
"""

from __future__ import annotations

from collections.abc import Set

import numpy as np

from graphmem.retrieval.graphqa.direction import kind_takes, noun_way
from graphmem.retrieval.graphqa.tenant import _Vocabulary

__all__: list[str] = []


def _takeable(
    attached: np.ndarray,
    noun: str,
    cue: np.ndarray,
    topic_types: Set[str],
    vocab: _Vocabulary,
    floor: float,
) -> np.ndarray:
    """The types ``attached`` a walk from the topic may start with, as the noun says.

    "X's *noun*" starts with a type the noun names (``attached``), walked the way the
    noun says (:func:`~.direction.noun_way`). A type that no entity of the topic's kind
    takes that way is not what the noun names here ("Kaya's *boss*" of ``manager``: a
    restaurant's manager, never a person's); when no type is left, the noun restricts
    nothing (it names a relation in words no type has), and the path's words are judged
    as any others are. The topic's own facts are not read here: a kind that takes the
    type while the topic has no such fact ("X's *husband*" of an unmarried X) still
    restricts the walk, which then finds nothing.
    """
    if not attached.any() or not topic_types:
        return attached
    state = {t: 1.0 / len(topic_types) for t in topic_types}
    names = vocab.relations.names
    kept = attached.copy()
    for r in np.flatnonzero(attached):
        way = noun_way(names[r], noun, float(cue[r]) if cue.size else 0.0)
        if way is not None and not kind_takes(vocab, state, names[r], way, floor):
            # taken only the other way; a type the kind never takes keeps the restriction
            # ("Lyra's *favourite* song" read as ``rivals`` of guilds: no answer)
            kept[r] = not kind_takes(vocab, state, names[r], None, floor)
    return kept
