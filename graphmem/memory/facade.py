"""The facade: :class:`Memory`, assembled from its parts, and :func:`open`."""

from __future__ import annotations

from types import TracebackType
from typing import TYPE_CHECKING, Any

from graphmem.core.store import check_tenant, open_store
from graphmem.memory.base import MemoryBase
from graphmem.memory.conversations import ConversationMethods
from graphmem.memory.entities import EntityMethods
from graphmem.memory.facts import FactMethods
from graphmem.memory.minds import MindMethods
from graphmem.memory.questions import QuestionMethods
from graphmem.memory.retrieval import RetrievalMethods
from graphmem.memory.tenant import TenantMethods

if TYPE_CHECKING:
    from graphmem.minds import MindSettings
    from graphmem.retrieval import Embedder

__all__ = ["Memory", "open"]


class Memory(
    EntityMethods,
    ConversationMethods,
    FactMethods,
    TenantMethods,
    RetrievalMethods,
    MindMethods,
    QuestionMethods,
    MemoryBase,
):
    """A graph memory bound to one tenant. Open one with :func:`graphmem.open`.

    >>> import graphmem
    >>> from graphmem import Entity, Relationship
    >>> with graphmem.open("memory://", tenant="village") as mem:
    ...     _ = mem.upsert_entities([
    ...         Entity(id="mira", type="npc", name="Mira", attributes={"occupation": "smith"}),
    ...         Entity(id="forge", type="location", name="The Forge"),
    ...     ])
    ...     works_at = Relationship(source_id="mira", target_id="forge", type="works_at")
    ...     _ = mem.upsert_relationships([works_at])
    ...     [e.name for e in mem.neighbors("mira")]
    ['The Forge']
    """

    def __enter__(self) -> Memory:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open(  # noqa: A001
    url: str = "memory://",
    *,
    tenant: str,
    embedder: Embedder | None = None,
    minds: MindSettings | None = None,
    auto_index: bool = True,
    index_batch: int | None = None,
    progress: bool = False,
    **options: Any,
) -> Memory:
    """Open a graph memory for one tenant.

    Args:
        url: ``memory://`` (in-process), ``file:///path/world.graphmem`` (in-process,
            persisted to one file), ``neo4j://user:password@host`` / ``bolt://...``.
        tenant: Whose memory this is; every call is scoped to it. Required.
        embedder: What embeds text for retrieval (a :class:`graphmem.retrieval.Embedder`).
            Default: all-MiniLM-L6-v2 when the ``embeddings`` extra is installed, made on
            first use; without the extra, retrieval that needs embeddings raises
            ``BackendUnavailable`` saying so.
        minds: How NPC minds work (:class:`graphmem.minds.MindSettings`; default:
            second-order beliefs, ``located_in`` as presence).
        auto_index: Index the turns appended through this memory for retrieval by
            themselves: linked and embedded in batches before the next retrieval (see
            :meth:`Memory.flush_index`). False: call :meth:`Memory.index_turns` yourself.
        index_batch: With ``auto_index``, also index as soon as this many turns wait
            (an append then pays for the batch); None: only before a retrieval.
        progress: Draw progress bars (tqdm, on stderr, only when it is a terminal) for
            long work: document ingest and turn indexing.
        **options: Backend options, e.g. ``tracer=print``; ``read_only=True`` to read a
            store (beside its writer) and never write or create anything.

    Raises:
        IdentityRequired: ``tenant`` is empty.
        InvalidInput: ``index_batch`` is not a positive integer.
    """
    check_tenant(tenant)
    store = open_store(url, **options)
    try:
        return Memory(
            store,
            tenant,
            embedder=embedder,
            minds=minds,
            auto_index=auto_index,
            index_batch=index_batch,
            progress=progress,
        )
    except BaseException:
        store.close()
        raise
