"""The words of graph questions: stems, word lists, the results of a plan, and settings.

Part of :mod:`graphmem.retrieval.graphqa`: the light stemmer and the small word lists, the
results a plan is made of (:class:`PathStep`, :class:`PlannedPath`, :class:`Ambiguity`),
and the settings. The vocabulary read from the store is :mod:`.tenant`'s.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Container, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from graphmem.core.checks import check_depth
from graphmem.core.errors import InvalidInput
from graphmem.core.words import type_phrase
from graphmem.retrieval.graphqa.relwords import is_verb, verb_of_form

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
# The verbs of a request ("*show* me ...", "*list* the ..."): function words of a question,
# but a type's name says no request: ``show`` (a fashion show) or ``listed_in`` is its word.
_REQUEST_WORDS = _words("name tell list give show find")
# Titles written before a name, capitalised ("*Captain* Vos", "*Old* Silas"): no unknown name.
_TITLES = _words(
    """mr mrs ms miss dr doctor sir ser dame lady lord master madame madam monsieur mister
    captain capt colonel general major sergeant lieutenant admiral commander commodore
    professor prof father brother sister mother saint st king queen prince princess duke
    duchess earl count countess baron baroness old young little big uncle aunt auntie
    reverend rev judge officer detective inspector chief agent emperor empress sheriff"""
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
# Words of a question that ask nothing of a relation ("name the ...", "what kind of", the
# adverbs of "who is X *really* working for?", the person of "who trained the *man* X
# was apprenticed to?").
_IDLE_WORDS = _words(
    """name names kind kinds type types sort exactly currently now still also thing things
    stuff see seen find found around really actually truly ever usually often always
    sometimes nowadays recently lately presently originally mainly mostly
    man men woman women guy guys"""
)


def _asks_no_relation(word: str) -> bool:
    """A question's word no relation is read from.

    A function, question, shared or idle word, or a number: the judging of a path and the
    reading from the kinds around a word leave the same words out.

    >>> [_asks_no_relation(w) for w in ("the", "which", "name", "1999", "mentor")]
    [True, True, True, True, False]
    """
    return (
        word in _FUNCTION_WORDS
        or word in _QUESTION_WORDS
        or word in _SHARED_WORDS
        or word in _IDLE_WORDS
        or word.isdigit()
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
# Endings of nouns for one who does something or stands somewhere to another: "owner",
# "mentor", "parent", "servant", "employee", "heiress", "guardian", "novelist".
_AGENT_ENDINGS = ("er", "or", "ist", "ian", "ant", "ent", "ee", "ess")
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
# What "how" with an adjective asks for ("*how old* is X?": an age), and the nouns of a
# time or a measure the word asked with may be ("*what year* ...", "*what colour* ...").
_HOW_MEASURE: Mapping[str, tuple[str, ...]] = {
    "old": ("age",),
    "long": ("length", "duration"),
    "tall": ("height",),
    "high": ("height", "altitude"),
    "deep": ("depth",),
    "far": ("distance",),
    "big": ("size",),
    "large": ("size",),
    "heavy": ("weight",),
    "wide": ("width",),
    "often": ("frequency",),
    "fast": ("speed",),
}
_TIME_NOUNS = _words("year years date dates time day days month months century decade hour")
_MEASURE_NOUNS = _words(
    """temperature colour color price cost age height length weight size depth distance
    speed width altitude duration"""
)
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


# Irregular forms a suffix cannot reach and WordNet's list of them
# (:func:`~.relwords.verb_of_form`: "wrote", "kept", "sworn") does not give as these words:
# forms that are verbs of their own ("saw", "felt"), regular ones a suffix would cut too
# short ("sued"), plurals, and "born", which WordNet reads as a form of "bear" (to carry),
# as it is not in a question ("where was X born?").
_IRREGULAR = {
    "felt": "feel",
    "saw": "see",
    "sued": "sue",
    "used": "use",
    "born": "born",
    "children": "child",
    "people": "person",
    "women": "woman",
    "wives": "wife",
    "lives": "life",
    "teeth": "tooth",
}


def irregular_form(word: str) -> bool:
    """Whether ``word`` is a form no suffix reaches: a past form or an irregular plural.

    >>> irregular_form("wrote"), irregular_form("sworn"), irregular_form("children")
    (True, True, True)
    >>> irregular_form("owned"), irregular_form("boss")
    (False, False)
    """
    return word in _IRREGULAR or verb_of_form(word) is not None


def light_stem(word: str) -> str:
    """A light English stem, enough to tell that two forms of a word are one word.

    Two rounds of suffix stripping (never below three letters), then a doubled final
    consonant is single. Not a linguist's stemmer: only equal stems are compared.

    >>> [light_stem(w) for w in ("directed", "director", "directs", "starred", "stars")]
    ['direct', 'direct', 'direct', 'star', 'star']
    >>> [light_stem(w) for w in ("written", "writer", "bordering", "borders", "years")]
    ['writ', 'writ', 'bord', 'bord', 'year']

    A plural's "s" is only ever the last suffix: "sponsor" is "spons" + "or", as
    "sponsored" is, not "spon" + "s" + "or".

    >>> [light_stem(w) for w in ("sponsor", "sponsors", "sponsored", "supervisor", "supervises")]
    ['spons', 'spons', 'spons', 'supervis', 'supervis']

    A verb ending in "eed" keeps it ("succeed" as "succeeded"), a past form in "eed" not.

    >>> [light_stem(w) for w in ("succeed", "succeeded", "succeeds", "agree", "agreed")]
    ['succeed', 'succeed', 'succeed', 'agr', 'agr']
    """
    stem = word.lower()
    stem = _IRREGULAR.get(stem) or verb_of_form(stem) or stem
    for _round in range(2):
        if stem.endswith("eed") and is_verb(stem):
            break  # "succeed" is no "succe" + "ed": as "succeeded", "succeeds" are
        for suffix, replacement in _SUFFIXES:
            if not stem.endswith(suffix) or (suffix == "s" and stem.endswith("ss")):
                continue
            if _round and suffix in ("s", "es"):
                break  # a plural's "s" is outermost: "sponsor" is not "spon" + "s" + "or"
            shorter = stem[: len(stem) - len(suffix)] + replacement
            if len(shorter) < 3:
                continue  # a shorter suffix may leave enough: "sues" -> "sue", not "su"
            stem = shorter
            break
    if len(stem) >= 4 and stem[-1] == stem[-2] and stem[-1] not in "aeioulsz":
        stem = stem[:-1]
    return stem


def question_word_at(words: Sequence[str], skip: Container[int] = ()) -> int | None:
    """Where the question's first question word ("who", "which", "how", ...) is, if any.

    The one way the planner (what is asked for), the kind checks ("who" asks for a
    person) and the measure checks ("when", "how many", "how old") find it. ``skip``: the
    positions of words inside names (a film called "Who Framed Roger Rabbit" asks nothing).

    >>> question_word_at(["in", "which", "town", "is", "who", "knows", "inn"], skip=(4, 5, 6))
    1
    """
    return next((i for i, w in enumerate(words) if w in _QUESTION_WORDS and i not in skip), None)


def _type_words(name: str) -> list[str]:
    """The words of a type name: ``written_by`` -> written, by; ``memberOf`` -> member, of."""
    return _WORD.findall(type_phrase(name))


# Words a related word may not be: they say nothing of which relation is asked.
_NOT_RELATED = (
    _FUNCTION_WORDS | _QUESTION_WORDS | _IDLE_WORDS | _GENERIC_WORDS | _BE_WORDS | _LIGHT_VERBS
)
# The particles of English phrasal verbs ("give *out*", "look *after*", "rule *over*"): said
# right after a word a step explains, they are part of what that word says (.judging).
_ADVERB_PARTICLES = _words("up out off down over away back around about after")
# The light verbs and particles of English phrases ("*take* care", "farm *out*"): the
# phrase's other word is what names the relation; alone, they name none ("take" is a
# sense of photograph, steal, study and a dozen more).
_PHRASE_LIGHT = _words("take make give get put set go come let") | _ADVERB_PARTICLES
# The same with every form of their verbs: a path that leaves them unexplained may still
# say what the question asks ("who has X *got* a feud *going* with?" of ``feuds_with``;
# "which team did Vandal *come over* from?"): the question's other words, or the kind it
# asks for, decide; alone ("who *took out* Loan #7?") they still count (.judging).
_PHRASE_LIGHT_FORMS = _PHRASE_LIGHT | _words(
    """takes taking took taken makes making made gives giving gave given gets getting got
    gotten puts putting sets setting goes going went gone comes coming came lets letting"""
)


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
        described_hop: Cost of each step when the types are read with the descriptions a
            user gave them: a description's words explain more of a question by chance
            than a type's name does, and a described entity type may fit what "where"
            asks for only in part, so a longer path collects more score ("where does
            Tom train?" walked on from his dojo, "a training hall", to its city); the
            walk back that "same" / "also" ask for costs ``hop``. Chosen on the design
            worlds (issue 26).
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
            (their answers follow, with lower scores); while only answers of another
            kind than the question word asks for were reached, from that first walk.
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
        through: Weight of a path's passing a kind of entity the question names on the
            way by a word of its type, of its name or its description ("the
            *federations* of the players X coaches"), other than the topic's and what it
            asks for.
        explained_floor: A question word is explained by a type (or by an entity type)
            when it matches it at least this much.
        min_coverage: Abstain when the walked path explains less than this share of the
            question's content words (the words outside the names, past small words).
        min_confidence: Abstain when the confidence is below this.
        unfit: The confidence of an answer that is not of the kind the question word
            asks for ("who" of an aircraft: no walk reached a person nor a group) is
            multiplied by this.
    """

    max_hops: int = 3
    explained: float = 1.0
    unexplained: float = 1.0
    hop: float = 0.2
    described_hop: float = 0.4
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
    through: float = 0.3
    explained_floor: float = 0.3
    min_coverage: float = 0.5
    min_confidence: float = 0.1
    unfit: float = 0.3

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
            "described_hop",
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
            "unfit",
        ):
            value = getattr(self, name)
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not math.isfinite(value)
                or value < 0
            ):
                raise InvalidInput(f"{name} must be a finite number >= 0, got {value!r}")
        if self.temperature == 0:
            raise InvalidInput("temperature must be positive")
        if self.unfit > 1:  # it scales a confidence
            raise InvalidInput(f"unfit must be at most 1, got {self.unfit!r}")
