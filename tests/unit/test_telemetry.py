"""graphmem.core.telemetry: the Prometheus text it writes, the spans it records, and no cost
without OpenTelemetry (the server side is tests/server/test_metrics.py)."""

from __future__ import annotations

import subprocess
import sys
import threading

import pytest

import graphmem
from graphmem.core.store import TraceEvent
from graphmem.core.telemetry import BUCKETS, Gauge, Metrics, StoreTelemetry, recording_check


def test_render_writes_cumulative_buckets_sums_counts_and_escaped_labels() -> None:
    m = Metrics()
    m.observe_store("identity_snapshot", 0.00005)
    m.observe_store("identity_snapshot", 0.003, round_trips=1)
    m.observe_store("identity_snapshot", 99.0)  # beyond the largest bucket
    m.observe_request("GET", '/v1/odd"route\\', 404, 0.0002, error="NotFound")
    text = m.render([Gauge("graphmem_test_gauge", "A gauge.", {(("k", "v"),): 2.5, (): 3.0})])
    lines = text.splitlines()
    op = 'operation="identity_snapshot"'
    assert f"graphmem_store_operations_total{{{op}}} 3" in lines
    assert f'graphmem_store_operation_duration_seconds_bucket{{{op},le="0.0001"}} 1' in lines
    assert f'graphmem_store_operation_duration_seconds_bucket{{{op},le="0.005"}} 2' in lines
    assert f'graphmem_store_operation_duration_seconds_bucket{{{op},le="10.0"}} 2' in lines
    assert f'graphmem_store_operation_duration_seconds_bucket{{{op},le="+Inf"}} 3' in lines
    assert f"graphmem_store_operation_duration_seconds_count{{{op}}} 3" in lines
    assert (
        f"graphmem_store_operation_duration_seconds_sum{{{op}}} {0.00005 + 0.003 + 99.0!r}" in lines
    )
    assert f"graphmem_store_round_trips_total{{{op}}} 1" in lines
    route = 'route="/v1/odd\\"route\\\\"'
    assert f'graphmem_http_requests_total{{method="GET",{route},status="404"}} 1' in lines
    assert f'graphmem_http_errors_total{{type="NotFound",{route}}} 1' in lines
    assert 'graphmem_test_gauge{k="v"} 2.5' in lines
    assert "graphmem_test_gauge 3" in lines
    # every metric is declared once, before its samples
    types = [line.split()[2] for line in lines if line.startswith("# TYPE ")]
    assert len(types) == len(set(types)) == 7
    assert len([line for line in lines if "_bucket{" in line]) == 2 * (len(BUCKETS) + 1)
    m.clear()
    assert "graphmem_store_operations_total{" not in m.render()


def test_a_store_tracer_counts_operations_and_calls_the_next_tracer() -> None:
    m = Metrics()
    seen: list[str] = []
    telemetry = StoreTelemetry(m, spans=False, then=lambda e: seen.append(e.name))
    with graphmem.open("memory://", tenant="t", tracer=telemetry) as mem:
        mem.upsert_entities([{"id": "odile", "type": "npc", "name": "Odile"}])
        mem.identity_snapshot("odile")
        with pytest.raises(graphmem.NotFound):
            mem.identity_snapshot("nobody")
    text = m.render()
    assert 'graphmem_store_operations_total{operation="identity_snapshot"} 2' in text
    assert 'graphmem_store_operations_total{operation="upsert_entities"} 1' in text
    assert seen.count("identity_snapshot") == 2


def test_the_next_tracer_gets_the_whole_event_on_the_fast_path() -> None:
    events: list[TraceEvent] = []
    telemetry = StoreTelemetry(Metrics(), spans=False, then=events.append)
    with graphmem.open("memory://", tenant="t", tracer=telemetry) as mem:
        mem.upsert_entities([{"id": "odile", "type": "npc", "name": "Odile"}])
        mem.identity_snapshot("odile")
    (snapshot,) = [e for e in events if e.name == "identity_snapshot"]
    assert snapshot.params["tenant"] == "t"
    assert snapshot.params["args"][0] == "odile"
    assert snapshot.seconds > 0
    assert snapshot.round_trips == 0


