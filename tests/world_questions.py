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
(session 22): ``BATCHES``.
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
import json
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import graphmem
from graphmem import Entity, Relationship
from graphmem.retrieval import Embedder, HashingEmbedder

WORLDS = Path(__file__).parent / "worlds"
GROUPS = ("one-hop", "inverse", "two-hop", "three-hop")
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
}
NO_ANSWER = "no-answer"


def load_worlds(
    split: str | None = None, names: Iterable[str] | None = None
) -> list[dict[str, Any]]:
    """The worlds of ``tests/worlds`` (of one split: ``dev`` or ``heldout``; of ``names``)."""
    worlds = [json.loads(p.read_text(encoding="utf-8")) for p in sorted(WORLDS.glob("*.json"))]
    chosen = None if names is None else set(names)
    return [
        w
        for w in worlds
        if (split is None or w["split"] == split) and (chosen is None or w["name"] in chosen)
    ]


def build(mem: graphmem.Memory, world: dict[str, Any], *, descriptions: bool) -> None:
    """Write a world into an empty memory; with ``descriptions``, describe its types."""
    mem.upsert_entities(
        [
            Entity(
                id=e["id"],
                type=e["type"],
                name=e["name"],
                attributes={"aliases": e["aliases"]} if e["aliases"] else {},
            )
            for e in world["entities"]
        ]
    )
    mem.upsert_relationships(
        [Relationship(source_id=s, target_id=t, type=r) for s, r, t in world["facts"]]
    )
    if descriptions:
        for name, text in world["relationship_descriptions"].items():
            mem.describe_relationship_type(name, text)
        for name, text in world["entity_descriptions"].items():
            mem.describe_entity_type(name, text)


@dataclass
class Outcome:
    """One question asked: what came back."""

    world: str
    group: str
    question: str
    gold: frozenset[str]
    top: str | None
    abstained: bool
    confidence: float
    reason: str

    @property
    def hit(self) -> bool:
        """The first answer is a gold one (an answerable question)."""
        return self.top is not None and self.top in self.gold


@dataclass
class Score:
    """Outcomes of a set of questions, summed by group."""

    outcomes: list[Outcome] = field(default_factory=list)

    def hits_at_1(self, group: str) -> float:
        """Hits@1 over the group's questions (an abstention is a miss)."""
        mine = [o for o in self.outcomes if o.group == group]
        return sum(o.hit for o in mine) / len(mine) if mine else float("nan")

    def answerable(self) -> float:
        """Hits@1 over every answerable question."""
        mine = [o for o in self.outcomes if o.group != NO_ANSWER]
        return sum(o.hit for o in mine) / len(mine) if mine else float("nan")

    def abstained(self) -> tuple[int, int]:
        """(no-answer questions answered with nothing, no-answer questions)."""
        mine = [o for o in self.outcomes if o.group == NO_ANSWER]
        return sum(o.abstained for o in mine), len(mine)

    def false_abstentions(self) -> int:
        """Answerable questions answered with nothing."""
        return sum(o.abstained for o in self.outcomes if o.group != NO_ANSWER)


def ask_world(
    world: dict[str, Any], *, descriptions: bool, embedder: Embedder | None = None
) -> list[Outcome]:
    """Build ``world`` in a fresh memory and ask every one of its questions."""
    out: list[Outcome] = []
    with graphmem.open("memory://", tenant=world["name"], embedder=embedder) as mem:
        build(mem, world, descriptions=descriptions)
        for item in world["questions"]:
            answers = mem.ask(item["question"], k=10)
            out.append(
                Outcome(
                    world=world["name"],
                    group=item["group"],
                    question=item["question"],
                    gold=frozenset(item["answers"]),
                    top=answers[0].entity.id if answers else None,
                    abstained=answers.abstained,
                    confidence=answers.confidence,
                    reason=answers.reason,
                )
            )
    return out


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


def answering_facts(item: dict[str, Any]) -> frozenset[str]:
    """The facts (``source|type|target``) that answer a one-hop or inverse question.

    ``>`` walks a fact forwards, ``<`` backwards, ``~`` either way (a relation that holds
    both ways, stored one way): any stored fact between the two ends answers it.
    """
    start, step = item["path"].split()
    direction, kind = step[0], step[1:]
    ahead = frozenset(f"{start}|{kind}|{a}" for a in item["answers"])
    back = frozenset(f"{a}|{kind}|{start}" for a in item["answers"])
    return {">": ahead, "<": back}.get(direction, ahead | back)  # "~": stored either way


def fact_hits(
    worlds: Iterable[dict[str, Any]], *, descriptions: bool, embedder: Embedder | None = None
) -> dict[str, float]:
    """Share of one-hop and inverse questions whose answering fact a default ``retrieve``
    ranks in its top 1 / 3 / 5, beside BM25 over the facts' sentences (same questions)."""
    from tests.worlds import World, bm25_ranking

    hits: dict[str, int] = defaultdict(int)
    asked = 0
    for world in worlds:
        facts = tuple(Relationship(source_id=s, target_id=t, type=r) for s, r, t in world["facts"])
        entities = tuple(
            Entity(id=e["id"], type=e["type"], name=e["name"]) for e in world["entities"]
        )
        keyword = World(world["name"], entities, facts, ())
        with graphmem.open("memory://", tenant=world["name"], embedder=embedder) as mem:
            build(mem, world, descriptions=descriptions)
            mem.flush_index()
            for item in world["questions"]:
                if item["group"] not in ("one-hop", "inverse"):
                    continue
                asked += 1
                gold = answering_facts(item)
                results = mem.retrieve(item["question"], k=5)
                ranked = [r.source_id if r.kind == "relationship" else "" for r in results]
                baseline = bm25_ranking(keyword, item["question"])
                for k in (1, 3, 5):
                    hits[f"fact@{k}"] += bool(gold & set(ranked[:k]))
                    hits[f"bm25@{k}"] += bool(gold & set(baseline[:k]))
    return {key: value / asked for key, value in sorted(hits.items())} if asked else {}


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
                    wrong = o.hit if o.group != NO_ANSWER else o.abstained
                    if not wrong:
                        print(
                            f"    MISS {o.world} {o.group}: {o.question} -> {o.top} "
                            f"(gold {sorted(o.gold)}) conf {o.confidence:.2f} {o.reason}"
                        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
