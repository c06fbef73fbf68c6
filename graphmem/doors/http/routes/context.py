"""LLM context: what to put into an LLM's context window for a (user, session)."""

from __future__ import annotations

from typing import Any

from fastapi import APIRouter, Request

from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import API_PREFIX, ChatMemory, Route, check_text, limits_of, write
from graphmem.policy.context import LLMContext

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)

context_path = "/memory/{user}/{session}"


@router.post(f"{context_path}/turns", tags=["llm context"], response_model=s.TurnOrNone)
async def memory_append(request: Request, chat: ChatMemory, body: s.MemoryTurnIn) -> s.TurnOrNone:
    """Store a turn of a (user, session) conversation and fold it into its context."""
    check_text(limits_of(request), "content", body.content)
    turn = await write(
        chat.append,
        body.role,
        body.content,
        speaker=body.speaker,
        turn_id=body.turn_id,
        trajectory=body.trajectory,
        artifacts=body.artifacts,
        hidden_artifacts=body.hidden_artifacts,
    )
    return s.TurnOrNone(turn=turn)


@router.get(f"{context_path}/context", tags=["llm context"], response_model=s.ContextOut)
async def llm_context(chat: ChatMemory) -> s.ContextOut:
    """The summary and recent turns to give the LLM within ``max_tokens``, and as messages."""
    return _context_out(chat.llm_context())


@router.get(f"{context_path}/snapshot", tags=["llm context"], response_model=s.ContextSnapshot)
async def memory_snapshot(chat: ChatMemory) -> dict[str, Any]:
    """The context state (summary, window, health) as a portable JSON envelope."""
    return chat.snapshot()


@router.put(f"{context_path}/snapshot", tags=["llm context"], response_model=s.ContextOut)
async def memory_restore(chat: ChatMemory, body: s.ContextSnapshot) -> s.ContextOut:
    """Replace the context state with a snapshot (after a restart, say); all or nothing."""
    chat.restore(body.root)
    return _context_out(chat.llm_context())


def _context_out(context: LLMContext) -> s.ContextOut:
    return s.ContextOut(
        strategy=context.strategy,
        mode=context.mode,
        summary=context.summary,
        turns=list(context.turns),
        token_estimate=context.token_estimate,
        max_tokens=context.max_tokens,
        health=context.health.value,
        messages=[s.Message(**m) for m in context.to_messages()],
    )
