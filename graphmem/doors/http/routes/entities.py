"""Entities and the relationships between them: upsert, read, find, invalidate, delete."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request

from graphmem.core.models import Entity, Relationship
from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    DirectionQ,
    EntityId,
    Limit,
    Mem,
    NamesQ,
    Route,
    check_rows,
    limits_of,
    read,
    scan,
    write,
)

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.post("/entities", tags=["entities"], response_model=s.EntityList)
async def upsert_entities(mem: Mem, request: Request, body: s.EntityBatch) -> s.EntityList:
    """Insert or replace entities by id, in one batch; returns them as stored."""
    check_rows(limits_of(request), "entities", body.entities)
    return s.EntityList(entities=await write(mem.upsert_entities, body.entities))


@router.get("/entities", tags=["entities"], response_model=s.EntityList)
async def list_entities(
    mem: Mem,
    type: Annotated[
        str | None, Query(max_length=64, json_schema_extra={"pattern": s.SAFE_NAME_JSON})
    ] = None,
    name_contains: Annotated[str | None, Query(max_length=512)] = None,
    limit: Limit = None,
    name: Annotated[
        str | None, Query(max_length=512, description="The whole name, any case.")
    ] = None,
) -> s.EntityList:
    """Entities by type, whole name or case-insensitive name substring, ordered by id."""
    found = await scan(
        mem.find_entities, type=type, name=name, name_contains=name_contains, limit=limit
    )
    return s.EntityList(entities=found)


@router.post("/entities/find", tags=["entities"], response_model=s.EntityList)
async def find_entities(mem: Mem, body: s.EntityQuery) -> s.EntityList:
    """Entities matching a filter: type, whole name, name substring, attributes, limit."""
    found = await scan(
        mem.find_entities,
        type=body.type,
        name=body.name,
        name_contains=body.name_contains,
        attributes=body.attributes,
        limit=body.limit,
    )
    return s.EntityList(entities=found)


@router.post("/entities/delete", tags=["entities"], response_model=s.Deleted)
async def delete_entities(mem: Mem, request: Request, body: s.IdList) -> s.Deleted:
    """Delete entities and their relationships; returns how many existed."""
    check_rows(limits_of(request), "ids", body.ids)
    return s.Deleted(deleted=await write(mem.delete_entities, body.ids))


@router.get("/entities/{entity_id}", tags=["entities"], response_model=Entity)
async def get_entity(mem: Mem, request: Request, entity_id: EntityId) -> Entity:
    """One entity."""
    return await read(request, mem.get_entity, entity_id)


@router.patch("/entities/{entity_id}", tags=["entities"], response_model=Entity)
async def update_entity(mem: Mem, entity_id: EntityId, body: s.EntityUpdate) -> Entity:
    """Rename or retype an entity, merge attributes in, remove attribute keys."""
    return await write(
        mem.update_entity,
        entity_id,
        name=body.name,
        type=body.type,
        attributes=body.attributes,
        remove_attributes=body.remove_attributes,
    )


@router.delete("/entities/{entity_id}", tags=["entities"], response_model=s.Deleted)
async def delete_entity(mem: Mem, entity_id: EntityId) -> s.Deleted:
    """Delete one entity and its relationships (0 when it did not exist)."""
    return s.Deleted(deleted=await write(mem.delete_entities, [entity_id]))


@router.get("/counts", tags=["entities"], response_model=s.Counts)
async def counts(mem: Mem, request: Request) -> s.Counts:
    """How many entities, relationships (invalidated ones included) and turns."""

    def count() -> s.Counts:
        return s.Counts(
            entities=mem.count_entities(),
            relationships=mem.count_relationships(),
            turns=mem.count_turns(),
        )

    return await read(request, count)


@router.post("/relationships", tags=["relationships"], response_model=s.RelationshipList)
async def upsert_relationships(
    mem: Mem, request: Request, body: s.RelationshipBatch
) -> s.RelationshipList:
    """Insert or replace relationships keyed by (source, target, type); ends must exist."""
    check_rows(limits_of(request), "relationships", body.relationships)
    stored = await write(mem.upsert_relationships, body.relationships)
    return s.RelationshipList(relationships=stored)


@router.get(
    "/entities/{entity_id}/relationships",
    tags=["relationships"],
    response_model=s.RelationshipList,
)
async def get_relationships(
    mem: Mem,
    request: Request,
    entity_id: EntityId,
    direction: DirectionQ = "out",
    types: NamesQ = None,
    as_of: datetime | None = None,
    include_invalid: bool = False,
    limit: Limit = None,
) -> s.RelationshipList:
    """An entity's relationships: current facts, or those that held at ``as_of``."""
    found = await read(
        request,
        mem.get_relationships,
        entity_id,
        direction=direction,
        types=types,
        as_of=as_of,
        include_invalid=include_invalid,
        limit=limit,
    )
    return s.RelationshipList(relationships=found)


@router.post("/relationships/invalidate", tags=["relationships"], response_model=Relationship)
async def invalidate(mem: Mem, body: s.Invalidation) -> Relationship:
    """Mark a fact as no longer holding from ``at`` (default now); it stays readable."""
    return await write(mem.invalidate, body.source_id, body.target_id, body.type, at=body.at)


@router.post("/relationships/delete", tags=["relationships"], response_model=s.Existed)
async def delete_relationship(mem: Mem, body: s.RelationshipKey) -> s.Existed:
    """Delete one relationship (prefer invalidate: it keeps the history)."""
    existed = await write(mem.delete_relationship, body.source_id, body.target_id, body.type)
    return s.Existed(deleted=existed)
