"""The observability figures of ``graphmem bench``: what telemetry costs an identity snapshot.

Two ``memory://`` stores hold the same world: one opened with no tracer (what a library
user gets), one with :class:`graphmem.core.telemetry.StoreTelemetry`: Prometheus counters in a
registry of its own and, when ``opentelemetry-sdk`` is installed, OpenTelemetry spans
through an SDK tracer provider whose spans go to an in-memory exporter (a
``SimpleSpanProcessor``: the export runs in the call, the costliest way). Snapshots of
the same NPCs alternate between the two stores (which goes first alternates too; both worlds
are built batch by batch in turn), so machine noise hits both alike. Two
figures, each telemetry on against off (ratio 1.05 = 5% slower):

- a bare snapshot (no span recording: the counters, and the check for a parent span);
- a snapshot inside a recording span of the application's (an HTTP request's, an agent
  step's), on both sides: the store operation's own span is recorded as its child on
  the "on" side; both sides pay for the parent span. The difference is about one span
  of the SDK's, so a third figure times one such span alone, in the same run.

The embedded store is where a snapshot is cheapest, so where the overhead shows most.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable, Iterator
from functools import partial
from typing import Any

from graphmem.core.models import Entity, Relationship
from graphmem.core.store import open_store
from graphmem.core.telemetry import Metrics, StoreTelemetry
from graphmem.memory import Memory

__all__ = ["telemetry_figures"]


def _sdk_tracer() -> tuple[Any, Callable[[], int]] | None:
    """An SDK tracer exporting to memory and a count of its spans; None without the SDK."""
    try:
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import (
            InMemorySpanExporter,
        )
    except ImportError:
        return None
    provider = TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("graphmem"), lambda: len(exporter.get_finished_spans())


def telemetry_figures(
    world: tuple[list[Entity], list[Relationship]],
    samples: int,
    seed: int,
    say: Callable[[str], None],
    figure: Callable[..., Any],
    percentile: Callable[[list[float], float], float],
) -> Iterator[Any]:
    """Snapshot p50 with telemetry on against off: bare, and inside a recording span."""
    entities, rels = world
    size = len(entities)
    sdk = _sdk_tracer()
    what = "metrics + OpenTelemetry SDK spans" if sdk else "metrics only: no opentelemetry-sdk"
    say(f"  telemetry on and off ({what}), {samples:,} snapshots each at {size:,} entities ...")
    tracer = sdk[0] if sdk else None
    telemetry = StoreTelemetry(Metrics(), spans=sdk is not None, tracer=tracer)
    off = Memory(open_store("memory://"), "bench-telemetry")
    on = Memory(open_store("memory://", tracer=telemetry), "bench-telemetry")
    try:
        # Built batch by batch in turn, so the two worlds' objects lie alike in memory.
        for start in range(0, len(entities), 10_000):
            for mem in (off, on):
                mem.upsert_entities(entities[start : start + 10_000])
        for start in range(0, len(rels), 10_000):
            for mem in (off, on):
                mem.upsert_relationships(rels[start : start + 10_000])
        rng = random.Random(seed + 1)
        picks = [f"e{rng.randrange(size)}" for _ in range(samples)]

        def in_span(mem: Memory, npc: str) -> None:
            assert tracer is not None
            with tracer.start_as_current_span("request"):
                mem.identity_snapshot(npc)

        cases: list[tuple[str, Callable[[Memory, str], object]]] = [
            ("", lambda mem, npc: mem.identity_snapshot(npc))
        ]
        if tracer is not None:
            cases.append((" in a traced request", in_span))
        for label, call in cases:
            for npc in picks[:50]:  # warm up both sides
                call(off, npc)
                call(on, npc)
            spans = sdk[1]() if sdk else 0
            with_it: list[float] = []
            without: list[float] = []
            for i, npc in enumerate(picks):  # which side goes first alternates too
                if i % 2:
                    with_it.append(_time_us(partial(call, on, npc)))
                    without.append(_time_us(partial(call, off, npc)))
                else:
                    without.append(_time_us(partial(call, off, npc)))
                    with_it.append(_time_us(partial(call, on, npc)))
            if label and sdk is not None:  # a store span per snapshot, beside the requests
                assert sdk[1]() - spans == 3 * len(picks), "store spans missing"
            yield figure(
                f"identity snapshot p50{label}, telemetry on vs off ({size:,})",
                percentile(with_it, 0.5),
                "us",
            ).with_baseline(percentile(without, 0.5))
        if tracer is not None:  # what the SDK itself takes per span, for the figure above
            alone = [_time_us(partial(_one_span, tracer)) for _ in picks]
            yield figure("one OpenTelemetry SDK span alone, p50", percentile(alone, 0.5), "us")
    finally:
        off.close()
        on.close()


def _one_span(tracer: Any) -> None:
    """A span with the attributes of a store operation's, started and ended."""
    span = tracer.start_span(
        "graphmem.store identity_snapshot",
        attributes={
            "db.system.name": "graphmem",
            "db.operation.name": "identity_snapshot",
            "graphmem.tenant": "bench-telemetry",
        },
    )
    span.end()


def _time_us(fn: Callable[[], object]) -> float:
    start = time.perf_counter_ns()
    fn()
    return (time.perf_counter_ns() - start) / 1000.0
