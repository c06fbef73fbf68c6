"""Conversation recall: ranking turns by what a conversation has and a passage does not.

A question about past conversations ("what did Kate say about her hobbies?", "where was
Elise on 31 Dec 2023?") is poorly served by fusing a keyword ranking with a dense one by
reciprocal rank: on chat text the dense ranker (all-MiniLM-L6-v2) is weak, and rank
fusion lets it pull the keyword ranking down. Here each candidate turn is described by a
few *signals*, and a linear model, fitted on labelled conversations, weighs them:

========================  ===================================================================
signal                    what it measures (0..1 unless said otherwise)
========================  ===================================================================
``text``                  full-text (BM25) score over the query's best
``vector``                cosine similarity, scaled over the vector hits (best 1, worst 0)
``text_reciprocal``       61 / (60 + full-text rank); 0 outside the hits
``vector_reciprocal``     61 / (60 + vector rank); 0 outside the hits
``context_text``          best ``text`` of the turns next to it (its parent and children
                          along PARENT): an answer right after the matching question
``context_vector``        best ``vector`` of the turns next to it
``session_text``          best ``text`` in its session: the session talks about it
``speaker_named``         the question names the turn's speaker (first or last name, spelling
                          variants: "Muhammad" for "Muhhamed", "Fahim" for "Fahim Khan"; or
                          a name only the other of two speakers greets them by, "Hey Kate!"
                          for Emi: :func:`addressed_names`)
``other_named``           the question names a speaker, and not this one
``names_named``           the turn writes a name the question gives a speaker ("Hey Kate!"):
                          a greeting matches the name and nothing else
``words``                 min(words, 10) / 10: a message of a few words rarely holds a fact
``short``                 1 for a message of three words or fewer
``asks``                  1 for a message that is one question and nothing else
``when``                  the turn was said inside a time the question names (1), or a day
                          off it (0.5): "on 31 Dec 2023", "last week", "in January"
``first_person``          the share of the message's personal pronouns that are the writer's
                          (I, me, my) against the listener's (you, your); 0.5 with neither:
                          what a person is, likes or did, they say of themselves
``coverage``              the share of the question's content words the message writes,
                          each weighted by its rarity among the candidates and compared by
                          its first four letters ("hobbies" ~ "hobby"); names of the
                          speakers left out: a message holding the whole question, not
                          one word of it many times
``own_vector``            when the question names a speaker: the cosine of the turn to the
                          question in the speaker's own words (:func:`own_wording`: "What
                          are Kate's hobbies?" -> "What are my hobbies"), scaled over the
                          hits of that second vector search (0 outside them)
``context_own_vector``    the best ``own_vector`` of the turns next to it
========================  ===================================================================

Candidates are the full-text and vector hits (``turn_candidates`` each, one store call)
and the turns next to them (one :meth:`GraphStore.turn_window` call, which also brings
the speakers and times): a turn that answers the matching one can rank without matching
anything itself. No per-result store calls. A question that names a speaker costs one
more embedding and one more vector search (``own_search``); the candidates stay those
of the first search.

The model: ``score = sum(weight[s] * signal[s])``, text-side signals scaled by
``fulltext_weight`` and vector-side ones by ``vector_weight``. The shipped weights
(:data:`TURN_WEIGHTS`) were fitted by :func:`fit_turn_weights` (listwise softmax,
deterministic) on half of a public benchmark of real chats (REALTALK, the odd-numbered
conversations; ``graphmem eval --dataset convmem --fit``) and checked on the other half;
docs/retrieval.md has the figures. Pass ``turn_weights={...}`` to ``retrieve`` to use
your own.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from functools import lru_cache
from typing import TYPE_CHECKING, Any

import numpy as np
from numpy.typing import NDArray

from graphmem.core.models import Turn
from graphmem.core.store import GraphStore, SearchHit, SearchPair
from graphmem.core.words import STOPWORDS
from graphmem.retrieval.timeexpr import TimeQuery, read_time
from graphmem.retrieval.turn_signals import TEXT_SIDE as _TEXT_SIDE
from graphmem.retrieval.turn_signals import TURN_SIGNALS, TURN_WEIGHTS
from graphmem.retrieval.turn_signals import VECTOR_SIDE as _VECTOR_SIDE

if TYPE_CHECKING:
    from graphmem.retrieval.fusion import FusionSettings

__all__ = [
    "TURN_SIGNALS",
    "TURN_WEIGHTS",
    "TurnPool",
    "addressed_names",
    "coverage",
    "first_person",
    "fit_turn_weights",
    "named_speakers",
    "own_wording",
    "rank_pool",
    "turn_pool",
]

_WORD = re.compile(r"[^\W\d_]+")
_RANK_K = 60


@dataclass
class TurnPool:
    """The candidate turns of one question and their signals.

    Attributes:
        ids: Candidate turn ids (full-text and vector hits, then their neighbours).
        matrix: ``(len(ids), len(TURN_SIGNALS))`` signal values.
        turns: Every turn fetched (candidates and neighbours), by id.
        named: The speakers the question names.
    """

    ids: list[str] = field(default_factory=list)
    matrix: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, len(TURN_SIGNALS))))
    turns: dict[str, Turn] = field(default_factory=dict)
    named: frozenset[str] = frozenset()

    def signals(self, turn_id: str) -> dict[str, float]:
        """The signals of one candidate, by name."""
        row = self.matrix[self.ids.index(turn_id)]
        return {name: round(float(v), 4) for name, v in zip(TURN_SIGNALS, row, strict=True)}


def _skeleton(word: str) -> str:
    """The first letter and the consonants after it, doubled letters once: muhammad -> mhmd."""
    rest = re.sub(r"[aeiouy]", "", word[1:])
    return word[0] + re.sub(r"(.)\1+", r"\1", rest)


def _edits_within_one(a: str, b: str) -> bool:
    if abs(len(a) - len(b)) > 1:
        return False
    if len(a) == len(b):
        return sum(x != y for x, y in zip(a, b, strict=True)) <= 1
    short, long = (a, b) if len(a) < len(b) else (b, a)
    return any(long[:i] + long[i + 1 :] == short for i in range(len(long)))


def _same_name(word: str, part: str) -> bool:
    """Whether a question word names a part of a speaker's name (both lower-case)."""
    if word == part:
        return True
    if word[0] != part[0] or len(word) < 4 or len(part) < 4:
        return False
    if _edits_within_one(word, part):  # Akim / Akib
        return True
    return len(word) >= 5 and len(part) >= 5 and _skeleton(word) == _skeleton(part)


