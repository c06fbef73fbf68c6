"""Fixtures of the conformance suite: every test runs once per backend in ``backends.py``.

- ``store``: an open ``GraphStore`` of the backend under test;
- ``tenant``: a fresh tenant (a uuid) whose data is cleared after the test;
- ``new_tenant()``: more fresh tenants, cleared after the test too;
- ``mem``: a ``graphmem.Memory`` over ``store`` and ``tenant`` (it does not own the store);
- ``reopen()``: closes ``store`` and opens the same URL again (persistent backends only);
- ``other_store()``: one more store of the same backend at a URL of its own.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

import graphmem
from graphmem import EventBus, GraphStore, Memory, StoreClosed
from graphmem.events import Event

from .backends import BACKENDS, BackendSpec
from .fuzz_calls import OUTCOMES, TALLY


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Skip the long fuzz run unless the marker expression names it (``-m fuzz_long``)."""
    if "fuzz_long" in (config.getoption("markexpr", "") or ""):
        return
    skip = pytest.mark.skip(reason="the long fuzz run: select it with -m fuzz_long")
    for item in items:
        if item.get_closest_marker("fuzz_long") is not None:
            item.add_marker(skip)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz suite's outcomes by backend (inputs tried, typed and untyped errors, ...)."""
    if not TALLY:
        return
    terminalreporter.section("fuzz: hostile inputs by backend")
    terminalreporter.line(f"{'backend':8s}" + "".join(f"{o:>14s}" for o in OUTCOMES))
    for backend, counts in sorted(TALLY.items()):
        terminalreporter.line(f"{backend:8s}" + "".join(f"{counts[o]:14d}" for o in OUTCOMES))


class _Servers:
    """Session-wide servers of the backends, started on first use and stopped at the end."""

    def __init__(self) -> None:
        self._stack = ExitStack()
        self._started: dict[str, Any] = {}
        self._skipped: dict[str, str] = {}

    def get(self, spec: BackendSpec) -> Any:
        if spec.server is None:
            return None
        if spec.id in self._skipped:
            pytest.skip(self._skipped[spec.id])
        if spec.id not in self._started:
            try:
                self._started[spec.id] = self._stack.enter_context(spec.server())
            except pytest.skip.Exception as exc:
                self._skipped[spec.id] = str(exc.msg)
                raise
        return self._started[spec.id]

    def close(self) -> None:
        self._stack.close()


@pytest.fixture(scope="session")
def _servers() -> Iterator[_Servers]:
    servers = _Servers()
    yield servers
    servers.close()


@pytest.fixture(params=[pytest.param(spec, id=spec.id, marks=spec.marks) for spec in BACKENDS])
def backend(request: pytest.FixtureRequest) -> BackendSpec:
    spec: BackendSpec = request.param
    return spec


class Harness:
    """The stores and tenants of one test; cleans up after it."""

    def __init__(self, spec: BackendSpec, server: Any, directory: Path) -> None:
        self.spec = spec
        self.server = server
        self.directory = directory
        self.url = spec.make_url(server, directory)
        self.opened: list[GraphStore] = []
        self.tenants: list[str] = []
        self.current = self.open(self.url)
        self._others = 0

    def open(self, url: str) -> GraphStore:
        store = graphmem.open_store(url)
        self.opened.append(store)
        return store

    def new_tenant(self) -> str:
        tenant = f"t-{uuid.uuid4().hex}"
        self.tenants.append(tenant)
        return tenant

    def reopen(self) -> GraphStore:
        self.current.close()
        self.current = self.open(self.url)
        return self.current

    def other_store(self) -> GraphStore:
        self._others += 1
        directory = self.directory / f"other-{self._others}"
        directory.mkdir()
        return self.open(self.spec.make_url(self.server, directory))

    def cleanup(self) -> None:
        try:
            try:
                for tenant in self.tenants:
                    self.current.clear(tenant)
            except StoreClosed:
                if self.spec.persistent:
                    store = self.open(self.url)
                    for tenant in self.tenants:
                        store.clear(tenant)
        finally:
            for store in self.opened:
                store.close()


@pytest.fixture
def harness(backend: BackendSpec, _servers: _Servers, tmp_path: Path) -> Iterator[Harness]:
    h = Harness(backend, _servers.get(backend), tmp_path)
    yield h
    h.cleanup()


@pytest.fixture
def store(harness: Harness) -> GraphStore:
    return harness.current


@pytest.fixture
def new_tenant(harness: Harness) -> Callable[[], str]:
    return harness.new_tenant


@pytest.fixture
def tenant(new_tenant: Callable[[], str]) -> str:
    return new_tenant()


@pytest.fixture
def mem(store: GraphStore, tenant: str) -> Memory:
    return Memory(store, tenant, owns_store=False)


@pytest.fixture
def reopen(harness: Harness) -> Callable[[], GraphStore]:
    if not harness.spec.persistent:
        pytest.skip(f"{harness.spec.id}:// keeps nothing after close; reopening is meaningless")
    return harness.reopen


@pytest.fixture
def other_store(harness: Harness) -> Callable[[], GraphStore]:
    return harness.other_store


@pytest.fixture
def bus() -> EventBus:
    """A private event bus, so a test sees only its own events."""
    return EventBus()


@pytest.fixture
def seen(bus: EventBus) -> list[Event]:
    """Every event published on ``bus``, in order."""
    out: list[Event] = []
    bus.subscribe("*", out.append)
    return out
