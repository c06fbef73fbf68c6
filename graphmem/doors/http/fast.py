"""The two routes a game engine calls many times a second, answered before the framework.

``GET /v1/npcs/{id}/snapshot`` and ``GET /v1/npcs/{id}/prompt[?max_tokens=N]``: see
:class:`FastApp`.
"""

from __future__ import annotations

import logging
import re
from typing import TYPE_CHECKING

from fastapi import FastAPI
from starlette.types import Receive, Scope, Send

from graphmem.core.checks import check_identifier
from graphmem.core.errors import GraphmemError, InvalidInput
from graphmem.core.models import estimate_tokens
from graphmem.doors import schemas as s
from graphmem.doors.http.middleware import bearer_key, send_problem
from graphmem.doors.http.plumbing import unquote_path
from graphmem.doors.http.problems import problem, problem_body

if TYPE_CHECKING:
    from graphmem.doors.http.metrics import Observer
    from graphmem.memory import Memory
from graphmem.doors.http.state import ServerState

_log = logging.getLogger("graphmem.server")

_FAST_PATH = re.compile(rb"^/v1/npcs/([!-.0-~]{1,6144})/(snapshot|prompt)$")
_MAX_TOKENS_QUERY = re.compile(rb"^max_tokens=([1-9][0-9]{0,5})$")
_JSON_HEADERS = [(b"content-type", b"application/json")]


class FastApp(FastAPI):
    """The FastAPI app, with the two routes a game engine calls many times a second first.

    ``GET /v1/npcs/{id}/snapshot`` and ``GET /v1/npcs/{id}/prompt[?max_tokens=N]`` are
    answered before the framework's middleware and routing when the store answers reads
    without I/O: the same key check, the same store call, the same JSON and the same
    problem documents as the FastAPI routes (a test compares them), minus the
    per-request work of the framework (middleware layers, routing, dependency solving,
    re-validating the answer), which costs more than the snapshot itself. Anything else
    (another query string, a store that reads over the network, CORS) goes to FastAPI.

    When the store has a ``revision`` (every write goes through it), the bodies are kept
    (:class:`~graphmem.doors.http.answers.Answers`) and served again without a store
    call until a write moves the revision on or time reaches the next instant a fact of
    the NPC begins or stops holding.
    """

    fast: ServerState | None = None
    observe: Observer | None = None  # graphmem.doors.http.metrics: counts and traces requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: D102
        if self.observe is not None and scope["type"] == "http":
            await self.observe(scope, receive, send, self._answer)
        else:
            await self._answer(scope, receive, send)

    async def _answer(self, scope: Scope, receive: Receive, send: Send) -> None:
        state = self.fast
        if (
            state is None
            or scope["type"] != "http"
            or scope["method"] != "GET"
            or not state.inline_reads
            or not await fast_snapshot(state, scope, send)
        ):
            await super().__call__(scope, receive, send)


async def fast_snapshot(state: ServerState, scope: Scope, send: Send) -> bool:
    """Answer a snapshot or prompt request; False when FastAPI must answer it."""
    raw = scope.get("raw_path") or scope["path"].encode("utf-8")
    match = _FAST_PATH.match(raw)
    if match is None:
        return False
    query = scope.get("query_string", b"")
    answers = state.answers
    mem: Memory | None = None  # the key's, looked up once
    if answers is not None:  # a kept answer: its path and query were checked when kept
        try:
            mem = state.memory(bearer_key(scope))
        except GraphmemError:
            pass  # answered below, in the order of checks of a first request
        else:
            kept = answers.get((mem.tenant, raw, query))
            if kept is not None:
                await _send_json(send, kept)
                return True
    route = match.group(2)
    max_tokens: int | None = None
    if query:
        found = _MAX_TOKENS_QUERY.match(query) if route == b"prompt" else None
        if found is None:
            return False  # FastAPI validates whatever else was asked
        max_tokens = int(found.group(1))
    npc_id = unquote_path(match.group(1).decode("ascii"))
    if not _is_identifier(npc_id):
        return False  # FastAPI refuses it (422), naming the parameter
    path = raw.decode("latin-1")
    try:
        if mem is None:
            mem = state.memory(bearer_key(scope))
        if answers is None:
            payload = _read(state, mem, route, npc_id, max_tokens)
        else:
            revision, since = answers.read(mem.tenant)
            payload = _read(state, mem, route, npc_id, max_tokens)
            answers.keep((mem.tenant, raw, query), npc_id, revision, since, payload)
    except GraphmemError as exc:
        status, body = problem(exc, instance=path)
        await send_problem(send, status, body, www_authenticate=status == 401)
        return True
    except Exception as exc:  # the same answer as the FastAPI routes' last-resort handler
        _log.error("unexpected error on GET %s", path, exc_info=exc)
        body = problem_body(
            500, "an unexpected error; the server log has the details", title="InternalError"
        )
        await send_problem(send, 500, {**body, "instance": path})
        return True
    await _send_json(send, payload)
    return True


async def _send_json(send: Send, payload: bytes) -> None:
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [*_JSON_HEADERS, (b"content-length", str(len(payload)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": payload})


def _read(
    state: ServerState, mem: Memory, route: bytes, npc_id: str, max_tokens: int | None
) -> bytes:
    """The body of a snapshot or prompt answer, read from the store."""
    identity = mem.identity_snapshot(npc_id)
    if route == b"snapshot":
        return state.fragments.identity(identity)
    text = identity.to_prompt(max_tokens=max_tokens)
    out = s.PromptOut(npc_id=npc_id, prompt=text, token_estimate=estimate_tokens(text))
    return out.model_dump_json().encode("utf-8")


def _is_identifier(value: str) -> bool:
    try:
        check_identifier(value, "")
    except InvalidInput:
        return False
    return True
