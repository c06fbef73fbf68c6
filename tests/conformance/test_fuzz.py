"""Fuzz every public method with hostile values, on every backend (issue 17, item 3).

For each public method (and property) of ``Memory``, ``Conversation``, ``FactMemory``
and ``ConversationMemory`` (see ``fuzz_calls.SPECS``), hypothesis draws arguments that
are valid three times in four and hostile otherwise (``fuzz_values``). Each call must
either succeed, with what it wrote reading back and the tenant going through an export
and an import unchanged, or raise a ``GraphmemError`` and leave the tenant exactly as it
was (a dump before and after; no partial export file). A persistent backend must hold the
same after closing and reopening. The outcomes are counted per backend and printed at the
end of the run ("fuzz: hostile inputs by backend").

``make test`` runs a fixed, short set of examples per method; ``pytest -m fuzz_long``
runs many more, freshly drawn each time.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings

from graphmem import GraphStore

from .backends import BackendSpec
from .conftest import Harness
from .fuzz_calls import SPECS, World, untested_methods

SHORT = settings(
    max_examples=12,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
    print_blob=True,
)
LONG = settings(SHORT, max_examples=400, derandomize=False)


def _fuzz(
    name: str,
    harness: Harness,
    backend: BackendSpec,
    tenant: str,
    tmp_path: Path,
    chosen: settings,
) -> None:
    world = World(harness.current, tenant, backend.id, tmp_path)
    spec = SPECS[name]

    @chosen
    @given(call=spec.strategy(world))
    def run(call: tuple[tuple[object, ...], dict[str, object]]) -> None:
        world.run(spec, *call)

    try:
        run()
    except BaseException:
        for resource in world.resources:  # a failure reported here, not as a leak later
            resource.close()
        raise
    reopen: Callable[[], GraphStore] | None = harness.reopen if backend.persistent else None
    world.finish(reopen)


@pytest.mark.parametrize("name", sorted(SPECS))
def test_hostile_calls(
    name: str, harness: Harness, backend: BackendSpec, tenant: str, tmp_path: Path
) -> None:
    _fuzz(name, harness, backend, tenant, tmp_path, SHORT)


@pytest.mark.fuzz_long
@pytest.mark.parametrize("name", sorted(SPECS))
def test_hostile_calls_long(
    name: str, harness: Harness, backend: BackendSpec, tenant: str, tmp_path: Path
) -> None:
    _fuzz(name, harness, backend, tenant, tmp_path, LONG)


def test_every_public_method_is_fuzzed() -> None:
    assert untested_methods() == []
