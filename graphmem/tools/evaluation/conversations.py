"""``graphmem eval --dataset convmem``: recall over real conversations, beside BM25.

The data is REALTALK (``../shared/eval/convmem``, read in place, never copied; its
SOURCE.txt says how to score): ten 21-day chats between two real people, 18-25 sessions
each, 8,944 turns, 705 questions with evidence turns.

Protocol, as SOURCE.txt asks and as a user would do it:

- one memory per chat; each session a conversation (``Memory.conversation``), every turn
  appended with its speaker, its ``dia_id`` as ``turn_id`` and the time it was sent as
  ``created_at``. Nothing else: no entities, no question categories, no answers;
- each question is asked through ``Memory.retrieve(question, k=10)`` with no preset (what
  a user gets by default), and the retrieved turns are scored by ``dia_id``:
  recall@k = |top-k ∩ evidence| / |evidence|, mean over the questions with evidence,
  overall and per category (1 factual / multi-hop, 2 temporal, 3 inference);
- beside it, in the same run: plain BM25 as SOURCE.txt defines it (Okapi k1=1.5, b=0.75,
  lower-case word tokens minus English stopwords, a turn's text only), BM25 with the
  adjacent turns of each hit (each hit in rank order followed by the turns before and
  after it in its session, the first k distinct), graphmem's full-text search alone
  (tantivy BM25 of the turns), graphmem's vector search alone, and graphmem's previous
  default (the same ``hybrid`` preset with turns fused by reciprocal rank,
  ``turn_ranker="rrf"``).
- The chats are split in two halves: the odd-numbered chats are the tuning half (the turn
  model's weights were fitted on them: ``--fit`` fits again and prints the weights), the
  even-numbered ones are held out. Every figure is reported for both halves and overall.
"""

from __future__ import annotations

import json
import math
import re
import statistics
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from graphmem.core.errors import InvalidInput
from graphmem.core.progress import progress_bar
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.retrieval import Embedder

__all__ = [
    "CONVMEM_HALVES",
    "Chat",
    "OkapiBM25",
    "eval_convmem",
    "load_convmem",
]

CONVMEM_HALVES = ("tuned (odd chats)", "held out (even chats)")
"""The two halves of REALTALK: the weights were fitted on the first only."""

