"""The warm-up of a reopened ``file://`` store: every model read in the background.

A store opens with ids and adjacency only (see :mod:`graphmem.backends.networkx.sqlite_file`);
an entity's or relationship's model is read from the file when first used, which makes the
first identity snapshot of each NPC several times slower than the next. The warm-up reads
the models nobody has used yet in a background thread, so that soon every snapshot is as
fast as on ``memory://``, while the store answers from the moment it opens.

It is asked for (``open_store(url, warm=True)`` or ``?warm=true``), not the default: once
done, the store holds every model, as much memory as ``preload=True`` takes, and while it
runs a read may wait for the thread's current step (the GIL), which shows in the p99.

It must never slow the program down measurably:

- it reads through a connection of its own and decodes outside the store's lock, taking
  the lock only to put a few dozen decoded models into the graph;
- it works in small steps (a few dozen models, about a tenth of a millisecond) and sleeps
  between them: briefly while the store is idle, for much longer while operations are
  being served, so a busy program barely notices it (the GIL is held only for one step);
- what it makes is live data, so it is moved to the collector's oldest generation
  unscanned, as a load does (see :func:`~graphmem.backends.networkx.state.paused_gc`),
  instead of triggering full collections of a growing heap while the program runs.

A model is put in only if its node (or edge) still has the row it was read from and no
model yet: a write in between always leaves the model it wrote, which wins. A reader's
next operation re-reads whatever changed since (as it always does). Damage found by the
warm-up stops it quietly; the operation that needs the damaged model reports it.
"""

from __future__ import annotations

import gc
import threading
from typing import Any

from graphmem.backends.networkx.sqlite_read import FileRead

__all__ = ["Warmer", "install"]

# Rows read and decoded per step, and the pause after it, while no operation ran since
# the last step (idle) or while operations are being served (busy: about 0.1 ms of work
# every 20 ms, so the program waits for the GIL rarely and briefly).
_IDLE_STEP, _IDLE_PAUSE = 128, 0.0002
_BUSY_STEP, _BUSY_PAUSE = 16, 0.02
_SLICE = 20_000  # nodes (or sources) checked per lock hold when the warm-up ends

_QUERIES = {
    "entity": "SELECT rid, tenant, id, CAST(body AS BLOB), crc FROM entity "
    "WHERE rid > ? ORDER BY rid LIMIT ?",
    "relationship": "SELECT rid, tenant, source, target, type, CAST(body AS BLOB), crc "
    "FROM relationship WHERE rid > ? ORDER BY rid LIMIT ?",
}


