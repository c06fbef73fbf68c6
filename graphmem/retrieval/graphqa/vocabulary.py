"""The words of graph questions: stems, word lists, settings, and a tenant's vocabulary.

Part of :mod:`graphmem.retrieval.graphqa`: the light stemmer and the small word lists, the
results a plan is made of (:class:`PathStep`, :class:`PlannedPath`, :class:`Ambiguity`),
the settings, and the vocabulary read from the store (relationship and entity types with
their words, the shapes of the facts, which roles follow which, which types join one kind
to itself).
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from graphmem.core.checks import check_depth
from graphmem.core.errors import InvalidInput
from graphmem.retrieval.graphqa.lexicon import (
    converse_verbs,
    derived_words,
    noun_key,
    related_verbs,
    source_nouns,
    target_nouns,
)
from graphmem.retrieval.schema import GraphSchema

__all__ = [
    "Ambiguity",
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
_IDLE_WORDS = _words(
    """name names kind kinds type types sort exactly currently now still also thing things
    stuff see seen find found around"""
)
# Verbs of holding, keeping, posture and presence: English says them of whatever relation
# puts a thing with someone or somewhere ("who *holds* the pin?" of ``carries``, "who is
# *standing* at the Circle?" of ``located_in``, "what films does X *appear* in?" of
# ``starred_actors``). A path need not explain them, but one that does counts them.
_LIGHT_VERBS = _words(
    """hold holds holding held keep keeps keeping kept stand stands standing stood lie lies
    lying lay sit sits sitting sat stay stays staying stayed remain remains remaining
    remained rest rests resting appear appears appeared appearing feature features
    featured featuring"""
)
# Small words of place, one for another: "who is standing *at* the Circle?" of ``located_in``.
_PLACE_WORDS = _words("in at on inside within into")
# Noun endings of the thing a fact is about, not of who does it: "location" is where
# something is located, "employment" what employs.
_OBJECT_NOUN_ENDINGS = ("ion", "ions", "ment", "ments", "ance", "ances", "ence", "ences")
_BE_WORDS = _words("is are was were be been being get gets got")
# Words of a relation that holds both ways, whichever end a fact is stored from: who is
# married to whom, which rooms are next to each other. A type joining one kind to itself
# whose name has one (or ends in "with": ``allied_with``, ``feuds_with``) may be walked
# either way: the way its words say first, and both ways when that reaches nothing.
_RECIPROCAL_WORDS = _words(
    """married marry wed spouse engaged betrothed sibling brother sister cousin twin
    adjacent adjoin adjoins near next neighbor neighbour border borders beside connected
    linked allied ally rival rivals feud feuds friend partner collaborates"""
)
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
            "sue": "sued",  # "ed" would leave two letters
            "use": "used",
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
            if len(shorter) < 3:
                continue  # a shorter suffix may leave enough: "sues" -> "sue", not "su"
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
class Ambiguity:
    """A name in the question that several entities go by.

    Attributes:
        mention: The words of the question (normalised: lower case).
        candidates: The ids of the entities it may name; the walk starts from all of them.
    """

    mention: str
    candidates: tuple[str, ...]


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
        related_weight: How much a verb of a type name word's family counts (``authored``:
            "wrote", "penned"; :data:`~graphmem.retrieval.graphqa.lexicon.RELATION_VERBS`).
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
    related_weight: float = 0.8
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
    min_confidence: float = 0.1

    def __post_init__(self) -> None:
        for name in ("max_hops", "max_types", "beam", "max_walks", "max_frontier", "topic_sample"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                raise InvalidInput(f"{name} must be a positive integer, got {value!r}")
        check_depth(self.max_hops, "max_hops")  # at most MAX_DEPTH hops
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
            "related_weight",
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
    """Words of types (relationship or entity types), each word weighted by its rarity.

    ``related`` words (of :data:`~.lexicon.RELATION_VERBS`, and WordNet's: each with its
    strength, a noun as its :func:`~.lexicon.noun_key`) count ``related_weight`` times
    their strength and never make a type's own words look common: their rarity is read
    among their own kind.
    """

    def __init__(
        self,
        words_of: Mapping[str, Iterable[str]],
        function_weight: float,
        exact: Mapping[str, Iterable[str]] | None = None,
        related: Mapping[str, Mapping[str, float]] | None = None,
        related_weight: float = 0.8,
        named: Mapping[str, Iterable[str]] | None = None,
    ) -> None:
        self.names = sorted(words_of)
        stems: dict[str, dict[str, float]] = {}
        extra: dict[str, dict[str, float]] = {}
        surface: dict[str, str] = {}
        for name in self.names:
            own: dict[str, float] = {}
            for word in words_of[name]:
                stem = light_stem(word)
                weight = function_weight if word in _FUNCTION_WORDS else 1.0
                own[stem] = max(own.get(stem, 0.0), weight)
                if weight == 1.0:
                    surface.setdefault(stem, word)
            # nouns of the built-in lexicon match as nouns only, never by embedding
            for word in (exact or {}).get(name, ()):
                own.setdefault(noun_key(word), 1.0)
            stems[name] = own
            more: dict[str, float] = {}
            for word, strength in (related or {}).get(name, {}).items():
                stem = word if word.startswith("=") else light_stem(word)
                if stem not in own:
                    more[stem] = max(more.get(stem, 0.0), related_weight * strength)
            extra[name] = more
        # The stems only WordNet gives (weaker than a hand family's): a part of a name that
        # is one ("wine" of "the Ostrian wine casks": a verb of drinking) still names.
        full = {stem for more in extra.values() for stem, w in more.items() if w >= related_weight}
        full.update(stem for own in stems.values() for stem in own)
        self.derived = frozenset(
            stem for more in extra.values() for stem in more if stem not in full
        )
        count = len(self.names)
        frequency: dict[str, int] = {}
        for own in stems.values():
            for stem in own:
                frequency[stem] = frequency.get(stem, 0) + 1
        # A word of a type's own name is as rare as it is among the names: the description
        # of another type that uses it ("the station the module belongs to") never makes
        # ``stationed_in`` a worse match for "stationed" than it is with no descriptions.
        name_stems = {n: {light_stem(w) for w in (named or {}).get(n, ())} for n in self.names}
        by_name: dict[str, int] = {}
        for in_name in name_stems.values():
            for stem in in_name:
                by_name[stem] = by_name.get(stem, 0) + 1
        also: dict[str, int] = {}
        for more in extra.values():
            for stem in more:
                also[stem] = also.get(stem, 0) + 1
        self.stems = sorted(set(frequency) | set(also))
        column = {stem: i for i, stem in enumerate(self.stems)}
        # weights[type, word]: the word's weight in the type, times its rarity among types.
        self.weights = np.zeros((count, len(self.stems)), dtype=np.float64)
        for row, name in enumerate(self.names):
            for table, seen in ((stems[name], frequency), (extra[name], also)):
                for stem, weight in table.items():
                    rarity = 1.0
                    if count > 1:
                        shared = seen[stem] + (frequency.get(stem, 0) if seen is also else 0)
                        if seen is frequency and stem in name_stems[name]:
                            shared = by_name[stem]
                        rarity = math.log((count + 1) / shared) / math.log(count + 1)
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


# Words a related word may not be: they say nothing of which relation is asked.
_NOT_RELATED = (
    _FUNCTION_WORDS | _QUESTION_WORDS | _IDLE_WORDS | _GENERIC_WORDS | _BE_WORDS | _LIGHT_VERBS
)
# WordNet's weakest words (a hyponym, a hypernym of a later sense) are left out: "build" of
# oversee, "hold" of support; below this strength they answered no-answer questions.
_DERIVED_FLOOR = 0.45
# A verb naming a type from its other end ("supervise" of reports_to) counts as a synonym.
_CONVERSE = 0.9
# The light verbs and particles of English phrases ("*take* care", "farm *out*"): the
# phrase's other word is what names the relation; alone, they name none ("take" is a
# sense of photograph, steal, study and a dozen more).
# The particles of English phrasal verbs ("give *out*", "look *after*", "rule *over*"): said
# right after a word a step explains, they are part of what that word says (.judging).
_ADVERB_PARTICLES = _words("up out off down over away back around about after")
_PHRASE_LIGHT = _words("take make give get put set go come let") | _ADVERB_PARTICLES


def _related_words(
    name: str, kinds: set[str], related_weight: float, taken: frozenset[str] = frozenset()
) -> tuple[dict[str, float], frozenset[str]]:
    """The related words of a relationship type, with their strength, and its source nouns.

    The verbs of :data:`~.lexicon.RELATION_VERBS` families count 1; WordNet's words
    (:func:`~.lexicon.derived_words`) their strength, a phrase its one word that is no
    light verb nor particle ("take care": "care"; "look after": none). Nouns are keyed by
    :func:`~.lexicon.noun_key`: they match as nouns only. The source nouns (keys) are
    those strong enough to say the direction of a question ("X's *employee*" of
    ``employs``: from X as the source).
    """
    words = _type_words(name)
    content = [w for w in words if w not in _FUNCTION_WORDS]
    out: dict[str, float] = {}

    def add(key: str, strength: float) -> None:
        out[key] = max(out.get(key, 0.0), strength)

    for verb in related_verbs(content, light_stem):
        if light_stem(verb) not in kinds:
            add(verb, 1.0)
    for verb in converse_verbs(content, light_stem):  # walked the other way (.direction)
        if light_stem(verb) not in kinds and light_stem(verb) not in taken:
            add(verb, _CONVERSE)
    derived = derived_words(content, passive=words[-1:] == ["by"])
    for phrase, strength in derived.verbs.items():
        if strength < _DERIVED_FLOOR:
            continue
        parts = phrase.split()
        if len(parts) > 1:
            parts = [p for p in parts if p not in _NOT_RELATED and p not in _PHRASE_LIGHT]
        if len(parts) != 1 or parts[0] in _NOT_RELATED or parts[0] in _PHRASE_LIGHT:
            continue
        if light_stem(parts[0]) in kinds:
            continue
        add(parts[0], strength)
    sources: set[str] = set()
    for nouns, is_source in ((derived.targets, False), (derived.sources, True)):
        for noun, strength in nouns.items():
            if (
                strength < _DERIVED_FLOOR
                or " " in noun
                or noun in _NOT_RELATED
                or light_stem(noun) in kinds
            ):
                continue
            add(noun_key(noun), strength)
            if is_source and related_weight * strength >= 0.5:
                sources.add(noun_key(noun))
    return out, frozenset(sources)


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
    # reflexive types that hold both ways (``married_to``, ``allied_with``): walked either way
    symmetric: frozenset[str] = frozenset()
    # the noun keys naming each type's source as its name's noun does ("mother" of parent_of)
    source_keys: Mapping[str, frozenset[str]] = field(default_factory=dict)
    # the stems of the verbs naming each type from its other end ("supervise" of reports_to)
    converse: Mapping[str, frozenset[str]] = field(default_factory=dict)

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
    def build(
        cls, schema: GraphSchema, function_weight: float, related_weight: float = 0.8
    ) -> _Vocabulary:
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

        # A noun that is a kind of entity here says what is asked, not which relation.
        kinds = {light_stem(w) for t in entity_types for w in _type_words(t)}
        # a verb another type is named by names that type, never this one's converse
        taken = frozenset(light_stem(w) for t in relation_types for w in _type_words(t))
        related: dict[str, dict[str, float]] = {}
        derived_sources: dict[str, frozenset[str]] = {}
        for r in relation_types:
            related[r], derived_sources[r] = _related_words(r, kinds, related_weight, taken)
        relations = _Lexicon(
            {r: words(r, schema.relationship_types.get(r), _GENERIC_WORDS) for r in relation_types},
            function_weight,
            exact={
                r: [
                    w
                    for w in (
                        *target_nouns(_type_words(r), light_stem),
                        *source_nouns(_type_words(r), light_stem),
                    )
                    if light_stem(w) not in kinds
                ]
                for r in relation_types
            },
            related={r: related[r] for r in relation_types},
            related_weight=related_weight,
            named={r: _type_words(r) for r in relation_types},
        )
        types = _Lexicon(
            {t: words(t, schema.entity_types.get(t), frozenset()) for t in entity_types},
            function_weight,
            named={t: _type_words(t) for t in entity_types},
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
        # the nouns that name a type's source as its name's own noun does ("mother")
        source_keys = {
            t: frozenset(
                noun_key(w)
                for w in source_nouns(_type_words(t), light_stem)
                if light_stem(w) not in kinds
            )
            | derived_sources[t]
            for t in relation_types
        }
        converse = {
            t: frozenset(light_stem(v) for v in converse_verbs(_type_words(t), light_stem)) - taken
            for t in relation_types
        }
        reciprocal = {light_stem(w) for w in _RECIPROCAL_WORDS}
        symmetric = frozenset(
            t
            for t in reflexive
            if _type_words(t)[-1:] == ["with"] or reciprocal & set(name_stems[t])
        )
        return cls(
            relations,
            types,
            out,
            into,
            follows,
            frozenset(schema.entity_types),
            reflexive,
            name_stems,
            symmetric,
            source_keys,
            converse,
        )

    def steps(
        self, state: Mapping[str, float], relation: str
    ) -> list[tuple[StepDirection, float, dict[str, float]]]:
        """The ways ``relation`` can be walked from the type mix ``state``.

        Each as ``(direction, share, next state)``: ``share`` is the part of the current
        types' facts of this relationship type that go that way (1 for ``both``, scaled by
        how evenly they go both ways; all of them for a symmetric type), the next state
        the entity types reached.
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
            even = 1.0 if relation in self.symmetric else 2 * min(n_out, n_in) / total
            shares["both"] += weight * even
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
