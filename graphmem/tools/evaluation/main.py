"""``graphmem eval``: retrieval measured on real public data, beside a BM25 baseline.

The data is read, never copied, from ``../shared/eval`` next to the project (or
``--data``). Each question is answered from what a user would give: the question text.
Gold answers, supporting passage ids and question-type labels are read only to score.

- ``musique`` / ``hotpotqa``: the passage corpus becomes chunks (one per passage, its
  title kept), each title an entity (aliases: the title without a parenthetical), and the
  proper names the passages write (:class:`~graphmem.retrieval.NameExtractor`, no model)
  entities too; chunks are linked to the titles and names they contain. Scored: passage
  recall@2 / @5 / @10 of ``Memory.retrieve`` with no preset (``kinds=["chunk"]``: the
  ``passages`` preset, one bridge round; and with no kinds), and, in the same run, the
  ``multihop`` (2 rounds) and ``hybrid`` presets, the store's BM25 full-text search and
  its vector search alone over the same chunks (:data:`PASSAGE_SYSTEMS`).
- ``metaqa``: the knowledge base becomes entities and typed relationships, and its
  relationship types get one-line descriptions (:data:`METAQA_DESCRIPTIONS`, as a user
  would write them; ``--names-only`` leaves them out). Each question is answered by
  ``Memory.ask`` (graph question answering: entity linking, relation paths chosen by how
  the question matches the relationship types, typed walks) from its text alone.
  Scored per hop count: Hits@1, recall, MRR; the graph question settings were chosen on
  1-hop and 2-hop, 3-hop is held out. Baseline: BM25 over one text per entity (its facts
  written out), answers = the entities of the top texts.
- ``light``: each LIGHT world graph becomes rooms, characters and objects with their
  descriptions as chunks, and its types get descriptions (:data:`LIGHT_DESCRIPTIONS`).
  Two question sets, answered by ``Memory.ask``: 67 questions worded by hand
  (``graphmem/tools/evaluation/data/light_questions.json``, several wordings per kind,
  written before the retriever ran on them), and questions generated from the graph by four
  templates (where is X, what does X carry, which rooms border Y, who is in the same room as X).
  No setting was chosen on LIGHT. Baseline: BM25 over the description chunks.
- ``tomi``: theory of mind (graphmem/tools/evaluation/tomi.py): stories become events, questions
  are answered from belief reads; baseline: the world state alone.
- ``worlds``: your own small worlds (``--worlds PATH``: a JSON file or a folder of them;
  default ``worlds/`` inside the data folder), their questions asked by ``Memory.ask`` with
  the type names alone and with descriptions, their one-hop facts ranked by
  ``Memory.retrieve``; baseline: BM25 over the facts' sentences
  (graphmem/tools/evaluation/worlds.py has the format).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from graphmem.core.errors import InvalidInput
from graphmem.core.models import Document, Entity, Relationship
from graphmem.memory import Memory
from graphmem.memory import open as open_memory
from graphmem.retrieval import Embedder, HashingEmbedder, NameExtractor

__all__ = [
    "DATASETS",
    "EXTRACTORS",
    "LIGHT_DESCRIPTIONS",
    "LIGHT_ENTITY_DESCRIPTIONS",
    "METAQA_DESCRIPTIONS",
    "METAQA_ENTITY_DESCRIPTIONS",
    "add_arguments",
    "default_data_dir",
    "describe_light",
    "describe_metaqa",
    "light_handwritten",
    "light_questions",
    "light_world",
    "run",
    "run_dataset",
]

DATASETS = ("musique", "hotpotqa", "metaqa", "light", "tomi", "convmem", "worlds")
EXTRACTORS = ("none", "names")


def default_data_dir() -> Path:
    """``$GRAPHMEM_EVAL_DIR``, else ``../shared/eval`` beside the project root.

    The evaluation data is optional: ``graphmem eval`` skips a dataset it cannot find, and
    notebook 02 falls back to a sample world that ships with graphmem.
    """
    chosen = os.environ.get("GRAPHMEM_EVAL_DIR")
    if chosen:
        return Path(chosen)
    project = Path(__file__).resolve().parents[3]  # graphmem/tools/evaluation/main.py
    return project.parent / "shared" / "eval"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``eval`` options to ``parser``."""
    parser.add_argument(
        "--dataset",
        action="append",
        choices=DATASETS,
        help="dataset to evaluate (repeatable; default: all)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object per dataset")
    parser.add_argument("--limit", type=int, metavar="N", help="only the first N questions")
    parser.add_argument("--data", type=Path, metavar="DIR", help="the eval data folder")
    parser.add_argument(
        "--worlds",
        type=Path,
        metavar="PATH",
        help="worlds: a world file (JSON) or a folder of them (default: DIR/worlds; "
        "graphmem/tools/evaluation/worlds.py has the format)",
    )
    parser.add_argument(
        "--misses",
        action="store_true",
        help="worlds: also print every question missed (its gold answers, what came back "
        "and why); --json always lists them",
    )
    parser.add_argument(
        "--extractor",
        choices=EXTRACTORS,
        default="names",
        help="musique / hotpotqa entities: titles and the proper names the passages write "
        "(names, the default: NameExtractor, no model), or passage titles only (none)",
    )
    parser.add_argument(
        "--names-only",
        action="store_true",
        help="metaqa / light: do not describe the relationship and entity types; questions "
        "are matched against the type names alone",
    )
    parser.add_argument(
        "--embedder",
        choices=("default", "hashing"),
        default="default",
        help="default: all-MiniLM-L6-v2 (the embeddings extra); hashing: no model (fast)",
    )
    _add_conversation_arguments(parser)


