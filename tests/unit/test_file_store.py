"""The file:// store on SQLite: the file itself, refusing other files, locking and readers."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from contextlib import closing
from pathlib import Path

import pytest
from file_world import TENANTS, build, fingerprint

import graphmem
from graphmem import (
    BackendUnavailable,
    Entity,
    EntityFilter,
    InvalidInput,
    NotAStore,
    NotFound,
    Record,
    Relationship,
    StoreLocked,
    StoreReadOnly,
)
from graphmem.backends.networkx import sqlite_commit, sqlite_file, sqlite_open


def url(path: Path) -> str:
    return f"file://{path}"


def listing(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


@pytest.fixture
def world(tmp_path: Path) -> Path:
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(url(path)) as store:
        for tenant in TENANTS:
            build(store, tenant)
    return path


# --------------------------------------------------------------------------- the file


def test_the_file_is_an_sqlite_database_a_user_can_query(world: Path) -> None:
    with closing(sqlite3.connect(world)) as raw, raw:
        assert raw.execute("PRAGMA application_id").fetchone()[0] == sqlite_file.APPLICATION_ID
        assert raw.execute("PRAGMA user_version").fetchone()[0] == sqlite_file.SCHEMA_VERSION
        assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        names = raw.execute(
            "SELECT json_extract(body, '$.name') FROM entity WHERE tenant = 'village' AND id = 'n2'"
        ).fetchall()
        rels = raw.execute(
            "SELECT count(*) FROM relationship WHERE tenant = 'keep' AND type = 'hates'"
        ).fetchone()[0]
    assert names == [("Name 2 \u00e9\u4e16",)]
    assert rels == 4
    assert listing(world.parent) == {world.name}


def test_every_acknowledged_write_is_committed_before_it_returns(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path), tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
        turn = mem.conversation("s").append("player", "hello")
        # Another connection, while the store is still open, sees both.
        with closing(sqlite3.connect(path)) as raw, raw:
            assert raw.execute("SELECT id FROM entity").fetchall() == [("a",)]
            assert raw.execute("SELECT id FROM turn").fetchall() == [(turn.id,)]


def test_reopen_gives_back_every_table(world: Path) -> None:
    with graphmem.open_store(url(world)) as store:
        before = fingerprint(store)
    with graphmem.open_store(url(world)) as store:
        assert fingerprint(store) == before
    with graphmem.open_store(url(world), read_only=True) as store:
        assert fingerprint(store) == before


def test_a_reopened_store_reads_models_only_when_used(world: Path) -> None:
    store = graphmem.open_store(url(world))
    try:
        nodes = store._tenants["village"].graph._node  # type: ignore[attr-defined]
        assert not any("e" in node for node in nodes.values())
        store.identity_snapshot("village", "n3")
        assert "e" in nodes["n3"]
        assert sum("e" in node for node in nodes.values()) < len(nodes)
        # Writes on a store read lazily keep their rows (updates, deletes, cascades).
        store.update_entity("village", "n4", attributes={"level": 99})
        store.delete_entities("village", ["n5"])
        store.upsert_relationships(
            "village", [Relationship(source_id="n4", target_id="n6", type="knows")]
        )
        after = fingerprint(store)
    finally:
        store.close()
    with graphmem.open_store(url(world)) as again:
        assert fingerprint(again) == after


@pytest.mark.parametrize("how", ["option", "url"])
def test_preload_reads_every_model_at_open(world: Path, how: str) -> None:
    options = {"preload": True} if how == "option" else {}
    address = url(world) + ("?preload=true" if how == "url" else "")
    with graphmem.open_store(address, **options) as store:
        graph = store._tenants["village"].graph  # type: ignore[attr-defined]
        assert all("e" in node for node in graph._node.values())
        assert all("r" in e for _s, _t, e in graph.edges(data=True))
        before = fingerprint(store)
    with graphmem.open_store(url(world)) as store:
        assert fingerprint(store) == before


def test_an_sqlite_without_json1_reads_models_one_row_at_a_time(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with graphmem.open_store(url(world)) as store:
        expected = fingerprint(store)
    monkeypatch.setattr(sqlite_open.FileOpen, "_has_json_each", lambda self: False)
    with graphmem.open_store(url(world)) as store:
        assert store._tenants["village"].near is None  # type: ignore[attr-defined]
        assert fingerprint(store) == expected


def test_text_with_a_lone_surrogate_is_refused_as_on_memory(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path), tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
        with pytest.raises(InvalidInput, match="lone surrogate"):
            mem.upsert_entities([{"id": "b", "type": "npc", "name": "A\ud800B"}])
        with pytest.raises(InvalidInput, match="lone surrogate"):
            mem.conversation("s").append("npc", "half \udc00 a pair")
    with graphmem.open(url(path), tenant="t") as mem:
        assert [e.id for e in mem.find_entities()] == ["a"]
        assert mem.sessions() == []


def test_fsync_false_still_persists(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path) + "?fsync=false", tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
    with graphmem.open(url(path), tenant="t") as mem:
        assert mem.count_entities() == 1


def test_tenants_share_one_file_but_not_data(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    store = graphmem.open_store(url(path))
    a = graphmem.Memory(store, "a", owns_store=False)
    b = graphmem.Memory(store, "b", owns_store=False)
    a.upsert_entities([Entity(id="x", type="npc", name="X")])
    b.upsert_entities([Entity(id="y", type="npc", name="Y")])
    b.clear()
    store.close()
    with graphmem.open(url(path), tenant="a") as mem:
        assert mem.count_entities() == 1
    with graphmem.open(url(path), tenant="b") as mem:
        assert mem.count_entities() == 0


def test_bad_file_urls(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput):
        graphmem.open_store("file://")
    with pytest.raises(InvalidInput, match="directory"):
        graphmem.open_store(url(tmp_path))
    with pytest.raises(InvalidInput, match="read_only"):
        graphmem.open_store(url(tmp_path / "w.graphmem"), read_only="yes")


def test_relative_and_percent_encoded_paths(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    with graphmem.open("file://rel.graphmem", tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
    assert (tmp_path / "rel.graphmem").exists()
    with graphmem.open(f"file://{tmp_path}/with%20space.graphmem", tenant="t"):
        pass
    assert (tmp_path / "with space.graphmem").exists()


# --------------------------------------------------------------------------- other files


FOREIGN = {
    "text without a newline": b"my novel, chapter one, no newline at all",
    "text": b"this is not a graphmem file\n",
    "a JSON object": b'{"hello": "world"}\n',
    "a JSON list": b"[1, 2, 3]\n",
    "binary": bytes(range(256)) * 8,
}


@pytest.mark.parametrize("content", FOREIGN.values(), ids=FOREIGN.keys())
@pytest.mark.parametrize("read_only", [False, True], ids=["writer", "reader"])
def test_a_file_of_another_kind_is_refused_and_left_as_it_was(
    tmp_path: Path, content: bytes, read_only: bool
) -> None:
    path = tmp_path / "mine.txt"
    path.write_bytes(content)
    with pytest.raises(NotAStore, match="not a graphmem store") as caught:
        graphmem.open_store(url(path), read_only=read_only)
    assert caught.value.path == str(path)
    assert path.read_bytes() == content
    assert listing(tmp_path) == {"mine.txt"}


@pytest.mark.parametrize("journal_mode", ["delete", "wal"])
def test_another_applications_sqlite_database_is_refused_and_left_as_it_was(
    tmp_path: Path, journal_mode: str
) -> None:
    path = tmp_path / "app.db"
    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute(f"PRAGMA journal_mode = {journal_mode}")
        raw.execute("CREATE TABLE entity (id TEXT, body TEXT)")
        raw.execute("INSERT INTO entity VALUES ('a', '{}')")
    content = path.read_bytes()
    before = listing(tmp_path)
    for read_only in (False, True):
        with pytest.raises(NotAStore, match="another application"):
            graphmem.open_store(url(path), read_only=read_only)
    assert path.read_bytes() == content
    assert listing(tmp_path) == before


def test_a_store_of_a_newer_schema_is_refused(world: Path) -> None:
    with closing(sqlite3.connect(world)) as raw, raw:
        raw.execute(f"PRAGMA user_version = {sqlite_file.SCHEMA_VERSION + 1}")
    for read_only in (False, True):
        with pytest.raises(BackendUnavailable, match="newer graphmem"):
            graphmem.open_store(url(world), read_only=read_only)


def test_an_older_schema_is_migrated_forward_by_a_writer(
    world: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with graphmem.open_store(url(world)) as store:
        before = fingerprint(store)
    steps: list[int] = []

    def to_next(conn: sqlite3.Connection) -> None:
        steps.append(1)
        conn.execute("CREATE TABLE extra (x)")

    version = sqlite_open.SCHEMA_VERSION
    monkeypatch.setattr(sqlite_open, "SCHEMA_VERSION", version + 1)
    monkeypatch.setitem(sqlite_open._MIGRATIONS, version, to_next)
    with pytest.raises(BackendUnavailable, match="open it once for writing"):
        graphmem.open_store(url(world), read_only=True)
    with graphmem.open_store(url(world)) as store:
        assert fingerprint(store) == before
    with graphmem.open_store(url(world)) as store:  # migrated once only
        assert fingerprint(store) == before
    assert steps == [1]
    with closing(sqlite3.connect(world)) as raw, raw:
        assert raw.execute("PRAGMA user_version").fetchone()[0] == version + 1
        assert raw.execute("SELECT name FROM sqlite_master WHERE name = 'extra'").fetchone()


# --------------------------------------------------------------------------- read-only opens


def test_read_only_never_creates_a_file_or_a_directory(tmp_path: Path) -> None:
    missing = tmp_path / "no" / "such" / "dir" / "typo.graphmem"
    with pytest.raises(NotFound, match="no store at"):
        graphmem.open(url(missing), tenant="t", read_only=True)
    with pytest.raises(NotFound):
        graphmem.open_store(url(tmp_path / "typo.graphmem"), read_only=True)
    assert listing(tmp_path) == set()


def test_read_only_refuses_every_write_and_leaves_the_file_as_it_was(world: Path) -> None:
    content = world.read_bytes()
    with graphmem.open("file://" + str(world), tenant="village", read_only=True) as mem:
        assert mem.get_entity("n1").name.startswith("Name 1")
        with pytest.raises(StoreReadOnly, match="read_only=True"):
            mem.upsert_entities([Entity(id="x", type="npc", name="X")])
        with pytest.raises(StoreReadOnly):
            mem.delete_entities(["nobody"])  # refused even when it would change nothing
        with pytest.raises(StoreReadOnly):
            mem.conversation("s1").append("player", "hi")
    assert world.read_bytes() == content
    assert listing(world.parent) == {world.name}


def test_every_writing_store_operation_is_refused_by_a_read_only_store(world: Path) -> None:
    from graphmem.core.store import WRITE_METHODS, ChangeSet, GraphStore

    verbs = ("upsert_", "update_", "delete_", "invalidate_", "append_", "put_", "write_", "link_")
    members = {n for n in dir(GraphStore) if not n.startswith("_")}
    writing = {n for n in members if n.startswith(verbs)} | {"fork", "load", "clear"}
    assert writing == set(WRITE_METHODS)
    content = world.read_bytes()
    with (
        graphmem.open_store("file://" + str(world), read_only=True) as store,
        pytest.raises(StoreReadOnly),
    ):
        store.write_changes("village", ChangeSet(delete_entities=["n1"]))
    assert world.read_bytes() == content


def test_read_only_memory_store_is_empty_and_refuses_writes() -> None:
    with graphmem.open("memory://", tenant="t", read_only=True) as mem:
        assert mem.count_entities() == 0
        with pytest.raises(StoreReadOnly):
            mem.upsert_entities([Entity(id="x", type="npc", name="X")])


def test_read_only_wraps_a_backend_without_a_read_only_mode() -> None:
    def factory(address: str, **options: object) -> graphmem.GraphStore:
        assert "read_only" not in options
        return graphmem.open_store("memory://")

    graphmem.register_backend("plain", factory, replace=True)
    store = graphmem.open_store("plain://x", read_only=True)
    try:
        assert isinstance(store, graphmem.GraphStore)
        assert store.count_entities("t") == 0
        with pytest.raises(StoreReadOnly):
            store.upsert_entities("t", [Entity(id="x", type="npc", name="X")])
    finally:
        store.close()


# --------------------------------------------------------------------------- one writer


def test_a_second_writer_in_this_process_fails_at_once(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path), tenant="t"):
        with pytest.raises(StoreLocked, match="already open"):
            graphmem.open(url(path), tenant="t")
        with graphmem.open(url(path), tenant="t", read_only=True) as reader:
            assert reader.count_entities() == 0
    with graphmem.open(url(path), tenant="t"):
        pass


_HOLD = textwrap.dedent(
    """
    import sys, time, graphmem
    from graphmem import Entity
    with graphmem.open(sys.argv[1], tenant="t") as mem:
        mem.upsert_entities([Entity(id="held", type="npc", name="Held")])
        print("open", flush=True)
        for i, line in enumerate(sys.stdin):
            mem.upsert_entities([Entity(id=f"e{i}", type="npc", name=line.strip())])
            print("done", flush=True)
    """
)


def test_one_writer_and_readers_across_processes(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    writer = subprocess.Popen(
        [sys.executable, "-c", _HOLD, url(path)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None and writer.stdout is not None
    try:
        assert writer.stdout.readline().strip() == "open"
        with pytest.raises(StoreLocked, match="another process"):
            graphmem.open_store(url(path))
        with graphmem.open(url(path), tenant="t", read_only=True) as reader:
            assert [e.id for e in reader.find_entities()] == ["held"]
            for i in range(3):
                writer.stdin.write(f"name {i}\n")
                writer.stdin.flush()
                assert writer.stdout.readline().strip() == "done"
                # Every committed write is seen by the next read.
                assert reader.count_entities() == i + 2
                assert reader.get_entity(f"e{i}").name == f"name {i}"
    finally:
        writer.stdin.close()
        writer.wait(timeout=60)
        writer.stdout.close()
    assert writer.returncode == 0
    with graphmem.open(url(path), tenant="t") as mem:
        assert mem.count_entities() == 4
    assert listing(tmp_path) == {path.name}


def test_a_close_that_fails_still_releases_the_file(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    store = graphmem.open_store(url(path))
    store.upsert_entities("t", [Entity(id="a", type="npc", name="A")])
    file = store._file  # type: ignore[attr-defined]
    real = file._conn

    class Failing:
        def __getattr__(self, name: str) -> object:
            return getattr(real, name)

        def close(self) -> None:
            real.close()
            raise sqlite3.OperationalError("disk I/O error")

    file._conn = Failing()
    with pytest.raises(BackendUnavailable, match="disk I/O error"):
        store.close()
    with graphmem.open_store(url(path)) as again:
        assert again.get_entity("t", "a").name == "A"


# --------------------------------------------------------------------------- readers


def test_a_reader_follows_every_kind_of_change(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    writer = graphmem.open_store(url(path))
    reader = graphmem.open_store(url(path), read_only=True)
    try:
        assert reader.count_entities("village") == 0
        for tenant in TENANTS:
            build(writer, tenant)
        assert fingerprint(reader) == fingerprint(writer)
        head = writer.head("village", "s1")
        assert head is not None
        writer.delete_turn("village", head.parent_id or head.id)
        writer.delete_entities("village", ["n1", "n2"])
        writer.delete_relationship("village", "n3", "n4", "knows")
        writer.update_entity("village", "n6", name="Renamed", remove_attributes=["tags"])
        writer.delete_chunks("village", ["c1"])
        writer.link_mentions("village", "chunk", {"c2": ["n6"], "c0": []})
        writer.delete_records("village", "note", ["r1"])
        writer.write_records(
            "village",
            [
                Record(id="b1", kind="belief", owner="n0", blob=b"\x00moved"),
                Record(id="a1", kind="audit", data={"seq": 1}),
            ],
            delete={"belief": ["b2"], "audit": ["a0"]},
        )
        writer.delete_conversation("village", "s2")
        writer.clear("keep")
        build(writer, "keep", size=5)
        assert fingerprint(reader) == fingerprint(writer)
    finally:
        reader.close()
        writer.close()
    assert listing(tmp_path) == {path.name}


def test_relationship_summaries_on_a_reopened_store_and_a_reader_follow_writes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(url(path)) as writer:
        build(writer, "t")
        expected = (writer.relationship_patterns("t"), writer.relationship_cooccurrence("t"))
    with graphmem.open_store(url(path)) as writer:  # models read lazily: the summary reads them
        assert (writer.relationship_patterns("t"), writer.relationship_cooccurrence("t")) == (
            expected
        )
        with graphmem.open_store(url(path), read_only=True) as reader:
            assert reader.relationship_patterns("t") == expected[0]  # now cached by the reader
            assert reader.relationship_cooccurrence("t") == expected[1]
            writer.upsert_relationships(
                "t", [Relationship(source_id="n0", target_id="n2", type="serves")]
            )
            writer.delete_entities("t", ["n1"])
            assert reader.relationship_patterns("t") == writer.relationship_patterns("t")
            assert reader.relationship_cooccurrence("t") == writer.relationship_cooccurrence("t")
            assert reader.relationship_patterns("t") != expected[0]


def test_lookups_by_name_on_a_reopened_store_and_a_reader_follow_renames(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    by_name = EntityFilter(name="the old mill")
    with graphmem.open_store(url(path)) as writer:
        writer.upsert_entities("t", [Entity(id="m", type="location", name="The Old Mill")])
    with graphmem.open_store(url(path)) as writer:  # names are read with the models, on use
        assert [e.id for e in writer.find_entities("t", by_name)] == ["m"]
        with graphmem.open_store(url(path), read_only=True) as reader:
            assert [e.id for e in reader.find_entities("t", by_name)] == ["m"]
            writer.update_entity("t", "m", name="The New Mill")
            writer.upsert_entities("t", [Entity(id="o", type="location", name="the old mill")])
            for store in (writer, reader):
                assert [e.id for e in store.find_entities("t", by_name)] == ["o"]
                renamed = store.find_entities("t", EntityFilter(name="THE NEW MILL"))
                assert [e.id for e in renamed] == ["m"]
            writer.delete_entities("t", ["o"])
            assert reader.find_entities("t", by_name) == []


def test_a_reader_far_behind_reloads(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sqlite_commit, "_KEEP_CHANGES", 3)
    monkeypatch.setattr(sqlite_commit, "_TRIM_EVERY", 2)
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(url(path)) as writer:
        writer.upsert_entities("t", [Entity(id="first", type="npc", name="First")])
        with graphmem.open_store(url(path), read_only=True) as reader:
            assert reader.count_entities("t") == 1
            for i in range(10):
                writer.upsert_entities("t", [Entity(id=f"e{i}", type="npc", name="E")])
            writer.delete_entities("t", ["first"])
            with closing(sqlite3.connect(path)) as raw, raw:
                assert raw.execute("SELECT count(*) FROM change").fetchone()[0] <= 4
            found = reader.find_entities("t", graphmem.EntityFilter())
            assert sorted(e.id for e in found) == sorted(f"e{i}" for i in range(10))


def test_a_reader_opens_a_file_a_writer_has_just_created(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    path.touch()
    with graphmem.open_store(url(path), read_only=True) as reader:
        assert reader.count_entities("t") == 0
        with graphmem.open_store(url(path)) as writer:
            writer.upsert_entities("t", [Entity(id="a", type="npc", name="A")])
            assert reader.count_entities("t") == 1


# --------------------------------------------------------------------------- the CLI


def test_cli_read_verbs_never_create_anything(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphmem.cli.program import main

    typo = tmp_path / "missing" / "typo.graphmem"
    assert main(["export", "--store", url(typo), "--tenant", "t"]) == 2
    assert "no store at" in capsys.readouterr().err
    assert main(["snapshot", "--store", url(typo), "--tenant", "t", "npc"]) == 2
    assert main(["check", "--store", url(typo)]) == 2
    at = ["--store", url(typo), "--tenant", "t"]
    assert main(["history", *at, "--session", "s"]) == 2
    assert main(["branches", *at, "--session", "s"]) == 2
    assert main(["retrieve", *at, "the mill", "--text-only"]) == 2
    assert main(["tenants", "--store", url(typo)]) == 2
    assert listing(tmp_path) == set()


def test_cli_export_and_snapshot_read_beside_a_running_writer(
    world: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from graphmem.cli.program import main

    with graphmem.open(url(world), tenant="village") as mem:
        mem.upsert_entities([Entity(id="late", type="npc", name="Late Comer")])
        assert main(["snapshot", "--store", url(world), "--tenant", "village", "late"]) == 0
        assert "Late Comer" in capsys.readouterr().out
        assert main(["export", "--store", url(world), "--tenant", "village"]) == 0
        lines = capsys.readouterr().out.splitlines()
        assert any('"late"' in line for line in lines)
        mem.conversation("late-talk").append("gm", "The door creaks.")
        assert main(["tenants", "--store", url(world)]) == 0
        assert "village" in capsys.readouterr().out.split()
        at = ["--store", url(world), "--tenant", "village", "--session", "late-talk"]
        assert main(["history", *at]) == 0
        assert "The door creaks." in capsys.readouterr().out
    assert json.loads(lines[0])["kind"] == "graphmem"


# A writer process driving NPC minds and governed facts, one step per line of stdin; after
# each step it prints what it reads (the reader in the test process must read the same).
_MINDS = textwrap.dedent(
    """
    import json, sys, graphmem
    from graphmem import GovernancePolicy
    sys.path.insert(0, sys.argv[2])
    from file_store_views import minds_view, STEPS
    with graphmem.open(sys.argv[1], tenant="t") as mem:
        facts = mem.fact_memory(actor="gm", policy=GovernancePolicy(signing_key=b"k" * 32))
        for line in sys.stdin:
            STEPS[int(line)](mem, facts)
            print(json.dumps(minds_view(mem, facts)), flush=True)
    """
)


def test_a_reader_process_follows_minds_and_governed_facts(tmp_path: Path) -> None:
    from file_store_views import STEPS, minds_view

    from graphmem import GovernancePolicy

    path = tmp_path / "w.graphmem"
    tests = str(Path(__file__).resolve().parents[1])
    writer = subprocess.Popen(
        [sys.executable, "-c", _MINDS, url(path), tests],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert writer.stdin is not None and writer.stdout is not None
    try:
        writer.stdin.write("0\n")
        writer.stdin.flush()
        first = json.loads(writer.stdout.readline())
        with graphmem.open(url(path), tenant="t", read_only=True) as reader:
            facts = reader.fact_memory(actor="gm", policy=GovernancePolicy(signing_key=b"k" * 32))
            assert minds_view(reader, facts) == first
            for step in range(1, len(STEPS)):
                writer.stdin.write(f"{step}\n")
                writer.stdin.flush()
                seen = json.loads(writer.stdout.readline())
                assert minds_view(reader, facts) == seen, step
            assert seen["owned"]["evidence"], "the beliefs are read through the owner index"
            assert seen["verified"] >= 4 and seen["recaps"]
    finally:
        writer.stdin.close()
        writer.wait(timeout=60)
        writer.stdout.close()
    assert writer.returncode == 0


def test_list_tenants_on_the_writer_a_reader_and_after_reopening(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with (
        graphmem.open_store(url(path)) as writer,
        graphmem.open_store(url(path), read_only=True) as reader,
    ):
        assert reader.list_tenants() == []
        writer.upsert_entities("b", [Entity(id="x", type="npc", name="X")])
        writer.put_records("a", "note", [Record(id="r", kind="note")])
        writer.append_turn("c", graphmem.Turn(session_id="s", role="gm", content="hi"))
        assert writer.list_tenants() == reader.list_tenants() == ["a", "b", "c"]
        writer.clear("b")
        writer.delete_records("a", "note", ["r"])
        assert writer.list_tenants() == reader.list_tenants() == ["c"]
        writer.upsert_chunks("a", [graphmem.Chunk(id="k", text="lore")])
        assert reader.list_tenants() == ["a", "c"]
    with graphmem.open_store(url(path), read_only=True) as again:
        assert again.list_tenants() == ["a", "c"]
