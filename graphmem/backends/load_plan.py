"""``plan_load``: a tenant dump checked without the store, and arranged for writing.

Both backends load a :class:`~graphmem.core.store.TenantDump` all or nothing. What can be
checked from the dump alone is checked here, once, for both: the models (see
:mod:`graphmem.backends.model_checks`), turn ids repeated, a parent or a head in another
session, a cycle of parents, the shape of the mentions. What needs the stored tenant is
left to the backend, and named by the plan: the turn ids it must not hold yet
(:attr:`LoadPlan.turn_ids`), the parents and heads outside the dump it must hold as
turns of the same session (:attr:`LoadPlan.refs`), the entity and node ids the
relationships and mentions need. :func:`turns_taken` and :func:`turns_missing` are the
errors for those, the same on every backend.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from graphmem.backends.model_checks import check_models, check_records, dedupe
from graphmem.core.checks import check_id
from graphmem.core.errors import InvalidInput
from graphmem.core.models import Chunk, Entity, Record, Relationship, Turn
from graphmem.core.store import TenantDump

__all__ = ["MENTION_KINDS", "LoadPlan", "plan_load", "turns_missing", "turns_taken"]

MENTION_KINDS = ("turn", "chunk")
"""The kinds of node a ``MENTIONS`` edge starts from, in the order a dump lists them."""


@dataclass(frozen=True, slots=True)
class LoadPlan:
    """A dump, checked, with what the backend must still check against the tenant.

    Attributes:
        entities: The dump's entities, one per id (the last wins).
        relationships: Its relationships, one per ``(source, target, type)``.
        turns: Its turns, in the dump's order.
        parents_first: The same turns with every parent in the dump before its
            children (else in the dump's order): an order that numbers every branch
            upwards.
        turn_ids: The dump's turn ids, each once; none may be stored already.
        links: ``(turn_id, parent_id)`` of every turn that has a parent.
        refs: ``(turn_id, session_id)`` of each parent or head outside the dump: it must
            be a stored turn of that session.
        heads: The head to set per session: the one the dump names, else the session's
            last turn in ``parents_first`` (never a parent of another turn of the dump).
        records: Its records, one per ``(kind, id)``.
        chunks: Its chunks, one per id.
        mentions: Its ``(kind, node_id, entity_id)`` triples, each once, in order.
    """

    entities: list[Entity]
    relationships: list[Relationship]
    turns: list[Turn]
    parents_first: list[Turn]
    turn_ids: list[str]
    links: list[tuple[str, str]]
    refs: list[tuple[str, str]]
    heads: dict[str, str]
    records: list[Record]
    chunks: list[Chunk]
    mentions: list[tuple[str, str, str]]

    def mentions_by_kind(self) -> dict[str, list[tuple[str, str]]]:
        """The mentions as ``(node_id, entity_id)`` pairs, by kind."""
        out: dict[str, list[tuple[str, str]]] = {}
        for kind, node_id, entity_id in self.mentions:
            out.setdefault(kind, []).append((node_id, entity_id))
        return out


def plan_load(dump: object) -> LoadPlan:
    """Check ``dump`` without the store; return what to write and what to check there.

    Raises:
        InvalidInput: The dump is not a ``TenantDump``, or a part of it is bad: a model
            or id that cannot be stored, a turn id twice, a parent or a head of another
            session, a cycle of parents, a mention that is not
            ``(kind, node_id, entity_id)``.
    """
    if not isinstance(dump, TenantDump):
        raise InvalidInput("load takes a TenantDump")
    turns = check_models(dump.turns, Turn, "dump.turns")
    by_id: dict[str, Turn] = {}
    for turn in turns:
        if turn.id in by_id:
            raise InvalidInput(f"turn id {turn.id!r} occurs twice in the dump", turn_id=turn.id)
        by_id[turn.id] = turn
    links: list[tuple[str, str]] = []
    refs: list[tuple[str, str]] = []
    for turn in turns:
        if turn.parent_id is None:
            continue
        parent = by_id.get(turn.parent_id)
        if parent is None:
            refs.append((turn.parent_id, turn.session_id))
        elif parent.session_id != turn.session_id:
            raise InvalidInput(
                f"turn {turn.id!r} of session {turn.session_id!r} names parent "
                f"{turn.parent_id!r} of session {parent.session_id!r}",
                turn_id=turn.id,
            )
        links.append((turn.id, turn.parent_id))
    parents_first = _parents_first(turns, by_id)
    # Without a head named, the session's last turn in an order where every parent comes
    # before its children: a dump that lists a child before its parent still ends its
    # branch at the child, not wherever the dump happened to stop.
    heads: dict[str, str] = {turn.session_id: turn.id for turn in parents_first}
    for session_id, head_id in _check_heads(dump.heads).items():
        if head_id is None:
            continue  # the session's last turn in parents_first, if it has any
        head = by_id.get(head_id)
        if head is None:
            refs.append((head_id, session_id))
        elif head.session_id != session_id:
            raise InvalidInput(
                f"the head of session {session_id!r} is turn {head_id!r} of session "
                f"{head.session_id!r}",
                session_id=session_id,
            )
        heads[session_id] = head_id
    return LoadPlan(
        entities=dedupe(check_models(dump.entities, Entity, "dump.entities"), lambda e: e.id),
        relationships=dedupe(
            check_models(dump.relationships, Relationship, "dump.relationships"),
            lambda r: r.key,
        ),
        turns=turns,
        parents_first=parents_first,
        turn_ids=list(by_id),
        links=links,
        refs=refs,
        heads=heads,
        records=dedupe(check_records(dump.records, None, "dump.records"), lambda r: (r.kind, r.id)),
        chunks=dedupe(check_models(dump.chunks, Chunk, "dump.chunks"), lambda c: c.id),
        mentions=_check_mentions(dump.mentions),
    )


def turns_taken(tenant: str, turn_ids: Iterable[str]) -> InvalidInput:
    """The error of a load whose turn ids the tenant holds already."""
    taken = sorted(turn_ids)
    return InvalidInput(
        f"turn ids already stored in tenant {tenant!r}: {', '.join(map(repr, taken))}; a load "
        "adds new turns only (nothing was written)",
        turn_ids=taken,
    )


def turns_missing(turn_ids: Iterable[str]) -> InvalidInput:
    """The error of a load naming parents or heads that are not stored turns."""
    missing = sorted(set(turn_ids))
    return InvalidInput(
        "parents or heads that are neither in the dump nor turns of the same session: "
        f"{', '.join(map(repr, missing))} (nothing was written)",
        turn_ids=missing,
    )


def _check_heads(heads: object) -> Mapping[str, str | None]:
    if not isinstance(heads, Mapping):
        raise InvalidInput("dump.heads takes a mapping of session id to head turn id")
    for session_id, head_id in heads.items():
        check_id(session_id, "session id in heads")
        if head_id is not None:
            check_id(head_id, "head id")
    return heads


def _check_mentions(mentions: object) -> list[tuple[str, str, str]]:
    """A dump's ``(kind, node_id, entity_id)`` triples, checked, each once."""
    if isinstance(mentions, str | Mapping) or not isinstance(mentions, Iterable):
        raise InvalidInput("dump.mentions takes a list of (kind, node_id, entity_id)")
    out: dict[tuple[str, str, str], None] = {}
    for index, mention in enumerate(mentions):
        if not isinstance(mention, tuple | list) or len(mention) != 3:
            raise InvalidInput(f"mentions[{index}] must be (kind, node_id, entity_id)")
        kind, node_id, entity_id = mention
        if not isinstance(kind, str) or kind not in MENTION_KINDS:
            raise InvalidInput(
                f"mentions[{index}] kind must be one of {MENTION_KINDS}, got {kind!r}",
                kind=kind,
            )
        triple = (
            kind,
            check_id(node_id, f"mentions[{index}] node_id"),
            check_id(entity_id, f"mentions[{index}] entity_id"),
        )
        out[triple] = None
    return list(out)


def _parents_first(turns: Sequence[Turn], by_id: Mapping[str, Turn]) -> list[Turn]:
    """The dump's turns with every parent in the dump before its children (else in order).

    The Neo4j backend numbers each session's turns in this order (``seq``), which keeps
    ``seq`` increasing along every branch: the active branch is read newest first by
    ``seq``. Linear: each turn is walked once. A cycle of parents (which would never
    reach a root) is ``InvalidInput``.
    """
    done: set[str] = set()
    ordered: list[Turn] = []
    for turn in turns:
        path: list[Turn] = []
        on_path: set[str] = set()
        step: Turn | None = turn
        while step is not None and step.id not in done:
            if step.id in on_path:
                raise InvalidInput(f"the parents of turn {turn.id!r} form a cycle", turn_id=turn.id)
            on_path.add(step.id)
            path.append(step)
            step = by_id.get(step.parent_id) if step.parent_id else None
        for ancestor in reversed(path):
            done.add(ancestor.id)
            ordered.append(ancestor)
    return ordered
