"""Reading a ``file://`` store's models when first used: lazy node and edge dicts.

Part of :mod:`graphmem.backends.networkx.sqlite_file` (see it for the design). Opening
loads ids and adjacency only: each node (edge) of a tenant's graph is an attribute dict
that knows its row id and reads its entity (relationship) from the file on first use;
:meth:`FileRead._near` reads the models around a node in one query and
:meth:`FileRead._fill` every model of a tenant in two scans. Every body's checksum is
verified when it is read.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import suppress
from functools import partial
from pathlib import Path
from typing import Any
from zlib import crc32

from graphmem.backends.networkx.codec import Decoder, decode
from graphmem.backends.networkx.protocols import StoreHost
from graphmem.backends.networkx.sqlite_open import FileOpen
from graphmem.backends.networkx.sqlite_rows import SQL, corrupt, reading
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, Relationship

__all__ = ["FileRead"]


def _lazy_classes(file: FileRead, tenant: str) -> tuple[type[_LazyNode], type[_LazyEdge]]:
    """Node and edge attribute dicts of one tenant that read their model when first used."""

    class Node(_LazyNode):
        __slots__ = ()
        _read = staticmethod(partial(file.read_entity, tenant))

    class Edge(_LazyEdge):
        __slots__ = ()
        _read = staticmethod(partial(file.read_relationship, tenant))

    return Node, Edge


class _Lazy(dict[str, Any]):
    """An attribute dict whose model (under ``_key``) is read from row ``rid`` on first use."""

    __slots__ = ("rid",)
    _key: str
    _read: Callable[[int], Any]
    rid: int

    def __missing__(self, key: str) -> Any:
        if key != self._key:
            raise KeyError(key)
        model = self[key] = self._read(self.rid)
        return model


class _LazyNode(_Lazy):
    """A node's attribute dict: ``["e"]`` is its entity.

    ``near`` is set once the models around the node (its relationships and their other
    ends) have all been read, so an identity snapshot reads them in one go only once.
    """

    __slots__ = ("near",)
    _key = "e"
    near: bool


class _LazyEdge(_Lazy):
    """An edge's attribute dict: ``["r"]`` is its relationship."""

    __slots__ = ()
    _key = "r"


