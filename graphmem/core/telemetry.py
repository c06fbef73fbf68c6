"""Telemetry: OpenTelemetry spans and Prometheus metrics of store operations.

A store reports every operation to its tracer (``open_store(url, tracer=...)``,
:class:`graphmem.core.store.TraceEvent`); :class:`StoreTelemetry` is such a tracer. For each
operation it

- counts it and its time in a :class:`Metrics` registry (the process-wide :data:`METRICS`
  by default), which renders the Prometheus text format (``graphmem serve`` serves it at
  ``GET /metrics``; :mod:`graphmem.doors.http.metrics` adds the HTTP requests);
- records an OpenTelemetry span ``graphmem.store <operation>`` with its start and end
  times, a child of the span current at the time (an HTTP request's, an agent step's),
  when ``opentelemetry-api`` is installed and such a span is recording: store operations
  show inside the traces of what called them, and a loop of embedded snapshots outside
  any trace does not start one trace per snapshot (``root_spans=True`` records those
  too). Whether the API is installed is checked once, on first use; when it is not, no
  span code runs at all. With the API but no SDK configured, no span is recording.

Use it with any store::

    from graphmem.core.telemetry import StoreTelemetry, METRICS

    mem = graphmem.open("file:///world.graphmem", tenant="t", tracer=StoreTelemetry())
    ...
    print(METRICS.render())

The HTTP server attaches one to the store it opens (unless started with ``--no-metrics``).
Nothing here is imported by ``import graphmem``.
"""

from __future__ import annotations

import threading
import time
import weakref
from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from graphmem.core.store import TraceEvent, Tracer

__all__ = [
    "BUCKETS",
    "METRICS",
    "Gauge",
    "Histogram",
    "Metrics",
    "StoreTelemetry",
    "otel_tracer",
    "recording_check",
    "reset_otel",
]

BUCKETS: tuple[float, ...] = (
    0.0001,
    0.00025,
    0.0005,
    0.001,
    0.0025,
    0.005,
    0.01,
    0.025,
    0.05,
    0.1,
    0.25,
    0.5,
    1.0,
    2.5,
    5.0,
    10.0,
)
"""Upper bounds (seconds) of the latency histograms' buckets, from 100 us to 10 s."""

_UNCHECKED: Any = object()
_otel: Any = _UNCHECKED


def otel_tracer() -> Any | None:
    """The OpenTelemetry tracer of graphmem, or None when ``opentelemetry-api`` is not installed.

    The import is tried once per process. The tracer follows the global tracer provider,
    also when the application sets it after this call (OpenTelemetry's proxy tracer).
    """
    global _otel
    if _otel is _UNCHECKED:
        try:
            from opentelemetry import trace
        except ImportError:
            _otel = None
        else:
            _otel = trace.get_tracer("graphmem")
    return _otel


def recording_check() -> Callable[[], bool]:
    """A function telling whether a span is recording in the current context.

    It is ``get_current_span().is_recording()`` of the OpenTelemetry API, run around every
    store operation of a traced store; the API's function walks four Python calls to
    read one context variable, so this reads the variable itself when the API keeps its
    context where version 1.x does (a test checks the two agree), and falls back to the
    API's function otherwise.
    """
    from opentelemetry.trace import Span, get_current_span

    try:
        from opentelemetry.context import _RUNTIME_CONTEXT
        from opentelemetry.trace.propagation import _SPAN_KEY

        variable = _RUNTIME_CONTEXT._current_context  # type: ignore[attr-defined]
    except (ImportError, AttributeError):
        variable = None
    if not isinstance(variable, ContextVar):
        return lambda: bool(get_current_span().is_recording())
    current = variable.get

    def recording() -> bool:
        span = current().get(_SPAN_KEY)
        return span is not None and isinstance(span, Span) and bool(span.is_recording())

    return recording


def reset_otel() -> None:
    """Forget the tracer found by :func:`otel_tracer` (the next call looks again)."""
    global _otel
    _otel = _UNCHECKED


class Histogram:
    """Counts of observed durations per bucket of :data:`BUCKETS`, their sum and count."""

    __slots__ = ("buckets", "count", "sum")

    def __init__(self) -> None:
        self.buckets = [0] * (len(BUCKETS) + 1)  # the last one: over the largest bound
        self.count = 0
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        """Count one duration."""
        self.buckets[bisect_left(BUCKETS, seconds)] += 1
        self.count += 1
        self.sum += seconds


@dataclass(frozen=True)
class Gauge:
    """A value read when the metrics are rendered: a name, its help, labelled samples."""

    name: str
    help: str
    samples: Mapping[tuple[tuple[str, str], ...], float]


