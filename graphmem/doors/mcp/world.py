"""The MCP tools that build a world from nothing, and the wire form of every tool.

:mod:`graphmem.doors.mcp.server` registers them with :func:`add_world_tools`:

- ``upsert_entities`` / ``get_entity`` / ``find_entities`` / ``delete_entities``: the
  entity graph's nodes (an id may be left out: it is made from the name);
- ``upsert_relationships``: facts between entities (ends by id or by name);
- ``fork_conversation``: move a conversation's head back to an earlier turn, so the next
  ``append_turn`` starts a new branch there;
- :func:`link_subject`: what ``remember_fact`` does before a workspace fact, so the fact
  shows in the graph (the subject is linked by name or created).

:func:`server_class` is the SDK's ``MCPServer`` with a lean wire form: tool schemas
without pydantic's generated titles (and output schemas without their prose), and a
result's text block the structured content as compact JSON, not indented a second time.
"""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import Entity, Relationship, Turn
from graphmem.policy.fact_graph import edge_type

if TYPE_CHECKING:
    from collections.abc import Callable

    from mcp.server.mcpserver import MCPServer
    from mcp.types import ToolAnnotations

    from graphmem.memory import Memory

__all__ = ["WORLD_TOOLS", "add_world_tools", "link_subject", "server_class"]

WORLD_TOOLS = (
    "upsert_entities",
    "get_entity",
    "find_entities",
    "delete_entities",
    "upsert_relationships",
    "fork_conversation",
)
"""The names of the tools :func:`add_world_tools` registers."""

_NOT_ID = re.compile(r"[^0-9a-z]+")


class EntityIn(BaseModel):
    """An entity to write; without ``id``, the entity of that name (or a new id)."""

    model_config = ConfigDict(extra="forbid")

    name: Annotated[str, Field(min_length=1, max_length=512)]
    type: Annotated[str, Field(description="npc, player, location, item, faction, ...")] = "concept"
    id: Annotated[str | None, Field(max_length=512)] = None
    attributes: dict[str, Any] = Field(default_factory=dict)


class RelationshipIn(BaseModel):
    """A fact between two entities, each named by id or by name."""

    model_config = ConfigDict(extra="forbid")

    source: Annotated[str, Field(min_length=1, description="Id or name.")]
    type: Annotated[str, Field(description="e.g. works_at, knows, located_in.")]
    target: Annotated[str, Field(min_length=1, description="Id or name.")]
    attributes: dict[str, Any] = Field(default_factory=dict)
    confidence: Annotated[float, Field(ge=0.0, le=1.0)] = 1.0


class Entities(BaseModel):
    """Entities, as stored."""

    entities: list[Entity]


class Relationships(BaseModel):
    """Relationships, as stored."""

    relationships: list[Relationship]


class DeletedCount(BaseModel):
    """How many of the entities existed (and were deleted, with their relationships)."""

    deleted: int


def new_entity_id(mem: Memory, name: str) -> str:
    """An id made from ``name`` (``the_lantern_tavern``) that no entity of ``mem`` holds."""
    base = _NOT_ID.sub("_", name.casefold()).strip("_")[:200] or "entity"
    candidate, n = base, 1
    while mem.get_entities([candidate]):
        n += 1
        candidate = f"{base}_{n}"
    return candidate


def link_subject(mem: Memory, subject: str, relation: str, entity_type: str) -> Entity | None:
    """Make a workspace fact's subject an entity, so the fact shows in the graph.

    Returns the entity it created, or None when ``subject`` already names one (by id
    or name). The caller deletes a created entity if the fact is then refused.

    Raises:
        InvalidInput: The relation cannot be a relationship type, or the subject's
            name is shared by several entities.
    """
    if edge_type(relation) is None:
        raise InvalidInput(
            f"relation {relation!r} cannot be a relationship of the graph: use words and "
            "underscores (works_at, member of, located_in). Nothing was written."
        )
    if mem.resolve_entity(subject) is not None:
        return None
    made = Entity(id=new_entity_id(mem, subject), type=entity_type, name=subject.strip())
    mem.upsert_entities([made])
    return made


