"""The HTTP API: a FastAPI app over the whole :class:`graphmem.Memory` face.

A door with no logic of its own: each route maps a request onto one ``Memory`` call (or
a policy object's) and a :class:`graphmem.GraphmemError` onto a status
(:mod:`graphmem.doors.http.problems`). The tenant comes from the API key (or from
``--tenant`` on a loopback server), never from the path or the body.

Build one with :func:`create_app`; ``graphmem serve`` runs it on uvicorn.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import logging
import re
import tempfile
import threading
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from functools import partial
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar
from urllib.parse import unquote

import anyio
from fastapi import APIRouter, Depends, FastAPI, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, BaseModel, ConfigDict, WithJsonSchema
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.cors import CORSMiddleware
from starlette.responses import StreamingResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.core.errors import BackendUnavailable, GraphmemError, InvalidInput
from graphmem.core.models import (
    Entity,
    NPCIdentity,
    Relationship,
    Subgraph,
    Turn,
    estimate_tokens,
)
from graphmem.core.store import GraphStore, open_store
from graphmem.core.telemetry import StoreTelemetry
from graphmem.core.version import __version__
from graphmem.doors import schemas as s
from graphmem.doors.http.bodies import BatchTooLong, parse_json
from graphmem.doors.http.keys import KeyRing
from graphmem.doors.http.limits import Limits
from graphmem.doors.http.metrics import Observer, install_metrics
from graphmem.doors.http.problems import (
    MEDIA_TYPE,
    PayloadTooLarge,
    encode,
    problem,
    problem_body,
    validation_errors,
)
from graphmem.exchange import jsonl
from graphmem.memory import Memory
from graphmem.minds.models import Belief, Event, Recap
from graphmem.minds.models import Fact as MindFact
from graphmem.minds.perspective import PerspectiveIdentity
from graphmem.policy.context import ConversationMemory, LLMContext
from graphmem.policy.governance import Fact, FactMemory, GovernancePolicy

if TYPE_CHECKING:
    from graphmem.retrieval import Embedder

__all__ = ["API_PREFIX", "Limits", "ServerConfig", "create_app"]

API_PREFIX = "/v1"
RETENTION_ACTOR = "graphmem-retention"
_log = logging.getLogger("graphmem.server")


# --------------------------------------------------------------------------- configuration


@dataclass(frozen=True)
class ServerConfig:
    """What a graphmem HTTP server serves, and how.

    Attributes:
        store: A store URL (opened when the app starts, closed when it stops) or an
            open store (left open).
        tenant: Serve this one tenant without keys (loopback only; ``graphmem serve``
            checks the address). Exactly one of ``tenant`` and ``keys``.
        keys: The API keys, each opening one tenant.
        limits: Request size limits.
        policy: The governance policy of every governed write (default rules when None);
            its retention settings drive the retention schedule.
        retention_interval: Seconds between retention runs when the policy sets
            retention (the first runs at start-up); None never runs it.
        embedder: The embedder of retrieval; default all-MiniLM-L6-v2 when installed.
        context_cache: How many conversation memories (summaries, windows) are kept
            in memory, least recently used dropped first.
        cors_origins: Browser origins allowed to call the API (a WebGL build, say).
        mcp: Also serve the MCP tools at ``/mcp`` (streamable HTTP), on the same store
            and keys (:mod:`graphmem.doors.http.mcp_mount`).
        mcp_actor: Who governed writes through MCP are audited as.
        metrics: Serve ``GET /metrics`` and count requests and store operations, with an
            OpenTelemetry span for each when ``opentelemetry-api`` is installed
            (:mod:`graphmem.doors.http.metrics`).
    """

    store: str | GraphStore
    tenant: str | None = None
    keys: KeyRing | None = None
    limits: Limits = field(default_factory=Limits)
    policy: GovernancePolicy | None = None
    retention_interval: float | None = 3600.0
    embedder: Embedder | None = None
    context_cache: int = 1024
    cors_origins: tuple[str, ...] = ()
    mcp: bool = False
    mcp_actor: str = "mcp-agent"
    metrics: bool = True

    def __post_init__(self) -> None:
        if (self.tenant is None) == (self.keys is None):
            raise InvalidInput("serve exactly one of: a tenant (no keys, loopback) or a keys file")
        if self.retention_interval is not None and self.retention_interval <= 0:
            raise InvalidInput("retention_interval must be a positive number of seconds")
        if self.context_cache <= 0:
            raise InvalidInput("context_cache must be positive")

    @property
    def tenants(self) -> list[str]:
        """Every tenant this server can serve."""
        if self.keys is not None:
            return self.keys.tenants
        assert self.tenant is not None
        return [self.tenant]


# --------------------------------------------------------------------------- state


class _State:
    """What a running app holds: the store, one Memory per tenant, conversation memories."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store: GraphStore | None = None
        self._inline = False
        self.fragments = _Fragments()
        self._memories: dict[str, Memory] = {}
        self._contexts: OrderedDict[tuple[Any, ...], ConversationMemory] = OrderedDict()
        self._lock = threading.Lock()

    def open(self) -> None:
        store = self.config.store
        options = {"tracer": StoreTelemetry()} if self.config.metrics else {}
        self.store = open_store(store, **options) if isinstance(store, str) else store

    @property
    def inline_reads(self) -> bool:
        """Whether reads may run on the event loop: the store answers them from memory.

        Asked again until it holds: a reopened ``file://`` store gains the capability
        once its warm-up has every model in memory, and keeps it.
        """
        if not self._inline and self.store is not None:
            self._inline = "inline_reads" in self.store.capabilities
        return self._inline

    def close(self) -> None:
        if self.store is not None and isinstance(self.config.store, str):
            self.store.close()

    def memory(self, key: str | None) -> Memory:
        if self.config.keys is not None:
            tenant = self.config.keys.lookup(key).tenant
        else:
            assert self.config.tenant is not None
            tenant = self.config.tenant
        found = self._memories.get(tenant)
        if found is None:
            if self.store is None:
                raise BackendUnavailable("the server is not serving yet: its store is not open")
            with self._lock:
                found = self._memories.setdefault(
                    tenant,
                    Memory(self.store, tenant, owns_store=False, embedder=self.config.embedder),
                )
        return found

    def context(
        self, mem: Memory, user: str, session: str, strategy: str, max_tokens: int, window: int
    ) -> ConversationMemory:
        key = (mem.tenant, user, session, strategy, max_tokens, window)
        with self._lock:
            found = self._contexts.get(key)
            if found is not None:
                self._contexts.move_to_end(key)
                return found
        made = mem.conversation_memory(
            user=user,
            session=session,
            strategy=strategy,
            max_tokens=max_tokens,
            window_turns=window,
        )
        with self._lock:
            found = self._contexts.setdefault(key, made)
            self._contexts.move_to_end(key)
            while len(self._contexts) > self.config.context_cache:
                self._contexts.popitem(last=False)
        return found

    def facts(self, mem: Memory, actor: str, session: str | None) -> FactMemory:
        return mem.fact_memory(actor=actor, session=session, policy=self.config.policy)

    def apply_retention(self) -> None:
        """One retention run over every tenant served (errors are logged, not raised)."""
        for tenant in self.config.tenants:
            try:
                mem = self._memory_of(tenant)
                result = mem.fact_memory(
                    actor=RETENTION_ACTOR, policy=self.config.policy
                ).apply_retention()
            except GraphmemError as exc:
                _log.warning("retention failed for a tenant: %s: %s", type(exc).__name__, exc)
                continue
            if result is not None and (result.facts or result.audit_entries):
                _log.info(
                    "retention purged %d facts and %d audit entries of tenant %r",
                    result.facts,
                    result.audit_entries,
                    tenant,
                )

    def _memory_of(self, tenant: str) -> Memory:
        assert self.store is not None
        with self._lock:
            return self._memories.setdefault(
                tenant, Memory(self.store, tenant, owns_store=False, embedder=self.config.embedder)
            )


