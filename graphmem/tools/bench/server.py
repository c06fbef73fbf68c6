"""``graphmem bench --server``: the doors' figures, each beside a baseline of the same run.

- identity snapshot p50 / p99 over HTTP (a real ``graphmem serve`` on loopback, one
  keep-alive connection), against the in-process call on the same NPCs, interleaved;
- snapshot requests per second with 16 concurrent clients (keep-alive connections),
  against a bare uvicorn app that returns a constant JSON body of the same size: the
  framework's floor, measured with the same client and uvicorn settings;
- the async twin's snapshot p50 (``await AsyncMemory.identity_snapshot``), against the
  synchronous call: what the hop to a worker thread costs;
- cold start (with the embeddings extra): a ``graphmem serve`` with the default embedder
  is polled on ``/readyz`` from its start; once it says ready, a few documents are added
  and the first retrieve is timed against the median of the 40 that follow it (warm);
  and the time from start to ready.

The servers run in their own processes on ``127.0.0.1`` (the load generator must not
share their interpreter); both are stopped before the figures are printed.
"""

from __future__ import annotations

import argparse
import asyncio
import http.client
import io
import os
import random
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from graphmem.core.store import open_store
from graphmem.doors.aio import AsyncMemory
from graphmem.memory import Memory
from graphmem.tools.bench.common import Figure, percentile, synthetic_world, time_us

__all__ = ["server_figures"]

CLIENTS = 16
_TENANT = "bench"

_FLOOR = textwrap.dedent(
    """
    import os, sys, uvicorn
    from graphmem.doors.http.run import listen

    body = os.environ["GRAPHMEM_FLOOR_BODY"].encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]

    async def app(scope, receive, send):
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": body})

    sock = listen("127.0.0.1", 0)
    print(f"listening on http://127.0.0.1:{sock.getsockname()[1]}", flush=True)
    config = uvicorn.Config(app, log_level="warning", access_log=False, lifespan="off",
                            server_header=False, proxy_headers=False)
    uvicorn.Server(config).run(sockets=[sock])
    """
)


@contextmanager
def _process(args: list[str], env: dict[str, str] | None = None) -> Iterator[int]:
    """Start a server process, wait for its 'listening on' line, yield its port, stop it."""
    with tempfile.TemporaryFile(mode="w+") as errors:
        process = subprocess.Popen(
            args,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env={**os.environ, **(env or {})},
        )
        try:
            assert process.stdout is not None
            line = process.stdout.readline()
            if "listening on" not in line:
                process.wait(timeout=30)
                errors.seek(0)
                raise RuntimeError(f"the server did not start: {line}{errors.read()[-2000:]}")
            yield int(line.split("listening on http://127.0.0.1:", 1)[1].split()[0])
        finally:
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()
                process.wait()
            if process.stdout is not None:
                process.stdout.close()


def _get(connection: http.client.HTTPConnection, path: str) -> bytes:
    connection.request("GET", path)
    response = connection.getresponse()
    body = response.read()
    if response.status != 200:
        raise RuntimeError(f"GET {path}: {response.status} {body[:200]!r}")
    return body


async def _load(port: int, paths: list[str], seconds: float) -> float:
    """Requests per second of ``CLIENTS`` keep-alive clients cycling through ``paths``."""
    requests = [
        f"GET {p} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\n\r\n".encode("ascii") for p in paths
    ]
    done = 0
    stop_at = 0.0

    async def client(offset: int) -> None:
        nonlocal done
        reader, writer = await asyncio.open_connection("127.0.0.1", port)
        n = offset
        try:
            while time.perf_counter() < stop_at:
                writer.write(requests[n % len(requests)])
                n += 1
                head = await reader.readuntil(b"\r\n\r\n")
                if not head.startswith(b"HTTP/1.1 200"):
                    raise RuntimeError(f"unexpected response {head[:60]!r}")
                length = 0
                for line in head.split(b"\r\n"):
                    if line[:15].lower() == b"content-length:":
                        length = int(line[15:])
                await reader.readexactly(length)
                done += 1
        finally:
            writer.close()

    # Warm up the connections and the server, then count over the window.
    stop_at = time.perf_counter() + min(1.0, seconds / 4)
    await asyncio.gather(*(client(i) for i in range(CLIENTS)))
    done = 0
    start = time.perf_counter()
    stop_at = start + seconds
    await asyncio.gather(*(client(i * 7) for i in range(CLIENTS)))
    return done / (time.perf_counter() - start)


def _run(coroutine: Any) -> Any:
    """Run a coroutine on uvloop when it is installed (the client must not be the bottleneck)."""
    try:
        import uvloop
    except ImportError:
        return asyncio.run(coroutine)
    with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
        return runner.run(coroutine)


