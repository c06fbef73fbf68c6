"""The data graphmem stores: pydantic models, data only, no I/O.

Models are immutable values (``frozen=True``): a store may hand the same instance to
many readers without copying, which is what keeps the embedded backend's reads as fast
as a raw graph walk. To change something, ask the store (``update_entity``) or build a
new value with ``model_copy(update=...)``. Attribute maps come back as read-only
``FrozenDict`` / ``FrozenList`` values, which compare equal to plain dicts and lists.

Bad data raises :class:`graphmem.core.errors.InvalidInput` (a ``ValueError``) that lists every
field at fault, whether the model is built directly or by a store.
"""

from __future__ import annotations

from graphmem.core.checks import SAFE_NAME_PATTERN, check_safe_name
from graphmem.core.models.base import (
    NODE_KINDS,
    SPEAKER_ROLES,
    VALUE_ENTITY_TYPE,
    WELL_KNOWN_ATTRIBUTES,
    Direction,
    EntityType,
    FrozenDict,
    FrozenList,
    NodeKind,
    ProvenanceSource,
    Role,
    estimate_tokens,
    new_id,
    utcnow,
)
from graphmem.core.models.base import (
    Attributes as Attributes,
)
from graphmem.core.models.base import (
    Blob as Blob,
)
from graphmem.core.models.base import (
    Identifier as Identifier,
)
from graphmem.core.models.base import (
    Limit as Limit,
)
from graphmem.core.models.base import (
    Name as Name,
)
from graphmem.core.models.base import (
    SafeName as SafeName,
)
from graphmem.core.models.base import (
    StrictBool as StrictBool,
)
from graphmem.core.models.base import (
    Timestamp as Timestamp,
)
from graphmem.core.models.base import (
    _Model as _Model,
)
from graphmem.core.models.base import (
    construct_trusted as construct_trusted,
)
from graphmem.core.models.graph import (
    Chunk,
    Document,
    Entity,
    EntityFilter,
    Provenance,
    Record,
    Relationship,
    RelationshipFilter,
    Subgraph,
    chunk_search_text,
    entity_aliases,
    entity_text,
)
from graphmem.core.models.identity import (
    NPCIdentity,
)
from graphmem.core.models.results import (
    ContextResult,
)
from graphmem.core.models.turns import (
    Artifact,
    ArtifactRef,
    Branch,
    SessionInfo,
    ToolCall,
    Trajectory,
    Turn,
    TurnFilter,
)
from graphmem.core.models.turns import (
    Label as Label,
)

__all__ = [
    "VALUE_ENTITY_TYPE",
    "NODE_KINDS",
    "Artifact",
    "ArtifactRef",
    "Branch",
    "SAFE_NAME_PATTERN",
    "SPEAKER_ROLES",
    "WELL_KNOWN_ATTRIBUTES",
    "Direction",
    "Chunk",
    "ContextResult",
    "Document",
    "Entity",
    "EntityFilter",
    "EntityType",
    "FrozenDict",
    "FrozenList",
    "NPCIdentity",
    "Provenance",
    "ProvenanceSource",
    "Record",
    "NodeKind",
    "Relationship",
    "RelationshipFilter",
    "Role",
    "SessionInfo",
    "Subgraph",
    "ToolCall",
    "Trajectory",
    "Turn",
    "TurnFilter",
    "check_safe_name",
    "chunk_search_text",
    "entity_aliases",
    "entity_text",
    "estimate_tokens",
    "new_id",
    "utcnow",
]
