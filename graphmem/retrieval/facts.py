"""Facts as results: how well a relationship answers the query, as its sentence would.

The graph walk reaches the facts around the entities a query names; all of them are
equally near. What tells "Rosalind Hale works at St. Brigid's Infirmary" from "Rosalind
Hale lives in Lakeview" for "where does Rosalind work?" is the rest of the question: the
words the named entity does not explain. :class:`FactMatcher` scores each fact by how
much of that rest its sentence explains, in the store's own words:

- the query's words against the fact's type words ("works", "at"; ``SitsOn``: "sits",
  "on") and the other end's name and type (a light stemmer: "works" / "work", "employed"
  / "employ"); a type's words include what English relates to them (the lexicon of graph
  questions, :mod:`graphmem.retrieval.graphqa.lexicon`: "answer" of ``reports_to``, and
  "boss" for a fact whose other end is the one reported to), and a query's word what
  WordNet says it is a kind of ("backer": sponsor);
- for the facts of the entity the query names best (its topic), the query said of the
  topic's kind ("Who bought Ore Shipment 14?" as "Who bought ore shipment?") against
  each fact said of its ends' kinds, the way round the topic stands ("ore shipment
  consigned to company"; "company that ore shipment consigned to"): one more embedding
  of the query, the sentences made once and kept; scaled among the topic's facts. With
  the name gone, what is asked of the topic decides, not the name all its facts share.
  It can only lift a fact's match, and never above a topic fact whose words explain
  half the rest of the query or more;
- for other facts, the query's embedding against the embedding of the type's phrase
  ("works at"), made once per type and kept; scaled among the types met by the query, so
  the best-suited type counts fully;
- the question word: "who" asks for a person, "where" for a place (by WordNet's kind of
  the other end's type: a ``keeper``, a ``harbour``; graphmem's ``npc``, ``player`` and
  ``location``), and a fact whose other end is of that kind counts a little more.

No store call: the walk's facts and the query's vector are all it reads.
"""

from __future__ import annotations

import heapq
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache
from typing import Any

import numpy as np

from graphmem.core.models import Entity, Relationship, entity_aliases
from graphmem.core.words import STOPWORDS, type_phrase
from graphmem.retrieval.graphqa.kinds import asked_kind_fit
from graphmem.retrieval.graphqa.lexicon import (
    converse_verbs,
    derived_words,
    related_verbs,
    source_nouns,
    target_nouns,
)
from graphmem.retrieval.graphqa.relwords import kinds_of, phrasal
from graphmem.retrieval.graphqa.vocabulary import light_stem
from graphmem.retrieval.sayings import SentenceVectors, said_of_kind
from graphmem.retrieval.sayings import fact_sayings as _sayings
from graphmem.retrieval.sayings import unit_rows as _unit

__all__ = ["MATCHED_ENTITIES", "FactMatcher", "stem"]

_WORD = re.compile(r"\w+", re.UNICODE)
_SUFFIXES = ("ing", "ed", "es", "s")
# What a question word asks for, by entity type (a weak hint: custom types just miss it).
_ANSWER_TYPES: Mapping[str, frozenset[str]] = {
    "who": frozenset({"npc", "player"}),
    "whom": frozenset({"npc", "player"}),
    "whose": frozenset({"npc", "player"}),
    "where": frozenset({"location"}),
}
_KEPT_TYPES = 10_000  # type phrases whose vectors are kept per matcher
_KEPT_NAMES = 100_000  # entity names whose word stems are kept per matcher
# How much a topic's fact is matched by the question said of the topic's kind against
# the fact said of its kinds (the rest by words); chosen on the design worlds
# (docs/retrieval.md, "Facts are results"): 0.6-0.85 scored within .05 of each other.
_PHRASE_WEIGHT = 0.7
# A topic fact whose words explain this share of the rest of the query or more is not
# passed by a fact the phrase alone lifts. Chosen on the design worlds: 0.3-0.99 within
# .005 on the 24 `.json` ones; on the three `.world` ones hit@1 .865 with no ceiling,
# .902 at 0.5 and 0.4, .913 at 0.3 (docs/retrieval.md, "Facts are results").
_EXPLAINED = 0.5
MATCHED_ENTITIES = 20
"""Facts are matched around this many of the best-scored entities (or ``2 k``, if more):
a fact about an entity far down the ranking cannot make the cut, and a walk may reach
thousands of facts."""


