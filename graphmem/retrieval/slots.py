"""The bridge slot: one place near the top kept for the next hop of a multi-part question.

A question that reads as more than one step ("who is the spouse of *Big Eyes'* director?",
"the county *in which* Johnnycake is located") is answered by a chain of passages; the
first names its passage, the next is reached through an entity the first one names and
the question does not (the director, the county). The bridge method scores such a passage
by its relevance to what the source leaves unanswered among *every* passage the source
reaches, generic names included, so a passage reached through a rare name often ranks
low: its relevance is measured against dozens of passages reached through "American" or
"Directed".

The slot takes, from the best passage of the round (the *source*), the rare entities it
mentions (mentioned by at most ``FusionSettings.slot_mentions`` passages: the source and
one or two others) that the question does not name (nor any name inside its names); among
the passages they reach, the one most relevant to the source's residual query
(:func:`slot_pick`) is put at position ``FusionSettings.bridge_slot`` of the ranking when
it ranks lower (:func:`place`). Only the passage that held that position moves down, so
the ranking above it (R@2 with the slot at 5) is never touched. A question that reads as
one step (:func:`multi_part`) keeps its ranking as it is.

No store call: what it reads (the source's mentions, the passages every entity reaches,
their relevance) is what the round has read already.
"""

from __future__ import annotations

import math
import re
from collections.abc import Collection, Mapping

from graphmem.core.models import NodeKind

__all__ = ["multi_part", "place", "slot_pick"]

Doc = tuple[NodeKind, str]

_WORDS = re.compile(r"[^\W_]+(?:['’][^\W_]+)*", re.UNICODE)
_JOINING = frozenset({"who", "whom", "whose", "which", "that", "where", "when"})
"""Words that open a relative or subordinate clause: inside a question (not as its first
word) they join a second step to the first ("the person *who* broke the salt law")."""


def multi_part(text: str | None) -> bool:
    """Whether a question reads as more than one step, from its words alone.

    It does when it has a possessive ("Big Eyes' director", "Corey Taylor's city") or a
    word opening a clause after its first word ("the county *in which* X is located", "the
    person *who* broke the law"). A question of one step ("who runs the mill?", "where
    was Elise on 31 Dec 2023?") does not.

    >>> multi_part("Who is the spouse of Big Eyes' main director?")
    True
    >>> multi_part("What county shares a border with the county in which Johnnycake is?")
    True
    >>> multi_part("who runs the mill?"), multi_part(None)
    (False, False)
    """
    if not text:
        return False
    if re.search(r"\w(?:['’]s|s['’])(?!\w)", text):
        return True
    words = [w.lower() for w in _WORDS.findall(text)]
    return any(word in _JOINING for word in words[1:])


def slot_pick(
    source: Doc,
    mentions: Mapping[NodeKind, Mapping[str, Collection[str]]],
    reached: Mapping[tuple[NodeKind, str], Collection[str]],
    relevance: Mapping[Doc, float],
    named: Collection[str],
    rare: int,
) -> tuple[Doc, str, float] | None:
    """The passage the slot is for, the entity that reached it and its relevance.

    Args:
        source: The best passage of the round.
        mentions: The entities each read passage mentions, by kind.
        reached: The passages each entity reaches (``(kind, entity)`` -> node ids).
        relevance: The source's ranking of the passages it reaches, by what it leaves
            unanswered (scaled to a best of 1).
        named: The entities the question names (nested names included): not a bridge.
        rare: An entity mentioned by more passages than this is not rare.

    Returns:
        ``(passage, entity, relevance)`` of the most relevant passage other than the
        source that a rare, unnamed entity of the source reaches; None when there is none
        (ties: the smaller passage id, then entity id).

    >>> mentions = {"chunk": {"film": ["name:american", "name:tim burton"]}}
    >>> reached = {("chunk", "name:tim burton"): ["film", "burton"],
    ...            ("chunk", "name:american"): ["film", "a", "b", "c", "burton"]}
    >>> slot_pick(("chunk", "film"), mentions, reached,
    ...           {("chunk", "a"): 1.0, ("chunk", "burton"): 0.3}, named=(), rare=3)
    (('chunk', 'burton'), 'name:tim burton', 0.3)
    """
    kind, node = source
    found: tuple[float, Doc, str] | None = None
    for entity_id in sorted(mentions.get(kind, {}).get(node, ())):
        passages = reached.get((kind, entity_id))
        if entity_id in named or not passages or len(passages) > rare:
            continue
        for other in sorted(passages):
            doc: Doc = (kind, other)
            value = relevance.get(doc, 0.0)
            if doc != source and value > 0 and (found is None or value > found[0]):
                found = (value, doc, entity_id)
    return None if found is None else (found[1], found[2], found[0])


def place(scores: dict[Doc, float], doc: Doc, position: int) -> bool:
    """Raise ``doc``'s score so that it ranks at ``position`` (1-based) unless it ranks higher.

    Ranks are by score, best first, ties by key (as the bridge method sorts them). Only
    the passages from ``position`` on move down one place. Returns whether it moved.

    >>> scores = {("chunk", "a"): 0.9, ("chunk", "b"): 0.8, ("chunk", "c"): 0.1}
    >>> place(scores, ("chunk", "c"), 2), sorted(scores, key=lambda d: -scores[d])
    (True, [('chunk', 'a'), ('chunk', 'c'), ('chunk', 'b')])
    >>> place(scores, ("chunk", "c"), 2)
    False
    """
    ranked = sorted(scores.items(), key=lambda kv: (-kv[1], kv[0]))
    if doc in {d for d, _v in ranked[:position]}:
        return False
    if len(ranked) < position:
        # fewer passages than the slot's position: it only has to be among them
        scores[doc] = max(scores.get(doc, 0.0), min((v for _d, v in ranked), default=0.0))
        return True
    # just above the passage holding the slot (under the one before it, unless they tie)
    scores[doc] = math.nextafter(ranked[position - 1][1], math.inf)
    return True