class FileRead(FileOpen):
    """The models of an open file, read when first used (checksums verified)."""

    def __init__(self, store: StoreHost, path: Path, *, read_only: bool, fsync: bool) -> None:
        super().__init__(store, path, read_only=read_only, fsync=fsync)
        # The next row id to give a node or edge dict made while a write is applied (0: none).
        self._feed = {"entity": 0, "relationship": 0}
        self._classes: dict[str, tuple[type[_LazyNode], type[_LazyEdge]]] = {}
        self._decoder = Decoder()

    # ------------------------------------------------------------------ graphs

    def new_graph(self, tenant: str) -> Any:
        """An empty graph for a tenant of this file (its attribute dicts carry row ids)."""
        import networkx as nx

        graph = nx.MultiDiGraph()
        node, edge = self._classes[tenant] = _lazy_classes(self, tenant)
        graph.node_attr_dict_factory = self._maker(node, "entity")
        graph.edge_attr_dict_factory = self._maker(edge, "relationship")
        return graph

    def _maker(self, cls: type[_LazyNode | _LazyEdge], table: str) -> Callable[[], Any]:
        """A factory of a graph's node (or edge) attribute dicts.

        While a write is applied, the dicts it makes for new nodes (or edges) take the row
        ids the write gave them, in order.
        """
        feed = self._feed

        def make() -> Any:
            made = cls()
            rid = feed[table]
            if rid:
                made.rid = rid
                feed[table] = rid + 1
            return made

        return make

    def _model(self, model: type[Any], raw: bytes, what: str) -> Any:
        try:
            return decode(model, raw)
        except (InvalidInput, ValueError) as exc:
            raise corrupt(
                self.path,
                f"{what} is not a valid {model.__name__} ({exc}); if a newer graphmem wrote "
                "it, upgrade graphmem",
            ) from exc

    # ------------------------------------------------------------------ lazy models

    def read_entity(self, tenant: str, rid: int) -> Entity:
        """The entity stored in row ``rid`` (checksums verified)."""
        with reading(self.path, "reading an entity"):
            row = (
                self._connection()
                .execute(
                    "SELECT tenant, id, CAST(body AS BLOB), crc FROM entity WHERE rid = ?", (rid,)
                )
                .fetchone()
            )
            if row is None:
                raise corrupt(self.path, f"entity row {rid} has disappeared")
            return self._entity(row, tenant)

    def _entity(self, row: tuple[Any, ...], tenant: str) -> Entity:
        row_tenant, entity_id, raw, check = row
        if crc32(raw) != check:
            raise corrupt(self.path, f"the body of entity {entity_id!r} fails its checksum")
        try:
            entity = self._decoder.entity(raw)
        except (InvalidInput, ValueError, KeyError, TypeError) as exc:
            raise corrupt(self.path, f"entity {entity_id!r} cannot be read ({exc})") from exc
        if entity.id != entity_id or row_tenant != tenant:
            raise corrupt(self.path, f"the row of entity {entity_id!r} holds another entity")
        return entity

    def read_relationship(self, tenant: str, rid: int) -> Relationship:
        """The relationship stored in row ``rid`` (checksums verified)."""
        with reading(self.path, "reading a relationship"):
            row = (
                self._connection()
                .execute(
                    "SELECT tenant, source, target, type, CAST(body AS BLOB), crc "
                    "FROM relationship WHERE rid = ?",
                    (rid,),
                )
                .fetchone()
            )
            if row is None:
                raise corrupt(self.path, f"relationship row {rid} has disappeared")
            return self._relationship(row, tenant)

    def _relationship(self, row: tuple[Any, ...], tenant: str) -> Relationship:
        row_tenant, source, target, type_, raw, check = row
        if crc32(raw) != check:
            raise corrupt(
                self.path,
                f"the body of relationship ({source!r})-[{type_}]->({target!r}) fails its checksum",
            )
        try:
            rel = self._decoder.relationship(raw)
        except (InvalidInput, ValueError, KeyError, TypeError) as exc:
            raise corrupt(self.path, f"a relationship cannot be read ({exc})") from exc
        if rel.key != (source, target, type_) or row_tenant != tenant:
            raise corrupt(
                self.path, f"the row of ({source!r})-[{type_}]->({target!r}) holds another fact"
            )
        return rel

    def _near(self, tenant: str, entity_id: str) -> None:
        """Read the models around a node that are not read yet, in one query."""
        data = self._store._tenants[tenant]
        graph = data.graph
        nodes = graph._node
        node = nodes[entity_id]
        if getattr(node, "near", False):
            return
        succ, pred = graph._succ[entity_id], graph._pred[entity_id]
        edges = {
            edge.rid: edge
            for adjacency in (succ, pred)
            for keydict in adjacency.values()
            for edge in keydict.values()
            if "r" not in edge
        }
        ends = {n.rid: n for other in (entity_id, *succ, *pred) if "e" not in (n := nodes[other])}
        if ends or edges:
            entity, relationship = self._entity, self._relationship
            with reading(self.path, "reading an identity"):
                for (
                    rid,
                    tenant_,
                    first,
                    source,
                    target,
                    type_,
                    raw,
                    check,
                ) in self._connection().execute(
                    SQL["near"], (json.dumps(list(ends)), json.dumps(list(edges)))
                ):
                    if first is None:
                        edges.pop(rid)["r"] = relationship(
                            (tenant_, source, target, type_, raw, check), tenant
                        )
                    else:
                        ends.pop(rid)["e"] = entity((tenant_, first, raw, check), tenant)
            if ends or edges:
                raise corrupt(self.path, f"{len(ends) + len(edges)} rows have disappeared")
        with suppress(AttributeError):  # a node made by a write here has every model already
            node.near = True

    def _filler(self, tenant: str) -> Callable[[], None]:
        def fill() -> None:
            self._fill(tenant)

        return fill

    def _fill(self, tenant: str) -> None:
        """Read every model of a tenant not read yet, in two scans (for whole-tenant reads)."""
        data = self._store._tenants.get(tenant)
        if data is None:
            return
        graph = data.graph
        conn = self._connection()
        with reading(self.path, "reading a tenant"):
            nodes = {n.rid: n for n in graph._node.values() if "e" not in n}
            if nodes:
                for rid, *row in conn.execute(
                    "SELECT rid, tenant, id, CAST(body AS BLOB), crc FROM entity WHERE tenant = ?",
                    (tenant,),
                ):
                    node = nodes.pop(rid, None)
                    if node is not None:
                        node["e"] = self._entity(tuple(row), tenant)
            edges = {
                e.rid: e
                for keydicts in graph._succ.values()
                for keydict in keydicts.values()
                for e in keydict.values()
                if "r" not in e
            }
            if edges:
                for rid, *row in conn.execute(
                    "SELECT rid, tenant, source, target, type, CAST(body AS BLOB), crc "
                    "FROM relationship WHERE tenant = ?",
                    (tenant,),
                ):
                    edge = edges.pop(rid, None)
                    if edge is not None:
                        edge["r"] = self._relationship(tuple(row), tenant)
        if nodes or edges:
            raise corrupt(self.path, f"{len(nodes) + len(edges)} rows have disappeared")
        data.fill = None
        data.near = None  # every model is in memory: nothing left to read around a node