def _name_parts(speaker: str) -> list[str]:
    return [p for p in _WORD.findall(speaker.lower()) if len(p) >= 3 and p not in STOPWORDS]


def named_speakers(question: str, speakers: Sequence[str]) -> tuple[frozenset[str], set[str]]:
    """The speakers a question names, and the question's words that name them.

    A speaker is named by any part of their name of three letters or more: exactly (any
    case), or, for a capitalised word, with one letter changed, added or dropped, or
    spelt with the same consonants ("Mohammed" for "Muhhamed").

    >>> sorted(named_speakers("What did Muhammad and Fahim do?", ["Muhhamed", "Fahim Khan"])[0])
    ['Fahim Khan', 'Muhhamed']
    >>> named_speakers("Will it rain?", ["Will"])[0]
    frozenset()
    """
    named: set[str] = set()
    words: set[str] = set()
    tokens = [(w, w.lower()) for w in _WORD.findall(question)]
    for speaker in speakers:
        for part in _name_parts(speaker):
            for raw, low in tokens:
                if low in STOPWORDS:
                    continue
                if low == part or (raw[0].isupper() and _same_name(low, part)):
                    named.add(speaker)
                    words.update((low, part))
    return frozenset(named), words


_GREETING = r"(?:hey|hi|hello|thanks|thank you|bye|morning|night)"


