r"""The value checks of graphmem: one place that says what every backend accepts.

Models (:mod:`graphmem.core.models`), both backends and :class:`graphmem.Memory` call these
functions, so a value is accepted or refused in one place and the backends cannot
disagree: a refused value raises :class:`~graphmem.core.errors.InvalidInput` (or
:class:`~graphmem.core.errors.IdentityRequired` for a missing tenant) before anything reaches
a store. Pure functions over plain values, no I/O; this module imports nothing of
graphmem but the errors, so the models can use it.

The bounds (docs/data-model.md lists them too):

=====================  ============================================================
ids                    non-blank ``str``, at most :data:`MAX_ID_LENGTH` characters,
                       no control character, valid text (below)
safe names             ``\A[A-Za-z][A-Za-z0-9_]{0,63}\Z`` (:data:`SAFE_NAME_PATTERN`)
tenants, identities    printable names of 1 to :data:`MAX_TENANT_LENGTH` characters
                       (:func:`check_printable_name`)
texts                  valid UTF-8 text (no lone surrogate, U+D800..U+DFFF) of at
                       most :data:`MAX_TEXT_LENGTH` characters
names                  entity names, speakers, attribute and data keys: texts of at
                       most :data:`MAX_NAME_LENGTH` characters
limits, ``k``          ``int`` (not ``bool``) of at least 1
times                  ``datetime`` (naive means UTC) with a UTC equivalent
walk depths            ``int`` (not ``bool``) from 1 (0 where a walk may stay put) to
                       :data:`MAX_DEPTH`
attributes, data       JSON: ``str``, ``int`` within signed 64 bits, finite ``float``,
                       ``bool``, ``None``, lists and maps with non-empty ``str`` keys;
                       nested at most :data:`MAX_JSON_DEPTH` levels, at most
                       :data:`MAX_JSON_VALUES` values and :data:`MAX_JSON_CHARS`
                       characters of strings (keys included)
=====================  ============================================================
"""

from __future__ import annotations

import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from graphmem.core.errors import IdentityRequired, InvalidInput

__all__ = [
    "INVISIBLE_CHARACTERS",
    "MAX_DEPTH",
    "MAX_ID_LENGTH",
    "MAX_JSON_CHARS",
    "MAX_JSON_DEPTH",
    "MAX_JSON_INT",
    "MAX_JSON_VALUES",
    "MAX_NAME_LENGTH",
    "MAX_TENANT_LENGTH",
    "MAX_TEXT_LENGTH",
    "SAFE_NAME_PATTERN",
    "as_utc",
    "check_arguments",
    "check_depth",
    "check_id",
    "check_identifier",
    "check_ids",
    "check_json",
    "check_limit",
    "check_owner",
    "check_positive",
    "check_printable_name",
    "check_safe_name",
    "check_safe_names",
    "check_tenant",
    "check_text",
    "text_problem",
]

MAX_ID_LENGTH = 512
"""The longest id (entity, turn, record, session, chunk, evidence), in characters."""

MAX_TENANT_LENGTH = 256
"""The longest tenant (and policy identity part: user, session, actor), in characters."""

MAX_TEXT_LENGTH = 1_000_000
"""The longest text of any one field (a name, a turn's content, a chunk), in characters.
Longer texts belong in documents (``Memory.add_documents`` splits them into chunks)."""

MAX_NAME_LENGTH = 200_000
"""The longest name (an entity's name, a turn's speaker, an attribute or data key), in
characters: the HTTP server's default ``max_text_chars``, so a name any door accepts is
one every other door accepts too."""

MAX_DEPTH = 32
"""The deepest graph walk (``neighbors``, ``visible_subgraph``, ``expand``, retrieval
hops), in hops. A walk this deep reaches the whole connected graph in practice; the cap
bounds the work of a server query whatever depth a caller sends (a loop that counts 10**18
hops never ends even where the graph does)."""

MAX_JSON_DEPTH = 32
"""How deep attributes and record data may nest (a scalar at the top level is depth 0,
``{"a": {"b": 1}}`` is depth 2). Parsers and encoders recurse once per level; deeper data
would reach Python's recursion limit in one backend and not in another."""

