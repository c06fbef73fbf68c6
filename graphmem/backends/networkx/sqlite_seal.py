"""The commit record of a ``file://`` store: how far its acknowledged commits reached.

SQLite in WAL mode appends each commit to the ``-wal`` file and folds it into the
database later. A frame of the log that is damaged (a flipped byte, a cut file) ends the
log there: SQLite opens the state before it without a word, and every commit after it
is gone. Nothing inside the database can tell, so the writer keeps a small file beside
it, ``<store>-commit``, holding the store's id and the sequence number of its last
acknowledged commit. It is written after the commit and before the write returns, in
place, in one of two slots (sectors) taken in turn, each with its own CRC-32, so a torn
write leaves the other slot whole (a record at most one commit behind, never ahead);
see :meth:`Seal.record` for why it needs no fsync per commit.

Opening compares the record with the database's last change: a database behind the
record lost acknowledged commits (:class:`~graphmem.core.errors.CommitsMissing`). A reader
reads the record *before* its read transaction starts, so a commit the writer makes
meanwhile can only put the database ahead of what the reader read, never behind it.
A record of another store (another id: the file was replaced or made anew) is ignored
by readers and rewritten by the writer; a missing record (a store written before
graphmem kept one, or a copy made without it) is rewritten by the writer.
"""

from __future__ import annotations

import contextlib
import logging
import os
import random
import shutil
import struct
from dataclasses import dataclass
from pathlib import Path
from zlib import crc32

from graphmem.core.errors import CommitsMissing, StoreCorrupted

__all__ = [
    "STORE_ID_KEY",
    "Seal",
    "SealRecord",
    "damaged_record",
    "keep_wal",
    "missing",
    "new_store_id",
    "problem",
    "read_seal",
    "seal_path",
]

STORE_ID_KEY = "store.id"  # the meta row naming the store (a random 62-bit number)
_MAGIC = b"GMCR"
_SLOT = struct.Struct("<4sIqq")  # magic, format, store id, sequence (then the CRC-32)
_SLOT_SIZE = 512  # one sector each: a torn write damages one slot only
_log = logging.getLogger(__name__)


def seal_path(path: Path) -> Path:
    """Where the commit record of the store at ``path`` lives."""
    return path.with_name(f"{path.name}-commit")


def new_store_id() -> int:
    """A fresh store id (never 0, which means none)."""
    return random.SystemRandom().randrange(1, 1 << 62)


@dataclass(frozen=True, slots=True)
class SealRecord:
    """What a commit record says (``damaged``: it exists but no slot verifies)."""

    store_id: int = 0
    seq: int = 0
    damaged: bool = False


def _pack(store_id: int, seq: int) -> bytes:
    body = _SLOT.pack(_MAGIC, 1, store_id, seq)
    return (body + crc32(body).to_bytes(4, "little")).ljust(_SLOT_SIZE, b"\0")


def _unpack(raw: bytes) -> tuple[int, int] | None:
    size = _SLOT.size
    if len(raw) < size + 4 or crc32(raw[:size]) != int.from_bytes(raw[size : size + 4], "little"):
        return None
    magic, fmt, store_id, seq = _SLOT.unpack(raw[:size])
    if magic != _MAGIC or fmt != 1 or store_id <= 0 or seq < 0:
        return None
    return store_id, seq


def read_seal(path: Path) -> SealRecord | None:
    """The commit record of the store at ``path``; ``None`` when there is none."""
    try:
        raw = seal_path(path).read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:  # unreadable: as good as damaged, for the one who asks
        _log.warning("cannot read the commit record of %s: %s", path, exc)
        return SealRecord(damaged=True)
    slots = [_unpack(raw[i : i + _SLOT_SIZE]) for i in (0, _SLOT_SIZE)]
    valid = [slot for slot in slots if slot is not None]
    if not valid:
        return SealRecord(damaged=True)
    store_id, seq = max(valid, key=lambda slot: slot[1])
    return SealRecord(store_id, seq)


def problem(path: Path, record: SealRecord | None, store_id: int, seq: int) -> str | None:
    """What is wrong between a database (``store_id``, last change ``seq``) and its record."""
    if record is None:
        return None
    if record.damaged:
        return (
            f"its commit record {seal_path(path).name} is damaged, so whether acknowledged "
            "commits are missing cannot be told"
        )
    if record.store_id != store_id or store_id == 0:
        return None  # the record of another store (the file was replaced or made anew)
    if seq < record.seq:
        return (
            f"acknowledged commits {seq + 1} to {record.seq} are missing (the database ends "
            f"at commit {seq}): its write-ahead log ({path.name}-wal) was damaged or lost"
        )
    return None


