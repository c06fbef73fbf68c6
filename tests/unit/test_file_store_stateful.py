"""The stateful model test on a file:// store that is reopened at random, with a reader.

The rules and invariants of ``tests/conformance/test_stateful.py`` (unchanged), plus: the
writer is closed and reopened at random steps (so later steps run on models read lazily
from the file), and a read-only store open on the same file must show what the writer
shows after every step.
"""

from __future__ import annotations

import tempfile
from pathlib import Path

from conformance.test_stateful import SETTINGS, StoreMachine
from hypothesis.stateful import invariant, rule, run_state_machine_as_test

import graphmem
from graphmem import GraphStore


class ReopenedFileMachine(StoreMachine):
    """StoreMachine on a file, reopened at random, followed by a reader."""

    def __init__(self) -> None:
        self.directory = tempfile.TemporaryDirectory()
        self.url = (Path(self.directory.name) / "w.graphmem").as_uri()
        self.store: GraphStore = graphmem.open_store(self.url)
        self.reader = graphmem.open_store(self.url, read_only=True)
        super().__init__()

    @rule()
    def reopen(self) -> None:
        self.store.close()
        self.store = graphmem.open_store(self.url)

    @invariant()
    def reader_sees_what_the_writer_sees(self) -> None:
        assert self.reader.dump(self.tenant) == self.store.dump(self.tenant)
        for entity in self.store.dump(self.tenant).entities:
            assert self.reader.identity_snapshot(
                self.tenant, entity.id
            ) == self.store.identity_snapshot(self.tenant, entity.id)

    def teardown(self) -> None:
        try:
            super().teardown()
        finally:
            self.reader.close()
            self.store.close()
            self.directory.cleanup()


def test_file_store_reopened_at_random_matches_the_reference_model() -> None:
    run_state_machine_as_test(ReopenedFileMachine, settings=SETTINGS)
