"""``graphmem bench``: speed figures, each measured beside a baseline in the same run.

The baseline of each figure is a hand-written networkx program doing the same work on
the same data with plain dicts (no graphmem), so the ratio says what graphmem's layers
cost; absolute times on a shared machine say little on their own. Figures:

- identity snapshot p50 / p99 at each size (entities with ~10 relationships each);
- bulk ingest rate (entities + relationships per second);
- turn append rate, history of a long branch, fork;
- ``import graphmem`` time (in a fresh interpreter), against ``import pydantic.main``
  (what any pydantic model costs).

With a ``--store`` other than ``memory://`` the same operations run against that store,
and each figure also reports the store round trips per operation (from the tracer).
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
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from graphmem.memory import Memory
from graphmem.models import Entity, Provenance, Relationship
from graphmem.store import TraceEvent, open_store, redact_url

__all__ = ["Figure", "add_arguments", "run"]

_REL_TYPES = ("knows", "trusts", "fears", "owns", "member_of", "located_in", "serves", "hates")
_ENTITY_TYPES = ("npc", "npc", "npc", "location", "item", "faction")


@dataclass
class Figure:
    """One measured figure and its baseline (``ratio`` = value / baseline)."""

    name: str
    value: float
    unit: str
    baseline: float | None = None
    ratio: float | None = None
    round_trips: float | None = None

    def with_baseline(self, baseline: float | None) -> Figure:
        """Attach a baseline and compute the ratio."""
        self.baseline = baseline
        if baseline:
            self.ratio = self.value / baseline
        return self


class _Counter:
    """A tracer counting store operations and server round trips."""

    def __init__(self) -> None:
        self.calls = 0
        self.round_trips = 0

    def __call__(self, event: TraceEvent) -> None:
        self.calls += 1
        self.round_trips += event.round_trips

    def reset(self) -> None:
        self.calls = self.round_trips = 0


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


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def _world(size: int, seed: int) -> tuple[list[Entity], list[Relationship]]:
    """``size`` entities with about ten relationships each, some inferred or invalidated."""
    rng = random.Random(seed)
    now = datetime.now(UTC)
    entities = [
        Entity(
            id=f"e{i}",
            type=_ENTITY_TYPES[i % len(_ENTITY_TYPES)],
            name=f"Entity {i}",
            attributes={"occupation": "smith", "level": i % 50},
        )
        for i in range(size)
    ]
    rels: dict[tuple[str, str, str], Relationship] = {}
    for i in range(size):
        for _ in range(5):  # five out, and on average five in: ~10 per entity
            j = rng.randrange(size)
            kind = _REL_TYPES[rng.randrange(len(_REL_TYPES))]
            roll = rng.random()
            rel = Relationship(
                source_id=f"e{i}",
                target_id=f"e{j}",
                type=kind,
                provenance=Provenance(
                    confidence=round(rng.uniform(0.3, 1.0), 2),
                    source="inferred" if roll < 0.3 else "stated",
                    confirmed=roll > 0.9,
                ),
                valid_at=now - timedelta(days=30) if roll < 0.1 else None,
                invalid_at=now - timedelta(days=1) if roll < 0.05 else None,
            )
            rels[rel.key] = rel
    return entities, list(rels.values())


def _raw_graph(entities: list[Entity], rels: list[Relationship]) -> tuple[Any, float]:
    """The same world as a plain networkx MultiDiGraph of dicts, and the seconds it took."""
    import networkx as nx

    nodes = [(e.id, e.model_dump()) for e in entities]
    edges = [(r.source_id, r.target_id, r.type, r.model_dump()) for r in rels]
    start = time.perf_counter()
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    return graph, time.perf_counter() - start


def _raw_snapshot(graph: Any, npc: str, now: datetime) -> tuple[Any, list[Any], list[Any]]:
    """What a user would write by hand: the node, its current edges, their other ends."""

    def current(d: dict[str, Any]) -> bool:
        if d["expired_at"] is not None and d["expired_at"] <= now:
            return False
        if d["valid_at"] is not None and d["valid_at"] > now:
            return False
        return d["invalid_at"] is None or now < d["invalid_at"]

    rels = []
    related = {}
    for _s, other, _k, d in graph.out_edges(npc, keys=True, data=True):
        if current(d):
            rels.append(d)
            related[other] = graph.nodes[other]
    for other, _t, _k, d in graph.in_edges(npc, keys=True, data=True):
        if current(d):
            rels.append(d)
            related[other] = graph.nodes[other]
    rels.sort(key=lambda d: (d["source_id"], d["target_id"], d["type"]))
    related.pop(npc, None)
    return graph.nodes[npc], rels, [related[k] for k in sorted(related)]


def _time_ns(fn: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1000.0  # microseconds


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
    counter = _Counter()
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
            entities, rels = _world(size, args.seed)
            mem.clear()
            counter.reset()
            start = time.perf_counter()
            for i in range(0, len(entities), 10_000):
                mem.upsert_entities(entities[i : i + 10_000])
            for i in range(0, len(rels), 10_000):
                mem.upsert_relationships(rels[i : i + 10_000])
            ingest = time.perf_counter() - start
            batches = counter.calls
            raw, raw_ingest = _raw_graph(entities, rels)
            items = len(entities) + len(rels)
            yield Figure(
                f"bulk ingest ({size:,} entities, {len(rels):,} relationships)",
                items / ingest,
                "items/s",
                round_trips=counter.round_trips / batches if batches else None,
            ).with_baseline(items / raw_ingest)

            rng = random.Random(args.seed + size)
            picks = [f"e{rng.randrange(size)}" for _ in range(samples)]
            for npc in picks[:50]:  # warm up both sides
                mem.identity_snapshot(npc)
                _raw_snapshot(raw, npc, datetime.now(UTC))
            ours: list[float] = []
            theirs: list[float] = []
            counter.reset()

            def by_hand(npc: str, graph: Any = raw) -> object:
                return _raw_snapshot(graph, npc, datetime.now(UTC))

            for npc in picks:  # interleaved, so machine noise hits both alike
                ours.append(_time_ns(partial(mem.identity_snapshot, npc)))
                theirs.append(_time_ns(partial(by_hand, npc)))
            trips = counter.round_trips / len(picks)
            for q, label in ((0.5, "p50"), (0.99, "p99")):
                yield Figure(
                    f"identity snapshot {label} at {size:,} entities",
                    _percentile(ours, q),
                    "us",
                    round_trips=trips,
                ).with_baseline(_percentile(theirs, q))

        yield from _conversation_figures(mem, counter, turns)
    finally:
        mem.clear()
        mem.close()


def _conversation_figures(mem: Memory, counter: _Counter, turns: int) -> Iterator[Figure]:
    import networkx as nx

    chat = mem.conversation(f"bench-{uuid.uuid4().hex[:6]}")
    counter.reset()
    start = time.perf_counter()
    first = None
    for i in range(turns):
        turn = chat.append("player" if i % 2 else "npc", f"line {i} of the long conversation")
        first = first or turn
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

    counter.reset()
    ours_ms = [_time_ns(chat.history) / 1000 for _ in range(20)]
    trips = counter.round_trips / 20
    theirs_ms = [_time_ns(raw_history) / 1000 for _ in range(20)]
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
        fork_us.append(_time_ns(partial(chat.fork, first.id)))
        chat.fork(head.id)
    yield Figure(
        "fork (p50)", statistics.median(fork_us), "us", round_trips=counter.round_trips / 400
    )


def run(args: argparse.Namespace) -> int:
    """Run the benchmark and print its figures (a table, or one JSON object with --json)."""

    def say(line: str) -> None:
        if not args.json:
            print(line, file=sys.stderr, flush=True)

    figures = []
    for figure in _figures(args, say):
        figures.append(figure)
        if not args.json:
            base = f"{figure.baseline:>14,.2f}" if figure.baseline is not None else " " * 14
            ratio = f"{figure.ratio:>7.2f}x" if figure.ratio is not None else " " * 8
            print(f"{figure.name:<55} {figure.value:>14,.2f} {figure.unit:<8} {base} {ratio}")
    if args.json:
        print(
            json.dumps({"store": redact_url(args.store), "results": [asdict(f) for f in figures]})
        )
    return 0
