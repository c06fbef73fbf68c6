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
)
"""The signals of a candidate turn, in the order of the columns of a
:class:`~graphmem.retrieval.recall.TurnPool` matrix."""

TEXT_SIDE = frozenset({"text", "text_reciprocal", "context_text", "session_text"})
VECTOR_SIDE = frozenset({"vector", "vector_reciprocal", "context_vector"})

TURN_WEIGHTS: Mapping[str, float] = {
    "text": 1.92,
    "vector": 0.71,
    "text_reciprocal": 0.39,
    "vector_reciprocal": 1.48,
    "context_text": 0.5,
    "context_vector": 0.76,
    "session_text": 1.91,
    "speaker_named": 1.41,
    "other_named": -1.41,
    "names_named": -1.23,
    "words": 1.1,
    "short": -0.32,
    "asks": -1.0,
    "when": 1.81,
    "first_person": 1.7,
}
"""The fitted weights (see the module docstring and docs/retrieval.md)."""
