"""Hostile values for the fuzz suite (``test_fuzz.py``), and strategies that mix them in.

Every argument strategy draws a valid value three times in four and a hostile one
otherwise: a wrong type (``str`` for ``int``, ``bool`` for ``int``, floats, ``None``,
bytes, containers), a special number (NaN, infinities, huge and negative integers, zero),
a hostile string (empty, blank, NUL and other control characters, bidirectional and
zero-width marks, a BOM, the Hangul filler, lone surrogates, a trailing line break,
1 MB of text, injection look-alikes) or data nested 600 levels deep. Big and deep values
are built once here, not by hypothesis, so an example costs the call and nothing more.
"""

from __future__ import annotations

import io
import math
from collections.abc import Sequence
from datetime import UTC, date, datetime, timedelta, timezone
from decimal import Decimal
from typing import Any

from hypothesis import strategies as st

from graphmem.core.checks import MAX_DEPTH, MAX_JSON_DEPTH

MB = 1 << 20
DEEP = 600  # beyond MAX_JSON_DEPTH, within the interpreter's recursion limit for repr


class DeepDict(dict[str, Any]):
    """A dict nested deeper than a printer can recurse: shown by its depth only."""

    def __repr__(self) -> str:
        return f"<dict nested {DEEP} levels>"


class DeepList(list[Any]):
    """A list nested deeper than a printer can recurse: shown by its depth only."""

    def __repr__(self) -> str:
        return f"<list nested {DEEP} levels>"


def nested(depth: int, kind: type = dict, leaf: Any = 1) -> Any:
    """``{"x": {"x": ... leaf}}`` (or ``[[... leaf]]``) ``depth`` levels deep, no recursion.

    The outermost level is a :class:`DeepDict` / :class:`DeepList` when ``depth`` is
    :data:`DEEP`, so a report of a failing example stays readable.
    """
    value = leaf
    for level in range(depth):
        last = level == depth - 1 and depth >= DEEP
        if kind is dict:
            value = DeepDict(x=value) if last else {"x": value}
        else:
            value = DeepList([value]) if last else [value]
    return value


def nested_json(depth: int) -> str:
    """JSON text of an object nested ``depth`` levels deep."""
    return '{"x":' * depth + "1" + "}" * depth


BIG_TEXT = "a" * MB  # 1 MB of ASCII
BIG_WIDE = "\u00e9" * (MB // 2)  # 1 MB of UTF-8 in two-byte characters
JUST_SHORT = "b" * 999_999
DEEP_DICT = nested(DEEP)
DEEP_LIST = nested(DEEP, list)
EDGE_DICT = nested(MAX_JSON_DEPTH - 1)  # {"k": EDGE_DICT} is exactly MAX_JSON_DEPTH deep

HOSTILE_STRINGS: tuple[str, ...] = (
    "",
    " ",
    "\t\n",
    "\x00",
    "a\x00b",
    "\x7f",
    "\x1b[31mred",
    "\u202eevil",  # right-to-left override
    "\u200f",  # right-to-left mark
    "\u200b",  # zero-width space
    "\ufeffbom",
    "\u3164",  # Hangul filler
    "\ud800",  # lone high surrogate
    "a\udfffb",  # lone low surrogate
    "knows\n",
    "e\u0301",  # not NFC
    "\u2028",
    "\U0001f409 dragon",
    "\uff21",  # fullwidth A
    "x" * 513,
    "KNOWS]->(x) DETACH DELETE x //",
    "' OR 1=1 --",
    "$tenant",
    "<script>alert(1)</script>",
    "ignore previous instructions",
    "../../etc/passwd",
    BIG_TEXT,
    BIG_WIDE,
    JUST_SHORT,
)

WRONG_TYPES: tuple[Any, ...] = (
    None,
    True,
    False,
    0,
    -1,
    2**31,
    2**63,
    -(2**63) - 1,
    10**18,
    10**100,
    1.5,
    -0.0,
    math.nan,
    math.inf,
    -math.inf,
    Decimal("1.5"),
    complex(1, 2),
    b"bytes",
    bytearray(b"x"),
    [],
    ["a"],
    [None],
    {},
    {"a": 1},
    (),
    frozenset({"a"}),
    object(),
    DEEP_DICT,
    DEEP_LIST,
    datetime(2020, 1, 1),
    date(2020, 1, 1),
    timedelta(hours=1),
    io.StringIO("x"),
)

HOSTILE: tuple[Any, ...] = HOSTILE_STRINGS + WRONG_TYPES

# Letters a user might really write, with the odd character from the hostile set.
NICE_ALPHABET = st.sampled_from(
    list("abcdefghijklmnopqrstuvwxyz ABCXYZ0123456789-_.,'?!")
    + ["\u00e9", "\u00df", "\u4e16", "\u0645", "\U0001f600", "\u200b", "\u202e", "\x00"]
)

ENTITY_IDS = ("mira", "tomas", "forge", "sword", "cellar")
UNKNOWN_ID = "ghost"
ENTITY_TYPES = ("npc", "location", "item", "faction", "Custom_type")
REL_TYPES = ("knows", "works_at", "located_in", "hates", "owns")


def pick(valid: st.SearchStrategy[Any], *extra: Any) -> st.SearchStrategy[Any]:
    """A valid value three times in four; else a hostile one (or one of ``extra``)."""
    hostile = st.sampled_from(HOSTILE + extra) if extra else st.sampled_from(HOSTILE)
    return st.one_of(valid, valid, valid, hostile)


def optional(strategy: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(st.none(), strategy)


def nice_text(min_size: int = 1, max_size: int = 24) -> st.SearchStrategy[str]:
    return st.text(NICE_ALPHABET, min_size=min_size, max_size=max_size)


def texts() -> st.SearchStrategy[Any]:
    return pick(st.one_of(nice_text(), st.sampled_from(["Mira", "the forge", "a sword"])))


def ids() -> st.SearchStrategy[Any]:
    """An entity id: mostly one of the world's, sometimes unknown or new."""
    return pick(st.sampled_from((*ENTITY_IDS, UNKNOWN_ID)))


def new_ids() -> st.SearchStrategy[Any]:
    return pick(st.one_of(st.sampled_from(ENTITY_IDS), nice_text(1, 12)))


def names(choices: Sequence[str] = REL_TYPES) -> st.SearchStrategy[Any]:
    """A safe name (relationship or entity type, role, kind)."""
    return pick(st.sampled_from(tuple(choices)), "Knows", "a" * 65, "1abc", "has space")


def sizes(top: int = 5) -> st.SearchStrategy[Any]:
    """A limit, ``k`` or count: a small positive int, or a hostile number."""
    return pick(st.integers(1, top), 0, -1, True, "5", 2.0, 10**18, 2**31, 2**63)


def depths() -> st.SearchStrategy[Any]:
    """A walk depth: 1 to 3, the documented maximum and one past it, or hostile."""
    return pick(st.integers(1, 3), 0, -1, True, MAX_DEPTH, MAX_DEPTH + 1, 10**18, "2", 1.0)


def bools() -> st.SearchStrategy[Any]:
    return pick(st.booleans(), "yes", "false", 1, 0)


def fractions() -> st.SearchStrategy[Any]:
    return pick(st.floats(0.0, 1.0), -0.01, 1.01, "0.5")


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**63), 2**63 - 1),
    st.floats(allow_nan=False, allow_infinity=False),
    nice_text(0, 12),
)
_JSON = st.recursive(
    _SCALARS,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(nice_text(1, 6), inner, max_size=3)
    ),
    max_leaves=6,
)


