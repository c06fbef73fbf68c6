"""Brindleford: a small fantasy village to try graphmem on, written for this project.

Brindleford is a river-crossing village on the slow, brown Brindle. Odile Marrow runs the
only ferry; the Lantern Guild keeps the toll; the Reedwatch keeps the peace; and the
Grey Tithe smuggles whatever pays. The world holds 30 entities (NPCs with the well-known
attributes, a player, factions, locations, items, quests and an event), a game master's
session log of three sessions, and about 80 relationships whose provenance points at the
turns of that log. One fact (Odile trusts Halden the miller) is contradicted in session 3:
it is invalidated, not deleted, and replaced by the new fact (Odile distrusts Halden),
which the game master confirms.

>>> import graphmem
>>> from graphmem.tools.demos.village import MAIN_NPC_ID, build_demo_world
>>> with graphmem.open("memory://", tenant="brindleford") as mem:
...     build_demo_world(mem)
...     print(mem.identity_snapshot(MAIN_NPC_ID).to_prompt().splitlines()[0])
Odile Marrow (npc)
"""

from __future__ import annotations

from datetime import datetime
from typing import Any, NamedTuple

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, Provenance, Relationship, Turn
from graphmem.memory import Memory

__all__ = [
    "CONTRADICTED_FACT",
    "DEMO_TENANT",
    "DemoFact",
    "ENTITIES",
    "FACTS",
    "MAIN_NPC_ID",
    "PLAYER_ID",
    "REPLACEMENT_FACT",
    "SESSION_LOG",
    "build_demo_world",
]

DEMO_TENANT = "brindleford"
"""The tenant the CLI demo and the quickstart notebook use."""

MAIN_NPC_ID = "odile"
"""Odile Marrow, the ferrywoman: the NPC with the richest identity."""

PLAYER_ID = "kestrel"
"""Kestrel Vane, the player character."""


# --------------------------------------------------------------------------- entities

