"""The steps every retriever is made of, and :class:`Retriever`, their common owner.

A retriever (:class:`~graphmem.retrieval.HybridRetriever`,
:class:`~graphmem.retrieval.ConversationRetriever`,
:class:`~graphmem.retrieval.BridgeRetriever`) owns its store and tenant, its embedder, its
entity linking (:class:`~graphmem.retrieval.linking.Linking`) and its
:class:`~graphmem.retrieval.FusionSettings`, and puts these steps together:

1. :func:`check_query` and :func:`check_request`: what is asked, checked before any call;
2. :func:`search`: vector and full-text search of every kind in one store call
   (:meth:`GraphStore.search_context`), which also brings the turn hits' window for the
   turn model and the entity version that keeps the linker fresh;
3. :func:`fuse`: each kind's two rankings fused by reciprocal rank, turns by the fitted
   turn model (:mod:`graphmem.retrieval.recall`);
4. the method's own ranking (the graph walk of the hybrid method, the bridges of the
   bridge method), one :meth:`GraphStore.gather` call per walk;
5. :func:`finish`: the best of each kind read in one :meth:`GraphStore.gather` call, cut
   to ``k`` with the turns' recency boost (:func:`cut`), and made
   :class:`~graphmem.ContextResult` s with their provenance (:func:`materialise`).

No step loops over store calls, so a retrieve makes a fixed small number of them
(three for the default presets; docs/neo4j.md says how many round trips each is on Neo4j).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Any, ClassVar

from graphmem.core.checks import check_depth, check_ids, check_safe_names, check_text
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import (
    NODE_KINDS,
    Chunk,
    ContextResult,
    Entity,
    NodeKind,
    Relationship,
    Turn,
    utcnow,
)
from graphmem.core.store import GraphStore, SearchContext, SearchHit, SearchPair
from graphmem.retrieval.fusion import FusionSettings, reciprocal_rank_fusion
from graphmem.retrieval.linking import Linking
from graphmem.retrieval.pages import bare_entities, fold_pages
from graphmem.retrieval.recall import TurnPool, rank_pool, turn_pool
from graphmem.retrieval.results import Read, materialise
from graphmem.retrieval.sayings import SentenceVectors

__all__ = [
    "DOC_KINDS",
    "MAX_QUERY_LENGTH",
    "RESULT_KINDS",
    "Fused",
    "Known",
    "Query",
    "Retriever",
    "Walk",
    "check_query",
    "check_request",
    "check_scope",
    "confidence_factor",
    "cut",
    "embed_texts",
    "entity_scores",
    "finish",
    "fuse",
    "search",
]

RESULT_KINDS = ("chunk", "turn", "entity", "relationship")
DOC_KINDS: tuple[NodeKind, ...] = ("chunk", "turn")

MAX_QUERY_LENGTH = 10_000
"""The longest query text :meth:`graphmem.Memory.retrieve` and :meth:`graphmem.Memory.ask`
take, in characters (about 2,500 words, several pages; an embedder reads only the first
few hundred words anyway). A longer one is refused with ``InvalidInput`` before any work,
so no question can make a retrieval run long."""


# --------------------------------------------------------------------------- the request


def check_query(query: object, what: str = "the query") -> str:
    """``query`` if it is a question retrieval can take, else ``InvalidInput`` saying why.

    >>> check_query("who runs the mill?")
    'who runs the mill?'
    >>> check_query("x" * 10_001)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    graphmem.core.errors.InvalidInput: the query is 10,001 characters long; the limit is 10,000 ...
    """
    if not isinstance(query, str):
        raise InvalidInput(f"{what} must be a string, got {type(query).__name__}")
    if len(query) > MAX_QUERY_LENGTH:
        raise InvalidInput(
            f"{what} is {len(query):,} characters long; the limit is {MAX_QUERY_LENGTH:,} "
            "(graphmem.retrieval.MAX_QUERY_LENGTH): ask with the words that matter",
            length=len(query),
            limit=MAX_QUERY_LENGTH,
        )
    if not query.strip():
        raise InvalidInput(f"{what} is empty; ask something (e.g. 'who runs the mill?')")
    return check_text(query, what)


def check_request(
    k: int, hops: int, kinds: Sequence[str] | None
) -> tuple[int, int, tuple[str, ...]]:
    """Check ``k``, ``hops`` and ``kinds``; raise ``InvalidInput`` saying what to fix."""
    if not isinstance(k, int) or isinstance(k, bool) or k <= 0:
        raise InvalidInput(f"k must be a positive integer, got {k!r}", k=k)
    if not isinstance(hops, int) or isinstance(hops, bool) or hops < 0:
        raise InvalidInput(f"hops must be a non-negative integer, got {hops!r}", hops=hops)
    check_depth(hops, "hops", minimum=0)  # at most MAX_DEPTH
    if kinds is None:
        return k, hops, RESULT_KINDS
    kinds = check_safe_names(kinds, "kind") or []
    wanted = tuple(dict.fromkeys(kinds))
    bad = [kind for kind in wanted if kind not in RESULT_KINDS]
    if bad or not wanted:
        raise InvalidInput(f"kinds must be among {RESULT_KINDS}, got {list(kinds)!r}")
    return k, hops, wanted


def check_scope(scope: Sequence[str] | None) -> list[str] | None:
    """A graph scope's ids, checked for form: a non-empty list of ids, without repeats.

    That they are entities is checked by the search (:func:`search`), in the same call.
    """
    if scope is None:
        return None
    given = [scope] if isinstance(scope, str) else check_ids(scope, "graph_scope")
    ids = list(dict.fromkeys(given))
    if not ids:
        raise InvalidInput("graph_scope is empty; pass None to search the whole memory")
    for value in ids:
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"graph_scope holds {value!r}, which is not an entity id")
    return ids


def _types(rel_types: Sequence[str] | None) -> tuple[str, ...] | None:
    names = check_safe_names(rel_types, "relationship type")
    return None if names is None else tuple(names)


@dataclass(frozen=True)
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
        embedded: The retriever embedded ``vector`` itself (not the caller), so its
            embedder may embed another wording of the question into the same space.
        wordings: Other wordings of the question embedded with it, in the same batch
            (:meth:`Retriever.wordings`), by their text.
    """

    text: str | None
    vector: Any
    k: int
    hops: int
    scope: list[str] | None
    kinds: tuple[str, ...]
    rel_types: tuple[str, ...] | None = None
    embedded: bool = False
    wordings: Mapping[str, Any] = field(default_factory=dict, hash=False)


