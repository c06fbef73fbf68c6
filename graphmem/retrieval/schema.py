"""What a tenant's types mean: descriptions a user attaches to relationship and entity types.

Graph question answering (:mod:`graphmem.retrieval.graphqa`) matches a question's words
against the relationship types the store holds: their names, and the descriptions kept
here. A name such as ``written_by`` says little about "who wrote ..." or "the screenwriter
of ..."; a description ("the writer or screenwriter of the film") says more, in the user's
own words. Entity types may be described too ("npc": "a character: a person or a
creature"), so that "who ..." can be told from "where ...".

Descriptions are kept per tenant as records (kind :data:`RELATIONSHIP_TYPE_RECORD` or
:data:`ENTITY_TYPE_RECORD`, id = the type name, ``data["description"]``), beside the
graph in the same store, so they travel with ``dump`` / ``load`` and export / import, and
every backend keeps them the same way. A type may be described before any fact has it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Literal

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Record, check_safe_name
from graphmem.core.store import GraphStore, RelationshipPattern, RoleCooccurrence

__all__ = [
    "ENTITY_TYPE_RECORD",
    "MAX_DESCRIPTION_LENGTH",
    "RELATIONSHIP_TYPE_RECORD",
    "GraphSchema",
    "TypeKind",
    "describe_type",
    "read_descriptions",
]

RELATIONSHIP_TYPE_RECORD = "relationship_type"
"""The record kind holding relationship type descriptions."""
ENTITY_TYPE_RECORD = "entity_type"
"""The record kind holding entity type descriptions."""
MAX_DESCRIPTION_LENGTH = 2000
"""The longest description accepted, in characters."""

TypeKind = Literal["relationship", "entity"]
_RECORD_KIND: dict[str, str] = {
    "relationship": RELATIONSHIP_TYPE_RECORD,
    "entity": ENTITY_TYPE_RECORD,
}


@dataclass(frozen=True)
class GraphSchema:
    """A tenant's vocabulary: the shapes of its facts, and what its types mean.

    Attributes:
        patterns: Each (source type, relationship type, target type) of the current facts,
            with its count (:meth:`graphmem.GraphStore.relationship_patterns`).
        cooccurrence: For every two roles (a relationship type and a direction) some
            entity has both of, how many entities do
            (:meth:`graphmem.GraphStore.relationship_cooccurrence`).
        relationship_types: Description of each described relationship type.
        entity_types: Description of each described entity type.
    """

    patterns: tuple[RelationshipPattern, ...] = ()
    cooccurrence: tuple[RoleCooccurrence, ...] = ()
    relationship_types: Mapping[str, str] = field(default_factory=dict)
    entity_types: Mapping[str, str] = field(default_factory=dict)


def _kind(kind: str) -> str:
    record_kind = _RECORD_KIND.get(kind)
    if record_kind is None:
        raise InvalidInput(f"kind must be 'relationship' or 'entity', got {kind!r}", kind=kind)
    return record_kind


def describe_type(
    store: GraphStore, tenant: str, kind: TypeKind, name: str, description: str | None
) -> None:
    """Set (or with ``None`` / blank, remove) the description of a type of the tenant.

    Raises:
        InvalidInput: ``kind`` is neither ``relationship`` nor ``entity``, ``name`` is not a
            safe name, or ``description`` is not a string or longer than
            :data:`MAX_DESCRIPTION_LENGTH` characters. Nothing is written.
    """
    record_kind = _kind(kind)
    check_safe_name(name, f"{kind} type")
    if description is not None and not isinstance(description, str):
        raise InvalidInput(
            f"a type description must be a string (or None to remove it), "
            f"got {type(description).__name__}"
        )
    text = " ".join((description or "").split())
    if len(text) > MAX_DESCRIPTION_LENGTH:
        raise InvalidInput(
            f"the description of {name!r} is {len(text)} characters long; "
            f"at most {MAX_DESCRIPTION_LENGTH}",
            type=name,
        )
    if not text:
        store.delete_records(tenant, record_kind, [name])
        return
    store.put_records(
        tenant, record_kind, [Record(id=name, kind=record_kind, data={"description": text})]
    )


def read_descriptions(store: GraphStore, tenant: str, kind: TypeKind) -> dict[str, str]:
    """The descriptions of the tenant's types of one kind, by type name (one store call)."""
    found: dict[str, str] = {}
    for record in store.find_records(tenant, _kind(kind), newest_first=False):
        text = record.data.get("description")
        if isinstance(text, str) and text:
            found[record.id] = text
    return found
