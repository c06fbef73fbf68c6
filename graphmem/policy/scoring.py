r"""Recall scoring: which governed facts best answer a query, within a token budget.

:func:`rank_facts` scores each fact::

    score = 0.4 * relevance + 0.3 * recency + 0.2 * memory_type_weight + 0.1 * trust

``relevance``: the share of the query's words (casefolded ``\w+``, minus a few stop
words) found in the fact's subject, relation and value; facts with none are skipped
when the query has words. ``recency``: ``0.5 ** (age / half_life)`` (half-life 7 days by
default), age since the fact became valid. ``memory_type_weight``: semantic 1.0,
procedural 0.8, episodic 0.6 (:data:`~graphmem.policy.rules.MEMORY_TYPE_WEIGHT`). Facts
are taken best first (ties: newer, then id) while their lines fit ``max_tokens``
(:func:`graphmem.estimate_tokens`); a fact that does not fit is skipped.

>>> sorted(query_terms("Where does the smith work?"))
['smith', 'work']
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta

from graphmem.core.checks import check_limit, check_safe_names
from graphmem.core.errors import InvalidInput
from graphmem.core.models import estimate_tokens
from graphmem.policy.consolidation import words
from graphmem.policy.facts import Fact, ScoredFact
from graphmem.policy.rules import MEMORY_TYPE_WEIGHT, SCORE_WEIGHTS, MemoryType

__all__ = ["check_recall", "query_terms", "rank_facts"]

_STOP_WORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be by did do does for from has have how i in is it its of on or "
        "the to was were what when where which who why with",
    )
)


def query_terms(query: str) -> set[str]:
    """The words of ``query`` recall matches: casefolded, stop words left out."""
    return words(query) - _STOP_WORDS


def check_recall(
    query: object, max_tokens: object, limit: object, memory_types: Sequence[str] | None
) -> set[str] | None:
    """Check recall's arguments; return the memory types asked (None: all).

    Raises:
        InvalidInput: ``query`` not a str, ``max_tokens`` or ``limit`` not positive, an
            unknown memory type.
    """
    if not isinstance(query, str):
        raise InvalidInput("query must be a str")
    if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0:
        raise InvalidInput(f"max_tokens must be a positive integer, got {max_tokens!r}")
    check_limit(limit)
    if memory_types is None:
        return None
    try:
        return {MemoryType(t).value for t in check_safe_names(memory_types, "type") or ()}
    except ValueError as exc:
        raise InvalidInput(str(exc)) from exc


def rank_facts(
    facts: Iterable[Fact],
    query: str,
    *,
    half_life: timedelta,
    now: datetime,
    max_tokens: int,
    limit: int | None = None,
    memory_types: set[str] | None = None,
) -> list[ScoredFact]:
    """Score ``facts`` against ``query`` and keep the best that fit (module docstring)."""
    terms = query_terms(query)
    seconds = half_life.total_seconds()
    scored: list[ScoredFact] = []
    for fact in facts:
        if memory_types is not None and fact.memory_type not in memory_types:
            continue
        relevance = len(terms & words(fact.text)) / len(terms) if terms else 0.0
        if terms and relevance == 0.0:
            continue
        since = fact.valid_at or fact.created_at
        age = max(0.0, (now - since).total_seconds())
        recency = 0.5 ** (age / seconds)
        weight = MEMORY_TYPE_WEIGHT[fact.memory_type]
        score = (
            SCORE_WEIGHTS["relevance"] * relevance
            + SCORE_WEIGHTS["recency"] * recency
            + SCORE_WEIGHTS["memory_type"] * weight
            + SCORE_WEIGHTS["trust"] * fact.trust
        )
        scored.append(
            ScoredFact(
                fact,
                round(score, 6),
                round(relevance, 6),
                round(recency, 6),
                weight,
                fact.trust,
                estimate_tokens(fact.text),
            )
        )
    scored.sort(key=lambda s: (-s.score, -s.fact.created_at.timestamp(), s.fact.id))
    out: list[ScoredFact] = []
    used = 0
    for item in scored:
        if used + item.tokens > max_tokens:
            continue
        out.append(item)
        used += item.tokens
        if limit is not None and len(out) >= limit:
            break
    return out
