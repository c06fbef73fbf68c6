"""One page per entity (``FusionSettings.page_bridges``) on a small made-up coin corpus.

"Which coin came before the Lumen in the country Tavi Rask is from?" The question names the
Lumen, whose page is three passages (one document, chunked). Through the name, each of the
three is the Lumen's page and took the page bridge in full, so they filled the top and
pushed the Oskarian crown, the next hop (reached from Tavi Rask's passage through
Oskaria), out of the top five. With one page per entity, the Lumen's most relevant
passage keeps the page bridge; its others are bridged as passages that only name it.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from corpora import COIN_QUESTION as QUESTION
from corpora import ingest_coins

import graphmem
from graphmem import InvalidInput, Memory
from graphmem.retrieval import PRESETS, FusionSettings, HashingEmbedder
from graphmem.retrieval.bridge import _best_pages


@pytest.fixture
def mem() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="coins", embedder=HashingEmbedder()) as memory:
        ingest_coins(memory)
        yield memory


def _ranked(mem: Memory, **options: object) -> list[str]:
    found = mem.retrieve(QUESTION, k=8, kinds=["chunk"], **options)  # type: ignore[arg-type]
    return [r.source_id for r in found]


def test_the_lumen_is_three_passages(mem: Memory) -> None:
    assert {r.source_id for r in mem.retrieve("Lumen union coin", k=40, kinds=["chunk"])} >= {
        "lumen#0",
        "lumen#1",
        "lumen#2",
    }


def test_one_page_per_entity_lets_the_next_hop_in(mem: Memory) -> None:
    every = _ranked(mem, page_bridges=0)
    assert {"lumen#0", "lumen#1", "lumen#2"} <= set(every[:5])
    assert "crown#0" not in every[:5]
    found = mem.retrieve(QUESTION, k=8, kinds=["chunk"])  # the default: passages
    ranked = [r.source_id for r in found]
    assert "crown#0" in ranked[:5]
    assert len({"lumen#0", "lumen#1", "lumen#2"} & set(ranked[:5])) == 1
    assert PRESETS["passages"].page_bridges == 1
    # the passages of the page left out keep their text and a bridge as a name's passages
    rest = [r for r in found if r.source_id.startswith("lumen#") and r.source_id not in ranked[:5]]
    assert rest and all(0 < r.signals["bridge"] < 0.5 for r in rest)


def test_best_pages_keeps_the_most_relevant_and_none_from_the_same_page() -> None:
    ranks = {("chunk", "a#1"): 0.9, ("chunk", "a#0"): 0.4, ("chunk", "a#2"): 0.9}
    pages = ["a#0", "a#1", "a#2"]
    assert _best_pages("chunk", pages, None, ranks, 1) == {"a#1"}  # ties: the smaller id
    assert _best_pages("chunk", pages, None, ranks, 2) == {"a#1", "a#2"}
    assert _best_pages("chunk", pages, None, ranks, 0) == set(pages)
    assert _best_pages("chunk", pages, ("chunk", "other"), ranks, 5) == set(pages)
    # from a passage of the same page, the page goes on: no hop, no page bridge
    assert _best_pages("chunk", pages, ("chunk", "a#0"), ranks, 1) == set()
    assert _best_pages("chunk", pages, ("chunk", "a#0"), ranks, 0) == set(pages)


def test_page_bridges_is_checked() -> None:
    with pytest.raises(InvalidInput, match="page_bridges"):
        FusionSettings(page_bridges=-1)
    with pytest.raises(InvalidInput, match="page_bridges"):
        FusionSettings(page_bridges=1.5)  # type: ignore[arg-type]
    assert PRESETS["multihop"].page_bridges == 0
