"""The whole tenant at once: dump, clear, export, import, analysis."""

from __future__ import annotations

from pathlib import Path
from typing import IO, TYPE_CHECKING

from graphmem.core.store import TenantDump
from graphmem.exchange import jsonl
from graphmem.memory.base import MemoryBase

if TYPE_CHECKING:
    import networkx as nx


class TenantMethods(MemoryBase):
    """Everything the tenant holds, at once."""

    def dump(self) -> TenantDump:
        """Everything this tenant holds, as models."""
        self._check_open()
        return self._store.dump(self._tenant)

    def clear(self) -> None:
        """Delete everything this tenant holds."""
        self._check_open()
        self._store.clear(self._tenant)

    def export_jsonl(self, target: str | Path | IO[str]) -> int:
        """Write everything to JSON Lines (a path or a text file); return the line count."""
        self._check_open()
        return jsonl.write(self._store.dump(self._tenant), target, tenant=self._tenant)

    def import_jsonl(self, source: str | Path | IO[str]) -> TenantDump:
        """Read JSON Lines made by :meth:`export_jsonl`; all or nothing. Returns what was read."""
        self._check_open()
        from graphmem.minds import upgrade as minds_upgrade

        dump = jsonl.read(source)
        old = minds_upgrade.check(dump.records)  # beliefs of an earlier format: convertible?
        if old:
            self._minds()  # the minds settings checked before anything is written
        self._store.load(self._tenant, dump)
        if old:
            self._minds_obj = None
            self._minds()  # and the save's beliefs converted now
        return dump

    def to_networkx(self, *, include_invalid: bool = False) -> nx.MultiDiGraph:
        """The entity graph as a networkx ``MultiDiGraph`` (for analysis and drawing).

        Nodes carry ``type``, ``name`` and the attributes; edges are keyed by type and carry
        ``confidence``, ``source``, ``confirmed`` and the validity times. See
        :func:`graphmem.exchange.analysis.to_networkx`.
        """
        from graphmem.exchange.analysis import to_networkx

        return to_networkx(self.dump(), include_invalid=include_invalid)
