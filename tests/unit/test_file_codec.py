"""Models to the JSON bodies of a file:// store and back: the fast path equals validation."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from zlib import crc32

import pytest

from graphmem import Entity, InvalidInput, Provenance, Relationship, Turn
from graphmem.backends.networkx.codec import (
    Decoder,
    decode,
    decode_entity,
    decode_relationship,
    encode,
    encode_all,
)
from graphmem.core.models import FrozenDict, FrozenList

T0 = datetime(2025, 3, 4, 5, 6, 7, 890123, tzinfo=UTC)
ENTITIES = [
    Entity(id="a", type="npc", name="A"),
    Entity(
        id="b\u00e9",
        type="location",
        name="B \u4e16 \U0001f409",
        attributes={"n": 1, "f": 1.5, "t": True, "z": None, "l": [1, [2, {"x": "y"}]]},
        created_at=T0,
        updated_at=T0 + timedelta(days=1),
    ),
]
RELATIONSHIPS = [
    Relationship(source_id="a", target_id="b", type="knows"),
    Relationship(
        source_id="a",
        target_id="a",
        type="hates",
        attributes={"since": [1, 2], "why": {"deep": None}},
        provenance=Provenance(
            session_id="s", confidence=0.25, source="inferred", confirmed=True, evidence=("t1",)
        ),
        valid_at=T0,
        invalid_at=T0 + timedelta(hours=1),
        created_at=T0,
        expired_at=T0 + timedelta(hours=2),
    ),
    Relationship(source_id="x", target_id="y", type="owns", provenance=Provenance(confidence=1)),
]


def _same(fast: object, slow: object) -> None:
    assert fast == slow
    assert fast.__dict__ == slow.__dict__  # type: ignore[attr-defined]
    assert {k: type(v) for k, v in fast.__dict__.items()} == {  # type: ignore[attr-defined]
        k: type(v)
        for k, v in slow.__dict__.items()  # type: ignore[attr-defined]
    }
    assert fast.model_fields_set == slow.model_fields_set  # type: ignore[attr-defined]


@pytest.mark.parametrize("entity", ENTITIES, ids=lambda e: e.id)
def test_entities_read_back_as_validation_would_build_them(entity: Entity) -> None:
    body, check = encode(entity)
    assert crc32(body.encode()) == check
    _same(decode_entity(body.encode()), decode(Entity, body.encode()))
    assert decode_entity(body.encode()) == entity


def test_nested_attributes_come_back_read_only() -> None:
    attributes = decode_entity(encode(ENTITIES[1])[0].encode()).attributes
    assert type(attributes) is FrozenDict
    assert type(attributes["l"]) is FrozenList
    assert type(attributes["l"][1][1]) is FrozenDict


@pytest.mark.parametrize("rel", RELATIONSHIPS, ids=lambda r: r.type)
def test_relationships_read_back_as_validation_would_build_them(rel: Relationship) -> None:
    body, _check = encode(rel)
    fast = decode_relationship(body.encode())
    _same(fast, decode(Relationship, body.encode()))
    _same(fast.provenance, decode(Relationship, body.encode()).provenance)
    assert fast == rel


def test_one_decoder_shares_what_equal_models_share_and_copies_stay_apart() -> None:
    decoder = Decoder()
    proof = Provenance(confidence=0.5, evidence=("t1",))
    first, second = (
        Relationship(source_id=s, target_id="b", type="knows", provenance=proof, created_at=T0)
        for s in ("a", "c")
    )
    a, b = (decoder.relationship(encode(r)[0].encode()) for r in (first, second))
    assert (a, b) == (first, second)
    assert a.provenance is b.provenance and a.created_at is b.created_at
    assert a.type is b.type and a.attributes is b.attributes  # interned; the one empty map
    changed = a.model_copy(update={"attributes": {"since": 1}})
    assert changed.model_fields_set is not a.model_fields_set
    assert b == second and "since" not in a.attributes
    left, right = (decoder.entity(encode(e)[0].encode()) for e in ENTITIES[:2])
    assert (left, right) == tuple(ENTITIES[:2])


def test_a_batch_encodes_as_each_model_does() -> None:
    assert encode_all(RELATIONSHIPS) == [encode(r) for r in RELATIONSHIPS]
    assert encode_all(ENTITIES) == [encode(e) for e in ENTITIES]  # one needs the \\u escape
    assert encode_all([]) == []


def test_an_older_body_reads_with_the_defaults_of_later_fields() -> None:
    body = json.loads(encode(RELATIONSHIPS[1])[0])
    del body["attributes"], body["expired_at"]
    rel = decode_relationship(json.dumps(body).encode())
    assert rel.attributes == {} and rel.expired_at is None
    turn = json.loads(encode(Turn(session_id="s", role="npc", content="hi"))[0])
    del turn["summary"]
    assert decode(Turn, json.dumps(turn).encode()).summary is None


def test_a_body_with_a_field_this_version_does_not_know_is_refused() -> None:
    body = json.loads(encode(ENTITIES[0])[0])
    body["from_the_future"] = 1
    with pytest.raises(InvalidInput):
        decode_entity(json.dumps(body).encode())
