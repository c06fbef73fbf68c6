"""Conversations as turn trees (append, fork, history, branches) and the session log."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Annotated

from fastapi import APIRouter, Query, Request

from graphmem.core.models import Turn
from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    IdQ,
    Limit,
    Mem,
    Route,
    SessionId,
    TurnKey,
    check_rows,
    check_text,
    limits_of,
    read,
    scan,
    write,
)

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.post("/conversations/{session_id}/turns", tags=["conversations"], response_model=Turn)
async def append_turn(mem: Mem, request: Request, session_id: SessionId, body: s.TurnIn) -> Turn:
    """Append a turn after the head; it becomes the head."""
    check_text(limits_of(request), "content", body.content)
    return await write(
        mem.conversation(session_id).append,
        body.role,
        body.content,
        speaker=body.speaker,
        turn_id=body.turn_id,
        summary=body.summary,
        trajectory=body.trajectory,
        artifacts=body.artifacts,
        hidden_artifacts=body.hidden_artifacts,
    )


@router.post(
    "/conversations/{session_id}/turns/batch",
    tags=["conversations"],
    response_model=s.TurnList,
)
async def extend_conversation(
    mem: Mem, request: Request, session_id: SessionId, body: s.TurnBatch
) -> s.TurnList:
    """Append turns as one chain after the head, all or nothing."""
    limits = limits_of(request)
    check_rows(limits, "turns", body.turns)
    for turn in body.turns:
        check_text(limits, "content", turn.content)
    entries = [turn.model_dump(exclude_none=True) for turn in body.turns]
    return s.TurnList(turns=await write(mem.conversation(session_id).extend, entries))


@router.get("/conversations/{session_id}/turns", tags=["conversations"], response_model=s.TurnList)
async def list_turns(mem: Mem, request: Request, session_id: SessionId) -> s.TurnList:
    """Every turn on every branch, in the order they were created."""
    return s.TurnList(turns=await read(request, mem.conversation(session_id).turns))


@router.get(
    "/conversations/{session_id}/history", tags=["conversations"], response_model=s.TurnList
)
async def history(
    mem: Mem, request: Request, session_id: SessionId, limit: Limit = None
) -> s.TurnList:
    """The active branch, oldest first (the newest ``limit`` turns when given)."""
    turns = await read(request, mem.conversation(session_id).history, limit=limit)
    return s.TurnList(turns=turns)


@router.get("/conversations/{session_id}/head", tags=["conversations"], response_model=s.TurnOrNone)
async def head(mem: Mem, request: Request, session_id: SessionId) -> s.TurnOrNone:
    """The newest turn of the active branch (null before the first append)."""
    chat = mem.conversation(session_id)
    return s.TurnOrNone(turn=await read(request, lambda: chat.head))


@router.post("/conversations/{session_id}/fork", tags=["conversations"], response_model=Turn)
async def fork(mem: Mem, session_id: SessionId, body: s.ForkRequest) -> Turn:
    """Move the head to an earlier turn: the next append starts a new branch there."""
    return await write(mem.conversation(session_id).fork, body.turn)


@router.get(
    "/conversations/{session_id}/branches", tags=["conversations"], response_model=s.BranchList
)
async def branches(mem: Mem, request: Request, session_id: SessionId) -> s.BranchList:
    """Every branch (root to leaf): its leaf, its fork point, its length, whether active."""
    return s.BranchList(branches=await read(request, mem.conversation(session_id).branches))


@router.delete(
    "/conversations/{session_id}/turns/{turn_id}",
    tags=["conversations"],
    response_model=s.Existed,
)
async def delete_turn(mem: Mem, session_id: SessionId, turn_id: TurnKey) -> s.Existed:
    """Delete one turn; its children are re-linked to its parent, so no branch breaks."""
    return s.Existed(deleted=await write(mem.conversation(session_id).delete_turn, turn_id))


@router.delete("/conversations/{session_id}", tags=["conversations"], response_model=s.Deleted)
async def delete_conversation(mem: Mem, session_id: SessionId) -> s.Deleted:
    """Delete the whole conversation, every branch; returns how many turns it had."""
    return s.Deleted(deleted=await write(mem.conversation(session_id).delete))


@router.get("/sessions", tags=["session log"], response_model=s.SessionList)
async def sessions(mem: Mem) -> s.SessionList:
    """Every session with turns, most recently active first."""
    return s.SessionList(sessions=await scan(mem.sessions))


@router.get("/turns/search", tags=["session log"], response_model=s.TurnList)
async def search_turns(
    mem: Mem,
    request: Request,
    text: Annotated[
        str | None, Query(description="Keywords (not blank).", json_schema_extra={"pattern": "\\S"})
    ] = None,
    session_id: IdQ = None,
    speaker: Annotated[str | None, Query(max_length=512)] = None,
    role: Annotated[
        str | None, Query(max_length=64, json_schema_extra={"pattern": s.SAFE_NAME_JSON})
    ] = None,
    since: datetime | None = None,
    until: datetime | None = None,
    limit: Limit = None,
) -> s.TurnList:
    """Keyword search over the session log (every keyword must occur), newest first."""
    check_text(limits_of(request), "text", text)
    found = await scan(
        mem.search_turns,
        text,
        session_id=session_id,
        speaker=speaker,
        role=role,
        since=since,
        until=until,
        limit=limit,
    )
    return s.TurnList(turns=found)


@router.get("/turns/recent", tags=["session log"], response_model=s.TurnList)
async def recent_turns(
    mem: Mem,
    within_seconds: Annotated[float, Query(ge=1e-6, le=1e10)],  # a microsecond at least
    session_id: IdQ = None,
    limit: Limit = None,
) -> s.TurnList:
    """Turns created within the last ``within_seconds``, newest first."""
    within = timedelta(seconds=within_seconds)
    found = await scan(mem.recent_turns, within, session_id=session_id, limit=limit)
    return s.TurnList(turns=found)