def _state(request: Request) -> _State:
    state: _State = request.app.state.graphmem
    return state


# --------------------------------------------------------------------------- request plumbing

_bearer = HTTPBearer(
    auto_error=False,
    description="An API key made by `graphmem keys add`, sent as `Authorization: Bearer <key>`.",
)


async def _memory(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Memory:
    return _state(request).memory(credentials.credentials if credentials else None)


Mem = Annotated[Memory, Depends(_memory)]


def _unquote(value: str) -> str:
    return unquote(value, errors="replace")


def _path_id(what: str) -> Any:
    return Path(
        min_length=1,
        max_length=1536,
        description=f"The {what}, percent-encoded (a '/' in it is sent as %2F).",
    )


EntityId = Annotated[str, _path_id("entity id"), AfterValidator(_unquote)]
NpcId = Annotated[str, _path_id("NPC's entity id"), AfterValidator(_unquote)]
SessionId = Annotated[str, _path_id("session id"), AfterValidator(_unquote)]
TurnKey = Annotated[str, _path_id("turn id"), AfterValidator(_unquote)]
FactId = Annotated[str, _path_id("fact id"), AfterValidator(_unquote)]
PlaceId = Annotated[str, _path_id("place's entity id"), AfterValidator(_unquote)]


def _printable_query() -> Any:
    """A printable name in the query (an actor, a session): its rule in the schema too."""
    return Query(min_length=1, max_length=256, json_schema_extra={"pattern": s.PRINTABLE_PATTERN})


Limit = Annotated[int | None, Query(ge=1, le=100_000, description="At most this many.")]
IdQ = Annotated[str | None, Query(min_length=1, max_length=512)]
DepthQ = Annotated[int, Query(ge=1, le=s.MAX_DEPTH)]
NamesQ = Annotated[
    list[Annotated[str, WithJsonSchema({"type": "string", "pattern": s.SAFE_NAME_JSON})]] | None,
    Query(max_length=256),
]
DirectionQ = Annotated[Literal["out", "in", "both"], Query()]
Strategy = Annotated[Literal["none", "truncation", "rolling_summary"], Query()]
Budget = Annotated[int, Query(ge=1, le=s.MAX_TOKENS)]
Window = Annotated[int, Query(ge=1, le=10_000)]
AsOfQ = Annotated[
    datetime | None, Query(description="World time: as things stood then (ISO 8601; naive = UTC).")
]
RecordedAsOfQ = Annotated[
    datetime | None,
    Query(description="Memory time: as the store held it then (ISO 8601; naive = UTC)."),
]
ChainQ = Annotated[
    list[str] | None,
    Query(
        max_length=15,
        description="Nested belief: what the NPC thinks these believe, in order (repeat it).",
    ),
]


async def _conversation_memory(
    mem: Mem,
    request: Request,
    user: Annotated[str, _path_id("end user (player, customer)"), AfterValidator(_unquote)],
    session: Annotated[str, _path_id("session of the conversation"), AfterValidator(_unquote)],
    strategy: Strategy = "rolling_summary",
    max_tokens: Budget = 2000,
    window_turns: Window = 20,
) -> ConversationMemory:
    """The conversation memory a route names: (user, session) and its strategy and budgets."""
    state = _state(request)
    return await _write(state.context, mem, user, session, strategy, max_tokens, window_turns)


ChatMemory = Annotated[ConversationMemory, Depends(_conversation_memory)]

_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89abcdefABCDEF]")


