"""The inspector's questions as MCP tools: beliefs beside the truth, and a neighbourhood.

A game master's agent asks what an NPC gets wrong (``check_beliefs``) and what surrounds an
entity under either clock (``entity_neighborhood``); the same answers as the inspector's
routes (``GET /v1/npcs/{id}/beliefs/truth``, ``GET /v1/entities/{id}/neighborhood``).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from graphmem.errors import NotFound
from graphmem.minds.truth import BeliefCheck
from graphmem.models import Entity, Relationship

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from graphmem.memory import Memory

__all__ = ["INSPECT_TOOLS", "add_inspect_tools"]

INSPECT_TOOLS = ("check_beliefs", "entity_neighborhood")
"""The names of the tools :func:`add_inspect_tools` registers."""

_AsOf = Annotated[datetime | None, Field(description="World (game) time: as things stood then.")]
_RecordedAsOf = Annotated[
    datetime | None, Field(description="Memory time: as the store held it then.")
]


class BeliefChecks(BaseModel):
    """An NPC's beliefs, oldest first, each beside what the world holds (agrees false: wrong)."""

    checks: list[BeliefCheck]


class Neighborhood(BaseModel):
    """An entity, its facts (with provenance and validity) and the entities they reach."""

    entities: list[Entity]
    relationships: list[Relationship]


def add_inspect_tools(
    server: MCPServer,
    mem: Memory,
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    readonly: ToolAnnotations,
) -> None:
    """Register :data:`INSPECT_TOOLS` on ``server`` over ``mem``; ``wrap`` maps errors."""

    def resolve(entity: str) -> str:
        found = mem.resolve_entity(entity)
        if found is None:
            raise NotFound(f"no entity {entity!r} (by id or name)", entity_id=entity)
        return found.id

    @server.tool(annotations=readonly)
    @wrap
    def check_beliefs(
        npc: Annotated[str, Field(description="The NPC: its id, or its name.")],
        as_of: _AsOf = None,
        recorded_as_of: _RecordedAsOf = None,
    ) -> BeliefChecks:
        """What an NPC believes beside what is true: each belief with what the world holds.

        ``agrees: false`` marks a false belief (it did not see the change, or was lied to).
        """
        found = mem.check_beliefs(resolve(npc), as_of=as_of, recorded_as_of=recorded_as_of)
        return BeliefChecks(checks=found)

    @server.tool(annotations=readonly)
    @wrap
    def entity_neighborhood(
        entity: Annotated[str, Field(description="Its id, or its name.")],
        rel_types: Annotated[
            list[str] | None, Field(description="Only facts of these relationship types.")
        ] = None,
        as_of: _AsOf = None,
        recorded_as_of: _RecordedAsOf = None,
        limit: Annotated[int, Field(ge=1, le=1000, description="At most this many facts.")] = 100,
    ) -> Neighborhood:
        """An entity's facts, both directions, with provenance and validity, and their ends.

        Current facts by default; the world as it was with ``as_of`` / ``recorded_as_of``.
        """
        found = mem.neighborhood(
            resolve(entity),
            rel_types=rel_types,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            limit=limit,
        )
        return Neighborhood(entities=list(found.entities), relationships=list(found.relationships))
