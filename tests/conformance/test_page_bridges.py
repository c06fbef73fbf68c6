"""One page per entity in a default passage retrieve, on every backend.

The coin corpus (tests/corpora.py): the Lumen's page is three passages of one document;
only the most relevant takes the Lumen's page bridge, so the next hop (the Oskarian crown)
makes the top five, where every page taking it in full kept it out.
"""

from __future__ import annotations

from corpora import COIN_QUESTION, ingest_coins

from graphmem import GraphStore, Memory
from graphmem.retrieval import HashingEmbedder

LUMEN = {"lumen#0", "lumen#1", "lumen#2"}


def test_one_page_of_the_lumen_leaves_room_for_the_crown(store: GraphStore, tenant: str) -> None:
    mem = Memory(store, tenant, owns_store=False, embedder=HashingEmbedder())
    ingest_coins(mem)
    top = [r.source_id for r in mem.retrieve(COIN_QUESTION, k=8, kinds=["chunk"])][:5]
    assert "crown#0" in top and len(LUMEN & set(top)) == 1
    every = mem.retrieve(COIN_QUESTION, k=8, kinds=["chunk"], page_bridges=0)
    top_every = [r.source_id for r in every][:5]
    assert set(top_every) >= LUMEN and "crown#0" not in top_every
