"""The ``bridge`` retrieval method (preset ``multihop``) on tiny hand-made corpora."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from corpora import CLOCK_QUESTION, ingest_clock

import graphmem
from graphmem import Entity, InvalidInput, Memory, Relationship
from graphmem.retrieval import PRESETS, FusionSettings, HashingEmbedder

# "Where is the publisher of Grace Vale's first novel based?" The novel passage names the
# publisher; the publisher's passage (the answer) shares no word with the question but
# "publisher", which decoys share too. Only the entity the first passage mentions leads there.
CORPUS = [
    (
        "vale",
        "Grace Vale",
        "Grace Vale wrote the novel Orange Creeps, put out by Two Dollar.",
    ),
    ("two", "Two Dollar", "Two Dollar is a small house in Columbus, Ohio; a publisher since 2005."),
    ("d1", "Blue Press", "Blue Press is a publisher of maps."),
    ("d2", "Red Press", "Red Press is a publisher of poems."),
    ("d3", "Green Press", "Green Press is a publisher of novels and first editions."),
    ("d4", "Grey Press", "Grey Press is a publisher based in a first floor office."),
]
QUESTION = "Where is the publisher of Grace Vale's first novel based?"


def _ingest_books(memory: Memory) -> None:
    """The corpus's passages, each about its title's entity, and the entities indexed."""
    memory.upsert_entities(
        [Entity(id=f"t-{pid}", type="concept", name=title) for pid, title, _t in CORPUS]
    )
    memory.add_documents(
        [
            {"id": pid, "title": title, "text": text, "entity_ids": [f"t-{pid}"]}
            for pid, title, text in CORPUS
        ],
        chunk_tokens=1000,
        overlap=0,
    )
    memory.index_entities()


@pytest.fixture
def mem() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="books", embedder=HashingEmbedder()) as memory:
        _ingest_books(memory)
        yield memory


def _chunks(mem: Memory, **options: object) -> list[str]:
    results = mem.retrieve(QUESTION, k=3, kinds=["chunk"], **options)  # type: ignore[arg-type]
    return [r.source_id for r in results]


def test_bridge_passage_is_reached_through_the_entity(mem: Memory) -> None:
    plain = _chunks(mem, preset="text_only")
    assert plain[0] == "vale#0" and "two#0" not in plain[:2]
    found = mem.retrieve(QUESTION, k=3, kinds=["chunk"], preset="multihop")
    assert [r.source_id for r in found][:2] == ["vale#0", "two#0"]
    bridged = found[1]
    assert bridged.anchor_entity_id == "t-two"
    assert bridged.signals["bridge"] > 0
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)


def test_no_rounds_is_text_only(mem: Memory) -> None:
    text_only = _chunks(mem, preset="text_only")
    assert _chunks(mem, preset="multihop", hops=0) == text_only
    assert _chunks(mem, preset="multihop", graph_weight=0.0) == text_only


def test_hub_entity_links_nothing(mem: Memory) -> None:
    # With at most one passage per entity, "Two Dollar" (mentioned twice) is a hub.
    assert "two#0" not in _chunks(mem, preset="multihop", max_mentioning=1)[:2]


def test_fact_leads_one_hop_further() -> None:
    docs = [
        ("a", "Ann Bell founded the Quiet Guild."),
        ("b", "The harbour of Saltmere is cold and deep."),
        ("c", "Some river towns trade salt and fish."),
        ("d", "The harbour guild tolls the bell."),
    ]
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder()) as memory:
        memory.upsert_entities(
            [
                Entity(id="ann", type="npc", name="Ann Bell"),
                Entity(id="guild", type="faction", name="Quiet Guild"),
                Entity(id="saltmere", type="location", name="Saltmere"),
            ]
        )
        memory.upsert_relationships(
            [Relationship(source_id="guild", target_id="saltmere", type="located_in")]
        )
        memory.add_documents([{"id": i, "text": t} for i, t in docs], chunk_tokens=1000)
        question = "Which harbour is home to what Ann Bell founded?"
        found = memory.retrieve(question, k=4, preset="multihop", hops=1, kinds=["chunk"])
        # b is reached through Quiet Guild -located_in-> Saltmere
        assert [r.source_id for r in found][:2] == ["a#0", "b#0"]
        assert found[1].anchor_entity_id == "saltmere"
        without = memory.retrieve(question, k=4, preset="multihop", hops=1, hop_decay=0.0)
        assert "b#0" not in [r.source_id for r in without if r.kind == "chunk"][:2]
        mixed = memory.retrieve(question, k=10, preset="multihop", kinds=["chunk", "relationship"])
        facts = [r.source_id for r in mixed if r.kind == "relationship"]
        assert facts == ["guild|located_in|saltmere"]
        ents = memory.retrieve(question, k=5, preset="multihop", kinds=["chunk", "entity"])
        assert {"ann", "guild"} <= {r.source_id for r in ents}


def test_turns_are_reached_too() -> None:
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder()) as memory:
        memory.upsert_entities(
            [
                Entity(id="mira", type="npc", name="Mira"),
                Entity(id="oak", type="location", name="Old Oak"),
            ]
        )
        chat = memory.conversation("s")
        chat.append("player", "Where does Mira sleep? She naps under the Old Oak.")
        chat.append("player", "The Old Oak stands on the hill east of town.")
        chat.append("player", "Bread costs two coins on the hill.")
        memory.index_turns()
        results = memory.retrieve("Where does Mira sleep?", k=3, kinds=["turn"], preset="multihop")
        contents = [r.content for r in results]
        assert "Mira sleep" in contents[0] and "east of town" in contents[1]


def test_method_is_checked() -> None:
    assert PRESETS["multihop"].method == "bridge"
    # the setting chosen on HotpotQA by the grid in docs/retrieval.md
    chosen = PRESETS["multihop"]
    assert (chosen.graph_weight, chosen.seeds, chosen.hub_damping) == (3.0, 3, 1.0)
    assert FusionSettings().method == "rerank"
    with pytest.raises(InvalidInput, match="method"):
        FusionSettings(method="pagerank")


# "What is the population of the state where Ridge Airport is located?" The airport's
# passage names the state (Vantoria) and answers "located", "airport" and "Ridge"; what it
# leaves unanswered is "population" (and "state"). Two passages mention Vantoria: the one
# with its population, and one that only echoes the airport words of the question (which
# are rarer in this corpus than "population", so the whole question prefers the echo).
RIDGE = [
    ("ridge", "Ridge Airport", "Ridge Airport is a public airport located in Vantoria."),
    ("census", "Vantoria", "Vantoria has a population of two million people."),
    ("echo", "Ridge Field", "Ridge Field, an airport located in Vantoria, is public."),
    ("d1", "Norland", "Norland has a population of nine million."),
    ("d2", "Estmark", "Estmark has a population of one million."),
]
RIDGE_QUESTION = "What is the population of the state where Ridge Airport is located?"


def _ridge_memory(about: bool) -> Memory:
    memory = graphmem.open("memory://", tenant="t", embedder=HashingEmbedder())
    memory.upsert_entities(
        [
            Entity(id="vantoria", type="location", name="Vantoria"),
            Entity(id="norland", type="location", name="Norland"),
            Entity(id="estmark", type="location", name="Estmark"),
        ]
    )
    docs: list[dict[str, object]] = [
        {"id": pid, "title": title, "text": text} for pid, title, text in RIDGE
    ]
    if about:
        docs[1]["entity_ids"] = ["vantoria"]  # the census passage is Vantoria's own page
    memory.add_documents(docs, chunk_tokens=1000, overlap=0)
    return memory


def _bridge_signals(memory: Memory, **options: object) -> dict[str, float]:
    # rrf_k=1: with five passages, a rank apart is a clear gap in relevance
    found = memory.retrieve(
        RIDGE_QUESTION,
        k=4,
        kinds=["chunk"],
        preset="multihop",
        hops=1,
        rrf_k=1,
        **options,  # type: ignore[arg-type]
    )
    return {r.source_id: r.signals.get("bridge", 0.0) for r in found}


def test_residual_query_ranks_what_the_first_passage_leaves_unanswered() -> None:
    from graphmem.retrieval.bridge import residual_words

    with _ridge_memory(about=False) as memory:
        residual = _bridge_signals(memory)
        whole = _bridge_signals(memory, residual_query=False)
    # Through Vantoria (named by the airport's passage), ranked by "population state":
    assert residual["census#0"] > residual["echo#0"] > 0
    # ranked by the whole question, the passage echoing its airport words wins instead
    assert whole["echo#0"] > whole["census#0"]
    words = ["population", "state", "ridge", "airport", "located"]
    assert residual_words(words, {"ridge", "airport", "locat"}) == ["population", "state"]
    assert residual_words(words, set()) == words


def test_a_passage_about_the_bridge_entity_is_fully_specific() -> None:
    with _ridge_memory(about=False) as memory:
        plain = _bridge_signals(memory, residual_query=False, hub_damping=1.0)
    with _ridge_memory(about=True) as memory:
        page = _bridge_signals(memory, residual_query=False, hub_damping=1.0)
        chunk = memory.store.get_chunks(memory.tenant, ["census#0"])[0]
        assert list(chunk.attributes["about"]) == ["vantoria"]
    # Vantoria is mentioned by three passages: a mention counts 1/3, its own page counts 1.
    assert page["census#0"] == pytest.approx(3 * plain["census#0"])
    assert page["echo#0"] == pytest.approx(plain["echo#0"])


def test_an_entity_reaches_chunks_and_turns_alike() -> None:
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder()) as memory:
        memory.upsert_entities(
            [
                Entity(id="mira", type="npc", name="Mira"),
                Entity(id="oak", type="location", name="Old Oak"),
            ]
        )
        memory.add_documents(
            [
                {"id": "lore", "text": "The Old Oak stands on the hill east of town."},
                {"id": "bread", "text": "Bread costs two coins at the market."},
            ],
            chunk_tokens=1000,
        )
        chat = memory.conversation("s")
        chat.append("player", "Where does Mira sleep? She naps under the Old Oak.")
        chat.append("player", "The Old Oak drops acorns on the hill.")
        chat.append("player", "Fish costs three coins at the market.")
        memory.index_turns()
        found = memory.retrieve(
            "Where does Mira sleep?", k=3, kinds=["chunk", "turn"], preset="multihop"
        )
        bridged = {(r.kind, r.content.split(".")[0]) for r in found if r.signals.get("bridge")}
        # Old Oak, named by the first turn, leads to the chunk and to the other turn
        assert ("chunk", "The Old Oak stands on the hill east of town") in bridged
        assert ("turn", "player: The Old Oak drops acorns on the hill") in bridged
        anchors = {r.content[:20]: r.anchor_entity_id for r in found}
        assert anchors["The Old Oak stands o"] == anchors["player: The Old Oak "] == "oak"


@pytest.mark.parametrize("nested", [True, False])
def test_a_name_inside_a_longer_name_bridges(nested: bool) -> None:
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder()) as memory:
        ingest_clock(memory, nested=nested)
        found = memory.retrieve(CLOCK_QUESTION, k=4, kinds=["chunk"], preset="multihop")
    clock = next(r for r in found if r.source_id == "clock#0")
    if nested:  # reached from Purkyne's passage through Prague, so it comes second
        assert [r.source_id for r in found][:2] == ["purkyne#0", "clock#0"]
        assert clock.anchor_entity_id == "prague" and clock.signals["bridge"] > 0
    else:  # Prague links nothing to it: text alone ranks it, below both decoys
        assert "bridge" not in clock.signals
        assert [r.source_id for r in found][-1] == "clock#0"


def test_a_default_passage_retrieve_is_one_round_in_three_store_calls() -> None:
    calls: list[str] = []
    store = graphmem.open_store("memory://", tracer=lambda event: calls.append(event.name))
    with Memory(store, "books", embedder=HashingEmbedder()) as mem:
        _ingest_books(mem)
        mem.retrieve(QUESTION, k=3, kinds=["chunk"])  # the linker reads the names once
        calls.clear()
        found = mem.retrieve(QUESTION, k=3, kinds=["chunk"])
        assert calls == ["search_context", "gather", "search_scoped"]
        assert [r.source_id for r in found][:2] == ["vale#0", "two#0"]
        assert found[1].anchor_entity_id == "t-two"
        one_round = mem.retrieve(
            QUESTION, k=3, kinds=["chunk"], preset="multihop", hops=1, rrf_k=30
        )
        assert [(r.source_id, r.score) for r in found] == [
            (r.source_id, r.score) for r in one_round
        ]
        assert found[0].content.startswith("Grace Vale: ")  # read with the passages it ranks
        calls.clear()
        mem.retrieve(QUESTION, k=3, kinds=["chunk"], preset="multihop")  # hops 2: two rounds
        assert calls == ["search_context", *["gather", "search_scoped"] * 2]


def test_rounds_is_checked() -> None:
    assert PRESETS["passages"].rounds == 1 and PRESETS["multihop"].rounds is None
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidInput):
            FusionSettings(rounds=bad)  # type: ignore[arg-type]


def test_plain_documents_are_three_store_calls_too() -> None:
    # No titles, no pages: a passage no bridge reached has no anchor rather than a read more.
    calls: list[str] = []
    store = graphmem.open_store("memory://", tracer=lambda event: calls.append(event.name))
    with Memory(store, "plain", embedder=HashingEmbedder()) as mem:
        mem.upsert_entities(
            [Entity(id=f"t-{pid}", type="concept", name=title) for pid, title, _t in CORPUS]
        )
        mem.add_documents(
            [{"id": pid, "text": text} for pid, _title, text in CORPUS],
            chunk_tokens=1000,
            overlap=0,
        )
        mem.retrieve(QUESTION, k=4, kinds=["chunk"])
        calls.clear()
        found = mem.retrieve(QUESTION, k=6, kinds=["chunk"])
        assert calls == ["search_context", "gather", "search_scoped"]
        assert "two#0" in [r.source_id for r in found]
