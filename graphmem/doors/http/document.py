"""The OpenAPI document of the HTTP API: its description, tags and shared error responses.

Every route can answer the same problem documents (:class:`Problem`); they are described
once in ``components/responses`` (:func:`share_error_responses`).
"""

from __future__ import annotations

import inspect
from typing import Any

from fastapi import FastAPI
from pydantic import BaseModel, ConfigDict

from graphmem.doors.http.problems import MEDIA_TYPE
from graphmem.minds.models import Fact as MindFact

__all__ = ["DESCRIPTION", "ERRORS", "TAGS", "Problem", "problem_responses", "share_error_responses"]


class Problem(BaseModel):
    """An error, as RFC 9457 ``application/problem+json``."""

    model_config = ConfigDict(extra="allow")

    type: str
    title: str
    status: int
    detail: str
    instance: str | None = None


def problem_responses(*statuses: int) -> dict[int | str, dict[str, Any]]:
    """The OpenAPI ``responses`` of these error statuses, each a :class:`Problem`."""
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


ERRORS = problem_responses(400, 401, 403, 404, 405, 409, 413, 415, 422, 501, 503)


def share_error_responses(app: FastAPI) -> None:
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


DESCRIPTION = """\
Every call is scoped to one tenant: the one the API key opens (`Authorization: Bearer
<key>`; keys are made by `graphmem keys add`), or the one a loopback server was started
for with `--tenant`. Errors are `application/problem+json` (RFC 9457) whose `type` names
the graphmem error (`urn:graphmem:error:NotFound`). Ids in paths are percent-encoded.
Request size limits (body bytes, batch rows, text length) are set when the server starts;
a request over one gets a 413 or 422 naming it."""

TAGS = [
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
