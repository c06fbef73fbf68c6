"""Graph questions on the evaluation worlds of ``tests/worlds/*.json``, through the public API.

The first five worlds (hospital, company, guild, space station, family saga) hold 30-40
entities, 60-70 facts and about 50 questions worded freely; the others hold 44-59 entities,
85-120 facts and 61 questions each in the team's proportions (one-hop 20, inverse 12,
two-hop 12, three-hop 7, no-answer 10). From session 11 on, each new world was written by an
engineer who never saw the planner and measured once before anyone designed on it: abbey,
studio, railway, orchestra (session 11); town, airline, zoo, dig, bistro, opensource,
expedition (session 12); circus, heist, farm, motorsport, publisher, pirates (session 13);
school, lawfirm, parliament, colony (session 14); hotel, kingdom, museum, biotech (session
15); theatre, mine, esports, caravan (session 16); stable, observatory, brewery, detective
(session 17); megacity, spyring, archipelago, academy (session 18); fashion, rangers,
shipyard, mercenaries (session 19); firebrigade, botanic, chess, teahouse, skiresort,
apiary (session 20); library, temple, veterinary, festival, cycling, embassy, venture,
rowing (session 21); bakery, dojo, fishery, radio, insurer, choir, auction, cinema
(session 22); ballet, bank, garage, prison, ferry, toyworks, alpineclub, bookshop (session
23); coastguard, postal, themepark, tennisclub, pottery, quarry, nursery, airport (session
24); canal, dragonriders, buscompany, perfumery, mountainrescue, glassworks, windfarm, ranch
(session 25); submarine, puppetry, tramway, bellfoundry, falconry, seedbank, courier,
mapmakers (session 26): ``BATCHES``.
docs/retrieval.md says which were unseen at which figure. A
question's gold answers were walked from its intended path when the world was written
(``path`` in the file, never given to ``ask``; tests/unit/test_world_questions.py checks
them). ``split`` says whether a world
was used to design the planner from the start (``dev``) or was written as held out
(``heldout``); ``--world NAME`` and ``--batch SESSION`` pick worlds.

Run ``python -m tests.world_questions`` (``--embedder hashing`` for no model) to print the
report: Hits@1 per group, abstentions, with no descriptions and with the careful ones.
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from graphmem.retrieval import Embedder, HashingEmbedder
from graphmem.tools.evaluation import worlds as evaluation
from graphmem.tools.evaluation.worlds import (
    GROUPS,
    NO_ANSWER,
    Score,
    answering_facts,
    ask_world,
    build,
    fact_hits,
    walk,
)

__all__ = [
    "BATCHES",
    "GROUPS",
    "NO_ANSWER",
    "WORLDS",
    "Score",
    "answering_facts",
    "ask_world",
    "build",
    "fact_hits",
    "load_worlds",
    "report_lines",
    "score",
    "walk",
]

WORLDS = Path(__file__).parent / "worlds"
# The held-out worlds by the session whose engineers wrote them without seeing the planner
# (station, family and court came before these batches, with the first design worlds).
# A batch is unseen only until the session that wrote it has measured it: later sessions
# design on earlier batches, so ``--batch`` of the newest session is the only fresh figure.
BATCHES: dict[int, tuple[str, ...]] = {
    11: ("abbey", "studio", "railway", "orchestra", "newsroom", "vineyard"),
    12: ("town", "airline", "zoo", "dig", "bistro", "opensource", "expedition"),
    13: ("circus", "heist", "farm", "motorsport", "publisher", "pirates"),
    14: ("school", "lawfirm", "parliament", "colony"),
    15: ("hotel", "kingdom", "museum", "biotech"),
    16: ("theatre", "mine", "esports", "caravan"),
    17: ("stable", "observatory", "brewery", "detective"),
    18: ("megacity", "spyring", "archipelago", "academy"),
    19: ("fashion", "rangers", "shipyard", "mercenaries"),
    20: ("firebrigade", "botanic", "chess", "teahouse", "skiresort", "apiary"),
    21: ("library", "temple", "veterinary", "festival", "cycling", "embassy", "venture", "rowing"),
    22: ("bakery", "dojo", "fishery", "radio", "insurer", "choir", "auction", "cinema"),
    23: ("ballet", "bank", "garage", "prison", "ferry", "toyworks", "alpineclub", "bookshop"),
    24: (
        "coastguard",
        "postal",
        "themepark",
        "tennisclub",
        "pottery",
        "quarry",
        "nursery",
        "airport",
    ),
    25: (
        "canal",
        "dragonriders",
        "buscompany",
        "perfumery",
        "mountainrescue",
        "glassworks",
        "windfarm",
        "ranch",
    ),
    26: (
        "submarine",
        "puppetry",
        "tramway",
        "bellfoundry",
        "falconry",
        "seedbank",
        "courier",
        "mapmakers",
    ),
}


def load_worlds(
    split: str | None = None, names: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """The worlds of ``tests/worlds`` (of one split: ``dev`` or ``heldout``; of ``names``),
    checked as ``graphmem eval --dataset worlds`` checks a user's."""
    worlds = evaluation.load_worlds(WORLDS)
    chosen = None if names is None else set(names)
    return [
        w
        for w in worlds
        if (split is None or w["split"] == split) and (chosen is None or w["name"] in chosen)
    ]


