"""Small hand-made corpora shared by the unit and the Neo4j integration tests."""

from __future__ import annotations

from graphmem import Entity, Memory

# "When was the astronomical clock built in the city where Karel Purkyne died?" Purkyne's
# passage names Prague; the clock's passage names Prague only inside the clock's own name
# (a nested mention). Two decoys share the question's clock words.
CLOCK = [
    ("purkyne", "Karel Purkyne", "Karel Purkyne was a painter. He died in Prague in 1868."),
    ("clock", "Prague astronomical clock", "The Prague astronomical clock dates from 1410."),
    ("lyon", "Lyon clock", "Lyon has an astronomical clock from the fourteenth century."),
    ("wells", "Wells clock", "The Wells clock was built around 1390, astronomical and old."),
]
CLOCK_QUESTION = "When was the astronomical clock built in the city where Karel Purkyne died?"


def ingest_clock(memory: Memory, *, nested: bool = True) -> None:
    """Each passage's title as an entity it is about, Prague, then the passages."""
    memory.upsert_entities(
        [Entity(id=f"t-{pid}", type="concept", name=title) for pid, title, _t in CLOCK]
        + [Entity(id="prague", type="location", name="Prague")]
    )
    memory.add_documents(
        [
            {"id": pid, "title": title, "text": text, "entity_ids": [f"t-{pid}"]}
            for pid, title, text in CLOCK
        ],
        chunk_tokens=1000,
        overlap=0,
        nested_mentions=nested,
    )
