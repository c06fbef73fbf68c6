"""Reading the way a question walks a relation: the noun a name is attached to, and the cue.

Part of :mod:`graphmem.retrieval.graphqa` (moved out of :mod:`.planning`): "who does X
report to?" against "who reports to X?", "X's *mentor*" against "the one X mentors".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from graphmem.retrieval.graphqa.lexicon import RELATION_VERBS, kin_steps, noun_key, target_nouns
from graphmem.retrieval.graphqa.tenant import _Vocabulary
from graphmem.retrieval.graphqa.vocabulary import (
    _AGENT_ENDINGS,
    _BE_WORDS,
    _FUNCTION_WORDS,
    _OBJECT_NOUN_ENDINGS,
    StepDirection,
    _type_words,
    irregular_form,
    light_stem,
)

__all__ = ["kin_tokens", "kind_takes", "names_a_noun", "noun_way", "read_cue"]

# Small words a name may start with that leave it a noun: ``has_owner`` is ``owner``.
_HAVING_WORDS = frozenset(("has", "have", "had", "is"))
# Endings of nouns for the one a verb is done to: "trainee", "mentee", "employee",
# "nominee" (the target of ``trains``, ``mentors``, ``employs``), never its doer.
_PATIENT_ENDINGS = ("ee", "ees")
_BASE_VERBS = frozenset(w for family in RELATION_VERBS for w in family)
# The small verbs a question puts before its subject: "who did *X* learn from?".
_AUXILIARIES = frozenset(
    ("do", "does", "did", "is", "was", "are", "were", "has", "have", "had")
    + ("will", "would", "can", "could")
)
# The cue of the topic as the subject, when no word names the type: below a word's (1),
# so that among paths that walk with it a word's cue still counts more.
_SUBJECT_CUE = 0.1
# Words that make one preposition with "of" ("who works *out of* the depot?", "*because
# of*", "*instead of*"): no noun the name is attached to.
_OF_PARTICLES = frozenset(
    ("out", "because", "instead", "ahead", "inside", "outside", "apart", "aside", "regardless")
)


@dataclass
class _Token:
    start: int
    end: int
    text: str


def _attached_noun(tokens: Sequence[_Token], text: str, first: int, last: int) -> int | None:
    """The position of the noun the topic's mention is attached to, if any.

    "X's *boss*" (a possessive: the first word after "'s" or a bare "'"), or "the *boss*
    of X" (the word before "of", with at most one small word between "of" and the name,
    and no content word after the name: not "the director of X's *acted* films").

    >>> words = "who is the mother of ann".split()
    >>> toks, at = [], 0
    >>> for w in words:
    ...     toks.append(_Token(at, at + len(w), w)); at += len(w) + 1
    >>> _attached_noun(toks, " ".join(words), 5, 5)
    3

    Not a word that makes one preposition with "of": "who works *out of* the depot?".
    """
    n = len(tokens)
    if last + 1 < n:
        between = text[tokens[last].end : tokens[last + 1].start]
        after = None
        if tokens[last + 1].text == "s" and between.startswith(("'", "’")):
            after = last + 2
        elif between.strip() in ("'", "’"):
            after = last + 1
        while after is not None and after < n and tokens[after].text in _FUNCTION_WORDS:
            after += 1
        if after is not None and after < n:
            return after
    # "the director of X *acted* films": the name modifies what follows, not the noun
    if last + 1 < n and tokens[last + 1].text not in _FUNCTION_WORDS:
        return None
    for gap in (2, 3):
        p = first - gap
        if p < 0 or tokens[p + 1].text != "of":
            continue
        if gap == 3 and tokens[p + 2].text not in _FUNCTION_WORDS:
            continue
        if tokens[p].text not in _FUNCTION_WORDS and tokens[p].text not in _OF_PARTICLES:
            return p
    return None


def names_a_noun(name: str) -> bool:
    """Whether a type's name is a noun for its target, as a property is named.

    ``boss``, ``owner``, ``mentor``, ``parent``, ``has_owner``: a fact ``X -boss-> Y``
    says Y is X's boss (so "X's boss" walks forwards from X, "who bosses X?" too, and
    "whose boss is X?" / "who is X the boss of?" backwards). Not a verb of its source
    (``owns``, ``wrote``, ``reports_to``, ``love``) nor a noun of it (``member_of``).

    >>> [names_a_noun(n) for n in ("boss", "hasOwner", "mentor", "mentors", "love", "member_of")]
    [True, True, True, False, False, False]
    >>> names_a_noun("Sank"), names_a_noun("wrote")  # past forms WordNet lists: verbs
    (False, False)
    """
    words = [w for w in _type_words(name) if w not in _HAVING_WORDS]
    if not words or any(w in _FUNCTION_WORDS for w in words):
        return False
    for word in words:
        if irregular_form(word) or word.endswith("ed"):
            return False  # ``wrote``, ``owned``: a verb
        if word.endswith("s") and not word.endswith(("ss", "us", "is")):
            return False  # ``owns``, ``mentors``: a verb (a plural is no property's name)
    last = words[-1]
    return last.endswith(_AGENT_ENDINGS) or last not in _BASE_VERBS


def read_cue(
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
    boss" walks from X as the source. "*whose* mentor is X" makes X the mentor, as
    "who is X the mentor of?" does.

    A type named by a noun for its target (:func:`names_a_noun`: ``boss``, ``parent``)
    reads the other way: "X's boss" and "the parent of X" walk from X as the source, the
    nouns for its source ("X's *children*" of ``parent``) from X as the target, and the
    subject of its verb ("who does X boss?", "who mentors X?") is the fact's target.
    """
    names = vocab.relations.names
    cue = np.zeros(len(names))
    n = len(tokens)
    attached = _attached_noun(tokens, text, first, last)
    for r, name in enumerate(names):
        if name not in vocab.directed:
            continue
        stems = vocab.name_stems.get(name, ())
        sources = vocab.source_keys.get(name, frozenset())
        across = vocab.converse.get(name, frozenset())
        passive_name = _type_words(name)[-1:] == ["by"]
        noun_name = names_a_noun(name)
        # (not the noun the name is attached to, not by the name, distance, position)
        best: tuple[bool, bool, int, int] | None = None
        for i, token in enumerate(tokens):
            if first <= i <= last or token.text in _FUNCTION_WORDS:
                continue
            by_name = (
                light_stem(token.text) in stems
                or noun_key(token.text) in sources
                # a verb across (not its noun: "X's *manager*" is read as a noun is)
                or (light_stem(token.text) in across and not token.text.endswith(_AGENT_ENDINGS))
            )
            if not by_name and float(matches[token.text][r]) < 0.5:
                continue
            distance = first - i if i < first else i - last
            # the noun the name is attached to says the first step ("the crew who
            # report to X's *superior*": from X as the source, then back)
            here = (i != attached, not by_name, distance, i)
            if best is None or here < best:
                best = here
        if best is None:
            continue
        p, by_name = best[3], not best[1]
        word = tokens[p].text
        between = text[tokens[last].end : tokens[p].start]
        possessive = (
            p == last + 2 and tokens[last + 1].text == "s" and between.startswith(("'", "’"))
        ) or (p == last + 1 and between.strip() in ("'", "’"))
        of_topic = (
            p < first
            and p + 1 < n
            and tokens[p + 1].text == "of"
            and tokens[p].text not in _OF_PARTICLES
            and (p + 2 == first or (p + 3 == first and tokens[p + 2].text in _FUNCTION_WORDS))
        )
        # "whose *boss* is X?": the question word owns the noun, and X is what it names
        owned = p > 0 and tokens[p - 1].text == "whose" and p < first
        if possessive or of_topic or (owned and (noun_name or by_name)):
            if noun_name:
                # the name's noun names the target; the nouns the lexicon has for the
                # target of a verb's name ("children" of ``parent``) name its source
                other = (
                    noun_key(word)
                    in {noun_key(w) for w in target_nouns(_type_words(name), light_stem)}
                    and light_stem(word) not in stems
                )
                source_is_topic = not other
            elif not by_name:
                source_is_topic = True
            else:
                agent = noun_key(word) in sources or (
                    not word.endswith((*_OBJECT_NOUN_ENDINGS, *_PATIENT_ENDINGS))
                    and (light_stem(word) == stems[0] if stems else False)
                )
                source_is_topic = not agent
                if passive_name and noun_key(word) not in sources:  # a source noun is one
                    source_is_topic = not source_is_topic
            if owned and not (possessive or of_topic):
                source_is_topic = not source_is_topic
            cue[r] = 1.0 if source_is_topic else -1.0
            continue
        if not by_name:
            continue
        # "X was apprenticed to Y" is in the voice of ``apprenticed_to`` itself: a
        # participle the name is written with is no passive of it
        participle = word.endswith(("ed", "en")) and word not in _type_words(name)
        passive = (p + 1 < n and tokens[p + 1].text == "by") or (
            # "X is apprenticed *to* Y" says a state of X, no passive of a verb
            participle
            and p > 0
            and tokens[p - 1].text in _BE_WORDS
            and not (p + 1 < n and tokens[p + 1].text == "to")
        )
        subject_is_topic = (p > last) != passive
        if passive_name or noun_name:
            subject_is_topic = not subject_is_topic
        if (
            light_stem(word) in across
            and light_stem(word) not in stems
            and not word.endswith(_AGENT_ENDINGS)
        ):
            # "who is X *supervised* by?" of reports_to: the converse's subject is the
            # fact's target ("Y supervises X" is "X reports to Y")
            subject_is_topic = not subject_is_topic
        cue[r] = 1.0 if subject_is_topic else -1.0
    _subject_cue(tokens, first, last, attached, vocab, cue)
    return cue