def embed_texts(embedder: Any, texts: Sequence[str]) -> Any:
    """``embedder.embed(texts)``, checked to give one row per text."""
    vectors = embedder.embed(list(texts))
    if len(texts) and getattr(vectors, "shape", (0,))[0] != len(texts):
        raise InvalidInput(
            f"the embedder returned {getattr(vectors, 'shape', None)} for {len(texts)} texts"
        )
    return vectors


# --------------------------------------------------------------------------- the owner


class Retriever:
    """What every retriever owns: a store and tenant, an embedder, linking, settings.

    Subclasses implement :meth:`run` over the steps of this module; :meth:`retrieve`
    checks the request and embeds the query first.

    Args:
        store: The store.
        tenant: Whose memory.
        embedder: Embeds the query (and what the method embeds besides); None: the
            default embedder (all-MiniLM-L6-v2, the ``embeddings`` extra), made the first
            time a query needs a vector.
        linking: The tenant's entity linking (shared with other retrievers of the same
            memory, so the linker is built once); None: its own.
        settings: The fusion settings; None: the class's default preset.
        sentences: Where the fact match keeps the vectors of type phrases and fact
            sayings (the memory's, filled as its facts are written, shared with its
            other readers); None: a cache of the retriever's own.
    """

    default_preset: ClassVar[str] = "hybrid"

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        *,
        embedder: Any | None = None,
        linking: Linking | None = None,
        settings: FusionSettings | None = None,
        sentences: SentenceVectors | None = None,
    ) -> None:
        from graphmem.retrieval.fusion import PRESETS

        if settings is not None and not isinstance(settings, FusionSettings):
            raise InvalidInput("settings must be a FusionSettings (graphmem.retrieval)")
        self.store = store
        self.tenant = tenant
        self.settings = settings if settings is not None else PRESETS[self.default_preset]
        self.linking = linking if linking is not None else Linking(store, tenant)
        self._embedder = embedder
        self.sentences = sentences

    def __repr__(self) -> str:
        return f"{type(self).__name__}(tenant={self.tenant!r}, settings={self.settings!r})"

    @property
    def embedder(self) -> Any:
        """The embedder (the default one is made on first use).

        Raises:
            BackendUnavailable: None was given and the ``embeddings`` extra is missing.
        """
        if self._embedder is None:
            from graphmem.retrieval.embedders import default_embedder

            self._embedder = default_embedder()
        return self._embedder

    def embed(self, texts: Sequence[str]) -> Any:
        """Embed ``texts`` with :attr:`embedder` (one row per text, checked)."""
        return embed_texts(self.embedder, texts)

    def retrieve(
        self,
        query: str | None = None,
        k: int = 10,
        hops: int = 2,
        graph_scope: Sequence[str] | None = None,
        *,
        kinds: Sequence[str] | None = None,
        rel_types: Sequence[str] | None = None,
        vector: Any = None,
    ) -> list[ContextResult]:
        """Retrieve what helps answer ``query``; see :meth:`graphmem.Memory.retrieve`.

        Args:
            query: The question, at most :data:`MAX_QUERY_LENGTH` characters; None with
                ``vector`` for vector search alone.
            k: How many results.
            hops: Depth of the graph walk (rounds, for the bridge method).
            graph_scope: Entity ids the retrieval stays within (each must exist).
            kinds: Result kinds among ``chunk``, ``turn``, ``entity``, ``relationship``.
            rel_types: Relationship types a walk may follow.
            vector: The query's embedding, when you computed it (no embedding then).

        Raises:
            InvalidInput: Bad arguments (a query that is empty or too long, ``k`` <= 0,
                ...), or a vector of another dimension than the stored ones.
            NotFound: ``graph_scope`` names entities that do not exist.
        """
        text = check_query(query) if query is not None or vector is None else None
        k, hops, wanted = check_request(k, hops, kinds)
        scope = check_scope(graph_scope)
        embedded, wordings = False, {}
        if vector is None and text is not None and self.settings.vector_weight > 0:
            others = self.wordings(text, wanted)
            rows = self.embed([text, *others])  # one batch: cheaper than one call each
            vector, embedded = rows[0], True
            wordings = dict(zip(others, rows[1:], strict=True))
        types = _types(rel_types)
        return self.run(Query(text, vector, k, hops, scope, wanted, types, embedded, wordings))

    def wordings(self, text: str, kinds: Sequence[str]) -> list[str]:
        """Other wordings of ``text`` the method will search by (none here).

        They are embedded in the batch of the question itself (:attr:`Query.wordings`).
        """
        return []

    def run(self, query: Query) -> list[ContextResult]:
        """Run the method on a checked request (the query embedded when it needs to be)."""
        raise NotImplementedError  # pragma: no cover - every retriever defines it


