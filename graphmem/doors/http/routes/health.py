"""Liveness: ``GET /healthz`` (readiness, ``/readyz``, is :mod:`graphmem.doors.http.warmup`)."""

from __future__ import annotations

from fastapi import APIRouter, Request

from graphmem import __version__
from graphmem.core.errors import BackendUnavailable
from graphmem.doors import schemas as s
from graphmem.doors.http.document import problem_responses
from graphmem.doors.http.plumbing import Route, read
from graphmem.doors.http.state import state_of

router = APIRouter(route_class=Route)


@router.get(
    "/healthz",
    tags=["health"],
    response_model=s.Health,
    responses=problem_responses(503),
    summary="Liveness: the server is up and its store answers (no key needed)",
)
async def healthz(request: Request) -> s.Health:  # noqa: D103 - the summary documents it
    store = state_of(request).store
    if store is None:
        raise BackendUnavailable("the server is not serving yet: its store is not open")
    # One cheap read of an empty tenant: the store answers.
    await read(request, store.count_entities, "graphmem-healthz")
    return s.Health(status="ok", version=__version__)
