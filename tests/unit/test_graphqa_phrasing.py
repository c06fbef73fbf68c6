"""Graph questions read as a phrase said of the topic's kind, when no type's words explain them.

A small pub world through the public API (``memory://``), no type descriptions, with the
real model: "whereabouts" is no word of ``stands_in`` and WordNet gives it none, so the
word-level reading abstains; said of the pub's kind ("whereabouts is the pub?") the
question is nearest "pub stands in place".
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

import graphmem
from graphmem import Entity, Memory, Relationship
from graphmem.retrieval import SentenceTransformerEmbedder
from graphmem.retrieval.graphqa.phrasing import PHRASE_CONFIDENCE, PHRASE_FLOOR

pytestmark = [
    pytest.mark.embeddings,
    pytest.mark.skipif(
        not SentenceTransformerEmbedder.available(),
        reason="the embeddings extra is not installed",
    ),
]

_ENTITIES = [
    ("anchor", "pub", "The Anchor"),
    ("bell", "pub", "The Bell"),
    ("quay", "place", "Quayside"),
    ("hill", "place", "Chapel Hill"),
    ("harrow", "brewery", "Harrow Brewery"),
    ("hal", "person", "Hal Morrow"),
    ("jess", "person", "Jess Penn"),
    ("ned", "person", "Ned Tolley"),
]
# The Bell stands nowhere the graph knows: it has no stands_in fact
_FACTS = [
    ("anchor", "stands_in", "quay"),
    ("harrow", "stands_in", "hill"),
    ("anchor", "tied_to", "harrow"),
    ("bell", "tied_to", "harrow"),
    ("hal", "keeps", "anchor"),
    ("jess", "drinks_at", "anchor"),
    ("ned", "drinks_at", "bell"),
    ("jess", "brews_at", "harrow"),
]


def _pubs(mem: Memory) -> None:
    mem.upsert_entities([Entity(id=i, type=kind, name=name) for i, kind, name in _ENTITIES])
    mem.upsert_relationships(
        [Relationship(source_id=s, type=kind, target_id=t) for s, kind, t in _FACTS]
    )


def test_a_question_no_word_explains_is_answered_by_its_phrase_with_its_fact() -> None:
    with graphmem.open("memory://", tenant="pubs") as mem:
        _pubs(mem)
        found = mem.ask("Whereabouts is the Anchor?")
        assert [a.entity.id for a in found] == ["quay"]
        assert not found.abstained
        assert found.reason.startswith("read as a phrase: 'whereabouts is the pub?'")
        assert "'pub stands in place'" in found.reason
        # a phrase answer says it is less sure than a word-level one
        assert PHRASE_CONFIDENCE * PHRASE_FLOOR <= found.confidence <= PHRASE_CONFIDENCE
        (fact,) = found[0].facts
        assert (fact.source_id, fact.type, fact.target_id) == ("anchor", "stands_in", "quay")
        assert [str(step) for step in found[0].path] == ["->stands_in"]


def test_the_async_door_reads_the_phrase_alike(tmp_path: Path) -> None:
    url = (tmp_path / "pubs.graphmem").as_uri()
    with graphmem.open(url, tenant="pubs") as mem:
        _pubs(mem)

    async def main() -> graphmem.GraphAnswers:
        async with graphmem.open_async(url, tenant="pubs") as mem:
            return await mem.ask("Whereabouts is the Anchor?")

    found = asyncio.run(main())
    assert [a.entity.id for a in found] == ["quay"]
    assert found.reason.startswith("read as a phrase")


def test_a_phrase_nearest_a_fact_the_topic_lacks_is_no_answer() -> None:
    # the same words of the Bell: the nearest shape of a pub is one it has no fact of
    with graphmem.open("memory://", tenant="pubs") as mem:
        _pubs(mem)
        found = mem.ask("Whereabouts is the Bell?")
        assert found.abstained and list(found) == []
        assert "whereabouts" in found.reason


def test_the_word_level_reading_answers_first() -> None:
    with graphmem.open("memory://", tenant="pubs") as mem:
        _pubs(mem)
        found = mem.ask("Which brewery is the Anchor tied to?")
        assert [a.entity.id for a in found] == ["harrow"]
        assert "phrase" not in found.reason
        assert found.confidence > PHRASE_CONFIDENCE


def test_without_an_embedder_nothing_is_read_as_a_phrase() -> None:
    with graphmem.open("memory://", tenant="pubs") as mem:
        _pubs(mem)
        found = mem.ask("Whereabouts is the Anchor?", semantic=False)
        assert found.abstained
