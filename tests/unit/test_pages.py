"""An entity whose page is among the results gives its slot to the page (retrieval/pages.py)."""

from __future__ import annotations

import graphmem
from graphmem.retrieval import HashingEmbedder

PASSAGES = [
    ("Arthur's Magazine", "Arthur's Magazine was an American literary periodical of 1844."),
    ("First for Women", "First for Women is a woman's magazine published by Bauer in 1989."),
    ("Bauer Media Group", "Bauer Media Group is a German media company based in Hamburg."),
    ("Hamburg", "Hamburg is the second-largest city in Germany, on the river Elbe."),
]


def _corpus(mem: graphmem.Memory) -> None:
    docs = [{"id": f"p{i}", "title": t, "text": x} for i, (t, x) in enumerate(PASSAGES)]
    mem.add_documents(docs, title_entities=True)


def test_a_question_for_every_kind_gets_pages_not_their_entities() -> None:
    question = "Which magazine was started first, Arthur's Magazine or First for Women?"
    with graphmem.open("memory://", tenant="pages", embedder=HashingEmbedder(64)) as mem:
        _corpus(mem)
        found = mem.retrieve(question, k=3)
        kinds = [(r.kind, r.source_id) for r in found]
        # both pages lead; their title entities are folded into them
        assert {node for kind, node in kinds[:2]} == {"p0#0", "p1#0"}
        assert ("entity", "title:Arthur's Magazine") not in kinds
        assert ("entity", "title:First for Women") not in kinds
        assert len(found) == 3  # the slots the entities left are filled
        # without folding, the entities the question names take slots of their own
        kept = mem.retrieve(question, k=3, fold_pages=False)
        assert any(r.kind == "entity" for r in kept)
        # asked for entities alone, an entity is an entity
        alone = mem.retrieve(question, k=2, kinds=["entity"])
        assert {r.source_id for r in alone} == {"title:Arthur's Magazine", "title:First for Women"}


def test_an_entity_without_its_page_among_the_best_keeps_its_place() -> None:
    with graphmem.open("memory://", tenant="pages", embedder=HashingEmbedder(64)) as mem:
        _corpus(mem)
        mem.upsert_entities([{"id": "elbe", "type": "location", "name": "Elbe"}])
        found = mem.retrieve("Elbe", k=5)
        assert ("entity", "elbe") in [(r.kind, r.source_id) for r in found]
