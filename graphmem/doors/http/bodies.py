"""Reading a JSON request body without stalling the other clients of the server.

A JSON body is parsed in a worker thread, and in small pieces: the top two levels (the
body, and the members or items of a top-level object or array) are walked here, and each
value below them (an entity, a turn, a string) is decoded by the C decoder on its own.
So the thread gives the interpreter back to the event loop between pieces, where one
``json.loads`` of a 10 MB body would hold it for half a second, and a batch over the
limit is refused as soon as its limit is passed, before the rest is decoded.
"""

from __future__ import annotations

import json
import re
import time
from typing import Any

__all__ = ["BatchTooLong", "parse_json"]

_WS = re.compile(r"[ \t\n\r]*")
_DECODER = json.JSONDecoder()
_YIELD_EVERY = 256  # items decoded between two explicit hand-overs of the interpreter


class BatchTooLong(Exception):
    """A top-level array of the body holds more than its limit (``field``, ``limit``)."""

    def __init__(self, field: str, limit: int) -> None:
        super().__init__(field, limit)
        self.field = field
        self.limit = limit


def parse_json(body: bytes, *, max_items: int) -> Any:
    """``json.loads(body)``, refusing a top-level array over ``max_items`` items early.

    The arrays counted are the body itself and the values of a top-level object's
    members (``{"entities": [...]}``).

    Raises:
        json.JSONDecodeError: The body is not JSON (the same error ``json.loads`` raises).
        UnicodeDecodeError: The body is not text in a JSON encoding.
        BatchTooLong: An array over the limit; nothing after its limit was decoded.
    """
    text = body.decode(json.detect_encoding(body), "surrogatepass")
    start = _WS.match(text, 0).end()  # type: ignore[union-attr]
    value, end = _value(text, start, 0, "", max_items)
    end = _WS.match(text, end).end()  # type: ignore[union-attr]
    if end != len(text):
        raise json.JSONDecodeError("Extra data", text, end)
    return value


def _value(text: str, i: int, depth: int, field: str, max_items: int) -> tuple[Any, int]:
    """The value at ``text[i]`` (no whitespace before it) and the index after it."""
    char = text[i : i + 1]
    if depth < 2 and char == "[":
        return _array(text, i, depth, field, max_items)
    if depth < 1 and char == "{":
        return _object(text, i, depth, max_items)
    return _DECODER.raw_decode(text, i)


def _array(text: str, i: int, depth: int, field: str, max_items: int) -> tuple[Any, int]:
    items: list[Any] = []
    i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    if text[i : i + 1] == "]":
        return items, i + 1
    while True:
        if len(items) >= max_items:
            raise BatchTooLong(field or "the body", max_items)
        item, i = _value(text, i, depth + 1, field, max_items)
        items.append(item)
        if len(items) % _YIELD_EVERY == 0:
            time.sleep(0)  # let the event loop run now, not after the switch interval
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        char = text[i : i + 1]
        if char == "]":
            return items, i + 1
        if char != ",":
            raise json.JSONDecodeError("Expecting ',' delimiter", text, i)
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]


def _object(text: str, i: int, depth: int, max_items: int) -> tuple[Any, int]:
    members: dict[str, Any] = {}
    i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
    if text[i : i + 1] == "}":
        return members, i + 1
    while True:
        if text[i : i + 1] != '"':
            raise json.JSONDecodeError("Expecting property name enclosed in double quotes", text, i)
        key, i = _DECODER.raw_decode(text, i)
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        if text[i : i + 1] != ":":
            raise json.JSONDecodeError("Expecting ':' delimiter", text, i)
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
        members[key], i = _value(text, i, depth + 1, key, max_items)
        i = _WS.match(text, i).end()  # type: ignore[union-attr]
        char = text[i : i + 1]
        if char == "}":
            return members, i + 1
        if char != ",":
            raise json.JSONDecodeError("Expecting ',' delimiter", text, i)
        i = _WS.match(text, i + 1).end()  # type: ignore[union-attr]