def addressed_names(
    question: str, turns: Sequence[Turn], naming: Collection[str] | None = None
) -> dict[str, str]:
    """The question's names that no speaker has, but one of two speakers is greeted by.

    In a chat between two people a name one of them greets with ("Hey Kate!", "Thank you
    Kate") and the other never does is the other's, whatever name the chat stores for
    them (Emi, who introduces herself as Kate). A capitalised word of the question that
    names no speaker counts when two or more of ``turns`` greet with it, all written by
    the same speaker; with more or fewer than two speakers, nothing is read. ``naming``:
    the words the question names the speakers by, when :func:`named_speakers` read them.

    Returns:
        Each such word (lower case) and the speaker it names.

    >>> from datetime import UTC, datetime
    >>> said = [("elise", "Hey Kate!"), ("Emi", "Hi Emily"), ("elise", "Thanks Kate, see you")]
    >>> turns = [Turn(session_id="s", role="user", speaker=s, content=c) for s, c in said]
    >>> addressed_names("What are Kate's hobbies?", turns)
    {'kate': 'Emi'}
    """
    speakers = sorted({t.speaker for t in turns if t.speaker})
    if len(speakers) != 2:
        return {}
    if naming is None:
        naming = named_speakers(question, speakers)[1]
    out: dict[str, str] = {}
    for word in dict.fromkeys(_WORD.findall(question)):
        low = word.lower()
        if not word[0].isupper() or len(word) < 3 or low in STOPWORDS or low in naming:
            continue
        holding = [t for t in turns if t.speaker and word in t.content]  # (cheap first)
        if len(holding) < 2:
            continue
        greeted = re.compile(rf"\b(?i:{_GREETING}),?\s+{re.escape(word)}\b")
        greeters = [t.speaker for t in holding if greeted.search(t.content)]
        if len(greeters) >= 2 and len(set(greeters)) == 1:
            out[low] = next(s for s in speakers if s != greeters[0])
    return out


_SENTENCE_END = re.compile(r"[.!?](?=\s+\S)")


def _only_asks(text: str) -> bool:
    """Whether a message is one question and nothing else ("What about you?")."""
    stripped = text.strip()
    return stripped.endswith("?") and not _SENTENCE_END.search(stripped)


def _scaled_text(hits: Sequence[Any]) -> dict[str, float]:
    top = max((h.score for h in hits), default=0.0)
    return {h.id: h.score / top for h in hits} if top > 0 else {}


def _scaled_vector(hits: Sequence[Any]) -> dict[str, float]:
    if not hits:
        return {}
    scores = [h.score for h in hits]
    high, low = max(scores), min(scores)
    if high <= low:
        return {h.id: 1.0 for h in hits}
    return {h.id: (h.score - low) / (high - low) for h in hits}


def _ranks(hits: Sequence[Any]) -> dict[str, float]:
    return {h.id: (_RANK_K + 1) / (_RANK_K + rank) for rank, h in enumerate(hits, 1)}


def turn_pool(
    store: GraphStore,
    tenant: str,
    question: str | None,
    pair: SearchPair,
    *,
    depth: int = 1,
    now: datetime | None = None,
    window: Sequence[Turn] | None = None,
    own_search: Callable[[str], Sequence[SearchHit]] | None = None,
) -> TurnPool:
    """The candidates of a question from its turn hits, with their signals.

    One store call (:meth:`GraphStore.turn_window`) fetches the hits and the turns within
    ``depth`` PARENT edges of them, unless ``window`` holds them already (as
    :meth:`GraphStore.search_context` gives them with the hits).

    Args:
        store: The store.
        tenant: Whose memory.
        question: The question text (speakers, time expressions); None for vector only.
        pair: The turn hits of :meth:`GraphStore.hybrid_search`.
        depth: How far along PARENT the neighbours are taken (0: the hits only).
        now: The time relative expressions ("last week") count from; default: now.
        window: The window of the hits, read already (None: read it here).
        own_search: Searches the turns by the vector of a text (None: no such search):
            when the question names a speaker, it is asked for :func:`own_wording`
            (the ``own_vector`` signals); otherwise never called.
    """
    text, vector = _scaled_text(pair.text), _scaled_vector(pair.vector)
    text_rank, vector_rank = _ranks(pair.text), _ranks(pair.vector)
    hits = list(dict.fromkeys([*(h.id for h in pair.text), *(h.id for h in pair.vector)]))
    if not hits:
        return TurnPool()
    fetched = list(window) if window is not None else store.turn_window(tenant, hits, depth=depth)
    turns = {t.id: t for t in fetched}
    speakers = sorted({t.speaker for t in fetched if t.speaker})
    named, name_words = named_speakers(question, speakers) if question else (frozenset(), set())
    addressed = addressed_names(question, fetched, name_words) if question else {}
    if addressed:
        named, name_words = named | frozenset(addressed.values()), name_words | set(addressed)
    own = (
        _scaled_vector(own_search(own_wording(question, name_words)))
        if own_search is not None and question and name_words
        else {}
    )
    hit_set = set(hits)
    ids = [i for i in hits if i in turns] + [t.id for t in fetched if t.id not in hit_set]
    pooled = [turns[i] for i in ids]
    row_of = {node: row for row, node in enumerate(ids)}

    def column(values: Mapping[str, float]) -> NDArray[np.float64]:
        return np.array([values.get(node, 0.0) for node in ids], dtype=np.float64)

    text_col, vector_col, own_col = column(text), column(vector), column(own)
    # context: the best score of the turns next to each one (its parent, its children)
    parents = np.array([row_of.get(t.parent_id or "", -1) for t in pooled], dtype=np.int64)
    child = np.nonzero(parents >= 0)[0]
    parent = parents[child]
    context_text, context_vector, context_own = (np.zeros(len(ids)) for _ in range(3))
    for out, col in (
        (context_text, text_col),
        (context_vector, vector_col),
        (context_own, own_col),
    ):
        np.maximum.at(out, child, col[parent])
        np.maximum.at(out, parent, col[child])
    session_best: dict[str, float] = {}
    for node, value in text.items():
        if node in turns:
            session = turns[node].session_id
            session_best[session] = max(session_best.get(session, 0.0), value)
    names = (
        re.compile(r"\b(?:" + "|".join(map(re.escape, sorted(name_words))) + r")\b", re.I)
        if name_words
        else None
    )
    when: TimeQuery = read_time(question, now) if question else TimeQuery()
    facts = [_facts(t.content) for t in pooled]
    asked = _stems(_WORD.findall(question or "")) - {w[:_STEM] for w in name_words}
    words = np.array([f[0] for f in facts], dtype=np.float64)
    matrix = np.column_stack(
        (
            text_col,
            vector_col,
            column(text_rank),
            column(vector_rank),
            context_text,
            context_vector,
            [session_best.get(t.session_id, 0.0) for t in pooled],
            [1.0 if named and t.speaker in named else 0.0 for t in pooled],
            [1.0 if named and t.speaker not in named else 0.0 for t in pooled],
            [1.0 if names is not None and names.search(t.content) else 0.0 for t in pooled],
            np.minimum(words, 10.0) / 10.0,
            (words <= 3).astype(np.float64),
            [1.0 if f[1] else 0.0 for f in facts],
            [when.match(t.created_at) for t in pooled] if when else np.zeros(len(ids)),
            [f[2] for f in facts],
            coverage(asked, [f[3] for f in facts]),
            own_col,
            context_own,
        )
    )
    return TurnPool(ids, matrix, turns, named)


