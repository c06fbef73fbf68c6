"""The data graphmem stores: pydantic models, data only, no I/O.

Models are immutable values (``frozen=True``): a store may hand the same instance to
many readers without copying, which is what keeps the embedded backend's reads as fast
as a raw graph walk. To change something, ask the store (``update_entity``) or build a
new value with ``model_copy(update=...)``. Attribute maps come back as read-only
``FrozenDict`` / ``FrozenList`` values, which compare equal to plain dicts and lists.

Bad data raises :class:`graphmem.core.errors.InvalidInput` (a ``ValueError``) that lists every
field at fault, whether the model is built directly or by a store.
"""

from __future__ import annotations

import base64
import binascii
import re
import uuid
from datetime import UTC, datetime
from enum import StrEnum
from typing import Annotated, Any, ClassVar, Literal, NoReturn, Self, TypeVar

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
    field_validator,
    model_validator,
)

from graphmem.core.checks import (
    MAX_ID_LENGTH,
    MAX_NAME_LENGTH,
    SAFE_NAME_PATTERN,
    as_utc,
    check_identifier,
    check_json,
    check_safe_name,
    text_problem,
)
from graphmem.core.errors import InvalidInput

__all__ = [
    "VALUE_ENTITY_TYPE",
    "NODE_KINDS",
    "Artifact",
    "ArtifactRef",
    "Branch",
    "SAFE_NAME_PATTERN",
    "SPEAKER_ROLES",
    "WELL_KNOWN_ATTRIBUTES",
    "Direction",
    "Chunk",
    "ContextResult",
    "Document",
    "Entity",
    "EntityFilter",
    "EntityType",
    "FrozenDict",
    "FrozenList",
    "NPCIdentity",
    "Provenance",
    "ProvenanceSource",
    "Record",
    "NodeKind",
    "Relationship",
    "RelationshipFilter",
    "Role",
    "SessionInfo",
    "Subgraph",
    "ToolCall",
    "Trajectory",
    "Turn",
    "TurnFilter",
    "check_safe_name",
    "chunk_search_text",
    "entity_aliases",
    "entity_text",
    "estimate_tokens",
    "new_id",
    "utcnow",
]

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


# --------------------------------------------------------------------------- graph data


class Entity(_Model):
    """A thing the memory knows about: an NPC, a place, an item, a faction, ...

    >>> Entity(id="mira", type="npc", name="Mira", attributes={"occupation": "smith"}).name
    'Mira'
    """

    id: Identifier
    type: SafeName
    name: Name
    attributes: Attributes = Field(default_factory=FrozenDict)
    created_at: Timestamp = Field(default_factory=utcnow)
    updated_at: Timestamp = Field(default_factory=utcnow)

    @model_validator(mode="after")
    def _times_in_order(self) -> Self:
        if self.updated_at < self.created_at:
            raise ValueError("updated_at is before created_at")
        return self


def entity_aliases(entity: Entity) -> list[str]:
    """The other names of an entity: ``attributes["aliases"]`` (a string or a list of them)."""
    raw = entity.attributes.get("aliases")
    if isinstance(raw, str):
        return [raw] if raw.strip() else []
    if isinstance(raw, list):
        return [a for a in raw if isinstance(a, str) and a.strip()]
    return []


def entity_text(entity: Entity) -> str:
    """The text an entity is searched and embedded by: name, aliases, description.

    >>> entity_text(Entity(id="m", type="npc", name="Mira", attributes={"aliases": ["Smith"]}))
    'Mira (Smith)'
    """
    names = entity_aliases(entity)
    text = f"{entity.name} ({', '.join(names)})" if names else entity.name
    description = entity.attributes.get("description")
    if isinstance(description, str) and description.strip():
        text = f"{text}: {description}"
    return text


def chunk_search_text(chunk: Chunk) -> str:
    """The text a chunk is searched by: its title attribute (if a string) and its text.

    >>> chunk = Chunk(id="c", text="Halden runs it.", attributes={"title": "Mill"})
    >>> print(chunk_search_text(chunk))
    Mill
    Halden runs it.
    """
    title = chunk.attributes.get("title")
    return f"{title}\n{chunk.text}" if isinstance(title, str) and title else chunk.text