def _subject_cue(
    tokens: Sequence[_Token],
    first: int,
    last: int,
    attached: int | None,
    vocab: _Vocabulary,
    cue: np.ndarray,
) -> None:
    """A cue for the types no word of the question names: the topic as the subject.

    "Who did X *learn the trade* from?" names no type by its own word, yet X, right after
    the small verb, is the one doing it: a type joining one kind to itself is walked from
    X as its source (``apprenticed_to``), or as its target when the type's name is in the
    passive (``mentored_by``: "which juniors does X *look after*?"); "who is X's
    *sensei*?" from X as the source, as a noun a description gives is read. Like a word's
    cue, it rules out the other way and both ways (the walk is not taken: "who did X
    learn from?" of an X who has apprentices and no master is answered with nothing), but
    it weighs less among the paths that follow it. Not in a passive question ("who is X
    coached *by*?"). Measured on the design worlds (issue 26): +8 / +12 right answers with
    names only / described and 1 / 4 more no-answer questions abstained on, 5 lost
    ("which specialists did X *bring up*?" of ``trained_under``).
    """
    if not (first > 0 and tokens[first - 1].text in _AUXILIARIES):
        return
    if any(t.text == "by" for t in tokens[last + 1 :]):
        return
    for r, name in enumerate(vocab.relations.names):
        if name in vocab.directed and cue[r] == 0.0:
            passive_name = attached is None and _type_words(name)[-1:] == ["by"]
            cue[r] = -_SUBJECT_CUE if passive_name else _SUBJECT_CUE


