"""The ground of the models: their shared configuration, field types, helpers and enums.

``_Model`` turns pydantic's ``ValidationError`` into :class:`graphmem.core.errors.InvalidInput`;
the annotated field types (``Identifier``, ``SafeName``, ``Timestamp``, ``Attributes``...)
carry the checks of :mod:`graphmem.core.checks`; ``FrozenDict`` / ``FrozenList`` are the
read-only maps and lists attribute values come back as.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, Literal, NoReturn, Self, TypeVar

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    PlainSerializer,
    Strict,
    ValidationError,
    WithJsonSchema,
    model_validator,
)

from graphmem.core.checks import (
    MAX_ID_LENGTH,
    MAX_NAME_LENGTH,
    as_utc,
    check_identifier,
    check_json,
    check_safe_name,
    text_problem,
)
from graphmem.core.errors import InvalidInput

WELL_KNOWN_ATTRIBUTES: tuple[str, ...] = (
    "occupation",
    "appearance",
    "speaking_style",
    "personality",
    "alignment",
)
"""Entity attribute keys with a meaning graphmem knows; prompts render them first, in this order."""

_CONTROL_CHARS = re.compile(r"[\x00-\x1f\x7f]")


def utcnow() -> datetime:
    """Return the current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def new_id() -> str:
    """Return a fresh random id (32 hex characters)."""
    return uuid.uuid4().hex


def estimate_tokens(text: str) -> int:
    """Estimate the LLM tokens in ``text`` without a tokenizer: one per four characters.

    This is the usual rule of thumb for English with BPE tokenizers; it is deterministic
    and the same on every backend, which matters more here than exactness.

    >>> estimate_tokens("")
    0
    >>> estimate_tokens("The smith hates the miller.")
    7
    """
    return (len(text) + 3) // 4


# --------------------------------------------------------------------------- helpers


