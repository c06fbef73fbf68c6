"""One memory's retrieval: its embedder, linking, indexer, retrievers and graph QA.

:class:`Retrieval` is what :class:`graphmem.Memory` calls for everything retrieval does,
one call per method (``retrieve``, ``query_with_context``, ``query_with_embedding``,
``ask`` and the indexing methods). It owns the memory's embedder (made on first use),
the tenant's :class:`~graphmem.retrieval.linking.Linking`, the
:class:`~graphmem.retrieval.indexer.Indexer`, and one retriever per settings used:

- :class:`~graphmem.retrieval.BridgeRetriever` for ``method="bridge"`` (``multihop``);
- :class:`~graphmem.retrieval.ConversationRetriever` when the graph has no weight
  (``conversation``, ``text_only``);
- :class:`~graphmem.retrieval.HybridRetriever` otherwise (``hybrid``, ``semantic``,
  ``keyword``, ``graph``);

and one :class:`~graphmem.retrieval.GraphQA` per way of answering.

They share one :class:`~graphmem.retrieval.sayings.SentenceVectors`: the phrases and
sayings of the memory's fact shapes, which the fact match and the phrase reader compare
questions with. :meth:`Retrieval.index_facts` embeds those of the facts written, so a
memory's first question embeds no more than the question (docs/retrieval.md, "Speed").
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.core.errors import BackendUnavailable, InvalidInput
from graphmem.retrieval.indexer import Indexer
from graphmem.retrieval.linking import Linking

if TYPE_CHECKING:
    from graphmem.core.models import ContextResult, Relationship
    from graphmem.core.store import GraphStore
    from graphmem.retrieval.embedders import Embedder
    from graphmem.retrieval.fusion import FusionSettings
    from graphmem.retrieval.graphqa import GraphQA, GraphQASettings
    from graphmem.retrieval.sayings import SentenceVectors
    from graphmem.retrieval.steps import Retriever

__all__ = ["Retrieval"]

_KEPT_RETRIEVERS = 32  # retrievers kept per memory, one per settings (oldest dropped)


class Retrieval:
    """Everything retrieval does for one memory (see the module docstring).

    Args:
        store: The store.
        tenant: Whose memory.
        embedder: The embedder; None: the default one, made on first use.
        index_batch: See :class:`~graphmem.retrieval.indexer.Indexer`.
        progress: Draw progress bars by default.
    """

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        embedder: Embedder | None = None,
        index_batch: int | None = None,
        progress: bool = False,
    ) -> None:
        self._store = store
        self._tenant = tenant
        self._embedder = embedder
        self._lock = threading.Lock()
        self.linking = Linking(store, tenant)
        self.indexer = Indexer(
            store,
            tenant,
            embedder=lambda: self.embedder,
            linking=self.linking,
            index_batch=index_batch,
            progress=progress,
        )
        self._retrievers: dict[tuple[type[Retriever], FusionSettings], Retriever] = {}
        self._answerers: dict[tuple[bool, GraphQASettings | None], GraphQA] = {}
        self._sentences: SentenceVectors | None = None

    @property
    def embedder(self) -> Embedder:
        """The embedder (the default one is made on first use).

        Raises:
            BackendUnavailable: None was given and the ``embeddings`` extra is missing.
        """
        if self._embedder is None:
            with self._lock:
                if self._embedder is None:
                    from graphmem.retrieval.embedders import default_embedder

                    self._embedder = default_embedder()
        return self._embedder

    @property
    def sentences(self) -> SentenceVectors:
        """The vectors of the fact shapes' phrases and sayings, shared by every reader."""
        if self._sentences is None:
            from graphmem.retrieval.sayings import KEPT, SentenceVectors
            from graphmem.retrieval.steps import embed_texts

            made = SentenceVectors(lambda texts: embed_texts(self.embedder, texts), KEPT)
            with self._lock:
                if self._sentences is None:
                    self._sentences = made
        return self._sentences

    def _ready_embedder(self) -> Embedder | None:
        """The embedder, when it embeds without loading anything first; else None.

        The one given, or the default one once its model is loaded in the process (by an
        earlier retrieve, a server's warm-up): a write never loads a model, nor imports
        numpy for nothing.
        """
        embedder = self._embedder
        if embedder is None:
            embedders = sys.modules.get("graphmem.retrieval.embedders")
            if embedders is None or not embedders.SentenceTransformerEmbedder().loaded:
                return None
            embedder = self.embedder
        return embedder if getattr(embedder, "loaded", True) else None

    def index_facts(self, relationships: Sequence[Relationship]) -> int:
        """Embed the phrases and sayings of the written facts' shapes not kept yet.

        In one call, so that no retrieve (nor ``ask``) embeds them: a memory's first
        questions cost what later ones do. Only when an embedder is ready
        (:meth:`_ready_embedder`) and a type written is new to the memory: a write of known
        types costs nothing (a new pair of kinds of a known type is embedded by the first
        question that meets it, as before). One store read (the facts' ends, for their
        kinds) when it embeds.

        Returns:
            How many texts were embedded.
        """
        if not relationships or self._ready_embedder() is None:
            return 0
        from graphmem.core.words import type_phrase
        from graphmem.retrieval.sayings import shape_texts

        sentences = self.sentences
        if all(type_phrase(t) in sentences for t in {rel.type for rel in relationships}):
            return 0  # no type new to the memory: no store read on the write path

        ends = list({end for rel in relationships for end in (rel.source_id, rel.target_id)})
        kinds = {e.id: e.type for e in self._store.get_entities(self._tenant, ends)}
        get = kinds.get
        shapes = {(get(rel.source_id), rel.type, get(rel.target_id)) for rel in relationships}
        return sentences.keep(
            text
            for source, rel_type, target in sorted(shapes, key=str)
            if source is not None and target is not None
            for text in shape_texts(source, rel_type, target)
        )

    def retriever(self, settings: FusionSettings) -> Retriever:
        """The retriever for ``settings`` (one per settings, kept)."""
        from graphmem.retrieval.bridge import BridgeRetriever
        from graphmem.retrieval.pipeline import ConversationRetriever, HybridRetriever

        kind: type[Retriever]
        if settings.method == "bridge":
            kind = BridgeRetriever
        elif settings.graph_weight > 0:
            kind = HybridRetriever
        else:
            kind = ConversationRetriever
        try:
            key: tuple[type[Retriever], FusionSettings] | None = (kind, settings)
            found = self._retrievers.get(key)  # type: ignore[arg-type]
        except TypeError:  # settings holding a dict (turn_weights) cannot be a key
            key, found = None, None
        if found is None:
            # Only a retriever that embeds needs the embedder (made here if need be).
            embeds = settings.vector_weight > 0
            found = kind(
                self._store,
                self._tenant,
                embedder=self.embedder if embeds else self._embedder,
                linking=self.linking,
                settings=settings,
                sentences=self.sentences if embeds else None,
            )
            if key is not None:
                if len(self._retrievers) >= _KEPT_RETRIEVERS:
                    self._retrievers.pop(next(iter(self._retrievers)))
                self._retrievers[key] = found
        return found

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
        overrides: Mapping[str, Any] | None = None,
    ) -> list[ContextResult]:
        """:meth:`graphmem.Memory.retrieve`: settings chosen, queue indexed, retrieved."""
        from graphmem.retrieval.fusion import choose_preset, resolve_settings
        from graphmem.retrieval.steps import check_query, check_request

        text = check_query(query)
        k, hops, wanted = check_request(k, hops, kinds)
        chosen = resolve_settings(
            preset if preset is not None else choose_preset(wanted), overrides
        )
        retriever = self.retriever(chosen)
        self.indexer.flush_before_search(embed=chosen.vector_weight > 0)
        return retriever.retrieve(text, k, hops, graph_scope, kinds=wanted, rel_types=rel_types)

    def query_with_context(
        self,
        text: str,
        graph_scope: Sequence[str] | None = None,
        *,
        k: int = 10,
        hops: int = 1,
        kinds: Sequence[str] | None = None,
    ) -> list[ContextResult]:
        """:meth:`graphmem.Memory.query_with_context`: full text only, no embedder."""
        from graphmem.retrieval.fusion import resolve_settings
        from graphmem.retrieval.steps import check_query, check_request

        query = check_query(text)
        k, hops, wanted = check_request(k, hops, kinds)
        retriever = self.retriever(resolve_settings("hybrid", {"vector_weight": 0.0}))
        self.indexer.flush_before_search(embed=False)
        return retriever.retrieve(query, k, hops, graph_scope, kinds=wanted)

    def query_with_embedding(
        self,
        vector: Any,
        k: int = 10,
        graph_scope: Sequence[str] | None = None,
        *,
        hops: int = 1,
        kinds: Sequence[str] | None = None,
    ) -> list[ContextResult]:
        """:meth:`graphmem.Memory.query_with_embedding`: your vector, no text."""
        from graphmem.retrieval.fusion import resolve_settings
        from graphmem.retrieval.steps import check_request

        k, hops, wanted = check_request(k, hops, kinds)
        settings = resolve_settings("hybrid", {"fulltext_weight": 0.0, "link_query": False})
        retriever = self.retriever(settings)
        self.indexer.flush_before_search(embed=True)
        return retriever.retrieve(None, k, hops, graph_scope, kinds=wanted, vector=vector)

    def answerer(self, semantic: bool | None, settings: GraphQASettings | None) -> GraphQA:
        """The :class:`GraphQA` of :meth:`graphmem.Memory.ask` (one per way of answering)."""
        from graphmem.retrieval.graphqa import GraphQA, GraphQASettings

        if semantic is not None and not isinstance(semantic, bool):
            raise InvalidInput(f"semantic must be True, False or None, got {semantic!r}")
        if settings is not None and not isinstance(settings, GraphQASettings):
            raise InvalidInput("settings must be a GraphQASettings (graphmem.retrieval)")
        embed = None
        if semantic is not False:
            try:
                embed = self.embedder.embed
            except BackendUnavailable:
                if semantic:
                    raise
        key = (embed is not None, settings)
        answerer = self._answerers.get(key)
        if answerer is None:
            sentences = self.sentences if embed is not None else None
            answerer = GraphQA(
                self._store, self._tenant, self.linking, embed, settings, sentences=sentences
            )
            self._answerers[key] = answerer
        return answerer