def _add_conversation_arguments(parser: argparse.ArgumentParser) -> None:
    """The options of ``--dataset convmem`` and the progress bar."""
    parser.add_argument(
        "--fit",
        action="store_true",
        help="convmem: fit the turn model's weights on the tuning half (odd chats), then "
        "score and print them instead of the shipped ones",
    )
    parser.add_argument(
        "--quiet",
        action="store_true",
        help="no progress bar and no progress lines (a bar is drawn only on a terminal)",
    )


def _load_json(path: Path) -> Any:
    with path.open(encoding="utf-8") as handle:
        return json.load(handle)


def _recall(ranked: Sequence[str], gold: set[str], k: int) -> float:
    return len(set(ranked[:k]) & gold) / len(gold) if gold else 0.0


def _mean(values: Sequence[float]) -> float:
    return round(sum(values) / len(values), 4) if values else 0.0


# --------------------------------------------------------------------------- passages

PASSAGE_HOPS = 2
"""The rounds of the ``multihop`` preset scored on MuSiQue and HotpotQA."""


def _passage_corpus(data: Path, name: str) -> tuple[list[tuple[str, str]], list[Any]]:
    folder = data / "musique_hotpotqa"
    corpus_raw = _load_json(folder / f"{name}_train_corpus.json")
    questions = _load_json(folder / f"{name}_train.json")
    if isinstance(corpus_raw, dict):  # hotpotqa: title -> sentences
        corpus = [(title, "".join(sents)) for title, sents in corpus_raw.items()]
    else:
        corpus = [(p["title"], p["text"]) for p in corpus_raw]
    return corpus, questions


def _gold_passages(name: str, question: dict[str, Any], index: dict[Any, str]) -> set[str]:
    if name == "hotpotqa":
        return {index[t] for t, _sent in question["supporting_facts"] if t in index}
    return {
        index[(p["title"], p["paragraph_text"])]
        for p in question["paragraphs"]
        if p["is_supporting"] and (p["title"], p["paragraph_text"]) in index
    }


def _ingest_passages(mem: Memory, corpus: list[tuple[str, str]], extract: str) -> None:
    """The passages as titled documents, each title an entity: the public ingest option."""
    docs = [
        Document(id=f"p{i}", title=title, text=text or title)
        for i, (title, text) in enumerate(corpus)
    ]
    extractor = NameExtractor() if extract == "names" else None
    mem.add_documents(
        docs, chunk_tokens=10_000, overlap=0, extractor=extractor, title_entities=True
    )
    if extractor is not None:  # the names it found are entities too: embed them
        mem.index_entities()


def _passage_of(chunk_id: str) -> str:
    return chunk_id.split("#", 1)[0]


PASSAGE_HALVES = ("tune", "held out")
"""The two halves of each passage set's questions: the first (``tune``) is what the
passage defaults were chosen on, the second (``held out``) was scored only after."""
PASSAGE_SYSTEMS = ("default", "default, no kinds", "multihop", "hybrid", "bm25", "vector")
"""What ``graphmem eval`` scores on MuSiQue and HotpotQA, in the same run: ``retrieve``
with no preset (kinds ``chunk``, and with no kinds: passages among every kind), the
``multihop`` and ``hybrid`` presets, and the store's own BM25 and vector search alone."""