# --------------------------------------------------------------------------- search, fuse


def search(
    store: GraphStore,
    tenant: str,
    query: Query,
    settings: FusionSettings,
    kinds: Sequence[NodeKind],
    k: int,
    *,
    window_depth: int | None = None,
) -> SearchContext:
    """Vector and full-text search of ``kinds`` in one store call, the scope checked.

    Each side runs only when the query has it and its fusion weight is positive (no hits
    when neither does, and then no call: the version is left empty).

    Raises:
        NotFound: The graph scope names entities that do not exist.
    """
    vector = query.vector if settings.vector_weight > 0 else None
    text = query.text if settings.fulltext_weight > 0 else None
    if (vector is None and text is None) or not kinds:
        context = SearchContext({}, [], "", [])
        if query.scope is not None:  # the scope is checked all the same
            found = {e.id for e in store.get_entities(tenant, query.scope)}
            context = SearchContext({}, [], "", [i for i in query.scope if i not in found])
    else:
        context = store.search_context(
            tenant,
            list(kinds),
            vector=vector,
            text=text,
            k=k,
            scope_ids=query.scope,
            window_depth=window_depth,
        )
    if context.unknown_scope:
        missing = list(context.unknown_scope)
        raise NotFound(
            f"graph_scope names entities that do not exist: {missing[:10]}",
            missing_ids=missing,
            tenant=tenant,
        )
    return context


