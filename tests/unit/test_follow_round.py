"""The follow round (``FusionSettings.follow_rounds``) on a small made-up opera corpus.

"Which river flows through the town where the composer of Glass Lanterns was born?" Six
passages about composers born in river towns share the question's words and are the best
by text; none names the composer. Glass Lanterns' own page (the question names the opera)
rises to the top through the opera's name, but its text hits rank under the six, so the
first round never read what it mentions: Oren Vask, the composer, whose page says where
he was born. Only a second round, from the page that rose, reaches it. A default passage
retrieve runs that round when the question reads as more than one step and the best
passage after the first round is one the round reached (its mentions unread).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from corpora import OPERA_QUESTION as QUESTION
from corpora import ingest_opera as _ingest

import graphmem
from graphmem import Entity, InvalidInput, Memory
from graphmem.retrieval import PRESETS, FusionSettings, HashingEmbedder


@pytest.fixture
def mem() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="operas", embedder=HashingEmbedder()) as memory:
        _ingest(memory)
        yield memory


@contextmanager
def _traced(question: str = QUESTION) -> Iterator[tuple[Memory, list[str]]]:
    """The opera memory over a store whose calls are listed, from after a first question.

    The first ``question`` reads the entity names for the linker, once.
    """
    calls: list[str] = []
    store = graphmem.open_store("memory://", tracer=lambda event: calls.append(event.name))
    with Memory(store, "operas", embedder=HashingEmbedder()) as memory:
        _ingest(memory)
        memory.retrieve(question, k=8, kinds=["chunk"])
        calls.clear()
        yield memory, calls


def _ranked(mem: Memory, question: str = QUESTION, **options: object) -> list[str]:
    found = mem.retrieve(question, k=8, kinds=["chunk"], **options)  # type: ignore[arg-type]
    return [r.source_id for r in found]


def test_the_page_that_rose_is_followed_to_the_next_hop(mem: Memory) -> None:
    one = _ranked(mem, follow_rounds=0)
    assert one[0] == "opera#0"  # it rose through the opera's name ...
    assert "vask#0" not in one[:5]  # ... and nothing read what it mentions
    followed = mem.retrieve(QUESTION, k=8, kinds=["chunk"])  # the default: passages
    ranked = [r.source_id for r in followed]
    assert ranked[:2] == ["opera#0", "vask#0"]
    vask = followed[1]
    assert vask.anchor_entity_id == "vask" and vask.signals["bridge"] > 0
    assert PRESETS["passages"].follow_rounds == 1


def test_the_follow_round_costs_two_store_calls_and_only_when_it_runs() -> None:
    with _traced() as (memory, calls):
        memory.retrieve(QUESTION, k=8, kinds=["chunk"])
        assert calls == ["search_context", *["gather", "search_scoped"] * 2]
        calls.clear()
        memory.retrieve(QUESTION, k=8, kinds=["chunk"], follow_rounds=0)
        assert calls == ["search_context", "gather", "search_scoped"]
        calls.clear()
        # no more rounds than hops: hops 1 is one round whatever follows
        memory.retrieve(QUESTION, k=8, kinds=["chunk"], hops=1)
        assert calls == ["search_context", "gather", "search_scoped"]


def test_a_one_step_question_is_not_followed(mem: Memory) -> None:
    # The same words read as one step (no clause, no possessive): one round only.
    question = "river flows through town composer Glass Lanterns born"
    assert _ranked(mem, question) == _ranked(mem, question, follow_rounds=0)


def test_a_best_passage_the_round_read_is_not_followed() -> None:
    # Asked in the opera page's own words, the best passage is a text hit: the round
    # bridged from it (its mentions read), so there is nothing to follow.
    question = "Who wrote Glass Lanterns, the opera in three acts first staged in 1961?"
    with _traced(question) as (memory, calls):
        found = _ranked(memory, question)
        assert calls == ["search_context", "gather", "search_scoped"]
        assert found[0] == "opera#0" and found == _ranked(memory, question, follow_rounds=0)


def test_a_best_passage_that_mentions_nothing_is_read_and_not_followed() -> None:
    # With the graph weighed low the decoys stay on top. The round read what the best of
    # them mentions (nothing: a store leaves such a passage out of its answer), so there
    # is nothing more to follow; taking it for unread cost a round of two calls.
    with _traced() as (memory, calls):
        found = _ranked(memory, graph_weight=0.05)
        assert found[0].startswith("d")  # a decoy, which names no one
        assert calls == ["search_context", "gather", "search_scoped"]


def test_a_chain_that_leaves_one_word_is_not_followed() -> None:
    # "the population of the state where Ridge Airport is located": the state's page
    # rises above the airport's (a bridge), but with the airport's passage it answers all
    # the question's words but "state": the chain ends there, one round (three calls).
    calls: list[str] = []
    store = graphmem.open_store("memory://", tracer=lambda event: calls.append(event.name))
    question = "What is the population of the state where Ridge Airport is located?"
    with Memory(store, "ridge", embedder=HashingEmbedder()) as memory:
        memory.upsert_entities([Entity(id="vantoria", type="location", name="Vantoria")])
        memory.add_documents(
            [
                {"id": "ridge", "text": "Ridge Airport is a public airport located in Vantoria."},
                {
                    "id": "census",
                    "title": "Vantoria",
                    "text": "Vantoria has a population of two million people.",
                    "entity_ids": ["vantoria"],
                },
                {"id": "d1", "text": "Norland has a population of nine million."},
                {"id": "d2", "text": "Estmark has a population of one million."},
            ],
            chunk_tokens=1000,
            overlap=0,
        )
        memory.retrieve(question, k=3, kinds=["chunk"])  # the linker reads the names once
        calls.clear()
        found = memory.retrieve(question, k=3, kinds=["chunk"])
        assert [r.source_id for r in found][:2] == ["census#0", "ridge#0"]
        assert found[0].signals["bridge"] > 0  # it rose by a bridge ...
        assert calls == ["search_context", "gather", "search_scoped"]  # ... and ends the chain


def test_follow_rounds_is_checked() -> None:
    for bad in (-1, 1.5, True):
        with pytest.raises(InvalidInput, match="follow_rounds"):
            FusionSettings(follow_rounds=bad)  # type: ignore[arg-type]
