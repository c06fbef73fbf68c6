"""Models to and from the JSON bodies a ``file://`` store keeps, with their checksums.

A body is the model's own JSON (``model_dump_json``), so a field added to a model later is
stored without any change to the tables, and an older body (without the field) is read
back with the field's default. Every body is stored with the CRC-32 of its UTF-8 bytes.

Reading is on the hot path of a reopened store (an entity or a relationship is decoded
the first time it is used), so entities and relationships whose body has exactly the
fields this module knows are built without pydantic's validation: the data was
validated when it was written and its checksum has just been verified. Any other body
(a model that gained or lost a field, an old format) goes through full validation.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import datetime
from sys import intern
from typing import Any, TypeVar
from zlib import crc32

from pydantic import BaseModel
from pydantic_core import PydanticSerializationError, from_json

from graphmem.core.models import (
    Entity,
    FrozenDict,
    FrozenList,
    Provenance,
    Relationship,
    construct_trusted,
)

__all__ = [
    "Decoder",
    "decode",
    "decode_entity",
    "decode_relationship",
    "encode",
    "encode_all",
    "key_crc",
]

_M = TypeVar("_M", bound=BaseModel)
_ENTITY_FIELDS = frozenset({"id", "type", "name", "attributes", "created_at", "updated_at"})
_RELATIONSHIP_FIELDS = frozenset(
    {
        "source_id",
        "target_id",
        "type",
        "attributes",
        "provenance",
        "valid_at",
        "invalid_at",
        "created_at",
        "expired_at",
    }
)
_PROVENANCE_FIELDS = frozenset({"session_id", "confidence", "source", "confirmed", "evidence"})
# The fast paths are only taken while the models have exactly the fields they know.
_FAST_ENTITY = frozenset(Entity.model_fields) == _ENTITY_FIELDS
_FAST_RELATIONSHIP = (
    frozenset(Relationship.model_fields) == _RELATIONSHIP_FIELDS
    and frozenset(Provenance.model_fields) == _PROVENANCE_FIELDS
)
_iso = datetime.fromisoformat


def key_crc(*parts: object) -> int:
    """The CRC-32 of key columns (joined by a unit separator, which ids cannot contain)."""
    return crc32("\x1f".join(map(str, parts)).encode())


def encode_all(models: Sequence[BaseModel]) -> list[tuple[str, int]]:
    """:func:`encode` of each model (one call for a batch: the hot path of bulk ingest)."""
    if not models:
        return []
    to_json = models[0].__pydantic_serializer__.to_json
    kind = type(models[0])
    try:
        raws = [to_json(m, warnings=False) for m in models if type(m) is kind]
    except PydanticSerializationError:
        raws = []
    if len(raws) != len(models):
        return [encode(m) for m in models]
    return [(raw.decode(), crc32(raw)) for raw in raws]


def encode(model: BaseModel) -> tuple[str, int]:
    """A model's JSON body and the CRC-32 of its UTF-8 bytes.

    Text, not bytes: SQLite binds a ``str`` faster than it casts ``bytes`` to text.
    """
    try:
        # warnings=False: the model was validated, so there is nothing to warn about,
        # and the type checks of the warnings cost a third of the serialization.
        raw = model.__pydantic_serializer__.to_json(model, warnings=False)
    except PydanticSerializationError:
        # Text with a lone surrogate cannot be UTF-8: store it \\u-escaped instead.
        raw = json.dumps(model.model_dump(mode="json"), separators=(",", ":")).encode()
    return raw.decode(), crc32(raw)


def decode(model: type[_M], raw: bytes) -> _M:
    """A model from its JSON body, fully validated (``InvalidInput`` if it does not fit)."""
    try:
        return model.model_validate_json(raw)
    except ValueError:
        # Escaped lone surrogates are valid JSON that pydantic's parser refuses.
        return model.model_validate(json.loads(raw))


_EMPTY = FrozenDict()
_ENTITY_SET = set(_ENTITY_FIELDS)
_RELATIONSHIP_SET = set(_RELATIONSHIP_FIELDS)
_PROVENANCE_SET = set(_PROVENANCE_FIELDS)
_SHARED_LIMIT = 1 << 16  # entries of each sharing table before it starts afresh


def _freeze(value: Any) -> Any:
    if type(value) is dict:
        if not value:
            return _EMPTY
        return FrozenDict({key: _freeze(item) for key, item in value.items()})
    if type(value) is list:
        return FrozenList(_freeze(item) for item in value)
    return value


def _parse(raw: bytes, fields: frozenset[str]) -> dict[str, Any] | None:
    try:
        values = from_json(raw, cache_strings="keys")
    except ValueError:
        return None
    if type(values) is not dict or values.keys() != fields:
        return None
    return values


class Decoder:
    """Builds entities and relationships from their bodies, sharing what equal models share.

    A reopened store may decode millions of models, and much of a model is equal to parts
    of others. Models are frozen, so one object serves them all: ids and type names are
    interned (an id is then the graph's own key string), equal timestamps (a batch writes
    one ``created_at``) and equal provenance are one object each, an empty attribute map
    is one ``FrozenDict``, and every model of a class shares one set of field names (see
    :func:`construct_trusted`). That halves the memory a decoded relationship takes and
    the time to decode it.

    Bodies whose fields are not exactly the known ones (a model that gained or lost a
    field, an old format) are validated in full instead.
    """

    __slots__ = ("_provenance", "_times")

    def __init__(self) -> None:
        self._times: dict[str, datetime] = {}
        self._provenance: dict[tuple[Any, ...], Provenance] = {}

    def _time(self, text: str | None) -> datetime | None:
        if text is None:
            return None
        times = self._times
        found = times.get(text)
        if found is None:
            if len(times) >= _SHARED_LIMIT:
                times.clear()
            found = times[text] = _iso(text)
        return found

    def entity(self, raw: bytes) -> Entity:
        """An entity from its body."""
        values = _parse(raw, _ENTITY_FIELDS) if _FAST_ENTITY else None
        if values is None:
            return decode(Entity, raw)
        values["id"] = intern(values["id"])
        values["type"] = intern(values["type"])
        values["attributes"] = _freeze(values["attributes"])
        values["created_at"] = self._time(values["created_at"])
        values["updated_at"] = self._time(values["updated_at"])
        return construct_trusted(Entity, values, _ENTITY_SET)

    def relationship(self, raw: bytes) -> Relationship:
        """A relationship from its body."""
        values = _parse(raw, _RELATIONSHIP_FIELDS) if _FAST_RELATIONSHIP else None
        provenance = values["provenance"] if values is not None else None
        if (
            values is None
            or type(provenance) is not dict
            or provenance.keys() != _PROVENANCE_FIELDS
            or type(provenance["evidence"]) is not list
        ):
            return decode(Relationship, raw)
        key = (
            provenance["session_id"],
            float(provenance["confidence"]),
            provenance["source"],
            provenance["confirmed"],
            *provenance["evidence"],
        )
        shared = self._provenance.get(key)
        if shared is None:
            if len(self._provenance) >= _SHARED_LIMIT:
                self._provenance.clear()
            provenance["confidence"] = key[1]
            provenance["evidence"] = key[4:]
            shared = self._provenance[key] = construct_trusted(
                Provenance, provenance, _PROVENANCE_SET
            )
        time = self._time
        values["source_id"] = intern(values["source_id"])
        values["target_id"] = intern(values["target_id"])
        values["type"] = intern(values["type"])
        values["provenance"] = shared
        values["attributes"] = _freeze(values["attributes"])
        values["valid_at"] = time(values["valid_at"])
        values["invalid_at"] = time(values["invalid_at"])
        values["created_at"] = time(values["created_at"])
        values["expired_at"] = time(values["expired_at"])
        return construct_trusted(Relationship, values, _RELATIONSHIP_SET)


_decoder = Decoder()


def decode_entity(raw: bytes) -> Entity:
    """An entity from its body (trusted fast path when its fields are the known ones)."""
    return _decoder.entity(raw)


def decode_relationship(raw: bytes) -> Relationship:
    """A relationship from its body (trusted fast path when its fields are the known ones)."""
    return _decoder.relationship(raw)
