r"""Governed writes: the facts an agent learns, checked, consolidated, audited.

Facts are :class:`~graphmem.Record` s of kind ``fact``; the audit trail is records of
kind ``audit``. Both go through the store's generic record collection, so governance
works the same on every backend.

What :meth:`FactMemory.learn` does, in order (nothing is written when a step fails):

1. **Identity.** An ``actor`` is required (who writes); ``scope="session"`` also needs a
   session. Missing parts raise ``IdentityRequired`` (fail closed).
2. **Category.** ``ALWAYS_FORBIDDEN_CATEGORIES`` and the policy's own forbidden ones raise
   ``ForbiddenCategory``.
3. **Input de-duplication.** The SHA-256 of the raw input (subject, relation, value,
   source type, scope, owner) is kept with the fact; the same input again within
   ``dedup_window`` (default 10 minutes) is a no-op (``duplicate_input``).
4. **Privacy tags.** ``<private>...</private>`` sections are removed; an unclosed, stray
   or nested tag raises ``MalformedPrivacyTag``. ``<classified:tier_N>`` (and its closing
   ``</classified>`` or ``</classified:tier_N>``) tags are stripped, their text kept, and
   the highest ``N`` is recorded as ``tier``.
5. **Personal data** (:mod:`graphmem.policy.pii`) in subject, relation or value: policy
   ``pii="reject"`` (default) raises ``PIIDetected`` naming the kinds; ``"redact"``
   replaces each piece with ``[<kind>]`` and records the kinds in ``redacted``.
6. **Memory poisoning** (:mod:`graphmem.policy.poisoning`): instructions aimed at the
   model that will read the fact (``ignore previous instructions``, role markers, hidden
   markup, tool-call look-alikes) in subject, relation or value. Policy
   ``poisoning="review"`` (default) stores the fact ``pending_review`` (reason
   ``suspected_poisoning``, kinds in ``Fact.poisoning``) and publishes
   ``memory.fact_held``; ``"reject"`` raises ``PoisoningDetected``, publishes
   ``memory.fact_rejected`` and audits the refusal (a ``refuse`` entry: kinds, no text);
   ``"off"`` skips it. Both are counted by :meth:`FactMemory.stats`.
7. **Trust** by source type (:data:`SOURCE_TRUST`; an unknown source gets
   :data:`UNKNOWN_SOURCE_TRUST`). Below ``review_below`` (default 0.5) the fact is
   stored ``pending_review``: not served by reads or retrieval until approved.
8. **Conflicts and consolidation** against the current facts with the same subject and
   relation (case- and space-insensitive) in the same scope and owner. Similarity is
   the Jaccard index of the values' word sets (casefolded ``\w+`` tokens):

   - similarity >= ``duplicate_threshold`` (0.9) with any current or pending fact:
     **no-op** (``near_duplicate``), the existing fact is returned;
   - similarity >= ``update_threshold`` (0.5) with the active fact: **update** (a
     refinement): if the new source is at least as trusted, the old fact is superseded
     (``superseded``, ``invalid_at`` = now) and the new one added;
   - lower similarity: a contradiction. A strictly more trusted source **invalidates**
     the old fact (``invalidated``, ``invalid_at`` = now; it stays readable through
     ``as_of``) and adds the new one;
   - otherwise (less or equally trusted, or itself pending) the new fact is **added**
     as ``pending_review`` with ``conflicts_with`` naming the facts it contradicts.

   Facts are single-valued per subject and relation within a scope: a second value is
   a refinement or a contradiction, never a second truth.
9. **Audit.** Every mutation appends an audit entry (who, when, which key as a hash,
   which fact ids, how to undo it), written with its facts in one atomic write, and
   publishes ``memory.audit.<action>`` with hashed keys only. Facts are versioned and the
   audit log is a signed hash chain (:mod:`graphmem.policy.audit`): :meth:`FactMemory.verify`
   names any record deleted, reordered, replayed, re-dated or written back.

Scopes: ``agent`` facts belong to their actor, ``session`` facts to their session,
``workspace`` facts to the whole tenant. A fact memory sees workspace facts, its actor's
agent facts and its session's session facts, whoever wrote them: actors and sessions are
labels inside a tenant, not credentials (docs/policy.md, "Who reads a session-scoped
fact").

Retrieval (:meth:`FactMemory.recall`) scores each visible fact::

    score = 0.4 * relevance + 0.3 * recency + 0.2 * memory_type_weight + 0.1 * trust

``relevance``: the share of the query's words (casefolded ``\w+``, minus a few stop
words) found in the fact's subject, relation and value; facts with none are skipped
when the query has words. ``recency``: ``0.5 ** (age / half_life)`` (half-life 7 days by
default), age since the fact became valid. ``memory_type_weight``: semantic 1.0,
procedural 0.8, episodic 0.6. Facts are taken best first while their lines fit
``max_tokens`` (:func:`graphmem.estimate_tokens`); a fact that does not fit is skipped.
"""

from __future__ import annotations

import hashlib
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from enum import StrEnum
from typing import Any, Literal, NoReturn
from weakref import WeakKeyDictionary

