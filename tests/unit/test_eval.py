"""``graphmem eval`` on small subsets (--limit), and the hand-worded LIGHT questions."""

from __future__ import annotations

import json

import pytest

from graphmem.cli.program import main
from graphmem.tools.evaluation.main import default_data_dir, light_handwritten, light_world

DATA = default_data_dir()
needs_data = pytest.mark.skipif(not DATA.is_dir(), reason=f"no evaluation data at {DATA}")


@pytest.mark.eval
@needs_data
@pytest.mark.parametrize("dataset", ["musique", "hotpotqa", "light"])
def test_eval_prints_one_json_object_with_a_baseline(dataset: str, capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["eval", "--dataset", dataset, "--limit", "7", "--json", "--embedder", "hashing"]
    assert main(argv) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    report = json.loads(lines[0])
    assert report["dataset"] == dataset and report["questions"] >= 1
    keys = ("recall@2", "recall@5") if dataset != "light" else ("hits@1", "recall@5")
    if dataset == "light":
        assert report["hand-worded questions"] >= 50
    for key in keys:
        assert 0.0 <= report[key] <= 1.0
        assert 0.0 <= report["baseline"][key] <= 1.0
    assert "bm25" in report["baseline"]["method"]
    if dataset != "light":  # every system on each half, from the same run
        from graphmem.tools.evaluation.main import PASSAGE_HALVES, PASSAGE_SYSTEMS

        for system in PASSAGE_SYSTEMS:
            for half in (*PASSAGE_HALVES, "all"):
                assert 0.0 <= report[system][half]["recall@10"] <= 1.0
        assert report["recall@2"] == report["default"]["all"]["recall@2"]
        assert report["baseline"]["recall@5"] == report["bm25"]["all"]["recall@5"]


@pytest.mark.eval
@pytest.mark.slow
@needs_data
def test_eval_metaqa_per_hop(capsys) -> None:  # type: ignore[no-untyped-def]
    argv = ["eval", "--dataset", "metaqa", "--limit", "5", "--json", "--embedder", "hashing"]
    assert main(argv) == 0
    report = json.loads(capsys.readouterr().out)
    for hops in (1, 2, 3):
        assert 0.0 <= report[f"{hops}-hop hits@1"] <= 1.0
        assert f"{hops}-hop hits@1" in report["baseline"]
    assert report["1-hop hits@1"] >= 0.8  # Memory.ask answers templated questions
    assert report["held out"] == "3-hop"


def test_eval_rejects_a_bad_limit(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["eval", "--dataset", "light", "--limit", "0", "--embedder", "hashing"]) == 2
    assert "--limit" in capsys.readouterr().err


def test_the_hand_worded_light_questions_are_many_and_varied() -> None:
    questions = light_handwritten()
    everything = [q for items in questions.values() for q, _gold in items]

    assert len(everything) >= 50
    assert len(set(everything)) == len(everything)
    assert len(questions) == 7  # every world
    assert all(gold for items in questions.values() for _q, gold in items)
    # more than one wording per kind of question, not one template each
    openers = {q.split()[0].lower() for q in everything}
    assert {"where", "which", "who", "what", "in"} <= openers


@pytest.mark.eval
@needs_data
def test_the_hand_worded_light_answers_are_entities_of_their_world() -> None:
    for world, items in light_handwritten().items():
        entities, _rels, _docs = light_world(DATA / "light" / "prod_maps" / f"{world}.json")
        known = {e.id for e in entities}
        for question, gold in items:
            assert gold <= known, question
