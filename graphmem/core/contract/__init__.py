"""The storage contract in rooms: one small protocol per area of the store.

:class:`GraphStore` is the union of these protocols; a store that has
every operation of a room *satisfies* it (:func:`satisfied_protocols`). Logic that needs
one area only can type its store with that room (conversations need a
:class:`ConversationStore`), and the conformance suite runs each test module on the
backends that satisfy the rooms it exercises.

::

    BaseStore           url, capabilities, close                 every store
    EntityGraphStore    entities, relationships, traversal,      the graph
                        identity snapshot, entity version
    ConversationStore   turns, branches, turn windows,           conversations
                        the session log
    SearchStore         chunks, mentions, embeddings, vector /   retrieval's indexes
                        full-text / hybrid search, expand,
                        search_context, gather
    RecordStore         generic records by kind, write_changes   policy, minds
                        (records with graph edges, atomically)
    TenantAdmin         dump, load, clear, list_tenants          the whole tenant

Every operation but ``list_tenants`` takes the tenant first. An empty tenant raises
``IdentityRequired`` before anything is read or written (fail closed); nothing is ever
read across tenants.

One module per room or two (``graph``, ``conversations``, ``search``, ``records``), the data
they pass (``data``) and the rooms together (``rooms``). The package imports only
:mod:`graphmem.core.models` (and numpy's types, for checking).
"""

from __future__ import annotations

from graphmem.core.contract.conversations import ConversationStore
from graphmem.core.contract.data import (
    MAX_TURN_WINDOW,
    ChangeSet,
    Gathered,
    JSONScalar,
    RelationshipPattern,
    RoleCooccurrence,
    ScopedHits,
    ScopedSearch,
    SearchContext,
    SearchHit,
    SearchPair,
    TenantDump,
)
from graphmem.core.contract.graph import BaseStore, EntityGraphStore
from graphmem.core.contract.records import RecordStore, TenantAdmin
from graphmem.core.contract.rooms import (
    ROOMS,
    WRITE_METHODS,
    GraphStore,
    protocol_members,
    satisfied_protocols,
    store_supports,
)
from graphmem.core.contract.search import SearchStore

__all__ = [
    "MAX_TURN_WINDOW",
    "ROOMS",
    "WRITE_METHODS",
    "BaseStore",
    "ChangeSet",
    "ConversationStore",
    "EntityGraphStore",
    "Gathered",
    "GraphStore",
    "JSONScalar",
    "RecordStore",
    "RelationshipPattern",
    "RoleCooccurrence",
    "ScopedHits",
    "ScopedSearch",
    "SearchContext",
    "SearchHit",
    "SearchPair",
    "SearchStore",
    "TenantAdmin",
    "TenantDump",
    "protocol_members",
    "satisfied_protocols",
    "store_supports",
]
