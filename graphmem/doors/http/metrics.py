"""``GET /metrics`` (Prometheus text format) and a span per HTTP request (OpenTelemetry).

:class:`Observer` wraps the whole app, the fast snapshot routes included: per request it
counts the method, the route *template* (``/v1/entities/{entity_id}``, never the path
with its ids), the status and the time in :data:`graphmem.core.telemetry.METRICS`, and the
error type of an error answer (the problem document's ``title``: ``NotFound``,
``InvalidInput``, ...). When ``opentelemetry-api`` is installed, each request is also a
server span (``GET /v1/npcs/{npc_id}/snapshot``) made current while the request runs, so
the store operations it makes (:class:`graphmem.core.telemetry.StoreTelemetry`, attached to the
store the server opens) are its children.

``GET /metrics`` renders the registry with two gauges read at scrape time: the embedder's
state (its warm-up) and how many appended turns wait to be indexed (embedded), summed over
the tenants served. It needs no API key, like ``/healthz`` and ``/readyz``: it holds
counts per route template, operation and error type, never a tenant, an id or a value.
A server that must not show even that is started with ``graphmem serve --no-metrics``
(``ServerConfig(metrics=False)``), which removes the route and the counting.
"""

from __future__ import annotations

import contextlib
import json
import re
import time
from collections.abc import Callable, Iterable, Iterator
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import PlainTextResponse
from starlette.routing import BaseRoute, Match
from starlette.types import Message, Receive, Scope, Send

from graphmem.core.telemetry import METRICS, Gauge, Metrics, otel_tracer
from graphmem.memory import Memory

