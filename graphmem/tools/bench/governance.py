"""``graphmem bench --governance``: the cost of governed facts in the graph, beside baselines.

The figures behind the design of one model of a fact (docs/design-proposal-facts.md),
on a world of ``--sizes``' last count (1,000 with ``--quick``) entities with about ten
relationships each:

- a governed workspace ``learn`` about an NPC (the fact record, its audit entry and the
  edge that shows it, in one write), against the same ``learn`` in agent scope (the
  ledger only, as governed facts were before): what keeping the graph in step costs;
- a governed ``relate`` between two entities, against ``upsert_relationships`` of one
  relationship: what governance costs a relationship write;
- the identity snapshot p50 of NPCs holding ten governed facts as edges (this design: one
  store call), against NPCs of the same world holding ten facts as owned records (the
  other shape: facts kept as records and joined at read time), read as the snapshot plus
  one owner-indexed read of the fact records and the believed-now filter, in the same
  run. On a server backend the other shape costs one more round trip per snapshot.

Each figure also reports the store round trips per operation (Neo4j) from the tracer.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
import uuid
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from graphmem.core.models import Record, Relationship, utcnow
from graphmem.core.store import TraceEvent, open_store
from graphmem.memory import Memory
from graphmem.policy.audit import FACT_KIND
from graphmem.policy.facts import Fact

__all__ = ["governance_figures"]

_FACTS_PER_NPC = 10


class _Trips:
    def __init__(self) -> None:
        self.round_trips = 0

    def __call__(self, event: TraceEvent) -> None:
        self.round_trips += event.round_trips


class _Timer:
    """Times calls (microseconds) and counts the store round trips of those it is told to."""

    def __init__(self, trips: _Trips) -> None:
        self._trips = trips
        self.round_trips = 0
        self.counted = 0

    def __call__(self, fn: Callable[[], object], *, count: bool = False) -> float:
        before = self._trips.round_trips
        start = time.perf_counter_ns()
        fn()
        took = (time.perf_counter_ns() - start) / 1000
        if count:
            self.round_trips += self._trips.round_trips - before
            self.counted += 1
        return took

    def per_call(self) -> float:
        """Round trips per counted call since the last call of this method."""
        value = self.round_trips / self.counted if self.counted else 0.0
        self.round_trips = self.counted = 0
        return value


def _median_ms(
    figure: Any, name: str, ours: list[float], theirs: list[float], timed: _Timer
) -> Any:
    """A figure of median milliseconds (from microseconds) beside its baseline's."""
    return figure(
        name, statistics.median(ours) / 1000, "ms", round_trips=timed.per_call()
    ).with_baseline(statistics.median(theirs) / 1000)


def governance_figures(
    args: argparse.Namespace, say: Callable[[str], None], *, figure: Any
) -> Iterator[Any]:
    """Yield the figures of ``graphmem bench --governance`` (``figure``: the Figure class)."""
    from graphmem.tools.bench.common import ingest, percentile, synthetic_world

    size = 1000 if args.quick else [int(s) for s in str(args.sizes).split(",") if s][-1]
    learns = 100 if args.quick else 400
    samples = min(args.samples, 300) if args.quick else args.samples
    trips = _Trips()
    store = open_store(args.store, tracer=trips)
    mem = Memory(store, f"bench-{uuid.uuid4().hex[:8]}")
    try:
        say(f"building a world of {size:,} entities ...")
        entities, rels = synthetic_world(size, args.seed)
        ingest(mem, entities, rels, say)
        rng = random.Random(args.seed)
        npcs = [f"e{rng.randrange(size)}" for _ in range(learns)]
        facts = mem.fact_memory(actor="bench")
        say(f"  {learns} governed learns in each scope ...")
        timed = _Timer(trips)
        ledger: list[float] = []
        graph: list[float] = []
        for n, npc in enumerate(npcs):  # interleaved, so machine noise hits both alike
            name = f"Entity {npc[1:]}"
            ledger.append(timed(partial(facts.learn, name, f"mood {n}", f"calm {n}")))
            workspace = partial(facts.learn, name, f"trait {n}", f"brave {n}", scope="workspace")
            graph.append(timed(workspace, count=True))
        yield _median_ms(figure, "governed learn with its edge (workspace)", graph, ledger, timed)

        say(f"  {learns} governed relates beside plain upserts ...")
        governed: list[float] = []
        plain: list[float] = []
        for n in range(learns):
            a, b = f"e{rng.randrange(size)}", f"e{rng.randrange(size)}"
            governed.append(timed(partial(facts.relate, a, f"owes_{n}", b), count=True))
            one = Relationship(source_id=b, target_id=a, type=f"owed_{n}")
            plain.append(timed(partial(mem.upsert_relationships, [one])))
        yield _median_ms(figure, "governed relate (one relationship)", governed, plain, timed)

        say(f"  {samples:,} snapshots of NPCs with {_FACTS_PER_NPC} governed facts ...")
        # Two sets of NPCs with the same kind of neighbourhood: one holds its governed
        # facts as edges (this design), the other as owned records (the other shape).
        subjects = sorted(set(npcs))[:100]
        as_edges, as_records = subjects[0::2], subjects[1::2]
        for npc in as_edges:
            for k in range(_FACTS_PER_NPC):
                name = f"Entity {npc[1:]}"
                facts.learn(name, f"habit {k}", f"habit {k} of {npc}", scope="workspace")
        template = store.find_records(mem.tenant, FACT_KIND, limit=1)[0].data
        for npc in as_records:  # the same fact records, found by owner instead of as edges
            rows = [
                Record(
                    kind="bench_fact",
                    owner=npc,
                    data={**template, "subject": npc, "value": f"habit {k} of {npc}"},
                )
                for k in range(_FACTS_PER_NPC)
            ]
            store.put_records(mem.tenant, "bench_fact", rows)

        def joined(npc: str) -> object:
            snapshot = mem.identity_snapshot(npc)
            now = utcnow()
            records = store.find_records(mem.tenant, "bench_fact", owner=npc)
            believed = [f for f in map(Fact.from_record, records) if f.believed_at(now)]
            return snapshot, believed

        for npc in subjects:  # warm up both sides
            mem.identity_snapshot(npc)
            joined(npc)
        ours: list[float] = []
        theirs: list[float] = []
        for _ in range(samples):  # interleaved, so machine noise hits both alike
            edge_npc = as_edges[rng.randrange(len(as_edges))]
            record_npc = as_records[rng.randrange(len(as_records))]
            ours.append(timed(partial(mem.identity_snapshot, edge_npc), count=True))
            theirs.append(timed(partial(joined, record_npc)))
        yield figure(
            f"snapshot p50, NPC with {_FACTS_PER_NPC} governed facts (edges)",
            percentile(ours, 0.5),
            "us",
            round_trips=timed.per_call(),
        ).with_baseline(percentile(theirs, 0.5))
    finally:
        say("clearing the bench tenant ...")
        mem.clear()
        mem.close()
