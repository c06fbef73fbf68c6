"""A default passage retrieve follows the chain one round more, on every backend.

The opera corpus (tests/corpora.py): the opera's page rises to the top through the name
the question writes, and only a second round, from it, reaches its composer's page. The
first round's three store calls and the second round's two are the same contract calls on
every backend, so the same two pages lead.
"""

from __future__ import annotations

from corpora import OPERA_QUESTION, ingest_opera

from graphmem import GraphStore, Memory
from graphmem.retrieval import HashingEmbedder


def test_the_chain_is_followed_to_the_composer(store: GraphStore, tenant: str) -> None:
    mem = Memory(store, tenant, owns_store=False, embedder=HashingEmbedder())
    ingest_opera(mem)
    found = mem.retrieve(OPERA_QUESTION, k=8, kinds=["chunk"])
    # the two pages lead; their order turns on scores a shared index (Neo4j's full-text
    # and vector indexes hold every tenant's passages) may move by a hair
    assert {r.source_id for r in found[:2]} == {"opera#0", "vask#0"}
    composer = next(r for r in found if r.source_id == "vask#0")
    assert composer.anchor_entity_id == "vask" and composer.signals["bridge"] > 0
    one = [r.source_id for r in mem.retrieve(OPERA_QUESTION, k=8, kinds=["chunk"], follow_rounds=0)]
    assert one[0] == "opera#0" and "vask#0" not in one[:5]