def own_turn_search(
    store: GraphStore,
    tenant: str,
    embed: Callable[[Sequence[str]], Any],
    k: int,
    scope: Sequence[str] | None = None,
    embedded: Mapping[str, Any] | None = None,
) -> Callable[[str], list[SearchHit]]:
    """The vector search of turns by another wording of the question (``k`` hits).

    ``embedded``: wordings embedded already (with the question), by their text; any
    other is embedded here.
    """

    def search_by(text: str) -> list[SearchHit]:
        vector = (embedded or {}).get(text)
        if vector is None:
            vector = embed([text])[0]
        pair = store.hybrid_search(
            tenant, ["turn"], vector=vector, text=None, k=k, scope_ids=scope
        )["turn"]
        return pair.vector

    return search_by


@dataclass
class Fused:
    """What the searches gave, fused: the text side of every ranking.

    Attributes:
        scores: Per kind, each node's fused text score.
        signals: Per (kind, id), the ranks and signals shown in ``ContextResult.signals``.
        pool: The turn model's candidates (None when turns are ranked by rank fusion).
        version: The entity version the search read (see :class:`Linking`).
    """

    scores: dict[str, dict[str, float]]
    signals: dict[tuple[str, str], dict[str, float]]
    pool: TurnPool | None
    version: str


def fuse(
    store: GraphStore,
    tenant: str,
    query: Query,
    settings: FusionSettings,
    *,
    graph: bool,
    embed: Callable[[Sequence[str]], Any] | None = None,
) -> Fused:
    """Search (one store call) and fuse each kind; turns by the turn model when asked.

    ``graph``: the method seeds a graph walk from the hits, so every kind is searched
    (its best passages' entities and its best entities seed the walk); otherwise only
    the kinds asked for. ``embed``: embeds texts into the space of ``query.vector``;
    with it, a question that names a speaker is also searched in that speaker's own
    words (:func:`~graphmem.retrieval.recall.own_wording`: one more embedding and one
    more vector search of the turns).
    """
    candidates = max(settings.candidates, query.k)
    model_turns = settings.turn_ranker == "model" and "turn" in query.kinds
    searched_k = max(candidates, settings.turn_candidates) if model_turns else candidates
    kinds = [kind for kind in NODE_KINDS if graph or kind in query.kinds]
    # In a graph scope the neighbours' own scope is unknown: read the hits alone.
    depth = (settings.turn_context if query.scope is None else 0) if model_turns else None
    context = search(store, tenant, query, settings, kinds, searched_k, window_depth=depth)
    scores: dict[str, dict[str, float]] = {}
    signals: dict[tuple[str, str], dict[str, float]] = {}
    pool: TurnPool | None = None
    for kind in NODE_KINDS:
        rankings: list[tuple[list[str], float]] = []
        pair = context.hits.get(kind)
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
                    signals.setdefault((kind, hit.id), {})[signal] = rank
        scores[kind] = reciprocal_rank_fusion(rankings, settings.rrf_k)
        if kind == "turn" and model_turns and pair is not None:
            own = (
                own_turn_search(
                    store, tenant, embed, settings.turn_candidates, query.scope, query.wordings
                )
                if embed is not None and query.vector is not None and settings.vector_weight > 0
                else None
            )
            pool = turn_pool(
                store,
                tenant,
                query.text,
                pair,
                depth=depth or 0,
                window=context.window,
                own_search=own,
            )
            top_fused = max(scores["turn"].values(), default=1.0)
            ranked = rank_pool(pool, settings.turn_weights, settings)
            scores["turn"] = {node: value * top_fused for node, value in ranked.items()}
    return Fused(scores, signals, pool, context.entity_version)


# --------------------------------------------------------------------------- score


