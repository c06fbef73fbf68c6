"""``graphmem eval --dataset convmem``: the REALTALK protocol and its baselines."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from graphmem.cli.program import main
from graphmem.tools.evaluation.conversations import (
    CONVMEM_HALVES,
    Chat,
    OkapiBM25,
    _with_adjacent,
    load_convmem,
)
from graphmem.tools.evaluation.main import default_data_dir

DATA = default_data_dir()
needs_data = pytest.mark.skipif(
    not (DATA / "convmem").is_dir(), reason=f"no convmem data at {DATA}"
)


def test_okapi_bm25_ranks_by_rare_words_and_leaves_stopwords_out() -> None:
    bm25 = OkapiBM25(["the cat sat on the mat", "a dog barked at the cat", "dogs and cats", "hi"])
    assert bm25.rank("dog") == [1]
    assert bm25.rank("the cat") == [0, 1]  # "the" is a stopword; ties keep their order
    assert bm25.rank("what is it") == []


def test_adjacent_turns_follow_each_hit_within_its_session() -> None:
    sessions = [1, 1, 1, 2, 2, 2]
    assert _with_adjacent([2, 4], sessions, 10) == [2, 1, 4, 3, 5]
    assert _with_adjacent([3], sessions, 10) == [3, 4]  # turn 2 is another session's
    assert _with_adjacent([1, 4], sessions, 2) == [1, 0]


def test_the_halves_split_odd_and_even_chats() -> None:
    t = datetime(2024, 1, 1, tzinfo=UTC)
    odd, even = Chat("Chat_3_A_B", 3, [("D1:1", 1, "A", "hi", t)]), Chat("Chat_4_A_B", 4)
    assert (odd.half, even.half) == CONVMEM_HALVES


@needs_data
def test_load_convmem_reads_every_chat_and_question_with_evidence() -> None:
    chats = load_convmem(DATA)
    assert [c.number for c in chats] == list(range(1, 11))
    assert sum(len(c.turns) for c in chats) == 8944
    assert sum(len(c.questions) for c in chats) == 705
    first = chats[0]
    assert first.turns[0][:3] == ("D1:1", 1, "Emi")
    assert first.turns[0][4] == datetime(2023, 12, 29, 22, 42, 4, tzinfo=UTC)


@pytest.mark.eval
@pytest.mark.slow
@needs_data
def test_eval_convmem_reports_every_system_per_half_and_category(capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["eval", "--dataset", "convmem", "--limit", "2", "--json", "--embedder", "hashing"]
    assert main([*argv, "--quiet"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""  # --quiet: no progress lines (and no bar off a terminal)
    report = json.loads(captured.out)
    assert report["dataset"] == "convmem" and report["questions"] == 20
    assert report["question counts"]["all | all"] == 20
    for system in ("graphmem", "bm25", "bm25+adjacent", "graphmem full text"):
        for half in (*CONVMEM_HALVES, "all"):
            assert 0.0 <= report[system][f"{half} | all | R@10"] <= 1.0
    assert report["turns indexed"] == 8944
