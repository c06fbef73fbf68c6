"""Answering graph questions: :class:`GraphQA` links, plans, walks and judges its answers.

Part of :mod:`graphmem.retrieval.graphqa` (its docstring tells the whole method): the
entities a question names (whole names, else parts of names, with the ambiguity), the
words matched (:mod:`~graphmem.retrieval.graphqa.matching`), the question read for each
topic (:mod:`~graphmem.retrieval.graphqa.reading`), the paths planned
(:mod:`~graphmem.retrieval.graphqa.planning`), the walks
(:mod:`~graphmem.retrieval.graphqa.walking`), and the answers with a confidence, or an
abstention with its reason.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace

import numpy as np

from graphmem.core.checks import check_depth
from graphmem.core.errors import InvalidInput, NotFound
from graphmem.core.models import Entity, Relationship
from graphmem.core.store import GraphStore, RelationshipPattern, RoleCooccurrence
from graphmem.retrieval.graphqa.direction import _Token, kin_tokens
from graphmem.retrieval.graphqa.joining import join_by_kinds
from graphmem.retrieval.graphqa.judging import (
    _against,
    _extends,
    _measure_asked,
    _measure_words,
    kind_asked,
    kind_fit,
    measure_fit,
    named_noun,
    question_coverage,
    unasked_step,
    unheld_relation,
    unknown_name,
)
from graphmem.retrieval.graphqa.kinds import asked_kind_fit, kind_word, noun_fits
from graphmem.retrieval.graphqa.lexicon import noun_key
from graphmem.retrieval.graphqa.nearness import near_by_kinds
from graphmem.retrieval.graphqa.phrasing import (
    ONLY_WAY_CONFIDENCE,
    PHRASE_CONFIDENCE,
    PhraseReader,
    only_way,
    phrase_topic,
)
from graphmem.retrieval.graphqa.planning import Planner, _Plan
from graphmem.retrieval.graphqa.reading import modifier_at
from graphmem.retrieval.graphqa.tenant import _Vocabulary
from graphmem.retrieval.graphqa.vocabulary import (
    _FUNCTION_WORDS,
    _QUESTION_WORDS,
    _WORD,
    Ambiguity,
    Embed,
    GraphQASettings,
    PathStep,
    PlannedPath,
    light_stem,
    question_word_at,
)
from graphmem.retrieval.graphqa.walking import Reached, walk
from graphmem.retrieval.linking import EntityLinker, Linking, Mention
from graphmem.retrieval.sayings import SentenceVectors
from graphmem.retrieval.schema import GraphSchema, read_descriptions
from graphmem.retrieval.steps import check_query

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


_SURE = 0.8
"""A confidence at which an answer read with the descriptions is kept without a second
reading by the type names alone (answers this sure were right on every evaluation world)."""


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


class GraphAnswers(list[GraphAnswer]):
    """The answers to a graph question, best first: a list, with what was made of it.

    Empty when the question is not answered (``abstained``, with the ``reason``).

    Attributes:
        confidence: How likely the first answer is right (0..1): the share of the
            question's words the walked path explains, each by how strongly (a word a
            type names by meaning alone, not by its own words, counts by that match),
            times how clearly that path beat the next one. 0 when abstained.
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
        sentences: Where the phrase reader keeps the vectors of the fact sayings (the
            memory's, shared with its retrievers); None: a cache of its own.
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
        sentences: SentenceVectors | None = None,
    ) -> None:
        if not isinstance(schema_max_age, int | float) or not schema_max_age >= 0:
            raise InvalidInput(f"schema_max_age must be a number >= 0, got {schema_max_age!r}")
        self._schema_max_age = float(schema_max_age)
        self._store = store
        self._tenant = tenant
        self._linker = linker
        self.settings = settings or GraphQASettings()
        self._planner = Planner(self.settings, embed)
        self._phrases = PhraseReader(embed, sentences) if embed is not None else None
        self._facts: (
            tuple[float, tuple[RelationshipPattern, ...], tuple[RoleCooccurrence, ...]] | None
        ) = None
        self._vocabulary: tuple[GraphSchema, _Vocabulary, _Vocabulary] | None = None

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
        found = self._answer(self._plan(question, max_hops), k)
        names_only = self._vocab(described=False)
        if found.confidence < _SURE and names_only is not self._vocab():
            # descriptions can only help: an answer the type names alone give surely stays
            plain = self._answer(self._plan(question, max_hops, names_only), k)
            if plain.confidence >= _SURE:
                return plain
        return found

    def _answer(self, plan: _Plan, k: int) -> GraphAnswers:
        paths = plan.paths
        if not paths:
            return self._phrased(plan, k) or GraphAnswers(
                abstained=True, reason=plan.reason, ambiguity=plan.ambiguity
            )
        scores = np.array([p.score for p in paths])
        weights = np.exp((scores - scores.max()) / self.settings.temperature)
        weights /= weights.sum()
        answers: list[GraphAnswer] = []
        seen: set[str] = set()
        walks = 0
        best: PlannedPath | None = None
        walked: list[PlannedPath] = []
        off_kind: list[PlannedPath] = []  # walked, but reaching no entity of the kind asked
        missed = ""  # that kind
        missed_noun = ""  # or the noun asked with ("which *cooper*"), when that is it
        unasked = ""  # a step of a path no word asked for
        # "who" asks for a person (or a group), "where" for a place: a walk whose every
        # answer is of a kind WordNet knows as neither answers another question, unless
        # no walk reaches one (then answered, less surely)
        asking = question_word_at([t.text for t in plan.tokens], plan.named)
        asker = kind_word(plan.tokens[asking].text) if asking is not None else ""
        unfit: tuple[PlannedPath, float, Reached] | None = None
        for path, weight in zip(paths, weights, strict=True):
            if walks >= self.settings.max_walks or len(answers) >= k:
                break
            # the margin counts from the first walk that reached anything, of the kind
            # asked for or not: a path far below it answers another question
            anchor = best if best is not None else unfit[0] if unfit is not None else None
            if anchor is not None and path.score < anchor.score - self.settings.margin:
                break
            if path.parts.get("direction", 0.0) < 0:
                continue  # against the way the question's words walk it
            if any(_extends(path, done) for done in walked if done not in off_kind):
                continue  # a longer walk that explains no more answers another question
            if len(path.steps) > 1 and (idle := unasked_step(plan, path)):
                # "who is X married to?" walked through X's boss to the boss's wife: a step
                # no word of the question asks for answers another question
                unasked = unasked or idle
                continue
            walked.append(path)
            walks += 1
            reached = walk(self._store, self._tenant, path, self.settings.max_frontier)
            kind = kind_asked(plan, path)
            if kind and reached:
                # "which *estate* ...": the entities of another kind answer another
                # question; the next walk may reach the kind asked for
                reached = {
                    key: found
                    for key, found in reached.items()
                    if kind_fit(plan, path, found[0].type) >= 1.0
                }
                if not reached:
                    off_kind.append(path)
                    missed = missed or kind
            noun = named_noun(plan, path)
            if noun and reached:
                # "which *cooper* ...": no grape is one, whatever the walk explains
                reached = {
                    key: found
                    for key, found in reached.items()
                    if noun_fits(noun, found[0].type) is not False
                }
                if not reached:
                    off_kind.append(path)
                    if not missed:  # a noun of the question no relation explains
                        missed, missed_noun = noun, noun
            # a question asks for none of the entities it names ("who did X beat in the
            # Y election?" walked from Y reaches X): another path may reach what it asks
            reached = {key: found for key, found in reached.items() if key not in plan.mentioned}
            if asker and reached:
                fitting = {
                    key: found
                    for key, found in reached.items()
                    if asked_kind_fit(asker, found[0].type) != 0.0
                }
                if not fitting:
                    off_kind.append(path)
                    unfit = unfit or (path, float(weight), reached)
                    continue
                reached = fitting
            if not reached:
                continue
            if best is None:
                best = path
            self._collect(plan, path, float(weight), reached, answers, seen)
        unfitting = best is None and unfit is not None
        if unfit is not None and best is None:
            best = unfit[0]
            off_kind.remove(best)
            self._collect(plan, *unfit, answers, seen)
        if best is None and missed:
            return GraphAnswers(
                abstained=True,
                reason=f"no path of the graph leads to a {missed}",
                ambiguity=plan.ambiguity,
                unexplained=(missed,) if missed == missed_noun else (),
            )
        if best is None and unasked:
            return self._phrased(plan, k) or GraphAnswers(
                abstained=True,
                reason="no path of the graph explains the question: the walks that lead "
                f"somewhere take a step ({unasked}) that no word of it asks for",
                ambiguity=plan.ambiguity,
            )
        if best is None:
            return self._phrased(plan, k) or GraphAnswers(
                abstained=True,
                reason="no fact of the graph leads from the entity named along a path "
                f"that fits the question (tried {paths[0]})",
                ambiguity=plan.ambiguity,
            )
        word, lacking = unheld_relation(plan, best)
        if lacking:
            # "who guides X?" where climbers have guides but X has none: walking another
            # type ("leads") answers another question
            return GraphAnswers(
                abstained=True,
                reason=f"no fact of the graph says that (the entity named has no {lacking} "
                f"fact, which {word!r} asks for)",
                ambiguity=plan.ambiguity,
                unexplained=(word,),
            )
        explained, content, unexplained, by_types, strength = question_coverage(
            plan, best, self.settings.explained_floor
        )
        coverage = explained / content if content else 1.0
        sureness = strength / content if content else 1.0
        if unexplained and not by_types:
            # the path explains none of the question's words of a relation, only what is
            # asked for ("which *knight* betrayed X?", "who *stole* the portrait?" of a
            # portrait only ever brought): it answers another question
            coverage = sureness = 0.0
        # a walk that reached no entity of the kind asked for is no rival
        rival = next(
            (
                p.score
                for p in paths
                if (p.topic, p.steps) != (best.topic, best.steps) and p not in off_kind
            ),
            None,
        )
        gap = best.score - rival if rival is not None else 4.0 * self.settings.temperature
        clear = 1.0 / (1.0 + math.exp(-gap / self.settings.temperature))
        confidence = round(sureness * clear / len(best.topic), 4)
        if unfitting:
            confidence = round(confidence * self.settings.unfit, 4)
        said = ", ".join(repr(w) for w in unexplained)
        measure = _measure_asked(plan.tokens, asking)
        if measure and (
            measure_fit(plan, best, _measure_words(plan.tokens, asking, measure))
            < self.settings.explained_floor
            or (unfitting and asker == "when")
        ):
            # "when ..." asks for a time, "how many ..." a number, "how old ..." a
            # measure: a path that ends at none (no entity type, no last type's words
            # say it; no answer WordNet knows as a time or an event) answers something
            # else
            return GraphAnswers(
                abstained=True,
                reason=f"no path of the graph leads to {measure}",
                ambiguity=plan.ambiguity,
                unexplained=unexplained,
            )
        kind = kind_asked(plan, best)
        ends = {a.entity.type for a in answers if a.path == best.steps}
        if kind and not any(kind_fit(plan, best, t) >= 1.0 for t in ends):
            # "which *church* ..." names the kind asked for by an entity type's own word:
            # a walk that reaches no church answers something else
            return GraphAnswers(
                abstained=True,
                reason=f"no path of the graph leads to a {kind}",
                ambiguity=plan.ambiguity,
                unexplained=unexplained,
            )
        stranger = unknown_name(plan, unexplained)
        if stranger:
            # "who won the Kesselbach *Giant* Slalom?" where only a Night Slalom is known:
            # a name the graph does not hold is asked about, not the entity linked
            return GraphAnswers(
                abstained=True,
                reason=f"the question names {stranger!r}, which no entity of the graph is",
                ambiguity=plan.ambiguity,
                unexplained=unexplained,
            )
        if coverage < self.settings.min_coverage:
            return (
                self._phrased(plan, k, unexplained)
                or self._only_way(plan, k, unexplained)
                or GraphAnswers(
                    abstained=True,
                    reason=f"no relationship of the graph explains {said}",
                    ambiguity=plan.ambiguity,
                    unexplained=unexplained,
                )
            )
        if confidence < self.settings.min_confidence:
            return self._phrased(plan, k, unexplained) or GraphAnswers(
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

    def _phrased(self, plan: _Plan, k: int, unexplained: Sequence[str] = ()) -> GraphAnswers | None:
        """The answers of the question read as a phrase, when the words explain too little.

        Called where the word-level reading would abstain for want of words; None when the
        phrase reads as nothing either (:mod:`~graphmem.retrieval.graphqa.phrasing`).
        """
        if self._phrases is None:
            return None
        found = phrase_topic(plan)
        if found is None:
            return None
        topic, entity = found
        read = self._phrases.read(plan, topic, entity, self.settings.explained_floor)
        if read is None:
            return None
        path = read.path
        asking = question_word_at([t.text for t in plan.tokens], plan.named)
        asker = kind_word(plan.tokens[asking].text) if asking is not None else ""
        kind, noun = kind_asked(plan, path), named_noun(plan, path)
        answers = self._walked(
            plan,
            path,
            lambda type_: (
                not (asker and asked_kind_fit(asker, type_) == 0.0)
                and not (kind and kind_fit(plan, path, type_) < 1.0)
                and not (noun and noun_fits(noun, type_) is False)
            ),
        )
        if not answers:
            return None
        return GraphAnswers(
            answers[:k],
            confidence=round(PHRASE_CONFIDENCE * read.similarity, 4),
            reason=f"read as a phrase: {read.said!r} is nearest {read.saying!r} "
            f"(cosine {read.similarity:.2f}); no relationship's own words explain it",
            ambiguity=plan.ambiguity,
            unexplained=unexplained,
        )

    def _only_way(self, plan: _Plan, k: int, unexplained: Sequence[str]) -> GraphAnswers | None:
        """The answers of the one way the topic reaches the kind asked for (:func:`only_way`).

        Called where neither the words nor the phrase read the question; None when the
        question asks for no kind by a type's own word, or the topic reaches it two ways.
        """
        found = phrase_topic(plan)
        path = only_way(plan, *found) if found is not None else None
        if found is None or path is None:
            return None
        answers = self._walked(plan, path, lambda type_: kind_fit(plan, path, type_) >= 1.0)
        if not answers:
            return None
        return GraphAnswers(
            answers[:k],
            confidence=ONLY_WAY_CONFIDENCE,
            reason=f"read from the kind asked for: {kind_asked(plan, path)!r} is reached "
            f"from {found[1].name} by {path.steps[0].type} alone; no relationship's own "
            "words explain " + (", ".join(repr(w) for w in unexplained) or "the question"),
            ambiguity=plan.ambiguity,
            unexplained=unexplained,
        )

    def _walked(
        self, plan: _Plan, path: PlannedPath, keep: Callable[[str], bool]
    ) -> list[GraphAnswer]:
        """The answers of walking ``path``: the entities of a type ``keep`` takes, none named."""
        reached = walk(self._store, self._tenant, path, self.settings.max_frontier)
        kept = {
            key: hit
            for key, hit in reached.items()
            if key not in plan.mentioned and keep(hit[0].type)
        }
        answers: list[GraphAnswer] = []
        self._collect(plan, path, 1.0, kept, answers, set())
        return answers

    def _collect(
        self,
        plan: _Plan,
        path: PlannedPath,
        weight: float,
        reached: Reached,
        answers: list[GraphAnswer],
        seen: set[str],
    ) -> None:
        """Add the entities ``path`` reached to ``answers``, best first, each once."""
        focus_fit = plan.focus_fit
        reading = plan.readings.get(path.topic)
        ranked = sorted(
            reached.values(),
            key=lambda r: (
                -focus_fit.get(r[0].type, 0.0),
                _against(path, r[2], reading),
                -r[1],
                r[0].id,
            ),
        )
        for entity, support, chain in ranked:
            if entity.id in seen:
                continue
            seen.add(entity.id)
            topic = chain[0].source_id if chain[0].source_id in path.topic else chain[0].target_id
            answers.append(
                GraphAnswer(
                    entity=entity,
                    score=weight,
                    path=path.steps,
                    facts=chain,
                    topic=topic,
                    support=support,
                    type_fit=round(focus_fit.get(entity.type, 0.0), 4),
                )
            )

    # ------------------------------------------------------------------ planning

    def _vocab(self, described: bool = True) -> _Vocabulary:
        """The vocabulary of the tenant's types, or (``described=False``) of their names.

        The same object both ways when no type is described.
        """
        schema = self.schema()
        if self._vocabulary is None or self._vocabulary[0] != schema:
            weights = (self.settings.function_weight, self.settings.related_weight)
            vocab = _Vocabulary.build(schema, *weights)
            bare = schema
            if schema.relationship_types or schema.entity_types:
                bare = replace(schema, relationship_types={}, entity_types={})
            plain = vocab if bare is schema else _Vocabulary.build(bare, *weights)
            self._vocabulary = (schema, vocab, plain)
        return self._vocabulary[1] if described else self._vocabulary[2]

    def _plan(self, question: str, max_hops: int | None, vocab: _Vocabulary | None = None) -> _Plan:
        if not isinstance(question, str) or not question.strip():
            raise InvalidInput("the question is empty; ask something (e.g. 'where is Mira?')")
        check_query(question, "the question")  # at most MAX_QUERY_LENGTH characters
        # at most MAX_DEPTH: every longer path is kept while the beam walks, so 10**18 hops
        # grew without end (the long fuzz run: past 7 GB)
        hops = check_depth(self.settings.max_hops if max_hops is None else max_hops, "max_hops")
        vocab = self._vocab() if vocab is None else vocab
        text = " ".join(question.lower().split())
        tokens = kin_tokens([_Token(m.start(), m.end(), m.group()) for m in _WORD.finditer(text)])
        cased = " ".join(question.split())
        plan = _Plan(
            tokens=tokens, vocab=vocab, text=text, cased=cased if len(cased) == len(text) else ""
        )
        if not vocab.relations.names:
            plan.reason = "the graph holds no facts to walk"
            return plan
        found = self._mentions(question, text, vocab)
        if not found:
            plan.reason = "the question names no known entity"
            return plan
        mentions: dict[tuple[int, int], list[str]] = {(m.start, m.end): list(m.ids) for m in found}
        linked = sorted({e for ids in mentions.values() for e in ids})
        plan.linked, around = self._around(linked)
        kinds = {entity_id: entity.type for entity_id, entity in plan.linked.items()}
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
        # (a name inside a longer one, or joined to one by "of", is part of it: "Kelby"
        # of "the Countess of Kelby")
        plan.mentioned = frozenset(
            ids[0]
            for (start, end), ids in mentions.items()
            if len(ids) == 1
            and not any(
                (a <= start and end <= b or text[b:start] == " of ") and (a, b) != (start, end)
                for a, b in mentions
            )
        )
        matches = self._planner.match(tokens, named, vocab)
        modifier = modifier_at(tokens, named, matches, vocab)
        if modifier is not None:
            # the word that only qualifies the kind asked for is read as no word at all
            del tokens[modifier]
            named = {i - (i > modifier) for i in named}
            plan.named = frozenset(named)
        spans = [
            (
                [i for i, t in enumerate(tokens) if t.start >= start and t.end <= end],
                frozenset(kinds[e] for e in ids if e in kinds),
            )
            for (start, end), ids in mentions.items()
        ]
        join_by_kinds(tokens, spans, matches, vocab, self.settings.explained_floor)
        near_by_kinds(
            text,
            tokens,
            spans,
            matches,
            vocab,
            self._planner.vectors,
            self.settings.explained_floor,
        )
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
            reading = self._planner.read(
                text, tokens, inside, others, topic, types, end - start, matches, vocab
            )
            plan.readings[topic] = reading
            state: dict[str, float] = {}
            for entity_id in topic:
                state[kinds[entity_id]] = state.get(kinds[entity_id], 0.0) + 1 / len(topic)
            plan.starts[topic] = state
            first: dict[tuple[str, str], float] | None = None
            if around is not None:  # the share of the topic's facts each way of starting has
                first = {}
                for entity_id in topic:
                    for key, count in around[entity_id].items():
                        first[key] = first.get(key, 0.0) + count
                total = sum(first.values())
                first = {key: count / total for key, count in first.items()} if total else {}
            plan.firsts[topic] = first
            paths.extend(self._planner.paths(reading, state, first, vocab, hops))
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
        known = (set(vocab.relations.column) - vocab.relations.derived) | set(vocab.types.column)

        def plain(m: Mention) -> bool:
            words = _WORD.findall(m.text)
            return any(
                w not in _FUNCTION_WORDS
                and w not in _QUESTION_WORDS
                and light_stem(w) not in known
                and noun_key(w) not in known
                for w in words
            )

        return [m for m in found if plain(m)]

    def _around(
        self, linked: list[str]
    ) -> tuple[dict[str, Entity], dict[str, dict[tuple[str, str], int]] | None]:
        """The linked entities, and how many facts of each (type, out|in) each has.

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
        found = {e.id: e for e in sub.entities if e.id in wanted}
        if len(sub.entities) >= cap:
            return found, None
        around: dict[str, dict[tuple[str, str], int]] = {e: {} for e in found}
        for rel in sub.relationships:
            for end, way in ((rel.source_id, "out"), (rel.target_id, "in")):
                if end in around:
                    counts = around[end]
                    counts[(rel.type, way)] = counts.get((rel.type, way), 0) + 1
        return found, around
