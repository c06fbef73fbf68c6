"""Batches of models from what a caller gives: models, dicts (and strings for some)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, Relationship

__all__ = ["coerce_batch"]


def coerce_batch(
    model: type[Any],
    items: Iterable[Any],
    what: str,
    *,
    from_str: Callable[[str], Any] | None = None,
) -> list[Any]:
    """Models of a batch from models or dicts (and strings, given ``from_str``).

    Raises:
        InvalidInput: A single item where a list is expected, or an item of another type
            or whose fields do not validate (the message names its position).
    """
    if isinstance(items, model | Entity | Relationship | Mapping | str | bytes) or not isinstance(
        items, Iterable
    ):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    accepted = f"a {model.__name__}, dict or str" if from_str else f"a {model.__name__} or a dict"
    out: list[Any] = []
    for index, item in enumerate(items):
        if isinstance(item, model):
            out.append(item)
        elif from_str is not None and isinstance(item, str):
            out.append(from_str(item))
        elif isinstance(item, Mapping):
            try:
                out.append(model.model_validate(dict(item)))
            except InvalidInput as exc:
                raise InvalidInput(f"{what}[{index}]: {exc.message}", index=index) from exc
        else:
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}; give {accepted}", index=index
            )
    return out
