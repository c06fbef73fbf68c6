"""The rules of governed facts: source trust, memory types, scopes, statuses, the policy.

Every threshold :class:`~graphmem.policy.FactMemory` applies is named here: the trust of
each source type (:data:`SOURCE_TRUST`), the retrieval weights (:data:`SCORE_WEIGHTS`,
:data:`MEMORY_TYPE_WEIGHT`), the categories no policy can allow
(:data:`ALWAYS_FORBIDDEN_CATEGORIES`) and :class:`GovernancePolicy`, which holds the rest.

>>> GovernancePolicy(pii="redact").review_below
0.5
>>> SOURCE_TRUST[SourceType.AGENT_RUN]
0.6
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from enum import StrEnum
from typing import Literal

from graphmem.core.errors import InvalidInput

__all__ = [
    "ALWAYS_FORBIDDEN_CATEGORIES",
    "BELIEVED",
    "MEMORY_TYPE_WEIGHT",
    "SCORE_WEIGHTS",
    "SOURCE_TRUST",
    "UNKNOWN_SOURCE_TRUST",
    "Decision",
    "FactStatus",
    "GovernancePolicy",
    "MemoryType",
    "Scope",
    "SourceType",
]


class SourceType(StrEnum):
    """Where a fact came from; decides its trust score."""

    MANUAL = "manual"
    USER_INPUT = "user_input"
    AGENT_RUN = "agent_run"
    TOOL_OUTPUT = "tool_output"
    WEBHOOK = "webhook"


SOURCE_TRUST: Mapping[str, float] = {
    SourceType.MANUAL: 1.0,
    SourceType.USER_INPUT: 0.8,
    SourceType.AGENT_RUN: 0.6,
    SourceType.TOOL_OUTPUT: 0.5,
    SourceType.WEBHOOK: 0.4,
}
"""Trust by source type: an operator's manual entry is trusted most, a webhook least."""

UNKNOWN_SOURCE_TRUST = 0.2
"""Trust of a source type not in :data:`SOURCE_TRUST` (below the review threshold)."""


class MemoryType(StrEnum):
    """What kind of memory a fact is."""

    SEMANTIC = "semantic"
    EPISODIC = "episodic"
    PROCEDURAL = "procedural"


MEMORY_TYPE_WEIGHT: Mapping[str, float] = {
    MemoryType.SEMANTIC: 1.0,
    MemoryType.PROCEDURAL: 0.8,
    MemoryType.EPISODIC: 0.6,
}
"""Retrieval weight by memory type: lasting knowledge first, single episodes last."""

SCORE_WEIGHTS: Mapping[str, float] = {
    "relevance": 0.4,
    "recency": 0.3,
    "memory_type": 0.2,
    "trust": 0.1,
}
"""The weights of :meth:`FactMemory.recall`'s score; they add up to 1."""


class Scope(StrEnum):
    """Who a fact belongs to."""

    AGENT = "agent"
    SESSION = "session"
    WORKSPACE = "workspace"


class FactStatus(StrEnum):
    """Where a fact stands."""

    ACTIVE = "active"
    PENDING_REVIEW = "pending_review"
    SUPERSEDED = "superseded"
    INVALIDATED = "invalidated"
    REJECTED = "rejected"


class Decision(StrEnum):
    """What :meth:`FactMemory.learn` decided."""

    ADD = "add"
    UPDATE = "update"
    INVALIDATE = "invalidate"
    NOOP = "no_op"


ALWAYS_FORBIDDEN_CATEGORIES = frozenset(
    {"credentials", "password", "secret", "api_key", "private_key", "biometric"}
)
"""Categories no policy can allow: such facts are never stored."""

BELIEVED = (FactStatus.ACTIVE, FactStatus.SUPERSEDED, FactStatus.INVALIDATED)
"""The statuses of facts the memory believed at some time (pending and rejected never were)."""


@dataclass(frozen=True)
class GovernancePolicy:
    """The rules a :class:`FactMemory` applies; every threshold is documented here.

    Attributes:
        pii: ``"reject"`` (raise ``PIIDetected``) or ``"redact"`` (replace with ``[kind]``).
        forbidden_categories: Forbidden in addition to ``ALWAYS_FORBIDDEN_CATEGORIES``.
        review_below: Facts from sources trusted less than this wait for review (0.5).
        duplicate_threshold: Value similarity at or above which a write is a no-op (0.9).
        update_threshold: Similarity at or above which a new value refines the old (0.5);
            below it the values contradict.
        dedup_window: How long the same raw input is a no-op (10 minutes).
        half_life: Recency half-life of retrieval scoring (7 days).
        signing_key: When set, every fact, audit entry and the audit head carries an
            HMAC-SHA256 signature, checked on every read and, with the hash chain, by
            :meth:`FactMemory.verify`.
        poisoning: What a write carrying instructions aimed at the model does
            (:mod:`graphmem.policy.poisoning`): ``"review"`` (default: stored
            ``pending_review``, not served until approved, ``memory.fact_held``
            published), ``"reject"`` (``PoisoningDetected``; the refusal is audited) or
            ``"off"`` (no detection).
        retention_max_age: Retention: facts and audit entries older than this are purged
            by :meth:`FactMemory.apply_retention` (None: kept whatever their age).
        retention_max_entries: Retention: at most this many facts and this many audit
            entries are kept by :meth:`FactMemory.apply_retention` (None: no cap).
    """

    pii: Literal["reject", "redact"] = "reject"
    poisoning: Literal["review", "reject", "off"] = "review"
    forbidden_categories: frozenset[str] = frozenset()
    review_below: float = 0.5
    duplicate_threshold: float = 0.9
    update_threshold: float = 0.5
    dedup_window: timedelta = timedelta(minutes=10)
    half_life: timedelta = timedelta(days=7)
    signing_key: bytes | None = field(default=None, repr=False)
    retention_max_age: timedelta | None = None
    retention_max_entries: int | None = None

    @property
    def retention(self) -> bool:
        """Whether the policy sets retention (an age, a count cap or both)."""
        return self.retention_max_age is not None or self.retention_max_entries is not None

    def __post_init__(self) -> None:
        if self.pii not in ("reject", "redact"):
            raise InvalidInput(f"pii policy must be 'reject' or 'redact', got {self.pii!r}")
        if self.poisoning not in ("review", "reject", "off"):
            raise InvalidInput(
                f"poisoning policy must be 'review', 'reject' or 'off', got {self.poisoning!r}"
            )
        for name in ("review_below", "duplicate_threshold", "update_threshold"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise InvalidInput(f"{name} must be between 0 and 1, got {value!r}")
        if self.update_threshold > self.duplicate_threshold:
            raise InvalidInput("update_threshold must not exceed duplicate_threshold")
        for name in ("dedup_window", "half_life"):
            value = getattr(self, name)
            if not isinstance(value, timedelta) or value <= timedelta(0):
                raise InvalidInput(f"{name} must be a positive timedelta")
        if self.signing_key is not None and (
            not isinstance(self.signing_key, bytes) or not self.signing_key
        ):
            raise InvalidInput("signing_key must be non-empty bytes")
        age = self.retention_max_age
        if age is not None and (not isinstance(age, timedelta) or age <= timedelta(0)):
            raise InvalidInput("retention_max_age must be a positive timedelta or None")
        cap = self.retention_max_entries
        if cap is not None and (isinstance(cap, bool) or not isinstance(cap, int) or cap <= 0):
            raise InvalidInput("retention_max_entries must be a positive integer or None")
        object.__setattr__(
            self,
            "forbidden_categories",
            frozenset(c.casefold() for c in self.forbidden_categories),
        )
