"""GraphRAG retrieval: retrievers, embedders, indexing, fusion, rendering, graph questions.

Retrievers own their embedder, entity linking and settings (:class:`HybridRetriever`,
:class:`ConversationRetriever`, :class:`BridgeRetriever`, and :class:`GraphQA` for graph
questions), made of the shared steps of :mod:`graphmem.retrieval.steps`. Users reach all
of it through :meth:`graphmem.Memory.retrieve` and friends (which keep one of each per
memory, :mod:`graphmem.retrieval.service`); this package holds the parts to configure
and to use on their own.

Its names are imported on first use: ``import graphmem.retrieval`` (which a memory does
when its first conversation queues turns for indexing) costs nothing, and numpy is
imported with the first name that needs it. torch never is, until the
sentence-transformers model is loaded by :class:`SentenceTransformerEmbedder`.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from graphmem.retrieval.bridge import BridgeRetriever
    from graphmem.retrieval.embedders import (
        Embedder,
        HashingEmbedder,
        SentenceTransformerEmbedder,
        default_embedder,
    )
    from graphmem.retrieval.fusion import (
        PRESETS,
        FusionSettings,
        choose_preset,
        reciprocal_rank_fusion,
        resolve_settings,
    )
    from graphmem.retrieval.graphqa import (
        Ambiguity,
        GraphAnswer,
        GraphAnswers,
        GraphQA,
        GraphQASettings,
        PathStep,
        PlannedPath,
    )
    from graphmem.retrieval.indexer import Indexer
    from graphmem.retrieval.ingest import (
        Extraction,
        Extractor,
        IngestReport,
        NoExtractor,
        chunk_text,
    )
    from graphmem.retrieval.linking import EntityLinker, Linking, Mention
    from graphmem.retrieval.names import NameExtractor
    from graphmem.retrieval.pipeline import ConversationRetriever, HybridRetriever
    from graphmem.retrieval.recall import TURN_SIGNALS, TURN_WEIGHTS, fit_turn_weights
    from graphmem.retrieval.render import render_context
    from graphmem.retrieval.schema import GraphSchema
    from graphmem.retrieval.steps import MAX_QUERY_LENGTH, Retriever
    from graphmem.retrieval.timeexpr import read_time

_HOMES = {
    "BridgeRetriever": "bridge",
    "ConversationRetriever": "pipeline",
    "Embedder": "embedders",
    "EntityLinker": "linking",
    "Mention": "linking",
    "Extraction": "ingest",
    "Extractor": "ingest",
    "FusionSettings": "fusion",
    "Ambiguity": "graphqa",
    "GraphAnswer": "graphqa",
    "GraphAnswers": "graphqa",
    "GraphQA": "graphqa",
    "GraphQASettings": "graphqa",
    "GraphSchema": "schema",
    "HashingEmbedder": "embedders",
    "HybridRetriever": "pipeline",
    "Indexer": "indexer",
    "IngestReport": "ingest",
    "Linking": "linking",
    "MAX_QUERY_LENGTH": "steps",
    "NameExtractor": "names",
    "NoExtractor": "ingest",
    "PRESETS": "fusion",
    "PathStep": "graphqa",
    "PlannedPath": "graphqa",
    "Retriever": "steps",
    "SentenceTransformerEmbedder": "embedders",
    "TURN_SIGNALS": "recall",
    "TURN_WEIGHTS": "recall",
    "choose_preset": "fusion",
    "chunk_text": "ingest",
    "default_embedder": "embedders",
    "fit_turn_weights": "recall",
    "read_time": "timeexpr",
    "reciprocal_rank_fusion": "fusion",
    "render_context": "render",
    "resolve_settings": "fusion",
}

__all__ = [
    "MAX_QUERY_LENGTH",
    "PRESETS",
    "TURN_SIGNALS",
    "TURN_WEIGHTS",
    "Ambiguity",
    "BridgeRetriever",
    "ConversationRetriever",
    "Embedder",
    "EntityLinker",
    "Extraction",
    "Extractor",
    "FusionSettings",
    "GraphAnswer",
    "GraphAnswers",
    "GraphQA",
    "GraphQASettings",
    "GraphSchema",
    "HashingEmbedder",
    "HybridRetriever",
    "Indexer",
    "IngestReport",
    "Linking",
    "Mention",
    "NameExtractor",
    "NoExtractor",
    "PathStep",
    "PlannedPath",
    "Retriever",
    "SentenceTransformerEmbedder",
    "choose_preset",
    "chunk_text",
    "default_embedder",
    "fit_turn_weights",
    "read_time",
    "reciprocal_rank_fusion",
    "render_context",
    "resolve_settings",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(import_module(f"{__name__}.{home}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