class Provenance(_Model):
    """Where a fact came from and how much to believe it."""

    session_id: Identifier | None = None
    confidence: float = Field(default=1.0, ge=0.0, le=1.0, allow_inf_nan=False)
    source: SafeName = ProvenanceSource.STATED.value
    confirmed: StrictBool = False
    evidence: tuple[Identifier, ...] = ()

    @field_validator("source", mode="before")
    @classmethod
    def _source_value(cls, value: Any) -> Any:
        return value.value if isinstance(value, StrEnum) else value


class Relationship(_Model):
    """A typed, directed fact between two entities, with provenance and bitemporal validity.

    ``valid_at`` / ``invalid_at`` say when the fact held in the world; ``created_at`` /
    ``expired_at`` say when the memory learned it and when it stopped believing it. A
    contradicted fact is invalidated (both ends set), never deleted, so point-in-time reads
    (``as_of``) still find it. A relationship is keyed by ``(source_id, target_id, type)``.
    """

    source_id: Identifier
    target_id: Identifier
    type: SafeName
    attributes: Attributes = Field(default_factory=FrozenDict)
    provenance: Provenance = Field(default_factory=Provenance)
    valid_at: Timestamp | None = None
    invalid_at: Timestamp | None = None
    created_at: Timestamp = Field(default_factory=utcnow)
    expired_at: Timestamp | None = None

    @model_validator(mode="after")
    def _times_in_order(self) -> Self:
        if self.valid_at and self.invalid_at and self.invalid_at < self.valid_at:
            raise ValueError("invalid_at is before valid_at")
        if self.expired_at and self.expired_at < self.created_at:
            raise ValueError("expired_at is before created_at")
        return self

    @property
    def key(self) -> tuple[str, str, str]:
        """The identity of a relationship: ``(source_id, target_id, type)``."""
        return (self.source_id, self.target_id, self.type)

    def is_valid_at(self, when: datetime) -> bool:
        """Whether the fact held in the world at ``when`` (valid time, inclusive start).

        A fact without ``valid_at`` holds from when the memory learned it (``created_at``):
        the memory knows nothing of it before, so a fact and the replacement of an
        invalidated one, both stored without ``valid_at``, never both hold at one time.
        """
        start = self.valid_at if self.valid_at is not None else self.created_at
        if start > when:
            return False
        return self.invalid_at is None or when < self.invalid_at

    def is_current(self, now: datetime | None = None) -> bool:
        """Whether the memory believes the fact now: valid now and not expired.

        Unlike :meth:`is_valid_at`, a missing ``valid_at`` means "valid": a fact stored
        is believed at once, whatever clock wrote its ``created_at``.
        """
        now = now or utcnow()
        if self.expired_at is not None and self.expired_at <= now:
            return False
        if self.valid_at is not None and self.valid_at > now:
            return False
        return self.invalid_at is None or now < self.invalid_at

    def held(
        self,
        as_of: datetime | None = None,
        recorded_as_of: datetime | None = None,
        *,
        now: datetime | None = None,
    ) -> bool:
        """Whether the memory says the fact held at world time ``as_of``, as it stood then.

        The two clocks of a fact: ``valid_at`` / ``invalid_at`` (world time: when it held)
        and ``created_at`` / ``expired_at`` (memory time: when it was learned and when the
        memory stopped believing it).

        - Neither given: :meth:`is_current` at ``now``.
        - ``as_of`` only: :meth:`is_valid_at` (whether expired since or not).
        - ``recorded_as_of`` given: what the store held at that memory time. A fact learned
          after it is unknown. A fact expired after it was still believed then, and the end
          its invalidation recorded (``invalid_at``) was not yet known. Without ``as_of``
          the question is "current then": valid at ``recorded_as_of`` and not expired by it.
        """
        if recorded_as_of is None:
            return self.is_current(now) if as_of is None else self.is_valid_at(as_of)
        if self.created_at > recorded_as_of:
            return False
        expired = self.expired_at is not None and self.expired_at <= recorded_as_of
        if as_of is None:
            if expired:
                return False
            as_of = recorded_as_of
        start = self.valid_at if self.valid_at is not None else self.created_at
        if start > as_of:
            return False
        end = self.invalid_at if expired or self.expired_at is None else None
        return end is None or as_of < end


_MAX_LABEL_LENGTH = 200


