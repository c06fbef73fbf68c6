"""The entity graph: entities, facts (relationships with provenance), records, chunks.

Also the texts entities and chunks are searched by, the subgraphs reads return and the
filters of entity and relationship reads.
"""

from __future__ import annotations

from datetime import datetime
from enum import StrEnum
from typing import Annotated, Any, Self

from pydantic import AfterValidator, Field, field_validator, model_validator

from graphmem.core.models.base import (
    Attributes,
    Blob,
    Direction,
    FrozenDict,
    Identifier,
    Limit,
    Name,
    ProvenanceSource,
    SafeName,
    StrictBool,
    Timestamp,
    _check_text,
    _Model,
    new_id,
    utcnow,
)


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
