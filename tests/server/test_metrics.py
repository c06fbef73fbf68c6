"""Observability of the HTTP server: ``GET /metrics`` scraped from a live ``graphmem serve``,
and the OpenTelemetry spans of requests and store operations seen by an in-memory exporter.
"""

from __future__ import annotations

import re
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import Api, graphmem_serve, problem_of

LINE = re.compile(
    r'^(?P<name>[a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(?P<labels>(?:[a-zA-Z_]+="(?:[^"\\]|\\.)*",?)*)\})?'
    r" (?P<value>[-+]?(?:[0-9.]+(?:e[-+]?[0-9]+)?|\+Inf|NaN))$"
)
LABEL = re.compile(r'([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"')


def parse(text: str) -> dict[str, list[tuple[dict[str, str], float]]]:
    """The samples of a Prometheus text exposition, by metric name; checks the format."""
    assert text.endswith("\n")
    samples: dict[str, list[tuple[dict[str, str], float]]] = {}
    declared: dict[str, str] = {}
    for line in text.splitlines():
        if line.startswith("# HELP "):
            continue
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ")
            assert kind in ("counter", "gauge", "histogram"), line
            assert name not in declared, f"{name} declared twice"
            declared[name] = kind
            continue
        match = LINE.match(line)
        assert match is not None, f"not a sample line: {line!r}"
        name = match["name"]
        base = re.sub(r"_(bucket|sum|count)$", "", name)
        assert name in declared or base in declared, f"{name} has no # TYPE"
        labels = dict(LABEL.findall(match["labels"] or ""))
        samples.setdefault(name, []).append((labels, float(match["value"])))
    return samples


def value(samples: dict[str, Any], name: str, **labels: str) -> float:
    return sum(v for found, v in samples.get(name, []) if labels.items() <= found.items())


def scrape(api: Api) -> dict[str, Any]:
    with api.client() as anonymous:  # no key: /metrics is open, like /healthz
        response = anonymous.get("/metrics")
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "text/plain; version=0.0.4; charset=utf-8"
    return parse(response.text)


def test_metrics_count_requests_store_operations_and_errors(api: Api) -> None:
    with api.client("gamma") as gamma:
        created = gamma.post(
            "/v1/entities", json={"entities": [{"id": "odile", "type": "npc", "name": "Odile"}]}
        )
        assert created.status_code == 200, created.text
        assert gamma.get("/v1/npcs/odile/snapshot").status_code == 200  # the fast route
        problem_of(gamma.get("/v1/npcs/nobody/snapshot"), 404, "NotFound")
        problem_of(gamma.get("/v1/entities/a%2Fb"), 404, "NotFound")  # an id holding '/'
        gamma.post("/v1/conversations/s1/turns", json={"role": "player", "content": "Hello"})
    with api.client() as anonymous:
        problem_of(anonymous.post("/v1/entities", json={"entities": []}), 401)
        assert anonymous.get("/no/such/page").status_code == 404

    samples = scrape(api)
    requests = "graphmem_http_requests_total"
    snapshot = "/v1/npcs/{npc_id}/snapshot"
    assert value(samples, requests, method="GET", route=snapshot, status="200") >= 1
    assert value(samples, requests, method="GET", route=snapshot, status="404") >= 1
    assert value(samples, requests, method="POST", route="/v1/entities", status="200") >= 1
    assert value(samples, requests, method="POST", route="/v1/entities", status="401") >= 1
    assert value(samples, requests, route="/v1/entities/{entity_id}", status="404") >= 1
    assert value(samples, requests, route="unmatched", status="404") >= 1
    # never a path with its ids
    assert not any("odile" in str(labels) for labels, _ in samples[requests])
    errors = "graphmem_http_errors_total"
    assert value(samples, errors, type="NotFound", route=snapshot) >= 1
    assert value(samples, errors, type="IdentityRequired", route="/v1/entities") >= 1
    ops = "graphmem_store_operations_total"
    assert value(samples, ops, operation="upsert_entities") >= 1
    assert value(samples, ops, operation="identity_snapshot") >= 2
    # a histogram's +Inf bucket counts every observation
    latency = "graphmem_http_request_duration_seconds"
    for name in (latency, "graphmem_store_operation_duration_seconds"):
        for labels, count in samples[f"{name}_count"]:
            assert value(samples, f"{name}_bucket", le="+Inf", **labels) == count
    assert value(samples, f"{latency}_count", method="GET", route=snapshot) >= 2
    # the embedder: one state is current, and the queue is a number
    states = {labels["state"]: v for labels, v in samples["graphmem_embedder_state"]}
    assert sorted(v for v in states.values()) == [0, 0, 0, 1]
    assert value(samples, "graphmem_embedder_queue_depth") >= 0
    # scraping counts itself, next time
    again = scrape(api)
    assert value(again, requests, method="GET", route="/metrics", status="200") >= 1