class FrozenDict(dict[str, Any]):
    """A read-only dict: equal to a plain dict with the same items, but not mutable."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError(
            "graphmem values are read-only; use Memory.update_entity or model_copy(update=...)"
        )

    __setitem__ = __delitem__ = _readonly
    clear = pop = popitem = setdefault = update = _readonly
    __ior__ = _readonly

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))

    def __copy__(self) -> FrozenDict:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenDict:
        return self


class FrozenList(list[Any]):
    """A read-only list: equal to a plain list with the same items, but not mutable."""

    __slots__ = ()

    def _readonly(self, *args: Any, **kwargs: Any) -> NoReturn:
        raise TypeError("graphmem values are read-only; build a new value instead")

    __setitem__ = __delitem__ = __iadd__ = __imul__ = _readonly
    append = extend = insert = pop = remove = clear = sort = reverse = _readonly

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))

    def __copy__(self) -> FrozenList:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> FrozenList:
        return self


def _check_attributes(value: dict[str, Any]) -> FrozenDict:
    frozen = check_json(value, "attributes", mapping=FrozenDict, sequence=FrozenList)
    assert isinstance(frozen, FrozenDict)
    return frozen


def _check_identifier(value: str) -> str:
    return check_identifier(value, "")


def _check_safe(value: str) -> str:
    return check_safe_name(value, "")


def _check_text(value: str) -> str:
    if not value.strip():
        raise ValueError("must not be empty")
    return value


def _check_name_length(value: str | None) -> str | None:
    if value is not None and len(value) > MAX_NAME_LENGTH:
        raise ValueError(f"is {len(value)} characters long; a name is at most {MAX_NAME_LENGTH}")
    return value


Name = Annotated[
    str,
    AfterValidator(_check_text),
    AfterValidator(_check_name_length),
    WithJsonSchema(
        {"type": "string", "minLength": 1, "maxLength": MAX_NAME_LENGTH, "pattern": "\\S"}
    ),
]
"""A non-blank text of at most :data:`~graphmem.core.checks.MAX_NAME_LENGTH` characters."""
_TEXT_TYPES: dict[type, frozenset[str]] = {}


def _text_fields(model: type[BaseModel]) -> frozenset[str]:
    """The fields of ``model`` that take text and never bytes (all but the blobs)."""
    found = _TEXT_TYPES.get(model)
    if found is None:
        found = _TEXT_TYPES[model] = frozenset(
            name
            for name, info in model.model_fields.items()
            if "bytes" not in repr(info.annotation) and "str" in repr(info.annotation)
        )
    return found


def _as_utc(value: datetime) -> datetime:
    # Naive datetimes are taken as UTC; everything is stored in UTC.
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    utc = as_utc(value, "the time")  # InvalidInput where no UTC time exists
    assert utc is not None
    return utc


def _blob_bytes(value: Any) -> Any:
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError) as exc:
            raise ValueError("binary data given as a string must be base64 text") from exc
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    return value


def _blob_text(value: bytes) -> str:
    return base64.b64encode(value).decode("ascii")


_NOT_CONTROL = "[^\\u0000-\\u001f\\u007f]"
Identifier = Annotated[
    str,
    AfterValidator(_check_identifier),
    # What check_identifier enforces, for schema readers (the OpenAPI document).
    WithJsonSchema(
        {
            "type": "string",
            "minLength": 1,
            "maxLength": MAX_ID_LENGTH,
            "pattern": f"^{_NOT_CONTROL}*[^\\s\\u0000-\\u001f\\u007f]{_NOT_CONTROL}*$",
        }
    ),
]
Blob = Annotated[bytes, BeforeValidator(_blob_bytes), PlainSerializer(_blob_text, when_used="json")]
"""Binary data: bytes in Python, base64 text in JSON (a string given is read as base64)."""
SafeName = Annotated[
    str,
    AfterValidator(_check_safe),
    WithJsonSchema({"type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]{0,63}$"}),
]
Timestamp = Annotated[datetime, AfterValidator(_as_utc)]
Attributes = Annotated[
    dict[str, Any],
    AfterValidator(_check_attributes),
    # Keys are non-empty at every depth (check_json); the schema states it for the top one.
    WithJsonSchema(
        {"type": "object", "additionalProperties": True, "propertyNames": {"minLength": 1}}
    ),
]
Limit = Annotated[int, Strict(), Field(gt=0)]
StrictBool = Annotated[bool, Strict()]
"""``true`` or ``false`` only: never ``0``, ``1`` or ``"yes"``."""
"""A positive ``int``: never a ``bool`` (``True`` is not 1 here), a float or a numeric string."""


def _invalid(model: str, exc: ValidationError) -> InvalidInput:
    # A validator's own message, without pydantic's "Value error, " in front of it.
    raw = exc.errors()
    errors = [{**err, "msg": str(err["msg"]).removeprefix("Value error, ")} for err in raw]
    problems = "; ".join(
        f"{'.'.join(str(p) for p in err['loc']) or model}: {fixed['msg']}"
        for err, fixed in zip(raw, errors, strict=True)
    )
    return InvalidInput(f"invalid {model}: {problems}", model=model, errors=errors)


class _Model(BaseModel):
    """Shared configuration; turns pydantic's ValidationError into InvalidInput."""

    model_config = ConfigDict(
        frozen=True,
        extra="forbid",
        validate_assignment=True,
        str_strip_whitespace=False,
        arbitrary_types_allowed=False,
        # Build validators on first use, not at import: keeps `import graphmem` fast.
        defer_build=True,
        # In JSON Schema, a field with a default is optional to send but always present
        # in what graphmem returns: typed clients (the HTTP API's) get both right.
        json_schema_serialization_defaults_required=True,
    )

    def __init__(self, /, **data: Any) -> None:
        try:
            super().__init__(**data)
        except ValidationError as exc:
            raise _invalid(type(self).__name__, exc) from exc

    @model_validator(mode="before")
    @classmethod
    def _no_bytes_for_text(cls, data: Any) -> Any:
        # pydantic reads bytes as UTF-8 text in a str field: a caller's bytes would be
        # stored as text without a word. Text is str; bytes belong in a Blob.
        if isinstance(data, dict):
            for name, value in data.items():
                if isinstance(value, bytes | bytearray | memoryview) and name in _text_fields(cls):
                    raise ValueError(
                        f"{name} must be a str, got {type(value).__name__}: decode it first "
                        "(binary data belongs in a record's blob)"
                    )
        return data

    @model_validator(mode="after")
    def _valid_texts(self) -> Self:
        # Every text field, whatever its own rules: valid UTF-8 (no lone surrogate) of at
        # most MAX_TEXT_LENGTH characters (graphmem.core.checks), so no backend ever meets one
        # it cannot encode. Nested models and ids check their own.
        for name, value in self.__dict__.items():
            if type(value) is str and (len(value) > 1000 or not value.isascii()):
                problem = text_problem(value)
                if problem is not None:
                    raise ValueError(f"{name} {problem}")
        return self

    @classmethod
    def model_validate(cls, obj: Any, *args: Any, **kwargs: Any) -> Self:
        """Validate ``obj`` into this model; bad data raises ``InvalidInput``."""
        try:
            return super().model_validate(obj, *args, **kwargs)
        except ValidationError as exc:
            raise _invalid(cls.__name__, exc) from exc

    @classmethod
    def model_validate_json(
        cls, json_data: str | bytes | bytearray, *args: Any, **kwargs: Any
    ) -> Self:
        """Validate JSON text into this model; bad data raises ``InvalidInput``."""
        try:
            return super().model_validate_json(json_data, *args, **kwargs)
        except ValidationError as exc:
            raise _invalid(cls.__name__, exc) from exc


