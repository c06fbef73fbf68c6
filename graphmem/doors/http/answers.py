"""The answers of the fast routes, kept while the store's revision and the clock allow.

:class:`Answers` holds the response body of ``GET /v1/npcs/{id}/snapshot`` and
``GET /v1/npcs/{id}/prompt?max_tokens=N`` per tenant, NPC and query, with what it was
read under: the store's :meth:`~graphmem.GraphStore.revision` (read before the
snapshot) and the time span in which no fact of the NPC begins or stops holding
(:meth:`~graphmem.GraphStore.identity_expiry`). A body is served again only while both
still hold, so it is byte for byte what the store would answer now.
"""

from __future__ import annotations

from datetime import datetime
from typing import TYPE_CHECKING, NamedTuple

from graphmem.core.errors import NotFound
from graphmem.core.models import utcnow

if TYPE_CHECKING:
    from graphmem.core.store import GraphStore

__all__ = ["Answer", "Answers"]

Key = tuple[str, bytes, bytes]
"""(tenant, raw path, query string): a request of a fast route, checked when first answered."""


class Answer(NamedTuple):
    """A response body, the revision it was read at and the span of time it holds in."""

    revision: int
    since: datetime
    until: datetime | None
    body: bytes


class Answers:
    """Response bodies of the fast routes, each kept until a write or its expiry.

    Only for a store with the ``revision`` capability (every write goes through it:
    ``memory://``, a ``file://`` writer). A write anywhere in the store (any door, any
    tenant) moves the revision on, so every kept body is stale at once; one made at
    ``since`` holds until ``until``, the next instant one of the NPC's facts begins or
    stops holding (a clock set back before ``since`` makes it stale too). Emptied whole
    when it holds ``limit`` bodies or ``max_bytes`` bytes.
    """

    def __init__(self, store: GraphStore, *, limit: int = 100_000, max_bytes: int = 64 << 20):
        self._store = store
        self._limit = limit
        self._max_bytes = max_bytes
        self._bytes = 0
        self._kept: dict[Key, Answer] = {}

    def get(self, key: Key) -> bytes | None:
        """The body kept for ``key`` if it is still the answer now, else None."""
        found = self._kept.get(key)
        if found is None or found.revision != self._store.revision(key[0]):
            return None
        now = utcnow()
        if now < found.since or (found.until is not None and now >= found.until):
            return None
        return found.body

    def read(self, tenant: str) -> tuple[int, datetime]:
        """The revision and the time to read a new answer at: call before reading it."""
        return self._store.revision(tenant), utcnow()

    def keep(self, key: Key, npc_id: str, revision: int, since: datetime, body: bytes) -> None:
        """Keep ``body``, the answer about ``npc_id`` read after :meth:`read` returned these."""
        if len(body) > self._max_bytes // 16:
            return  # a hub's snapshot: not worth the room of sixteen others
        try:
            until = self._store.identity_expiry(key[0], npc_id, after=since)
        except NotFound:
            return  # deleted since it was read: the revision moved on anyway
        old = self._kept.pop(key, None)
        if old is not None:
            self._bytes -= len(old.body)
        if len(self._kept) >= self._limit or self._bytes + len(body) > self._max_bytes:
            self._kept.clear()
            self._bytes = 0
        self._kept[key] = Answer(revision, since, until, body)
        self._bytes += len(body)

    def __len__(self) -> int:
        return len(self._kept)
