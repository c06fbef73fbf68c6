"""The evaluation worlds of tests/worlds, asked through the public API (tests/world_questions.py).

Floors a little under what was measured when the planner was rebuilt (hashing embedder, no
model), so that a change that loses answers on worlds nobody tuned on is seen. The design
worlds (hospital, company, guild) and the held-out ones (station, family) are scored apart.
"""

from __future__ import annotations

import pytest

from graphmem.retrieval import HashingEmbedder
from tests.world_questions import (
    BATCHES,
    GROUPS,
    answering_facts,
    fact_hits,
    load_worlds,
    report_lines,
    score,
    walk,
)

pytestmark = pytest.mark.slow

#: the first five worlds, on which these floors were measured
FIRST = ("hospital", "company", "guild", "station", "family")


@pytest.mark.parametrize(
    ("split", "descriptions", "per_group", "abstained"),
    [
        ("dev", True, 0.9, 27),
        ("dev", False, 0.75, 27),
        ("heldout", True, 0.3, 18),
        ("heldout", False, 0.25, 18),
    ],
)
def test_worlds_are_answered_and_no_answer_questions_are_not(
    split: str, descriptions: bool, per_group: float, abstained: int
) -> None:
    worlds = load_worlds(split, FIRST)
    assert len(worlds) == (3 if split == "dev" else 2)
    result = score(worlds, descriptions=descriptions, embedder=HashingEmbedder(384))
    print("\n".join(report_lines(split, result)))
    for group in GROUPS:
        assert result.hits_at_1(group) >= per_group, group
    done, asked = result.abstained()
    assert asked == 10 * len(worlds) and done >= abstained
    # an answer given with a confidence of 0.8 or more is right
    sure = [o for o in result.outcomes if o.group in GROUPS and o.confidence >= 0.8]
    assert sure and sum(o.hit for o in sure) / len(sure) >= 0.95


def test_every_batch_names_held_out_worlds_once() -> None:
    names = [name for batch in BATCHES.values() for name in batch]
    assert len(names) == len(set(names))
    held_out = {w["name"] for w in load_worlds("heldout")}
    assert set(names) <= held_out
    assert held_out - set(names) == {"station", "family", "court"}


def test_every_world_is_of_the_size_asked_for() -> None:
    for world in load_worlds():
        assert 30 <= len(world["entities"]) <= 60, world["name"]
        assert 60 <= len(world["facts"]) <= 120, world["name"]
        groups = [q["group"] for q in world["questions"]]
        for group in (*GROUPS, "no-answer"):
            assert groups.count(group) >= 7, (world["name"], group)
        for question in world["questions"]:
            assert bool(question["answers"]) == (question["group"] != "no-answer")


def test_every_gold_answer_is_what_its_path_walks_to() -> None:
    # the worlds' writers walked their paths by hand and by script; a slip would score the
    # planner against a wrong answer. ``ask`` never answers with the topic itself.
    for world in load_worlds():
        ids = {e["id"] for e in world["entities"]}
        assert all(s in ids and t in ids for s, _, t in world["facts"]), world["name"]
        for question in world["questions"]:
            if not question.get("path"):
                continue
            start = question["path"].split()[0]
            gold = set(question["answers"])
            assert walk(world, question["path"]) - {start} == gold - {start}, question


@pytest.mark.parametrize(("descriptions", "per_group"), [(True, 0.95), (False, 0.9)])
def test_the_second_design_worlds_are_answered(descriptions: bool, per_group: float) -> None:
    # port city and university: the design half of the second set (court is held out);
    # measured 0.961 / 1.000 answerable, 19 / 18 of 20 abstained (names only / described)
    worlds = load_worlds("dev", ("port", "university"))
    assert len(worlds) == 2
    result = score(worlds, descriptions=descriptions, embedder=HashingEmbedder(384))
    print("\n".join(report_lines("port, university", result)))
    for group in GROUPS:
        assert result.hits_at_1(group) >= per_group, group
    done, asked = result.abstained()
    assert asked == 20 and done >= 17


def test_the_answering_fact_is_read_from_the_path_in_either_direction() -> None:
    ahead = {"path": "ser_gawen >sworn_to", "answers": ["lord_cassius"]}
    back = {"path": "east_gate <guards", "answers": ["ser_gawen", "ser_marek"]}
    assert answering_facts(ahead) == {"ser_gawen|sworn_to|lord_cassius"}
    assert answering_facts(back) == {"ser_gawen|guards|east_gate", "ser_marek|guards|east_gate"}
    either = {"path": "maud ~spouse", "answers": ["hal"]}
    assert answering_facts(either) == {"maud|spouse|hal", "hal|spouse|maud"}


def test_retrieve_ranks_the_answering_fact_of_one_hop_questions() -> None:
    # measured with the hashing embedder: fact@3 0.95 against BM25 over fact sentences 0.84
    figures = fact_hits(
        load_worlds("dev", ("port", "university")),
        descriptions=False,
        embedder=HashingEmbedder(384),
    )
    assert figures["fact@3"] >= 0.85
    assert figures["fact@3"] >= figures["bm25@3"]
