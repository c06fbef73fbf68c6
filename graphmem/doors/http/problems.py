"""Errors as ``application/problem+json`` (RFC 9457): one mapping from error to status.

Every error body is a problem document::

    {"type": "urn:graphmem:error:NotFound", "title": "NotFound", "status": 404,
     "detail": "no entity 'odile' in tenant 'brindleford'", "instance": "/v1/entities/odile"}

``type`` names the graphmem error class (``urn:graphmem:error:<class>``), ``title`` the
class itself, ``detail`` the error's message. Extension members carry the error's data
when it is plain JSON (``entity_id``, ``missing``, ``rule``, ``limit``, ...) and, for
request validation, ``errors``: where each problem is and what it is (never the value
sent). No stack trace ever leaves the server.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from graphmem.core.errors import (
    BackendUnavailable,
    GraphmemError,
    IdentityRequired,
    InvalidInput,
    InvalidTransition,
    NotFound,
    PolicyViolation,
    SignatureMismatch,
    StoreClosed,
    UnsupportedOperation,
)

__all__ = [
    "MEDIA_TYPE",
    "STATUS",
    "PayloadTooLarge",
    "problem",
    "problem_body",
    "status_of",
]

MEDIA_TYPE = "application/problem+json"

STATUS: tuple[tuple[type[GraphmemError], int], ...] = (
    (PolicyViolation, 403),  # before InvalidInput, whose subclass it is
    (InvalidInput, 422),
    (NotFound, 404),
    (IdentityRequired, 401),
    (SignatureMismatch, 409),
    (InvalidTransition, 409),
    (UnsupportedOperation, 501),
    (BackendUnavailable, 503),
    (StoreClosed, 503),
)
"""Each graphmem error class and its HTTP status; the first match wins (subclasses first)."""


class PayloadTooLarge(GraphmemError):
    """A request over a size limit (body bytes, batch rows): 413, naming the limit."""


def status_of(error: GraphmemError) -> int:
    """The HTTP status of a graphmem error (500 only for an error class not in the table)."""
    if isinstance(error, PayloadTooLarge):
        return 413
    for cls, status in STATUS:
        if isinstance(error, cls):
            return status
    return 500


_TITLES = {400: "BadRequest", 404: "NotFound", 405: "MethodNotAllowed", 413: "PayloadTooLarge"}
_SKIPPED_DATA = {"errors", "model", "tenant", "value", "url"}


def _plain(value: Any) -> bool:
    if value is None or isinstance(value, str | int | float | bool):
        return True
    if isinstance(value, list | tuple):
        return all(item is None or isinstance(item, str | int | float | bool) for item in value)
    return False


def problem_body(
    status: int,
    detail: str,
    *,
    title: str | None = None,
    instance: str | None = None,
    extra: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The problem document for ``status`` (``title`` defaults to the status' name)."""
    name = title or _TITLES.get(status, "Error")
    body: dict[str, Any] = {
        "type": f"urn:graphmem:error:{name}",
        "title": name,
        "status": status,
        "detail": detail,
    }
    if instance is not None:
        body["instance"] = instance
    for key, value in (extra or {}).items():
        if key not in body:
            body[key] = list(value) if isinstance(value, tuple) else value
    return body


def problem(error: GraphmemError, instance: str | None = None) -> tuple[int, dict[str, Any]]:
    """The status and problem document of a graphmem error."""
    status = status_of(error)
    extra = {
        key: value
        for key, value in error.data.items()
        if key not in _SKIPPED_DATA and _plain(value)
    }
    errors = error.data.get("errors")
    if isinstance(errors, Sequence) and not isinstance(errors, str):
        extra["errors"] = validation_errors(errors)
    return status, problem_body(
        status, error.message, title=type(error).__name__, instance=instance, extra=extra
    )


def validation_errors(errors: Sequence[Any]) -> list[dict[str, Any]]:
    """Pydantic-style errors without the values that were sent: ``loc``, ``msg``, ``type``."""
    out: list[dict[str, Any]] = []
    for error in errors:
        if not isinstance(error, Mapping):
            continue
        loc = [part if isinstance(part, int) else str(part) for part in error.get("loc", ())]
        out.append(
            {"loc": loc, "msg": str(error.get("msg", "")), "type": str(error.get("type", ""))}
        )
    return out


def encode(body: Mapping[str, Any]) -> bytes:
    """A problem document as response bytes."""
    return json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