def noun_way(name: str, noun: str, cue: float = 0.0) -> StepDirection | None:
    """The way "X's *noun*" walks the type ``name`` from X, when the words tell it.

    ``cue``: the question's way for a type joining one kind to itself (:func:`read_cue`),
    which wins. A type named by a noun for its target (:func:`names_a_noun`: "X's
    *boss*", "X's *manager*") is walked from X as its source; a type named by the noun
    and a small word ("X's *captain*" of ``captain_of``, "X's *apprentice*" of
    ``apprenticed_to``) from X as its target. None when they do not say.

    >>> noun_way("manager", "boss"), noun_way("CaptainOf", "captain"), noun_way("owns", "owner")
    ('out', 'in', None)
    """
    if cue:
        return "out" if cue > 0 else "in"
    if names_a_noun(name):
        return "out"
    words = _type_words(name)
    if (
        len(words) > 1
        and words[-1] in ("of", "for", "to")
        and light_stem(noun) == light_stem(words[0])
    ):
        return "in"
    return None


def kind_takes(
    vocab: _Vocabulary,
    state: Mapping[str, float],
    name: str,
    way: StepDirection | None,
    floor: float,
) -> bool:
    """Whether entities of the kinds ``state`` take ``name`` the way ``way`` (any: None).

    A share of at least ``floor`` of their facts of that type go that way. "Kaya's
    *boss*" read as ``manager`` (a restaurant's manager) asks what no person has: the
    noun names another relation, and does not restrict the walk.
    """
    for step, share, _following in vocab.steps(state, name):
        if (way is None or step == way) and share >= floor:
            return True
    return False


def kin_tokens(tokens: list[_Token]) -> list[_Token]:
    """The tokens, a "grand" kin noun written as its kin noun once per step it takes.

    "grandchildren" is the children's children: two tokens "children" (one place in the
    text), so the type that "children" names is asked for twice, as "X's boss's boss" asks
    for ``reports_to`` twice; each "great" before it is one step more.

    >>> [t.text for t in kin_tokens([_Token(0, 5, "great"), _Token(6, 17, "grandfather")])]
    ['father', 'father', 'father']
    """
    out: list[_Token] = []
    for token in tokens:
        kin = kin_steps(token.text)
        if kin is None:
            out.append(token)
            continue
        word, steps = kin
        start = token.start
        while out and out[-1].text == "great":
            start = out.pop().start
            steps += 1
        out.extend(_Token(start, token.end, word) for _ in range(steps))
    return out
