"""Retrieval: documents in, GraphRAG context and graph answers out, with provenance."""

from __future__ import annotations

from fastapi import APIRouter, Request

from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import (
    API_PREFIX,
    Mem,
    Route,
    check_rows,
    check_text,
    limits_of,
    scan,
    write,
)

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.post("/documents", tags=["retrieval"], response_model=s.IngestOut)
async def add_documents(mem: Mem, request: Request, body: s.DocumentBatch) -> s.IngestOut:
    """Chunk documents, link the chunks to the entities they name, embed them."""
    limits = limits_of(request)
    check_rows(limits, "documents", body.documents)
    for doc in body.documents:
        check_text(limits, "a document's text", doc.text)
    report = await write(
        mem.add_documents,
        body.documents,
        chunk_tokens=body.chunk_tokens,
        overlap=body.overlap,
        embed=body.embed,
        nested_mentions=body.nested_mentions,
        title_entities=body.title_entities,
    )
    return s.IngestOut(
        documents=report.documents,
        chunk_ids=list(report.chunk_ids),
        mentions=report.mentions,
        entities=report.entities,
        relationships=report.relationships,
        extractor=report.extractor,
        notes=list(report.notes),
    )


@router.post("/index/entities", tags=["retrieval"], response_model=s.Indexed)
async def index_entities(mem: Mem, request: Request, body: s.IndexEntitiesRequest) -> s.Indexed:
    """Embed entities (name, aliases, description): those named, or every one."""
    check_rows(limits_of(request), "ids", body.ids)
    return s.Indexed(indexed=await write(mem.index_entities, body.ids))


@router.post("/index/turns", tags=["retrieval"], response_model=s.Indexed)
async def index_turns(mem: Mem, body: s.IndexTurnsRequest) -> s.Indexed:
    """Link turns to the entities they name, and embed them: one session or all."""
    return s.Indexed(indexed=await write(mem.index_turns, body.session_id, embed=body.embed))


@router.post("/retrieve", tags=["retrieval"], response_model=s.RetrieveOut)
async def retrieve(mem: Mem, request: Request, body: s.RetrieveRequest) -> s.RetrieveOut:
    """What the memory knows that helps answer a query, each result with its provenance."""
    check_text(limits_of(request), "query", body.query)
    results = await scan(
        mem.retrieve,
        body.query,
        k=body.k,
        hops=body.hops,
        graph_scope=body.graph_scope,
        kinds=body.kinds,
        rel_types=body.rel_types,
        preset=body.preset,
    )
    context = mem.render_context(results, body.max_tokens) if body.max_tokens else None
    return s.RetrieveOut(results=results, context=context)


@router.post("/ask", tags=["retrieval"], response_model=s.AskOut)
async def ask(mem: Mem, request: Request, body: s.AskRequest) -> s.AskOut:
    """Answer a question about the entity graph: entities at the end of a typed walk.

    Each answer carries the relation path and one chain of facts from the entity the
    question names to it, each fact with its own provenance.
    """
    check_text(limits_of(request), "question", body.question)
    answers = await scan(
        mem.ask, body.question, k=body.k, max_hops=body.max_hops, semantic=body.semantic
    )
    return s.AskOut.of(answers)
