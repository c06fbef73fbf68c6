"""Memory.ask: graph questions answered by typed walks, with the facts as provenance.

The vocabulary comes from the store (relationship_patterns, type descriptions kept as
records), the walks from expand: so every backend must answer the same.
"""

from __future__ import annotations

import pytest

from graphmem import GraphStore, InvalidInput, Memory
from graphmem.retrieval import GraphQA, GraphQASettings

from .helpers import ent, rel


@pytest.fixture
def village(mem: Memory) -> Memory:
    """Mira smiths at the Forge, Tomas and Edda work the Mill; things they own; the map."""
    mem.upsert_entities(
        [
            ent("mira", name="Mira"),
            ent("tomas", name="Tomas"),
            ent("edda", name="Edda the Miller"),
            ent("forge", "location", name="The Forge"),
            ent("mill", "location", name="The Mill"),
            ent("square", "location", name="Market Square"),
            ent("hammer", "item", name="Iron Hammer"),
            ent("sack", "item", name="Flour Sack"),
        ]
    )
    mem.upsert_relationships(
        [
            rel("mira", "forge", "works_at", confidence=0.9),
            rel("tomas", "mill", "works_at"),
            rel("edda", "mill", "works_at"),
            rel("mira", "hammer", "owns"),
            rel("edda", "sack", "owns"),
            rel("forge", "square", "borders"),
            rel("mill", "square", "borders"),
        ]
    )
    return mem


def names(answers: list) -> list[str]:  # type: ignore[type-arg]
    return [a.entity.name for a in answers]


def best(answers: list) -> list[str]:  # type: ignore[type-arg]
    """The answers of the best path (answers of less likely paths may follow them)."""
    return [a.entity.name for a in answers if a.path == answers[0].path]


def test_one_step_forwards(village: Memory) -> None:
    [answer] = village.ask("where does Mira work?", semantic=False)

    assert answer.entity.id == "forge"
    assert [str(step) for step in answer.path] == ["->works_at"]
    assert answer.topic == "mira"
    assert answer.facts == (village.get_relationships("mira", types=["works_at"])[0],)
    assert answer.facts[0].provenance.confidence == 0.9
    assert answer.explain() == "mira -works_at-> forge"


def test_one_step_backwards(village: Memory) -> None:
    assert names(village.ask("who owns the Iron Hammer?", semantic=False)) == ["Mira"]


def test_there_and_back_when_the_question_says_same(village: Memory) -> None:
    answers = village.ask("who works at the same place as Tomas?", semantic=False)

    assert names(answers)[0] == "Edda the Miller"
    assert [str(s) for s in answers[0].path] == ["->works_at", "<-works_at"]
    assert answers[0].explain() == "tomas -works_at-> mill <-works_at- edda"
    # answers of less likely paths may follow, scored lower
    assert all(a.score < answers[0].score for a in answers[1:])


def test_two_steps_in_the_order_the_words_give(village: Memory) -> None:
    answers = village.ask("what do the people working at the Mill own?", semantic=False)

    assert best(answers) == ["Flour Sack"]
    assert [str(s) for s in answers[0].path] == ["<-works_at", "->owns"]


def test_a_type_linking_one_kind_to_itself_is_walked_the_way_the_words_say(
    village: Memory,
) -> None:
    # "border the Square": the Square is what is bordered (the facts' target); bordering
    # holds both ways, so it is walked both ways, the facts named the way the words say first
    answers = village.ask("which places border the Market Square?", semantic=False)

    assert sorted(names(answers)) == ["The Forge", "The Mill"]
    assert answers[0].path[0].direction == "both"
    # "what does the Forge border?": the Forge borders; walked from it as the source
    assert best(village.ask("what does the Forge border?", semantic=False)) == ["Market Square"]


def test_descriptions_give_the_words_a_name_lacks(village: Memory, store: GraphStore) -> None:
    village.upsert_entities([ent("bag", "item", name="Leather Bag")])
    village.upsert_relationships([rel("edda", "bag", "inv")])
    qa = GraphQA(store, village.tenant, village.entity_linker)
    question = "what is Edda the Miller carrying?"

    assert qa.plan(question)[0].parts["explained"] == 0.0  # no word says "inv"

    village.describe_relationship_type("inv", "an item a character carries in their inventory")

    [top, *_] = qa.plan(question)
    assert str(top) == "->inv" and top.parts["explained"] == 1.0
    assert best(village.ask(question, semantic=False)) == ["Leather Bag"]
    assert village.schema().relationship_types == {
        "inv": "an item a character carries in their inventory"
    }
    village.describe_relationship_type("inv", None)
    assert village.schema().relationship_types == {}


def test_entity_type_descriptions_tell_who_from_what(village: Memory) -> None:
    village.upsert_entities([ent("cart", "item", name="Hand Cart")])
    village.upsert_relationships([rel("cart", "mill", "kept_at")])
    village.describe_entity_type("npc", "a character: a person")

    answers = village.ask("who is at the Mill?", semantic=False)

    assert names(answers)[:2] == ["Edda the Miller", "Tomas"]
    assert answers[0].type_fit == 1.0


def test_the_vocabulary_is_read_from_the_store(village: Memory) -> None:
    assert village.ask("what does Tomas sell?", semantic=False) == [] or "sells" not in [
        s.type for a in village.ask("what does Tomas sell?", semantic=False) for s in a.path
    ]
    village.upsert_entities([ent("bread", "item", name="Rye Bread")])
    village.upsert_relationships([rel("tomas", "bread", "sells")])

    assert names(village.ask("what does Tomas sell?", semantic=False)) == ["Rye Bread"]


