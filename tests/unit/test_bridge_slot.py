"""The bridge slot (``FusionSettings.bridge_slot``) on a small made-up film corpus.

"Who is the spouse of Glass Lanterns' director?" The film's passage names its director,
Oren Vask, whom only one other passage mentions: his own, which says who his spouse is.
Sixty passages about American directors and their spouses share the question's words
and the film's passage's "American": among the passages the film's passage reaches, they
are what the rest of the question ("spouse") ranks first, so Vask's passage stays below
them unless a place is kept for the passage a rare name of the best passage leads to.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import graphmem
from graphmem import Entity, InvalidInput, Memory
from graphmem.retrieval import PRESETS, FusionSettings, HashingEmbedder
from graphmem.retrieval.slots import multi_part, place, slot_pick

QUESTION = "Who is the spouse of Glass Lanterns' director?"
FILM = (
    "film",
    "Glass Lanterns",
    "Glass Lanterns is an American drama film directed by Oren Vask and starring Mila Trent.",
)
VASK = (
    "vask",
    "Oren Vask",
    "Oren Vask grew up by the sea, studied law before he turned to the stage, wrote three "
    "plays and two novels, and in 2001 married the painter Ines Morel; the spouses live "
    "in an old mill outside the city, where he keeps bees and writes in the mornings.",
)
TRENT = ("trent", "Mila Trent", "Mila Trent trained as a dancer in Riga.")
DECOYS = [
    (
        f"d{i}",
        f"Director {i}",
        f"An American director of {i} plays lives in a town with a spouse and a dog.",
    )
    for i in range(60)
]


def _ingest(memory: Memory) -> None:
    memory.upsert_entities(
        [
            Entity(id="vask", type="npc", name="Oren Vask"),
            Entity(id="trent", type="npc", name="Mila Trent"),
            Entity(id="american", type="concept", name="American"),
            Entity(id="glass", type="concept", name="Glass Lanterns"),
        ]
    )
    memory.add_documents(
        [
            {"id": pid, "title": title, "text": text}
            for pid, title, text in [FILM, VASK, TRENT, *DECOYS]
        ],
        chunk_tokens=1000,
        overlap=0,
    )


@pytest.fixture
def mem() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="films", embedder=HashingEmbedder()) as memory:
        _ingest(memory)
        yield memory


def _ranked(mem: Memory, question: str = QUESTION, **options: object) -> list[str]:
    found = mem.retrieve(question, k=10, kinds=["chunk"], **options)  # type: ignore[arg-type]
    return [r.source_id for r in found]


def test_the_next_hop_through_a_rare_name_takes_the_slot(mem: Memory) -> None:
    without = _ranked(mem, bridge_slot=0)
    assert without[0] == "film#0" and "vask#0" not in without[:5]
    found = mem.retrieve(QUESTION, k=10, kinds=["chunk"])  # the default: passages, slot 5
    ranked = [r.source_id for r in found]
    assert ranked[4] == "vask#0"
    # only the passage that held the fifth place and those under it moved down
    assert ranked[:4] == without[:4] and ranked[5] == without[4]
    vask = found[4]
    assert vask.signals["slot"] > 0 and vask.anchor_entity_id == "vask"
    assert [r.score for r in found] == sorted((r.score for r in found), reverse=True)


def test_multihop_keeps_the_slot_too(mem: Memory) -> None:
    assert PRESETS["multihop"].bridge_slot == PRESETS["passages"].bridge_slot == 5
    assert "vask#0" in _ranked(mem, preset="multihop")[:5]
    assert "vask#0" not in _ranked(mem, preset="multihop", bridge_slot=0)[:5]


def test_a_position_already_held_higher_moves_nothing(mem: Memory) -> None:
    # The slot at 20: Vask's passage already ranks above it, so nothing changes.
    assert _ranked(mem, bridge_slot=20) == _ranked(mem, bridge_slot=0)


def test_a_one_step_question_keeps_its_ranking(mem: Memory) -> None:
    # The same words, but read as one step (no possessive, no clause): no slot.
    question = "spouse of the Glass Lanterns director"
    assert not multi_part(question)
    assert _ranked(mem, question) == _ranked(mem, question, bridge_slot=0)


def test_a_name_the_question_writes_is_no_bridge() -> None:
    with graphmem.open("memory://", tenant="films", embedder=HashingEmbedder()) as memory:
        _ingest(memory)
        # Oren Vask named by the question: he is not what the film's passage leads to.
        question = "Who is the spouse of Glass Lanterns' director, Oren Vask?"
        found = memory.retrieve(question, k=10, kinds=["chunk"])
        slotted = [r for r in found if "slot" in r.signals]
        # the slot goes to the other rare name of the film's passage, Mila Trent
        assert [(r.source_id, r.anchor_entity_id) for r in slotted] == [("trent#0", "trent")]


def test_a_common_name_is_no_bridge(mem: Memory) -> None:
    # With slot_mentions 1 no entity of the film's passage is rare (each is named twice).
    assert _ranked(mem, slot_mentions=1) == _ranked(mem, bridge_slot=0)


def test_the_slot_costs_no_store_call() -> None:
    calls: list[str] = []
    store = graphmem.open_store("memory://", tracer=lambda event: calls.append(event.name))
    with Memory(store, "films", embedder=HashingEmbedder()) as memory:
        _ingest(memory)
        memory.retrieve(QUESTION, k=10, kinds=["chunk"])  # the linker reads the names once
        calls.clear()
        found = memory.retrieve(QUESTION, k=10, kinds=["chunk"])
        assert calls == ["search_context", "gather", "search_scoped"]
        assert [r.source_id for r in found][4] == "vask#0"


def test_slot_settings_are_checked() -> None:
    for name in ("bridge_slot", "slot_mentions"):
        for bad in (-1, 1.5, True):
            with pytest.raises(InvalidInput, match=name):
                FusionSettings(**{name: bad})  # type: ignore[arg-type]


def test_slot_pick_and_place() -> None:
    source = ("chunk", "film")
    mentions = {"chunk": {"film": ["american", "vask", "trent"]}}
    reached = {
        ("chunk", "american"): ["film", "a", "b", "c"],
        ("chunk", "vask"): ["film", "vask"],
        ("chunk", "trent"): ["film", "trent"],
    }
    relevance = {("chunk", "a"): 1.0, ("chunk", "vask"): 0.4, ("chunk", "trent"): 0.2}
    assert slot_pick(source, mentions, reached, relevance, named=(), rare=3) == (
        ("chunk", "vask"),
        "vask",
        0.4,
    )
    assert slot_pick(source, mentions, reached, relevance, named={"vask"}, rare=3) == (
        ("chunk", "trent"),
        "trent",
        0.2,
    )
    assert slot_pick(source, mentions, reached, relevance, named=(), rare=1) is None
    assert slot_pick(source, mentions, reached, {}, named=(), rare=3) is None
    scores = {("chunk", n): float(10 - i) for i, n in enumerate("abcdef")}
    assert place(scores, ("chunk", "z"), 3)
    order = sorted(scores, key=lambda d: (-scores[d], d))
    assert [n for _k, n in order] == ["a", "b", "z", "c", "d", "e", "f"]
    assert not place(scores, ("chunk", "b"), 3)
    few = {("chunk", "a"): 1.0}
    assert place(few, ("chunk", "b"), 5) and set(few) == {("chunk", "a"), ("chunk", "b")}


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("seeds", 1.5),  # once a TypeError deep in the walk (the long fuzz run found it)
        ("seeds", True),
        ("candidates", 0),
        ("turn_candidates", 2.0),
        ("rrf_k", "60"),
        ("turn_context", -1),
        ("graph_weight", float("nan")),
        ("hub_damping", float("inf")),
        ("recency_weight", None),
        ("fact_weight", "0.5"),
    ],
)
def test_every_count_is_an_integer_and_every_weight_a_finite_number(name: str, bad: object) -> None:
    with pytest.raises(InvalidInput, match=name):
        FusionSettings(**{name: bad})  # type: ignore[arg-type]
    with graphmem.open("memory://", tenant="t", embedder=HashingEmbedder(32)) as memory:
        memory.upsert_entities([Entity(id="a", type="npc", name="Ada")])
        with pytest.raises(InvalidInput, match=name):
            memory.retrieve("Ada", k=1, **{name: bad})  # type: ignore[arg-type]
        assert memory.count_entities() == 1
