"""The search room of ``Neo4jStore``: embeddings, vector, full-text and hybrid search.

The vector and full-text indexes are shared by every tenant, so a search asks them for
more than ``k`` hits and grows the request until the tenant's hits fill ``k`` (or scans
the tenant exactly). ``search_context`` and ``gather`` are composed of the public
operations (:mod:`graphmem.backends.composed`).
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, cast

import neo4j

from graphmem.backends import composed
from graphmem.backends.neo4j.fulltext import lucene_query
from graphmem.backends.neo4j.mapping import (
    chunk_from_row,
    entity_from_row,
    relationship_from_row,
    turn_from_row,
)
from graphmem.backends.neo4j.plumbing import Neo4jBase
from graphmem.backends.neo4j.rows import (
    _KINDS,
    _check_direction,
    _check_scope,
    _KindQueries,
    _limit,
    _node_kind,
    _slices,
)
from graphmem.backends.search import as_matrix
from graphmem.core.checks import (
    check_depth,
    check_ids,
    check_positive,
    check_safe_names,
)
from graphmem.core.errors import (
    GraphmemError,
    InvalidInput,
    NotFound,
    UnsupportedOperation,
)
from graphmem.core.models import (
    Direction,
    NodeKind,
    Subgraph,
    utcnow,
)
from graphmem.core.store import (
    Gathered,
    GraphStore,
    ScopedHits,
    ScopedSearch,
    SearchContext,
    SearchHit,
    SearchPair,
    check_gather,
    check_scoped_searches,
    check_search_kinds,
    check_window_depth,
    search_each,
)

EMBEDDING_ROWS = 1_000
"""Vectors per query of ``put_embeddings`` (one round trip each, one transaction)."""


VECTOR_INDEXES: Mapping[str, str] = {
    "Entity": "vector_index_Entity_embedding",
    "Turn": "vector_index_Turn_embedding",
    "Chunk": "vector_index_Chunk_embedding",
}
"""Vector index names by label (neomodel's naming), for ``db.index.vector.queryNodes``."""


FULLTEXT_INDEXES: Mapping[str, str] = {
    "Entity": "fulltext_index_Entity_search_text",
    "Turn": "fulltext_index_Turn_search_text",
    "Chunk": "fulltext_index_Chunk_search_text",
}
"""Full-text index names by label (neomodel's naming), for ``db.index.fulltext.queryNodes``."""


OVERFETCH = 4
"""The indexes are shared by all tenants: ask them for ``k * OVERFETCH`` hits, and grow
the request by this factor while the tenant's (and scope's) hits do not fill ``k``."""


MIN_FETCH = 64
"""The smallest number of hits asked of a shared index."""


MAX_VECTOR_FETCH = 4_096
"""The largest vector-index request; beyond it one exact scan of the tenant answers."""


INDEX_CACHE_SECONDS = 60.0
"""How long a store trusts the list of vector indexes it read (name, state, dimension)."""


_PROCEDURE_FAILED = "Neo.ClientError.Procedure.ProcedureCallFailed"


def _check_stored_dimension(stored: object, dimension: int, what: str) -> None:
    """InvalidInput when the tenant's vectors of a kind have another dimension."""
    if stored is not None and int(stored) != dimension:  # type: ignore[call-overload]
        raise InvalidInput(
            f"{what} have dimension {dimension} but the index holds vectors of dimension "
            f"{stored}; embed with the same model as before (or clear the index)",
            dimension=dimension,
            expected=stored,
        )


def _cosine(score: float) -> float:
    """The contract's cosine similarity from Neo4j's cosine score, (1 + cos) / 2."""
    return min(1.0, max(-1.0, 2.0 * float(score) - 1.0))


def _vector_hits(hits: Iterable[Mapping[str, Any]]) -> list[SearchHit]:
    return [SearchHit(hit["id"], _cosine(hit["score"])) for hit in hits]


def _text_hits(hits: Iterable[Mapping[str, Any]]) -> list[SearchHit]:
    return [SearchHit(hit["id"], float(hit["score"])) for hit in hits]


def _first_fetch(k: int) -> int:
    """What a shared index is asked for first: ``k * OVERFETCH``, at least MIN_FETCH."""
    return max(k * OVERFETCH, MIN_FETCH)


def _vector_index_dimensions(indexes: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """The ONLINE vector indexes of a SHOW INDEXES listing, by name, with their dimension."""
    out: dict[str, int] = {}
    for index in indexes:
        if index.get("type") != "VECTOR" or index.get("state") != "ONLINE":
            continue
        config = (index.get("options") or {}).get("indexConfig") or {}
        dimension = config.get("vector.dimensions")
        if dimension is not None:
            out[index["name"]] = int(dimension)
    return out


def _once(ids: Sequence[str]) -> list[str]:
    return list(dict.fromkeys(ids))


def _subgraph_of(row: Mapping[str, Any]) -> Subgraph:
    """The walk's entities and facts, from the seeds, reached and rels of a walk query.

    Seeds first (by id), then the others nearest first (then by id); relationships by key.
    """
    found = {seed["id"]: seed for seed in row["seeds"]}
    reached = sorted(row["reached"], key=lambda r: (r["hop"], r["id"]))
    entities = [entity_from_row(found[s]) for s in sorted(found)]
    entities += [entity_from_row(r) for r in reached]
    rels = {
        rel.key: rel for group in row["rels"] for rel in (relationship_from_row(r) for r in group)
    }
    return Subgraph(entities=tuple(entities), relationships=tuple(rels[k] for k in sorted(rels)))


class SearchRoom(composed.ComposedReads, Neo4jBase):
    """Embeddings and vector, full-text and hybrid search on the shared indexes."""

    def put_embeddings(self, tenant: str, kind: NodeKind, ids: Sequence[str], vectors: Any) -> None:
        """Store one embedding per node (replacing any earlier one) in the kind's index.

        Shape, finiteness and zero vectors are checked here; unknown nodes and the
        per-(tenant, kind) dimension by the one write query, which then writes nothing.
        """
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        node_ids = check_ids(ids, "ids")
        matrix = as_matrix(vectors, None, "embeddings")
        if matrix.shape[0] != len(node_ids):
            raise InvalidInput(
                f"{len(node_ids)} ids but {matrix.shape[0]} vectors; give one vector per id"
            )
        last = {node: row for row, node in enumerate(node_ids)}  # the last of an id wins
        if not last:
            return
        dimension = int(matrix.shape[1])
        rows = [{"id": node, "vector": matrix[row].tolist()} for node, row in last.items()]

        def work(tx: neo4j.ManagedTransaction) -> None:
            for part in _slices(rows, EMBEDDING_ROWS):
                params = {"tenant": tenant, "rows": list(part), "dimension": dimension}
                row = self._run(tx, spec.put_embeddings, params)[0]
                if row["missing"]:
                    missing = sorted(row["missing"])
                    raise InvalidInput(
                        f"embeddings for unknown {kind}s: {missing[:10]}; store them first. "
                        "Nothing was written.",
                        missing_ids=missing,
                    )
                _check_stored_dimension(row["stored_dimension"], dimension, "embeddings")

        self._execute(work, write=True)

    def _embedding_counts(self, tenant: str, kind: NodeKind) -> tuple[int, int | None]:
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        row = self._read(spec.count_embeddings, {"tenant": tenant})[0]
        dimension = row["dimension"]
        return int(row["count"]), None if dimension is None else int(dimension)

    def embedding_dimension(self, tenant: str, kind: NodeKind) -> int | None:
        """The dimension of the kind's vectors in the tenant, or None while it has none."""
        return self._embedding_counts(tenant, kind)[1]

    def count_embeddings(self, tenant: str, kind: NodeKind) -> int:
        """How many nodes of the kind have an embedding."""
        return self._embedding_counts(tenant, kind)[0]

    def _online_vector_index(self, label: str, dimension: int) -> str | None:
        """The name of the label's vector index if it is ONLINE with ``dimension``, else None.

        The index list is read once and kept for :data:`INDEX_CACHE_SECONDS`; a store that
        cannot read it (no SHOW INDEX privilege) scans exactly instead.
        """
        cached = self._index_cache
        if cached is None or time.monotonic() - cached[0] > INDEX_CACHE_SECONDS:
            try:
                listed = self.query("schema/list_indexes")
            except GraphmemError as exc:
                if not str(exc.data.get("code", "")).startswith("Neo.ClientError.Security."):
                    raise
                listed = []
            cached = (time.monotonic(), _vector_index_dimensions(listed))
            self._index_cache = cached
        name = VECTOR_INDEXES[label]
        return name if cached[1].get(name) == dimension else None

    def _vector_params(
        self,
        tenant: str,
        vector: Any,
        k: int,
        scope_ids: Sequence[str] | None,
    ) -> dict[str, Any]:
        """The checked parameters every vector query takes."""
        query = as_matrix(vector, None, "the query vector")
        if query.shape[0] != 1:
            raise InvalidInput(f"give one query vector, got {query.shape[0]}")
        return {
            "tenant": tenant,
            "vector": query[0].tolist(),
            "dimension": int(query.shape[1]),
            "k": k,
            "scope": _check_scope(scope_ids),
        }

    @staticmethod
    def _vector_hits_of(
        params: Mapping[str, Any], row: Mapping[str, Any] | None
    ) -> list[SearchHit] | None:
        """The hits of one vector query's row if they are final, None to fetch more.

        ``row`` is the answer to the query with ``params["fetch"]`` (None: none was run).
        Without a stored vector there are no hits; another stored dimension is refused.
        """
        if row is None:
            return None
        if row["dimension"] is None:
            return []
        _check_stored_dimension(row["dimension"], params["dimension"], "the query vector")
        if len(row["hits"]) >= params["k"] or row["fetched"] < params["fetch"]:
            return _vector_hits(row["hits"])
        return None

    def _vector_search_from(
        self, spec: _KindQueries, params: Mapping[str, Any], index: str | None, fetch: int
    ) -> list[SearchHit]:
        """Ask the vector index from ``fetch`` on (growing it), then scan exactly."""
        if index is not None:
            while fetch <= MAX_VECTOR_FETCH:
                query = {**params, "index": index, "fetch": fetch}
                try:
                    row = self._read(spec.query_vectors, query)[0]
                except GraphmemError as exc:
                    if exc.data.get("code") != _PROCEDURE_FAILED:
                        raise
                    self._index_cache = None  # the index went away: scan exactly
                    break
                hits = self._vector_hits_of(query, row)
                if hits is not None:
                    return hits
                if fetch >= MAX_VECTOR_FETCH:
                    break  # the index keeps giving other tenants' nodes: scan exactly
                fetch = min(fetch * OVERFETCH, MAX_VECTOR_FETCH)
        row = self._read(spec.scan_vectors, params)[0]
        if row["dimension"] is None:
            return []
        _check_stored_dimension(row["dimension"], params["dimension"], "the query vector")
        return _vector_hits(row["hits"])

    def vector_search(
        self,
        tenant: str,
        kind: NodeKind,
        vector: Any,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes nearest to ``vector`` by cosine similarity, best first (then by id).

        With an ONLINE vector index of the vector's dimension, the index is asked for
        ``k * OVERFETCH`` neighbours (at least :data:`MIN_FETCH`) and the query keeps the
        tenant's (and the scope's); while fewer than ``k`` are kept and the index had
        more, the fetch grows by ``OVERFETCH``, up to :data:`MAX_VECTOR_FETCH`, after
        which one exact scan answers. Without such an index the exact scan answers at
        once. Each attempt is one query. Scores are cosine similarities (-1..1).
        """
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        params = self._vector_params(tenant, vector, check_positive(k, "k"), scope_ids)
        index = self._online_vector_index(spec.label, params["dimension"])
        return self._vector_search_from(spec, params, index, _first_fetch(params["k"]))

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
        """:meth:`vector_search` and :meth:`fulltext_search` of every kind in one query.

        One round trip usually: each kind's vector index and full-text index are asked
        for their first fetch in one statement (``search/get_search_context``). A ranking
        the first fetch does not fill (other tenants crowd the query, or a narrow scope)
        continues as :meth:`vector_search` / :meth:`fulltext_search` would, from the next
        fetch, one query per step; a kind whose vectors have no index of the query's
        dimension is answered by the exact scan, one query. The results are exactly what
        those methods give.
        """
        return self._search(tenant, kinds, vector, text, k, scope_ids, None).hits

    def search_context(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        *,
        vector: Any,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None = None,
        window_depth: int | None = None,
    ) -> SearchContext:
        """``hybrid_search``, the turn hits' window, the unknown scope, the entity version.

        One round trip usually: the same statement as :meth:`hybrid_search`
        (``search/get_search_context``) also reads the window, the scope and the version.
        A ranking that needs a larger fetch adds its queries, and a window of the final
        turn hits one more.
        """
        if window_depth is not None:
            check_window_depth(window_depth)
        return self._search(tenant, kinds, vector, text, k, scope_ids, window_depth, True)

    def _search(
        self,
        tenant: str,
        kinds: Sequence[NodeKind],
        vector: Any,
        text: str | None,
        k: int,
        scope_ids: Sequence[str] | None,
        window_depth: int | None,
        context: bool = False,
    ) -> SearchContext:
        tenant = self._check(tenant)
        wanted = check_search_kinds(kinds, vector, text)
        k = check_positive(k, "k")
        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"query must be a string, got {type(text).__name__}")
        vparams = None if vector is None else self._vector_params(tenant, vector, k, scope_ids)
        scope = _check_scope(scope_ids)
        lucene = None if text is None else lucene_query(text)
        fetch = _first_fetch(k)
        params: dict[str, Any] = {
            "tenant": tenant,
            "scope": scope,
            "k": k,
            "fetch": fetch,
            "vector": None if vparams is None else vparams["vector"],
            "text": lucene,
            "context": context,
            "window_depth": window_depth,
        }
        indexes: dict[str, str | None] = {}
        for kind in ("entity", "turn", "chunk"):
            spec = _KINDS[kind]
            use = kind in wanted
            indexes[f"{kind}_vector_index"] = (
                self._online_vector_index(spec.label, vparams["dimension"])
                if use and vparams is not None
                else None
            )
            indexes[f"{kind}_text_index"] = (
                FULLTEXT_INDEXES[spec.label] if use and lucene is not None else None
            )
        params.update(indexes)
        answer: Mapping[str, Any] = {"searches": [], "window": [], "unknown": [], "count": 0}
        try:
            if context or any(indexes.values()):
                [answer] = self._read("search/get_search_context", params)
        except GraphmemError as exc:
            if exc.data.get("code") != _PROCEDURE_FAILED:
                raise
            # An index went away or is missing: each kind on its own says which.
            self._index_cache = None
            # This room is part of Neo4jStore, a whole GraphStore.
            whole = cast("GraphStore", self)
            each = search_each(
                whole, tenant, wanted, vector=vector, text=text, k=k, scope_ids=scope_ids
            )
            if not context:
                return SearchContext(each, [], "", [])
            return composed.search_context(
                self._operation,
                tenant,
                kinds,
                vector=vector,
                text=text,
                k=k,
                scope_ids=scope_ids,
                window_depth=window_depth,
            )
        rows = {(row["kind"], row["how"]): row for row in answer["searches"]}
        out: dict[NodeKind, SearchPair] = {}
        refilled = False
        for kind in wanted:
            spec = _KINDS[kind]
            by_vector: list[SearchHit] = []
            if vparams is not None:
                index = indexes[f"{kind}_vector_index"]
                first = rows.get((kind, "vector")) if index is not None else None
                hits = self._vector_hits_of({**vparams, "fetch": fetch}, first)
                if hits is None:
                    refilled = refilled or kind == "turn"
                    hits = self._vector_search_from(
                        spec, vparams, index, fetch * OVERFETCH if first else fetch
                    )
                by_vector = hits
            by_text: list[SearchHit] = []
            if lucene is not None:
                row = rows[(kind, "text")]
                done = len(row["hits"]) >= k or row["fetched"] < fetch
                if done:
                    by_text = _text_hits(row["hits"])
                else:
                    refilled = refilled or kind == "turn"
                    by_text = self._fulltext_search_from(
                        kind, spec, {**params, "query": lucene}, fetch * OVERFETCH
                    )
            out[kind] = SearchPair(by_vector, by_text)
        if not context:
            return SearchContext(out, [], "", [])
        window = [turn_from_row(turn) for turn in answer["window"]]
        pair = out.get("turn")
        whole_store = cast("GraphStore", self)
        if refilled and window_depth is not None and pair is not None:
            ids = list(dict.fromkeys([*(h.id for h in pair.text), *(h.id for h in pair.vector)]))
            window = whole_store.turn_window(tenant, ids, depth=window_depth) if ids else []
        with self._entity_writes_lock:
            written = self._entity_writes.get(tenant, 0)
        latest = answer["latest"]
        version = f"{written}:{answer['count']}:{'' if latest is None else latest}"
        return SearchContext(out, window, version, list(answer["unknown"]))

    def _fulltext_search_from(
        self, kind: str, spec: _KindQueries, params: Mapping[str, Any], fetch: int
    ) -> list[SearchHit]:
        """Ask the full-text index from ``fetch`` on, growing it while hits are missing."""
        index = FULLTEXT_INDEXES[spec.label]
        query = {
            "tenant": params["tenant"],
            "index": index,
            "query": params["query"],
            "k": params["k"],
            "scope": params["scope"],
        }
        while True:
            try:
                row = self._read(spec.query_text, {**query, "fetch": fetch})[0]
            except GraphmemError as exc:
                if exc.data.get("code") != _PROCEDURE_FAILED:
                    raise
                raise UnsupportedOperation(
                    f"full-text search of {kind}s needs the index {index} on {self.url} "
                    f"({exc}); install the schema: graphmem schema install --store URL",
                    operation="fulltext_search",
                    index=index,
                    url=self.url,
                ) from exc
            hits = row["hits"]
            if len(hits) >= query["k"] or row["fetched"] < fetch:
                return _text_hits(hits)
            fetch *= OVERFETCH

    def fulltext_search(
        self,
        tenant: str,
        kind: NodeKind,
        query: str,
        k: int,
        *,
        scope_ids: Sequence[str] | None = None,
    ) -> list[SearchHit]:
        """The ``k`` nodes whose text best matches the words of ``query``, best first.

        The words become an escaped Lucene ``OR`` query (:mod:`.fulltext`). The shared
        full-text index is asked for its best ``k * OVERFETCH`` (at least
        :data:`MIN_FETCH`) and the query keeps the tenant's (and the scope's); while
        fewer than ``k`` are kept and the index had more, the fetch grows by
        ``OVERFETCH``. Each attempt is one query.

        Raises:
            UnsupportedOperation: The full-text index is missing (run ``install_schema``).
        """
        tenant = self._check(tenant)
        spec = _node_kind(kind)
        k = check_positive(k, "k")
        if not isinstance(query, str):
            raise InvalidInput(f"query must be a string, got {type(query).__name__}")
        scope = _check_scope(scope_ids)
        lucene = lucene_query(query)
        if lucene is None:
            return []
        params = {"tenant": tenant, "query": lucene, "k": k, "scope": scope}
        return self._fulltext_search_from(str(kind), spec, params, _first_fetch(k))

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
        """The seeds and the entities within ``depth`` hops of any, with the facts among them.

        One query. Seeds come first (by id), then the others nearest first, then by id;
        ``max_nodes`` caps them (seeds always included); relationships by key.
        """
        tenant = self._check(tenant)
        depth = check_depth(depth, "depth", minimum=0)
        if max_nodes is not None:
            check_positive(max_nodes, "max_nodes")
        params: dict[str, Any] = {
            "tenant": tenant,
            "direction": _check_direction(direction),
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "seeds": list(dict.fromkeys(check_ids(seed_ids, "seed_ids"))),
            "within": None if within is None else list(dict.fromkeys(check_ids(within, "within"))),
            "depth": depth,
            "now": utcnow(),
        }
        cap = _limit(max_nodes)
        params["max_nodes"] = cap
        params["limit"] = max(0, cap - len(params["seeds"]))
        if not params["seeds"]:
            return Subgraph(entities=(), relationships=())
        row = self._read("traversal/expand_entities", params)[0]
        found = {seed["id"]: seed for seed in row["seeds"]}
        for seed_id in params["seeds"]:
            if seed_id not in found:
                raise NotFound(
                    f"no entity {seed_id!r} in tenant {tenant!r}", entity_id=seed_id, tenant=tenant
                )
        return _subgraph_of(row)

    def gather(
        self,
        tenant: str,
        *,
        chunk_ids: Sequence[str] = (),
        turn_ids: Sequence[str] = (),
        entity_ids: Sequence[str] = (),
        mentions_of: Mapping[NodeKind, Sequence[str]] | None = None,
        seed_ids: Sequence[str] = (),
        seed_mentions: bool = False,
        depth: int = 0,
        rel_types: Sequence[str] | None = None,
        direction: Direction = "both",
        within: Sequence[str] | None = None,
        max_nodes: int | None = None,
        mentioning: Sequence[NodeKind] = (),
        mentioning_limit: int | None = None,
    ) -> Gathered:
        """Nodes, mentions, a walk from seeds and what mentions it: one query.

        ``search/gather_context`` answers what :func:`graphmem.backends.composed.gather`
        composes of seven operations, in one network round trip.
        """
        tenant = self._check(tenant)
        chunks, turns, entities, of, seeds, reach = check_gather(
            chunk_ids=chunk_ids,
            turn_ids=turn_ids,
            entity_ids=entity_ids,
            mentions_of=mentions_of,
            seed_ids=seed_ids,
            mentioning=mentioning,
            mentioning_limit=mentioning_limit,
        )
        depth = check_depth(depth, "depth", minimum=0)
        if max_nodes is not None:
            check_positive(max_nodes, "max_nodes")
        params: dict[str, Any] = {
            "tenant": tenant,
            "chunk_mentions": _once(of["chunk"]) if "chunk" in of else None,
            "turn_mentions": _once(of["turn"]) if "turn" in of else None,
            "seeds": _once(seeds),
            "seed_mentions": bool(seed_mentions),
            "depth": depth,
            "rel_types": check_safe_names(rel_types, "relationship type"),
            "direction": _check_direction(direction),
            "within": None if within is None else _once(check_ids(within, "within")),
            "max_nodes": _limit(max_nodes),
            "now": utcnow(),
            "reach_chunks": "chunk" in reach,
            "reach_turns": "turn" in reach,
            "mentioning_limit": _limit(mentioning_limit),
            "chunk_ids": _once(chunks),
            "turn_ids": _once(turns),
            "entity_ids": _once(entities),
        }
        [row] = self._read("search/gather_context", params)
        read_mentions = {"chunk": row["chunk_mentions"], "turn": row["turn_mentions"]}
        mentions: dict[NodeKind, dict[str, list[str]]] = {}
        for kind, ids in of.items():
            found = {m["node_id"]: sorted(m["entity_ids"]) for m in read_mentions[kind]}
            mentions[kind] = {n: found[n] for n in ids if n in found}
        subgraph = _subgraph_of(row)
        read_mentioning = {"chunk": row["mentioning_chunks"], "turn": row["mentioning_turns"]}
        by_chunk = {c["id"]: chunk_from_row(c) for c in row["chunks"]}
        by_turn = {t["id"]: turn_from_row(t) for t in row["turns"]}
        by_entity = {e["id"]: entity_from_row(e) for e in row["entities"]}
        return Gathered(
            chunks=[by_chunk[i] for i in chunks if i in by_chunk],
            turns=[by_turn[i] for i in turns if i in by_turn],
            entities=[by_entity[i] for i in entities if i in by_entity],
            mentions=mentions,
            subgraph=subgraph,
            mentioning={
                kind: dict(
                    sorted((m["entity_id"], sorted(m["node_ids"])) for m in read_mentioning[kind])
                )
                for kind in reach
            },
        )

    def search_scoped(
        self, tenant: str, searches: Sequence[ScopedSearch], *, read: bool = False
    ) -> ScopedHits:
        """Several scoped searches (and, with ``read``, their chunk and turn hits): one query.

        ``search/query_scoped_nodes`` scores each search's candidates, the nodes of its
        scope, exactly (cosine against each; the full-text index's hits kept to them), so
        no fetch grows and one network round trip answers every search.
        """
        tenant = self._check(tenant)
        checked = check_scoped_searches(searches)
        if not checked:
            return ScopedHits()
        rows: list[dict[str, Any]] = []
        dimensions: list[int | None] = []
        for search in checked:
            vector = None
            if search.vector is not None:
                params = self._vector_params(tenant, search.vector, search.k, search.scope_ids)
                vector = params["vector"]
            lucene = None if search.text is None else lucene_query(search.text)
            dimensions.append(None if vector is None else len(vector))
            rows.append(
                {
                    "vector": vector,
                    "text": lucene,
                    "k": search.k,
                    "scope": list(search.scope_ids),
                    **{kind: kind in search.kinds for kind in ("entity", "turn", "chunk")},
                }
            )
        params = {
            "tenant": tenant,
            "searches": rows,
            "read": bool(read),
            **{
                f"{kind}_text_index": FULLTEXT_INDEXES[_KINDS[kind].label]
                for kind in ("entity", "turn", "chunk")
            },
        }
        [answer] = self._read("search/query_scoped_nodes", params)
        stored = answer["dimensions"]
        found = {(row["position"], row["kind"]): row for row in answer["searches"]}
        hits: list[dict[NodeKind, SearchPair]] = []
        for position, search in enumerate(checked):
            out: dict[NodeKind, SearchPair] = {}
            for kind in search.kinds:
                # no row: the scope holds no node of the kind
                row = found.get((position, kind), {"vector": [], "text": []})
                by_vector: list[SearchHit] = []
                dimension = dimensions[position]
                if dimension is not None and stored[kind] is not None:
                    _check_stored_dimension(stored[kind], dimension, "the query vector")
                    by_vector = _vector_hits(row["vector"])
                by_text = _text_hits(row["text"]) if rows[position]["text"] is not None else []
                out[kind] = SearchPair(by_vector, by_text)
            hits.append(out)
        return ScopedHits(
            hits=hits,
            chunks=[chunk_from_row(c) for c in answer["chunks"]],
            turns=[turn_from_row(t) for t in answer["turns"]],
        )

    def _composed(self, tenant: str) -> composed.Operations:
        """The public operations, of which ``search_context`` and ``gather`` are composed.

        See :mod:`graphmem.backends.composed`: ``search_context`` takes two round trips,
        one more for a window of turn hits and one more for a scope; ``gather`` one per
        part asked for, plus one to tell which seeds are entities.
        """
        self._check(tenant)
        return self._operation
