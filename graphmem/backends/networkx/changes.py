"""The apply step of the embedded backend's change records, one function per part.

:meth:`NetworkXBase._apply <graphmem.backends.networkx.base.NetworkXBase._apply>` reads
a record's ``op`` and calls these; they change a tenant's state and keep its indexes in
step. Every check was made before the record was: nothing here can fail half-way.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import networkx as nx

from graphmem.backends.networkx.state import _Session, _Tenant
from graphmem.core.models import chunk_search_text, entity_text


def remove_entities(data: _Tenant, ids: Sequence[str]) -> None:
    """Delete entities, their edges and their index entries."""
    for entity_id in ids if data.names is not None else ():
        data.unname(entity_id)
    data.graph.remove_nodes_from(ids)
    data.forget_nodes("entity", ids)


def apply_put(data: _Tenant, record: dict[str, Any]) -> None:
    """Store what a ``put`` record holds, keeping every index in step."""
    graph = data.graph
    nodes = graph._node  # direct dict access: this is the hot path of bulk ingest
    texts = data.texts
    entity_index = texts.get("entity")
    named = data.names is not None  # else the index is built from the models when asked
    for entity in record.get("entities", ()):
        if named:
            data.name_entity(entity)
        if entity.id in nodes:
            nodes[entity.id]["e"] = entity
        else:
            graph.add_node(entity.id, e=entity)
        if entity_index is not None:
            entity_index.set(entity.id, entity_text(entity))
    chunk_index = texts.get("chunk")
    for chunk in record.get("chunks", ()):
        data.chunks[chunk.id] = chunk
        if chunk_index is not None:
            chunk_index.set(chunk.id, chunk_search_text(chunk))
    turn_index = texts.get("turn")
    rels = record.get("relationships")
    if rels:
        # Straight into networkx's adjacency (what add_edge does, at a third of the cost);
        # both ends are stored entities, checked before the record was made.
        succ, pred, factory = graph._succ, graph._pred, graph.edge_attr_dict_factory
        for rel in rels:
            source, target = rel.source_id, rel.target_id
            keydict = succ[source].get(target)
            if keydict is None:
                keydict = succ[source][target] = pred[target][source] = {}
            edge = keydict.get(rel.type)
            if edge is None:
                edge = keydict[rel.type] = factory()
            edge["r"] = rel
        nx._clear_cache(graph)
    for turn in record.get("turns", ()):
        old = data.turns.get(turn.id)
        if old is not None and old.parent_id is not None and old.parent_id != turn.parent_id:
            data.children[old.parent_id].remove(turn.id)
        data.turns[turn.id] = turn
        if turn_index is not None and (old is None or old.content != turn.content):
            turn_index.set(turn.id, turn.content)
        if turn.parent_id is not None and (old is None or old.parent_id != turn.parent_id):
            data.children.setdefault(turn.parent_id, []).append(turn.id)
        session = data.sessions.get(turn.session_id)
        if session is None:
            session = data.sessions[turn.session_id] = _Session()
        session.order[turn.id] = None
    for stored in record.get("records", ()):
        data.put_record(stored)
    for session_id, head in record.get("heads", {}).items():
        session = data.sessions.get(session_id)
        if session is None:
            session = data.sessions[session_id] = _Session()
        session.head = head
    for kind, node_id, entity_id in record.get("mentions", ()):  # added to what is there
        data.sorted_mentions[kind].pop(entity_id, None)
        data.mentions[kind].setdefault(node_id, set()).add(entity_id)
        data.mentioned_by[kind].setdefault(entity_id, set()).add(node_id)


def apply_delete_records(data: _Tenant, kind: str, ids: Sequence[str]) -> None:
    """Delete records of one kind by id, keeping the owner index in step."""
    by_id = data.records.get(kind, {})
    for record_id in ids:
        gone = by_id.pop(record_id, None)
        if gone is not None and gone.owner is not None:
            data.disown(gone)
    if not by_id:
        data.records.pop(kind, None)


def apply_delete_turn(data: _Tenant, turn_id: str) -> None:
    """Delete one turn; its children move up to its parent, and so does the head."""
    turn = data.turns.pop(turn_id)
    session = data.sessions[turn.session_id]
    del session.order[turn_id]
    parent = turn.parent_id
    for child_id in data.children.pop(turn_id, []):
        data.turns[child_id] = data.turns[child_id].model_copy(update={"parent_id": parent})
        if parent is not None:
            data.children.setdefault(parent, []).append(child_id)
    if parent is not None:
        data.children[parent].remove(turn_id)
    if session.head == turn_id:
        session.head = parent
    if not session.order:
        del data.sessions[turn.session_id]