_M = TypeVar("_M", bound=BaseModel)


def construct_trusted(
    cls: type[_M], values: dict[str, Any], fields_set: set[str] | None = None
) -> _M:
    """Build ``cls`` from values that are already valid, without validation or defaults.

    For backends returning data they validated on write: it does what pydantic's
    ``model_construct`` does for a model without private attributes or post-init, at a
    fraction of the cost (the identity snapshot hot path). ``values`` must hold every
    field. A unit test checks it equals ``model_construct``.

    ``fields_set``: the set to use as the model's set of fields (``set(values)`` if not
    given). A caller building many frozen models of one class may pass one set for all of
    them (a set of nine names costs 728 bytes); pydantic copies it on ``model_copy``.
    """
    obj = cls.__new__(cls)
    object.__setattr__(obj, "__dict__", values)
    object.__setattr__(
        obj, "__pydantic_fields_set__", set(values) if fields_set is None else fields_set
    )
    object.__setattr__(obj, "__pydantic_extra__", None)
    object.__setattr__(obj, "__pydantic_private__", None)
    return obj


# --------------------------------------------------------------------------- enums


class EntityType(StrEnum):
    """The entity types graphmem knows; any other safe name is allowed too."""

    NPC = "npc"
    PLAYER = "player"
    LOCATION = "location"
    ITEM = "item"
    FACTION = "faction"
    EVENT = "event"
    QUEST = "quest"
    CONCEPT = "concept"


class ProvenanceSource(StrEnum):
    """Where a fact came from; any other safe name is allowed too."""

    STATED = "stated"
    INFERRED = "inferred"
    IMPORTED = "imported"
    OBSERVED = "observed"


class Role(StrEnum):
    """Roles of conversation turns; any other safe name is allowed too."""

    USER = "user"
    ASSISTANT = "assistant"
    SYSTEM = "system"
    TOOL = "tool"
    PLAYER = "player"
    GM = "gm"
    GM_ASSISTANT = "gm_assistant"
    NPC = "npc"


SPEAKER_ROLES: tuple[Role, ...] = (Role.PLAYER, Role.GM, Role.GM_ASSISTANT)
"""The roles of a game session log: the players, the game master and the GM's assistant."""

Direction = Literal["out", "in", "both"]

NodeKind = Literal["entity", "turn", "chunk"]
"""The kinds of node that carry text and embeddings, and that retrieval searches."""

NODE_KINDS: tuple[NodeKind, ...] = ("entity", "turn", "chunk")

VALUE_ENTITY_TYPE = "value"
"""The type of the entity a governed fact makes for a value that names no entity (see
:mod:`graphmem.policy.fact_graph`): a value, not a name to find in text."""
