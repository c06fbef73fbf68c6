"""kill -9 at random moments during a stream of writes loses no acknowledged write."""

from __future__ import annotations

import itertools
import json
import random
import subprocess
import sys
import time
from collections.abc import Iterator
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


def _ops() -> Iterator[tuple[str, ...]]:
    """The writes of ``file_world.py stream``, in order."""
    i = 0
    while True:
        yield ("entity", f"w{i}")
        if i:
            yield ("relationship", f"w{i}", f"w{i - 1}")
        yield ("turn",)
        if i % 7 == 3:
            yield ("deleted", f"w{i - 3}")
        i += 1


def _state(ops: list[tuple[str, ...]]) -> tuple[set[str], set[tuple[str, str]], int]:
    entities: set[str] = set()
    rels: set[tuple[str, str]] = set()
    turns = 0
    for kind, *key in ops:
        if kind == "entity":
            entities.add(key[0])
        elif kind == "relationship":
            rels.add((key[0], key[1]))
        elif kind == "turn":
            turns += 1
        else:  # deleted, with what pointed at it
            entities.discard(key[0])
            rels = {r for r in rels if key[0] not in r}
    return entities, rels, turns


@pytest.mark.slow
def test_kill_9_loses_no_acknowledged_write(tmp_path: Path) -> None:
    rng = random.Random(30)
    for trial in range(TRIALS):
        path = tmp_path / f"trial{trial}" / "w.graphmem"
        acked = _kill_during_writes(path, rng.uniform(0.0, 0.4))
        ops = list(itertools.islice(_ops(), len(acked) + 1))
        assert [list(op[:2]) if op[0] != "turn" else ["turn"] for op in ops[: len(acked)]] == [
            event[:2] if event[0] != "turn" else ["turn"] for event in acked
        ]
        with graphmem.open_store(path.as_uri()) as store:
            dump = store.dump("crash")
            stored = (
                {e.id for e in store.find_entities("crash", EntityFilter())},
                {(r.source_id, r.target_id) for r in dump.relationships},
                len(dump.turns),
            )
            branch = [t.id for t in store.branch("crash", "log")]
        # Exactly the acknowledged writes are there, or those and the one in flight.
        assert stored in (_state(ops[: len(acked)]), _state(ops)), trial
        acked_turns = [event[1] for event in acked if event[0] == "turn"]
        assert branch[: len(acked_turns)] == acked_turns, trial
        # The next open (and its close) leaves the one file, nothing beside it.
        assert {p.name for p in path.parent.iterdir()} == {path.name}, trial