_K = (5, 10)
_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been
    before being below between both but by can did do does doing down during each few for
    from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just me more most my myself no nor not now of off on once only or
    other our ours ourselves out over own same she should so some such than that the their
    theirs them themselves then there these they this those through to too under until up
    very was we were what when where which while who whom why will with would you your
    yours yourself yourselves""".split()  # noqa: SIM905 - the list as SOURCE.txt's scorer has it
)
_TOKEN = re.compile(r"\w+")


@dataclass
class Chat:
    """One REALTALK conversation: its turns in order and its questions.

    Attributes:
        id: The file name without ``.json`` (``Chat_1_Emi_Elise``).
        number: The chat's number (odd: tuning half, even: held out).
        turns: ``(dia_id, session number, speaker, text, sent at)`` in order.
        questions: ``(question, category, evidence dia_ids)`` with evidence.
    """

    id: str
    number: int
    turns: list[tuple[str, int, str, str, datetime]] = field(default_factory=list)
    questions: list[tuple[str, int, frozenset[str]]] = field(default_factory=list)

    @property
    def half(self) -> str:
        """Which half of the benchmark the chat belongs to."""
        return CONVMEM_HALVES[0] if self.number % 2 else CONVMEM_HALVES[1]


def load_convmem(data: Path) -> list[Chat]:
    """The ten chats of ``data/convmem`` with their questions (those with evidence turns)."""
    folder = data / "convmem"
    if not (folder / "realtalk_questions.jsonl").is_file():
        raise InvalidInput(f"no convmem data at {folder}; pass --data DIR", path=str(folder))
    chats: dict[str, Chat] = {}
    for path in sorted((folder / "realtalk").glob("Chat_*.json")):
        raw = json.loads(path.read_text(encoding="utf-8"))
        chat = Chat(id=path.stem, number=int(path.stem.split("_")[1]))
        session = 1
        while f"session_{session}" in raw:
            for turn in raw[f"session_{session}"]:
                sent = datetime.strptime(turn["date_time"], "%d.%m.%Y, %H:%M:%S")
                text = turn.get("clean_text") or ""
                chat.turns.append(
                    (turn["dia_id"], session, turn["speaker"], text, sent.replace(tzinfo=UTC))
                )
            session += 1
        chats[chat.id] = chat
    with (folder / "realtalk_questions.jsonl").open(encoding="utf-8") as handle:
        for line in handle:
            row = json.loads(line)
            if row["evidence"] and row["conv_id"] in chats:
                chats[row["conv_id"]].questions.append(
                    (row["question"], int(row["category"]), frozenset(row["evidence"]))
                )
    return sorted(chats.values(), key=lambda c: c.number)


def _tokens(text: str) -> list[str]:
    return [w for w in _TOKEN.findall(text.lower()) if w not in _STOPWORDS]


class OkapiBM25:
    """Okapi BM25 over a list of texts, exactly as REALTALK's SOURCE.txt scores its floor.

    k1 = 1.5, b = 0.75, idf = ln(1 + (N - n + 0.5) / (n + 0.5)); lower-case word tokens,
    English stopwords left out.

    >>> bm25 = OkapiBM25(["the cat sat", "a dog barked", "cats and dogs"])
    >>> bm25.rank("dog")
    [1]
    """

    def __init__(self, texts: Sequence[str], k1: float = 1.5, b: float = 0.75) -> None:
        self._k1, self._b = k1, b
        self._postings: dict[str, list[tuple[int, int]]] = defaultdict(list)
        self._lengths: list[int] = []
        for row, text in enumerate(texts):
            counts = Counter(_tokens(text))
            self._lengths.append(sum(counts.values()))
            for word, count in counts.items():
                self._postings[word].append((row, count))
        n = len(texts)
        self._average = sum(self._lengths) / max(1, n)
        self._idf = {
            w: math.log(1 + (n - len(p) + 0.5) / (len(p) + 0.5)) for w, p in self._postings.items()
        }

    def rank(self, query: str) -> list[int]:
        """Rows matching a query word, best first (ties: earlier row first)."""
        scores: dict[int, float] = defaultdict(float)
        k1, b, average = self._k1, self._b, self._average or 1.0
        for word in set(_tokens(query)):
            idf = self._idf.get(word)
            if idf is None:
                continue
            for row, count in self._postings[word]:
                norm = k1 * (1 - b + b * self._lengths[row] / average)
                scores[row] += idf * count * (k1 + 1) / (count + norm)
        return sorted(scores, key=lambda row: (-scores[row], row))


def _with_adjacent(ranked: list[int], sessions: list[int], k: int) -> list[int]:
    """Each hit followed by the turns before and after it in its session; first k distinct."""
    out: dict[int, None] = {}
    for row in ranked:
        for near in (row, row - 1, row + 1):
            if 0 <= near < len(sessions) and sessions[near] == sessions[row]:
                out.setdefault(near, None)
        if len(out) >= k:
            break
    return list(out)[:k]


def _recall(ranked: Sequence[str], gold: frozenset[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold)


def _store_chat(mem: Memory, chat: Chat) -> None:
    """Append every turn of the chat, one conversation per session, as a user would."""
    by_session: dict[int, list[tuple[str, int, str, str, datetime]]] = defaultdict(list)
    for turn in chat.turns:
        by_session[turn[1]].append(turn)
    for session, turns in sorted(by_session.items()):
        conversation = mem.conversation(f"session_{session}")
        for dia_id, _s, speaker, text, sent in turns:
            conversation.append("user", text, speaker=speaker, turn_id=dia_id, created_at=sent)


_SYSTEMS = (
    "graphmem",
    "bm25",
    "bm25+adjacent",
    "graphmem full text",
    "graphmem vector",
    "graphmem rrf (previous default)",
)


class _Memo:
    """The embedder, remembering what it embedded.

    The fit pass and the scoring pass, and a question embedded to time it then asked
    through ``retrieve``, pay once.
    """

    def __init__(self, embedder: Embedder) -> None:
        self._embedder = embedder
        self._known: dict[str, Any] = {}

    @property
    def dimension(self) -> int:
        return self._embedder.dimension

    def embed(self, texts: Sequence[str]) -> Any:
        missing = list(dict.fromkeys(t for t in texts if t not in self._known))
        if missing:
            for text, vector in zip(missing, self._embedder.embed(missing), strict=True):
                self._known[text] = vector
        if not texts:
            return np.zeros((0, self.dimension), dtype=np.float32)
        return np.stack([self._known[t] for t in texts])


def _asked(chat: Chat, limit: int | None) -> list[tuple[str, int, frozenset[str]]]:
    return chat.questions[:limit] if limit else chat.questions


def _fit(
    chats: list[Chat],
    embedder: _Memo,
    limit: int | None,
    say: Callable[[str], None],
    progress: bool,
) -> dict[str, float]:
    """The turn model's weights fitted on the tuning half's questions."""
    from graphmem.retrieval import PRESETS
    from graphmem.retrieval.recall import fit_turn_weights, turn_pool
    from graphmem.retrieval.steps import own_turn_search

    settings = PRESETS["hybrid"]
    examples: list[tuple[Any, Any]] = []
    tuning = [c for c in chats if c.half == CONVMEM_HALVES[0]]
    with progress_bar(sum(len(_asked(c, limit)) for c in tuning), "fit", progress, "q") as bar:
        for chat in tuning:
            with open_memory("memory://", tenant=f"fit-{chat.number}", embedder=embedder) as mem:
                _store_chat(mem, chat)
                mem.flush_index()
                dia_of = {t.id: t.turn_id for t in mem.dump().turns}
                for question, _category, gold in _asked(chat, limit):
                    vector = embedder.embed([question])[0]
                    pair = mem.store.hybrid_search(
                        mem.tenant,
                        ["turn"],
                        vector=vector,
                        text=question,
                        k=settings.turn_candidates,
                    )["turn"]
                    own = own_turn_search(
                        mem.store, mem.tenant, embedder.embed, settings.turn_candidates
                    )
                    pool = turn_pool(
                        mem.store,
                        mem.tenant,
                        question,
                        pair,
                        depth=settings.turn_context,
                        own_search=own,
                    )
                    labels = np.array([1.0 if dia_of[i] in gold else 0.0 for i in pool.ids])
                    examples.append((pool.matrix, labels))
                    bar.update(1)
            say(f"convmem fit: {chat.id}: {len(_asked(chat, limit))} questions")
    return fit_turn_weights(examples)


def eval_convmem(
    data: Path,
    embedder: Embedder,
    limit: int | None,
    say: Callable[[str], None],
    *,
    fit: bool = False,
    progress: bool = False,
) -> dict[str, Any]:
    """Evaluate conversation recall on REALTALK; see the module docstring.

    Args:
        data: The eval data folder (holding ``convmem/``).
        embedder: The embedder of every memory.
        limit: Only the first N questions of each chat.
        say: Where progress lines go.
        fit: First fit the turn model's weights on the tuning half, then score those
            weights (instead of the shipped ones) and report them.
        progress: Draw a progress bar on a terminal.
    """
    chats = load_convmem(data)
    memo = _Memo(embedder)
    weights = _fit(chats, memo, limit, say, progress) if fit else None
    overrides: dict[str, Any] = {} if weights is None else {"turn_weights": weights}
    scores: dict[str, dict[tuple[str, str, int], list[float]]] = {
        s: defaultdict(list) for s in _SYSTEMS
    }
    counts: Counter[str] = Counter()
    index_s = embed_s = 0.0
    latencies: list[float] = []
    turns_indexed = 0
    with progress_bar(sum(len(_asked(c, limit)) for c in chats), "convmem", progress, "q") as bar:
        for chat in chats:
            questions = _asked(chat, limit)
            tenant = f"convmem-{chat.number}"
            with open_memory("memory://", tenant=tenant, embedder=memo) as mem:
                _store_chat(mem, chat)
                start = time.perf_counter()
                turns_indexed += mem.flush_index()
                index_s += time.perf_counter() - start
                sessions = [t[1] for t in chat.turns]
                bm25 = OkapiBM25([t[3] for t in chat.turns])
                dia_of = {t.id: t.turn_id or "" for t in mem.dump().turns}
                for question, category, gold in questions:
                    start = time.perf_counter()
                    vector = memo.embed([question])[0]
                    embed_s += time.perf_counter() - start
                    start = time.perf_counter()  # the question's embedding is memoised now
                    found = mem.retrieve(question, k=10, **overrides)
                    latencies.append(time.perf_counter() - start)
                    rows = bm25.rank(question)
                    hits = mem.store.hybrid_search(
                        mem.tenant, ["turn"], vector=vector, text=question, k=10
                    )["turn"]
                    older = mem.retrieve(question, k=10, turn_ranker="rrf")
                    ranked = {
                        "graphmem": [r.turn_id or "" for r in found],
                        "bm25": [chat.turns[r][0] for r in rows[:10]],
                        "bm25+adjacent": [
                            chat.turns[r][0] for r in _with_adjacent(rows, sessions, 10)
                        ],
                        "graphmem full text": [dia_of[h.id] for h in hits.text],
                        "graphmem vector": [dia_of[h.id] for h in hits.vector],
                        "graphmem rrf (previous default)": [r.turn_id or "" for r in older],
                    }
                    for system, ids in ranked.items():
                        for k in _K:
                            value = _recall(ids, gold, k)
                            for half in (chat.half, "all"):
                                for cat in ("all", str(category)):
                                    scores[system][(half, cat, k)].append(value)
                    for half in (chat.half, "all"):
                        for cat in ("all", str(category)):
                            counts[f"{half} | {cat}"] += 1
                    bar.update(1)
            say(f"convmem: {chat.id}: {len(chat.turns)} turns, {len(questions)} questions")
    report: dict[str, Any] = {"dataset": "convmem", "questions": len(latencies)}
    for system in _SYSTEMS:
        report[system] = {
            f"{half} | {cat} | R@{k}": round(statistics.fmean(values), 4)
            for (half, cat, k), values in sorted(scores[system].items())
        }
    report["question counts"] = dict(sorted(counts.items()))
    report["turns indexed"] = turns_indexed
    if not fit:  # with --fit, half the turns were embedded by the fit pass already
        report["index seconds"] = round(index_s, 2)
        report["turns indexed per second"] = round(turns_indexed / index_s, 1) if index_s else None
    report["query embedding ms (mean)"] = round(1000 * embed_s / max(1, len(latencies)), 2)
    if latencies:
        report["retrieve ms p50 (embedding excluded)"] = round(
            1000 * statistics.median(latencies), 2
        )
    if weights is not None:
        report["fitted weights (tuning half)"] = weights
    return report


def print_report(report: dict[str, Any]) -> None:
    """Print a convmem report: per half, each system's R@5 / R@10 per category."""
    counts = report["question counts"]
    categories = sorted({key.split(" | ")[1] for key in counts} - {"all"}) + ["all"]
    names = {"1": "cat 1 factual", "2": "cat 2 temporal", "3": "cat 3 inference", "all": "all"}
    print(f"convmem ({report['questions']} questions): turn recall R@5 / R@10")
    for half in (*CONVMEM_HALVES, "all"):
        print(f"  {half}")
        row = "".join(
            f"{names.get(c, c) + ' (' + str(counts.get(f'{half} | {c}', 0)) + ')':>24}"
            for c in categories
        )
        print(f"    {'':<32}{row}")
        for system in _SYSTEMS:
            table = report[system]
            cells = "".join(
                f"{table[f'{half} | {c} | R@5']:>13.3f} / {table[f'{half} | {c} | R@10']:.3f}"
                if f"{half} | {c} | R@5" in table
                else f"{'-':>24}"
                for c in categories
            )
            print(f"    {system:<32}{cells}")
    for key, value in report.items():
        if key not in (*_SYSTEMS, "question counts", "dataset", "questions"):
            print(f"  {key}: {value}")
