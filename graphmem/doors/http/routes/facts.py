"""Governed facts: learn, relate, recall, forget, review, roll back, audit."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

from fastapi import APIRouter, Query, Request

from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    FactId,
    Limit,
    Mem,
    Route,
    check_text,
    limits_of,
    printable_query,
    scan,
    write,
)
from graphmem.doors.http.state import state_of
from graphmem.policy.governance import Fact

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.post("/facts", tags=["facts"], response_model=s.LearnOut)
async def learn(mem: Mem, request: Request, body: s.LearnRequest) -> s.LearnOut:
    """Write one fact through the governance rules (trust, PII, conflicts, audit)."""
    limits = limits_of(request)
    for name in ("subject", "relation", "value"):
        check_text(limits, name, getattr(body, name))
    facts = state_of(request).facts(mem, body.actor, body.session)
    result = await write(
        facts.learn,
        body.subject,
        body.relation,
        body.value,
        source_type=body.source_type,
        memory_type=body.memory_type,
        scope=body.scope,
        category=body.category,
    )
    return s.LearnOut.of(result)


@router.post("/facts/relate", tags=["facts"], response_model=s.LearnOut)
async def relate(mem: Mem, request: Request, body: s.RelateRequest) -> s.LearnOut:
    """Write one relationship through the governance rules: an edge once believed.

    The governed twin of ``POST /relationships``: trust, personal data, poisoning,
    consolidation and the audit trail apply; the edge carries the fact's provenance.
    """
    facts = state_of(request).facts(mem, body.actor, body.session)
    result = await write(
        facts.relate,
        body.source_id,
        body.type,
        body.target_id,
        source_type=body.source_type,
        memory_type=body.memory_type,
        category=body.category,
    )
    return s.LearnOut.of(result)


@router.get("/facts", tags=["facts"], response_model=s.FactList)
async def facts(
    mem: Mem,
    request: Request,
    actor: Annotated[str, printable_query()],
    session: Annotated[str | None, printable_query()] = None,
    subject: Annotated[str | None, Query(max_length=10_000)] = None,
    relation: Annotated[str | None, Query(max_length=10_000)] = None,
    as_of: datetime | None = None,
    include_pending: bool = False,
    include_all: bool = False,
) -> s.FactList:
    """The facts visible to ``actor`` (and ``session``): believed now, or at ``as_of``."""
    found = await scan(
        state_of(request).facts(mem, actor, session).facts,
        subject=subject,
        relation=relation,
        as_of=as_of,
        include_pending=include_pending,
        include_all=include_all,
    )
    return s.FactList(facts=found)


@router.post("/facts/recall", tags=["facts"], response_model=s.RecallOut)
async def recall(mem: Mem, request: Request, body: s.RecallRequest) -> s.RecallOut:
    """The visible current facts that best answer a query, within ``max_tokens``."""
    check_text(limits_of(request), "query", body.query)
    found = await scan(
        state_of(request).facts(mem, body.actor, body.session).recall,
        body.query,
        max_tokens=body.max_tokens,
        limit=body.limit,
        memory_types=body.memory_types,
    )
    return s.RecallOut(facts=found)


@router.get("/facts/audit", tags=["facts"], response_model=s.AuditLog)
async def audit_log(mem: Mem, request: Request, limit: Limit = None) -> s.AuditLog:
    """The tenant's audit trail, oldest first (the newest ``limit`` entries when given)."""
    reader = state_of(request).facts(mem, "audit-reader", None)
    return s.AuditLog(entries=await scan(reader.audit_log, limit=limit))


@router.post("/facts/rollback", tags=["facts"], response_model=s.RollbackOut)
async def rollback(mem: Mem, request: Request, body: s.RollbackRequest) -> s.RollbackOut:
    """Undo every audited change after an audit entry, newest first."""
    facts = state_of(request).facts(mem, body.actor, body.session)
    return s.RollbackOut(undone=await write(facts.rollback_to, body.entry_id))


def _fact_action(name: str, doc: str) -> None:
    async def action(mem: Mem, request: Request, fact_id: FactId, body: s.FactActor) -> Fact:
        facts = state_of(request).facts(mem, body.actor, body.session)
        result: Fact = await write(getattr(facts, name), fact_id)
        return result

    action.__name__ = f"{name}_fact"
    action.__doc__ = doc
    router.post(f"/facts/{{fact_id}}/{name}", tags=["facts"], response_model=Fact)(action)


_fact_action("forget", "Stop believing a fact from now on (kept for as_of reads; audited).")
_fact_action("approve", "Approve a fact waiting for review: it becomes active.")
_fact_action("reject", "Reject a fact waiting for review: kept as rejected, never served.")
