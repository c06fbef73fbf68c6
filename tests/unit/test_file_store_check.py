"""graphmem check: SQLite's integrity and graphmem's own (references, PARENT chains)."""

from __future__ import annotations

import json
import sqlite3
from contextlib import closing
from pathlib import Path
from zlib import crc32

import pytest
from file_world import build

import graphmem
from graphmem import NotAStore, NotFound, StoreCorrupted, UnsupportedOperation
from graphmem.backends.networkx.codec import key_crc
from graphmem.cli.program import main
from graphmem.core.store import check_store


@pytest.fixture
def store_path(tmp_path: Path) -> Path:
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(path.as_uri()) as store:
        build(store, "t")
    return path


def _sql(path: Path, statement: str, *params: object) -> None:
    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute(statement, params)


def _turn_row(path: Path, turn_id: str) -> dict[str, object]:
    with closing(sqlite3.connect(path)) as raw:
        (body,) = raw.execute("SELECT body FROM turn WHERE id = ?", (turn_id,)).fetchone()
    return dict(json.loads(body))


def _put_turn(path: Path, turn: dict[str, object]) -> None:
    body = json.dumps(turn)
    check = crc32(body.encode()) ^ key_crc("t", turn["id"])
    _sql(
        path,
        "UPDATE turn SET body = ?, crc = ? WHERE tenant = 't' AND id = ?",
        body,
        check,
        turn["id"],
    )


def test_a_sound_store_checks_clean_even_while_its_writer_runs(
    store_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with graphmem.open_store(store_path.as_uri()) as store:
        store.upsert_entities("t", [graphmem.Entity(id="late", type="npc", name="Late")])
        report = check_store(store_path.as_uri())
        assert report.ok, report.problems
        assert report.counts["entity"] == 13
        assert report.format == "sqlite (schema version 1)"
        assert main(["check", "--store", store_path.as_uri()]) == 0
    out = capsys.readouterr().out
    assert "no problem found" in out and "relationship" in out


def test_a_broken_parent_chain_is_reported_and_refused(store_path: Path) -> None:
    with graphmem.open_store(store_path.as_uri()) as store:
        turn = store.branch("t", "s1")[-1]
    row = _turn_row(store_path, turn.id)
    row["parent_id"] = "nowhere"
    _put_turn(store_path, row)
    report = check_store(store_path.as_uri())
    assert any("names parent 'nowhere', which is missing" in p for p in report.problems)
    with pytest.raises(StoreCorrupted, match="which is missing"):
        graphmem.open_store(store_path.as_uri())


def test_a_parent_cycle_is_reported(store_path: Path) -> None:
    with graphmem.open_store(store_path.as_uri()) as store:
        first, second = store.list_turns("t", "s1")[:2]
    row = _turn_row(store_path, first.id)
    row["parent_id"] = second.id
    _put_turn(store_path, row)
    report = check_store(store_path.as_uri())
    assert any("form a cycle" in p for p in report.problems), report.problems


def test_a_dangling_relationship_is_reported(
    store_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with closing(sqlite3.connect(store_path)) as raw, raw:
        rid, body = raw.execute("SELECT rid, body FROM relationship LIMIT 1").fetchone()
        data = json.loads(body)
        data["target_id"] = "ghost"
        new = json.dumps(data)
        raw.execute(
            "UPDATE relationship SET target = 'ghost', body = ?, crc = ?, key_crc = ? "
            "WHERE rid = ?",
            (
                new,
                crc32(new.encode()),
                key_crc(rid, "t", data["source_id"], "ghost", data["type"]),
                rid,
            ),
        )
    report = check_store(store_path.as_uri())
    assert any("names an entity that is not stored" in p for p in report.problems)
    assert main(["check", "--store", store_path.as_uri()]) == 1
    assert "problem" in capsys.readouterr().out


def test_a_dangling_mention_is_reported(store_path: Path) -> None:
    _sql(
        store_path,
        "INSERT INTO mention VALUES ('t', 'chunk', 'c3', 'ghost', ?)",
        key_crc("t", "chunk", "c3", "ghost"),
    )
    _sql(store_path, "UPDATE meta SET value = value + 1 WHERE key = 'rows.mention'")
    report = check_store(store_path.as_uri())
    assert any("mentions missing 'ghost'" in p for p in report.problems), report.problems


def test_damaged_bodies_and_counts_are_all_reported(store_path: Path) -> None:
    _sql(store_path, "UPDATE entity SET body = replace(body, 'Name', 'Nome') WHERE id = 'n1'")
    _sql(store_path, "UPDATE chunk SET body = replace(body, 'Lore', 'Lure') WHERE id = 'c2'")
    _sql(store_path, "DELETE FROM record WHERE id = 'r0'")
    problems = check_store(store_path.as_uri()).problems
    assert any(p.startswith("entity") and "checksum" in p for p in problems), problems
    assert any(p.startswith("chunk") and "checksum" in p for p in problems), problems
    assert any("table record has 5 rows where 6 were written" in p for p in problems), problems


def test_sqlite_damage_is_reported(store_path: Path) -> None:
    content = bytearray(store_path.read_bytes())
    content[4096 * 2 + 8 : 4096 * 2 + 40] = bytes(32)  # a page's cell pointers
    store_path.write_bytes(bytes(content))
    report = check_store(store_path.as_uri())
    assert not report.ok


def test_check_refuses_what_is_not_a_store(tmp_path: Path) -> None:
    with pytest.raises(NotFound):
        check_store((tmp_path / "missing.graphmem").as_uri())
    other = tmp_path / "notes.txt"
    other.write_text("hello")
    with pytest.raises(NotAStore):
        check_store(other.as_uri())
    with pytest.raises(UnsupportedOperation):
        check_store("memory://")
    assert {p.name for p in tmp_path.iterdir()} == {"notes.txt"}


def test_check_a_journal(tmp_path: Path) -> None:
    path = tmp_path / "old.graphmem"
    path.write_text(
        '{"kind": "graphmem-file", "version": 1}\n'
        '{"op":"put","tenant":"t","entities":[{"id":"a","type":"npc","name":"A"}]}\n'
    )
    report = check_store(path.as_uri())
    assert report.ok and report.format.startswith("journal")
    assert report.counts["entity"] == 1
    path.write_text(path.read_text() + '{"op":"delete_turn","tenant":"t","id":"x"}\n')
    assert not check_store(path.as_uri()).ok