MAX_JSON_VALUES = 100_000
"""The most values one attribute map or record's data may hold (every scalar, list and
map counts one)."""

MAX_JSON_CHARS = 4_000_000
"""The most characters of strings (keys included) one attribute map or data may hold."""

MAX_JSON_INT = 2**63 - 1
"""The largest integer in attributes (and ``-MAX_JSON_INT - 1`` the smallest): what Neo4j,
SQLite and most JSON readers hold exactly."""

SAFE_NAME_PATTERN = re.compile(r"\A[A-Za-z][A-Za-z0-9_]{0,63}\Z")
r"""Entity types, relationship types and roles must match this whole (``fullmatch``): they
may become Cypher labels or relationship types, so nothing else is ever spliced into a
query. ``\A...\Z``, not ``^...$``: ``$`` also matches before a final line break, which
let ``"knows\n"`` through as a second relationship type. ASCII only, so a safe name is
printable, holds no control or invisible character and is already NFC."""

INVISIBLE_CHARACTERS = re.compile(
    "[\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180b-\u180f\u200b-\u200f"
    "\u202a-\u202e\u2060-\u206f\u2800\u3164\ufe00-\ufe0f\ufeff\uffa0\ufff0-\ufff8"
    "\U0001bca0-\U0001bca3\U0001d173-\U0001d17a\U000e0000-\U000e0fff]"
)
"""One character a renderer shows as nothing: Unicode's Default_Ignorable_Code_Point
(DerivedCoreProperties.txt; ``str.isprintable()`` accepts some of them, the Hangul fillers
are letters), plus U+2800, the braille blank."""

_SURROGATE = re.compile("[\ud800-\udfff]")
_CONTROL_CHARS = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_MIN_JSON_INT = -MAX_JSON_INT - 1


# --------------------------------------------------------------------------- texts


def text_problem(value: str, max_length: int = MAX_TEXT_LENGTH) -> str | None:
    r"""Why ``value`` is not storable text (a lone surrogate, too long), or None.

    >>> text_problem("Mira") is None
    True
    >>> text_problem("M\ud800ra")
    'holds a lone surrogate (U+D800) at position 1: not valid UTF-8 text'
    """
    if len(value) > max_length:
        return f"is {len(value)} characters long; at most {max_length}"
    # isascii() is O(1) in CPython: the common case costs nothing.
    if not value.isascii():
        found = _SURROGATE.search(value)
        if found is not None:
            return (
                f"holds a lone surrogate (U+{ord(found.group()):04X}) at position "
                f"{found.start()}: not valid UTF-8 text"
            )
    return None


