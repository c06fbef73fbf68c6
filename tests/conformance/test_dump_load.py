"""Whole-tenant dump / load, JSON Lines export / import, and persistence of file stores."""

from __future__ import annotations

import io
import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from graphmem import (
    BackendUnavailable,
    GraphStore,
    InvalidInput,
    Memory,
    NotFound,
    TenantDump,
    Turn,
    open_store,
)

from .conftest import Harness
from .helpers import EVERY, canonical, ent, ids, rel

LONG_AGO = datetime(2001, 1, 1, tzinfo=UTC)


def _world(store: GraphStore, tenant: str) -> None:
    """Entities, relationships (one invalidated, one in the future), two forked sessions."""
    store.upsert_entities(
        tenant,
        [
            ent("mira", occupation="smith", tags=["stern", "fair"], stats={"str": 7, "wis": 2.5}),
            ent("tomas", name="Tomas the Miller"),
            ent("forge", "location", name="The Forge"),
            ent("guild", "faction", name="Guild", founded=None),
        ],
    )
    store.upsert_relationships(
        tenant,
        [
            rel("mira", "forge", "works_at", confirmed=True),
            rel("mira", "guild", "member_of", confidence=0.4, source_kind="inferred"),
            rel("tomas", "mira", "hates", valid_at=LONG_AGO, since="the fire"),
            rel("tomas", "guild", "will_join", valid_at=datetime(2999, 1, 1, tzinfo=UTC)),
        ],
    )
    store.invalidate_relationship(tenant, "tomas", "mira", "hates", at=LONG_AGO + timedelta(days=3))
    mem = Memory(store, tenant, owns_store=False)
    chat = mem.conversation("s1")
    root = chat.append("player", "Hello", speaker="Ada", turn_id="m1")
    chat.append("npc", "Welcome", speaker="Mira", summary="greets")
    chat.fork(root)
    chat.append("npc", "Go away", speaker="Tomas")
    mem.conversation("s2").append("gm", "Night falls")


def test_dump_holds_everything(store: GraphStore, tenant: str) -> None:
    _world(store, tenant)

    dump = store.dump(tenant)

    assert sorted(ids(dump.entities)) == ["forge", "guild", "mira", "tomas"]
    assert len(dump.relationships) == 4  # the invalidated and the future one included
    assert len(dump.turns) == 4
    assert set(dump.heads) == {"s1", "s2"}
    assert dump.heads["s1"] == store.head(tenant, "s1").id  # type: ignore[union-attr]


def test_dump_load_round_trip(
    store: GraphStore, tenant: str, new_tenant: Callable[[], str]
) -> None:
    _world(store, tenant)
    original = store.dump(tenant)
    copy = new_tenant()

    store.load(copy, original)

    assert canonical(store.dump(copy)) == canonical(original)
    assert [t.content for t in store.branch(copy, "s1")] == ["Hello", "Go away"]
    assert ids(store.neighbors(copy, "mira")) == ["forge", "guild"]


