"""Walking graph questions: a planned relation path followed through the store.

Part of :mod:`graphmem.retrieval.graphqa`: one :meth:`~graphmem.GraphStore.expand` call
per step for the whole frontier (no loop over entities), never back through the topic.
"""

from __future__ import annotations

from graphmem.core.models import Entity, Relationship
from graphmem.core.store import GraphStore
from graphmem.retrieval.graphqa.vocabulary import PlannedPath

__all__ = ["Reached", "walk"]

Reached = dict[str, tuple[Entity, int, tuple[Relationship, ...]]]
"""Each entity reached at a path's end: the entity, how many chains reach it, one chain."""


def walk(store: GraphStore, tenant: str, path: PlannedPath, max_frontier: int) -> Reached:
    """Walk ``path`` from its topic: one ``expand`` per step for the whole frontier.

    Returns each entity reached at the end with how many chains reach it and one chain.
    """
    topic = set(path.topic)
    frontier: dict[str, tuple[int, tuple[Relationship, ...]]] = {e: (1, ()) for e in path.topic}
    entities: dict[str, Entity] = {}
    for step in path.steps:
        sub = store.expand(
            tenant,
            sorted(frontier),
            depth=1,
            rel_types=[step.type],
            direction=step.direction,
        )
        entities = {e.id: e for e in sub.entities}
        reached: dict[str, tuple[int, tuple[Relationship, ...]]] = {}
        for rel in sub.relationships:
            ends = []
            if step.direction != "in" and rel.source_id in frontier:
                ends.append((rel.source_id, rel.target_id))
            if step.direction != "out" and rel.target_id in frontier:
                ends.append((rel.target_id, rel.source_id))
            for here, there in ends:
                if there in topic:
                    continue
                support, chain = frontier[here]
                if there in reached:
                    reached[there] = (reached[there][0] + support, reached[there][1])
                else:
                    reached[there] = (support, (*chain, rel))
        if len(reached) > max_frontier:
            kept = sorted(reached.items(), key=lambda kv: (-kv[1][0], kv[0]))
            reached = dict(kept[:max_frontier])
        frontier = reached
        if not frontier:
            return {}
    return {
        node: (entities[node], support, chain)
        for node, (support, chain) in frontier.items()
        if node in entities
    }
