"""The backends the conformance suite runs against: the only file to edit to add one.

Each :class:`BackendSpec` says how to build a store URL for one test. A backend that needs
a server names a session-wide ``server`` context manager: it is entered once per test
session (the first time a test of that backend runs) and yields whatever ``make_url``
needs; it calls ``pytest.skip`` with the reason when the server cannot be had.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from neo4j_support import neo4j_server


@dataclass(frozen=True)
class BackendSpec:
    """How the suite opens one backend.

    Attributes:
        id: The pytest id of the parameter (``memory``, ``file``, ``neo4j``).
        make_url: ``make_url(server, directory) -> url``: a store URL for one test;
            ``server`` is what ``server`` yielded (None without one), ``directory`` a
            fresh temporary directory of the test.
        persistent: Whether closing and reopening the same URL gives the data back
            (the ``reopen`` fixture skips otherwise).
        server: A session-wide context manager factory for a server, or None.
        shared: Whether several processes may open the URL and write at once (a server
            backend; a file:// store has one writer, which serves the others).
        marks: pytest marks of the parameter.
    """

    id: str
    make_url: Callable[[Any, Path], str]
    persistent: bool
    server: Callable[[], AbstractContextManager[Any]] | None = None
    shared: bool = False
    marks: tuple[pytest.MarkDecorator, ...] = field(default=())


def _neo4j_url(server: Any, directory: Path) -> str:
    import graphmem

    url = str(server)
    scheme = url.split("://", 1)[0].lower()
    if scheme not in graphmem.registered_schemes():
        pytest.skip(f"no graphmem backend is registered for {scheme}:// yet")
    return url


BACKENDS: tuple[BackendSpec, ...] = (
    BackendSpec(id="memory", make_url=lambda server, directory: "memory://", persistent=False),
    BackendSpec(
        id="file",
        make_url=lambda server, directory: f"file://{directory}/world.graphmem",
        persistent=True,
    ),
    BackendSpec(
        id="neo4j",
        make_url=_neo4j_url,
        persistent=True,
        server=neo4j_server,
        shared=True,
        marks=(pytest.mark.neo4j,),
    ),
)
