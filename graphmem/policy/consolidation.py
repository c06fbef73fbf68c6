r"""The consolidation decision: what a new fact does to the facts it meets.

Pure: :func:`consolidate` takes the current and pending facts of the same subject and
relation (in the same scope and owner), the new value, its trust and whether it was held
for poisoning, and decides. Similarity is the Jaccard index of the values' word sets
(casefolded ``\w+`` tokens, :func:`similarity`):

- similarity >= ``duplicate_threshold`` (0.9) with any current or pending fact:
  **no-op** (``near_duplicate``), the existing fact is returned;
- similarity >= ``update_threshold`` (0.5) with the active fact: **update** (a
  refinement): if the new source is at least as trusted, the old fact is superseded and
  the new one added;
- lower similarity: a contradiction. A strictly more trusted source **invalidates** the
  old fact (it stays readable through ``as_of``) and adds the new one;
- otherwise (less or equally trusted, or itself pending) the new fact is **added** as
  ``pending_review`` with ``conflicts_with`` naming the facts it contradicts.

A fact from a source trusted less than ``review_below``, or held for poisoning, is
pending itself and never supersedes or invalidates anything.

>>> similarity("lives in Paris", "lives in Paris, France")
0.75
>>> norm("  The   Forge ")
'the forge'
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from graphmem.policy.facts import Fact
from graphmem.policy.rules import Decision, FactStatus, GovernancePolicy

__all__ = ["Consolidation", "consolidate", "norm", "similarity", "words"]

_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")


def words(text: str) -> set[str]:
    r"""The casefolded ``\w+`` words of ``text``, each once."""
    return {w.casefold() for w in _WORD.findall(text)}


def similarity(a: str, b: str) -> float:
    """Jaccard index of the word sets of ``a`` and ``b`` (1.0 for two texts with no words).

    >>> similarity("the mill", "the forge")
    0.3333333333333333
    """
    wa, wb = words(a), words(b)
    if not wa and not wb:
        return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0
    return len(wa & wb) / len(wa | wb)


def norm(text: str) -> str:
    """The key a subject or relation is compared by: spaces collapsed, casefolded."""
    return _SPACES.sub(" ", text.strip()).casefold()


@dataclass(frozen=True)
class Consolidation:
    """What a new fact does.

    Attributes:
        decision: ``add``, ``update``, ``invalidate`` or ``no_op``.
        reason: Why, as a short static string (see :class:`~graphmem.policy.LearnResult`).
        status: The new fact's status (``active`` or ``pending_review``).
        changed: Older facts it supersedes or invalidates.
        old_status: What those become (``superseded`` or ``invalidated``).
        conflicts: Ids of active facts it contradicts without replacing them.
        duplicate: For a no-op, the existing fact it matched.
    """

    decision: Decision
    reason: str
    status: FactStatus = FactStatus.ACTIVE
    changed: tuple[Fact, ...] = ()
    old_status: FactStatus = FactStatus.ACTIVE
    conflicts: tuple[str, ...] = ()
    duplicate: Fact | None = None


def consolidate(
    same: Sequence[Fact],
    value: str,
    trust: float,
    *,
    poisoned: bool,
    policy: GovernancePolicy,
) -> Consolidation:
    """Decide what a new fact with ``value`` does to ``same`` (see the module docstring).

    Args:
        same: The stored facts of the same subject and relation, scope and owner.
        value: The new fact's value, sanitised.
        trust: The new fact's trust score.
        poisoned: Whether it was held because it carries instructions aimed at the model.
        policy: The thresholds.
    """
    live = [f for f in same if f.status in (FactStatus.ACTIVE, FactStatus.PENDING_REVIEW)]
    for existing in live:
        if similarity(existing.value, value) >= policy.duplicate_threshold:
            return Consolidation(Decision.NOOP, "near_duplicate", duplicate=existing)
    active = [f for f in live if f.status == FactStatus.ACTIVE]
    pending = trust < policy.review_below or poisoned
    decision, reason = Decision.ADD, "low_trust" if pending else "new"
    changed: list[Fact] = []
    conflicts: list[str] = []
    new_status = FactStatus.PENDING_REVIEW if pending else FactStatus.ACTIVE
    old_status = FactStatus.ACTIVE
    for old in active:
        sim = similarity(old.value, value)
        if sim >= policy.update_threshold and not pending and trust >= old.trust:
            decision, reason, old_status = Decision.UPDATE, "refines", FactStatus.SUPERSEDED
            changed.append(old)
        elif sim < policy.update_threshold and not pending and trust > old.trust:
            decision, reason = Decision.INVALIDATE, "contradiction_more_trusted"
            old_status = FactStatus.INVALIDATED
            changed.append(old)
        else:
            conflicts.append(old.id)
    if conflicts:
        new_status = FactStatus.PENDING_REVIEW
        if decision is Decision.ADD:
            reason = "contradiction_pending_review"
    if poisoned:
        reason = "suspected_poisoning"
    return Consolidation(decision, reason, new_status, tuple(changed), old_status, tuple(conflicts))
