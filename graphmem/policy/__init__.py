"""Memory policy: what an agent's LLM sees, and what it may write.

- :mod:`graphmem.policy.identity`: fail-closed identity (tenant, user, session, run id);
- :mod:`graphmem.policy.context`: conversation strategies (``none``, ``truncation``,
  ``rolling_summary``) and the summarizer protocol;
- :mod:`graphmem.policy.health`: the summarizer's health state machine;
- :mod:`graphmem.policy.pii`: personal-data detectors (over
  :mod:`graphmem.policy.normalize`'s normalised text);
- :mod:`graphmem.policy.governance`: governed fact writes, audit, retention, retrieval;
- :mod:`graphmem.policy.audit`: signatures, fact versions, the audit hash chain and its
  verification.

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