# (id, type, name, attributes)
ENTITIES: tuple[tuple[str, str, str, dict[str, Any]], ...] = (
    # -- locations
    (
        "brindleford",
        "location",
        "Brindleford",
        {
            "kind": "village",
            "description": "Reed roofs and tarred pilings where the old road crosses the Brindle.",
        },
    ),
    ("ferry_landing", "location", "The Ferry Landing", {"kind": "jetty"}),
    ("copper_kettle", "location", "The Copper Kettle", {"kind": "inn", "rooms": 6}),
    ("crooks_mill", "location", "Crook's Mill", {"kind": "watermill"}),
    ("reedwatch_tower", "location", "Reedwatch Tower", {"kind": "watchtower"}),
    ("sunken_chapel", "location", "The Sunken Chapel", {"kind": "chapel", "flooded": True}),
    ("ashgrove", "location", "Ashgrove", {"kind": "wood"}),
    ("market_square", "location", "Market Square", {"kind": "square", "market_day": "Thursday"}),
    ("ashby_forge", "location", "Ashby's Forge", {"kind": "smithy"}),
    # -- NPCs
    (
        "odile",
        "npc",
        "Odile Marrow",
        {
            "occupation": "ferrywoman",
            "appearance": "broad-shouldered, grey braid under an oilskin hood, "
            "a tally of notches cut into her pole",
            "speaking_style": "few words, river sayings, never says a plain yes",
            "personality": "wary of strangers, fiercely loyal once won, forgets no debt",
            "alignment": "lawful neutral",
            "age": 52,
            "secret": "heard the Drowned Bell ring under the water on the Night of High Water",
        },
    ),
    (
        "bram",
        "npc",
        "Bram Tallow",
        {
            "occupation": "innkeeper",
            "appearance": "round, red-cheeked, flour on his apron from the morning bread",
            "speaking_style": "loud and warm, calls everyone 'friend', repeats gossip as fact",
            "personality": "generous, nosy, cannot keep a secret past the second ale",
            "alignment": "neutral good",
        },
    ),
    (
        "wren",
        "npc",
        "Wren Ashby",
        {
            "occupation": "blacksmith",
            "appearance": "short, burn-scarred forearms, hair cropped close",
            "speaking_style": "blunt, answers questions with questions",
            "personality": "proud of her work, slow to anger, slower to forgive",
            "alignment": "lawful good",
        },
    ),
    (
        "halden",
        "npc",
        "Halden Crook",
        {
            "occupation": "miller",
            "appearance": "tall and stooped, always dusted white, rings on every finger",
            "speaking_style": "smooth, flattering, changes the subject when pressed",
            "personality": "charming, greedy, frightened of the Reedwatch",
            "alignment": "neutral evil",
        },
    ),
    (
        "ilse",
        "npc",
        "Sister Ilse Fenwick",
        {
            "occupation": "chapel keeper",
            "appearance": "thin, wet hems, a bronze clapper on a cord round her neck",
            "speaking_style": "quiet, formal, quotes the old river litany",
            "personality": "patient, stubborn, grieving for her chapel",
            "alignment": "lawful good",
        },
    ),
    (
        "maelis",
        "npc",
        "Captain Maelis Roe",
        {
            "occupation": "warden of the Reedwatch",
            "appearance": "one-eyed, green cloak, a reed badge pinned at the throat",
            "speaking_style": "clipped orders, dry humour",
            "personality": "dutiful, suspicious of outsiders, fair",
            "alignment": "lawful neutral",
        },
    ),
    (
        "pip",
        "npc",
        "Pip Nettle",
        {
            "occupation": "errand runner",
            "appearance": "twelve, barefoot, pockets full of string and pebbles",
            "speaking_style": "fast, breathless, exaggerates everything",
            "personality": "curious, brave, hungry",
            "alignment": "chaotic good",
        },
    ),
    (
        "gorran",
        "npc",
        "Gorran Reedcutter",
        {
            "occupation": "reed cutter and hermit",
            "appearance": "bent, bearded, smells of smoke and marsh",
            "speaking_style": "mutters, talks to the reeds more than to people",
            "personality": "solitary, kind to animals, distrusts the chapel",
            "alignment": "true neutral",
        },
    ),
    (
        "vesna",
        "npc",
        "Vesna Quill",
        {
            "occupation": "travelling peddler",
            "appearance": "bright scarves, a cart with a painted owl, ink-stained fingers",
            "speaking_style": "sing-song sales patter, never gives a straight price",
            "personality": "clever, cheerful, ruthless about money",
            "alignment": "chaotic neutral",
        },
    ),
    # -- the player
    (
        "kestrel",
        "player",
        "Kestrel Vane",
        {"class": "wandering cartographer", "level": 3, "handle": "kes"},
    ),
    # -- factions
    (
        "reedwatch",
        "faction",
        "The Reedwatch",
        {"purpose": "the village watch; patrols the banks and the road"},
    ),
    (
        "lantern_guild",
        "faction",
        "The Lantern Guild",
        {"purpose": "ferry folk and boatwrights; keep the river toll and the night lanterns"},
    ),
    (
        "grey_tithe",
        "faction",
        "The Grey Tithe",
        {"purpose": "smugglers who move untaxed goods across the Brindle by night"},
    ),
    # -- items
    ("patient_heron", "item", "The Patient Heron", {"kind": "ferry", "capacity": 8}),
    (
        "drowned_bell",
        "item",
        "The Drowned Bell",
        {"kind": "relic", "material": "bronze", "clapper_missing": True},
    ),
    ("toll_ledger", "item", "The Toll Ledger", {"kind": "book", "years_recorded": 40}),
    ("lantern_key", "item", "The Lantern Key", {"kind": "key", "opens": "the chapel crypt"}),
    # -- quests
    (
        "quest_bell",
        "quest",
        "The Bell Beneath the Brindle",
        {"status": "open", "reward": "the chapel's blessing and 20 silver"},
    ),
    (
        "quest_ledger",
        "quest",
        "The Missing Toll Ledger",
        {"status": "open", "reward": "free passage for a year"},
    ),
    (
        "quest_smoke",
        "quest",
        "Smoke over Ashgrove",
        {"status": "rumoured", "reward": "a Reedwatch badge"},
    ),
    # -- an event
    (
        "high_water",
        "event",
        "The Night of High Water",
        {"when": "three springs ago", "description": "the Brindle rose over the chapel steps"},
    ),
)


# --------------------------------------------------------------------------- session log