def test_load_is_all_or_nothing(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(tenant, [ent("kept")])
    bad = TenantDump(
        entities=[ent("a"), ent("b")],
        relationships=[rel("a", "b"), rel("a", "ghost")],
        turns=[Turn(session_id="s", role="user", content="x")],
    )

    with pytest.raises(InvalidInput) as info:
        store.load(tenant, bad)

    assert "ghost" in str(info.value)
    assert store.count_entities(tenant) == 1
    assert store.count_relationships(tenant) == 0
    assert store.count_turns(tenant) == 0


def test_load_turn_with_unknown_parent_writes_nothing(store: GraphStore, tenant: str) -> None:
    orphan = Turn(session_id="s", role="user", content="orphan", parent_id="missing-parent")

    with pytest.raises(InvalidInput):
        store.load(tenant, TenantDump(entities=[ent("a")], turns=[orphan]))

    assert store.count_entities(tenant) == 0
    assert store.count_turns(tenant) == 0


def test_load_default_head_is_the_last_turn_of_the_session(store: GraphStore, tenant: str) -> None:
    first = Turn(session_id="s", role="user", content="1", created_at=LONG_AGO)
    second = Turn(
        session_id="s",
        role="user",
        content="2",
        parent_id=first.id,
        created_at=LONG_AGO + timedelta(seconds=1),
    )

    store.load(tenant, TenantDump(turns=[first, second]))

    assert store.head(tenant, "s") == second
    assert store.branch(tenant, "s") == [first, second]


def test_load_sets_the_named_head(store: GraphStore, tenant: str) -> None:
    root = Turn(session_id="s", role="user", content="root", created_at=LONG_AGO)
    a = Turn(
        session_id="s",
        role="user",
        content="a",
        parent_id=root.id,
        created_at=LONG_AGO + timedelta(seconds=1),
    )
    b = Turn(
        session_id="s",
        role="user",
        content="b",
        parent_id=root.id,
        created_at=LONG_AGO + timedelta(seconds=2),
    )

    store.load(tenant, TenantDump(turns=[root, a, b], heads={"s": a.id}))

    assert store.head(tenant, "s") == a
    assert store.branch(tenant, "s") == [root, a]
    assert store.count_turns(tenant, "s") == 3


def test_export_import_jsonl_round_trip(
    store: GraphStore, mem: Memory, new_tenant: Callable[[], str], tmp_path: Path
) -> None:
    _world(store, mem.tenant)
    path = tmp_path / "export.jsonl"

    lines = mem.export_jsonl(path)

    assert lines == len(path.read_text(encoding="utf-8").splitlines())
    other = Memory(store, new_tenant(), owns_store=False)
    read = other.import_jsonl(path)
    assert canonical(read) == canonical(mem.dump())
    assert canonical(other.dump()) == canonical(mem.dump())


def test_export_import_through_a_text_stream(
    store: GraphStore, mem: Memory, new_tenant: Callable[[], str]
) -> None:
    _world(store, mem.tenant)
    buffer = io.StringIO()
    mem.export_jsonl(buffer)
    buffer.seek(0)
    other = Memory(store, new_tenant(), owns_store=False)

    other.import_jsonl(buffer)

    assert canonical(other.dump()) == canonical(mem.dump())


def _export_lines(mem: Memory) -> list[str]:
    buffer = io.StringIO()
    mem.export_jsonl(buffer)
    return buffer.getvalue().splitlines()


@pytest.mark.parametrize(
    "breakage",
    ["not json", "wrong field", "unsafe type"],
)
def test_import_bad_line_names_it_and_writes_nothing(
    store: GraphStore, mem: Memory, new_tenant: Callable[[], str], breakage: str
) -> None:
    _world(store, mem.tenant)
    lines = _export_lines(mem)
    number = 4  # an entity or relationship line, after the header
    record = json.loads(lines[number - 1])
    if breakage == "not json":
        lines[number - 1] = lines[number - 1][:-3]
    elif breakage == "wrong field":
        record["type"] = 7
        lines[number - 1] = json.dumps(record)
    else:
        record["type"] = "KNOWS]->(x) DETACH DELETE x //"
        lines[number - 1] = json.dumps(record)
    other = Memory(store, new_tenant(), owns_store=False)

    with pytest.raises(InvalidInput) as info:
        other.import_jsonl(io.StringIO("\n".join(lines) + "\n"))

    assert f"line {number}" in str(info.value)
    assert canonical(other.dump()) == canonical(TenantDump())


def test_import_dangling_relationship_writes_nothing(
    store: GraphStore, mem: Memory, new_tenant: Callable[[], str]
) -> None:
    _world(store, mem.tenant)
    lines = [line for line in _export_lines(mem) if '"id":"forge"' not in line]
    other = Memory(store, new_tenant(), owns_store=False)

    with pytest.raises(InvalidInput) as info:
        other.import_jsonl(io.StringIO("\n".join(lines) + "\n"))

    assert "forge" in str(info.value)
    assert canonical(other.dump()) == canonical(TenantDump())


def test_import_without_header_is_invalid(mem: Memory) -> None:
    with pytest.raises(InvalidInput) as info:
        mem.import_jsonl(io.StringIO('{"kind": "entity"}\n'))

    assert "line 1" in str(info.value)
    assert mem.count_entities() == 0


# --------------------------------------------------------------------------- persistence


def test_reopen_gives_exactly_the_same_graph(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    _world(store, tenant)
    before = canonical(store.dump(tenant))

    again = reopen()

    assert canonical(again.dump(tenant)) == before
    assert [t.content for t in again.branch(tenant, "s1")] == ["Hello", "Go away"]
    assert ids(again.neighbors(tenant, "mira")) == ["forge", "guild"]
    assert [r.key for r in again.get_relationships(tenant, "tomas", EVERY)] == [
        ("tomas", "guild", "will_join"),
        ("tomas", "mira", "hates"),
    ]


def test_reopen_keeps_deletes(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    _world(store, tenant)
    store.delete_entities(tenant, ["tomas"])
    head = store.head(tenant, "s1")
    assert head is not None
    store.delete_turn(tenant, head.id)
    before = canonical(store.dump(tenant))

    again = reopen()

    assert canonical(again.dump(tenant)) == before
    with pytest.raises(NotFound):
        again.get_entity(tenant, "tomas")


def test_reopen_then_write_more(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    _world(store, tenant)
    again = reopen()
    again.upsert_entities(tenant, [ent("newcomer")])
    Memory(again, tenant, owns_store=False).conversation("s1").append("player", "More")
    before = canonical(again.dump(tenant))

    third = reopen()

    assert canonical(third.dump(tenant)) == before
    assert [t.content for t in third.branch(tenant, "s1")] == ["Hello", "Go away", "More"]


@pytest.fixture
def file_harness(harness: Harness) -> Harness:
    if not harness.url.startswith("file://"):
        pytest.skip("file layout checks are for file:// stores")
    return harness


def test_file_store_is_one_sqlite_file(file_harness: Harness, tenant: str) -> None:
    store = file_harness.current
    path = Path(file_harness.url[len("file://") :])
    store.upsert_entities(tenant, [ent("mira")])
    store = file_harness.reopen()

    store.upsert_entities(tenant, [ent("tomas")])
    store.close()

    assert path.is_file()
    # Each write is an SQLite transaction (never a half-written file); on close the
    # write-ahead log is folded back in, so nothing is left beside the one file.
    assert path.read_bytes()[:16] == b"SQLite format 3\x00"
    assert {p.name for p in path.parent.iterdir()} == {path.name}
    store = file_harness.reopen()
    assert ids(store.get_entities(tenant, ["mira", "tomas"])) == ["mira", "tomas"]


def test_file_store_failed_batch_leaves_the_file_as_it_was(
    file_harness: Harness, tenant: str
) -> None:
    store = file_harness.current
    path = Path(file_harness.url[len("file://") :])
    store.upsert_entities(tenant, [ent("mira")])
    store = file_harness.reopen()
    content = path.read_bytes()

    with pytest.raises(InvalidInput):
        store.upsert_relationships(tenant, [rel("mira", "ghost")])
    store = file_harness.reopen()

    assert path.read_bytes() == content
    assert store.count_relationships(tenant) == 0


def test_file_store_unreadable_file_fails_to_open(tmp_path: Path) -> None:
    path = tmp_path / "broken.graphmem"
    path.write_text("this is not a graphmem file\n", encoding="utf-8")

    with pytest.raises((BackendUnavailable, InvalidInput)):
        open_store(f"file://{path}")

    assert path.read_text(encoding="utf-8") == "this is not a graphmem file\n"


def test_file_store_creates_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "new" / "world.graphmem"
    path.parent.mkdir()
    store = open_store(f"file://{path}")
    try:
        store.upsert_entities("t", [ent("mira")])
    finally:
        store.close()

    again = open_store(f"file://{path}")
    try:
        assert again.get_entity("t", "mira").name == "Mira"
    finally:
        again.close()


TRICKY_TEXT = (
    'line one\nline two\r\n\ttab "quoted" \\ back \u2028 sep \u00e9\u00df \u4e16\u754c \U0001f409'
)


def _tricky(store: GraphStore, tenant: str) -> None:
    store.upsert_entities(
        tenant, [ent("drake", name=TRICKY_TEXT, note=TRICKY_TEXT, **{"k\u00e9y": [TRICKY_TEXT]})]
    )
    Memory(store, tenant, owns_store=False).conversation("s\u00e9").append(
        "npc", TRICKY_TEXT, speaker=TRICKY_TEXT, summary=TRICKY_TEXT
    )


def test_tricky_text_survives_reopen(
    store: GraphStore, tenant: str, reopen: Callable[[], GraphStore]
) -> None:
    _tricky(store, tenant)
    before = canonical(store.dump(tenant))

    again = reopen()

    assert canonical(again.dump(tenant)) == before
    assert again.get_entity(tenant, "drake").name == TRICKY_TEXT


def test_tricky_text_survives_export_import(
    store: GraphStore, mem: Memory, new_tenant: Callable[[], str], tmp_path: Path
) -> None:
    _tricky(store, mem.tenant)
    path = tmp_path / "tricky.jsonl"
    mem.export_jsonl(path)
    other = Memory(store, new_tenant(), owns_store=False)

    other.import_jsonl(path)

    assert canonical(other.dump()) == canonical(mem.dump())
    assert [t.content for t in other.conversation("s\u00e9").history()] == [TRICKY_TEXT]