@dataclass
class Walk:
    """What a method's graph step found (empty without one).

    Attributes:
        proximity: Each entity reached, by its proximity to the seeds.
        distance: Each entity reached, by its hops from the nearest seed.
        entities: The entities read on the way, by id.
        facts: The facts among them.
        graph_score: Per doc kind, the graph score of each turn / chunk reached.
        reached: Per doc kind, ``(gain, entity id, nodes)`` for each entity reached from.
    """

    proximity: dict[str, float] = field(default_factory=dict)
    distance: dict[str, int] = field(default_factory=dict)
    entities: dict[str, Entity] = field(default_factory=dict)
    facts: list[Relationship] = field(default_factory=list)
    graph_score: dict[str, dict[str, float]] = field(
        default_factory=lambda: {"chunk": {}, "turn": {}}
    )
    reached: dict[str, list[tuple[float, str, list[str]]]] = field(
        default_factory=lambda: {"chunk": [], "turn": []}
    )


def confidence_factor(rel: Relationship, settings: FusionSettings) -> float:
    """How much a fact's confidence scales its score (confirmed facts count as certain)."""
    confidence = 1.0 if rel.provenance.confirmed else rel.provenance.confidence
    return (1.0 - settings.confidence_weight) + settings.confidence_weight * confidence


def rel_key(rel: Relationship) -> str:
    """A fact's result id: ``source|type|target``."""
    return f"{rel.source_id}|{rel.type}|{rel.target_id}"


def entity_scores(settings: FusionSettings, fused: Fused, walk: Walk) -> dict[str, float]:
    """Each entity's score: fused text score + ``graph_weight`` x proximity to the seeds."""
    text_get, weight = fused.scores["entity"].get, settings.graph_weight
    proximity = walk.proximity
    return {
        entity_id: text_get(entity_id, 0.0) + weight * proximity.get(entity_id, 0.0)
        for entity_id in fused.scores["entity"].keys() | proximity.keys()
    }


def score(
    query: Query,
    settings: FusionSettings,
    fused: Fused,
    walk: Walk,
    fact_match: Mapping[str, float] | None = None,
) -> tuple[list[tuple[float, str, str]], dict[str, Relationship]]:
    """Every candidate as ``(-score, kind, id)``, best first the smallest; facts by id.

    A candidate's score: its fused text score + ``graph_weight`` x its graph score (a
    turn's or chunk's: ``reach_weight`` x, when set). A
    fact's, with ``fact_match`` (how well it answers the query, 0..1, from
    :class:`~graphmem.retrieval.facts.FactMatcher`): its better end's score x
    (``1 - fact_weight`` + ``fact_weight`` x 1.4 x match), so the fact that answers
    the question ranks beside (above, when it matches well) the entity it is about;
    without it: ``graph_weight`` x its ends' mean proximity.
    """
    scored: list[tuple[float, str, str]] = []
    weight = settings.graph_weight if settings.reach_weight is None else settings.reach_weight
    for kind in DOC_KINDS:
        if kind not in query.kinds:
            continue
        text_scores, graph_scores = fused.scores[kind], walk.graph_score[kind]
        text_get, graph_get = text_scores.get, graph_scores.get
        scored.extend(
            (-(text_get(node, 0.0) + weight * graph_get(node, 0.0)), kind, node)
            for node in text_scores.keys() | _graph_contenders(graph_scores, query.k)
        )
    proximity = walk.proximity
    wants_facts = "relationship" in query.kinds and settings.relationship_results
    totals = entity_scores(settings, fused, walk) if "entity" in query.kinds or wants_facts else {}
    if "entity" in query.kinds:
        scored.extend((-value, "entity", entity_id) for entity_id, value in totals.items())
    rel_by_key: dict[str, Relationship] = {}
    if wants_facts:
        floor, lift = 1.0 - settings.fact_weight, settings.fact_weight * 1.4
        total_of = totals.get
        for rel in walk.facts:
            key = rel_key(rel)
            if fact_match is not None:
                a, b = total_of(rel.source_id, 0.0), total_of(rel.target_id, 0.0)
                ends = a + 0.5 * b if a >= b else b + 0.5 * a
                value = ends * (floor + lift * fact_match.get(key, 0.0))
            else:
                near = proximity.get(rel.source_id, 0.0) + proximity.get(rel.target_id, 0.0)
                value = settings.graph_weight * near / 2
            rel_by_key[key] = rel
            scored.append((-value * confidence_factor(rel, settings), "relationship", key))
    return scored, rel_by_key


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


