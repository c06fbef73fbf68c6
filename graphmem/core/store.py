"""The storage contract as a backend imports it: ``GraphStore``, its checks, tracing, the registry.

Every backend implements :class:`GraphStore`, the union of the contract's rooms (small
protocols, one per area: :mod:`graphmem.core.contract`); ``tests/conformance`` is the
executable form of this contract and runs against every registered backend. The protocol
is coarse-grained on purpose: batch writes, and graph questions (snapshot, neighbours,
path, the active branch of a conversation) answered natively by the backend in one call,
so that a server backend answers each in one round trip.

Every operation takes the tenant first. An empty tenant raises ``IdentityRequired``
before anything is read or written (fail closed); nothing is ever read across tenants.

This module also holds the argument checks every backend shares and tracing, and
re-exports :class:`GraphStore` (defined with the rooms, in :mod:`graphmem.core.contract`),
the contract's data types and the registry (:mod:`graphmem.core.registry`:
``open_store``, ``register_backend``, ``install_schema``), so ``graphmem.core.store`` stays
the one import a backend needs.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from graphmem.core.checks import (
    INVISIBLE_CHARACTERS,
    as_utc,
    check_ids,
    check_owner,
    check_positive,
    check_printable_name,
    check_tenant,
    check_text,
)
from graphmem.core.contract import (
    MAX_TURN_WINDOW,
    ROOMS,
    WRITE_METHODS,
    BaseStore,
    ChangeSet,
    ConversationStore,
    EntityGraphStore,
    Gathered,
    GraphStore,
    JSONScalar,
    RecordStore,
    RelationshipPattern,
    RoleCooccurrence,
    ScopedHits,
    ScopedSearch,
    SearchContext,
    SearchHit,
    SearchPair,
    SearchStore,
    TenantAdmin,
    TenantDump,
    protocol_members,
    satisfied_protocols,
    store_supports,
)
from graphmem.core.errors import InvalidInput
from graphmem.core.models import (
    NODE_KINDS,
    Entity,
    NodeKind,
    Record,
    Relationship,
    Turn,
    check_safe_name,
)
from graphmem.core.registry import (
    ENTRY_POINT_GROUP,
    Backend,
    BackendFactory,
    ReadOnlyStore,
    SchemaInstaller,
    StoreCheck,
    check_store,
    get_backend,
    install_schema,
    open_store,
    redact_url,
    register_backend,
    registered_schemes,
)

if TYPE_CHECKING:
    from numpy.typing import ArrayLike

__all__ = [
    "ENTRY_POINT_GROUP",
    "INVISIBLE_CHARACTERS",
    "MAX_TURN_WINDOW",
    "ROOMS",
    "WRITE_METHODS",
    "Backend",
    "BackendFactory",
    "BaseStore",
    "ChangeSet",
    "ConversationStore",
    "EntityGraphStore",
    "Gathered",
    "GraphStore",
    "JSONScalar",
    "ReadOnlyStore",
    "RecordStore",
    "RelationshipPattern",
    "RoleCooccurrence",
    "SchemaInstaller",
    "ScopedHits",
    "ScopedSearch",
    "SearchContext",
    "SearchHit",
    "SearchPair",
    "SearchStore",
    "StoreCheck",
    "TenantAdmin",
    "TenantDump",
    "TraceEvent",
    "Tracer",
    "as_utc",
    "check_chain",
    "check_changes",
    "check_gather",
    "check_owner",
    "check_printable_name",
    "check_record_deletes",
    "check_scoped_searches",
    "check_search_kinds",
    "check_store",
    "check_tenant",
    "check_where",
    "check_window_depth",
    "get_backend",
    "install_schema",
    "open_store",
    "protocol_members",
    "redact_url",
    "register_backend",
    "registered_schemes",
    "satisfied_protocols",
    "search_each",
    "store_supports",
    "stored_changes",
    "traced",
]


def check_record_deletes(
    delete: Mapping[str, Sequence[str]] | None, put: Sequence[Record] = ()
) -> dict[str, list[str]]:
    """Check ``write_records``' deletes for any backend: safe kinds to lists of unique ids.

    Raises:
        InvalidInput: Not a mapping of safe kind names to lists of non-empty string ids,
            or a ``(kind, id)`` that ``put`` writes too.
    """
    if delete is None:
        return {}
    if not isinstance(delete, Mapping):
        raise InvalidInput("delete maps record kinds to lists of ids, e.g. {'fact': ['f1']}")
    out: dict[str, list[str]] = {}
    for kind, ids in delete.items():
        check_safe_name(kind, "record kind")
        if isinstance(ids, str) or not isinstance(ids, Sequence):
            raise InvalidInput(f"delete[{kind!r}] takes a list of ids; wrap a single id in [...]")
        for value in ids:
            if not isinstance(value, str) or not value:
                raise InvalidInput(f"delete[{kind!r}]: {value!r} is not an id (a non-empty str)")
        if ids:
            out[kind] = list(dict.fromkeys(ids))
    both = sorted(
        {(r.kind, r.id) for r in put if isinstance(r, Record) and r.id in out.get(r.kind, ())}
    )
    if both:
        raise InvalidInput(
            f"records {both} are both put and deleted in one write: do one or the other. "
            "Nothing was written.",
        )
    return out


def _check_batch(items: object, model: type[Any], what: str) -> list[Any]:
    if isinstance(items, model | str | Mapping) or not isinstance(items, Sequence):
        raise InvalidInput(f"{what} takes a list; wrap a single item in [...]")
    for index, item in enumerate(items):
        if not isinstance(item, model):
            raise InvalidInput(
                f"{what}[{index}] is a {type(item).__name__}, not a {model.__name__}", index=index
            )
    return list(items)


def _check_id_list(ids: object, what: str) -> list[str]:
    if isinstance(ids, str) or not isinstance(ids, Sequence):
        raise InvalidInput(f"{what} takes a list of ids; wrap a single id in [...]")
    for value in ids:
        if not isinstance(value, str) or not value:
            raise InvalidInput(f"{what}: {value!r} is not an id (a non-empty string)")
    return list(dict.fromkeys(ids))


def check_changes(changes: object) -> ChangeSet:
    """Check a :meth:`GraphStore.write_changes` argument for any backend.

    Returns the change set with plain lists, each id and key to delete once.

    Raises:
        InvalidInput: Not a :class:`ChangeSet`; an item of the wrong model; an id that is
            not a non-empty string; a relationship key that is not ``(source, target,
            type)`` with a safe type; anything both put and deleted in the call; a
            relationship put whose end the call deletes.
    """
    if not isinstance(changes, ChangeSet):
        raise InvalidInput("write_changes takes a ChangeSet")
    records = _check_batch(changes.records, Record, "records")
    delete_records = check_record_deletes(changes.delete_records, records)
    entities = _check_batch(changes.entities, Entity, "entities")
    delete_entities = _check_id_list(changes.delete_entities, "delete_entities")
    relationships = _check_batch(changes.relationships, Relationship, "relationships")
    raw_keys = changes.delete_relationships
    if isinstance(raw_keys, str) or not isinstance(raw_keys, Sequence):
        raise InvalidInput("delete_relationships takes a list of (source_id, target_id, type)")
    keys: dict[tuple[str, str, str], None] = {}
    for key in raw_keys:
        if isinstance(key, str) or not isinstance(key, Sequence) or len(key) != 3:
            raise InvalidInput(f"delete_relationships: {key!r} is not (source_id, target_id, type)")
        source, target, type_ = key
        _check_id_list([source, target], "delete_relationships")
        keys[(source, target, check_safe_name(type_, "relationship type"))] = None
    gone = set(delete_entities)
    both = sorted(e.id for e in entities if e.id in gone)
    both_keys = sorted(r.key for r in relationships if r.key in keys)
    ends = sorted({end for r in relationships for end in (r.source_id, r.target_id) if end in gone})
    if both or both_keys or ends:
        raise InvalidInput(
            "a write_changes call both puts and deletes "
            + "; ".join(
                part
                for part in (
                    f"entities {both}" if both else "",
                    f"relationships {both_keys}" if both_keys else "",
                    f"relationships ending at deleted entities {ends}" if ends else "",
                )
                if part
            )
            + ": do one or the other. Nothing was written.",
        )
    return ChangeSet(records, delete_records, entities, delete_entities, relationships, list(keys))


def stored_changes(
    changes: ChangeSet,
    records: Iterable[Record],
    entities: Iterable[Entity],
    relationships: Iterable[Relationship],
) -> ChangeSet:
    """A :meth:`GraphStore.write_changes` result for any backend.

    ``records``, ``entities`` and ``relationships``: what the backend stored, one per key;
    the result has one item per input position of ``changes`` (as stored for its key) and
    its deletes as given.
    """
    by_record = {(r.kind, r.id): r for r in records}
    by_entity = {e.id: e for e in entities}
    by_rel = {r.key: r for r in relationships}
    return ChangeSet(
        records=[by_record[(r.kind, r.id)] for r in changes.records],
        delete_records=changes.delete_records,
        entities=[by_entity[e.id] for e in changes.entities],
        delete_entities=changes.delete_entities,
        relationships=[by_rel[r.key] for r in changes.relationships],
        delete_relationships=changes.delete_relationships,
    )


def check_where(where: Mapping[str, JSONScalar] | None) -> dict[str, JSONScalar]:
    """Check a ``find_records`` condition map (data keys to JSON scalars) for any backend."""
    if where is None:
        return {}
    if not isinstance(where, Mapping):
        raise InvalidInput("where must be a mapping of data keys to JSON scalars")
    out: dict[str, JSONScalar] = {}
    for key, value in where.items():
        if not isinstance(key, str) or not key:
            raise InvalidInput(f"where has key {key!r}: keys must be non-empty strings")
        if value is not None and not isinstance(value, str | int | float | bool):
            raise InvalidInput(
                f"where[{key!r}] is a {type(value).__name__}: compare with JSON scalars only "
                "(str, int, float, bool, None)"
            )
        if isinstance(value, float) and value != value:
            raise InvalidInput(f"where[{key!r}] is NaN, which equals nothing")
        check_text(key, "a where key")
        if isinstance(value, str):
            check_text(value, f"where[{key!r}]")
        out[key] = value
    return out


# --------------------------------------------------------------------------- tracing


@dataclass(frozen=True, slots=True)
class TraceEvent:
    """One store operation or query, as reported to a tracer.

    Attributes:
        name: The operation (embedded backend) or query file name (server backends);
            ``transaction`` for the BEGIN and COMMIT of a server transaction.
        params: Its parameters.
        seconds: Wall time it took.
        round_trips: Network round trips to the server it made (0 for the embedded
            backend): the sum over an operation's events is what it cost on the wire.
    """

    name: str
    params: Mapping[str, Any]
    seconds: float
    round_trips: int = 0


Tracer = Callable[[TraceEvent], None]


class traced:  # noqa: N801 - used as a function: ``with traced(tracer, name, params):``
    """Time the enclosed block and report it to ``tracer`` (no cost when it is None).

    A class, not a generator: it runs around every store operation of a traced store,
    and a generator-based context manager costs several times more per use. The event
    holds ``params`` itself, not a copy: pass a mapping that is not changed afterwards.

    A tracer with an ``observe(name, params, seconds, round_trips)`` method (as
    :class:`graphmem.core.telemetry.StoreTelemetry` has) gets the event's fields through it
    instead, and no :class:`TraceEvent` is built: building one costs more than counting it.
    """

    __slots__ = ("_name", "_params", "_round_trips", "_start", "_tracer")

    def __init__(
        self, tracer: Tracer | None, name: str, params: Mapping[str, Any], round_trips: int = 0
    ) -> None:
        self._tracer = tracer
        self._name = name
        self._params = params
        self._round_trips = round_trips
        self._start = 0.0

    def __enter__(self) -> None:
        if self._tracer is not None:
            self._start = time.perf_counter()

    def __exit__(self, *exc: object) -> None:
        tracer = self._tracer
        if tracer is not None:
            seconds = time.perf_counter() - self._start
            observe = getattr(tracer, "observe", None)
            if observe is not None:  # the fast path: no event built
                observe(self._name, self._params, seconds, self._round_trips)
            else:
                tracer(TraceEvent(self._name, self._params, seconds, self._round_trips))


def check_chain(session_id: str, turns: object) -> list[Turn]:
    """The turns of :meth:`GraphStore.append_turns`, checked.

    A list of ``Turn``s of the session, each id once.
    """
    if isinstance(turns, str | bytes | Mapping | Turn) or not isinstance(turns, Iterable):
        raise InvalidInput(
            f"append_turns takes a list of Turns, got {type(turns).__name__}"
            + ("; wrap a single turn in [...]" if isinstance(turns, Turn) else "")
        )
    chain = list(turns)
    seen: set[str] = set()
    for index, turn in enumerate(chain):
        if not isinstance(turn, Turn):
            raise InvalidInput(f"turn {index} is a {type(turn).__name__}, not a Turn", index=index)
        # A model that skipped validation is not trusted: validate it again.
        turn = Turn.model_validate(turn.model_dump())
        if turn.session_id != session_id:
            raise InvalidInput(
                f"turn {index} belongs to session {turn.session_id!r}, not {session_id!r}",
                index=index,
                turn_id=turn.id,
            )
        if turn.id in seen:
            raise InvalidInput(f"turn id {turn.id!r} is given twice", turn_id=turn.id)
        seen.add(turn.id)
        chain[index] = turn
    return chain


def check_window_depth(depth: object) -> int:
    """``depth`` of :meth:`GraphStore.turn_window`, checked (an integer within 0..8)."""
    if not isinstance(depth, int) or isinstance(depth, bool) or not 0 <= depth <= MAX_TURN_WINDOW:
        raise InvalidInput(
            f"depth must be an integer within 0..{MAX_TURN_WINDOW}, got {depth!r}", depth=depth
        )
    return depth


def check_search_kinds(
    kinds: Sequence[NodeKind], vector: ArrayLike | None, text: str | None
) -> list[NodeKind]:
    """The kinds of a :meth:`GraphStore.hybrid_search`, checked, without repeats."""
    if isinstance(kinds, str) or not isinstance(kinds, Sequence):
        raise InvalidInput("kinds takes a list of node kinds; wrap a single kind in [...]")
    wanted = list(dict.fromkeys(kinds))
    bad = [kind for kind in wanted if kind not in NODE_KINDS]
    if bad or not wanted:
        raise InvalidInput(f"kinds must be among {NODE_KINDS}, got {list(kinds)!r}", kinds=kinds)
    if vector is None and text is None:
        raise InvalidInput("hybrid_search needs a query vector, a query text or both")
    return wanted


def search_each(
    store: SearchStore,
    tenant: str,
    kinds: Sequence[NodeKind],
    *,
    vector: ArrayLike | None,
    text: str | None,
    k: int,
    scope_ids: Sequence[str] | None = None,
) -> dict[NodeKind, SearchPair]:
    """:meth:`GraphStore.hybrid_search` as a ``vector_search`` and a ``fulltext_search`` per kind.

    For a backend with nothing better to do: each call is checked by the store as usual,
    and a search only reads, so a failure part-way changes nothing.
    """
    out: dict[NodeKind, SearchPair] = {}
    for kind in check_search_kinds(kinds, vector, text):
        by_vector = (
            store.vector_search(tenant, kind, vector, k, scope_ids=scope_ids)
            if vector is not None
            else []
        )
        by_text = (
            store.fulltext_search(tenant, kind, text, k, scope_ids=scope_ids)
            if text is not None
            else []
        )
        out[kind] = SearchPair(by_vector, by_text)
    return out


_MENTION_KINDS: tuple[NodeKind, ...] = ("turn", "chunk")


def _check_mention_kinds(kinds: object, what: str) -> list[NodeKind]:
    if isinstance(kinds, str) or not isinstance(kinds, Sequence):
        raise InvalidInput(f"{what} takes a list of kinds; wrap a single kind in [...]")
    bad = [kind for kind in kinds if kind not in _MENTION_KINDS]
    if bad:
        raise InvalidInput(f"{what} must be among {_MENTION_KINDS}, got {list(kinds)!r}")
    return list(dict.fromkeys(kinds))


def check_scoped_searches(searches: Sequence[ScopedSearch]) -> list[ScopedSearch]:
    """The searches of a :meth:`GraphStore.search_scoped`, checked (each as ``hybrid_search``).

    Raises:
        InvalidInput: Not a list of :class:`ScopedSearch`, a scope that is not a list of
            ids, or a search ``hybrid_search`` would refuse (kinds, no side, ``k``).
    """
    if isinstance(searches, str) or not isinstance(searches, Sequence):
        raise InvalidInput("searches takes a list of ScopedSearch")
    out: list[ScopedSearch] = []
    for search in searches:
        if not isinstance(search, ScopedSearch):
            raise InvalidInput(f"searches takes ScopedSearch items, got {type(search).__name__}")
        if search.text is not None and not isinstance(search.text, str):
            raise InvalidInput(f"query must be a string, got {type(search.text).__name__}")
        if search.scope_ids is None:
            raise InvalidInput("a scoped search needs scope_ids (use hybrid_search without one)")
        kinds = check_search_kinds(search.kinds, search.vector, search.text)  # type: ignore[arg-type]
        check_positive(search.k, "k")
        scope = list(dict.fromkeys(check_ids(search.scope_ids, "scope_ids")))
        out.append(ScopedSearch(kinds, search.vector, search.text, search.k, scope))
    return out


def check_gather(
    *,
    chunk_ids: Sequence[str],
    turn_ids: Sequence[str],
    entity_ids: Sequence[str],
    mentions_of: Mapping[NodeKind, Sequence[str]] | None,
    seed_ids: Sequence[str],
    mentioning: Sequence[NodeKind],
    mentioning_limit: int | None,
) -> tuple[list[str], list[str], list[str], dict[NodeKind, list[str]], list[str], list[NodeKind]]:
    """The id lists and kinds of a :meth:`GraphStore.gather`, checked, without repeats.

    The walk's own arguments (depth, types, direction, scope, cap) are checked as
    :meth:`GraphStore.expand` checks them, by the backend.

    Raises:
        InvalidInput: A list that is not a list of non-empty string ids, a kind that is
            not ``turn`` or ``chunk``, or a ``mentioning_limit`` that is not a positive
            integer.
    """
    if mentions_of is not None and not isinstance(mentions_of, Mapping):
        raise InvalidInput("mentions_of maps node kinds to lists of ids, e.g. {'chunk': ['c1']}")
    of: dict[NodeKind, list[str]] = {}
    for kind, ids in (mentions_of or {}).items():
        _check_mention_kinds([kind], "the kinds of mentions_of")
        of[kind] = _check_id_list(ids, f"mentions_of[{kind!r}]")
    if mentioning_limit is not None and (
        not isinstance(mentioning_limit, int)
        or isinstance(mentioning_limit, bool)
        or mentioning_limit <= 0
    ):
        raise InvalidInput(
            f"mentioning_limit must be a positive integer, got {mentioning_limit!r}",
            limit=mentioning_limit,
        )
    return (
        _check_id_list(chunk_ids, "chunk_ids"),
        _check_id_list(turn_ids, "turn_ids"),
        _check_id_list(entity_ids, "entity_ids"),
        of,
        _check_id_list(seed_ids, "seed_ids"),
        _check_mention_kinds(mentioning, "mentioning"),
    )
