"""The calls of the fuzz suite: every public method of ``Memory``, ``Conversation``,
``FactMemory`` and ``ConversationMemory``, with a strategy for its arguments and, for the
methods that write, a check that what was written reads back.

A :class:`World` is one seeded tenant of the backend under test. :meth:`World.run` makes
one call and holds it to the contract: it succeeds (and what it wrote reads back, and the
tenant's dump goes through an export and an import unchanged), or it raises a
``GraphmemError`` and the tenant is exactly as it was. Anything else fails the test, and
every outcome is counted in :data:`TALLY` (printed at the end of the session).
"""

from __future__ import annotations

import io
import math
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from graphmem import (
    Document,
    Entity,
    GraphmemError,
    GraphStore,
    Memory,
    NotFound,
    Relationship,
    StoreClosed,
    Turn,
)
from graphmem.core.models import ContextResult, Provenance
from graphmem.exchange import jsonl as jsonl_format
from graphmem.retrieval import HashingEmbedder

from .fuzz_values import (
    BIG_TEXT,
    DEEP,
    ENTITY_IDS,
    ENTITY_TYPES,
    HOSTILE_STRINGS,
    WRONG_TYPES,
    attributes,
    bools,
    depths,
    durations,
    facts,
    fractions,
    id_lists,
    ids,
    name_lists,
    names,
    nested_json,
    new_ids,
    nice_text,
    optional,
    pick,
    sizes,
    texts,
    times,
    vectors,
)
from .helpers import canonical

DIMENSION = 16
SESSIONS = ("s1", "s2")
ROLES = ("user", "assistant", "player", "npc", "gm")
OUTCOMES = ("tried", "ok", "typed", "untyped", "half_written")

TALLY: dict[str, Counter[str]] = {}
"""Outcomes by backend id: ``tried``, ``ok``, ``typed``, ``untyped``, ``half_written``."""


# --------------------------------------------------------------------------- the world


