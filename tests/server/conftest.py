"""Fixtures of the doors' tests: a live ``graphmem serve`` per module, keys, an HTTP client."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed")
import httpx  # noqa: E402
from server_support import Api, graphmem_serve  # noqa: E402

from graphmem.doors.http.keys import add_key  # noqa: E402


@pytest.fixture(scope="module")
def api(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Api]:
    """One server per test module: memory://, keys for alpha, beta and gamma, hashing embedder."""
    directory = tmp_path_factory.mktemp("serve")
    keys_file = directory / "keys.toml"
    keys = {
        tenant: add_key(keys_file, tenant=tenant, name=tenant)
        for tenant in ("alpha", "beta", "gamma")
    }
    with graphmem_serve(
        "--store",
        "memory://",
        "--keys",
        str(keys_file),
        "--embedder",
        "hashing",
        "--access-log",
        "--log-level",
        "info",
        log=directory / "server.log",
    ) as served:
        yield Api(served, keys, keys_file)


@pytest.fixture(scope="module")
def alpha(api: Api) -> Iterator[httpx.Client]:
    with api.client("alpha") as client:
        yield client


@pytest.fixture(scope="module")
def beta(api: Api) -> Iterator[httpx.Client]:
    with api.client("beta") as client:
        yield client


@pytest.fixture(scope="module")
def gamma(api: Api) -> Iterator[httpx.Client]:
    """A third tenant, for tests whose writes must not show in alpha's listings."""
    with api.client("gamma") as client:
        yield client
