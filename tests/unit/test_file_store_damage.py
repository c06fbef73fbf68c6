"""A damaged store file is always a typed error, never silently wrong data (byte flips)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

import pytest
from file_world import TENANTS, build, fingerprint

import graphmem
from graphmem import BackendUnavailable, GraphmemError, StoreCorrupted
from graphmem.core.store import check_store

FLIPS = 150


@pytest.fixture(scope="module")
def sound(tmp_path_factory: pytest.TempPathFactory) -> tuple[bytes, dict[str, Any]]:
    path = tmp_path_factory.mktemp("sound") / "w.graphmem"
    with graphmem.open_store(path.as_uri()) as store:
        for tenant in TENANTS:
            build(store, tenant)
    with graphmem.open_store(path.as_uri()) as store:
        return path.read_bytes(), fingerprint(store)


def _outcome(path: Path, *, read_only: bool) -> str | dict[str, Any]:
    """What opening and reading everything gives: the fingerprint, or the error's class."""
    try:
        with graphmem.open_store(path.as_uri(), read_only=read_only) as store:
            return fingerprint(store)
    except BackendUnavailable as exc:  # StoreCorrupted, NotAStore, ...
        return type(exc).__name__


def test_every_single_byte_flip_is_caught_or_harmless(
    sound: tuple[bytes, dict[str, Any]], tmp_path: Path
) -> None:
    content, expected = sound
    rng = random.Random(19)
    seen: dict[str, int] = {}
    for trial in range(FLIPS):
        offset = rng.randrange(len(content))
        damaged = bytearray(content)
        damaged[offset] ^= rng.randrange(1, 256)
        path = tmp_path / f"flip{trial}.graphmem"
        path.write_bytes(bytes(damaged))
        outcome = _outcome(path, read_only=trial % 2 == 1)
        if isinstance(outcome, dict):
            # Opened: then the flip hit a byte nothing reads, and the data is all there.
            assert outcome == expected, f"byte {offset} changed what the store returns"
            outcome = "unchanged"
        seen[outcome] = seen.get(outcome, 0) + 1
        shutil.rmtree(tmp_path, ignore_errors=True)
        tmp_path.mkdir()
    # Damage is reported as such (not as an unreachable store); about a third of the
    # bytes of this small file are in use (1500 flips: 560 caught, 940 harmless, 0 wrong).
    assert set(seen) <= {"unchanged", "StoreCorrupted"}, seen
    assert seen["StoreCorrupted"] > FLIPS // 5, seen


def test_a_cut_file_is_caught(sound: tuple[bytes, dict[str, Any]], tmp_path: Path) -> None:
    content, _expected = sound
    for size in (1, 50, 99, 100, 4096, len(content) // 2, len(content) - 4096, len(content) - 1):
        path = tmp_path / f"cut{size}.graphmem"
        path.write_bytes(content[:size])
        outcome = _outcome(path, read_only=False)
        # Under 16 bytes nothing says it is an SQLite database at all.
        assert outcome == ("NotAStore" if size < 16 else "StoreCorrupted"), size


def test_check_reports_what_an_open_refuses(
    sound: tuple[bytes, dict[str, Any]], tmp_path: Path
) -> None:
    content, _expected = sound
    rng = random.Random(7)
    for trial in range(20):
        damaged = bytearray(content)
        damaged[rng.randrange(4096, len(content))] ^= 0x55
        path = tmp_path / f"c{trial}.graphmem"
        path.write_bytes(bytes(damaged))
        report = check_store(path.as_uri())
        refused = not isinstance(_outcome(path, read_only=True), dict)
        assert report.ok is not refused, (trial, report.problems)


def test_a_damaged_journal_is_a_typed_error(tmp_path: Path) -> None:
    """The previous format has no checksums; still, nothing but graphmem errors come out."""
    lines = [
        '{"kind": "graphmem-file", "version": 1}',
        '{"op":"put","tenant":"t","entities":[{"id":"a","type":"npc","name":"A"},'
        '{"id":"b","type":"npc","name":"B"}]}',
        '{"op":"put","tenant":"t","relationships":[{"source_id":"a","target_id":"b",'
        '"type":"knows"}]}',
        '{"op":"delete_relationship","tenant":"t","key":["a","b","knows"]}',
    ]
    content = ("\n".join(lines) + "\n").encode()
    rng = random.Random(3)
    for trial in range(150):
        damaged = bytearray(content)
        damaged[rng.randrange(len(content))] = rng.choice(b'{}[]",:0aZ \n')
        path = tmp_path / f"j{trial}.graphmem"
        path.write_bytes(bytes(damaged))
        for read_only in (True, False):
            try:
                with graphmem.open_store(path.as_uri(), read_only=read_only) as store:
                    store.dump("t")
            except GraphmemError as exc:
                assert isinstance(exc, BackendUnavailable), exc
            if not read_only and path.read_bytes()[:6] != b"SQLite":
                assert path.read_bytes() == bytes(damaged)  # refused: left as it was


def test_corruption_is_typed_even_when_found_late(tmp_path: Path) -> None:
    """A body damaged after open (by another program) is found when first read."""
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(path.as_uri()) as store:
        build(store, "t")
    store = graphmem.open_store(path.as_uri())
    try:
        import sqlite3
        from contextlib import closing

        with closing(sqlite3.connect(path)) as raw, raw:
            raw.execute(
                "UPDATE entity SET body = replace(body, 'Name 3', 'Name 8') WHERE id = 'n3'"
            )
        with pytest.raises(StoreCorrupted, match="checksum"):
            store.get_entity("t", "n3")
    finally:
        store.close()


def test_damage_the_warm_up_finds_stops_it_and_the_read_says_so(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(path.as_uri()) as store:
        build(store, "t")
    import sqlite3
    from contextlib import closing

    with closing(sqlite3.connect(path)) as raw, raw:
        raw.execute("UPDATE entity SET body = replace(body, 'Name 3', 'Name 8') WHERE id = 'n3'")
    with graphmem.open_store(path.as_uri(), warm=True) as store:
        warmer = store._file._warmer  # type: ignore[attr-defined]
        assert warmer is not None and warmer.done.wait(30)
        assert isinstance(warmer.error, StoreCorrupted)
        assert store.get_entity("t", "n2").id == "n2"
        with pytest.raises(StoreCorrupted, match="checksum"):
            store.get_entity("t", "n3")