def test_no_metrics_serves_none(tmp_path: Path) -> None:
    with (
        graphmem_serve(
            "--store", "memory://", "--tenant", "solo", "--no-metrics", log=tmp_path / "log"
        ) as served,
        httpx.Client(base_url=served.url, timeout=60) as client,
    ):
        assert client.get("/healthz").status_code == 200
        assert client.get("/metrics").status_code == 404


# --------------------------------------------------------------------------- traces


@pytest.fixture(scope="module")
def spans() -> Iterator[Any]:
    """An in-memory exporter on the process's OpenTelemetry tracer provider."""
    pytest.importorskip("opentelemetry.sdk", reason="opentelemetry-sdk is not installed")
    from opentelemetry import trace
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    provider = trace.get_tracer_provider()
    if not isinstance(provider, TracerProvider):
        provider = TracerProvider()
        trace.set_tracer_provider(provider)
    exporter = InMemorySpanExporter()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    yield exporter
    exporter.shutdown()


@pytest.fixture(scope="module")
def inprocess(spans: Any) -> Iterator[str]:
    """The app served by uvicorn on a loopback port, in this process (so its spans are seen)."""
    import uvicorn

    from graphmem.doors.http.app import ServerConfig, create_app
    from graphmem.retrieval.embedders import HashingEmbedder

    app = create_app(ServerConfig(store="memory://", tenant="traced", embedder=HashingEmbedder()))
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    port = sock.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(app, log_level="warning", lifespan="on"))
    thread = threading.Thread(target=server.run, kwargs={"sockets": [sock]}, daemon=True)
    thread.start()
    deadline = time.monotonic() + 60
    while not server.started:
        assert time.monotonic() < deadline and thread.is_alive(), "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}"
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        sock.close()


def test_requests_and_store_operations_are_spans(inprocess: str, spans: Any) -> None:
    from opentelemetry.trace import SpanKind

    spans.clear()
    with httpx.Client(base_url=inprocess, timeout=60) as client:
        created = client.post(
            "/v1/entities", json={"entities": [{"id": "mira", "type": "npc", "name": "Mira"}]}
        )
        assert created.status_code == 200, created.text
        assert client.get("/v1/npcs/mira/snapshot").status_code == 200
        problem_of(client.get("/v1/entities/nobody"), 404, "NotFound")
    finished = spans.get_finished_spans()
    servers = {s.name: s for s in finished if s.kind == SpanKind.SERVER}
    assert {
        "POST /v1/entities",
        "GET /v1/npcs/{npc_id}/snapshot",
        "GET /v1/entities/{entity_id}",
    } <= set(servers)
    post = servers["POST /v1/entities"]
    assert post.attributes["http.route"] == "/v1/entities"
    assert post.attributes["http.response.status_code"] == 200
    missing = servers["GET /v1/entities/{entity_id}"]
    assert missing.attributes["http.response.status_code"] == 404
    assert missing.attributes["url.path"] == "/v1/entities/nobody"

    def ancestors(span: Any) -> list[str]:
        by_id = {s.context.span_id: s for s in finished}
        out = []
        while span.parent is not None and span.parent.span_id in by_id:
            span = by_id[span.parent.span_id]
            out.append(span.name)
        return out

    # each store operation is a span inside its request's span, thread hop or not: under
    # FastAPI's own request span, or under graphmem's for the fast snapshot route
    upsert = next(s for s in finished if s.name == "graphmem.store upsert_entities")
    assert ancestors(upsert)[-1] == "POST /v1/entities"
    assert upsert.context.trace_id == post.context.trace_id
    fetched = next(s for s in finished if s.name == "graphmem.store get_entity")
    assert ancestors(fetched)[-1] == "GET /v1/entities/{entity_id}"
    snapshot = servers["GET /v1/npcs/{npc_id}/snapshot"]
    store_span = next(s for s in finished if s.name == "graphmem.store identity_snapshot")
    assert ancestors(store_span) == ["GET /v1/npcs/{npc_id}/snapshot"]
    assert snapshot.attributes["http.route"] == "/v1/npcs/{npc_id}/snapshot"
    assert store_span.attributes["graphmem.tenant"] == "traced"
    assert store_span.attributes["db.operation.name"] == "identity_snapshot"
    assert snapshot.start_time <= store_span.start_time <= store_span.end_time <= snapshot.end_time
    # one server span per request: FastAPI's, or graphmem's where FastAPI never ran
    assert len([s for s in finished if s.kind == SpanKind.SERVER]) == 3


def test_an_engines_trace_context_is_continued(inprocess: str, spans: Any) -> None:
    spans.clear()
    trace_id = "4bf92f3577b34da6a3ce929d0e0e4736"
    parent = f"00-{trace_id}-00f067aa0ba902b7-01"
    with httpx.Client(base_url=inprocess, timeout=60) as client:
        client.get("/v1/npcs/nobody/snapshot", headers={"traceparent": parent})
    (server,) = [s for s in spans.get_finished_spans() if s.name.startswith("GET /v1/npcs")]
    assert format(server.context.trace_id, "032x") == trace_id
    assert server.attributes["error.type"] == "NotFound"
