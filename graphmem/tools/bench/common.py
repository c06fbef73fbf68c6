"""What every bench shares: a figure beside its baseline, a synthetic world, timers.

``graphmem bench`` and its parts (``--storage``, ``--minds``, ``--server``, ...) build the
same synthetic world and print figures the same way; this module is below all of them.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from graphmem.core.models import Entity, Provenance, Relationship
from graphmem.core.store import TraceEvent
from graphmem.memory import Memory

__all__ = [
    "Figure",
    "TraceCounter",
    "ingest",
    "percentile",
    "raw_graph",
    "raw_snapshot",
    "synthetic_world",
    "time_us",
]

_REL_TYPES = ("knows", "trusts", "fears", "owns", "member_of", "located_in", "serves", "hates")
_ENTITY_TYPES = ("npc", "npc", "npc", "location", "item", "faction")


@dataclass
class Figure:
    """One measured figure and its baseline (``ratio`` = value / baseline).

    ``better`` says which way is better: ``higher`` for rates (units per second),
    ``lower`` for times and sizes.
    """

    name: str
    value: float
    unit: str
    baseline: float | None = None
    ratio: float | None = None
    round_trips: float | None = None
    better: str = ""

    def __post_init__(self) -> None:
        if not self.better:
            self.better = "higher" if self.unit.endswith("/s") else "lower"

    def reading(self) -> str:
        """The ratio in words: how many times faster or slower than the baseline."""
        if not self.ratio:
            return ""
        gain = self.ratio if self.better == "higher" else 1 / self.ratio
        if 0.995 <= gain <= 1.005:
            return "same as baseline"
        return f"{gain:.2f}x faster" if gain > 1 else f"{1 / gain:.2f}x slower"

    def with_baseline(self, baseline: float | None) -> Figure:
        """Attach a baseline and compute the ratio."""
        self.baseline = baseline
        if baseline:
            self.ratio = self.value / baseline
        return self


class TraceCounter:
    """A tracer counting store operations and server round trips."""

    def __init__(self) -> None:
        self.calls = 0
        self.round_trips = 0

    def __call__(self, event: TraceEvent) -> None:
        """Count one traced event."""
        # A server transaction's BEGIN and COMMIT are round trips, not another operation.
        if event.name != "transaction":
            self.calls += 1
        self.round_trips += event.round_trips

    def reset(self) -> None:
        """Start counting again from zero."""
        self.calls = self.round_trips = 0


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile of ``values`` (nearest rank)."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def synthetic_world(
    size: int, seed: int, per_entity: int = 5
) -> tuple[list[Entity], list[Relationship]]:
    """``size`` entities with about ``2 * per_entity`` relationships each (out and in)."""
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
        for _ in range(per_entity):  # as many out, and on average as many in
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


def raw_graph(entities: list[Entity], rels: list[Relationship]) -> tuple[Any, float]:
    """The same world as a plain networkx MultiDiGraph of dicts, and the seconds it took."""
    import networkx as nx

    nodes = [(e.id, e.model_dump()) for e in entities]
    edges = [(r.source_id, r.target_id, r.type, r.model_dump()) for r in rels]
    start = time.perf_counter()
    graph = nx.MultiDiGraph()
    graph.add_nodes_from(nodes)
    graph.add_edges_from(edges)
    return graph, time.perf_counter() - start


def raw_snapshot(graph: Any, npc: str, now: datetime) -> tuple[Any, list[Any], list[Any]]:
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


def time_us(fn: Callable[[], object]) -> float:
    """Microseconds one call of ``fn`` takes."""
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1000.0  # microseconds


def ingest(
    mem: Memory, entities: list[Entity], rels: list[Relationship], say: Callable[[str], None]
) -> float:
    """Upsert the world in batches of 10,000 (progress every 100,000 items); the seconds."""
    batches: list[tuple[Callable[[Any], object], list[Any]]] = [
        (mem.upsert_entities, entities[i : i + 10_000]) for i in range(0, len(entities), 10_000)
    ] + [(mem.upsert_relationships, rels[i : i + 10_000]) for i in range(0, len(rels), 10_000)]
    total = len(entities) + len(rels)
    done = 0
    start = time.perf_counter()
    for upsert, batch in batches:
        upsert(batch)
        done += len(batch)
        if done % 100_000 < len(batch) or done == total:
            rate = done / (time.perf_counter() - start)
            say(f"  ingest: {done:,} / {total:,} items ({rate:,.0f} items/s)")
    return time.perf_counter() - start
