"""Files in graphmem's previous format (a JSON Lines journal): read in place, converted once."""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import pytest
from file_world import TENANTS, build, fingerprint

import graphmem
from graphmem import BackendUnavailable, Entity, GraphStore, Record, StoreCorrupted, Turn
from graphmem.backends.networkx import sqlite_open

HEADER = '{"kind": "graphmem-file", "version": 1}\n'


def _line(record: dict[str, Any]) -> str:
    return json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"


def write_journal(path: Path, store: GraphStore, tenants: tuple[str, ...] = TENANTS) -> None:
    """What the journal's compaction wrote for the stores' state, then a few changes."""
    lines = [HEADER]
    for tenant in tenants:
        dump = store.dump(tenant)
        for key in ("entities", "relationships", "turns", "records", "chunks"):
            models = getattr(dump, key)
            for start in range(0, len(models), 5):
                part = [m.model_dump(mode="json") for m in models[start : start + 5]]
                lines.append(_line({"op": "put", "tenant": tenant, key: part}))
        lines.append(_line({"op": "put", "tenant": tenant, "heads": dump.heads}))
        links: dict[str, dict[str, list[str]]] = {}
        for kind, node, entity in dump.mentions:
            links.setdefault(kind, {}).setdefault(node, []).append(entity)
        for kind, by_node in links.items():
            lines.append(
                _line({"op": "mentions", "tenant": tenant, "kind": kind, "links": by_node})
            )
        for kind in ("entity", "turn", "chunk"):
            index = store._tenants[tenant].vectors.get(kind)  # type: ignore[attr-defined]
            if index is None or not len(index):
                continue
            matrix = index.matrix[: len(index)]
            lines.append(
                _line(
                    {
                        "op": "embed",
                        "tenant": tenant,
                        "kind": kind,
                        "ids": list(index.ids),
                        "dimension": int(matrix.shape[1]),
                        "float32_le": base64.b64encode(matrix.astype("<f4").tobytes()).decode(),
                    }
                )
            )
    path.write_text("".join(lines), encoding="utf-8")


@pytest.fixture
def source() -> GraphStore:
    store = graphmem.open_store("memory://")
    for tenant in TENANTS:
        build(store, tenant)
    return store


@pytest.fixture
def journal(tmp_path: Path, source: GraphStore) -> Path:
    path = tmp_path / "old.graphmem"
    write_journal(path, source)
    return path


def names(directory: Path) -> set[str]:
    return {p.name for p in directory.iterdir()}


def test_a_read_only_open_reads_a_journal_in_place(journal: Path, source: GraphStore) -> None:
    content = journal.read_bytes()
    with graphmem.open_store(journal.as_uri(), read_only=True) as store:
        assert fingerprint(store) == fingerprint(source)
    assert journal.read_bytes() == content
    assert names(journal.parent) == {journal.name}


def test_a_writer_converts_a_journal_once(journal: Path, source: GraphStore) -> None:
    with journal.open("a") as handle:  # a torn last line: never acknowledged, not converted
        handle.write('{"op":"put","tenant":"village","entities":[{"id":"torn"')
    with graphmem.open_store(journal.as_uri()) as store:
        assert fingerprint(store) == fingerprint(source)
        store.upsert_entities("village", [Entity(id="after", type="npc", name="After")])
        expected = fingerprint(store)
    assert journal.read_bytes()[:16] == b"SQLite format 3\x00"
    assert names(journal.parent) == {journal.name}
    with graphmem.open_store(journal.as_uri()) as store:
        assert fingerprint(store) == expected


def test_changes_appended_by_the_last_journal_version_read_and_convert(
    journal: Path, source: GraphStore
) -> None:
    """write_records' put with a delete_records part, owned records with blobs, agent turns."""
    put = [
        Record(id="b1", kind="belief", owner="n0", blob=b"\x00\xffaudio"),
        Record(id="a5", kind="audit", owner="n2", data={"seq": 5}),
    ]
    deletes = {"belief": ["b2"], "audit": ["a0"]}
    turn = Turn(
        session_id="agent",
        role="assistant",
        content="Looked it up.",
        trajectory={"tools": [{"name": "search", "summary": "the mill"}], "reasoning": "asked"},
        hidden_artifacts=[{"id": "scratch", "uri": "file:///tmp/scratch"}],
    )
    stored = source.write_records("village", put, delete=deletes)
    source.delete_records("keep", "belief", ["b1"])
    [appended] = [source.append_turn("keep", turn)]
    with journal.open("a", encoding="utf-8") as handle:  # as Journal.append wrote them
        handle.write(
            _line(
                {
                    "op": "put",
                    "tenant": "village",
                    "records": [r.model_dump(mode="json") for r in stored],
                    "delete_records": deletes,
                }
            )
        )
        handle.write(_line({"op": "delete_records", "tenant": "keep", "kind": "belief",
                            "ids": ["b1"]}))  # fmt: skip
        handle.write(
            _line(
                {
                    "op": "put",
                    "tenant": "keep",
                    "turns": [appended.model_dump(mode="json")],
                    "heads": {"agent": appended.id},
                }
            )
        )
    expected = fingerprint(source)
    assert expected["village"]["owned"]["belief"]["n0"] == ["b1"]
    with graphmem.open_store(journal.as_uri(), read_only=True) as store:
        assert fingerprint(store) == expected
    with graphmem.open_store(journal.as_uri()) as store:  # converted
        assert fingerprint(store) == expected
        assert store.get_turn("keep", appended.id) == appended
    with graphmem.open_store(journal.as_uri()) as store:
        assert fingerprint(store) == expected


