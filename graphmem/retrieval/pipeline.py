"""The retrieval pipeline over the store protocol.

query -> (vector search, full-text search) over turns, chunks and entities
-> reciprocal-rank fusion per kind (turns: the fitted turn model over their signals,
:mod:`graphmem.retrieval.recall`) -> seed entities (named in the query, top entity hits,
entities mentioned by the top turns and chunks) -> typed k-hop expansion through the
entity graph, inside the graph scope -> turns and chunks mentioning what was reached
-> rerank (fused text score + graph proximity, fact confidence, turn recency)
-> ``ContextResult``s with provenance.

Every step is a batch call of the store (no loop of store calls over results), so a
server backend answers a retrieval in a fixed, small number of round trips.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from graphmem.errors import InvalidInput, NotFound
from graphmem.models import (
    NODE_KINDS,
    ContextResult,
    Entity,
    NodeKind,
    Provenance,
    Relationship,
    Turn,
    entity_text,
    utcnow,
)
from graphmem.retrieval.fusion import FusionSettings, reciprocal_rank_fusion
from graphmem.retrieval.ingest import EntityLinker
from graphmem.retrieval.recall import TurnPool, rank_pool, turn_pool
from graphmem.store import GraphStore, SearchPair

__all__ = ["RESULT_KINDS", "Query", "check_request", "check_scope", "run_query", "search_both"]

RESULT_KINDS = ("chunk", "turn", "entity", "relationship")
_DOC_KINDS: tuple[NodeKind, ...] = ("chunk", "turn")


@dataclass
class Query:
    """One retrieval request, checked.

    Attributes:
        text: The query text (full-text search, entity linking); None for vector-only.
        vector: The query embedding; None for full-text only.
        k: Results wanted.
        hops: Depth of the graph walk from the seeds (0: seeds only).
        scope: Entity ids of the graph scope, or None.
        kinds: Result kinds wanted.
        rel_types: Relationship types the walk may follow (None: any).
    """

    text: str | None
    vector: Any
    k: int
    hops: int
    scope: list[str] | None
    kinds: tuple[str, ...]
    rel_types: tuple[str, ...] | None = None


def check_request(
    k: int, hops: int, kinds: Sequence[str] | None
) -> tuple[int, int, tuple[str, ...]]:
    """Check ``k``, ``hops`` and ``kinds``; raise ``InvalidInput`` saying what to fix."""
    if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
        raise InvalidInput(f"k must be a positive integer, got {k!r}", k=k)
    if not isinstance(hops, int) or isinstance(hops, bool) or hops < 0:
        raise InvalidInput(f"hops must be a non-negative integer, got {hops!r}", hops=hops)
    if kinds is None:
        return k, hops, RESULT_KINDS
    if isinstance(kinds, str):
        kinds = [kinds]
    wanted = tuple(dict.fromkeys(kinds))
    bad = [kind for kind in wanted if kind not in RESULT_KINDS]
    if bad or not wanted:
        raise InvalidInput(f"kinds must be among {RESULT_KINDS}, got {list(kinds)!r}")
    return k, hops, wanted


def check_scope(store: GraphStore, tenant: str, scope: Sequence[str] | None) -> list[str] | None:
    """Check a graph scope: a non-empty list of entity ids that all exist."""
    if scope is None:
        return None
    if isinstance(scope, str):
        scope = [scope]
    ids = list(dict.fromkeys(scope))
    if not ids:
        raise InvalidInput("graph_scope is empty; pass None to search the whole memory")
    for value in ids:
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"graph_scope holds {value!r}, which is not an entity id")
    found = {e.id for e in store.get_entities(tenant, ids)}
    missing = [i for i in ids if i not in found]
    if missing:
        raise NotFound(
            f"graph_scope names entities that do not exist: {missing[:10]}",
            missing_ids=missing,
            tenant=tenant,
        )
    return ids


def search_both(
    store: GraphStore,
    tenant: str,
    kinds: Sequence[NodeKind],
    query: Query,
    settings: FusionSettings,
    k: int,
    scope: list[str] | None,
) -> dict[NodeKind, SearchPair]:
    """Vector and full-text search of ``kinds`` in one store call.

    Each side runs only when the query has it and its fusion weight is positive (``{}``
    when neither does).
    """
    vector = query.vector if settings.vector_weight > 0 else None
    text = query.text if settings.fulltext_weight > 0 else None
    if vector is None and text is None:
        return {}
    return store.hybrid_search(tenant, kinds, vector=vector, text=text, k=k, scope_ids=scope)


def _age_factor(created: datetime | None, now: datetime, settings: FusionSettings) -> float:
    if created is None or settings.recency_weight == 0:
        return 1.0
    age = max(0.0, (now - created).total_seconds())
    return float(1.0 + settings.recency_weight * 0.5 ** (age / settings.recency_half_life_s))


def _confidence_factor(rel: Relationship, settings: FusionSettings) -> float:
    confidence = 1.0 if rel.provenance.confirmed else rel.provenance.confidence
    return (1.0 - settings.confidence_weight) + settings.confidence_weight * confidence


def run_query(
    store: GraphStore,
    tenant: str,
    query: Query,
    settings: FusionSettings,
    linker: Callable[[], EntityLinker] | None,
    embed: Callable[[Sequence[str]], Any] | None = None,
) -> list[ContextResult]:
    """Run the pipeline; see the module docstring. ``embed`` serves the bridge method."""
    if settings.method == "bridge":
        from graphmem.retrieval.bridge import run_bridge_query

        return run_bridge_query(store, tenant, query, settings, linker, embed)
    scope = query.scope
    scope_set = set(scope) if scope is not None else None
    candidates = max(settings.candidates, query.k)
    model_turns = settings.turn_ranker == "model" and "turn" in query.kinds
    searched_k = max(candidates, settings.turn_candidates) if model_turns else candidates

    # 1. search every kind both ways, fuse per kind (turns: the turn model)
    fused: dict[str, dict[str, float]] = {}
    text_signal: dict[tuple[str, str], dict[str, float]] = {}
    searched = search_both(store, tenant, NODE_KINDS, query, settings, searched_k, scope)
    pool: TurnPool | None = None
    for kind in NODE_KINDS:
        rankings: list[tuple[list[str], float]] = []
        pair = searched.get(kind)
        if pair is not None and kind != "turn" and searched_k > candidates:
            pair = SearchPair(pair.vector[:candidates], pair.text[:candidates])
        if pair is not None:
            for hits, asked, weight, signal in (
                (pair.vector, query.vector, settings.vector_weight, "vector_rank"),
                (pair.text, query.text, settings.fulltext_weight, "fulltext_rank"),
            ):
                if asked is not None and weight > 0:
                    rankings.append(([h.id for h in hits], weight))
                for rank, hit in enumerate(hits, 1):
                    text_signal.setdefault((kind, hit.id), {})[signal] = rank
        fused[kind] = reciprocal_rank_fusion(rankings, settings.rrf_k)
        if kind == "turn" and model_turns and pair is not None:
            # In a graph scope the neighbours' own scope is unknown: read the hits alone.
            depth = settings.turn_context if scope is None else 0
            pool = turn_pool(store, tenant, query.text, pair, depth=depth)
            top_fused = max(fused["turn"].values(), default=1.0)
            ranked = rank_pool(pool, settings.turn_weights, settings)
            fused["turn"] = {node: value * top_fused for node, value in ranked.items()}

    # 2. seeds
    seeds: dict[str, float] = {}

    def seed(entity_id: str, weight: float) -> None:
        if scope_set is None or entity_id in scope_set:
            seeds[entity_id] = max(seeds.get(entity_id, 0.0), weight)

    if settings.graph_weight > 0:
        if settings.link_query and query.text is not None and linker is not None:
            for entity_id in linker().link(query.text):
                seed(entity_id, 1.0)
        if settings.seeds:
            top_entities = sorted(fused["entity"].items(), key=lambda kv: -kv[1])
            for entity_id, score in top_entities[: settings.seeds]:
                seed(entity_id, score)
            for kind in _DOC_KINDS:
                best = sorted(fused[kind].items(), key=lambda kv: -kv[1])[: settings.seeds]
                if not best:
                    continue
                mentioned = store.get_mentions(tenant, kind, [node for node, _s in best])
                for node, score in best:
                    for entity_id in mentioned.get(node, ()):
                        seed(entity_id, score)

    # 3. expand through the entity graph
    proximity: dict[str, float] = dict(seeds)
    distance: dict[str, int] = dict.fromkeys(seeds, 0)
    entities: dict[str, Entity] = {}
    facts: list[Relationship] = []
    if seeds:
        sub = store.expand(
            tenant,
            list(seeds),
            depth=query.hops,
            rel_types=query.rel_types,
            within=scope,
            max_nodes=max(500, len(seeds)),
        )
        entities = {e.id: e for e in sub.entities}
        facts = list(sub.relationships)
        for _hop in range(query.hops):
            changed = False
            for rel in facts:
                for a, b in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
                    if a in proximity:
                        reach = proximity[a] * settings.hop_decay
                        if reach > proximity.get(b, 0.0):
                            proximity[b] = reach
                            changed = True
                        if distance[a] + 1 < distance.get(b, 1 << 30):
                            distance[b] = distance[a] + 1
                            changed = True
            if not changed:
                break

    # 4. turns and chunks mentioning what the walk reached
    graph_score: dict[str, dict[str, float]] = {"chunk": {}, "turn": {}}
    reached: dict[str, list[tuple[float, str, list[str]]]] = {"chunk": [], "turn": []}
    if proximity:
        nearest = sorted(proximity, key=lambda e: (-proximity[e], e))[: settings.reach_entities]
        limit = settings.max_mentioning
        for kind in _DOC_KINDS:
            if kind not in query.kinds:
                continue
            found = store.find_mentioning(tenant, kind, nearest, limit=limit + 1)
            scores = graph_score[kind]
            get = scores.get
            for entity_id, nodes in found.items():
                gain = proximity[entity_id] / max(1, len(nodes)) ** settings.hub_damping
                capped = nodes[:limit]
                reached[kind].append((gain, entity_id, capped))
                for node in capped:
                    scores[node] = get(node, 0.0) + gain

    # 5. score every candidate; best first is the smallest (-score, kind, id)
    scored: list[tuple[float, str, str]] = []
    weight = settings.graph_weight
    for kind in _DOC_KINDS:
        if kind not in query.kinds:
            continue
        text_scores, graph_scores = fused[kind], graph_score[kind]
        text_get, graph_get = text_scores.get, graph_scores.get
        scored.extend(
            (-(text_get(node, 0.0) + weight * graph_get(node, 0.0)), kind, node)
            for node in text_scores.keys() | _graph_contenders(graph_scores, query.k)
        )
    if "entity" in query.kinds:
        text_get = fused["entity"].get
        scored.extend(
            (
                -(text_get(entity_id, 0.0) + weight * proximity.get(entity_id, 0.0)),
                "entity",
                entity_id,
            )
            for entity_id in fused["entity"].keys() | proximity.keys()
        )
    rel_by_key: dict[str, Relationship] = {}
    if "relationship" in query.kinds and settings.relationship_results:
        for rel in facts:
            ends = (proximity.get(rel.source_id, 0.0), proximity.get(rel.target_id, 0.0))
            score = settings.graph_weight * sum(ends) / 2 * _confidence_factor(rel, settings)
            key = f"{rel.source_id}|{rel.type}|{rel.target_id}"
            rel_by_key[key] = rel
            scored.append((-score, "relationship", key))
    known = pool.turns if pool is not None else None
    top = cut(store, tenant, scored, query, settings, known)
    if pool is not None:
        in_pool = set(pool.ids)
        for _score, of, node in top:
            if of == "turn" and node in in_pool:
                signals = {name: v for name, v in pool.signals(node).items() if v}
                text_signal.setdefault(("turn", node), {}).update(signals)
    return _materialise(
        store,
        tenant,
        top,
        entities,
        rel_by_key,
        _anchors(top, reached),
        distance,
        text_signal,
        known,
    )


def cut(
    store: GraphStore,
    tenant: str,
    scored: list[tuple[float, str, str]],
    query: Query,
    settings: FusionSettings,
    known: Mapping[str, Turn] | None = None,
) -> list[tuple[float, str, str]]:
    """The best ``query.k`` of (-score, kind, id) candidates, as (score, kind, id).

    Turns get their recency boost (at most 1 + recency_weight) before the cut, so every
    turn that could still enter the top k is fetched for its time, and no more (none
    when ``known`` holds them already).
    """
    if "turn" in query.kinds and settings.recency_weight > 0:
        turns = heapq.nsmallest(query.k, [i for i in scored if i[1] == "turn"])
        if turns:
            now = utcnow()
            times = {
                t.id: t.created_at for t in _turns(store, tenant, [n for _s, _k, n in turns], known)
            }
            boosted = {n: s * _age_factor(times.get(n), now, settings) for s, _k, n in turns}
            scored = [
                (boosted.get(n, s) if kind == "turn" else s, kind, n) for s, kind, n in scored
            ]
    return [(-s, kind, node) for s, kind, node in heapq.nsmallest(query.k, scored) if s < 0]


def _turns(
    store: GraphStore, tenant: str, ids: Sequence[str], known: Mapping[str, Turn] | None
) -> list[Turn]:
    """The turns of ``ids`` that exist: from ``known``, the rest in one batch call."""
    if not ids:
        return []
    have = known or {}
    missing = [i for i in ids if i not in have]
    fetched = {t.id: t for t in store.get_turns(tenant, missing)} if missing else {}
    return [t for i in ids if (t := have.get(i) or fetched.get(i)) is not None]


def _graph_contenders(graph_scores: dict[str, float], k: int) -> list[str] | dict[str, float]:
    """The nodes whose graph score alone could still place them in the top ``k``.

    A node's score is its text score plus ``graph_weight`` times its graph score, so a
    node without a text score whose graph score is below the k-th best graph score is
    beaten by k others and cannot make the cut. Keeping ties keeps the cut exact; the
    walk may reach thousands of passages, and only these few are worth scoring.
    """
    if len(graph_scores) <= k:
        return graph_scores
    threshold = sorted(graph_scores.values(), reverse=True)[k - 1]
    return [node for node, value in graph_scores.items() if value >= threshold]


def _anchors(
    top: list[tuple[float, str, str]], reached: dict[str, list[tuple[float, str, list[str]]]]
) -> dict[tuple[str, str], tuple[float, str]]:
    """For each top turn / chunk reached by the walk, the entity that gave it the most."""
    best: dict[tuple[str, str], tuple[float, str]] = {}
    for kind, via in reached.items():
        wanted = {node for _s, of, node in top if of == kind}
        if not wanted:
            continue
        for gain, entity_id, nodes in via:
            for node in wanted.intersection(nodes):
                key = (kind, node)
                if gain > best.get(key, (0.0, ""))[0]:
                    best[key] = (gain, entity_id)
    return best


def _materialise(
    store: GraphStore,
    tenant: str,
    top: list[tuple[float, str, str]],
    entities: dict[str, Entity],
    rel_by_key: dict[str, Relationship],
    best_anchor: dict[tuple[str, str], tuple[float, str]],
    distance: dict[str, int],
    text_signal: dict[tuple[str, str], dict[str, float]],
    known: Mapping[str, Turn] | None = None,
) -> list[ContextResult]:
    """Fetch what the top results are (one batch call per kind) and build ContextResults.

    Turns in ``known`` (fetched already by the turn model) are not fetched again.
    """
    by_kind: dict[str, list[str]] = {}
    for _score, kind, node in top:
        by_kind.setdefault(kind, []).append(node)
    chunks = {c.id: c for c in store.get_chunks(tenant, by_kind.get("chunk", []))}
    turns = {t.id: t for t in _turns(store, tenant, by_kind.get("turn", []), known)}
    wanted = set(by_kind.get("entity", []))
    for key in by_kind.get("relationship", []):
        rel = rel_by_key[key]
        wanted.update((rel.source_id, rel.target_id))
    missing = [e for e in wanted if e not in entities]
    if missing:
        entities.update({e.id: e for e in store.get_entities(tenant, missing)})
    mentions: dict[str, dict[str, list[str]]] = {}
    for kind in _DOC_KINDS:
        unanchored = [n for n in by_kind.get(kind, []) if (kind, n) not in best_anchor]
        mentions[kind] = store.get_mentions(tenant, kind, unanchored) if unanchored else {}

    out: list[ContextResult] = []
    for score, kind, node in top:
        signals = dict(text_signal.get((kind, node), {}))
        if kind == "chunk":
            chunk = chunks.get(node)
            if chunk is None:
                continue
            title = chunk.attributes.get("title")
            anchor = best_anchor.get((kind, node), (0.0, None))[1] or next(
                iter(mentions[kind].get(node, [])), None
            )
            out.append(
                ContextResult(
                    kind="chunk",
                    source_id=node,
                    content=f"{title}: {chunk.text}" if isinstance(title, str) else chunk.text,
                    score=score,
                    anchor_entity_id=anchor,
                    hops=distance.get(anchor) if anchor else None,
                    provenance=Provenance(source="imported", evidence=(node,)),
                    created_at=chunk.created_at,
                    signals=signals,
                )
            )
        elif kind == "turn":
            turn = turns.get(node)
            if turn is None:
                continue
            anchor = best_anchor.get((kind, node), (0.0, None))[1] or next(
                iter(mentions[kind].get(node, [])), None
            )
            out.append(
                ContextResult(
                    kind="turn",
                    source_id=node,
                    content=f"{turn.speaker or turn.role}: {turn.content}",
                    score=score,
                    anchor_entity_id=anchor,
                    hops=distance.get(anchor) if anchor else None,
                    provenance=Provenance(
                        session_id=turn.session_id, source="stated", evidence=(node,)
                    ),
                    created_at=turn.created_at,
                    signals=signals,
                )
            )
        elif kind == "entity":
            entity = entities.get(node)
            if entity is None:
                continue
            out.append(
                ContextResult(
                    kind="entity",
                    source_id=node,
                    content=f"{entity_text(entity)} [{entity.type}]",
                    score=score,
                    anchor_entity_id=node,
                    hops=distance.get(node),
                    created_at=entity.updated_at,
                    signals=signals,
                )
            )
        else:
            rel = rel_by_key[node]
            source, target = entities.get(rel.source_id), entities.get(rel.target_id)
            if source is None or target is None:
                continue
            out.append(
                ContextResult(
                    kind="relationship",
                    source_id=node,
                    content=f"{source.name} {rel.type.replace('_', ' ')} {target.name}",
                    score=score,
                    anchor_entity_id=rel.source_id,
                    hops=min(
                        distance.get(rel.source_id, 1 << 30), distance.get(rel.target_id, 1 << 30)
                    ),
                    provenance=rel.provenance,
                    created_at=rel.created_at,
                    signals=signals,
                )
            )
    return out
