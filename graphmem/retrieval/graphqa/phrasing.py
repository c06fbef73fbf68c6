"""A question no type's words explain, read as a phrase said of its topic's kind.

Part of :mod:`graphmem.retrieval.graphqa`. The word-level reading (stems, WordNet, the
lexicon, single-word embeddings) leaves a question unanswered when no type's words
explain its relation words: "who did young Ruth *learn the trade under*?" of
``apprenticed_to``, "*whereabouts* is the Swan?" of ``stands_in``. Said with the topic's
name replaced by its kind ("who did young person learn the trade under?"), the question
is compared, as a sentence, with every fact shape a kind of the topic takes, said of its
ends' kinds ("person apprenticed to person", "pub that person keeps": the sayings of
:mod:`graphmem.retrieval.sayings`, which `retrieve` ranks facts by).

The phrase answers only when the word-level reading would abstain for want of words (not
when it found that the topic lacks a fact the words name, nor that no walk reaches the
kind asked for), and only when:

- the shape nearest the question among *all* those of the topic's kind is one the topic
  has (so "who's the landlord of the King's Head?", nearest ``keeps`` which that pub
  lacks, stays unanswered);
- it is at least :data:`PHRASE_FLOOR` near, and :data:`PHRASE_MARGIN` nearer than the
  topic's next way of starting;
- it ends at a kind the question asks for ("who": a person, "which *pub*": a pub);
- no word of the question names its type already (then the word-level reading walked it
  and its direction or kind ruled it out: "who does X report to?" of a person whom others
  report to);
- it does not join two kinds of person unless it holds both ways: people do many things to
  each other that no fact holds ("which knight *betrayed* Lady Mirren?"), as
  :mod:`~graphmem.retrieval.graphqa.joining` and :mod:`~graphmem.retrieval.graphqa.nearness`
  read it.

Its answers say so (``reason``), with a confidence of :data:`PHRASE_CONFIDENCE` times the
cosine: answers of this kind were right about two times in three on the design worlds.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from graphmem.core.models import Entity, entity_aliases
from graphmem.retrieval.graphqa.judging import kind_asked, kind_fit
from graphmem.retrieval.graphqa.kinds import asked_kind_fit, kind_word, names_asked_kind
from graphmem.retrieval.graphqa.planning import _Plan
from graphmem.retrieval.graphqa.vocabulary import PathStep, PlannedPath, question_word_at
from graphmem.retrieval.sayings import SentenceVectors, fact_sayings, said_of_kind

__all__ = [
    "ONLY_WAY_CONFIDENCE",
    "PHRASE_CONFIDENCE",
    "PHRASE_FLOOR",
    "PHRASE_MARGIN",
    "Phrased",
    "PhraseReader",
    "only_way",
    "phrase_topic",
]

PHRASE_FLOOR = 0.7
"""The least cosine between the question said of its kind and the fact shape it reads as."""
PHRASE_MARGIN = 0.04
"""How much nearer that shape must be than the topic's next way of starting."""
PHRASE_CONFIDENCE = 0.4
"""A phrase answer's confidence is this times its cosine (0.28-0.4)."""
ONLY_WAY_CONFIDENCE = 0.3
"""The confidence of answers read from the one way the topic reaches the kind asked for."""
_FITS = 0.8  # the least fit of an answer's kind to "who" / "where" / "when" (a group: 0.8)
_KEPT = 4096  # sentence vectors a reader keeps (the sayings of a few vocabularies)


@dataclass(frozen=True, slots=True)
class Phrased:
    """The one step a question reads as when said as a phrase."""

    path: PlannedPath
    said: str  # the question said of its topic's kind
    saying: str  # the fact shape it is nearest
    similarity: float


