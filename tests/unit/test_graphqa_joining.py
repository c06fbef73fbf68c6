"""Graph questions: words no type's name explains, read from the kinds of entity around them.

Tiny worlds built through the public API (``memory://``), by stem only (``semantic=False``),
with no type descriptions: the names-only reading.
"""

from __future__ import annotations

from tests.small_worlds import typed_world

_CLIMBERS = [
    ("vellum", "team", "Vellum Ski Team"),
    ("korru", "team", "Korru Winter Team"),
    ("ilvar", "peak", "Mount Ilvar"),
    ("greyhorn", "peak", "Greyhorn"),
    ("col", "camp", "Tasker Col"),
    ("anika", "climber", "Anika Brandt"),
    ("norbu", "climber", "Norbu Sherpa"),
]
_FACTS = [
    ("vellum", "targets", "ilvar"),
    ("korru", "targets", "greyhorn"),
    ("vellum", "basecamp", "col"),
    ("anika", "member_of", "vellum"),
    ("norbu", "member_of", "korru"),
]


def test_a_phrase_no_type_names_is_read_from_the_one_type_joining_its_kinds() -> None:
    # "going for" names no type; a team and a peak are joined by ``targets`` alone
    with typed_world("climbers", _CLIMBERS, _FACTS) as mem:
        answers = mem.ask("Which peak is the Vellum Ski Team going for?", semantic=False)
        assert [a.entity.id for a in answers] == ["ilvar"], answers.reason
        assert answers.confidence > 0
        # the other way round too: the team of the peak
        answers = mem.ask("Which team is going for Greyhorn?", semantic=False)
        assert [a.entity.id for a in answers] == ["korru"], answers.reason


def test_two_types_joining_the_kinds_leave_the_word_unexplained() -> None:
    # with ``climbed`` beside ``targets`` the kinds no longer say which one "eyeing" is
    # ("going for" says no more than the kind asked for: a light verb and a particle)
    facts = [*_FACTS, ("korru", "climbed", "ilvar")]
    with typed_world("climbers2", _CLIMBERS, facts) as mem:
        answers = mem.ask("Which peak is the Vellum Ski Team eyeing?", semantic=False)
        assert answers.abstained and "'eyeing'" in answers.reason, answers


def test_a_verb_between_two_kinds_of_person_is_never_read_from_them() -> None:
    # knights and nobles are joined by ``sworn_to`` only; "betrayed" is no oath
    with typed_world(
        "court",
        [
            ("tobin", "knight", "Ser Tobin"),
            ("mirren", "noble", "Lady Mirren"),
            ("gate", "gate", "West Gate"),
        ],
        [("tobin", "sworn_to", "mirren"), ("tobin", "guards", "gate")],
    ) as mem:
        answers = mem.ask("Which knight betrayed Lady Mirren?", semantic=False)
        assert answers.abstained and "'betrayed'" in answers.reason, answers
        # a word WordNet does not know is not read from the kinds either
        answers = mem.ask("Which knight zorbled Lady Mirren?", semantic=False)
        assert answers.abstained and "'zorbled'" in answers.reason, answers


def test_two_words_a_type_name_writes_as_one_match_it() -> None:
    # "base camp" of ``basecamp``
    with typed_world("climbers3", _CLIMBERS, _FACTS) as mem:
        answers = mem.ask("Where is the Vellum Ski Team's base camp?", semantic=False)
        assert [a.entity.id for a in answers] == ["col"], answers.reason


def test_no_word_between_two_kinds_of_person_is_read_from_them_not_even_a_noun() -> None:
    # the village's people are joined by ``distrusts`` alone; a husband is no distrust,
    # and the word no relation explains is reported
    with typed_world(
        "village",
        [("odile", "npc", "Odile Marrow"), ("halden", "npc", "Halden Crook")],
        [("odile", "distrusts", "halden")],
    ) as mem:
        answers = mem.ask("who is Odile Marrow's husband?", semantic=False)
        assert answers == [] and answers.abstained, answers
        assert answers.unexplained == ("husband",) and "'husband'" in answers.reason
        # the relation the graph holds is still answered
        answers = mem.ask("who does Odile Marrow distrust?", semantic=False)
        assert [a.entity.id for a in answers] == ["halden"], answers.reason
