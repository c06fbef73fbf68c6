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


# A bare name (no description, no fact) says no more than a passage naming it.
LORE = [
    ("mill", "Halden Crook runs the mill by the river Wend. He grinds barley for the abbey."),
    ("abbey", "The abbey of Saint Orla brews ale from the barley the mill grinds."),
    ("ferry", "A ferry crosses the river Wend below the mill every morning."),
    ("bells", "The bells of the abbey ring at dawn."),
]


def _village(mem: graphmem.Memory) -> None:
    from graphmem.retrieval import NameExtractor

    docs = [{"id": i, "text": t} for i, t in LORE]
    mem.add_documents(docs, extractor=NameExtractor())
    mem.index_entities()


def test_a_bare_name_is_folded_into_the_passage_that_names_it() -> None:
    question = "Who grinds barley at the mill by the river Wend?"
    with graphmem.open("memory://", tenant="names", embedder=HashingEmbedder(64)) as mem:
        _village(mem)
        names = {e.id for e in mem.dump().entities}
        assert {"name:halden crook", "name:wend"} <= names  # what NameExtractor made
        found = mem.retrieve(question, k=4)
        assert [r.kind for r in found] == ["chunk"] * 4  # the passages fill the slots
        assert found[0].source_id == "mill#0"
        kept = mem.retrieve(question, k=4, fold_pages=False)
        assert any(r.kind == "entity" for r in kept)  # unfolded, the names take slots
        assert [r.source_id for r in found] != [r.source_id for r in kept]
        # asked for entities, an entity is an entity
        alone = mem.retrieve(question, k=2, kinds=["entity"])
        assert alone and all(r.kind == "entity" for r in alone)


def test_an_entity_with_a_fact_or_a_description_keeps_its_place() -> None:
    with graphmem.open("memory://", tenant="names", embedder=HashingEmbedder(64)) as mem:
        _village(mem)
        mem.upsert_entities(
            [
                {"id": "halden", "type": "npc", "name": "Halden Crook"},
                {
                    "id": "orla",
                    "type": "npc",
                    "name": "Saint Orla",
                    "attributes": {"description": "patron of brewers"},
                },
                {"id": "abbey", "type": "location", "name": "Abbey of Saint Orla"},
            ]
        )
        mem.upsert_relationships([{"source_id": "halden", "target_id": "abbey", "type": "serves"}])
        mem.index_entities()
        mem.add_documents([{"id": i, "text": t} for i, t in LORE])  # linked to them too
        found = mem.retrieve("Halden Crook", k=6)
        ids = [(r.kind, r.source_id) for r in found]
        assert ("entity", "halden") in ids  # it takes part in a fact
        assert ("relationship", "halden|serves|abbey") in ids
        described = mem.retrieve("Saint Orla", k=6)
        assert ("entity", "orla") in [(r.kind, r.source_id) for r in described]
        # no walk (hops 0): no facts were read, so no entity is taken for a bare name
        flat = mem.retrieve("Halden Crook", k=6, hops=0)
        assert ("entity", "halden") in [(r.kind, r.source_id) for r in flat]


def test_folding_every_entity_still_fills_k() -> None:
    with graphmem.open("memory://", tenant="names", embedder=HashingEmbedder(64)) as mem:
        _village(mem)
        for k in (1, 2, 3, 4):
            found = mem.retrieve("the mill, the river Wend, Halden Crook, the abbey", k=k)
            assert len(found) == k