def _rank_passages(mem: Memory, system: str, text: str, vector: Any) -> list[str]:
    """The chunk ids one of :data:`PASSAGE_SYSTEMS` ranks for a question, best first."""
    if system == "default":
        return [r.source_id for r in mem.retrieve(text, k=30, kinds=["chunk"])]
    if system == "default, no kinds":  # other kinds keep their slots: crowding counts
        found = mem.retrieve(text, k=30)
        return [r.source_id if r.kind == "chunk" else f"~{r.kind}:{r.source_id}" for r in found]
    if system in ("multihop", "hybrid"):
        hops = PASSAGE_HOPS if system == "multihop" else 2
        found = mem.retrieve(text, k=30, hops=hops, kinds=["chunk"], preset=system)
        return [r.source_id for r in found]
    if system == "bm25":
        return [h.id for h in mem.store.fulltext_search(mem.tenant, "chunk", text, 30)]
    return [h.id for h in mem.store.vector_search(mem.tenant, "chunk", vector, 30)]


def _eval_passages(
    name: str,
    data: Path,
    embedder: Embedder,
    limit: int | None,
    say: Callable[[str], None],
    extractor: str = "names",
    progress: bool = False,
) -> dict[str, Any]:
    from graphmem.core.progress import progress_bar

    corpus, questions = _passage_corpus(data, name)
    if limit:
        questions = questions[:limit]
    index: dict[Any, str] = {}
    for i, (title, text) in enumerate(corpus):
        index.setdefault(title if name == "hotpotqa" else (title, text), f"p{i}")
    half = (len(questions) + 1) // 2
    with open_memory(
        "memory://", tenant=f"eval-{name}", embedder=embedder, progress=progress
    ) as mem:
        start = time.perf_counter()
        _ingest_passages(mem, corpus, extractor)
        ingest_s = time.perf_counter() - start
        say(f"{name}: ingested {len(corpus)} passages in {ingest_s:.1f} s")
        scores: dict[str, dict[str, dict[str, list[float]]]] = {
            system: {h: defaultdict(list) for h in (*PASSAGE_HALVES, "all")}
            for system in PASSAGE_SYSTEMS
        }
        seconds: dict[str, float] = defaultdict(float)

        with progress_bar(len(questions), name, progress, unit="q") as bar:
            for number, question in enumerate(questions):
                gold = _gold_passages(name, question, index)
                text = question["question"]
                vector = embedder.embed([text])[0]
                ranked: dict[str, list[str]] = {}
                for system in PASSAGE_SYSTEMS:
                    began = time.perf_counter()
                    found = _rank_passages(mem, system, text, vector)
                    seconds[system] += time.perf_counter() - began
                    ranked[system] = list(
                        dict.fromkeys(i if i[0] == "~" else _passage_of(i) for i in found)
                    )
                which = PASSAGE_HALVES[0] if number < half else PASSAGE_HALVES[1]
                for system, ids in ranked.items():
                    for k in (2, 5, 10):
                        for part in (which, "all"):
                            scores[system][part][f"recall@{k}"].append(_recall(ids, gold, k))
                bar.update(1)
    report: dict[str, Any] = {"dataset": name, "questions": len(questions)}
    report["halves"] = {
        PASSAGE_HALVES[0]: f"questions 1-{half}",
        PASSAGE_HALVES[1]: f"questions {half + 1}-{len(questions)}",
    }
    report["extractor"] = extractor
    for system in PASSAGE_SYSTEMS:
        report[system] = {
            part: {key: _mean(values) for key, values in by_k.items()}
            for part, by_k in scores[system].items()
        }
        report[system]["ms_per_question"] = round(
            1000 * seconds[system] / max(1, len(questions)), 1
        )
    report.update(report["default"]["all"])  # the headline: retrieve as a user calls it
    report["baseline"] = {"method": "bm25 (tantivy) over the same chunks"}
    report["baseline"].update(report["bm25"]["all"])
    report["ingest_seconds"] = round(ingest_s, 2)
    return report