def test_a_failed_conversion_leaves_the_journal_as_it_was(
    journal: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    content = journal.read_bytes()
    real = sqlite_open._state_records

    def failing(store: Any, tenant: str) -> Any:
        yield from real(store, tenant)
        raise BackendUnavailable("the disk went away")

    monkeypatch.setattr(sqlite_open, "_state_records", failing)
    with pytest.raises(BackendUnavailable, match="the disk went away"):
        graphmem.open_store(journal.as_uri())
    assert journal.read_bytes() == content
    assert names(journal.parent) == {journal.name}
    monkeypatch.setattr(sqlite_open, "_state_records", real)
    with graphmem.open_store(journal.as_uri()) as store:  # and it converts later
        assert store.count_entities("village") == 12


def test_a_journal_that_does_not_replay_is_refused_unchanged(tmp_path: Path) -> None:
    path = tmp_path / "old.graphmem"
    bad = [
        HEADER,
        _line({"op": "put", "tenant": "t", "entities": [{"id": "a", "type": "npc", "name": "A"}]}),
        _line({"op": "delete_turn", "tenant": "t", "id": "never-stored"}),
    ]
    path.write_text("".join(bad))
    for read_only in (True, False):
        with pytest.raises(StoreCorrupted, match="line 3"):
            graphmem.open_store(path.as_uri(), read_only=read_only)
    assert path.read_text() == "".join(bad)
    assert names(tmp_path) == {path.name}


def test_a_journal_torn_in_its_header_is_an_empty_store(tmp_path: Path) -> None:
    path = tmp_path / "old.graphmem"
    path.write_text(HEADER[:12])
    with graphmem.open_store(path.as_uri(), read_only=True) as store:
        assert store.count_entities("t") == 0
    assert path.read_text() == HEADER[:12]
    with graphmem.open_store(path.as_uri()) as store:
        store.upsert_entities("t", [Entity(id="a", type="npc", name="A")])
    with graphmem.open_store(path.as_uri()) as store:
        assert store.count_entities("t") == 1


def test_what_a_killed_compaction_or_conversion_left_is_removed(tmp_path: Path) -> None:
    path = tmp_path / "w.graphmem"
    with graphmem.open_store(path.as_uri()) as store:
        store.upsert_entities("t", [Entity(id="a", type="npc", name="A")])
    stale = [
        f".{path.name}.4242.tmp",
        f".{path.name}.convert-99.tmp",
        f".{path.name}.convert-99.tmp-wal",
    ]
    for name in [*stale, "unrelated.tmp", ".other.graphmem.1.tmp"]:
        (tmp_path / name).write_text("junk")
    with graphmem.open_store(path.as_uri(), read_only=True):
        pass
    assert set(stale) <= names(tmp_path)  # a reader never deletes anything
    with graphmem.open_store(path.as_uri()):
        pass
    assert names(tmp_path) == {path.name, "unrelated.tmp", ".other.graphmem.1.tmp"}


_CONVERT = textwrap.dedent(
    """
    import sys, graphmem
    print("converting", flush=True)
    graphmem.open_store(sys.argv[1]).close()
    print("converted", flush=True)
    """
)


def test_kill_9_during_conversion_loses_nothing(tmp_path: Path) -> None:
    source = graphmem.open_store("memory://")
    build(source, "village", size=1500)
    expected = fingerprint(source, ("village",))
    original = tmp_path / "original.graphmem"
    write_journal(original, source, ("village",))
    content = original.read_bytes()
    # The conversion takes about a second: the first kills land before its commit point
    # (the journal must be intact), the last after (the database must be complete).
    for trial in range(4):
        path = tmp_path / f"t{trial}" / "w.graphmem"
        path.parent.mkdir()
        path.write_bytes(content)
        child = subprocess.Popen(
            [sys.executable, "-c", _CONVERT, path.as_uri()], stdout=subprocess.PIPE, text=True
        )
        assert child.stdout is not None
        assert child.stdout.readline().strip() == "converting"
        time.sleep(0.05 + 0.25 * trial)
        child.kill()
        child.wait(timeout=60)
        child.stdout.close()
        if path.read_bytes()[:6] != b"SQLite":
            assert path.read_bytes() == content
        with graphmem.open_store(path.as_uri()) as store:
            assert fingerprint(store, ("village",)) == expected
        assert names(path.parent) == {path.name}