def server_figures(args: argparse.Namespace, say: Callable[[str], None]) -> Iterator[Figure]:
    """The figures of ``graphmem bench --server`` (embedded backend, loopback)."""
    from graphmem.doors.extras import require_extra

    require_extra()
    size = 1000 if args.quick else int(str(args.sizes).split(",")[0])
    samples = 300 if args.quick else min(args.samples, 3000)
    seconds = 1.0 if args.quick else 4.0
    say(f"building a world of {size:,} entities ...")
    entities, rels = synthetic_world(size, args.seed)
    mem = Memory(open_store("memory://"), _TENANT)
    mem.upsert_entities(entities)
    mem.upsert_relationships(rels)
    export = io.StringIO()
    mem.export_jsonl(export)
    rng = random.Random(args.seed)
    picks = [f"e{rng.randrange(size)}" for _ in range(samples)]
    cli = [sys.executable, "-m", "graphmem"]
    try:
        say("starting graphmem serve on loopback ...")
        serve = [*cli, "serve", "--store", "memory://", "--tenant", _TENANT, "--port", "0"]
        with _process(serve) as port:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            # Measure a ready server: the embedder's warm-up must not share the CPU.
            _wait_ready(connection)
            connection.request(
                "POST",
                "/v1/import",
                body=export.getvalue().encode("utf-8"),
                headers={"Content-Type": "application/x-ndjson"},
            )
            imported = connection.getresponse()
            if imported.status != 200:
                raise RuntimeError(f"import failed: {imported.status} {imported.read()[:300]!r}")
            imported.read()
            for npc in picks[:100]:  # warm up both sides
                _get(connection, f"/v1/npcs/{npc}/snapshot")
                mem.identity_snapshot(npc)
            over_http: list[float] = []
            in_process: list[float] = []
            for npc in picks:  # interleaved, so machine noise hits both alike
                over_http.append(time_us(partial(_get, connection, f"/v1/npcs/{npc}/snapshot")))
                in_process.append(time_us(partial(mem.identity_snapshot, npc)))
            body = _get(connection, f"/v1/npcs/{picks[0]}/snapshot")
            yield from _metrics_figure(serve, port, export.getvalue(), picks, say)
            connection.close()
            for q, label in ((0.5, "p50"), (0.99, "p99")):
                yield Figure(
                    f"snapshot {label} over HTTP at {size:,} entities",
                    percentile(over_http, q),
                    "us",
                ).with_baseline(percentile(in_process, q))
            yield Figure(
                "snapshot p50 over HTTP minus in-process",
                percentile(over_http, 0.5) - percentile(in_process, 0.5),
                "us",
            )
            paths = [f"/v1/npcs/{npc}/snapshot" for npc in picks[:200]]
            floor_env = {"GRAPHMEM_FLOOR_BODY": body.decode("utf-8")}
            with _process([sys.executable, "-c", _FLOOR], env=floor_env) as floor_port:
                rounds = 3
                say(
                    f"{CLIENTS} clients, {rounds} rounds of {seconds:g} s each against graphmem "
                    "serve and a bare uvicorn app, alternating ..."
                )
                ours: list[float] = []
                floor: list[float] = []
                for _ in range(rounds):  # alternating, so a change of load hits both
                    ours.append(_run(_load(port, paths, seconds)))
                    floor.append(_run(_load(floor_port, ["/"], seconds)))
        yield Figure(
            f"snapshot requests/s, {CLIENTS} clients (floor: constant JSON)",
            statistics.median(ours),
            "req/s",
        ).with_baseline(statistics.median(floor))
        yield from _async_figures(mem, picks)
        yield from _cold_start_figures(cli, say)
    finally:
        mem.close()