def _check_label(value: str) -> str:
    value = _check_text(value)
    if len(value) > _MAX_LABEL_LENGTH:
        raise ValueError(f"is {len(value)} characters long; at most {_MAX_LABEL_LENGTH}")
    if _CONTROL_CHARS.search(value):
        raise ValueError("contains control characters")
    return value


Label = Annotated[str, AfterValidator(_check_label)]
"""A short one-line name (a tool name, a media type): 1 to 200 characters, no control ones."""


class ToolCall(_Model):
    """One tool an agent invoked during a turn, as a digest (not the full call).

    >>> ToolCall(name="search_lore", summary="looked up the Drowned Bell").name
    'search_lore'
    """

    name: Label
    summary: str | None = None


class Trajectory(_Model):
    """What an agent did to produce a turn, digested: tools, observations, reasoning.

    Agent runtimes record far more (every call's arguments and raw output); keep here what
    a later reader (a summariser, an LLM's context, a human) should know. The summariser and
    :meth:`graphmem.policy.ConversationMemory.llm_context` use it.

    Attributes:
        tools: The tools invoked, in order.
        observations: A summary of what the agent observed (tool results, retrieved facts).
        reasoning: A summary of its reasoning.
    """

    tools: tuple[ToolCall, ...] = ()
    observations: str | None = None
    reasoning: str | None = None

    @property
    def is_empty(self) -> bool:
        """Whether the digest says nothing (no tools, observations or reasoning)."""
        return not self.tools and not self.observations and not self.reasoning


class Artifact(_Model):
    """Something an agent showed the user with a turn: a file, an image, a table, a snippet.

    Attributes:
        id: The artifact's id in the agent runtime.
        title: What to call it.
        media_type: Its media type (``text/markdown``, ``image/png``, ...).
        uri: Where it lives, when it is not inline.
        content: Inline text content, when small enough to keep.
    """

    id: Identifier
    title: str | None = None
    media_type: Label | None = None
    uri: str | None = None
    content: str | None = None


class ArtifactRef(_Model):
    """A reference to an artifact kept hidden from the user (a scratch file, raw tool output).

    Only a reference is stored, never the content. Hidden artifacts never reach an LLM's
    context or a summary: :class:`graphmem.policy.LLMContext` strips them from its turns.
    """

    id: Identifier
    media_type: Label | None = None
    uri: str | None = None


class Turn(_Model):
    """One conversation entry. ``parent_id`` is the entry before it on its branch.

    ``id`` is graphmem's id for the turn; ``turn_id`` is an optional id of the caller's own
    (a game's message id, say) kept alongside it.

    An agent's turn may also carry a ``trajectory`` (the digest of the tools it invoked,
    what it observed and how it reasoned), the ``artifacts`` it showed the user and
    ``hidden_artifacts``: references to those it kept hidden. All three are optional and
    empty by default.
    """

    id: Identifier = Field(default_factory=new_id)
    parent_id: Identifier | None = None
    session_id: Identifier
    role: SafeName
    speaker: Annotated[str | None, AfterValidator(_check_name_length)] = None
    content: str
    summary: str | None = None
    turn_id: Identifier | None = None
    created_at: Timestamp = Field(default_factory=utcnow)
    trajectory: Trajectory | None = None
    artifacts: tuple[Artifact, ...] = ()
    hidden_artifacts: tuple[ArtifactRef, ...] = ()

    @field_validator("role", mode="before")
    @classmethod
    def _role_value(cls, value: Any) -> Any:
        return value.value if isinstance(value, StrEnum) else value

    @model_validator(mode="after")
    def _artifact_ids_unique(self) -> Self:
        ids = [a.id for a in self.artifacts] + [a.id for a in self.hidden_artifacts]
        if len(set(ids)) != len(ids):
            raise ValueError("artifact ids repeat (shown and hidden artifacts share one id space)")
        return self


class Branch(_Model):
    """One branch of a conversation tree: the path from the root to a leaf.

    Attributes:
        leaf: The newest turn of the branch (a turn without children).
        fork_point: The turn after which this branch goes its own way: the nearest
            earlier turn on it with more than one child; None for a conversation that
            never forked.
        length: How many turns the branch holds, root and leaf included.
        active: Whether the conversation's head lies on this branch (the head is its
            leaf or an earlier turn of it; right after a fork, several branches share it).
    """

    leaf: Turn
    fork_point: Turn | None = None
    length: int = Field(gt=0)
    active: bool = False