def missing(path: Path, what: str, *, recorded: int, found: int) -> CommitsMissing:
    """The error for a store whose database is behind (or beside) its commit record."""
    return CommitsMissing(
        f"{path} is damaged: {what}. Restore a backup; or, to accept the store as it "
        f"opens now (for example after restoring an older copy of it on purpose), delete "
        f"{seal_path(path)} and open it again",
        path=str(path),
        recorded=recorded,
        found=found,
    )


class Seal:
    """The writer's handle on the commit record (kept open while the store is)."""

    def __init__(self, path: Path, *, fsync: bool) -> None:
        self.path = seal_path(path)
        self.fsync = fsync
        self.store_id = 0
        self._fd: int | None = None

    def open(self, store_id: int, seq: int) -> None:
        """Start recording (rewriting both slots with the database's state)."""
        self.store_id = store_id
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o666)
        self._fd = fd
        try:
            os.pwrite(fd, _pack(store_id, seq) * 2, 0)
            os.ftruncate(fd, 2 * _SLOT_SIZE)
            if self.fsync:
                os.fsync(fd)
                _fsync_dir(self.path.parent)
        except OSError as exc:
            self._fail(exc)

    def record(self, seq: int) -> None:
        """Record ``seq`` as acknowledged (after its transaction committed).

        No fsync of its own: a killed process loses nothing of it (the kernel holds the
        write), and the log it guards was fsynced by the commit before it, so the record
        on disk is never ahead of the log. A power loss can only leave it a few commits
        behind, which makes the check less strict for those, never a false alarm; the
        damage it is for (a log flipped, cut or lost at rest, after a crash) comes long
        after the kernel wrote it. It is fsynced when the store opens and closes.
        """
        fd = self._fd
        if fd is None:
            return
        try:
            os.pwrite(fd, _pack(self.store_id, seq), (seq % 2) * _SLOT_SIZE)
        except OSError as exc:
            self._fail(exc)

    def _fail(self, exc: OSError) -> None:
        """A record that cannot be kept is removed (it must never claim too much)."""
        _log.warning("cannot keep the commit record %s (%s); removing it", self.path, exc)
        self.close()
        try:
            self.path.unlink(missing_ok=True)
        except OSError as again:
            _log.error("cannot remove the stale commit record %s: %s", self.path, again)

    def close(self) -> None:
        """Stop recording (the record stays on disk, fsynced)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            try:
                if self.fsync:
                    os.fsync(fd)
            except OSError as exc:
                _log.warning("cannot fsync the commit record %s: %s", self.path, exc)
            finally:
                os.close(fd)

    def retire(self) -> None:
        """Remove the record once the log is folded into the database and gone.

        The last connection to close checkpoints the log and deletes it; every commit is
        then in the database file itself (checked by its checksums and row counts), and
        the record has nothing left to guard. A log kept by a reader still open keeps it.
        """
        wal = self.path.with_name(self.path.name.removesuffix("-commit") + "-wal")
        if not wal.exists():
            with contextlib.suppress(OSError):
                self.path.unlink(missing_ok=True)


def keep_wal(path: Path) -> Path | None:
    """Copy the damaged ``-wal`` file aside before SQLite folds or removes it."""
    wal = path.with_name(f"{path.name}-wal")
    kept = path.with_name(f"{path.name}-wal.damaged")
    try:
        if not wal.exists() or wal.stat().st_size == 0:
            return None
        shutil.copyfile(wal, kept)
    except OSError as exc:
        _log.warning("cannot keep a copy of the damaged %s: %s", wal, exc)
        return None
    return kept


def damaged_record(path: Path) -> StoreCorrupted:
    """The error for a commit record that exists but does not verify."""
    return StoreCorrupted(
        f"{path} cannot be checked: its commit record {seal_path(path)} is damaged. If the "
        "store is as it should be (`graphmem check` finds it sound), delete the record and "
        "open it again",
        path=str(path),
    )


def _fsync_dir(directory: Path) -> None:
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