class Warmer:
    """Reads every model of a store's file in a background thread (see the module doc).

    Attributes:
        done: Set once every model is in memory (or the warm-up stopped).
        error: What stopped it early, if anything did.
    """

    def __init__(self, file: FileRead) -> None:
        self.file = file
        self.done = threading.Event()
        self.error: BaseException | None = None
        self._stop = threading.Event()
        self._thread = threading.Thread(
            target=self._run, name=f"graphmem-warm-{file.path.name}", daemon=True
        )

    def start(self) -> None:
        """Start the thread."""
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread and wait for it (at most one step)."""
        self._stop.set()
        if self._thread.is_alive() and self._thread is not threading.current_thread():
            self._thread.join()

    # ------------------------------------------------------------------ the thread

    def _run(self) -> None:
        conn = None
        try:
            conn = self.file.side_connection()
            while not self._stop.is_set() and self._pending():
                put = sum(self._scan(conn, table) for table in ("entity", "relationship"))
                if self._settle() or not put:
                    break  # all whole; or a pass found nothing to read (rows missing: damage)
        except Exception as exc:  # damage or a closed file: the operations report it
            self.error = exc
        finally:
            if conn is not None:
                conn.close()
            self.done.set()

    def _pending(self) -> list[str]:
        store = self.file._store
        with store._lock:
            return [t for t, data in store._tenants.items() if data.fill is not None]

    def _scan(self, conn: Any, table: str) -> int:
        """Read, decode and put in the models of ``table`` not in memory yet; how many."""
        store = self.file._store
        read = self.file._entity if table == "entity" else self.file._relationship
        last = put = 0
        seen = store._ops
        busy = True
        while not self._stop.is_set():
            step = _BUSY_STEP if busy else _IDLE_STEP
            rows = conn.execute(_QUERIES[table], (last, step)).fetchall()
            if not rows:
                break
            last = rows[-1][0]
            with _promoted():
                decoded = [
                    (slot, rid, read(tuple(row), row[0]))
                    for rid, *row in rows
                    if (slot := self._slot(table, rid, row)) is not None
                ]
                if decoded:
                    with store._lock:
                        if self._stop.is_set():
                            break
                        put += install(decoded, "e" if table == "entity" else "r")
            busy = store._ops != seen
            seen = store._ops
            self._stop.wait(_BUSY_PAUSE if busy else _IDLE_PAUSE)
        return put

    def _slot(self, table: str, rid: int, row: list[Any]) -> Any:
        """The node (or edge) dict waiting for row ``rid``'s model, or None."""
        data = self.file._store._tenants.get(row[0])
        if data is None or data.fill is None:
            return None
        graph = data.graph
        if table == "entity":
            slot = graph._node.get(row[1])
            key = "e"
        else:
            slot = graph._succ.get(row[1], _NONE).get(row[2], _NONE).get(row[3])
            key = "r"
        if slot is None or getattr(slot, "rid", None) != rid or key in slot:
            return None
        return slot

    def _settle(self) -> bool:
        """Mark each tenant whose every model is in memory as whole; whether all are."""
        store = self.file._store
        whole = True
        for tenant in self._pending():
            with store._lock:
                data = store._tenants.get(tenant)
                if data is None or data.fill is None:
                    continue
                nodes, succ = data.graph._node, data.graph._succ
                ids, sources = list(nodes), list(succ)
            complete = True
            for start in range(0, max(len(ids), len(sources)), _SLICE):
                with store._lock:  # a slice at a time: the program waits for no long scan
                    if store._tenants.get(tenant) is not data:
                        complete = False  # reloaded meanwhile (a reader far behind)
                        break
                    if any(
                        (node := nodes.get(i)) is not None and "e" not in node
                        for i in ids[start : start + _SLICE]
                    ) or any(
                        "r" not in edge
                        for source in sources[start : start + _SLICE]
                        for keydict in succ.get(source, _NONE).values()
                        for edge in keydict.values()
                    ):
                        complete = False
                        break
                if self._stop.wait(_IDLE_PAUSE):
                    return False
            if complete:
                with store._lock:
                    if store._tenants.get(tenant) is data:
                        # Nodes and edges made since were written with their models.
                        data.fill = None
                        data.near = None
            whole = whole and complete
        return whole


_NONE: dict[str, Any] = {}


def install(decoded: list[tuple[Any, int, Any]], key: str) -> int:
    """Put decoded models into their node (or edge) dicts; how many were put (lock held).

    Only where the dict still has the row the model was read from and no model yet: a
    write in between left the model it wrote (newer than the row read), which wins.
    """
    put = 0
    for slot, rid, model in decoded:
        if getattr(slot, "rid", None) == rid and key not in slot:
            slot[key] = model
            put += 1
    return put


class _promoted:
    """Decode with the collector paused; what survives young goes to the oldest generation.

    The models are live data: left to the collector, the millions of them would trigger
    full collections of a growing heap (a second or more each at a million relationships,
    in whichever thread allocates next) while the program runs. So when a young
    collection is due, it is run here (the program's young garbage is collected as
    usual) and the survivors are moved to the oldest generation without counting towards
    a full collection, as a load does. Skipped when the program froze objects of its own
    or paused the collector itself.
    """

    def __enter__(self) -> None:
        self.paused = gc.isenabled()
        if self.paused:
            gc.disable()

    def __exit__(self, *exc: object) -> None:
        if not self.paused:
            return
        if gc.get_count()[0] >= gc.get_threshold()[0] and not gc.get_freeze_count():
            # Young garbage (the program's too) is collected first; what survives is
            # moved to the oldest generation without counting towards a full collection.
            gc.collect(0)
            gc.freeze()
            gc.unfreeze()
        gc.enable()