def print_passages(report: dict[str, Any]) -> None:
    """Print a MuSiQue / HotpotQA report: every system on each half, BM25 beside it."""
    print(f"{report['dataset']} ({report['questions']} questions; {report['halves']})")
    print(f"  {'system':<20} {'half':<9} {'R@2':>6} {'R@5':>6} {'R@10':>6}   ms/q")
    for system in PASSAGE_SYSTEMS:
        for part in (*PASSAGE_HALVES, "all"):
            got = report[system][part]
            cells = " ".join(f"{got.get(f'recall@{k}', 0.0):6.3f}" for k in (2, 5, 10))
            ms = report[system]["ms_per_question"] if part == "all" else ""
            print(f"  {system:<20} {part:<9} {cells}   {ms}")
    print(f"  baseline: {report['baseline']['method']}; ingest {report['ingest_seconds']} s")


# --------------------------------------------------------------------------- MetaQA

METAQA_DESCRIPTIONS: dict[str, str] = {
    "directed_by": "the director who directed the film",
    "written_by": "the writer, author or screenwriter who wrote the film's script or story",
    "starred_actors": "an actor or actress who starred, acted or appeared in the film",
    "release_year": "the year the film was released",
    "in_language": "the language the film is in, spoken in it",
    "has_genre": "the genre of the film: its kind, sort or type",
    "has_tags": "a tag: a word, term or topic that describes what the film is about",
    "has_imdb_rating": "the film's rating on IMDb",
    "has_imdb_votes": "how many votes the film has on IMDb: how popular it is",
}
"""What a user would write about MetaQA's relationship types (``describe_relationship_type``):
one line each, about the schema. Revised once, after misses on MetaQA's 1-hop and 2-hop
questions (the tuning data), by the words "author", "story", "appeared", "sort", "term"."""
METAQA_ENTITY_DESCRIPTIONS: dict[str, str] = {"movie": "a film"}
METAQA_TUNED = (1, 2)
"""MetaQA's hop counts the graph question settings were chosen on; 3-hop is held out."""


def _describe(mem: Memory, relationships: dict[str, str], entities: dict[str, str]) -> None:
    for name, text in relationships.items():
        mem.describe_relationship_type(name, text)
    for name, text in entities.items():
        mem.describe_entity_type(name, text)


def describe_metaqa(mem: Memory) -> None:
    """Attach :data:`METAQA_DESCRIPTIONS` to the memory's relationship and entity types."""
    _describe(mem, METAQA_DESCRIPTIONS, METAQA_ENTITY_DESCRIPTIONS)


def _load_kb(data: Path) -> tuple[list[Entity], list[Relationship]]:
    triples = []
    with (data / "metaqa" / "kb.txt").open(encoding="utf-8") as handle:
        for line in handle:
            parts = line.rstrip("\n").split("|")
            if len(parts) == 3 and parts[0].strip() and parts[2].strip():
                triples.append((parts[0], parts[1], parts[2]))
    heads = {h for h, _r, _t in triples}
    names = sorted({h for h, _r, _t in triples} | {t for _h, _r, t in triples})
    entities = [
        Entity(id=n, type="movie" if n in heads else "concept", name=n) for n in names if n.strip()
    ]
    rels = {(h, t, r): Relationship(source_id=h, target_id=t, type=r) for h, r, t in triples}
    return entities, list(rels.values())


def _metaqa_questions(data: Path, limit: int | None) -> Iterator[tuple[int, str, str, set[str]]]:
    """``(hops, question type, question, gold)``; the type is read only to score by it."""
    for hops in (1, 2, 3):
        path = data / "metaqa" / f"{hops}-hop" / "qa_test_kbcomplete.tsv"
        with path.open(encoding="utf-8") as handle:
            for number, line in enumerate(handle):
                if limit is not None and number >= limit:
                    break
                _index, qtype, question, answers = line.rstrip("\n").split("\t")
                yield hops, qtype, question, set(answers.split("|"))