_STEM = 4


def own_wording(question: str, name_words: Collection[str]) -> str:
    """The question in its speaker's own words: each word naming a speaker written "I".

    A turn tells what its writer likes or did in their own words ("I love skiing"), never
    by their name; a question asks it by the name ("What are Kate's hobbies?"), and the
    name pulls the question's embedding away from every turn that does not write it. A
    name followed by "'s" becomes "my". ``name_words``: the lower-case words that name the
    speakers (as :func:`named_speakers` gives them). Punctuation and digits are left out.

    >>> own_wording("What are Kate's hobbies?", {"kate"})
    'What are my hobbies'
    >>> own_wording("Which cities has Elise been to?", {"elise"})
    'Which cities has I been to'
    """
    words = _WORD.findall(question)
    out: list[str] = []
    for i, word in enumerate(words):
        if word.lower() in name_words:
            out.append("my" if words[i + 1 : i + 2] == ["s"] else "I")
        elif not (word == "s" and i and words[i - 1].lower() in name_words):
            out.append(word)
    return " ".join(out)


def _stems(words: Sequence[str]) -> frozenset[str]:
    """Content words (three letters or more, stopwords out), lower case, by their first four."""
    return frozenset(w[:_STEM] for w in {w.lower() for w in words if len(w) > 2} - STOPWORDS)


def coverage(asked: frozenset[str], messages: Sequence[frozenset[str]]) -> NDArray[np.float64]:
    """Each message's share of the asked words, weighted by their rarity among the messages.

    A word's weight is ``ln(1 + n / (1 + df))`` over the ``n`` messages, ``df`` of which
    hold it; a word no message holds still counts in the whole. Words are compared as
    :func:`_stems` gives them (the first four letters of each content word).

    >>> asked = frozenset({"hobb", "kate"})
    >>> coverage(asked, [frozenset({"hobb"}), frozenset({"kate", "hobb"}), frozenset()]).round(2)
    array([0.43, 1.  , 0.  ])
    """
    if not asked or not messages:
        return np.zeros(len(messages))
    held = Counter(w for words in messages for w in words & asked)
    n = len(messages)
    weight = {w: math.log(1 + n / (1 + held[w])) for w in asked}
    whole = sum(weight.values())
    return np.array([sum(weight[w] for w in words & asked) / whole for words in messages])


