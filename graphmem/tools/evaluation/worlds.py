"""``graphmem eval --dataset worlds``: graph questions on your own small worlds, beside BM25.

A world is one JSON file: the entities and facts of a small domain, the descriptions a
careful user would write of its types, and questions worded freely with their gold
answers. Each world is written into an empty memory twice, with its type names alone and
with its descriptions, and every question is asked through ``Memory.ask`` from its text
alone; the one-hop questions also through ``Memory.retrieve``, for the fact that answers
them. Gold answers, paths and groups are read only to score. The format::

    {
      "name": "bakery",                       # optional: the file's stem
      "entities": [{"id": "ruth_marlowe", "type": "baker", "name": "Ruth Marlowe",
                    "aliases": ["Ruth"]}, ...],
      "facts": [["ruth_marlowe", "works_at", "harbour_bakehouse"], ...],
      "relationship_descriptions": {"works_at": "the baker works in the shop"},  # optional
      "entity_descriptions": {"baker": "a person who bakes for a living"},       # optional
      "questions": [
        {"group": "one-hop", "question": "Where does Ruth bake?",
         "path": "ruth_marlowe >works_at", "answers": ["harbour_bakehouse"]},
        {"group": "no-answer", "question": "Who is Ruth married to?", "answers": []}
      ]
    }

``group`` is one of :data:`GROUPS` or ``no-answer`` (a question the facts do not answer:
``answers`` empty). ``path`` is optional: the start entity, then a step per fact walked,
``>type`` forwards, ``<type`` backwards, ``~type`` either way; when given, the answers
must be what it walks to (checked, so that a slip does not score the system against a
wrong answer), and a one-hop or inverse question's answering fact is read from it for
``retrieve``. ``tests/worlds/*.json`` are the team's worlds in this format.

Scored: Hits@1 on answerable questions per group (an abstention is a miss), the no-answer
questions abstained on, the gap between the two readings, and the share of one-hop and
inverse questions whose answering fact a default ``retrieve`` ranks in its top 1 / 3 / 5.
The report lists every question missed (``misses``: its world, reading, group, gold
answers, what came back, the confidence and the reason; ``--misses`` prints them).
Baseline, in the same run: BM25 (k1 1.2, b 0.75) over one sentence per fact ("Ruth
Marlowe works at Harbour Bakehouse"); its answer is the far end of the best-ranked facts
(an entity the question names is not an answer); it answers nothing only when no fact
shares a word with the question.
"""

from __future__ import annotations

import json
import math
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Entity, Relationship
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.retrieval import Embedder

__all__ = [
    "GROUPS",
    "NO_ANSWER",
    "Outcome",
    "Score",
    "answering_facts",
    "ask_world",
    "bm25_facts",
    "build",
    "check_world",
    "eval_worlds",
    "fact_hits",
    "load_worlds",
    "print_report",
    "walk",
]

GROUPS = ("one-hop", "inverse", "two-hop", "three-hop")
"""The groups of answerable questions, by the steps their answer is away."""
NO_ANSWER = "no-answer"
"""The group of questions no fact answers: the right reply is none."""
READINGS = (("names only", False), ("described", True))
"""The two ways each world is written: its type names alone, then with descriptions."""

_STEP = re.compile(r"^[<>~][^\s<>~]+$")


# --------------------------------------------------------------------------- the format


def _fail(where: str, message: str) -> InvalidInput:
    return InvalidInput(f"{where}: {message}", path=where)


def _strings(value: Any, where: str, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _fail(where, f"{what} must be a list of non-empty strings")
    return list(value)


def _descriptions(data: Mapping[str, Any], key: str, where: str) -> dict[str, str]:
    value = data.get(key, {})
    if not isinstance(value, dict) or not all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items()
    ):
        raise _fail(where, f"{key!r} must map type names to non-empty descriptions")
    return dict(value)


def walk(world: Mapping[str, Any], path: str) -> set[str]:
    """The entities a path (``start >type <type ~type``) reaches over a world's facts."""
    ahead: dict[tuple[str, str], set[str]] = defaultdict(set)
    back: dict[tuple[str, str], set[str]] = defaultdict(set)
    for source, kind, target in world["facts"]:
        ahead[(source, kind)].add(target)
        back[(target, kind)].add(source)
    start, *steps = path.split()
    frontier = {start}
    for step in steps:
        way, kind = step[0], step[1:]
        tables = (ahead,) if way == ">" else (back,) if way == "<" else (ahead, back)
        frontier = {
            reached for entity in frontier for table in tables for reached in table[(entity, kind)]
        }
    return frontier


