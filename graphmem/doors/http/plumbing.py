"""The plumbing every route shares.

The tenant's Memory from the key, typed path and query parameters, JSON bodies parsed
off the event loop, size checks, and running store calls.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from datetime import datetime
from functools import partial
from typing import Annotated, Any, Literal, TypeVar
from urllib.parse import unquote

import anyio
from fastapi import Depends, Path, Query, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.routing import APIRoute
from fastapi.security import HTTPAuthorizationCredentials, HTTPBearer
from pydantic import AfterValidator, WithJsonSchema
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphmem.core.checks import check_identifier, check_printable_name
from graphmem.core.errors import InvalidInput
from graphmem.doors import schemas as s
from graphmem.doors.http.bodies import BatchTooLong, parse_json
from graphmem.doors.http.limits import Limits
from graphmem.doors.http.problems import PayloadTooLarge
from graphmem.doors.http.state import state_of
from graphmem.memory import Memory
from graphmem.policy.context import ConversationMemory

API_PREFIX = "/v1"

_bearer = HTTPBearer(
    auto_error=False,
    description="An API key made by `graphmem keys add`, sent as `Authorization: Bearer <key>`.",
)


async def _memory(
    request: Request,
    credentials: Annotated[HTTPAuthorizationCredentials | None, Depends(_bearer)],
) -> Memory:
    return state_of(request).memory(credentials.credentials if credentials else None)


Mem = Annotated[Memory, Depends(_memory)]


def unquote_path(value: str) -> str:
    """A path parameter, percent-decoded once (see :class:`~.middleware.RawPath`)."""
    return unquote(value, errors="replace")


def _path_identifier(value: str) -> str:
    """A path id, decoded and checked as the schema states it (``check_identifier``)."""
    return check_identifier(unquote_path(value), "")


def _path_printable(value: str) -> str:
    """A path name (user, session), decoded and checked: a printable name."""
    return check_printable_name(unquote_path(value), "the name")


def _query_identifier(value: str | None) -> str | None:
    return None if value is None else check_identifier(value, "")


MAX_ENCODED_ID = 512 * 12
"""The longest percent-encoded id: 512 characters of four UTF-8 bytes each, as %XX."""


def _path_id(what: str, pattern: str = s.ID_PATTERN, max_length: int = 512) -> Any:
    # Checked as sent (percent-encoded); documented as the value it decodes to, whose
    # rule (an id, a printable name) the server checks once it is decoded.
    return Path(
        min_length=1,
        max_length=MAX_ENCODED_ID,
        description=f"The {what}, percent-encoded (a '/' in it is sent as %2F).",
        json_schema_extra={"maxLength": max_length, "pattern": pattern},
    )


EntityId = Annotated[str, _path_id("entity id"), AfterValidator(_path_identifier)]
NpcId = Annotated[str, _path_id("NPC's entity id"), AfterValidator(_path_identifier)]
SessionId = Annotated[str, _path_id("session id"), AfterValidator(_path_identifier)]
TurnKey = Annotated[str, _path_id("turn id"), AfterValidator(_path_identifier)]
FactId = Annotated[str, _path_id("fact id"), AfterValidator(_path_identifier)]
PlaceId = Annotated[str, _path_id("place's entity id"), AfterValidator(_path_identifier)]


def printable_query() -> Any:
    """A printable name in the query (an actor, a session): its rule in the schema too."""
    return Query(min_length=1, max_length=256, json_schema_extra={"pattern": s.PRINTABLE_PATTERN})


Limit = Annotated[int | None, Query(ge=1, le=100_000, description="At most this many.")]
IdQ = Annotated[
    str | None,
    Query(min_length=1, max_length=512, json_schema_extra={"pattern": s.ID_PATTERN}),
    AfterValidator(_query_identifier),
]
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
    list[s.IdText] | None,
    Query(
        max_length=15,
        description="Nested belief: what the NPC thinks these believe, in order (repeat it).",
    ),
]


async def _conversation_memory(
    mem: Mem,
    request: Request,
    user: Annotated[
        str,
        _path_id("end user (player, customer)", s.PRINTABLE_PATTERN, 256),
        AfterValidator(_path_printable),
    ],
    session: Annotated[
        str,
        _path_id("session of the conversation", s.PRINTABLE_PATTERN, 256),
        AfterValidator(_path_printable),
    ],
    strategy: Strategy = "rolling_summary",
    max_tokens: Budget = 2000,
    window_turns: Window = 20,
) -> ConversationMemory:
    """The conversation memory a route names: (user, session) and its strategy and budgets."""
    state = state_of(request)
    return await write(state.context, mem, user, session, strategy, max_tokens, window_turns)


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
        body = await self.body()  # BodyLimit refuses it while it arrives if too large
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
            limits = limits_of(self)
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


class Route(APIRoute):
    """A route whose JSON body is read, parsed and validated off the event loop."""

    def get_route_handler(self) -> Callable[[Request], Any]:  # noqa: D102
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
                await prepared.prepare(limits_of(request), field)
            response: Response = await handler(prepared)
            return response

        return route


def check_text(limits: Limits, what: str, value: str | None) -> None:
    """Refuse a text over ``max_text_chars`` (InvalidInput naming the limit)."""
    if value is not None and len(value) > limits.max_text_chars:
        raise InvalidInput(
            f"{what} is {len(value):,} characters long; the limit max_text_chars is "
            f"{limits.max_text_chars:,}",
            limit="max_text_chars",
            max=limits.max_text_chars,
        )


def check_rows(limits: Limits, what: str, items: Sequence[Any] | None) -> None:
    """Refuse a batch over ``max_batch_rows`` (413 naming the limit)."""
    if items is not None and len(items) > limits.max_batch_rows:
        raise PayloadTooLarge(
            f"{what} holds {len(items):,} items; the limit max_batch_rows is "
            f"{limits.max_batch_rows:,}: send smaller batches",
            limit="max_batch_rows",
            max=limits.max_batch_rows,
        )


def limits_of(request: Request) -> Limits:
    """The request size limits of the server answering ``request``."""
    return state_of(request).config.limits


_T = TypeVar("_T")


async def write(fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
    """Run a store call in a worker thread: writes may wait on a disk or a server."""
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))


scan = write
"""Reads that may walk much of a tenant (searches, listings, retrieval): a worker thread too."""


async def read(request: Request, fn: Callable[..., _T], /, *args: Any, **kwargs: Any) -> _T:
    """A bounded read: on the event loop when the store answers reads without I/O.

    The thread hop costs more than an embedded store's whole snapshot; a server store's
    reads wait on the network, so they go to a worker thread.
    """
    if state_of(request).inline_reads:
        return fn(*args, **kwargs)
    return await anyio.to_thread.run_sync(partial(fn, *args, **kwargs))
