"""plan_load: the checks and the order both backends need before a load, without a store."""

from __future__ import annotations

import pytest

from graphmem.backends.load_plan import plan_load, turns_missing, turns_taken
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, Relationship, Turn
from graphmem.core.store import TenantDump


def turn(turn_id: str, session: str = "s", parent: str | None = None) -> Turn:
    return Turn(id=turn_id, session_id=session, role="user", content=turn_id, parent_id=parent)


def test_parents_come_first_and_refs_name_what_the_store_must_hold() -> None:
    dump = TenantDump(
        turns=[turn("c", parent="b"), turn("x", session="o"), turn("b", parent="a"), turn("a")],
        heads={"s": "a", "o": None, "t": "stored-head"},
    )

    plan = plan_load(dump)

    assert [t.id for t in plan.parents_first] == ["a", "b", "c", "x"]
    assert [t.id for t in plan.turns] == ["c", "x", "b", "a"]  # the dump's order kept
    assert plan.turn_ids == ["c", "x", "b", "a"]
    assert plan.links == [("c", "b"), ("b", "a")]
    assert plan.refs == [("stored-head", "t")]
    assert plan.heads == {"s": "a", "o": "x", "t": "stored-head"}


def test_a_parent_outside_the_dump_is_a_ref_of_its_session() -> None:
    plan = plan_load(TenantDump(turns=[turn("b", parent="stored")]))

    assert plan.refs == [("stored", "s")]
    assert plan.heads == {"s": "b"}


@pytest.mark.parametrize(
    ("dump", "message"),
    [
        (TenantDump(turns=[turn("a"), turn("a")]), "occurs twice"),
        (TenantDump(turns=[turn("a", parent="b"), turn("b", parent="a")]), "form a cycle"),
        (TenantDump(turns=[turn("a"), turn("b", session="o", parent="a")]), "of session 's'"),
        (TenantDump(turns=[turn("a")], heads={"o": "a"}), "head of session 'o'"),
        (TenantDump(heads={"": "a"}), "session id in heads"),
        (TenantDump(mentions=[("entity", "a", "b")]), "kind must be one of"),
        (TenantDump(mentions=[("turn", "a")]), r"mentions\[0\] must be"),  # type: ignore[list-item]
        (TenantDump(mentions=[("chunk", "", "b")]), "node_id"),
        (TenantDump(entities=[Entity.model_construct(id="e", type="no spaces!")]), "type"),
    ],
)
def test_a_bad_dump_is_refused_before_any_store_is_asked(dump: TenantDump, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        plan_load(dump)


def test_not_a_dump_is_refused() -> None:
    with pytest.raises(InvalidInput, match="TenantDump"):
        plan_load({"entities": []})


def test_repeated_models_and_mentions_are_kept_once_the_last_winning() -> None:
    first, last = Entity(id="e", type="npc", name="First"), Entity(id="e", type="npc", name="Last")
    knows = Relationship(source_id="e", target_id="e", type="knows")
    dump = TenantDump(
        entities=[first, last],
        relationships=[knows, knows],
        mentions=[("turn", "t", "e"), ("chunk", "c", "e"), ("turn", "t", "e")],
    )

    plan = plan_load(dump)

    assert plan.entities == [last]
    assert plan.relationships == [knows]
    assert plan.mentions == [("turn", "t", "e"), ("chunk", "c", "e")]
    assert plan.mentions_by_kind() == {"turn": [("t", "e")], "chunk": [("c", "e")]}


def test_the_errors_left_to_the_backends_name_the_turns() -> None:
    taken = turns_taken("t1", ["b", "a"])
    missing = turns_missing(["p", "p", "h"])

    assert taken.data["turn_ids"] == ["a", "b"] and "tenant 't1'" in str(taken)
    assert missing.data["turn_ids"] == ["h", "p"] and "'h', 'p'" in str(missing)
