"""Small evaluation worlds: entities, facts and one-hop questions worded freely.

Each world is a text file (``<name>.world``) of three sections:

- ``entities``: ``id | type | name`` (a name may carry ``; alias, alias``);
- ``facts``: ``source_id type target_id``;
- ``questions``: ``question | source_id type target_id [| source_id type target_id ...]``,
  every fact listed answering it (an inverse question has several).

:data:`DESIGN` worlds were looked at while the fact ranking of ``Memory.retrieve`` was
built; :data:`HELD_OUT` worlds were written at the same time but not run until the
ranking was fixed, and their figures are reported apart (docs/retrieval.md).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from graphmem import Entity, Relationship

__all__ = ["DESIGN", "HELD_OUT", "World", "bm25_ranking", "load_world"]

DESIGN = ("hospital", "guild", "company")
HELD_OUT = ("spaceship", "football")

_HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class World:
    """One world: what to store, and the questions with the facts answering them."""

    name: str
    entities: tuple[Entity, ...]
    relationships: tuple[Relationship, ...]
    questions: tuple[tuple[str, frozenset[str]], ...]


def _key(text: str, line: str) -> str:
    parts = text.split()
    if len(parts) != 3:
        raise ValueError(f"a fact is 'source type target', got {text!r} in {line!r}")
    return "|".join(parts)


def load_world(name: str) -> World:
    """Read ``tests/worlds/<name>.world`` (checked: every fact's ends exist)."""
    section = ""
    entities: list[Entity] = []
    facts: list[str] = []
    questions: list[tuple[str, frozenset[str]]] = []
    for raw in (_HERE / f"{name}.world").read_text(encoding="utf-8").splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.endswith(":") and line[:-1] in ("entities", "facts", "questions"):
            section = line[:-1]
        elif section == "entities":
            entity_id, kind, names = (part.strip() for part in line.split("|"))
            shown, _sep, alias_text = names.partition(";")
            aliases = [a.strip() for a in alias_text.split(",") if a.strip()]
            attributes = {"aliases": aliases} if aliases else {}
            entities.append(
                Entity(id=entity_id, type=kind, name=shown.strip(), attributes=attributes)
            )
        elif section == "facts":
            facts.append(_key(line, line))
        elif section == "questions":
            text, *answers = (part.strip() for part in line.split("|"))
            questions.append((text, frozenset(_key(a, line) for a in answers)))
        else:
            raise ValueError(f"{name}.world: a line outside a section: {line!r}")
    ids = {e.id for e in entities}
    relationships = []
    for fact in dict.fromkeys(facts):
        source, type_, target = fact.split("|")
        if source not in ids or target not in ids:
            raise ValueError(f"{name}.world: fact {fact} names an unknown entity")
        relationships.append(Relationship(source_id=source, target_id=target, type=type_))
    known = set(facts)
    for text, answers in questions:
        if not answers or not answers <= known:
            raise ValueError(f"{name}.world: {text!r} is answered by unknown facts {answers}")
    return World(name, tuple(entities), tuple(relationships), tuple(questions))


def bm25_ranking(world: World, question: str) -> list[str]:
    """The facts ranked by BM25 (k1 1.2, b 0.75) of their sentences against the question."""
    from graphmem.tools.evaluation.worlds import bm25_facts

    return bm25_facts(
        {
            "entities": [{"id": e.id, "name": e.name} for e in world.entities],
            "facts": [(r.source_id, r.type, r.target_id) for r in world.relationships],
        },
        question,
    )


def evaluate(
    name: str, *, embedder: str = "default", show_misses: bool = False
) -> dict[str, float]:
    """Hit@1/3/5 of the answering fact in a default ``retrieve``, and of BM25 over facts."""
    import graphmem
    from graphmem.retrieval import HashingEmbedder

    world = load_world(name)
    chosen = HashingEmbedder() if embedder == "hashing" else None
    hits = {"hit@1": 0, "hit@3": 0, "hit@5": 0, "bm25@1": 0, "bm25@3": 0, "bm25@5": 0}
    with graphmem.open("memory://", tenant=name, embedder=chosen) as mem:
        mem.upsert_entities(list(world.entities))
        mem.upsert_relationships(list(world.relationships))
        mem.flush_index()
        for question, answers in world.questions:
            results = mem.retrieve(question, k=5)
            ranked = [r.source_id if r.kind == "relationship" else "" for r in results]
            baseline = bm25_ranking(world, question)
            for k in (1, 3, 5):
                hits[f"hit@{k}"] += bool(answers & set(ranked[:k]))
                hits[f"bm25@{k}"] += bool(answers & set(baseline[:k]))
            if show_misses and not answers & set(ranked[:3]):
                print(f"  miss: {question} -> {[r.source_id for r in results[:3]]}")
    return {key: value / len(world.questions) for key, value in hits.items()}
