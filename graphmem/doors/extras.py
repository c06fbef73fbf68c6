"""What the doors share below them: optional extras and loopback addresses.

The HTTP and MCP doors stand side by side; what both need lives here, so neither imports
the other (only the HTTP server mounts the MCP door, for ``graphmem serve --mcp``).
"""

from __future__ import annotations

import importlib
import ipaddress

__all__ = ["is_loopback", "require_extra"]


def require_extra(*modules: str) -> None:
    """Import ``modules`` (default: fastapi, uvicorn) or raise an ImportError naming the extra."""
    for name in modules or ("fastapi", "uvicorn"):
        try:
            importlib.import_module(name)
        except ImportError as exc:
            raise ImportError(
                f"graphmem's server needs {name}, which is not installed: "
                "pip install 'graphmem[server]'",
                name=name,
            ) from exc


def is_loopback(host: str) -> bool:
    """Whether ``host`` names this machine only (``localhost``, 127.0.0.0/8, ``::1``)."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
