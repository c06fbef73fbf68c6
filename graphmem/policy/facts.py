"""Governed facts as read back from the store, and what each governed call returns.

Values only: :class:`Fact` (one fact record), :class:`LearnResult`, :class:`AuditEntry`,
:class:`ScoredFact`, :class:`PurgeResult` and :class:`GovernanceStats`. Times are kept in
records as ISO 8601 text (:func:`iso` / :func:`parse_time`).

>>> from graphmem import Record
>>> record = Record(id="f1", kind="fact", data={
...     "subject": "Mira", "relation": "works_at", "value": "the forge",
...     "memory_type": "semantic", "scope": "workspace", "owner": "", "actor": "gm",
...     "source_type": "manual", "trust": 1.0, "status": "active",
...     "valid_at": "2024-05-01T12:00:00+00:00"})
>>> Fact.from_record(record).text
'Mira works_at the forge'
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.core.models import Record
from graphmem.policy.rules import BELIEVED, Decision, FactStatus

__all__ = [
    "AuditEntry",
    "Fact",
    "GovernanceStats",
    "LearnResult",
    "PurgeResult",
    "ScoredFact",
    "iso",
    "parse_time",
]


def iso(value: datetime | None) -> str | None:
    """``value`` as ISO 8601 text (None stays None)."""
    return value.isoformat() if value is not None else None


def parse_time(value: Any) -> datetime | None:
    """A time read back from ISO 8601 text; None for anything else."""
    return datetime.fromisoformat(value) if isinstance(value, str) else None


@dataclass(frozen=True)
class Fact:
    """One governed fact, as read back from the store.

    Attributes:
        id: The record id.
        subject, relation, value: The fact, as stored (sanitised).
        memory_type: ``semantic``, ``episodic`` or ``procedural``.
        scope: ``agent``, ``session`` or ``workspace``; ``owner`` is the actor or session
            it belongs to (``""`` for workspace).
        actor: Who wrote it.
        source_type, trust: Its source and the trust score that gave.
        category: Its category, or None.
        status: ``active``, ``pending_review``, ``superseded``, ``invalidated``, ``rejected``.
        tier: The highest ``<classified:tier_N>`` seen, or None.
        redacted: Kinds of personal data redacted from it.
        valid_at: When it became believed (None while pending or if rejected).
        invalid_at: When it stopped being believed.
        created_at: When it was first written.
        supersedes, superseded_by, conflicts_with: Links to other facts.
        version: How many times this fact record was written (1 for a new fact); each
            write is in the audit log's hash chain (:mod:`graphmem.policy.audit`).
        poisoning: Kinds of model-directed instructions found in it when it was held
            for review (:mod:`graphmem.policy.poisoning`); empty for most facts.
        session: The session it was written in, if any.
        reviewed_by: Who approved it, when it waited for review and was approved.
        edge: Where the graph shows it, as the relationship key ``(source_id, target_id,
            type)``: a workspace fact about an entity (:mod:`graphmem.policy.fact_graph`),
            shown while it is believed; None for a fact the graph does not show.
    """

    id: str
    subject: str
    relation: str
    value: str
    memory_type: str
    scope: str
    owner: str
    actor: str
    source_type: str
    trust: float
    category: str | None
    status: str
    tier: int | None
    redacted: tuple[str, ...]
    valid_at: datetime | None
    invalid_at: datetime | None
    created_at: datetime
    supersedes: str | None = None
    superseded_by: str | None = None
    conflicts_with: tuple[str, ...] = ()
    version: int = 1
    poisoning: tuple[str, ...] = ()
    session: str | None = None
    reviewed_by: str | None = None
    edge: tuple[str, str, str] | None = None

    @property
    def text(self) -> str:
        """``"<subject> <relation> <value>"``: what retrieval matches and prompts show."""
        return f"{self.subject} {self.relation} {self.value}"

    def believed_at(self, when: datetime) -> bool:
        """Whether the memory held this fact to be true at ``when``."""
        if self.status not in BELIEVED or self.valid_at is None or self.valid_at > when:
            return False
        return self.invalid_at is None or when < self.invalid_at

    @classmethod
    def from_record(cls, record: Record) -> Fact:
        """Read a ``fact`` record."""
        d = record.data
        return cls(
            id=record.id,
            subject=d["subject"],
            relation=d["relation"],
            value=d["value"],
            memory_type=d["memory_type"],
            scope=d["scope"],
            owner=d["owner"],
            actor=d["actor"],
            source_type=d["source_type"],
            trust=float(d["trust"]),
            category=d.get("category"),
            status=d["status"],
            tier=d.get("tier"),
            redacted=tuple(d.get("redacted") or ()),
            valid_at=parse_time(d.get("valid_at")),
            invalid_at=parse_time(d.get("invalid_at")),
            created_at=record.created_at,
            supersedes=d.get("supersedes"),
            superseded_by=d.get("superseded_by"),
            conflicts_with=tuple(d.get("conflicts_with") or ()),
            version=int(d.get("version") or 0),
            poisoning=tuple(d.get("poisoning") or ()),
            session=d.get("session"),
            reviewed_by=d.get("reviewed_by"),
            edge=_edge_key(d.get("edge")),
        )


def _edge_key(raw: Any) -> tuple[str, str, str] | None:
    """The relationship key of a fact record's ``edge`` (None when it has none)."""
    if not isinstance(raw, Mapping):
        return None
    return (str(raw["source_id"]), str(raw["target_id"]), str(raw["type"]))


