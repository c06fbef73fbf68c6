"""The turn model's signal names and fitted weights, apart from the model itself.

:mod:`graphmem.retrieval.fusion` checks ``turn_weights`` against :data:`TURN_SIGNALS`
and :mod:`graphmem.retrieval.recall` (which reads the fusion settings) computes them:
both import these names from here, so neither imports the other back.
"""

from __future__ import annotations

from collections.abc import Mapping

__all__ = ["TEXT_SIDE", "TURN_SIGNALS", "TURN_WEIGHTS", "VECTOR_SIDE"]

TURN_SIGNALS: tuple[str, ...] = (
    "text",
    "vector",
    "text_reciprocal",
    "vector_reciprocal",
    "context_text",
    "context_vector",
    "session_text",
    "speaker_named",
    "other_named",
    "names_named",
    "words",
    "short",
    "asks",
    "when",
    "first_person",
    "coverage",
    "own_vector",
    "context_own_vector",
)
"""The signals of a candidate turn, in the order of the columns of a
:class:`~graphmem.retrieval.recall.TurnPool` matrix."""

TEXT_SIDE = frozenset({"text", "text_reciprocal", "context_text", "session_text", "coverage"})
VECTOR_SIDE = frozenset(
    {"vector", "vector_reciprocal", "context_vector", "own_vector", "context_own_vector"}
)

TURN_WEIGHTS: Mapping[str, float] = {
    "text": 0.53,
    "vector": -0.14,
    "text_reciprocal": 0.06,
    "vector_reciprocal": 0.86,
    "context_text": -0.06,
    "context_vector": -0.11,
    "session_text": 1.38,
    "speaker_named": 1.66,
    "other_named": -1.66,
    "names_named": -0.25,
    "words": 0.68,
    "short": -0.19,
    "asks": -0.79,
    "when": 1.72,
    "first_person": 1.52,
    "coverage": 1.89,
    "own_vector": 2.22,
    "context_own_vector": 1.37,
}
"""The fitted weights (see the module docstring and docs/retrieval.md)."""
