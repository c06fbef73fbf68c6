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


# "Which coin came before the Lumen in the country Tavi Rask is from?" The Lumen's page is
# one document in three passages, each about the Lumen; the next hop, the Oskarian crown,
# is reached from Tavi Rask's passage through Oskaria (``FusionSettings.page_bridges``).
COIN_QUESTION = "Which coin came before the Lumen in the country Tavi Rask is from?"
LUMEN = (
    "The Lumen is the coin of the union, used by Oskaria, Vellmark, Dunor and Pellia.\n\n"
    "The Lumen came into use in 2002, when its notes and coins went into circulation "
    "across the union.\n\n"
    "The Lumen is managed by the union bank, which sets the rate of the coin for every member."
)
COINS = [
    ("rask", "Tavi Rask", "Tavi Rask is a singer from Oskaria who sings in sign language."),
    ("lumen", "Lumen", LUMEN),
    ("crown", "Oskarian crown", "The Oskarian crown was Oskaria's coin before the Lumen came."),
    ("vell", "Vellmark", "Vellmark is a small country by the sea."),
    ("dunor", "Dunor", "Dunor is a country of lakes and hills."),
]
COIN_DECOYS = [
    (f"d{i}", f"Decoy {i}", f"A decoy passage number {i} about rivers, hills and the weather.")
    for i in range(30)
]


def ingest_coins(memory: Memory) -> None:
    """The passages, titles as entities; the Lumen's document cut into three passages."""
    memory.add_documents(
        [{"id": i, "title": t, "text": x} for i, t, x in COINS + COIN_DECOYS],
        chunk_tokens=30,
        overlap=0,
        title_entities=True,
    )