# --------------------------------------------------------------------------- finish


def _age_factor(created: datetime | None, now: datetime, settings: FusionSettings) -> float:
    if created is None or settings.recency_weight == 0:
        return 1.0
    age = max(0.0, (now - created).total_seconds())
    return float(1.0 + settings.recency_weight * 0.5 ** (age / settings.recency_half_life_s))


def _boosts_turns(query: Query, settings: FusionSettings) -> bool:
    return "turn" in query.kinds and settings.recency_weight > 0


def contenders(
    scored: list[tuple[float, str, str]], query: Query, settings: FusionSettings
) -> list[tuple[float, str, str]]:
    """The candidates that can still make the cut of :func:`cut`, best first.

    The ``k`` best turns and the ``k`` best of the other kinds: the recency boost only
    raises the ``k`` best turns, so nothing else can enter the top ``k``.
    """
    k = query.k
    if not _boosts_turns(query, settings):
        return heapq.nsmallest(k, scored)
    turns = heapq.nsmallest(k, [item for item in scored if item[1] == "turn"])
    others = heapq.nsmallest(k, [item for item in scored if item[1] != "turn"])
    return sorted(turns + others)


def cut(
    scored: list[tuple[float, str, str]],
    query: Query,
    settings: FusionSettings,
    times: Mapping[str, datetime],
) -> list[tuple[float, str, str]]:
    """The best ``query.k`` of (-score, kind, id) candidates, as (score, kind, id).

    The ``k`` best turns get their recency boost (at most 1 + ``recency_weight``, by
    ``times``: the turns' ``created_at``) before the cut.
    """
    if _boosts_turns(query, settings):
        turns = heapq.nsmallest(query.k, [i for i in scored if i[1] == "turn"])
        if turns:
            now = utcnow()
            boosted = {n: s * _age_factor(times.get(n), now, settings) for s, _k, n in turns}
            scored = [
                (boosted.get(n, s) if kind == "turn" else s, kind, n) for s, kind, n in scored
            ]
    return [(-s, kind, node) for s, kind, node in heapq.nsmallest(query.k, scored) if s < 0]


def anchors(
    top: Iterable[tuple[float, str, str]], reached: Mapping[str, list[tuple[float, str, list[str]]]]
) -> dict[tuple[str, str], tuple[float, str]]:
    """For each top turn / chunk reached by the walk, the entity that gave it the most."""
    top = list(top)
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


@dataclass
class Known:
    """Nodes a retriever read on its way (chunks, turns, what they mention).

    The final read of :func:`finish` does not ask for them again.
    """

    chunks: dict[str, Chunk] = field(default_factory=dict)
    turns: dict[str, Turn] = field(default_factory=dict)
    mentions: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def of(self, kind: str) -> Mapping[str, object]:
        """The known nodes of a kind (``chunk`` or ``turn``)."""
        return self.chunks if kind == "chunk" else self.turns

    def add(
        self,
        chunks: Iterable[Chunk],
        turns: Iterable[Turn],
        mentions: Mapping[NodeKind, Mapping[str, list[str]]],
        *,
        asked: Mapping[NodeKind, Sequence[str]] | None = None,
    ) -> None:
        """Keep what a store call read.

        ``asked``: the passages whose mentions the call asked for. A store leaves out one
        that mentions nothing (:meth:`GraphStore.get_mentions`); it is kept with an empty
        list, so that it is known to be read (and is not asked for again).
        """
        self.chunks.update((c.id, c) for c in chunks)
        self.turns.update((t.id, t) for t in turns)
        for kind, found in mentions.items():
            self.mentions.setdefault(kind, {}).update(found)
        for kind, ids in (asked or {}).items():
            read = self.mentions.setdefault(kind, {})
            for node in ids:
                read.setdefault(node, [])


