"""``graphmem eval --dataset tomi``: the story translation on a story of our own, and a
short run on the real data (skipped without it)."""

from __future__ import annotations

import json

import pytest

import graphmem
from graphmem.cli.program import main
from graphmem.tools.evaluation.main import default_data_dir
from graphmem.tools.evaluation.tomi import answer, answer_from_world, harness_lines, play

DATA = default_data_dir()
needs_data = pytest.mark.skipif(
    not (DATA / "tomi").is_dir(), reason=f"no ToMi data at {DATA / 'tomi'}"
)

# A story in ToMi's sentence forms, written for this test (the dataset is not copied).
STORY = [
    "Mira entered the cellar.",
    "Tomas entered the cellar.",
    "Ada entered the cellar.",
    "The cheese is in the crate.",
    "Ada exited the cellar.",
    "Tomas likes the cheese",
    "Mira moved the cheese to the barrel.",
    "Tomas exited the cellar.",
    "Ada entered the cellar.",
    "Bren entered the attic.",
]


@pytest.fixture
def told() -> graphmem.Memory:
    mem = graphmem.open("memory://", tenant="story")
    play(mem, STORY)
    return mem


@pytest.mark.parametrize(
    ("question", "believed", "world"),
    [
        ("Where is the cheese really?", "barrel", "barrel"),
        ("Where was the cheese at the beginning?", "crate", "crate"),
        ("Where will Mira look for the cheese?", "barrel", "barrel"),
        ("Where will Tomas look for the cheese?", "barrel", "barrel"),
        # Ada left before the move, but saw the cheese in the barrel when she came back
        ("Where will Ada look for the cheese?", "barrel", "barrel"),
        # Tomas left before Ada came back: he thinks she still believes "crate"
        ("Where does Tomas think that Ada searches for the cheese?", "crate", "barrel"),
        # Mira stayed: she and Ada saw the cellar together when Ada came back
        ("Where does Mira think that Ada searches for the cheese?", "barrel", "barrel"),
        ("Where does Ada think that Mira searches for the cheese?", "barrel", "barrel"),
        # Ada never saw Tomas learn of the barrel
        ("Where does Ada think that Tomas searches for the cheese?", "crate", "barrel"),
        ("Where does Tomas think that Mira searches for the cheese?", "barrel", "barrel"),
        # Bren was never in the cellar
        ("Where will Bren look for the cheese?", None, "barrel"),
    ],
)
def test_answers_come_from_beliefs(
    told: graphmem.Memory, question: str, believed: str | None, world: str
) -> None:
    assert answer(told, question) == believed
    assert answer_from_world(told, question) == world


def test_the_translation_is_events_not_answers(told: graphmem.Memory) -> None:
    kinds = [e.type for e in told.events()]
    assert kinds.count("entered") == 5 and kinds.count("observed") == 5
    assert kinds.count("moved") == 1 and kinds.count("exited") == 2
    assert 20 <= harness_lines() <= 45
    with pytest.raises(graphmem.InvalidInput):
        answer_from_world(told, "Who ate the cheese?")


@pytest.mark.eval
@needs_data
def test_eval_tomi_prints_one_json_object(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["eval", "--dataset", "tomi", "--limit", "60", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["dataset"] == "tomi" and report["harness_lines"] == harness_lines()
    for split in ("test", "val"):
        part = report[split]
        assert part["questions"] == 60 and part["stories"] == 10
        assert part["all but second_order_*_no_tom"] == 1.0
        apart = part["second_order_*_no_tom"]
        assert apart["differ"] == apart["never_together_when_it_was_seen"]
        assert part["baseline"]["reality"] == 1.0
