"""The rooms together: :data:`ROOMS`, their union :class:`GraphStore`, which a store satisfies."""

from __future__ import annotations

import inspect
from typing import Any, Protocol, runtime_checkable

from graphmem.core.contract.conversations import ConversationStore
from graphmem.core.contract.graph import BaseStore, EntityGraphStore
from graphmem.core.contract.records import RecordStore, TenantAdmin
from graphmem.core.contract.search import SearchStore

ROOMS: tuple[type[Any], ...] = (
    BaseStore,
    EntityGraphStore,
    ConversationStore,
    SearchStore,
    RecordStore,
    TenantAdmin,
)
"""Every room of the contract, in order; :class:`graphmem.core.store.GraphStore` is their union."""


WRITE_METHODS = frozenset(
    {
        "upsert_entities",
        "update_entity",
        "delete_entities",
        "upsert_relationships",
        "delete_relationship",
        "invalidate_relationship",
        "append_turn",
        "append_turns",
        "fork",
        "delete_turn",
        "delete_conversation",
        "put_records",
        "write_records",
        "write_changes",
        "delete_records",
        "upsert_chunks",
        "delete_chunks",
        "link_mentions",
        "put_embeddings",
        "load",
        "clear",
    }
)
"""The operations of the contract that write: a read-only store refuses each of them."""

_members: dict[type[Any], dict[str, bool]] = {}


def _operations(protocol: type[Any]) -> dict[str, bool]:
    """The protocol's public members, each mapped to whether it is a method."""
    members = _members.get(protocol)
    if members is None:
        if not getattr(protocol, "_is_protocol", False):
            raise TypeError(f"{protocol!r} is not a typing.Protocol")
        members = {}
        for cls in protocol.__mro__:
            if cls is Protocol or not getattr(cls, "_is_protocol", False):
                continue
            for name, value in vars(cls).items():
                if not name.startswith("_") and (callable(value) or isinstance(value, property)):
                    members.setdefault(name, not isinstance(value, property))
        _members[protocol] = members
    return members


def protocol_members(protocol: type[Any]) -> frozenset[str]:
    """The public operations and properties a protocol (a room, or a union of rooms) names.

    >>> sorted(protocol_members(TenantAdmin))
    ['clear', 'dump', 'list_tenants', 'load']

    Raises:
        TypeError: ``protocol`` is not a ``typing.Protocol``.
    """
    return frozenset(_operations(protocol))


def store_supports(store: object, protocol: type[Any]) -> bool:
    """Whether ``store`` has every member of ``protocol``: each present, methods callable.

    A structural check like ``isinstance`` with a runtime-checkable protocol, but without
    evaluating properties (so it answers for a closed store too; a property of the
    protocol may be a plain attribute of the store). It calls nothing: a backend that has
    an operation but cannot run it in some setting still raises ``UnsupportedOperation``
    with the reason when it is called.

    Raises:
        TypeError: ``protocol`` is not a ``typing.Protocol``.
    """
    for name, is_method in _operations(protocol).items():
        try:
            value = inspect.getattr_static(store, name)
        except AttributeError:
            return False
        if isinstance(value, staticmethod | classmethod):
            value = value.__func__
        if is_method and not callable(value):
            return False
    return True


def satisfied_protocols(store: object) -> frozenset[type[Any]]:
    """The rooms of the contract that ``store`` satisfies (see :func:`store_supports`).

    >>> import graphmem
    >>> store = graphmem.open_store("memory://")
    >>> satisfied_protocols(store) == frozenset(ROOMS)
    True
    >>> store.close()
    """
    return frozenset(room for room in ROOMS if store_supports(store, room))


@runtime_checkable
class GraphStore(
    BaseStore,
    EntityGraphStore,
    ConversationStore,
    SearchStore,
    RecordStore,
    TenantAdmin,
    Protocol,
):
    """The one storage contract: the union of the rooms of :mod:`graphmem.core.contract`.

    :class:`~graphmem.core.contract.BaseStore` (``url``, ``capabilities``, ``close``),
    :class:`~graphmem.core.contract.EntityGraphStore` (entities, relationships, traversal,
    identity, the entity version), :class:`~graphmem.core.contract.ConversationStore` (turns,
    branches, the session log), :class:`~graphmem.core.contract.SearchStore` (chunks, mentions,
    embeddings, search, expand, what one retrieve reads: ``search_context``, ``gather``),
    :class:`~graphmem.core.contract.RecordStore` (generic records, ``write_changes``) and
    :class:`~graphmem.core.contract.TenantAdmin` (dump, load, clear, list of tenants). Every
    method but ``list_tenants`` takes the tenant first.

    Errors: unknown ids raise ``NotFound``; bad arguments ``InvalidInput`` (and a failed
    batch writes nothing); an empty tenant ``IdentityRequired``; a closed store
    ``StoreClosed``; an unreachable server ``BackendUnavailable``.

    Which rooms a store satisfies is :func:`satisfied_protocols`; ``capabilities`` holds
    the flags that are not operations (``persistence``, ``concurrent_writers``,
    ``inline_reads``).
    """
