"""graphmem bench --server runs end to end: each figure with a baseline (no timing asserts)."""

from __future__ import annotations

import argparse
import json

import pytest

from graphmem.tools.bench import main as bench


def test_quick_server_bench_reports_http_throughput_and_async_figures(
    capsys: pytest.CaptureFixture[str],
) -> None:
    parser = argparse.ArgumentParser()
    bench.add_arguments(parser)
    assert bench.run(parser.parse_args(["--server", "--quick", "--json"])) == 0
    rows = {row["name"]: row for row in json.loads(capsys.readouterr().out)["results"]}
    for name in (
        "snapshot p50 over HTTP at 1,000 entities",
        "snapshot p99 over HTTP at 1,000 entities",
        "snapshot requests/s, 16 clients (floor: constant JSON)",
        "async snapshot p50 (worker thread)",
        "snapshot p50 over HTTP, metrics on vs --no-metrics",
    ):
        row = rows[name]
        assert row["value"] > 0 and row["baseline"] > 0, row
        assert abs(row["ratio"] - row["value"] / row["baseline"]) < 1e-9
    assert rows["snapshot requests/s, 16 clients (floor: constant JSON)"]["better"] == "higher"
    assert "snapshot p50 over HTTP minus in-process" in rows
    assert "async overhead per call (p50)" in rows
    from graphmem.retrieval import SentenceTransformerEmbedder

    if SentenceTransformerEmbedder.available():
        first = rows["cold start: first retrieve after /readyz"]
        assert first["value"] > 0 and first["baseline"] > 0, first
        assert rows["cold start: seconds from start to /readyz 200"]["value"] > 0
