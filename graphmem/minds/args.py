"""The checks of the minds verbs' arguments: each bad value is ``InvalidInput``, saying why.

Every verb checks what it is given before it reads or writes anything. The id checks
take a fast path for the common case (short ASCII text: it cannot hold a lone
surrogate), and otherwise the rules of :mod:`graphmem.core.checks`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any

from graphmem.core.checks import MAX_TEXT_LENGTH, check_id, check_ids
from graphmem.core.errors import InvalidInput
from graphmem.core.models import check_safe_name, utcnow
from graphmem.core.store import as_utc
from graphmem.minds.models import Belief, Fact, fact_from

__all__ = [
    "checked_relevance",
    "facts",
    "fraction",
    "ids",
    "one_id",
    "safe_name",
    "type_name",
    "world_time",
]


def ids(values: Any, what: str) -> list[str]:
    """Entity ids to look up: one id (a ``str``) or a list of them; None is none."""
    if values is None:
        return []
    if isinstance(values, str):
        values = [values]
    if type(values) is list or type(values) is tuple:
        for v in values:  # the quick way (non-blank ASCII text), on every nested read
            if type(v) is not str or not v.isascii() or len(v) > MAX_TEXT_LENGTH or not v.strip():
                break
        else:
            return list(values)
    out = check_ids(values, what)
    for value in out:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput(f"{what}: {value!r} is not an entity id")
    return out


def one_id(value: Any, what: str) -> str:
    """One entity id to look up (non-blank text)."""
    if type(value) is str and value.isascii() and len(value) <= MAX_TEXT_LENGTH and value.strip():
        return value
    if not isinstance(value, str) or not value.strip():
        raise InvalidInput(f"{what} must be an entity id, got {value!r}")
    return check_id(value, what)


_NAMES: set[str] = set()  # safe names already checked (predicates): looked up, not matched


def safe_name(value: Any, what: str) -> str:
    """A safe name (:func:`graphmem.core.models.check_safe_name`), quickly when seen before."""
    if type(value) is str and value in _NAMES:
        return value
    name = check_safe_name(value, what)
    if len(_NAMES) < 4096:
        _NAMES.add(name)
    return name


def fraction(value: Any, what: str) -> float:
    """A number within [0, 1] (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, int | float) or not 0 <= value <= 1:
        raise InvalidInput(f"{what} must be a number within [0, 1], got {value!r}")
    return float(value)


def facts(values: Any, what: str) -> list[Fact]:
    """A list of facts (each a Fact, a dict of its fields or a triple); None is none."""
    if values is None:
        return []
    if isinstance(values, Fact | Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what} takes a list of facts; wrap a single fact in [...]")
    return [fact_from(v, f"{what}[{i}]") for i, v in enumerate(values)]


def world_time(value: datetime | None, what: str = "at") -> datetime:
    """A world time in UTC (naive times are UTC); None is now."""
    return as_utc(value, what) or utcnow()


def type_name(value: object) -> str:
    """The name of ``value``'s type, for messages."""
    return type(value).__name__


def checked_relevance(relevance: object) -> Callable[[Belief], float]:
    """A caller's ``relevance(belief) -> 0..1``, whose answers are checked as they come.

    Raises:
        InvalidInput: ``relevance`` is not callable (and, when called, an answer that is
            not a finite number).
    """
    if not callable(relevance):
        raise InvalidInput(
            f"relevance must be a function of a belief returning 0..1, got {type_name(relevance)}"
        )

    def checked(belief: Belief) -> float:
        value = relevance(belief)
        if (
            isinstance(value, bool)
            or not isinstance(value, int | float)
            or not math.isfinite(value)
        ):
            raise InvalidInput(
                f"relevance(belief) must return a finite number from 0 to 1, got {value!r}"
            )
        return float(value)

    return checked
