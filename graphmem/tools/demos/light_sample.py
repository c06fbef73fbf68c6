"""A small game world in LIGHT's JSON layout, written by graphmem (not LIGHT data).

Notebook 02 reads a LIGHT world from the optional evaluation data (``../shared/eval``);
on a fresh clone it has none, so it writes this one instead and runs every cell on it:
the same layout (``rooms``, ``agents``, ``objects`` and ``nodes`` with ``name``,
``desc``, ``container_node`` and ``neighbors``), so
:func:`graphmem.tools.evaluation.main.light_world`
reads both alike. The village, its people and their things are made up here.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

__all__ = ["SAMPLE_TITLE", "sample_world", "write_sample_world"]

SAMPLE_TITLE = "Hollowmere after dark (a graphmem sample world)"

_ROOMS = {
    "square": (
        "the village square",
        "A cobbled square with a dry well at its heart. Lanterns hang from iron posts and "
        "the shutters of every house are closed before sunset.",
        ["tavern", "chapel", "smithy"],
    ),
    "tavern": (
        "the Drowned Lantern tavern",
        "A low tavern with smoke-blackened beams. The fire is always lit and the ale is "
        "thin; travellers trade rumours here about the pale stranger in the crypt.",
        ["square"],
    ),
    "chapel": (
        "the chapel of Saint Ysolde",
        "A cold stone chapel. Candles burn before the altar day and night, and a basin of "
        "blessed water stands by the door.",
        ["square", "graveyard"],
    ),
    "graveyard": (
        "the old graveyard",
        "Leaning headstones in wet grass. Several graves have been disturbed, the earth "
        "turned over from below.",
        ["chapel", "crypt"],
    ),
    "crypt": (
        "the crypt of the Vell family",
        "A damp crypt under the graveyard. An open coffin lies in the middle; the dust "
        "around it shows no footprints, only the drag of a long cloak.",
        ["graveyard"],
    ),
    "smithy": (
        "the smithy",
        "A forge glowing orange, racks of horseshoes and nails, and the smell of hot iron.",
        ["square"],
    ),
}

_AGENTS = {
    "vell": (
        "Count Aurel Vell",
        "A tall, pale nobleman in a long black cloak who sleeps by day and drinks blood "
        "at night. He is courteous, patient and very old.",
        "crypt",
    ),
    "maren": (
        "Sister Maren",
        "A young nun who keeps the chapel candles lit and suspects the Count of the "
        "disturbed graves.",
        "chapel",
    ),
    "brannoc": (
        "Brannoc the innkeeper",
        "A broad innkeeper with a booming laugh who hears every rumour in the village.",
        "tavern",
    ),
    "edda": (
        "Edda the gravedigger",
        "A stooped gravedigger who has buried three villagers this month and will not "
        "work after dark.",
        "graveyard",
    ),
    "tobin": (
        "Tobin the smith",
        "A soot-faced smith who forges iron nails and horseshoes and fears nothing that "
        "walks in daylight.",
        "smithy",
    ),
    "lise": (
        "Lise the traveller",
        "A traveller who came for one night and stayed to find out why the graves are open.",
        "tavern",
    ),
}

_OBJECTS = {
    "garlic": ("a braid of garlic", "Dried garlic bulbs braided on a string.", "brannoc"),
    "holy_water": ("a vial of holy water", "Water blessed at the chapel altar.", "maren"),
    "stake": ("an ash stake", "A sharpened stake of ash wood, freshly cut.", "tobin"),
    "shovel": ("a muddy shovel", "A gravedigger's shovel caked in graveyard clay.", "edda"),
    "coffin": ("an open coffin", "A black coffin lined with red silk, empty by night.", "crypt"),
    "ring": ("a signet ring", "A silver ring bearing the crest of the Vell family.", "coffin"),
    "map": ("a hand-drawn map", "A map of the village with the crypt circled.", "lise"),
    "lantern": ("a storm lantern", "A lantern with a cracked glass, still burning.", "square"),
    "ale": ("a mug of thin ale", "Thin ale in a dented pewter mug.", "tavern"),
    "horseshoe": ("an iron horseshoe", "A new horseshoe, still warm from the forge.", "smithy"),
}


def _node(name: str, desc: str, container: str | None) -> dict[str, Any]:
    node: dict[str, Any] = {"name": name, "names": [name], "desc": desc}
    node["container_node"] = {"target_id": container or "VOID"}
    return node


def sample_world() -> dict[str, Any]:
    """The sample world as LIGHT's JSON layout (a new dict each call)."""
    nodes: dict[str, dict[str, Any]] = {}
    for room, (name, desc, neighbours) in _ROOMS.items():
        nodes[room] = _node(name, desc, None)
        nodes[room]["neighbors"] = {n: {"target_id": n} for n in neighbours}
    for agent, (name, desc, where) in _AGENTS.items():
        nodes[agent] = _node(name, desc, where)
        nodes[agent]["persona"] = desc
    for obj, (name, desc, where) in _OBJECTS.items():
        nodes[obj] = _node(name, desc, where)
    return {
        "title": SAMPLE_TITLE,
        "rooms": list(_ROOMS),
        "agents": list(_AGENTS),
        "objects": list(_OBJECTS),
        "nodes": nodes,
    }


def write_sample_world(path: str | Path) -> Path:
    """Write :func:`sample_world` to ``path`` as JSON; return the path."""
    target = Path(path)
    target.write_text(json.dumps(sample_world(), indent=1), encoding="utf-8")
    return target
