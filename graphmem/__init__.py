"""graphmem: graph memory for AI agents and game NPCs.

>>> import graphmem
>>> with graphmem.open("memory://", tenant="demo") as mem:
...     _ = mem.upsert_entities([graphmem.Entity(id="mira", type="npc", name="Mira")])
...     mem.identity_snapshot("mira").to_prompt()
'Mira (npc)'
"""

from graphmem.conversation import Conversation
from graphmem.errors import (
    BackendUnavailable,
    GraphmemError,
    IdentityRequired,
    InvalidInput,
    InvalidSnapshot,
    NotFound,
    StoreClosed,
    UnsupportedOperation,
)
from graphmem.memory import Memory, open
from graphmem.models import (
    SPEAKER_ROLES,
    WELL_KNOWN_ATTRIBUTES,
    Chunk,
    ContextResult,
    Document,
    Entity,
    EntityFilter,
    EntityType,
    NPCIdentity,
    Provenance,
    ProvenanceSource,
    Relationship,
    RelationshipFilter,
    Role,
    SessionInfo,
    Subgraph,
    Turn,
    TurnFilter,
    estimate_tokens,
)
from graphmem.store import (
    GraphStore,
    SearchHit,
    TenantDump,
    TraceEvent,
    open_store,
    register_backend,
    registered_schemes,
)

__version__ = "0.1.0"

__all__ = [
    "BackendUnavailable",
    "Chunk",
    "ContextResult",
    "Conversation",
    "Document",
    "Entity",
    "EntityFilter",
    "EntityType",
    "GraphStore",
    "GraphmemError",
    "IdentityRequired",
    "InvalidInput",
    "InvalidSnapshot",
    "Memory",
    "NPCIdentity",
    "NotFound",
    "Provenance",
    "ProvenanceSource",
    "Relationship",
    "RelationshipFilter",
    "Role",
    "SPEAKER_ROLES",
    "SearchHit",
    "SessionInfo",
    "StoreClosed",
    "Subgraph",
    "TenantDump",
    "TraceEvent",
    "Turn",
    "TurnFilter",
    "UnsupportedOperation",
    "WELL_KNOWN_ATTRIBUTES",
    "__version__",
    "estimate_tokens",
    "open",
    "open_store",
    "register_backend",
    "registered_schemes",
]
