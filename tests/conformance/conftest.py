"""Fixtures of the conformance suite: every test runs once per backend in ``backends.py``.

- ``store``: an open ``GraphStore`` of the backend under test;
- ``tenant``: a fresh tenant (a uuid) whose data is cleared after the test;
- ``new_tenant()``: more fresh tenants, cleared after the test too;
- ``mem``: a ``graphmem.Memory`` over ``store`` and ``tenant`` (it does not own the store);
- ``reopen()``: closes ``store`` and opens the same URL again (persistent backends only);
- ``other_store()``: one more store of the same backend at a URL of its own.

``--backend NAME`` (repeatable, or comma-separated) picks the backends: ids of
``backends.py`` or any registered URL scheme (a plugin's, opened as ``NAME://``); by
default every backend of ``backends.py``. Each module is marked with the rooms of the
contract it exercises (``MODULE_ROOMS``, and README.md here), so ``-m search`` selects
the search modules; a test is skipped on a store that does not satisfy its rooms, and a
test that uses ``mem`` needs the whole ``GraphStore``.
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
from graphmem.core.contract import (
    ROOMS,
    ConversationStore,
    EntityGraphStore,
    RecordStore,
    SearchStore,
    TenantAdmin,
)
from graphmem.core.events import Event
from graphmem.core.store import store_supports

from .backends import BACKENDS, BackendSpec
from .fuzz_calls import OUTCOMES, TALLY


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """The fuzz suite's outcomes by backend (inputs tried, typed and untyped errors, ...)."""
    if not TALLY:
        return
    terminalreporter.section("fuzz: hostile inputs by backend")
    terminalreporter.line(f"{'backend':8s}" + "".join(f"{o:>14s}" for o in OUTCOMES))
    for backend, counts in sorted(TALLY.items()):
        terminalreporter.line(f"{backend:8s}" + "".join(f"{counts[o]:14d}" for o in OUTCOMES))


HERE = Path(__file__).parent

ROOM_MARKERS: dict[type[Any], str] = {
    EntityGraphStore: "entity_graph",
    ConversationStore: "conversations",
    SearchStore: "search",
    RecordStore: "records",
    TenantAdmin: "tenant_admin",
}
EVERY_ROOM = tuple(ROOM_MARKERS)

MODULE_ROOMS: dict[str, tuple[type[Any], ...]] = {
    "test_entities": (EntityGraphStore,),
    "test_relationships": (EntityGraphStore,),
    "test_relationship_patterns": (EntityGraphStore,),
    "test_traversal": (EntityGraphStore,),
    "test_identity": (EntityGraphStore,),
    "test_graph_questions": (EntityGraphStore,),
    "test_conversations": (ConversationStore, TenantAdmin),
    "test_concurrent_appends": (ConversationStore,),
    "test_session_log": (ConversationStore,),
    "test_turn_window": (ConversationStore,),
    "test_agent_turns": (ConversationStore, EntityGraphStore, TenantAdmin),
    "test_policy_context": (ConversationStore,),
    "test_search": (SearchStore, EntityGraphStore, ConversationStore, TenantAdmin),
    "test_hybrid_search": (SearchStore, EntityGraphStore, ConversationStore),
    "test_retrieval_reads": (SearchStore, EntityGraphStore, ConversationStore),
    "test_records": (RecordStore, TenantAdmin),
    "test_record_writes": (RecordStore, TenantAdmin),
    "test_change_writes": (RecordStore, EntityGraphStore, TenantAdmin),
    "test_two_clocks": (RecordStore, EntityGraphStore, TenantAdmin),
    "test_minds": (RecordStore, EntityGraphStore, TenantAdmin),
    "test_policy_governance": (RecordStore, TenantAdmin),
    "test_policy_fact_graph": (RecordStore, EntityGraphStore, SearchStore, TenantAdmin),
    "test_policy_identity": (RecordStore, ConversationStore, TenantAdmin),
    "test_policy_poisoning": (RecordStore,),
    "test_policy_retention": (RecordStore, TenantAdmin),
    "test_policy_signing": (RecordStore,),
    "test_dump_load": (TenantAdmin, EntityGraphStore, ConversationStore),
    "test_rooms": (),
    "test_plugin_backend": (),
}
"""The rooms each conformance module exercises (a module not listed: every room).

They become the module's markers, and a backend runs the module's tests only if its store
satisfies every one of them. Modules that drive every operation (tenancy, bad input,
names, the stateful test) are left out on purpose: they need the whole store.
"""


def _selected_backends(config: pytest.Config) -> list[BackendSpec]:
    names = [n.strip() for value in config.getoption("--backend") for n in value.split(",")]
    names = [n for n in names if n]
    if not names:
        return list(BACKENDS)
    by_id = {spec.id: spec for spec in BACKENDS}
    schemes = set(graphmem.registered_schemes())
    out: list[BackendSpec] = []
    for name in dict.fromkeys(names):
        if name in by_id:
            out.append(by_id[name])
        elif name in schemes:  # a plugin's backend: a fresh store at NAME:// for each test
            out.append(BackendSpec(id=name, make_url=_plugin_url(name), persistent=False))
        else:
            known = ", ".join(sorted(set(by_id) | schemes))
            raise pytest.UsageError(f"--backend {name}: no such backend (known: {known})")
    return out


def _plugin_url(scheme: str) -> Callable[[Any, Path], str]:
    return lambda server, directory: f"{scheme}://"


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    if "backend" in metafunc.fixturenames:
        specs = _selected_backends(metafunc.config)
        metafunc.parametrize(
            "backend", [pytest.param(spec, id=spec.id, marks=spec.marks) for spec in specs]
        )


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Mark each test with the rooms its module exercises; skip the long fuzz run unless
    the marker expression names it (``-m fuzz_long``)."""
    long_fuzz = "fuzz_long" in (config.getoption("markexpr", "") or "")
    skip = pytest.mark.skip(reason="the long fuzz run: select it with -m fuzz_long")
    for item in items:
        if item.path.parent != HERE:
            continue
        for room in MODULE_ROOMS.get(item.path.stem, EVERY_ROOM):
            item.add_marker(ROOM_MARKERS[room])
        if not long_fuzz and item.get_closest_marker("fuzz_long") is not None:
            item.add_marker(skip)


def _rooms_of(node: pytest.Item) -> list[type[Any]]:
    return [room for room, marker in ROOM_MARKERS.items() if node.get_closest_marker(marker)]


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
                if not store_supports(self.current, TenantAdmin):
                    return  # nothing to clear with; the stores are closed below
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
def store(harness: Harness, request: pytest.FixtureRequest) -> GraphStore:
    lacking = [
        room.__name__
        for room in _rooms_of(request.node)
        if not store_supports(harness.current, room)
    ]
    if lacking:
        pytest.skip(f"{harness.spec.id}:// does not satisfy {', '.join(lacking)}")
    return harness.current


@pytest.fixture
def new_tenant(harness: Harness) -> Callable[[], str]:
    return harness.new_tenant


@pytest.fixture
def tenant(new_tenant: Callable[[], str]) -> str:
    return new_tenant()


@pytest.fixture
def mem(store: GraphStore, tenant: str, harness: Harness) -> Memory:
    lacking = [room.__name__ for room in ROOMS if not store_supports(store, room)]
    if lacking:
        pytest.skip(f"Memory needs a whole GraphStore; {harness.spec.id}:// lacks {lacking}")
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