def _has_lone_surrogate(value: Any) -> bool:
    if isinstance(value, str):
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:
            return True
        return False
    if isinstance(value, dict):
        return any(_has_lone_surrogate(k) or _has_lone_surrogate(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_has_lone_surrogate(item) for item in value)
    return False


def _decode_json(body: bytes, limits: Limits) -> Any:
    """A JSON body, parsed politely (:mod:`.bodies`): no unpaired surrogates, batches bounded.

    Raises:
        json.JSONDecodeError: Not JSON, or it holds an unpaired surrogate (not storable).
        PayloadTooLarge: A top-level array over ``max_batch_rows``.
    """
    try:
        data = parse_json(body, max_items=limits.max_batch_rows)
    except BatchTooLong as exc:
        raise PayloadTooLarge(
            f"{exc.field} holds more than {exc.limit:,} items; the limit max_batch_rows is "
            f"{exc.limit:,}: send smaller batches",
            limit="max_batch_rows",
            max=exc.limit,
        ) from None
    except UnicodeDecodeError as exc:
        raise json.JSONDecodeError(f"the body is not UTF-8 ({exc.reason})", "", exc.start) from None
    except RecursionError:
        raise StarletteHTTPException(400, "the JSON body is nested too deeply") from None
    if _SURROGATE_ESCAPE.search(body) and _has_lone_surrogate(data):
        raise json.JSONDecodeError(
            "the JSON holds an unpaired surrogate (\\ud800-\\udfff escape)",
            body.decode("utf-8", "replace"),
            0,
        )
    return data


def _is_json(request: Request) -> bool:
    kind = request.headers.get("content-type", "").split(";", 1)[0].strip().lower()
    return kind == "application/json" or (
        kind.startswith("application/") and kind.endswith("+json")
    )


class _JSONRequest(Request):
    """A request whose JSON body is parsed (and validated) in a worker thread.

    :meth:`prepare` does it before FastAPI reads the body, so the event loop never parses
    or validates a body: FastAPI then gets the validated model and checks only its type.
    """

    _json_error: json.JSONDecodeError | None = None

    async def prepare(self, limits: Limits, field: Any | None) -> None:
        """Read, parse and (with a body ``field``) validate the body off the event loop.

        Raises:
            PayloadTooLarge: A batch over ``max_batch_rows`` (before the rest is parsed).
            RequestValidationError: The body is not what the route takes.
        """
        body = await self.body()  # _BodyLimit refuses it while it arrives if too large
        if not body or not _is_json(self):
            return
        try:
            self._json = await anyio.to_thread.run_sync(_validated, body, limits, field)
        except json.JSONDecodeError as exc:
            self._json_error = exc  # FastAPI reports it from json(), as it always does

    async def json(self) -> Any:
        if not hasattr(self, "_json"):
            if self._json_error is not None:
                raise self._json_error
            limits = _limits(self)
            body = await self.body()
            self._json = await anyio.to_thread.run_sync(_decode_json, body, limits)
        return self._json


def _validated(body: bytes, limits: Limits, field: Any | None) -> Any:
    data = _decode_json(body, limits)
    if field is None:
        return data
    value, errors = field.validate(data, {}, loc=("body",))
    if errors:
        raise RequestValidationError(errors, body=data)
    return value


class _Route(APIRoute):
    def get_route_handler(self) -> Callable[[Request], Any]:
        handler = super().get_route_handler()
        # A single body model that is the whole body: validated off the loop in prepare();
        # other bodies are only parsed there, and FastAPI validates their parts.
        params = self.dependant.body_params
        single = (
            self.body_field is not None
            and len({p.name for p in params}) == 1
            and not getattr(self, "_embed_body_fields", True)
        )
        field = self.body_field if single else None

        async def route(request: Request) -> Response:
            prepared = _JSONRequest(request.scope, request.receive)
            if self.body_field is not None:
                await prepared.prepare(_limits(request), field)
            response: Response = await handler(prepared)
            return response

        return route


def _text(limits: Limits, what: str, value: str | None) -> None:
    if value is not None and len(value) > limits.max_text_chars:
        raise InvalidInput(
            f"{what} is {len(value):,} characters long; the limit max_text_chars is "
            f"{limits.max_text_chars:,}",
            limit="max_text_chars",
            max=limits.max_text_chars,
        )


def _rows(limits: Limits, what: str, items: Sequence[Any] | None) -> None:
    if items is not None and len(items) > limits.max_batch_rows:
        raise PayloadTooLarge(
            f"{what} holds {len(items):,} items; the limit max_batch_rows is "
            f"{limits.max_batch_rows:,}: send smaller batches",
            limit="max_batch_rows",
            max=limits.max_batch_rows,
        )


def _limits(request: Request) -> Limits:
    return _state(request).config.limits


_T = TypeVar("_T")


async def _write(fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
    """Run a store call in a worker thread: writes may wait on a disk or a server."""
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


_scan = _write
"""Reads that may walk much of a tenant (searches, listings, retrieval): a worker thread too."""


async def _read(request: Request, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
    """A bounded read: on the event loop when the store answers reads without I/O.

    The thread hop costs more than an embedded store's whole snapshot; a server store's
    reads wait on the network, so they go to a worker thread.
    """
    if _state(request).inline_reads:
        return fn(*args, **kwargs)
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


# --------------------------------------------------------------------------- ASGI middleware


class _RawPath:
    """Route on the path as sent, so an id holding '/' (sent as %2F) stays one segment.

    Path parameters arrive percent-encoded and each is decoded once, by its parameter
    type. Paths that are not plain ASCII (not percent-encoded) are left as the server
    decoded them.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        raw = scope.get("raw_path") if scope["type"] == "http" else None
        if raw and b"%" in raw:
            with contextlib.suppress(UnicodeDecodeError):
                scope = dict(scope, path=raw.decode("ascii"))
        await self.app(scope, receive, send)


class BodyTooLarge(StarletteHTTPException):
    """A request body over its byte limit (413, naming the limit)."""

    def __init__(self, name: str, limit: int) -> None:
        super().__init__(
            413,
            f"the request body is larger than {name} = {limit:,} bytes; send less, "
            f"or start the server with a larger --{name.replace('_', '-')}",
        )
        self.limit_name = name
        self.limit = limit


class _BodyLimit:
    """Refuses request bodies over the limits before or while they are read (413)."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        if scope["path"] == f"{API_PREFIX}/import":
            name, limit = "max_import_bytes", self.limits.max_import_bytes
        else:
            name, limit = "max_body_bytes", self.limits.max_body_bytes
        declared = dict(scope["headers"]).get(b"content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            error = BodyTooLarge(name, limit)
            body = problem_body(
                413, error.detail, instance=scope["path"], extra={"limit": name, "max": limit}
            )
            await _send_problem(send, 413, body)
            return
        seen = 0

        async def counted() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLarge(name, limit)
            return message

        await self.app(scope, counted, send)


class _KeyFirst:
    """Checks the API key of a request with a body before anything reads the body.

    A request with a wrong, revoked or expired key (or none) is answered 401 at once: its
    body is never read, parsed or validated, so it costs the server nothing.
    """

    def __init__(self, app: ASGIApp, state: _State) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] == "http"
            and scope["method"] in ("POST", "PUT", "PATCH", "DELETE")
            and self.state.config.keys is not None
            and scope["path"].startswith(f"{API_PREFIX}/")
        ):
            try:
                self.state.config.keys.lookup(_bearer_key(scope))
            except GraphmemError as exc:
                status, body = problem(exc, instance=scope["path"])
                await _send_problem(send, status, body, www_authenticate=status == 401)
                return
        await self.app(scope, receive, send)


_FAST_PATH = re.compile(rb"^/v1/npcs/([!-.0-~]{1,1536})/(snapshot|prompt)$")
_MAX_TOKENS_QUERY = re.compile(rb"^max_tokens=([1-9][0-9]{0,5})$")
_JSON_HEADERS = [(b"content-type", b"application/json")]


class _App(FastAPI):
    """The FastAPI app, with the two routes a game engine calls many times a second first.

    ``GET /v1/npcs/{id}/snapshot`` and ``GET /v1/npcs/{id}/prompt[?max_tokens=N]`` are
    answered before the framework's middleware and routing when the store answers reads
    without I/O: the same key check, the same store call, the same JSON and the same
    problem documents as the FastAPI routes (a test compares them), minus the
    per-request work of the framework (middleware layers, routing, dependency solving,
    re-validating the answer), which costs more than the snapshot itself. Anything else
    (another query string, a store that reads over the network, CORS) goes to FastAPI.
    """

    fast: _State | None = None
    observe: Observer | None = None  # graphmem.doors.http.metrics: counts and traces requests

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
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
            or not await _fast_snapshot(state, scope, send)
        ):
            await super().__call__(scope, receive, send)


class _Fragments:
    """The JSON of stored models, kept by identity: a snapshot's JSON assembled from parts.

    Stored models are immutable and a store hands out the same instance until it changes
    (then a new instance is stored), so the JSON of an instance never goes stale. The
    cache holds each instance it encoded (so its ``id`` cannot be reused) and is emptied
    whole when it reaches ``limit`` entries. The assembled document equals
    ``NPCIdentity.model_dump_json()`` byte for byte (a test checks it).
    """

    def __init__(self, limit: int = 200_000) -> None:
        self._limit = limit
        self._cache: dict[int, tuple[Any, bytes]] = {}

    def __call__(self, model: Any) -> bytes:
        found = self._cache.get(id(model))
        if found is not None and found[0] is model:
            return found[1]
        if len(self._cache) >= self._limit:
            self._cache.clear()
        encoded: bytes = model.__pydantic_serializer__.to_json(model)
        self._cache[id(model)] = (model, encoded)
        return encoded

    def identity(self, identity: NPCIdentity) -> bytes:
        """``identity.model_dump_json()``, as bytes, from the parts' cached JSON."""
        return b"".join(
            (
                b'{"entity":',
                self(identity.entity),
                b',"relationships":[',
                b",".join([self(r) for r in identity.relationships]),
                b'],"related_entities":[',
                b",".join([self(e) for e in identity.related_entities]),
                b"]}",
            )
        )


async def _fast_snapshot(state: _State, scope: Scope, send: Send) -> bool:
    """Answer a snapshot or prompt request; False when FastAPI must answer it."""
    raw = scope.get("raw_path") or scope["path"].encode("utf-8")
    match = _FAST_PATH.match(raw)
    if match is None:
        return False
    route = match.group(2)
    query = scope.get("query_string", b"")
    max_tokens: int | None = None
    if query:
        found = _MAX_TOKENS_QUERY.match(query) if route == b"prompt" else None
        if found is None:
            return False  # FastAPI validates whatever else was asked
        max_tokens = int(found.group(1))
    path = raw.decode("latin-1")
    try:
        npc_id = _unquote(match.group(1).decode("ascii"))
        mem = state.memory(_bearer_key(scope))
        identity = mem.identity_snapshot(npc_id)
        if route == b"snapshot":
            payload = state.fragments.identity(identity)
        else:
            text = identity.to_prompt(max_tokens=max_tokens)
            out = s.PromptOut(npc_id=npc_id, prompt=text, token_estimate=estimate_tokens(text))
            payload = out.model_dump_json().encode("utf-8")
    except GraphmemError as exc:
        status, body = problem(exc, instance=path)
        await _send_problem(send, status, body, www_authenticate=status == 401)
        return True
    except Exception as exc:  # the same answer as the FastAPI routes' last-resort handler
        _log.error("unexpected error on GET %s", path, exc_info=exc)
        body = problem_body(
            500, "an unexpected error; the server log has the details", title="InternalError"
        )
        await _send_problem(send, 500, {**body, "instance": path})
        return True
    await send(
        {
            "type": "http.response.start",
            "status": 200,
            "headers": [*_JSON_HEADERS, (b"content-length", str(len(payload)).encode())],
        }
    )
    await send({"type": "http.response.body", "body": payload})
    return True


def _bearer_key(scope: Scope) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header, as HTTPBearer reads it."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            return key.strip() or None if scheme.lower() == "bearer" else None
    return None


async def _send_problem(
    send: Send, status: int, body: dict[str, Any], *, www_authenticate: bool = False
) -> None:
    payload = encode(body)
    headers = [
        (b"content-type", MEDIA_TYPE.encode()),
        (b"content-length", str(len(payload)).encode()),
    ]
    if www_authenticate:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})