def _cases(words: str) -> frozenset[str]:
    """Each word as chat writes it: lower case, capitalised, upper case."""
    return frozenset(v for w in words.split() for v in (w, w.capitalize(), w.upper()))


_FIRST_PERSON = _cases("i me my mine myself im ive")
_SECOND_PERSON = _cases("you your yours yourself yourselves u ur")


def first_person(words: Sequence[str]) -> float:
    """The share of the personal pronouns among ``words`` that are the writer's.

    "I", "me", "my" (and "im", "ive" as chat writes them) against "you", "your" ("u",
    "ur"), in lower case, capitalised or upper case; 0.5 when there are neither. A
    message telling what its writer is, likes or did says "I"; one asking the listener
    about themselves says "you".

    >>> first_person("I went skiing with my brother".split())
    1.0
    >>> first_person("did you like it".split()), first_person("nice".split())
    (0.0, 0.5)
    """
    mine = sum(map(_FIRST_PERSON.__contains__, words))
    yours = sum(map(_SECOND_PERSON.__contains__, words))
    return mine / (mine + yours) if mine + yours else 0.5


@lru_cache(maxsize=50_000)
def _facts(content: str) -> tuple[int, bool, float, frozenset[str]]:
    """What a message says of itself: word count, only asks, first person, coverage words."""
    words = _WORD.findall(content)
    return len(words), _only_asks(content), first_person(words), _stems(words)


def _weight_vector(
    weights: Mapping[str, float] | None, settings: FusionSettings | None
) -> NDArray[np.float64]:
    chosen = TURN_WEIGHTS if weights is None else weights
    out = np.array([float(chosen.get(name, 0.0)) for name in TURN_SIGNALS])
    if settings is not None:
        for i, name in enumerate(TURN_SIGNALS):
            if name in _TEXT_SIDE:
                out[i] *= settings.fulltext_weight
            elif name in _VECTOR_SIDE:
                out[i] *= settings.vector_weight
    return out


def rank_pool(
    pool: TurnPool,
    weights: Mapping[str, float] | None = None,
    settings: FusionSettings | None = None,
) -> dict[str, float]:
    """Each candidate's score under ``weights`` (default :data:`TURN_WEIGHTS`).

    Scaled to 0..1 over the pool (best 1, worst 0), so it can stand where a fused score
    stood.
    """
    if not pool.ids:
        return {}
    raw = pool.matrix @ _weight_vector(weights, settings)
    high, low = float(raw.max()), float(raw.min())
    span = high - low
    return {
        node: (float(value) - low) / span if span > 0 else 1.0
        for node, value in zip(pool.ids, raw, strict=True)
    }


def fit_turn_weights(
    examples: Sequence[tuple[NDArray[np.float64], NDArray[np.float64]]],
    *,
    l2: float = 0.001,
    iterations: int = 300,
    learning_rate: float = 0.5,
) -> dict[str, float]:
    """Fit signal weights on labelled questions: a listwise softmax model (ListNet, top 1).

    Each example is a pool's signal matrix and a 0/1 vector marking the evidence turns
    (examples with none are skipped). The loss is the cross-entropy between the softmax
    of the scores over the pool and the evidence spread evenly, plus ``l2`` times half
    the squared weights; plain full-batch gradient descent from zero, so the fit is
    deterministic.

    >>> x = np.array([[1.0, 0.0], [0.0, 1.0], [0.2, 0.1]])
    >>> w = fit_turn_weights([(x[:, :2], np.array([1.0, 0.0, 0.0]))] * 3)
    >>> 0 < w["text"] and w["vector"] < 0
    True
    """
    usable = [(m, y / y.sum()) for m, y in examples if len(y) and y.sum() > 0]
    columns = usable[0][0].shape[1] if usable else len(TURN_SIGNALS)
    weights = np.zeros(columns)
    if not usable:
        return {name: 0.0 for name in TURN_SIGNALS[:columns]}
    for _step in range(iterations):
        gradient = np.zeros(columns)
        for matrix, target in usable:
            scores = matrix @ weights
            scores -= scores.max()
            p = np.exp(scores)
            p /= p.sum()
            gradient += matrix.T @ (p - target)
        gradient = gradient / len(usable) + l2 * weights
        weights -= learning_rate * gradient
    return {
        name: round(float(w), 2) for name, w in zip(TURN_SIGNALS[:columns], weights, strict=True)
    }
