"""Retrieval (GraphRAG) and indexing of :class:`graphmem.Memory`."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.core.checks import check_limit
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    ContextResult,
    Document,
)
from graphmem.memory.base import MemoryBase

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

    from graphmem.retrieval import (
        Embedder,
        EntityLinker,
        Extractor,
        FusionSettings,
        IngestReport,
    )


class RetrievalMethods(MemoryBase):
    """Indexing and hybrid retrieval, through :mod:`graphmem.retrieval.service`."""

    @property
    def embedder(self) -> Embedder:
        """The embedder of this memory (the default one is made on first use).

        Raises:
            BackendUnavailable: No embedder was given and the ``embeddings`` extra is not
                installed; the message says what to install or pass.
        """
        return self._retrieval().embedder

    def entity_linker(self) -> EntityLinker:
        """The entity linker over every entity's name and aliases.

        Rebuilt when the tenant's entities change: any write through this memory's store
        (this memory, another sharing the store, the policy and minds layers), and on a
        server backend the writes of other processes that change the entity count or the
        latest update time (:meth:`graphmem.GraphStore.entity_version`).
        """
        return self._retrieval().linking.linker()

    def add_documents(
        self,
        documents: Iterable[Document | Mapping[str, Any] | str],
        *,
        chunk_tokens: int = 200,
        overlap: int = 1,
        extractor: Extractor | None = None,
        embed: bool = True,
        batch_size: int = 256,
        nested_mentions: bool = True,
        progress: bool | None = None,
        title_entities: bool = False,
    ) -> IngestReport:
        """Chunk documents into ``Chunk`` nodes, link them to entities, embed them.

        Each document (a :class:`Document`, a dict of its fields, or plain text) is split
        into chunks of about ``chunk_tokens`` tokens (ids ``{doc id}#{n}``). Each chunk
        ``MENTIONS`` the entities whose names or aliases occur in it (entity linking,
        whole words, any case; a name inside a longer one counts too: "the Prague
        astronomical clock" mentions the clock and Prague) and the document's
        ``entity_ids``, which its attributes also keep as ``about`` (the ``multihop``
        preset treats a passage about an entity as that entity's page), beside ``title``
        and ``document_id``. An ``extractor`` may add entities and relationships
        (evidence: the chunk id); the default extracts none, and the report says so.
        The work is done by the memory's :class:`graphmem.retrieval.Indexer`.

        Args:
            documents: What to ingest.
            chunk_tokens: Chunk size budget, in estimated tokens.
            overlap: Sentences repeated at the start of the next chunk.
            extractor: An :class:`graphmem.retrieval.Extractor`; default: none.
            embed: Embed the chunks (needs the embedder); False to add text only.
            batch_size: Chunks per store write and per embedding batch.
            nested_mentions: Link the names found inside longer names too; False keeps
                the longest match only (when your names nest without meaning it: a
                village "Haven" and the city "New Haven").
            progress: Draw a progress bar on a terminal (default: the memory's
                ``progress`` option).
            title_entities: Make each distinct title an entity first (type ``concept``,
                id ``title:<title>``, alias: the title without a trailing parenthetical)
                and every titled document *about* its title's entity
                (:func:`graphmem.retrieval.ingest.title_entities`): for a corpus of
                titled passages, so that passages naming a title lead to its page (what
                ``graphmem eval`` loads MuSiQue and HotpotQA with).

        Raises:
            InvalidInput: A document is malformed or names unknown entity ids; nothing of
                that batch is written.
        """
        return self._retrieval().indexer.add_documents(
            documents,
            chunk_tokens=chunk_tokens,
            overlap=overlap,
            extractor=extractor,
            embed=embed,
            batch_size=batch_size,
            nested_mentions=nested_mentions,
            progress=progress,
            title_entities=title_entities,
        )

    def index_entities(self, entity_ids: Sequence[str] | None = None) -> int:
        """Embed entities (name, aliases, description) into the entity vector index.

        Args:
            entity_ids: Which entities; default: every entity of the tenant.

        Returns:
            How many were embedded.
        """
        return self._retrieval().indexer.index_entities(entity_ids)

    def index_turns(
        self,
        session_id: str | None = None,
        *,
        embed: bool = True,
        nested_mentions: bool = True,
        progress: bool | None = None,
    ) -> int:
        """Link conversation turns to the entities they name, and embed them.

        Turns appended through this memory are indexed by themselves (``auto_index``);
        this (re)indexes what is stored, e.g. after an import or with a new embedder.

        Args:
            session_id: One session's turns (all branches); default: every session.
            embed: Also embed the turns (needs the embedder).
            nested_mentions: Link names found inside longer names too, as
                :meth:`add_documents` does.
            progress: Draw a progress bar on a terminal (default: the memory's
                ``progress`` option).

        Returns:
            How many turns were indexed.
        """
        return self._retrieval().indexer.index_turns(
            session_id, embed=embed, nested_mentions=nested_mentions, progress=progress
        )

    @property
    def pending_index(self) -> int:
        """How many appended turns wait to be indexed (see :meth:`flush_index`)."""
        if self._retrieval_obj is None:
            return 0
        return self._retrieval_obj.indexer.pending

    def flush_index(self, *, embed: bool = True) -> int:
        """Index the turns appended through this memory since the last flush, in batches.

        Each waiting turn is linked to the entities it names (when any are known) and
        embedded, 512 turns per embedding call, so a long conversation is embedded at the
        model's batch speed. :meth:`retrieve` calls this first, so what was said is found
        right away; call it yourself to pay the cost at a moment of your choosing. Turns
        deleted since they were appended are left out.

        Args:
            embed: Embed them too; False links only (they stay waiting for embedding).

        Returns:
            How many turns were indexed.
        """
        return self._retrieval().indexer.flush(embed=embed)

    def retrieve(
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
        """What the memory knows that helps answer ``query``: hybrid GraphRAG retrieval.

        Vector and full-text search over turns, chunks and entities, fused by reciprocal
        rank; the top hits (and the entities the query names) seed a walk of ``hops``
        hops through the entity graph, inside ``graph_scope`` when given; turns and chunks
        mentioning what was reached, the entities and the facts among them are reranked
        by text relevance, graph proximity, confidence and recency. The retriever that
        runs is chosen by the settings (:mod:`graphmem.retrieval.service`); the default
        presets make three store calls (docs/retrieval.md).

        Args:
            query: The question or topic, in plain words (operators and quotes are taken
                literally), at most :data:`graphmem.retrieval.MAX_QUERY_LENGTH` (10,000)
                characters.
            k: How many results.
            hops: Depth of the graph walk (0: the seeds only).
            graph_scope: Entity ids: only these entities, facts among them, and turns and
                chunks mentioning them. Every id must exist.
            kinds: Result kinds wanted among ``chunk``, ``turn``, ``entity``,
                ``relationship`` (default: all).
            rel_types: Relationship types the walk may follow (default: any).
            preset: A name of :data:`graphmem.retrieval.PRESETS` (default ``hybrid``;
                ``conversation`` when ``kinds`` is turns alone, ``passages`` (one round
                of the bridge) when it is chunks alone) or
                :class:`graphmem.retrieval.FusionSettings`.
            **settings: Overrides of single fusion settings (``graph_weight=1.0``, ...).

        Returns:
            Up to ``k`` results, best first, each with its provenance.

        Raises:
            InvalidInput: Empty or too long a query, ``k`` <= 0, negative ``hops``,
                unknown kinds or presets, or an embedder whose dimension differs from the
                stored vectors.
            NotFound: ``graph_scope`` names entities that do not exist.
        """
        return self._retrieval().retrieve(
            query,
            k,
            hops,
            graph_scope,
            kinds=kinds,
            rel_types=rel_types,
            preset=preset,
            overrides=settings,
        )

    def query_with_context(
        self,
        text: str,
        graph_scope: Sequence[str] | None = None,
        *,
        k: int = 10,
        hops: int = 1,
        kinds: Sequence[str] | None = None,
    ) -> list[ContextResult]:
        """Full-text retrieval (no embedder needed), with the graph walk, inside a scope.

        Like :meth:`retrieve` with the vector search left out. Raises as it does.
        """
        return self._retrieval().query_with_context(text, graph_scope, k=k, hops=hops, kinds=kinds)

    def query_with_embedding(
        self,
        vector: ArrayLike,
        k: int = 10,
        graph_scope: Sequence[str] | None = None,
        *,
        hops: int = 1,
        kinds: Sequence[str] | None = None,
    ) -> list[ContextResult]:
        """Vector retrieval with a query embedding you computed, with the graph walk.

        Like :meth:`retrieve` with the full-text search and query entity linking left
        out. Raises ``InvalidInput`` when the vector's dimension differs from the index's.
        """
        return self._retrieval().query_with_embedding(
            vector, k, graph_scope, hops=hops, kinds=kinds
        )

    @staticmethod
    def render_context(results: Sequence[ContextResult], max_tokens: int | None = None) -> str:
        """Render retrieved results as prompt text within ``max_tokens`` (best kept first)."""
        from graphmem.retrieval import render_context

        if isinstance(results, str | bytes | Mapping | ContextResult) or not isinstance(
            results, Iterable
        ):
            raise InvalidInput("render_context takes a list of ContextResult (from retrieve)")
        results = list(results)
        for index, result in enumerate(results):
            if not isinstance(result, ContextResult):
                raise InvalidInput(
                    f"results[{index}] is a {type(result).__name__}, not a ContextResult"
                )
        return render_context(results, check_limit(max_tokens, "max_tokens"))