class PhraseReader:
    """Reads a question as a phrase against the fact shapes of its topic's kind.

    Args:
        embed: Embeds texts (the memory's embedder); the sayings are kept once each.
        vectors: Where they are kept (the memory's, shared with its fact match and filled
            as its facts are written); None: a cache of the reader's own.
    """

    def __init__(
        self, embed: Callable[[Sequence[str]], Any], vectors: SentenceVectors | None = None
    ) -> None:
        self._vectors = vectors if vectors is not None else SentenceVectors(embed, _KEPT)

    def read(
        self, plan: _Plan, topic: tuple[str, ...], entity: Entity, floor: float
    ) -> Phrased | None:
        """The step from ``topic`` (one ``entity``) the question reads as, or None.

        ``floor`` is the match from which a word explains a type
        (``GraphQASettings.explained_floor``). See the module docstring.
        """
        reading = plan.readings.get(topic)
        firsts = plan.firsts.get(topic)
        starts = plan.starts.get(topic, {})
        if reading is None or not firsts or set(starts) != {entity.type}:
            return None
        said = said_of_kind(plan.text, entity.type, (entity.name, *entity_aliases(entity)))
        if said is None:
            return None
        vocab = plan.vocab
        asking = question_word_at([t.text for t in plan.tokens], plan.named)
        asker = kind_word(plan.tokens[asking].text) if asking is not None else ""
        shapes: dict[tuple[str, str, str], str] = {}
        for table, way in ((vocab.out, "out"), (vocab.into, "in")):
            for (kind, relation), others in table.items():
                if kind != entity.type:
                    continue
                for other in others:
                    fit = asked_kind_fit(asker, other) if asker else None
                    if fit is not None and fit < _FITS:
                        continue  # "who" asks for no enclosure, nor a rail service
                    source, target = (kind, other) if way == "out" else (other, kind)
                    forward, backward = fact_sayings(source, relation, target)
                    shapes[(relation, way, other)] = forward if way == "out" else backward
        if not shapes:
            return None
        # the question is kept too: asked again, it costs no embedding
        found, _none = self._vectors.get({text: text for text in (said, *shapes.values())})
        query = found[said]
        if query is None:
            return None
        near = {text: float(v @ query) for text, v in found.items() if v is not None}
        by_way: dict[tuple[str, str], tuple[float, str]] = {}
        for (relation, way, _other), saying in shapes.items():
            value = near.get(saying, -2.0)
            if value > by_way.get((relation, way), (-2.0, ""))[0]:
                by_way[(relation, way)] = (value, saying)
        ranked = sorted(by_way.items(), key=lambda kv: -kv[1][0])
        (relation, way), (similarity, saying) = ranked[0]
        if (relation, way) not in firsts or similarity < PHRASE_FLOOR:
            return None  # nearest a fact the topic does not have, or near none
        second = max((value for key, (value, _s) in ranked[1:] if key in firsts), default=-1.0)
        if similarity - second < PHRASE_MARGIN:
            return None
        column = vocab.relations.index.get(relation)
        if column is None or float(reading.evidence[column]) >= floor:
            return None  # its own words name it: the word-level reading ruled it out
        symmetric = relation in vocab.symmetric
        people = [t for (r, w, t) in shapes if (r, w) == (relation, way)] + [entity.type]
        if not symmetric and all(names_asked_kind("who", t) for t in people):
            return None  # people do many things to each other that no fact holds
        step = PathStep(relation, "both" if symmetric else way)  # type: ignore[arg-type]
        path = PlannedPath(topic=topic, steps=(step,), score=0.0, parts={"phrase": similarity})
        if kind_asked(plan, path) and not any(
            kind_fit(plan, path, other) >= 1.0
            for (r, w, other) in shapes
            if (r, w) == (relation, way)
        ):
            return None  # "which *church*": the shape ends at no church
        return Phrased(path=path, said=said, saying=saying, similarity=round(similarity, 4))


def phrase_topic(plan: _Plan) -> tuple[tuple[str, ...], Entity] | None:
    """The topic a question is read from as a phrase (its longest mention), with its entity.

    None with no reading, or for a name several entities go by (which one's kind is
    unsure).
    """
    if not plan.readings:
        return None
    topic = max(plan.readings, key=lambda t: plan.readings[t].mention_length)
    entity = plan.linked.get(topic[0]) if len(topic) == 1 else None
    return None if entity is None else (topic, entity)


def only_way(plan: _Plan, topic: tuple[str, ...], entity: Entity) -> PlannedPath | None:
    """The one step from ``topic`` (one ``entity``) to the kind a question asks for, or None.

    "*Which vet* sees to Glasshouse when it's lame?" where no type's words say "sees to":
    when the question asks for a kind by an entity type's own word ("which *vet*") and one
    relationship type, walked one way, joins the topic's kind to that kind, and the topic
    has such a fact, the question asks for it. Read only where the word-level reading and
    the phrase reader both leave the question unanswered for want of words. With two
    types joining the kinds ("which *peak* is the team eyeing?" of ``targets`` and
    ``climbed``), or two kinds of person ("which *knight* betrayed Lady Mirren?": people
    do many things to each other that no fact holds), it stays unanswered. On the design
    worlds 13 of the 14 answers it gave were right, and no no-answer question was answered.
    """
    firsts = plan.firsts.get(topic)
    if topic not in plan.readings or not firsts or set(plan.starts.get(topic, {})) != {entity.type}:
        return None
    vocab = plan.vocab
    ways: dict[PathStep, bool] = {}  # the step, and whether the topic has such a fact
    for table, way in ((vocab.out, "out"), (vocab.into, "in")):
        for (kind, relation), others in table.items():
            if kind != entity.type:
                continue
            symmetric = relation in vocab.symmetric
            step = PathStep(relation, "both" if symmetric else way)  # type: ignore[arg-type]
            probe = PlannedPath(topic=topic, steps=(step,), score=0.0, parts={})
            if not kind_asked(plan, probe):
                return None  # asks for no kind by a type's own word ("who", "where")
            fitting = [other for other in others if kind_fit(plan, probe, other) >= 1.0]
            if not fitting:
                continue
            if not symmetric and all(names_asked_kind("who", t) for t in (*fitting, kind)):
                return None  # two kinds of person
            ways[step] = ways.get(step, False) or (relation, way) in firsts
    if len(ways) != 1 or not all(ways.values()):
        return None
    return PlannedPath(topic=topic, steps=tuple(ways), score=0.0, parts={"only way": 1.0})
