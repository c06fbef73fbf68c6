"""Views of a memory for analysis: the entity graph as a networkx graph.

networkx is imported when a view is made, not with this module (``import graphmem``
stays light).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from graphmem.core.models import utcnow

if TYPE_CHECKING:
    import networkx as nx

    from graphmem.core.store import TenantDump

__all__ = ["to_networkx"]


def to_networkx(dump: TenantDump, *, include_invalid: bool = False) -> nx.MultiDiGraph:
    """The entity graph of a dump as a networkx ``MultiDiGraph`` (for analysis and drawing).

    Nodes carry ``type``, ``name`` and the attributes; edges are keyed by type and carry
    ``confidence``, ``source``, ``confirmed`` and the validity times. Facts that do not
    hold now are left out unless ``include_invalid``.

    >>> import graphmem
    >>> from graphmem import Entity, Relationship
    >>> with graphmem.open("memory://", tenant="doc") as mem:
    ...     _ = mem.upsert_entities([Entity(id="a", type="npc", name="Ann"),
    ...                              Entity(id="b", type="npc", name="Bo")])
    ...     _ = mem.upsert_relationships([Relationship(source_id="a", target_id="b",
    ...                                                type="knows")])
    ...     graph = to_networkx(mem.dump())
    >>> sorted(graph.edges(keys=True)), graph.nodes["a"]["name"]
    ([('a', 'b', 'knows')], 'Ann')
    """
    import networkx as nx

    graph = nx.MultiDiGraph()
    for e in dump.entities:
        graph.add_node(e.id, **{**dict(e.attributes), "type": e.type, "name": e.name})
    now = utcnow()
    for r in dump.relationships:
        if include_invalid or r.is_current(now):
            graph.add_edge(
                r.source_id,
                r.target_id,
                key=r.type,
                type=r.type,
                confidence=r.provenance.confidence,
                source=r.provenance.source,
                confirmed=r.provenance.confirmed,
                valid_at=r.valid_at,
                invalid_at=r.invalid_at,
            )
    return graph