def _end(mem: Memory, text: str, missing: list[str]) -> str:
    found = mem.resolve_entity(text)
    if found is None:
        missing.append(text)
        return text
    return found.id


def add_world_tools(
    server: MCPServer,
    mem: Memory,
    wrap: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    readonly: ToolAnnotations,
    writes: ToolAnnotations,
    retires: ToolAnnotations,
) -> None:
    """Register :data:`WORLD_TOOLS` on ``server`` over ``mem``; ``wrap`` maps errors."""

    @server.tool(annotations=writes)
    @wrap
    def upsert_entities(
        entities: Annotated[list[EntityIn], Field(min_length=1, max_length=1000)],
    ) -> Entities:
        """Create or replace entities (people, places, items...); returns them with their ids.

        Without an id, the entity already of that name is replaced, or a new id is made
        from the name. Replacing keeps nothing of the old entity but its id.
        """
        rows: list[Entity] = []
        for item in entities:
            entity_id = item.id
            if entity_id is None:
                known = mem.resolve_entity(item.name)
                entity_id = known.id if known is not None else new_entity_id(mem, item.name)
                if known is None and entity_id in {r.id for r in rows}:
                    entity_id = f"{entity_id}_{len(rows) + 1}"
            rows.append(
                Entity(id=entity_id, type=item.type, name=item.name, attributes=item.attributes)
            )
        return Entities(entities=mem.upsert_entities(rows))

    @server.tool(annotations=readonly)
    @wrap
    def get_entity(
        entity: Annotated[str, Field(description="Its id, or its name.")],
    ) -> Entity:
        """Read one entity, named by its id or by its name (any case)."""
        found = mem.resolve_entity(entity)
        if found is None:
            raise NotFound(f"no entity {entity!r} (by id or name)", entity_id=entity)
        return found

    @server.tool(annotations=readonly)
    @wrap
    def find_entities(
        type: str | None = None,
        name: Annotated[str | None, Field(description="The whole name, any case.")] = None,
        name_contains: Annotated[str | None, Field(description="Part of the name.")] = None,
        attributes: Annotated[
            dict[str, Any] | None, Field(description="Attribute values that must be equal.")
        ] = None,
        limit: Annotated[int, Field(ge=1, le=1000)] = 50,
    ) -> Entities:
        """Find entities by type, name and attributes (every condition given), by id."""
        found = mem.find_entities(
            type=type, name=name, name_contains=name_contains, attributes=attributes, limit=limit
        )
        return Entities(entities=found)

    @server.tool(annotations=retires)
    @wrap
    def delete_entities(
        entity_ids: Annotated[list[str], Field(min_length=1, max_length=1000)],
    ) -> DeletedCount:
        """Delete entities and their relationships for good (invalidating keeps history)."""
        return DeletedCount(deleted=mem.delete_entities(entity_ids))

    @server.tool(annotations=writes)
    @wrap
    def upsert_relationships(
        relationships: Annotated[list[RelationshipIn], Field(min_length=1, max_length=1000)],
    ) -> Relationships:
        """Create or replace facts between entities: (source)-[type]->(target).

        Ends are entity ids or names; the entities must exist (upsert_entities first).
        One fact per (source, type, target): writing it again replaces it.
        """
        missing: list[str] = []
        rows = [
            {
                "source_id": _end(mem, r.source, missing),
                "target_id": _end(mem, r.target, missing),
                "type": r.type,
                "attributes": r.attributes,
                "provenance": {"source": "stated", "confidence": r.confidence},
            }
            for r in relationships
        ]
        if missing:
            wanted = list(dict.fromkeys(missing))
            raise InvalidInput(
                f"no entity has these ids or names: {wanted}; create them with "
                "upsert_entities first. Nothing was written.",
                missing_ids=wanted,
            )
        return Relationships(relationships=mem.upsert_relationships(rows))

    @server.tool(annotations=writes)
    @wrap
    def fork_conversation(
        session_id: Annotated[str, Field(description="The conversation's session id.")],
        turn_id: Annotated[str, Field(description="The earlier turn to continue from.")],
    ) -> Turn:
        """Go back to an earlier turn: the next append_turn starts a new branch after it.

        The other branch stays (list_branches); read_history follows the new one.
        """
        return mem.conversation(session_id).fork(turn_id)