def _metrics_figure(
    serve: list[str], port: int, export: str, picks: list[str], say: Callable[[str], None]
) -> Iterator[Figure]:
    """Snapshot p50 over HTTP with metrics (the default) against a ``--no-metrics`` server.

    The same world in both, requests interleaved (which goes first alternates), each
    server warmed with every NPC first: the first one answered the earlier figures' requests
    and keeps their answers (docs/server.md, "Kept answers"), so both must, or the figure
    compares kept answers with snapshots.
    """
    say("starting a second server, with --no-metrics ...")
    with _process([*serve, "--no-metrics"]) as bare_port:
        # Connections of their own: the first server closed an idle one while this started.
        ours = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        bare = http.client.HTTPConnection("127.0.0.1", bare_port, timeout=60)
        try:
            _wait_ready(bare)
            bare.request(
                "POST",
                "/v1/import",
                body=export.encode("utf-8"),
                headers={"Content-Type": "application/x-ndjson"},
            )
            answer = bare.getresponse()
            if answer.status != 200:
                raise RuntimeError(f"import failed: {answer.status} {answer.read()[:300]!r}")
            answer.read()
            for npc in picks:  # every pick, on both: each server has kept the same answers
                _get(bare, f"/v1/npcs/{npc}/snapshot")
                _get(ours, f"/v1/npcs/{npc}/snapshot")
            with_metrics: list[float] = []
            without: list[float] = []
            for i, npc in enumerate(picks):
                path = f"/v1/npcs/{npc}/snapshot"
                pair = [(with_metrics, ours), (without, bare)]
                for times, conn in pair if i % 2 else reversed(pair):
                    times.append(time_us(partial(_get, conn, path)))
        finally:
            ours.close()
            bare.close()
    yield Figure(
        "snapshot p50 over HTTP, metrics on vs --no-metrics", percentile(with_metrics, 0.5), "us"
    ).with_baseline(percentile(without, 0.5))


_LORE = [
    "Mira Quell keeps the forge by the river and mends the ferry's chains.",
    "Halden Crook runs the mill and waters the flour when the harvest is thin.",
    "The Lantern tavern stands at the crossroads; Odile Marrow drinks there after dusk.",
    "Tomas the ferryman owes Halden a debt he cannot pay before the frost.",
]
_QUESTIONS = [
    "who mends the chains of the ferry",
    "where does Odile drink",
    "who owes a debt to the miller",
    "what happens to the flour",
]


def _post(connection: http.client.HTTPConnection, path: str, body: dict[str, Any]) -> bytes:
    import json

    connection.request(
        "POST", path, body=json.dumps(body), headers={"Content-Type": "application/json"}
    )
    response = connection.getresponse()
    answer = response.read()
    if response.status != 200:
        raise RuntimeError(f"POST {path}: {response.status} {answer[:200]!r}")
    return answer


def _wait_ready(connection: http.client.HTTPConnection, limit: float = 600) -> None:
    """Poll ``GET /readyz`` every 50 ms until it answers 200."""
    deadline = time.perf_counter() + limit
    while True:
        connection.request("GET", "/readyz")
        response = connection.getresponse()
        response.read()
        if response.status == 200:
            return
        if time.perf_counter() > deadline:
            raise RuntimeError(f"graphmem serve did not become ready in {limit:g} s")
        time.sleep(0.05)


def _cold_start_figures(cli: list[str], say: Callable[[str], None]) -> Iterator[Figure]:
    """The first retrieve after ``/readyz`` says ready, against warm retrieves (same run)."""
    from graphmem.retrieval import SentenceTransformerEmbedder

    if not SentenceTransformerEmbedder.available():
        say("cold start: skipped (the embeddings extra is not installed)")
        return
    say("cold start: graphmem serve with the default embedder, polling /readyz ...")
    serve = [*cli, "serve", "--store", "memory://", "--tenant", _TENANT, "--port", "0"]
    started = time.perf_counter()
    with _process(serve) as port:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
        _wait_ready(connection)
        ready = time.perf_counter() - started
        _post(connection, "/v1/documents", {"documents": [{"text": t} for t in _LORE]})
        first = time_us(
            partial(_post, connection, "/v1/retrieve", {"query": _QUESTIONS[0], "k": 5})
        )
        warm = [
            time_us(partial(_post, connection, "/v1/retrieve", {"query": q, "k": 5}))
            for _ in range(10)
            for q in _QUESTIONS
        ]
        connection.close()
    yield Figure("cold start: first retrieve after /readyz", first / 1000, "ms").with_baseline(
        statistics.median(warm) / 1000
    )
    yield Figure("cold start: seconds from start to /readyz 200", ready, "s")


def _async_figures(mem: Memory, picks: list[str]) -> Iterator[Figure]:
    twin = AsyncMemory(mem, max_workers=4)

    async def measure() -> tuple[list[float], list[float]]:
        for npc in picks[:100]:
            await twin.identity_snapshot(npc)
        awaited: list[float] = []
        direct: list[float] = []
        for npc in picks:
            start = time.perf_counter_ns()
            await twin.identity_snapshot(npc)
            awaited.append((time.perf_counter_ns() - start) / 1000)
            direct.append(time_us(partial(mem.identity_snapshot, npc)))
        return awaited, direct

    awaited, direct = asyncio.run(measure())
    twin._executor.shutdown(wait=True)
    yield Figure(
        "async snapshot p50 (worker thread)", statistics.median(awaited), "us"
    ).with_baseline(statistics.median(direct))
    yield Figure(
        "async overhead per call (p50)",
        statistics.median(awaited) - statistics.median(direct),
        "us",
    )
