"""graphmem serve as a process: clean stops, nothing acknowledged lost, limits, retention."""

from __future__ import annotations

import json
import signal
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx
import pytest
from server_support import graphmem_serve, problem_of

import graphmem
from graphmem.cli.program import main


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT], ids=["SIGTERM", "SIGINT"])
def test_a_signal_stops_cleanly_and_loses_nothing_acknowledged(tmp_path: Path, sig: int) -> None:
    url = (tmp_path / "world.graphmem").as_uri()
    acknowledged: list[str] = []
    lock = threading.Lock()
    with graphmem_serve("--store", url, "--tenant", "t", log=tmp_path / "log") as served:
        stop = threading.Event()

        def writer(n: int) -> None:
            with httpx.Client(base_url=served.url, timeout=30) as client:
                for i in range(1000):
                    if stop.is_set() and i % 7 == 0:
                        return
                    try:
                        response = client.post(
                            f"/v1/conversations/s{n}/turns",
                            json={"role": "player", "content": f"line {i}"},
                        )
                    except httpx.HTTPError:
                        return  # refused or cut off: never acknowledged
                    if response.status_code == 200:
                        with lock:
                            acknowledged.append(response.json()["id"])

        with ThreadPoolExecutor(4) as pool:
            futures = [pool.submit(writer, n) for n in range(4)]
            while len(acknowledged) < 40:
                time.sleep(0.01)
            stop.set()
            status = served.stop(sig)
            for future in futures:
                future.result()
        output = served.output()
    assert status == 0, served.log_text()
    assert "stopped; the store is closed" in output
    with graphmem.open(url, tenant="t") as mem:  # the file was released and compacted
        stored = {t.id for s in mem.sessions() for t in mem.conversation(s.session_id).turns()}
    assert set(acknowledged) <= stored
    assert len(acknowledged) >= 40


def test_tenant_mode_refuses_other_addresses(capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["serve", "--store", "memory://", "--tenant", "t", "--host", "0.0.0.0"])
    err = capsys.readouterr().err
    assert status == 2
    assert err.startswith("graphmem: error: --tenant serves without API keys")
    assert err.count("\n") == 1


def test_a_taken_port_is_a_one_line_error(capsys: pytest.CaptureFixture[str]) -> None:
    import socket

    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        status = main(["serve", "--store", "memory://", "--tenant", "t", "--port", str(port)])
    err = capsys.readouterr().err
    assert status == 2 and f"cannot listen on 127.0.0.1:{port}" in err and err.count("\n") == 1


def test_limits_are_named_in_413_and_422(tmp_path: Path) -> None:
    limits = ["--max-body-bytes", "3000", "--max-batch-rows", "3", "--max-text-chars", "40"]
    with (
        graphmem_serve(
            "--store", "memory://", "--tenant", "t", *limits, log=tmp_path / "log"
        ) as served,
        httpx.Client(base_url=served.url, timeout=30) as client,
    ):
        big = {"entities": [{"id": f"e{i}", "type": "npc", "name": "x" * 1200} for i in range(3)]}
        problem = problem_of(client.post("/v1/entities", json=big), 413, "PayloadTooLarge")
        assert (problem["limit"], problem["max"]) == ("max_body_bytes", 3000)

        def chunks():  # no Content-Length: the limit holds while the body streams in
            for _ in range(10):
                yield b" " * 1000

        streamed = client.post(
            "/v1/entities", content=chunks(), headers={"Content-Type": "application/json"}
        )
        assert problem_of(streamed, 413)["limit"] == "max_body_bytes"
        rows = {"entities": [{"id": f"e{i}", "type": "npc", "name": "x"} for i in range(4)]}
        problem = problem_of(client.post("/v1/entities", json=rows), 413, "PayloadTooLarge")
        assert problem["limit"] == "max_batch_rows" and "max_batch_rows" in problem["detail"]
        long = client.post(
            "/v1/conversations/s/turns", json={"role": "player", "content": "y" * 41}
        )
        assert problem_of(long, 422, "InvalidInput")["limit"] == "max_text_chars"
        assert client.get("/v1/counts").json() == {"entities": 0, "relationships": 0, "turns": 0}
        ok = client.post("/v1/conversations/s/turns", json={"role": "player", "content": "y" * 40})
        assert ok.status_code == 200


def test_retention_runs_on_a_schedule_and_stops_cleanly(tmp_path: Path) -> None:
    policy = tmp_path / "policy.toml"
    policy.write_text("retention_max_entries = 2\n", encoding="utf-8")
    args = ["--store", "memory://", "--tenant", "t", "--policy", str(policy)]
    with graphmem_serve(
        *args, "--retention-interval", "0.2", "--log-level", "info", log=tmp_path / "log"
    ) as served:
        with httpx.Client(base_url=served.url, timeout=30) as client:
            for n in range(5):
                client.post(
                    "/v1/facts",
                    json={
                        "actor": "gm",
                        "subject": f"npc{n}",
                        "relation": "lives_in",
                        "value": "x",
                    },
                )
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline:
                facts = client.get("/v1/facts", params={"actor": "gm"}).json()["facts"]
                if len(facts) <= 2:
                    break
                time.sleep(0.1)
            assert [f["subject"] for f in facts] == ["npc3", "npc4"]
            actions = [e["action"] for e in client.get("/v1/facts/audit").json()["entries"]]
            assert "purge" in actions
        assert served.stop() == 0
    assert "retention purged" in served.log_text()


def test_a_bad_keys_or_policy_file_is_a_one_line_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.json"
    keys.write_text(json.dumps({"keys": [{"name": "x", "tenant": "t", "sha256": "nothex"}]}))
    assert main(["serve", "--store", "memory://", "--keys", str(keys)]) == 2
    assert "sha256 must be 64 lowercase hex digits" in capsys.readouterr().err
    policy = tmp_path / "policy.toml"
    policy.write_text("retention_max_entries = 0\nunknown = 1\n")
    assert main(["serve", "--store", "memory://", "--tenant", "t", "--policy", str(policy)]) == 2
    assert "unknown settings: unknown" in capsys.readouterr().err