def check_world(data: Any, where: str = "world") -> dict[str, Any]:
    """A world read from JSON, checked and completed (see the module docstring).

    Returns a new dict with every optional key present (``aliases`` ``[]``, descriptions
    ``{}``, ``path`` None); ``where`` names the world in errors.

    Raises:
        InvalidInput: Anything the format does not allow: a missing or mistyped key, an
            entity id used twice, a fact whose end is no entity, an unknown group, an
            answer that is no entity, a no-answer question with answers (or an answerable
            one without), a path whose steps are not ``>type`` / ``<type`` / ``~type`` or
            that does not walk to the answers given.
    """
    if not isinstance(data, dict):
        raise _fail(where, "a world is a JSON object")
    name = data.get("name", Path(where).stem)
    if not isinstance(name, str) or not name:
        raise _fail(where, "'name' must be a non-empty string")
    for key in ("entities", "facts", "questions"):
        if not isinstance(data.get(key), list) or not data[key]:
            raise _fail(where, f"{key!r} must be a non-empty list")
    entities: list[dict[str, Any]] = []
    for n, item in enumerate(data["entities"]):
        at = f"{where}: entity {n}"
        if not isinstance(item, dict):
            raise _fail(at, "an entity is an object with id, type and name")
        for key in ("id", "type", "name"):
            if not isinstance(item.get(key), str) or not item[key].strip():
                raise _fail(at, f"{key!r} must be a non-empty string")
        aliases = _strings(item.get("aliases", []), at, "'aliases'")
        entities.append(
            {"id": item["id"], "type": item["type"], "name": item["name"], "aliases": aliases}
        )
    ids = [e["id"] for e in entities]
    twice = sorted({i for i in ids if ids.count(i) > 1})
    if twice:
        raise _fail(where, f"entity ids used more than once: {twice[:5]}")
    known = set(ids)
    facts: list[tuple[str, str, str]] = []
    for n, fact in enumerate(data["facts"]):
        parts = _strings(fact, f"{where}: fact {n}", "a fact ([source, type, target])")
        if len(parts) != 3:
            raise _fail(f"{where}: fact {n}", "a fact is [source id, type, target id]")
        unknown = [p for p in (parts[0], parts[2]) if p not in known]
        if unknown:
            raise _fail(f"{where}: fact {n}", f"no entity has the id {unknown[0]!r}")
        facts.append((parts[0], parts[1], parts[2]))
    world = {
        "name": name,
        "domain": data.get("domain", ""),
        "split": data.get("split", "heldout"),
        "entities": entities,
        "facts": facts,
        "relationship_descriptions": _descriptions(data, "relationship_descriptions", where),
        "entity_descriptions": _descriptions(data, "entity_descriptions", where),
        "questions": [],
    }
    for n, item in enumerate(data["questions"]):
        world["questions"].append(_check_question(item, world, known, f"{where}: question {n}"))
    return world


def _check_question(
    item: Any, world: Mapping[str, Any], known: set[str], at: str
) -> dict[str, Any]:
    if not isinstance(item, dict):
        raise _fail(at, "a question is an object with group, question and answers")
    group = item.get("group")
    if group not in (*GROUPS, NO_ANSWER):
        raise _fail(at, f"'group' must be one of {(*GROUPS, NO_ANSWER)}, got {group!r}")
    text = item.get("question")
    if not isinstance(text, str) or not text.strip():
        raise _fail(at, "'question' must be a non-empty string")
    answers = _strings(item.get("answers", []), at, "'answers'") if item.get("answers") else []
    unknown = [a for a in answers if a not in known]
    if unknown:
        raise _fail(at, f"the answer {unknown[0]!r} is no entity of the world")
    if bool(answers) == (group == NO_ANSWER):
        raise _fail(at, "a no-answer question has no answers; any other has some")
    path = item.get("path")
    if path is not None:
        if group == NO_ANSWER:
            raise _fail(at, "a no-answer question has no path")
        if not isinstance(path, str) or len(path.split()) < 2:
            raise _fail(at, "'path' is 'start >type ...' (or null)")
        start, *steps = path.split()
        if start not in known or not all(_STEP.match(s) for s in steps):
            raise _fail(at, f"'path' {path!r}: a known start id, then >type, <type or ~type")
        reached = walk(world, path) - {start}
        if reached != set(answers) - {start}:
            raise _fail(at, f"'path' walks to {sorted(reached)}, the answers say {sorted(answers)}")
    return {"group": group, "question": text, "path": path, "answers": sorted(answers)}


