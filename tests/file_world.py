"""A small world touching every table of a file:// store, and a fingerprint of a store.

Used by the file store tests (corruption, conversion, readers) and run as a script by the
crash test: ``python file_world.py stream URL`` writes forever, printing one line per
acknowledged write, until it is killed.
"""

from __future__ import annotations

import json
import sys
from datetime import UTC, datetime, timedelta
from typing import Any

import graphmem
from graphmem import (
    Chunk,
    Entity,
    GraphStore,
    Provenance,
    Record,
    Relationship,
    Turn,
)

TENANTS = ("village", "keep")
EPOCH = datetime(2025, 1, 1, tzinfo=UTC)


def build(store: GraphStore, tenant: str, size: int = 12) -> None:
    """Entities, relationships (one invalidated), a forked conversation, records, chunks,
    mentions and embeddings of all three kinds."""
    from graphmem.retrieval import HashingEmbedder

    entities = [
        Entity(
            id=f"n{i}",
            type="npc" if i % 3 else "location",
            name=f"Name {i} \u00e9\u4e16",
            attributes={"level": i, "tags": ["a", {"deep": [i, 1.5, None, True]}]},
        )
        for i in range(size)
    ]
    store.upsert_entities(tenant, entities)
    rels = [
        Relationship(
            source_id=f"n{i}",
            target_id=f"n{(i * 5 + 1) % size}",
            type=("knows", "hates", "owns")[i % 3],
            attributes={"since": i},
            provenance=Provenance(confidence=0.5 + i / (4 * size), evidence=(f"ev{i}",)),
            valid_at=EPOCH + timedelta(days=i),
        )
        for i in range(size)
    ]
    rels.append(Relationship(source_id="n1", target_id="n1", type="knows"))  # a self-loop
    store.upsert_relationships(tenant, rels)
    store.invalidate_relationship(tenant, "n0", "n1", "knows")
    first = store.append_turn(tenant, Turn(session_id="s1", role="player", content="Hello"))
    store.append_turn(tenant, Turn(session_id="s1", role="npc", content="Go away"))
    store.fork(tenant, "s1", first.id)
    store.append_turn(tenant, Turn(session_id="s1", role="npc", content="Welcome", speaker="n1"))
    store.append_turn(tenant, Turn(session_id="s2", role="gm", content="Night falls"))
    store.append_turn(
        tenant,
        Turn(
            session_id="s2",
            role="assistant",
            content="The mill closes at dusk.",
            trajectory={"tools": [{"name": "search", "summary": "mill hours"}], "reasoning": "r"},
            artifacts=[{"id": "hours", "media_type": "text/plain", "content": "dusk"}],
            hidden_artifacts=[{"id": "scratch", "uri": "file:///tmp/scratch"}],
        ),
    )
    store.put_records(
        tenant, "note", [Record(id=f"r{i}", kind="note", data={"i": i}) for i in range(3)]
    )
    beliefs = [
        Record(
            id=f"b{i}",
            kind="belief",
            owner=f"n{i % 2}",
            data={"about": f"n{i}", "held": True},
            blob=bytes([i, 0, 255, 10]),
        )
        for i in range(4)
    ]
    store.put_records(tenant, "belief", beliefs)
    # One atomic write of several kinds: an owner moved, an audit entry, two deletes.
    store.write_records(
        tenant,
        [
            beliefs[0].model_copy(update={"owner": "n1", "data": {"about": "n0", "held": False}}),
            Record(id="a0", kind="audit", owner="n1", data={"seq": 0, "prev": None}),
        ],
        delete={"belief": ["b3"], "note": ["r2"]},
    )
    chunks = [Chunk(id=f"c{i}", text=f"Lore {i} of the river", source="lore.md") for i in range(4)]
    store.upsert_chunks(tenant, chunks)
    store.link_mentions(tenant, "chunk", {"c0": ["n0", "n1"], "c1": ["n2"]})
    store.link_mentions(tenant, "turn", {first.id: ["n1"]})
    embedder = HashingEmbedder(16)
    store.put_embeddings(
        tenant, "chunk", [c.id for c in chunks], embedder.embed([c.text for c in chunks])
    )
    store.put_embeddings(tenant, "entity", ["n0", "n1"], embedder.embed(["zero", "one"]))
    turns = store.list_turns(tenant, "s1")
    store.put_embeddings(
        tenant, "turn", [t.id for t in turns], embedder.embed([t.content for t in turns])
    )


def fingerprint(store: GraphStore, tenants: tuple[str, ...] = TENANTS) -> dict[str, Any]:
    """Everything a user can read from the store, as plain JSON data."""
    import numpy as np

    out: dict[str, Any] = {}
    probe = np.linspace(-1, 1, 16, dtype=np.float32)
    for tenant in tenants:
        dump = store.dump(tenant)
        entity_ids = [e.id for e in dump.entities]
        out[tenant] = {
            "entities": [e.model_dump(mode="json") for e in dump.entities],
            "relationships": [r.model_dump(mode="json") for r in dump.relationships],
            "turns": sorted((t.model_dump(mode="json") for t in dump.turns), key=lambda t: t["id"]),
            "heads": dump.heads,
            "records": [r.model_dump(mode="json") for r in dump.records],
            "owned": {
                kind: {
                    owner: [r.id for r in store.find_records(tenant, kind, owner=owner)]
                    for owner in ("n0", "n1", "n2")
                }
                for kind in sorted({r.kind for r in dump.records})
            },
            "chunks": [c.model_dump(mode="json") for c in dump.chunks],
            "mentions": sorted(dump.mentions),
            "snapshots": [
                store.identity_snapshot(tenant, i).model_dump(mode="json") for i in entity_ids
            ],
            "branches": {s: [t.id for t in store.branch(tenant, s)] for s in sorted(dump.heads)},
            "vectors": {
                kind: [
                    (hit.id, round(hit.score, 5))
                    for hit in store.vector_search(tenant, kind, probe, 50)
                ]
                for kind in ("entity", "turn", "chunk")
                if store.embedding_dimension(tenant, kind) == 16
            },
        }
    return out


def _stream(url: str) -> None:
    """Write until killed; print each acknowledged write (flushed) as one JSON line."""
    store = graphmem.open_store(url)
    i = 0
    while True:
        entity = Entity(id=f"w{i}", type="npc", name=f"Writer {i}", attributes={"i": i})
        store.upsert_entities("crash", [entity])
        print(json.dumps(["entity", entity.id]), flush=True)
        if i:
            rel = Relationship(source_id=f"w{i}", target_id=f"w{i - 1}", type="follows")
            store.upsert_relationships("crash", [rel])
            print(json.dumps(["relationship", rel.source_id, rel.target_id]), flush=True)
        turn = store.append_turn("crash", Turn(session_id="log", role="gm", content=f"line {i}"))
        print(json.dumps(["turn", turn.id]), flush=True)
        if i % 7 == 3:
            store.delete_entities("crash", [f"w{i - 3}"])
            print(json.dumps(["deleted", f"w{i - 3}"]), flush=True)
        i += 1


if __name__ == "__main__":
    _stream(sys.argv[2])
