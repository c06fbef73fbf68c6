"""The tenant as JSON Lines: export it, import it (all or nothing)."""

from __future__ import annotations

import tempfile
from collections.abc import AsyncIterator
from typing import Any

from fastapi import APIRouter, Request
from starlette.responses import StreamingResponse

from graphmem.core.errors import InvalidInput
from graphmem.doors import schemas as s
from graphmem.doors.http.document import ERRORS
from graphmem.doors.http.plumbing import API_PREFIX, Mem, Route, scan, write
from graphmem.exchange import jsonl
from graphmem.memory import Memory

router = APIRouter(prefix=API_PREFIX, responses=ERRORS, route_class=Route)


@router.get(
    "/export",
    name="export_jsonl",
    tags=["tenant"],
    response_class=StreamingResponse,
    responses={
        200: {
            "description": "Everything the tenant holds, as JSON Lines (docs/data-model.md).",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
)
async def export(mem: Mem) -> StreamingResponse:
    """Stream everything the tenant holds as JSON Lines (header first)."""
    dump = await scan(mem.dump)

    async def lines() -> AsyncIterator[bytes]:
        batch: list[str] = []
        for line in jsonl.lines(dump, tenant=mem.tenant):
            batch.append(line)
            if len(batch) >= 512:
                yield "".join(batch).encode("utf-8")
                batch = []
        if batch:
            yield "".join(batch).encode("utf-8")

    return StreamingResponse(lines(), media_type="application/x-ndjson")


@router.post(
    "/import",
    name="import_jsonl",
    tags=["tenant"],
    response_model=s.ImportReport,
    openapi_extra={
        "requestBody": {
            "required": True,
            "description": "JSON Lines made by GET /v1/export (or `graphmem export`).",
            "content": {"application/x-ndjson": {"schema": {"type": "string"}}},
        }
    },
)
async def import_(mem: Mem, request: Request) -> s.ImportReport:
    """Load JSON Lines into the tenant: all of it, or nothing if any line is bad."""
    with tempfile.SpooledTemporaryFile(max_size=8 * 1024 * 1024, mode="w+b") as spool:
        async for chunk in request.stream():
            spool.write(chunk)
        spool.seek(0)
        dump = await write(_import, mem, spool)
    return s.ImportReport(
        entities=len(dump.entities),
        relationships=len(dump.relationships),
        turns=len(dump.turns),
        conversations=len({t.session_id for t in dump.turns} | set(dump.heads)),
        records=len(dump.records),
        chunks=len(dump.chunks),
        mentions=len(dump.mentions),
    )


def _import(mem: Memory, spool: Any) -> Any:
    import io

    text = io.TextIOWrapper(spool, encoding="utf-8", errors="strict", newline=None)
    try:
        return mem.import_jsonl(text)
    except UnicodeDecodeError as exc:
        raise InvalidInput(f"the body is not UTF-8 text ({exc.reason})") from exc
    finally:
        text.detach()
