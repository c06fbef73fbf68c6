"""graphmem: graph memory for AI agents and game NPCs.

>>> import graphmem
>>> with graphmem.open("memory://", tenant="demo") as mem:
...     _ = mem.upsert_entities([graphmem.Entity(id="mira", type="npc", name="Mira")])
...     mem.identity_snapshot("mira").to_prompt()
'Mira (npc)'
"""

from typing import TYPE_CHECKING, Any

from graphmem.conversation.tree import Conversation
from graphmem.core.errors import (
    AuditChainBroken,
    BackendUnavailable,
    CommitsMissing,
    ForbiddenCategory,
    GraphmemError,
    IdentityRequired,
    InvalidInput,
    InvalidSnapshot,
    InvalidTransition,
    MalformedPrivacyTag,
    NotAStore,
    NotFound,
    PIIDetected,
    PoisoningDetected,
    PolicyViolation,
    SignatureMismatch,
    StoreClosed,
    StoreCorrupted,
    StoreLocked,
    StoreReadOnly,
    UnsupportedOperation,
)
from graphmem.core.models import (
    SPEAKER_ROLES,
    WELL_KNOWN_ATTRIBUTES,
    Artifact,
    ArtifactRef,
    Branch,
    Chunk,
    ContextResult,
    Document,
    Entity,
    EntityFilter,
    EntityType,
    NPCIdentity,
    Provenance,
    ProvenanceSource,
    Record,
    Relationship,
    RelationshipFilter,
    Role,
    SessionInfo,
    Subgraph,
    ToolCall,
    Trajectory,
    Turn,
    TurnFilter,
    estimate_tokens,
)
from graphmem.core.store import (
    ChangeSet,
    GraphStore,
    RelationshipPattern,
    RoleCooccurrence,
    SearchHit,
    SearchPair,
    TenantDump,
    TraceEvent,
    open_store,
    register_backend,
    registered_schemes,
)
from graphmem.core.version import __version__
from graphmem.memory import Memory, open

if TYPE_CHECKING:
    from graphmem.conversation.summarize import summarize_turn
    from graphmem.core.events import EventBus
    from graphmem.doors.aio import AsyncConversation, AsyncMemory, open_async
    from graphmem.policy import (
        ConversationMemory,
        FactMemory,
        GovernancePolicy,
        HealthState,
        LineSummarizer,
        LLMContext,
        MemoryIdentity,
        Summarizer,
    )
    from graphmem.retrieval.graphqa import GraphAnswer, GraphAnswers, GraphQASettings
    from graphmem.retrieval.schema import GraphSchema


# Imported on first use (PEP 562), so that `import graphmem` stays fast for the many
# callers that never touch the policy layer.
_LAZY = {
    "AsyncConversation": "graphmem.doors.aio",
    "AsyncMemory": "graphmem.doors.aio",
    "ConversationMemory": "graphmem.policy",
    "EventBus": "graphmem.core.events",
    "FactMemory": "graphmem.policy",
    "GraphAnswer": "graphmem.retrieval.graphqa",
    "GraphAnswers": "graphmem.retrieval.graphqa",
    "GraphQASettings": "graphmem.retrieval.graphqa",
    "GraphSchema": "graphmem.retrieval.schema",
    "GovernancePolicy": "graphmem.policy",
    "HealthState": "graphmem.policy",
    "LLMContext": "graphmem.policy",
    "LineSummarizer": "graphmem.policy",
    "MemoryIdentity": "graphmem.policy",
    "Summarizer": "graphmem.policy",
    "open_async": "graphmem.doors.aio",
    "summarize_turn": "graphmem.conversation.summarize",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


__all__ = [
    "Artifact",
    "ArtifactRef",
    "AsyncConversation",
    "AsyncMemory",
    "AuditChainBroken",
    "BackendUnavailable",
    "Branch",
    "ChangeSet",
    "Chunk",
    "CommitsMissing",
    "ContextResult",
    "Conversation",
    "ConversationMemory",
    "Document",
    "Entity",
    "EntityFilter",
    "EntityType",
    "EventBus",
    "FactMemory",
    "ForbiddenCategory",
    "GovernancePolicy",
    "GraphAnswer",
    "GraphAnswers",
    "GraphQASettings",
    "GraphSchema",
    "GraphStore",
    "GraphmemError",
    "HealthState",
    "IdentityRequired",
    "InvalidInput",
    "InvalidSnapshot",
    "InvalidTransition",
    "LLMContext",
    "LineSummarizer",
    "MalformedPrivacyTag",
    "Memory",
    "MemoryIdentity",
    "NPCIdentity",
    "NotAStore",
    "NotFound",
    "PIIDetected",
    "PoisoningDetected",
    "PolicyViolation",
    "Provenance",
    "ProvenanceSource",
    "Record",
    "Relationship",
    "RelationshipFilter",
    "RelationshipPattern",
    "Role",
    "RoleCooccurrence",
    "SPEAKER_ROLES",
    "SearchHit",
    "SearchPair",
    "SessionInfo",
    "SignatureMismatch",
    "StoreClosed",
    "StoreCorrupted",
    "StoreLocked",
    "StoreReadOnly",
    "Subgraph",
    "Summarizer",
    "TenantDump",
    "ToolCall",
    "TraceEvent",
    "Trajectory",
    "Turn",
    "TurnFilter",
    "UnsupportedOperation",
    "WELL_KNOWN_ATTRIBUTES",
    "__version__",
    "estimate_tokens",
    "open",
    "open_async",
    "open_store",
    "register_backend",
    "registered_schemes",
    "summarize_turn",
]
