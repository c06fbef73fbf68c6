"""The OpenAPI document of the HTTP API, as committed in ``docs/openapi.json``.

The document does not depend on how a server is configured (tenant or keys, limits,
policy), so every server serves the same one at ``/openapi.json``.
"""

from __future__ import annotations

import json
from typing import Any

from graphmem.doors.http.app import ServerConfig, create_app

__all__ = ["openapi_document", "openapi_text"]


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document (a fresh app's; no store is opened)."""
    document: dict[str, Any] = create_app(ServerConfig(store="memory://", tenant="_")).openapi()
    return document


def openapi_text() -> str:
    """The document as the JSON text committed in ``docs/openapi.json``."""
    return json.dumps(openapi_document(), indent=2, ensure_ascii=False) + "\n"
