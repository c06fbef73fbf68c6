"""The traversal room of ``NetworkXStore``: neighbours, paths, visible subgraphs, identity.

Each graph question is one walk in process over the relationships current now, bounded
by a depth and a node limit.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime

import networkx as nx

from graphmem.backends.networkx.base import _check_types, _operation
from graphmem.backends.networkx.graph import (
    _DIRECTIONS,
    _REL_KEY,
    GraphRoom,
    _is_current,
)
from graphmem.core.checks import (
    check_depth,
    check_limit,
    check_positive,
)
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import (
    Direction,
    Entity,
    NPCIdentity,
    Relationship,
    Subgraph,
    construct_trusted,
    utcnow,
)
from graphmem.core.store import as_utc


class TraversalRoom(GraphRoom):
    """Walks over the current relationships: neighbours, a path, a subgraph, an NPC snapshot."""

    def _steps(
        self,
        graph: nx.MultiDiGraph,
        direction: str,
        types: frozenset[str] | None,
        now: datetime,
    ) -> Callable[[str], Iterator[str]]:
        """A function giving the nodes one current, type-allowed step away from a node."""
        adjacencies = []
        if direction in ("out", "both"):
            adjacencies.append(graph._succ)
        if direction in ("in", "both"):
            adjacencies.append(graph._pred)

        def step(node: str) -> Iterator[str]:
            for adjacency in adjacencies:
                for other, keydict in adjacency[node].items():
                    for type_, edge in keydict.items():
                        if (types is None or type_ in types) and _is_current(edge["r"], now):
                            yield other
                            break

        return step

    @_operation
    def neighbors(
        self,
        tenant: str,
        entity_id: str,
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        node_types: Sequence[str] | None = None,
        max_nodes: int | None = None,
        direction: Direction = "both",
    ) -> list[Entity]:
        """Breadth-first neighbours up to ``depth`` hops, start excluded, by hop then id."""
        check_depth(depth)
        check_limit(max_nodes, "max_nodes")
        if direction not in _DIRECTIONS:
            raise InvalidInput(f"direction must be one of {_DIRECTIONS}, got {direction!r}")
        types = _check_types(rel_types, "relationship type")
        kinds = _check_types(node_types, "entity type")
        self._entity(tenant, entity_id)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        step = self._steps(graph, direction, types, utcnow())
        seen = {entity_id}
        frontier = [entity_id]
        found: list[Entity] = []
        for _hop in range(depth):
            reached: list[str] = []
            for node in frontier:
                for other in step(node):
                    if other not in seen:
                        seen.add(other)
                        reached.append(other)
            reached.sort()
            for node in reached:
                entity: Entity = nodes[node]["e"]
                if kinds is None or entity.type in kinds:
                    found.append(entity)
                    if max_nodes is not None and len(found) >= max_nodes:
                        return found
            if not reached:
                break
            frontier = reached
        return found

    @_operation
    def find_path(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """Shortest directed path over current facts, both ends included; [] when none."""
        check_positive(max_depth, "max_depth")
        types = _check_types(rel_types, "relationship type")
        self._entity(tenant, source_id)
        self._entity(tenant, target_id)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        if source_id == target_id:
            return [nodes[source_id]["e"]]
        step = self._steps(graph, "out", types, utcnow())
        parents: dict[str, str] = {source_id: source_id}
        frontier = [source_id]
        for _hop in range(max_depth):
            reached: list[str] = []
            for node in frontier:
                for other in sorted(step(node)):
                    if other in parents:
                        continue
                    parents[other] = node
                    if other == target_id:
                        path = [other]
                        while path[-1] != source_id:
                            path.append(parents[path[-1]])
                        return [nodes[n]["e"] for n in reversed(path)]
                    reached.append(other)
            if not reached:
                break
            frontier = reached
        return []

    @_operation
    def visible_subgraph(self, tenant: str, entity_id: str, *, depth: int = 1) -> Subgraph:
        """The entity, everything within ``depth`` hops, and the current facts among them."""
        check_depth(depth)
        center = self._entity(tenant, entity_id)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        now = utcnow()
        step = self._steps(graph, "both", None, now)
        members = {entity_id}
        frontier = [entity_id]
        for _hop in range(depth):
            reached = {o for n in frontier for o in step(n) if o not in members}
            if not reached:
                break
            members.update(reached)
            frontier = list(reached)
        rels = [
            edge["r"]
            for source in members
            for target, keydict in graph._succ[source].items()
            if target in members
            for edge in keydict.values()
            if _is_current(edge["r"], now)
        ]
        rels.sort(key=lambda r: r.key)
        others = sorted(members - {entity_id})
        return construct_trusted(
            Subgraph,
            {"entities": (center, *(nodes[n]["e"] for n in others)), "relationships": tuple(rels)},
        )

    @_operation
    def identity_expiry(self, tenant: str, entity_id: str, *, after: datetime) -> datetime | None:
        """The earliest validity or expiry bound after ``after`` of the entity's facts."""
        if self._follow is not None:
            raise self._no_revision()
        when = as_utc(after, "after")
        if when is None:
            raise InvalidInput("after must be a datetime, got None")
        data = self._tenant(tenant)
        graph = data.graph
        if entity_id not in graph._node:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        if data.near is not None:
            data.near(entity_id)
        until: datetime | None = None
        for adjacency in (graph._succ[entity_id], graph._pred[entity_id]):
            for keydict in adjacency.values():
                for edge in keydict.values():
                    rel: Relationship = edge["r"]
                    for bound in (rel.valid_at, rel.invalid_at, rel.expired_at):
                        if bound is not None and bound > when and (until is None or bound < until):
                            until = bound
        return until

    @_operation
    def identity_snapshot(
        self,
        tenant: str,
        entity_id: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """The entity, its relationships (both directions) and their other ends.

        Current facts, or those :meth:`Relationship.held` at ``as_of`` / ``recorded_as_of``.
        """
        data = self._tenant(tenant)
        graph = data.graph
        nodes = graph._node
        node = nodes.get(entity_id)
        if node is None:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        if data.near is not None:
            data.near(entity_id)
        now = utcnow()
        timed = as_of is not None or recorded_as_of is not None
        if timed:
            as_of = as_utc(as_of, "as_of")
            recorded_as_of = as_utc(recorded_as_of, "recorded_as_of")
        rels: list[Relationship] = []
        related: set[str] = set()
        for adjacency in (graph._succ[entity_id], graph._pred[entity_id]):
            for other, keydict in adjacency.items():
                for edge in keydict.values():
                    rel: Relationship = edge["r"]
                    if timed:
                        if rel.held(as_of, recorded_as_of):
                            rels.append(rel)
                            related.add(other)
                    # Inlined _is_current: this loop is the hot path of game engines.
                    elif (
                        rel.expired_at is None and rel.invalid_at is None and rel.valid_at is None
                    ) or rel.is_current(now):
                        rels.append(rel)
                        related.add(other)
        if entity_id in related:  # a self-loop is seen both as out- and as in-edge
            related.discard(entity_id)
            rels = list({r.key: r for r in rels}.values())
        rels.sort(key=_REL_KEY)
        return construct_trusted(
            NPCIdentity,
            {
                "entity": node["e"],
                "relationships": tuple(rels),
                "related_entities": tuple([nodes[o]["e"] for o in sorted(related)]),
            },
        )
