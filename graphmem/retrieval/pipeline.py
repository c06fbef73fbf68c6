"""The default retrievers: text and turn-model ranking, and the same with the graph walk.

:class:`ConversationRetriever` (presets ``conversation`` and ``text_only``): vector and
full-text search of the kinds asked (one store call) -> conversation turns ranked by the
fitted turn model over their signals (:mod:`graphmem.retrieval.recall`), chunks and
entities by reciprocal-rank fusion of the two searches -> the best read and made
``ContextResult`` s (one store call).

:class:`HybridRetriever` (presets ``hybrid``, ``semantic``, ``keyword``, ``graph``) adds
the graph: seed entities (named in the query, top entity hits, entities mentioned by the
top turns and chunks) -> typed k-hop expansion through the entity graph, inside the graph
scope, with the turns and chunks mentioning what was reached (one store call,
:meth:`GraphStore.gather`) -> rerank (fused text score + graph proximity, fact
confidence, turn recency).

Three store calls for a hybrid retrieve, two without the graph (docs/neo4j.md says how
many round trips each is on Neo4j).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from graphmem.core.models import ContextResult, NodeKind
from graphmem.retrieval.facts import MATCHED_ENTITIES, FactMatcher
from graphmem.retrieval.linking import EntityLinker
from graphmem.retrieval.recall import TurnPool, named_speakers, own_wording
from graphmem.retrieval.sayings import said_of_kind
from graphmem.retrieval.steps import (
    DOC_KINDS,
    Fused,
    Query,
    Retriever,
    Walk,
    entity_scores,
    finish,
    fuse,
    score,
)

__all__ = ["ConversationRetriever", "HybridRetriever"]


_KEPT_SPEAKERS = 256  # speakers a retriever remembers (see ConversationRetriever.wordings)


class ConversationRetriever(Retriever):
    """Retrieval by text alone: turns by the fitted turn model, the rest by rank fusion.

    The ``conversation`` preset (and ``text_only``): what to use for questions about past
    conversations. The graph settings (``graph_weight``, ``seeds``, ...) are not read;
    :class:`HybridRetriever` is this plus the graph walk.

    >>> import graphmem
    >>> from graphmem.retrieval import ConversationRetriever, HashingEmbedder
    >>> with graphmem.open("memory://", tenant="doc", embedder=HashingEmbedder()) as mem:
    ...     _ = mem.conversation("s").extend([
    ...         {"role": "user", "speaker": "Kate", "content": "I took up pottery last week"},
    ...         {"role": "user", "speaker": "Tom", "content": "Nice, I went fishing"}])
    ...     _ = mem.flush_index()
    ...     found = ConversationRetriever(mem.store, mem.tenant, embedder=HashingEmbedder())
    ...     found.retrieve("what did Kate take up?", k=1)[0].content
    'Kate: I took up pottery last week'
    """

    default_preset = "conversation"
    graph = False
    _fact_matcher: FactMatcher | None = None
    # The speakers of the turns earlier questions fetched, latest first: a question
    # naming one of them is embedded in that speaker's own words too, in the same batch.
    _speakers: tuple[str, ...] = ()

    def wordings(self, text: str, kinds: Sequence[str]) -> list[str]:
        """The question in the words of the speakers it names, when they were met before.

        As the turn model will search by it (:func:`~graphmem.retrieval.recall.own_wording`);
        a speaker not met yet is found by the turn step, which embeds the wording itself.
        """
        if "turn" not in kinds or self.settings.turn_ranker != "model" or not self._speakers:
            return []
        _, words = named_speakers(text, self._speakers)
        return [own_wording(text, words)] if words else []

    def _met(self, pool: TurnPool | None) -> None:
        if pool is None:
            return
        seen = {t.speaker for t in pool.turns.values() if t.speaker}
        if not seen <= set(self._speakers):  # swapped whole: readers never see it change
            self._speakers = tuple(dict.fromkeys([*sorted(seen), *self._speakers]))[:_KEPT_SPEAKERS]

    def run(self, query: Query) -> list[ContextResult]:
        """Search, fuse, (walk), score, cut and read the results; see the module docstring."""
        settings = self.settings
        walks = self.graph and settings.graph_weight > 0
        embed = self.embed if query.embedded else None
        fused = fuse(self.store, self.tenant, query, settings, graph=walks, embed=embed)
        self._met(fused.pool)
        walk = self.walk(query, fused) if walks else Walk()
        scored, rel_by_key = score(
            query, settings, fused, walk, self.match_facts(query, fused, walk)
        )
        return finish(
            self.store,
            self.tenant,
            query,
            settings,
            scored,
            walk=walk,
            rel_by_key=rel_by_key,
            signals=fused.signals,
            pool=fused.pool,
        )

    def walk(self, query: Query, fused: Fused) -> Walk:
        """The graph step: none here."""
        return Walk()

    def match_facts(self, query: Query, fused: Fused, walk: Walk) -> dict[str, float] | None:
        """How well each fact the walk reached answers the query (no walk: none)."""
        if not walk.facts or "relationship" not in query.kinds:
            return None
        if not self.settings.relationship_results:
            return None
        matcher = self._fact_matcher
        if matcher is None:
            embeds = self.settings.vector_weight > 0
            matcher = FactMatcher(self.embed if embeds else None, self.sentences)
            self._fact_matcher = matcher
        named = entity_scores(self.settings, fused, walk)
        limit = max(MATCHED_ENTITIES, 2 * query.k)
        return matcher.match(
            query.text, query.vector, walk.facts, walk.entities, named, limit, query.wordings
        )


class HybridRetriever(ConversationRetriever):
    """Hybrid GraphRAG retrieval: text ranking, then a walk of the entity graph.

    What :meth:`graphmem.Memory.retrieve` runs by default (preset ``hybrid``; also
    ``semantic``, ``keyword`` and ``graph``). See the module docstring for the steps and
    :class:`~graphmem.retrieval.FusionSettings` for every setting.

    >>> import graphmem
    >>> from graphmem import Entity
    >>> from graphmem.retrieval import HashingEmbedder, HybridRetriever
    >>> with graphmem.open("memory://", tenant="doc", embedder=HashingEmbedder()) as mem:
    ...     _ = mem.upsert_entities([Entity(id="halden", type="npc", name="Halden Crook",
    ...                                     attributes={"description": "the miller"})])
    ...     _ = mem.add_documents([{"id": "mill", "text": "Halden Crook runs the mill."}])
    ...     retriever = HybridRetriever(mem.store, mem.tenant, embedder=HashingEmbedder())
    ...     [r.source_id for r in retriever.retrieve("who runs the mill?", k=2)]
    ['mill#0', 'halden']
    """

    default_preset = "hybrid"
    graph = True

    def wordings(self, text: str, kinds: Sequence[str]) -> list[str]:
        """Also the question said of the kind of each of the first two entities it names.

        The fact match compares it with the facts of the query's topic
        (:class:`~graphmem.retrieval.facts.FactMatcher`); embedded in the question's batch,
        it costs far less than a call of its own. The entities are those the linker of
        whole names and aliases finds; when none of them gives a wording, those a part of
        a name names alone ("Brother Jerome" of Brother Jerome Pask; not "Brother", which
        names every brother), as :meth:`graphmem.Memory.ask` reads them. The linkers are
        the ones last built, with no store call: should one be stale, the matcher embeds
        the wording it needs.
        """
        out = super().wordings(text, kinds)
        if "relationship" not in kinds or not self.settings.relationship_results:
            return out
        linker = self.linking.latest()
        own = _said(linker, linker.link(text)[:2], text, out)
        if not own:
            questions = self.linking.latest(parts=True)
            named = [m.ids[0] for m in questions.mentions(text) if not m.exact and len(m.ids) == 1]
            own = _said(questions, list(dict.fromkeys(named))[:2], text, out)
        return [*out, *own]

    def walk(self, query: Query, fused: Fused) -> Walk:
        """Seed entities, walk ``query.hops`` hops, reach what mentions them: one call.

        Seeds: the entities the query names (weight 1), the ``seeds`` best entity hits
        and the entities the ``seeds`` best turns and chunks mention (their fused
        scores); each only inside the graph scope. Proximity decays by ``hop_decay`` per
        hop; the ``reach_entities`` nearest entities give the turns and chunks
        mentioning them a graph score, divided by their mention count ``**
        hub_damping``.
        """
        settings = self.settings
        scope_set = set(query.scope) if query.scope is not None else None
        seeds: dict[str, float] = {}

        def seed(entity_id: str, weight: float) -> None:
            if scope_set is None or entity_id in scope_set:
                seeds[entity_id] = max(seeds.get(entity_id, 0.0), weight)

        if settings.link_query and query.text is not None:
            linker = self.linking.linker(fused.version or None)
            for entity_id in linker.link(query.text):
                seed(entity_id, 1.0)
        best: dict[NodeKind, list[tuple[str, float]]] = {}
        if settings.seeds:
            top_entities = sorted(fused.scores["entity"].items(), key=lambda kv: -kv[1])
            for entity_id, value in top_entities[: settings.seeds]:
                seed(entity_id, value)
            for kind in DOC_KINDS:
                ranked = sorted(fused.scores[kind].items(), key=lambda kv: -kv[1])
                if ranked[: settings.seeds]:
                    best[kind] = ranked[: settings.seeds]
        if not seeds and not best:
            return Walk()
        gathered = self.store.gather(
            self.tenant,
            mentions_of={kind: [node for node, _s in nodes] for kind, nodes in best.items()},
            seed_ids=list(seeds),
            seed_mentions=True,
            depth=query.hops,
            rel_types=query.rel_types,
            within=query.scope,
            max_nodes=500,
            mentioning=[kind for kind in DOC_KINDS if kind in query.kinds],
            mentioning_limit=settings.max_mentioning + 1,
        )
        for kind in DOC_KINDS:
            mentioned = gathered.mentions.get(kind, {})
            for node, value in best.get(kind, ()):
                for entity_id in mentioned.get(node, ()):
                    seed(entity_id, value)
        sub = gathered.subgraph
        entities = {e.id: e for e in sub.entities}
        seeds = {e: w for e, w in seeds.items() if e in entities}  # deleted meanwhile
        walk = Walk(dict(seeds), dict.fromkeys(seeds, 0), entities, list(sub.relationships))
        self._spread(walk, query.hops)
        self._reach(walk, gathered.mentioning, query)
        return walk

    def _spread(self, walk: Walk, hops: int) -> None:
        """Proximity and distance from the seeds, over the facts walked, ``hops`` rounds."""
        proximity, distance, decay = walk.proximity, walk.distance, self.settings.hop_decay
        for _hop in range(hops):
            changed = False
            for rel in walk.facts:
                for a, b in ((rel.source_id, rel.target_id), (rel.target_id, rel.source_id)):
                    if a in proximity:
                        reach = proximity[a] * decay
                        if reach > proximity.get(b, 0.0):
                            proximity[b] = reach
                            changed = True
                        if distance[a] + 1 < distance.get(b, 1 << 30):
                            distance[b] = distance[a] + 1
                            changed = True
            if not changed:
                break

    def _reach(
        self, walk: Walk, mentioning: Mapping[NodeKind, Mapping[str, list[str]]], query: Query
    ) -> None:
        """Graph scores of the turns and chunks mentioning the nearest entities."""
        proximity, settings = walk.proximity, self.settings
        if not proximity:
            return
        nearest = sorted(proximity, key=lambda e: (-proximity[e], e))[: settings.reach_entities]
        limit = settings.max_mentioning
        for kind in DOC_KINDS:
            if kind not in query.kinds:
                continue
            found = mentioning.get(kind, {})
            scores = walk.graph_score[kind]
            get = scores.get
            for entity_id in nearest:
                nodes = found.get(entity_id)
                if not nodes:
                    continue
                gain = proximity[entity_id] / max(1, len(nodes)) ** settings.hub_damping
                capped = nodes[:limit]
                walk.reached[kind].append((gain, entity_id, capped))
                for node in capped:
                    scores[node] = get(node, 0.0) + gain


def _said(
    linker: EntityLinker, entity_ids: Sequence[str], text: str, taken: Sequence[str]
) -> list[str]:
    """``text`` said of the kind of each of ``entity_ids`` (wordings not in ``taken``)."""
    out: list[str] = []
    for entity_id in entity_ids:
        kind, names = linker.said[entity_id]
        said = said_of_kind(text, kind, names)
        if said is not None and said != text and said not in taken and said not in out:
            out.append(said)
    return out
