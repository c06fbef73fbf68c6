"""The one-file persistence of ``file://`` stores: a JSON Lines write-ahead journal.

The file is a header line followed by change records, one JSON object per line. Every
mutation appends its record (flushed and, by default, fsynced) *before* it is applied
in memory and acknowledged, so nothing acknowledged is lost if the process dies. When
the journal has grown well past the live data, and on close, the file is compacted:
the whole state is written to a temporary file beside it, fsynced and atomically
renamed over the old one (``os.replace``), so a reader sees either the old file or the
new one, never half of either. A torn last line (a crash mid-write) is ignored on open.

One process at a time: the file is held under an exclusive ``flock`` while open.
"""

from __future__ import annotations

import fcntl
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

from graphmem.errors import BackendUnavailable

HEADER = {"kind": "graphmem-file", "version": 1}
_COMPACT_MIN_BYTES = 1 << 20


class Journal:
    """An open ``file://`` store file, locked for this process."""

    def __init__(self, path: Path, *, fsync: bool = True) -> None:
        self.path = path
        self.fsync = fsync
        self._handle: IO[str] | None = None
        self._live_bytes = 0
        self._journal_bytes = 0
        self._open_locked()

    # ------------------------------------------------------------------ open / lock

    def _open_locked(self) -> None:
        locked = False
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            while True:
                handle = self.path.open("a+", encoding="utf-8")
                try:
                    fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    handle.close()
                    locked = True
                    break
                # A compaction elsewhere may have renamed a new file over the one we locked.
                if os.fstat(handle.fileno()).st_ino == os.stat(self.path).st_ino:
                    break
                handle.close()
        except OSError as exc:
            raise BackendUnavailable(
                f"cannot open {self.path}: {exc}", path=str(self.path)
            ) from exc
        if locked:
            raise BackendUnavailable(
                f"{self.path} is already open (in another process or another store); "
                "close it there first",
                path=str(self.path),
            )
        self._handle = handle

    def records(self) -> Iterator[tuple[int, dict[str, Any]]]:
        """The records in the file, with their line numbers (header checked, torn tail skipped)."""
        assert self._handle is not None
        self._handle.seek(0)
        size = 0
        lines = self._handle.read().split("\n")
        # The text after the last newline is a torn write (or empty): never acknowledged.
        complete, _torn = lines[:-1], lines[-1]
        for number, line in enumerate(complete, start=1):
            size += len(line.encode("utf-8")) + 1
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                raise BackendUnavailable(
                    f"{self.path} line {number} is corrupt ({exc.msg}); restore it from a backup",
                    path=str(self.path),
                ) from exc
            if number == 1:
                if record.get("kind") != HEADER["kind"]:
                    raise BackendUnavailable(
                        f"{self.path} is not a graphmem store file", path=str(self.path)
                    )
                if record.get("version") != HEADER["version"]:
                    raise BackendUnavailable(
                        f"{self.path} has format version {record.get('version')!r}; "
                        f"this graphmem reads version {HEADER['version']}",
                        path=str(self.path),
                    )
                continue
            yield number, record
        if _torn:
            # Cut the torn tail so the next record starts on a line of its own.
            self._handle.truncate(size)
        self._journal_bytes = self._live_bytes = size

    # ------------------------------------------------------------------ writing

    def append(self, record: dict[str, Any]) -> None:
        """Append one record durably; raise ``BackendUnavailable`` if it cannot be written."""
        handle = self._handle
        if handle is None:
            raise BackendUnavailable(f"{self.path} is closed", path=str(self.path))
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        try:
            if self._journal_bytes == 0:
                header = json.dumps(HEADER) + "\n"
                handle.write(header)
                self._journal_bytes += len(header)
            handle.write(line)
            handle.flush()
            if self.fsync:
                os.fsync(handle.fileno())
        except OSError as exc:
            raise BackendUnavailable(
                f"cannot write {self.path}: {exc}; the change was not applied",
                path=str(self.path),
            ) from exc
        self._journal_bytes += len(line.encode("utf-8"))

    def wants_compaction(self) -> bool:
        """Whether the journal has grown to more than twice the live data (and past 1 MiB)."""
        return self._journal_bytes > max(_COMPACT_MIN_BYTES, 2 * self._live_bytes)

    def compact(self, records: Iterator[dict[str, Any]]) -> None:
        """Replace the file by ``records`` (the whole state) atomically."""
        assert self._handle is not None
        tmp = self.path.with_name(f".{self.path.name}.{os.getpid()}.tmp")
        size = 0
        try:
            with tmp.open("w", encoding="utf-8") as out:
                for record in (HEADER, *records):
                    line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
                    out.write(line)
                    size += len(line.encode("utf-8"))
                out.flush()
                os.fsync(out.fileno())
            new_handle = tmp.open("a+", encoding="utf-8")
            fcntl.flock(new_handle.fileno(), fcntl.LOCK_EX)
            os.replace(tmp, self.path)
            self._fsync_dir()
        except OSError as exc:
            tmp.unlink(missing_ok=True)
            raise BackendUnavailable(
                f"cannot compact {self.path}: {exc}; the previous file is intact",
                path=str(self.path),
            ) from exc
        old, self._handle = self._handle, new_handle
        old.close()
        self._journal_bytes = self._live_bytes = size

    def _fsync_dir(self) -> None:
        fd = os.open(self.path.parent, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)

    def close(self) -> None:
        """Release the lock and the file."""
        if self._handle is not None:
            self._handle.close()
            self._handle = None
