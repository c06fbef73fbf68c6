"""GraphRAG retrieval: embedders, ingest, fusion, rendering, graph question answering.

Graph questions are answered by :class:`GraphQA`, behind :meth:`graphmem.Memory.ask`.
Imports numpy, never torch: the sentence-transformers model is loaded on first use of
:class:`SentenceTransformerEmbedder`. Users reach all of it through
:meth:`graphmem.Memory.retrieve` and friends; this package holds the parts to configure.
"""

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
    GraphAnswer,
    GraphQA,
    GraphQASettings,
    PathStep,
    PlannedPath,
)
from graphmem.retrieval.ingest import (
    EntityLinker,
    Extraction,
    Extractor,
    IngestReport,
    NoExtractor,
    chunk_text,
)
from graphmem.retrieval.names import NameExtractor
from graphmem.retrieval.recall import TURN_SIGNALS, TURN_WEIGHTS, fit_turn_weights
from graphmem.retrieval.render import render_context
from graphmem.retrieval.schema import GraphSchema
from graphmem.retrieval.timeexpr import read_time

__all__ = [
    "PRESETS",
    "TURN_SIGNALS",
    "TURN_WEIGHTS",
    "Embedder",
    "EntityLinker",
    "Extraction",
    "Extractor",
    "FusionSettings",
    "GraphAnswer",
    "GraphQA",
    "GraphQASettings",
    "GraphSchema",
    "HashingEmbedder",
    "IngestReport",
    "NameExtractor",
    "NoExtractor",
    "PathStep",
    "PlannedPath",
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