@dataclass(frozen=True)
class LearnResult:
    """What :meth:`FactMemory.learn` did.

    Attributes:
        decision: ``add``, ``update``, ``invalidate`` or ``no_op``.
        reason: Why, as a short static string: ``new``, ``near_duplicate``,
            ``duplicate_input``, ``refines``, ``contradiction_more_trusted``,
            ``contradiction_pending_review``, ``low_trust``, ``suspected_poisoning``.
        fact: The fact written, or the existing one a no-op matched.
        changed: Older facts this write superseded or invalidated.
        audit_id: The audit entry, or None for a no-op.
    """

    decision: Decision
    reason: str
    fact: Fact | None
    changed: tuple[Fact, ...] = ()
    audit_id: str | None = None

    @property
    def pending_review(self) -> bool:
        """Whether the fact written waits for review."""
        return self.fact is not None and self.fact.status == FactStatus.PENDING_REVIEW


@dataclass(frozen=True)
class AuditEntry:
    """One audited mutation.

    Attributes:
        id: The record id (pass it to :meth:`FactMemory.rollback_to`).
        seq: Position in the tenant's audit log (1, 2, ...).
        action: ``add``, ``update``, ``invalidate``, ``approve``, ``reject``,
            ``rollback`` or ``purge``.
        actor: Who did it.
        session: Their session, if any.
        key: The hashed subject + relation (no text), or None.
        fact_ids: The facts it changed.
        at: When.
        rolled_back: Whether a later rollback undid it (it is kept for the audit).
        rolled_back_by: The rollback's entry id.
        detail: Small static facts about it (reason, counts).

    Entries are never changed once written (the log is a hash chain): whether one was
    rolled back is read from the rollback entry that lists it (``undone``).
    """

    id: str
    seq: int
    action: str
    actor: str
    session: str | None
    key: str | None
    fact_ids: tuple[str, ...]
    at: datetime
    rolled_back: bool
    rolled_back_by: str | None
    detail: Mapping[str, Any]

    @classmethod
    def from_record(cls, record: Record, rolled_back_by: str | None = None) -> AuditEntry:
        """Read an ``audit`` record; ``rolled_back_by``: the rollback entry that undid it."""
        d = record.data
        rolled_back_by = rolled_back_by or d.get("rolled_back_by")
        return cls(
            id=record.id,
            seq=int(d["seq"]),
            action=d["action"],
            actor=d["actor"],
            session=d.get("session"),
            key=d.get("key"),
            fact_ids=tuple(d.get("fact_ids") or ()),
            at=record.created_at,
            rolled_back=rolled_back_by is not None or bool(d.get("rolled_back")),
            rolled_back_by=rolled_back_by,
            detail=dict(d.get("detail") or {}),
        )


@dataclass(frozen=True)
class ScoredFact:
    """A fact with its retrieval score and the parts of it."""

    fact: Fact
    score: float
    relevance: float
    recency: float
    type_weight: float
    trust: float
    tokens: int


@dataclass(frozen=True)
class PurgeResult:
    """What :meth:`FactMemory.purge` removed."""

    facts: int
    audit_entries: int


@dataclass(frozen=True)
class GovernanceStats:
    """Health statistics of a tenant's governed memory.

    ``poisoning_held``: facts held for review because they carried instructions aimed at
    the model; ``poisoning_rejected``: writes refused for that (audited ``refuse``
    entries still kept).
    """

    facts: int
    by_status: Mapping[str, int]
    by_memory_type: Mapping[str, int]
    by_source_type: Mapping[str, int]
    mean_trust: float
    audit_entries: int
    rolled_back_entries: int
    signed: bool
    poisoning_held: int
    poisoning_rejected: int
    oldest_fact_at: datetime | None
    newest_fact_at: datetime | None
