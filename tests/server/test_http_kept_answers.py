"""The kept snapshot answers of a live server follow every write (HTTP, MCP, imports,
governance) and the clock: the fast route always answers what the framework answers."""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the server extra is not installed")

import httpx  # noqa: E402
from server_support import graphmem_serve  # noqa: E402
from test_mcp_world import call  # noqa: E402
from test_serve_mcp import _mcp_client  # noqa: E402

from graphmem.doors.http.keys import add_key  # noqa: E402


def _facts(snapshot: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(r["source_id"], r["type"], r["target_id"]) for r in snapshot["relationships"]}


def test_kept_snapshots_follow_every_door_and_the_clock(tmp_path: Path) -> None:
    keys_file = tmp_path / "keys.toml"
    keys = {t: add_key(keys_file, tenant=t, name=t) for t in ("alpha", "beta")}
    with graphmem_serve(
        "--store",
        "memory://",
        "--keys",
        str(keys_file),
        "--embedder",
        "hashing",
        "--mcp",
        log=tmp_path / "serve.log",
    ) as served:
        alpha, beta = (
            httpx.Client(
                base_url=served.url, headers={"Authorization": f"Bearer {keys[t]}"}, timeout=60
            )
            for t in ("alpha", "beta")
        )

        def post(client: httpx.Client, path: str, **body: Any) -> Any:
            answer = client.post(path, json=body)
            assert answer.status_code == 200, answer.text
            return answer.json()

        def snapshot(npc: str = "mira") -> dict[str, Any]:
            """The fast route's answer, twice alike, and the framework's (never kept)."""
            fast, again = (alpha.get(f"/v1/npcs/{npc}/snapshot") for _ in range(2))
            framework = alpha.get(f"/v1/npcs/{npc}/snapshot", params={"via": "framework"})
            assert fast.status_code == 200, fast.text
            assert fast.content == again.content
            assert fast.json() == framework.json()
            prompt = alpha.get(f"/v1/npcs/{npc}/prompt", params={"max_tokens": "300"})
            slow = alpha.get(f"/v1/npcs/{npc}/prompt", params={"max_tokens": "0300"})
            assert prompt.json() == slow.json()
            found: dict[str, Any] = fast.json()
            return found

        with alpha, beta:
            people = [
                {"id": "mira", "type": "npc", "name": "Mira"},
                {"id": "tomas", "type": "npc", "name": "Tomas"},
                {"id": "forge", "type": "location", "name": "the Old Forge"},
            ]
            post(alpha, "/v1/entities", entities=people)
            assert _facts(snapshot()) == set()
            # A kept answer is served to its tenant's key only
            path = f"{served.url}/v1/npcs/mira/snapshot"
            assert httpx.get(path).status_code == 401
            assert httpx.get(path, headers={"Authorization": "Bearer gmk_nope"}).status_code == 401
            assert beta.get("/v1/npcs/mira/snapshot").status_code == 404
            # HTTP: relate, rename a neighbour, invalidate, delete
            trusts = {"source_id": "tomas", "target_id": "mira", "type": "trusts"}
            post(alpha, "/v1/relationships", relationships=[trusts])
            assert _facts(snapshot()) == {("tomas", "trusts", "mira")}
            post(alpha, "/v1/entities", entities=[{**people[1], "name": "Tomas Reed"}])
            assert snapshot()["related_entities"][0]["name"] == "Tomas Reed"
            post(alpha, "/v1/relationships/invalidate", **trusts)
            assert _facts(snapshot()) == set()
            # MCP, mounted in the same process
            asyncio.run(_relate_over_mcp(served.url, keys["alpha"]))
            assert _facts(snapshot()) == {("mira", "owns", "forge")}
            post(
                alpha, "/v1/relationships/delete", source_id="mira", target_id="forge", type="owns"
            )
            assert _facts(snapshot()) == set()
            # Governed facts: learn (an edge once believed), forget, roll back
            learned = post(
                alpha,
                "/v1/facts",
                actor="gm",
                subject="Mira",
                relation="works_at",
                value="the Old Forge",
                scope="workspace",
            )
            assert _facts(snapshot()) == {("mira", "works_at", "forge")}
            post(alpha, f"/v1/facts/{learned['fact']['id']}/forget", actor="gm")
            assert _facts(snapshot()) == set()
            post(alpha, "/v1/facts/rollback", actor="gm", entry_id=learned["audit_id"])
            assert _facts(snapshot()) == {("mira", "works_at", "forge")}
            # An import: another tenant's export
            post(beta, "/v1/entities", entities=people[:2])
            post(beta, "/v1/relationships", relationships=[{**trusts, "type": "sings_for"}])
            exported = beta.get("/v1/export")
            imported = alpha.post(
                "/v1/import",
                content=exported.content,
                headers={"Content-Type": "application/x-ndjson"},
            )
            assert imported.status_code == 200, imported.text
            assert ("tomas", "sings_for", "mira") in _facts(snapshot())
            # The clock: a fact that begins, and one that ends, a moment from now
            soon = datetime.now(UTC) + timedelta(seconds=1)
            post(
                alpha,
                "/v1/relationships",
                relationships=[
                    {
                        "source_id": "mira",
                        "target_id": "tomas",
                        "type": "owes",
                        "valid_at": f"{soon}",
                    },
                    {**trusts, "type": "sings_for", "invalid_at": f"{soon}"},
                ],
            )
            before = _facts(snapshot())
            assert ("mira", "owes", "tomas") not in before
            assert ("tomas", "sings_for", "mira") in before
            time.sleep(max(0.0, (soon - datetime.now(UTC)).total_seconds()) + 0.1)
            after = _facts(snapshot())
            assert ("mira", "owes", "tomas") in after
            assert ("tomas", "sings_for", "mira") not in after
            # Deleting the NPC: a kept answer is not served for it
            assert alpha.delete("/v1/entities/mira").status_code == 200
            assert alpha.get("/v1/npcs/mira/snapshot").status_code == 404


async def _relate_over_mcp(url: str, key: str) -> None:
    async with _mcp_client(url, key) as client:
        await call(
            client,
            "upsert_relationships",
            relationships=[{"source": "Mira", "type": "owns", "target": "the old forge"}],
        )
