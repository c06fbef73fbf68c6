"""Damage to the write-ahead log never silently rolls back acknowledged commits.

A store killed while open leaves its database, its ``-wal`` log and its commit record
(``-commit``) beside each other; copying the three while the writer is idle gives
exactly that. Each trial damages the copied log (a flipped byte, a cut, or the whole
log gone) and opens the copy: it must either hold every acknowledged commit (the damage
hit nothing SQLite reads) or raise :class:`CommitsMissing`, and ``graphmem check`` must
say the same.
"""

from __future__ import annotations

import json
import random
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import pytest
from file_world import TENANTS, build, fingerprint

import graphmem
from graphmem import CommitsMissing, Entity, GraphStore, StoreCorrupted
from graphmem.backends.networkx.sqlite_check import check_file
from graphmem.cli.program import main

FLIPS = 60
WRITER = Path(__file__).parent.parent / "file_world.py"
_FILES = ("", "-wal", "-commit")


def _copy(source: Path, target: Path) -> None:
    for suffix in _FILES:
        shutil.copyfile(f"{source}{suffix}", f"{target}{suffix}")


@pytest.fixture(scope="module")
def crashed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Path, dict[str, Any]]]:
    """A store as a kill -9 leaves it (database, log, record), and what it holds."""
    path = tmp_path_factory.mktemp("crashed") / "w.graphmem"
    kept = path.with_name("kept.graphmem")
    store = graphmem.open_store(path.as_uri())
    try:
        for tenant in TENANTS:
            build(store, tenant)
        for i in range(20):  # small commits at the end of the log
            store.upsert_entities("village", [Entity(id=f"late{i}", type="npc", name=f"L{i}")])
        assert Path(f"{path}-wal").stat().st_size > 0
        _copy(path, kept)
        expected = fingerprint(store)
    finally:
        store.close()
    yield kept, expected


def _open(path: Path, *, read_only: bool) -> str | dict[str, Any]:
    try:
        with graphmem.open_store(path.as_uri(), read_only=read_only) as store:
            return fingerprint(store)
    except StoreCorrupted as exc:
        return type(exc).__name__


def _trial(crashed: tuple[Path, dict[str, Any]], tmp: Path, damage: Any, trial: int) -> str:
    source, expected = crashed
    path = tmp / f"t{trial}.graphmem"
    _copy(source, path)
    wal = Path(f"{path}-wal")
    damage(wal)
    report = check_file(path)  # before any open: the check changes nothing
    outcome = _open(path, read_only=trial % 2 == 1)
    if isinstance(outcome, dict):
        assert outcome == expected, f"trial {trial}: the store opened with other data"
        assert report.ok, report.problems
        return "unchanged"
    assert outcome == "CommitsMissing", outcome
    assert not report.ok and any("are missing" in p for p in report.problems), report.problems
    # Still reported at the next open (the record outlives the log SQLite folded away).
    assert _open(path, read_only=False) == "CommitsMissing"
    return outcome


def test_every_byte_flip_of_the_log_is_caught_or_harmless(
    crashed: tuple[Path, dict[str, Any]], tmp_path: Path
) -> None:
    size = Path(f"{crashed[0]}-wal").stat().st_size
    rng = random.Random(29)
    seen: dict[str, int] = {}
    for trial in range(FLIPS):
        offset = rng.randrange(size)
        xor = rng.randrange(1, 256)

        def flip(wal: Path, offset: int = offset, xor: int = xor) -> None:
            data = bytearray(wal.read_bytes())
            data[offset] ^= xor
            wal.write_bytes(bytes(data))

        outcome = _trial(crashed, tmp_path, flip, trial)
        seen[outcome] = seen.get(outcome, 0) + 1
    print(f"\nWAL byte flips: {seen}")
    # Every frame of this log belongs to a commit: a flip anywhere ends the log there.
    assert seen == {"CommitsMissing": FLIPS}, seen


