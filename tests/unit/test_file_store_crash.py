"""kill -9 at random moments during a stream of writes loses no acknowledged write."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time
from pathlib import Path

import pytest

import graphmem
from graphmem import EntityFilter

TRIALS = 30  # each about half a second: a fresh interpreter, then up to 0.4 s of writes
WRITER = Path(__file__).parent.parent / "file_world.py"


def _kill_during_writes(path: Path, delay: float) -> list[list[str]]:
    """Start the writer, kill -9 it after ``delay`` seconds of writing; its acknowledgements."""
    child = subprocess.Popen(
        [sys.executable, str(WRITER), "stream", path.as_uri()],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert child.stdout is not None and child.stderr is not None
    try:
        first = child.stdout.readline()  # the first write was acknowledged: writing has begun
        time.sleep(delay)
        child.kill()
        child.wait(timeout=60)
        acked = [json.loads(first), *(json.loads(line) for line in child.stdout)]
    finally:
        child.stdout.close()
        child.stderr.close()
    return acked


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_write(tmp_path: Path) -> None:
    rng = random.Random(30)
    for trial in range(TRIALS):
        path = tmp_path / f"trial{trial}" / "w.graphmem"
        acked = _kill_during_writes(path, rng.uniform(0.0, 0.4))
        entities: set[str] = set()
        rels: set[tuple[str, str]] = set()
        turns: list[str] = []
        for event in acked:
            kind, *key = event
            if kind == "entity":
                entities.add(key[0])
            elif kind == "relationship":
                rels.add((key[0], key[1]))
            elif kind == "turn":
                turns.append(key[0])
            else:  # deleted, with what pointed at it
                entities.discard(key[0])
                rels = {r for r in rels if key[0] not in r}
        with graphmem.open_store(path.as_uri()) as store:
            stored = {e.id for e in store.find_entities("crash", EntityFilter())}
            stored_rels = {(r.source_id, r.target_id) for r in store.dump("crash").relationships}
            branch = [t.id for t in store.branch("crash", "log")]
        # Everything acknowledged is there; at most the one write in flight is there too.
        assert entities <= stored, (trial, sorted(entities - stored))
        assert len(stored - entities) <= 1, (trial, sorted(stored - entities))
        assert rels <= stored_rels, trial
        assert branch[: len(turns)] == turns and len(branch) <= len(turns) + 1, trial
        # The next open (and its close) leaves the one file, nothing beside it.
        assert {p.name for p in path.parent.iterdir()} == {path.name}, trial
