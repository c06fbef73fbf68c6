"""An unreachable Neo4j fails fast and typed; needs no server (a closed loopback port)."""

from __future__ import annotations

import socket

import pytest

from graphmem import BackendUnavailable, InvalidInput, open_store

pytest.importorskip("neo4j", reason="the neo4j extra is not installed")


def _closed_port() -> int:
    with socket.create_server(("127.0.0.1", 0)) as server:
        return int(server.getsockname()[1])


@pytest.mark.parametrize("scheme", ["bolt", "neo4j"])
def test_unreachable_server_is_backend_unavailable_naming_the_url(scheme: str) -> None:
    port = _closed_port()
    url = f"{scheme}://neo4j:hunter2@127.0.0.1:{port}/memory"

    with pytest.raises(BackendUnavailable) as info:
        open_store(url, connection_timeout=2.0, max_transaction_retry_time=1.0)

    message = str(info.value)
    assert f"{scheme}://neo4j:***@127.0.0.1:{port}/memory" in message
    assert "hunter2" not in message
    assert info.value.url == f"{scheme}://neo4j:***@127.0.0.1:{port}/memory"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    "url",
    ["neo4j://", "bolt://host:7687?policy=x", "neo4j://h/a?database=b", "neo4j://h:notaport"],
)
def test_malformed_neo4j_urls_are_invalid(url: str) -> None:
    with pytest.raises(InvalidInput):
        open_store(url)


def test_unknown_driver_option_is_invalid() -> None:
    with pytest.raises(InvalidInput):
        open_store("bolt://127.0.0.1:1", no_such_option=1)