def test_a_cut_or_lost_log_is_caught(crashed: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    size = Path(f"{crashed[0]}-wal").stat().st_size
    for trial, keep in enumerate((0, 1, 31, 32, 100, size // 3, size // 2, size - 4096, size - 1)):

        def cut(wal: Path, keep: int = keep) -> None:
            with wal.open("r+b") as handle:
                handle.truncate(keep)

        assert _trial(crashed, tmp_path, cut, trial) == "CommitsMissing", keep
    assert _trial(crashed, tmp_path, lambda wal: wal.unlink(), 99) == "CommitsMissing"


def test_the_damaged_log_is_kept_and_deleting_the_record_accepts_the_store(
    crashed: tuple[Path, dict[str, Any]], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "w.graphmem"
    _copy(crashed[0], path)
    wal = Path(f"{path}-wal")
    wal.write_bytes(wal.read_bytes()[: wal.stat().st_size // 2])
    assert main(["check", "--store", path.as_uri()]) == 1  # the CLI door, before any open
    assert "are missing" in capsys.readouterr().out
    with pytest.raises(CommitsMissing) as caught:
        graphmem.open_store(path.as_uri())
    assert caught.value.recorded > caught.value.found  # type: ignore[attr-defined]
    assert "delete" in str(caught.value) and "-commit" in str(caught.value)
    assert Path(f"{path}-wal.damaged").exists()
    Path(f"{path}-commit").unlink()
    with graphmem.open_store(path.as_uri()) as store:  # accepted as it opens now
        assert store.get_entity("village", "n1") is not None
        store.upsert_entities("village", [Entity(id="after", type="npc", name="After")])
    with graphmem.open_store(path.as_uri(), read_only=True) as store:
        assert store.get_entity("village", "after") is not None
    assert check_file(path).ok


def test_a_damaged_record_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    store = graphmem.open_store(path.as_uri())
    try:
        store.upsert_entities("t", [Entity(id="a", type="npc", name="A")])
        record = Path(f"{path}-commit")
        record.write_bytes(b"\xff" * record.stat().st_size)
        report = check_file(path)
        assert not report.ok and "commit record" in report.problems[0], report.problems
        with pytest.raises(StoreCorrupted, match="commit record"):
            graphmem.open_store(path.as_uri(), read_only=True)
    finally:
        store.close()


def test_a_torn_record_falls_back_to_the_other_slot(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    store = graphmem.open_store(path.as_uri())
    try:
        for i in range(3):
            store.upsert_entities("t", [Entity(id=f"e{i}", type="npc", name="E")])
        record = Path(f"{path}-commit")
        data = bytearray(record.read_bytes())
        data[512 * (3 % 2)] ^= 0xFF  # the slot of the last commit, torn
        record.write_bytes(bytes(data))
        with graphmem.open_store(path.as_uri(), read_only=True) as reader:
            assert reader.count_entities("t") == 3
    finally:
        store.close()


def test_a_new_store_where_an_old_one_was_is_not_an_alarm(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    store = graphmem.open_store(path.as_uri())
    for i in range(5):
        store.upsert_entities("t", [Entity(id=f"e{i}", type="npc", name="E")])
    stale = Path(f"{path}-commit").read_bytes()
    store.close()
    path.write_bytes(b"")  # the store deleted, an empty file in its place
    Path(f"{path}-commit").write_bytes(stale)  # a record left behind by the deleted store
    with graphmem.open_store(path.as_uri(), read_only=True) as reader:  # an empty file
        assert reader.list_tenants() == []
    with graphmem.open_store(path.as_uri()) as store:
        store.upsert_entities("t", [Entity(id="x", type="npc", name="X")])
    with graphmem.open_store(path.as_uri(), read_only=True) as reader:
        assert reader.count_entities("t") == 1 and reader.get_entity("t", "x").name == "X"


def test_a_store_without_an_id_gets_one(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(path.as_uri()) as store:
        store.upsert_entities("t", [Entity(id="a", type="npc", name="A")])
    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute("DELETE FROM meta WHERE key = 'store.id'")  # as graphmem wrote it before
    store = graphmem.open_store(path.as_uri())
    try:
        store.upsert_entities("t", [Entity(id="b", type="npc", name="B")])
        with closing(sqlite3.connect(path)) as raw:
            assert raw.execute("SELECT value FROM meta WHERE key = 'store.id'").fetchone()[0]
        assert Path(f"{path}-commit").exists()
    finally:
        store.close()
    assert not Path(f"{path}-commit").exists()  # the log was folded in: nothing to guard


def test_readers_beside_a_writer_in_another_process_raise_no_false_alarm(
    tmp_path: Path,
) -> None:
    path = tmp_path / "w.graphmem"
    child = subprocess.Popen(
        [sys.executable, str(WRITER), "stream", path.as_uri()],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    try:
        json.loads(child.stdout.readline())  # writing has begun
        opened = 0
        for _ in range(40):
            store: GraphStore
            with graphmem.open_store(path.as_uri(), read_only=True) as store:
                store.list_tenants()
                opened += 1
            report = check_file(path)
            assert report.ok, report.problems
        assert opened == 40
        assert child.poll() is None, child.stderr.read()
    finally:
        child.kill()
        child.wait(timeout=60)
        child.stdout.close()
        child.stderr.close()
