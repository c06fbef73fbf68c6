"""The warm-up of a reopened file:// store: models read in the background, safely."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from file_world import build, fingerprint

import graphmem
from graphmem.backends.networkx.sqlite_warm import install
from graphmem.core.models import Entity


def _warm_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name.startswith("graphmem-warm-")]


@pytest.fixture(autouse=True)
def no_thread_left() -> Iterator[None]:
    yield
    assert _warm_threads() == []


@pytest.fixture
def world(tmp_path: Path) -> str:
    url = (tmp_path / "w.graphmem").as_uri()
    with graphmem.open_store(url) as store:
        build(store, "t", size=60)
    return url


def _warmer(store: Any) -> Any:
    warmer = store._file._warmer
    assert warmer is not None
    return warmer


def _old_row(store: Any, entity_id: str) -> tuple[Any, int, Entity]:
    """Entity ``entity_id``'s node dict, row id and model as read from the file now."""
    conn = store._file.side_connection()
    try:
        rid, *row = conn.execute(
            "SELECT rid, tenant, id, CAST(body AS BLOB), crc FROM entity WHERE id = ?",
            (entity_id,),
        ).fetchone()
    finally:
        conn.close()
    return store._tenants["t"].graph._node[entity_id], rid, store._file._entity(tuple(row), "t")


def test_the_warm_up_reads_every_model_and_changes_nothing(world: str) -> None:
    with graphmem.open_store(world, warm=False) as cold:
        expected = fingerprint(cold)
        assert "inline_reads" not in cold.capabilities  # models still on disk
    with graphmem.open_store(world, warm=True) as store:
        warmer = _warmer(store)
        assert warmer.done.wait(30) and warmer.error is None
        data = store._tenants["t"]  # type: ignore[attr-defined]
        assert data.fill is None
        assert all("e" in node for node in data.graph._node.values())
        assert all("r" in edge for _, _, edge in data.graph.edges(data=True))
        assert "inline_reads" in store.capabilities
        assert fingerprint(store) == expected


def test_close_stops_the_thread_at_once(world: str) -> None:
    store = graphmem.open_store(world, warm=True)
    assert _warm_threads()  # started at open
    store.close()
    assert _warm_threads() == []


def test_no_thread_unless_asked_and_none_after_preload(world: str) -> None:
    for options in ({}, {"warm": False}, {"preload": True, "warm": True}):
        with graphmem.open_store(world, **options) as store:
            assert _warm_threads() == []
            assert store._file._warmer is None  # type: ignore[attr-defined]


def test_a_write_in_between_wins_over_the_model_read_before_it(world: str) -> None:
    with graphmem.open_store(world, warm=False) as store:
        node, rid, old = _old_row(store, "n4")
        store.upsert_entities("t", [old.model_copy(update={"name": "Renamed"})])
        assert install([(node, rid, old)], "e") == 0
        assert store.get_entity("t", "n4").name == "Renamed"
        # A model not read yet is put in where the row is still the one read.
        node, rid, model = _old_row(store, "n5")
        assert "e" not in node
        assert install([(node, rid, model)], "e") == 1
        assert store.get_entity("t", "n5") == model


def test_writes_while_it_runs_are_kept(world: str) -> None:
    with graphmem.open_store(world, warm=True) as store:
        for i in range(0, 60, 7):
            entity = store.get_entity("t", f"n{i}")
            store.upsert_entities("t", [entity.model_copy(update={"name": f"New {i}"})])
        assert _warmer(store).done.wait(30)
        assert [store.get_entity("t", f"n{i}").name for i in range(0, 60, 7)] == [
            f"New {i}" for i in range(0, 60, 7)
        ]


def test_a_reader_warms_up_and_still_sees_what_the_writer_commits(world: str) -> None:
    with graphmem.open_store(world, warm=True) as writer:
        with graphmem.open_store(world, read_only=True, warm=False) as reader:
            node, rid, old = _old_row(reader, "n6")
            writer.upsert_entities("t", [old.model_copy(update={"name": "Later"})])
            assert reader.get_entity("t", "n6").name == "Later"  # synced before the read
            assert install([(node, rid, old)], "e") == 0
            assert reader.get_entity("t", "n6").name == "Later"
        with graphmem.open_store(world, read_only=True, warm=True) as reader:
            writer.upsert_entities("t", [old.model_copy(update={"name": "Latest"})])
            assert _warmer(reader).done.wait(30) and _warmer(reader).error is None
            assert reader.get_entity("t", "n6").name == "Latest"
            assert "inline_reads" not in reader.capabilities  # a reader reads the file first
