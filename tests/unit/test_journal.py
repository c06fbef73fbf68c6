"""The file:// store's journal: durability, torn writes, corruption, compaction, locking."""

import json
import os

import pytest

import graphmem
from graphmem import BackendUnavailable, Entity, InvalidInput


def url(path):
    return f"file://{path}"


def test_every_acknowledged_write_is_on_disk_before_close(tmp_path):
    path = tmp_path / "w.graphmem"
    mem = graphmem.open(url(path), tenant="t")
    mem.upsert_entities([Entity(id="a", type="npc", name="A")])
    mem.conversation("s").append("player", "hello")
    lines = path.read_text().splitlines()
    assert json.loads(lines[0]) == {"kind": "graphmem-file", "version": 1}
    assert len(lines) == 3  # header, the entity batch, the turn
    mem.close()


def test_a_torn_last_line_is_ignored_and_cut(tmp_path):
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path), tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
    with path.open("a") as handle:
        handle.write('{"op":"put","tenant":"t","entities":[{"id":"b"')  # crash mid-write
    with graphmem.open(url(path), tenant="t") as mem:
        assert [e.id for e in mem.find_entities()] == ["a"]
        mem.upsert_entities([Entity(id="c", type="npc", name="C")])
    with graphmem.open(url(path), tenant="t") as mem:
        assert [e.id for e in mem.find_entities()] == ["a", "c"]


def test_a_corrupt_line_in_the_middle_refuses_to_open(tmp_path):
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path), tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
    lines = path.read_text().splitlines()
    lines.insert(1, "{not json")
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(BackendUnavailable, match="line 2"):
        graphmem.open(url(path), tenant="t")
    # the failed open released the file
    path.write_text("\n".join(lines[:1] + lines[2:]) + "\n")
    with graphmem.open(url(path), tenant="t") as mem:
        assert mem.count_entities() == 1


def test_not_a_graphmem_file(tmp_path):
    path = tmp_path / "w.graphmem"
    path.write_text('{"hello": "world"}\n')
    with pytest.raises(BackendUnavailable, match="not a graphmem store file"):
        graphmem.open(url(path), tenant="t")


def test_a_newer_format_version_is_refused(tmp_path):
    path = tmp_path / "w.graphmem"
    path.write_text('{"kind": "graphmem-file", "version": 99}\n')
    with pytest.raises(BackendUnavailable, match="version 99"):
        graphmem.open(url(path), tenant="t")


def test_one_open_at_a_time(tmp_path):
    path = tmp_path / "w.graphmem"
    with (
        graphmem.open(url(path), tenant="t"),
        pytest.raises(BackendUnavailable, match="already open"),
    ):
        graphmem.open(url(path), tenant="t")
    with graphmem.open(url(path), tenant="t"):
        pass


def test_close_compacts_to_a_snapshot_and_leaves_no_temporary_file(tmp_path):
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path), tenant="t") as mem:
        for i in range(50):
            mem.upsert_entities([Entity(id="a", type="npc", name=f"A{i}")])
    lines = path.read_text().splitlines()
    assert len(lines) <= 4  # header + state, not 50 journal records
    assert os.listdir(tmp_path) == ["w.graphmem"]
    with graphmem.open(url(path), tenant="t") as mem:
        assert mem.get_entity("a").name == "A49"


def test_journal_compacts_while_open_when_it_grows(tmp_path):
    path = tmp_path / "w.graphmem"
    with graphmem.open(url(path) + "?fsync=false", tenant="t") as mem:
        big = "x" * 2000
        for i in range(1500):  # ~3 MB of journal for ~2 KB of live data
            entity = Entity(id="a", type="npc", name="A", attributes={"i": i, "b": big})
            mem.upsert_entities([entity])
        assert path.stat().st_size < 1 << 21
    with graphmem.open(url(path), tenant="t") as mem:
        assert mem.get_entity("a").attributes["i"] == 1499


def test_bad_file_urls(tmp_path):
    with pytest.raises(InvalidInput):
        graphmem.open_store("file://")
    with pytest.raises(InvalidInput, match="directory"):
        graphmem.open_store(url(tmp_path))


def test_relative_and_percent_encoded_paths(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with graphmem.open("file://rel.graphmem", tenant="t") as mem:
        mem.upsert_entities([Entity(id="a", type="npc", name="A")])
    assert (tmp_path / "rel.graphmem").exists()
    with graphmem.open(f"file://{tmp_path}/with%20space.graphmem", tenant="t"):
        pass
    assert (tmp_path / "with space.graphmem").exists()


def test_tenants_share_one_file_but_not_data(tmp_path):
    path = tmp_path / "w.graphmem"
    store = graphmem.open_store(url(path))
    a = graphmem.Memory(store, "a", owns_store=False)
    b = graphmem.Memory(store, "b", owns_store=False)
    a.upsert_entities([Entity(id="x", type="npc", name="X")])
    b.clear()
    store.close()
    with graphmem.open(url(path), tenant="a") as mem:
        assert mem.count_entities() == 1
    with graphmem.open(url(path), tenant="b") as mem:
        assert mem.count_entities() == 0
