"""Graph question answering: a question about the entity graph, answered by a typed walk.

``Memory.ask("who directed the films written by Mircea Eliade?")`` returns the entities
that answer it, each with the chain of facts that reached it. No model is trained and no
phrase is written for one dataset: the relationship types a question may walk are read
from the store (:meth:`graphmem.GraphStore.relationship_patterns`, and which roles go
together on one entity, :meth:`graphmem.GraphStore.relationship_cooccurrence`), and a
question is matched against their names and the descriptions a user attached to them
(:mod:`graphmem.retrieval.schema`).

1. **Link.** The entities the question names (:class:`EntityLinker`, longest match); each
   mention is a candidate topic, one reading per phrase.
2. **Read.** The question's words outside the topic's mention, with their positions; its
   question word ("who", "which", ...) and focus (the words after "which" / "what", or
   what "who", "where", "when" ask for: a person, a place, a time); and whether it asks
   for a walk there and back: it speaks of something shared ("same", "share", "also",
   "together", "co-", "else", ...), or names one type in two places along with the kind
   of entity the walk comes back to ("the films written by the writer of X").
3. **Match.** Each word against each relationship type's vocabulary (the words of its name
   and description; a word most types share counts little): 1 when their light stems
   agree ("directed" / "director", "starred" / "stars"), otherwise, given an embedder, by
   the cosine similarity of the two words' embeddings above a floor ("wrote" / "writer",
   "films" / "movie"). Function words count a little: "in" says something of
   ``located_in``.
4. **Plan.** Relation paths of up to ``max_hops`` steps (a step is a type walked forwards,
   backwards or, for a type that links entities of one kind both ways, either way), by
   beam search: the first step must be a fact the topic has, each next one a step the
   entities reached can take by their roles (entity types may be coarse). Scored by
   :class:`GraphQASettings`: the question words its types explain, the words another type
   explains better, its length, a walk there and back (asked for or not), the order of its
   types against the order of their words (the type named nearest the topic is walked
   first, the one nearest the question word last), how well the entity types it ends at
   (or its last type, walked forwards: a type's words describe its targets) fit the
   focus, a cost for ending at a described type that is not what is asked, and how many
   facts can take each step.
5. **Walk.** The best paths, one :meth:`GraphStore.expand` call per step for the whole
   frontier, until one reaches an entity (and more while fewer than ``k`` are found).
   A walk never comes back to the topic.
6. **Answer.** The entities reached, by path, then by how well their type fits the focus,
   then by how many chains reach them; each with one chain of facts from the topic as
   provenance.
"""

from __future__ import annotations

import math
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from graphmem.errors import InvalidInput, NotFound
from graphmem.models import Entity, Relationship
from graphmem.retrieval.linking import EntityLinker, Linking, Mention
from graphmem.retrieval.schema import GraphSchema, read_descriptions
from graphmem.retrieval.steps import check_query
from graphmem.store import GraphStore, RelationshipPattern, RoleCooccurrence

__all__ = [
    "Ambiguity",
    "GraphAnswer",
    "GraphAnswers",
    "GraphQA",
    "GraphQASettings",
    "PathStep",
    "PlannedPath",
    "light_stem",
]

StepDirection = Literal["out", "in", "both"]
Embed = Callable[[Sequence[str]], Any]

_WORD = re.compile(r"[^\W_]+", re.UNICODE)
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")

# English words that carry little meaning of their own. They still count a little
# (``GraphQASettings.function_weight``): "in" is all that "who is in the hall?" says of
# ``located_in``.


def _words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_FUNCTION_WORDS = _words(
    """a an the of by in on at to for from with into onto upon as is are was were be
    been being am do does did done doing has have had having can could would will shall
    should may might must it its this that these those there here and or but not no nor so
    than then s t i me my we our us you your he him his she her they them their please
    name tell list give show find any some all every one ones"""
)
# Words that say the answer shares something with the topic: a walk there and back.
_SHARED_WORDS = _words(
    "same share shares shared sharing also together co else other others fellow too both"
)
_QUESTION_WORDS = _words("who whom whose what which where when how")
# Words of a description that say what kind of thing an end is, not what the fact is: five
# types described as "a person ..." must not all look like answers to "who".
_GENERIC_WORDS = _words(
    """person people someone somebody something thing things one ones another other who
    whom whose which what where when character entity item place"""
)
# Words of a question that ask nothing of a relation ("name the ...", "what kind of").
_IDLE_WORDS = _words("name names kind kinds type types sort exactly currently now still also")
# Noun endings of the thing a fact is about, not of who does it: "location" is where
# something is located, "employment" what employs.
_OBJECT_NOUN_ENDINGS = ("ion", "ions", "ment", "ments", "ance", "ances", "ence", "ences")
_BE_WORDS = _words("is are was were be been being get gets got")
# What a question word asks for when no noun says it: "who" a person, "where" a place.
_ASKS_FOR: Mapping[str, tuple[str, ...]] = {
    "who": ("person", "people"),
    "whom": ("person", "people"),
    "whose": ("person", "people"),
    "where": ("place", "location"),
    "when": ("time", "date", "year"),
}
_HOW_MANY = ("number", "count", "amount")
_SUFFIXES: tuple[tuple[str, str], ...] = (
    ("ations", "ate"),
    ("ings", ""),
    ("ing", ""),
    ("ions", ""),
    ("ion", ""),
    ("iers", "i"),
    ("ier", "i"),
    ("ies", "i"),
    ("ied", "i"),
    ("ers", ""),
    ("ors", ""),
    ("er", ""),
    ("or", ""),
    ("es", ""),
    ("ed", ""),
    ("en", ""),
    ("s", ""),
    ("e", ""),
    ("y", "i"),
)


# Irregular forms a suffix cannot reach: plurals, and the past forms of common verbs
# ("who wrote X?" of ``written_by``, "where is X kept?" of ``kept_in``).
_IRREGULAR = {
    **{
        past: verb
        for verb, forms in {
            "write": "wrote written",
            "lead": "led",
            "keep": "kept",
            "build": "built",
            "make": "made",
            "hold": "held",
            "tell": "told",
            "teach": "taught",
            "buy": "bought",
            "sell": "sold",
            "bring": "brought",
            "fight": "fought",
            "catch": "caught",
            "think": "thought",
            "know": "knew known",
            "give": "gave given",
            "take": "took taken",
            "speak": "spoke spoken",
            "steal": "stole stolen",
            "choose": "chose chosen",
            "begin": "began begun",
            "ride": "rode ridden",
            "drive": "drove driven",
            "run": "ran",
            "win": "won",
            "meet": "met",
            "send": "sent",
            "spend": "spent",
            "stand": "stood",
            "leave": "left",
            "lose": "lost",
            "pay": "paid",
            "feel": "felt",
            "fly": "flew flown",
            "grow": "grew grown",
            "sing": "sang sung",
            "wear": "wore worn",
            "see": "saw seen",
            "go": "went gone",
        }.items()
        for past in forms.split()
    },
    "children": "child",
    "people": "person",
    "men": "man",
    "women": "woman",
    "wives": "wife",
    "lives": "life",
    "mice": "mouse",
    "feet": "foot",
    "teeth": "tooth",
}


def light_stem(word: str) -> str:
    """A light English stem, enough to tell that two forms of a word are one word.

    Two rounds of suffix stripping (never below three letters), then a doubled final
    consonant is single. Not a linguist's stemmer: only equal stems are compared.

    >>> [light_stem(w) for w in ("directed", "director", "directs", "starred", "stars")]
    ['direct', 'direct', 'direct', 'star', 'star']
    >>> [light_stem(w) for w in ("written", "writer", "bordering", "borders", "years")]
    ['writ', 'writ', 'bord', 'bord', 'year']
    """
    stem = word.lower()
    stem = _IRREGULAR.get(stem, stem)
    for _round in range(2):
        for suffix, replacement in _SUFFIXES:
            if not stem.endswith(suffix) or (suffix == "s" and stem.endswith("ss")):
                continue
            shorter = stem[: len(stem) - len(suffix)] + replacement
            if len(shorter) >= 3:
                stem = shorter
            break
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeioulsz":
        stem = stem[:-1]
    return stem


