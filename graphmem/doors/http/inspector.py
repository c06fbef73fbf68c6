"""The inspector: the web page at ``/ui`` and the three routes it needs beyond the rest.

The page (TypeScript under ``ui/`` in the repository, built into ``ui_static/`` beside
this module and shipped in the wheel) only calls the HTTP API, with the key its user
enters, so it shows exactly what that key's tenant holds. Served without a key: the
page holds no data; every data call it makes carries the key.

Routes added here (a door: each maps onto one ``Memory`` or ``FactMemory`` call):

- ``GET /v1/entities/{id}/neighborhood``: an entity's facts, both directions, under both
  clocks, with provenance and validity, and the entities at their other ends;
- ``GET /v1/npcs/{id}/beliefs/truth``: an NPC's beliefs beside the world's truth;
- ``GET /v1/facts/verify``: the audit chain's verification (signed governance only).
"""

from __future__ import annotations

from importlib import resources
from typing import Annotated, Any

from fastapi import APIRouter, FastAPI, Query, Request
from fastapi.responses import RedirectResponse, Response
from pydantic import BaseModel, ConfigDict, Field

from graphmem.core.errors import SignatureMismatch
from graphmem.core.models import Subgraph
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    AsOfQ,
    DirectionQ,
    EntityId,
    Limit,
    Mem,
    NamesQ,
    NpcId,
    RecordedAsOfQ,
    Route,
    scan,
)
from graphmem.doors.http.state import state_of
from graphmem.minds.truth import BeliefCheck

__all__ = ["BeliefCheckList", "Verification", "add_inspector", "router"]

UI_PATH = "/ui"
"""Where the page is served."""

_STATIC = "ui_static"
_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".png": "image/png",
    ".svg": "image/svg+xml",
}
# Everything the page loads comes from this server: no CDN, works offline.
_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
        "object-src 'none'; base-uri 'none'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "no-referrer",
    "Cache-Control": "no-cache",
}


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid", json_schema_serialization_defaults_required=True)


class BeliefCheckList(_Out):
    """An NPC's beliefs, oldest first, each beside what the world holds."""

    checks: list[BeliefCheck]


class Verification(_Out):
    """The governance records' verification: every fact, audit entry and the head."""

    verified: bool = Field(description="Every record verifies and the chain is unbroken.")
    checked: int = Field(description="How many records were checked (0 when they do not verify).")
    problems: dict[str, str] = Field(description="Records out of place, by id, and why.")


def router() -> APIRouter:
    """The inspector's routes (under ``/v1``, with the API's keys and errors)."""
    routes = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)

    @routes.get("/entities/{entity_id}/neighborhood", tags=["graph"], response_model=Subgraph)
    async def neighborhood(
        mem: Mem,
        entity_id: EntityId,
        rel_types: NamesQ = None,
        node_types: NamesQ = None,
        direction: DirectionQ = "both",
        as_of: AsOfQ = None,
        recorded_as_of: RecordedAsOfQ = None,
        include_invalid: Annotated[
            bool, Query(description="Every stored fact, whatever its validity.")
        ] = False,
        limit: Limit = None,
    ) -> Subgraph:
        """An entity, its facts (provenance and validity) and the entities at their other ends.

        Both directions by default; current facts unless a clock is given (``as_of``:
        world time, ``recorded_as_of``: memory time). Two store calls, whatever the size
        of the world: a viewer expands a graph one neighbourhood at a time.
        """
        return await scan(
            mem.neighborhood,
            entity_id,
            rel_types=rel_types,
            node_types=node_types,
            direction=direction,
            as_of=as_of,
            recorded_as_of=recorded_as_of,
            include_invalid=include_invalid,
            limit=limit,
        )

    @routes.get("/npcs/{npc_id}/beliefs/truth", tags=["npc minds"], response_model=BeliefCheckList)
    async def beliefs_beside_truth(
        mem: Mem, npc_id: NpcId, as_of: AsOfQ = None, recorded_as_of: RecordedAsOfQ = None
    ) -> BeliefCheckList:
        """An NPC's beliefs beside the world's truth; a false belief has ``agrees: false``.

        Relations are compared with the facts the world held at ``as_of`` (as recorded at
        ``recorded_as_of``); attributes, which keep no history, with their current value.
        """
        found = await scan(mem.check_beliefs, npc_id, as_of=as_of, recorded_as_of=recorded_as_of)
        return BeliefCheckList(checks=found)

    @routes.get("/facts/verify", tags=["facts"], response_model=Verification)
    async def verify(mem: Mem, request: Request) -> Verification:
        """Verify every governed fact, audit entry and the audit head (the hash chain).

        Needs a policy with a signing key (422 otherwise). Records that do not verify
        are listed with why; a chain found broken also stops governed writes.
        """
        facts = state_of(request).facts(mem, "audit-reader", None)
        try:
            checked = await scan(facts.verify)
        except SignatureMismatch as exc:
            reasons: dict[str, Any] = exc.data.get("reasons") or {}
            return Verification(
                verified=False, checked=0, problems={str(k): str(v) for k, v in reasons.items()}
            )
        return Verification(verified=True, checked=checked, problems={})

    return routes


def _asset(name: str) -> bytes | None:
    files = resources.files("graphmem.doors.http").joinpath(_STATIC)
    target = files.joinpath(name)
    try:
        return target.read_bytes() if target.is_file() else None
    except OSError:
        return None


_MISSING = """<!doctype html><html lang="en"><head><meta charset="utf-8">
<title>graphmem inspector</title></head><body style="font:16px system-ui;margin:2em">
<h1>The inspector's page is not built</h1>
<p>This graphmem was installed without the built page (graphmem/doors/http/ui_static/).
Build it from a clone of the repository with <code>make ui</code> (Node 20+ and npm),
or install a released wheel, which ships it.</p></body></html>"""


def add_inspector(app: FastAPI) -> None:
    """Add the inspector's routes and serve its page at ``/ui`` (no key: the page asks)."""
    app.include_router(router())

    async def root() -> RedirectResponse:
        return RedirectResponse(f"{UI_PATH}/", status_code=307)

    async def page(request: Request, path: str = "") -> Response:
        name = path or "index.html"
        suffix = name[name.rfind(".") :] if "." in name else ""
        allowed = suffix in _TYPES and ".." not in name and not name.startswith("/")
        body = _asset(name) if allowed else None
        if body is None:
            if name == "index.html":
                return Response(_MISSING, status_code=503, media_type="text/html", headers=_HEADERS)
            return Response("not found", status_code=404, media_type="text/plain", headers=_HEADERS)
        return Response(body, media_type=_TYPES[suffix], headers=_HEADERS)

    app.add_api_route(UI_PATH, root, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{UI_PATH}/", page, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{UI_PATH}/{{path:path}}", page, methods=["GET"], include_in_schema=False)
