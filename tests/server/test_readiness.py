"""``GET /readyz``: 503 while the embedder warms up in the background, then 200."""

from __future__ import annotations

import threading
from collections.abc import Sequence

import numpy as np
import pytest
from numpy.typing import NDArray

pytest.importorskip("fastapi", reason="the server extra is not installed")

from fastapi.testclient import TestClient  # noqa: E402

from graphmem.doors.http.app import ServerConfig, create_app  # noqa: E402
from graphmem.retrieval import HashingEmbedder  # noqa: E402


class SlowModel:
    """An embedder whose model 'loads' until the test lets it (hashing vectors after)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self._inner = HashingEmbedder()

    @property
    def dimension(self) -> int:
        return self._inner.dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        assert self.release.wait(60), "the test never released the model"
        return self._inner.embed(texts)


def test_ready_once_the_embedder_is_warm_and_other_routes_answer_meanwhile() -> None:
    slow = SlowModel()
    app = create_app(ServerConfig(store="memory://", tenant="t", embedder=slow))
    with TestClient(app) as client:
        starting = client.get("/readyz")
        assert starting.status_code == 503
        assert starting.headers["content-type"] == "application/problem+json"
        assert starting.json()["embedder"] == "loading"
        assert "the embedder is still loading" in starting.json()["detail"]
        assert client.get("/healthz").status_code == 200  # alive while warming
        written = client.post(
            "/v1/entities", json={"entities": [{"id": "m", "type": "npc", "name": "M"}]}
        )
        assert written.status_code == 200
        slow.release.set()
        assert app.state.warmup.wait(60)
        ready = client.get("/readyz")
        assert ready.status_code == 200, ready.text
        body = ready.json()
        assert (body["status"], body["store"], body["embedder"]) == ("ready", True, "ready")
        assert body["embedder_seconds"] >= 0
        # the warm-up wrote nothing to the served store
        assert client.get("/v1/entities").json()["entities"][0]["id"] == "m"
        assert len(client.get("/v1/entities").json()["entities"]) == 1