from graphmem.checks import as_utc, check_limit, check_safe_names, check_text
from graphmem.errors import (
    ForbiddenCategory,
    IdentityRequired,
    InvalidInput,
    MalformedPrivacyTag,
    NotFound,
    PIIDetected,
    PoisoningDetected,
)
from graphmem.events import EventBus, hash_key
from graphmem.events import bus as default_bus
from graphmem.models import Record, check_safe_name, estimate_tokens, new_id, utcnow
from graphmem.policy.audit import (
    AUDIT_HEAD_KIND,
    AUDIT_KIND,
    FACT_KIND,
    AuditChain,
    AuditHead,
    FactWrite,
    canonical_json,
)
from graphmem.policy.identity import check_identity
from graphmem.policy.pii import detect_pii, redact_pii
from graphmem.policy.poisoning import detect_poisoning
from graphmem.store import GraphStore

__all__ = [
    "ALWAYS_FORBIDDEN_CATEGORIES",
    "AUDIT_HEAD_KIND",
    "AUDIT_KIND",
    "FACT_KIND",
    "MEMORY_TYPE_WEIGHT",
    "SCORE_WEIGHTS",
    "SOURCE_TRUST",
    "UNKNOWN_SOURCE_TRUST",
    "AuditEntry",
    "AuditHead",
    "Decision",
    "Fact",
    "FactMemory",
    "FactStatus",
    "GovernancePolicy",
    "GovernanceStats",
    "LearnResult",
    "MemoryType",
    "PurgeResult",
    "Scope",
    "ScoredFact",
    "SourceType",
    "strip_privacy_tags",
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

_BELIEVED = (FactStatus.ACTIVE, FactStatus.SUPERSEDED, FactStatus.INVALIDATED)
_STOP_WORDS = frozenset(
    re.findall(
        r"\w+",
        "a an and are as at be by did do does for from has have how i in is it its of on or "
        "the to was were what when where which who why with",
    )
)
_WORD = re.compile(r"\w+")
_SPACES = re.compile(r"\s+")
_PRIVATE_TAG = re.compile(r"<\s*(/?)\s*private\s*>", re.IGNORECASE)
_CLASSIFIED_TAG = re.compile(r"<\s*(/?)\s*classified(?::\s*tier_(\d{1,3}))?\s*>", re.IGNORECASE)
_ANY_PRIVACY_TAG = re.compile(r"<\s*/?\s*(?:private|classified)\b[^>]*>?", re.IGNORECASE)

# One lock per (store, tenant) in this process: audit sequence numbers stay gap-free and
# conflict checks see each other's writes, however many FactMemory objects there are.
_locks: WeakKeyDictionary[Any, dict[str, threading.RLock]] = WeakKeyDictionary()
_locks_guard = threading.Lock()


def _tenant_lock(store: GraphStore, tenant: str) -> threading.RLock:
    with _locks_guard:
        try:
            by_tenant = _locks.setdefault(store, {})
        except TypeError:  # a store that cannot be weakly referenced: one lock per object
            by_tenant = _fallback_locks.setdefault(id(store), {})
        return by_tenant.setdefault(tenant, threading.RLock())


_fallback_locks: dict[int, dict[str, threading.RLock]] = {}


# --------------------------------------------------------------------------- values


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


def _iso(value: datetime | None) -> str | None:
    return value.isoformat() if value is not None else None


def _time(value: Any) -> datetime | None:
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

    @property
    def text(self) -> str:
        """``"<subject> <relation> <value>"``: what retrieval matches and prompts show."""
        return f"{self.subject} {self.relation} {self.value}"

    def believed_at(self, when: datetime) -> bool:
        """Whether the memory held this fact to be true at ``when``."""
        if self.status not in _BELIEVED or self.valid_at is None or self.valid_at > when:
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
            valid_at=_time(d.get("valid_at")),
            invalid_at=_time(d.get("invalid_at")),
            created_at=record.created_at,
            supersedes=d.get("supersedes"),
            superseded_by=d.get("superseded_by"),
            conflicts_with=tuple(d.get("conflicts_with") or ()),
            version=int(d.get("version") or 0),
            poisoning=tuple(d.get("poisoning") or ()),
        )


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


# --------------------------------------------------------------------------- pure helpers


