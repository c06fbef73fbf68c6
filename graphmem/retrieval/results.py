"""The results of a retrieve: what the best candidates are, made ``ContextResult`` s."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from graphmem.core.models import (
    Chunk,
    ContextResult,
    Entity,
    Provenance,
    Relationship,
    Turn,
    entity_text,
)
from graphmem.core.words import type_phrase

__all__ = ["Read", "fact_sentence", "materialise"]


def fact_sentence(rel: Relationship, source: Entity, target: Entity) -> str:
    """The sentence a fact is shown as: ``Rosalind Hale works at St. Brigid's Infirmary``."""
    return f"{source.name} {type_phrase(rel.type)} {target.name}"


@dataclass
class Read:
    """What the results are made of, read in one call."""

    chunks: dict[str, Chunk]
    turns: dict[str, Turn]
    entities: dict[str, Entity]
    mentions: dict[str, dict[str, list[str]]]


def materialise(
    top: list[tuple[float, str, str]],
    read: Read,
    rel_by_key: Mapping[str, Relationship],
    best_anchor: Mapping[tuple[str, str], tuple[float, str]],
    distance: Mapping[str, int],
    signals: Mapping[tuple[str, str], dict[str, float]],
) -> list[ContextResult]:
    """The top results as :class:`ContextResult` s; those deleted meanwhile are left out."""

    def anchor_of(kind: str, node: str) -> str | None:
        found = best_anchor.get((kind, node))
        if found is not None and found[1]:
            return found[1]
        return next(iter(read.mentions.get(kind, {}).get(node, [])), None)

    out: list[ContextResult] = []
    for value, kind, node in top:
        signal = dict(signals.get((kind, node), {}))
        if kind == "chunk":
            chunk = read.chunks.get(node)
            if chunk is None:
                continue
            anchor = anchor_of(kind, node)
            title = chunk.attributes.get("title")
            out.append(
                ContextResult(
                    kind="chunk",
                    source_id=node,
                    content=f"{title}: {chunk.text}" if isinstance(title, str) else chunk.text,
                    score=value,
                    anchor_entity_id=anchor,
                    hops=distance.get(anchor) if anchor else None,
                    provenance=Provenance(source="imported", evidence=(node,)),
                    created_at=chunk.created_at,
                    signals=signal,
                )
            )
        elif kind == "turn":
            turn = read.turns.get(node)
            if turn is None:
                continue
            anchor = anchor_of(kind, node)
            out.append(
                ContextResult(
                    kind="turn",
                    source_id=node,
                    content=f"{turn.speaker or turn.role}: {turn.content}",
                    score=value,
                    anchor_entity_id=anchor,
                    hops=distance.get(anchor) if anchor else None,
                    provenance=Provenance(
                        session_id=turn.session_id, source="stated", evidence=(node,)
                    ),
                    created_at=turn.created_at,
                    signals=signal,
                    turn_id=turn.turn_id,
                )
            )
        elif kind == "entity":
            entity = read.entities.get(node)
            if entity is None:
                continue
            out.append(
                ContextResult(
                    kind="entity",
                    source_id=node,
                    content=f"{entity_text(entity)} [{entity.type}]",
                    score=value,
                    anchor_entity_id=node,
                    hops=distance.get(node),
                    created_at=entity.updated_at,
                    signals=signal,
                )
            )
        else:
            rel = rel_by_key[node]
            source, target = read.entities.get(rel.source_id), read.entities.get(rel.target_id)
            if source is None or target is None:
                continue
            out.append(
                ContextResult(
                    kind="relationship",
                    source_id=node,
                    content=fact_sentence(rel, source, target),
                    score=value,
                    anchor_entity_id=rel.source_id,
                    hops=min(
                        distance.get(rel.source_id, 1 << 30), distance.get(rel.target_id, 1 << 30)
                    ),
                    provenance=rel.provenance,
                    created_at=rel.created_at,
                    signals=signal,
                    valid_at=rel.valid_at,
                    invalid_at=rel.invalid_at,
                )
            )
    return out