__all__ = ["CONTENT_TYPE", "Observer", "install_metrics"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"
"""The media type of the Prometheus text exposition format."""

_FAST = re.compile(r"^/v1/npcs/[^/]+/(snapshot|prompt)$")
_PROBLEM = b"application/problem+json"
_STATES = ("loading", "ready", "unavailable", "failed")

App = Callable[[Scope, Receive, Send], Any]


class Observer:
    """Counts and traces each HTTP request around ``app`` (see the module docstring)."""

    def __init__(self, routes: Callable[[], list[BaseRoute]], metrics: Metrics = METRICS) -> None:
        self._routes = routes
        self._metrics = metrics
        self._tracer = otel_tracer()
        self._traced_at = -1.0  # when a tracer provider was last looked for (monotonic)
        self._traced = False

    def _tracing(self) -> bool:
        """Whether the application set a tracer provider, looked for at most once a second.

        Once set it stays set (OpenTelemetry sets it once); the look costs more than the
        rest of a kept snapshot's answer, so a provider set while the server runs is seen
        within a second.
        """
        if self._traced:
            return True
        now = time.monotonic()
        if now - self._traced_at >= 1.0:
            self._traced_at = now
            self._traced = _tracing()
        return self._traced

    async def __call__(self, scope: Scope, receive: Receive, send: Send, app: App) -> None:
        """Answer the request with ``app``, counting and tracing it."""
        start = time.perf_counter()
        status = 500
        problem: list[bytes] = []
        is_problem = False

        async def sending(message: Message) -> None:
            nonlocal status, is_problem
            if message["type"] == "http.response.start":
                status = message["status"]
                if status >= 400:
                    for name, value in message.get("headers", ()):
                        if name.lower() == b"content-type" and value.startswith(_PROBLEM):
                            is_problem = True
            elif message["type"] == "http.response.body" and is_problem and not problem:
                problem.append(message.get("body", b""))
            await send(message)

        span = token = None
        fast = _FAST.match(scope["path"]) if scope["method"] == "GET" else None
        if self._tracer is not None and fast is not None and self._tracing():
            span, token = self._start_span(self._tracer, scope)
        error: str | None = None
        try:
            await app(scope, receive, sending)
        except BaseException as exc:
            error = type(exc).__name__
            raise
        finally:
            route = f"/v1/npcs/{{npc_id}}/{fast.group(1)}" if fast else self._route(scope)
            if error is None and status >= 400:
                error = _title(problem[0]) if problem else f"HTTP{status}"
            self._metrics.observe_request(
                scope["method"], route, status, time.perf_counter() - start, error
            )
            if span is not None:
                # Answered before routing: FastAPI's own telemetry saw nothing, so the span
                # is ours to end; a request FastAPI answered has FastAPI's span instead.
                _end_span(span, token, scope, route, status, error)

    @staticmethod
    def _start_span(tracer: Any, scope: Scope) -> tuple[Any, Any]:
        from opentelemetry import context, propagate, trace

        headers = {
            name.decode("latin-1"): value.decode("latin-1")
            for name, value in scope.get("headers", ())
        }
        parent = propagate.extract(headers)  # an engine's traceparent, as FastAPI reads it
        span = tracer.start_span(
            scope["method"],
            context=parent,
            kind=trace.SpanKind.SERVER,
            attributes={
                "http.request.method": scope["method"],
                "url.path": scope.get("path", ""),
                "url.scheme": scope.get("scheme", "http"),
            },
        )
        return span, context.attach(trace.set_span_in_context(span, parent))

    def _route(self, scope: Scope) -> str:
        """The template of the route that answered (or would have: a 401 before routing)."""
        route = scope.get("route")
        if route is not None:
            return _template(route)
        path = scope.get("path", "")
        fast = _FAST.match(path)
        if fast is not None:  # answered before routing (graphmem.doors.http.app._App)
            return f"/v1/npcs/{{npc_id}}/{fast.group(1)}"
        raw = scope.get("raw_path")
        if raw and b"%" in raw:
            with contextlib.suppress(UnicodeDecodeError):
                scope = dict(scope, path=raw.decode("ascii"))
        partial = None
        for candidate in _flat(self._routes()):
            match, _ = candidate.matches(scope)
            if match is Match.FULL:
                return _template(candidate)
            if match is Match.PARTIAL and partial is None:
                partial = candidate  # the path, another method: a 405
        if partial is not None:
            return _template(partial)
        return "unmatched"


def _tracing() -> bool:
    """Whether the application set a tracer provider (as FastAPI asks before tracing)."""
    from opentelemetry import trace

    provider = trace.get_tracer_provider()
    return not isinstance(provider, trace.ProxyTracerProvider | trace.NoOpTracerProvider)


def _flat(routes: Iterable[Any]) -> Iterator[Any]:
    """The routes one by one, those of included routers too (FastAPI's route contexts)."""
    for route in routes:
        contexts = getattr(route, "effective_route_contexts", None)
        if contexts is None:
            yield route
        else:
            yield from contexts()


def _template(route: Any) -> str:
    inner = getattr(route, "original_route", route)
    found = getattr(inner, "path_format", None) or getattr(route, "path", None)
    return str(found) if found else "unmatched"


def _title(body: bytes) -> str:
    try:
        title = json.loads(body).get("title")
    except (ValueError, AttributeError):
        return "Error"
    return title if isinstance(title, str) and title else "Error"


def _end_span(
    span: Any, token: Any, scope: Scope, route: str, status: int, error: str | None
) -> None:
    from opentelemetry import context
    from opentelemetry.trace import Status, StatusCode

    context.detach(token)
    if "app" in scope:  # FastAPI (Starlette) set it: FastAPI answered, under its own span
        return  # so this one is dropped unended
    span.update_name(f"{scope['method']} {route}")
    span.set_attribute("http.route", route)
    span.set_attribute("http.response.status_code", status)
    if error is not None:
        span.set_attribute("error.type", error)
    if status >= 500:
        span.set_status(Status(StatusCode.ERROR))
    span.end()


def install_metrics(app: FastAPI, memories: Callable[[], Iterable[Memory]]) -> Observer:
    """Add ``GET /metrics`` to ``app``; the :class:`Observer` the app must call per request.

    ``memories`` gives the memories the server holds (their indexing queues are the
    embedder queue); the embedder's state is ``app.state.warmup`` when the app has one.
    """

    def gauges() -> list[Gauge]:
        warmup = getattr(app.state, "warmup", None)
        state = getattr(warmup, "state", None)
        waiting = sum(m.pending_index for m in list(memories()))
        return [
            Gauge(
                "graphmem_embedder_state",
                "The embedder's state (1 for the current one): loading, ready, "
                "unavailable (none installed) or failed.",
                {(("state", s),): 1.0 if s == state else 0.0 for s in _STATES},
            ),
            Gauge(
                "graphmem_embedder_queue_depth",
                "Appended turns waiting to be indexed (linked and embedded), all tenants.",
                {(): float(waiting)},
            ),
        ]

    @app.get(
        "/metrics",
        tags=["health"],
        response_class=PlainTextResponse,
        responses={200: {"content": {CONTENT_TYPE: {"schema": {"type": "string"}}}}},
        summary="Metrics in the Prometheus text format (no key needed; off with --no-metrics)",
    )
    async def metrics(request: Request) -> PlainTextResponse:
        return PlainTextResponse(METRICS.render(gauges()), media_type=CONTENT_TYPE)

    return Observer(lambda: app.router.routes)