def check_text(value: object, what: str, *, max_length: int = MAX_TEXT_LENGTH) -> str:
    """Return ``value`` if it is storable text, else raise ``InvalidInput`` saying why.

    Text is a ``str`` of valid UTF-8 (no lone surrogate: the ``file://`` journal, Neo4j's
    wire format and every JSON export would fail on one) of at most ``max_length``
    characters. Blank text, control characters and invisible characters are allowed.
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a str, got {type(value).__name__}")
    problem = text_problem(value, max_length)
    if problem is not None:
        raise InvalidInput(f"{what} {problem}")
    return value


def check_arguments(
    args: Sequence[object],
    kwargs: Mapping[str, object],
    texts: Mapping[str, tuple[int, bool]] = {},  # noqa: B006 (read only)
) -> None:
    """Check a store call's arguments before it reads or writes anything.

    ``texts`` names the parameters that take a ``str`` (by name: their position among
    ``args`` and whether ``None`` is allowed): each must be one. Any ``str`` argument,
    and any ``str`` in a list argument, must be valid text (:func:`check_text`), so a
    lone surrogate is refused alike by every backend, whatever the argument means.
    """
    for name, (position, optional) in texts.items():
        value = args[position] if position < len(args) else kwargs.get(name)
        if value is None and (optional or (position >= len(args) and name not in kwargs)):
            continue
        if not isinstance(value, str):
            raise InvalidInput(f"{name} must be a str, got {type(value).__name__}", value=value)
    for value in (*args, *kwargs.values()):
        if isinstance(value, str):
            if not value.isascii():
                check_text(value, "a text argument")
        elif isinstance(value, list | tuple):
            for item in value:
                if isinstance(item, str) and not item.isascii():
                    check_text(item, "a text argument")


# --------------------------------------------------------------------------- ids and names


def _subject(what: str) -> str:
    """``what`` as the start of a message: ``"id "``, or nothing for an empty ``what``."""
    return f"{what} " if what else ""


def check_identifier(value: object, what: str = "id") -> str:
    """Return ``value`` if it can be stored as an id, else raise ``InvalidInput``.

    An id is a non-blank ``str`` of at most :data:`MAX_ID_LENGTH` characters without
    control characters, and valid text. ``what`` starts the message (empty: none, where
    the caller names the field itself, as a model's validation error does).
    """
    what = _subject(what)
    if not isinstance(value, str):
        raise InvalidInput(f"{what}must be a str, got {type(value).__name__}", value=value)
    if not value.strip():
        raise InvalidInput(f"{what}must be a non-blank string", value=value)
    if len(value) > MAX_ID_LENGTH:
        raise InvalidInput(
            f"{what}is {len(value)} characters long; at most {MAX_ID_LENGTH}", value=value
        )
    found = _CONTROL_CHARS.search(value)
    if found is not None:
        raise InvalidInput(
            f"{what}holds a control character or lone surrogate "
            f"(U+{ord(found.group()):04X}) at position {found.start()}",
            value=value,
        )
    return value


def check_id(value: object, what: str = "id") -> str:
    """Return ``value`` if it can name something to look up, else raise ``InvalidInput``.

    Lookups are lenient: any non-empty text (an id that cannot be stored is simply not
    found). Writes check ids fully (:func:`check_identifier`, through the models).
    """
    if type(value) is str and value.isascii() and 0 < len(value) <= MAX_TEXT_LENGTH:
        return value  # the common case, on every look-up: ASCII holds no lone surrogate
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"{what} must be a non-empty string, got {value!r}", value=value)
    return check_text(value, what, max_length=MAX_TEXT_LENGTH)


def check_ids(values: object, what: str) -> list[str]:
    """A list of ids to look up (:func:`check_id` each); one id alone is refused."""
    if type(values) is list or type(values) is tuple:  # no ABC checks for these
        return [check_id(value, what) for value in values]
    if isinstance(values, str | bytes | Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what} takes a list of ids; wrap a single id in [...]")
    return [check_id(value, what) for value in values]


def check_safe_name(value: object, what: str = "name") -> str:
    """Return ``value`` if it is a safe name, else raise ``InvalidInput`` saying why.

    >>> check_safe_name("member_of", "relationship type")
    'member_of'
    """
    if not isinstance(value, str) or not SAFE_NAME_PATTERN.fullmatch(value):
        raise InvalidInput(
            f"{_subject(what)}{value!r} is not a safe name: use a letter followed by up to 63 "
            "ASCII letters, digits or underscores, nothing before or after "
            r"(pattern \A[A-Za-z][A-Za-z0-9_]{0,63}\Z)",
            value=value,
        )
    return value


def check_safe_names(values: object, what: str) -> list[str] | None:
    """None, or safe names: a list of them, or one name alone (taken as a list of one)."""
    if values is None:
        return None
    if isinstance(values, str):
        return [check_safe_name(values, what)]
    if isinstance(values, bytes | Mapping) or not isinstance(values, Iterable):
        raise InvalidInput(f"{what}s must be a list of safe names, got {type(values).__name__}")
    return [check_safe_name(value, what) for value in values]


def _not_printable(ch: str) -> bool:
    return not ch.isprintable() or INVISIBLE_CHARACTERS.match(ch) is not None


def check_printable_name(value: object, what: str, *, max_length: int = 256) -> str:
    r"""Return ``value`` if it is a printable name, else raise ``InvalidInput`` saying why.

    The rule for tenants and for the identity parts of the policy layer (user, session,
    actor, run id): a ``str`` of 1 to ``max_length`` characters, in NFC, with no blank at
    either end, every character printable: no control (``Cc``), format (``Cf``: zero-width
    space, BOM, bidirectional overrides), separator other than the ASCII space (no-break
    and other wide spaces, line and paragraph separators), surrogate, private-use or
    unassigned code point, and no default-ignorable (invisible) one such as the Hangul
    fillers or variation selectors. No name is then invisible, and none differs from
    another only by invisible characters or by normalisation.

    >>> check_printable_name("Acme Corp", "tenant")
    'Acme Corp'
    >>> check_printable_name("acme\u200b", "tenant")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    graphmem.core.errors.InvalidInput: tenant must be printable: ...U+200B (ZERO WIDTH SPACE)...
    """
    if not isinstance(value, str):
        raise InvalidInput(f"{what} must be a str, got {type(value).__name__}", value=value)
    if not value or len(value) > max_length:
        raise InvalidInput(
            f"{what} must be 1 to {max_length} printable characters, got {len(value)}",
            value=value,
        )
    if not value.isprintable() or INVISIBLE_CHARACTERS.search(value):
        index, ch = next((i, c) for i, c in enumerate(value) if _not_printable(c))
        label = unicodedata.name(ch, "unnamed")
        raise InvalidInput(
            f"{what} must be printable: the character at position {index}, "
            f"U+{ord(ch):04X} ({label}), is a control, format, invisible or unassigned one",
            value=value,
        )
    if value != value.strip():
        raise InvalidInput(f"{what} must not start or end with a blank", value=value)
    if not unicodedata.is_normalized("NFC", value):
        raise InvalidInput(
            f"{what} must be in Unicode NFC (composed) form: use "
            f"unicodedata.normalize('NFC', {what})",
            value=value,
        )
    return value


def check_tenant(tenant: object) -> str:
    """Return ``tenant`` if it names a tenant, else raise (fail closed).

    Raises:
        IdentityRequired: No tenant, or a blank one.
        InvalidInput: Not a printable name of at most 256 characters
            (:func:`check_printable_name`).
    """
    if not isinstance(tenant, str) or not tenant.strip():
        raise IdentityRequired(
            "a non-empty tenant is required for every memory operation; "
            "open the memory with tenant='...'",
            missing=("tenant",),
        )
    return check_printable_name(tenant, "tenant", max_length=MAX_TENANT_LENGTH)


def check_owner(owner: object) -> str:
    """Return ``owner`` if it can be a record owner (an id), else raise ``InvalidInput``."""
    if (
        not isinstance(owner, str)
        or not owner.strip()
        or len(owner) > MAX_ID_LENGTH
        or _CONTROL_CHARS.search(owner)
    ):
        raise InvalidInput(
            f"record owner {owner!r} is not an id: a non-empty string of at most 512 "
            "characters without control characters",
            owner=owner,
        )
    return owner


# --------------------------------------------------------------------------- sizes


def check_positive(value: object, what: str, *, minimum: int = 1) -> int:
    """Return ``value`` if it is an ``int`` (not a ``bool``) of at least ``minimum``.

    >>> check_positive(3, "k")
    3
    >>> check_positive(True, "k")
    Traceback (most recent call last):
    graphmem.core.errors.InvalidInput: k must be an integer >= 1, got True
    """
    if isinstance(value, bool) or not isinstance(value, int) or value < minimum:
        raise InvalidInput(f"{what} must be an integer >= {minimum}, got {value!r}", value=value)
    return value


def check_limit(value: object, what: str = "limit") -> int | None:
    """None (no limit), or a positive ``int`` (not a ``bool``)."""
    return None if value is None else check_positive(value, what)


def check_depth(value: object, what: str = "depth", *, minimum: int = 1) -> int:
    """A walk's depth: an ``int`` (not a ``bool``) from ``minimum`` to :data:`MAX_DEPTH`."""
    depth = check_positive(value, what, minimum=minimum)
    if depth > MAX_DEPTH:
        raise InvalidInput(
            f"{what} must be at most {MAX_DEPTH} hops, got {depth}; a walk that deep reaches "
            "the whole connected graph anyway (use max_nodes to bound what comes back)",
            value=value,
            limit=MAX_DEPTH,
        )
    return depth


# --------------------------------------------------------------------------- times


def as_utc(value: datetime | None, what: str) -> datetime | None:
    """A time argument as an aware UTC datetime (naive means UTC); ``InvalidInput`` if not one.

    Refused: anything but a ``datetime`` (a ``date``, a string, a number), and a time that
    has no UTC equivalent (``datetime.max`` at a negative offset is past year 9999 in UTC).
    """
    if value is None:
        return None
    if not isinstance(value, datetime):
        raise InvalidInput(f"{what} must be a datetime, got {type(value).__name__}")
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    try:
        return value.astimezone(UTC)
    except (OverflowError, ValueError) as exc:
        raise InvalidInput(f"{what} {value!r} has no UTC equivalent ({exc})") from exc


# --------------------------------------------------------------------------- JSON data


class _JSONBudget:
    __slots__ = ("chars", "values")

    def __init__(self) -> None:
        self.values = 0
        self.chars = 0


def check_json(
    value: Any,
    what: str,
    *,
    mapping: Callable[[dict[str, Any]], Any] = dict,
    sequence: Callable[[list[Any]], Any] = list,
) -> Any:
    """Check that ``value`` is storable JSON data; return a copy of it.

    The copy's maps are built by ``mapping`` and its lists by ``sequence`` (the models
    pass their read-only types).

    The rules of attributes and record data (see the module docstring): JSON types,
    non-empty string keys, finite floats, 64-bit integers, valid text, and the depth and
    size bounds. The walk stops at :data:`MAX_JSON_DEPTH`, so data nested deeper than
    Python's recursion limit is refused, not a ``RecursionError``.

    Raises:
        InvalidInput: Naming the path of the first value at fault (``attributes.a[2]``).

    >>> check_json({"tags": ["a", 1]}, "attributes")
    {'tags': ['a', 1]}
    """
    budget = _JSONBudget()

    def walk(item: Any, path: str, depth: int) -> Any:
        budget.values += 1
        if budget.values > MAX_JSON_VALUES:
            raise InvalidInput(f"{what} holds more than {MAX_JSON_VALUES} values", path=path)
        if item is None or isinstance(item, bool):
            return item
        if isinstance(item, str):
            budget.chars += len(item)
            if budget.chars > MAX_JSON_CHARS:
                raise InvalidInput(
                    f"{what} holds more than {MAX_JSON_CHARS} characters of strings", path=path
                )
            problem = text_problem(item)
            if problem is not None:
                raise InvalidInput(f"{path} {problem}", path=path)
            return item
        if isinstance(item, int):
            if not _MIN_JSON_INT <= item <= MAX_JSON_INT:
                raise InvalidInput(
                    f"{path} is an integer outside the signed 64-bit range "
                    f"({_MIN_JSON_INT}..{MAX_JSON_INT}); store it as a string",
                    path=path,
                )
            return item
        if isinstance(item, float):
            if not math.isfinite(item):
                raise InvalidInput(
                    f"{path} is {item!r}: only finite numbers can be stored", path=path
                )
            return item
        if isinstance(item, Mapping | list | tuple) and depth >= MAX_JSON_DEPTH:
            raise InvalidInput(
                f"{path} nests deeper than {MAX_JSON_DEPTH} levels; flatten the data",
                path=path,
            )
        if isinstance(item, Mapping):
            out: dict[str, Any] = {}
            for key, inner in item.items():
                if not isinstance(key, str) or not key:
                    raise InvalidInput(
                        f"{path} has key {key!r}: keys must be non-empty strings", path=path
                    )
                budget.chars += len(key)
                problem = text_problem(key, MAX_NAME_LENGTH)
                if problem is not None:
                    raise InvalidInput(f"{path} has a key that {problem}", path=path)
                out[key] = walk(inner, f"{path}.{key}", depth + 1)
            return mapping(out)
        if isinstance(item, list | tuple):
            return sequence([walk(x, f"{path}[{i}]", depth + 1) for i, x in enumerate(item)])
        raise InvalidInput(
            f"{path} is a {type(item).__name__}: {what} hold JSON data only "
            "(str, int, float, bool, None, lists and string-keyed maps)",
            path=path,
        )

    return walk(value, what, 0)
