"""``graphmem bench``: speed figures, each measured beside a baseline in the same run.

The baseline of each figure is a hand-written networkx program doing the same work on
the same data with plain dicts (no graphmem), so the ratio says what graphmem's layers
cost; absolute times on a shared machine say little on their own. Figures:

- identity snapshot p50 / p99 at each size (entities with ~10 relationships each);
- bulk ingest rate (entities + relationships per second);
- NPC minds at the largest size: ``record_event`` in rooms of ten NPCs (beside writing
  the one fact alone), ``beliefs(npc)`` and the perspective snapshot (each beside the
  identity snapshot of the same NPC); ``--minds`` measures a tavern of 10 to 1,000 NPCs
  instead (:mod:`graphmem.tools.bench.minds`);
- the identity snapshot with telemetry on (Prometheus counters and OpenTelemetry spans
  through an SDK with an in-memory exporter) against off, at the smallest size
  (:mod:`graphmem.tools.bench.telemetry`);
- turn append rate, history of a long branch, fork;
- ``import graphmem`` time (in a fresh interpreter), against ``import pydantic.main``
  (what any pydantic model costs).

With a ``--store`` other than ``memory://`` the same operations run against that store,
and each figure also reports the store round trips per operation (from the tracer).

``--storage`` measures the ``file://`` store instead (ingest, reopen, memory and snapshots
against their baselines; see :mod:`graphmem.tools.bench.storage`).

``--retrieval`` measures retrieval instead (``--vector-sizes``, default 100,000 and
1,000,000 vectors of 384 dimensions):

- vector top-10 p50 through the store, against numpy brute force (one matrix-vector
  product and ``argpartition``) over the same vectors, in the same run;
- ``Memory.retrieve`` p50 over 100,000 chunks (query embeddings computed beforehand, so
  embedding is excluded), against the vector search alone;
- full-text search p50 right after a one-chunk write over the same chunks (the write is
  committed before the search can see it), against the same search with no write between;
- embedding throughput of the default embedder (when the extra is installed).

``--governance`` measures governed facts in the graph instead
(:mod:`graphmem.tools.bench.governance`), ``--recall`` conversation recall
(:mod:`~graphmem.tools.bench.recall`), ``--server`` the HTTP API
(:mod:`graphmem.tools.bench.server`).
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from graphmem.core.models import Entity, Relationship
from graphmem.core.store import open_store, redact_url
from graphmem.memory import Memory
from graphmem.tools.bench.common import (
    Figure,
    TraceCounter,
    ingest,
    percentile,
    raw_graph,
    raw_snapshot,
    synthetic_world,
    time_us,
)

__all__ = ["Figure", "add_arguments", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``bench`` options to ``parser``."""
    parser.add_argument("--store", default="memory://", help="store URL (default memory://)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--sizes",
        default="10000,100000",
        help="entity counts for the snapshot figures, comma-separated (default 10000,100000)",
    )
    parser.add_argument("--samples", type=int, default=2000, help="snapshots timed per size")
    parser.add_argument("--turns", type=int, default=10000, help="turns in the long branch")
    parser.add_argument(
        "--quick", action="store_true", help="small sizes, for a smoke run (1000 entities)"
    )
    parser.add_argument("--seed", type=int, default=7, help="random seed of the generated data")
    parser.add_argument(
        "--retrieval",
        action="store_true",
        help="measure vector search, retrieve and embedding instead of the default figures",
    )
    parser.add_argument(
        "--vector-sizes",
        default="100000,1000000",
        help="vector counts for the vector-search figures (default 100000,1000000)",
    )
    parser.add_argument(
        "--chunks", type=int, default=100_000, help="chunks for the retrieve figure (100000)"
    )
    parser.add_argument(
        "--recall",
        action="store_true",
        help="measure conversation recall instead: turn indexing beside the model's batch "
        "throughput, append and query-embedding latency, retrieve over 10,000 turns",
    )
    parser.add_argument(
        "--embedder",
        choices=("default", "hashing"),
        default="default",
        help="with --recall: all-MiniLM-L6-v2 (default, the embeddings extra) or hashing",
    )
    parser.add_argument(
        "--governance",
        action="store_true",
        help="measure governed facts in the graph instead: a workspace learn beside an "
        "agent-scope one, relate beside upsert_relationships, the snapshot of an NPC with "
        "governed facts beside a snapshot plus a read of its fact records",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="no progress bar and no progress lines"
    )
    parser.add_argument(
        "--server",
        action="store_true",
        help="measure the HTTP API (snapshot latency and req/s against a bare uvicorn floor) "
        "and the async twin's overhead instead (the server extra)",
    )
    from graphmem.tools.bench import minds as bench_minds
    from graphmem.tools.bench import storage as bench_storage

    bench_storage.add_arguments(parser)
    bench_minds.add_arguments(parser)