# The game master's session log: (label, role, speaker, content). The labels are the
# evidence that facts below point to; the turns get graphmem ids when they are stored.
SESSION_LOG: dict[str, tuple[tuple[str, str, str, str], ...]] = {
    "session-1": (
        (
            "s1-village",
            "gm",
            "GM",
            "Prep: Brindleford sits where the old road crosses the Brindle. Odile Marrow runs "
            "the only ferry and belongs to the Lantern Guild.",
        ),
        (
            "s1-mill",
            "gm",
            "GM",
            "Prep: Halden Crook runs the mill. He and Odile are old friends; she carries him "
            "across without taking the toll.",
        ),
        (
            "s1-tithe",
            "gm_assistant",
            "assistant",
            "Note: Vesna Quill sells far below honest prices. She may be with the Grey Tithe, "
            "and Halden may owe her money.",
        ),
    ),
    "session-2": (
        (
            "s2-arrive",
            "player",
            "Kestrel",
            "I step off the Patient Heron and pay Odile her two coppers. I ask about the "
            "chapel bell.",
        ),
        (
            "s2-bell",
            "gm",
            "GM",
            "Sister Ilse asks Kestrel to find the Drowned Bell, lost on the Night of High "
            "Water. Odile says she heard it ring under the water that night.",
        ),
        (
            "s2-ledger",
            "gm",
            "GM",
            "Odile admits the Guild's toll ledger went missing a week ago and asks Kestrel to "
            "find it, quietly.",
        ),
        (
            "s2-rumour",
            "player",
            "Kestrel",
            "Bram whispered that Odile and old Gorran are sister and brother. Could be the "
            "ale talking.",
        ),
    ),
    "session-3": (
        (
            "s3-pip",
            "gm",
            "GM",
            "Pip swears he saw Halden's barge cross at midnight loaded with Grey Tithe crates, "
            "and the toll ledger open on Halden's table.",
        ),
        (
            "s3-odile",
            "gm",
            "GM",
            "Odile hears it, spits into the river and says she will not carry Halden again.",
        ),
        (
            "s3-ruling",
            "gm",
            "GM",
            "Ruling: from now on Odile distrusts Halden. That is canon.",
        ),
    ),
}


# --------------------------------------------------------------------------- facts


class DemoFact(NamedTuple):
    """One fact of the village: a relationship and its provenance, as plain data.

    ``how`` is the provenance source, ``session`` the session it was learned in, and
    ``evidence`` labels of :data:`SESSION_LOG` turns (resolved to turn ids when stored).
    """

    source: str
    type: str
    target: str
    confidence: float = 1.0
    how: str = "stated"  # stated | inferred | imported
    confirmed: bool = False
    session: str = "session-1"
    evidence: tuple[str, ...] = ()
    attributes: dict[str, Any] | None = None


_F = DemoFact  # a short name keeps the table below at one line per fact
_S2 = "session-2"
_S3 = "session-3"

