"""``graphmem serve``: graphmem's HTTP API (FastAPI + uvicorn, the ``server`` extra).

- :mod:`graphmem.doors.http.app`: :func:`create_app`, :class:`ServerConfig`, :class:`Limits`;
  it assembles the routers of :mod:`graphmem.doors.http.routes` (one per area), the
  shared request plumbing (:mod:`~graphmem.doors.http.plumbing`), the ASGI middleware
  (:mod:`~graphmem.doors.http.middleware`), the fast snapshot routes
  (:mod:`~graphmem.doors.http.fast`) and the OpenAPI document
  (:mod:`~graphmem.doors.http.document`);
- :mod:`graphmem.doors.http.keys`: API keys files (hashes only) and :class:`KeyRing`;
- :mod:`graphmem.doors.http.problems`: errors as ``application/problem+json``;
- :mod:`graphmem.doors.http.run`: :func:`serve` on uvicorn, with a clean stop on SIGTERM.

Importing this package needs the ``server`` extra (``pip install 'graphmem[server]'``);
``import graphmem`` never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from graphmem.doors.extras import require_extra

if TYPE_CHECKING:
    from graphmem.doors.http.app import Limits, ServerConfig, create_app
    from graphmem.doors.http.keys import KeyRing, add_key
    from graphmem.doors.http.run import serve

__all__ = ["KeyRing", "Limits", "ServerConfig", "add_key", "create_app", "require_extra", "serve"]

_LAZY = {
    "KeyRing": "graphmem.doors.http.keys",
    "Limits": "graphmem.doors.http.app",
    "ServerConfig": "graphmem.doors.http.app",
    "add_key": "graphmem.doors.http.keys",
    "create_app": "graphmem.doors.http.app",
    "serve": "graphmem.doors.http.run",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem.doors.http' has no attribute {name!r}")
    import importlib

    if module != "graphmem.doors.http.keys":
        require_extra()
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