class Metrics:
    """Counters and latency histograms of store operations and HTTP requests.

    Thread-safe: stores report from worker threads. :meth:`render` writes the Prometheus
    text exposition format (version 0.0.4).
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # Store operations are counted per thread, without a lock (they run around every
        # operation, where a lock costs as much as the rest), each in a row of bucket
        # counts, the sum of seconds and the round trips; the rows of finished threads
        # are folded into ``_done``.
        self._local = threading.local()
        self._threads: list[tuple[weakref.ref[threading.Thread], dict[str, list[Any]]]] = []
        self._done: dict[str, list[Any]] = {}
        self._requests: dict[tuple[str, str, str], int] = {}
        self._latency: dict[tuple[str, str], Histogram] = {}
        self._errors: dict[tuple[str, str], int] = {}

    def observe_store(self, operation: str, seconds: float, round_trips: int = 0) -> None:
        """Count one store operation (a query file name on a server backend) and its time."""
        try:
            table: dict[str, list[Any]] = self._local.table
        except AttributeError:
            table = self._thread_table()
        row = table.get(operation)
        if row is None:
            row = table[operation] = _new_row()
        row[bisect_left(BUCKETS, seconds)] += 1
        row[_SUM] += seconds
        if round_trips:
            row[_TRIPS] += round_trips

    def _thread_table(self) -> dict[str, list[Any]]:
        table: dict[str, list[Any]] = {}
        self._local.table = table
        with self._lock:
            self._fold_finished()
            self._threads.append((weakref.ref(threading.current_thread()), table))
        return table

    def _fold_finished(self) -> None:
        """Fold the rows of threads that have ended into ``_done`` (under the lock)."""
        alive = []
        for thread, table in self._threads:
            found = thread()
            if found is not None and found.is_alive():
                alive.append((thread, table))
            else:  # nothing writes these any more
                _add_rows(self._done, table)
        self._threads = alive

    def _store_totals(self) -> tuple[dict[str, Histogram], dict[str, int]]:
        """The store counts of every thread, summed (under the lock)."""
        self._fold_finished()
        rows: dict[str, list[Any]] = {}
        _add_rows(rows, self._done)
        for _, table in self._threads:
            _add_rows(rows, table)
        store: dict[str, Histogram] = {}
        trips: dict[str, int] = {}
        for name, row in rows.items():
            h = store[name] = Histogram()
            h.buckets = row[:_SUM]
            h.count = sum(h.buckets)
            h.sum = row[_SUM]
            if row[_TRIPS]:
                trips[name] = row[_TRIPS]
        return store, trips

    def observe_request(
        self, method: str, route: str, status: int, seconds: float, error: str | None = None
    ) -> None:
        """Count one HTTP request by its route template; ``error``: the error type, if any."""
        key = (method, route, str(status))
        with self._lock:
            self._requests[key] = self._requests.get(key, 0) + 1
            found = self._latency.get((method, route))
            if found is None:
                found = self._latency[(method, route)] = Histogram()
            found.observe(seconds)
            if error is not None:
                self._errors[(error, route)] = self._errors.get((error, route), 0) + 1

    def clear(self) -> None:
        """Forget every count."""
        with self._lock:
            for table in (self._done, self._requests, self._latency, self._errors):
                table.clear()
            for _, rows in self._threads:
                rows.clear()

    def render(self, gauges: Iterable[Gauge] = ()) -> str:
        """The Prometheus text format of every metric, then of ``gauges``."""
        with self._lock:
            store, trips = self._store_totals()
            requests = dict(self._requests)
            latency = {k: _copy(v) for k, v in self._latency.items()}
            errors = dict(self._errors)
        out: list[str] = []
        _counter(
            out,
            "graphmem_http_requests_total",
            "HTTP requests answered, by method, route template and status.",
            {
                (("method", m), ("route", r), ("status", s)): n
                for (m, r, s), n in sorted(requests.items())
            },
        )
        _histogram(
            out,
            "graphmem_http_request_duration_seconds",
            "Time to answer an HTTP request, by method and route template.",
            {(("method", m), ("route", r)): h for (m, r), h in sorted(latency.items())},
        )
        _counter(
            out,
            "graphmem_http_errors_total",
            "HTTP requests answered with an error, by error type and route template.",
            {(("type", t), ("route", r)): n for (t, r), n in sorted(errors.items())},
        )
        _counter(
            out,
            "graphmem_store_operations_total",
            "Store operations (query files on a server backend), by operation.",
            {(("operation", name),): h.count for name, h in sorted(store.items())},
        )
        _histogram(
            out,
            "graphmem_store_operation_duration_seconds",
            "Time of a store operation, by operation.",
            {(("operation", name),): h for name, h in sorted(store.items())},
        )
        _counter(
            out,
            "graphmem_store_round_trips_total",
            "Network round trips to the database server, by operation (0 when embedded).",
            {(("operation", name),): n for name, n in sorted(trips.items())},
        )
        for gauge in gauges:
            _header(out, gauge.name, gauge.help, "gauge")
            for labels, value in gauge.samples.items():
                out.append(f"{gauge.name}{_labels(labels)} {_number(value)}")
        return "\n".join(out) + "\n"


_SUM = len(BUCKETS) + 1  # a store row: the bucket counts (the last: over 10 s), then
_TRIPS = _SUM + 1  # the sum of seconds, then the round trips


def _new_row() -> list[Any]:
    return [0] * _SUM + [0.0, 0]


def _add_rows(into: dict[str, list[Any]], rows: dict[str, list[Any]]) -> None:
    """Add ``rows`` to ``into`` (copies: a thread may go on counting in ``rows``)."""
    for name, row in rows.copy().items():  # copy(): one step, as the thread adds rows
        seen = list(row)
        found = into.get(name)
        if found is None:
            into[name] = seen
        else:
            into[name] = [a + b for a, b in zip(found, seen, strict=True)]


METRICS = Metrics()
"""The process-wide registry: what ``GET /metrics`` of ``graphmem serve`` renders."""


class StoreTelemetry:
    """A store tracer: metrics and (when ``opentelemetry-api`` is installed) a span per operation.

    Args:
        metrics: The registry to count in (default :data:`METRICS`); None counts nothing.
        spans: Record OpenTelemetry spans (when the API is installed).
        tracer: The OpenTelemetry tracer to record them with (default :func:`otel_tracer`:
            the global provider's).
        root_spans: Also record an operation's span when no span is recording (each
            such operation is then a trace of its own).
        then: Another tracer to call after this one (``graphmem bench``'s counter, a log).
    """

    def __init__(
        self,
        metrics: Metrics | None = METRICS,
        *,
        spans: bool = True,
        tracer: Any | None = None,
        root_spans: bool = False,
        then: Tracer | None = None,
    ) -> None:
        self._metrics = metrics
        self._tracer = (tracer if tracer is not None else otel_tracer()) if spans else None
        self._recording: Callable[[], bool] | None = None
        if self._tracer is not None and not root_spans:
            self._recording = recording_check()
        self._count = metrics.observe_store if metrics is not None else None
        self._then = then

    def __call__(self, event: TraceEvent) -> None:
        """Count ``event``, record its span, then call the next tracer."""
        self.observe(event.name, event.params, event.seconds, event.round_trips, event)

    def observe(
        self,
        name: str,
        params: Mapping[str, Any],
        seconds: float,
        round_trips: int = 0,
        event: TraceEvent | None = None,
    ) -> None:
        """:meth:`__call__` without a :class:`TraceEvent`: what :class:`traced` calls.

        The next tracer, if any, gets ``event`` (built here when not given).
        """
        if self._count is not None:
            self._count(name, seconds, round_trips)
        tracer = self._tracer
        if tracer is not None and (self._recording is None or self._recording()):
            end = time.time_ns()
            attributes: dict[str, Any] = {
                "db.system.name": "graphmem",
                "db.operation.name": name,
            }
            tenant = params.get("tenant")
            if isinstance(tenant, str):
                attributes["graphmem.tenant"] = tenant
            if round_trips:
                attributes["graphmem.round_trips"] = round_trips
            span = tracer.start_span(
                f"graphmem.store {name}",
                start_time=end - int(seconds * 1e9),
                attributes=attributes,
            )
            span.end(end_time=end)
        if self._then is not None:
            if event is None:
                event = TraceEvent(name, params, seconds, round_trips)
            self._then(event)


# --------------------------------------------------------------------------- exposition

_Labels = tuple[tuple[str, str], ...]


def _copy(h: Histogram) -> Histogram:
    """A copy of ``h``, its count the sum of its buckets (``h`` may be counting meanwhile)."""
    out = Histogram()
    out.buckets = list(h.buckets)
    out.count = sum(out.buckets)
    out.sum = h.sum
    return out


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def _labels(labels: _Labels) -> str:
    if not labels:
        return ""
    return "{" + ",".join(f'{k}="{_escape(v)}"' for k, v in labels) + "}"


def _number(value: float) -> str:
    if isinstance(value, int) or float(value).is_integer():
        return str(int(value))
    return repr(float(value))


def _header(out: list[str], name: str, help: str, kind: str) -> None:
    out.append(f"# HELP {name} {help}")
    out.append(f"# TYPE {name} {kind}")


def _counter(out: list[str], name: str, help: str, samples: Mapping[_Labels, int]) -> None:
    _header(out, name, help, "counter")
    for labels, value in samples.items():
        out.append(f"{name}{_labels(labels)} {value}")


def _histogram(out: list[str], name: str, help: str, samples: Mapping[_Labels, Histogram]) -> None:
    _header(out, name, help, "histogram")
    for labels, h in samples.items():
        running = 0
        for bound, count in zip((*BUCKETS, None), h.buckets, strict=True):
            running += count
            le = "+Inf" if bound is None else repr(bound)
            out.append(f"{name}_bucket{_labels((*labels, ('le', le)))} {running}")
        out.append(f"{name}_sum{_labels(labels)} {repr(h.sum)}")
        out.append(f"{name}_count{_labels(labels)} {h.count}")
