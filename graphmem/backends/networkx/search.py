"""The search room of ``NetworkXStore``: embeddings, vector, full-text and hybrid search.

Exact numpy search over each kind's vectors, tantivy (BM25) for full text, built on a
kind's first search and kept up to date; ``search_context`` and ``gather`` are composed
of the public operations (:mod:`graphmem.backends.composed`) under one lock.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from graphmem.backends import composed
from graphmem.backends.networkx.base import (
    _check_kind,
    _check_types,
    _operation,
)
from graphmem.backends.networkx.chunks import ChunkRoom
from graphmem.backends.networkx.graph import (
    _DIRECTIONS,
    _REL_KEY,
    _is_current,
)
from graphmem.backends.networkx.state import (
    _EMPTY,
    _indexes,
    _Tenant,
    _whole,
)
from graphmem.backends.networkx.traversal import TraversalRoom
from graphmem.core.checks import (
    check_depth,
    check_ids,
    check_limit,
    check_positive,
)
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    Direction,
    NodeKind,
    Subgraph,
    chunk_search_text,
    construct_trusted,
    entity_text,
    utcnow,
)
from graphmem.core.store import (
    SearchHit,
    SearchPair,
    check_search_kinds,
)

if TYPE_CHECKING:
    from graphmem.backends.networkx.indexes import TextIndex, VectorIndex


def _query_vector(data: _Tenant, kind: str, vector: Any) -> tuple[VectorIndex | None, Any]:
    """The kind's vector index (None while empty) and the checked unit query vector."""
    index = data.vectors.get(kind)
    dimension = index.dimension if index is not None and len(index) else None
    query = _indexes().as_matrix(vector, dimension, "the query vector")
    if query.shape[0] != 1:
        raise InvalidInput(f"give one query vector, got {query.shape[0]}")
    return (index if dimension is not None else None), query[0]