@lru_cache(maxsize=65_536)
def stem(word: str) -> str:
    """A word without its common English ending, lower-cased ("works" -> "work").

    >>> [stem(w) for w in ["Works", "employed", "reports", "lives", "at"]]
    ['work', 'employ', 'report', 'live', 'at']
    """
    word = word.lower()
    if word.endswith("'s"):
        word = word[:-2]
    for suffix in _SUFFIXES:
        if len(word) > len(suffix) + 2 and word.endswith(suffix):
            if suffix == "es" and not word[:-2].endswith(("s", "x", "z", "ch", "sh")):
                return word[:-1]  # "lives" -> "live", but "boxes" -> "box"
            if suffix == "s" and word.endswith("ss"):
                return word
            return word[: -len(suffix)]
    return word


def _stems(text: str) -> set[str]:
    return {stem(w) for w in _WORD.findall(text) if w.lower() not in STOPWORDS}


# How much a word English relates to a type's own words counts, at most (its own count 1).
_RELATED = 0.8
# WordNet's weakest relations (a far hypernym, a rare sense: "knead" of work) are left out,
# as the graph questions leave them out.
_WEAKEST = 0.45


# How much an other end of the kind the question word asks for adds ("who": a person).
_KIND_WEIGHT = 0.15


def _kind_fit(question_word: str, entity_type: str) -> float:
    """How well a fact's other end is what "who" / "where" asks for (0..1).

    By WordNet's kind of the type's last word (:func:`asked_kind_fit`: a ``keeper`` is a
    person, a ``harbour`` a place); a type WordNet does not know fits when it is one of
    graphmem's own (``npc``, ``location``).
    """
    fit = asked_kind_fit(question_word, entity_type)
    if fit is None:
        return 1.0 if entity_type in _ANSWER_TYPES[question_word] else 0.0
    return fit


@lru_cache(maxsize=1024)
def _wider(words: tuple[str, ...]) -> Mapping[str, tuple[tuple[str, float], ...]]:
    """What a question's words say in wider words, by the stem of each.

    The nouns a noun is a kind of ("backer": sponsor, patron) and the verbs a phrasal verb
    is ("go up": ascend), with WordNet's strength (:mod:`graphmem.retrieval.graphqa.relwords`,
    as ``ask`` reads them); each counts :data:`_RELATED` times its strength.
    """
    out: dict[str, tuple[tuple[str, float], ...]] = {}
    for i, word in enumerate(words):
        if word in STOPWORDS or not word.isalpha():
            continue
        found: dict[str, float] = {}
        kinds = list(kinds_of(word))
        length, verbs = phrasal(words[i : i + 3])
        for other, strength in [*kinds, *(verbs if length > 1 else [])]:
            if strength >= _WEAKEST and " " not in other:
                key = stem(other)
                found[key] = max(found.get(key, 0.0), strength)
        if found:
            out[stem(word)] = tuple(sorted(found.items()))
    return out


@lru_cache(maxsize=4096)
def _type_words(rel_type: str) -> tuple[Mapping[str, float], ...]:
    """The stems that say a type, with how much each counts: ``(either, target, source)``.

    ``either``: its own words (1) and the verbs English relates to them, of the same
    relation or naming it from its other end ("answer" and "supervise" of ``reports_to``).
    ``target`` / ``source``: the nouns of the one at that end ("boss" of ``reports_to``:
    X's boss is the target of X's fact). Related words count :data:`_RELATED`
    (:mod:`graphmem.retrieval.graphqa.lexicon`; WordNet's from strength :data:`_WEAKEST`).
    """
    phrase = type_phrase(rel_type)
    own = [w for w in phrase.split() if w not in STOPWORDS]
    tables: tuple[dict[str, float], ...] = ({}, {}, {})

    def add(at: int, words: Iterable[str], weight: float) -> None:
        found = tables[at]
        for word in words:
            if " " in word:  # a phrase ("look after") says a type only as a whole
                continue
            key = stem(word)
            if key not in STOPWORDS:
                found[key] = max(found.get(key, 0.0), weight)

    derived = derived_words(own, passive=phrase.endswith(" by"))
    for at, table in enumerate((derived.verbs, derived.targets, derived.sources)):
        add(at, (w for w, strength in table.items() if strength >= _WEAKEST), _RELATED)
    add(0, related_verbs(own, light_stem), _RELATED)
    add(0, converse_verbs(own, light_stem), _RELATED)
    add(1, target_nouns(own, light_stem), _RELATED)
    add(2, source_nouns(own, light_stem), _RELATED)
    add(0, own, 1.0)
    return tables