class World:
    """A seeded tenant of one backend, the objects under test, and the contract checks."""

    def __init__(self, store: GraphStore, tenant: str, backend: str, directory: Path) -> None:
        self.store = store
        self.tenant = tenant
        self.backend = backend
        self.directory = directory
        self.tally = TALLY.setdefault(backend, Counter())
        self.embedder = HashingEmbedder(DIMENSION)
        self.resources: list[Any] = []
        self.open()
        self.seed()

    # ------------------------------------------------------------------ setup

    def open(self) -> None:
        self.mem = Memory(self.store, self.tenant, owns_store=False, embedder=self.embedder)
        self.chat = self.mem.conversation("s1")
        self.facts = self.mem.fact_memory(actor="gm", session="s1")
        self.cm = self.mem.conversation_memory(user="ada", session="s1", max_tokens=200)

    def seed(self) -> None:
        """Entities, facts, a conversation, lore, governed facts, events, a recap."""
        mem = self.mem
        mem.upsert_entities(
            [
                Entity(id="mira", type="npc", name="Mira", attributes={"occupation": "smith"}),
                Entity(id="tomas", type="npc", name="Tomas"),
                Entity(id="forge", type="location", name="The Forge"),
                Entity(id="sword", type="item", name="Sword"),
                Entity(id="cellar", type="location", name="Cellar"),
            ]
        )
        mem.upsert_relationships(
            [
                Relationship(source_id="mira", target_id="tomas", type="knows"),
                Relationship(source_id="mira", target_id="forge", type="works_at"),
                Relationship(source_id="sword", target_id="cellar", type="located_in"),
                Relationship(source_id="tomas", target_id="forge", type="located_in"),
            ]
        )
        if self.chat.count() == 0:
            self.chat.append("player", "Where is the sword?", turn_id="m1")
            self.chat.append("npc", "In the cellar, I think.", speaker="Mira", turn_id="m2")
            self.chat.append("player", "Thank you, Mira.", turn_id="m3")
        mem.add_documents([Document(id="lore", text="Mira forges swords at The Forge.")])
        mem.index_entities()
        self.facts.learn("mira", "occupation", "smith", source_type="admin")
        mem.record_event(
            "moved", actor="tomas", changes=[("sword", "located_in", "cellar")], place="forge"
        )
        mem.save_recap("s1", "Previously: the sword went missing.")
        mem.flush_index()
        self.turn_keys = [t.id for t in self.chat.turns()] + ["m1", "m2"]
        self.fact_ids = [f.id for f in self.facts.facts(include_all=True)]
        self.audit_ids = [e.id for e in self.facts.audit_log()]
        self.dump_s1 = self.chat.dump()
        self.snapshot = self.cm.snapshot()

    def target(self, name: str) -> Any:
        return {"Memory": self.mem, "Conversation": self.chat, "FactMemory": self.facts}.get(
            name, self.cm
        )

    # ------------------------------------------------------------------ state

    def state(self) -> dict[str, Any]:
        """Everything the tenant holds, as plain comparable data (embeddings by count)."""
        dump = self.store.dump(self.tenant)
        return {
            **canonical(dump),
            "chunks": sorted(
                (c.model_dump(mode="json") for c in dump.chunks), key=lambda c: c["id"]
            ),
            "mentions": sorted(dump.mentions),
            "embeddings": {
                kind: self.store.count_embeddings(self.tenant, kind)
                for kind in ("entity", "turn", "chunk")
            },
        }

    def check_round_trip(self) -> None:
        """The tenant's dump goes through an export and an import unchanged."""
        dump = self.store.dump(self.tenant)
        text = "".join(jsonl_format.lines(dump, tenant=self.tenant))
        again = jsonl_format.read(io.StringIO(text))
        assert canonical(again) == canonical(dump)
        assert sorted(again.mentions) == sorted(dump.mentions)
        assert [c.model_dump() for c in again.chunks] == [c.model_dump() for c in dump.chunks]

    # ------------------------------------------------------------------ one call

    def run(self, spec: Spec, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
        """Make one call and hold it to the contract (see the module docstring)."""
        self.tally["tried"] += 1
        before = self.state()
        target = self.target(spec.target)
        try:
            result = spec.invoke(target, args, kwargs)
        except GraphmemError as exc:
            self.tally["typed"] += 1
            after = self.state()
            if after != before:
                self.tally["half_written"] += 1
                changed = sorted(k for k in before if before[k] != after[k])
                raise AssertionError(
                    f"{spec.name} raised {type(exc).__name__} ({exc}) but changed {changed}"
                ) from exc
            if spec.export_target and isinstance(args[0], str | Path):
                left = [p.name for p in self.directory.glob("*.partial")]
                assert not left, f"{spec.name} left partial files {left}"
            if isinstance(exc, StoreClosed):
                self.open()
            return
        except Exception as exc:
            self.tally["untyped"] += 1
            raise AssertionError(
                f"{spec.name} raised {type(exc).__name__}, not a GraphmemError: {exc}"
            ) from exc
        self.tally["ok"] += 1
        if spec.check is not None:
            spec.check(self, result, args, kwargs)
        if self.state() != before:
            self.check_round_trip()
        if spec.reopen:
            self.open()
        if spec.reseed or self.mem.count_entities() < 2:
            self.seed()

    def finish(self, reopen: Callable[[], GraphStore] | None) -> None:
        """On a persistent backend: what the store holds survives closing and reopening."""
        for resource in self.resources:
            resource.close()
        if reopen is None:
            return
        before = self.state()
        self.store = reopen()
        assert self.state() == before


# --------------------------------------------------------------------------- specs


Check = Callable[[World, Any, tuple[Any, ...], dict[str, Any]], None]


@dataclass(frozen=True)
class Spec:
    """One public method: how to call it with hostile arguments, and how to check it."""

    target: str
    method: str
    args: Callable[[World], st.SearchStrategy[tuple[Any, ...]]]
    kwargs: Callable[[World], st.SearchStrategy[dict[str, Any]]]
    check: Check | None = None
    prop: bool = False
    reseed: bool = False
    reopen: bool = False
    export_target: bool = False
    notes: list[str] = field(default_factory=list)

    @property
    def name(self) -> str:
        return f"{self.target}.{self.method}"

    def strategy(self, world: World) -> st.SearchStrategy[tuple[tuple[Any, ...], dict[str, Any]]]:
        return st.tuples(self.args(world), self.kwargs(world))

    def invoke(self, target: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        if self.prop:
            return getattr(target, self.method)
        return getattr(target, self.method)(*args, **kwargs)


SPECS: dict[str, Spec] = {}

Strategies = Callable[[World], list[st.SearchStrategy[Any]]]
Options = Callable[[World], dict[str, st.SearchStrategy[Any]]]


def spec(
    target: str,
    method: str,
    args: Strategies | None = None,
    options: Options | None = None,
    required: Options | None = None,
    **flags: Any,
) -> None:
    """Register a method: positional strategies, optional and required keyword strategies."""

    def positional(world: World) -> st.SearchStrategy[tuple[Any, ...]]:
        return st.tuples(*(args(world) if args else []))

    def keywords(world: World) -> st.SearchStrategy[dict[str, Any]]:
        return st.fixed_dictionaries(
            required(world) if required else {}, optional=options(world) if options else {}
        )

    made = Spec(target, method, positional, keywords, **flags)
    SPECS[made.name] = made


def prop(target: str, name: str) -> None:
    spec(target, name, prop=True)


# --------------------------------------------------------------------------- strategies


def sessions() -> st.SearchStrategy[Any]:
    return pick(st.sampled_from(SESSIONS))


def roles() -> st.SearchStrategy[Any]:
    return names(ROLES)


def directions() -> st.SearchStrategy[Any]:
    return pick(st.sampled_from(["out", "in", "both"]), "OUT", "sideways")


def entity_rows() -> st.SearchStrategy[Any]:
    row = st.fixed_dictionaries(
        {"id": new_ids(), "type": names(ENTITY_TYPES), "name": texts()},
        optional={"attributes": attributes(), "created_at": times(), "extra": texts()},
    )
    # A valid Entity: a blank name would fail while drawing, not in the call.
    name = nice_text().filter(str.strip)
    model = st.builds(Entity, id=st.sampled_from(ENTITY_IDS), type=st.just("npc"), name=name)
    return pick(
        st.lists(st.one_of(row, model), max_size=3),
        {"id": "x", "type": "npc", "name": "X"},
        [{"id": f"e{i}", "type": "npc", "name": "E"} for i in range(2_000)],
    )


def relationship_rows() -> st.SearchStrategy[Any]:
    provenance = st.fixed_dictionaries(
        {},
        optional={
            "confidence": fractions(),
            "source": names(("stated", "inferred")),
            "evidence": id_lists(),
            "session_id": optional(sessions()),
            "confirmed": bools(),
        },
    )
    row = st.fixed_dictionaries(
        {"source_id": ids(), "target_id": ids(), "type": names()},
        optional={
            "attributes": attributes(),
            "provenance": pick(provenance),
            "valid_at": optional(times()),
            "invalid_at": optional(times()),
        },
    )
    return pick(st.lists(row, max_size=3), {"source_id": "mira", "target_id": "tomas"})


def artifacts() -> st.SearchStrategy[Any]:
    one = st.fixed_dictionaries(
        {"id": new_ids()},
        optional={"title": optional(texts()), "media_type": optional(texts()), "content": texts()},
    )
    return pick(st.lists(one, max_size=2), [{"id": "a"}, {"id": "a"}])


def trajectories() -> st.SearchStrategy[Any]:
    tool = st.fixed_dictionaries({"name": texts()}, optional={"summary": optional(texts())})
    return pick(
        st.fixed_dictionaries(
            {},
            optional={
                "tools": pick(st.lists(tool, max_size=2)),
                "observations": optional(texts()),
                "reasoning": optional(texts()),
            },
        )
    )


def turn_options(world: World) -> dict[str, st.SearchStrategy[Any]]:
    return {
        "speaker": optional(texts()),
        "turn_id": optional(new_ids()),
        "trajectory": optional(trajectories()),
        "artifacts": artifacts(),
        "hidden_artifacts": artifacts(),
    }


def documents() -> st.SearchStrategy[Any]:
    doc = st.one_of(
        texts(),
        st.fixed_dictionaries(
            {"text": texts()},
            optional={
                "id": new_ids(),
                "title": optional(texts()),
                "source": optional(texts()),
                "attributes": attributes(),
                "entity_ids": id_lists(),
            },
        ),
    )
    return pick(st.lists(doc, max_size=2), "one text, not a list", [BIG_TEXT * 2])


def turn_keys(world: World) -> st.SearchStrategy[Any]:
    return pick(st.sampled_from([*world.turn_keys, "ghost-turn"]))


def fact_ids(world: World) -> st.SearchStrategy[Any]:
    return pick(st.sampled_from([*world.fact_ids, "ghost-fact"]))


def in_directory(world: World) -> st.SearchStrategy[str]:
    """Hostile file names, always inside the test's own directory (never a relative path)."""
    usable = [n for n in HOSTILE_STRINGS if "/" not in n and ".." not in n]
    return st.sampled_from(usable).map(lambda name: f"{world.directory}/{name}")


def files(world: World, *extra: Any) -> st.SearchStrategy[Any]:
    """A path or file of ``extra`` three times in four; else a wrong type or a hostile name.

    Unlike :func:`pick`, hostile strings are never used as they are: as relative paths
    they would name files in the working directory.
    """
    return st.one_of(
        *([st.sampled_from(extra)] * 3), st.sampled_from(WRONG_TYPES), in_directory(world)
    )


def jsonl_sources(world: World) -> st.SearchStrategy[Any]:
    header = '{"kind":"graphmem","version":1}\n'
    entity = '{"kind":"entity","id":"new","type":"npc","name":"New"}\n'
    texts_ = [
        header + entity,
        header,
        "",
        entity,
        header
        + '{"kind":"entity","id":"d","type":"npc","name":"D","attributes":'
        + nested_json(DEEP)
        + "}\n",
        header + "[" * 100_000 + "]" * 100_000 + "\n",
        header + '{"kind":"entity","id":"n","type":"npc","name":"N","attributes":{"x":NaN}}\n',
        header + '{"kind":"entity","id":"n","type":"npc","name":"N","attributes":{"x":1e999}}\n',
        header
        + '{"kind":"entity","id":"n","type":"npc","name":"N","attributes":{"x":'
        + "9" * 5000
        + "}}\n",
        header + '{"kind":"entity","id":"s","type":"npc","name":"\\ud800"}\n',
        header + '{"kind":"entity","id":"s\\udc00","type":"npc","name":"S"}\n',
        header + '{"kind":"turn","id":"t","session_id":"s9","role":"user","content":"x"}\n',
        header + '{"kind":"relationship","source_id":"mira","target_id":"ghost","type":"x"}\n',
        header + '{"kind":"mention","node_kind":"chunk","node_id":"nope","entity_id":"mira"}\n',
        header
        + '{"kind":"record","record":{"kind":"note","data":{"d":'
        + nested_json(40)
        + "}}}\n",
        "\ufeff" + header + entity,
        header + entity.replace("New", BIG_TEXT),
    ]
    bad_file = world.directory / "latin1.jsonl"
    bad_file.write_bytes((header + entity.replace("New", "N\u00e9w")).encode("latin-1"))
    good_file = world.directory / "good.jsonl"
    good_file.write_text(header + entity, encoding="utf-8")
    return st.one_of(
        st.sampled_from(texts_).map(io.StringIO),
        files(
            world,
            io.BytesIO((header + entity).encode()),
            str(bad_file),
            str(good_file),
            good_file,
            str(world.directory / "missing.jsonl"),
            str(world.directory),
            str(world.directory / "x\x00.jsonl"),
        ),
    )


def export_targets(world: World) -> st.SearchStrategy[Any]:
    closed = io.StringIO()
    closed.close()
    read_only = world.directory / "read-only.jsonl"
    read_only.write_text("")
    handle = read_only.open(encoding="utf-8")
    world.resources.append(handle)
    return st.one_of(
        st.just(None).map(lambda _: io.StringIO()),
        files(
            world,
            world.directory / "out.jsonl",
            str(world.directory / "out.jsonl"),
            str(world.directory / "missing" / "out.jsonl"),
            str(world.directory),
            str(world.directory / ("x" * 300)),
            str(world.directory / "x\x00.jsonl"),
            str(world.directory / "\ud800.jsonl"),
            str(world.directory / "\udc80.jsonl"),
            closed,
            io.BytesIO(),
            handle,
        ),
    )


def context_results() -> st.SearchStrategy[Any]:
    result = ContextResult(
        kind="entity",
        source_id="mira",
        content="Mira is a smith.",
        score=1.0,
        provenance=Provenance(),
    )
    return pick(st.lists(st.just(result), max_size=3), [{"kind": "entity"}], [result, "x"])


def summarizers() -> st.SearchStrategy[Any]:
    return pick(
        st.sampled_from([None, lambda previous, evicted: "summary", lambda previous, evicted: 5])
    )


def snapshots(world: World) -> st.SearchStrategy[Any]:
    import json

    valid = world.snapshot
    return pick(
        st.sampled_from([valid, json.dumps(valid), json.dumps(valid).encode()]),
        {**valid, "summary": BIG_TEXT},
        {**valid, "summary": "\ud800"},
        {**valid, "window": [{"content": "x"}]},
        {**valid, "summarized_turns": True},
        {**valid, "health": "degraded", "backlog": [[1]]},
        "{not json",
        b"\xff\xfe",
    )


def conversation_dumps(world: World) -> st.SearchStrategy[Any]:
    valid = world.dump_s1
    turns = valid["turns"]
    return pick(
        st.just(valid),
        {**valid, "turns": [{**t, "content": "\ud800"} for t in turns]},
        {**valid, "turns": [{**t, "parent_id": "nope"} for t in turns]},
        {**valid, "turns": turns[::-1]},
        {**valid, "turns": [*turns, 5]},
        {**valid, "version": 2},
        {**valid, "session_id": None},
        {**valid, "head_id": "ghost-turn"},
    )


def relevance_functions() -> st.SearchStrategy[Any]:
    return pick(
        st.sampled_from([None, lambda belief: 0.5, lambda belief: "high", lambda belief: math.nan])
    )


# --------------------------------------------------------------------------- checks


def check_entities(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    last = {entity.id: entity for entity in result}
    for entity_id, entity in last.items():
        assert world.mem.get_entity(entity_id) == entity


def check_updated(world: World, result: Entity, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    assert world.mem.get_entity(result.id) == result
    if kw.get("name") is not None:
        assert result.name == kw["name"]
    removed = kw.get("remove_attributes") or ()
    removed = [removed] if isinstance(removed, str) else list(removed)
    for key, value in (kw.get("attributes") or {}).items():
        if key not in removed:  # removal wins over a value set in the same call
            assert result.attributes[key] == value


def check_deleted(world: World, result: int, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    wanted = [args[0]] if isinstance(args[0], str) else list(args[0])
    assert world.mem.get_entities(wanted) == []


def check_relationships(
    world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    for rel in result:
        stored = world.mem.get_relationships(rel.source_id, types=[rel.type], include_invalid=True)
        assert [r for r in stored if r.target_id == rel.target_id] == [rel]


def check_relationship_gone(
    world: World, result: bool, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    source, target, type_ = args
    try:
        stored = world.mem.get_relationships(source, types=[type_], include_invalid=True)
    except NotFound:
        assert result is False  # no such entity: nothing was deleted
        return
    assert [r for r in stored if r.target_id == target] == []


def check_invalidated(
    world: World, result: Relationship, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    assert result.invalid_at is not None and result.expired_at is not None
    check_relationships(world, [result], args, kw)


def check_learned(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    if result.fact is not None:
        record = world.store.get_record(world.tenant, "fact", result.fact.id)
        assert record.data["value"] == result.fact.value


def check_loaded(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    assert len(result.turns()) == len(args[0]["turns"])


def check_exported(world: World, result: int, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    target = args[0]
    text = target.getvalue() if isinstance(target, io.StringIO) else Path(target).read_text()
    if isinstance(target, io.StringIO):
        # A file object may hold text already (WRONG_TYPES' StringIO("x") is shared): the
        # export is what this call appended at its end.
        text = text[text.rfind('{"kind":"graphmem"') :]
    assert len(text.splitlines()) == result
    again = jsonl_format.read(io.StringIO(text))
    assert canonical(again) == canonical(world.store.dump(world.tenant))


def check_imported(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    for entity in result.entities:
        stored = world.mem.get_entity(entity.id)
        assert (stored.type, stored.name, stored.attributes) == (
            entity.type,
            entity.name,
            entity.attributes,
        )


def check_documents(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    stored = world.store.get_chunks(world.tenant, result.chunk_ids)
    assert [c.id for c in stored] == result.chunk_ids


def check_described(world: World, result: None, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    type_, description = args
    schema = world.mem.schema()
    found = schema.relationship_types if kw.get("_kind") == "relationship" else schema.entity_types
    text = " ".join((description or "").split())
    assert found.get(type_) == (text or None)


def check_event(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    assert result.id in {e.id for e in world.mem.events()}


def check_recap(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    assert world.mem.recap(result.session_id) == result


def check_turn(
    world: World, result: Turn | None, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    if result is None:
        return
    assert world.store.get_turn(world.tenant, result.id) == result
    assert result.content == args[1]


def check_head(world: World, result: Turn, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    assert world.chat.head == result


def check_appended(world: World, result: Turn, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    check_turn(world, result, args, kw)
    check_head(world, result, args, kw)


def check_extended(world: World, result: Any, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    if result:
        assert world.chat.history()[-len(result) :] == result


def check_turn_deleted(
    world: World, result: bool, args: tuple[Any, ...], kw: dict[str, Any]
) -> None:
    if result:
        key = args[0].id if isinstance(args[0], Turn) else args[0]
        try:
            world.store.get_turn(world.tenant, key)
        except NotFound:
            return
        raise AssertionError(f"turn {key!r} is still there")


def check_restored(world: World, result: None, args: tuple[Any, ...], kw: dict[str, Any]) -> None:
    import json

    given = args[0]
    data = json.loads(given) if isinstance(given, str | bytes) else given
    assert world.cm.snapshot()["summary"] == data.get("summary", "")


# --------------------------------------------------------------------------- Memory

M = "Memory"
spec(M, "upsert_entities", lambda w: [entity_rows()], check=check_entities)
spec(M, "get_entity", lambda w: [ids()])
spec(M, "get_entities", lambda w: [id_lists()])
spec(
    M,
    "update_entity",
    lambda w: [ids()],
    lambda w: {
        "name": optional(texts()),
        "type": optional(names(ENTITY_TYPES)),
        "attributes": optional(attributes()),
        "remove_attributes": pick(st.lists(nice_text(1, 8), max_size=2), "occupation"),
    },
    check=check_updated,
)
spec(M, "delete_entities", lambda w: [id_lists()], check=check_deleted)
spec(
    M,
    "find_entities",
    options=lambda w: {
        "type": optional(names(ENTITY_TYPES)),
        "name": optional(texts()),
        "name_contains": optional(texts()),
        "attributes": optional(attributes()),
        "limit": optional(sizes()),
    },
)
spec(M, "resolve_entity", lambda w: [texts()])
spec(M, "count_entities")
spec(M, "upsert_relationships", lambda w: [relationship_rows()], check=check_relationships)
spec(
    M,
    "get_relationships",
    lambda w: [ids()],
    lambda w: {
        "direction": directions(),
        "types": optional(name_lists()),
        "as_of": optional(times()),
        "recorded_as_of": optional(times()),
        "include_invalid": bools(),
        "limit": optional(sizes()),
    },
)
spec(
    M,
    "delete_relationship",
    lambda w: [ids(), ids(), names()],
    check=check_relationship_gone,
)
spec(
    M,
    "invalidate",
    lambda w: [ids(), ids(), names()],
    lambda w: {"at": optional(times())},
    check=check_invalidated,
)
spec(M, "count_relationships")
spec(
    M,
    "neighbors",
    lambda w: [ids()],
    lambda w: {
        "depth": depths(),
        "rel_types": optional(name_lists()),
        "node_types": optional(name_lists(ENTITY_TYPES)),
        "max_nodes": optional(sizes()),
        "direction": directions(),
    },
)
spec(
    M,
    "find_path",
    lambda w: [ids(), ids()],
    lambda w: {"max_depth": depths(), "rel_types": optional(name_lists())},
)
spec(M, "visible_subgraph", lambda w: [ids()], lambda w: {"depth": depths()})
spec(
    M,
    "neighborhood",
    lambda w: [ids()],
    lambda w: {
        "rel_types": optional(name_lists()),
        "node_types": optional(name_lists(ENTITY_TYPES)),
        "direction": directions(),
        "as_of": optional(times()),
        "recorded_as_of": optional(times()),
        "include_invalid": bools(),
        "limit": optional(sizes()),
    },
)
spec(
    M,
    "expand",
    lambda w: [id_lists()],
    lambda w: {
        "depth": depths(),
        "rel_types": optional(name_lists()),
        "direction": directions(),
        "within": optional(id_lists()),
        "max_nodes": optional(sizes()),
    },
)
spec(
    M,
    "identity_snapshot",
    lambda w: [ids()],
    lambda w: {
        "perspective": bools(),
        "as_of": optional(times()),
        "recorded_as_of": optional(times()),
    },
)
spec(M, "conversation", lambda w: [sessions()], lambda w: {"max_history": optional(sizes())})
spec(
    M,
    "conversation_memory",
    required=lambda w: {"user": pick(st.just("ada")), "session": sessions()},
    options=lambda w: {
        "strategy": pick(st.sampled_from(["none", "truncation", "rolling_summary"])),
        "max_tokens": sizes(5000),
        "window_turns": sizes(),
        "summarizer": summarizers(),
        "run_id": optional(texts()),
        "max_retries": sizes(),
        "max_backlog": sizes(),
        "recovery_interval": sizes(),
        "bus": pick(st.none()),
    },
)
spec(
    M,
    "fact_memory",
    required=lambda w: {"actor": pick(st.just("gm"))},
    options=lambda w: {
        "session": optional(sessions()),
        "policy": pick(st.none()),
        "bus": pick(st.none()),
    },
)
spec(
    M,
    "learn",
    lambda w: [texts(), texts(), texts()],
    required=lambda w: {"actor": pick(st.just("gm"))},
    options=lambda w: {
        "session": optional(sessions()),
        "source_type": pick(st.sampled_from(["manual", "admin", "inferred"])),
        "memory_type": pick(st.sampled_from(["semantic", "episodic"])),
        "scope": pick(st.sampled_from(["agent", "session", "workspace"])),
        "category": optional(names(("preference", "health"))),
    },
    check=check_learned,
)
spec(
    M,
    "relate",
    lambda w: [ids(), names(), ids()],
    required=lambda w: {"actor": pick(st.just("gm"))},
    options=lambda w: {
        "session": optional(sessions()),
        "source_type": pick(st.sampled_from(["manual", "admin", "inferred"])),
        "memory_type": pick(st.sampled_from(["semantic", "episodic"])),
        "category": optional(names(("preference", "health"))),
        "policy": pick(st.none()),
        "bus": pick(st.none()),
    },
    check=check_learned,
)
spec(
    M,
    "load_conversation",
    lambda w: [conversation_dumps(w)],
    lambda w: {"session_id": optional(pick(st.sampled_from(["copy-1", "copy-2"])))},
    check=check_loaded,
)
spec(M, "sessions")
spec(
    M,
    "search_turns",
    lambda w: [optional(texts())],
    lambda w: {
        "session_id": optional(sessions()),
        "speaker": optional(texts()),
        "role": optional(roles()),
        "since": optional(times()),
        "until": optional(times()),
        "limit": optional(sizes()),
    },
)
spec(
    M,
    "recent_turns",
    lambda w: [durations()],
    lambda w: {"session_id": optional(sessions()), "limit": optional(sizes())},
)
spec(M, "count_turns", lambda w: [optional(sessions())])
spec(M, "dump")
spec(M, "clear", reseed=True)
spec(M, "export_jsonl", lambda w: [export_targets(w)], check=check_exported, export_target=True)
spec(M, "import_jsonl", lambda w: [jsonl_sources(w)], check=check_imported)
spec(M, "entity_linker")
spec(
    M,
    "add_documents",
    lambda w: [documents()],
    lambda w: {
        "chunk_tokens": sizes(300),
        "overlap": pick(st.integers(0, 2)),
        "embed": bools(),
        "batch_size": sizes(),
        "nested_mentions": bools(),
        "extractor": pick(st.none()),
        "progress": pick(st.just(False)),
    },
    check=check_documents,
)
spec(M, "index_entities", lambda w: [optional(id_lists())])
spec(
    M,
    "index_turns",
    lambda w: [optional(sessions())],
    lambda w: {"embed": bools(), "nested_mentions": bools(), "progress": pick(st.just(False))},
)
spec(M, "flush_index", options=lambda w: {"embed": bools()})
RESULT_KINDS = ("chunk", "turn", "entity", "relationship")
spec(
    M,
    "retrieve",
    lambda w: [texts(), sizes(), pick(st.integers(0, 2), 33, True), optional(id_lists())],
    lambda w: {
        "kinds": optional(name_lists(RESULT_KINDS)),
        "rel_types": optional(name_lists()),
        "preset": optional(pick(st.sampled_from(["hybrid", "graph", "multihop", "nope"]))),
        "graph_weight": fractions(),
        "seeds": sizes(),
        "no_such_setting": pick(st.just(1)),
    },
)
spec(
    M,
    "query_with_context",
    lambda w: [texts(), optional(id_lists())],
    lambda w: {"k": sizes(), "hops": depths(), "kinds": optional(name_lists(RESULT_KINDS))},
)
spec(
    M,
    "query_with_embedding",
    lambda w: [vectors(DIMENSION), sizes(), optional(id_lists())],
    lambda w: {"hops": depths(), "kinds": optional(name_lists(RESULT_KINDS))},
)
spec(
    M,
    "render_context",
    lambda w: [context_results()],
    lambda w: {"max_tokens": optional(sizes(100))},
)
for name in ("tenant", "store", "embedder", "pending_index", "mind_settings"):
    prop(M, name)
EVENT_TYPES = ("moved", "hid", "entered")
spec(
    M,
    "record_event",
    lambda w: [names(EVENT_TYPES)],
    lambda w: {
        "actor": optional(ids()),
        "participants": id_lists(),
        "place": optional(ids()),
        "changes": pick(st.lists(facts(), max_size=2)),
        "reveals": pick(st.lists(facts(), max_size=2)),
        "present": optional(id_lists()),
        "at": optional(times()),
        "importance": fractions(),
        "session_id": optional(sessions()),
        "summary": optional(texts()),
        "attributes": optional(attributes()),
        "event_id": optional(new_ids()),
    },
    check=check_event,
)
spec(
    M,
    "observe",
    lambda w: [ids()],
    lambda w: {
        "present": optional(id_lists()),
        "depth": depths(),
        "predicates": optional(name_lists(("located_in", "owns"))),
        "at": optional(times()),
        "importance": fractions(),
        "session_id": optional(sessions()),
    },
    check=check_event,
)
spec(
    M,
    "tell",
    lambda w: [ids(), ids(), optional(facts())],
    lambda w: {
        "about": optional(ids()),
        "at": optional(times()),
        "decay": optional(fractions()),
        "importance": optional(fractions()),
        "session_id": optional(sessions()),
    },
)
spec(
    M,
    "announce",
    lambda w: [ids(), facts()],
    lambda w: {
        "place": optional(ids()),
        "audience": optional(id_lists()),
        "at": optional(times()),
        "decay": optional(fractions()),
        "importance": optional(fractions()),
        "session_id": optional(sessions()),
    },
    check=check_event,
)
spec(
    M,
    "believe",
    lambda w: [ids(), facts()],
    lambda w: {
        "how": names(("inferred", "rumour")),
        "confidence": fractions(),
        "importance": fractions(),
        "at": optional(times()),
        "told_by": optional(ids()),
        "of": optional(st.one_of(ids(), id_lists())),
    },
)
spec(
    M,
    "beliefs",
    lambda w: [ids(), optional(ids())],
    lambda w: {
        "of": optional(st.one_of(ids(), id_lists())),
        "predicate": optional(names(("located_in", "mood"))),
        "as_of": optional(times()),
        "recorded_as_of": optional(times()),
        "history": bools(),
    },
)
spec(
    M,
    "belief",
    lambda w: [ids(), ids(), names(("located_in", "mood")), optional(ids())],
    lambda w: {
        "of": optional(st.one_of(ids(), id_lists())),
        "as_of": optional(times()),
        "recorded_as_of": optional(times()),
    },
)
spec(
    M,
    "who_knows",
    lambda w: [facts()],
    lambda w: {"as_of": optional(times()), "recorded_as_of": optional(times())},
)
spec(
    M,
    "check_beliefs",
    lambda w: [ids()],
    lambda w: {"as_of": optional(times()), "recorded_as_of": optional(times())},
)
spec(
    M,
    "events",
    options=lambda w: {
        "about": optional(ids()),
        "witness": optional(ids()),
        "session_id": optional(sessions()),
        "place": optional(ids()),
        "type": optional(names(EVENT_TYPES)),
        "since": optional(times()),
        "until": optional(times()),
        "limit": optional(sizes()),
    },
)
spec(
    M,
    "recall",
    lambda w: [ids(), optional(texts())],
    lambda w: {
        "about": optional(st.one_of(ids(), id_lists())),
        "k": sizes(),
        "at": optional(times()),
        "mark": bools(),
        "relevance": relevance_functions(),
    },
)
spec(
    M,
    "forget",
    lambda w: [optional(ids())],
    lambda w: {
        "below": optional(fractions()),
        "older_than": optional(durations()),
        "about": optional(ids()),
        "at": optional(times()),
    },
)
spec(
    M,
    "save_recap",
    lambda w: [sessions(), optional(texts())],
    lambda w: {
        "campaign": optional(new_ids()),
        "audio": optional(pick(st.binary(max_size=16), b"x" * (1 << 21))),
        "audio_type": optional(texts()),
        "summarizer": summarizers(),
    },
    check=check_recap,
)
spec(
    M,
    "draft_recap",
    lambda w: [sessions()],
    lambda w: {"campaign": optional(new_ids()), "summarizer": summarizers()},
)
spec(M, "recap", lambda w: [sessions()])
spec(M, "recaps", lambda w: [optional(new_ids())], lambda w: {"limit": optional(sizes())})
spec(
    M,
    "ask",
    lambda w: [texts(), sizes()],
    lambda w: {
        "max_hops": optional(depths()),
        "semantic": optional(bools()),
        "settings": pick(st.none()),
    },
)
spec(
    M,
    "describe_relationship_type",
    lambda w: [names(), optional(texts())],
    check=lambda w, r, a, k: check_described(w, r, a, {"_kind": "relationship"}),
)
spec(
    M,
    "describe_entity_type",
    lambda w: [names(ENTITY_TYPES), optional(texts())],
    check=lambda w, r, a, k: check_described(w, r, a, {"_kind": "entity"}),
)
spec(M, "schema")
spec(M, "to_networkx", options=lambda w: {"include_invalid": bools()})
spec(M, "close", reopen=True)

# --------------------------------------------------------------------------- Conversation

C = "Conversation"
spec(
    C,
    "append",
    lambda w: [roles(), texts()],
    lambda w: {
        **turn_options(w),
        "summary": optional(texts()),
        "created_at": optional(times()),
    },
    check=check_appended,
)
ENTRY = st.fixed_dictionaries(
    {"role": roles(), "content": texts()},
    optional={"speaker": optional(texts()), "created_at": optional(times()), "id": texts()},
)
spec(
    C,
    "extend",
    lambda w: [pick(st.lists(ENTRY, max_size=3), {"role": "user", "content": "x"}, [5])],
    check=check_extended,
)
spec(C, "fork", lambda w: [turn_keys(w)], check=check_head)
spec(C, "delete_turn", lambda w: [turn_keys(w)], check=check_turn_deleted)
spec(C, "delete", reseed=True)
prop(C, "head")
spec(C, "history", lambda w: [optional(sizes())])
spec(C, "latest", lambda w: [sizes()])
spec(C, "turns")
spec(C, "branches")
spec(C, "count")
spec(C, "dump")

# --------------------------------------------------------------------------- FactMemory

F = "FactMemory"
spec(F, "verify", options=lambda w: {"anchor": pick(st.none())})
spec(F, "audit_head")
spec(F, "get", lambda w: [fact_ids(w)])
spec(
    F,
    "facts",
    options=lambda w: {
        "subject": optional(texts()),
        "relation": optional(texts()),
        "as_of": optional(times()),
        "include_pending": bools(),
        "include_all": bools(),
    },
)
spec(F, "audit_log", options=lambda w: {"limit": optional(sizes())})
spec(
    F,
    "learn",
    lambda w: [texts(), texts(), texts()],
    lambda w: {
        "source_type": pick(st.sampled_from(["manual", "admin", "inferred"])),
        "memory_type": pick(st.sampled_from(["semantic", "episodic"])),
        "scope": pick(st.sampled_from(["agent", "session", "workspace"])),
        "category": optional(names(("preference", "health"))),
    },
    check=check_learned,
)
spec(
    F,
    "relate",
    lambda w: [ids(), names(), ids()],
    lambda w: {
        "source_type": pick(st.sampled_from(["manual", "admin", "inferred"])),
        "memory_type": pick(st.sampled_from(["semantic", "episodic"])),
        "category": optional(names(("preference", "health"))),
    },
    check=check_learned,
)
spec(F, "approve", lambda w: [fact_ids(w)])
spec(F, "reject", lambda w: [fact_ids(w)])
spec(F, "rollback_to", lambda w: [pick(st.sampled_from([*w.audit_ids, "ghost-entry"]))])
spec(
    F,
    "purge",
    options=lambda w: {
        "max_age": optional(durations()),
        "max_entries": optional(sizes()),
        "now": optional(times()),
    },
)
spec(F, "apply_retention", options=lambda w: {"now": optional(times())})
spec(F, "forget", lambda w: [fact_ids(w)])
spec(F, "stats")
spec(
    F,
    "recall",
    lambda w: [texts()],
    lambda w: {
        "max_tokens": sizes(1000),
        "limit": optional(sizes()),
        "memory_types": optional(name_lists(("semantic", "episodic"))),
        "now": optional(times()),
    },
)

# --------------------------------------------------------------------------- ConversationMemory

CM = "ConversationMemory"
spec(CM, "append", lambda w: [roles(), texts()], turn_options, check=check_turn)
spec(CM, "estimate_tokens")
spec(CM, "flush")
spec(CM, "llm_context")
spec(CM, "snapshot")
spec(CM, "restore", lambda w: [snapshots(w)], check=check_restored)
spec(CM, "close", reopen=True)
for name in (
    "backlog_turns",
    "conversation",
    "dropped_turns",
    "health",
    "summarized_turns",
    "summary_budget",
):
    prop(CM, name)


def untested_methods() -> list[str]:
    """Public methods and properties of the four classes that have no spec (should be none)."""
    from graphmem.conversation.tree import Conversation
    from graphmem.policy.context import ConversationMemory
    from graphmem.policy.governance import FactMemory

    missing: list[str] = []
    for cls in (Memory, Conversation, FactMemory, ConversationMemory):
        for attribute in dir(cls):
            if not attribute.startswith("_") and f"{cls.__name__}.{attribute}" not in SPECS:
                missing.append(f"{cls.__name__}.{attribute}")
    return missing
