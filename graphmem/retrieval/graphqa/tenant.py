"""What the planner knows of a tenant: its types' words, and the shapes of its facts.

Part of :mod:`graphmem.retrieval.graphqa`: the vocabulary read from the store (relationship
and entity types with their words, each weighted by its rarity, the related words of
WordNet and the hand families, the shapes of the facts, which roles follow which, which
types join one kind to itself), and the cache of single words' embeddings.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphmem.core.errors import InvalidInput
from graphmem.retrieval.graphqa.kinds import compound_head
from graphmem.retrieval.graphqa.lexicon import (
    SPARE_SOURCE_NOUNS,
    converse_verbs,
    derived_words,
    noun_key,
    related_verbs,
    source_nouns,
    target_nouns,
)
from graphmem.retrieval.graphqa.vocabulary import (
    _AGENT_ENDINGS,
    _FUNCTION_WORDS,
    _GENERIC_WORDS,
    _LIGHT_VERBS,
    _NOT_RELATED,
    _PHRASE_LIGHT,
    _RECIPROCAL_WORDS,
    _REQUEST_WORDS,
    _WORD,
    Embed,
    StepDirection,
    _type_words,
    light_stem,
)
from graphmem.retrieval.schema import GraphSchema


def _name_function(word: str) -> bool:
    """A word of a type's name that names nothing ("in" of ``located_in``).

    The verbs of a request ("show", "list") are function words of a question only: a
    type's name (``show``, ``listed_in``) says no request.
    """
    return word in _FUNCTION_WORDS and word not in _REQUEST_WORDS


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
                weight = function_weight if _name_function(word) else 1.0
                own[stem] = max(own.get(stem, 0.0), weight)
                if weight == 1.0:
                    surface.setdefault(stem, word)
            # nouns of the built-in lexicon match as nouns only, never by embedding
            for word in (exact or {}).get(name, ()):
                own.setdefault(noun_key(word), 1.0)
            stems[name] = own
            more: dict[str, float] = {}
            for word, strength in (related or {}).get(name, {}).items():
                stem = word if word.startswith(("=", "~")) else light_stem(word)
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


# WordNet's weakest words (a hyponym, a hypernym of a later sense) are left out: "build" of
# oversee, "hold" of support; below this strength they answered no-answer questions.
_DERIVED_FLOOR = 0.45
# A verb of keeping or holding WordNet gives a type from this strength is one of its words
# (keyed by :func:`light_key`).
_LIGHT_SYNONYM = 0.9


def light_key(verb: str) -> str:
    """The key a verb of keeping or holding is matched by when a definition gives it.

    >>> light_key("kept"), light_key("keeps")
    ('~keep', '~keep')
    """
    return "~" + light_stem(verb)


# A noun of the doer WordNet gives from a later sense or a synonym ("father" of sired,
# "teacher" of instructs: 0.6) says the direction too ("who is X's *father*?": from X as
# the target) when its ending makes it a noun of a person; "help" of mutual_aid_with,
# as strong, is not one.
_DOER_STRENGTH = 0.6
_DOER_ENDINGS = tuple(e for e in _AGENT_ENDINGS if e != "ee")  # "-ee": done to
# A verb naming a type from its other end ("supervise" of reports_to) counts as a synonym.
_CONVERSE = 0.9


def _compound_heads(entity_type: str) -> dict[str, float]:
    """The heads of the closed compounds in an entity type's name ("racecourse": course)."""
    heads = (compound_head(w) for w in _type_words(entity_type))
    return {head: 1.0 for head in heads if head is not None}


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
    content = [w for w in words if not _name_function(w)]
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
        if len(parts) != 1 or parts[0] in _PHRASE_LIGHT:
            continue
        if parts[0] in _NOT_RELATED:
            # a verb of keeping that is a first sense's synonym (maintain: keep) is kept
            # under its own key: a phrase defined by it reaches it ("look after": keep),
            # the idle verb of a question ("where is X kept?") does not
            if parts[0] in _LIGHT_VERBS and strength >= _LIGHT_SYNONYM:
                add(light_key(parts[0]), strength)
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
            if is_source and (
                related_weight * strength >= 0.5
                or (strength >= _DOER_STRENGTH and noun.endswith(_DOER_ENDINGS))
            ):
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
    # types whose question words say the way they are walked: the reflexive ones, and
    # those an entity type takes both ways (``reports_to`` of associates to partners
    # and of paralegals to associates)
    directed: frozenset[str] = frozenset()
    # the light stems of the entity types' names ("shows" of ``show``): the kinds
    kind_stems: frozenset[str] = frozenset()
    # whether the types are read with the descriptions a user gave them
    descriptions: bool = False

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
        # the nouns of each type's ends, and the spare ones no type has ("boss" of ``heads``
        # where nobody reports to a boss, and no type is named ``bosses``)
        end_nouns = {
            r: [
                *target_nouns(_type_words(r), light_stem),
                *source_nouns(_type_words(r), light_stem),
            ]
            for r in relation_types
        }
        claimed = {noun_key(w) for nouns in end_nouns.values() for w in nouns}
        spare = {
            r: [
                w
                for w in source_nouns(_type_words(r), light_stem, SPARE_SOURCE_NOUNS)
                if noun_key(w) not in claimed and light_stem(w) not in kinds | taken
            ]
            for r in relation_types
        }
        relations = _Lexicon(
            {r: words(r, schema.relationship_types.get(r), _GENERIC_WORDS) for r in relation_types},
            function_weight,
            exact={
                r: [w for w in end_nouns[r] if light_stem(w) not in kinds] + spare[r]
                for r in relation_types
            },
            related={r: related[r] for r in relation_types},
            related_weight=related_weight,
            named={r: _type_words(r) for r in relation_types},
        )
        types = _Lexicon(
            {t: words(t, schema.entity_types.get(t), frozenset()) for t in entity_types},
            function_weight,
            # the noun a closed compound ends with names its kind too, as a related word
            # does: "which *course*" of ``racecourse``
            related={t: _compound_heads(t) for t in entity_types},
            related_weight=related_weight,
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
        # (a quarter of its facts at least start from one entity type and as many end at it)
        ends: dict[tuple[str, str, int], int] = {}
        for pattern in schema.patterns:
            for end, side in ((pattern.source_type, 0), (pattern.target_type, 1)):
                key = (pattern.type, end, side)
                ends[key] = ends.get(key, 0) + pattern.facts
        directed = reflexive | frozenset(
            t
            for (t, end, side), n in ends.items()
            if side == 0 and 4 * min(n, ends.get((t, end, 1), 0)) >= total[t]
        )
        name_stems = {
            t: tuple(light_stem(w) for w in _type_words(t) if not _name_function(w))
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
            | {noun_key(w) for w in spare[t]}
            for t in relation_types
        }
        converse = {
            t: frozenset(light_stem(v) for v in converse_verbs(_type_words(t), light_stem)) - taken
            for t in relation_types
        }
        reciprocal = {light_stem(w) for w in _RECIPROCAL_WORDS}
        # (a "-mate" compound names one of two who share something: ``teammate``,
        # ``shipmate``, ``classmate``, ``roommate``)
        symmetric = frozenset(
            t
            for t in reflexive
            if _type_words(t)[-1:] == ["with"]
            or reciprocal & set(name_stems[t])
            or any(_mate_compound(w) for w in _type_words(t))
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
            directed,
            frozenset(kinds),
            bool(schema.relationship_types or schema.entity_types),
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


def _mate_compound(word: str) -> bool:
    """Whether ``word`` is a "-mate" compound, one of two who share something.

    >>> [_mate_compound(w) for w in ("teammate", "shipmate", "inmate", "estimate", "climate")]
    [True, True, False, False, False]
    """
    return word.endswith("mate") and len(word) > 6 and not word[:-4].endswith("i")
