"""What a graphmem HTTP server serves (:class:`ServerConfig`) and holds while it runs.

:class:`ServerState` owns the store, one :class:`~graphmem.memory.Memory` per tenant, the
conversation memories and the JSON of stored models (:class:`Fragments`); a route finds it
with :func:`state_of`.
"""

from __future__ import annotations

import logging
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from operator import is_
from typing import TYPE_CHECKING, Any

from fastapi import Request

from graphmem.core.errors import BackendUnavailable, GraphmemError, InvalidInput
from graphmem.core.models import NPCIdentity
from graphmem.core.store import GraphStore, open_store
from graphmem.core.telemetry import StoreTelemetry
from graphmem.doors.http.answers import Answers
from graphmem.doors.http.keys import KeyRing
from graphmem.doors.http.limits import Limits
from graphmem.memory import Memory
from graphmem.policy.context import ConversationMemory
from graphmem.policy.governance import FactMemory, GovernancePolicy

if TYPE_CHECKING:
    from graphmem.retrieval import Embedder

__all__ = ["RETENTION_ACTOR", "Fragments", "ServerConfig", "ServerState", "state_of"]

RETENTION_ACTOR = "graphmem-retention"
_log = logging.getLogger("graphmem.server")


@dataclass(frozen=True)
class ServerConfig:
    """What a graphmem HTTP server serves, and how.

    Attributes:
        store: A store URL (opened when the app starts, closed when it stops) or an
            open store (left open).
        tenant: Serve this one tenant without keys (loopback only; ``graphmem serve``
            checks the address). Exactly one of ``tenant`` and ``keys``.
        keys: The API keys, each opening one tenant.
        limits: Request size limits.
        policy: The governance policy of every governed write (default rules when None);
            its retention settings drive the retention schedule.
        retention_interval: Seconds between retention runs when the policy sets
            retention (the first runs at start-up); None never runs it.
        embedder: The embedder of retrieval; default all-MiniLM-L6-v2 when installed.
        context_cache: How many conversation memories (summaries, windows) are kept
            in memory, least recently used dropped first.
        cors_origins: Browser origins allowed to call the API (a WebGL build, say).
        mcp: Also serve the MCP tools at ``/mcp`` (streamable HTTP), on the same store
            and keys (:mod:`graphmem.doors.http.mcp_mount`).
        mcp_actor: Who governed writes through MCP are audited as.
        metrics: Serve ``GET /metrics`` and count requests and store operations, with an
            OpenTelemetry span for each when ``opentelemetry-api`` is installed
            (:mod:`graphmem.doors.http.metrics`).
    """

    store: str | GraphStore
    tenant: str | None = None
    keys: KeyRing | None = None
    limits: Limits = field(default_factory=Limits)
    policy: GovernancePolicy | None = None
    retention_interval: float | None = 3600.0
    embedder: Embedder | None = None
    context_cache: int = 1024
    cors_origins: tuple[str, ...] = ()
    mcp: bool = False
    mcp_actor: str = "mcp-agent"
    metrics: bool = True

    def __post_init__(self) -> None:
        if (self.tenant is None) == (self.keys is None):
            raise InvalidInput("serve exactly one of: a tenant (no keys, loopback) or a keys file")
        if self.retention_interval is not None and self.retention_interval <= 0:
            raise InvalidInput("retention_interval must be a positive number of seconds")
        if self.context_cache <= 0:
            raise InvalidInput("context_cache must be positive")

    @property
    def tenants(self) -> list[str]:
        """Every tenant this server can serve."""
        if self.keys is not None:
            return self.keys.tenants
        assert self.tenant is not None
        return [self.tenant]


# --------------------------------------------------------------------------- state


