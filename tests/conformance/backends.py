"""The backends the conformance suite runs against: the only file to edit to add one.

Each :class:`BackendSpec` says how to build a store URL for one test. A backend that needs
a server names a session-wide ``server`` context manager: it is entered once per test
session (the first time a test of that backend runs) and yields whatever ``make_url``
needs; it calls ``pytest.skip`` with the reason when the server cannot be had.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlsplit

import pytest

NEO4J_IMAGE = "neo4j:5.26"
NO_NEO4J_REASON = "no GRAPHMEM_NEO4J_URI and no Docker engine"


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
        marks: pytest marks of the parameter.
    """

    id: str
    make_url: Callable[[Any, Path], str]
    persistent: bool
    server: Callable[[], AbstractContextManager[Any]] | None = None
    marks: tuple[pytest.MarkDecorator, ...] = field(default=())


def with_credentials(uri: str, user: str, password: str) -> str:
    """Return ``uri`` with ``user:password@`` in it, unless it already names a user."""
    parts = urlsplit(uri)
    if parts.username:
        return uri
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{parts.netloc}"
    return parts._replace(netloc=netloc).geturl()


def docker_engine_available() -> bool:
    """Whether a Docker engine answers a ping (False if the ``docker`` package is missing)."""
    try:
        import docker
        from docker.errors import DockerException
    except ImportError:
        return False
    # The repository's own docker/ folder can shadow the package as a namespace package.
    if not hasattr(docker, "from_env"):
        return False
    try:
        client = docker.from_env()
        try:
            return bool(client.ping())
        finally:
            client.close()
    except DockerException:
        return False
    except Exception:  # requests' connection errors and the like: no engine either
        return False


@contextmanager
def neo4j_server() -> Iterator[str]:
    """A Neo4j URL with credentials: GRAPHMEM_NEO4J_URI, or a testcontainers Neo4j."""
    user = os.environ.get("GRAPHMEM_NEO4J_USER", "neo4j")
    password = os.environ.get("GRAPHMEM_NEO4J_PASSWORD", "password")
    uri = os.environ.get("GRAPHMEM_NEO4J_URI")
    if uri:
        yield with_credentials(uri, user, password)
        return
    if not docker_engine_available():
        pytest.skip(NO_NEO4J_REASON)
    try:
        from testcontainers.neo4j import Neo4jContainer
    except ImportError:
        pytest.skip("a Docker engine answers but testcontainers is not installed")
    with Neo4jContainer(NEO4J_IMAGE) as container:
        yield with_credentials(
            container.get_connection_url(),
            getattr(container, "username", "neo4j"),
            getattr(container, "password", "password"),
        )


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
        marks=(pytest.mark.neo4j,),
    ),
)
