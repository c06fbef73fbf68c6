"""The async twin of :class:`graphmem.Memory`: the same methods, awaitable.

For agent frameworks and servers that run on an event loop::

    async with graphmem.open_async("memory://", tenant="my-game") as mem:
        await mem.upsert_entities([Entity(id="odile", type="npc", name="Odile")])
        chat = mem.conversation("session-1")
        await chat.append("player", "Can you take me across?")
        print((await mem.identity_snapshot("odile")).to_prompt())

How it runs: every call runs the synchronous operation in a worker thread of a pool the
:class:`AsyncMemory` owns, so the event loop never waits on a disk (``file://``) or a
server (Neo4j). The Neo4j backend runs its synchronous driver there too, not the driver's
async API: one code path for both backends, and the store's guarantees (one transaction
per batch, serialised appends) hold unchanged. ``graphmem bench --server`` measures what
the hop to the thread costs per call against the synchronous call.

Objects a memory hands out are twins too: :class:`AsyncConversation`,
:class:`AsyncConversationMemory` and :class:`AsyncFactMemory`.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable, Coroutine, Generator, Sequence
from concurrent.futures import Executor, ThreadPoolExecutor
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, Any, Concatenate, Generic, ParamSpec, TypeVar

from graphmem.conversation.tree import Conversation
from graphmem.core.models import ContextResult, Turn
from graphmem.core.store import GraphStore, check_tenant
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.policy.context import ConversationMemory
from graphmem.policy.governance import FactMemory
from graphmem.policy.health import HealthState

if TYPE_CHECKING:
    from graphmem.minds import MindSettings
    from graphmem.retrieval import Embedder, FusionSettings

__all__ = [
    "AsyncConversation",
    "AsyncConversationMemory",
    "AsyncFactMemory",
    "AsyncMemory",
    "open_async",
]

_P = ParamSpec("_P")
_R = TypeVar("_R")
_S = TypeVar("_S")
_T = TypeVar("_T")


class _Twin(Generic[_T]):
    """Runs the methods of a synchronous object in the worker threads of an executor."""

    def __init__(self, sync: _T, executor: Executor) -> None:
        self._sync = sync
        self._executor = executor

    def __repr__(self) -> str:
        return f"Async{self._sync!r}"

    @property
    def sync(self) -> _T:
        """The synchronous object this twin runs (for code that is not on the loop)."""
        return self._sync

    async def _call(self, fn: Callable[[], _R]) -> _R:
        try:
            future = asyncio.get_running_loop().run_in_executor(self._executor, fn)
        except RuntimeError:
            # The pool was shut down with its memory: the store is closed, so the call
            # raises StoreClosed at once, without I/O.
            return fn()
        return await future


def _offload(
    method: Callable[Concatenate[_S, _P], _R],
) -> Callable[Concatenate[_Twin[Any], _P], Coroutine[Any, Any, _R]]:
    """The awaitable twin of a synchronous method: same arguments, run in a worker thread."""

    async def call(self: _Twin[Any], /, *args: _P.args, **kwargs: _P.kwargs) -> _R:
        return await self._call(partial(method, self._sync, *args, **kwargs))

    call.__name__ = method.__name__
    call.__qualname__ = method.__qualname__
    call.__doc__ = method.__doc__
    return call


class AsyncConversation(_Twin[Conversation]):
    """The async twin of :class:`graphmem.Conversation`.

    Get one from :meth:`AsyncMemory.conversation`.
    """

    def __init__(self, conversation: Conversation, executor: Executor) -> None:
        super().__init__(conversation, executor)
        self.session_id = conversation.session_id

    async def head(self) -> Turn | None:
        """The newest turn of the active branch, or None (a property on the sync twin)."""
        head: Turn | None = await self._call(lambda: self._sync.head)
        return head

    append = _offload(Conversation.append)
    extend = _offload(Conversation.extend)
    fork = _offload(Conversation.fork)
    delete_turn = _offload(Conversation.delete_turn)
    delete = _offload(Conversation.delete)
    history = _offload(Conversation.history)
    latest = _offload(Conversation.latest)
    turns = _offload(Conversation.turns)
    branches = _offload(Conversation.branches)
    count = _offload(Conversation.count)
    dump = _offload(Conversation.dump)


class AsyncConversationMemory(_Twin[ConversationMemory]):
    """The async twin of :class:`graphmem.ConversationMemory`.

    Get one from :meth:`AsyncMemory.conversation_memory`. ``append`` and ``flush`` (which
    may call an LLM summarizer) run in a worker thread; so do the reads, which take the
    conversation memory's lock.
    """

    @property
    def health(self) -> HealthState:
        """The summarizer's health."""
        return self._sync.health

    def close(self) -> None:
        """Close it; every later call raises ``StoreClosed``."""
        self._sync.close()

    append = _offload(ConversationMemory.append)
    llm_context = _offload(ConversationMemory.llm_context)
    estimate_tokens = _offload(ConversationMemory.estimate_tokens)
    flush = _offload(ConversationMemory.flush)
    snapshot = _offload(ConversationMemory.snapshot)
    restore = _offload(ConversationMemory.restore)


