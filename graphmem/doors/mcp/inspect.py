"""The inspector's question an agent asks too, as an MCP tool: beliefs beside the truth.

A game master's agent asks what an NPC gets wrong (``check_beliefs``): the same answer as
the inspector's ``GET /v1/npcs/{id}/beliefs/truth``. The inspector's neighbourhood read
stays on HTTP and in Python: an agent reads an entity's facts through ``npc_snapshot`` and
``get_entity``, and every tool listed costs each agent context (the list has a budget).
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, Field

from graphmem.core.errors import NotFound
from graphmem.minds.truth import BeliefCheck

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from graphmem.memory import Memory

__all__ = ["INSPECT_TOOLS", "add_inspect_tools"]

INSPECT_TOOLS = ("check_beliefs",)
"""The names of the tools :func:`add_inspect_tools` registers."""

_AsOf = Annotated[datetime | None, Field(description="World (game) time: as things stood then.")]
_RecordedAsOf = Annotated[
    datetime | None, Field(description="Memory time: as the store held it then.")
]


class BeliefChecks(BaseModel):
    """An NPC's beliefs, oldest first, each beside what the world holds (agrees false: wrong)."""

    checks: list[BeliefCheck]


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
