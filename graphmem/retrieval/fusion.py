"""Fusion settings, their named presets, and reciprocal-rank fusion."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from graphmem.core.errors import InvalidInput
from graphmem.retrieval.turn_signals import TURN_SIGNALS

__all__ = [
    "METHODS",
    "PRESETS",
    "TURN_RANKERS",
    "FusionSettings",
    "choose_preset",
    "reciprocal_rank_fusion",
    "resolve_settings",
]

METHODS = ("rerank", "bridge")
"""How candidates are ranked: see :attr:`FusionSettings.method`."""

TURN_RANKERS = ("model", "rrf")
"""How conversation turns are scored: see :attr:`FusionSettings.turn_ranker`."""

_MAX_TURN_CONTEXT = 8  # graphmem.core.store.MAX_TURN_WINDOW (not imported: fusion stays store-free)


@dataclass(frozen=True)
class FusionSettings:
    """How :meth:`graphmem.Memory.retrieve` fuses and reranks.

    Attributes:
        vector_weight: Weight of the vector-search ranking in the fusion.
        fulltext_weight: Weight of the full-text ranking in the fusion.
        rrf_k: The constant of reciprocal-rank fusion (``1 / (rrf_k + rank)``).
        candidates: Hits taken from each search before fusion.
        seeds: Top fused turns / chunks whose mentioned entities seed the graph walk,
            and top fused entities taken as seeds.
        link_query: Seed the walk with the entities named in the query (entity linking).
        graph_weight: Weight of graph proximity to the seeds in the final score.
        reach_weight: Weight of the graph score of the turns and chunks the walk reaches
            (through the entities they mention) in their final score; None: as
            ``graph_weight``. Entities and facts are scored by ``graph_weight`` alone.
        hop_decay: Proximity factor per hop (1 hop away counts ``hop_decay`` of a seed).
        hub_damping: Exponent of an entity's mention count dividing its contribution,
            so an entity mentioned everywhere carries little evidence.
        max_mentioning: At most this many turns / chunks reached per expanded entity.
        reach_entities: Turns and chunks are reached from this many of the walked entities
            at most, the nearest (highest proximity) first.
        confidence_weight: How much a fact's confidence scales its score (0 = ignored).
        recency_weight: Boost of the newest turns (decays with ``recency_half_life_s``).
        recency_half_life_s: Half-life of the recency boost, in seconds.
        relationship_results: Include facts (relationships) among the results.
        fact_weight: How much a fact's match with the query (its type's words and
            phrase, its other end, the question word; see
            :mod:`graphmem.retrieval.facts`) decides its score, against the score of
            the entity it is about (0: facts score as their better end, 1: by the match
            alone, scaled by that end's score; the best match ranks a fact above its
            entity when > 0.8).
        residual_query: In the ``bridge`` method, rank the passages reached from a passage
            by the query words it leaves unanswered (its *residual query*, embedded for the
            vector side) rather than by the whole query.
        rounds: In the ``bridge`` method, at most this many rounds (None: ``hops`` of
            them). One round is three store calls in all (the search, one gather, one
            scoped search that also reads the passages), each later one two more.
        method: ``rerank`` (the default pipeline: text score + graph proximity to the
            seeds) or ``bridge`` (multi-hop over documents: passages reached through the
            entities that the best passages mention, ranked by their own relevance; see
            :mod:`graphmem.retrieval.bridge`).
        turn_ranker: How the ``rerank`` method scores conversation turns: ``model`` (the
            default: a fitted linear model over what a conversation has, the turn's
            neighbours, its speaker and time, its session, besides the two searches; see
            :mod:`graphmem.retrieval.recall`) or ``rrf`` (reciprocal-rank fusion of the two
            searches, as chunks and entities are).
        turn_weights: The ``model``'s weight of each signal (names from
            :data:`graphmem.retrieval.recall.TURN_SIGNALS`; missing ones weigh 0); None
            for the fitted :data:`~graphmem.retrieval.recall.TURN_WEIGHTS`.
        turn_candidates: Hits taken from each search of turns for the ``model``.
        turn_context: How many PARENT edges away the ``model`` reads a hit's neighbours
            (and takes them as candidates too; 0: the hits alone).
        fold_pages: When entities and passages are both asked for, an entity whose page
            (a chunk of a document about it, ``Document.entity_ids``) is among the best
            results is folded into the page: the page ranks with the better score of
            the two, and the entity leaves its slot; so is a bare name (no description,
            no fact the walk read) into the best passage naming it
            (:mod:`graphmem.retrieval.pages`).
        bridge_slot: In the ``bridge`` method, the position (1-based; 0: none) kept in the
            last round for the next hop of a question that reads as more than one step:
            the passage most relevant to what the best passage leaves unanswered, among
            those reached through a rare entity of it that the question does not name
            (:mod:`graphmem.retrieval.slots`). Only the passage holding that position and
            those under it move down.
        slot_mentions: An entity counts as rare for ``bridge_slot`` when at most this
            many passages mention it (the source among them).
        follow_rounds: In the ``bridge`` method, at most this many rounds after
            ``rounds`` (never more than ``hops`` in all), each run only when the question
            reads as more than one step, the best passage after the last round is one
            whose mentions no round has read (as a passage a bridge raised is: the chain
            goes on from it; a passage that mentions nothing is read as unread too, a
            known gap), and it leaves two or more of the question's words unexplained.
            Two store calls each (a gather, a scoped search).
        page_bridges: In the ``bridge`` method, how many passages of one entity's page
            (the chunks of documents about it) a bridge through that entity lifts as its
            page, the ones most relevant to what the source leaves unanswered; the others
            are bridged as passages that only name it, and none is bridged as the page
            from a passage of the same page (0: every passage of a page, from anywhere).
            A document cut into passages, or several sharing a title, then fills the top
            with one entity no more. No store call.
    """

    vector_weight: float = 1.0
    fulltext_weight: float = 1.0
    rrf_k: int = 60
    candidates: int = 50
    seeds: int = 5
    link_query: bool = True
    graph_weight: float = 0.5
    reach_weight: float | None = None
    hop_decay: float = 0.5
    hub_damping: float = 0.5
    max_mentioning: int = 100
    reach_entities: int = 50
    confidence_weight: float = 0.5
    recency_weight: float = 0.2
    recency_half_life_s: float = 86_400.0
    relationship_results: bool = True
    fact_weight: float = 0.9
    residual_query: bool = True
    rounds: int | None = None
    method: str = "rerank"
    turn_ranker: str = "model"
    turn_weights: Mapping[str, float] | None = None
    turn_candidates: int = 50
    turn_context: int = 1
    fold_pages: bool = True
    bridge_slot: int = 0
    slot_mentions: int = 3
    follow_rounds: int = 0
    page_bridges: int = 0

    def __post_init__(self) -> None:
        for name in _NUMBERS:
            value = getattr(self, name)
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise InvalidInput(f"{name} must be a number, got {value!r}")
            if not math.isfinite(value):
                raise InvalidInput(f"{name} must be finite, got {value!r}")
        for name, least in _COUNTS.items():
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise InvalidInput(f"{name} must be an integer >= {least}, got {value!r}")
        for name in ("vector_weight", "fulltext_weight", "graph_weight", "confidence_weight"):
            if getattr(self, name) < 0:
                raise InvalidInput(f"{name} must be >= 0")
        if not 0 <= self.fact_weight <= 1:
            raise InvalidInput("fact_weight must be within 0..1")
        if self.vector_weight == 0 and self.fulltext_weight == 0:
            raise InvalidInput("vector_weight and fulltext_weight cannot both be 0")
        if self.reach_weight is not None and not (
            isinstance(self.reach_weight, int | float)
            and not isinstance(self.reach_weight, bool)
            and math.isfinite(self.reach_weight)
            and self.reach_weight >= 0
        ):
            raise InvalidInput("reach_weight must be None or a finite number >= 0")
        if self.rounds is not None and (
            not isinstance(self.rounds, int) or isinstance(self.rounds, bool) or self.rounds < 0
        ):
            raise InvalidInput("rounds must be None or a non-negative integer")
        if not 0 <= self.hop_decay <= 1:
            raise InvalidInput("hop_decay must be within 0..1")
        if self.recency_half_life_s <= 0:
            raise InvalidInput("recency_half_life_s must be positive")
        if self.method not in METHODS:
            raise InvalidInput(f"method must be one of {METHODS}, got {self.method!r}")
        if self.turn_ranker not in TURN_RANKERS:
            raise InvalidInput(
                f"turn_ranker must be one of {TURN_RANKERS}, got {self.turn_ranker!r}"
            )
        if self.turn_context > _MAX_TURN_CONTEXT:
            raise InvalidInput(f"turn_context must be within 0..{_MAX_TURN_CONTEXT}")
        if self.turn_weights is not None:
            self._check_turn_weights(self.turn_weights)

    @staticmethod
    def _check_turn_weights(weights: Mapping[str, float]) -> None:
        if not isinstance(weights, Mapping):
            raise InvalidInput("turn_weights must map signal names to numbers")
        unknown = sorted(set(weights) - set(TURN_SIGNALS))
        if unknown:
            raise InvalidInput(
                f"turn_weights names unknown signals {unknown}; known: {list(TURN_SIGNALS)}"
            )
        for name, value in weights.items():
            if not isinstance(value, int | float) or isinstance(value, bool):
                raise InvalidInput(f"turn_weights[{name!r}] is not a number")
            if not math.isfinite(value):
                raise InvalidInput(f"turn_weights[{name!r}] is not finite")


# The settings that are numbers (finite), and the counts (integers) with their least value.
_NUMBERS = (
    "vector_weight",
    "fulltext_weight",
    "graph_weight",
    "hop_decay",
    "hub_damping",
    "confidence_weight",
    "recency_weight",
    "recency_half_life_s",
    "fact_weight",
)
_COUNTS: Mapping[str, int] = {
    "rrf_k": 1,
    "candidates": 1,
    "seeds": 0,
    "max_mentioning": 1,
    "reach_entities": 1,
    "turn_candidates": 1,
    "turn_context": 0,
    "bridge_slot": 0,
    "slot_mentions": 0,
    "follow_rounds": 0,
    "page_bridges": 0,
}

PRESETS: Mapping[str, FusionSettings] = {
    # Vector and full-text equally, a moderate pull from the graph: the default. The walk
    # is seeded by the entities the query names, the best entity hit and what the best
    # passage mentions (seeds 1): more seeds pulled passages that share entities with the
    # top few above the best ones. Passages reached through a specific entity (one few
    # passages mention: hub_damping 1) are pulled up strongly (reach_weight 3), entities
    # and facts keep graph_weight 0.5; rrf_k 30. Chosen on the tuning halves of HotpotQA
    # and MuSiQue among the settings that leave the fact hits of the evaluation worlds
    # as they were, checked on the held-out halves (docs/retrieval.md).
    "hybrid": FusionSettings(seeds=1, reach_weight=3.0, hub_damping=1.0, rrf_k=30),
    # Meaning over wording: paraphrased questions, chat logs.
    "semantic": FusionSettings(vector_weight=1.0, fulltext_weight=0.3),
    # Wording over meaning: names, codes, rare terms.
    "keyword": FusionSettings(vector_weight=0.3, fulltext_weight=1.0),
    # Multi-hop questions over documents: the entities the query names and those of the
    # best passage seed the walk; passages sharing them are pulled up (tuned on MuSiQue).
    "graph": FusionSettings(graph_weight=0.3, seeds=1, hop_decay=0.6),
    # Multi-hop questions over documents, no LLM: each round (``hops`` rounds) bridges from
    # the 3 best passages through the entities they mention to the passages mentioning
    # those, ranked by what the source passage leaves unanswered of the query
    # (graphmem.retrieval.bridge). Chosen on HotpotQA, checked on MuSiQue held out
    # (docs/retrieval.md). Place 5 is kept for the bridge slot (graphmem.retrieval.slots).
    "multihop": FusionSettings(
        method="bridge", graph_weight=3.0, seeds=3, hub_damping=1.0, bridge_slot=5
    ),
    # A passage question with no preset: one round of the bridge (three store calls, three
    # round trips on Neo4j), rank fusion with rrf_k 30, the vector side weighing 1.5;
    # chosen on the tuning halves of HotpotQA and MuSiQue (docs/retrieval.md), as was
    # the bridge slot at place 5 for a multi-part question (graphmem.retrieval.slots)
    # and the second round (two calls more) run only when a multi-part question's best
    # passage after the first is one the first reached by a bridge (follow_rounds 1),
    # and one passage per entity's page lifted as its page (page_bridges 1).
    "passages": FusionSettings(
        method="bridge",
        graph_weight=3.0,
        seeds=3,
        hub_damping=1.0,
        rounds=1,
        rrf_k=30,
        vector_weight=1.5,
        bridge_slot=5,
        follow_rounds=1,
        page_bridges=1,
    ),
    # Text only, no graph walk: what plain hybrid search would give.
    "text_only": FusionSettings(graph_weight=0.0, seeds=0, link_query=False),
    # Questions about past conversations: turns ranked by the fitted turn model alone (no
    # graph walk, no recency boost). Chosen by default when turns are what is searched.
    "conversation": FusionSettings(
        graph_weight=0.0,
        seeds=0,
        link_query=False,
        recency_weight=0.0,
        relationship_results=False,
    ),
}
"""Named fusion settings for ``retrieve(..., preset=...)``."""


def choose_preset(kinds: Sequence[str]) -> str:
    """The preset for a ``retrieve`` that names none, from what it searches.

    ``conversation`` when turns are all it asks for; ``passages`` when passages (chunks)
    are: a passage question is answered best by bridging from the best passages through
    the entities they name to the pages of those entities, here in one round (three store
    calls), two when the first round's best passage is one it reached and the chain goes
    on (five; ``multihop`` runs ``hops`` rounds); docs/retrieval.md: on the held-out halves
    of HotpotQA and MuSiQue it beats BM25 and vector search alone; otherwise ``hybrid``,
    which ranks turns by the same turn model and chunks and entities by reciprocal-rank
    fusion, then pulls in the graph and its facts (three store calls; an entity whose
    page is among the best passages is folded into it, a bare name into the best
    passage naming it).

    >>> choose_preset(["turn"]), choose_preset(["chunk"])
    ('conversation', 'passages')
    >>> choose_preset(["chunk", "turn", "entity", "relationship"])
    'hybrid'
    """
    wanted = list(kinds)
    if wanted == ["turn"]:
        return "conversation"
    return "passages" if wanted == ["chunk"] else "hybrid"


def resolve_settings(
    preset: str | FusionSettings | None, overrides: Mapping[str, Any] | None = None
) -> FusionSettings:
    """The settings of a preset name (or given settings), with ``overrides`` applied."""
    if preset is None:
        settings = PRESETS["hybrid"]
    elif isinstance(preset, FusionSettings):
        settings = preset
    elif isinstance(preset, str) and preset in PRESETS:
        settings = PRESETS[preset]
    else:
        raise InvalidInput(
            f"unknown fusion preset {preset!r}; use one of {sorted(PRESETS)} or FusionSettings"
        )
    if overrides:
        try:
            settings = replace(settings, **dict(overrides))
        except TypeError as exc:
            raise InvalidInput(f"unknown fusion setting: {exc}") from exc
    return settings


def reciprocal_rank_fusion(
    rankings: Sequence[tuple[Sequence[str], float]], rrf_k: int = 60
) -> dict[str, float]:
    """Fuse ranked id lists: ``score(id) = sum(weight * (rrf_k + 1) / (rrf_k + rank))``.

    Scaled so that an id ranked first in every list of total weight 1 scores 1.

    >>> scores = reciprocal_rank_fusion([(["a", "b"], 1.0), (["b", "c"], 1.0)], rrf_k=60)
    >>> max(scores, key=scores.get)
    'b'
    """
    total = sum(weight for _ids, weight in rankings) or 1.0
    scores: dict[str, float] = {}
    for ids, weight in rankings:
        if weight <= 0:
            continue
        for rank, node_id in enumerate(ids, start=1):
            gain = weight * (rrf_k + 1) / (rrf_k + rank) / total
            scores[node_id] = scores.get(node_id, 0.0) + gain
    return scores