def test_counts_from_many_threads_add_up_also_after_they_end_and_clear_forgets_them() -> None:
    m = Metrics()
    go = threading.Event()
    done = threading.Barrier(3)

    def count(n: int, stay: bool) -> None:
        for _ in range(n):
            m.observe_store("get_entities", 0.0002, round_trips=2)
        if stay:  # still alive while the totals are rendered
            done.wait()
            go.wait()

    ended = [threading.Thread(target=count, args=(500, False)) for _ in range(3)]
    alive = [threading.Thread(target=count, args=(700, True)) for _ in range(2)]
    for t in (*ended, *alive):
        t.start()
    for t in ended:
        t.join()
    done.wait()
    m.observe_store("get_entities", 0.0002)  # this thread's own table
    text = m.render()
    total = 3 * 500 + 2 * 700 + 1
    assert f'graphmem_store_operations_total{{operation="get_entities"}} {total}' in text
    assert f'graphmem_store_round_trips_total{{operation="get_entities"}} {2 * (total - 1)}' in text
    le = 'le="0.00025"'
    assert f'_bucket{{operation="get_entities",{le}}} {total}' in text
    m.clear()  # live threads' counts too
    assert "graphmem_store_operations_total{" not in m.render()
    go.set()
    for t in alive:
        t.join()
    m.observe_store("get_entities", 0.0002)
    assert 'graphmem_store_operations_total{operation="get_entities"} 1' in m.render()


def _sdk() -> tuple[object, object]:
    sdk = pytest.importorskip("opentelemetry.sdk.trace", reason="opentelemetry-sdk missing")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = sdk.TracerProvider()
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    return provider.get_tracer("test"), exporter


def test_store_spans_join_a_recording_span_and_start_no_trace_alone() -> None:
    tracer, exporter = _sdk()
    event = TraceEvent("identity_snapshot", {"tenant": "village", "args": ("odile",)}, 0.002, 0)
    StoreTelemetry(Metrics(), tracer=tracer)(event)
    assert exporter.get_finished_spans() == ()  # type: ignore[attr-defined]
    with tracer.start_as_current_span("agent step") as parent:  # type: ignore[attr-defined]
        StoreTelemetry(Metrics(), tracer=tracer)(event)
    store, step = exporter.get_finished_spans()  # type: ignore[attr-defined]
    assert store.name == "graphmem.store identity_snapshot"
    assert store.parent.span_id == parent.get_span_context().span_id
    assert dict(store.attributes) == {
        "db.system.name": "graphmem",
        "db.operation.name": "identity_snapshot",
        "graphmem.tenant": "village",
    }
    assert store.end_time - store.start_time == pytest.approx(2_000_000, abs=1_000)
    exporter.clear()  # type: ignore[attr-defined]
    StoreTelemetry(Metrics(), tracer=tracer, root_spans=True)(event)
    (alone,) = exporter.get_finished_spans()  # type: ignore[attr-defined]
    assert alone.parent is None


def test_the_recording_check_agrees_with_the_api_in_and_out_of_spans() -> None:
    tracer, _ = _sdk()
    from opentelemetry import trace
    from opentelemetry.trace import NonRecordingSpan, get_current_span

    check = recording_check()
    assert check.__name__ == "recording"  # the fast path: the API keeps its context as 1.x does

    def agree() -> bool:
        assert check() == get_current_span().is_recording()
        return check()

    assert not agree()
    with tracer.start_as_current_span("step"):  # type: ignore[attr-defined]
        assert agree()
        with trace.use_span(NonRecordingSpan(get_current_span().get_span_context())):
            assert not agree()
        assert agree()
    assert not agree()


def test_without_opentelemetry_there_is_no_span_code_and_counting_works() -> None:
    code = (
        "import sys; sys.modules['opentelemetry'] = None\n"  # as if it were not installed
        "import graphmem\n"
        "from graphmem.core.telemetry import Metrics, StoreTelemetry, otel_tracer\n"
        "assert otel_tracer() is None\n"
        "m = Metrics()\n"
        "with graphmem.open('memory://', tenant='t', tracer=StoreTelemetry(m)) as mem:\n"
        "    mem.upsert_entities([{'id': 'a', 'type': 'npc', 'name': 'A'}])\n"
        "print('upsert_entities\"} 1' in m.render())\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "True"


def test_import_graphmem_imports_no_telemetry() -> None:
    code = (
        "import sys, graphmem; "
        "print('opentelemetry' in sys.modules, 'graphmem.core.telemetry' in sys.modules)"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "False False"