class SearchRoom(TraversalRoom, ChunkRoom, composed.ComposedReads):
    """Embeddings and exact vector, BM25 full-text and hybrid search."""

    @_operation
    def put_embeddings(self, tenant: str, kind: NodeKind, ids: Sequence[str], vectors: Any) -> None:
        """Store one embedding per node in the kind's index (replacing earlier ones)."""
        _check_kind(kind)
        node_ids = check_ids(ids, "ids")
        data = self._tenant(tenant)
        index = data.vectors.get(kind)
        dimension = index.dimension if index is not None and len(index) else None
        matrix = _indexes().as_matrix(vectors, dimension, "embeddings")
        if matrix.shape[0] != len(node_ids):
            raise InvalidInput(
                f"{len(node_ids)} ids but {matrix.shape[0]} vectors; give one vector per id"
            )
        nodes = self._node_ids(data, kind)
        missing = sorted({n for n in node_ids if n not in nodes})
        if missing:
            raise InvalidInput(
                f"embeddings for unknown {kind}s: {missing[:10]}; store them first. "
                "Nothing was written.",
                missing_ids=missing,
            )
        if len(set(node_ids)) != len(node_ids):  # the last of a repeated id wins
            last = {node: row for row, node in enumerate(node_ids)}
            node_ids, matrix = list(last), matrix[list(last.values())]
        if not node_ids:
            return
        self._commit(
            {"op": "embed", "tenant": tenant, "kind": kind, "ids": node_ids, "vectors": matrix}
        )

    @_operation
    def embedding_dimension(self, tenant: str, kind: NodeKind) -> int | None:
        """The dimension of the kind's vector index, or None while it holds no vector."""
        _check_kind(kind)
        index = self._tenant(tenant).vectors.get(kind)
        return index.dimension if index is not None and len(index) else None

    @_operation
    def count_embeddings(self, tenant: str, kind: NodeKind) -> int:
        """How many nodes of the kind have an embedding."""
        _check_kind(kind)
        index = self._tenant(tenant).vectors.get(kind)
        return len(index) if index is not None else 0

    def _scope(self, data: _Tenant, kind: str, scope_ids: Sequence[str] | None) -> Any:
        """The candidate node ids of a graph scope (None: every node)."""
        if scope_ids is None:
            return None
        scope = check_ids(scope_ids, "scope_ids")
        if kind == "entity":
            return dict.fromkeys(scope)
        by_entity = data.mentioned_by[kind]
        out: dict[str, None] = {}
        for entity_id in scope:
            out.update(dict.fromkeys(by_entity.get(entity_id, ())))
        return out

    @_operation
    def vector_search(
        self,
        tenant: str,
        kind: NodeKind,
        vector: Any,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nearest nodes of the kind by cosine similarity (exact), best first."""
        _check_kind(kind)
        check_positive(k, "k")
        data = self._tenant(tenant)
        index, query = _query_vector(data, kind, vector)
        if index is None:
            return []
        found = index.search(query, k, self._scope(data, kind, scope_ids))
        return [SearchHit(node, score) for node, score in found]

    @_operation
    def hybrid_search(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: Any,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
    ) -> dict[NodeKind, SearchPair]:
        """Vector and full-text search of each kind, checked up front, under one lock.

        Running the matrix products on a second thread beside the full-text queries was
        measured and dropped: OpenBLAS already spreads a product over both cores, and held
        to one core it made ``graphmem bench --retrieval`` slower (docs/retrieval.md).
        """
        wanted = check_search_kinds(kinds, vector, text)
        check_positive(k, "k")
        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"query must be a string, got {type(text).__name__}")
        data = self._tenant(tenant)
        scopes = {kind: self._scope(data, kind, scope_ids) for kind in wanted}
        jobs = (
            [(kind, *_query_vector(data, kind, vector)) for kind in wanted]
            if vector is not None
            else []
        )
        by_vector = {
            kind: [SearchHit(n, score) for n, score in index.search(q, k, scopes[kind])]
            for kind, index, q in jobs
            if index is not None
        }
        by_text: dict[NodeKind, list[SearchHit]] = {}
        if text is not None and data is not _EMPTY:
            for kind in wanted:
                found = self._text_index(data, tenant, kind).search(text, k, scopes[kind])
                by_text[kind] = [SearchHit(node, score) for node, score in found]
        return {kind: SearchPair(by_vector.get(kind, []), by_text.get(kind, [])) for kind in wanted}

    def _text_index(self, data: _Tenant, tenant: str, kind: str) -> TextIndex:
        existing = data.texts.get(kind)
        if existing is not None and not existing.wasteful():
            return existing
        # made on first use, and made again from the stored nodes when replaced or removed
        # documents outnumber the live ones in its BM25 statistics
        index: TextIndex = _indexes().TextIndex()
        if data is _EMPTY:  # nothing to index; do not keep an index on the shared empty tenant
            return index
        data.texts[kind] = index
        if kind == "entity":
            for node_id, node in _whole(data).graph._node.items():
                index.set(node_id, entity_text(node["e"]))
        elif kind == "turn":
            for turn_id, turn in data.turns.items():
                index.set(turn_id, turn.content)
        else:
            for chunk_id, chunk in data.chunks.items():
                index.set(chunk_id, chunk_search_text(chunk))
        return index

    @_operation
    def fulltext_search(
        self,
        tenant: str,
        kind: NodeKind,
        query: str,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes of the kind whose text best matches the words of ``query``."""
        _check_kind(kind)
        check_positive(k, "k")
        if not isinstance(query, str):
            raise InvalidInput(f"query must be a string, got {type(query).__name__}")
        data = self._tenant(tenant)
        if data is _EMPTY:
            return []
        index = self._text_index(data, tenant, kind)
        found = index.search(query, k, self._scope(data, kind, scope_ids))
        return [SearchHit(node, score) for node, score in found]

    @_operation
    def expand(
        self,
        tenant: str,
        seed_ids: Sequence[str],
        *,
        depth: int = 1,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
    ) -> Subgraph:
        """The seeds and the entities within ``depth`` hops of any, with the facts among them."""
        check_depth(depth, minimum=0)
        check_limit(max_nodes, "max_nodes")
        if direction not in _DIRECTIONS:
            raise InvalidInput(f"direction must be one of {_DIRECTIONS}, got {direction!r}")
        types = _check_types(rel_types, "relationship type")
        seeds = list(dict.fromkeys(check_ids(seed_ids, "seed_ids")))
        allowed = set(check_ids(within, "within")) if within is not None else None
        for seed in seeds:
            self._entity(tenant, seed)
        graph = self._tenant(tenant).graph
        nodes = graph._node
        now = utcnow()
        step = self._steps(graph, direction, types, now)
        seen = dict.fromkeys(sorted(seeds))
        frontier = list(seen)
        for _hop in range(depth):
            if max_nodes is not None and len(seen) >= max_nodes:
                break
            reached = sorted(
                {
                    other
                    for node in frontier
                    for other in step(node)
                    if other not in seen and (allowed is None or other in allowed)
                }
            )
            if max_nodes is not None:
                reached = reached[: max(0, max_nodes - len(seen))]
            seen.update(dict.fromkeys(reached))
            if not reached:
                break
            frontier = reached
        rels = [
            edge["r"]
            for source in seen
            for target, keydict in graph._succ[source].items()
            if target in seen
            for type_, edge in keydict.items()
            if (types is None or type_ in types) and _is_current(edge["r"], now)
        ]
        rels.sort(key=_REL_KEY)
        return construct_trusted(
            Subgraph,
            {"entities": tuple(nodes[n]["e"] for n in seen), "relationships": tuple(rels)},
        )

    def _composed(self, tenant: str) -> composed.Operations:
        return self._unwrapped  # the composite is one operation, under one lock

    def _entity_test(self, tenant: str) -> Callable[[str], bool]:
        nodes: dict[str, Any] = self._tenant(tenant).graph._node
        return nodes.__contains__

    # One operation each (lock, checks, tracer) over the composition written once in
    # ComposedReads; _operation is typed for methods of this backend's own classes.
    search_context = _operation(composed.ComposedReads.search_context)  # type: ignore[type-var,assignment]
    gather = _operation(composed.ComposedReads.gather)  # type: ignore[type-var,assignment]
    search_scoped = _operation(composed.ComposedReads.search_scoped)  # type: ignore[type-var,assignment]
