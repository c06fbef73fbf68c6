"""Graph questions the graph holds no answer to: abstained on, however near another
relation's words come; and a confidence a caller can threshold."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from tests.small_worlds import open_world


class NearEmbedder:
    """Words embed to given directions (cosines as a sentence model's: "guides" near
    "leads", not the same), every other word to one direction of its own."""

    def __init__(self, vectors: Mapping[str, Sequence[float]]) -> None:
        self._vectors = vectors
        self.dimension = len(next(iter(vectors.values()))) + 1

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dimension), dtype=np.float32)
        for row, text in enumerate(texts):
            vector = self._vectors.get(text.lower())
            if vector is None:
                out[row, -1] = 1.0
            else:
                out[row, : len(vector)] = vector
        return out


PEOPLE = {"ana": "Ana Brandt", "ben": "Ben Okoro", "cat": "Cat Lind", "dan": "Dan Reyes"}
THINGS = {"ridge": ("team", "Ridge Team")}
FACTS = [
    ("ben", "guides", "cat"),
    ("ben", "guides", "dan"),
    ("ana", "leads", "ridge"),
    ("dan", "leads", "ridge"),
]


def test_a_relation_the_topics_kind_has_but_the_topic_lacks_is_not_answered() -> None:
    # "guides" comes near "leads" by meaning (a cosine of .8); people have guides, Ana
    # has none
    embedder = NearEmbedder({"guides": (0.8, 0.6), "leads": (1.0, 0.0)})
    with open_world("rope", PEOPLE, THINGS, FACTS, embedder=embedder) as mem:
        lacking = mem.ask("Who guides Ana Brandt?")
        assert lacking == [] and lacking.abstained
        assert "guides" in lacking.reason
        held = mem.ask("Who guides Cat Lind?")
        assert [a.entity.id for a in held] == ["ben"]
        # a word the walked type explains best is no other relation's
        assert [a.entity.id for a in mem.ask("What does Ana Brandt lead?")] == ["ridge"]
