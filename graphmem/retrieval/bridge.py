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
   the passages reached from each source by their relevance to what the source leaves
   unanswered: the *residual query*, the query's words that neither the source nor the
   passages that led to it contain (``residual_query``; vector and full-text search
   scoped to the source's bridge entities, fused by reciprocal rank). "Who was president
   when the state where X is located joined the Union?" bridges from X's passage, which
   names the state, to passages about the state ranked by "president joined Union".
   Passages reached from the query's own entities are ranked by the whole query;
4. scores every passage ``text + graph_weight x bridge``, where ``bridge`` is the best
   path from *another* passage (or the query) through an entity: the source's weight x
   the entity's specificity x the passage's relevance to the source's residual query.
   Specificity is 1 for a passage *about* the entity (its document's ``entity_ids``: the
   entity's own page, as a hyperlink leads to) and otherwise 1 over the entity's mention
   count ``** hub_damping`` (an entity mentioned everywhere links nothing specific; one
   mentioned by more than ``max_mentioning`` passages is skipped).

``hops`` rounds run (the ranking of one round picks the sources of the next), so a third
passage reached from the second can rise too. With ``rounds`` set (preset ``passages``:
one), ``follow_rounds`` more run only on evidence: a multi-part question whose best
passage after the last round is one that round reached (its mentions unread) and whose
chain leaves question words unanswered. A round costs one :meth:`GraphStore.gather`
call (the sources' mentions and texts, the walk one fact away, what mentions every
source), one read of the reached chunks' pages, and one scoped search per distinct
residual query (at most ``seeds`` + 1); the first search and the final read are one call
each. So a round costs a bounded number of round trips whatever the number of hits.

:class:`BridgeRetriever` runs it (preset ``multihop``).
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from graphmem.core.models import ContextResult, NodeKind, Relationship
from graphmem.core.store import ScopedSearch
from graphmem.core.words import query_words
from graphmem.retrieval.fusion import FusionSettings, reciprocal_rank_fusion
from graphmem.retrieval.slots import multi_part, place, slot_pick
from graphmem.retrieval.steps import (
    Known,
    Query,
    Retriever,
    Walk,
    confidence_factor,
    finish,
    rel_key,
    search,
)

__all__ = ["BridgeRetriever", "residual_words"]

_DOC_KINDS: tuple[NodeKind, ...] = ("chunk", "turn")
Doc = tuple[NodeKind, str]
_STEM = 5  # words agree when equal, or when both have at least this many letters in common
_FOLLOW_LEFT = 2  # a round more only when the chain so far leaves this many query words


def _scaled(scores: Mapping[Any, float]) -> dict[Any, float]:
    top = max(scores.values(), default=0.0)
    return {key: value / top for key, value in scores.items()} if top > 0 else {}


def _stems(text: str) -> set[str]:
    """The words of ``text`` as :func:`query_words` reads them, and their first letters."""
    words = set(query_words(text))
    return words | {w[:_STEM] for w in words if len(w) >= _STEM}


def residual_words(words: Sequence[str], covered: set[str]) -> list[str]:
    """The query words a passage leaves unanswered: those it does not contain.

    ``covered`` is :func:`_stems` of the passage (and of the passages that led to it); a
    word counts as contained when it or, for words of five letters or more, its first
    five letters is there ("located" is covered by "location").

    >>> residual_words(["population", "state", "airport", "located"],
    ...                _stems("Dodge City Regional Airport is a public airport located in Kansas"))
    ['population', 'state']
    """
    return [w for w in words if w not in covered and (len(w) < _STEM or w[:_STEM] not in covered)]


def _fused_scaled(found: Mapping[NodeKind, Any], settings: FusionSettings) -> dict[Doc, float]:
    """Each kind's vector and full-text rankings, fused and scaled to a best of 1."""
    scores: dict[Doc, float] = {}
    for kind, pair in found.items():
        fused = reciprocal_rank_fusion(
            [
                ([h.id for h in pair.vector], settings.vector_weight),
                ([h.id for h in pair.text], settings.fulltext_weight),
            ],
            settings.rrf_k,
        )
        scores.update(((kind, node), value) for node, value in _scaled(fused).items())
    return scores


class BridgeRetriever(Retriever):
    """Multi-hop retrieval over documents without an LLM (presets ``passages``, ``multihop``).

    See the module docstring for the method. The settings' ``method`` is not read: this
    retriever is the bridge method; ``hops`` is its number of rounds (at most
    ``settings.rounds`` when set, and then up to ``settings.follow_rounds`` more when the
    chain goes on: :func:`_follows`).
    """

    default_preset = "multihop"

    def run(self, query: Query) -> list[ContextResult]:
        """Run the bridge method; see the module docstring.

        The residual queries are embedded for their vector search when the query has a
        vector; otherwise they are searched by full text only.
        """
        store, tenant, settings = self.store, self.tenant, self.settings
        scope = query.scope
        scope_set = set(scope) if scope is not None else None
        candidates = max(settings.candidates, query.k)
        doc_kinds = [kind for kind in _DOC_KINDS if kind in query.kinds]
        search_kinds: list[NodeKind] = list(doc_kinds)
        if "entity" in query.kinds:
            search_kinds.append("entity")

        # 1. text: vector and full text, fused per kind (one call, the scope checked)
        first = search(store, tenant, query, settings, search_kinds, candidates)
        text_signal: dict[tuple[str, str], dict[str, float]] = {}
        text: dict[Doc, float] = {}
        entity_text: dict[str, float] = {}
        for (kind, node), value in _fused_scaled(first.hits, settings).items():
            if kind == "entity":
                entity_text[node] = value
            else:
                text[(kind, node)] = value
                text_signal[(kind, node)] = {"text_score": value}

        linked: list[str] = []
        if settings.link_query and query.text is not None:
            linker = self.linking.linker(first.entity_version or None)
            linked = [e for e in linker.link(query.text) if scope_set is None or e in scope_set]

        words = query_words(query.text) if query.text is not None else []
        chain: dict[Doc, set[str]] = {}  # passage -> _stems of the passages that led to it
        covered: dict[Doc, set[str]] = {}  # seed -> _stems of itself and of its chain
        about: dict[str, frozenset[str]] = {}  # chunk -> the entities its document is about
        walks = query.hops > 0 and settings.hop_decay > 0
        cover = settings.residual_query and bool(words)
        # What the results are made of, read as the rounds go: the first round's gather
        # reads the passages that can make the top k on their text alone, each round's
        # scoped search the passages it ranks; the final read asks only for the rest.
        known = Known()
        by_text = heapq.nsmallest(query.k, text.items(), key=lambda kv: (-kv[1], kv[0]))

        # 2. rounds of bridging from the best passages so far
        current = dict(text)
        via: dict[str, float] = {}  # entity -> best path weight into it (for entity results)
        facts: dict[str, Relationship] = {}
        anchor: dict[tuple[str, str], tuple[float, str]] = {}
        most = query.hops if settings.graph_weight > 0 and settings.seeds > 0 else 0
        rounds = most if settings.rounds is None else min(most, settings.rounds)
        most = min(most, rounds + settings.follow_rounds)  # rounds more on evidence
        steps = multi_part(query.text)
        round_ = -1
        while round_ + 1 < rounds:
            round_ += 1
            top = heapq.nsmallest(settings.seeds, current.items(), key=lambda kv: (-kv[1], kv[0]))
            if not top and not linked:
                break
            best = _scaled(dict(top))
            nodes = {kind: [node for (k, node), _s in top if k == kind] for kind in doc_kinds}
            read = {kind: list(ids) if cover else [] for kind, ids in nodes.items()}
            if round_ == 0:
                for (kind, node), _s in by_text:
                    read.setdefault(kind, []).append(node)
            read = {
                kind: [n for n in dict.fromkeys(ids) if n not in known.of(kind)]
                for kind, ids in read.items()
            }
            gathered = store.gather(
                tenant,
                chunk_ids=read.get("chunk", []),
                turn_ids=read.get("turn", []),
                mentions_of={kind: ids for kind, ids in nodes.items() if ids},
                seed_ids=linked,
                seed_mentions=True,
                depth=1 if walks else 0,
                rel_types=query.rel_types,
                within=scope,
                max_nodes=settings.max_mentioning,
                mentioning=doc_kinds,
                mentioning_limit=settings.max_mentioning + 1,
            )
            known.add(gathered.chunks, gathered.turns, gathered.mentions, asked=nodes)
            sources: dict[str, list[tuple[float, Doc | None]]] = {e: [(1.0, None)] for e in linked}
            for kind in doc_kinds:
                for node, ents in gathered.mentions.get(kind, {}).items():
                    for entity_id in ents:
                        if scope_set is None or entity_id in scope_set:
                            sources.setdefault(entity_id, []).append(
                                (best[(kind, node)], (kind, node))
                            )
            if not sources:
                break
            if walks:
                near = {e: max(s for s, _src in paths) for e, paths in sources.items()}
                for rel in gathered.subgraph.relationships:
                    facts[rel_key(rel)] = rel
                    for a, b in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
                        if a in near and b not in near:
                            sources.setdefault(b, []).append((near[a] * settings.hop_decay, None))
            for entity_id, paths in sources.items():
                via[entity_id] = max(via.get(entity_id, 0.0), max(s for s, _src in paths))
            reached: dict[tuple[NodeKind, str], list[str]] = {}  # (kind, entity) -> passages
            for kind in doc_kinds:
                found = gathered.mentioning.get(kind, {})
                for entity_id in sorted(sources):
                    mentioned = found.get(entity_id)
                    # a hub (mentioned nearly everywhere) links nothing specific
                    if mentioned and len(mentioned) <= settings.max_mentioning:
                        reached[(kind, entity_id)] = mentioned
            if not reached:
                break
            if cover:
                _cover(known, [doc for doc, _s in top], chain, covered)
            residual = {
                doc: residual_words(words, covered[doc]) for doc, _s in top if doc in covered
            }
            relevance = self._relevance(query, words, sources, reached, residual, known)
            for chunk in known.chunks.values():
                if chunk.id not in about:
                    ids = chunk.attributes.get("about", ())
                    about[chunk.id] = frozenset(i for i in ids if isinstance(i, str))
            bridge: dict[Doc, tuple[float, str, Doc | None]] = {}
            for (kind, entity_id), reached_nodes in reached.items():
                damped = 1.0 / len(reached_nodes) ** settings.hub_damping
                pages = [node for node in reached_nodes if entity_id in about.get(node, ())]
                for weight, src in sources[entity_id]:
                    ranks = relevance.get(src, {})
                    full = _best_pages(kind, pages, src, ranks, settings.page_bridges)
                    for node in reached_nodes:
                        doc: Doc = (kind, node)
                        if src == doc:
                            continue
                        specific = 1.0 if node in full else damped
                        gain = weight * specific * ranks.get(doc, 0.0)
                        if gain > bridge.get(doc, (0.0, "", None))[0]:
                            bridge[doc] = (gain, entity_id, src)
            current = dict(text)
            anchor = {}  # this round's bridges replace the last round's
            for signal in text_signal.values():
                signal.pop("bridge", None)
            for doc, (gain, entity_id, src) in bridge.items():
                current[doc] = current.get(doc, 0.0) + settings.graph_weight * gain
                text_signal.setdefault(doc, {})["bridge"] = gain
                anchor[doc] = (gain, entity_id)
                if src is not None and src in covered:
                    chain[doc] = covered[src]
            if round_ + 1 == rounds < most and steps and _follows(current, known, words, chain):
                rounds += 1  # the best passage is one this round reached: follow it
            slotted = None
            if top and settings.bridge_slot and round_ + 1 == rounds and steps:
                named = linked
                if query.text is not None:  # and every name inside the names it writes
                    linker = self.linking.linker(first.entity_version or None)
                    named = linker.link(query.text, nested=True)
                slotted = slot_pick(
                    top[0][0],
                    gathered.mentions,
                    reached,
                    relevance.get(top[0][0], {}),
                    set(named),
                    settings.slot_mentions,
                )
            if slotted is not None and place(current, slotted[0], settings.bridge_slot):
                doc, entity_id, value = slotted
                text_signal.setdefault(doc, {})["slot"] = value
                anchor.setdefault(doc, (0.0, entity_id))
                if top[0][0] in covered:
                    chain.setdefault(doc, covered[top[0][0]])

        # 3. results
        scored: list[tuple[float, str, str]] = [
            (s, kind, node) for (kind, node), s in current.items()
        ]
        entity_via = _scaled(via)
        if "entity" in query.kinds:
            for entity_id in set(entity_text) | set(entity_via) | set(linked):
                value = entity_text.get(entity_id, 0.0) + settings.graph_weight * entity_via.get(
                    entity_id, 1.0 if entity_id in linked else 0.0
                )
                scored.append((value, "entity", entity_id))
        rel_by_key: dict[str, Relationship] = {}
        if "relationship" in query.kinds and settings.relationship_results:
            for key, rel in facts.items():
                ends = entity_via.get(rel.source_id, 0.0) + entity_via.get(rel.target_id, 0.0)
                factor = confidence_factor(rel, settings)
                rel_by_key[key] = rel
                scored.append((settings.graph_weight * ends / 2 * factor, "relationship", key))
        # A passage no bridge reached is anchored at the first entity it mentions when
        # those were read (a seed's), else at the entity its document is about, else at
        # none: reading its mentions would cost the final read one more call.
        for kind in doc_kinds:
            read_mentions = known.mentions.get(kind, {})
            for node in known.of(kind):
                if (kind, node) not in anchor and not read_mentions.get(node):
                    page = about.get(node, frozenset()) if kind == "chunk" else frozenset()
                    anchor[(kind, node)] = (0.0, min(page) if page else "")
        return finish(
            store,
            tenant,
            query,
            settings,
            [(-s, kind, n) for s, kind, n in scored],
            walk=Walk(distance=dict.fromkeys(linked, 0)),
            rel_by_key=rel_by_key,
            best_anchor=dict(anchor),
            signals=text_signal,
            known=known,
            fold_names=False,  # the facts read are one hop from the sources only
        )

    def _relevance(
        self,
        query: Query,
        words: list[str],
        sources: Mapping[str, list[tuple[float, Doc | None]]],
        reached: Mapping[tuple[NodeKind, str], list[str]],
        residual: Mapping[Doc, list[str]],
        known: Known,
    ) -> dict[Doc | None, dict[Doc, float]]:
        """For each source, the passages reached from it ranked by what it leaves unanswered.

        Sources with the same residual query share one search, scoped to their bridge
        entities; a source that leaves every query word (or none) unanswered, and the query's
        own entities (source None), use the whole query. Every search runs in one
        :meth:`GraphStore.search_scoped` call, which also reads the passages it ranks
        (into ``known``).
        """
        settings = self.settings
        by_entity: dict[str, list[tuple[NodeKind, list[str]]]] = {}
        for (kind, entity_id), nodes in reached.items():
            by_entity.setdefault(entity_id, []).append((kind, nodes))
        groups: dict[str, set[str]] = {}  # residual text ("" = the whole query) -> entities
        group_of: dict[Doc | None, str] = {}
        for entity_id, paths in sources.items():
            if entity_id not in by_entity:
                continue
            for _w, src in paths:
                rest = residual.get(src, []) if src is not None else []
                key = " ".join(rest) if rest and rest != words else ""
                group_of[src] = key
                groups.setdefault(key, set()).add(entity_id)
        asked: dict[str, Query] = {"": query}
        wording = [key for key in groups if key]
        if wording:
            if query.vector is not None:
                vectors = list(self.embed(wording))
            else:  # no vector to rank by
                vectors = [query.vector] * len(wording)
            for key, vector in zip(wording, vectors, strict=True):
                asked[key] = replace(query, text=key, vector=vector)
        keys: list[str] = []
        searches: list[ScopedSearch] = []
        for key, entities in groups.items():
            docs = {(kind, n) for e in entities for kind, nodes in by_entity[e] for n in nodes}
            vector = asked[key].vector if settings.vector_weight > 0 else None
            wording_ = asked[key].text if settings.fulltext_weight > 0 else None
            if vector is None and wording_ is None:
                continue
            kinds: list[NodeKind] = sorted({kind for kind, _n in docs})
            keys.append(key)
            searches.append(ScopedSearch(kinds, vector, wording_, len(docs), sorted(entities)))
        ranks: dict[str, dict[Doc, float]] = {}
        if searches:
            found = self.store.search_scoped(self.tenant, searches, read=True)
            known.add(found.chunks, found.turns, {})
            for key, hits in zip(keys, found.hits, strict=True):
                ranks[key] = _fused_scaled(hits, settings)
        return {src: ranks.get(key, {}) for src, key in group_of.items()}


def _best_pages(
    kind: NodeKind, pages: Sequence[str], src: Doc | None, ranks: Mapping[Doc, float], most: int
) -> set[str]:
    """The passages of an entity's page that its page bridge lifts in full, from ``src``.

    A document about an entity may be split into several passages (or several documents
    share its title): each is its page, and a bridge into every one would fill the top
    with one entity. The ``most`` of them most relevant to what ``src`` leaves unanswered
    (ties: the smaller id) count as the page; the rest are bridged as passages that only
    mention it. ``most`` 0: every one.

    >>> ranks = {("chunk", "euro#1"): 0.9, ("chunk", "euro#0"): 0.4}
    >>> sorted(_best_pages("chunk", ["euro#0", "euro#1"], None, ranks, 1))
    ['euro#1']
    >>> sorted(_best_pages("chunk", ["euro#0", "euro#1"], None, ranks, 0))
    ['euro#0', 'euro#1']
    """
    if not most:
        return set(pages)
    if src is not None and src[0] == kind and src[1] in pages:
        return set()  # from a passage of the same page: no hop, the same document goes on
    if len(pages) <= most:
        return set(pages)
    ordered = sorted(
        (node for node in pages if (kind, node) != src),
        key=lambda node: (-ranks.get((kind, node), 0.0), node),
    )
    return set(ordered[:most])


def _follows(
    current: Mapping[Doc, float], known: Known, words: Sequence[str], chain: Mapping[Doc, set[str]]
) -> bool:
    """Whether another round may reach the next passage of the chain the best one is on.

    It may when the best passage after a round is one whose mentions no round has read
    (a round reads those of its sources, the best passages before it: this one rose by a
    bridge above all of them, and only another round reads the entities it names) and
    the question words that neither it nor the passages that led to it contain are
    :data:`_FOLLOW_LEFT` or more (one word left is the kind of what it answers: "the
    population of the *state* where Ridge Airport is" ends at the state's page).
    """
    best = min(current.items(), key=lambda kv: (-kv[1], kv[0]), default=None)
    if best is None:
        return False
    doc = (kind, node) = best[0]
    if node in known.mentions.get(kind, {}):
        return False
    left = residual_words(words, _stems(_text(known, doc)) | chain.get(doc, set()))
    return len(left) >= _FOLLOW_LEFT


def _text(known: Known, doc: Doc) -> str:
    """A read passage's title and text (a turn's content); empty when it was not read."""
    kind, node = doc
    if kind == "turn":
        turn = known.turns.get(node)
        return turn.content if turn is not None else ""
    chunk = known.chunks.get(node)
    if chunk is None:
        return ""
    title = chunk.attributes.get("title")
    return f"{title if isinstance(title, str) else ''} {chunk.text}"


def _cover(
    known: Known,
    seeds: list[Doc],
    chain: Mapping[Doc, set[str]],
    covered: dict[Doc, set[str]],
) -> None:
    """Set ``covered`` of each seed: the words of its text and of the chain that led to it."""
    for doc in seeds:
        covered[doc] = _stems(_text(known, doc)) | chain.get(doc, set())
