"""``graphmem eval --dataset worlds``: a user's own small world, scored beside BM25.

A user writes a world file from nothing (the format of graphmem/tools/evaluation/worlds.py)
and scores it through the command line, as a separate process and in process, and
through the Python API; a world the format does not allow is refused with a clear error
before anything is asked.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from graphmem.cli.program import main
from graphmem.core.errors import InvalidInput
from graphmem.retrieval import HashingEmbedder
from graphmem.tools.evaluation.worlds import check_world, eval_worlds

HARBOUR: dict[str, Any] = {
    "name": "harbour",
    "entities": [
        {"id": "ann", "type": "person", "name": "Ann Hale", "aliases": ["Ann"]},
        {"id": "bo", "type": "person", "name": "Bo Reyes"},
        {"id": "cid", "type": "person", "name": "Cid Marsh"},
        {"id": "mill", "type": "business", "name": "Crook's Mill"},
        {"id": "inn", "type": "business", "name": "The Swan"},
        {"id": "brindle", "type": "town", "name": "Brindleford"},
    ],
    "facts": [
        ["ann", "works_at", "mill"],
        ["bo", "works_at", "inn"],
        ["cid", "works_at", "mill"],
        ["mill", "located_in", "brindle"],
        ["inn", "located_in", "brindle"],
        ["cid", "reports_to", "ann"],
    ],
    "relationship_descriptions": {
        "works_at": "the person works at the business",
        "located_in": "the business stands in the town",
        "reports_to": "the person answers to their manager",
    },
    "entity_descriptions": {"person": "someone of the harbour", "town": "a town of the coast"},
    "questions": [
        {
            "group": "one-hop",
            "question": "Where does Ann Hale work?",
            "path": "ann >works_at",
            "answers": ["mill"],
        },
        {
            "group": "inverse",
            "question": "Who works at The Swan?",
            "path": "inn <works_at",
            "answers": ["bo"],
        },
        {
            "group": "two-hop",
            "question": "In which town does Bo Reyes work?",
            "path": "bo >works_at >located_in",
            "answers": ["brindle"],
        },
        {"group": "no-answer", "question": "Who is Ann Hale married to?", "answers": []},
    ],
}


def _write(folder: Path, world: dict[str, Any], name: str = "harbour.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps(world), encoding="utf-8")
    return path


def _check_report(report: dict[str, Any]) -> None:
    assert report["dataset"] == "worlds" and report["worlds"] == ["harbour"]
    assert report["questions"] == 4
    for reading in ("names only", "described"):
        figures = report[reading]
        # the three answerable questions are answered, the no-answer one is not
        assert figures["hits@1"] == 1.0, (reading, figures)
        assert figures["no-answer abstained"] == 1 and figures["no-answer questions"] == 1
        assert figures["answerable abstained"] == 0
        # the two one-hop questions' facts are in retrieve's top 3
        assert figures["fact@3"] == 1.0
        assert report["per world"]["harbour"][reading]["hits@1"] == 1.0
    assert report["gap (described - names only)"] == 0.0
    baseline = report["baseline"]
    assert "bm25" in baseline["method"]
    # BM25 answers the inverse question from the fact it ranks first, and never the
    # two-hop one (no fact's sentence holds both its words and its answer)
    assert baseline["inverse hits@1"] == 1.0 and baseline["two-hop hits@1"] == 0.0
    assert baseline["no-answer abstained"] == 0  # a word it shares with a fact: an answer
    assert 0.0 <= baseline["fact@1"] <= baseline["fact@3"] <= 1.0


def test_a_user_scores_a_world_written_from_nothing(tmp_path: Path) -> None:
    _write(tmp_path / "worlds", HARBOUR)
    argv = ["eval", "--dataset", "worlds", "--worlds", str(tmp_path / "worlds")]
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", *argv, "--json", "--quiet", "--embedder", "hashing"],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    _check_report(report)
    # the Python door gives the same report
    same = eval_worlds(tmp_path / "worlds", HashingEmbedder(384))
    assert same == {k: v for k, v in report.items() if k != "embedder"}


def test_the_text_report_puts_bm25_beside_each_reading(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # without --worlds, the worlds folder of the data folder
    _write(tmp_path / "worlds", HARBOUR)
    argv = ["eval", "--dataset", "worlds", "--data", str(tmp_path), "--quiet"]
    assert main([*argv, "--embedder", "hashing"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("worlds (1 world, 4 questions)")
    header, answerable = out.splitlines()[1:3]
    assert header.split() == ["names", "only", "described", "bm25"]
    assert answerable.split() == ["hits@1", "1.000", "1.000", "0.333"]
    assert "no-answer abstained" in out and "harbour" in out


def _broken(change: str) -> dict[str, Any]:
    world = copy.deepcopy(HARBOUR)
    if change == "answers":
        world["questions"][0]["answers"] = ["inn"]
    elif change == "fact end":
        world["facts"].append(["ann", "owns", "lighthouse"])
    elif change == "group":
        world["questions"][0]["group"] = "four-hop"
    elif change == "no-answer with answers":
        world["questions"][3]["answers"] = ["bo"]
    elif change == "step":
        world["questions"][0]["path"] = "ann works_at"
    elif change == "id twice":
        world["entities"].append({"id": "ann", "type": "person", "name": "Ann Other"})
    return world


@pytest.mark.parametrize(
    ("change", "said"),
    [
        ("answers", "walks to ['mill'], the answers say ['inn']"),
        ("fact end", "no entity has the id 'lighthouse'"),
        ("group", "'group' must be one of"),
        ("no-answer with answers", "a no-answer question has no answers"),
        ("step", "then >type, <type or ~type"),
        ("id twice", "entity ids used more than once: ['ann']"),
    ],
)
def test_a_world_the_format_does_not_allow_is_refused_before_asking(
    tmp_path: Path,
    capsys,
    change: str,
    said: str,  # type: ignore[no-untyped-def]
) -> None:
    path = _write(tmp_path, _broken(change))
    argv = ["eval", "--dataset", "worlds", "--worlds", str(path), "--embedder", "hashing"]
    assert main([*argv, "--quiet"]) == 2
    captured = capsys.readouterr()
    assert said in captured.err and str(path) in captured.err
    assert captured.out == ""
    with pytest.raises(InvalidInput, match="question|fact|entity"):
        check_world(_broken(change), "world")


def test_no_world_there_and_a_file_that_is_not_json_are_refused(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["eval", "--dataset", "worlds", "--embedder", "hashing", "--quiet"]
    assert main([*argv, "--worlds", str(tmp_path / "none")]) == 2
    assert "no world file or folder" in capsys.readouterr().err
    assert main([*argv, "--worlds", str(tmp_path)]) == 2
    assert "no world (*.json)" in capsys.readouterr().err
    (tmp_path / "bad.json").write_text("{not json", encoding="utf-8")
    assert main([*argv, "--worlds", str(tmp_path)]) == 2
    assert "not a JSON world" in capsys.readouterr().err


def test_the_teams_worlds_are_in_the_format() -> None:
    from tests.world_questions import WORLDS, load_worlds

    names = {w["name"] for w in load_worlds()}
    assert names == {p.stem for p in WORLDS.glob("*.json")} and len(names) >= 60


def test_the_report_lists_every_question_missed(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    # a question worded with a verb no type's words explain (no model: the hashing
    # embedder) is missed in both readings, and said so with its gold answer and reason
    world = copy.deepcopy(HARBOUR)
    world["questions"].append(
        {
            "group": "one-hop",
            "question": "Whom does Cid Marsh adore?",
            "path": "cid >reports_to",
            "answers": ["ann"],
        }
    )
    _write(tmp_path / "worlds", world)
    argv = ["eval", "--dataset", "worlds", "--worlds", str(tmp_path / "worlds"), "--quiet"]
    assert main([*argv, "--embedder", "hashing", "--misses"]) == 0
    out = capsys.readouterr().out
    assert "  misses (2)" in out
    for reading in ("names only", "described"):
        assert (
            f"    harbour, {reading}, one-hop: Whom does Cid Marsh adore? -> nothing "
            "(expected ann; confidence 0.00; " in out
        ), out
    assert main([*argv, "--embedder", "hashing", "--json"]) == 0
    report = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [(m["reading"], m["got"], m["answers"]) for m in report["misses"]] == [
        ("names only", None, ["ann"]),
        ("described", None, ["ann"]),
    ]
    assert all("'adore'" in m["reason"] for m in report["misses"])
    # without --misses, the text report does not list them
    assert main([*argv, "--embedder", "hashing"]) == 0
    assert "misses" not in capsys.readouterr().out
