"""``graphmem eval`` on small subsets (--limit), and the MetaQA question reader."""

from __future__ import annotations

import json

import pytest

from graphmem.cli import main
from graphmem.evaluation import default_data_dir, relation_path

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
    for key in keys:
        assert 0.0 <= report[key] <= 1.0
        assert 0.0 <= report["baseline"][key] <= 1.0
    assert "bm25" in report["baseline"]["method"]


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
    assert report["1-hop hits@1"] >= 0.8  # typed walks answer templated questions


def test_eval_rejects_a_bad_limit(capsys) -> None:  # type: ignore[no-untyped-def]
    assert main(["eval", "--dataset", "light", "--limit", "0", "--embedder", "hashing"]) == 2
    assert "--limit" in capsys.readouterr().err


@pytest.mark.parametrize(
    ("question", "is_movie", "seed_rels", "path"),
    [
        ("what movies did [Gordon Chan] direct", False, {"directed_by"}, ["directed_by"]),
        ("who are the actors in [Date Night]", True, {"starred_actors"}, ["starred_actors"]),
        (
            "which person directed the movies starred by [John Krasinski]",
            False,
            {"starred_actors", "directed_by"},
            ["starred_actors", "directed_by"],
        ),
        (
            "who are movie co-directors of [Neil Hunter]",
            False,
            {"directed_by"},
            ["directed_by", "directed_by"],
        ),
        (
            "which films share the same actor of [The Baby]",
            True,
            {"starred_actors", "directed_by"},
            ["starred_actors", "starred_actors"],
        ),
        (
            "who directed films that share actors with the film [Whiplash]",
            True,
            {"starred_actors", "directed_by"},
            ["starred_actors", "starred_actors", "directed_by"],
        ),
        (
            "what genres are the movies directed by the [Mean Girls 2] director",
            True,
            {"directed_by", "has_genre"},
            ["directed_by", "directed_by", "has_genre"],
        ),
    ],
)
def test_relation_path_from_the_question_words(
    question: str, is_movie: bool, seed_rels: set[str], path: list[str]
) -> None:
    assert relation_path(question, is_movie, seed_rels) == path
