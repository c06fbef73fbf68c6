"""Fixtures of the Neo4j integration suite: a live Neo4j 5.26, or a skip that says why.

The server is ``GRAPHMEM_NEO4J_URI`` (credentials in it, or ``GRAPHMEM_NEO4J_USER`` /
``GRAPHMEM_NEO4J_PASSWORD``, default neo4j / password) when set; otherwise a
testcontainers ``neo4j:5.26`` when a Docker engine answers a ping; otherwise every test
that needs it is skipped with that reason.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator

import pytest
from neo4j_support import neo4j_server

from graphmem import GraphStore


@pytest.fixture(scope="session")
def neo4j_url() -> Iterator[str]:
    """A Neo4j URL with credentials, for the whole session."""
    with neo4j_server() as url:
        yield url


@pytest.fixture(scope="session")
def schema(neo4j_url: str) -> object:
    """The schema installed once per session (the default 384-dimension embedder)."""
    from graphmem.backends.neo4j.schema import install_schema

    return install_schema(neo4j_url)


@pytest.fixture
def store(neo4j_url: str, schema: object) -> Iterator[GraphStore]:
    from graphmem import open_store

    opened = open_store(neo4j_url)
    yield opened
    opened.close()


@pytest.fixture
def tenant(store: GraphStore) -> Iterator[str]:
    name = f"it-{uuid.uuid4().hex}"
    yield name
    store.clear(name)
