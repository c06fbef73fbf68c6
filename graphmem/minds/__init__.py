"""NPC minds: who knows what, the events that happened, and forgetting.

Beliefs are separate from the world state: what an NPC believes may be false, and it
only comes to believe what it witnessed, was told, inferred or heard as a rumour.
Events are first-class records, stored once with their witness set; recording one
updates the world and its witnesses' beliefs only, and nested beliefs (what each witness
thinks the others believe, at any order) are read from shared witnessing. A claim
(``tell``, ``announce``) is not a belief: the listener's trust policy decides. Every read
takes two clocks: ``as_of`` (world time) and ``recorded_as_of`` (memory time).
Salience decays with game time; ``forget`` retires beliefs and keeps their trail.
Session recaps close the loop for the players.

Everything is reached through :class:`graphmem.Memory` (``record_event``, ``observe``,
``tell``, ``announce``, ``believe``, ``beliefs``, ``belief``, ``who_knows``, ``events``,
``recall``, ``forget``, ``save_recap``, ``recap``, ``recaps``, ``draft_recap`` and
``identity_snapshot(npc, perspective=True)``); it is stored as generic records, so
every backend, dump / load and JSON Lines export carry it. See ``docs/minds.md``.

>>> import graphmem
>>> from graphmem.minds import Fact
>>> with graphmem.open("memory://", tenant="doc") as mem:
...     _ = mem.upsert_entities([
...         {"id": "hall", "type": "location", "name": "the hall"},
...         {"id": "chest", "type": "item", "name": "the chest"},
...         {"id": "sword", "type": "item", "name": "the sword"},
...         {"id": "mira", "type": "npc", "name": "Mira"},
...         {"id": "tomas", "type": "npc", "name": "Tomas"},
...     ])
...     _ = mem.record_event("entered", actor="mira", changes=[("mira", "located_in", "hall")])
...     _ = mem.record_event("hid", actor="mira",
...                          changes=[("sword", "located_in", "chest")])
...     [b.holder for b in mem.who_knows(("sword", "located_in", "chest"))]
['mira']
"""

from graphmem.minds.models import (
    BELIEF_SOURCES,
    Belief,
    Event,
    Fact,
    Hearing,
    MindSettings,
    Recap,
    Recollection,
    TrustPolicy,
)
from graphmem.minds.perspective import PerspectiveIdentity
from graphmem.minds.recaps import RecapSummarizer, default_recap
from graphmem.minds.salience import recency, salience

__all__ = [
    "BELIEF_SOURCES",
    "Belief",
    "Event",
    "Fact",
    "Hearing",
    "MindSettings",
    "PerspectiveIdentity",
    "Recap",
    "RecapSummarizer",
    "Recollection",
    "TrustPolicy",
    "default_recap",
    "recency",
    "salience",
]
