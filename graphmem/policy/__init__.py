"""Memory policy: what an agent's LLM sees, and what it may write.

One concern per module, each readable on its own:

- :mod:`graphmem.policy.identity`: fail-closed identity (tenant, user, session, run id);
- what the LLM sees: :mod:`graphmem.policy.context` (``ConversationMemory`` and its
  strategies ``none``, ``truncation``, ``rolling_summary``),
  :mod:`graphmem.policy.llm_context` (``LLMContext``, what a turn costs),
  :mod:`graphmem.policy.summarizers` (the summarizer protocol and the default),
  :mod:`graphmem.policy.health` (the summarizer's health state machine),
  :mod:`graphmem.policy.snapshots` (the portable context snapshot);
- what it may write: :mod:`graphmem.policy.governance` (``FactMemory``, where the rules
  meet the store; its verbs by concern in :mod:`graphmem.policy.governed`,
  :mod:`graphmem.policy.learning`, :mod:`graphmem.policy.review` and
  :mod:`graphmem.policy.recall`), :mod:`graphmem.policy.rules` (trust, scopes,
  statuses, the policy), :mod:`graphmem.policy.facts` (the values governed calls return),
  :mod:`graphmem.policy.sanitize` (privacy tags, personal data, poisoning; over
  :mod:`graphmem.policy.pii`, :mod:`graphmem.policy.poisoning` and
  :mod:`graphmem.policy.normalize`), :mod:`graphmem.policy.consolidation` (the
  add / update / invalidate / no-op decision), :mod:`graphmem.policy.audit`
  (signatures, versions, the audit hash chain), :mod:`graphmem.policy.lifecycle`
  (rollback and retention plans), :mod:`graphmem.policy.scoring` (recall scoring).

Pure logic over the :class:`~graphmem.GraphStore` protocol: it runs the same on every
backend.
"""

from graphmem.policy.audit import AuditHead
from graphmem.policy.context import (
    STRATEGIES,
    ConversationMemory,
    LineSummarizer,
    LLMContext,
    Summarizer,
)
from graphmem.policy.governance import (
    Decision,
    Fact,
    FactMemory,
    GovernancePolicy,
    LearnResult,
    ScoredFact,
)
from graphmem.policy.health import HealthMachine, HealthState
from graphmem.policy.identity import MemoryIdentity, require_identity

__all__ = [
    "STRATEGIES",
    "AuditHead",
    "ConversationMemory",
    "Decision",
    "Fact",
    "FactMemory",
    "GovernancePolicy",
    "HealthMachine",
    "HealthState",
    "LLMContext",
    "LearnResult",
    "LineSummarizer",
    "MemoryIdentity",
    "ScoredFact",
    "Summarizer",
    "require_identity",
]