# fmt: off
FACTS: tuple[DemoFact, ...] = (
    # -- geography, from the GM's prep notes
    _F("ferry_landing", "located_in", "brindleford", how="imported", evidence=("s1-village",)),
    _F("copper_kettle", "located_in", "brindleford", how="imported"),
    _F("crooks_mill", "located_in", "brindleford", how="imported", evidence=("s1-mill",)),
    _F("reedwatch_tower", "located_in", "brindleford", how="imported"),
    _F("sunken_chapel", "located_in", "brindleford", how="imported"),
    _F("market_square", "located_in", "brindleford", how="imported"),
    _F("ashby_forge", "located_in", "market_square", how="imported"),
    _F("ashgrove", "near", "brindleford", how="imported", attributes={"miles": 2}),
    # -- who lives and works where
    _F("odile", "works_at", "ferry_landing", confirmed=True, evidence=("s1-village",)),
    _F("odile", "lives_in", "ferry_landing", attributes={"detail": "a hut on stilts"}),
    _F("bram", "works_at", "copper_kettle"),
    _F("bram", "lives_in", "copper_kettle"),
    _F("wren", "works_at", "ashby_forge"),
    _F("halden", "works_at", "crooks_mill", evidence=("s1-mill",)),
    _F("ilse", "works_at", "sunken_chapel"),
    _F("maelis", "works_at", "reedwatch_tower"),
    _F("pip", "lives_in", "copper_kettle", attributes={"detail": "sleeps in the loft"}),
    _F("gorran", "lives_in", "ashgrove"),
    _F("vesna", "trades_at", "market_square"),
    _F("kestrel", "staying_at", "copper_kettle", session=_S2),
    # -- factions
    _F("maelis", "leads", "reedwatch", confirmed=True),
    _F("reedwatch", "based_at", "reedwatch_tower"),
    _F("wren", "member_of", "reedwatch"),
    _F("odile", "member_of", "lantern_guild", confirmed=True, evidence=("s1-village",)),
    _F("bram", "member_of", "lantern_guild"),
    _F("lantern_guild", "based_at", "ferry_landing"),
    _F("lantern_guild", "allied_with", "reedwatch"),
    _F("grey_tithe", "hostile_to", "reedwatch"),
    _F("vesna", "member_of", "grey_tithe", 0.7, "inferred", evidence=("s1-tithe",)),
    _F("halden", "member_of", "grey_tithe", 0.55, "inferred", session=_S3, evidence=("s3-pip",)),
    # -- items
    _F("odile", "owns", "patient_heron", confirmed=True),
    _F("patient_heron", "located_in", "ferry_landing"),
    _F("drowned_bell", "belongs_to", "sunken_chapel"),
    _F("drowned_bell", "lost_in", "high_water", session=_S2, evidence=("s2-bell",)),
    _F("ilse", "seeks", "drowned_bell", session=_S2, evidence=("s2-bell",)),
    _F("toll_ledger", "belongs_to", "lantern_guild", evidence=("s2-ledger",)),
    _F("halden", "possesses", "toll_ledger", 0.4, "inferred", session=_S3, evidence=("s3-pip",)),
    _F("odile", "owns", "lantern_key"),
    _F("lantern_key", "opens", "sunken_chapel"),
    _F("wren", "forged", "lantern_key"),
    # -- quests
    _F("ilse", "gives_quest", "quest_bell", session=_S2, evidence=("s2-bell",)),
    _F("quest_bell", "involves", "drowned_bell", session=_S2),
    _F("quest_bell", "involves", "sunken_chapel", session=_S2),
    _F("odile", "gives_quest", "quest_ledger", session=_S2, evidence=("s2-ledger",)),
    _F("quest_ledger", "involves", "toll_ledger", session=_S2),
    _F("maelis", "gives_quest", "quest_smoke"),
    _F("quest_smoke", "involves", "ashgrove"),
    _F("quest_smoke", "involves", "gorran", 0.6, "inferred"),
    _F("kestrel", "accepted", "quest_bell", session=_S2, evidence=("s2-bell",)),
    _F("kestrel", "accepted", "quest_ledger", session=_S2, evidence=("s2-ledger",)),
    # -- the Night of High Water
    _F("high_water", "happened_at", "brindleford"),
    _F("high_water", "flooded", "sunken_chapel", confirmed=True),
    _F("odile", "witnessed", "high_water", session=_S2, evidence=("s2-bell",)),
    _F("gorran", "witnessed", "high_water", 0.5, "inferred"),
    _F("ilse", "mourns", "high_water", 0.8, "inferred"),
    # -- who knows, likes and suspects whom
    _F("odile", "knows", "bram", attributes={"since": "childhood"}),
    _F("bram", "knows", "odile", attributes={"since": "childhood"}),
    _F("odile", "trusts", "bram", confirmed=True),
    _F("bram", "owes_debt_to", "odile", 0.9, attributes={"amount": "3 silver"}),
    _F("odile", "knows", "wren"),
    _F("odile", "respects", "ilse", 0.8),
    _F("odile", "distrusts", "vesna", 0.6, "inferred", evidence=("s1-tithe",)),
    _F("odile", "mentors", "pip", 0.75, "inferred"),
    _F("pip", "admires", "odile"),
    _F("odile", "sibling_of", "gorran", 0.35, "inferred", session=_S2, evidence=("s2-rumour",)),
    _F("odile", "wary_of", "kestrel", 0.5, "inferred", session=_S2, evidence=("s2-arrive",)),
    _F("wren", "quarrels_with", "halden", 0.85),
    _F("halden", "owes_debt_to", "vesna", 0.5, "inferred", evidence=("s1-tithe",)),
    _F("halden", "fears", "maelis", 0.65, "inferred"),
    _F("vesna", "knows", "halden"),
    _F("maelis", "suspects", "vesna", 0.9),
    _F("maelis", "trusts", "wren", confirmed=True),
    _F("ilse", "distrusts", "gorran", 0.7),
    _F("gorran", "knows", "ilse"),
    _F("bram", "employs", "pip"),
    _F("pip", "runs_errands_for", "vesna", 0.8),
    _F("kestrel", "knows", "odile", session=_S2, evidence=("s2-arrive",)),
    _F("kestrel", "knows", "bram", session=_S2, evidence=("s2-rumour",)),
    _F("kestrel", "paid_fare_to", "odile", session=_S2, evidence=("s2-arrive",)),
    _F("odile", "knows", "halden", attributes={"since": "childhood"}),
    # -- believed in session 1, contradicted in session 3 (see CONTRADICTED_FACT)
    _F("odile", "trusts", "halden", 0.9, evidence=("s1-mill",)),
)
# fmt: on
"""The facts of the village, each with its provenance."""

