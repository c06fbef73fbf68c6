"""docker/compose.yml runs the HTTP API beside Neo4j, with health checks (no Docker needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

COMPOSE = Path(__file__).resolve().parents[2] / "docker" / "compose.yml"


def test_graphmem_serves_beside_neo4j_with_a_health_check() -> None:
    services = yaml.safe_load(COMPOSE.read_text("utf-8"))["services"]
    assert {"neo4j", "graphmem", "demo"} <= set(services)
    server = services["graphmem"]
    assert server["depends_on"]["neo4j"]["condition"] == "service_healthy"
    command = " ".join(server["command"])
    assert "'/src[neo4j,server]'" in command
    assert "graphmem serve" in command and "--keys /run/graphmem/keys.toml" in command
    assert "/healthz" in " ".join(server["healthcheck"]["test"])
    assert server["ports"] == ["127.0.0.1:8750:8750"]
    assert "healthcheck" in services["neo4j"]