def _type_words(name: str) -> list[str]:
    """The words of a type name: ``written_by`` -> written, by; ``memberOf`` -> member, of."""
    return [w.lower() for part in _CAMEL.sub(" ", name).split("_") for w in _WORD.findall(part)]


# --------------------------------------------------------------------------- results


@dataclass(frozen=True, slots=True, order=True)
class PathStep:
    """One step of a relation path: a relationship type and the way it is walked.

    ``out`` follows facts from source to target, ``in`` from target to source, ``both``
    either way (chosen for a type that links entities of one kind both ways, such as
    ``borders`` between rooms).
    """

    type: str
    direction: StepDirection

    def __str__(self) -> str:
        arrow = {"out": "->", "in": "<-", "both": "<->"}[self.direction]
        return f"{arrow}{self.type}"


@dataclass(frozen=True, slots=True)
class PlannedPath:
    """A relation path the planner scored for a question (see :meth:`GraphQA.plan`).

    Attributes:
        topic: The linked entity ids the path starts from (one mention; several ids when
            several entities share the name).
        steps: The steps, in walking order.
        score: The path's score (a sum of ``parts``, weighted by :class:`GraphQASettings`).
        parts: The score's parts before weighting: ``explained``, ``unexplained``,
            ``hops``, ``repeats``, ``return``, ``order``, ``focus``, ``facts``, ``mention``,
            ``stray``.
    """

    topic: tuple[str, ...]
    steps: tuple[PathStep, ...]
    score: float
    parts: Mapping[str, float] = field(default_factory=dict)

    def __str__(self) -> str:
        return " ".join(str(step) for step in self.steps)


@dataclass(frozen=True, slots=True)
class GraphAnswer:
    """An entity that answers a graph question, with the facts that lead to it.

    Attributes:
        entity: The answer.
        score: The softmax weight of the path that reached it among the planned paths
            (answers of one path share it).
        path: The relation path walked, from the topic to the answer.
        facts: One chain of facts from the topic to the answer, one per step, each with
            its own provenance (source, confidence, evidence, validity).
        topic: The id of the entity the chain starts from (the one the question named).
        support: How many chains of the path reach the answer.
        type_fit: How well the answer's entity type fits what the question asks for (0..1).
    """

    entity: Entity
    score: float
    path: tuple[PathStep, ...]
    facts: tuple[Relationship, ...]
    topic: str
    support: int = 1
    type_fit: float = 0.0

    def explain(self) -> str:
        """The chain as text: ``Mircea Eliade <-written_by- ... -directed_by-> X``."""
        parts = [self.topic]
        here = self.topic
        for fact in self.facts:
            if fact.source_id == here:
                parts.append(f"-{fact.type}-> {fact.target_id}")
                here = fact.target_id
            else:
                parts.append(f"<-{fact.type}- {fact.source_id}")
                here = fact.source_id
        return " ".join(parts)


@dataclass(frozen=True, slots=True)
class Ambiguity:
    """A name in the question that several entities go by.

    Attributes:
        mention: The words of the question (normalised: lower case).
        candidates: The ids of the entities it may name; the walk starts from all of them.
    """

    mention: str
    candidates: tuple[str, ...]


class GraphAnswers(list[GraphAnswer]):
    """The answers to a graph question, best first: a list, with what was made of it.

    Empty when the question is not answered (``abstained``, with the ``reason``).

    Attributes:
        confidence: How likely the first answer is right (0..1): the share of the
            question's words the walked path explains, times how clearly that path beat
            the next one. 0 when abstained.
        abstained: No answer is given: the question names no known entity, no path
            explains its words ("husband" where no fact is about marriage), or the walk
            reached nothing.
        reason: Why it abstained, or which words the path leaves unexplained ("" when all
            are).
        ambiguity: The names in the question that several entities go by.
        unexplained: The question's words no step of the walked path (nor the kind of
            answer asked for) explains.
    """

    def __init__(
        self,
        answers: Iterable[GraphAnswer] = (),
        *,
        confidence: float = 0.0,
        abstained: bool = False,
        reason: str = "",
        ambiguity: Sequence[Ambiguity] = (),
        unexplained: Sequence[str] = (),
    ) -> None:
        super().__init__(answers)
        self.confidence = confidence
        self.abstained = abstained
        self.reason = reason
        self.ambiguity = tuple(ambiguity)
        self.unexplained = tuple(unexplained)

    def __repr__(self) -> str:
        flags = f"confidence={self.confidence:.2f}, abstained={self.abstained}"
        return f"GraphAnswers({list.__repr__(self)}, {flags}, reason={self.reason!r})"


# --------------------------------------------------------------------------- settings


