"""What retrieval returns: one piece of context with where it came from."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from graphmem.core.models.base import (
    Attributes,
    FrozenDict,
    Timestamp,
    _Model,
)
from graphmem.core.models.graph import Provenance


class ContextResult(_Model):
    """One piece of retrieved context, with where it came from.

    Attributes:
        kind: ``chunk``, ``turn``, ``entity`` or ``relationship``.
        source_id: The id of the chunk, turn or entity; for a relationship
            ``"source_id|type|target_id"``.
        content: The text to show a model; for a relationship its sentence
            ("Rosalind Hale works at St. Brigid's Infirmary").
        score: Higher is more relevant (comparable within one result list only).
        anchor_entity_id: The entity this result is tied to: the entity itself, an entity
            the chunk or turn mentions, or the relationship's source; None when none.
        hops: Graph distance from the nearest seed entity (0 for a seed; None when the
            result was not reached through the graph).
        provenance: Where the fact came from: the relationship's provenance, or
            ``Provenance(source="stated", evidence=(id,))`` for chunks and turns.
        created_at: When the item was stored (turns, chunks, relationships).
        signals: The parts of the score (``vector``, ``fulltext``, ``graph``, ...), for
            inspection.
        turn_id: For a turn, the caller's own id of it (``Turn.turn_id``, given when the
            turn was written); ``source_id`` is graphmem's. None for other kinds, or a
            turn written without one.
        valid_at: For a fact, when it began to hold in the world (None: from when it
            was stored, ``created_at``).
        invalid_at: For a fact, when it stopped holding (None: it still holds).
    """

    kind: Literal["chunk", "turn", "entity", "relationship"]
    source_id: str
    content: str
    score: float = Field(allow_inf_nan=False)
    anchor_entity_id: str | None = None
    hops: int | None = None
    provenance: Provenance | None = None
    created_at: Timestamp | None = None
    signals: Attributes = Field(default_factory=FrozenDict)
    turn_id: str | None = None
    valid_at: Timestamp | None = None
    invalid_at: Timestamp | None = None
