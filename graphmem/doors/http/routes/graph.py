"""Graph reads: identity snapshots (also as the NPC sees itself), neighbours, paths."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Query, Request

from graphmem.core.models import NPCIdentity, Subgraph, estimate_tokens
from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    AsOfQ,
    DepthQ,
    DirectionQ,
    EntityId,
    Mem,
    NamesQ,
    NpcId,
    RecordedAsOfQ,
    Route,
    check_rows,
    limits_of,
    read,
    scan,
)
from graphmem.minds.perspective import PerspectiveIdentity

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.get("/npcs/{npc_id}/snapshot", tags=["graph"], response_model=NPCIdentity)
async def snapshot(
    mem: Mem,
    request: Request,
    npc_id: NpcId,
    as_of: AsOfQ = None,
    recorded_as_of: RecordedAsOfQ = None,
) -> NPCIdentity:
    """Who the NPC is: the entity, its facts both ways, their other ends; now or then."""
    return await read(
        request, mem.identity_snapshot, npc_id, as_of=as_of, recorded_as_of=recorded_as_of
    )


@router.get("/npcs/{npc_id}/perspective", tags=["npc minds"], response_model=PerspectiveIdentity)
async def perspective(
    mem: Mem,
    request: Request,
    npc_id: NpcId,
    as_of: AsOfQ = None,
    recorded_as_of: RecordedAsOfQ = None,
) -> NPCIdentity:
    """Who the NPC is as it sees things: the snapshot of its own beliefs, now or then."""
    return await read(
        request,
        mem.identity_snapshot,
        npc_id,
        perspective=True,
        as_of=as_of,
        recorded_as_of=recorded_as_of,
    )


@router.get("/npcs/{npc_id}/prompt", tags=["graph"], response_model=s.PromptOut)
async def snapshot_prompt(
    mem: Mem,
    request: Request,
    npc_id: NpcId,
    max_tokens: Annotated[int | None, Query(ge=1, le=s.MAX_TOKENS)] = None,
    perspective: Annotated[
        bool, Query(description="Render what the NPC believes, not the world's facts.")
    ] = False,
    as_of: AsOfQ = None,
    recorded_as_of: RecordedAsOfQ = None,
) -> s.PromptOut:
    """The snapshot as prompt text within ``max_tokens`` (least important facts dropped)."""
    identity = await read(
        request,
        mem.identity_snapshot,
        npc_id,
        perspective=perspective,
        as_of=as_of,
        recorded_as_of=recorded_as_of,
    )
    text = identity.to_prompt(max_tokens=max_tokens)
    return s.PromptOut(npc_id=npc_id, prompt=text, token_estimate=estimate_tokens(text))


@router.get("/entities/{entity_id}/neighbors", tags=["graph"], response_model=s.EntityList)
async def neighbors(
    mem: Mem,
    request: Request,
    entity_id: EntityId,
    depth: DepthQ = 1,
    rel_types: NamesQ = None,
    node_types: NamesQ = None,
    max_nodes: Annotated[int | None, Query(ge=1, le=s.MAX_NODES)] = None,
    direction: DirectionQ = "both",
) -> s.EntityList:
    """Entities within ``depth`` hops over current facts, nearest first."""
    found = await read(
        request,
        mem.neighbors,
        entity_id,
        depth=depth,
        rel_types=rel_types,
        node_types=node_types,
        max_nodes=max_nodes,
        direction=direction,
    )
    return s.EntityList(entities=found)


@router.get("/entities/{entity_id}/subgraph", tags=["graph"], response_model=Subgraph)
async def visible_subgraph(
    mem: Mem, request: Request, entity_id: EntityId, depth: DepthQ = 1
) -> Subgraph:
    """What an NPC can see: itself, the entities within ``depth`` hops and their facts."""
    return await read(request, mem.visible_subgraph, entity_id, depth=depth)


@router.get("/path", tags=["graph"], response_model=s.PathOut)
async def find_path(
    mem: Mem,
    request: Request,
    source_id: Annotated[str, Query(min_length=1, max_length=512)],
    target_id: Annotated[str, Query(min_length=1, max_length=512)],
    max_depth: DepthQ = 6,
    rel_types: NamesQ = None,
) -> s.PathOut:
    """The shortest directed path of current facts, both ends included; empty when none."""
    path = await read(
        request, mem.find_path, source_id, target_id, max_depth=max_depth, rel_types=rel_types
    )
    return s.PathOut(path=path)


@router.post("/expand", tags=["graph"], response_model=Subgraph)
async def expand(mem: Mem, request: Request, body: s.ExpandRequest) -> Subgraph:
    """The seeds and every entity within ``depth`` hops of any, with the facts among them."""
    check_rows(limits_of(request), "seed_ids", body.seed_ids)
    return await scan(
        mem.expand,
        body.seed_ids,
        depth=body.depth,
        rel_types=body.rel_types,
        direction=body.direction,
        within=body.within,
        max_nodes=body.max_nodes,
    )
