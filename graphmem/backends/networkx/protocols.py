"""The seam between the in-memory store and its SQLite file, as two small protocols.

The store's rooms (:mod:`.base` and the rooms above it) and the SQLite file layer
(:mod:`.sqlite_file` and its parts) each stand on the tenant state of :mod:`.state` and
on these protocols, never on each other; the composed store (:mod:`.store`) joins them:

- :class:`StoreFile` is the file as the store sees it: it loads the tenants, makes each
  change durable before it is applied, and keeps a reader in step;
- :class:`StoreHost` is the store as its file sees it: the tenants it fills, the one
  method that applies a change record, and the store's lock and counters.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any, Protocol

from graphmem.backends.networkx.state import _Tenant
from graphmem.core.store import TenantDump

__all__ = ["StoreFile", "StoreHost"]


class StoreFile(Protocol):
    """The persistence behind a ``file://`` store (one SQLite database)."""

    def load(self) -> None:
        """Fill the store's tenants from the file."""

    def commit(self, record: dict[str, Any]) -> None:
        """Persist one change record, then have the store apply it."""

    def new_graph(self, tenant: str) -> Any:
        """An empty graph for a tenant of this file."""

    def following(self) -> AbstractContextManager[None]:
        """One read transaction around an operation, after syncing what others committed."""

    def warm(self) -> None:
        """Start reading every model not read yet in the background."""

    def stop_warming(self) -> None:
        """Stop the warm-up, if one runs."""

    def close(self) -> None:
        """Close the database and release the file."""


class StoreHost(Protocol):
    """The store a file serves: its tenants, its change records, its lock and counters."""

    _tenants: dict[str, _Tenant]
    _revision: int  # moves on before every change (the store's revision)
    _loads: int  # whole (re)loads from the file: entity_version moves on with each

    @property
    def _ops(self) -> int:
        """Operations run so far (the warm-up backs off while this moves)."""

    @property
    def _lock(self) -> AbstractContextManager[Any]:
        """The lock every operation holds."""

    def _apply(self, record: dict[str, Any]) -> None:
        """Apply a change record in memory (after it was made durable)."""

    def _commit(self, record: dict[str, Any]) -> None:
        """Make a change record durable, then apply it."""

    def _dump(self, data: _Tenant) -> TenantDump:
        """Everything a tenant holds."""

    def _scratch(self, path: Path | None = None) -> StoreHost:
        """A new store of the same kind: empty in memory, or the writer of ``path``."""

    def close(self) -> None:
        """Release the store."""
