"""Bridge retrieval: multi-hop over documents without an LLM (``method="bridge"``).

A multi-hop question ("where is the publisher of X's first novel based?") names the first
passage it needs, rarely the second: that one is found through a *bridge* entity the first
passage mentions (the publisher). Each round of this method:

1. takes the best ``seeds`` turns / chunks so far (round one: the fused vector + full-text
   ranking) and the entities the query names (entity linking);
2. collects the entities they mention (``get_mentions``) and, when the memory holds facts,
   the entities one fact away (``expand``, scaled by ``hop_decay``), each weighted by the
   score of the passage it came from (1 for an entity the query names);
3. reaches the turns / chunks mentioning those entities (``find_mentioning``), and ranks
   the reached ones by their own relevance to the query: vector and full-text search
   scoped to the bridge entities, fused by reciprocal rank;
4. scores every passage ``text + graph_weight x bridge x relevance``, where ``bridge`` is
   the best weight of a path from *another* passage (or the query) through an entity,
   divided by that entity's mention count ``** hub_damping`` (an entity mentioned
   everywhere links nothing specific; one mentioned by more than ``max_mentioning``
   passages is skipped).

``hops`` rounds run (the ranking of one round picks the sources of the next), so a third
passage reached from the second can rise too. Every step is one batch call of the store
per kind, so a round costs a fixed number of round trips whatever the number of hits.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Mapping
from typing import Any

from graphmem.models import ContextResult, NodeKind, Relationship
from graphmem.retrieval.fusion import FusionSettings, reciprocal_rank_fusion
from graphmem.retrieval.ingest import EntityLinker
from graphmem.store import GraphStore

__all__ = ["run_bridge_query"]

_DOC_KINDS: tuple[NodeKind, ...] = ("chunk", "turn")
Doc = tuple[NodeKind, str]


def _scaled(scores: Mapping[Any, float]) -> dict[Any, float]:
    top = max(scores.values(), default=0.0)
    return {key: value / top for key, value in scores.items()} if top > 0 else {}


def run_bridge_query(
    store: GraphStore,
    tenant: str,
    query: Any,
    settings: FusionSettings,
    linker: Callable[[], EntityLinker] | None,
) -> list[ContextResult]:
    """Run the bridge method; see the module docstring. ``query`` is a pipeline ``Query``."""
    from graphmem.retrieval.pipeline import _confidence_factor, _materialise, cut, search_both

    scope = query.scope
    scope_set = set(scope) if scope is not None else None
    candidates = max(settings.candidates, query.k)
    doc_kinds = [kind for kind in _DOC_KINDS if kind in query.kinds]
    search_kinds: list[NodeKind] = list(doc_kinds)
    if "entity" in query.kinds:
        search_kinds.append("entity")

    def search(
        kinds: list[NodeKind], k: int, within: list[str] | None
    ) -> dict[NodeKind, dict[str, float]]:
        """Each kind's vector and full-text rankings, fused and scaled to a best of 1."""
        found = search_both(store, tenant, kinds, query, settings, k, within)
        return {
            kind: _scaled(
                reciprocal_rank_fusion(
                    [
                        ([h.id for h in pair.vector], settings.vector_weight),
                        ([h.id for h in pair.text], settings.fulltext_weight),
                    ],
                    settings.rrf_k,
                )
            )
            for kind, pair in found.items()
        }

    # 1. text: vector and full text, fused per kind
    text_signal: dict[tuple[str, str], dict[str, float]] = {}
    text: dict[Doc, float] = {}
    entity_text: dict[str, float] = {}
    for kind, scores in search(search_kinds, candidates, scope).items():
        if kind == "entity":
            entity_text = scores
            continue
        for node, value in scores.items():
            text[(kind, node)] = value
            text_signal[(kind, node)] = {"text_score": value}

    linked: list[str] = []
    if settings.link_query and query.text is not None and linker is not None:
        linked = [e for e in linker().link(query.text) if scope_set is None or e in scope_set]

    # 2. rounds of bridging from the best passages so far
    current = dict(text)
    via: dict[str, float] = {}  # entity -> best path weight into it (for entity results)
    facts: dict[str, Relationship] = {}
    anchor: dict[tuple[str, str], tuple[float, str]] = {}
    rounds = query.hops if settings.graph_weight > 0 and settings.seeds > 0 else 0
    for _round in range(rounds):
        top = heapq.nsmallest(settings.seeds, current.items(), key=lambda kv: (-kv[1], kv[0]))
        if not top and not linked:
            break
        best = _scaled(dict(top))
        sources: dict[str, list[tuple[float, Doc | None]]] = {e: [(1.0, None)] for e in linked}
        for kind in doc_kinds:
            nodes = [node for (k, node), _s in top if k == kind]
            for node, ents in (store.get_mentions(tenant, kind, nodes) if nodes else {}).items():
                for entity_id in ents:
                    if scope_set is None or entity_id in scope_set:
                        sources.setdefault(entity_id, []).append((best[(kind, node)], (kind, node)))
        if not sources:
            break
        if query.hops > 0 and settings.hop_decay > 0:
            sub = store.expand(
                tenant,
                sorted(sources),
                depth=1,
                rel_types=query.rel_types,
                within=scope,
                max_nodes=max(settings.max_mentioning, len(sources)),
            )
            known = {e: max(s for s, _src in paths) for e, paths in sources.items()}
            for rel in sub.relationships:
                facts[f"{rel.source_id}|{rel.type}|{rel.target_id}"] = rel
                for a, b in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
                    if a in known and b not in known:
                        sources.setdefault(b, []).append((known[a] * settings.hop_decay, None))
        entity_ids = sorted(sources)
        for entity_id, paths in sources.items():
            via[entity_id] = max(via.get(entity_id, 0.0), max(s for s, _src in paths))
        bridge: dict[Doc, float] = {}
        specific_ids: set[str] = set()
        reached: dict[str, set[str]] = {kind: set() for kind in doc_kinds}
        for kind in doc_kinds:
            found = store.find_mentioning(
                tenant, kind, entity_ids, limit=settings.max_mentioning + 1
            )
            for entity_id, nodes in found.items():
                if len(nodes) > settings.max_mentioning:
                    continue  # a hub: mentioned nearly everywhere, it links nothing specific
                specific_ids.add(entity_id)
                reached[kind].update(nodes)
                specific = 1.0 / len(nodes) ** settings.hub_damping
                paths = sources[entity_id]
                for node in nodes:
                    doc: Doc = (kind, node)
                    gain = max((s for s, src in paths if src != doc), default=0.0) * specific
                    if gain > bridge.get(doc, 0.0):
                        bridge[doc] = gain
                        anchor[doc] = (gain, entity_id)
        relevance: dict[Doc, float] = {}
        reached_kinds = [kind for kind in doc_kinds if reached[kind]]
        if reached_kinds:
            # Scoped to the bridge entities, so these are the reached passages' ranks.
            size = max(len(reached[kind]) for kind in reached_kinds)
            for kind, scores in search(reached_kinds, size, sorted(specific_ids)).items():
                for node, value in scores.items():
                    relevance[(kind, node)] = value
        current = dict(text)
        for doc, gain in bridge.items():
            boost = settings.graph_weight * gain * relevance.get(doc, 0.0)
            if boost > 0:
                current[doc] = current.get(doc, 0.0) + boost
                text_signal.setdefault(doc, {})["bridge"] = gain

    # 3. results
    scored: list[tuple[float, str, str]] = [(s, kind, node) for (kind, node), s in current.items()]
    entity_via = _scaled(via)
    if "entity" in query.kinds:
        for entity_id in set(entity_text) | set(entity_via) | set(linked):
            score = entity_text.get(entity_id, 0.0) + settings.graph_weight * entity_via.get(
                entity_id, 1.0 if entity_id in linked else 0.0
            )
            scored.append((score, "entity", entity_id))
    rel_by_key: dict[str, Relationship] = {}
    if "relationship" in query.kinds and settings.relationship_results:
        for key, rel in facts.items():
            ends = entity_via.get(rel.source_id, 0.0) + entity_via.get(rel.target_id, 0.0)
            factor = _confidence_factor(rel, settings)
            rel_by_key[key] = rel
            scored.append((settings.graph_weight * ends / 2 * factor, "relationship", key))
    top_k = cut(store, tenant, [(-s, kind, n) for s, kind, n in scored], query, settings)
    distance = dict.fromkeys(linked, 0)
    return _materialise(store, tenant, top_k, {}, rel_by_key, dict(anchor), distance, text_signal)