def _eval_metaqa(
    data: Path,
    embedder: Embedder,
    limit: int | None,
    say: Callable[[str], None],
    descriptions: bool = True,
) -> dict[str, Any]:
    entities, rels = _load_kb(data)
    with open_memory("memory://", tenant="eval-metaqa", embedder=embedder) as mem:
        start = time.perf_counter()
        for i in range(0, len(entities), 20_000):
            mem.upsert_entities(entities[i : i + 20_000])
        for i in range(0, len(rels), 20_000):
            mem.upsert_relationships(rels[i : i + 20_000])
        if descriptions:
            describe_metaqa(mem)
        # The baseline's corpus: one text per entity, its facts written out.
        facts: dict[str, list[str]] = defaultdict(list)
        for rel in rels:
            phrase = rel.type.replace("_", " ")
            facts[rel.source_id].append(f"{phrase} {rel.target_id}")
            facts[rel.target_id].append(f"{rel.source_id} {phrase}")
        docs = [
            Document(id=f"e{n}", text=f"{e.id}. " + ". ".join(facts[e.id]), entity_ids=(e.id,))
            for n, e in enumerate(entities)
        ]
        mem.add_documents(docs, chunk_tokens=100_000, overlap=0, embed=False)
        chunk_entity = {f"e{n}#0": e.id for n, e in enumerate(entities)}
        ingest_s = time.perf_counter() - start
        say(f"metaqa: ingested {len(entities)} entities, {len(rels)} facts in {ingest_s:.1f} s")
        ours: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        base: dict[int, dict[str, list[float]]] = defaultdict(lambda: defaultdict(list))
        by_type: dict[str, list[float]] = defaultdict(list)
        query_s = 0.0
        count = 0
        for hops, qtype, question, gold in _metaqa_questions(data, limit):
            count += 1
            start = time.perf_counter()
            answers = mem.ask(question, k=10)
            query_s += time.perf_counter() - start
            ranked = [a.entity.id for a in answers]
            _score_answers(ours[hops], ranked, gold)
            by_type[qtype].append(ours[hops]["hits@1"][-1])
            # BM25 reads the question as it is; what it names is not an answer
            named = set(mem.entity_linker().link(question))
            hits = mem.store.fulltext_search(mem.tenant, "chunk", question, 10)
            ranked_base = [chunk_entity[h.id] for h in hits if chunk_entity[h.id] not in named]
            _score_answers(base[hops], ranked_base, gold)
    report: dict[str, Any] = {"dataset": "metaqa", "questions": count}
    report["method"] = "Memory.ask (graph question answering), k=10"
    report["descriptions"] = "relationship types described" if descriptions else "names only"
    report["tuned on"] = ", ".join(f"{h}-hop" for h in METAQA_TUNED)
    report["held out"] = ", ".join(f"{h}-hop" for h in sorted(ours) if h not in METAQA_TUNED)
    for hops in sorted(ours):
        report[f"{hops}-hop questions"] = len(ours[hops]["hits@1"])
        for key, values in ours[hops].items():
            report[f"{hops}-hop {key}"] = _mean(values)
    report["baseline"] = {"method": "bm25 (tantivy) over one text per entity"}
    for hops in sorted(base):
        for key, values in base[hops].items():
            report["baseline"][f"{hops}-hop {key}"] = _mean(values)
    report["hits@1 by question type"] = {
        qtype: _mean(values) for qtype, values in sorted(by_type.items())
    }
    report["ingest_seconds"] = round(ingest_s, 2)
    report["ms_per_question (graphmem)"] = round(1000 * query_s / max(1, count), 2)
    return report


def _score_answers(into: dict[str, list[float]], ranked: Sequence[str], gold: set[str]) -> None:
    into["hits@1"].append(1.0 if ranked and ranked[0] in gold else 0.0)
    into["recall"].append(len(set(ranked) & gold) / len(gold) if gold else 0.0)
    into["recall@10"].append(_recall(ranked, gold, 10))
    first = next((i for i, e in enumerate(ranked, 1) if e in gold), None)
    into["mrr"].append(1.0 / first if first else 0.0)


# --------------------------------------------------------------------------- LIGHT

LIGHT_DESCRIPTIONS: dict[str, str] = {
    "located_in": "the room or place where a character or object is",
    "carries": "an object a character is carrying",
    "contains": "an object inside a container object",
    "borders": "a neighbouring room, next to this one",
}
"""What a user would write about the LIGHT ingestion's relationship types (written after
the hand-worded questions, before any retriever ran on them)."""
LIGHT_ENTITY_DESCRIPTIONS: dict[str, str] = {
    "location": "a room or place in the world",
    "npc": "a character (a person or creature)",
    "item": "an object",
}
# Templates of the generated questions (the second, larger LIGHT set): kind -> wording.
_LIGHT_TEMPLATES: dict[str, str] = {
    "where": "Where is {name}?",
    "carry": "What does {name} carry?",
    "border": "Which rooms border {name}?",
    "together": "Who is in the same room as {name}?",
}


def describe_light(mem: Memory) -> None:
    """Attach :data:`LIGHT_DESCRIPTIONS` to the memory's relationship and entity types."""
    _describe(mem, LIGHT_DESCRIPTIONS, LIGHT_ENTITY_DESCRIPTIONS)