class ServerState:
    """What a running app holds: the store, one Memory per tenant, conversation memories."""

    def __init__(self, config: ServerConfig) -> None:
        self.config = config
        self.store: GraphStore | None = None
        self._inline = False
        self.fragments = Fragments()
        self.answers: Answers | None = None  # the fast routes' bodies (a store with revision)
        self._memories: dict[str, Memory] = {}
        self._contexts: OrderedDict[tuple[Any, ...], ConversationMemory] = OrderedDict()
        self._lock = threading.Lock()

    def open(self) -> None:
        """Open the store (a URL) or take the open one."""
        store = self.config.store
        options = {"tracer": StoreTelemetry()} if self.config.metrics else {}
        self.store = open_store(store, **options) if isinstance(store, str) else store
        if "revision" in self.store.capabilities:
            self.answers = Answers(self.store)

    @property
    def inline_reads(self) -> bool:
        """Whether reads may run on the event loop: the store answers them from memory.

        Asked again until it holds: a reopened ``file://`` store gains the capability
        once its warm-up has every model in memory, and keeps it.
        """
        if not self._inline and self.store is not None:
            self._inline = "inline_reads" in self.store.capabilities
        return self._inline

    def close(self) -> None:
        """Close the store when this server opened it."""
        if self.store is not None and isinstance(self.config.store, str):
            self.store.close()

    def memory(self, key: str | None) -> Memory:
        """The Memory of the tenant this key opens (the served tenant without keys)."""
        if self.config.keys is not None:
            tenant = self.config.keys.lookup(key).tenant
        else:
            assert self.config.tenant is not None
            tenant = self.config.tenant
        found = self._memories.get(tenant)
        if found is None:
            if self.store is None:
                raise BackendUnavailable("the server is not serving yet: its store is not open")
            with self._lock:
                found = self._memories.setdefault(
                    tenant,
                    Memory(self.store, tenant, owns_store=False, embedder=self.config.embedder),
                )
        return found

    def context(
        self, mem: Memory, user: str, session: str, strategy: str, max_tokens: int, window: int
    ) -> ConversationMemory:
        """The conversation memory of these settings, kept least recently used first."""
        key = (mem.tenant, user, session, strategy, max_tokens, window)
        with self._lock:
            found = self._contexts.get(key)
            if found is not None:
                self._contexts.move_to_end(key)
                return found
        made = mem.conversation_memory(
            user=user,
            session=session,
            strategy=strategy,
            max_tokens=max_tokens,
            window_turns=window,
        )
        with self._lock:
            found = self._contexts.setdefault(key, made)
            self._contexts.move_to_end(key)
            while len(self._contexts) > self.config.context_cache:
                self._contexts.popitem(last=False)
        return found

    def facts(self, mem: Memory, actor: str, session: str | None) -> FactMemory:
        """The governed facts of ``actor`` under the server's policy."""
        return mem.fact_memory(actor=actor, session=session, policy=self.config.policy)

    def apply_retention(self) -> None:
        """One retention run over every tenant served (errors are logged, not raised)."""
        for tenant in self.config.tenants:
            try:
                mem = self._memory_of(tenant)
                result = mem.fact_memory(
                    actor=RETENTION_ACTOR, policy=self.config.policy
                ).apply_retention()
            except GraphmemError as exc:
                _log.warning("retention failed for a tenant: %s: %s", type(exc).__name__, exc)
                continue
            if result is not None and (result.facts or result.audit_entries):
                _log.info(
                    "retention purged %d facts and %d audit entries of tenant %r",
                    result.facts,
                    result.audit_entries,
                    tenant,
                )

    def _memory_of(self, tenant: str) -> Memory:
        assert self.store is not None
        with self._lock:
            return self._memories.setdefault(
                tenant, Memory(self.store, tenant, owns_store=False, embedder=self.config.embedder)
            )


class Fragments:
    """The JSON of stored models, kept by identity: a snapshot's JSON assembled from parts.

    Stored models are immutable and a store hands out the same instance until it changes
    (then a new instance is stored), so the JSON of an instance never goes stale. The
    cache holds each instance it encoded (so its ``id`` cannot be reused) and is emptied
    whole when it reaches ``limit`` entries. The assembled document equals
    ``NPCIdentity.model_dump_json()`` byte for byte (a test checks it).

    The last document of each entity is kept too, with the instances it was made of: a
    snapshot made of the very same instances (compared by identity, not equality: equal
    floats such as ``0.0`` and ``-0.0`` encode differently) is the same document. At most
    ``limit // 10`` such documents are kept (a hub's can be large), emptied whole too.
    """

    def __init__(self, limit: int = 200_000) -> None:
        self._limit = limit
        self._cache: dict[int, tuple[Any, bytes]] = {}
        self._identities: dict[str, tuple[tuple[Any, ...], bytes]] = {}

    def __call__(self, model: Any) -> bytes:
        """``model``'s JSON, encoded once per instance."""
        found = self._cache.get(id(model))
        if found is not None and found[0] is model:
            return found[1]
        if len(self._cache) >= self._limit:
            self._cache.clear()
        encoded: bytes = model.__pydantic_serializer__.to_json(model)
        self._cache[id(model)] = (model, encoded)
        return encoded

    def identity(self, identity: NPCIdentity) -> bytes:
        """``identity.model_dump_json()``, as bytes, from the parts' cached JSON."""
        parts = (identity.entity, *identity.relationships, None, *identity.related_entities)
        found = self._identities.get(identity.entity.id)
        if found is not None and len(found[0]) == len(parts) and all(map(is_, found[0], parts)):
            return found[1]
        if len(self._identities) >= max(1, self._limit // 10):
            self._identities.clear()
        encoded = b"".join(
            (
                b'{"entity":',
                self(identity.entity),
                b',"relationships":[',
                b",".join([self(r) for r in identity.relationships]),
                b'],"related_entities":[',
                b",".join([self(e) for e in identity.related_entities]),
                b"]}",
            )
        )
        self._identities[identity.entity.id] = (parts, encoded)
        return encoded


def state_of(request: Request) -> ServerState:
    """The state of the app serving ``request``."""
    state: ServerState = request.app.state.graphmem
    return state