def _import_seconds(module: str, repeats: int = 5) -> float:
    code = f"import time; t = time.perf_counter(); import {module}; print(time.perf_counter() - t)"
    runs = []
    for _ in range(repeats):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
        runs.append(float(done.stdout))
    return min(runs)


def _figures(args: argparse.Namespace, say: Callable[[str], None]) -> Iterator[Figure]:
    sizes = [1000] if args.quick else [int(s) for s in str(args.sizes).split(",") if s.strip()]
    samples = min(args.samples, 300) if args.quick else args.samples
    turns = min(args.turns, 1000) if args.quick else args.turns
    counter = TraceCounter()
    tenant = f"bench-{uuid.uuid4().hex[:8]}"
    store = open_store(args.store, tracer=counter)
    mem = Memory(store, tenant)
    try:
        seconds = _import_seconds("graphmem")
        yield Figure("import graphmem", seconds * 1000, "ms").with_baseline(
            _import_seconds("pydantic.main") * 1000
        )
        for size in sizes:
            say(f"building a world of {size:,} entities ...")
            entities, rels = synthetic_world(size, args.seed)
            mem.clear()
            counter.reset()
            items = len(entities) + len(rels)
            seconds = ingest(mem, entities, rels, say)
            batches = counter.calls
            raw, raw_ingest = raw_graph(entities, rels)
            yield Figure(
                f"bulk ingest ({size:,} entities, {len(rels):,} relationships)",
                items / seconds,
                "items/s",
                round_trips=counter.round_trips / batches if batches else None,
            ).with_baseline(items / raw_ingest)

            say(f"  {samples:,} identity snapshots at {size:,} entities ...")
            rng = random.Random(args.seed + size)
            picks = [f"e{rng.randrange(size)}" for _ in range(samples)]
            for npc in picks[:50]:  # warm up both sides
                mem.identity_snapshot(npc)
                raw_snapshot(raw, npc, datetime.now(UTC))
            ours: list[float] = []
            theirs: list[float] = []
            counter.reset()

            def by_hand(npc: str, graph: Any = raw) -> object:
                return raw_snapshot(graph, npc, datetime.now(UTC))

            for npc in picks:  # interleaved, so machine noise hits both alike
                ours.append(time_us(partial(mem.identity_snapshot, npc)))
                theirs.append(time_us(partial(by_hand, npc)))
            trips = counter.round_trips / len(picks)
            for q, label in ((0.5, "p50"), (0.99, "p99")):
                yield Figure(
                    f"identity snapshot {label} at {size:,} entities",
                    percentile(ours, q),
                    "us",
                    round_trips=trips,
                ).with_baseline(percentile(theirs, q))

        from graphmem.tools.bench.telemetry import telemetry_figures

        world = synthetic_world(sizes[0], args.seed)
        yield from telemetry_figures(world, samples, args.seed, say, Figure, percentile)
        yield from _minds_figures(mem, counter, sizes[-1], samples, args.quick, say)
        yield from _conversation_figures(mem, counter, turns, say)
    finally:
        say("clearing the bench tenant ...")
        mem.clear()
        mem.close()


