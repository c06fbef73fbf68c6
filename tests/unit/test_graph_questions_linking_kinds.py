"""Graph questions: a name written with an alias and a surname, and what "who" asks for
when entity types are described, read on a small made-up orchard. None of these words
or names is in the evaluation worlds."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

import graphmem
from graphmem import Entity, Memory, Relationship
from graphmem.retrieval import HashingEmbedder
from tests.small_worlds import open_world

ENTITIES = [
    ("bram_osk", "grower", "Bram Osk", ["Brammy"]),
    ("ida_osk", "grower", "Ida Osk", []),
    ("per_osk", "grower", "Per Osk", []),
    ("quill", "orchard", "Quillby Orchard", []),
    ("tova", "picker", "Tova Rask", []),
]
FACTS = [
    ("bram_osk", "parent", "ida_osk"),
    ("bram_osk", "parent", "per_osk"),
    ("quill", "owner", "ida_osk"),
    ("tova", "works_on", "quill"),
    ("tova", "hired_by", "ida_osk"),
]


@pytest.fixture
def orchard() -> Iterator[Memory]:
    with graphmem.open("memory://", tenant="orchard", embedder=HashingEmbedder(64)) as mem:
        mem.upsert_entities(
            [
                Entity(id=i, type=t, name=n, attributes={"aliases": a} if a else {})
                for i, t, n, a in ENTITIES
            ]
        )
        mem.upsert_relationships(
            [Relationship(source_id=s, target_id=t, type=r) for s, r, t in FACTS]
        )
        yield mem


def test_an_alias_beside_a_shared_surname_names_one_entity(orchard: Memory) -> None:
    # "Brammy" is Bram Osk's alias, "Osk" the surname of three: together they name Bram,
    # and his parents (Oskes too) are answers, not the topic
    answers = orchard.ask("Who are Brammy Osk's parents?", semantic=False)
    assert not answers.abstained, answers.reason
    assert sorted(a.entity.id for a in answers) == ["ida_osk", "per_osk"]
    assert not answers.ambiguity


def test_who_fits_a_described_type_wordnet_knows_as_people(orchard: Memory) -> None:
    # a picker's description says no "person"; a grower's does: "who works on X?" still
    # answers the picker, not the grower who hired her
    orchard.describe_entity_type("grower", "a person who grows fruit on their own land")
    orchard.describe_entity_type("picker", "hand taken on for the harvest by the day")
    orchard.describe_relationship_type("works_on", "the orchard a picker works on")
    orchard.describe_relationship_type("hired_by", "the grower who took the worker on")
    answers = orchard.ask("Who works on Quillby Orchard?", semantic=False)
    assert not answers.abstained, answers.reason
    assert answers[0].entity.id == "tova"


def test_the_kind_asked_for_asks_for_no_step_its_description_names() -> None:
    # "bakery" is an entity type's own word: it asks for the step that reaches a bakery,
    # not for ``married_to`` because its description speaks of a bakery. Nell works
    # nowhere; her husband does
    people = {"mads": "Mads Orr", "nell": "Nell Quist"}
    things = {"sunrise": ("bakery", "Sunrise Bakery"), "dawn": ("bakery", "Dawn Bakery")}
    facts = [("mads", "works_at", "sunrise"), ("nell", "married_to", "mads")]
    descriptions = {"married_to": "the spouse of someone who bakes for a bakery"}
    with open_world("orchard", people, things, facts, descriptions) as mem:
        answers = mem.ask("Which bakery does Nell Quist work at?", semantic=False)
        assert answers.abstained and not answers
        assert [a.entity.id for a in mem.ask("Which bakery does Mads Orr work at?")] == ["sunrise"]