# --------------------------------------------------------------------------- the wire


def _lean(schema: Any, drop: frozenset[str]) -> Any:
    """``schema`` without the keywords in ``drop`` nor ``"default": null``.

    Property names are kept; a model's description (its docstring) is cut to its first
    line; ``anyOf`` a plain type or null is written ``"type": [T, "null"]``.
    """
    if isinstance(schema, dict):
        out: dict[str, Any] = {}
        for key, value in schema.items():
            if key in drop or (key == "default" and value is None):
                continue
            if key == "anyOf" and _nullable(value):
                out.update(value[0], type=[value[0]["type"], "null"])
            elif key in ("properties", "$defs") and isinstance(value, dict):
                out[key] = {name: _lean(sub, drop) for name, sub in value.items()}
            elif key == "description" and "properties" in schema and isinstance(value, str):
                out[key] = value.strip().split("\n", 1)[0]
            else:
                out[key] = _lean(value, drop)
        return out
    if isinstance(schema, list):
        return [_lean(item, drop) for item in schema]
    return schema


def _nullable(options: Any) -> bool:
    """Whether ``anyOf`` is ``[{"type": T, ...}, {"type": "null"}]`` for a plain type T."""
    return (
        isinstance(options, list)
        and len(options) == 2
        and options[1] == {"type": "null"}
        and isinstance(options[0], dict)
        and isinstance(options[0].get("type"), str)
        and set(options[0]) <= {"type", "format", "minLength", "maxLength", "minimum", "maximum"}
    )


_INPUT_DROP = frozenset({"title"})
_OUTPUT_DROP = frozenset({"title", "description", "default", "pattern", "minLength", "maxLength"})


def server_class(*, read_only: bool = False) -> type[MCPServer]:
    """``MCPServer`` with lean schemas and results (the SDK is imported when called).

    ``read_only``: only the tools annotated ``readOnlyHint`` are registered (a server
    over a store opened read-only, beside the process that writes it).
    """
    from mcp.server.mcpserver import MCPServer
    from mcp.types import CallToolResult, TextContent

    class LeanServer(MCPServer):
        """Tool schemas without generated titles; result text as compact JSON."""

        def add_tool(self, fn: Callable[..., Any], *args: Any, **kwargs: Any) -> None:
            annotations = kwargs.get("annotations")
            if read_only and not (annotations is not None and annotations.read_only_hint):
                return
            super().add_tool(fn, *args, **kwargs)

        async def list_tools(self) -> list[Any]:
            tools = await super().list_tools()
            return [
                tool.model_copy(
                    update={
                        "input_schema": _lean(tool.input_schema, _INPUT_DROP),
                        "output_schema": None
                        if tool.output_schema is None
                        else _lean(tool.output_schema, _OUTPUT_DROP),
                    }
                )
                for tool in tools
            ]

        async def call_tool(self, name: str, arguments: dict[str, Any], context: Any = None) -> Any:
            result = await super().call_tool(name, arguments, context)
            if isinstance(result, CallToolResult) and result.structured_content is not None:
                text = json.dumps(
                    result.structured_content, ensure_ascii=False, separators=(",", ":")
                )
                return result.model_copy(update={"content": [TextContent(type="text", text=text)]})
            return result

    return LeanServer