def _problem_response(
    status: int, body: dict[str, Any], headers: dict[str, str] | None = None
) -> Response:
    return Response(encode(body), status_code=status, media_type=MEDIA_TYPE, headers=headers)


# --------------------------------------------------------------------------- error handlers


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


class Problem(BaseModel):
    """An error, as RFC 9457 ``application/problem+json``."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None


def _problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    descriptions = {
        400: "The body could not be read.",
        401: "No API key, or an unknown one (IdentityRequired).",
        403: "A governance rule forbids the write (PolicyViolation and its kin).",
        404: "No such entity, turn, fact or route (NotFound).",
        405: "The route does not take this method.",
        409: "Stored data does not verify, or a state change is not allowed.",
        413: "The body or a batch is over a size limit (named in the problem).",
        415: "The body is not JSON (send Content-Type: application/json).",
        422: "Bad input (InvalidInput): the problem says what to fix; nothing was written.",
        501: "The backend cannot do this (UnsupportedOperation).",
        503: "The store cannot be reached (BackendUnavailable).",
    }
    return {
        status: {
            "description": descriptions[status],
            "model": Problem,
            "content": {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
        }
        for status in statuses
    }


_ERRORS = _problem_responses(400, 401, 403, 404, 405, 409, 413, 415, 422, 501, 503)


# --------------------------------------------------------------------------- the app


def create_app(config: ServerConfig) -> FastAPI:
    """The FastAPI app of a graphmem HTTP server (run it with uvicorn, or mount it).

    The store is opened when the app starts and closed when it stops (a URL), and the
    retention schedule runs in between when the policy sets retention.
    """
    state = _State(config)

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

    app = _App(
        title="graphmem",
        version=__version__,
        summary="Graph memory for AI agents and game NPCs, over HTTP.",
        description=_DESCRIPTION,
        lifespan=lifespan,
        generate_unique_id_function=lambda route: route.name,
        openapi_tags=_TAGS,
        docs_url=None,  # FastAPI's pages load their scripts from a CDN: ours work offline
        redoc_url=None,
    )
    app.state.graphmem = state
    _share_error_responses(app)
    app.router.route_class = _Route
    app.add_exception_handler(GraphmemError, _graphmem_error)
    app.add_exception_handler(RequestValidationError, _validation_error)
    app.add_exception_handler(StarletteHTTPException, _http_error)
    app.add_exception_handler(Exception, _unexpected)
    app.include_router(_router())
    if config.mcp:
        from graphmem.doors.http.mcp_mount import mount_mcp

        # Without keys the server is loopback only: the SDK guards it from DNS rebinding.
        host = "127.0.0.1" if config.keys is None else "0.0.0.0"
        mount_mcp(app, state.memory, actor=config.mcp_actor, policy=config.policy, host=host)

    @app.get(
        "/healthz",
        tags=["health"],
        response_model=s.Health,
        responses=_problem_responses(503),
        summary="Liveness: the server is up and its store answers (no key needed)",
    )
    async def healthz(request: Request) -> s.Health:
        store = _state(request).store
        if store is None:
            raise BackendUnavailable("the server is not serving yet: its store is not open")
        # One cheap read of an empty tenant: the store answers.
        await _read(request, store.count_entities, "graphmem-healthz")
        return s.Health(status="ok", version=__version__)

    from graphmem.doors.http.docs_page import add_docs_pages
    from graphmem.doors.http.inspector import add_inspector
    from graphmem.doors.http.warmup import install_warmup

    add_docs_pages(app)
    add_inspector(app)

    app.state.warmup = install_warmup(app, lambda: state.store, config.embedder)
    if config.metrics:
        app.observe = install_metrics(app, lambda: list(state._memories.values()))
    if not config.cors_origins:  # the fast routes skip the middleware, CORS included
        app.fast = state
    app.add_middleware(_KeyFirst, state=state)  # inside CORS: a 401 carries its headers
    if config.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(config.cors_origins),
            allow_methods=["GET", "POST", "PATCH", "PUT", "DELETE"],
            allow_headers=["Authorization", "Content-Type"],
        )
    app.add_middleware(_BodyLimit, limits=config.limits)
    app.add_middleware(_RawPath)
    return app


def _share_error_responses(app: FastAPI) -> None:
    """Describe each error response once, in ``components/responses``, and refer to it.

    Every route can answer the same problem documents; written out per route they
    would make most of the OpenAPI document.
    """
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is not None:
            return app.openapi_schema
        document = build()
        shared: dict[str, Any] = {}
        for operations in document.get("paths", {}).values():
            for operation in operations.values():
                for status, response in list(operation.get("responses", {}).items()):
                    content = response.get("content", {})
                    if MEDIA_TYPE not in content:
                        continue
                    name = _RESPONSE_NAMES[int(status)]
                    shared[name] = {
                        "description": response["description"],
                        "content": {MEDIA_TYPE: content[MEDIA_TYPE]},
                    }
                    operation["responses"][status] = {"$ref": f"#/components/responses/{name}"}
        components = document.setdefault("components", {})
        components["responses"] = dict(sorted(shared.items()))
        _plain_schema_names(document)
        app.openapi_schema = document
        return document

    app.openapi = openapi  # type: ignore[method-assign]


_SCHEMA_NAMES = {MindFact: "MindFact"}
"""Models whose class name another model of the API shares, and their name in the document.