def test_invalidated_facts_are_not_walked(village: Memory) -> None:
    village.invalidate("mira", "forge", "works_at")

    assert "The Forge" not in names(village.ask("where does Mira work?", semantic=False))


def test_a_question_naming_no_entity_has_no_answer(village: Memory) -> None:
    assert village.ask("where does the blacksmith work?", semantic=False) == []


def test_an_empty_graph_has_no_answer(mem: Memory) -> None:
    mem.upsert_entities([ent("mira", name="Mira")])

    assert mem.ask("where is Mira?", semantic=False) == []


def test_k_caps_the_answers(village: Memory) -> None:
    assert len(village.ask("which places border the Market Square?", k=1, semantic=False)) == 1


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        (("",), {}),
        (("   ",), {}),
        ((None,), {}),
        (("where is Mira?",), {"k": 0}),
        (("where is Mira?",), {"max_hops": 0}),
        (("where is Mira?",), {"semantic": "yes"}),
        (("where is Mira?",), {"settings": {"hop": 1}}),
    ],
)
def test_bad_questions_are_invalid_input(village: Memory, args: tuple, kwargs: dict) -> None:  # type: ignore[type-arg]
    with pytest.raises(InvalidInput):
        village.ask(*args, **kwargs)


@pytest.mark.parametrize(
    ("name", "description"),
    [("not safe", "x"), ("works_at", 3), ("works_at", "x" * 2001), ("", "x")],
)
def test_bad_descriptions_write_nothing(village: Memory, name: str, description: object) -> None:
    with pytest.raises(InvalidInput):
        village.describe_relationship_type(name, description)  # type: ignore[arg-type]
    with pytest.raises(InvalidInput):
        village.describe_entity_type(name, description)  # type: ignore[arg-type]

    schema = village.schema()
    assert schema.relationship_types == {} and schema.entity_types == {}


def test_descriptions_belong_to_their_tenant(
    store: GraphStore, village: Memory, new_tenant: object
) -> None:
    other = Memory(store, new_tenant(), owns_store=False)  # type: ignore[operator]
    other.describe_relationship_type("works_at", "the employer")

    assert village.schema().relationship_types == {}
    assert other.schema().relationship_types == {"works_at": "the employer"}


def test_schema_lists_the_fact_shapes(village: Memory) -> None:
    shapes = {(p.source_type, p.type, p.target_type): p.facts for p in village.schema().patterns}

    assert shapes == {
        ("location", "borders", "location"): 2,
        ("npc", "owns", "item"): 2,
        ("npc", "works_at", "location"): 3,
    }


def test_plan_shows_the_scored_paths(village: Memory, store: GraphStore) -> None:
    qa = GraphQA(store, village.tenant, village.entity_linker)

    [best, *rest] = qa.plan("where does Mira work?")

    assert best.topic == ("mira",) and str(best) == "->works_at"
    assert best.parts["explained"] == 1.0
    assert all(best.score >= p.score for p in rest)


def test_settings_change_the_plan(village: Memory, store: GraphStore) -> None:
    question = "who works at the same place as Tomas?"
    eager = GraphQASettings(shared=0.0, unshared=5.0)
    usual = GraphQA(store, village.tenant, village.entity_linker)
    tuned = GraphQA(store, village.tenant, village.entity_linker, settings=eager)

    assert str(usual.plan(question)[0]) == "->works_at <-works_at"
    assert str(tuned.plan(question)[0]) == "->works_at"
    # "who" asks for a person: the place the tuned plan reaches first is passed over
    assert names(village.ask(question, semantic=False, settings=eager))[0] == "Edda the Miller"


def test_many_topics_with_one_name_are_walked_together(village: Memory) -> None:
    village.upsert_entities([ent("mira2", name="Mira"), ent("well", "location", name="Old Well")])
    village.upsert_relationships([rel("mira2", "well", "works_at")])

    answers = village.ask("where does Mira work?", semantic=False)

    assert sorted(names(answers)) == ["Old Well", "The Forge"]
    assert {a.topic for a in answers} == {"mira", "mira2"}


def test_roles_tell_apart_what_coarse_types_do_not(mem: Memory, store: GraphStore) -> None:
    # people and years are both "concept": only their roles say a director has no films
    # released in him
    mem.upsert_entities(
        [ent("m1", "movie", name="Red Dawn"), ent("m2", "movie", name="Blue Dusk")]
        + [ent("p", "concept", name="Ann Vale"), ent("y1", "concept", name="1984")]
        + [ent("y2", "concept", name="1990")]
    )
    mem.upsert_relationships(
        [
            rel("m1", "p", "directed_by"),
            rel("m2", "p", "directed_by"),
            rel("m1", "y1", "release_year"),
            rel("m2", "y2", "release_year"),
        ]
    )
    mem.describe_entity_type("movie", "a film")
    question = "when were the films directed by the director of Red Dawn released?"

    answers = mem.ask(question, semantic=False)

    assert best(answers) == ["1990"]
    assert [str(s) for s in answers[0].path] == ["->directed_by", "<-directed_by", "->release_year"]
    steps = [str(p) for p in GraphQA(store, mem.tenant, mem.entity_linker).plan(question, limit=50)]
    assert "->directed_by <-release_year" not in steps  # no director was released in a year


def test_plan_limit_must_be_positive(village: Memory, store: GraphStore) -> None:
    with pytest.raises(InvalidInput):
        GraphQA(store, village.tenant, village.entity_linker).plan("where is Mira?", limit=0)
