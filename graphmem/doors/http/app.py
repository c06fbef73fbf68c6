"""The HTTP API: a FastAPI app over the whole :class:`graphmem.Memory` face.

A door with no logic of its own: each route maps a request onto one ``Memory`` call (or
a policy object's) and a :class:`graphmem.GraphmemError` onto a status
(:mod:`graphmem.doors.http.problems`). The tenant comes from the API key (or from
``--tenant`` on a loopback server), never from the path or the body.

Build one with :func:`create_app`; ``graphmem serve`` runs it on uvicorn. This module
assembles the app: the routers of :mod:`graphmem.doors.http.routes` (one per area), the
middleware (:mod:`graphmem.doors.http.middleware`), the fast snapshot routes
(:mod:`graphmem.doors.http.fast`) and the error handlers below.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import re
from collections.abc import AsyncIterator, Iterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware

from graphmem import __version__
from graphmem.core.errors import GraphmemError, InvalidInput
from graphmem.doors.http.document import DESCRIPTION, TAGS, share_error_responses
from graphmem.doors.http.fast import FastApp
from graphmem.doors.http.limits import Limits
from graphmem.doors.http.middleware import BodyLimit, BodyTooLarge, KeyFirst, RawPath
from graphmem.doors.http.plumbing import API_PREFIX, Route
from graphmem.doors.http.problems import (
    MEDIA_TYPE,
    encode,
    problem,
    problem_body,
    validation_errors,
)
from graphmem.doors.http.routes import (
    context,
    conversations,
    entities,
    facts,
    graph,
    health,
    minds,
    retrieval,
    tenant,
)
from graphmem.doors.http.state import ServerConfig, ServerState

__all__ = ["API_PREFIX", "Limits", "ServerConfig", "create_app"]

_log = logging.getLogger("graphmem.server")


def create_app(config: ServerConfig) -> FastAPI:
    """The FastAPI app of a graphmem HTTP server (run it with uvicorn, or mount it).

    The store is opened when the app starts and closed when it stops (a URL), and the
    retention schedule runs in between when the policy sets retention.
    """
    state = ServerState(config)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        await anyio.to_thread.run_sync(state.open)
        task: asyncio.Task[None] | None = None
        policy = config.policy
        if policy is not None and policy.retention and config.retention_interval is not None:
            task = asyncio.create_task(_retention_loop(state, config.retention_interval))
        try:
            yield
        finally:
            if task is not None:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            await anyio.to_thread.run_sync(state.close)

    app = FastApp(
        title="graphmem",
        version=__version__,
        summary="Graph memory for AI agents and game NPCs, over HTTP.",
        description=DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=lambda route: route.name,
        openapi_tags=TAGS,
        docs_url=None,  # FastAPI's pages load their scripts from a CDN: ours work offline
        redoc_url=None,
    )
    app.state.graphmem = state
    share_error_responses(app)
    app.router.route_class = Route
    app.add_exception_handler(GraphmemError, _graphmem_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
    # The routers, one per area (graphmem/doors/http/routes/), in the order of the document.
    for area in (entities, graph, conversations, retrieval, facts, minds, context, tenant):
        app.include_router(area.router)
    app.include_router(health.router)
    from graphmem.doors.http.inspector import add_inspector

    add_inspector(app)  # the inspector page at /ui and the reads it needs
    if config.mcp:
        from graphmem.doors.http.mcp_mount import mount_mcp

        # Without keys the server is loopback only: the SDK guards it from DNS rebinding.
        host = "127.0.0.1" if config.keys is None else "0.0.0.0"
        mount_mcp(app, state.memory, actor=config.mcp_actor, policy=config.policy, host=host)

    from graphmem.doors.http.docs_page import add_docs_pages
    from graphmem.doors.http.warmup import install_warmup

    add_docs_pages(app)

    app.state.warmup = install_warmup(app, lambda: state.store, config.embedder)
    if config.metrics:
        from graphmem.doors.http.metrics import install_metrics

        app.observe = install_metrics(app, lambda: list(state._memories.values()))
    if not config.cors_origins:  # the fast routes skip the middleware, CORS included
        app.fast = state
    app.add_middleware(KeyFirst, state=state)  # inside CORS: a 401 carries its headers
    if config.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST", "PATCH", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(BodyLimit, limits=config.limits)
    app.add_middleware(RawPath)
    return app


async def _retention_loop(state: ServerState, interval: float) -> None:
    while True:
        # Not cancellable mid-run: a shutdown waits for the run in progress to finish.
        await anyio.to_thread.run_sync(state.apply_retention)
        await asyncio.sleep(interval)


# --------------------------------------------------------------------------- error handlers


def _problem_response(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response:
    return Response(encode(body), status_code=status, media_type=MEDIA_TYPE, headers=headers)


async def _graphmem_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, GraphmemError)
    status, body = problem(exc, instance=request.url.path)
    headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
    return _problem_response(status, body, headers)


def _flatten(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Validation errors, with a model's own InvalidInput unpacked into its field errors."""
    out: list[dict[str, Any]] = []
    for error in errors:
        cause = (error.get("ctx") or {}).get("error")
        inner = cause.data.get("errors") if isinstance(cause, InvalidInput) else None
        if isinstance(inner, list) and inner:
            loc = tuple(error.get("loc", ()))
            out.extend({**e, "loc": loc + tuple(e.get("loc", ()))} for e in _flatten(inner))
        else:
            msg = str(error.get("msg", ""))
            out.append({**error, "msg": msg.removeprefix("Value error, ")})
    return out