class FactMatcher:
    """Scores facts by how much of the query their sentence explains (module docstring).

    Args:
        embed: Embeds a batch of texts (rows of unit or any length); None: words only.
        vectors: Where the type phrases and sayings are kept, by their text (the memory's,
            filled as its facts are written); None: a cache of the matcher's own.
    """

    def __init__(
        self,
        embed: Callable[[Sequence[str]], Any] | None,
        vectors: SentenceVectors | None = None,
    ) -> None:
        self._embed = embed
        self._vectors: SentenceVectors | None = None
        if embed is not None:
            self._vectors = vectors if vectors is not None else SentenceVectors(embed, _KEPT_TYPES)
        self._names: dict[str, frozenset[str]] = {}

    def _name_stems(self, entity: Entity) -> frozenset[str]:
        """The stems of an entity's name and aliases (kept, by the text they come from)."""
        text = " ".join([entity.name, *entity_aliases(entity)])
        found = self._names.get(text)
        if found is None:
            found = frozenset(_stems(text))
            if len(self._names) >= _KEPT_NAMES:
                self._names.clear()
            self._names[text] = found
        return found

    @staticmethod
    def _phrase_plan(
        text: str, topic: Entity, facts: Sequence[Relationship], entities: Mapping[str, Entity]
    ) -> tuple[str, dict[str, str], set[str]] | None:
        """The query said of the topic's kind, each topic fact's saying, every saying met.

        "Who bought Ore Shipment 14?" is read as "Who bought shipment?", to be compared
        with "shipment consigned to company" (the topic at the source) or "company that
        shipment consigned to" (at the target): with the name gone, what the question
        asks of the topic decides, not the name (every fact of the topic shares it).
        Both sayings of every fact met are returned, to be embedded in one batch the first
        time (later queries find them kept). None when the query does not name the topic
        or its facts are said in fewer than two ways (nothing to tell apart).
        """
        said = said_of_kind(text, topic.type, (topic.name, *entity_aliases(topic)))
        if said is None:
            return None
        sentences: dict[str, str] = {}
        ahead: set[str] = set()
        for rel in facts:
            source, target = entities.get(rel.source_id), entities.get(rel.target_id)
            if source is None or target is None:
                continue
            forward, backward = _sayings(source.type, rel.type, target.type)
            ahead.update((forward, backward))
            if source.id == topic.id:
                sentences[f"{rel.source_id}|{rel.type}|{rel.target_id}"] = forward
            elif target.id == topic.id:
                sentences[f"{rel.source_id}|{rel.type}|{rel.target_id}"] = backward
        if len(set(sentences.values())) < 2:
            return None
        return said, sentences, ahead

    @staticmethod
    def _scaled(raw: Mapping[str, float]) -> dict[str, float]:
        """``raw`` scaled to 0..1 between its lowest and highest (all 1 when they meet)."""
        low, high = min(raw.values(), default=0.0), max(raw.values(), default=0.0)
        spread = high - low
        return {k: (v - low) / spread if spread > 1e-6 else 1.0 for k, v in raw.items()}

    def match(
        self,
        text: str | None,
        vector: Any,
        facts: Sequence[Relationship],
        entities: Mapping[str, Entity],
        named: Mapping[str, float],
        limit: int = MATCHED_ENTITIES,
        wordings: Mapping[str, Any] | None = None,
    ) -> dict[str, float]:
        """Each fact's match in 0..1, by ``source|type|target``.

        Only facts with an end among the ``limit`` best-scored ``named`` entities are
        matched (see :data:`MATCHED_ENTITIES`); the others are left out (match 0).

        Args:
            text: The query text (None: vector only).
            vector: The query's embedding (None: words only).
            facts: The facts to score.
            entities: Their ends, by id (a fact with an end missing scores 0).
            named: How strongly the query names each entity (its own retrieval score):
                of a fact's ends, the more strongly named one is what the query is
                about, the other what it asks for.
            limit: How many of the best ``named`` entities the matched facts touch.
            wordings: Vectors of other wordings of the query, by their text (the query
                said of its topic's kind is looked up here before it is embedded).
        """
        if not facts:
            return {}
        best = set(heapq.nlargest(limit, named, key=named.__getitem__))
        facts = [r for r in facts if r.source_id in best or r.target_id in best]
        words = [w.lower() for w in _WORD.findall(text or "")]
        wider = _wider(tuple(words))
        asking = words[0] if words and words[0] in _ANSWER_TYPES else ""
        asking = asking or next((w for w in words[:3] if w in _ANSWER_TYPES), "")
        query_stems = _stems(text or "")
        similarity: dict[str, float] = {}
        phrase: dict[str, float] = {}
        if vector is not None and self._vectors is not None:
            types = sorted({rel.type for rel in facts})
            phrases = {t: type_phrase(t) for t in types}
            texts = {p: p for p in phrases.values()}
            plan = None
            if text and named:
                topic = entities.get(max(named, key=named.__getitem__))
                if topic is not None:
                    plan = self._phrase_plan(text, topic, facts, entities)
            given = None
            if plan is not None:
                texts.update((line, line) for line in sorted(plan[2]))
                given = (wordings or {}).get(plan[0])
            asked = plan[0] if plan is not None and given is None else None
            found, embedded = self._vectors.get(texts, asked)
            query = np.asarray(vector, dtype=np.float32).ravel()
            norm = float(np.linalg.norm(query)) or 1.0
            # A vector of the caller's own model (query_with_embedding) may not be of
            # the embedder's dimension: the words alone decide then.
            similarity = self._scaled(
                {
                    t: float(v @ query) / norm
                    for t in types
                    if (v := found.get(phrases[t])) is not None and v.shape == query.shape
                }
            )
            if plan is not None:
                # The query said of the topic's kind, against each topic fact said of its
                # kinds; scaled among the topic's facts. The wording is usually embedded
                # with the question (``wordings``, :meth:`HybridRetriever.wordings`).
                said = given if given is not None else embedded
                unit = _unit(np.asarray(said, dtype=np.float32).reshape(1, -1))[0]
                phrase = self._scaled(
                    {
                        key: float(v @ unit)
                        for key, line in plan[1].items()
                        if (v := found.get(line)) is not None
                    }
                )
        out: dict[str, float] = {}
        scored: list[tuple[str, float, float, float | None, float]] = []
        name_stems = self._name_stems
        for rel in facts:
            source, target = entities.get(rel.source_id), entities.get(rel.target_id)
            if source is None or target is None:
                continue
            if named.get(rel.source_id, 0.0) >= named.get(rel.target_id, 0.0):
                about, other = source, target
            else:
                about, other = target, source
            rest = query_stems - name_stems(about)
            lexical = 0.0
            if rest:
                either, targets, sources = _type_words(rel.type)
                nouns = targets if other is target else sources  # of the end it asks for
                ends = name_stems(other) | {stem(other.type)}
                lexical = sum(
                    1.0
                    if w in ends
                    else max(
                        either.get(w, 0.0),
                        nouns.get(w, 0.0),
                        *(
                            _RELATED * strength * max(either.get(k, 0.0), nouns.get(k, 0.0))
                            for k, strength in wider.get(w, ())
                        ),
                    )
                    for w in rest
                ) / len(rest)
            value = lexical
            key = f"{rel.source_id}|{rel.type}|{rel.target_id}"
            if similarity:
                value = 0.5 * lexical + 0.5 * similarity.get(rel.type, 0.0)
            lifted = None
            if key in phrase:
                lifted = (1.0 - _PHRASE_WEIGHT) * lexical + _PHRASE_WEIGHT * phrase[key]
            bonus = _KIND_WEIGHT * _kind_fit(asking, other.type) if asking else 0.0
            scored.append((key, lexical, value, lifted, bonus))
        # The phrase can only lift a fact, and never above a topic fact the words explain
        # (half or more of the rest): the words stay the precision layer.
        explained = [v for _k, lx, v, up, _b in scored if up is not None and lx >= _EXPLAINED]
        ceiling = max(explained) - 1e-3 if explained else None
        for key, lexical, value, lifted, bonus in scored:
            if lifted is not None:
                if ceiling is not None and lexical < _EXPLAINED:
                    lifted = min(lifted, ceiling)
                value = max(value, lifted)
            out[key] = min(1.0, value + bonus)
        return out