class Record(_Model):
    """A generic stored record: a JSON document of some ``kind``, kept beside the graph.

    The policy layer keeps governed facts (kind ``fact``) and their audit trail (kind
    ``audit``) in records; other layers may add kinds of their own. A record is keyed by
    ``(kind, id)`` within a tenant. ``data`` is JSON (the same rules as entity attributes);
    store times in it as ISO 8601 strings.

    ``owner`` is an optional lookup key (whom or what the record belongs to: an NPC for
    its beliefs, a campaign for its recaps): ``find_records(kind, owner=...)`` finds the
    records of one owner through an index on every backend. ``blob`` is an optional
    binary payload (rendered audio, an image), stored as bytes; in JSON (exports, files)
    it is base64 text, and a string given for it is read as base64.

    >>> Record(id="r1", kind="note", data={"text": "The well is dry."}).data["text"]
    'The well is dry.'
    >>> Record(kind="clip", blob=bytes([0, 255])).model_dump(mode="json")["blob"]
    'AP8='
    """

    id: Identifier = Field(default_factory=new_id)
    kind: SafeName
    data: Attributes = Field(default_factory=FrozenDict)
    owner: Identifier | None = None
    blob: Blob | None = None
    created_at: Timestamp = Field(default_factory=utcnow)
    updated_at: Timestamp = Field(default_factory=utcnow)

    @model_validator(mode="after")
    def _times_in_order(self) -> Self:
        if self.updated_at < self.created_at:
            raise ValueError("updated_at is before created_at")
        return self


class Chunk(_Model):
    """A passage of lore or of a document; it ``MENTIONS`` the entities it names.

    >>> Chunk(id="lore-1", text="The Drowned Bell rings at high water.", source="lore.md").source
    'lore.md'
    """

    id: Identifier = Field(default_factory=new_id)
    text: Annotated[str, AfterValidator(_check_text)]
    source: str | None = None
    attributes: Attributes = Field(default_factory=FrozenDict)
    created_at: Timestamp = Field(default_factory=utcnow)


class Document(_Model):
    """A text to ingest with :meth:`graphmem.Memory.add_documents`; it becomes chunks.

    Attributes:
        id: The document id; chunk ids are ``{id}#{n}``. Default: a fresh id.
        text: The text; split into chunks of about ``chunk_tokens`` tokens.
        title: Optional title, kept on each chunk and searched with its text.
        source: Where it came from (file name, URL); kept on each chunk.
        attributes: JSON data kept on each chunk.
        entity_ids: Entities every chunk of the document mentions, besides those the
            entity linker finds in the text (for a document *about* an entity; the
            chunks keep them in ``attributes["about"]``).
    """

    id: Identifier = Field(default_factory=new_id)
    text: Annotated[str, AfterValidator(_check_text)]
    title: str | None = None
    source: str | None = None
    attributes: Attributes = Field(default_factory=FrozenDict)
    entity_ids: tuple[Identifier, ...] = ()


class ContextResult(_Model):
    """One piece of retrieved context, with where it came from.

    Attributes:
        kind: ``chunk``, ``turn``, ``entity`` or ``relationship``.
        source_id: The id of the chunk, turn or entity; for a relationship
            ``"source_id|type|target_id"``.
        content: The text to show a model; for a relationship its sentence
            ("Rosalind Hale works at St. Brigid's Infirmary").
        score: Higher is more relevant (comparable within one result list only).
        anchor_entity_id: The entity this result is tied to: the entity itself, an entity
            the chunk or turn mentions, or the relationship's source; None when none.
        hops: Graph distance from the nearest seed entity (0 for a seed; None when the
            result was not reached through the graph).
        provenance: Where the fact came from: the relationship's provenance, or
            ``Provenance(source="stated", evidence=(id,))`` for chunks and turns.
        created_at: When the item was stored (turns, chunks, relationships).
        signals: The parts of the score (``vector``, ``fulltext``, ``graph``, ...), for
            inspection.
        turn_id: For a turn, the caller's own id of it (``Turn.turn_id``, given when the
            turn was written); ``source_id`` is graphmem's. None for other kinds, or a
            turn written without one.
        valid_at: For a fact, when it began to hold in the world (None: from when it
            was stored, ``created_at``).
        invalid_at: For a fact, when it stopped holding (None: it still holds).
    """

    kind: Literal["chunk", "turn", "entity", "relationship"]
    source_id: str
    content: str
    score: float = Field(allow_inf_nan=False)
    anchor_entity_id: str | None = None
    hops: int | None = None
    provenance: Provenance | None = None
    created_at: Timestamp | None = None
    signals: Attributes = Field(default_factory=FrozenDict)
    turn_id: str | None = None
    valid_at: Timestamp | None = None
    invalid_at: Timestamp | None = None


