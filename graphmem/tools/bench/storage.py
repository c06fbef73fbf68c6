"""``graphmem bench --storage``: the ``file://`` store on SQLite beside its baselines, in one run.

The world is ``--storage-entities`` entities (default 10,000; the issue's size is 100,000)
with about ten relationships out of each. Figures:

- bulk ingest into ``file://``, against the same ingest into ``memory://``;
- reopening the ``file://`` store (open until it answers), against the floor: reading the
  same edge list from the same file with plain ``sqlite3`` and building a bare
  ``networkx.MultiDiGraph`` from it;
- the peak memory that reopen adds, against the floor's;
- reopening the same world saved in graphmem's previous format (a JSON Lines journal,
  replayed), against the SQLite reopen: the ratio is how many times slower it was;
- identity snapshot p50 / p99 on the reopened ``file://`` store, the first time each NPC
  is asked for (its models read from the file) and again, against a hand-written walk
  over plain dicts; and on ``memory://`` against the same walk;
- the same reopen with ``preload=True`` (every model read at open): its time and memory
  against the floor, and the first snapshot of each NPC against the walk.
- the same reopen with ``warm=True`` (models read by a background thread after open): the
  time until every model is in memory and the memory then, against the floor, and the
  first snapshot of each NPC after that against the walk.

Each reopen runs in a fresh interpreter, so its time and memory are its own.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime
from functools import partial
from pathlib import Path
from typing import Any

from graphmem.core.models import Entity, Relationship
from graphmem.core.store import open_store
from graphmem.memory import Memory
from graphmem.tools.bench.common import (
    Figure,
    percentile,
    raw_graph,
    raw_snapshot,
    synthetic_world,
    time_us,
)

__all__ = ["add_arguments", "storage_figures"]

_BATCH = 10_000
_JOURNAL_CHUNK = 5_000  # models per line, as the journal's compaction wrote them


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``--storage`` options to the ``bench`` parser."""
    parser.add_argument(
        "--storage",
        action="store_true",
        help="measure the file:// store (ingest, reopen, memory, snapshots) instead",
    )
    parser.add_argument(
        "--storage-entities",
        type=int,
        default=10_000,
        metavar="N",
        help="entities of the --storage world, ten relationships each (default 10000; "
        "the issue's size is 100000)",
    )


def storage_figures(args: argparse.Namespace, say: Callable[[str], None]) -> Iterator[Figure]:
    """The figures of ``--storage`` (see the module docstring)."""
    size = 2_000 if args.quick else int(args.storage_entities)
    samples = min(args.samples, 300) if args.quick else args.samples
    say(f"building a world of {size:,} entities with ten relationships each ...")
    entities, rels = synthetic_world(size, args.seed, per_entity=10)
    label = f"{size:,} entities, {len(rels):,} relationships"
    rng = random.Random(args.seed + size)
    picks = list(dict.fromkeys(f"e{rng.randrange(size)}" for _ in range(samples)))
    with tempfile.TemporaryDirectory(prefix="graphmem-bench-") as tmp:
        directory = Path(tmp)
        path = directory / "world.graphmem"
        say("bulk ingest into memory:// ...")
        memory_rate, memory_store = ingest("memory://", entities, rels)
        say("bulk ingest into file:// ...")
        file_rate, file_store = ingest(path.as_uri(), entities, rels)
        start = time.perf_counter()
        file_store.close()
        closing = time.perf_counter() - start
        yield Figure(f"bulk ingest into file:// ({label})", file_rate, "items/s").with_baseline(
            memory_rate
        )
        yield Figure("close after that ingest (WAL folded into the file)", closing * 1000, "ms")
        say("identity snapshots on memory:// ...")
        yield from _memory_snapshots(memory_store, entities, rels, picks)
        memory_store.close()
        say("saving the same world as a journal (the previous format) ...")
        journal = directory / "world.journal.graphmem"
        _write_journal(journal, "bench", entities, rels)
        del entities, rels
        say("reopening in fresh interpreters ...")
        floor = _child("floor", path, [])
        ours = _child("sqlite", path, picks)
        old = _child("journal", journal, [])
        preloaded = _child("preload", path, picks)
        warmed = _child("warm", path, picks)
        yield Figure(f"reopen file:// ({label})", ours["seconds"], "s").with_baseline(
            floor["seconds"]
        )
        yield Figure("peak memory added by that reopen", ours["peak_mb"], "MB").with_baseline(
            floor["peak_mb"]
        )
        yield Figure(
            "reopen of the journal (previous format), baseline the reopen above",
            old["seconds"],
            "s",
        ).with_baseline(ours["seconds"])
        yield Figure("peak memory added by the journal reopen", old["peak_mb"], "MB").with_baseline(
            floor["peak_mb"]
        )
        for key, what in (("cold", "first use of each NPC"), ("warm", "asked again")):
            for q in ("p50", "p99"):
                yield Figure(
                    f"identity snapshot {q} on the reopened file:// store ({what})",
                    ours[f"{key}_{q}"],
                    "us",
                ).with_baseline(ours[f"walk_{q}"])
        for result, seconds, titles in (
            (
                preloaded,
                "seconds",
                (
                    "reopen file:// with preload=True",
                    "peak memory added by the preload reopen",
                    "identity snapshot p50 after preload=True (first use of each NPC)",
                ),
            ),
            (
                warmed,
                "ready",
                (
                    "warm=True: open until every model is in memory (answering meanwhile)",
                    "peak memory added once warmed up (warm=True)",
                    "identity snapshot p50 after the warm-up (first use of each NPC)",
                ),
            ),
        ):
            yield Figure(titles[0], result[seconds], "s").with_baseline(floor["seconds"])
            yield Figure(titles[1], result["peak_mb"], "MB").with_baseline(floor["peak_mb"])
            yield Figure(titles[2], result["cold_p50"], "us").with_baseline(result["walk_p50"])


