"""Governed writes: the facts an agent learns, checked, consolidated, audited.

:class:`FactMemory` is where the rules meet the store. Each rule lives in its own
module, readable on its own:

- :mod:`graphmem.policy.rules`: source trust, memory types, scopes, statuses and
  :class:`GovernancePolicy` (every threshold);
- :mod:`graphmem.policy.facts`: :class:`Fact` and what each call returns;
- :mod:`graphmem.policy.sanitize`: privacy tags, personal data, model-directed
  instructions;
- :mod:`graphmem.policy.consolidation`: the add / update / invalidate / no-op decision;
- :mod:`graphmem.policy.audit`: signatures, fact versions, the audit hash chain;
- :mod:`graphmem.policy.lifecycle`: what rollback and retention write and delete;
- :mod:`graphmem.policy.scoring`: recall scoring.

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
4. **Privacy tags, personal data, memory poisoning** (:func:`~graphmem.policy.sanitize.sanitise`):
   ``<private>`` sections removed, ``<classified:tier_N>`` tags stripped (``tier``);
   personal data rejected (``PIIDetected``, policy ``pii="reject"``, the default) or
   redacted (``"redact"``); instructions aimed at the model held for review (policy
   ``poisoning="review"``, the default: ``pending_review``, reason
   ``suspected_poisoning``, ``memory.fact_held`` published), refused (``"reject"``:
   ``PoisoningDetected``, ``memory.fact_rejected``, the refusal audited as a ``refuse``
   entry) or not looked for (``"off"``). Both are counted by :meth:`FactMemory.stats`.
5. **Trust** by source type (:data:`SOURCE_TRUST`; an unknown source gets
   :data:`UNKNOWN_SOURCE_TRUST`). Below ``review_below`` (default 0.5) the fact is
   stored ``pending_review``: not served by reads or retrieval until approved.
6. **Conflicts and consolidation** (:func:`~graphmem.policy.consolidation.consolidate`)
   against the current facts with the same subject and relation (case- and
   space-insensitive) in the same scope and owner: no-op, update (the old fact
   ``superseded``), invalidate (the old fact ``invalidated``, still readable through
   ``as_of``) or add (``pending_review`` with ``conflicts_with`` when it contradicts a
   fact it may not replace). Facts are single-valued per subject and relation within a
   scope: a second value is a refinement or a contradiction, never a second truth.
7. **Audit.** Every mutation appends an audit entry (who, when, which key as a hash,
   which fact ids, how to undo it), written with its facts in one atomic write, and
   publishes ``memory.audit.<action>`` with hashed keys only. Facts are versioned and the
   audit log is a signed hash chain (:mod:`graphmem.policy.audit`): :meth:`FactMemory.verify`
   names any record deleted, reordered, replayed, re-dated or written back.

Scopes: ``agent`` facts belong to their actor, ``session`` facts to their session,
``workspace`` facts to the whole tenant. A fact memory sees workspace facts, its actor's
agent facts and its session's session facts, whoever wrote them: actors and sessions are
labels inside a tenant, not credentials (docs/policy.md, "Who reads a session-scoped
fact").

Retrieval (:meth:`FactMemory.recall`) ranks the visible current facts by relevance,
recency, memory type and trust (:mod:`graphmem.policy.scoring`).

:class:`FactMemory` is put together from one module per concern, each extending the
first: :mod:`graphmem.policy.governed` (state, the lock, the audit chain, reads and the
one commit path), :mod:`graphmem.policy.learning` (learn, relate and the refusals),
:mod:`graphmem.policy.review` (approve, reject, rollback, retention, forget) and
:mod:`graphmem.policy.recall` (statistics and recall).
"""

from __future__ import annotations

from graphmem.policy.audit import AUDIT_HEAD_KIND, AUDIT_KIND, FACT_KIND, AuditHead
from graphmem.policy.consolidation import similarity
from graphmem.policy.facts import (
    AuditEntry,
    Fact,
    GovernanceStats,
    LearnResult,
    PurgeResult,
    ScoredFact,
)
from graphmem.policy.learning import FactLearning
from graphmem.policy.recall import FactRecall
from graphmem.policy.review import FactReview
from graphmem.policy.rules import (
    ALWAYS_FORBIDDEN_CATEGORIES,
    MEMORY_TYPE_WEIGHT,
    SCORE_WEIGHTS,
    SOURCE_TRUST,
    UNKNOWN_SOURCE_TRUST,
    Decision,
    FactStatus,
    GovernancePolicy,
    MemoryType,
    Scope,
    SourceType,
)
from graphmem.policy.sanitize import strip_privacy_tags

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
    "similarity",
    "strip_privacy_tags",
]


class FactMemory(FactLearning, FactReview, FactRecall):
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