def score(
    worlds: Iterable[dict[str, Any]], *, descriptions: bool, embedder: Embedder | None = None
) -> Score:
    """Ask every question of ``worlds``."""
    result = Score()
    for world in worlds:
        result.outcomes.extend(ask_world(world, descriptions=descriptions, embedder=embedder))
    return result


def report_lines(label: str, result: Score) -> list[str]:
    """The score as printable lines: Hits@1 per group, abstentions, calibration."""
    done, asked = result.abstained()
    groups = "  ".join(f"{g} {result.hits_at_1(g):.2f}" for g in GROUPS)
    lines = [
        f"{label}: answerable Hits@1 {result.answerable():.3f} ({groups}); "
        f"no-answer abstained {done}/{asked}; answerable abstained {result.false_abstentions()}"
    ]
    bins: dict[int, list[bool]] = defaultdict(list)
    for o in result.outcomes:
        if o.group != NO_ANSWER and not o.abstained:
            bins[min(4, int(o.confidence * 5))].append(o.hit)
    lines.append(
        "  confidence of answered answerable questions, share right: "
        + ", ".join(
            f"[{b / 5:.1f},{(b + 1) / 5:.1f}) {sum(v) / len(v):.2f} of {len(v)}"
            for b, v in sorted(bins.items())
        )
    )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Print the report of every world split, with and without descriptions."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--embedder", choices=("default", "hashing"), default="default")
    parser.add_argument("--misses", action="store_true", help="print every miss")
    parser.add_argument("--split", choices=("dev", "heldout"), action="append")
    parser.add_argument("--world", action="append", help="only these worlds (repeatable)")
    parser.add_argument(
        "--batch",
        type=int,
        action="append",
        choices=sorted(BATCHES),
        help="only the worlds written in this session (repeatable; see BATCHES)",
    )
    parser.add_argument(
        "--facts",
        action="store_true",
        help="also score retrieve: the answering fact of one-hop and inverse questions",
    )
    args = parser.parse_args(argv)
    embedder: Embedder | None = HashingEmbedder(384) if args.embedder == "hashing" else None
    chosen = list(args.world or ()) + [w for b in args.batch or () for w in BATCHES[b]]
    for split in args.split or ("dev", "heldout"):
        worlds = load_worlds(split, chosen or None)
        if not worlds:
            continue
        names = ", ".join(w["name"] for w in worlds)
        for descriptions in (False, True):
            result = score(worlds, descriptions=descriptions, embedder=embedder)
            label = f"{split} ({names}), {'described' if descriptions else 'names only'}"
            for line in report_lines(label, result):
                print(line)
            if args.facts:
                facts = fact_hits(worlds, descriptions=descriptions, embedder=embedder)
                print(
                    "  retrieve, answering fact of one-hop and inverse questions: "
                    + "  ".join(f"{key} {value:.2f}" for key, value in facts.items())
                )
            if args.misses:
                for o in result.outcomes:
                    if o.missed:
                        print(
                            f"    MISS {o.world} {o.group}: {o.question} -> {o.top} "
                            f"(gold {sorted(o.gold)}) conf {o.confidence:.2f} {o.reason}"
                        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
