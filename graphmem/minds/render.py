"""Prompt text of what an NPC believes, under the token budget rules of identity prompts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graphmem.core.models import Entity
from graphmem.core.models.identity import fit, header_lines
from graphmem.minds.models import Belief

__all__ = ["belief_line", "render_perspective"]


def belief_line(belief: Belief, names: Mapping[str, str]) -> str:
    """One belief as a prompt line, saying where it came from when not seen first-hand.

    >>> from datetime import datetime
    >>> from graphmem.minds import Belief, Fact
    >>> t = datetime(2030, 1, 1)
    >>> b = Belief(id="b", holder="ada", how="told", told_by="tomas",
    ...            sources=("mira", "tomas"), confidence=0.64, valid_from=t, recorded_at=t,
    ...            fact=Fact(subject="sword", predicate="located_in", object="chest"))
    >>> belief_line(b, {"sword": "The sword", "chest": "the chest", "tomas": "Tomas",
    ...                 "mira": "Mira"})
    '- The sword located in the chest (heard from Tomas, first from Mira, confidence 0.64)'
    """
    marks = []
    if belief.how == "told" and belief.told_by:
        marks.append(f"heard from {names.get(belief.told_by, belief.told_by)}")
        first = belief.sources[0] if belief.sources else belief.told_by
        if first != belief.told_by:
            marks.append(f"first from {names.get(first, first)}")
    elif belief.how != "witnessed":
        marks.append(belief.how)
    if belief.confidence < 1.0:
        marks.append(f"confidence {belief.confidence:.2f}")
    suffix = f" ({', '.join(marks)})" if marks else ""
    return f"- {belief.fact.text(names)}{suffix}"


def render_perspective(
    entity: Entity, beliefs: Sequence[Belief], names: Mapping[str, str], max_tokens: int | None
) -> str:
    """The NPC's header, then its beliefs: most confident, important and recent first."""
    ordered = sorted(
        beliefs,
        key=lambda b: (-b.confidence, -b.importance, -b.valid_from.timestamp(), b.id),
    )
    lines = [belief_line(b, names) for b in ordered]
    return fit(header_lines(entity), lines, max_tokens, title="Believes:")
