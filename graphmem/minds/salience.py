"""Salience and recall: how strongly an NPC holds a memory, and which ones it recalls.

The scoring follows the Generative Agents memory stream (Park et al., 2023):

- *recency* decays exponentially with the game hours since the memory was acquired or
  last recalled: ``recency_decay ** hours`` (0.995 per hour by default, their value);
- *importance* is the 0..1 importance of the event (or tell) the belief came from;
- *relevance* says how much the memory bears on what is being recalled (0..1).

``recall`` ranks by the weighted mean of the three (each already on 0..1, so unlike
the paper no min-max normalisation over the candidates is needed and a score means the
same in every call). ``salience`` (no query) is ``importance * recency``: an important
memory fades slowly, a trivial one fast, and recalling a memory refreshes it; ``forget``
retires memories whose salience fell below a floor.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

from graphmem.core.models import construct_trusted
from graphmem.core.store import as_utc
from graphmem.minds.models import Belief, MindSettings, Recollection

__all__ = ["recency", "relevance_by_words", "salience", "score"]

_WORD = re.compile(r"\w+")


def recency(belief: Belief, at: datetime, decay: float) -> float:
    """``decay ** hours`` since the belief was acquired or last recalled (1.0 if not later).

    >>> from datetime import timedelta
    >>> from graphmem.minds import Belief, Fact
    >>> t = datetime(2030, 1, 1)
    >>> b = Belief(id="b", holder="mira", how="witnessed", valid_from=t, recorded_at=t,
    ...            fact=Fact(subject="sword", predicate="located_in", object="chest"))
    >>> round(recency(b, t + timedelta(hours=100), 0.995), 3)
    0.606
    """
    when = as_utc(at, "at") or at
    hours = (when - belief.touched_at).total_seconds() / 3600.0
    return 1.0 if hours <= 0 else float(decay**hours)


def salience(belief: Belief, at: datetime, settings: MindSettings) -> float:
    """How strongly the holder keeps the belief at ``at``: ``importance * recency``."""
    return belief.importance * recency(belief, at, settings.recency_decay)


def relevance_by_words(query: str, names: Mapping[str, str]) -> Callable[[Belief], float]:
    """Relevance as the share of the query's words found in the belief's text (no model).

    The belief's text is its fact in plain words with entity names (``names``) and ids.
    """
    wanted = {w.casefold() for w in _WORD.findall(query)}

    def relevance(belief: Belief) -> float:
        if not wanted:
            return 0.0
        fact = belief.fact
        text = f"{fact.text(names)} {' '.join(fact.entity_ids)} {fact.predicate}"
        have = {w.casefold() for w in _WORD.findall(text)}
        return len(wanted & have) / len(wanted)

    return relevance


def score(
    beliefs: Iterable[Belief],
    at: datetime,
    settings: MindSettings,
    relevance: Callable[[Belief], float] | None,
) -> list[Recollection]:
    """Score beliefs for recall, best first (ties: newer first, then by id)."""
    w_recency, w_importance, w_relevance = settings.weights
    total = w_recency + w_importance + w_relevance
    out = []
    for belief in beliefs:
        fresh = recency(belief, at, settings.recency_decay)
        bearing = min(1.0, max(0.0, float(relevance(belief)))) if relevance else 0.0
        value = w_recency * fresh + w_importance * belief.importance + w_relevance * bearing
        out.append(
            construct_trusted(
                Recollection,
                {
                    "belief": belief,
                    "score": min(1.0, value / total),
                    "recency": fresh,
                    "importance": belief.importance,
                    "relevance": bearing,
                },
            )
        )
    out.sort(key=lambda r: (-r.score, -r.belief.touched_at.timestamp(), r.belief.id))
    return out
