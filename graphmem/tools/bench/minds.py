"""``graphmem bench --minds``: NPC minds at game scale, each figure beside a same-run baseline.

A tavern of ``n`` NPCs (``--npcs``, default 10, 100 and 1,000), all present, so every
event has ``n`` witnesses. For each size, interleaved so machine noise hits both sides:

- ``record_event`` (a mug moved between two tables, seen by all) beside a plain write of
  one relationship (``upsert_relationships``): what witnessing costs over writing;
- ``tell`` (one NPC claims something to another, a lie two times in three) and
  ``announce`` (one NPC claims something to the whole tavern, every fifth step),
  interleaved with the events, beside the same plain write;
- belief reads of order 1, 2 and 4 (``belief(a, "mug", "located_in", of=[...])``)
  beside the identity snapshot of the same NPC;
- what is stored: evidence bytes per event and witness (linear storage stays flat as
  the tavern grows), and records written per event.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from functools import partial
from typing import Any

from graphmem.core.models import Relationship
from graphmem.core.store import open_store
from graphmem.memory import Memory

__all__ = ["add_arguments", "minds_figures"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``bench --minds`` options to ``parser``."""
    parser.add_argument(
        "--minds",
        action="store_true",
        help="measure NPC minds at game scale instead: a tavern of --npcs NPCs "
        "(record_event, tell, announce, belief reads of order 1, 2 and 4)",
    )
    parser.add_argument(
        "--npcs",
        default="10,100,1000",
        help="with --minds: tavern sizes, comma-separated (default 10,100,1000)",
    )


def _us(fn: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1000.0


def _tavern(mem: Memory, n: int, t0: datetime) -> list[str]:
    npcs = [f"npc{i}" for i in range(n)]
    mem.upsert_entities(
        [
            {"id": "tavern", "type": "location", "name": "the tavern"},
            *({"id": i, "type": "item", "name": f"the {i}"} for i in ("mug", "bar", "hearth")),
            *({"id": i, "type": "npc", "name": i.title()} for i in npcs),
        ]
    )
    mem.upsert_relationships(
        [
            {"source_id": who, "target_id": "tavern", "type": "located_in", "valid_at": t0}
            for who in [*npcs, "bar", "hearth"]
        ]
    )
    return npcs


def minds_figures(
    args: argparse.Namespace, say: Callable[[str], None], figure: Any
) -> Iterator[Any]:
    """The figures of ``graphmem bench --minds`` (``figure``: the bench's Figure class)."""
    sizes = [int(s) for s in str(getattr(args, "npcs", "10,100,1000")).split(",") if s.strip()]
    if args.quick:
        sizes = [s for s in sizes if s <= 100] or [10]
    store = open_store(args.store)
    try:
        for n in sizes:
            yield from _size(store, n, args.quick, args.seed, say, figure)
    finally:
        store.close()


def _size(
    store: Any, n: int, quick: bool, seed: int, say: Callable[[str], None], figure: Any
) -> Iterator[Any]:
    mem = Memory(store, f"bench-minds-{uuid.uuid4().hex[:8]}", owns_store=False)
    try:
        reps = (40 if n <= 100 else 15) if quick else (300 if n <= 100 else 100)
        say(f"a tavern of {n:,} NPCs: {reps} events, tells and announcements ...")
        t0 = datetime.now(UTC) - timedelta(days=1)  # the world reads now: all in the past
        npcs = _tavern(mem, n, t0)
        rng = random.Random(seed + n)
        clock = [t0]

        def tick() -> datetime:
            clock[0] += timedelta(seconds=1)
            return clock[0]

        def plain(k: int) -> object:
            edge = Relationship(source_id="mug", target_id=("bar", "hearth")[k % 2], type="near")
            return mem.upsert_relationships([edge])

        assert len(mem.record_event("rang", actor=npcs[0], at=tick()).witnesses) == n
        events: list[float] = []
        writes: list[float] = []
        tells: list[float] = []
        told: list[float] = []
        shouts: list[float] = []
        heard: list[float] = []
        before = sum(store.count_records(mem.tenant, k) for k in ("event", "evidence"))
        for k in range(reps):  # as in a game: things happen, NPCs talk, now and then aloud
            place = ("bar", "hearth")[k % 2]
            change = [("mug", "located_in", place)]
            move = partial(mem.record_event, "moved", actor=npcs[k % n], changes=change, at=tick())
            events.append(_us(move))
            writes.append(_us(partial(plain, k)))
            speaker, listener = rng.sample(npcs, 2)
            where = ("bar", "hearth", "tavern")[k % 3]  # the truth a third of the time
            say_it = partial(mem.tell, speaker, listener, ("mug", "located_in", where), at=tick())
            tells.append(_us(say_it))
            told.append(_us(partial(plain, k)))
            if k % 5 == 0:
                claim = ("mug", "located_in", ("hearth", "bar")[k % 2])
                shout = partial(mem.announce, npcs[(k + 1) % n], claim, at=tick())
                shouts.append(_us(shout))
                heard.append(_us(partial(plain, k)))
        written = sum(store.count_records(mem.tenant, k) for k in ("event", "evidence")) - before
        yield figure(
            f"record_event p50, {n:,} witnesses (vs a plain write)",
            statistics.median(events) / 1000,
            "ms",
        ).with_baseline(statistics.median(writes) / 1000)
        yield figure(
            f"tell p50, tavern of {n:,} (vs a plain write)", statistics.median(tells) / 1000, "ms"
        ).with_baseline(statistics.median(told) / 1000)
        yield figure(
            f"announce p50, {n - 1:,} listeners (vs a plain write)",
            statistics.median(shouts) / 1000,
            "ms",
        ).with_baseline(statistics.median(heard) / 1000)

        picks = [rng.sample(npcs, min(4, n)) for _ in range(reps * 5)]
        for chain in picks[:20]:  # warm up
            mem.belief(chain[0], "mug", "located_in", of=chain[1:])
            mem.identity_snapshot(chain[0])
        reads: dict[int, list[float]] = {1: [], 2: [], 4: []}
        snapshots: list[float] = []
        for chain in picks:
            npc = chain[0]
            for order in reads:
                ask = partial(mem.belief, npc, "mug", "located_in", of=chain[1:order])
                reads[order].append(_us(ask))
            snapshots.append(_us(partial(mem.identity_snapshot, npc)))
        base = statistics.median(snapshots)
        for order, times in reads.items():
            yield figure(
                f"belief read of order {order} p50, tavern of {n:,} (vs identity snapshot)",
                statistics.median(times),
                "us",
            ).with_baseline(base)

        evidence = store.find_records(mem.tenant, "evidence", newest_first=False)
        seen = [r for r in evidence if r.data.get("k") == "seen"]
        size = sum(len(json.dumps(dict(r.data), default=list)) for r in seen)
        witnesses = sum(len(r.data.get("members", ())) for r in seen)
        yield figure(
            f"evidence bytes per event and witness, tavern of {n:,}",
            size / max(1, witnesses),
            "B",
        )
        yield figure(
            f"event and evidence records per step (event, tell, 1/5 announce), tavern of {n:,}",
            written / reps,
            "recs",
        )
    finally:
        mem.clear()
