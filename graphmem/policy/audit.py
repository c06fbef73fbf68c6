"""Tamper-evident governance records: signatures, versions and the audit hash chain.

Governed facts (records of kind ``fact``), their audit entries (``audit``) and the
audit log's head (``audit_head``, one record per tenant) are written only through
:meth:`AuditChain.commit`, which makes every change of governance one atomic write: the
facts it writes or deletes, its audit entry and the new head together, or nothing
(:meth:`~graphmem.GraphStore.write_records`; with the graph edges that show workspace
facts, :meth:`~graphmem.GraphStore.write_changes`). (A store that cannot write several
kinds at once raises ``UnsupportedOperation``; the chain then writes facts and their
edges first, the entry and the head last, so a crash in between leaves a fact no entry
accounts for, and :meth:`AuditChain.verify` reports it.)

What makes the records tamper-evident:

- **Everything a record holds is covered.** A record's *body* is the canonical JSON of
  its tenant, kind, id, ``created_at`` (UTC, microseconds) and ``data`` (without the
  signature). Its *digest* is the SHA-256 of the body; with a signing key its
  ``data["signature"]`` is the HMAC-SHA256 of the body. Editing, re-dating, moving a
  record to another id, kind or tenant all break it. (``updated_at`` is the store's own
  bookkeeping, set by the store on every replace; governance never reads it.)
- **Facts carry a version** (``data["version"]``: 1, 2, ... one per write of that fact).
- **The audit log is a hash chain.** Entry ``n`` (``data["seq"]``) names its predecessor
  and signs its digest (``data["prev"] = {"id", "digest"}``), and lists what it did to
  facts: ``writes`` (``{"id", "version", "digest"}`` of each fact record it wrote) and
  ``deleted`` (fact ids). A purge that removes audit entries keeps a tombstone of each
  (``purged``: its seq, id, digest, writes and deletes, not its content), so the chain
  still closes over the gap.
- **The head is signed**: ``{"seq", "entry_id", "digest", "at"}`` of the newest entry.

:meth:`AuditChain.verify` then walks the whole log and names every record that is out
of place: a record whose signature fails (altered, re-dated, replayed under another id
or from another tenant), a missing entry (deleted: named by the id its successor or the
head gives), an entry that does not follow its predecessor (reordered, replayed, forked),
two entries with one seq, a purged entry written back, a head that is missing or does
not point at the last entry, and every fact whose stored version is not the one the log
says was written last (an older signed version written back, a fact deleted or added
outside governance).
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any
from weakref import WeakKeyDictionary

from graphmem.core.errors import (
    AuditChainBroken,
    NotFound,
    SignatureMismatch,
    UnsupportedOperation,
)
from graphmem.core.models import Record, new_id, utcnow
from graphmem.core.store import ChangeSet, GraphStore

__all__ = [
    "AUDIT_HEAD_KIND",
    "AUDIT_KIND",
    "FACT_KIND",
    "HEAD_ID",
    "AuditChain",
    "AuditHead",
    "FactWrite",
    "canonical_json",
]

FACT_KIND = "fact"
AUDIT_KIND = "audit"
AUDIT_HEAD_KIND = "audit_head"
HEAD_ID = "head"
_log = logging.getLogger(__name__)
# What this process found broken, by store, then (tenant, signing key's fingerprint): the
# chain's own key holder stops writing; a check made with another key (a misconfigured
# reader) blocks only writes with that key. Nothing is written when a check fails (a
# failing call changes nothing), so a new process learns it again from its first check.
_broken: WeakKeyDictionary[Any, dict[tuple[str, str], dict[str, Any]]] = WeakKeyDictionary()
_broken_fallback: dict[int, dict[tuple[str, str], dict[str, Any]]] = {}
_broken_guard = threading.Lock()


def _broken_of(store: Any) -> dict[tuple[str, str], dict[str, Any]]:
    with _broken_guard:
        try:
            return _broken.setdefault(store, {})
        except TypeError:  # not weakly referenceable: by object id
            return _broken_fallback.setdefault(id(store), {})


def canonical_json(value: Any) -> str:
    """JSON with sorted keys and no spaces: one text per value, for hashing and signing.

    >>> canonical_json({"b": 1, "a": ["é", None]})
    '{"a":["é",null],"b":1}'
    """
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def _utc(value: datetime) -> str:
    return value.astimezone(UTC).isoformat(timespec="microseconds")


@dataclass(frozen=True)
class AuditHead:
    """Where the audit log ends: keep one to check later that the log was not rewritten.

    Pass it to :meth:`graphmem.policy.FactMemory.verify` as ``anchor``: verification then
    also fails if the entry it names is gone or changed (the log was truncated and its
    head replayed, or rewritten before that point).
    """

    seq: int
    entry_id: str
    digest: str
    at: datetime


@dataclass(frozen=True)
class FactWrite:
    """One fact record to write in a commit: its id, data and the ``created_at`` it keeps.

    ``created_at`` must be the record's stored one when it exists (stores keep it on
    replace, and it is signed); ``version`` is set by the commit.
    """

    id: str
    data: Mapping[str, Any]
    created_at: datetime


@dataclass(frozen=True)
class _Link:
    """One position of the chain, from a stored entry or a purge tombstone."""

    id: str
    digest: str
    writes: tuple[Mapping[str, Any], ...]
    deleted: tuple[str, ...]
    tombstone: bool


class AuditChain:
    """Signs, digests, commits and verifies one tenant's governance records.

    Args:
        store: The store.
        tenant: The tenant (part of every signed body).
        key: The HMAC key, or None (records are then digested and chained, not signed).
    """

    def __init__(self, store: GraphStore, tenant: str, key: bytes | None) -> None:
        self._store = store
        self._tenant = tenant
        self._key = key

    # ------------------------------------------------------------------ records

    def _body(
        self, kind: str, record_id: str, created_at: datetime, data: Mapping[str, Any]
    ) -> bytes:
        content = {k: v for k, v in data.items() if k != "signature"}
        return canonical_json(
            {
                "tenant": self._tenant,
                "kind": kind,
                "id": record_id,
                "created_at": _utc(created_at),
                "data": content,
            }
        ).encode("utf-8")

    def digest(self, record: Record) -> str:
        """SHA-256 of the record's body (hex)."""
        body = self._body(record.kind, record.id, record.created_at, record.data)
        return hashlib.sha256(body).hexdigest()

    def seal(
        self, kind: str, record_id: str, data: Mapping[str, Any], created_at: datetime
    ) -> Record:
        """The record to write: ``data`` (signed when there is a key), created at ``created_at``."""
        content = {k: v for k, v in data.items() if k != "signature"}
        if self._key is not None:
            body = self._body(kind, record_id, created_at, content)
            content["signature"] = hmac.new(self._key, body, hashlib.sha256).hexdigest()
        updated_at = max(created_at, utcnow())
        return Record(
            id=record_id, kind=kind, data=content, created_at=created_at, updated_at=updated_at
        )

    def unsigned(self, records: Sequence[Record]) -> list[str]:
        """Ids of the records whose signature does not verify (none without a key)."""
        if self._key is None:
            return []
        bad = []
        for record in records:
            signature = record.data.get("signature")
            body = self._body(record.kind, record.id, record.created_at, record.data)
            expected = hmac.new(self._key, body, hashlib.sha256).hexdigest()
            if not isinstance(signature, str) or not hmac.compare_digest(signature, expected):
                bad.append(record.id)
        return bad

    def check(self, records: Sequence[Record]) -> None:
        """Raise ``SignatureMismatch`` naming every record whose signature fails."""
        bad = self.unsigned(records)
        if bad:
            raise self._alarm(
                SignatureMismatch(
                    f"{len(bad)} record(s) do not verify against the signing key "
                    f"({', '.join(bad[:5])}{', ...' if len(bad) > 5 else ''}): altered, "
                    "re-dated, copied from another id or tenant, or signed with another key",
                    record_ids=tuple(bad),
                    reasons={record_id: "signature" for record_id in bad},
                )
            )

    # ------------------------------------------------------------------ failing closed

    @property
    def _slot(self) -> tuple[str, str]:
        key = "" if self._key is None else hashlib.sha256(self._key).hexdigest()
        return self._tenant, key

    def _alarm(self, found: SignatureMismatch) -> SignatureMismatch:
        """Remember that the chain was found broken; return ``found`` (to raise).

        From then on every governed write of the tenant with this key raises
        :class:`AuditChainBroken` in this process.
        """
        ids = [str(i) for i in getattr(found, "record_ids", ())][:100]
        alarm = {"found_at": _utc(utcnow()), "reason": str(found)[:2000], "record_ids": ids}
        _broken_of(self._store).setdefault(self._slot, alarm)
        _log.error("the audit chain of tenant %r was found broken: %s", self._tenant, found)
        return found

    def _refuse_if_broken(self) -> None:
        """Raise :class:`AuditChainBroken` once the chain was found broken."""
        alarm = _broken_of(self._store).get(self._slot)
        if alarm is None:
            return
        raise AuditChainBroken(
            f"governed writes are refused: the audit chain was found broken at "
            f"{alarm.get('found_at')} ({alarm.get('reason')}); restore the store from a "
            "backup",
            found_at=alarm.get("found_at"),
            reason=alarm.get("reason"),
            record_ids=tuple(alarm.get("record_ids") or ()),
            reasons={},
        )

    # ------------------------------------------------------------------ the head

    def _head_record(self) -> Record | None:
        try:
            return self._store.get_record(self._tenant, AUDIT_HEAD_KIND, HEAD_ID)
        except NotFound:
            return None

    def head(self) -> AuditHead | None:
        """The signed head of the log (checked), or None before the first entry."""
        record = self._head_record()
        if record is None:
            return None
        self.check([record])
        d = record.data
        return AuditHead(int(d["seq"]), d["entry_id"], d["digest"], datetime.fromisoformat(d["at"]))

    def _tail(self) -> tuple[int, dict[str, str] | None, datetime | None, datetime | None]:
        """``(last seq, prev link, last entry time, head created_at)`` to append after."""
        self._refuse_if_broken()
        record = self._head_record()
        if record is not None:
            self.check([record])  # never extend a chain from a forged head
            d = record.data
            link = {"id": d["entry_id"], "digest": d["digest"]}
            self._check_newest(link)
            return int(d["seq"]), link, datetime.fromisoformat(d["at"]), record.created_at
        latest = self._store.find_records(self._tenant, AUDIT_KIND, limit=1)
        if not latest:
            return 0, None, None, None
        if self._key is not None:
            # Entries but no head: it was deleted (with the newest entries, perhaps).
            # Appending would hide that, so signed governance fails closed.
            raise self._alarm(
                SignatureMismatch(
                    "the audit log has entries but no head: it was deleted; run verify() to "
                    "see what else is out of place",
                    record_ids=(HEAD_ID,),
                    reasons={HEAD_ID: "the audit head is missing"},
                )
            )
        entry = latest[0]  # unsigned governance: chain onto the newest entry
        link = {"id": entry.id, "digest": self.digest(entry)}
        return int(entry.data["seq"]), link, entry.created_at, None

    def _check_newest(self, link: Mapping[str, str]) -> None:
        """The entry the head names is there, unchanged (one read per governed write)."""
        try:
            newest = self._store.get_record(self._tenant, AUDIT_KIND, link["id"])
        except NotFound:
            newest = None
        if newest is None or self.digest(newest) != link["digest"]:
            self._alarm(
                SignatureMismatch(
                    f"the newest audit entry {link['id']} is "
                    f"{'gone' if newest is None else 'not what the head signed'}",
                    record_ids=(link["id"],),
                    reasons={link["id"]: "the head names it with another digest"},
                )
            )
            self._refuse_if_broken()

    # ------------------------------------------------------------------ writing

    def commit(
        self,
        entry: Mapping[str, Any],
        *,
        writes: Sequence[FactWrite] = (),
        deletes: Sequence[str] = (),
        purge_entries: Sequence[Record] = (),
        graph: ChangeSet | None = None,
    ) -> tuple[str, list[Record]]:
        """Write facts, delete facts and purged entries, append one entry: all or nothing.

        Args:
            entry: The audit entry's own fields (``action``, ``actor``, ...); ``seq``,
                ``prev``, ``writes``, ``deleted`` (and ``purged``) are added here.
            writes: Fact records to write; each gets the next version of its id.
            deletes: Fact ids to delete.
            purge_entries: Audit entries to delete; each leaves a tombstone in this entry.
            graph: Entity and relationship changes to make in the same write (the edges
                that show the facts, :mod:`graphmem.policy.fact_graph`).

        Returns:
            The new entry's id and the fact records as stored, in the order given.
        """
        seq, prev, last_at, head_created = self._tail()
        now = utcnow()
        if last_at is not None:
            now = max(now, last_at + timedelta(microseconds=1))
        facts = []
        for write in writes:
            version = int(write.data.get("version") or 0) + 1
            facts.append(
                self.seal(FACT_KIND, write.id, {**write.data, "version": version}, write.created_at)
            )
        data: dict[str, Any] = {
            **entry,
            "seq": seq + 1,
            "prev": prev,
            "writes": [
                {"id": r.id, "version": r.data["version"], "digest": self.digest(r)} for r in facts
            ],
            "deleted": list(deletes),
        }
        if purge_entries:
            data["purged"] = [self._tombstone(r) for r in purge_entries]
        entry_id = new_id()
        record = self.seal(AUDIT_KIND, entry_id, data, now)
        head = self.seal(
            AUDIT_HEAD_KIND,
            HEAD_ID,
            {"seq": seq + 1, "entry_id": entry_id, "digest": self.digest(record), "at": _utc(now)},
            head_created or now,
        )
        delete: dict[str, list[str]] = {}
        if deletes:
            delete[FACT_KIND] = list(deletes)
        if purge_entries:
            delete[AUDIT_KIND] = [r.id for r in purge_entries]
        stored = self._write([*facts, record, head], delete, graph or ChangeSet())
        return entry_id, stored[: len(facts)]

    def _tombstone(self, record: Record) -> dict[str, Any]:
        d = record.data
        return {
            "seq": int(d["seq"]),
            "id": record.id,
            "digest": self.digest(record),
            "writes": list(d.get("writes") or ()),
            "deleted": list(d.get("deleted") or ()),
        }

    def _write(
        self, put: list[Record], delete: dict[str, list[str]], graph: ChangeSet
    ) -> list[Record]:
        try:
            if graph.empty:
                return self._store.write_records(self._tenant, put, delete)
            changes = ChangeSet(
                records=put,
                delete_records=delete,
                entities=graph.entities,
                delete_entities=graph.delete_entities,
                relationships=graph.relationships,
                delete_relationships=graph.delete_relationships,
            )
            return list(self._store.write_changes(self._tenant, changes).records)
        except UnsupportedOperation:
            pass
        # No atomic write on this store: facts and their edges first, the entry and the
        # head last, so a crash leaves facts no entry accounts for, which verify() reports.
        by_kind: dict[str, list[Record]] = {}
        for record in put:
            by_kind.setdefault(record.kind, []).append(record)
        stored = self._store.put_records(self._tenant, FACT_KIND, by_kind.get(FACT_KIND, []))
        for source, target, type_ in graph.delete_relationships:
            self._store.delete_relationship(self._tenant, source, target, type_)
        if graph.delete_entities:
            self._store.delete_entities(self._tenant, graph.delete_entities)
        if graph.entities:
            self._store.upsert_entities(self._tenant, graph.entities)
        if graph.relationships:
            self._store.upsert_relationships(self._tenant, graph.relationships)
        for kind, ids in delete.items():
            self._store.delete_records(self._tenant, kind, ids)
        self._store.put_records(self._tenant, AUDIT_KIND, by_kind[AUDIT_KIND])
        self._store.put_records(self._tenant, AUDIT_HEAD_KIND, by_kind[AUDIT_HEAD_KIND])
        return stored

    # ------------------------------------------------------------------ verifying

    def verify(
        self,
        anchor: AuditHead | None = None,
        graph: Callable[[Sequence[Record]], Mapping[str, str]] | None = None,
    ) -> int:
        """Check every fact, entry and the head; return how many records were checked.

        ``graph(facts)`` names facts whose graph edge is out of step (fact id -> why);
        they are reported with the rest.

        Raises:
            SignatureMismatch: ``record_ids`` names every record out of place (see the
                module docstring), ``reasons`` says why for each.
        """
        facts = self._store.find_records(self._tenant, FACT_KIND, newest_first=False)
        entries = self._store.find_records(self._tenant, AUDIT_KIND, newest_first=False)
        heads = self._store.find_records(self._tenant, AUDIT_HEAD_KIND)
        bad: dict[str, str] = {}
        for record_id in self.unsigned([*facts, *entries, *heads]):
            bad.setdefault(
                record_id,
                "its signature does not verify: altered, re-dated, copied from another id "
                "or tenant, or signed with another key",
            )
        chain = self._links(entries, bad)
        self._check_chain(entries, chain, heads, bad)
        self._check_facts(facts, chain, bad)
        if graph is not None:
            for fact_id, why in graph([f for f in facts if f.id not in bad]).items():
                bad.setdefault(fact_id, why)
        if anchor is not None:
            link = chain.get(anchor.seq)
            if link is None or link.id != anchor.entry_id or link.digest != anchor.digest:
                bad.setdefault(
                    anchor.entry_id,
                    f"the anchored entry {anchor.seq} is gone or changed: the log was "
                    "truncated or rewritten",
                )
        if bad:
            ids = tuple(bad)
            named = "; ".join(f"{i}: {bad[i]}" for i in ids[:3])
            raise self._alarm(
                SignatureMismatch(
                    f"governance records do not verify ({len(ids)} out of place): {named}"
                    f"{'; ...' if len(ids) > 3 else ''}",
                    record_ids=ids,
                    reasons=dict(bad),
                )
            )
        return len(facts) + len(entries) + len(heads)

    def _links(self, entries: Sequence[Record], bad: dict[str, str]) -> dict[int, _Link]:
        """The chain by seq: stored entries and the tombstones purges left."""
        chain: dict[int, _Link] = {}
        tombstones: dict[int, _Link] = {}
        for entry in entries:
            for t in entry.data.get("purged") or ():
                tombstones[int(t["seq"])] = _Link(
                    t["id"], t["digest"], tuple(t["writes"]), tuple(t["deleted"]), True
                )
        for entry in sorted(entries, key=lambda r: (_seq(r), r.created_at, r.id)):
            seq = _seq(entry)
            if seq in tombstones and tombstones[seq].id == entry.id:
                bad.setdefault(entry.id, f"entry {seq} was purged and has been written back")
                continue
            if seq in chain or seq in tombstones:
                bad.setdefault(entry.id, f"a second entry {seq}: replayed or forked")
                continue
            d = entry.data
            chain[seq] = _Link(
                entry.id,
                self.digest(entry),
                tuple(d.get("writes") or ()),
                tuple(d.get("deleted") or ()),
                False,
            )
        return {**tombstones, **chain}

    def _check_chain(
        self,
        entries: Sequence[Record],
        chain: Mapping[int, _Link],
        heads: Sequence[Record],
        bad: dict[str, str],
    ) -> None:
        by_id = {e.id: e for e in entries}
        for extra in heads:
            if extra.id != HEAD_ID:
                bad.setdefault(extra.id, "a second audit head")
        head = next((h for h in heads if h.id == HEAD_ID), None)
        last = max(chain, default=0)
        if head is None:
            if entries:
                bad.setdefault(HEAD_ID, "the audit head is missing")
            top = last
        else:
            top = int(head.data.get("seq", 0))
            link = chain.get(top)
            if link is None:
                bad.setdefault(
                    str(head.data.get("entry_id")), f"entry {top}, the newest, is missing (deleted)"
                )
            elif link.id != head.data.get("entry_id") or link.digest != head.data.get("digest"):
                bad.setdefault(HEAD_ID, f"the head does not point at entry {top}")
            for seq in range(top + 1, last + 1):
                if seq in chain and not chain[seq].tombstone:
                    bad.setdefault(chain[seq].id, f"entry {seq} is after the head: replayed")
        for seq in range(1, top + 1):
            link = chain.get(seq)
            if link is None:
                after = chain.get(seq + 1)
                named = by_id.get(after.id) if after is not None else None
                prev = named.data.get("prev") if named is not None else None
                missing = prev.get("id") if isinstance(prev, Mapping) else None
                if missing is None and head is not None and seq == top:
                    missing = head.data.get("entry_id")
                bad.setdefault(str(missing or f"seq:{seq}"), f"entry {seq} is missing (deleted)")
                continue
            if link.tombstone:
                continue
            record = by_id[link.id]
            expected = None
            if seq > 1 and (before := chain.get(seq - 1)) is not None:
                expected = {"id": before.id, "digest": before.digest}
            if seq > 1 and expected is None:
                continue  # its predecessor is missing, and named as such already
            prev = record.data.get("prev")
            if (dict(prev) if isinstance(prev, Mapping) else prev) != expected:
                bad.setdefault(
                    record.id,
                    f"entry {seq} does not follow entry {seq - 1}: reordered, replayed, or an "
                    "earlier entry was changed",
                )

    def _check_facts(
        self, facts: Sequence[Record], chain: Mapping[int, _Link], bad: dict[str, str]
    ) -> None:
        expected: dict[str, Mapping[str, Any] | None] = {}
        for seq in sorted(chain):
            for write in chain[seq].writes:
                expected[write["id"]] = write
            for fact_id in chain[seq].deleted:
                expected[fact_id] = None
        stored = {f.id: f for f in facts}
        for fact_id in [*stored, *(i for i in expected if i not in stored)]:
            record = stored.get(fact_id)
            if fact_id not in expected:
                bad.setdefault(fact_id, "no audit entry wrote this fact")
            elif (want := expected[fact_id]) is None:
                if record is not None:
                    bad.setdefault(fact_id, "the audit log deleted this fact; it was written back")
            elif record is None:
                bad.setdefault(fact_id, f"version {want['version']} was deleted outside governance")
            elif self.digest(record) != want["digest"]:
                bad.setdefault(
                    fact_id,
                    f"stored version {record.data.get('version')} is not the audited version "
                    f"{want['version']}: an older version written back, or changed",
                )


def _seq(record: Record) -> int:
    value = record.data.get("seq")
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