def load_worlds(path: Path | str) -> list[dict[str, Any]]:
    """The worlds of one JSON file, or of every ``*.json`` file of a folder (by name).

    Raises:
        InvalidInput: No such file or folder, a folder with no world, a file that is not
            JSON, or a world the format does not allow (:func:`check_world`).
    """
    where = Path(path)
    if where.is_dir():
        files = sorted(where.glob("*.json"))
        if not files:
            raise InvalidInput(f"no world (*.json) in {where}", path=str(where))
    elif where.is_file():
        files = [where]
    else:
        raise InvalidInput(f"no world file or folder at {where}", path=str(where))
    worlds = []
    for file in files:
        try:
            data = json.loads(file.read_text(encoding="utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise InvalidInput(f"{file}: not a JSON world ({exc})", path=str(file)) from exc
        worlds.append(check_world(data, str(file)))
    names = [w["name"] for w in worlds]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise InvalidInput(f"world names used more than once: {twice}", path=str(where))
    return worlds


# --------------------------------------------------------------------------- asking


def build(mem: Memory, world: Mapping[str, Any], *, descriptions: bool) -> None:
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

    @property
    def missed(self) -> bool:
        """An answerable question not answered right first, or a no-answer one answered."""
        if self.group == NO_ANSWER:
            return not (self.abstained or self.top is None)
        return not self.hit


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
        return sum(o.abstained or o.top is None for o in mine), len(mine)

    def false_abstentions(self) -> int:
        """Answerable questions answered with nothing."""
        return sum(o.top is None for o in self.outcomes if o.group != NO_ANSWER)


def ask_world(
    world: Mapping[str, Any],
    *,
    descriptions: bool,
    embedder: Embedder | None = None,
    limit: int | None = None,
) -> list[Outcome]:
    """Build ``world`` in a fresh memory and ask its questions (the first ``limit``)."""
    out: list[Outcome] = []
    with open_memory("memory://", tenant=world["name"], embedder=embedder) as mem:
        build(mem, world, descriptions=descriptions)
        for item in world["questions"][:limit]:
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


# --------------------------------------------------------------------------- the baseline


def _words(text: str) -> list[str]:
    return re.findall(r"\w+", text.lower())


def bm25_facts(world: Mapping[str, Any], question: str) -> list[str]:
    """The facts (``source|type|target``) ranked by BM25 (k1 1.2, b 0.75) against ``question``.

    Each fact is one sentence: "Ruth Marlowe works at Harbour Bakehouse".
    """
    names = {e["id"]: e["name"] for e in world["entities"]}
    docs = {
        f"{s}|{r}|{t}": _words(f"{names[s]} {r.replace('_', ' ')} {names[t]}")
        for s, r, t in world["facts"]
    }
    average = sum(len(d) for d in docs.values()) / len(docs)
    df: dict[str, int] = defaultdict(int)
    for words in docs.values():
        for word in set(words):
            df[word] += 1
    n, query = len(docs), _words(question)
    scores: dict[str, float] = {}
    for key, words in docs.items():
        total = 0.0
        for word in query:
            tf = words.count(word)
            if tf:
                idf = math.log(1 + (n - df[word] + 0.5) / (df[word] + 0.5))
                total += idf * tf * 2.2 / (tf + 1.2 * (0.25 + 0.75 * len(words) / average))
        scores[key] = total
    return sorted((k for k in scores if scores[k] > 0), key=lambda k: -scores[k])


def _bm25_answers(ranked: Iterable[str], named: set[str]) -> list[str]:
    """The far ends of the ranked facts, in order: an entity the question names is none."""
    out: list[str] = []
    for key in ranked:
        source, _type, target = key.split("|")
        for end in (target, source):
            if end not in named and end not in out:
                out.append(end)
    return out


def answering_facts(item: Mapping[str, Any]) -> frozenset[str]:
    """The facts (``source|type|target``) that answer a one-hop or inverse question.

    ``>`` walks a fact forwards, ``<`` backwards, ``~`` either way (a relation that holds
    both ways, stored one way): any stored fact between the two ends answers it. Empty for
    a question with no path or a path of more than one step.
    """
    parts = (item.get("path") or "").split()
    if len(parts) != 2:
        return frozenset()
    start, step = parts
    direction, kind = step[0], step[1:]
    ahead = frozenset(f"{start}|{kind}|{a}" for a in item["answers"])
    back = frozenset(f"{a}|{kind}|{start}" for a in item["answers"])
    return {">": ahead, "<": back}.get(direction, ahead | back)  # "~": stored either way


def fact_hits(
    worlds: Iterable[Mapping[str, Any]],
    *,
    descriptions: bool,
    embedder: Embedder | None = None,
    limit: int | None = None,
) -> dict[str, float]:
    """How often ``retrieve`` ranks the answering fact of a one-hop question in its top k.

    The share of one-hop and inverse questions (with a path) whose answering fact a default
    ``retrieve`` ranks in its top 1 / 3 / 5 (``fact@k``), beside BM25 over the facts'
    sentences (``bm25@k``, the same questions).
    """
    hits: dict[str, int] = defaultdict(int)
    asked = 0
    for world in worlds:
        with open_memory("memory://", tenant=world["name"], embedder=embedder) as mem:
            build(mem, world, descriptions=descriptions)
            mem.flush_index()
            for item in world["questions"][:limit]:
                gold = answering_facts(item) if item["group"] in ("one-hop", "inverse") else None
                if not gold:
                    continue
                asked += 1
                results = mem.retrieve(item["question"], k=5)
                ranked = [r.source_id if r.kind == "relationship" else "" for r in results]
                baseline = bm25_facts(world, item["question"])
                for k in (1, 3, 5):
                    hits[f"fact@{k}"] += bool(gold & set(ranked[:k]))
                    hits[f"bm25@{k}"] += bool(gold & set(baseline[:k]))
    return {key: value / asked for key, value in sorted(hits.items())} if asked else {}


def _bm25_score(
    worlds: Sequence[Mapping[str, Any]], embedder: Embedder | None, limit: int | None
) -> Score:
    """The baseline's answers: the far ends of the facts BM25 ranks first."""
    result = Score()
    for world in worlds:
        with open_memory("memory://", tenant=world["name"], embedder=embedder) as mem:
            build(mem, world, descriptions=False)
            linker = mem.entity_linker()
            for item in world["questions"][:limit]:
                named = set(linker.link(item["question"]))
                answers = _bm25_answers(bm25_facts(world, item["question"]), named)
                result.outcomes.append(
                    Outcome(
                        world=world["name"],
                        group=item["group"],
                        question=item["question"],
                        gold=frozenset(item["answers"]),
                        top=answers[0] if answers else None,
                        abstained=not answers,
                        confidence=0.0,
                        reason="",
                    )
                )
    return result


# --------------------------------------------------------------------------- the report


def _figures(result: Score) -> dict[str, Any]:
    done, asked = result.abstained()
    figures: dict[str, Any] = {"hits@1": result.answerable()}
    for group in GROUPS:
        mine = [o for o in result.outcomes if o.group == group]
        if mine:
            figures[f"{group} hits@1"] = result.hits_at_1(group)
    figures["no-answer abstained"] = done
    figures["no-answer questions"] = asked
    figures["answerable abstained"] = result.false_abstentions()
    return figures


def eval_worlds(
    path: Path | str,
    embedder: Embedder | None = None,
    limit: int | None = None,
    say: Callable[[str], None] = lambda line: None,
) -> dict[str, Any]:
    """Score every world of ``path`` (a JSON file or a folder of them); see the module.

    ``limit``: only the first N questions of each world.

    Raises:
        InvalidInput: As :func:`load_worlds`, or a ``limit`` under 1.
    """
    if limit is not None and limit <= 0:
        raise InvalidInput(f"--limit must be positive, got {limit}")
    worlds = load_worlds(path)
    questions = sum(len(w["questions"][:limit]) for w in worlds)
    report: dict[str, Any] = {
        "dataset": "worlds",
        "questions": questions,
        "worlds": [w["name"] for w in worlds],
        "method": "Memory.ask, k=10, names only and described; Memory.retrieve, k=5",
    }
    per_world: dict[str, dict[str, Any]] = {w["name"]: {} for w in worlds}
    misses: list[dict[str, Any]] = []
    for label, descriptions in READINGS:
        result = Score()
        for world in worlds:
            mine = ask_world(world, descriptions=descriptions, embedder=embedder, limit=limit)
            result.outcomes.extend(mine)
            misses.extend(_miss(o, label) for o in mine if o.missed)
            per_world[world["name"]][label] = _figures(Score(mine))
            say(f"worlds: {world['name']}, {label}: {len(mine)} questions asked")
        report[label] = _figures(result)
        facts = fact_hits(worlds, descriptions=descriptions, embedder=embedder, limit=limit)
        report[label].update({k: v for k, v in facts.items() if k.startswith("fact@")})
    # exact shares, rounded only when printed (a share rounded twice can read .001 off)
    report["gap (described - names only)"] = (
        report["described"]["hits@1"] - report["names only"]["hits@1"]
    )
    baseline = _figures(_bm25_score(worlds, embedder, limit))
    # BM25 reads no descriptions: its fact ranking is the same in both readings
    baseline.update(
        {k.replace("bm25", "fact"): v for k, v in facts.items() if k.startswith("bm25@")}
    )
    baseline["method"] = (
        "bm25 over one sentence per fact (answers: the far ends of the top facts; none only "
        "when no fact shares a word with the question)"
    )
    report["baseline"] = baseline
    report["per world"] = per_world
    report["misses"] = misses
    return report


def _miss(outcome: Outcome, reading: str) -> dict[str, Any]:
    """A question missed, as the report lists it: what was asked, expected and given."""
    return {
        "world": outcome.world,
        "reading": reading,
        "group": outcome.group,
        "question": outcome.question,
        "answers": sorted(outcome.gold),
        "got": None if outcome.abstained else outcome.top,
        "confidence": outcome.confidence,
        "reason": outcome.reason,
    }


def print_report(report: Mapping[str, Any], misses: bool = False) -> None:
    """Print a ``worlds`` report: each figure for both readings, BM25 beside it.

    ``misses``: then every question missed, with its gold answers, what came back (or
    nothing) and why.
    """
    names, described, base = report["names only"], report["described"], report["baseline"]
    count = len(report["worlds"])
    print(f"worlds ({count} world{'' if count == 1 else 's'}, {report['questions']} questions)")
    print(f"  {'':<30} {'names only':>10} {'described':>10} {'bm25':>8}")
    keys = ["hits@1", *(f"{g} hits@1" for g in GROUPS), "fact@1", "fact@3", "fact@5"]
    for key in (k for k in keys if k in names):
        line = f"  {key:<30} {names[key]:>10.3f} {described[key]:>10.3f}"
        print(f"{line} {base.get(key, 0.0):>8.3f}")
    asked = names["no-answer questions"]
    print(
        f"  {'no-answer abstained':<30} {names['no-answer abstained']:>7}/{asked:<2} "
        f"{described['no-answer abstained']:>7}/{asked:<2} {base['no-answer abstained']:>5}/{asked}"
    )
    print(f"  gap (described - names only)   {report['gap (described - names only)']:+.3f}")
    for world, figures in report["per world"].items():
        parts = [
            f"{label} {figures[label]['hits@1']:.3f}, "
            f"{figures[label]['no-answer abstained']}/{figures[label]['no-answer questions']}"
            for label, _d in READINGS
        ]
        print(f"    {world:<20} " + " | ".join(parts))
    if misses:
        print(f"  misses ({len(report['misses'])})")
        for miss in report["misses"]:
            expected = ", ".join(miss["answers"]) or "no answer"
            reason = f"; {miss['reason']}" if miss["reason"] else ""
            print(
                f"    {miss['world']}, {miss['reading']}, {miss['group']}: {miss['question']}"
                f" -> {miss['got'] or 'nothing'} (expected {expected}; confidence "
                f"{miss['confidence']:.2f}{reason})"
            )
    print(f"  baseline: {base['method']}", flush=True)