@dataclass(frozen=True)
class GraphQASettings:
    """How graph questions are read, planned and walked (weights of the path score).

    The defaults were chosen on MetaQA's 1-hop and 2-hop test questions (see
    docs/retrieval.md); MetaQA's 3-hop questions and the LIGHT questions were held out.

    Attributes:
        max_hops: The longest path considered.
        explained: Weight of the question words the path's types explain (each type
            counts its best word).
        unexplained: Weight of the words another type explains better than the path's.
        hop: Cost of each step.
        repeat: Cost of each step that walks a type the path walked already.
        shared: Bonus for a walk there and back when the question speaks of something
            shared ("same", "share", "also", "together", "co-", ...).
        unshared: Cost of a walk there and back when it does not.
        order: Weight of agreement between the order of the path's types and the order
            of their words in the question.
        focus: Weight of the fit between the question's focus and the entity types the
            path ends at (or its last relationship type).
        mismatch: Cost of ending at entity types the user described (so what they are is
            known) that do not fit what the question asks for ("who ..." and films).
        facts: Weight of the log share of facts that can take each step (a step few
            facts of the current entity types take is unlikely).
        mention: Weight of the log length of the topic's mention (a longer name is a
            likelier topic than a short common word).
        twice: How much naming a type in two places ("the films written by the writer
            of X") counts as asking for a walk there and back, as "same" does (0..1).
        stray: Cost of each other entity the question names that the path leaves aside
            (unless its name is a word of the vocabulary, such as a tag "director").
        function_weight: How much a function word ("in", "of", "about") counts as a match.
        semantic_weight: The most an embedding match counts (an equal stem counts 1).
        semantic_floor: Cosine similarity below which two words' embeddings do not match.
        min_evidence: A relationship type is planned with only if some word matches it
            at least this much (or, when none does, all types are).
        min_step_share: Steps taken by a smaller share of the current types' facts of
            that type are not planned.
        max_types: At most this many relationship types (the best matched) are planned with.
        beam: How many of the best paths of each length are extended by one more step.
        max_walks: At most this many paths are walked for one question.
        margin: While fewer than ``k`` answers are found, the next paths are walked too,
            if their score is within this much of the first path that reached an answer
            (their answers follow, with lower scores).
        max_frontier: A walk keeps at most this many entities per step (the best supported).
        topic_sample: The first step of a path must be a type the topic's own facts have,
            when the linked entities have fewer neighbours than this in all (one
            ``expand`` call tells); otherwise any type the store's patterns allow.
        topic_prior: How much the share of the topic's facts a first step takes counts
            (as a power of that share, inside ``facts``): a person who mostly acted is
            likelier asked about acting when no word says which.
        temperature: Of the softmax that turns path scores into answer scores.
        direction: Weight of agreement between the way a step walks a type that joins
            one kind to itself and the way the question's words say it goes ("who does X
            report to?" against "who reports to X?"); a path that walks it against them is
            never walked.
        explained_floor: A question word is explained by a type (or by an entity type)
            when it matches it at least this much.
        min_coverage: Abstain when the walked path explains less than this share of the
            question's content words (the words outside the names, past small words).
        min_confidence: Abstain when the confidence is below this.
    """

    max_hops: int = 3
    explained: float = 1.0
    unexplained: float = 1.0
    hop: float = 0.2
    repeat: float = 0.3
    shared: float = 0.6
    unshared: float = 0.6
    order: float = 0.3
    focus: float = 0.5
    mismatch: float = 0.5
    facts: float = 0.3
    mention: float = 0.1
    stray: float = 1.0
    twice: float = 1.0
    function_weight: float = 0.25
    semantic_weight: float = 0.8
    semantic_floor: float = 0.6
    min_evidence: float = 0.1
    min_step_share: float = 0.02
    max_types: int = 6
    beam: int = 12
    max_walks: int = 4
    margin: float = 2.0
    max_frontier: int = 20_000
    topic_sample: int = 5000
    topic_prior: float = 0.1
    temperature: float = 0.5
    direction: float = 1.0
    explained_floor: float = 0.3
    min_coverage: float = 0.5
    min_confidence: float = 0.2

    def __post_init__(self) -> None:
        for name in ("max_hops", "max_types", "beam", "max_walks", "max_frontier", "topic_sample"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
        for name in (
            "explained",
            "unexplained",
            "hop",
            "repeat",
            "shared",
            "unshared",
            "order",
            "focus",
            "mismatch",
            "facts",
            "mention",
            "stray",
            "twice",
            "function_weight",
            "semantic_weight",
            "semantic_floor",
            "min_evidence",
            "min_step_share",
            "margin",
            "topic_prior",
            "temperature",
            "direction",
            "explained_floor",
            "min_coverage",
            "min_confidence",
        ):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
                raise InvalidInput(f"{name} must be a finite number >= 0, got {value!r}")
        if self.temperature == 0:
            raise InvalidInput("temperature must be positive")


# --------------------------------------------------------------------------- vocabulary


class _Lexicon:
    """Words of types (relationship or entity types), each word weighted by its rarity."""

    def __init__(self, words_of: Mapping[str, Iterable[str]], function_weight: float) -> None:
        self.names = sorted(words_of)
        stems: dict[str, dict[str, float]] = {}
        surface: dict[str, str] = {}
        for name in self.names:
            own: dict[str, float] = {}
            for word in words_of[name]:
                stem = light_stem(word)
                weight = function_weight if word in _FUNCTION_WORDS else 1.0
                own[stem] = max(own.get(stem, 0.0), weight)
                if weight == 1.0:
                    surface.setdefault(stem, word)
            stems[name] = own
        count = len(self.names)
        frequency: dict[str, int] = {}
        for own in stems.values():
            for stem in own:
                frequency[stem] = frequency.get(stem, 0) + 1
        self.stems = sorted(frequency)
        column = {stem: i for i, stem in enumerate(self.stems)}
        # weights[type, word]: the word's weight in the type, times its rarity among types.
        self.weights = np.zeros((count, len(self.stems)), dtype=np.float64)
        for row, name in enumerate(self.names):
            for stem, weight in stems[name].items():
                rarity = 1.0
                if count > 1:
                    rarity = math.log((count + 1) / frequency[stem]) / math.log(count + 1)
                self.weights[row, column[stem]] = weight * rarity
        self.column = column
        # The content words that can be compared by embedding (one surface form per stem).
        self.semantic = [(column[stem], word) for stem, word in sorted(surface.items())]
        self.index = {name: row for row, name in enumerate(self.names)}


class _WordVectors:
    """Unit embeddings of single words, computed once each."""

    def __init__(self, embed: Embed, limit: int = 200_000) -> None:
        self._embed = embed
        self._cache: dict[str, np.ndarray] = {}
        self._limit = limit

    def get(self, words: Sequence[str]) -> np.ndarray:
        missing = [w for w in dict.fromkeys(words) if w not in self._cache]
        if missing:
            vectors = np.asarray(self._embed(missing), dtype=np.float64)
            if vectors.ndim != 2 or vectors.shape[0] != len(missing):
                raise InvalidInput(
                    f"the embedder returned shape {vectors.shape} for {len(missing)} words"
                )
            norms = np.linalg.norm(vectors, axis=1, keepdims=True)
            vectors = vectors / np.where(norms == 0, 1.0, norms)
            if len(self._cache) + len(missing) > self._limit:
                self._cache.clear()
            self._cache.update(zip(missing, vectors, strict=True))
        if not words:
            return np.zeros((0, 0))
        return np.stack([self._cache[w] for w in words])


@dataclass
class _Vocabulary:
    """What the planner knows of a tenant: relationship types, entity types, transitions."""

    relations: _Lexicon
    types: _Lexicon
    # (entity type, relationship type) -> {next entity type: facts} walking out / in.
    out: dict[tuple[str, str], dict[str, int]]
    into: dict[tuple[str, str], dict[str, int]]
    # role -> {other role: share of the entities with the first that have the other too}
    follows: dict[tuple[str, str], dict[tuple[str, str], float]]
    # the entity types the user described (what they are is known)
    described: frozenset[str]
    # relationship types that mostly join one entity type to itself (direction matters)
    reflexive: frozenset[str] = frozenset()
    # the light stems of each relationship type's name's content words, in order
    name_stems: Mapping[str, tuple[str, ...]] = field(default_factory=dict)

    def after(self, steps: Sequence[tuple[str, StepDirection]], relation: str, way: str) -> float:
        """The share of the entities the last step reaches that can take the next one.

        A step ``(type, out)`` reaches entities that are targets of ``type`` facts (role
        ``(type, in)``); the next step ``(relation, way)`` needs role ``(relation, way)``
        (either way for ``both``). Read from the store's role co-occurrence; 1 when none
        is known (then the entity types alone decide).
        """
        if not self.follows or not steps:
            return 1.0
        last, last_way = steps[-1]
        arrived = {"out": ["in"], "in": ["out"], "both": ["in", "out"]}[last_way]
        needed = ["in", "out"] if way == "both" else [way]
        return max(
            self.follows.get((last, a), {}).get((relation, n), 0.0) for a in arrived for n in needed
        )

    @classmethod
    def build(cls, schema: GraphSchema, function_weight: float) -> _Vocabulary:
        out: dict[tuple[str, str], dict[str, int]] = {}
        into: dict[tuple[str, str], dict[str, int]] = {}
        entity_types: set[str] = set(schema.entity_types)
        relation_types: set[str] = set()
        for pattern in schema.patterns:
            relation_types.add(pattern.type)
            entity_types.update((pattern.source_type, pattern.target_type))
            forward = out.setdefault((pattern.source_type, pattern.type), {})
            forward[pattern.target_type] = forward.get(pattern.target_type, 0) + pattern.facts
            backward = into.setdefault((pattern.target_type, pattern.type), {})
            backward[pattern.source_type] = backward.get(pattern.source_type, 0) + pattern.facts

        def words(name: str, description: str | None, generic: frozenset[str]) -> list[str]:
            found = _type_words(name)
            if description:  # its function words describe nothing
                found += [
                    w
                    for w in (m.lower() for m in _WORD.findall(description))
                    if w not in _FUNCTION_WORDS and w not in generic
                ]
            return found

        relations = _Lexicon(
            {r: words(r, schema.relationship_types.get(r), _GENERIC_WORDS) for r in relation_types},
            function_weight,
        )
        types = _Lexicon(
            {t: words(t, schema.entity_types.get(t), frozenset()) for t in entity_types},
            function_weight,
        )
        alone: dict[tuple[str, str], int] = {}
        for pair in schema.cooccurrence:
            if (pair.type_a, pair.direction_a) == (pair.type_b, pair.direction_b):
                alone[(pair.type_a, pair.direction_a)] = pair.entities
        follows: dict[tuple[str, str], dict[tuple[str, str], float]] = {}
        for pair in schema.cooccurrence:
            a, b = (pair.type_a, pair.direction_a), (pair.type_b, pair.direction_b)
            for one, other in ((a, b), (b, a)):
                if alone.get(one):
                    follows.setdefault(one, {})[other] = pair.entities / alone[one]
        same: dict[str, int] = {}
        total: dict[str, int] = {}
        for pattern in schema.patterns:
            total[pattern.type] = total.get(pattern.type, 0) + pattern.facts
            if pattern.source_type == pattern.target_type:
                same[pattern.type] = same.get(pattern.type, 0) + pattern.facts
        reflexive = frozenset(t for t, n in same.items() if 2 * n >= total[t])
        name_stems = {
            t: tuple(light_stem(w) for w in _type_words(t) if w not in _FUNCTION_WORDS)
            for t in relation_types
        }
        return cls(
            relations,
            types,
            out,
            into,
            follows,
            frozenset(schema.entity_types),
            reflexive,
            name_stems,
        )

    def steps(
        self, state: Mapping[str, float], relation: str
    ) -> list[tuple[StepDirection, float, dict[str, float]]]:
        """The ways ``relation`` can be walked from the type mix ``state``.

        Each as ``(direction, share, next state)``: ``share`` is the part of the current
        types' facts of this relationship type that go that way (1 for ``both``, scaled by
        how evenly they go both ways), the next state the entity types reached.
        """
        found: list[tuple[StepDirection, float, dict[str, float]]] = []
        shares: dict[str, float] = {"out": 0.0, "in": 0.0, "both": 0.0}
        nexts: dict[str, dict[str, float]] = {"out": {}, "in": {}, "both": {}}
        for entity_type, weight in state.items():
            forward = self.out.get((entity_type, relation), {})
            backward = self.into.get((entity_type, relation), {})
            n_out, n_in = sum(forward.values()), sum(backward.values())
            if not n_out and not n_in:
                continue
            total = n_out + n_in
            shares["out"] += weight * n_out / total
            shares["in"] += weight * n_in / total
            shares["both"] += weight * 2 * min(n_out, n_in) / total
            for way, counts, n in (("out", forward, n_out), ("in", backward, n_in)):
                for target, facts in counts.items():
                    share = weight * facts / n
                    nexts[way][target] = nexts[way].get(target, 0.0) + share
                    nexts["both"][target] = nexts["both"].get(target, 0.0) + share / 2
        for way in ("out", "in", "both"):
            if shares[way] > 0 and nexts[way]:
                mass = sum(nexts[way].values())
                state_next = {t: v / mass for t, v in nexts[way].items()}
                found.append((way, shares[way], state_next))  # type: ignore[arg-type]
        return found


# --------------------------------------------------------------------------- reading


@dataclass
class _Reading:
    """A question read against a vocabulary, for one candidate topic mention."""

    topic: tuple[str, ...]
    mention_length: int
    evidence: np.ndarray  # (relation types,) best match of any word
    per_word: np.ndarray  # (words, relation types) match of each word
    key: np.ndarray  # (relation types,) where the best word sits: topic side < 0 < question side
    focus_relations: np.ndarray  # (relation types,) fit of the focus words
    focus_types: np.ndarray  # (entity types,) fit of the focus words
    asks: bool  # the question says what it asks for (a focus)
    shared: float
    twice: np.ndarray  # (relation types,) 1 where the type is named in two places
    stray: float  # other entities named, that the path leaves aside
    # (relation types,) the way the question walks a type joining one kind to itself:
    # +1 from the topic as its source ("who does X report to?"), -1 as its target
    # ("who reports to X?"), 0 unknown
    cue: np.ndarray = field(default_factory=lambda: np.zeros(0))
    focus_at: int | None = None  # the position of the word after "which" / "what"
    # (relation types,) how well a kind of entity the question names fits the type's ends
    touches: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # (relation types,) how many times one word naming the type is written ("boss's boss")
    times: np.ndarray = field(default_factory=lambda: np.zeros(0))


@dataclass
class _Token:
    start: int
    end: int
    text: str


@dataclass
class _Plan:
    """A question read and planned: the paths, and what explaining it takes."""

    tokens: list[_Token]
    vocab: _Vocabulary
    paths: list[PlannedPath] = field(default_factory=list)
    focus_fit: dict[str, float] = field(default_factory=dict)
    readings: dict[tuple[str, ...], _Reading] = field(default_factory=dict)
    matches: Mapping[str, np.ndarray] = field(default_factory=dict)
    named: frozenset[int] = frozenset()
    ambiguity: tuple[Ambiguity, ...] = ()
    reason: str = ""


class GraphQA:
    """Answers questions about one tenant's entity graph; see the module docstring.

    Args:
        store: The store.
        tenant: Whose graph.
        linker: Gives the entity linker over the tenant's entity names (called per question;
            it may cache).
        embed: Embeds texts (an :class:`~graphmem.retrieval.Embedder`'s ``embed``) to
            compare words by meaning as well as by stem; None: by stem only.
        settings: Weights and limits.
        schema_max_age: Seconds the store's fact shapes
            (:meth:`~graphmem.GraphStore.relationship_patterns` and
            :meth:`~graphmem.GraphStore.relationship_cooccurrence`) are reused before they
            are read again. 0 (the default) reads them for every question: the embedded backend
            keeps them until the next write, a server backend counts them in one query over
            the tenant's facts, which a large graph may want to do less often.
    """

    def __init__(
        self,
        store: GraphStore,
        tenant: str,
        linker: Callable[[], EntityLinker],
        embed: Embed | None = None,
        settings: GraphQASettings | None = None,
        *,
        schema_max_age: float = 0.0,
    ) -> None:
        if not isinstance(schema_max_age, int | float) or not schema_max_age >= 0:
            raise InvalidInput(f"schema_max_age must be a number >= 0, got {schema_max_age!r}")
        self._schema_max_age = float(schema_max_age)
        self._store = store
        self._tenant = tenant
        self._linker = linker
        self._vectors = _WordVectors(embed) if embed is not None else None
        self.settings = settings or GraphQASettings()
        self._facts: (
            tuple[float, tuple[RelationshipPattern, ...], tuple[RoleCooccurrence, ...]] | None
        ) = None
        self._vocabulary: tuple[GraphSchema, _Vocabulary] | None = None

    # ------------------------------------------------------------------ public

    def schema(self) -> GraphSchema:
        """The tenant's fact shapes and type descriptions, as the planner reads them."""
        now = time.monotonic()
        if self._facts is None or now - self._facts[0] >= self._schema_max_age:
            patterns = tuple(self._store.relationship_patterns(self._tenant))
            cooccurrence = tuple(self._store.relationship_cooccurrence(self._tenant))
            self._facts = (now, patterns, cooccurrence)
        return GraphSchema(
            patterns=self._facts[1],
            cooccurrence=self._facts[2],
            relationship_types=read_descriptions(self._store, self._tenant, "relationship"),
            entity_types=read_descriptions(self._store, self._tenant, "entity"),
        )

    def plan(
        self, question: str, *, max_hops: int | None = None, limit: int = 10
    ) -> list[PlannedPath]:
        """The best relation paths for ``question``, best first, with their score parts.

        Raises:
            InvalidInput: Empty question, ``max_hops`` or ``limit`` not positive.
        """
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise InvalidInput(f"limit must be a positive integer, got {limit!r}")
        return self._plan(question, max_hops).paths[:limit]

    def answer(self, question: str, k: int = 10, *, max_hops: int | None = None) -> GraphAnswers:
        """The entities that answer ``question``, best first (at most ``k``).

        Returns:
            The answers, with the confidence, and whether (and why) it abstained: then
            the list is empty.

        Raises:
            InvalidInput: Empty question, ``k`` or ``max_hops`` not positive.
        """
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise InvalidInput(f"k must be a positive integer, got {k!r}")
        plan = self._plan(question, max_hops)
        paths, focus_fit = plan.paths, plan.focus_fit
        if not paths:
            return GraphAnswers(abstained=True, reason=plan.reason, ambiguity=plan.ambiguity)
        scores = np.array([p.score for p in paths])
        weights = np.exp((scores - scores.max()) / self.settings.temperature)
        weights /= weights.sum()
        answers: list[GraphAnswer] = []
        seen: set[str] = set()
        walks = 0
        best: PlannedPath | None = None
        for path, weight in zip(paths, weights, strict=True):
            if walks >= self.settings.max_walks or len(answers) >= k:
                break
            if best is not None and path.score < best.score - self.settings.margin:
                break
            if path.parts.get("direction", 0.0) < 0:
                continue  # against the way the question's words walk it
            walks += 1
            reached = self._walk(path)
            if not reached:
                continue
            if best is None:
                best = path
            ranked = sorted(
                reached.values(),
                key=lambda r: (-focus_fit.get(r[0].type, 0.0), -r[1], r[0].id),
            )
            for entity, support, chain in ranked:
                if entity.id in seen:
                    continue
                seen.add(entity.id)
                topic = (
                    chain[0].source_id if chain[0].source_id in path.topic else chain[0].target_id
                )
                answers.append(
                    GraphAnswer(
                        entity=entity,
                        score=float(weight),
                        path=path.steps,
                        facts=chain,
                        topic=topic,
                        support=support,
                        type_fit=round(focus_fit.get(entity.type, 0.0), 4),
                    )
                )
        if best is None:
            return GraphAnswers(
                abstained=True,
                reason="no fact of the graph leads from the entity named along a path "
                f"that fits the question (tried {paths[0]})",
                ambiguity=plan.ambiguity,
            )
        coverage, unexplained = self._coverage(plan, best)
        rival = next(
            (p.score for p in paths if (p.topic, p.steps) != (best.topic, best.steps)), None
        )
        gap = best.score - rival if rival is not None else 4.0 * self.settings.temperature
        clear = 1.0 / (1.0 + math.exp(-gap / self.settings.temperature))
        confidence = round(coverage * clear / len(best.topic), 4)
        said = ", ".join(repr(w) for w in unexplained)
        if coverage < self.settings.min_coverage:
            return GraphAnswers(
                abstained=True,
                reason=f"no relationship of the graph explains {said}",
                ambiguity=plan.ambiguity,
                unexplained=unexplained,
            )
        if confidence < self.settings.min_confidence:
            return GraphAnswers(
                abstained=True,
                reason=f"confidence {confidence:.2f} is below {self.settings.min_confidence}",
                ambiguity=plan.ambiguity,
                unexplained=unexplained,
            )
        return GraphAnswers(
            answers[:k],
            confidence=confidence,
            reason=f"the path leaves {said} unexplained" if unexplained else "",
            ambiguity=plan.ambiguity,
            unexplained=unexplained,
        )

    def _coverage(self, plan: _Plan, path: PlannedPath) -> tuple[float, list[str]]:
        """The share of the question's content words ``path`` explains, and those it does not.

        A content word is one outside the names, past the small, question and idle words
        ("name", "kind"). It is explained by a step's type, by an entity type (what is
        asked or talked about: "which district", "the patients"), or as the word the
        question asks with ("which *insurance* ...": what the answer is, not how it is
        reached).
        """
        vocab = plan.vocab
        names = vocab.relations.names
        used = sorted({vocab.relations.index[step.type] for step in path.steps})
        n_rel = len(names)
        reading = plan.readings.get(path.topic)
        focus_at = reading.focus_at if reading is not None else None
        floor = self.settings.explained_floor
        content = 0
        explained = 0
        missing: list[str] = []
        for i, token in enumerate(plan.tokens):
            word = token.text
            if (
                i in plan.named
                or word in _FUNCTION_WORDS
                or word in _QUESTION_WORDS
                or word in _SHARED_WORDS
                or word in _IDLE_WORDS
                or word.isdigit()
            ):
                continue
            match = plan.matches[word]
            said = float(match[used].max(initial=0.0))
            kind = float(match[n_rel:].max(initial=0.0))
            if said >= floor and said >= kind:
                content += 1
                explained += 1
            elif kind >= floor:
                # it names a kind of entity ("the Finance team"), not a relation; as the
                # word the question asks with ("which team"), what the answer is
                if i == focus_at:
                    content += 1
                    explained += 1
            else:
                content += 1
                if word not in missing:
                    missing.append(word)
        return (explained / content if content else 1.0), missing

    # ------------------------------------------------------------------ planning

    def _vocab(self) -> _Vocabulary:
        schema = self.schema()
        if self._vocabulary is None or self._vocabulary[0] != schema:
            self._vocabulary = (
                schema,
                _Vocabulary.build(schema, self.settings.function_weight),
            )
        return self._vocabulary[1]

    def _plan(self, question: str, max_hops: int | None) -> _Plan:
        if not isinstance(question, str) or not question.strip():
            raise InvalidInput("the question is empty; ask something (e.g. 'where is Mira?')")
        check_query(question, "the question")  # at most MAX_QUERY_LENGTH characters
        hops = self.settings.max_hops if max_hops is None else max_hops
        if not isinstance(hops, int) or isinstance(hops, bool) or hops < 1:
            raise InvalidInput(f"max_hops must be a positive integer, got {max_hops!r}")
        vocab = self._vocab()
        text = " ".join(question.lower().split())
        tokens = [_Token(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)]
        plan = _Plan(tokens=tokens, vocab=vocab)
        if not vocab.relations.names:
            plan.reason = "the graph holds no facts to walk"
            return plan
        found = self._mentions(question, text, vocab)
        if not found:
            plan.reason = "the question names no known entity"
            return plan
        mentions: dict[tuple[int, int], list[str]] = {(m.start, m.end): list(m.ids) for m in found}
        linked = sorted({e for ids in mentions.values() for e in ids})
        kinds, around = self._around(linked)
        plan.ambiguity = tuple(
            Ambiguity(mention=m.text, candidates=tuple(e for e in m.ids if e in kinds))
            for m in found
            if sum(e in kinds for e in m.ids) > 1
        )
        named = {
            i
            for i, t in enumerate(tokens)
            for start, end in mentions
            if t.start >= start and t.end <= end
        }
        plan.named = frozenset(named)
        matches = self._match(tokens, named, vocab)
        plan.matches = matches
        paths: list[PlannedPath] = []
        fits: dict[tuple[str, ...], dict[str, float]] = {}
        for (start, end), ids in mentions.items():
            topic = tuple(e for e in ids if e in kinds)
            if not topic:
                continue
            inside = [i for i, t in enumerate(tokens) if t.start >= start and t.end <= end]
            if not inside:
                continue
            others = [
                [i for i, t in enumerate(tokens) if t.start >= a and t.end <= b]
                for a, b in mentions
                if (a, b) != (start, end)
            ]
            types = {kinds[e] for e in topic}
            reading = self._read(
                text, tokens, inside, others, topic, types, end - start, matches, vocab
            )
            plan.readings[topic] = reading
            state: dict[str, float] = {}
            for entity_id in topic:
                state[kinds[entity_id]] = state.get(kinds[entity_id], 0.0) + 1 / len(topic)
            first: dict[tuple[str, str], float] | None = None
            if around is not None:  # the share of the topic's facts each way of starting has
                first = {}
                for entity_id in topic:
                    for key, count in around[entity_id].items():
                        first[key] = first.get(key, 0.0) + count
                total = sum(first.values())
                first = {key: count / total for key, count in first.items()} if total else {}
            paths.extend(self._paths(reading, state, first, vocab, hops))
            fits[topic] = dict(zip(vocab.types.names, reading.focus_types.tolist(), strict=True))
        paths.sort(key=lambda p: (-p.score, len(p.steps), p.topic, p.steps))
        plan.paths = paths
        plan.focus_fit = fits.get(paths[0].topic, {}) if paths else {}
        if not plan.readings:
            plan.reason = "the entity the question names is gone from the graph"
        elif not paths:
            plan.reason = "no fact of the entity the question names can start a walk"
        return plan

    def _mentions(self, question: str, text: str, vocab: _Vocabulary) -> list[Mention]:
        """The mentions a question is read with: whole names, else the parts of names.

        A part of a name (a first name, a surname, "the mill") counts when it is written
        with a capital inside the sentence ("who does Odile distrust?"), or when nothing
        else is named and the part is not a word of the vocabulary ("who runs the mill?",
        but not "team" of "Platform Team" in "which team ...").
        """
        linker = self._linker
        built = linker.question_linker() if isinstance(linker, Linking) else linker()
        found = built.mentions(question)
        cased = " ".join(question.split())
        if len(cased) != len(text):  # a lower-casing that changed lengths: no capitals read
            cased = text

        def capital(m: Mention) -> bool:
            words = [w for w in _WORD.findall(cased[m.start : m.end]) if w]
            return m.start > 0 and bool(words) and words[0][:1].isupper()

        kept = [m for m in found if m.exact or capital(m)]
        if kept:
            return kept
        known = set(vocab.relations.column) | set(vocab.types.column)

        def plain(m: Mention) -> bool:
            words = _WORD.findall(m.text)
            return any(
                w not in _FUNCTION_WORDS and w not in _QUESTION_WORDS and light_stem(w) not in known
                for w in words
            )

        return [m for m in found if plain(m)]

    def _around(
        self, linked: list[str]
    ) -> tuple[dict[str, str], dict[str, dict[tuple[str, str], int]] | None]:
        """The linked entities' types, and how many facts of each (type, out|in) each has.

        One ``expand`` call; the facts are known only when the entities have fewer than
        ``topic_sample`` neighbours in all (else None: the first step is not restricted).
        """
        cap = len(linked) + self.settings.topic_sample
        try:
            sub = self._store.expand(self._tenant, linked, depth=1, max_nodes=cap)
        except NotFound:  # the linker is older than a delete: leave out what is gone
            present = [e.id for e in self._store.get_entities(self._tenant, linked)]
            if not present:
                return {}, None
            sub = self._store.expand(self._tenant, present, depth=1, max_nodes=cap)
        wanted = set(linked)
        kinds = {e.id: e.type for e in sub.entities if e.id in wanted}
        if len(sub.entities) >= cap:
            return kinds, None
        around: dict[str, dict[tuple[str, str], int]] = {e: {} for e in kinds}
        for rel in sub.relationships:
            for end, way in ((rel.source_id, "out"), (rel.target_id, "in")):
                if end in around:
                    counts = around[end]
                    counts[(rel.type, way)] = counts.get((rel.type, way), 0) + 1
        return kinds, around

    def _match(
        self, tokens: list[_Token], named: set[int], vocab: _Vocabulary
    ) -> dict[str, np.ndarray]:
        """Each distinct question word (and what question words ask for) against each lexicon.

        Words inside an entity's name (``named`` token positions) are compared by stem
        only: a name is not a paraphrase of a relationship type.

        Returns ``{word: (relation match per relation type, type match per entity type)}``
        flattened as one vector: relation types first.
        """
        words = {t.text for t in tokens}
        for asked in _ASKS_FOR.values():
            words.update(asked)
        words.update(_HOW_MANY)
        ordered = sorted(words)
        plain = {t.text for i, t in enumerate(tokens) if i not in named} | (
            words - {t.text for t in tokens}
        )
        out: dict[str, np.ndarray] = {}
        parts = []
        for lexicon in (vocab.relations, vocab.types):
            sims = np.zeros((len(ordered), len(lexicon.stems)))
            for row, word in enumerate(ordered):
                column = lexicon.column.get(light_stem(word))
                if column is not None:
                    sims[row, column] = 1.0
            self._semantic(ordered, plain, lexicon, sims)
            # match of a word with a type: its best word there, by that word's weight
            parts.append((sims[:, None, :] * lexicon.weights[None, :, :]).max(axis=2))
        joined = np.concatenate(parts, axis=1)
        for row, word in enumerate(ordered):
            out[word] = joined[row]
        return out

    def _semantic(
        self, words: list[str], plain: set[str], lexicon: _Lexicon, sims: np.ndarray
    ) -> None:
        settings = self.settings
        if self._vectors is None or not lexicon.semantic or settings.semantic_weight == 0:
            return
        rows = [
            i
            for i, w in enumerate(words)
            if w in plain
            and w not in _FUNCTION_WORDS
            and w not in _QUESTION_WORDS
            and w not in _SHARED_WORDS
            and not w.isdigit()
        ]
        if not rows:
            return
        columns = [c for c, _w in lexicon.semantic]
        left = self._vectors.get([words[i] for i in rows])
        right = self._vectors.get([w for _c, w in lexicon.semantic])
        cosine = left @ right.T
        floor = min(settings.semantic_floor, 0.999)
        scaled = np.clip((cosine - floor) / (1 - floor), 0.0, 1.0) * settings.semantic_weight
        block = sims[np.ix_(rows, columns)]
        sims[np.ix_(rows, columns)] = np.maximum(block, scaled)

    def _read(
        self,
        question: str,
        tokens: list[_Token],
        inside: list[int],
        others: list[list[int]],
        topic: tuple[str, ...],
        topic_types: set[str],
        mention_length: int,
        matches: Mapping[str, np.ndarray],
        vocab: _Vocabulary,
    ) -> _Reading:
        settings = self.settings
        n_rel = len(vocab.relations.names)
        n_type = len(vocab.types.names)
        # Other entities the question names, unless their words are words of the
        # vocabulary ("director", "film"): a topic that leaves a name aside is unlikely.
        stray = 0.0
        for mention in others:
            words = [tokens[i].text for i in mention]
            if all(w in _FUNCTION_WORDS or w in _QUESTION_WORDS for w in words):
                continue
            said = max(float(matches[w].max(initial=0.0)) for w in words)
            stray += 1.0 - min(1.0, said)
        first, last = inside[0], inside[-1]
        outside = [i for i in range(len(tokens)) if i < first or i > last]
        asking = next((i for i in outside if tokens[i].text in _QUESTION_WORDS), None)
        # The words the question asks with: what "who"/"where"/"when" ask for, "how many",
        # or the first content word after "which"/"what" (past "is", "the", ...).
        focus: list[tuple[int, str, bool]] = []  # (position, word, asked for by a question word)
        if asking is not None:
            word = tokens[asking].text
            following = tokens[asking + 1].text if asking + 1 < len(tokens) else ""
            if word in _ASKS_FOR:  # the word itself too: "the director who directed ..."
                focus = [(asking, word, False)] + [(asking, w, True) for w in _ASKS_FOR[word]]
            elif word == "how" and following in ("many", "much"):
                focus = [(asking, w, True) for w in _HOW_MANY]
            elif word in ("which", "what"):
                for i in range(asking + 1, len(tokens)):
                    text = tokens[i].text
                    if first <= i <= last:
                        break
                    if text in _FUNCTION_WORDS or text in _QUESTION_WORDS:
                        continue
                    if text not in _SHARED_WORDS:
                        focus = [(i, text, False)]
                    break
        rows: list[tuple[int, np.ndarray]] = []
        shared = 0.0
        evidence = np.zeros(n_rel)
        for i in outside:
            text = tokens[i].text
            if text in _SHARED_WORDS:
                shared = 1.0
            if text in _QUESTION_WORDS:
                continue
            weight = settings.function_weight if text in _FUNCTION_WORDS else 1.0
            match = matches[text]
            # a word that names an entity type ("films", "rooms") says what is asked or
            # talked about, not which relationship: it is no evidence for one
            relation = np.where(match[:n_rel] >= match[n_rel:].max(initial=0.0), match[:n_rel], 0)
            rows.append((i, weight * relation))
            # which types are planned with: a small word of a type's name ("in" of
            # ``located_in``) is evidence enough ("which district is X in?")
            evidence = np.maximum(evidence, relation)
        # What a question word asks for ("where": a place) says what the answer is (the
        # focus), never which relationship leads there: a second step that ends at a
        # "location" explains no more of "where does X work?" than the first.
        said = len(rows)
        per_word = np.stack([row for _i, row in rows]) if rows else np.zeros((0, n_rel))
        positions = np.array([i for i, _row in rows], dtype=np.float64)
        # A type named in two places ("the films written by the writer of X") is walked
        # twice: there and back, as "same" / "share" would ask.
        twice = np.zeros(n_rel)
        # So it is read when the question also names the kind of entity the walk comes
        # back to (the topic's type: "films"), other than as the topic's own label ("the
        # film X"), and never from the focus ("released in which years").
        label = next(
            (
                i
                for i in range(first - 1, max(-1, first - 3), -1)
                if tokens[i].text not in _FUNCTION_WORDS
            ),
            None,
        )
        columns = [vocab.types.index[t] for t in topic_types if t in vocab.types.index]
        kind_named = max(
            (
                float(matches[tokens[i].text][n_rel:][columns].max())
                for i in outside
                if i != label and columns
            ),
            default=0.0,
        )
        asked_at = {i for i, _word, _asked in focus}
        own = np.array([i not in asked_at for i in positions[:said]], dtype=bool)
        for r in range(n_rel):
            spots = positions[:said][(per_word[:said, r] >= 0.5) & own]
            if len(spots) > 1 and np.diff(np.sort(spots)).max() > 1:
                twice[r] = min(1.0, kind_named)
        key = np.zeros(n_rel)
        if rows:
            to_topic = np.where(positions < first, first - positions, positions - last)
            to_question = np.abs(positions - asking) if asking is not None else 0 * positions
            # nearest the topic first; among equal matches, the word nearest the topic
            best = np.argmax(per_word - 1e-6 * to_topic[:, None], axis=0)
            key = to_topic[best] - to_question[best]
        focus_relations = np.zeros(n_rel)
        focus_types = np.zeros(n_type)
        for _i, word, asked in focus:
            # what "where" asks for (a place) fits the entity types an answer may have,
            # never the type of a further step ("located" after "works at")
            if not asked:
                focus_relations = np.maximum(focus_relations, matches[word][:n_rel])
            focus_types = np.maximum(focus_types, matches[word][n_rel:])
        cue = self._cue(tokens, question, first, last, matches, vocab)
        times = np.ones(n_rel)
        for r in range(n_rel):
            spots = [
                light_stem(tokens[int(i)].text)
                for i, row in zip(positions[:said], per_word[:said, r], strict=True)
                if row >= 0.5
            ]
            if spots:
                times[r] = max(spots.count(stem) for stem in spots)
        return _Reading(
            topic=topic,
            mention_length=mention_length,
            evidence=evidence,
            per_word=per_word,
            key=key,
            focus_relations=focus_relations,
            focus_types=focus_types,
            asks=bool(focus),
            shared=shared,
            twice=twice,
            stray=stray,
            cue=cue,
            focus_at=next((i for i, _w, asked in focus if not asked and i != asking), None),
            touches=self._touches(tokens, outside, matches, vocab, topic_types),
            times=times,
        )

    def _touches(
        self,
        tokens: list[_Token],
        outside: list[int],
        matches: Mapping[str, np.ndarray],
        vocab: _Vocabulary,
        topic_types: set[str],
    ) -> np.ndarray:
        """For each relationship type, how well the kinds the question names fit its ends.

        A kind is named by a content word matching an entity type ("region", "project").
        """
        n_rel = len(vocab.relations.names)
        kinds = np.zeros(len(vocab.types.names))
        for i in outside:
            word = tokens[i].text
            if word in _FUNCTION_WORDS or word in _QUESTION_WORDS:
                continue
            kinds = np.maximum(kinds, matches[word][n_rel:])
        out = np.zeros(n_rel)
        if not kinds.any():
            return out
        index = vocab.types.index
        for (entity_type, relation), targets in (*vocab.out.items(), *vocab.into.items()):
            r = vocab.relations.index.get(relation)
            if r is None:
                continue
            for end in (entity_type, *targets):
                if end in index and end not in topic_types:
                    out[r] = max(out[r], float(kinds[index[end]]))
        return out

    def _cue(
        self,
        tokens: list[_Token],
        text: str,
        first: int,
        last: int,
        matches: Mapping[str, np.ndarray],
        vocab: _Vocabulary,
    ) -> np.ndarray:
        """The way the question walks each type that joins one kind to itself (see _Reading).

        Read from where the word naming the type stands against the topic's mention (the
        nearest such word outside it). As a verb: the topic before it is its subject ("who
        does X report to?", "whom does X mentor?"), after it its object ("who mentors X?"),
        unless the question ("mentored by X") or the type's name (``managed_by``) is in the
        passive. As a noun of the topic ("X's mentor", "the mentor of X"): one who does it
        ("mentor", "parent", "member") is the source of the fact, what it is done to or
        where ("location") its target. A word only a description gives describes the
        type's targets ("boss" of ``reports_to``: "the manager ... their boss"), so "X's
        boss" walks from X as the source.
        """
        names = vocab.relations.names
        cue = np.zeros(len(names))
        n = len(tokens)
        for r, name in enumerate(names):
            if name not in vocab.reflexive:
                continue
            stems = vocab.name_stems.get(name, ())
            passive_name = _type_words(name)[-1:] == ["by"]
            best: tuple[int, int, bool] | None = None  # (distance, position, by the name)
            for i, token in enumerate(tokens):
                if first <= i <= last or token.text in _FUNCTION_WORDS:
                    continue
                by_name = light_stem(token.text) in stems
                if not by_name and float(matches[token.text][r]) < 0.5:
                    continue
                distance = first - i if i < first else i - last
                if best is None or (not by_name, distance) < (not best[2], best[0]):
                    best = (distance, i, by_name)
            if best is None:
                continue
            _distance, p, by_name = best
            word = tokens[p].text
            between = text[tokens[last].end : tokens[p].start]
            possessive = (
                p == last + 2 and tokens[last + 1].text == "s" and between.startswith(("'", "’"))
            ) or (p == last + 1 and between.strip() in ("'", "’"))
            of_topic = (
                p < first
                and p + 1 < n
                and tokens[p + 1].text == "of"
                and (p + 2 == first or (p + 3 == first and tokens[p + 2].text in _FUNCTION_WORDS))
            )
            if possessive or of_topic:
                if not by_name:
                    cue[r] = 1.0
                    continue
                agent = not word.endswith(_OBJECT_NOUN_ENDINGS) and (
                    light_stem(word) == stems[0] if stems else False
                )
                source_is_topic = not agent
                if passive_name:
                    source_is_topic = not source_is_topic
                cue[r] = 1.0 if source_is_topic else -1.0
                continue
            if not by_name:
                continue
            passive = (p + 1 < n and tokens[p + 1].text == "by") or (
                word.endswith(("ed", "en")) and p > 0 and tokens[p - 1].text in _BE_WORDS
            )
            subject_is_topic = (p > last) != passive
            if passive_name:
                subject_is_topic = not subject_is_topic
            cue[r] = 1.0 if subject_is_topic else -1.0
        return cue

    def _paths(
        self,
        reading: _Reading,
        start: dict[str, float],
        first: Mapping[tuple[str, str], float] | None,
        vocab: _Vocabulary,
        max_hops: int,
    ) -> list[PlannedPath]:
        settings = self.settings
        names = vocab.relations.names
        ranked = np.argsort(-np.maximum(reading.evidence, reading.focus_relations), kind="stable")
        chosen = [
            int(r)
            for r in ranked[: settings.max_types]
            if max(reading.evidence[r], reading.focus_relations[r]) >= settings.min_evidence
        ]
        if not chosen:  # no word matches any type: try the few best there are
            chosen = [int(r) for r in ranked[: min(3, settings.max_types)]]
        if first is not None:
            starts = {t for t, _way in first}
            if not any(names[r] in starts for r in chosen):
                chosen += [int(r) for r in ranked if names[r] in starts][:3]
        # and the types that lead to or from a kind of entity the question names, other
        # than the topic's ("Grace's project": ``works_on``; "the region of the quest":
        # ``takes_place_in``)
        for r in np.flatnonzero(reading.touches >= 0.5):
            if int(r) not in chosen:
                chosen.append(int(r))
        type_column = vocab.types.index
        mention = math.log(1 + reading.mention_length)
        out: list[PlannedPath] = []
        # Beam search: the best ``beam`` paths of each length are extended by one step.
        Partial = tuple[tuple[tuple[int, StepDirection], ...], dict[str, float], float]
        frontier: list[tuple[float, Partial]] = [(0.0, ((), start, 0.0))]
        for _length in range(max_hops):
            grown: list[tuple[float, Partial]] = []
            for _score, (steps, state, facts) in frontier:
                for relation in chosen:
                    for way, share, following in vocab.steps(state, names[relation]):
                        if steps:  # what the entities reached so far can do, by their roles
                            named = [(names[r], w) for r, w in steps]
                            share = min(share, vocab.after(named, names[relation], way))
                        if share < settings.min_step_share:
                            continue
                        if not steps and first is not None:
                            # the topic's own facts say how a walk can start
                            name = names[relation]
                            started = first.get((name, way), 0.0)
                            if way == "both":
                                started = first.get((name, "out"), 0) + first.get((name, "in"), 0)
                            if started == 0:
                                continue
                            share *= started**settings.topic_prior
                        longer = (*steps, (relation, way))
                        logged = facts + math.log(share)
                        path = self._score(
                            reading,
                            longer,
                            following,
                            logged,
                            mention,
                            type_column,
                            names,
                            vocab.described,
                        )
                        out.append(path)
                        grown.append((path.score, (longer, following, logged)))
            grown.sort(key=lambda item: -item[0])
            frontier = grown[: settings.beam]
            if not frontier:
                break
        return out

    def _score(
        self,
        reading: _Reading,
        steps: tuple[tuple[int, StepDirection], ...],
        end: Mapping[str, float],
        facts: float,
        mention: float,
        type_column: Mapping[str, int],
        names: Sequence[str],
        described: frozenset[str] = frozenset(),
    ) -> PlannedPath:
        settings = self.settings
        used = list(dict.fromkeys(r for r, _way in steps))
        explained = unexplained = 0.0
        back = [
            r1
            for (r1, w1), (r2, w2) in zip(steps, steps[1:], strict=False)
            if r1 == r2 and (w1 == w2 == "both" or {w1, w2} == {"out", "in"})
        ]
        if reading.per_word.shape[0]:
            # each word speaks for one of the path's types (its best), and each type
            # counts its best word: a type is explained by no word another one took;
            # a type walked again the same way counts its next word too ("the boss of
            # X's boss", "the master of X's master")
            mine = reading.per_word[:, used]
            best = mine.argmax(axis=1)
            for column in range(len(used)):
                taken = np.sort(mine[best == column, column])[::-1]
                times = sum(r == used[column] for r, _way in steps) - back.count(used[column])
                more = taken[1 : max(1, min(times, int(reading.times[used[column]])))]
                explained += float(taken[:1].sum()) + float(more[more >= 0.5].sum())
            mask = np.ones(reading.per_word.shape[1], dtype=bool)
            mask[used] = False
            if mask.any():
                inside = mine.max(axis=1)
                outside = reading.per_word[:, mask].max(axis=1)
                unexplained = float(np.clip(outside - inside, 0.0, None).sum())
        returns = len(back)
        # a type walked again costs, unless the question names it as many times
        named_again = sum(
            max(0, min(steps.count((r, way)), int(reading.times[r])) - 1)
            for r, way in dict.fromkeys(steps)
            if r not in back
        )
        repeats = len(steps) - len(used) - named_again
        asked = 0.0
        if back:
            asked = max([reading.shared, *(settings.twice * float(reading.twice[r]) for r in back)])
        order = 0.0
        for a, b in zip(used, used[1:], strict=False):
            if reading.evidence[a] >= settings.min_evidence <= reading.evidence[b]:
                order += float(np.sign(reading.key[b] - reading.key[a]))
        type_fit = sum(
            share * reading.focus_types[type_column[t]]
            for t, share in end.items()
            if t in type_column
        )
        # A type's name and description say what its facts lead to (their targets), so
        # they fit the focus only when the last step walks forwards (or either way).
        last, last_way = steps[-1]
        fit_last = float(reading.focus_relations[last]) if last_way != "in" else 0.0
        focus = max(float(type_fit), fit_last)
        # the question asks for something; an end of a described type that is not it
        mismatch = 0.0
        if reading.asks:
            mismatch = sum(
                share * (1.0 - min(1.0, reading.focus_types[type_column[t]]))
                for t, share in end.items()
                if t in described
            )
        # the way each step walks a type joining one kind to itself, against the question's
        direction = 0.0
        if reading.cue.size:
            agreements = [
                -0.5 if way == "both" else (cue if way == "out" else -cue)
                for r, way in steps
                if r not in back and (cue := float(reading.cue[r]))
            ]
            if agreements:  # as much for one step as for two: no reward for walking more
                direction = min(agreements) if min(agreements) < 0 else max(agreements)
        parts = {
            "explained": explained,
            "unexplained": unexplained,
            "hops": float(len(steps)),
            "repeats": float(repeats),
            "return": float(returns),
            "asked back": asked,
            "order": order,
            "focus": focus,
            "mismatch": mismatch,
            "facts": facts,
            "mention": mention,
            "stray": reading.stray,
            "direction": direction,
        }
        score = (
            settings.explained * explained
            - settings.unexplained * unexplained
            - settings.hop * len(steps)
            - settings.repeat * repeats
            # one walk there and back is what "same" / "share" ask for; more are not
            + min(returns, 1) * settings.shared * asked
            - (returns - min(returns, 1) * asked) * settings.unshared
            + settings.order * order
            + settings.focus * focus
            - settings.mismatch * mismatch
            + settings.facts * facts
            + settings.mention * mention
            - settings.stray * reading.stray
            + settings.direction * direction
        )
        return PlannedPath(
            topic=reading.topic,
            steps=tuple(PathStep(names[r], way) for r, way in steps),
            score=float(score),
            parts=parts,
        )

    # ------------------------------------------------------------------ walking

    def _walk(self, path: PlannedPath) -> dict[str, tuple[Entity, int, tuple[Relationship, ...]]]:
        """Walk ``path`` from its topic: one ``expand`` per step for the whole frontier.

        Returns each entity reached at the end with how many chains reach it and one chain.
        """
        topic = set(path.topic)
        frontier: dict[str, tuple[int, tuple[Relationship, ...]]] = {e: (1, ()) for e in path.topic}
        entities: dict[str, Entity] = {}
        for step in path.steps:
            sub = self._store.expand(
                self._tenant,
                sorted(frontier),
                depth=1,
                rel_types=[step.type],
                direction=step.direction,
            )
            entities = {e.id: e for e in sub.entities}
            reached: dict[str, tuple[int, tuple[Relationship, ...]]] = {}
            for rel in sub.relationships:
                ends = []
                if step.direction != "in" and rel.source_id in frontier:
                    ends.append((rel.source_id, rel.target_id))
                if step.direction != "out" and rel.target_id in frontier:
                    ends.append((rel.target_id, rel.source_id))
                for here, there in ends:
                    if there in topic:
                        continue
                    support, chain = frontier[here]
                    if there in reached:
                        reached[there] = (reached[there][0] + support, reached[there][1])
                    else:
                        reached[there] = (support, (*chain, rel))
            if len(reached) > self.settings.max_frontier:
                kept = sorted(reached.items(), key=lambda kv: (-kv[1][0], kv[0]))
                reached = dict(kept[: self.settings.max_frontier])
            frontier = reached
            if not frontier:
                return {}
        return {
            node: (entities[node], support, chain)
            for node, (support, chain) in frontier.items()
            if node in entities
        }
