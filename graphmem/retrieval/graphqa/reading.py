"""Reading graph questions: a question read for one topic, word by word.

Part of :mod:`graphmem.retrieval.graphqa` (moved out of :mod:`.planning`): for one
candidate topic mention, the evidence the question's words outside it give each
relationship type, the focus (what "who" / "where" / "when" / "how many" ask for, or the
word after "which" / "what"), a type named in two places, the order of the words between
the topic and the question word, the direction its words give a type joining one kind
to itself, the noun the topic is attached to, and the kinds of entity it names.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from graphmem.retrieval.graphqa.direction import _attached_noun, _Token, read_cue
from graphmem.retrieval.graphqa.hops import _takeable
from graphmem.retrieval.graphqa.kinds import names_asked_kind, noun_fits
from graphmem.retrieval.graphqa.matching import _DETERMINERS, POSSESSION
from graphmem.retrieval.graphqa.relwords import lemmas
from graphmem.retrieval.graphqa.tenant import _Vocabulary
from graphmem.retrieval.graphqa.vocabulary import (
    _ASKS_FOR,
    _BE_WORDS,
    _FUNCTION_WORDS,
    _HOW_MANY,
    _QUESTION_WORDS,
    _SHARED_WORDS,
    GraphQASettings,
    light_stem,
    question_word_at,
)

__all__ = ["Reader", "modifier_at"]

# How well the word asked with ("which *train*") must name a kind of entity, by a type's
# name or description, to be read as what the answer is and no word of a step: chosen on
# the design worlds of issue 26 (0.4 and 0.5 alike, 0.7 kept half the gain).
_KIND_ASKED = 0.5
# How much "whose" counts as a word of possession, when nothing else names a relation
# (a word the question says counts 1).
_WHOSE = 0.5


def modifier_at(
    tokens: list[_Token], named: set[int], matches: Mapping[str, np.ndarray], vocab: _Vocabulary
) -> int | None:
    """The word before the kind asked with "which" that only qualifies it, or None.

    "Which *master* shipwright built X?" asks for a shipwright: "master" says which one,
    not how the answer is reached (it is no step to the shipwright's master), and "in
    which *dry* dock" asks for a dock. Such a word sits between "which" / "what" and the
    word after it that is an entity type's own word, is no type's own word itself, and
    names no relationship type that word also names ("which *sister* ships" of
    ``sister_ship_of`` names the type in two words: both are kept).
    """
    asking = question_word_at([t.text for t in tokens], named)
    if asking is None or tokens[asking].text not in ("which", "what"):
        return None
    at, head = asking + 1, asking + 2
    if head >= len(tokens) or at in named or head in named:
        return None
    word, noun = tokens[at].text, tokens[head].text
    if word in _FUNCTION_WORDS or word in _QUESTION_WORDS or word in _SHARED_WORDS:
        return None
    if not _head_noun(noun, word, matches, vocab):
        return None
    n_rel = len(vocab.relations.names)
    if bool(((matches[word][:n_rel] > 0) & (matches[noun][:n_rel] > 0)).any()):
        return None
    return at


def _head_noun(
    word: str, before: str, matches: Mapping[str, np.ndarray], vocab: _Vocabulary
) -> bool:
    """``word`` is a word of an entity type's own name, and the word ``before`` it is none.

    Only a name's word: a word of a type's description ("stars *used* to steer") is no
    noun the question asks for.
    """
    if word in _FUNCTION_WORDS or word in _QUESTION_WORDS or word in _SHARED_WORDS:
        return False
    n_rel = len(vocab.relations.names)
    return (
        light_stem(word) in vocab.kind_stems
        and float(matches[word][n_rel:].max(initial=0.0)) >= 1.0
        and float(matches[before][n_rel:].max(initial=0.0)) < 1.0
    )


def _by_verb(word: str, stem: str, relation: int, vocab: _Vocabulary) -> bool:
    """``word`` (of light stem ``stem``) is a verb naming type ``relation`` by 0.5 or more.

    A noun WordNet has for a person or a relation ("lord", "apprentice") is no verb.
    """
    if any(pos == "n" for _lemma, pos in lemmas(word)):
        return False
    column = vocab.relations.column.get(stem)
    return column is not None and float(vocab.relations.weights[relation, column]) >= 0.5


@dataclass
class _Reading:
    """A question read against a vocabulary, for one candidate topic mention."""

    topic: tuple[str, ...]
    mention_length: int
    evidence: np.ndarray  # (relation types,) best match of any word
    # (words, relation types) match of each word; none for the word asked with when it
    # names a kind of entity ("which *train*")
    per_word: np.ndarray
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
    # (relation types,) True for a type that holds both ways (walked both: no cost)
    symmetric: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    columns: Mapping[str, int] = field(default_factory=dict)  # relation type -> column
    # (relation types,) True for the types a relation noun of the topic names ("X's
    # *husband*", "the *mother* of X"): the walk starts with one of them
    attached: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))
    # the position of the noun the topic's mention is attached to ("X's *agent*")
    noun_at: int | None = None
    # the first and last position of the topic's mention
    span: tuple[int, int] = (0, -1)
    # how well the noun the topic is attached to names a kind of entity ("X's *film*")
    noun_kind: float = 0.0
    # (entity types,) 1 for a kind the question names by a word of its type (its name's,
    # or its description's when described: a whole match) away from the topic and from
    # what it asks for: a walk passes it ("the *federations* of the players X coaches")
    passed: np.ndarray = field(default_factory=lambda: np.zeros(0))
    # the positions of the words saying what the topic is in "whose *boat* is X?"
    owned: frozenset[int] = frozenset()


class Reader:
    """Reads a question for one topic mention, word by word.

    A base of :class:`~graphmem.retrieval.graphqa.planning.Planner`, which sets
    ``settings`` (the weights and limits).
    """

    settings: GraphQASettings

    def read(
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
        """The question read for one topic mention (see :class:`_Reading`)."""
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
        names = {*inside, *(i for mention in others for i in mention)}
        asking = question_word_at([t.text for t in tokens], names)
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
                        # the kind is the last noun: "which *sister ships*" asks for ships
                        after = i + 1
                        if (
                            (after < first or after > last)
                            and after < len(tokens)
                            and _head_noun(tokens[after].text, text, matches, vocab)
                        ):
                            focus = [(after, tokens[after].text, False)]
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
            kind = float(match[n_rel:].max(initial=0.0))
            relation = np.where(match[:n_rel] >= kind, match[:n_rel], 0)
            if kind >= 1.0 and any(i == at and not asked for at, _w, asked in focus):
                # the word asked with is an entity type's own word ("which *films*" of
                # ``film``), even where a stem also reaches a relationship (``filmed_in``)
                relation = np.zeros(n_rel)
            rows.append((i, weight * relation))
            # which types are planned with: a small word of a type's name ("in" of
            # ``located_in``) is evidence enough ("which district is X in?")
            evidence = np.maximum(evidence, relation)
        whose = _whose_at(tokens, asking, first, last)
        owned: frozenset[int] = frozenset()
        if whose is not None and POSSESSION in matches and float(evidence.max(initial=0.0)) < 0.5:
            # "whose *boat* is the Perseverance?" asks who has it: the noun says what the
            # topic is (no step need explain it), and "whose" names possession, a little.
            # Not where a word names a relation ("whose *seat* is X?" of ``seat_of``).
            owned = frozenset(
                i
                for i in range(whose + 1, first)
                if tokens[i].text not in _BE_WORDS
                and tokens[i].text not in _DETERMINERS
                and any(noun_fits(tokens[i].text, t) is not False for t in topic_types)
            )
            relation = _WHOSE * matches[POSSESSION][:n_rel]
            rows.append((whose, relation))
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
            if not asked and float(matches[word][n_rel:].max(initial=0.0)) < 1.0:
                focus_relations = np.maximum(focus_relations, matches[word][:n_rel])
            focus_types = np.maximum(focus_types, matches[word][n_rel:])
        if asking is not None and focus and focus[0][0] == asking:
            # what "who" / "where" / "when" ask for fits a described entity type WordNet
            # knows first as a person / location / time ("worker"), whatever its
            # description says: one without "person" no longer makes it a wrong answer
            asker = tokens[asking].text
            for t, name in enumerate(vocab.types.names):
                if name in vocab.described and names_asked_kind(asker, name):
                    focus_types[t] = 1.0
        cue = read_cue(tokens, question, first, last, matches, vocab)
        noun = _attached_noun(tokens, question, first, last)
        times = np.ones(n_rel)
        for r in range(n_rel):
            named_by = [
                (int(i), light_stem(tokens[int(i)].text))
                for i, row in zip(positions[:said], per_word[:said, r], strict=True)
                if row >= 0.5
            ]
            spots = [stem for _i, stem in named_by]
            if spots:
                times[r] = max(spots.count(stem) for stem in spots)
            # the noun the topic is attached to and a verb after it name the type twice:
            # "who does X's *boss* *report* to?" is the boss's boss (not "X's *liege*
            # lord", "X's master when he was an *apprentice*": nouns of one step)
            if (
                noun is not None
                and any(i == noun for i, _s in named_by)
                and any(i > noun and _by_verb(tokens[i].text, s, r, vocab) for i, s in named_by)
            ):
                times[r] = max(times[r], 2.0)
        attached = np.zeros(n_rel, dtype=bool)
        if noun is not None:
            row = next((row for i, row in rows if i == noun), None)
            if row is not None and float(row.max(initial=0.0)) >= 0.5:
                attached = _takeable(
                    row >= 0.5, tokens[noun].text, cue, topic_types, vocab, settings.min_step_share
                )
        focus_at = next((i for i, _w, asked in focus if not asked and i != asking), None)
        if (
            focus_at is not None
            and float(matches[tokens[focus_at].text][n_rel:].max(initial=0.0)) >= _KIND_ASKED
        ):
            # the word asked with names a kind of entity ("which *train* does X drive?" of
            # a ``service`` described as "a regular train service"): what the answer is,
            # judged by the focus; no step explains it, and none leaves it unexplained (a
            # further step described with "train", ``runs_on``, walked past the answer).
            # Unlike a type's own word (above), it still says which types are planned with:
            # taken from the evidence too, it answered a no-answer question more.
            per_word = np.where((positions == focus_at)[:, None], 0.0, per_word)
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
            focus_at=focus_at,
            touches=self._touches(tokens, outside, matches, vocab, topic_types),
            passed=self._passed(
                tokens, [i for i in outside if i != noun], matches, vocab, topic_types, focus
            ),
            times=times,
            symmetric=np.array([r in vocab.symmetric for r in vocab.relations.names], dtype=bool),
            columns=vocab.relations.index,
            attached=attached,
            noun_at=noun,
            owned=owned,
            span=(first, last),
            noun_kind=(
                float(matches[tokens[noun].text][n_rel:].max(initial=0.0))
                if noun is not None
                else 0.0
            ),
        )

    def _passed(
        self,
        tokens: list[_Token],
        outside: list[int],
        matches: Mapping[str, np.ndarray],
        vocab: _Vocabulary,
        topic_types: set[str],
        focus: Sequence[tuple[int, str, bool]],
    ) -> np.ndarray:
        """1 for each entity type the question names on the way, by a word of its type.

        A word matching the type whole: of its name, or of its description when it is
        described. Not the topic's kind, nor the words it asks with ("*which cities* are
        the *federations* of ..." passes federations, and asks for a city).
        """
        n_rel = len(vocab.relations.names)
        asked = {i for i, _w, _a in focus}
        out = np.zeros(len(vocab.types.names))
        for i in outside:
            word = tokens[i].text
            if i in asked or i == 0 or tokens[i - 1].text not in _DETERMINERS:
                continue  # a noun said as one: "*the* federations" ("who *played*" of player)
            if float(matches[word][:n_rel].max(initial=0.0)) >= 1.0:
                continue  # it names a relation as well ("the *driver*" of ``drives``)
            out = np.maximum(out, (matches[word][n_rel:] >= 1.0).astype(float))
        for entity_type in topic_types:
            column = vocab.types.index.get(entity_type)
            if column is not None:
                out[column] = 0.0
        return out

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


def _whose_at(tokens: Sequence[_Token], asking: int | None, first: int, last: int) -> int | None:
    """The position of "whose" when the question asks whose the topic is.

    "*Whose* boat is the Perseverance?", "*whose* is Hookjaw?": "whose", at most two
    words, a form of "be", at most an article, the topic's mention, and no more than
    small words after it (not "whose work is X the agent *for*?").
    """
    if asking is None or tokens[asking].text != "whose":
        return None
    be = next(
        (i for i in range(asking + 1, min(first, asking + 4)) if tokens[i].text in _BE_WORDS), None
    )
    if be is None:
        return None
    rest = [t.text for t in tokens[be + 1 : first]]
    if len(rest) > 1 or any(w not in _DETERMINERS for w in rest):
        return None
    return asking if all(t.text in _FUNCTION_WORDS for t in tokens[last + 1 :]) else None
