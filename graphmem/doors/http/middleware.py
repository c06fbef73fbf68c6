"""The ASGI middleware of the HTTP API: pure ASGI callables, no per-request task or copy.

:class:`RawPath` routes on the path as sent, :class:`BodyLimit` refuses oversized bodies,
:class:`KeyFirst` refuses a request with a bad key before its body is read.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING, Any

from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from graphmem.core.errors import GraphmemError
from graphmem.doors.http.limits import Limits
from graphmem.doors.http.plumbing import API_PREFIX
from graphmem.doors.http.problems import MEDIA_TYPE, encode, problem, problem_body

if TYPE_CHECKING:
    from graphmem.doors.http.state import ServerState


class RawPath:
    """Route on the path as sent, so an id holding '/' (sent as %2F) stays one segment.

    Path parameters arrive percent-encoded and each is decoded once, by its parameter
    type. Paths that are not plain ASCII (not percent-encoded) are left as the server
    decoded them.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: D102
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


class BodyLimit:
    """Refuses request bodies over the limits before or while they are read (413)."""

    def __init__(self, app: ASGIApp, limits: Limits) -> None:
        self.app = app
        self.limits = limits

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: D102
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
            await send_problem(send, 413, body)
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


class KeyFirst:
    """Checks the API key of a request with a body before anything reads the body.

    A request with a wrong, revoked or expired key (or none) is answered 401 at once: its
    body is never read, parsed or validated, so it costs the server nothing.
    """

    def __init__(self, app: ASGIApp, state: ServerState) -> None:
        self.app = app
        self.state = state

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:  # noqa: D102
        if (
            scope["type"] == "http"
            and scope["method"] in ("POST", "PUT", "PATCH", "DELETE")
            and self.state.config.keys is not None
            and scope["path"].startswith(f"{API_PREFIX}/")
        ):
            try:
                self.state.config.keys.lookup(bearer_key(scope))
            except GraphmemError as exc:
                status, body = problem(exc, instance=scope["path"])
                await send_problem(send, status, body, www_authenticate=status == 401)
                return
        await self.app(scope, receive, send)


def bearer_key(scope: Scope) -> str | None:
    """The key of an ``Authorization: Bearer <key>`` header, as HTTPBearer reads it."""
    for name, value in scope["headers"]:
        if name == b"authorization":
            scheme, _, key = value.decode("latin-1").partition(" ")
            return key.strip() or None if scheme.lower() == "bearer" else None
    return None


async def send_problem(
    send: Send, status: int, body: dict[str, Any], *, www_authenticate: bool = False
) -> None:
    """Answer with a problem document (and ``WWW-Authenticate: Bearer`` on a 401)."""
    payload = encode(body)
    headers = [
        (b"content-type", MEDIA_TYPE.encode()),
        (b"content-length", str(len(payload)).encode()),
    ]
    if www_authenticate:
        headers.append((b"www-authenticate", b"Bearer"))
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": payload})
