import copy
import math
import pickle
from datetime import UTC, datetime, timedelta, timezone

import pytest

from graphmem import Entity, InvalidInput, NPCIdentity, Provenance, Relationship, Turn
from graphmem.core.models import (
    EntityFilter,
    FrozenDict,
    FrozenList,
    ProvenanceSource,
    Role,
    check_safe_name,
    construct_trusted,
    estimate_tokens,
)


def entity(**kw):
    return Entity(**{"id": "mira", "type": "npc", "name": "Mira", **kw})


@pytest.mark.parametrize("bad", ["", "1abc", "has space", "a-b", "x" * 65, "KNOWS]->(x) //", "é"])
def test_unsafe_type_names_are_invalid_input(bad):
    with pytest.raises(InvalidInput) as info:
        entity(type=bad)
    assert "type" in str(info.value)
    with pytest.raises(InvalidInput):
        Relationship(source_id="a", target_id="b", type=bad)
    with pytest.raises(InvalidInput):
        check_safe_name(bad)


@pytest.mark.parametrize("good", ["npc", "member_of", "A", "x" * 64, "Quest_2"])
def test_safe_names_pass(good):
    assert entity(type=good).type == good
    assert check_safe_name(good) == good


@pytest.mark.parametrize("bad_id", ["", "   ", "a\nb", "x" * 513])
def test_bad_ids(bad_id):
    with pytest.raises(InvalidInput):
        entity(id=bad_id)


def test_invalid_input_is_a_value_error_and_lists_every_field():
    with pytest.raises(ValueError) as info:
        Entity(id="", type="bad type", name="")
    message = str(info.value)
    assert "id" in message and "type" in message and "name" in message
    assert len(info.value.errors) == 3


@pytest.mark.parametrize("confidence", [-0.01, 1.01, math.nan, math.inf])
def test_confidence_must_be_in_unit_interval(confidence):
    with pytest.raises(InvalidInput):
        Provenance(confidence=confidence)


def test_provenance_defaults_and_enum_source():
    p = Provenance(source=ProvenanceSource.INFERRED, evidence=["t1"])
    assert p.source == "inferred" and p.confidence == 1.0 and not p.confirmed
    assert p.evidence == ("t1",)


@pytest.mark.parametrize(
    "attributes",
    [{"x": math.nan}, {"x": object()}, {1: "a"}, {"": 1}, {"x": {"y": {2: 3}}}, {"x": b"raw"}],
)
def test_attributes_must_be_json(attributes):
    with pytest.raises(InvalidInput):
        entity(attributes=attributes)


def test_attributes_are_frozen_but_equal_to_plain_values():
    e = entity(attributes={"tags": ["brave", {"k": 1}], "level": 3})
    assert isinstance(e.attributes, FrozenDict)
    assert isinstance(e.attributes["tags"], FrozenList)
    assert e.attributes == {"tags": ["brave", {"k": 1}], "level": 3}
    with pytest.raises(TypeError):
        e.attributes["level"] = 4
    with pytest.raises(TypeError):
        e.attributes["tags"].append("x")
    with pytest.raises(TypeError):
        e.attributes["tags"][1]["k"] = 2
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen-instance error
        e.name = "Other"


def test_models_copy_pickle_and_json_round_trip():
    e = entity(attributes={"tags": ["a"], "nested": {"k": [1, 2.5]}})
    assert pickle.loads(pickle.dumps(e)) == e
    assert copy.deepcopy(e) == e
    assert Entity.model_validate_json(e.model_dump_json()) == e
    changed = e.model_copy(update={"name": "Mira the Bold"})
    assert changed.name == "Mira the Bold" and e.name == "Mira"


def test_naive_datetimes_are_utc_and_aware_ones_converted():
    naive = datetime(2024, 1, 1, 12, 0)
    e = entity(created_at=naive, updated_at=naive)
    assert e.created_at == datetime(2024, 1, 1, 12, 0, tzinfo=UTC)
    plus2 = timezone(timedelta(hours=2))
    r = Relationship(
        source_id="a", target_id="b", type="knows", valid_at=datetime(2024, 1, 1, 14, tzinfo=plus2)
    )
    assert r.valid_at == datetime(2024, 1, 1, 12, tzinfo=UTC)
    assert r.valid_at.tzinfo == UTC


def test_time_order_checks():
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    with pytest.raises(InvalidInput):
        entity(created_at=t0, updated_at=t0 - timedelta(seconds=1))
    with pytest.raises(InvalidInput):
        Relationship(
            source_id="a", target_id="b", type="k", valid_at=t0, invalid_at=t0 - timedelta(days=1)
        )
    with pytest.raises(InvalidInput):
        Relationship(
            source_id="a", target_id="b", type="k", created_at=t0, expired_at=t0 - timedelta(1)
        )


def test_relationship_validity_windows():
    t0 = datetime(2024, 1, 1, tzinfo=UTC)
    r = Relationship(
        source_id="a", target_id="b", type="k", valid_at=t0, invalid_at=t0 + timedelta(days=10)
    )
    assert r.key == ("a", "b", "k")
    assert not r.is_valid_at(t0 - timedelta(seconds=1))
    assert r.is_valid_at(t0)
    assert r.is_valid_at(t0 + timedelta(days=9))
    assert not r.is_valid_at(t0 + timedelta(days=10))
    assert not r.is_current(t0 + timedelta(days=11))
    future = Relationship(source_id="a", target_id="b", type="k", valid_at=t0 + timedelta(1000))
    assert not future.is_current(t0)
    retracted = Relationship(source_id="a", target_id="b", type="k", created_at=t0, expired_at=t0)
    assert not retracted.is_current(t0 + timedelta(1))
    assert Relationship(source_id="a", target_id="b", type="k").is_current()


def test_turn_defaults_and_roles():
    t = Turn(session_id="s", role=Role.GM_ASSISTANT, content="Roll for initiative.")
    assert t.role == "gm_assistant" and len(t.id) == 32 and t.parent_id is None
    with pytest.raises(InvalidInput):
        Turn(session_id="s", role="not a role", content="x")
    with pytest.raises(InvalidInput):
        Turn(session_id="", role="user", content="x")


def test_unknown_fields_are_rejected():
    with pytest.raises(InvalidInput):
        Entity(id="a", type="npc", name="A", colour="red")


def test_filters_validate():
    with pytest.raises(InvalidInput):
        EntityFilter(limit=0)
    assert EntityFilter(attributes={"a": 1}).attributes == {"a": 1}


def test_estimate_tokens_is_a_quarter_of_the_characters_rounded_up():
    assert [estimate_tokens("x" * n) for n in (0, 1, 4, 5, 8)] == [0, 1, 1, 2, 2]


def test_construct_trusted_matches_model_construct():
    e = entity()
    r = Relationship(source_id="mira", target_id="b", type="knows")
    values = {"entity": e, "relationships": (r,), "related_entities": ()}
    fast = construct_trusted(NPCIdentity, dict(values))
    slow = NPCIdentity.model_construct(**values)
    assert fast == slow
    assert fast.__pydantic_fields_set__ == slow.__pydantic_fields_set__
    assert fast.model_dump() == slow.model_dump()
    assert fast.__pydantic_extra__ == slow.__pydantic_extra__
    assert fast.__pydantic_private__ == slow.__pydantic_private__
