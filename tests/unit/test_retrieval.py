"""Retrieval on the embedded backend with the deterministic HashingEmbedder (no model)."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

import graphmem
from graphmem import (
    BackendUnavailable,
    ContextResult,
    Entity,
    InvalidInput,
    Memory,
    NotFound,
    Provenance,
    Relationship,
)
from graphmem.retrieval import (
    PRESETS,
    EntityLinker,
    Extraction,
    FusionSettings,
    HashingEmbedder,
    chunk_text,
    reciprocal_rank_fusion,
    render_context,
    resolve_settings,
)

LORE = [
    {
        "id": "mill",
        "title": "The Mill",
        "text": "Halden Crook runs the mill. He cheats on every sack of flour.",
    },
    {"id": "forge", "title": "The Forge", "text": "Mira hammers blades at the forge by the river."},
    {
        "id": "bell",
        "title": "Drowned Bell",
        "text": "The Drowned Bell rings when the river floods.",
    },
]


@pytest.fixture
def mem() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="village", embedder=HashingEmbedder()) as memory:
        memory.upsert_entities(
            [
                Entity(id="mira", type="npc", name="Mira", attributes={"aliases": ["the smith"]}),
                Entity(id="halden", type="npc", name="Halden Crook"),
                Entity(id="forge", type="location", name="The Forge"),
                Entity(id="ilse", type="npc", name="Sister Ilse"),
            ]
        )
        memory.upsert_relationships(
            [
                Relationship(source_id="mira", target_id="forge", type="works_at"),
                Relationship(
                    source_id="halden",
                    target_id="mira",
                    type="hates",
                    provenance=Provenance(confidence=0.4, source="inferred"),
                ),
            ]
        )
        memory.add_documents(LORE)
        memory.index_entities()
        yield memory


# ----------------------------------------------------------------------------- embedders


def test_hashing_embedder_is_deterministic_and_unit_length() -> None:
    a = HashingEmbedder(64).embed(["the smith of the village", ""])
    b = HashingEmbedder(64).embed(["the smith of the village", ""])
    assert a.shape == (2, 64) and a.dtype == np.float32
    assert np.array_equal(a, b)
    assert np.allclose(np.linalg.norm(a, axis=1), 1.0)


def test_embedder_takes_a_list() -> None:
    with pytest.raises(InvalidInput):
        HashingEmbedder().embed("one text")  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        HashingEmbedder(dimension=2)


def test_default_embedder_error_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    from graphmem.retrieval import embedders

    monkeypatch.setattr(embedders.SentenceTransformerEmbedder, "available", staticmethod(bool))
    with (
        graphmem.open("memory://", tenant="t") as memory,
        pytest.raises(BackendUnavailable, match="embeddings"),
    ):
        memory.retrieve("anything")


# ----------------------------------------------------------------------------- ingest


def test_chunk_text_packs_sentences_with_overlap() -> None:
    text = "One two three. Four five six. Seven eight nine. Ten."
    assert chunk_text(text, max_tokens=8, overlap=0) == [
        "One two three. Four five six.",
        "Seven eight nine. Ten.",
    ]
    overlapping = chunk_text(text, max_tokens=8, overlap=1)
    assert overlapping[1].startswith("Four five six.")
    assert chunk_text("x" * 50, max_tokens=4) == ["x" * 16, "x" * 16, "x" * 16, "xx"]
    with pytest.raises(InvalidInput):
        chunk_text("x", max_tokens=0)


def test_linker_whole_words_longest_match_and_aliases() -> None:
    linker = EntityLinker(
        [
            Entity(id="haven", type="location", name="Haven"),
            Entity(id="new-haven", type="location", name="New Haven"),
            Entity(id="mira", type="npc", name="Mira", attributes={"aliases": "the smith"}),
        ]
    )
    assert linker.link("From NEW  HAVEN to Haven, ask the smith; Miranda is not Mira.") == [
        "new-haven",
        "haven",
        "mira",
    ]
    assert EntityLinker([]).link("anything") == []


def test_linker_reads_names_inside_longer_names_on_request() -> None:
    linker = EntityLinker(
        [
            Entity(id="haven", type="location", name="Haven"),
            Entity(id="new-haven", type="location", name="New Haven"),
            Entity(id="clock", type="thing", name="New Haven Clock"),
        ]
    )
    text = "The New Haven Clock; Haven."
    assert linker.link(text) == ["clock", "haven"]
    assert linker.link(text, nested=True) == ["clock", "new-haven", "haven"]
    spans = linker.spans(text, nested=True)
    assert [(start, end) for start, end, _e in spans] == [(4, 19), (4, 13), (8, 13)]
    # A name across the end of a longer one is another reading of the text, never kept.
    crossing = EntityLinker(
        [
            Entity(id="new-york", type="location", name="New York"),
            Entity(id="york-city", type="location", name="York City"),
        ]
    )
    assert crossing.link("New York City", nested=True) == ["new-york"]


def test_chunks_and_turns_mention_names_inside_longer_names(mem: Memory) -> None:
    mem.upsert_entities(
        [
            Entity(id="mill-road", type="location", name="Mill Road"),
            Entity(id="road", type="location", name="Road"),
        ]
    )
    text = "Halden Crook walks Mill Road."
    mem.add_documents([{"id": "nest", "text": text}])
    mem.add_documents([{"id": "flat", "text": text}], nested_mentions=False)
    chunks = mem.store.get_mentions(mem.tenant, "chunk", ["nest#0", "flat#0"])
    assert {c: sorted(e) for c, e in chunks.items()} == {
        "nest#0": ["halden", "mill-road", "road"],
        "flat#0": ["halden", "mill-road"],
    }
    chat = mem.conversation("walk")
    turn = chat.append("player", text)
    mem.index_turns("walk", embed=False)
    assert sorted(mem.store.get_mentions(mem.tenant, "turn", [turn.id])[turn.id]) == [
        "halden",
        "mill-road",
        "road",
    ]
    # indexing again without nested names replaces the turn's mentions
    mem.index_turns("walk", embed=False, nested_mentions=False)
    assert sorted(mem.store.get_mentions(mem.tenant, "turn", [turn.id])[turn.id]) == [
        "halden",
        "mill-road",
    ]


def test_add_documents_links_chunks_and_says_nothing_was_extracted(mem: Memory) -> None:
    report = mem.add_documents([{"id": "more", "text": "Sister Ilse heard the smith curse."}])
    assert report.chunk_ids == ["more#0"]
    assert report.extractor == "none" and "no extractor" in report.notes[0]
    assert mem.store.get_mentions(mem.tenant, "chunk", ["more#0"]) == {"more#0": ["ilse", "mira"]}
    assert mem.store.count_embeddings(mem.tenant, "chunk") == 4


def test_add_documents_bad_input(mem: Memory) -> None:
    with pytest.raises(InvalidInput):
        mem.add_documents("just a string")
    with pytest.raises(InvalidInput):
        mem.add_documents([{"text": "  "}])
    with pytest.raises(InvalidInput, match="ghost"):
        mem.add_documents([{"text": "x", "entity_ids": ["ghost"]}])
    with pytest.raises(InvalidInput, match="repeat"):
        mem.add_documents([{"id": "a", "text": "x"}, {"id": "a", "text": "y"}])


def test_an_extractor_adds_relationships_with_evidence(mem: Memory) -> None:
    class Rivals:
        name = "rivals"

        def extract(self, text: str, known: list[Entity]) -> Extraction:
            ids = sorted(e.id for e in known)
            if len(ids) < 2:
                return Extraction()
            return Extraction(
                relationships=[Relationship(source_id=ids[0], target_id=ids[1], type="rivals")]
            )

    report = mem.add_documents(
        [{"id": "feud", "text": "Halden Crook and Mira quarrel."}], extractor=Rivals()
    )
    assert report.relationships == 1 and report.notes == []
    [fact] = mem.get_relationships("halden", types=["rivals"])
    assert fact.provenance.evidence == ("feud#0",)


# ----------------------------------------------------------------------------- fusion


def test_rrf_and_presets() -> None:
    scores = reciprocal_rank_fusion([(["a", "b"], 1.0), (["b"], 1.0)], rrf_k=60)
    assert scores["b"] > scores["a"]
    assert set(PRESETS) >= {"hybrid", "semantic", "keyword", "graph", "text_only"}
    assert resolve_settings("graph", {"seeds": 2}).seeds == 2
    with pytest.raises(InvalidInput):
        resolve_settings("nope")
    with pytest.raises(InvalidInput):
        resolve_settings("hybrid", {"nope": 1})
    with pytest.raises(InvalidInput):
        FusionSettings(vector_weight=0, fulltext_weight=0)
    for bad in (-1.0, float("nan"), True):
        with pytest.raises(InvalidInput):
            FusionSettings(reach_weight=bad)
    assert resolve_settings("hybrid", {"reach_weight": None}).reach_weight is None


# ----------------------------------------------------------------------------- retrieve


def test_retrieve_returns_results_with_provenance(mem: Memory) -> None:
    results = mem.retrieve("Who cheats on flour at the mill?", k=8)
    assert results[0].kind == "chunk" and results[0].source_id == "mill#0"
    assert results[0].anchor_entity_id == "halden"
    assert results[0].provenance is not None and results[0].provenance.evidence == ("mill#0",)
    assert [r.score for r in results] == sorted((r.score for r in results), reverse=True)
    facts = [r for r in results if r.kind == "relationship"]
    assert facts and facts[0].provenance is not None
    assert {r.kind for r in results} <= {"chunk", "turn", "entity", "relationship"}


def test_graph_expansion_reaches_what_the_text_does_not_name(mem: Memory) -> None:
    # The query names neither Mira nor the forge; the graph walk reaches both.
    # seeds=0: only the entity the query names seeds the walk.
    results = mem.retrieve("Halden Crook", k=20, hops=2, seeds=0)
    reached = {r.source_id for r in results}
    assert {"mira", "forge", "forge#0"} <= reached
    hops = {r.source_id: r.hops for r in results if r.kind == "entity"}
    assert hops["halden"] == 0 and hops["mira"] == 1 and hops["forge"] == 2
    flat = mem.retrieve("Halden Crook", k=20, hops=0, seeds=0)
    flat_hops = {r.source_id: r.hops for r in flat if r.kind == "entity"}
    assert flat_hops["halden"] == 0 and flat_hops.get("forge") is None


def test_graph_scope_keeps_results_inside(mem: Memory) -> None:
    results = mem.retrieve("river", k=20, graph_scope=["mira", "forge"])
    for result in results:
        if result.kind == "entity":
            assert result.source_id in {"mira", "forge"}
        if result.kind == "chunk":
            assert result.source_id == "forge#0"
    assert not any(r.source_id == "bell#0" for r in results)


def test_kinds_and_presets(mem: Memory) -> None:
    only = mem.retrieve("forge", kinds=["entity"], preset="keyword")
    assert only and {r.kind for r in only} == {"entity"}
    assert mem.retrieve("forge", preset="text_only", kinds=["chunk"])[0].source_id == "forge#0"


def test_turns_are_linked_embedded_and_found(mem: Memory) -> None:
    chat = mem.conversation("s1")
    chat.append("player", "Mira promised me a new sword by Friday.", speaker="Ana")
    assert mem.index_turns() == 1
    results = mem.retrieve("sword promise", kinds=["turn"])
    assert results[0].kind == "turn" and results[0].anchor_entity_id == "mira"
    assert results[0].content.startswith("Ana: ")
    assert results[0].provenance is not None and results[0].provenance.session_id == "s1"


@pytest.mark.parametrize("query", ["", "   ", None, 3])
def test_empty_or_non_text_query(mem: Memory, query: object) -> None:
    with pytest.raises(InvalidInput):
        mem.retrieve(query)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        mem.query_with_context(query)  # type: ignore[arg-type]


@pytest.mark.parametrize("k", [0, -3, 1.5, True])
def test_k_must_be_a_positive_integer(mem: Memory, k: object) -> None:
    with pytest.raises(InvalidInput):
        mem.retrieve("mill", k=k)  # type: ignore[arg-type]


def test_bad_hops_kinds_and_scope(mem: Memory) -> None:
    with pytest.raises(InvalidInput):
        mem.retrieve("mill", hops=-1)
    with pytest.raises(InvalidInput):
        mem.retrieve("mill", kinds=["rumour"])
    with pytest.raises(NotFound, match="ghost"):
        mem.retrieve("mill", graph_scope=["mira", "ghost"])
    with pytest.raises(InvalidInput):
        mem.retrieve("mill", graph_scope=[])


@pytest.mark.parametrize("query", ['"', 'AND OR NOT "(', "NEAR(mill flour, 2)*", "body:mill ^"])
def test_operator_soup_is_literal(mem: Memory, query: str) -> None:
    results = mem.query_with_context(query)
    if "mill" in query:
        assert results[0].source_id == "mill#0"


def test_embedder_dimension_mismatch_is_a_typed_error() -> None:
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder(64)) as memory:
        memory.add_documents(["The mill grinds."])
        other = Memory(memory.store, "t", owns_store=False, embedder=HashingEmbedder(32))
        with pytest.raises(InvalidInput, match="dimension"):
            other.retrieve("mill")
        with pytest.raises(InvalidInput, match="dimension"):
            other.add_documents(["Another."])


def test_query_with_embedding(mem: Memory) -> None:
    vector = HashingEmbedder().embed(["Mira hammers blades at the forge"])[0]
    results = mem.query_with_embedding(vector, k=3, kinds=["chunk"])
    assert results[0].source_id == "forge#0"
    with pytest.raises(InvalidInput):
        mem.query_with_embedding([1.0, 2.0], k=3)


def test_query_with_context_needs_no_embedder() -> None:
    with graphmem.open("memory://", tenant="t") as memory:  # no embedder at all
        memory.add_documents([{"id": "d", "text": "The ferry crosses at dusk."}], embed=False)
        assert memory.query_with_context("ferry")[0].source_id == "d#0"


# ----------------------------------------------------------------------------- rendering


def test_render_context_keeps_the_best_within_budget(mem: Memory) -> None:
    results = mem.retrieve("Who cheats at the mill?", k=10)
    full = render_context(results)
    short = mem.render_context(results, max_tokens=40)
    assert len(short) < len(full)
    assert graphmem.estimate_tokens(short) <= 40 + len(short.splitlines())
    assert "mill#0" in short.splitlines()[1]
    with pytest.raises(InvalidInput):
        render_context(results, max_tokens=0)


def test_render_marks_facts_with_confidence() -> None:
    fact = ContextResult(
        kind="relationship",
        source_id="a|hates|b",
        content="A hates B",
        score=1.0,
        provenance=Provenance(confidence=0.4),
    )
    assert "(confidence 0.40)" in render_context([fact], header="")


# ----------------------------------------------------------------------------- persistence


def test_file_store_keeps_everything_retrieval_needs(tmp_path) -> None:  # type: ignore[no-untyped-def]
    url = f"file://{tmp_path}/w.graphmem"
    with graphmem.open(url, tenant="t", embedder=HashingEmbedder()) as memory:
        memory.upsert_entities([Entity(id="mira", type="npc", name="Mira")])
        memory.add_documents(LORE)
        before = memory.retrieve("blades by the river", k=5)
    with graphmem.open(url, tenant="t", embedder=HashingEmbedder()) as memory:
        assert memory.retrieve("blades by the river", k=5) == before


def test_export_and_import_carry_chunks_and_mentions(mem: Memory, tmp_path) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path / "world.jsonl"
    mem.export_jsonl(path)
    with graphmem.open("memory://", tenant="copy", embedder=HashingEmbedder()) as copy:
        copy.import_jsonl(path)
        dump = copy.dump()
        assert sorted(c.id for c in dump.chunks) == ["bell#0", "forge#0", "mill#0"]
        assert ("chunk", "mill#0", "halden") in dump.mentions
        assert copy.query_with_context("flour")[0].source_id == "mill#0"
