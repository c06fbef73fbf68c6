"""Cold starts: the embedder warms up in the background, and ``/readyz`` says when it is done.

Loading the embedding model takes seconds (tens on a busy machine); a server that loads
it on its first retrieve makes that request wait, and agent clients time out. So a
server starts warming its embedder (:func:`graphmem.retrieval.embedders.warm_up`) in a
worker thread as soon as its store is open, answers every other request meanwhile, and
``GET /readyz`` answers 503 until the warm-up is over, then 200. After that, the first
retrieve costs what the hundredth does (``graphmem bench --server`` measures both).
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
from collections.abc import AsyncIterator, Callable
from typing import TYPE_CHECKING, Any, Literal

from fastapi import FastAPI, Request
from fastapi.responses import Response
from pydantic import BaseModel

from graphmem.core.errors import BackendUnavailable, GraphmemError
from graphmem.core.version import __version__
from graphmem.doors.http.problems import MEDIA_TYPE, encode, problem_body
from graphmem.memory import open as open_memory

if TYPE_CHECKING:
    from graphmem.core.store import GraphStore
    from graphmem.retrieval import Embedder

_SCRATCH = "graphmem-warmup"

__all__ = ["Readiness", "Warmup", "install_warmup"]

_log = logging.getLogger("graphmem.server")

EmbedderState = Literal["loading", "ready", "unavailable", "failed"]


class Readiness(BaseModel):
    """Whether the server is ready: its store is open and its embedder warm.

    Attributes:
        status: ``ready`` or ``starting``.
        store: Whether the store is open.
        embedder: ``loading``, ``ready``, ``unavailable`` (none installed: retrieval
            answers 503, everything else works) or ``failed`` (the log says why).
        embedder_seconds: How long the warm-up took, once it is over.
        version: The graphmem version.
    """

    status: Literal["ready", "starting"]
    store: bool
    embedder: EmbedderState
    embedder_seconds: float | None = None
    version: str


class Warmup:
    """The embedder's warm-up, in a daemon thread: started once, read by ``/readyz``."""

    def __init__(self, embedder: Embedder | None, probe: Callable[[], None] | None = None) -> None:
        self._embedder = embedder
        self._probe = probe
        self.state: EmbedderState = "loading"
        self.seconds: float | None = None
        self._done = threading.Event()

    def start(self) -> None:
        """Warm the embedder in a daemon thread (it never holds the process up at exit)."""
        threading.Thread(target=self._run, name="graphmem-warmup", daemon=True).start()

    def wait(self, timeout: float | None = None) -> bool:
        """Wait until the warm-up is over; whether it is."""
        return self._done.wait(timeout)

    def _run(self) -> None:
        from graphmem.retrieval.embedders import default_embedder, warm_up

        started = time.perf_counter()
        try:
            embedder = self._embedder if self._embedder is not None else default_embedder()
            warm_up(embedder)
            if self._probe is not None:
                self._probe()
            self.state = "ready"
        except BackendUnavailable as exc:
            self.state = "unavailable"
            _log.info("no embedder to warm up: %s", exc.message)
        except (GraphmemError, OSError, RuntimeError, ValueError) as exc:
            self.state = "failed"
            _log.warning("the embedder's warm-up failed: %s: %s", type(exc).__name__, exc)
        finally:
            self.seconds = round(time.perf_counter() - started, 3)
            self._done.set()


def install_warmup(
    app: FastAPI, store: Callable[[], GraphStore | None], embedder: Embedder | None
) -> Warmup:
    """Warm ``embedder`` when ``app`` starts; add ``GET /readyz``.

    ``store`` gives the app's store once it is open. After the model, a retrieve over
    a scratch world in a ``memory://`` store of its own (the served store is not
    touched) loads and builds the rest of the retrieval path: modules, models, indexes.
    """

    def probe() -> None:
        with open_memory("memory://", tenant=_SCRATCH, embedder=embedder) as mem:
            mem.upsert_entities([{"id": "mira", "type": "npc", "name": "Mira"}])
            mem.add_documents([{"text": "Mira keeps the forge by the river."}])
            mem.retrieve("who keeps the forge by the river", k=3, hops=1)

    warmup = Warmup(embedder, probe)
    inner = app.router.lifespan_context

    @contextlib.asynccontextmanager
    async def lifespan(target: Any) -> AsyncIterator[Any]:
        async with inner(target) as state:
            warmup.start()
            yield state

    app.router.lifespan_context = lifespan

    @app.get(
        "/readyz",
        tags=["health"],
        response_model=Readiness,
        responses={
            503: {
                "description": "Not ready yet: the store or the embedder is still starting.",
                "content": {MEDIA_TYPE: {"schema": {"$ref": "#/components/schemas/Problem"}}},
            }
        },
        summary="Readiness: the store is open and the embedder warm (no key needed)",
    )
    async def readyz(request: Request) -> Any:
        opened = store() is not None
        warm = warmup.state != "loading"
        out = Readiness(
            status="ready" if opened and warm else "starting",
            store=opened,
            embedder=warmup.state,
            embedder_seconds=warmup.seconds,
            version=__version__,
        )
        if out.status == "ready":
            return out
        detail = "the store is not open yet" if not opened else "the embedder is still loading"
        body = problem_body(
            503,
            f"not ready: {detail}; retry shortly",
            title="BackendUnavailable",
            instance=request.url.path,
            extra=out.model_dump(mode="json"),
        )
        return Response(encode(body), status_code=503, media_type=MEDIA_TYPE)

    return warmup