def _minds_figures(
    mem: Memory,
    counter: TraceCounter,
    size: int,
    samples: int,
    quick: bool,
    say: Callable[[str], None],
) -> Iterator[Figure]:
    """NPC minds on the world of ``size`` entities: rooms of ten NPCs who see things happen.

    In each room ten NPCs enter one by one, two items are dropped, one NPC leaves and an
    item is moved (so it keeps a false belief): events recorded with ``record_event``,
    witnesses read from the world state (nested beliefs are read, never written). Then,
    for NPCs of those rooms, interleaved: ``beliefs(npc)`` (its first-order beliefs) and
    the perspective snapshot, each beside the world identity snapshot of the same NPC.
    """
    from graphmem.minds import Fact

    rooms = 10 if quick else 100
    say(f"NPC minds: {rooms} rooms of 10 NPCs in the {size:,}-entity world ...")
    npcs = [f"e{i}" for i in range(size) if i % 6 < 3]
    locations = [f"e{i}" for i in range(size) if i % 6 == 3]
    items = [f"e{i}" for i in range(size) if i % 6 == 4]
    start = datetime.now(UTC) - timedelta(days=1)
    step = timedelta(seconds=1)
    writes: list[float] = []
    alone: list[float] = []
    counter.reset()
    events = 0
    for r in range(rooms):
        room, people = locations[r], npcs[r * 10 : r * 10 + 10]
        first, second = items[2 * r], items[2 * r + 1]
        at = start + r * 20 * step
        for n, npc in enumerate(people):
            came = [(npc, "located_in", room)]
            mem.record_event("entered", actor=npc, place=room, changes=came, at=at + n * step)
        script: list[tuple[str, str, list[Any]]] = [
            ("dropped", people[0], [(first, "located_in", room)]),
            ("dropped", people[1], [(second, "located_in", room)]),
            ("left", people[9], [Fact(subject=people[9], predicate="located_in", object=room,
                                      holds=False)]),
            ("moved", people[2], [(first, "located_in", second)]),
        ]  # fmt: skip
        for n, (kind, actor, changes) in enumerate(script, start=10):
            writes.append(
                time_us(
                    partial(mem.record_event, kind, actor=actor, changes=changes, at=at + n * step)
                )
                / 1000
            )
            fact = Relationship(source_id=actor, target_id=room, type="near")
            alone.append(time_us(partial(mem.upsert_relationships, [fact])) / 1000)
        events += 14
    yield Figure(
        "record_event p50 (about 9 witnesses, one evidence record per fact)",
        statistics.median(writes),
        "ms",
        round_trips=counter.round_trips / events,
    ).with_baseline(statistics.median(alone))
    rng = random.Random(size)
    picks = [npcs[rng.randrange(rooms * 10)] for _ in range(samples)]
    for npc in picks[:50]:  # warm up
        mem.beliefs(npc)
        mem.identity_snapshot(npc)
        mem.identity_snapshot(npc, perspective=True)
    held = statistics.mean(len(mem.beliefs(npc)) for npc in picks[:50])
    ours: list[float] = []
    view: list[float] = []
    snapshot: list[float] = []
    counter.reset()
    for npc in picks:  # interleaved, so machine noise hits all alike
        ours.append(time_us(partial(mem.beliefs, npc)))
        snapshot.append(time_us(partial(mem.identity_snapshot, npc)))
        view.append(time_us(partial(mem.identity_snapshot, npc, perspective=True)))
    yield Figure(
        f"beliefs(npc) p50 at {size:,} entities ({held:.0f} beliefs, vs identity snapshot)",
        percentile(ours, 0.5),
        "us",
    ).with_baseline(percentile(snapshot, 0.5))
    yield Figure(
        f"perspective snapshot p50 at {size:,} entities (vs identity snapshot)",
        percentile(view, 0.5),
        "us",
    ).with_baseline(percentile(snapshot, 0.5))


def _short_history_figure(
    mem: Memory, counter: TraceCounter, turns: int, say: Callable[[str], None]
) -> Iterator[Figure]:
    """The history of a ``turns``-turn branch (built in batches), beside a list walk."""
    say(f"building a {turns:,}-turn conversation and reading its history 20 times ...")
    chat = mem.conversation(f"bench-{uuid.uuid4().hex[:6]}")
    for start in range(0, turns, 250):
        chat.extend(
            {"role": "npc", "content": f"line {i} of the conversation"}
            for i in range(start, min(turns, start + 250))
        )
    raw = [{"role": "npc", "content": f"line {i}", "at": time.time()} for i in range(turns)]
    chat.history()  # warm
    counter.reset()
    ours_ms = [time_us(chat.history) / 1000 for _ in range(20)]
    trips = counter.round_trips / 20
    theirs_ms = [time_us(lambda: [dict(t) for t in reversed(raw)]) / 1000 for _ in range(20)]
    yield Figure(
        f"history of a {turns:,}-turn branch (p50)",
        statistics.median(ours_ms),
        "ms",
        round_trips=trips,
    ).with_baseline(statistics.median(theirs_ms))