def light_handwritten() -> dict[str, list[tuple[str, set[str]]]]:
    """The hand-worded LIGHT questions by world (``tools/evaluation/data/light_questions.json``).

    Each as ``(question, gold entity ids)``; the ids are the exact answer set in the world
    as :func:`light_world` builds it.
    """
    source = resources.files("graphmem.tools.evaluation") / "data" / "light_questions.json"
    data = json.loads(source.read_text(encoding="utf-8"))
    out: dict[str, list[tuple[str, set[str]]]] = defaultdict(list)
    for item in data["questions"]:
        out[item["world"]].append((item["question"], set(item["answers"])))
    return dict(out)


def light_world(path: Path) -> tuple[list[Entity], list[Relationship], list[Document]]:
    """A LIGHT world graph as entities, relationships and description documents.

    Rooms are ``location`` entities, characters ``npc``, objects ``item``. Facts:
    ``located_in`` (character or object -> room), ``carries`` (character -> object),
    ``contains`` (object -> object), ``borders`` (room -> neighbouring room).
    """
    world = _load_json(path)
    nodes = world["nodes"]
    kinds = {**dict.fromkeys(world["rooms"], "location")}
    kinds.update(dict.fromkeys(world["agents"], "npc"))
    kinds.update(dict.fromkeys(world["objects"], "item"))
    entities, docs = [], []
    for node_id, kind in kinds.items():
        node = nodes.get(node_id)
        if node is None:
            continue
        name = str(node.get("name") or node_id).strip() or node_id
        description = " ".join(
            str(node.get(key) or "") for key in ("desc", "persona", "extra_desc")
        ).strip()
        entities.append(
            Entity(
                id=node_id,
                type=kind,
                name=name,
                attributes={"description": description[:500]} if description else {},
            )
        )
        if description:
            docs.append(
                Document(id=f"d-{node_id}", title=name, text=description, entity_ids=(node_id,))
            )
    known = {e.id for e in entities}
    rels: dict[tuple[str, str, str], Relationship] = {}

    def add(source: Any, target: Any, type_: str) -> None:
        if source in known and target in known and source != target:
            rels[(source, target, type_)] = Relationship(
                source_id=source, target_id=target, type=type_
            )

    for node_id, kind in kinds.items():
        node = nodes.get(node_id) or {}
        container = (node.get("container_node") or {}).get("target_id")
        if container in kinds:
            if kinds[container] == "location":
                add(node_id, container, "located_in")
            elif kinds[container] == "npc":
                add(container, node_id, "carries")
            else:
                add(container, node_id, "contains")
        if kind == "location":
            for neighbor in (node.get("neighbors") or {}).values():
                add(node_id, neighbor.get("target_id", ""), "borders")
    return entities, list(rels.values()), docs


def light_questions(
    entities: list[Entity], rels: list[Relationship]
) -> list[tuple[str, str, set[str]]]:
    """Questions generated from a world graph: ``(kind, question, gold entity ids)``.

    Only about entities whose name is unique in the world, so each has one exact answer set.
    """
    names = Counter(e.name.lower() for e in entities)
    by_id = {e.id: e for e in entities}
    unique = {e.id for e in entities if names[e.name.lower()] == 1}
    located: dict[str, str] = {}
    carries: dict[str, set[str]] = defaultdict(set)
    borders: dict[str, set[str]] = defaultdict(set)
    for rel in rels:
        if rel.type == "located_in":
            located[rel.source_id] = rel.target_id
        elif rel.type == "carries":
            carries[rel.source_id].add(rel.target_id)
        elif rel.type == "borders":
            borders[rel.source_id].add(rel.target_id)
            borders[rel.target_id].add(rel.source_id)
    people_in: dict[str, set[str]] = defaultdict(set)
    for who, room in located.items():
        if by_id[who].type == "npc":
            people_in[room].add(who)
    out: list[tuple[str, str, set[str]]] = []
    for entity in sorted(entities, key=lambda e: e.id):
        if entity.id not in unique:
            continue
        name = entity.name
        if entity.type == "npc" and entity.id in located:
            out.append(("where", _LIGHT_TEMPLATES["where"].format(name=name), {located[entity.id]}))
            if carries.get(entity.id):
                q = _LIGHT_TEMPLATES["carry"].format(name=name)
                out.append(("carry", q, set(carries[entity.id])))
            others = people_in[located[entity.id]] - {entity.id}
            if others:
                q = _LIGHT_TEMPLATES["together"].format(name=name)
                out.append(("together", q, others))
        if entity.type == "location" and borders.get(entity.id):
            q = _LIGHT_TEMPLATES["border"].format(name=name)
            out.append(("border", q, set(borders[entity.id])))
    return out


