"""The traversal room of ``Neo4jStore``: neighbours, paths, visible subgraphs, identity.

Each graph question is one query, so one round trip, bounded by a depth and a node
limit sent as parameters.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from graphmem.backends.neo4j.graph import GraphRoom
from graphmem.backends.neo4j.mapping import (
    entity_from_row,
    relationship_from_row,
    wire_time,
)
from graphmem.backends.neo4j.rows import (
    _check_direction,
    _clock_mode,
    _limit,
)
from graphmem.core.checks import (
    check_depth,
    check_id,
    check_positive,
    check_safe_names,
)
from graphmem.core.errors import NotFound
from graphmem.core.models import (
    Direction,
    Entity,
    NPCIdentity,
    Relationship,
    Subgraph,
    utcnow,
)
from graphmem.core.store import as_utc


class TraversalRoom(GraphRoom):
    """Walks over the current relationships: neighbours, a path, a subgraph, an NPC snapshot."""

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
        """Breadth-first neighbours up to ``depth`` hops, start excluded; one query."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "entity_id": check_id(entity_id, "entity id"),
            "depth": check_depth(depth, "depth"),
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "node_types": check_safe_names(node_types, "entity type"),
            "max_nodes": _limit(
                None if max_nodes is None else check_positive(max_nodes, "max_nodes")
            ),
            "direction": _check_direction(direction),
            "now": utcnow(),
        }
        rows = self._read("traversal/find_neighbors", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        return [entity_from_row(row) for row in rows[0]["entities"]]

    def find_path(
        self,
        tenant: str,
        source_id: str,
        target_id: str,
        *,
        max_depth: int = 6,
        rel_types: Sequence[str] | None = None,
    ) -> list[Entity]:
        """Shortest directed path, both ends included; ``[]`` when none within ``max_depth``."""
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "source_id": check_id(source_id, "source id"),
            "target_id": check_id(target_id, "target id"),
            "max_depth": check_positive(max_depth, "max_depth"),
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "now": utcnow(),
        }
        row = self._read("traversal/find_path", params)[0]
        for present, missing in ((row["has_source"], source_id), (row["has_target"], target_id)):
            if not present:
                raise NotFound(
                    f"no entity {missing!r} in tenant {tenant!r}", entity_id=missing, tenant=tenant
                )
        return [entity_from_row(node) for node in row["path"]]

    def visible_subgraph(self, tenant: str, entity_id: str, *, depth: int = 1) -> Subgraph:
        """The entity, the entities within ``depth`` hops, and the current facts among them.

        The entity comes first, then the others by id; relationships are ordered by
        (source_id, target_id, type), as on the embedded backend.
        """
        tenant = self._check(tenant)
        params = {
            "tenant": tenant,
            "entity_id": check_id(entity_id, "entity id"),
            "depth": check_depth(depth, "depth"),
            "now": utcnow(),
        }
        rows = self._read("traversal/get_visible_subgraph", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        members = {row["id"]: row for row in rows[0]["entities"]}
        center = members.pop(entity_id)
        entities = [entity_from_row(center)] + [
            entity_from_row(members[k]) for k in sorted(members)
        ]
        rels = {
            rel.key: rel
            for group in rows[0]["rels"]
            for rel in (relationship_from_row(r) for r in group)
        }
        return Subgraph(
            entities=tuple(entities), relationships=tuple(rels[k] for k in sorted(rels))
        )

    def identity_snapshot(
        self,
        tenant: str,
        entity_id: str,
        *,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
    ) -> NPCIdentity:
        """The entity, its relationships (both directions) and their other ends.

        One query. Current facts, or those held at ``as_of`` / ``recorded_as_of``.
        Relationships are ordered by (source_id, target_id, type), related entities by id
        (the entity itself is not among them, even with a self-loop).
        """
        tenant = self._check(tenant)
        mode, at, recorded = _clock_mode(
            as_utc(as_of, "as_of"), as_utc(recorded_as_of, "recorded_as_of")
        )
        params = {
            "tenant": tenant,
            "entity_id": check_id(entity_id, "entity id"),
            "mode": mode,
            "at": wire_time(at),
            "recorded": wire_time(recorded),
        }
        rows = self._read("traversal/get_identity_snapshot", params)
        if not rows:
            raise NotFound(
                f"no entity {entity_id!r} in tenant {tenant!r}", entity_id=entity_id, tenant=tenant
            )
        entity = entity_from_row(rows[0]["entity"])
        rels: dict[tuple[str, str, str], Relationship] = {}
        others: dict[str, Entity] = {}
        for fact in rows[0]["facts"]:
            rel = relationship_from_row(fact["rel"])
            rels[rel.key] = rel
            other = fact["other"]
            if other["id"] != entity.id and other["id"] not in others:
                others[other["id"]] = entity_from_row(other)
        return NPCIdentity(
            entity=entity,
            relationships=tuple(rels[k] for k in sorted(rels)),
            related_entities=tuple(others[k] for k in sorted(others)),
        )