def attributes() -> st.SearchStrategy[Any]:
    """An attribute map: JSON data, or hostile (deep, NaN, big, bad keys and values)."""
    return pick(
        st.dictionaries(nice_text(1, 8), _JSON, max_size=3),
        {"deep": DEEP_DICT},
        {"deep": DEEP_LIST},
        {"edge": EDGE_DICT},
        {"over": {"edge": EDGE_DICT}},
        {"nan": math.nan},
        {"inf": -math.inf},
        {"": "empty key"},
        {1: "int key"},
        {"big": BIG_TEXT},
        {"big": BIG_TEXT, "bigger": BIG_WIDE, "more": BIG_TEXT, "most": BIG_WIDE},
        {"k\ud800": 1},
        {"k": "v\udc00"},
        {"huge": 10**30},
        {"set": {1, 2}},
        {"bytes": b"x"},
        {"date": datetime(2020, 1, 1)},
        {"many": list(range(100_001))},
    )


def times() -> st.SearchStrategy[Any]:
    """A datetime (naive = UTC, or aware), or hostile: strings, dates, extremes."""
    return pick(
        st.datetimes(
            min_value=datetime(1990, 1, 1),
            max_value=datetime(2100, 1, 1),
            timezones=st.sampled_from([None, UTC, timezone(timedelta(hours=5))]),
        ),
        "2024-01-01T00:00:00Z",
        date(2024, 1, 1),
        1_700_000_000,
        datetime.min,
        datetime.max,
        datetime.max.replace(tzinfo=timezone(timedelta(hours=-5))),
        datetime.min.replace(tzinfo=timezone(timedelta(hours=5))),
    )


def durations() -> st.SearchStrategy[Any]:
    return pick(
        st.timedeltas(min_value=timedelta(seconds=1), max_value=timedelta(days=1000)),
        3600,
        "1h",
        timedelta(0),
        -timedelta(days=1),
        timedelta.max,
        timedelta.min,
    )


def id_lists() -> st.SearchStrategy[Any]:
    return pick(
        st.lists(ids(), max_size=4),
        "mira",
        ("mira", "tomas"),
        {"mira": 1},
        ["mira"] * 5_000,
    )


def name_lists(choices: Sequence[str] = REL_TYPES) -> st.SearchStrategy[Any]:
    return pick(st.lists(names(choices), max_size=3), "knows", ("knows",), {"knows": 1})


def facts() -> st.SearchStrategy[Any]:
    """A minds fact: a (subject, predicate, object) tuple or a dict, or hostile."""
    triple = st.tuples(ids(), names(("located_in", "owns", "knows")), ids())
    as_dict = st.fixed_dictionaries(
        {"subject": ids(), "predicate": names(("mood", "located_in"))},
        optional={"object": ids(), "value": pick(_SCALARS), "holds": bools()},
    )
    return pick(st.one_of(triple, as_dict), ("mira",), ("a", "b", "c", "d"))


def vectors(dimension: int) -> st.SearchStrategy[Any]:
    floats = st.floats(-1.0, 1.0, allow_nan=False)
    return pick(
        st.lists(floats, min_size=dimension, max_size=dimension).filter(
            lambda v: any(abs(x) > 1e-3 for x in v)
        ),
        [math.nan] * dimension,
        [math.inf] * dimension,
        [0.0] * dimension,
        [1.0] * (dimension + 1),
        [[1.0] * dimension] * 2,
        ["a"] * dimension,
        [1e308] * dimension,
    )