def strip_privacy_tags(text: str) -> tuple[str, int | None]:
    """Remove ``<private>`` sections and ``<classified:tier_N>`` tags; return text and tier.

    >>> strip_privacy_tags("Meet at <private>my flat</private>the <classified:tier_2>mill"
    ...                    "</classified>.")
    ('Meet at the mill.', 2)

    Raises:
        MalformedPrivacyTag: An unclosed, stray or nested ``<private>``, an unclosed or
            stray ``<classified>``, or a tag of either name in another form.
    """
    out: list[str] = []
    depth = 0
    last = 0
    for match in _PRIVATE_TAG.finditer(text):
        closing = bool(match.group(1))
        if not closing:
            if depth:
                raise MalformedPrivacyTag("nested <private> tags", rule="privacy_tag")
            out.append(text[last : match.start()])
            depth = 1
        else:
            if not depth:
                raise MalformedPrivacyTag("</private> without <private>", rule="privacy_tag")
            depth = 0
        last = match.end()
    if depth:
        raise MalformedPrivacyTag(
            "<private> is not closed; close it with </private>", rule="privacy_tag"
        )
    out.append(text[last:])
    text = "".join(out)
    tier: int | None = None
    open_tags = 0
    for match in _CLASSIFIED_TAG.finditer(text):
        if match.group(1):
            if not open_tags:
                raise MalformedPrivacyTag(
                    "</classified> without <classified:tier_N>", rule="privacy_tag"
                )
            open_tags -= 1
        else:
            if match.group(2) is None:
                raise MalformedPrivacyTag(
                    "<classified> needs a tier: <classified:tier_N>", rule="privacy_tag"
                )
            open_tags += 1
            tier = max(tier or 0, int(match.group(2)))
    if open_tags:
        raise MalformedPrivacyTag(
            "<classified:tier_N> is not closed; close it with </classified>", rule="privacy_tag"
        )
    text = _CLASSIFIED_TAG.sub("", text)
    if _ANY_PRIVACY_TAG.search(text):
        raise MalformedPrivacyTag("a malformed <private> or <classified> tag", rule="privacy_tag")
    return text, tier


def _words(text: str) -> set[str]:
    return {w.casefold() for w in _WORD.findall(text)}


def similarity(a: str, b: str) -> float:
    """Jaccard index of the word sets of ``a`` and ``b`` (1.0 for two texts with no words).

    >>> similarity("lives in Paris", "lives in Paris, France")
    0.75
    """
    wa, wb = _words(a), _words(b)
    if not wa and not wb:
        return 1.0 if a.strip().casefold() == b.strip().casefold() else 0.0
    return len(wa & wb) / len(wa | wb)


def _norm(text: str) -> str:
    return _SPACES.sub(" ", text.strip()).casefold()


def _undo_step(record: Record) -> dict[str, Any]:
    """How to undo a write of ``record``: its data and ``created_at`` before the write."""
    return {"id": record.id, "before": dict(record.data), "created_at": _iso(record.created_at)}


def _undone_by(entries: Sequence[Record]) -> dict[str, str]:
    """Which rollback entry undid each rolled-back entry (entry id -> rollback id)."""
    return {
        undone: entry.id
        for entry in entries
        if entry.data.get("action") == "rollback"
        for undone in entry.data.get("undone") or ()
    }


# --------------------------------------------------------------------------- the memory