def ingest(url: str, entities: list[Entity], rels: list[Relationship]) -> tuple[float, Any]:
    store = open_store(url)
    mem = Memory(store, "bench", owns_store=False)
    start = time.perf_counter()
    for i in range(0, len(entities), _BATCH):
        mem.upsert_entities(entities[i : i + _BATCH])
    for i in range(0, len(rels), _BATCH):
        mem.upsert_relationships(rels[i : i + _BATCH])
    seconds = time.perf_counter() - start
    return (len(entities) + len(rels)) / seconds, store


def _memory_snapshots(
    store: Any, entities: list[Entity], rels: list[Relationship], picks: Sequence[str]
) -> Iterator[Figure]:
    raw, _seconds = raw_graph(entities, rels)
    ours, theirs = _interleaved(partial(store.identity_snapshot, "bench"), raw, picks, warm=True)
    for q, label in ((0.5, "p50"), (0.99, "p99")):
        yield Figure(
            f"identity snapshot {label} on memory://", percentile(ours, q), "us"
        ).with_baseline(percentile(theirs, q))


def _interleaved(
    snapshot: Callable[[str], object], raw: Any, picks: Sequence[str], *, warm: bool
) -> tuple[list[float], list[float]]:
    """Microseconds of ``snapshot`` and of the hand-written walk, pick by pick."""

    def by_hand(npc: str) -> object:
        return raw_snapshot(raw, npc, datetime.now(UTC))

    if warm:
        for npc in picks[:50]:
            snapshot(npc)
            by_hand(npc)
    ours: list[float] = []
    theirs: list[float] = []
    for npc in picks:  # interleaved, so machine noise hits both alike
        ours.append(time_us(partial(snapshot, npc)))
        theirs.append(time_us(partial(by_hand, npc)))
    return ours, theirs