def _conversation_figures(
    mem: Memory, counter: TraceCounter, turns: int, say: Callable[[str], None]
) -> Iterator[Figure]:
    import networkx as nx

    if turns > 1_000:
        yield from _short_history_figure(mem, counter, 1_000, say)
    chat = mem.conversation(f"bench-{uuid.uuid4().hex[:6]}")
    counter.reset()
    say(f"appending {turns:,} turns ...")
    start = time.perf_counter()
    first = None
    for i in range(turns):
        turn = chat.append("player" if i % 2 else "npc", f"line {i} of the long conversation")
        first = first or turn
        if (i + 1) % 2_000 == 0 and i + 1 < turns:
            rate = (i + 1) / (time.perf_counter() - start)
            say(f"  appended {i + 1:,} / {turns:,} turns ({rate:,.0f} turns/s)")
    ours = time.perf_counter() - start
    appends_trips = counter.round_trips / turns
    raw = nx.DiGraph()
    start = time.perf_counter()
    previous = None
    for i in range(turns):
        node = uuid.uuid4().hex
        raw.add_node(node, role="npc", content=f"line {i} of the long conversation", at=time.time())
        if previous is not None:
            raw.add_edge(node, previous)
        previous = node
    theirs = time.perf_counter() - start
    yield Figure(
        "turn append rate", turns / ours, "turns/s", round_trips=appends_trips
    ).with_baseline(turns / theirs)

    def raw_history() -> list[Any]:
        out, node = [], previous
        while node is not None:
            out.append(raw.nodes[node])
            node = next(iter(raw.succ[node]), None)
        out.reverse()
        return out

    say(f"reading the {turns:,}-turn history 20 times, forking 200 times ...")
    counter.reset()
    ours_ms = [time_us(chat.history) / 1000 for _ in range(20)]
    trips = counter.round_trips / 20
    theirs_ms = [time_us(raw_history) / 1000 for _ in range(20)]
    yield Figure(
        f"history of a {turns:,}-turn branch (p50)",
        statistics.median(ours_ms),
        "ms",
        round_trips=trips,
    ).with_baseline(statistics.median(theirs_ms))

    assert first is not None
    head = chat.head
    assert head is not None
    counter.reset()
    fork_us = []
    for _ in range(200):
        fork_us.append(time_us(partial(chat.fork, first.id)))
        chat.fork(head.id)
    yield Figure(
        "fork (p50)", statistics.median(fork_us), "us", round_trips=counter.round_trips / 400
    )


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures (a table, or one JSON object with --json)."""
    from graphmem.core.progress import progress_bar, wants_progress, write_line

    quiet = getattr(args, "quiet", False)
    args.progress = wants_progress(quiet)

    def say(line: str) -> None:
        if not args.json and not quiet:
            write_line(line, sys.stderr)

    figures = []
    produce = _retrieval_figures if getattr(args, "retrieval", False) else _figures
    if getattr(args, "server", False):
        from graphmem.tools.bench.server import server_figures as produce
    if not args.json:
        from graphmem.core.progress import write_line

        write_line(
            f"{'figure':<55} {'value':>14} {'unit':<8} {'baseline':>14} {'ratio':>8} "
            f"{'better':<7} {'round trips/op':>14} vs baseline (same run)"
        )
    if getattr(args, "recall", False):
        from graphmem.tools.bench.recall import recall_figures

        produce = partial(recall_figures, figure=Figure)
    if getattr(args, "governance", False):
        from graphmem.tools.bench.governance import governance_figures

        produce = partial(governance_figures, figure=Figure)
    elif getattr(args, "storage", False):
        from graphmem.tools.bench.storage import storage_figures

        produce = storage_figures
    if getattr(args, "minds", False):
        from graphmem.tools.bench.minds import minds_figures

        produce = partial(minds_figures, figure=Figure)
    with progress_bar(None, "bench", args.progress, "figure") as bar:
        for figure in produce(args, say):
            figures.append(figure)
            bar.update(1)
            _print_figure(args, figure)
    if not args.json:
        print("ratio = value / baseline; 'better' says which way is better for the value")
    if args.json:
        print(
            json.dumps({"store": redact_url(args.store), "results": [asdict(f) for f in figures]})
        )
    return 0


def _print_figure(args: argparse.Namespace, figure: Figure) -> None:
    from graphmem.core.progress import write_line

    if not args.json:
        base = f"{figure.baseline:>14,.2f}" if figure.baseline is not None else " " * 14
        ratio = f"{figure.ratio:>7.2f}x" if figure.ratio is not None else " " * 8
        trips = f"{figure.round_trips:>14.2f}" if figure.round_trips is not None else " " * 14
        line = (
            f"{figure.name:<55} {figure.value:>14,.2f} {figure.unit:<8} {base} {ratio} "
            f"{figure.better:<7} {trips} {figure.reading()}"
        )
        write_line(line.rstrip())


# --------------------------------------------------------------------------- retrieval

_DIMENSION = 384
_SYLLABLES = ("bel", "dor", "mir", "tha", "ken", "ros", "lun", "var", "ish", "gal", "ond", "rek")


def _vocabulary(rng: Any, size: int = 20_000) -> Any:
    """Pseudo-words and Zipf weights: text with a long tail, like real passages."""
    import numpy as np

    words = np.array(
        ["".join(rng.choice(_SYLLABLES, size=3)) + str(i) for i in range(size)], dtype=object
    )
    weights = 1.0 / np.arange(1, size + 1)
    return words, weights / weights.sum()


def _unit_rows(rng: Any, n: int) -> Any:
    import numpy as np

    rows = rng.standard_normal((n, _DIMENSION), dtype=np.float32)
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return rows


def _retrieval_figures(args: argparse.Namespace, say: Callable[[str], None]) -> Iterator[Figure]:
    import numpy as np

    from graphmem.core.models import Chunk

    rng = np.random.default_rng(args.seed)
    quick = args.quick
    sizes = [10_000] if quick else [int(s) for s in str(args.vector_sizes).split(",") if s]
    samples = 50 if quick else 200
    for size in sizes:
        say(f"vector index of {size:,} x {_DIMENSION} ...")
        store = open_store(args.store)
        tenant = f"bench-{uuid.uuid4().hex[:8]}"
        try:
            vectors = _unit_rows(rng, size)
            step = 100_000
            for start in range(0, size, step):
                part = [
                    Chunk.model_construct(id=f"c{i}", text="x", source=None, attributes={})
                    for i in range(start, min(size, start + step))
                ]
                store.upsert_chunks(tenant, part)
                store.put_embeddings(
                    tenant, "chunk", [c.id for c in part], vectors[start : step + start]
                )
            queries = _unit_rows(rng, samples)
            ids = [f"c{i}" for i in range(size)]

            def brute(
                q: Any, matrix: Any = vectors, names: list[str] = ids
            ) -> list[tuple[str, float]]:
                scores = matrix @ q
                top = np.argpartition(scores, len(scores) - 10)[-10:]
                top = top[np.argsort(-scores[top])]
                return [(names[i], float(scores[i])) for i in top]

            for q in queries[:5]:  # warm up both
                store.vector_search(tenant, "chunk", q, 10)
                brute(q)
            ours, theirs = [], []
            for q in queries:
                ours.append(time_us(partial(store.vector_search, tenant, "chunk", q, 10)) / 1000)
                theirs.append(time_us(partial(brute, q)) / 1000)
            # an approximate index (Neo4j's HNSW) may miss a neighbour: its recall is a figure
            found = sum(
                len(
                    {h.id for h in store.vector_search(tenant, "chunk", q, 10)}
                    & {i for i, _s in brute(q)}
                )
                for q in queries
            )
            yield Figure(
                f"vector top-10 p50 at {size:,} x {_DIMENSION}", statistics.median(ours), "ms"
            ).with_baseline(statistics.median(theirs))
            yield Figure(
                f"vector top-10 recall against brute force at {size:,} x {_DIMENSION}",
                found / (10 * len(queries)),
                "share",
                better="higher",
            )
        finally:  # a failed run leaves no tenant behind in a shared index
            store.clear(tenant)
            store.close()
        del vectors
    yield from _retrieve_figures(args, say, rng, 5_000 if quick else args.chunks, samples)
    yield from _embedding_figures(quick, say)


def _retrieve_figures(
    args: argparse.Namespace, say: Callable[[str], None], rng: Any, chunks: int, samples: int
) -> Iterator[Figure]:
    import numpy as np

    from graphmem.core.models import Chunk

    say(f"retrieve over {chunks:,} chunks ...")
    words, weights = _vocabulary(rng)
    queries = [" ".join(rng.choice(words, size=6, p=weights)) for _ in range(samples)]
    vectors = _unit_rows(rng, samples)
    table = {q: v for q, v in zip(queries, vectors, strict=True)}

    class Precomputed:
        """Query embeddings computed beforehand: the figure excludes embedding.

        Any other text (a relationship type's phrase, embedded once by the fact
        ranking) gets a fixed random unit row.
        """

        dimension = _DIMENSION

        def embed(self, texts: Sequence[str]) -> Any:
            return np.stack([table[t] if t in table else _unit_rows(rng, 1)[0] for t in texts])

    store = open_store(args.store)
    mem = Memory(store, f"bench-{uuid.uuid4().hex[:8]}", embedder=Precomputed())
    try:
        entities = [Entity(id=f"e{i}", type="npc", name=f"Person {i}") for i in range(1000)]
        mem.upsert_entities(entities)
        mem.upsert_relationships(
            [
                Relationship(source_id=f"e{i}", target_id=f"e{(i * 7 + 1) % 1000}", type="knows")
                for i in range(1000)
            ]
        )
        step = 20_000
        for start in range(0, chunks, step):
            n = min(step, chunks - start)
            texts = rng.choice(words, size=(n, 40), p=weights)
            part = [
                Chunk.model_construct(
                    id=f"c{start + i}", text=" ".join(texts[i]), source=None, attributes={}
                )
                for i in range(n)
            ]
            store.upsert_chunks(mem.tenant, part)
            store.put_embeddings(mem.tenant, "chunk", [c.id for c in part], _unit_rows(rng, n))
            store.link_mentions(
                mem.tenant,
                "chunk",
                {c.id: [f"e{rng.integers(1000)}", f"e{rng.integers(1000)}"] for c in part},
            )
        for q in queries[:5]:
            mem.retrieve(q, k=10)
        ours, theirs = [], []
        for q in queries:
            ours.append(time_us(partial(mem.retrieve, q, k=10)) / 1000)
            theirs.append(
                time_us(partial(store.vector_search, mem.tenant, "chunk", table[q], 10)) / 1000
            )
        yield Figure(
            f"retrieve p50 at {chunks:,} chunks (embedding excluded)", statistics.median(ours), "ms"
        ).with_baseline(statistics.median(theirs))
        # A passage question with no preset (one bridge round, 3 store calls) and the
        # two-round multihop, against the same run's bare vector search.
        for label, preset in (
            ("passage retrieve (kinds=chunk)", None),
            ("multihop retrieve (2 rounds)", "multihop"),
        ):

            def ask(q: str, preset: str | None = preset) -> None:
                mem.retrieve(q, k=10, kinds=["chunk"], preset=preset)

            for q in queries[:5]:
                ask(q)
            timed = [time_us(partial(ask, q)) / 1000 for q in queries]
            yield Figure(
                f"{label} p50 at {chunks:,} chunks", statistics.median(timed), "ms"
            ).with_baseline(statistics.median(theirs))
        after_write, alone = [], []
        for i, q in enumerate(queries):
            fresh = Chunk.model_construct(id=f"w{i}", text=q, source=None, attributes={})

            def write_then_search(q: str = q, fresh: Chunk = fresh) -> None:
                store.upsert_chunks(mem.tenant, [fresh])
                store.fulltext_search(mem.tenant, "chunk", q, 10)

            after_write.append(time_us(write_then_search) / 1000)
            alone.append(time_us(partial(store.fulltext_search, mem.tenant, "chunk", q, 10)) / 1000)
        yield Figure(
            f"full-text search p50 right after a write at {chunks:,} chunks",
            statistics.median(after_write),
            "ms",
        ).with_baseline(statistics.median(alone))
    finally:
        mem.clear()
        mem.close()


def _embedding_figures(quick: bool, say: Callable[[str], None]) -> Iterator[Figure]:
    from graphmem.retrieval import HashingEmbedder, SentenceTransformerEmbedder

    texts = [
        f"Passage {i}: the miller of Brindleford swore the flood took {i} sacks of flour, "
        "but the ferryman saw them loaded on a cart bound for the market at dawn."
        for i in range(64 if quick else 512)
    ]
    start = time.perf_counter()
    HashingEmbedder(_DIMENSION).embed(texts)
    hashing = len(texts) / (time.perf_counter() - start)
    if not SentenceTransformerEmbedder.available():
        say("the embeddings extra is not installed: no model throughput figure")
        yield Figure("embedding throughput (hashing embedder)", hashing, "texts/s")
        return
    say("loading all-MiniLM-L6-v2 ...")
    model = SentenceTransformerEmbedder()
    model.embed(texts[:8])  # load and warm up
    start = time.perf_counter()
    model.embed(texts)
    rate = len(texts) / (time.perf_counter() - start)
    yield Figure("embedding throughput (all-MiniLM-L6-v2, cpu)", rate, "texts/s").with_baseline(
        hashing
    )