class AsyncFactMemory(_Twin[FactMemory]):
    """The async twin of :class:`graphmem.FactMemory`.

    Get one from :meth:`AsyncMemory.fact_memory`.
    """

    def __init__(self, facts: FactMemory, executor: Executor) -> None:
        super().__init__(facts, executor)
        self.actor = facts.actor
        self.session = facts.session

    learn = _offload(FactMemory.learn)
    relate = _offload(FactMemory.relate)
    recall = _offload(FactMemory.recall)
    facts = _offload(FactMemory.facts)
    get = _offload(FactMemory.get)
    forget = _offload(FactMemory.forget)
    approve = _offload(FactMemory.approve)
    reject = _offload(FactMemory.reject)
    rollback_to = _offload(FactMemory.rollback_to)
    audit_log = _offload(FactMemory.audit_log)
    purge = _offload(FactMemory.purge)
    apply_retention = _offload(FactMemory.apply_retention)
    stats = _offload(FactMemory.stats)
    verify = _offload(FactMemory.verify)
    audit_head = _offload(FactMemory.audit_head)


class AsyncMemory(_Twin[Memory]):
    """A graph memory bound to one tenant, with every :class:`~graphmem.Memory` method awaitable.

    Open one with :func:`graphmem.open_async`, or wrap a ``Memory`` you hold
    (``AsyncMemory(mem)``; closing the twin closes it). Calls run in worker threads of
    an executor the twin owns (``max_workers`` threads; default ``min(32, cpus + 4)``)
    unless you pass your own ``executor``, which is then yours to shut down.

    >>> import asyncio, graphmem
    >>> async def main():
    ...     async with graphmem.open_async("memory://", tenant="doc") as mem:
    ...         _ = await mem.upsert_entities([{"id": "mira", "type": "npc", "name": "Mira"}])
    ...         chat = mem.conversation("s1")
    ...         _ = await chat.append("player", "Where is the smithy?")
    ...         return (await mem.identity_snapshot("mira")).to_prompt(), await chat.count()
    >>> asyncio.run(main())
    ('Mira (npc)', 1)
    """

    def __init__(
        self,
        memory: Memory,
        *,
        executor: Executor | None = None,
        max_workers: int | None = None,
    ) -> None:
        if not isinstance(memory, Memory):
            raise TypeError(f"AsyncMemory wraps a graphmem.Memory, not a {type(memory).__name__}")
        self._owns_executor = executor is None
        super().__init__(
            memory,
            executor
            or ThreadPoolExecutor(
                max_workers=max_workers or min(32, (os.cpu_count() or 1) + 4),
                thread_name_prefix="graphmem-async",
            ),
        )

    @property
    def tenant(self) -> str:
        """The tenant every call of this memory is scoped to."""
        return self._sync.tenant

    @property
    def store(self) -> GraphStore:
        """The underlying store."""
        return self._sync.store

    @property
    def pending_index(self) -> int:
        """How many appended turns wait to be indexed; see :meth:`flush_index`."""
        return self._sync.pending_index

    @property
    def mind_settings(self) -> MindSettings:
        """How NPC minds work in this memory; see :attr:`graphmem.Memory.mind_settings`."""
        return self._sync.mind_settings

    async def aclose(self) -> None:
        """Close the memory (and its store, if it owns it), then the worker threads."""
        try:
            await self._call(self._sync.close)
        finally:
            if self._owns_executor:
                self._executor.shutdown(wait=False)

    async def __aenter__(self) -> AsyncMemory:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.aclose()

    # -- objects with methods of their own: twins, made without I/O where the sync one is
    def conversation(self, session_id: str, *, max_history: int | None = None) -> AsyncConversation:
        """The conversation of a session; see :meth:`graphmem.Memory.conversation`."""
        return AsyncConversation(
            self._sync.conversation(session_id, max_history=max_history), self._executor
        )

    async def conversation_memory(self, **kwargs: Any) -> AsyncConversationMemory:
        """A conversation with a context strategy; see :meth:`graphmem.Memory.conversation_memory`.

        Awaitable: it reads the stored conversation's newest turns.
        """
        memory = await self._call(partial(self._sync.conversation_memory, **kwargs))
        return AsyncConversationMemory(memory, self._executor)

    def fact_memory(self, **kwargs: Any) -> AsyncFactMemory:
        """Governed facts of this tenant; see :meth:`graphmem.Memory.fact_memory`."""
        return AsyncFactMemory(self._sync.fact_memory(**kwargs), self._executor)

    async def load_conversation(
        self, data: Any, *, session_id: str | None = None
    ) -> AsyncConversation:
        """Store a dumped conversation tree; see :meth:`graphmem.Memory.load_conversation`."""
        loaded = await self._call(
            partial(self._sync.load_conversation, data, session_id=session_id)
        )
        return AsyncConversation(loaded, self._executor)

    @staticmethod
    def render_context(results: Sequence[ContextResult], max_tokens: int | None = None) -> str:
        """Render retrieved results as prompt text; no I/O, so not awaitable.

        See :meth:`graphmem.Memory.render_context`.
        """
        return Memory.render_context(results, max_tokens)

    # -- entities
    upsert_entities = _offload(Memory.upsert_entities)
    get_entity = _offload(Memory.get_entity)
    get_entities = _offload(Memory.get_entities)
    update_entity = _offload(Memory.update_entity)
    delete_entities = _offload(Memory.delete_entities)
    find_entities = _offload(Memory.find_entities)
    resolve_entity = _offload(Memory.resolve_entity)
    count_entities = _offload(Memory.count_entities)
    # -- relationships
    upsert_relationships = _offload(Memory.upsert_relationships)
    get_relationships = _offload(Memory.get_relationships)
    delete_relationship = _offload(Memory.delete_relationship)
    invalidate = _offload(Memory.invalidate)
    count_relationships = _offload(Memory.count_relationships)
    # -- graph questions
    neighbors = _offload(Memory.neighbors)
    neighborhood = _offload(Memory.neighborhood)
    find_path = _offload(Memory.find_path)
    visible_subgraph = _offload(Memory.visible_subgraph)
    expand = _offload(Memory.expand)
    identity_snapshot = _offload(Memory.identity_snapshot)
    to_networkx = _offload(Memory.to_networkx)
    # -- governed facts, session log
    learn = _offload(Memory.learn)
    relate = _offload(Memory.relate)
    sessions = _offload(Memory.sessions)
    search_turns = _offload(Memory.search_turns)
    recent_turns = _offload(Memory.recent_turns)
    count_turns = _offload(Memory.count_turns)
    # -- whole tenant
    dump = _offload(Memory.dump)
    clear = _offload(Memory.clear)
    export_jsonl = _offload(Memory.export_jsonl)
    import_jsonl = _offload(Memory.import_jsonl)
    # -- retrieval
    entity_linker = _offload(Memory.entity_linker)
    add_documents = _offload(Memory.add_documents)
    index_entities = _offload(Memory.index_entities)
    index_turns = _offload(Memory.index_turns)
    flush_index = _offload(Memory.flush_index)
    # -- graph questions
    ask = _offload(Memory.ask)
    describe_relationship_type = _offload(Memory.describe_relationship_type)
    describe_entity_type = _offload(Memory.describe_entity_type)
    schema = _offload(Memory.schema)
    query_with_context = _offload(Memory.query_with_context)
    query_with_embedding = _offload(Memory.query_with_embedding)
    # -- NPC minds
    record_event = _offload(Memory.record_event)
    observe = _offload(Memory.observe)
    tell = _offload(Memory.tell)
    announce = _offload(Memory.announce)
    believe = _offload(Memory.believe)
    beliefs = _offload(Memory.beliefs)
    belief = _offload(Memory.belief)
    who_knows = _offload(Memory.who_knows)
    check_beliefs = _offload(Memory.check_beliefs)
    events = _offload(Memory.events)
    recall = _offload(Memory.recall)
    forget = _offload(Memory.forget)
    save_recap = _offload(Memory.save_recap)
    draft_recap = _offload(Memory.draft_recap)
    recap = _offload(Memory.recap)
    recaps = _offload(Memory.recaps)

    async def retrieve(
        self,
        query: str,
        k: int = 10,
        hops: int = 2,
        graph_scope: Sequence[str] | None = None,
        *,
        kinds: Sequence[str] | None = None,
        rel_types: Sequence[str] | None = None,
        preset: str | FusionSettings | None = None,
        **settings: Any,
    ) -> list[ContextResult]:
        """Hybrid GraphRAG retrieval; see :meth:`graphmem.Memory.retrieve`."""
        call = partial(
            self._sync.retrieve,
            query,
            k,
            hops,
            graph_scope,
            kinds=kinds,
            rel_types=rel_types,
            preset=preset,
            **settings,
        )
        results: list[ContextResult] = await self._call(call)
        return results

    async def embedder(self) -> Embedder:
        """The embedder (made on first use, which may load a model: hence awaitable)."""
        embedder: Embedder = await self._call(lambda: self._sync.embedder)
        return embedder