def _eval_light(
    data: Path,
    embedder: Embedder,
    limit: int | None,
    say: Callable[[str], None],
    descriptions: bool = True,
) -> dict[str, Any]:
    sets = ("hand-worded", "generated")
    ours: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in sets}
    base: dict[str, dict[str, list[float]]] = {name: defaultdict(list) for name in sets}
    kinds: dict[str, list[float]] = defaultdict(list)
    start = time.perf_counter()
    worlds = sorted((data / "light" / "prod_maps").glob("*.json"))
    handwritten = light_handwritten()
    for path in worlds:
        entities, rels, docs = light_world(path)
        generated = light_questions(entities, rels)
        if limit:
            generated = generated[: max(1, limit // len(worlds))]
        asked = [("hand-worded", "", q, gold) for q, gold in handwritten.get(path.stem, [])]
        asked += [("generated", kind, q, gold) for kind, q, gold in generated]
        with open_memory("memory://", tenant=f"light-{path.stem}", embedder=embedder) as mem:
            mem.upsert_entities(entities)
            mem.upsert_relationships(rels)
            if descriptions:
                describe_light(mem)
            mem.add_documents(docs, chunk_tokens=10_000, overlap=0)
            doc_entity = {f"{d.id}#0": d.entity_ids[0] for d in docs}
            for which, kind, question, gold in asked:
                ranked = [a.entity.id for a in mem.ask(question, k=10)]
                _score_light(ours[which], ranked, gold)
                if kind:
                    kinds[kind].append(ours[which]["hits@1"][-1])
                named = set(mem.entity_linker().link(question))
                hits = mem.store.fulltext_search(mem.tenant, "chunk", question, 20)
                ranked_base = [doc_entity[h.id] for h in hits if doc_entity[h.id] not in named]
                _score_light(base[which], ranked_base, gold)
        say(f"light: {path.stem}: {len(entities)} entities, {len(asked)} questions")
    report: dict[str, Any] = {"dataset": "light", "worlds": len(worlds)}
    report["questions"] = sum(len(ours[name]["hits@1"]) for name in sets)
    report["method"] = "Memory.ask (graph question answering), k=10"
    report["descriptions"] = "types described" if descriptions else "names only"
    report["held out"] = "all (no setting was chosen on LIGHT)"
    report["baseline"] = {"method": "bm25 (tantivy) over the description chunks"}
    for name in sets:
        report[f"{name} questions"] = len(ours[name]["hits@1"])
        for key in ("hits@1", "recall@5"):
            report[f"{name} {key}"] = _mean(ours[name][key])
            report["baseline"][f"{name} {key}"] = _mean(base[name][key])
    report["hits@1"] = report["hand-worded hits@1"]
    report["recall@5"] = report["hand-worded recall@5"]
    report["baseline"]["hits@1"] = report["baseline"]["hand-worded hits@1"]
    report["baseline"]["recall@5"] = report["baseline"]["hand-worded recall@5"]
    report["generated hits@1 by template"] = {k: _mean(v) for k, v in sorted(kinds.items())}
    report["seconds"] = round(time.perf_counter() - start, 1)
    return report


def _score_light(into: dict[str, list[float]], ranked: Sequence[str], gold: set[str]) -> None:
    into["hits@1"].append(1.0 if ranked and ranked[0] in gold else 0.0)
    into["recall@5"].append(_recall(ranked, gold, 5))


# --------------------------------------------------------------------------- driver


def run_dataset(
    name: str,
    *,
    data: Path | None = None,
    embedder: Embedder | None = None,
    limit: int | None = None,
    say: Callable[[str], None] = lambda line: None,
    extractor: str = "names",
    fit: bool = False,
    progress: bool = False,
    descriptions: bool = True,
    worlds: Path | None = None,
) -> dict[str, Any]:
    """Evaluate one dataset and return its report (metric name -> value, and ``baseline``).

    ``extractor`` (MuSiQue and HotpotQA): ``names`` (the default) makes entities of the
    passage titles and of the proper names the passages write (``NameExtractor``);
    ``none`` links passages by their titles only. ``fit`` (convmem): fit the turn model
    on the tuning half first (:mod:`graphmem.tools.evaluation.conversations`). ``progress``:
    draw a progress bar on a terminal (convmem). ``descriptions`` (MetaQA and LIGHT):
    describe the relationship and entity types before asking; False: names only.
    ``worlds`` (worlds): a world file or a folder of them; None: ``worlds/`` of the data
    folder (:mod:`graphmem.tools.evaluation.worlds`; both readings are always scored).

    Raises:
        InvalidInput: Unknown dataset or extractor, bad ``limit``, no data folder, or (worlds)
            no world there or a world the format does not allow.
    """
    if extractor not in EXTRACTORS:
        raise InvalidInput(f"unknown extractor {extractor!r}; use one of {EXTRACTORS}")
    if name not in DATASETS:
        raise InvalidInput(f"unknown dataset {name!r}; use one of {DATASETS}")
    if limit is not None and limit <= 0:
        raise InvalidInput(f"--limit must be positive, got {limit}")
    folder = data or default_data_dir()
    if name == "worlds":
        from graphmem.tools.evaluation.worlds import eval_worlds

        return eval_worlds(worlds or folder / "worlds", embedder, limit, say)
    if not folder.is_dir():
        raise InvalidInput(f"no evaluation data at {folder}; pass --data DIR", path=str(folder))
    if name == "tomi":  # beliefs, no retrieval: graphmem/tools/evaluation/tomi.py
        from graphmem.tools.evaluation import tomi as evaluation_tomi

        return evaluation_tomi.run(folder, limit, say)
    if embedder is None:
        from graphmem.retrieval import default_embedder

        embedder = default_embedder()
    if name == "convmem":
        from graphmem.tools.evaluation.conversations import eval_convmem

        return eval_convmem(folder, embedder, limit, say, fit=fit, progress=progress)
    if name in ("musique", "hotpotqa"):
        return _eval_passages(name, folder, embedder, limit, say, extractor, progress)
    if name == "metaqa":
        return _eval_metaqa(folder, embedder, limit, say, descriptions)
    return _eval_light(folder, embedder, limit, say, descriptions)


def run(args: argparse.Namespace) -> int:
    """Run ``graphmem eval`` and print its reports (text, or JSON lines with ``--json``)."""
    from graphmem.core.progress import wants_progress, write_line

    quiet = getattr(args, "quiet", False)
    progress = wants_progress(quiet)

    def say(line: str) -> None:
        if not quiet:
            write_line(line, sys.stderr)

    embedder: Embedder | None = HashingEmbedder(384) if args.embedder == "hashing" else None
    worlds: Path | None = getattr(args, "worlds", None)
    for name in args.dataset or DATASETS:
        if name == "worlds" and not args.dataset and worlds is None:
            folder = (args.data or default_data_dir()) / "worlds"
            if not folder.is_dir():
                say(f"worlds: skipped, no worlds at {folder} (pass --worlds PATH)")
                continue
        report = run_dataset(
            name,
            data=args.data,
            embedder=embedder,
            limit=args.limit,
            say=say,
            extractor=args.extractor,
            fit=getattr(args, "fit", False),
            progress=progress,
            descriptions=not args.names_only,
            worlds=worlds,
        )
        report["embedder"] = args.embedder
        if args.json:
            print(json.dumps(report), flush=True)
            continue
        if name == "tomi":
            from graphmem.tools.evaluation.tomi import print_report

            print_report(report)
            continue
        if name == "convmem":
            from graphmem.tools.evaluation.conversations import print_report as print_convmem

            print_convmem(report)
            continue
        if name in ("musique", "hotpotqa"):
            print_passages(report)
            continue
        if name == "worlds":
            from graphmem.tools.evaluation.worlds import print_report as print_worlds

            print_worlds(report, misses=getattr(args, "misses", False))
            continue
        print(f"{name} ({report['questions']} questions)")
        baseline = report["baseline"]
        older = report.get("graph preset (hops=1)", {})
        for key, value in report.items():
            if isinstance(value, float) and key in baseline:
                line = f"  {key:<28} {value:>7.3f}   bm25 {baseline[key]:>7.3f}"
                if key in older:
                    line += f"   graph preset {older[key]:>7.3f}"
                print(line)
            elif key not in ("baseline", "dataset", "questions", "graph preset (hops=1)"):
                print(f"  {key:<28} {value}")
        print(f"  baseline: {baseline['method']}", flush=True)
    return 0
