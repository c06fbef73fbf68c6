"""Judging graph answers: how much of the question a walked path explains, and of what kind.

Part of :mod:`graphmem.retrieval.graphqa` (moved out of :mod:`.answering`): the coverage
of the question's content words by a path, the kind a "which *X*" question asks for, what
"when" and "how many" ask for, and the checks between paths.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import lru_cache

import numpy as np

from graphmem.core.models import Relationship
from graphmem.retrieval.graphqa.direction import _Token
from graphmem.retrieval.graphqa.hops import _takeable
from graphmem.retrieval.graphqa.kinds import first_kind
from graphmem.retrieval.graphqa.lexicon import RELATION_VERBS, noun_key
from graphmem.retrieval.graphqa.matching import _DETERMINERS
from graphmem.retrieval.graphqa.planning import _Plan
from graphmem.retrieval.graphqa.reading import _Reading
from graphmem.retrieval.graphqa.tenant import _Vocabulary
from graphmem.retrieval.graphqa.vocabulary import (
    _ADVERB_PARTICLES,
    _ASKS_FOR,
    _BE_WORDS,
    _FUNCTION_WORDS,
    _HOW_MANY,
    _HOW_MEASURE,
    _IDLE_WORDS,
    _LIGHT_VERBS,
    _MEASURE_NOUNS,
    _PHRASE_LIGHT_FORMS,
    _PLACE_WORDS,
    _QUESTION_WORDS,
    _SHARED_WORDS,
    _TIME_NOUNS,
    _TITLES,
    PathStep,
    PlannedPath,
    _asks_no_relation,
    _type_words,
    light_stem,
)

# Verbs of holding, carrying and containing: what is held is where its holder is, so a
# step through one needs no word ("where is the tome?": who carries it, and where they are).
_HOLDING = frozenset(
    light_stem(w)
    for family in RELATION_VERBS
    if family[0] in ("hold", "carry", "wield", "wear")
    for w in family
)

# The words between "what" and the noun that names what it asks for ("what *is the* fare").
_ASKED_THROUGH = _BE_WORDS | frozenset(("the", "a", "an"))

__all__ = [
    "kind_asked",
    "kind_fit",
    "measure_fit",
    "named_noun",
    "question_coverage",
    "unasked_step",
    "unheld_relation",
    "unknown_name",
]


def _measure_asked(tokens: Sequence[_Token], at: int | None) -> str:
    """What the question word at ``at`` asks for when it is a time, a number or a measure.

    ``at``: the question's first question word (:func:`.vocabulary.question_word_at`).
    "when", or "what" / "which" right before a noun of time ("*what year* ..."): a time;
    "how many" / "how much": a number; "how" with an adjective of measure ("*how old*"),
    or "what" / "which" right before a noun of one ("*what colour* ..."): a measure.

    >>> _measure_asked([_Token(0, 4, "when"), _Token(5, 9, "does")], 0)
    'a time'
    >>> _measure_asked([_Token(0, 3, "how"), _Token(4, 7, "old")], 0)
    'a measure'
    """
    if at is None:
        return ""
    word = tokens[at].text
    following = tokens[at + 1].text if at + 1 < len(tokens) else ""
    if word == "when" or (word in ("what", "which") and following in _TIME_NOUNS):
        return "a time"
    if word == "how" and following in ("many", "much"):
        return "a number"
    if (word == "how" and following in _HOW_MEASURE) or (
        word in ("what", "which") and following in _MEASURE_NOUNS
    ):
        return "a measure"
    return ""


def _measure_words(tokens: Sequence[_Token], at: int | None, measure: str) -> tuple[str, ...]:
    """The nouns of what :func:`_measure_asked` found the question to ask for."""
    if measure == "a time":
        return _ASKS_FOR["when"]
    if measure == "a number":
        return _HOW_MANY
    following = tokens[at + 1].text if at is not None and at + 1 < len(tokens) else ""
    return _HOW_MEASURE.get(following, (following,))


def _extends(path: PlannedPath, shorter: PlannedPath) -> bool:
    """``path`` is ``shorter`` walked further, and its steps explain no more of the question."""
    return (
        path.topic == shorter.topic
        and len(path.steps) > len(shorter.steps)
        and path.steps[: len(shorter.steps)] == shorter.steps
        and path.parts.get("explained", 0.0) <= shorter.parts.get("explained", 0.0)
    )


def _against(path: PlannedPath, chain: Sequence[Relationship], reading: _Reading | None) -> int:
    """How many facts of ``chain`` a symmetric step took against the way its words say.

    ``allied_with`` walked both ways reaches the houses allied to X and those X is allied
    to; "the houses X is allied with" names the second first, as the facts were written.
    """
    if reading is None or not reading.symmetric.size:
        return 0
    names = path.steps
    against = 0
    here = {chain[0].source_id, chain[0].target_id} & set(path.topic) if chain else set()
    at = next(iter(here), "")
    for step, fact in zip(names, chain, strict=False):
        went_out = fact.source_id == at
        at = fact.target_id if went_out else fact.source_id
        column = reading.columns.get(step.type)
        if step.direction != "both" or column is None or not reading.symmetric[column]:
            continue
        cue = float(reading.cue[column])
        if cue and went_out != (cue > 0):
            against += 1
    return against


def _asked_at(plan: _Plan, path: PlannedPath) -> int | None:
    """The position of the word that names the kind asked for, if any.

    The word right after "which" / "what" ("*which church* ..."; "what does the
    *experiment* ... study?" asks for no experiment), or the noun the topic is attached
    to in "who is / are ..." ("who are the Gilded Pear's *suppliers*?", "who is the
    *director* of X?").
    """
    reading = plan.readings.get(path.topic)
    if reading is None:
        return None
    at = reading.focus_at
    if at is not None and at > 0:
        # "*which church* ...", and "what is / was the *settlement* of X?" (the noun after
        # a form of "be" and an article), not "what does the *experiment* study?"
        before = at - 1
        while before > 0 and plan.tokens[before].text in _ASKED_THROUGH:
            before -= 1
        if plan.tokens[before].text in ("which", "what") and (
            before == at - 1 or plan.tokens[before + 1].text in _BE_WORDS
        ):
            return at
    noun = reading.noun_at
    texts = [t.text for t in plan.tokens]
    asks_who = len(texts) > 1 and texts[0] in ("who", "whom")
    if noun is None or not asks_who or texts[1] not in ("is", "are", "was", "were"):
        return None
    # the noun and the name are all that is asked about ("who is *deputy* to the leader
    # of X's section?" asks for no section)
    first, last = reading.span
    around = texts[2 : min(noun, first)] + texts[max(noun, last) + 1 :]
    return noun if all(w in _FUNCTION_WORDS for w in around) else None


def kind_asked(plan: _Plan, path: PlannedPath) -> str:
    """The word that names the kind asked for, when it is an entity type's own word."""
    at = _asked_at(plan, path)
    if at is None:
        return ""
    word = plan.tokens[at].text
    n_rel = len(plan.vocab.relations.names)
    return word if float(plan.matches[word][n_rel:].max(initial=0.0)) >= 1.0 else ""


def named_noun(plan: _Plan, path: PlannedPath) -> str:
    """The noun that names the kind asked for, when it is no entity type's own word.

    "*which cooper* ...", "who is X's *secretary*?": what WordNet knows of its kinds says
    which answers may be one (:func:`~.kinds.noun_fits`).
    """
    at = _asked_at(plan, path)
    if at is None:
        return ""
    word = plan.tokens[at].text
    n_rel = len(plan.vocab.relations.names)
    return word if float(plan.matches[word][n_rel:].max(initial=0.0)) < 1.0 else ""


def kind_fit(plan: _Plan, path: PlannedPath, entity_type: str) -> float:
    """How well ``entity_type`` fits the word asked with (1: that type's own word)."""
    at = _asked_at(plan, path)
    column = plan.vocab.types.index.get(entity_type)
    if at is None or column is None:
        return 0.0
    word = plan.tokens[at].text
    return float(plan.matches[word][len(plan.vocab.relations.names) + column])


def measure_fit(plan: _Plan, path: PlannedPath, asked: Sequence[str]) -> float:
    """How well ``path`` ends at what a "when" / "how many" / "how old" question asks for.

    The fit of its end types with the focus (its ``focus`` part), or of its last type,
    walked forwards, with ``asked``: the words of a time, a number or a measure
    (``release_year``: "year"; :func:`_measure_words`).
    """
    last = path.steps[-1]
    column = plan.vocab.relations.index.get(last.type)
    named = 0.0
    if column is not None and last.direction != "in":
        named = max(float(plan.matches[w][column]) for w in asked if w in plan.matches)
    return max(float(path.parts.get("focus", 0.0)), named)


def question_coverage(
    plan: _Plan, path: PlannedPath, floor: float
) -> tuple[int, int, list[str], int, float]:
    """The question's content words ``path`` explains, of how many, and those it does not.

    Returns ``(explained, content words, unexplained words, explained by a step's type,
    how strongly)``: the last sums each explained word's match, at most 1 (a word a type
    names by meaning alone, "turn" of ``fought_at``, counts by its cosine's share).

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
    noun_at = reading.noun_at if reading is not None else None
    content = 0
    explained = 0
    by_types = 0
    strength = 0.0
    missing: list[str] = []
    light: list[str] = []
    # a small word of place in a step's name explains its like ("who is *at* the Circle?"
    # of ``located_in``); "to", "of", "by" say too little ("who is X married *to*?")
    small = (
        _PLACE_WORDS
        if any(w in _PLACE_WORDS for step in path.steps for w in _type_words(step.type))
        else frozenset()
    )
    stepped = -1  # the position of the last word a step explains
    for i, token in enumerate(plan.tokens):
        word = token.text
        if word in _ADVERB_PARTICLES and stepped == i - 1 and i not in plan.named:
            continue  # "who gives *out* the quest?" of a step that explains "gives"
        if i not in plan.named and word in small:
            content += 1
            explained += 1
            by_types += 1
            strength += 1.0
            continue
        if i in plan.named or _asks_no_relation(word):
            continue
        if reading is not None and i in reading.owned:
            continue  # "whose *boat* is X?": what X is, no relation
        match = plan.matches[word]
        said = float(match[used].max(initial=0.0))
        kind = float(match[n_rel:].max(initial=0.0))
        if said >= floor and said >= kind:
            content += 1
            explained += 1
            by_types += 1
            strength += min(1.0, said)
            stepped = i
        elif i == noun_at and kind < 1.0:
            # the noun of the topic names a relation ("Teddy's *agent*") unless it is an
            # entity type's own word ("Grace's *project*"): no step explains it
            content += 1
            if word not in missing:
                missing.append(word)
        elif kind >= floor / 2 and not said_elsewhere(
            match[:n_rel], kind, noun=i == focus_at or _after_determiner(plan, i)
        ):
            # a kind read by meaning ("films" for ``movie``), unless another relationship
            # type names the word better ("what does Humphrey *eat*?" of ``eats``, not food)
            # it names a kind of entity ("the Finance team"), not a relation; as the
            # word the question asks with ("which team"), what the answer is
            if i == focus_at:
                content += 1
                explained += 1
                strength += min(1.0, kind)
        elif i == focus_at and kind < floor / 2 and _ends_of_kind(plan, path, word):
            # the word asked with names no entity type, but what WordNet first means by
            # it is the kind of every entity type the path ends at ("which *surveyor*",
            # a person, of a walk to ``person``)
            content += 1
            explained += 1
            strength += _KIND_OF_END
        elif word in _PHRASE_LIGHT_FORMS:
            light.append(word)
        elif word not in _LIGHT_VERBS:
            content += 1
            if word not in missing:
                missing.append(word)
    if light and not content:
        # "who has X *got* a feud *going* with?": the light words of a phrase leave the
        # relation to its other words, explained or not, or to the kind asked for ("which
        # team did Vandal *come over* from?"); with neither, they are all the question
        # says of it ("who *took out* Loan #7?")
        content += len(light)
        missing.extend(w for w in dict.fromkeys(light) if w not in missing)
    return explained, content, missing, by_types, strength


# The kinds a noun asked with may be read as the path's end by (WordNet's letters, see
# :data:`~.kinds.LETTERS`): a person, a place, an event, an animal, a natural object, a
# time. Not an artifact nor a group: a hospital and a fire engine are both artifacts
# ("which *hospital* were the casualties taken to?"), a school and a spy station groups.
_END_KINDS = frozenset("plenot")
# How much of a word such a noun counts for in the coverage's strength (a type's own
# word counts 1, a kind read by meaning its cosine).
_KIND_OF_END = 0.5


def _ends_of_kind(plan: _Plan, path: PlannedPath, word: str) -> bool:
    """WordNet's first sense of ``word`` is the kind of each entity type ``path`` ends at.

    The end types are those the schema's facts reach by the path's steps from the
    topic's types (at least a fifth of the walk's share each).
    """
    kind = first_kind(word)
    if kind is None or kind not in _END_KINDS:
        return False
    state = plan.starts.get(path.topic, {})
    for step in path.steps:
        state = _after(plan.vocab, state, step)
    ends = [t for t, share in state.items() if share >= 0.2]
    return bool(ends) and all(first_kind(t) == kind for t in ends)


def _after(vocab: _Vocabulary, state: Mapping[str, float], step: PathStep) -> dict[str, float]:
    """The entity types ``step`` reaches from the type mix ``state`` (empty: none)."""
    return next((f for way, _s, f in vocab.steps(state, step.type) if way == step.direction), {})


def _after_determiner(plan: _Plan, at: int) -> bool:
    """The word at ``at`` follows a determiner ("the *sponsors*"): it is said as a noun."""
    return at > 0 and plan.tokens[at - 1].text in _DETERMINERS


def said_elsewhere(
    relations: np.ndarray, kind: float, floor: float = 0.75, noun: bool = True
) -> bool:
    """A relationship type names a word (by ``floor``) better than an entity type does.

    ``relations`` is the word's match with each relationship type, ``kind`` its best match
    with an entity type. A noun (``noun``) that is a type's own word (``kind`` 1) is always
    a kind; a verb ("who *sponsors* Nia?") names a relation as well as it names a kind.

    >>> said_elsewhere(np.array([1.0, 0.0]), 0.4), said_elsewhere(np.array([0.3]), 0.4)
    (True, False)
    >>> said_elsewhere(np.array([1.0]), 1.0), said_elsewhere(np.array([1.0]), 1.0, noun=False)
    (False, True)
    """
    best = float(relations.max(initial=0.0))
    if not noun:
        return best >= floor and best >= kind
    return kind < 1.0 and best >= floor and best > kind


def unasked_step(plan: _Plan, path: PlannedPath, floor: float = 0.3) -> str:
    """The first step of ``path`` that nothing in the question asks for ("" if none).

    A step is asked for by a word its type explains (by ``floor`` at least, outside the
    names), by a small word of place its name has ("*in* which district" of
    ``located_in``), or by a word naming the kind of entity it reaches ("the *cargo* on
    the Grey Gull" of ``carries``). "Who is X married to?" walked ``reports_to`` then
    ``married_to`` answers who X's boss is married to: its first step is asked by nothing.
    Only read when every content word of the question is explained by a step or names a
    kind: a word left over may be what asks for that step in words no type has.
    """
    vocab = plan.vocab
    n_rel = len(vocab.relations.names)
    state = plan.starts.get(path.topic)
    reading = plan.readings.get(path.topic)
    if state is None or reading is None:
        return ""
    first, last = reading.span
    # the words outside the topic's name (another name may be a word of the vocabulary:
    # MetaQA's tag "director")
    words = [
        t.text
        for i, t in enumerate(plan.tokens)
        if not first <= i <= last and t.text not in _QUESTION_WORDS
    ]
    content = [w for w in words if w not in _FUNCTION_WORDS]
    # what a question word asks for asks for a step too ("*where* is the tome?": a place)
    content += [w for t in plan.tokens for w in _ASKS_FOR.get(t.text, ()) if w in plan.matches]
    places = sum(w in _PLACE_WORDS for w in words)  # each asks for one step
    # the word asked with ("*which god* does X worship?") names what the last step
    # reaches; it asks for no step on the way there
    focus = reading.focus_at
    asked_with = ""
    if (
        focus is not None
        and float(plan.matches[plan.tokens[focus].text][n_rel:].max(initial=0.0)) >= 1.0
    ):
        # an entity type's own word ("which *circus* ...") asks for the step that reaches
        # that kind (below), or one whose name has it (``winemaker``), never one whose
        # description merely uses it ("a rival circus" of ``rival_of``)
        asked_with = plan.tokens[focus].text
    if any(step.type not in vocab.relations.index for step in path.steps):
        return ""
    columns = [vocab.relations.index[step.type] for step in path.steps]
    kinds = np.zeros(len(vocab.types.names))
    on_the_way = np.zeros(len(vocab.types.names))
    nouns = _type_nouns(tuple(vocab.types.names))
    for i, t in enumerate(plan.tokens):
        if not first <= i <= last and t.text not in _QUESTION_WORDS:
            match = plan.matches[t.text]
            kinds = np.maximum(kinds, match[n_rel:])
            # a word a step walks by ("drive" of ``drives``) names no kind on the way
            # ("driver": "which team does X *drive* for?" walked through X's mentor),
            # unless it is a type's own noun ("sit *exams*" of ``exam_in``: exams)
            said = float(match[columns].max())
            walked_by = said >= floor and said >= float(match[n_rel:].max())
            if i != focus and (not walked_by or noun_key(t.text) in nouns):
                on_the_way = np.maximum(on_the_way, match[n_rel:])
    plain = [
        t.text
        for i, t in enumerate(plan.tokens)
        if i not in plan.named
        and i != focus
        and t.text not in _QUESTION_WORDS
        and t.text not in _FUNCTION_WORDS
    ]
    for word in plain:  # a name is no word left over
        if word in _IDLE_WORDS or word in _LIGHT_VERBS or word in _SHARED_WORDS:
            continue
        match = plan.matches[word]
        if float(match[columns].max()) < floor and float(match[n_rel:].max(initial=0.0)) < floor:
            # a word no step explains, nor a kind: it may ask for the step no other
            # word does ("the grange Hamo *rents*" of ``tenant_of``)
            return ""
    asked_back = bool(path.parts.get("asked back", 0.0))
    before: PathStep | None = None
    for at, step in enumerate(path.steps):
        column = vocab.relations.index[step.type]
        state = _after(vocab, state, step)
        asked = kinds if at == len(path.steps) - 1 else on_the_way
        kind = any(asked[vocab.types.index[t]] >= 1.0 for t in state if t in vocab.types.index)
        back = (
            before is not None
            and before.type == step.type
            and {before.direction, step.direction} in ({"out", "in"}, {"both"})
        )
        before = step
        if back:
            if asked_back or kind:
                continue  # the walk back is asked for with the walk there
            # a walk there and back that no word asks for ("same", "also", or the kind
            # it comes back to: "the *films* of the director of X")
            return step.type
        if _HOLDING & {light_stem(w) for w in _type_words(step.type)}:
            continue  # a thing is where what holds it is: "where is the tome?"
        if any(
            float(plan.matches[w][column]) >= floor
            and (
                w != asked_with
                or any(t.startswith(light_stem(w)) for t in map(light_stem, _type_words(step.type)))
            )
            for w in content
        ):
            continue
        if places and any(w in _PLACE_WORDS for w in _type_words(step.type)):
            places -= 1
            continue
        if kind:
            continue
        return step.type
    return ""


@lru_cache(maxsize=256)
def _type_nouns(types: tuple[str, ...]) -> frozenset[str]:
    """The noun keys of the words of the entity types' names (kept per set of types)."""
    return frozenset(noun_key(w) for name in types for w in _type_words(name))


def unheld_relation(
    plan: _Plan, path: PlannedPath, strong: float = 1.0, margin: float = 0.3, floor: float = 0.02
) -> tuple[str, str]:
    """A relation the question names that entities of the topic's kind have, but not it.

    Returns ``(word, relationship type)``, or ``("", "")``. A content word outside the
    names that a relationship type names by its own word (match ``strong``), which the
    walked path explains ``margin`` less well or not at all ("who *guides* X?" walked by
    ``leads``), asks for that type when the type explains more of the question's words
    of a relation than the path does ("who serves *aboard* X?" walked by ``serves_on``
    asks for no ``sails_aboard``). When the topic's entity type takes it (a share of at
    least ``floor`` of its facts of that type go that way) and the topic itself has no
    such fact, the graph does not hold what is asked: the path answers another question.
    A word that names an entity type as well ("which *team* ...") is read as the kind
    asked for, never as such a relation.
    """
    vocab = plan.vocab
    names = vocab.relations.names
    n_rel = len(names)
    state = plan.starts.get(path.topic)
    first = plan.firsts.get(path.topic)
    if state is None or first is None:
        return "", ""
    if any(step.type not in vocab.relations.index for step in path.steps):
        return "", ""
    used = [vocab.relations.index[step.type] for step in path.steps]
    reading = plan.readings.get(path.topic)
    noun = reading.noun_at if reading is not None else None
    cue = reading.cue if reading is not None else np.zeros(0)
    rows: list[tuple[str, np.ndarray]] = []  # the question's words of a relation
    for i, token in enumerate(plan.tokens):
        word = token.text
        if i in plan.named or _asks_no_relation(word) or word in _LIGHT_VERBS:
            continue
        match = plan.matches[word]
        relations = match[:n_rel]
        if i == noun:  # as the noun walks a type: "Finch's *captain*" asks for no ship
            relations = np.where(
                _takeable(relations >= strong, word, cue, set(state), vocab, floor)
                | (relations < strong),
                relations,
                0.0,
            )
        if float(match[n_rel:].max(initial=0.0)) < float(relations.max(initial=0.0)):
            rows.append((word, relations))
    for at in _noun_phrase(plan, noun):
        # "who is X's *engineer*?" asks for the first step to be what the noun names,
        # however the path walks it further on ("the engineer of X's team's former driver")
        relations = plan.matches[plan.tokens[at].text][:n_rel]
        better = (relations >= strong) & (relations >= relations[used[0]] + margin)
        # (as the noun walks it: "Finch's *captain*" asks for no ship he captains)
        named = _takeable(better, plan.tokens[at].text, cue, set(state), vocab, floor)
        if named.any() and _unheld(vocab, state, first, np.flatnonzero(named).tolist(), floor):
            return plan.tokens[at].text, names[int(np.flatnonzero(named)[0])]
    if not rows:
        return "", ""
    table = np.stack([relations for _word, relations in rows])
    said = table[:, used].max(axis=1)
    explained = float(said.sum())
    for (word, relations), own in zip(rows, said, strict=True):
        rivals = [
            int(r)
            for r in np.flatnonzero((relations >= strong) & (relations >= own + margin))
            if float(table[:, r].sum()) > explained
        ]
        if rivals and _unheld(vocab, state, first, rivals, floor):
            return word, names[rivals[0]]
    return "", ""


def _noun_phrase(plan: _Plan, at: int | None, longest: int = 3) -> list[int]:
    """The words of the noun the topic is attached to in "who is X's N?", from ``at``.

    The noun ("who is X's *boss* at ...?") or the words that end the question ("who is
    X's *race engineer*?"); none in other questions ("which team does X's manager lead?").
    """
    texts = [t.text for t in plan.tokens]
    if at is None or at in plan.named or len(texts) < 2:
        return []
    if texts[0] not in ("who", "what", "which") or texts[1] not in _BE_WORDS:
        return []
    end = at + 1
    while end < len(plan.tokens) and end - at < longest:
        word = plan.tokens[end].text
        if end in plan.named or word in _FUNCTION_WORDS or word in _QUESTION_WORDS:
            break
        end += 1
    if end < len(plan.tokens) and plan.tokens[end].text not in _FUNCTION_WORDS:
        return [at]
    return list(range(at, end))


def _unheld(
    vocab: _Vocabulary,
    state: Mapping[str, float],
    first: Mapping[tuple[str, str], float],
    rivals: Sequence[int],
    floor: float,
) -> bool:
    """Whether the topic's kind takes one of ``rivals`` first and the topic holds none."""
    names = vocab.relations.names
    open_, held = False, False
    for r in rivals:
        for way, share, _following in vocab.steps(state, names[r]):
            if share < floor:
                continue
            open_ = True
            ways = ("out", "in") if way == "both" else (way,)
            held = held or any(first.get((names[r], w), 0.0) > 0 for w in ways)
    return open_ and not held


def unknown_name(plan: _Plan, unexplained: Sequence[str]) -> str:
    """A capitalised word of the question no path explains, next to a name: a name unknown.

    Not the first word, not a title ("Captain", "Old"), not inside a name linked.
    """
    if not plan.cased or not unexplained:
        return ""
    left = set(unexplained)
    named = set(plan.named)
    for i, token in enumerate(plan.tokens):
        if i == 0 or i in named or token.text not in left or token.text in _TITLES:
            continue
        written = plan.cased[token.start : token.end]
        if not written.istitle() or len(written) < 3:  # a name, not an acronym ("PhD", "MPs")
            continue
        if {i - 1, i + 1, i - 2, i + 2} & named:
            return written
    return ""