def finish(
    store: GraphStore,
    tenant: str,
    query: Query,
    settings: FusionSettings,
    scored: list[tuple[float, str, str]],
    *,
    walk: Walk,
    rel_by_key: Mapping[str, Relationship],
    best_anchor: Mapping[tuple[str, str], tuple[float, str]] | None = None,
    signals: dict[tuple[str, str], dict[str, float]],
    pool: TurnPool | None = None,
    known: Known | None = None,
    fold_names: bool = True,
) -> list[ContextResult]:
    """Read what the best candidates are (one store call), cut to ``k``, make results.

    Only :func:`contenders` are read: their chunks, the turns the turn model did not
    read already (their times give the recency boost), the entities the walk did not,
    and what each turn / chunk without an anchor from the walk mentions (its first
    mention becomes its anchor). ``best_anchor``: the anchors a method chose itself
    (default: from ``walk.reached``). ``fold_names``: fold bare entities too
    (:mod:`graphmem.retrieval.pages`; a method whose walk read the facts near its seeds).
    """
    # Folded entities leave slots: twice the contenders, and the k best of the rest, fill them.
    fold = settings.fold_pages and "entity" in query.kinds
    fold = fold and any(kind in query.kinds for kind in DOC_KINDS)
    pick = contenders(scored, replace(query, k=2 * query.k) if fold else query, settings)
    if fold:
        others = contenders([i for i in scored if i[1] != "entity"], query, settings)
        pick = sorted(set(pick).union(others))
    anchored = dict(best_anchor) if best_anchor is not None else anchors(pick, walk.reached)
    had = known if known is not None else Known()
    turns_known = {**had.turns, **(pool.turns if pool is not None else {})}
    by_kind: dict[str, list[str]] = {}
    for _score, kind, node in pick:
        by_kind.setdefault(kind, []).append(node)
    wanted = set(by_kind.get("entity", []))
    for key in by_kind.get("relationship", []):
        rel = rel_by_key[key]
        wanted.update((rel.source_id, rel.target_id))
    need_chunks = [n for n in by_kind.get("chunk", []) if n not in had.chunks]
    need_turns = [n for n in by_kind.get("turn", []) if n not in turns_known]
    need_entities = sorted(e for e in wanted if e not in walk.entities)
    unanchored = {  # folding names reads what every picked passage mentions
        kind: [
            n
            for n in by_kind.get(kind, [])
            if ((fold and fold_names) or (kind, n) not in anchored)
            and n not in had.mentions.get(kind, {})
        ]
        for kind in DOC_KINDS
    }
    mentions_of: dict[NodeKind, list[str]] = {k: ids for k, ids in unanchored.items() if ids}
    read = Read(
        dict(had.chunks),
        turns_known,
        dict(walk.entities),
        {kind: dict(found) for kind, found in had.mentions.items()},
    )
    if need_chunks or need_turns or need_entities or mentions_of:
        got = store.gather(
            tenant,
            chunk_ids=need_chunks,
            turn_ids=need_turns,
            entity_ids=need_entities,
            mentions_of=mentions_of,
        )
        read.chunks.update((c.id, c) for c in got.chunks)
        read.turns.update((t.id, t) for t in got.turns)
        read.entities.update((e.id, e) for e in got.entities)
        for kind, found in got.mentions.items():
            read.mentions.setdefault(kind, {}).update(found)
    if fold:
        walked = fold_names and query.hops > 0 and bool(walk.distance)
        facts = [*walk.facts, *rel_by_key.values()]
        bare = bare_entities(wanted, read.entities, facts) if walked else set()
        pick = fold_pages(pick, read.chunks, read.mentions, bare)
    times = {node: turn.created_at for node, turn in read.turns.items()}
    top = cut(pick, query, settings, times)
    if pool is not None:
        in_pool = set(pool.ids)
        for _score, of, node in top:
            if of == "turn" and node in in_pool:
                named = {name: v for name, v in pool.signals(node).items() if v}
                signals.setdefault(("turn", node), {}).update(named)
    return materialise(top, read, rel_by_key, anchored, walk.distance, signals)
