"""Graph questions: how a plan starts, how far it walks on, and what asks the question.

Tiny worlds built through the public API (``memory://``), by stem only (``semantic=False``).
"""

from __future__ import annotations

import graphmem
from graphmem.retrieval import GraphQASettings
from tests.small_worlds import typed_world


def _top(mem: graphmem.Memory, question: str, **kwargs: object) -> list[str]:
    return [a.entity.id for a in mem.ask(question, semantic=False, **kwargs)]  # type: ignore[arg-type]


def test_a_noun_of_the_topic_naming_a_type_it_lacks_restricts_no_first_step() -> None:
    # "Noor's *film*" names ``filmed_in`` (a film's town), which no actor has: the walk
    # starts with what Noor has (``acts_in``) and goes on to the stage
    with typed_world(
        "studio",
        [
            ("noor", "actor", "Noor Rahimi"),
            ("echo", "film", "Echo Valley"),
            ("stage9", "stage", "Stage Nine"),
            ("lune", "town", "Port Lune"),
        ],
        [("noor", "acts_in", "echo"), ("echo", "shot_on", "stage9"), ("echo", "filmed_in", "lune")],
    ) as mem:
        answers = mem.ask("Which stage was Noor Rahimi's film shot on?", semantic=False)
        assert [a.entity.id for a in answers][:1] == ["stage9"], answers.reason
        # and a noun of a type the topic has still starts the walk with it
        assert _top(mem, "Which town was Echo Valley filmed in?")[:1] == ["lune"]


def test_the_margin_holds_while_only_answers_of_another_kind_were_reached() -> None:
    # "who wrote X?" walks ``written_as`` to a draft (no person: answered less surely);
    # ``kept_by`` reaches a person but explains no word: beyond a narrow margin it is
    # not walked, and the draft stays the answer
    with typed_world(
        "archive",
        [
            ("road", "book", "The Long Road"),
            ("draft", "draft", "The First Draft"),
            ("ann", "person", "Ann Vale"),
        ],
        [("road", "written_as", "draft"), ("road", "kept_by", "ann")],
    ) as mem:
        question = "who wrote The Long Road?"
        # every type planned with (no word names ``kept_by``)
        narrow = GraphQASettings(min_evidence=0.0, margin=0.1)
        answers = mem.ask(question, semantic=False, settings=narrow)
        assert [a.entity.id for a in answers] == ["draft"], answers.reason
        assert 0 < answers.confidence <= narrow.unfit
        # within the default margin the person is reached, by a walk that explains
        # nothing of "wrote"
        wide = mem.ask(question, semantic=False, settings=GraphQASettings(min_evidence=0.0))
        assert wide.abstained and "'wrote'" in wide.reason


def test_a_question_word_inside_a_name_asks_nothing() -> None:
    # "Who Knows Inn is in which harbour?": the question asks with "which", not with the
    # "who" of the inn's name (a person would be asked for, and the harbour answered unsurely)
    with typed_world(
        "inns",
        [("inn", "inn", "Who Knows Inn"), ("lune", "harbour", "Port Lune")],
        [("inn", "located_in", "lune")],
    ) as mem:
        answers = mem.ask("Who Knows Inn is in which harbour?", semantic=False)
        assert [a.entity.id for a in answers] == ["lune"], answers.reason
        assert answers.confidence > GraphQASettings().unfit


def test_a_noun_of_the_topic_naming_no_kind_and_a_type_it_lacks_is_no_answer() -> None:
    # "Lyra's *rival*": Lyra has no ``rivals`` fact (her guild has); the noun names no
    # kind of entity, so the question asks what the graph does not hold of her
    with typed_world(
        "guilds",
        [
            ("lyra", "character", "Lyra Voss"),
            ("ravens", "guild", "The Ravens"),
            ("owls", "guild", "The Owls"),
        ],
        [("lyra", "member_of", "ravens"), ("ravens", "rivals", "owls")],
    ) as mem:
        question = "Who is Lyra Voss's rival?"
        answers = mem.ask(question, semantic=False)
        assert answers.abstained and "can start a walk" in answers.reason, answers
        assert mem._retrieval().answerer(False, None).plan(question) == []  # not even planned
        assert _top(mem, "Who is the rival of The Ravens?") == ["owls"]
