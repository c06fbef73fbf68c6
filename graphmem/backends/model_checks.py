"""What both backends check in a batch of models before anything is written.

A model built with ``model_construct`` skips pydantic's validation, so nothing that
reaches a store is trusted: the names that become labels, relationship types or keys
(entity and relationship types, turn roles, record kinds) and the ids are checked again
here, and a bad batch is ``InvalidInput`` before anything is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import datetime
from typing import TypeVar

from graphmem.core.checks import check_id
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn, check_safe_name
from graphmem.core.store import check_owner

__all__ = ["check_models", "check_records", "dedupe", "empty_interval_error"]

T = TypeVar("T")


def check_models(items: object, model: type[T], what: str) -> list[T]:
    """``items`` as a list of ``model``, each checked again as it will be stored.

    Raises:
        InvalidInput: ``items`` is one model, text or a mapping rather than a list, an
            item is not a ``model``, or a name or id in it cannot be stored.
    """
    if isinstance(items, (model, str, Mapping)) or not isinstance(items, Iterable):  # noqa: UP038
        raise InvalidInput(f"{what} takes a list of {model.__name__}; wrap one in [...]")
    out = list(items)
    for index, item in enumerate(out):
        if not isinstance(item, model):
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}, not a {model.__name__}",
                index=index,
            )
        where = f"{what}[{index}]"
        if isinstance(item, Entity):
            check_safe_name(item.type, f"{where} type")
            check_id(item.id, f"{where} id")
        elif isinstance(item, Relationship):
            # The type becomes a relationship type on Neo4j: check it here, always.
            check_safe_name(item.type, f"{where} type")
            check_id(item.source_id, f"{where} source_id")
            check_id(item.target_id, f"{where} target_id")
        elif isinstance(item, Turn):
            check_safe_name(item.role, f"{where} role")
        elif isinstance(item, Record):
            check_safe_name(item.kind, f"{where}.kind")
            if item.owner is not None:
                check_owner(item.owner)
            if item.blob is not None and not isinstance(item.blob, bytes):
                raise InvalidInput(f"{where}.blob must be bytes", index=index)
        elif isinstance(item, Chunk):
            check_id(item.id, f"{where} id")
    return out


def check_records(items: object, kind: str | None, what: str) -> list[Record]:
    """Records of a batch (:func:`check_models`), each of ``kind`` when one is given."""
    checked = check_models(items, Record, what)
    if kind is not None:
        for index, record in enumerate(checked):
            if record.kind != kind:
                raise InvalidInput(
                    f"{what}[{index}] is of kind {record.kind!r}, not {kind!r}; put records "
                    "of one kind per call. Nothing was written.",
                    index=index,
                )
    return checked


def dedupe(items: Sequence[T], key: Callable[[T], object]) -> list[T]:
    """One item per key: the last item with a key wins, at the position of the first.

    >>> dedupe(["a1", "b1", "a2"], lambda s: s[0])
    ['a2', 'b1']
    """
    latest: dict[object, T] = {}
    for item in items:
        latest[key(item)] = item
    return list(latest.values())


def empty_interval_error(
    tenant: str, key: tuple[str, str, str], at: datetime, start: datetime, dated: bool
) -> InvalidInput:
    """The error refusing an invalidation at ``at`` that would leave the fact no validity.

    A fact holds from its ``valid_at`` (``dated``) or, without one, from when the memory
    learned it (``created_at``) until its ``invalid_at``; ending it at or before that start
    would leave it an empty interval, holding at no world time.
    """
    source_id, target_id, rel_type = key
    since = "valid_at" if dated else "created_at (it has no valid_at)"
    return InvalidInput(
        f"cannot invalidate {source_id} -{rel_type}-> {target_id} at {at.isoformat()}: the "
        f"fact holds from its {since} {start.isoformat()}, so it would never hold; give a "
        "later `at`, or delete the fact if it never held",
        tenant=tenant,
        source_id=source_id,
        target_id=target_id,
        type=rel_type,
        at=at.isoformat(),
        holds_from=start.isoformat(),
    )


def check_attribute_names(remove_attributes: object) -> list[str]:
    """``remove_attributes`` of ``update_entity``: attribute names (one name alone too)."""
    if isinstance(remove_attributes, str):  # one key
        return [remove_attributes]
    if not isinstance(remove_attributes, Sequence) or not all(
        isinstance(key, str) for key in remove_attributes
    ):
        raise InvalidInput("remove_attributes takes attribute names (strings)")
    return list(remove_attributes)