def _write_journal(
    path: Path, tenant: str, entities: list[Entity], rels: list[Relationship]
) -> None:
    """The world in graphmem's previous file format, as its compaction wrote it."""
    with path.open("w", encoding="utf-8") as out:
        out.write(json.dumps({"kind": "graphmem-file", "version": 1}) + "\n")
        for key, models in (("entities", entities), ("relationships", rels)):
            for start in range(0, len(models), _JOURNAL_CHUNK):
                part = [m.model_dump(mode="json") for m in models[start : start + _JOURNAL_CHUNK]]
                record = {"op": "put", "tenant": tenant, key: part}
                out.write(json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n")


def _child(mode: str, path: Path, picks: Sequence[str]) -> dict[str, float]:
    """Run one reopen in a fresh interpreter; its measurements as a dict."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as spec:
        json.dump({"mode": mode, "path": str(path), "picks": list(picks)}, spec)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "graphmem.tools.bench.storage", spec.name],
            capture_output=True,
            text=True,
            check=False,
        )
    finally:
        os.unlink(spec.name)
    if done.returncode != 0:
        raise RuntimeError(f"the {mode} reopen failed:\n{done.stderr}")
    result: dict[str, float] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def _peak_mb() -> float:
    """This process's peak resident memory so far, in MB."""
    try:
        # Linux: VmHWM starts afresh at exec; ru_maxrss would carry the parent's peak over.
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    except OSError:
        pass
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / (1 << 20) if sys.platform == "darwin" else peak / 1024


def _measure(mode: str, path: Path, picks: list[str]) -> dict[str, float]:
    """In the child: reopen (timed, peak memory) and, for SQLite, the snapshots."""
    import sqlite3

    import networkx as nx

    if mode != "floor":
        import graphmem.backends.networkx.sqlite_file  # noqa: F401  (imports not timed)
    before = _peak_mb()
    start = time.perf_counter()
    if mode == "floor":
        connection = sqlite3.connect(path)
        graph = nx.MultiDiGraph()
        graph.add_edges_from(
            (s, t, k, {})
            for s, t, k in connection.execute("SELECT source, target, type FROM relationship")
        )
        store = None
    else:
        options = {"read_only": True} if mode == "journal" else {"preload": mode == "preload"}
        store = open_store(path.as_uri(), warm=mode == "warm", **options)
    out = {"seconds": time.perf_counter() - start, "peak_mb": _peak_mb() - before}
    if mode == "warm" and store is not None:
        # Warmed up when the store answers reads from memory alone (its public capability).
        while "inline_reads" not in store.capabilities:
            if time.perf_counter() - start > 3600:
                raise RuntimeError("the warm-up did not finish within an hour")
            time.sleep(0.01)
        out["ready"] = time.perf_counter() - start
        out["peak_mb"] = _peak_mb() - before
    if mode in ("sqlite", "preload", "warm") and store is not None:
        raw = _walk_graph(path, picks)
        snapshot = partial(store.identity_snapshot, "bench")
        cold, walk = _interleaved(snapshot, raw, picks, warm=False)
        warm, walk_again = _interleaved(snapshot, raw, picks, warm=False)
        walk = [min(a, b) for a, b in zip(walk, walk_again, strict=True)]
        for q, label in ((0.5, "p50"), (0.99, "p99")):
            out[f"cold_{label}"] = percentile(cold, q)
            out[f"warm_{label}"] = percentile(warm, q)
            out[f"walk_{label}"] = percentile(walk, q)
        out["cold_mean"] = statistics.fmean(cold)
    return out


def _walk_graph(path: Path, picks: list[str]) -> Any:
    """The picks' neighbourhoods as a MultiDiGraph of plain dicts, read with sqlite3."""
    import sqlite3

    import networkx as nx

    wanted = set(picks)
    connection = sqlite3.connect(path)
    graph = nx.MultiDiGraph()
    ends: set[str] = set(wanted)
    times = ("valid_at", "invalid_at", "created_at", "expired_at")
    for source, target, type_, body in connection.execute(
        "SELECT source, target, type, body FROM relationship"
    ):
        if source in wanted or target in wanted:
            data = json.loads(body)
            for key in times:
                if data[key] is not None:
                    data[key] = datetime.fromisoformat(data[key])
            graph.add_edge(source, target, key=type_, **data)
            ends.update((source, target))
    for entity_id, body in connection.execute("SELECT id, body FROM entity"):
        if entity_id in ends:
            graph.add_node(entity_id, **json.loads(body))
    connection.close()
    return graph


if __name__ == "__main__":
    spec = json.loads(Path(sys.argv[1]).read_text())
    print(json.dumps(_measure(spec["mode"], Path(spec["path"]), spec["picks"])))