CONTRADICTED_FACT: tuple[str, str, str] = ("odile", "halden", "trusts")
"""(source, target, type) of the fact that session 3 contradicts: it gets invalidated."""

REPLACEMENT_FACT = DemoFact(
    "odile",
    "distrusts",
    "halden",
    0.95,
    confirmed=True,
    session=_S3,
    evidence=("s3-pip", "s3-odile", "s3-ruling"),
)
"""The fact that replaces :data:`CONTRADICTED_FACT`, confirmed by the game master."""


# --------------------------------------------------------------------------- building


def _relationship(
    fact: DemoFact, turns: dict[str, Turn], valid_at: datetime | None = None
) -> Relationship:
    # A fact holds in the world from the turn that first told it (its earliest evidence),
    # so an as_of read between that turn and a later contradiction still finds it.
    if valid_at is None and fact.evidence:
        valid_at = min(turns[label].created_at for label in fact.evidence)
    return Relationship(
        source_id=fact.source,
        target_id=fact.target,
        type=fact.type,
        attributes=fact.attributes or {},
        provenance=Provenance(
            session_id=fact.session,
            confidence=fact.confidence,
            source=fact.how,
            confirmed=fact.confirmed,
            evidence=tuple(turns[label].id for label in fact.evidence),
        ),
        valid_at=valid_at,
    )


def build_demo_world(mem: Memory) -> None:
    """Write the village of Brindleford into an empty memory.

    Stores the entities, the game master's session log (sessions ``session-1`` to
    ``session-3``, roles gm / gm_assistant / player), the facts with their provenance
    (evidence = ids of the log's turns; each fact valid from its earliest evidence turn,
    so ``as_of`` reads in between see it), then invalidates :data:`CONTRADICTED_FACT` at
    the time of the turn that contradicted it and stores :data:`REPLACEMENT_FACT` valid
    from that moment.

    Args:
        mem: The memory to fill; its tenant must hold no entities yet.

    Raises:
        InvalidInput: The memory already holds entities.
    """
    if mem.count_entities():
        raise InvalidInput(
            f"tenant {mem.tenant!r} already holds {mem.count_entities()} entities; "
            "build the demo world into an empty memory",
            tenant=mem.tenant,
        )
    mem.upsert_entities(
        [
            Entity(id=entity_id, type=kind, name=name, attributes=attributes)
            for entity_id, kind, name, attributes in ENTITIES
        ]
    )
    turns: dict[str, Turn] = {}
    for session_id, entries in SESSION_LOG.items():
        stored = mem.conversation(session_id).extend(
            {"role": role, "speaker": speaker, "content": content}
            for _, role, speaker, content in entries
        )
        turns.update(zip((entry[0] for entry in entries), stored, strict=True))
    mem.upsert_relationships([_relationship(fact, turns) for fact in FACTS])

    # Session 3 contradicts a session-1 belief: keep the old fact, mark when it stopped
    # holding (when Pip told the story), and record the new one as valid from then on.
    source_id, target_id, rel_type = CONTRADICTED_FACT
    old = mem.invalidate(source_id, target_id, rel_type, at=turns["s3-pip"].created_at)
    mem.upsert_relationships([_relationship(REPLACEMENT_FACT, turns, valid_at=old.invalid_at)])
