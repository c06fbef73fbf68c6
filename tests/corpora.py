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


# "Which river flows through the town where the composer of Glass Lanterns was born?" Six
# decoys about composers born in river towns are the best passages by text and name no
# one; the opera's own page rises through the opera's name (the question writes it) and
# names its composer, Oren Vask, whose page only a second round reaches
# (``FusionSettings.follow_rounds``).
OPERA = [
    (
        "opera",
        "Glass Lanterns",
        "Glass Lanterns is an opera in three acts by Oren Vask, first staged in 1961.",
    ),
    (
        "vask",
        "Oren Vask",
        "Oren Vask was born in Tarnel and studied the organ before writing for the stage.",
    ),
] + [
    (
        f"d{i}",
        f"Composer {i}",
        f"Composer {i} was born in a town where a river flows through the old market; "
        f"the river town and its composer are famous for {i} songs.",
    )
    for i in range(6)
]
OPERA_QUESTION = "Which river flows through the town where the composer of Glass Lanterns was born?"


def ingest_opera(memory: Memory) -> None:
    """The opera and the composer as entities their pages are about, then the passages."""
    memory.upsert_entities(
        [
            Entity(id="opera", type="concept", name="Glass Lanterns"),
            Entity(id="vask", type="npc", name="Oren Vask"),
        ]
    )
    memory.add_documents(
        [
            {"id": pid, "title": title, "text": text, "entity_ids": [pid]}
            if pid in ("opera", "vask")
            else {"id": pid, "title": title, "text": text}
            for pid, title, text in OPERA
        ],
        chunk_tokens=1000,
        overlap=0,
    )