class FactMemory:
    """Governed facts of one tenant, written by one actor (optionally in one session).

    Get one from :meth:`graphmem.Memory.fact_memory`, or learn one fact with
    :meth:`graphmem.Memory.learn`.

    >>> import graphmem
    >>> with graphmem.open("memory://", tenant="doc") as mem:
    ...     facts = mem.fact_memory(actor="quest-agent")
    ...     first = facts.learn("Mira", "works_at", "the forge", source_type="agent_run")
    ...     second = facts.learn("Mira", "works_at", "the mill", source_type="manual")
    ...     (first.decision.value, second.decision.value, second.reason)
    ...     [f.value for f in facts.facts(subject="Mira")]
    ('add', 'invalidate', 'contradiction_more_trusted')
    ['the mill']
    """

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        actor: str,
        session: str | None = None,
        policy: GovernancePolicy | None = None,
        bus: EventBus | None = None,
    ) -> None:
        self._bus = bus or default_bus
        parts = check_identity(
            "fact_memory",
            required={"tenant": tenant, "actor": actor},
            optional={"session": session},
            bus=self._bus,
        )
        assert parts["tenant"] is not None and parts["actor"] is not None
        self._store = store
        self._tenant = parts["tenant"]
        self.actor: str = parts["actor"]
        self.session: str | None = parts["session"]
        self.policy = policy or GovernancePolicy()
        if not isinstance(self.policy, GovernancePolicy):
            raise InvalidInput("policy must be a GovernancePolicy")
        self._lock = _tenant_lock(store, self._tenant)
        self._chain = AuditChain(store, self._tenant, self.policy.signing_key)

    def __repr__(self) -> str:
        return f"FactMemory(tenant={self._tenant!r}, actor={self.actor!r})"

    # ------------------------------------------------------------------ signing

    def _check(self, records: Sequence[Record]) -> None:
        self._chain.check(records)

    def verify(self, *, anchor: AuditHead | None = None) -> int:
        """Check every fact, audit entry and the head; return how many records were checked.

        Signatures cover every field of a record (times included), facts carry a version,
        and the audit log is a hash chain with a signed head (:mod:`graphmem.policy.audit`),
        so a deleted, reordered, replayed or re-dated entry, an altered record, an older
        signed version of a fact written back, or a fact added or deleted outside
        governance fails here, with every such record named. Reads check only each
        record's own signature; this walks the whole log.

        Args:
            anchor: An :meth:`audit_head` kept from earlier (outside the store): also fail
                if the log no longer holds that entry unchanged (truncated or rewritten).

        Raises:
            InvalidInput: No signing key is configured.
            SignatureMismatch: Records out of place; ``record_ids`` names them,
                ``reasons`` says why for each.
        """
        if self.policy.signing_key is None:
            raise InvalidInput("verify needs a policy with a signing_key")
        if anchor is not None and not isinstance(anchor, AuditHead):
            raise InvalidInput("anchor must be an AuditHead from audit_head()")
        return self._chain.verify(anchor)

    def audit_head(self) -> AuditHead | None:
        """The audit log's signed head (checked): its last seq, entry id and digest.

        Keep it outside the store and pass it to :meth:`verify` later as ``anchor``.
        None before the first entry.
        """
        return self._chain.head()

    # ------------------------------------------------------------------ reading

    def _visible(self, fact: Fact) -> bool:
        if fact.scope == Scope.WORKSPACE:
            return True
        if fact.scope == Scope.AGENT:
            return fact.owner == self.actor
        return self.session is not None and fact.owner == self.session

    def _read_facts(self, where: Mapping[str, Any] | None = None) -> list[Fact]:
        records = self._store.find_records(self._tenant, FACT_KIND, where=where, newest_first=False)
        self._check(records)
        return [f for f in (Fact.from_record(r) for r in records) if self._visible(f)]

    def get(self, fact_id: str) -> Fact:
        """One fact by id; ``NotFound`` if unknown or not visible to this actor / session."""
        record = self._store.get_record(self._tenant, FACT_KIND, fact_id)
        self._check([record])
        fact = Fact.from_record(record)
        if not self._visible(fact):
            raise NotFound(f"no fact {fact_id!r} visible here", fact_id=fact_id)
        return fact

    def facts(
        self,
        *,
        subject: str | None = None,
        relation: str | None = None,
        as_of: datetime | None = None,
        include_pending: bool = False,
        include_all: bool = False,
    ) -> list[Fact]:
        """Visible facts, oldest first: those believed now, or at ``as_of``.

        Args:
            subject: Only this subject (case- and space-insensitive).
            relation: Only this relation (likewise).
            as_of: Facts believed at that time, including ones superseded or invalidated
                since.
            include_pending: Also facts waiting for review.
            include_all: Every fact, whatever its status and validity.
        """
        where: dict[str, Any] = {}
        if subject is not None:
            where["subject_key"] = _norm(check_text(subject, "subject"))
        if relation is not None:
            where["relation_key"] = _norm(check_text(relation, "relation"))
        found = self._read_facts(where)
        if include_all:
            return found
        when = as_utc(as_of, "as_of") or utcnow()
        return [
            f
            for f in found
            if f.believed_at(when) or (include_pending and f.status == FactStatus.PENDING_REVIEW)
        ]

    def audit_log(self, *, limit: int | None = None) -> list[AuditEntry]:
        """The tenant's audit entries, oldest first (the newest ``limit`` if given)."""
        records = self._store.find_records(self._tenant, AUDIT_KIND, limit=limit)
        self._check(records)
        undone = _undone_by(records)  # a rollback is newer than what it undid
        entries = (AuditEntry.from_record(r, undone.get(r.id)) for r in records)
        return sorted(entries, key=lambda e: e.seq)

    # ------------------------------------------------------------------ audit

    def _commit(
        self,
        action: str,
        *,
        key: str | None,
        writes: Sequence[FactWrite] = (),
        deletes: Sequence[str] = (),
        undo: list[dict[str, Any]] | None = None,
        detail: Mapping[str, Any] | None = None,
        extra: Mapping[str, Any] | None = None,
        purge_entries: Sequence[Record] = (),
    ) -> tuple[str, list[Record]]:
        """Write facts and their audit entry in one atomic write; publish the audit event."""
        fact_ids = list(dict.fromkeys([*(w.id for w in writes), *deletes]))
        entry = {
            "action": action,
            "actor": self.actor,
            "session": self.session,
            "key": key,
            "fact_ids": fact_ids,
            "undo": undo,
            "detail": dict(detail or {}),
            **(extra or {}),
        }
        entry_id, stored = self._chain.commit(
            entry, writes=writes, deletes=deletes, purge_entries=purge_entries
        )
        self._bus.publish(
            f"memory.audit.{action}",
            entry_id=entry_id,
            action=action,
            actor=hash_key(self.actor),
            key=key,
            fact_ids=fact_ids,
        )
        return entry_id, stored

    def _refuse_poisoning(self, key: str, kinds: list[str]) -> NoReturn:
        """Refuse a write that carries instructions aimed at the model; audit the refusal."""
        self._reject("poisoning", key, kinds)
        with self._lock:
            self._commit("refuse", key=key, detail={"rule": "poisoning", "kinds": kinds})
        raise PoisoningDetected(
            f"the fact carries instructions aimed at the model ({', '.join(kinds)}); it was "
            "refused. Rephrase it as a fact, or use a policy with poisoning='review'",
            rule="poisoning",
            kinds=tuple(kinds),
        )

    def _reject(self, rule: str, key: str, kinds: Sequence[str] = ()) -> None:
        self._bus.publish("memory.fact_rejected", rule=rule, key=key, kinds=list(kinds))

    # ------------------------------------------------------------------ learning

    def learn(
        self,
        subject: str,
        relation: str,
        value: str,
        *,
        source_type: str = SourceType.MANUAL,
        memory_type: str = MemoryType.SEMANTIC,
        scope: str = Scope.AGENT,
        category: str | None = None,
    ) -> LearnResult:
        """Write one fact through every governance rule (see the module docstring).

        Raises:
            IdentityRequired: ``scope="session"`` without a session.
            InvalidInput: Empty subject, relation or value (after sanitising), an unknown
                memory type or scope, a category that is not a safe name.
            ForbiddenCategory: The category is forbidden.
            MalformedPrivacyTag: A privacy tag is malformed.
            PIIDetected: Personal data, and the policy rejects it.
        """
        for name, text in (("subject", subject), ("relation", relation), ("value", value)):
            if not isinstance(text, str) or not text.strip():
                raise InvalidInput(f"a fact needs a non-empty {name}")
        try:
            memory_type = MemoryType(memory_type).value
            scope = Scope(scope).value
        except ValueError as exc:
            raise InvalidInput(
                f"{exc}; memory types: {', '.join(MemoryType)}; scopes: {', '.join(Scope)}"
            ) from exc
        if not isinstance(source_type, str) or not source_type.strip():
            raise InvalidInput("source_type must be a non-empty string")
        source_type = str(source_type)
        if scope == Scope.SESSION and self.session is None:
            self._bus.publish("memory.identity_rejected", operation="learn", missing=["session"])
            raise IdentityRequired(
                "a session-scoped fact needs a session: open the fact memory with session=...",
                missing=("session",),
                operation="learn",
            )
        owner = {Scope.AGENT: self.actor, Scope.SESSION: self.session or "", Scope.WORKSPACE: ""}[
            Scope(scope)
        ]
        key = hash_key(_norm(subject), _norm(relation))
        if category is not None:
            category = check_safe_name(category, "category").casefold()
            if (
                category in ALWAYS_FORBIDDEN_CATEGORIES
                or category in self.policy.forbidden_categories
            ):
                self._reject("forbidden_category", key)
                raise ForbiddenCategory(
                    f"facts of category {category!r} may not be stored",
                    rule="forbidden_category",
                    category=category,
                )
        input_hash = hashlib.sha256(
            canonical_json([subject, relation, value, source_type, scope, owner]).encode("utf-8")
        ).hexdigest()

        # Sanitise before the lock: all of it is pure and may raise.
        clean: dict[str, str] = {}
        tier: int | None = None
        redacted: list[str] = []
        poisoning: set[str] = set()
        for name, text in (("subject", subject), ("relation", relation), ("value", value)):
            try:
                stripped, found_tier = strip_privacy_tags(text)
            except MalformedPrivacyTag:
                self._reject("privacy_tag", key)
                raise
            if found_tier is not None:
                tier = max(tier or 0, found_tier)
            if self.policy.poisoning != "off":
                poisoning.update(m.kind for m in detect_poisoning(stripped))
            kinds = [m.kind for m in detect_pii(stripped)]
            if kinds:
                if self.policy.pii == "reject":
                    self._reject("pii", key, sorted(set(kinds)))
                    raise PIIDetected(
                        f"the fact's {name} holds personal data ({', '.join(sorted(set(kinds)))}); "
                        "remove it, or use a policy with pii='redact'",
                        rule="pii",
                        kinds=tuple(sorted(set(kinds))),
                    )
                stripped, kinds = redact_pii(stripped)
                redacted.extend(kinds)
            stripped = _SPACES.sub(" ", stripped).strip()
            if not stripped:
                raise InvalidInput(f"the fact's {name} is empty once private parts are removed")
            clean[name] = stripped
        trust = SOURCE_TRUST.get(source_type, UNKNOWN_SOURCE_TRUST)
        poison = sorted(poisoning)
        if poison and self.policy.poisoning == "reject":
            self._refuse_poisoning(key, poison)

        with self._lock:
            now = utcnow()
            recent = self._store.find_records(
                self._tenant,
                FACT_KIND,
                where={"input_hash": input_hash},
                since=now - self.policy.dedup_window,
                limit=1,
            )
            if recent:
                self._check(recent)
                return LearnResult(Decision.NOOP, "duplicate_input", Fact.from_record(recent[0]))
            same = [
                f
                for f in self._read_facts(
                    {
                        "subject_key": _norm(clean["subject"]),
                        "relation_key": _norm(clean["relation"]),
                    }
                )
                if f.scope == scope and f.owner == owner
            ]
            live = [f for f in same if f.status in (FactStatus.ACTIVE, FactStatus.PENDING_REVIEW)]
            for existing in live:
                if similarity(existing.value, clean["value"]) >= self.policy.duplicate_threshold:
                    return LearnResult(Decision.NOOP, "near_duplicate", existing)
            active = [f for f in live if f.status == FactStatus.ACTIVE]
            pending = trust < self.policy.review_below or bool(poison)
            decision, reason = Decision.ADD, "low_trust" if pending else "new"
            changed: list[Fact] = []
            conflicts: list[str] = []
            new_status = FactStatus.PENDING_REVIEW if pending else FactStatus.ACTIVE
            old_status = FactStatus.ACTIVE
            for old in active:
                sim = similarity(old.value, clean["value"])
                if sim >= self.policy.update_threshold and not pending and trust >= old.trust:
                    decision, reason, old_status = Decision.UPDATE, "refines", FactStatus.SUPERSEDED
                    changed.append(old)
                elif sim < self.policy.update_threshold and not pending and trust > old.trust:
                    decision, reason = Decision.INVALIDATE, "contradiction_more_trusted"
                    old_status = FactStatus.INVALIDATED
                    changed.append(old)
                else:
                    conflicts.append(old.id)
            if conflicts:
                new_status = FactStatus.PENDING_REVIEW
                if decision is Decision.ADD:
                    reason = "contradiction_pending_review"
            if poison:
                reason = "suspected_poisoning"
            fact_id = new_id()
            data: dict[str, Any] = {
                "subject": clean["subject"],
                "relation": clean["relation"],
                "value": clean["value"],
                "subject_key": _norm(clean["subject"]),
                "relation_key": _norm(clean["relation"]),
                "memory_type": memory_type,
                "scope": scope,
                "owner": owner,
                "session": self.session,
                "actor": self.actor,
                "source_type": source_type,
                "trust": trust,
                "category": category,
                "status": new_status.value,
                "tier": tier,
                "redacted": sorted(set(redacted)),
                "valid_at": _iso(now) if new_status == FactStatus.ACTIVE else None,
                "invalid_at": None,
                "supersedes": changed[0].id if decision is Decision.UPDATE else None,
                "superseded_by": None,
                "conflicts_with": conflicts,
                "input_hash": input_hash,
                "poisoning": poison,
            }
            writes = [FactWrite(fact_id, data, now)]
            undo: list[dict[str, Any]] = [{"id": fact_id, "before": None}]
            for old in changed:
                record = self._store.get_record(self._tenant, FACT_KIND, old.id)
                undo.append(_undo_step(record))
                update: dict[str, Any] = {"status": old_status.value, "invalid_at": _iso(now)}
                if old_status == FactStatus.SUPERSEDED:
                    update["superseded_by"] = fact_id
                writes.append(FactWrite(old.id, {**record.data, **update}, record.created_at))
            audit_id, stored = self._commit(
                decision.value,
                key=key,
                writes=writes,
                undo=undo,
                detail={"reason": reason, "status": new_status.value},
            )
            facts = [Fact.from_record(r) for r in stored]
            if poison:
                self._bus.publish(
                    "memory.fact_held", rule="poisoning", key=key, kinds=poison, fact_id=fact_id
                )
            return LearnResult(decision, reason, facts[0], tuple(facts[1:]), audit_id)

    def approve(self, fact_id: str) -> Fact:
        """Approve a fact waiting for review: it becomes active (valid from now).

        Active facts it was found to contradict (``conflicts_with``) are invalidated:
        the reviewer sided with the new fact.
        """
        return self._review(fact_id, approve=True)

    def reject(self, fact_id: str) -> Fact:
        """Reject a fact waiting for review: it is kept, as ``rejected``, never served."""
        return self._review(fact_id, approve=False)

    def _review(self, fact_id: str, *, approve: bool) -> Fact:
        with self._lock:
            fact = self.get(fact_id)
            if fact.status != FactStatus.PENDING_REVIEW:
                raise InvalidInput(f"fact {fact_id!r} is {fact.status}, not pending review")
            now = utcnow()
            record = self._store.get_record(self._tenant, FACT_KIND, fact_id)
            undo = [_undo_step(record)]
            update: dict[str, Any] = {"status": FactStatus.REJECTED.value}
            if approve:
                update = {"status": FactStatus.ACTIVE.value, "valid_at": _iso(now)}
            writes = [FactWrite(fact_id, {**record.data, **update}, record.created_at)]
            if approve:
                for other_id in fact.conflicts_with:
                    try:
                        other = self._store.get_record(self._tenant, FACT_KIND, other_id)
                    except NotFound:
                        continue
                    if other.data.get("status") != FactStatus.ACTIVE:
                        continue
                    self._check([other])
                    undo.append(_undo_step(other))
                    changed = {"status": FactStatus.INVALIDATED.value, "invalid_at": _iso(now)}
                    writes.append(FactWrite(other_id, {**other.data, **changed}, other.created_at))
            _, stored = self._commit(
                "approve" if approve else "reject",
                key=hash_key(_norm(fact.subject), _norm(fact.relation)),
                writes=writes,
                undo=undo,
            )
            return Fact.from_record(stored[0])

    # ------------------------------------------------------------------ lifecycle

    def rollback_to(self, entry_id: str) -> int:
        """Undo every audited change after ``entry_id``, newest first; return how many.

        The facts get back the state they had (as new versions: the audit chain records
        each), facts added since are deleted, and one ``rollback`` entry lists the entries
        it undid (``rolled_back`` / ``rolled_back_by`` of those read from it; entries are
        never changed). Purges, rollbacks and refused writes carry no undo data and are
        not undone.

        Raises:
            NotFound: No such audit entry.
            InvalidInput: That entry was itself rolled back.
        """
        with self._lock:
            target_record = self._store.get_record(self._tenant, AUDIT_KIND, entry_id)
            self._check([target_record])
            since = self._store.find_records(
                self._tenant, AUDIT_KIND, since=target_record.created_at
            )
            self._check(since)
            undone = _undone_by(since)
            if entry_id in undone:
                raise InvalidInput(f"audit entry {entry_id!r} was rolled back itself")
            target = AuditEntry.from_record(target_record)
            later = [
                r
                for r in since
                if int(r.data["seq"]) > target.seq
                and r.id not in undone
                and not r.data.get("rolled_back")
                and r.data.get("undo") is not None
            ]
            later.sort(key=lambda r: int(r.data["seq"]), reverse=True)
            restore: dict[str, dict[str, Any]] = {}
            for record in later:
                for step in record.data["undo"]:
                    restore[step["id"]] = step  # the oldest 'before' wins
            writes: list[FactWrite] = []
            deletes: list[str] = []
            for fact_id, step in restore.items():
                try:
                    current: Record | None = self._store.get_record(
                        self._tenant, FACT_KIND, fact_id
                    )
                except NotFound:
                    current = None
                before = step["before"]
                if before is None:
                    if current is not None:
                        deletes.append(fact_id)
                    continue
                if current is not None:
                    # A new version with the old content: writing the old version back
                    # as it was would be exactly the replay verify() refuses.
                    version, created = current.data.get("version"), current.created_at
                else:
                    version = before.get("version")
                    created = _time(step.get("created_at")) or utcnow()
                writes.append(FactWrite(fact_id, {**before, "version": version}, created))
            if later:
                self._commit(
                    "rollback",
                    key=None,
                    writes=writes,
                    deletes=deletes,
                    detail={"to": entry_id, "entries": len(later)},
                    extra={"undone": [r.id for r in later]},
                )
            return len(later)

    def purge(
        self,
        *,
        max_age: timedelta | None = None,
        max_entries: int | None = None,
        now: datetime | None = None,
    ) -> PurgeResult:
        """Retention: delete old facts and audit entries, by age and by a count cap.

        Facts and audit entries are purged separately: those created before
        ``now - max_age``, then the oldest until at most ``max_entries`` of each remain.
        Never purged: superseded or invalidated facts (they keep ``as_of`` history),
        rolled-back audit entries, audit entries that invalidated or superseded a fact,
        rollbacks and purges (they say what was undone and what was purged). The cap
        counts those too, so fewer may go than the cap asks. The purge is itself audited,
        in the same atomic write: counts, and for each audit entry removed a tombstone
        (its seq, id, digest and the fact versions it wrote; none of its content) that
        keeps the hash chain whole.

        Raises:
            InvalidInput: Neither limit given, a non-positive ``max_age`` or ``max_entries``.
        """
        if max_age is None and max_entries is None:
            raise InvalidInput("purge needs max_age, max_entries or both")
        if max_age is not None and (not isinstance(max_age, timedelta) or max_age <= timedelta(0)):
            raise InvalidInput("max_age must be a positive timedelta")
        if max_entries is not None and (
            isinstance(max_entries, bool) or not isinstance(max_entries, int) or max_entries <= 0
        ):
            raise InvalidInput("max_entries must be a positive integer")
        with self._lock:
            now = as_utc(now, "now") or utcnow()
            facts = self._store.find_records(self._tenant, FACT_KIND, newest_first=False)
            audit = self._store.find_records(self._tenant, AUDIT_KIND, newest_first=False)
            audit.sort(key=lambda r: int(r.data["seq"]))
            self._check(facts + audit)
            undone = _undone_by(audit)

            def keep_fact(r: Record) -> bool:
                return r.data.get("status") in (FactStatus.SUPERSEDED, FactStatus.INVALIDATED)

            def keep_entry(r: Record) -> bool:
                return (
                    r.id in undone
                    or bool(r.data.get("rolled_back"))
                    or r.data.get("action")
                    in (Decision.UPDATE, Decision.INVALIDATE, "rollback", "purge")
                )

            def doomed(records: list[Record], keep: Any) -> list[str]:
                gone: list[str] = []
                if max_age is not None and now - datetime.min.replace(tzinfo=UTC) > max_age:
                    # (an age reaching back before year 1 keeps everything)
                    cutoff = now - max_age
                    gone = [r.id for r in records if r.created_at < cutoff and not keep(r)]
                if max_entries is not None:
                    left = len(records) - len(gone)
                    for r in records:
                        if left <= max_entries:
                            break
                        if r.id not in gone and not keep(r):
                            gone.append(r.id)
                            left -= 1
                return gone

            fact_ids = doomed(facts, keep_fact)
            entry_ids = set(doomed(audit, keep_entry))
            if fact_ids or entry_ids:
                self._commit(
                    "purge",
                    key=None,
                    deletes=fact_ids,
                    detail={"facts": len(fact_ids), "audit_entries": len(entry_ids)},
                    purge_entries=[r for r in audit if r.id in entry_ids],
                )
            return PurgeResult(len(fact_ids), len(entry_ids))

    def apply_retention(self, *, now: datetime | None = None) -> PurgeResult | None:
        """Purge by the policy's retention settings; None when the policy sets none.

        :meth:`purge` with ``max_age=policy.retention_max_age`` and
        ``max_entries=policy.retention_max_entries``. ``graphmem serve`` runs it on a
        schedule for every tenant it serves.
        """
        if not self.policy.retention:
            return None
        return self.purge(
            max_age=self.policy.retention_max_age,
            max_entries=self.policy.retention_max_entries,
            now=now,
        )

    def forget(self, fact_id: str) -> Fact:
        """Stop believing a fact from now on: it becomes ``invalidated``, kept for ``as_of``.

        One governed change like any other (one atomic write of the fact's new version,
        its audit entry and the log's head): audited as ``invalidate`` with reason
        ``forgotten``, so :meth:`rollback_to` can bring it back and :meth:`verify`
        accounts for it.

        Raises:
            NotFound: No such fact visible to this actor / session.
            InvalidInput: The fact is not ``active`` or ``pending_review``.
        """
        with self._lock:
            fact = self.get(fact_id)
            if fact.status not in (FactStatus.ACTIVE, FactStatus.PENDING_REVIEW):
                raise InvalidInput(
                    f"fact {fact_id!r} is {fact.status}; only a live fact is forgotten"
                )
            record = self._store.get_record(self._tenant, FACT_KIND, fact_id)
            update = {"status": FactStatus.INVALIDATED.value, "invalid_at": _iso(utcnow())}
            _, stored = self._commit(
                Decision.INVALIDATE.value,
                key=hash_key(_norm(fact.subject), _norm(fact.relation)),
                writes=[FactWrite(fact_id, {**record.data, **update}, record.created_at)],
                undo=[_undo_step(record)],
                detail={"reason": "forgotten"},
            )
            return Fact.from_record(stored[0])

    # ------------------------------------------------------------------ statistics

    def stats(self) -> GovernanceStats:
        """Counts by status, memory type and source, mean trust, audit size."""
        records = self._store.find_records(self._tenant, FACT_KIND, newest_first=False)
        audit = self._store.find_records(self._tenant, AUDIT_KIND)
        self._check(records + audit)
        undone = _undone_by(audit)
        facts = [Fact.from_record(r) for r in records]
        return GovernanceStats(
            facts=len(facts),
            by_status=dict(Counter(f.status for f in facts)),
            by_memory_type=dict(Counter(f.memory_type for f in facts)),
            by_source_type=dict(Counter(f.source_type for f in facts)),
            mean_trust=round(sum(f.trust for f in facts) / len(facts), 4) if facts else 0.0,
            audit_entries=len(audit),
            rolled_back_entries=sum(
                1 for r in audit if r.id in undone or r.data.get("rolled_back")
            ),
            signed=self.policy.signing_key is not None,
            poisoning_held=sum(1 for f in facts if f.poisoning),
            poisoning_rejected=sum(
                1
                for r in audit
                if r.data.get("action") == "refuse"
                and (r.data.get("detail") or {}).get("rule") == "poisoning"
            ),
            oldest_fact_at=min((f.created_at for f in facts), default=None),
            newest_fact_at=max((f.created_at for f in facts), default=None),
        )

    # ------------------------------------------------------------------ retrieval

    def recall(
        self,
        query: str,
        *,
        max_tokens: int = 500,
        limit: int | None = None,
        memory_types: Sequence[str] | None = None,
        now: datetime | None = None,
    ) -> list[ScoredFact]:
        """The visible current facts that best answer ``query``, within ``max_tokens``.

        Scored as the module docstring says; ties broken by newer first, then id.

        Raises:
            InvalidInput: ``max_tokens`` or ``limit`` not positive; unknown memory type.
        """
        if not isinstance(query, str):
            raise InvalidInput("query must be a str")
        if isinstance(max_tokens, bool) or not isinstance(max_tokens, int) or max_tokens <= 0:
            raise InvalidInput(f"max_tokens must be a positive integer, got {max_tokens!r}")
        check_limit(limit)
        types = None
        if memory_types is not None:
            try:
                types = {MemoryType(t).value for t in check_safe_names(memory_types, "type") or ()}
            except ValueError as exc:
                raise InvalidInput(str(exc)) from exc
        now = as_utc(now, "now") or utcnow()
        terms = _words(query) - _STOP_WORDS
        half_life = self.policy.half_life.total_seconds()
        scored: list[ScoredFact] = []
        for fact in self.facts():
            if types is not None and fact.memory_type not in types:
                continue
            relevance = len(terms & _words(fact.text)) / len(terms) if terms else 0.0
            if terms and relevance == 0.0:
                continue
            since = fact.valid_at or fact.created_at
            age = max(0.0, (now - since).total_seconds())
            recency = 0.5 ** (age / half_life)
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
