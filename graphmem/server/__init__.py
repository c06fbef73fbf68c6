"""``graphmem serve``: graphmem's HTTP API (FastAPI + uvicorn, the ``server`` extra).

- :mod:`graphmem.server.app`: :func:`create_app` and its :class:`ServerConfig` / :class:`Limits`;
  it assembles the routers of :mod:`graphmem.server.routes` (one per area), the shared
  request plumbing (:mod:`~graphmem.server.plumbing`), the ASGI middleware
  (:mod:`~graphmem.server.middleware`), the fast snapshot routes (:mod:`~graphmem.server.fast`)
  and the OpenAPI document (:mod:`~graphmem.server.document`);
- :mod:`graphmem.server.keys`: API keys files (hashes only) and :class:`KeyRing`;
- :mod:`graphmem.server.problems`: errors as ``application/problem+json``;
- :mod:`graphmem.server.run`: :func:`serve` on uvicorn, with a clean stop on SIGTERM.

Importing this package needs the ``server`` extra (``pip install 'graphmem[server]'``);
``import graphmem`` never imports it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.server.app import Limits, ServerConfig, create_app
    from graphmem.server.keys import KeyRing, add_key
    from graphmem.server.run import serve

__all__ = ["KeyRing", "Limits", "ServerConfig", "add_key", "create_app", "require_extra", "serve"]

_LAZY = {
    "KeyRing": "graphmem.server.keys",
    "Limits": "graphmem.server.app",
    "ServerConfig": "graphmem.server.app",
    "add_key": "graphmem.server.keys",
    "create_app": "graphmem.server.app",
    "serve": "graphmem.server.run",
}


def require_extra(*modules: str) -> None:
    """Import ``modules`` (default: fastapi, uvicorn) or raise an ImportError naming the extra."""
    import importlib

    for name in modules or ("fastapi", "uvicorn"):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(
                f"graphmem's server needs {name}, which is not installed: "
                "pip install 'graphmem[server]'",
                name=name,
            ) from exc


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'graphmem.server' has no attribute {name!r}")
    import importlib

    if module != "graphmem.server.keys":
        require_extra()
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