_JSON_TYPES = ("application/json", "application/x-ndjson")


def _unreadable_body(request: Request, exc: RequestValidationError) -> Response | None:
    """415 for a body that is not JSON, 400 for JSON that does not parse; else None."""
    raw = exc.errors()
    if not any(tuple(e.get("loc", ()))[:1] == ("body",) for e in raw):
        return None
    media = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    if media and media not in _JSON_TYPES and not media.endswith("+json"):
        detail = f"the body is {media}; send application/json"
        body = problem_body(415, detail, title="UnsupportedMediaType", instance=request.url.path)
        return _problem_response(415, body)
    unparsed = [e for e in raw if e.get("type") == "json_invalid"]
    # An unpaired surrogate escape is well-formed JSON whose text cannot be stored: 422.
    if unparsed and not any(
        "surrogate" in str((e.get("ctx") or {}).get("error")) for e in unparsed
    ):
        errors = validation_errors(raw)
        detail = "the body is not valid JSON"
        body = problem_body(400, detail, instance=request.url.path, extra={"errors": errors})
        return _problem_response(400, body)
    return None


async def _validation_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, RequestValidationError)
    unreadable = _unreadable_body(request, exc)
    if unreadable is not None:
        return unreadable
    errors = validation_errors(_flatten(exc.errors()))
    where = ", ".join(".".join(str(p) for p in e["loc"]) + f": {e['msg']}" for e in errors[:5])
    body = problem_body(
        422,
        f"the request is not valid: {where}" if where else "the request is not valid",
        title="InvalidInput",
        instance=request.url.path,
        extra={"errors": errors},
    )
    return _problem_response(422, body)


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, StarletteHTTPException)
    extra: dict[str, Any] = {}
    if isinstance(exc, BodyTooLarge):
        extra = {"limit": exc.limit_name, "max": exc.limit}
    detail = exc.detail if isinstance(exc.detail, str) else str(exc.detail)
    if exc.status_code == 404 and detail == "Not Found":
        detail = f"no route {request.method} {request.url.path}; see /openapi.json"
    headers = dict(exc.headers or {})
    if exc.status_code == 405:
        allowed = _allowed_methods(request)
        headers["Allow"] = ", ".join(allowed)
        detail = f"{request.method} is not allowed here; allowed: {', '.join(allowed)}"
    body = problem_body(exc.status_code, detail, instance=request.url.path, extra=extra)
    return _problem_response(exc.status_code, body, headers)


def _allowed_methods(request: Request) -> list[str]:
    """The methods of the documented path this request names (Starlette names one route's).

    The path is matched against the OpenAPI paths, the most literal first
    (``/v1/entities/delete`` before ``/v1/entities/{entity_id}``); an undocumented path
    (``/mcp``) gets the methods of the routes that take it.
    """
    path = request.url.path
    documented = [
        (template.count("{"), template, operations)
        for template, operations in request.app.openapi().get("paths", {}).items()
        if _template_regex(template).fullmatch(path)
    ]
    if documented:
        operations = min(documented, key=lambda found: found[:2])[2]
        return sorted(method.upper() for method in operations)
    from starlette.routing import Match

    methods = [
        method
        for method in ("DELETE", "GET", "PATCH", "POST", "PUT")
        if any(
            route.matches({**request.scope, "method": method})[0] == Match.FULL
            for route in request.app.router.routes
        )
    ]
    return methods or ["GET"]


@functools.cache
def _template_regex(template: str) -> re.Pattern[str]:
    return re.compile(re.sub(r"\\\{[^/]+?\\\}", "[^/]+", re.escape(template)))


async def _unexpected(request: Request, exc: Exception) -> Response:
    _log.error("unexpected error on %s %s", request.method, request.url.path, exc_info=exc)
    body = problem_body(
        500,
        "an unexpected error; the server log has the details",
        title="InternalError",
        instance=request.url.path,
    )
    return _problem_response(500, body)


def iter_routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """Every (method, path) the app serves, for tests and documentation."""
    for route in app.routes:
        if isinstance(route, APIRoute):
            for method in sorted(route.methods or ()):
                yield method, route.path
