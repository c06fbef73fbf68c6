"""Graph questions: a word near a type's name by meaning, read where the kinds around agree.

Tiny worlds through the public API (``memory://``), no type descriptions, with an embedder
whose cosines are set by hand: "doctor" is .55 from "medic", under the 0.6 at which a
word matches a type by meaning alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

import graphmem
from graphmem import Entity, Memory, Relationship


class _NearEmbedder:
    """Each word its own direction, but the words of ``near`` at a set cosine from another.

    ``near``: word -> (the word it is near, their cosine).
    """

    dimension = 256

    def __init__(self, near: Mapping[str, tuple[str, float]]) -> None:
        self._near = dict(near)
        self._axis: dict[str, int] = {}

    def _direction(self, word: str) -> np.ndarray:
        out = np.zeros(self.dimension, dtype=np.float32)
        out[self._axis.setdefault(word, len(self._axis) % self.dimension)] = 1.0
        return out

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        rows = []
        for text in texts:
            word = text.lower()
            if word in self._near:
                other, cosine = self._near[word]
                row = cosine * self._direction(other) + np.sqrt(1 - cosine**2) * self._direction(
                    word
                )
            else:
                row = self._direction(word)
            rows.append(row)
        return np.stack(rows)


_TEAMS = [
    ("korru", "team", "Korru Winter Team"),
    ("tasker", "team", "Tasker Alpine Party"),
    ("anika", "climber", "Anika Brandt"),
    ("sorensen", "climber", "Ida Sorensen"),
    ("norbu", "climber", "Norbu Sherpa"),
]
_FACTS = [
    ("korru", "medic", "sorensen"),
    ("korru", "leads", "anika"),
    ("tasker", "leads", "norbu"),
    ("anika", "member_of", "korru"),
    ("norbu", "member_of", "tasker"),
]


def _world(
    near: Mapping[str, tuple[str, float]],
    facts: Sequence[tuple[str, str, str]],
    more: Sequence[tuple[str, str, str]] = (),
) -> Memory:
    mem = graphmem.open("memory://", tenant="teams", embedder=_NearEmbedder(near))
    mem.upsert_entities([Entity(id=i, type=t, name=n) for i, t, n in (*_TEAMS, *more)])
    mem.upsert_relationships([Relationship(source_id=s, target_id=o, type=r) for s, r, o in facts])
    return mem


def test_a_word_near_the_one_joining_type_by_meaning_names_it() -> None:
    # "doctor" is .55 from "medic": too far alone, but a team and a climber are joined by
    # ``medic``, ``leads`` and ``member_of``, and "doctor" is near none of the others
    with _world({"doctor": ("medic", 0.55)}, _FACTS) as mem:
        answers = mem.ask("Who is the doctor on the Korru Winter Team?")
        assert [a.entity.id for a in answers] == ["sorensen"], answers.reason
        # a team with no medic: the word asks what the graph does not hold
        answers = mem.ask("Who is the doctor on the Tasker Alpine Party?")
        assert answers.abstained and "'doctor'" in answers.reason, answers


def test_a_word_far_from_every_type_stays_unexplained() -> None:
    with _world({"doctor": ("medic", 0.40)}, _FACTS) as mem:
        answers = mem.ask("Who is the doctor on the Korru Winter Team?")
        assert answers.abstained and "'doctor'" in answers.reason, answers


def test_two_joining_types_as_near_leave_the_word_unexplained() -> None:
    # "doctor" as near ``leads`` as ``medic`` (within the margin): the kinds do not choose
    with _world({"doctor": ("medic", 0.55), "leads": ("medic", 0.95)}, _FACTS) as mem:
        answers = mem.ask("Who is the doctor on the Korru Winter Team?")
        assert answers.abstained and "'doctor'" in answers.reason, answers


def test_the_noun_a_name_is_attached_to_is_not_read_by_nearness() -> None:
    # "the navigator of X" names a role of X the graph may not hold
    with _world({"navigator": ("medic", 0.55)}, _FACTS) as mem:
        answers = mem.ask("Who is the navigator of the Korru Winter Team?")
        assert answers.abstained, answers


def test_a_word_nearer_a_type_of_other_kinds_is_not_read_as_a_joining_one() -> None:
    # "doctor" is nearest ``treats`` (climbers and injuries), not a type joining teams
    facts = [*_FACTS, ("sorensen", "treats", "frostbite")]
    near = {"doctor": ("medic", 0.50), "treats": ("doctor", 0.70)}
    with _world(near, facts, [("frostbite", "injury", "Frostbite")]) as mem:
        answers = mem.ask("Who is the doctor on the Korru Winter Team?")
        assert answers.abstained and "'doctor'" in answers.reason, answers


def test_a_word_between_two_kinds_of_person_is_not_read_by_nearness() -> None:
    # "training" near ``apprentice_of`` says nothing the graph must hold of two people
    people = [("ada", "person", "Ada Brandt"), ("nils", "person", "Nils Sherpa")]
    facts = [*_FACTS, ("nils", "apprentice_of", "ada")]
    with _world({"training": ("apprentice", 0.55)}, facts, people) as mem:
        answers = mem.ask("Who is training Nils Sherpa?")
        assert answers.abstained and "'training'" in answers.reason, answers
