"""Graph questions read as a phrase said of the topic's kind, when no type's words explain them.

The pub world of ``tests/pubs.py`` through the public API (``memory://``, ``file://``), no
type descriptions, with the real model, by Python, the async door and the command line
(HTTP and MCP: ``tests/server/test_serve_mcp.py``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

import graphmem
from graphmem import Memory
from graphmem.cli.program import main
from graphmem.retrieval import SentenceTransformerEmbedder
from graphmem.retrieval.graphqa.phrasing import PHRASE_CONFIDENCE, PHRASE_FLOOR
from tests.pubs import ASKED, ENTITIES, FACTS, READ_AS

pytestmark = [
    pytest.mark.embeddings,
    pytest.mark.skipif(
        not SentenceTransformerEmbedder.available(),
        reason="the embeddings extra is not installed",
    ),
]


def _pubs(mem: Memory) -> None:
    mem.upsert_entities(ENTITIES)
    mem.upsert_relationships(FACTS)


def test_a_question_no_word_explains_is_answered_by_its_phrase_with_its_fact() -> None:
    with graphmem.open("memory://", tenant="pubs") as mem:
        _pubs(mem)
        found = mem.ask(ASKED)
        assert [a.entity.id for a in found] == ["quay"]
        assert not found.abstained
        assert found.reason.startswith(READ_AS)
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
            return await mem.ask(ASKED)

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
        found = mem.ask(ASKED, semantic=False)
        assert found.abstained


def test_the_command_line_reads_the_phrase_alike(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    url = (tmp_path / "pubs.graphmem").as_uri()
    with graphmem.open(url, tenant="pubs") as mem:
        _pubs(mem)
    assert main(["ask", "--store", url, "--tenant", "pubs", ASKED, "--json"]) == 0
    found = json.loads(capsys.readouterr().out)
    assert [a["entity"]["id"] for a in found["answers"]] == ["quay"]
    assert found["reason"].startswith(READ_AS) and found["confidence"] <= PHRASE_CONFIDENCE
