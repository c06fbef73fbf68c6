"""One entity's neighbourhood under both clocks: the facts around it and the entities they reach.

The inspector draws a world one neighbourhood at a time (never the whole graph): a click
on an entity reads its facts, in both directions, as they held at world time ``as_of``
and as the memory held them at ``recorded_as_of``, each with its provenance and validity,
and the entities at their other ends. Two store calls, whatever the size of the world.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graphmem.core.errors import NotFound
from graphmem.core.models import Direction, RelationshipFilter, Subgraph
from graphmem.core.store import GraphStore

__all__ = ["neighborhood"]


def neighborhood(
    store: GraphStore,
    tenant: str,
    entity_id: str,
    *,
    rel_types: Sequence[str] | None = None,
    node_types: Sequence[str] | None = None,
    direction: Direction = "both",
    as_of: datetime | None = None,
    recorded_as_of: datetime | None = None,
    include_invalid: bool = False,
    limit: int | None = None,
) -> Subgraph:
    """The entity, its facts (``limit`` at most) and the entities at their other ends.

    Args:
        store: The store to read.
        tenant: Whose world.
        entity_id: The entity at the centre.
        rel_types: Only facts of these relationship types.
        node_types: Only neighbours of these entity types (the centre is always kept).
        direction: ``out``, ``in`` or ``both`` (default).
        as_of: World time: facts that held then, invalidated since or not.
        recorded_as_of: Memory time: facts as the store held them then.
        include_invalid: Every stored fact, whatever its validity (a timeline's stops).
        limit: At most this many facts, before the ``node_types`` filter.

    Raises:
        NotFound: No such entity.
    """
    flt = RelationshipFilter(
        direction=direction,
        types=tuple(rel_types) if rel_types is not None else None,
        as_of=as_of,
        recorded_as_of=recorded_as_of,
        include_invalid=include_invalid,
        limit=limit,
    )
    rels = store.get_relationships(tenant, entity_id, flt)
    ids = dict.fromkeys([entity_id, *(i for r in rels for i in (r.source_id, r.target_id))])
    found = {e.id: e for e in store.get_entities(tenant, list(ids))}
    centre = found.get(entity_id)
    if centre is None:
        raise NotFound(f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id)
    wanted = set(node_types) if node_types is not None else None
    kept = {i: e for i, e in found.items() if i == entity_id or wanted is None or e.type in wanted}
    return Subgraph(
        entities=tuple(kept[i] for i in ids if i in kept),
        relationships=tuple(r for r in rels if r.source_id in kept and r.target_id in kept),
    )
