"""Small made-up worlds for the graph-question tests: people, things and facts in memory://."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

import graphmem
from graphmem import Entity, Memory, Relationship
from graphmem.retrieval import Embedder, HashingEmbedder


def open_world(
    tenant: str,
    people: Mapping[str, str],
    things: Mapping[str, tuple[str, str]],
    facts: Sequence[tuple[str, str, str]],
    descriptions: Mapping[str, str] | None = None,
    embedder: Embedder | None = None,
) -> Memory:
    """A memory:// store holding ``people`` (id: name, of type ``person``), ``things`` (id:
    (type, name)) and ``facts`` (source, type, target), with the relationship types of
    ``descriptions`` described; ``embedder``, else the hashing embedder (no model)."""
    mem = graphmem.open("memory://", tenant=tenant, embedder=embedder or HashingEmbedder(64))
    mem.upsert_entities(
        [Entity(id=i, type="person", name=n) for i, n in people.items()]
        + [Entity(id=i, type=t, name=n) for i, (t, n) in things.items()]
    )
    mem.upsert_relationships([Relationship(source_id=s, target_id=t, type=r) for s, r, t in facts])
    for name, text in (descriptions or {}).items():
        mem.describe_relationship_type(name, text)
    return mem


def typed_world(
    tenant: str, entities: Sequence[tuple[str, str, str]], facts: Sequence[tuple[str, str, str]]
) -> Memory:
    """A memory:// store holding ``entities`` (id, type, name) and ``facts`` (source, type,
    target), with the memory's default embedder and no descriptions (names only)."""
    mem = graphmem.open("memory://", tenant=tenant)
    mem.upsert_entities([Entity(id=i, type=t, name=n) for i, t, n in entities])
    mem.upsert_relationships([Relationship(source_id=s, target_id=o, type=r) for s, r, o in facts])
    return mem


def top(mem: Memory, question: str) -> list[str]:
    """The answers of the walked path that reached answers first."""
    answers = mem.ask(question, semantic=False)
    return sorted(a.entity.id for a in answers if a.path == answers[0].path) if answers else []


class SynonymEmbedder:
    """Words of one group embed to one direction, every other word to one more: a stand-in
    for a sentence model that says which words mean the same (``SynonymEmbedder(("agent",
    "loaf"))``)."""

    def __init__(self, *groups: Sequence[str]) -> None:
        self.dimension = len(groups) + 1
        self._group = {w: i for i, group in enumerate(groups) for w in group}

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            out[row, self._group.get(text.lower(), self.dimension - 1)] = 1.0
        return out