Two models named ``Fact`` travel in this API (a governed fact, and the proposition of
NPC minds that events change and beliefs hold); pydantic would name both by their module
path (``graphmem__minds__models__Fact``), which generated clients turn into type names."""


def _plain_schema_names(document: dict[str, Any]) -> None:
    """Give the schemas of :data:`_SCHEMA_NAMES` their names; every other its class name."""
    schemas: dict[str, Any] = document.get("components", {}).get("schemas", {})
    renames: dict[str, str] = {}
    for key, schema in schemas.items():
        base, dash, mode = key.partition("-")
        name = base.rsplit("__", 1)[-1]
        for model, wanted in _SCHEMA_NAMES.items():
            qualified = f"{model.__module__}.{model.__qualname__}".replace(".", "__")
            ours = base == qualified or (
                base == model.__name__
                and schema.get("description") == inspect.cleandoc(model.__doc__ or "")
            )
            if ours:
                name = wanted
        if name != base:
            renames[key] = f"{name}{dash}{mode}"
    taken = set(schemas) - set(renames)
    if len(set(renames.values())) != len(renames) or taken & set(renames.values()):
        raise RuntimeError(f"OpenAPI schema names clash after renaming: {renames}")
    if not renames:
        return
    prefix = "#/components/schemas/"
    old_refs = {f"{prefix}{old}": f"{prefix}{new}" for old, new in renames.items()}

    def rewrite(value: Any) -> Any:
        if isinstance(value, dict):
            return {
                k: old_refs.get(v, v) if k == "$ref" and isinstance(v, str) else rewrite(v)
                for k, v in value.items()
            }
        if isinstance(value, list):
            return [rewrite(item) for item in value]
        return value

    renamed = {renames.get(k, k): v for k, v in schemas.items()}
    document["components"]["schemas"] = dict(sorted(rewrite(renamed).items()))
    for key in ("paths", "webhooks"):
        if key in document:
            document[key] = rewrite(document[key])
    for key, value in document["components"].items():
        if key != "schemas":
            document["components"][key] = rewrite(value)


_RESPONSE_NAMES = {
    400: "BadRequest",
    401: "Unauthorized",
    403: "Forbidden",
    404: "NotFound",
    405: "MethodNotAllowed",
    409: "Conflict",
    413: "PayloadTooLarge",
    415: "UnsupportedMediaType",
    422: "InvalidInput",
    501: "NotImplemented",
    503: "Unavailable",
}


async def _retention_loop(state: _State, interval: float) -> None:
    while True:
        # Not cancellable mid-run: a shutdown waits for the run in progress to finish.
        await anyio.to_thread.run_sync(state.apply_retention)
        await asyncio.sleep(interval)


_DESCRIPTION = """\
Every call is scoped to one tenant: the one the API key opens (`Authorization: Bearer
<key>`; keys are made by `graphmem keys add`), or the one a loopback server was started
for with `--tenant`. Errors are `application/problem+json` (RFC 9457) whose `type` names
the graphmem error (`urn:graphmem:error:NotFound`). Ids in paths are percent-encoded.
Request size limits (body bytes, batch rows, text length) are set when the server starts;
a request over one gets a 413 or 422 naming it."""

_TAGS = [
    {
        "name": "entities",
        "description": "NPCs, players, places, items: upsert, read, find, delete.",
    },
    {
        "name": "relationships",
        "description": "Facts between entities, with provenance and validity.",
    },
    {"name": "graph", "description": "Identity snapshots, neighbours, paths, subgraphs."},
    {"name": "conversations", "description": "Turn trees: append, fork, history, branches."},
    {"name": "session log", "description": "Search across sessions."},
    {"name": "retrieval", "description": "Documents in, GraphRAG context out, with provenance."},
    {
        "name": "facts",
        "description": "Governed facts: learn, recall, forget, review, roll back, audit.",
    },
    {
        "name": "npc minds",
        "description": "What each NPC believes, apart from what is true: events, witnessing, "
        "telling, beliefs at two clocks, recall and forgetting, session recaps.",
    },
    {"name": "llm context", "description": "What to put into an LLM's context window."},
    {"name": "tenant", "description": "Export and import a tenant as JSON Lines."},
    {"name": "health", "description": "Is the server up."},
]


# --------------------------------------------------------------------------- routes


def _router() -> APIRouter:  # noqa: C901 - one flat list of routes reads best
    router = APIRouter(prefix=API_PREFIX, responses=_ERRORS, route_class=_Route)

    # -------------------------------------------------------------- entities
    @router.post("/entities", tags=["entities"], response_model=s.EntityList)
    async def upsert_entities(mem: Mem, request: Request, body: s.EntityBatch) -> s.EntityList:
        """Insert or replace entities by id, in one batch; returns them as stored."""
        _rows(_limits(request), "entities", body.entities)
        return s.EntityList(entities=await _write(mem.upsert_entities, body.entities))

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
        found = await _scan(
            mem.find_entities, type=type, name=name, name_contains=name_contains, limit=limit
        )
        return s.EntityList(entities=found)

    @router.post("/entities/find", tags=["entities"], response_model=s.EntityList)
    async def find_entities(mem: Mem, body: s.EntityQuery) -> s.EntityList:
        """Entities matching a filter: type, whole name, name substring, attributes, limit."""
        found = await _scan(
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
        _rows(_limits(request), "ids", body.ids)
        return s.Deleted(deleted=await _write(mem.delete_entities, body.ids))

    @router.get("/entities/{entity_id}", tags=["entities"], response_model=Entity)
    async def get_entity(mem: Mem, request: Request, entity_id: EntityId) -> Entity:
        """One entity."""
        return await _read(request, mem.get_entity, entity_id)

    @router.patch("/entities/{entity_id}", tags=["entities"], response_model=Entity)
    async def update_entity(mem: Mem, entity_id: EntityId, body: s.EntityUpdate) -> Entity:
        """Rename or retype an entity, merge attributes in, remove attribute keys."""
        return await _write(
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
        return s.Deleted(deleted=await _write(mem.delete_entities, [entity_id]))

    @router.get("/counts", tags=["entities"], response_model=s.Counts)
    async def counts(mem: Mem, request: Request) -> s.Counts:
        """How many entities, relationships (invalidated ones included) and turns."""

        def count() -> s.Counts:
            return s.Counts(
                entities=mem.count_entities(),
                relationships=mem.count_relationships(),
                turns=mem.count_turns(),
            )

        return await _read(request, count)

    # -------------------------------------------------------------- relationships
    @router.post("/relationships", tags=["relationships"], response_model=s.RelationshipList)
    async def upsert_relationships(
        mem: Mem, request: Request, body: s.RelationshipBatch
    ) -> s.RelationshipList:
        """Insert or replace relationships keyed by (source, target, type); ends must exist."""
        _rows(_limits(request), "relationships", body.relationships)
        stored = await _write(mem.upsert_relationships, body.relationships)
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
        found = await _read(
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
        return await _write(mem.invalidate, body.source_id, body.target_id, body.type, at=body.at)

    @router.post("/relationships/delete", tags=["relationships"], response_model=s.Existed)
    async def delete_relationship(mem: Mem, body: s.RelationshipKey) -> s.Existed:
        """Delete one relationship (prefer invalidate: it keeps the history)."""
        existed = await _write(mem.delete_relationship, body.source_id, body.target_id, body.type)
        return s.Existed(deleted=existed)

    # -------------------------------------------------------------- graph
    @router.get("/npcs/{npc_id}/snapshot", tags=["graph"], response_model=NPCIdentity)
    async def snapshot(
        mem: Mem,
        request: Request,
        npc_id: NpcId,
        as_of: AsOfQ = None,
        recorded_as_of: RecordedAsOfQ = None,
    ) -> NPCIdentity:
        """Who the NPC is: the entity, its facts both ways, their other ends; now or then."""
        return await _read(
            request, mem.identity_snapshot, npc_id, as_of=as_of, recorded_as_of=recorded_as_of
        )

    @router.get(
        "/npcs/{npc_id}/perspective", tags=["npc minds"], response_model=PerspectiveIdentity
    )
    async def perspective(
        mem: Mem,
        request: Request,
        npc_id: NpcId,
        as_of: AsOfQ = None,
        recorded_as_of: RecordedAsOfQ = None,
    ) -> NPCIdentity:
        """Who the NPC is as it sees things: the snapshot of its own beliefs, now or then."""
        return await _read(
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
        identity = await _read(
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
        found = await _read(
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
        return await _read(request, mem.visible_subgraph, entity_id, depth=depth)

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
        path = await _read(
            request, mem.find_path, source_id, target_id, max_depth=max_depth, rel_types=rel_types
        )
        return s.PathOut(path=path)

    @router.post("/expand", tags=["graph"], response_model=Subgraph)
    async def expand(mem: Mem, request: Request, body: s.ExpandRequest) -> Subgraph:
        """The seeds and every entity within ``depth`` hops of any, with the facts among them."""
        _rows(_limits(request), "seed_ids", body.seed_ids)
        return await _scan(
            mem.expand,
            body.seed_ids,
            depth=body.depth,
            rel_types=body.rel_types,
            direction=body.direction,
            within=body.within,
            max_nodes=body.max_nodes,
        )

    # -------------------------------------------------------------- conversations
    @router.post("/conversations/{session_id}/turns", tags=["conversations"], response_model=Turn)
    async def append_turn(
        mem: Mem, request: Request, session_id: SessionId, body: s.TurnIn
    ) -> Turn:
        """Append a turn after the head; it becomes the head."""
        _text(_limits(request), "content", body.content)
        return await _write(
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
        limits = _limits(request)
        _rows(limits, "turns", body.turns)
        for turn in body.turns:
            _text(limits, "content", turn.content)
        entries = [turn.model_dump(exclude_none=True) for turn in body.turns]
        return s.TurnList(turns=await _write(mem.conversation(session_id).extend, entries))

    @router.get(
        "/conversations/{session_id}/turns", tags=["conversations"], response_model=s.TurnList
    )
    async def list_turns(mem: Mem, request: Request, session_id: SessionId) -> s.TurnList:
        """Every turn on every branch, in the order they were created."""
        return s.TurnList(turns=await _read(request, mem.conversation(session_id).turns))

    @router.get(
        "/conversations/{session_id}/history", tags=["conversations"], response_model=s.TurnList
    )
    async def history(
        mem: Mem, request: Request, session_id: SessionId, limit: Limit = None
    ) -> s.TurnList:
        """The active branch, oldest first (the newest ``limit`` turns when given)."""
        turns = await _read(request, mem.conversation(session_id).history, limit=limit)
        return s.TurnList(turns=turns)

    @router.get(
        "/conversations/{session_id}/head", tags=["conversations"], response_model=s.TurnOrNone
    )
    async def head(mem: Mem, request: Request, session_id: SessionId) -> s.TurnOrNone:
        """The newest turn of the active branch (null before the first append)."""
        chat = mem.conversation(session_id)
        return s.TurnOrNone(turn=await _read(request, lambda: chat.head))

    @router.post("/conversations/{session_id}/fork", tags=["conversations"], response_model=Turn)
    async def fork(mem: Mem, session_id: SessionId, body: s.ForkRequest) -> Turn:
        """Move the head to an earlier turn: the next append starts a new branch there."""
        return await _write(mem.conversation(session_id).fork, body.turn)

    @router.get(
        "/conversations/{session_id}/branches", tags=["conversations"], response_model=s.BranchList
    )
    async def branches(mem: Mem, request: Request, session_id: SessionId) -> s.BranchList:
        """Every branch (root to leaf): its leaf, its fork point, its length, whether active."""
        return s.BranchList(branches=await _read(request, mem.conversation(session_id).branches))

    @router.delete(
        "/conversations/{session_id}/turns/{turn_id}",
        tags=["conversations"],
        response_model=s.Existed,
    )
    async def delete_turn(mem: Mem, session_id: SessionId, turn_id: TurnKey) -> s.Existed:
        """Delete one turn; its children are re-linked to its parent, so no branch breaks."""
        return s.Existed(deleted=await _write(mem.conversation(session_id).delete_turn, turn_id))

    @router.delete("/conversations/{session_id}", tags=["conversations"], response_model=s.Deleted)
    async def delete_conversation(mem: Mem, session_id: SessionId) -> s.Deleted:
        """Delete the whole conversation, every branch; returns how many turns it had."""
        return s.Deleted(deleted=await _write(mem.conversation(session_id).delete))

    # -------------------------------------------------------------- session log
    @router.get("/sessions", tags=["session log"], response_model=s.SessionList)
    async def sessions(mem: Mem) -> s.SessionList:
        """Every session with turns, most recently active first."""
        return s.SessionList(sessions=await _scan(mem.sessions))

    @router.get("/turns/search", tags=["session log"], response_model=s.TurnList)
    async def search_turns(
        mem: Mem,
        request: Request,
        text: Annotated[str | None, Query()] = None,
        session_id: IdQ = None,
        speaker: Annotated[str | None, Query(max_length=512)] = None,
        role: Annotated[str | None, Query(max_length=64)] = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: Limit = None,
    ) -> s.TurnList:
        """Keyword search over the session log (every keyword must occur), newest first."""
        _text(_limits(request), "text", text)
        found = await _scan(
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
        within_seconds: Annotated[float, Query(gt=0, le=1e10)],
        session_id: IdQ = None,
        limit: Limit = None,
    ) -> s.TurnList:
        """Turns created within the last ``within_seconds``, newest first."""
        within = timedelta(seconds=within_seconds)
        found = await _scan(mem.recent_turns, within, session_id=session_id, limit=limit)
        return s.TurnList(turns=found)

    # -------------------------------------------------------------- retrieval
    @router.post("/documents", tags=["retrieval"], response_model=s.IngestOut)
    async def add_documents(mem: Mem, request: Request, body: s.DocumentBatch) -> s.IngestOut:
        """Chunk documents, link the chunks to the entities they name, embed them."""
        limits = _limits(request)
        _rows(limits, "documents", body.documents)
        for doc in body.documents:
            _text(limits, "a document's text", doc.text)
        report = await _write(
            mem.add_documents,
            body.documents,
            chunk_tokens=body.chunk_tokens,
            overlap=body.overlap,
            embed=body.embed,
            nested_mentions=body.nested_mentions,
            title_entities=body.title_entities,
        )
        return s.IngestOut(
            documents=report.documents,
            chunk_ids=list(report.chunk_ids),
            mentions=report.mentions,
            entities=report.entities,
            relationships=report.relationships,
            extractor=report.extractor,
            notes=list(report.notes),
        )

    @router.post("/index/entities", tags=["retrieval"], response_model=s.Indexed)
    async def index_entities(mem: Mem, request: Request, body: s.IndexEntitiesRequest) -> s.Indexed:
        """Embed entities (name, aliases, description): those named, or every one."""
        _rows(_limits(request), "ids", body.ids)
        return s.Indexed(indexed=await _write(mem.index_entities, body.ids))

    @router.post("/index/turns", tags=["retrieval"], response_model=s.Indexed)
    async def index_turns(mem: Mem, body: s.IndexTurnsRequest) -> s.Indexed:
        """Link turns to the entities they name, and embed them: one session or all."""
        return s.Indexed(indexed=await _write(mem.index_turns, body.session_id, embed=body.embed))

    @router.post("/retrieve", tags=["retrieval"], response_model=s.RetrieveOut)
    async def retrieve(mem: Mem, request: Request, body: s.RetrieveRequest) -> s.RetrieveOut:
        """What the memory knows that helps answer a query, each result with its provenance."""
        _text(_limits(request), "query", body.query)
        results = await _scan(
            mem.retrieve,
            body.query,
            k=body.k,
            hops=body.hops,
            graph_scope=body.graph_scope,
            kinds=body.kinds,
            rel_types=body.rel_types,
            preset=body.preset,
        )
        context = mem.render_context(results, body.max_tokens) if body.max_tokens else None
        return s.RetrieveOut(results=results, context=context)

    @router.post("/ask", tags=["retrieval"], response_model=s.AskOut)
    async def ask(mem: Mem, request: Request, body: s.AskRequest) -> s.AskOut:
        """Answer a question about the entity graph: entities at the end of a typed walk.

        Each answer carries the relation path and one chain of facts from the entity the
        question names to it, each fact with its own provenance.
        """
        _text(_limits(request), "question", body.question)
        answers = await _scan(
            mem.ask, body.question, k=body.k, max_hops=body.max_hops, semantic=body.semantic
        )
        return s.AskOut.of(answers)

    # -------------------------------------------------------------- governed facts
    @router.post("/facts", tags=["facts"], response_model=s.LearnOut)
    async def learn(mem: Mem, request: Request, body: s.LearnRequest) -> s.LearnOut:
        """Write one fact through the governance rules (trust, PII, conflicts, audit)."""
        limits = _limits(request)
        for name in ("subject", "relation", "value"):
            _text(limits, name, getattr(body, name))
        facts = _state(request).facts(mem, body.actor, body.session)
        result = await _write(
            facts.learn,
            body.subject,
            body.relation,
            body.value,
            source_type=body.source_type,
            memory_type=body.memory_type,
            scope=body.scope,
            category=body.category,
        )
        return s.LearnOut.of(result)

    @router.post("/facts/relate", tags=["facts"], response_model=s.LearnOut)
    async def relate(mem: Mem, request: Request, body: s.RelateRequest) -> s.LearnOut:
        """Write one relationship through the governance rules: an edge once believed.

        The governed twin of ``POST /relationships``: trust, personal data, poisoning,
        consolidation and the audit trail apply; the edge carries the fact's provenance.
        """
        facts = _state(request).facts(mem, body.actor, body.session)
        result = await _write(
            facts.relate,
            body.source_id,
            body.type,
            body.target_id,
            source_type=body.source_type,
            memory_type=body.memory_type,
            category=body.category,
        )
        return s.LearnOut.of(result)

    @router.get("/facts", tags=["facts"], response_model=s.FactList)
    async def facts(
        mem: Mem,
        request: Request,
        actor: Annotated[str, _printable_query()],
        session: Annotated[str | None, _printable_query()] = None,
        subject: Annotated[str | None, Query(max_length=10_000)] = None,
        relation: Annotated[str | None, Query(max_length=10_000)] = None,
        as_of: datetime | None = None,
        include_pending: bool = False,
        include_all: bool = False,
    ) -> s.FactList:
        """The facts visible to ``actor`` (and ``session``): believed now, or at ``as_of``."""
        found = await _scan(
            _state(request).facts(mem, actor, session).facts,
            subject=subject,
            relation=relation,
            as_of=as_of,
            include_pending=include_pending,
            include_all=include_all,
        )
        return s.FactList(facts=found)

    @router.post("/facts/recall", tags=["facts"], response_model=s.RecallOut)
    async def recall(mem: Mem, request: Request, body: s.RecallRequest) -> s.RecallOut:
        """The visible current facts that best answer a query, within ``max_tokens``."""
        _text(_limits(request), "query", body.query)
        found = await _scan(
            _state(request).facts(mem, body.actor, body.session).recall,
            body.query,
            max_tokens=body.max_tokens,
            limit=body.limit,
            memory_types=body.memory_types,
        )
        return s.RecallOut(facts=found)

    @router.get("/facts/audit", tags=["facts"], response_model=s.AuditLog)
    async def audit_log(mem: Mem, request: Request, limit: Limit = None) -> s.AuditLog:
        """The tenant's audit trail, oldest first (the newest ``limit`` entries when given)."""
        reader = _state(request).facts(mem, "audit-reader", None)
        return s.AuditLog(entries=await _scan(reader.audit_log, limit=limit))

    @router.post("/facts/rollback", tags=["facts"], response_model=s.RollbackOut)
    async def rollback(mem: Mem, request: Request, body: s.RollbackRequest) -> s.RollbackOut:
        """Undo every audited change after an audit entry, newest first."""
        facts = _state(request).facts(mem, body.actor, body.session)
        return s.RollbackOut(undone=await _write(facts.rollback_to, body.entry_id))

    def _fact_action(name: str, doc: str) -> None:
        async def action(mem: Mem, request: Request, fact_id: FactId, body: s.FactActor) -> Fact:
            facts = _state(request).facts(mem, body.actor, body.session)
            result: Fact = await _write(getattr(facts, name), fact_id)
            return result

        action.__name__ = f"{name}_fact"
        action.__doc__ = doc
        router.post(f"/facts/{{fact_id}}/{name}", tags=["facts"], response_model=Fact)(action)

    _fact_action("forget", "Stop believing a fact from now on (kept for as_of reads; audited).")
    _fact_action("approve", "Approve a fact waiting for review: it becomes active.")
    _fact_action("reject", "Reject a fact waiting for review: kept as rejected, never served.")

    # -------------------------------------------------------------- NPC minds
    @router.post("/events", tags=["npc minds"], response_model=Event)
    async def record_event(mem: Mem, request: Request, body: s.EventIn) -> Event:
        """Record that something happened; the world and its witnesses' beliefs follow."""
        limits = _limits(request)
        for what, items in (
            ("participants", body.participants),
            ("changes", body.changes),
            ("reveals", body.reveals),
            ("present", body.present),
        ):
            _rows(limits, what, items)
        _text(limits, "summary", body.summary)
        return await _write(
            mem.record_event,
            body.type,
            actor=body.actor,
            participants=body.participants,
            place=body.place,
            changes=body.changes,
            reveals=body.reveals,
            present=body.present,
            at=body.at,
            importance=body.importance,
            session_id=body.session_id,
            summary=body.summary,
            attributes=body.attributes,
            event_id=body.event_id,
        )

    @router.get("/events", tags=["npc minds"], response_model=s.EventList)
    async def events(
        mem: Mem,
        about: IdQ = None,
        witness: IdQ = None,
        session_id: IdQ = None,
        place: IdQ = None,
        type: Annotated[
            str | None,
            Query(min_length=1, max_length=64, json_schema_extra={"pattern": s.SAFE_NAME_JSON}),
        ] = None,
        since: datetime | None = None,
        until: datetime | None = None,
        limit: Limit = None,
    ) -> s.EventList:
        """Recorded events, oldest first (world time); every condition given must hold."""
        found = await _scan(
            mem.events,
            about=about,
            witness=witness,
            session_id=session_id,
            place=place,
            type=type,
            since=since,
            until=until,
            limit=limit,
        )
        return s.EventList(events=found)

    @router.post("/places/{place_id}/observe", tags=["npc minds"], response_model=Event)
    async def observe(
        mem: Mem, request: Request, place_id: PlaceId, body: s.ObserveRequest
    ) -> Event:
        """Those at a place see what is there now (an ``observed`` event; nothing changes)."""
        _rows(_limits(request), "present", body.present)
        return await _write(
            mem.observe,
            place_id,
            present=body.present,
            depth=body.depth,
            predicates=body.predicates,
            at=body.at,
            importance=body.importance,
            session_id=body.session_id,
        )

    @router.post("/tell", tags=["npc minds"], response_model=s.BeliefList)
    async def tell(mem: Mem, body: s.TellRequest) -> s.BeliefList:
        """The speaker claims a fact (true or not); returns the listener's beliefs after.

        The listener's trust policy decides whether it believes it.
        """
        told = await _write(
            mem.tell,
            body.speaker,
            body.listener,
            body.fact,
            about=body.about,
            at=body.at,
            decay=body.decay,
            importance=body.importance,
            session_id=body.session_id,
        )
        return s.BeliefList(beliefs=told)

    @router.post("/announce", tags=["npc minds"], response_model=Event)
    async def announce(mem: Mem, request: Request, body: s.AnnounceRequest) -> Event:
        """The speaker claims a fact in public; returns the ``announced`` event.

        Everyone present (or the ``audience`` named) hears it, and that they all heard it
        is common knowledge among them; ``adopted`` says who came to believe it.
        """
        _rows(_limits(request), "audience", body.audience)
        return await _write(
            mem.announce,
            body.speaker,
            body.fact,
            place=body.place,
            audience=body.audience,
            at=body.at,
            decay=body.decay,
            importance=body.importance,
            session_id=body.session_id,
        )

    @router.post("/npcs/{npc_id}/beliefs", tags=["npc minds"], response_model=Belief)
    async def believe(mem: Mem, npc_id: NpcId, body: s.BelieveRequest) -> Belief:
        """Give an NPC a belief directly (``of``: what it thinks others believe)."""
        return await _write(
            mem.believe,
            npc_id,
            body.fact,
            how=body.how,
            confidence=body.confidence,
            importance=body.importance,
            at=body.at,
            told_by=body.told_by,
            of=body.of,
        )

    @router.get("/npcs/{npc_id}/beliefs", tags=["npc minds"], response_model=s.BeliefList)
    async def beliefs(
        mem: Mem,
        request: Request,
        npc_id: NpcId,
        about: IdQ = None,
        of: ChainQ = None,
        predicate: Annotated[str | None, Query(min_length=1, max_length=64)] = None,
        as_of: AsOfQ = None,
        recorded_as_of: RecordedAsOfQ = None,
        history: bool = False,
    ) -> s.BeliefList:
        """What an NPC believes now, at world time ``as_of`` or memory time ``recorded_as_of``."""
        found = await _read(
            request,
            mem.beliefs,
            npc_id,
            about,
            of=of,
            predicate=predicate,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            history=history,
        )
        return s.BeliefList(beliefs=found)

    @router.get("/npcs/{npc_id}/belief", tags=["npc minds"], response_model=s.BeliefOrNone)
    async def belief(
        mem: Mem,
        request: Request,
        npc_id: NpcId,
        subject: Annotated[str, Query(min_length=1, max_length=512)],
        predicate: Annotated[str, Query(min_length=1, max_length=64)],
        object: IdQ = None,
        of: ChainQ = None,
        as_of: AsOfQ = None,
        recorded_as_of: RecordedAsOfQ = None,
    ) -> s.BeliefOrNone:
        """What an NPC believes of one subject and predicate ("where is the sword?")."""
        found = await _read(
            request,
            mem.belief,
            npc_id,
            subject,
            predicate,
            object,
            of=of,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
        )
        return s.BeliefOrNone(belief=found)

    @router.post("/beliefs/who-knows", tags=["npc minds"], response_model=s.BeliefList)
    async def who_knows(mem: Mem, body: s.WhoKnowsRequest) -> s.BeliefList:
        """The NPCs' beliefs that a fact holds (first order), by holder."""
        found = await _scan(
            mem.who_knows, body.fact, as_of=body.as_of, recorded_as_of=body.recorded_as_of
        )
        return s.BeliefList(beliefs=found)

    @router.post("/npcs/{npc_id}/recall", tags=["npc minds"], response_model=s.RecollectionList)
    async def recall_beliefs(
        mem: Mem, request: Request, npc_id: NpcId, body: s.MindRecallRequest
    ) -> s.RecollectionList:
        """The beliefs an NPC recalls first: recency x importance x relevance."""
        limits = _limits(request)
        _text(limits, "query", body.query)
        _rows(limits, "about", body.about)
        found = await _write(
            mem.recall, npc_id, body.query, about=body.about, k=body.k, at=body.at, mark=body.mark
        )
        return s.RecollectionList(recollections=found)

    @router.post("/beliefs/forget", tags=["npc minds"], response_model=s.BeliefList)
    async def forget_beliefs(mem: Mem, body: s.ForgetBeliefsRequest) -> s.BeliefList:
        """Retire beliefs meeting every policy given; they stay readable as past versions."""
        older = body.older_than_seconds
        retired = await _write(
            mem.forget,
            body.npc,
            below=body.below,
            older_than=timedelta(seconds=older) if older is not None else None,
            about=body.about,
            at=body.at,
        )
        return s.BeliefList(beliefs=retired)

    @router.get("/recaps", tags=["npc minds"], response_model=s.RecapList)
    async def recaps(
        mem: Mem,
        campaign: IdQ = None,
        limit: Limit = None,
    ) -> s.RecapList:
        """Saved recaps, newest first: all of them, or one campaign's."""
        return s.RecapList(recaps=await _scan(mem.recaps, campaign, limit=limit))

    @router.get("/recaps/{session_id}", tags=["npc minds"], response_model=Recap)
    async def recap(mem: Mem, request: Request, session_id: SessionId) -> Recap:
        """A session's saved recap."""
        return await _read(request, mem.recap, session_id)

    @router.put("/recaps/{session_id}", tags=["npc minds"], response_model=Recap)
    async def save_recap(
        mem: Mem, request: Request, session_id: SessionId, body: s.RecapIn
    ) -> Recap:
        """Save a session's recap, replacing an earlier one; without text it is written."""
        _text(_limits(request), "text", body.text)
        return await _write(
            mem.save_recap,
            session_id,
            body.text,
            campaign=body.campaign,
            audio=body.audio,
            audio_type=body.audio_type,
        )

    @router.get("/recaps/{session_id}/draft", tags=["npc minds"], response_model=Recap)
    async def draft_recap(
        mem: Mem,
        session_id: SessionId,
        campaign: IdQ = None,
    ) -> Recap:
        """The recap that saving without text would write, not saved."""
        return await _scan(mem.draft_recap, session_id, campaign=campaign)

    # -------------------------------------------------------------- LLM context
    context_path = "/memory/{user}/{session}"

    @router.post(f"{context_path}/turns", tags=["llm context"], response_model=s.TurnOrNone)
    async def memory_append(
        request: Request, chat: ChatMemory, body: s.MemoryTurnIn
    ) -> s.TurnOrNone:
        """Store a turn of a (user, session) conversation and fold it into its context."""
        _text(_limits(request), "content", body.content)
        turn = await _write(
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

    # -------------------------------------------------------------- tenant
    @router.get(
        "/export",
        name="export_jsonl",
        tags=["tenant"],
        response_class=StreamingResponse,
        responses={
            200: {
                "description": "Everything the tenant holds, as JSON Lines (docs/data-model.md).",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        },
    )
    async def export(mem: Mem) -> StreamingResponse:
        """Stream everything the tenant holds as JSON Lines (header first)."""
        dump = await _scan(mem.dump)

        async def lines() -> AsyncIterator[bytes]:
            batch: list[str] = []
            for line in jsonl.lines(dump, tenant=mem.tenant):
                batch.append(line)
                if len(batch) >= 512:
                    yield "".join(batch).encode("utf-8")
                    batch = []
            if batch:
                yield "".join(batch).encode("utf-8")

        return StreamingResponse(lines(), media_type="application/x-ndjson")

    @router.post(
        "/import",
        name="import_jsonl",
        tags=["tenant"],
        response_model=s.ImportReport,
        openapi_extra={
            "requestBody": {
                "required": True,
                "description": "JSON Lines made by GET /v1/export (or `graphmem export`).",
                "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
            }
        },
    )
    async def import_(mem: Mem, request: Request) -> s.ImportReport:
        """Load JSON Lines into the tenant: all of it, or nothing if any line is bad."""
        with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024, mode="w+b") as spool:
            async for chunk in request.stream():
                spool.write(chunk)
            spool.seek(0)
            dump = await _write(_import, mem, spool)
        return s.ImportReport(
            entities=len(dump.entities),
            relationships=len(dump.relationships),
            turns=len(dump.turns),
            conversations=len({t.session_id for t in dump.turns} | set(dump.heads)),
            records=len(dump.records),
            chunks=len(dump.chunks),
            mentions=len(dump.mentions),
        )

    return router


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


def _import(mem: Memory, spool: Any) -> Any:
    import io

    text = io.TextIOWrapper(spool, encoding="utf-8", errors="strict", newline=None)
    try:
        return mem.import_jsonl(text)
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the body is not UTF-8 text ({exc.reason})") from exc
    finally:
        text.detach()


def iter_routes(app: FastAPI) -> Iterator[tuple[str, str]]:
    """Every (method, path) the app serves, for tests and documentation."""
    for route in app.routes:
        if isinstance(route, APIRoute):
            for method in sorted(route.methods or ()):
                yield method, route.path