class _Opening:
    """What :func:`open_async` returns: await it, or use it as an async context manager."""

    def __init__(self, opener: Callable[[], Memory], max_workers: int | None) -> None:
        self._opener = opener
        self._max_workers = max_workers
        self._memory: AsyncMemory | None = None

    async def _open(self) -> AsyncMemory:
        executor = ThreadPoolExecutor(
            max_workers=self._max_workers or min(32, (os.cpu_count() or 1) + 4),
            thread_name_prefix="graphmem-async",
        )
        try:
            memory = await asyncio.get_running_loop().run_in_executor(executor, self._opener)
        except BaseException:
            executor.shutdown(wait=False)
            raise
        twin = AsyncMemory(memory, executor=executor)
        twin._owns_executor = True
        return twin

    def __await__(self) -> Generator[Any, None, AsyncMemory]:
        return self._open().__await__()

    async def __aenter__(self) -> AsyncMemory:
        self._memory = await self._open()
        return self._memory

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._memory is not None:
            await self._memory.aclose()


def open_async(
    url: str = "memory://",
    *,
    tenant: str,
    embedder: Embedder | None = None,
    max_workers: int | None = None,
    **options: Any,
) -> _Opening:
    """Open an :class:`AsyncMemory`, as ``async with`` or ``await``.

    ``async with graphmem.open_async(url, tenant=...) as mem: ...`` closes it at the end;
    ``mem = await graphmem.open_async(...)`` leaves that to ``await mem.aclose()``.

    The store is opened in a worker thread (connecting to Neo4j, reading a ``file://``
    store), so the event loop does not wait for it. Arguments as :func:`graphmem.open`,
    plus ``max_workers``, the size of the memory's thread pool.

    Raises:
        IdentityRequired: ``tenant`` is empty (at once, before anything is opened).
    """
    check_tenant(tenant)
    return _Opening(
        partial(open_memory, url, tenant=tenant, embedder=embedder, **options), max_workers
    )
