"""Where the Neo4j test suites get their server: one place for both of them.

``GRAPHMEM_NEO4J_URI`` (credentials in it, or ``GRAPHMEM_NEO4J_USER`` /
``GRAPHMEM_NEO4J_PASSWORD``, default neo4j / password) when set; otherwise a
testcontainers ``neo4j:5.26`` when a Docker engine answers a ping; otherwise a skip that
says why.
"""

from __future__ import annotations

import gc
import os
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from urllib.parse import quote, urlsplit

import pytest

NEO4J_IMAGE = "neo4j:5.26"
NO_NEO4J_REASON = "no GRAPHMEM_NEO4J_URI and no Docker engine"


def with_credentials(uri: str, user: str, password: str) -> str:
    """``uri`` with ``user:password@`` in it, unless it names a user already."""
    parts = urlsplit(uri)
    if parts.username:
        return uri
    netloc = f"{quote(user, safe='')}:{quote(password, safe='')}@{parts.netloc}"
    return parts._replace(netloc=netloc).geturl()


def docker_engine_available() -> bool:
    """Whether a Docker engine answers a ping."""
    if not os.environ.get("DOCKER_HOST") and not os.path.exists("/var/run/docker.sock"):
        return False
    # A failed ping leaves the client's socket to the garbage collector; collect it here,
    # with its ResourceWarning silenced, instead of in some later test.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ResourceWarning)
        answered = _ping_docker()
        gc.collect()
    return answered


def _ping_docker() -> bool:
    try:
        import docker
        from docker.errors import DockerException
    except ImportError:
        return False
    if not hasattr(docker, "from_env"):  # the repository's docker/ folder, not the package
        return False
    try:
        client = docker.from_env()
        try:
            return bool(client.ping())
        finally:
            client.close()
    except DockerException:
        return False
    except Exception:  # connection errors of the HTTP layer: no engine either
        return False


@contextmanager
def neo4j_server() -> Iterator[str]:
    """A Neo4j URL with credentials and graphmem's schema installed (full-text and vector
    indexes too, which retrieval needs): GRAPHMEM_NEO4J_URI, or a testcontainers Neo4j."""
    with _neo4j_url() as url:
        from graphmem.backends.neo4j.schema import install_schema

        # Idempotent; the default 384-dimension, unquantized vector indexes. Indexes made
        # with other settings (Neo4j's own default quantizes) are rebuilt: the suites'
        # exact-score tests need the default.
        install_schema(url, rebuild_vector_indexes=True)
        yield url


@contextmanager
def _neo4j_url() -> Iterator[str]:
    pytest.importorskip("neo4j", reason="the neo4j extra is not installed")
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
