"""Graph question answering: the word matching and settings, without a backend's help."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pytest

import graphmem
from graphmem import BackendUnavailable, Entity, InvalidInput, Relationship
from graphmem.retrieval import GraphQASettings, PathStep, SentenceTransformerEmbedder
from graphmem.retrieval.graphqa import light_stem
from tests.small_worlds import SynonymEmbedder


@pytest.mark.parametrize(
    ("words", "stem"),
    [
        (("directed", "director", "directs", "directing", "directors"), "direct"),
        (("starred", "stars", "star"), "star"),
        (("written", "writer", "writers", "write"), "writ"),
        (("carries", "carry", "carried", "carrying"), "carri"),
        (("movies", "movie"), "movi"),
        (("borders", "border", "bordering"), "bord"),
        (("located", "location", "locate"), "locat"),
        (("years", "year"), "year"),
    ],
)
def test_forms_of_a_word_share_a_stem(words: tuple[str, ...], stem: str) -> None:
    assert {light_stem(w) for w in words} == {stem}


def test_short_words_keep_their_letters() -> None:
    assert [light_stem(w) for w in ("in", "is", "by", "has", "boss")] == [
        "in",
        "is",
        "by",
        "has",
        "boss",
    ]


@pytest.mark.parametrize(
    "change",
    [
        {"max_hops": 0},
        {"max_hops": 33},  # over MAX_DEPTH
        {"beam": True},
        {"hop": -1.0},
        {"focus": float("nan")},
        {"temperature": 0.0},
        {"max_frontier": 2.5},
        {"unfit": 1.5},  # it scales a confidence
        {"unfit": -0.1},
        {"unfit": float("nan")},
        {"margin": True},
    ],
)
def test_bad_settings_are_invalid_input(change: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidInput):
        GraphQASettings(**change)


@pytest.mark.parametrize("hops", [0, 33, 10**18, True])
def test_ask_refuses_a_walk_deeper_than_max_depth(hops: int) -> None:
    """10**18 hops once grew without end: every longer path is kept while the beam walks."""
    import graphmem
    from graphmem import Entity, Relationship

    with graphmem.open("memory://", tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="Ada")])
        mem.upsert_entities([Entity(id="b", type="location", name="Mill")])
        mem.upsert_relationships([Relationship(source_id="a", target_id="b", type="located_in")])
        with pytest.raises(InvalidInput):
            mem.ask("where is Ada?", max_hops=hops, semantic=False)
        assert [a.entity.id for a in mem.ask("where is Ada?", max_hops=32, semantic=False)] == ["b"]


def test_path_steps_read_as_arrows() -> None:
    steps = [PathStep("works_at", "out"), PathStep("owns", "in"), PathStep("borders", "both")]

    assert [str(s) for s in steps] == ["->works_at", "<-owns", "<->borders"]


def _library(embedder: object | None = None) -> graphmem.Memory:
    mem = graphmem.open("memory://", tenant="library", embedder=embedder)  # type: ignore[arg-type]
    mem.upsert_entities(
        [
            Entity(id="book", type="book", name="The Long Road"),
            Entity(id="ann", type="person", name="Ann Vale"),
        ]
    )
    mem.upsert_relationships([Relationship(source_id="book", target_id="ann", type="written_by")])
    return mem


def test_an_embedder_matches_words_no_stem_shares() -> None:
    question = "who zorbled The Long Road?"
    with _library(SynonymEmbedder(("zorbled", "written"))) as mem:
        # by stem, no type explains "zorbled": the only walk explains none of the
        # question's relation words, so it is no answer, and the word is said
        unread = mem.ask(question, semantic=False)
        assert unread.abstained and unread.unexplained == ("zorbled",)
        assert "'zorbled'" in unread.reason
        plan = mem._retrieval().answerer(False, None).plan(question)
        assert plan[0].parts["explained"] == 0.0
        semantic = mem._retrieval().answerer(True, None).plan(question)
        assert semantic[0].parts["explained"] == pytest.approx(0.8)  # semantic_weight
        read = mem.ask(question, semantic=True)
        assert [a.entity.id for a in read] == ["ann"] and read.unexplained == ()
        assert read.confidence > unread.confidence


def test_semantic_needs_an_embedder(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(SentenceTransformerEmbedder, "available", staticmethod(lambda: False))
    with _library() as mem:
        with pytest.raises(BackendUnavailable):
            mem.ask("who wrote The Long Road?", semantic=True)
        # by default, words are compared by stem when no embedder can be had
        assert [a.entity.id for a in mem.ask("who wrote The Long Road?")] == ["ann"]


def test_an_embedder_of_the_wrong_shape_is_invalid_input() -> None:
    class Broken:
        dimension = 2

        def embed(self, texts: Sequence[str]) -> np.ndarray:
            return np.ones((1, 2), dtype=np.float32)

    with _library(Broken()) as mem, pytest.raises(InvalidInput):
        mem.ask("who wrote The Long Road?", semantic=True)


def test_the_answerer_is_kept_per_memory() -> None:
    with _library(SynonymEmbedder()) as mem:
        assert mem._retrieval().answerer(True, None) is mem._retrieval().answerer(None, None)
        assert mem._retrieval().answerer(False, None) is not mem._retrieval().answerer(True, None)


def test_a_verb_of_the_type_names_family_explains_a_question_without_an_embedder() -> None:
    with _library() as mem:
        answers = mem.ask("who penned The Long Road?", semantic=False)
        assert [a.entity.id for a in answers] == ["ann"] and answers.unexplained == ()
        plan = mem._retrieval().answerer(False, None).plan("who penned The Long Road?")
        assert plan[0].parts["explained"] == pytest.approx(0.8)  # related_weight


def test_when_is_not_answered_by_a_path_to_no_time() -> None:
    with _library() as mem:
        answers = mem.ask("when was The Long Road written?", semantic=False)
        assert answers.abstained and "a time" in answers.reason
        assert [a.entity.id for a in mem.ask("who wrote The Long Road?", semantic=False)] == ["ann"]


def test_a_participle_the_type_is_named_with_keeps_its_direction() -> None:
    with graphmem.open("memory://", tenant="craft") as mem:
        mem.upsert_entities(
            [
                Entity(id=i, type="captain", name=n)
                for i, n in (("ann", "Ann Reed"), ("bo", "Bo Lark"), ("cy", "Cy Moss"))
            ]
        )
        mem.upsert_relationships(
            [
                Relationship(source_id="ann", target_id="bo", type="apprenticed_to"),
                Relationship(source_id="bo", target_id="cy", type="apprenticed_to"),
            ]
        )
        for question, expected in (
            ("Who was Bo Lark apprenticed to?", "cy"),
            ("Who was apprenticed to Bo Lark?", "ann"),
        ):
            answers = mem.ask(question, semantic=False)
            assert [a.entity.id for a in answers][:1] == [expected], question
