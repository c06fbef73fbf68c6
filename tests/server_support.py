"""A real ``graphmem serve`` on a loopback port, for the tests of the doors."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass
class Served:
    """A running server: its base URL, its process and where its log goes."""

    url: str
    process: subprocess.Popen[str]
    log: Path

    def stop(self, sig: int = signal.SIGTERM, timeout: float = 60) -> int:
        """Signal the server and wait for it; return its exit status."""
        if self.process.poll() is None:
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        return self.process.returncode

    def output(self) -> str:
        """What the server printed on stdout after its first line (when stopped)."""
        assert self.process.stdout is not None
        return self.process.stdout.read() if self.process.poll() is not None else ""

    def log_text(self) -> str:
        """What the server logged on stderr so far."""
        return self.log.read_text(encoding="utf-8", errors="replace")


def wait_for_line(process: subprocess.Popen[str], what: str, timeout: float = 90) -> str:
    """The first stdout line of ``process``; fail with its stderr if it exits or stalls."""
    assert process.stdout is not None
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline()
            if line:
                return line
        if process.poll() is not None:
            break
    process.kill()
    raise AssertionError(f"{what} did not start (exit status {process.poll()})")


@contextmanager
def graphmem_serve(*args: str, log: Path, env: dict[str, str] | None = None) -> Iterator[Served]:
    """Start ``python -m graphmem serve ARGS --port 0``; stop it (SIGTERM) at the end."""
    command = [sys.executable, "-m", "graphmem", "serve", *args, "--port", "0"]
    with log.open("w", encoding="utf-8") as errors:
        process = subprocess.Popen(
            command,
            stdout=subprocess.PIPE,
            stderr=errors,
            text=True,
            env={**os.environ, **(env or {})},
        )
    try:
        line = wait_for_line(process, "graphmem serve")
        if "listening on " not in line:
            raise AssertionError(f"unexpected first line {line!r}: {log.read_text()}")
        url = line.split("listening on ", 1)[1].split()[0]
        yield Served(url, process, log)
    finally:
        Served("", process, log).stop()
        if process.stdout is not None:
            process.stdout.close()


@dataclass
class Api:
    """A live server and a client per tenant key."""

    served: Served
    keys: dict[str, str]
    keys_file: Path

    def client(self, tenant: str | None = None, **kwargs: Any) -> Any:
        headers = {"Authorization": f"Bearer {self.keys[tenant]}"} if tenant else {}
        import httpx

        return httpx.Client(base_url=self.served.url, headers=headers, timeout=60, **kwargs)


def problem_of(response: Any, status: int, title: str | None = None) -> dict[str, Any]:
    """The problem document of an error response, checked."""
    assert response.status_code == status, (response.status_code, response.text)
    assert response.headers["content-type"] == "application/problem+json", response.headers
    body = response.json()
    assert body["status"] == status
    assert body["type"] == f"urn:graphmem:error:{body['title']}"
    assert isinstance(body["detail"], str) and body["detail"]
    assert "Traceback" not in response.text
    if title is not None:
        assert body["title"] == title, body
    return body
