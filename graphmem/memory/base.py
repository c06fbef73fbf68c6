"""The scope every part of :class:`graphmem.Memory` works in: store, tenant, open or closed.

Also the services a memory makes on first use (retrieval, NPC minds) and the argument
checks its parts share.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from graphmem.core.checks import check_safe_names
from graphmem.core.errors import InvalidInput, StoreClosed
from graphmem.core.models import Relationship, Turn
from graphmem.core.store import GraphStore, check_tenant

_log = logging.getLogger("graphmem.memory")

if TYPE_CHECKING:
    from graphmem.minds import MindSettings
    from graphmem.minds.core import Minds
    from graphmem.retrieval import Embedder
    from graphmem.retrieval.service import Retrieval


class MemoryBase:
    """A store bound to one tenant; the parts of :class:`graphmem.Memory` build on it."""

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        owns_store: bool = True,
        embedder: Embedder | None = None,
        minds: MindSettings | None = None,
        auto_index: bool = True,
        index_batch: int | None = None,
        progress: bool = False,
    ) -> None:
        if index_batch is not None and (
            not isinstance(index_batch, int) or isinstance(index_batch, bool) or index_batch <= 0
        ):
            raise InvalidInput(
                f"index_batch must be a positive integer or None, got {index_batch!r}"
            )
        self._tenant = check_tenant(tenant)
        self._store = store
        self._owns_store = owns_store
        self._closed = False
        self._embedder = embedder
        self._mind_settings = minds
        self._minds_obj: Minds | None = None
        self._auto_index = bool(auto_index)
        self._index_batch = index_batch
        self._progress = bool(progress)
        # Retrieval and indexing (graphmem.retrieval.service), made on first use.
        self._retrieval_obj: Retrieval | None = None

    def __repr__(self) -> str:
        return f"Memory(url={self._store.url!r}, tenant={self._tenant!r})"

    @property
    def tenant(self) -> str:
        """The tenant every call of this memory is scoped to."""
        return self._tenant

    @property
    def store(self) -> GraphStore:
        """The underlying store (shared by every tenant)."""
        self._check_open()
        return self._store

    def _check_open(self) -> None:
        if self._closed:
            raise StoreClosed("this memory is closed; open a new one", tenant=self._tenant)

    def close(self) -> None:
        """Close the memory (and its store, if it opened it). Closing twice is fine."""
        if not self._closed:
            self._closed = True
            if self._owns_store:
                self._store.close()

    def _queue_turns(self, turns: Sequence[Turn]) -> None:
        self._retrieval().indexer.queue(turns)

    def _index_facts(self, relationships: Sequence[Relationship]) -> None:
        """Embed the written facts' sayings for retrieval; a write never fails for it.

        What could not be embedded now is embedded by the first question that needs it,
        which says what failed.
        """
        try:
            self._retrieval().index_facts(relationships)
        except Exception:  # noqa: BLE001 - any embedder's error: the write itself succeeded
            _log.warning("could not embed the sayings of the facts written", exc_info=True)

    def _retrieval(self) -> Retrieval:
        """Everything retrieval does for this memory (:mod:`graphmem.retrieval.service`)."""
        self._check_open()
        if self._retrieval_obj is None:
            from graphmem.retrieval.service import Retrieval

            self._retrieval_obj = Retrieval(
                self._store,
                self._tenant,
                embedder=self._embedder,
                index_batch=self._index_batch,
                progress=self._progress,
            )
        return self._retrieval_obj

    def _minds(self) -> Minds:
        self._check_open()
        if self._minds_obj is None:
            from graphmem.minds import MindSettings
            from graphmem.minds.core import Minds

            settings = self._mind_settings or MindSettings()
            if not isinstance(settings, MindSettings):
                raise InvalidInput("minds takes a graphmem.minds.MindSettings")
            self._minds_obj = Minds(self._store, self._tenant, settings)
        return self._minds_obj


def _check_bus(bus: object) -> None:
    from graphmem.core.events import EventBus

    if bus is not None and not isinstance(bus, EventBus):
        raise InvalidInput(f"bus must be a graphmem.EventBus or None, got {type(bus).__name__}")


def _types(rel_types: Sequence[str] | None) -> tuple[str, ...] | None:
    names = check_safe_names(rel_types, "relationship type")
    return None if names is None else tuple(names)
