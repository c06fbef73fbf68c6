"""``graphmem bench --recall``: conversation recall speed, each figure beside a baseline.

- the embedding model's own batch throughput on chat-like sentences (one call, batches of
  64), the baseline of the next figure;
- turns indexed per second: turns appended through a memory (``auto_index``), then
  indexed by :meth:`Memory.flush_index` (linking and embedding in batches), against the
  model's batch throughput in the same run (the target is at least half of it), the two
  measured by turns on blocks of 256 turns;
- append latency p50 / p99 with indexing on (deferred: an append queues the turn), against
  appends with ``auto_index=False``; and p99 with ``index_batch=64`` (every 64th append
  pays for embedding the batch);
- one question's embedding latency p50, against the per-text time of a batch;
- ``Memory.retrieve`` p50 over a 10,000-turn conversation (query embeddings computed
  beforehand, so embedding is excluded), against the bare vector + full-text search of
  the same turns (one ``hybrid_search``).

The model figures use all-MiniLM-L6-v2 when the embeddings extra is installed, else (or
with ``--embedder hashing``) the hashing embedder, and say so.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
import zlib
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.core.progress import progress_bar
from graphmem.core.store import open_store
from graphmem.memory import Memory
from graphmem.retrieval import Embedder

__all__ = ["chat_lines", "recall_figures"]

_NAMES = ("Kate", "Elise", "Akib", "Fahim", "Paola", "Kevin", "Mira", "Tomas")
_DOING = (
    "went hiking near the lake",
    "cooked a big pot of pasta",
    "started reading a new novel",
    "watched the basketball game",
    "visited my cousins in Miami",
    "fixed the servers at work again",
    "tried a new coffee place downtown",
    "had a long call with my mom",
    "signed up for a pottery class",
    "took the dog to the beach",
)
_WHEN = ("today", "yesterday", "this morning", "last weekend", "after work", "on Sunday")
_FEEL = ("it was great", "honestly exhausting", "so much fun", "not bad at all", "a bit weird")
_REPLY = (
    "That sounds amazing! How did it go?",
    "Haha nice, I want to try that too",
    "Oh no, are you okay?",
    "What did you think of it?",
    "lol same",
    "Send me a picture!",
)


def chat_lines(count: int, seed: int = 7) -> list[tuple[str, str]]:
    """``count`` (speaker, message) pairs of a made-up two-person chat, deterministic.

    >>> chat_lines(2, seed=1)[0][0] in _NAMES
    True
    """
    rng = random.Random(seed)
    a, b = rng.sample(_NAMES, 2)
    out: list[tuple[str, str]] = []
    for i in range(count):
        speaker = a if i % 2 == 0 else b
        if i % 3 == 2:
            out.append((speaker, rng.choice(_REPLY)))
        else:
            doing, when, feel = rng.choice(_DOING), rng.choice(_WHEN), rng.choice(_FEEL)
            out.append((speaker, f"I {doing} {when}, {feel}. {rng.randrange(100)} of them!"))
    return out


def _model(say: Callable[[str], None], choice: str) -> tuple[Embedder, str]:
    from graphmem.retrieval import HashingEmbedder, SentenceTransformerEmbedder

    if choice == "hashing":
        return HashingEmbedder(384), "hashing embedder"
    if SentenceTransformerEmbedder.available():
        say("loading all-MiniLM-L6-v2 ...")
        model = SentenceTransformerEmbedder()
        model.embed(["warm up"])
        return model, "all-MiniLM-L6-v2"
    say("the embeddings extra is not installed: model figures use the hashing embedder")
    return HashingEmbedder(384), "hashing embedder"


def _timed_appends(mem: Memory, lines: Sequence[tuple[str, str]]) -> list[float]:
    """Append the lines to one conversation; the seconds each append took."""
    chat = mem.conversation("chat")
    took = []
    for speaker, text in lines:
        start = time.perf_counter()
        chat.append("user", text, speaker=speaker)
        took.append(time.perf_counter() - start)
    return took


def percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def recall_figures(
    args: argparse.Namespace, say: Callable[[str], None], figure: Callable[..., Any]
) -> Iterator[Any]:
    """The figures of the module docstring; ``figure(name, value, unit)`` makes one."""
    quick = bool(getattr(args, "quick", False))
    progress = bool(getattr(args, "progress", False))
    url = getattr(args, "store", "memory://")
    model, label = _model(say, getattr(args, "embedder", "default"))
    count = 128 if quick else 1024
    lines = chat_lines(count, getattr(args, "seed", 7))

    # The model alone and the memory's indexing take turns on blocks of 256 turns, so the
    # load of a shared machine falls on both alike; each side's time is summed.
    block = 64 if quick else 256
    rounds = 2
    raw_seconds = index_seconds = 0.0
    deferred: list[float] = []
    say(f"indexing {count:,} turns beside the model alone, {rounds} rounds ...")
    with progress_bar(rounds * count, "bench --recall: indexing", progress, "turn") as bar:
        for _round in range(rounds):
            with Memory(open_store(url), f"bench-{uuid.uuid4().hex[:8]}", embedder=model) as mem:
                for first in range(0, count, block):
                    part = lines[first : first + block]
                    start = time.perf_counter()
                    model.embed([text for _speaker, text in part])
                    raw_seconds += time.perf_counter() - start
                    deferred.extend(_timed_appends(mem, part))
                    start = time.perf_counter()
                    mem.flush_index()
                    index_seconds += time.perf_counter() - start
                    bar.update(len(part))
                mem.clear()
    raw = rounds * count / raw_seconds
    yield figure(f"model batch throughput ({label}, batches of 64)", raw, "texts/s")
    yield figure(
        f"turns indexed per second (append, then flush_index per {block} turns)",
        rounds * count / index_seconds,
        "turns/s",
    ).with_baseline(raw)

    say("append latency with and without indexing ...")
    with Memory(open_store(url), f"bench-{uuid.uuid4().hex[:8]}", auto_index=False) as mem:
        plain = _timed_appends(mem, lines)
        mem.clear()
    with Memory(
        open_store(url), f"bench-{uuid.uuid4().hex[:8]}", embedder=model, index_batch=64
    ) as mem:
        batched = _timed_appends(mem, lines)
        mem.clear()
    for q, name in ((0.5, "p50"), (0.99, "p99")):
        yield figure(
            f"append {name} with indexing deferred to the next retrieve",
            1e6 * percentile(deferred, q),
            "us",
        ).with_baseline(1e6 * percentile(plain, q))
    yield figure(
        "append p99 with index_batch=64 (every 64th append embeds the batch)",
        1e3 * percentile(batched, 0.99),
        "ms",
    ).with_baseline(1e3 * percentile(plain, 0.99))
    yield figure(
        "append mean with index_batch=64", 1e3 * statistics.fmean(batched), "ms"
    ).with_baseline(1e3 * statistics.fmean(plain))

    questions = [f"What did {name} do {when}?" for name in _NAMES for when in _WHEN]
    single = []
    for question in questions[: 16 if quick else 48]:
        start = time.perf_counter()
        model.embed([question])
        single.append(time.perf_counter() - start)
    yield figure(
        f"query embedding p50 ({label}, one question)", 1e3 * statistics.median(single), "ms"
    ).with_baseline(1e3 / raw)

    yield from _retrieve_figure(url, 2_000 if quick else 10_000, 50 if quick else 200, say, figure)


def _retrieve_figure(
    url: str,
    turns: int,
    samples: int,
    say: Callable[[str], None],
    figure: Callable[..., Any],
) -> Iterator[Any]:
    import numpy as np

    say(f"retrieve over a {turns:,}-turn conversation ...")
    rng = np.random.default_rng(11)
    dimension = 384
    lines = chat_lines(turns, seed=3)
    questions = [
        f"What did {name} say about {doing.split()[-1]}?"
        for name in _NAMES
        for doing in ("the lake", "pasta", "the novel", "basketball", "Miami", "the servers")
    ]
    questions = (questions * (samples // len(questions) + 1))[:samples]
    vectors = rng.standard_normal((len(questions), dimension)).astype(np.float32)
    table = {q: v for q, v in zip(questions, vectors, strict=False)}

    class Precomputed:
        """Query embeddings computed beforehand: the figure excludes embedding.

        Another wording of a question (the turn model's search in a speaker's own
        words) gets a vector of its own, drawn from its text as a seed.
        """

        dimension = 384

        def embed(self, texts: Sequence[str]) -> Any:
            return np.stack([table[t] if t in table else _drawn(t) for t in texts])

    def _drawn(text: str) -> Any:
        seed = zlib.crc32(text.encode("utf-8"))
        return np.random.default_rng(seed).standard_normal(dimension).astype(np.float32)

    with Memory(
        open_store(url), f"bench-{uuid.uuid4().hex[:8]}", embedder=Precomputed(), auto_index=False
    ) as mem:
        start = datetime(2024, 1, 1, 9, tzinfo=UTC)
        per_session = 400
        for first in range(0, turns, per_session):
            chat = mem.conversation(f"session-{first // per_session}")
            chat.extend(
                {
                    "role": "user",
                    "speaker": speaker,
                    "content": text,
                    "created_at": start + timedelta(minutes=first + i),
                }
                for i, (speaker, text) in enumerate(lines[first : first + per_session])
            )
        ids = [t.id for t in mem.dump().turns]
        rows = rng.standard_normal((len(ids), dimension)).astype(np.float32)
        mem.store.put_embeddings(mem.tenant, "turn", ids, rows)
        for q in questions[:5]:  # warm up both
            mem.retrieve(q, k=10)
        ours, theirs = [], []
        for q in questions:
            began = time.perf_counter()
            mem.retrieve(q, k=10)
            ours.append(time.perf_counter() - began)
            began = time.perf_counter()
            mem.store.hybrid_search(mem.tenant, ["turn"], vector=table[q], text=q, k=100)
            theirs.append(time.perf_counter() - began)
        mem.clear()
    yield figure(
        f"retrieve p50 over a {turns:,}-turn conversation (embedding excluded)",
        1e3 * statistics.median(ours),
        "ms",
    ).with_baseline(1e3 * statistics.median(theirs))