class SessionInfo(_Model):
    """What the session log knows of one session."""

    session_id: str
    turn_count: int
    first_at: datetime
    last_at: datetime
    head_id: str | None


class Subgraph(_Model):
    """A set of entities and the relationships among them."""

    entities: tuple[Entity, ...] = ()
    relationships: tuple[Relationship, ...] = ()


# --------------------------------------------------------------------------- filters


class EntityFilter(_Model):
    """Which entities to find; every given condition must hold.

    Attributes:
        type: Entity type (exact).
        name: The whole name, case-insensitive (casefolded equality): found through a
            name index, so the cost follows the matches, not the tenant's size.
        name_contains: Case-insensitive substring of the name.
        attributes: Attribute equality, every pair must match.
        limit: At most this many, ordered by id.
    """

    type: SafeName | None = None
    name: str | None = None
    name_contains: str | None = None
    attributes: Attributes = Field(default_factory=FrozenDict)
    limit: Limit | None = None


class RelationshipFilter(_Model):
    """Which relationships of an entity to read.

    Attributes:
        direction: ``out`` (default), ``in`` or ``both``.
        types: Only these relationship types.
        as_of: Facts that held in the world at this time (valid time), including ones
            invalidated since; without it, only facts believed now.
        recorded_as_of: Memory time: the facts as the store held them then (see
            :meth:`Relationship.held`); with ``as_of`` too, the world at ``as_of`` as the
            memory knew it at ``recorded_as_of``.
        include_invalid: Every stored fact, whatever its validity.
        limit: At most this many, ordered by (source_id, target_id, type).
    """

    direction: Direction = "out"
    types: tuple[SafeName, ...] | None = None
    as_of: Timestamp | None = None
    recorded_as_of: Timestamp | None = None
    include_invalid: StrictBool = False
    limit: Limit | None = None


class TurnFilter(_Model):
    """Which turns of the session log to read; every given condition must hold.

    Attributes:
        session_id: One session only.
        speaker: Turns by this speaker (exact).
        role: Turns with this role.
        since: Created at or after this time.
        until: Created before this time.
        text: Every whitespace-separated keyword occurs in the content (case-insensitive).
        limit: At most this many, newest first.
    """

    session_id: Identifier | None = None
    speaker: str | None = None
    role: SafeName | None = None
    since: Timestamp | None = None
    until: Timestamp | None = None
    text: str | None = None
    limit: Limit | None = None

    @field_validator("role", mode="before")
    @classmethod
    def _role_value(cls, value: Any) -> Any:
        return value.value if isinstance(value, StrEnum) else value


# --------------------------------------------------------------------------- identity


class NPCIdentity(_Model):
    """Who an NPC is right now: the entity, its current relationships and their other ends.

    ``relationships`` holds both the NPC's outgoing and incoming current facts;
    ``related_entities`` the entities at their other ends, ordered by id.
    """

    entity: Entity
    relationships: tuple[Relationship, ...] = ()
    related_entities: tuple[Entity, ...] = ()

    _FACT_ORDER: ClassVar[str] = "confirmed first, then higher confidence, then newer"

    def to_prompt(self, max_tokens: int | None = None) -> str:
        """Render the identity as prompt text, within ``max_tokens`` when given.

        The header (name, type, well-known attributes in the order of
        ``WELL_KNOWN_ATTRIBUTES``) comes first, then other attributes, then relationship
        facts, confirmed first, then by confidence, then newest. Over budget, facts are
        dropped from the end of that order: least confident and oldest first, confirmed
        facts last. Tokens are counted with :func:`estimate_tokens`.

        Raises:
            InvalidInput: ``max_tokens`` is not positive.
        """
        from graphmem.core.prompt import render_identity

        if max_tokens is not None and max_tokens <= 0:
            raise InvalidInput(f"max_tokens must be positive, got {max_tokens}")
        return render_identity(self, max_tokens)
