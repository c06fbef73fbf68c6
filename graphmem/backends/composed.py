"""Retrieval's composite reads (``search_context``, ``gather``, ``search_scoped``).

They are made of store operations.

Each part is the answer of the protocol operation it stands for, so a backend that
answers the composite this way answers exactly what those operations answer. ``op``
names how an operation is reached: the embedded backend passes its operations without
their lock and tracer (the whole composite is one operation under one lock); a server
backend without a one-round-trip query of its own passes its public operations (one
round trip each).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from graphmem.core.models import Direction, NodeKind, Subgraph
from graphmem.core.store import (
    Gathered,
    ScopedHits,
    ScopedSearch,
    SearchContext,
    check_gather,
    check_scoped_searches,
    check_window_depth,
)

__all__ = ["ComposedReads", "Operations", "gather", "search_context", "search_scoped"]

Operations = Callable[[str], Callable[..., Any]]
"""Gives the store operation of a name (``"hybrid_search"``, ``"expand"``, ...)."""


def search_context(
    op: Operations,
    tenant: str,
    kinds: Sequence[NodeKind],
    *,
    vector: Any,
    text: str | None,
    k: int,
    scope_ids: Sequence[str] | None,
    window_depth: int | None,
) -> SearchContext:
    """``hybrid_search``, the turn hits' window and the unknown scope ids."""
    if window_depth is not None:
        check_window_depth(window_depth)
    hits = op("hybrid_search")(tenant, kinds, vector=vector, text=text, k=k, scope_ids=scope_ids)
    window = []
    pair = hits.get("turn")
    if window_depth is not None and pair is not None:
        ids = list(dict.fromkeys([*(h.id for h in pair.text), *(h.id for h in pair.vector)]))
        if ids:
            window = op("turn_window")(tenant, ids, depth=window_depth)
    unknown: list[str] = []
    if scope_ids is not None:
        scope = list(dict.fromkeys(scope_ids))
        found = {e.id for e in op("get_entities")(tenant, scope)}
        unknown = [i for i in scope if i not in found]
    return SearchContext(hits, window, op("entity_version")(tenant), unknown)


def gather(
    op: Operations,
    tenant: str,
    *,
    chunk_ids: Sequence[str],
    turn_ids: Sequence[str],
    entity_ids: Sequence[str],
    mentions_of: Mapping[NodeKind, Sequence[str]] | None,
    seed_ids: Sequence[str],
    seed_mentions: bool,
    depth: int,
    rel_types: Sequence[str] | None,
    direction: Direction,
    within: Sequence[str] | None,
    max_nodes: int | None,
    mentioning: Sequence[NodeKind],
    mentioning_limit: int | None,
    is_entity: Callable[[str], bool] | None = None,
) -> Gathered:
    """The parts of :meth:`GraphStore.gather`, each from the operation it stands for.

    ``is_entity`` tells the seeds that are entities; None: ``get_entities`` tells.
    """
    chunks, turns, entities, of, seeds, reach = check_gather(
        chunk_ids=chunk_ids,
        turn_ids=turn_ids,
        entity_ids=entity_ids,
        mentions_of=mentions_of,
        seed_ids=seed_ids,
        mentioning=mentioning,
        mentioning_limit=mentioning_limit,
    )
    mentions = {kind: op("get_mentions")(tenant, kind, ids) for kind, ids in of.items()}
    walk_from = dict.fromkeys(seeds)
    if seed_mentions:
        allowed = None if within is None else set(within)
        for found in mentions.values():
            for ids in found.values():
                walk_from.update(dict.fromkeys(e for e in ids if allowed is None or e in allowed))
    if is_entity is None and walk_from:
        known = {e.id for e in op("get_entities")(tenant, list(walk_from))}
        is_entity = known.__contains__
    # expand checks its own arguments even when no seed is left to walk from
    subgraph = op("expand")(
        tenant,
        [e for e in walk_from if is_entity is None or is_entity(e)],
        depth=depth,
        rel_types=rel_types,
        direction=direction,
        within=within,
        max_nodes=max_nodes,
    )
    members = sorted(e.id for e in subgraph.entities)
    reached = {
        kind: op("find_mentioning")(tenant, kind, members, limit=mentioning_limit) for kind in reach
    }
    return Gathered(
        chunks=op("get_chunks")(tenant, chunks) if chunks else [],
        turns=op("get_turns")(tenant, turns) if turns else [],
        entities=op("get_entities")(tenant, entities) if entities else [],
        mentions=mentions,
        subgraph=subgraph if subgraph.entities else Subgraph(entities=(), relationships=()),
        mentioning={kind: dict(sorted(found.items())) for kind, found in reached.items()},
    )


def search_scoped(
    op: Operations, tenant: str, searches: Sequence[ScopedSearch], *, read: bool
) -> ScopedHits:
    """One ``hybrid_search`` per search; with ``read``, the chunk and turn hits read."""
    checked = check_scoped_searches(searches)
    hits = [
        op("hybrid_search")(
            tenant, s.kinds, vector=s.vector, text=s.text, k=s.k, scope_ids=s.scope_ids
        )
        for s in checked
    ]
    if not read:
        return ScopedHits(hits=hits)
    found: dict[str, set[str]] = {"chunk": set(), "turn": set()}
    for answer in hits:
        for kind, pair in answer.items():
            if kind in found:
                found[kind].update(h.id for h in (*pair.vector, *pair.text))
    chunks = sorted(found["chunk"])
    turns = sorted(found["turn"])
    return ScopedHits(
        hits=hits,
        chunks=op("get_chunks")(tenant, chunks) if chunks else [],
        turns=op("get_turns")(tenant, turns) if turns else [],
    )


class ComposedReads:
    """``search_context`` and ``gather`` for a backend that composes them of its operations.

    The backend says how its operations are reached for a tenant (:meth:`_composed`) and,
    if it can tell cheaply, which ids are entities (:meth:`_entity_test`); the signatures
    and the composition are written once, here.
    """

    def _composed(self, tenant: str) -> Operations:
        """How the operations are reached for ``tenant`` (after any check of the tenant)."""
        raise NotImplementedError

    def _entity_test(self, tenant: str) -> Callable[[str], bool] | None:
        """Tells the ids of ``tenant`` that are entities; None: ``get_entities`` tells."""
        return None

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
        """``hybrid_search``, the turn hits' window, the unknown scope, the entity version."""
        return search_context(
            self._composed(tenant),
            tenant,
            kinds,
            vector=vector,
            text=text,
            k=k,
            scope_ids=scope_ids,
            window_depth=window_depth,
        )

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
        """Nodes, mentions, a walk from seeds and what mentions it."""
        return gather(
            self._composed(tenant),
            tenant,
            chunk_ids=chunk_ids,
            turn_ids=turn_ids,
            entity_ids=entity_ids,
            mentions_of=mentions_of,
            seed_ids=seed_ids,
            seed_mentions=seed_mentions,
            depth=depth,
            rel_types=rel_types,
            direction=direction,
            within=within,
            max_nodes=max_nodes,
            mentioning=mentioning,
            mentioning_limit=mentioning_limit,
            is_entity=self._entity_test(tenant),
        )

    def search_scoped(
        self, tenant: str, searches: Sequence[ScopedSearch], *, read: bool = False
    ) -> ScopedHits:
        """Several scoped ``hybrid_search`` es; with ``read``, their chunk and turn hits."""
        return search_scoped(self._composed(tenant), tenant, searches, read=read)
