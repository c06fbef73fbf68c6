"""The inspector at /ui: its routes over HTTP, and the page driven in a real headless Chromium.

The page is TypeScript (``ui/``), built into ``graphmem/doors/http/ui_static/`` and shipped in the
wheel. The browser tests run Debian's chromium through playwright-core (Node; never a
downloaded browser) against a live server on the demo village, once through
``graphmem ui`` (no keys, loopback) and once through ``graphmem serve --keys``: search,
expand, the time slider, an NPC's false belief, a fork in the conversation tree, a recall
breakdown and the audit chain. A screenshot of each view goes to ``$GRAPHMEM_UI_SCREENSHOTS``
(default: a temporary folder).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import httpx
import pytest
from inspector_support import SIGNING_ENV, build_village, policy_file, seed
from server_support import Api, graphmem_serve, problem_of, wait_for_line

from graphmem.doors.http.keys import add_key

ROOT = Path(__file__).resolve().parents[2]
UI = ROOT / "ui"
STATIC = ROOT / "graphmem" / "doors" / "http" / "ui_static"
CHROMIUM = Path(os.environ.get("GRAPHMEM_CHROMIUM", "/usr/bin/chromium"))
SIGNING = {SIGNING_ENV: "inspector-test-signing-key"}


# --------------------------------------------------------------------------- the routes


@pytest.fixture(scope="module")
def world(alpha: httpx.Client) -> httpx.Client:
    """Alpha's world: Odile trusted Halden, then distrusts him; the ferry moves unseen."""

    def ok(response: httpx.Response) -> Any:
        assert response.status_code < 300, response.text
        return response.json()

    people = [
        {"id": i, "type": t, "name": n}
        for i, t, n in (
            ("odile", "npc", "Odile"),
            ("halden", "npc", "Halden"),
            ("kestrel", "player", "Kestrel"),
            ("heron", "item", "The Heron"),
            ("landing", "location", "The Landing"),
            ("ashgrove", "location", "Ashgrove"),
        )
    ]
    ok(alpha.post("/v1/entities", json={"entities": people}))
    start = datetime(2026, 1, 1)
    ok(
        alpha.post(
            "/v1/relationships",
            json={
                "relationships": [
                    {
                        "source_id": "odile",
                        "target_id": "halden",
                        "type": "trusts",
                        "valid_at": start.isoformat(),
                        "provenance": {"source": "stated", "confidence": 0.9},
                    },
                    {"source_id": "kestrel", "target_id": "odile", "type": "knows"},
                ]
            },
        )
    )
    change = start + timedelta(days=10)
    ok(
        alpha.post(
            "/v1/relationships/invalidate",
            json={
                "source_id": "odile",
                "target_id": "halden",
                "type": "trusts",
                "at": change.isoformat(),
            },
        )
    )
    ok(
        alpha.post(
            "/v1/relationships",
            json={
                "relationships": [
                    {
                        "source_id": "odile",
                        "target_id": "halden",
                        "type": "distrusts",
                        "valid_at": change.isoformat(),
                        "provenance": {"source": "stated", "confirmed": True},
                    }
                ]
            },
        )
    )
    heron = {"subject": "heron", "predicate": "located_in"}
    ok(
        alpha.post(
            "/v1/events",
            json={
                "type": "moored",
                "actor": "odile",
                "changes": [{**heron, "object": "landing"}],
                "present": ["odile", "kestrel"],
            },
        )
    )
    ok(
        alpha.post(
            "/v1/events",
            json={
                "type": "moved",
                "actor": "kestrel",
                "changes": [{**heron, "object": "ashgrove"}],
                "present": ["kestrel"],
            },
        )
    )
    return alpha


def _keys(body: dict[str, Any]) -> set[tuple[str, str, str]]:
    return {(r["source_id"], r["type"], r["target_id"]) for r in body["relationships"]}


def test_a_neighbourhood_under_both_clocks(world: httpx.Client) -> None:
    now = world.get("/v1/entities/odile/neighborhood").json()
    assert _keys(now) == {("odile", "distrusts", "halden"), ("kestrel", "knows", "odile")}
    assert [e["id"] for e in now["entities"]][0] == "odile"
    fact = next(r for r in now["relationships"] if r["type"] == "distrusts")
    assert fact["provenance"]["confirmed"] is True and fact["valid_at"].startswith("2026-01-11")
    then = world.get(
        "/v1/entities/odile/neighborhood", params={"as_of": "2026-01-05T00:00:00Z"}
    ).json()
    assert ("odile", "trusts", "halden") in _keys(then)
    assert ("odile", "distrusts", "halden") not in _keys(then)
    ever = world.get("/v1/entities/odile/neighborhood", params={"include_invalid": True}).json()
    ended = next(r for r in ever["relationships"] if r["type"] == "trusts")
    assert ended["invalid_at"].startswith("2026-01-11")
    typed = world.get(
        "/v1/entities/odile/neighborhood",
        params=[("rel_types", "knows"), ("node_types", "player"), ("direction", "in")],
    ).json()
    assert _keys(typed) == {("kestrel", "knows", "odile")}
    problem_of(world.get("/v1/entities/nobody/neighborhood"), 404, "NotFound")
    problem_of(
        world.get("/v1/entities/odile/neighborhood", params={"rel_types": "not a name"}),
        422,
    )


def test_beliefs_beside_the_truth(world: httpx.Client) -> None:
    odile = world.get("/v1/npcs/odile/beliefs/truth").json()["checks"]
    [wrong] = odile
    assert wrong["belief"]["fact"]["object"] == "landing" and wrong["belief"]["how"] == "witnessed"
    assert (wrong["truth"], wrong["agrees"]) == (["ashgrove"], False)
    [right] = world.get("/v1/npcs/kestrel/beliefs/truth").json()["checks"]
    assert (right["truth"], right["agrees"]) == (["ashgrove"], True)
    moored = wrong["belief"]["valid_from"]
    [then] = world.get("/v1/npcs/odile/beliefs/truth", params={"as_of": moored}).json()["checks"]
    assert then["agrees"] is True
    problem_of(world.get("/v1/npcs/nobody/beliefs/truth"), 404, "NotFound")


def test_verifying_the_audit_chain_needs_a_signing_key(world: httpx.Client) -> None:
    body = problem_of(world.get("/v1/facts/verify"), 422, "InvalidInput")
    assert "signing_key" in body["detail"]


def test_the_page_is_served_without_a_key_and_the_data_is_not(api: Api) -> None:
    with api.client() as anonymous:
        moved = anonymous.get("/ui")
        assert moved.status_code == 307 and moved.headers["location"] == "/ui/"
        page = anonymous.get("/ui/")
        assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
        assert '<script src="app.js"' in page.text
        # Everything the page loads comes from this server: no CDN, works offline.
        assert "default-src 'self'" in page.headers["content-security-policy"]
        script = anonymous.get("/ui/app.js")
        assert script.status_code == 200 and "javascript" in script.headers["content-type"]
        assert "/v1/entities/{entity_id}/neighborhood" in script.text
        assert "http" not in page.text  # the page loads its own files only, by relative path
        assert anonymous.get("/ui/style.css").headers["content-type"].startswith("text/css")
        for missing in ("/ui/nothing.js", "/ui/../pyproject.toml", "/ui/%2e%2e/app.py"):
            assert anonymous.get(missing).status_code == 404, missing
        assert anonymous.get("/v1/entities/odile/neighborhood").status_code == 401
        assert anonymous.get("/v1/npcs/odile/beliefs/truth").status_code == 401
    with api.client("beta") as beta:  # a key opens its own tenant only
        problem_of(beta.get("/v1/entities/odile/neighborhood"), 404, "NotFound")


def test_the_page_says_how_to_build_it_when_it_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from fastapi.testclient import TestClient

    from graphmem.doors.http import inspector
    from graphmem.doors.http.app import ServerConfig, create_app

    monkeypatch.setattr(inspector, "_STATIC", "no_such_folder")
    with TestClient(create_app(ServerConfig(store="memory://", tenant="t"))) as client:
        page = client.get("/ui/")
        assert page.status_code == 503 and "make ui" in page.text


def test_an_agent_asks_the_same_over_mcp() -> None:
    """MCP's check_beliefs: Odile's false belief, named by her name, from an empty store."""
    pytest.importorskip("mcp", reason="the server extra is not installed")
    import asyncio

    from mcp import Client

    import graphmem
    from graphmem.doors.mcp.server import build_server
    from graphmem.tools.demos.village import build_demo_world

    heron = {"subject": "patient_heron", "predicate": "located_in"}
    with graphmem.open("memory://", tenant="village") as mem:
        build_demo_world(mem)
        mem.record_event(
            "moved", actor="kestrel", changes=[{**heron, "object": "ashgrove"}], present=["kestrel"]
        )
        mem.believe("odile", {**heron, "object": "ferry_landing"}, how="witnessed")
        server = build_server(mem)

        async def main() -> tuple[Any, Any]:
            async with Client(server) as client:
                found = await client.call_tool("check_beliefs", {"npc": "Odile Marrow"})
                missing = await client.call_tool("check_beliefs", {"npc": "nobody"})
                return found, missing

        found, missing = asyncio.run(main())
    assert not found.is_error, found.content
    [check] = found.structured_content["checks"]
    assert check["belief"]["fact"]["object"] == "ferry_landing"
    assert (check["truth"], check["agrees"]) == (["ashgrove"], False)
    assert missing.is_error and "NotFound" in missing.content[0].text


# --------------------------------------------------------------------------- the build


@pytest.fixture(scope="module")
def node_modules() -> Path:
    if shutil.which("node") is None or shutil.which("npm") is None:
        pytest.fail("Node 20+ and npm are needed: make test installs the inspector's packages")
    if not (UI / "node_modules" / ".package-lock.json").exists():
        pytest.fail("ui/node_modules is missing: run `make test` (npm ci in ui/)")
    return UI / "node_modules"


def test_the_committed_page_is_built_from_its_sources(node_modules: Path, tmp_path: Path) -> None:
    """Type-check the sources against docs/openapi.json, build them, compare with the wheel's.

    The built files are committed, so ``pip install -e .`` (and a wheel built without Node)
    serves the page; this fails when the sources or the API changed and ``make ui`` was
    not run.
    """
    npm = shutil.which("npm")
    assert npm is not None
    for script in ("generate", "typecheck"):
        done = subprocess.run(
            [npm, "run", script], cwd=UI, capture_output=True, text=True, timeout=600
        )
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    done = subprocess.run(
        ["node", "build.mjs", str(tmp_path)], cwd=UI, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    built = sorted(p.name for p in tmp_path.iterdir())
    assert (
        built == sorted(p.name for p in STATIC.iterdir()) == ["app.js", "index.html", "style.css"]
    )
    stale = [n for n in built if (tmp_path / n).read_bytes() != (STATIC / n).read_bytes()]
    assert not stale, f"graphmem/doors/http/ui_static is stale ({stale}): run `make ui` and commit"


# --------------------------------------------------------------------------- in Chromium


@pytest.fixture(scope="module")
def browser(node_modules: Path) -> Path:
    if not CHROMIUM.exists():
        pytest.skip(
            f"no Chromium at {CHROMIUM}: install Debian's (apt-get install -y chromium) "
            "or point GRAPHMEM_CHROMIUM at one"
        )
    if not (node_modules / "playwright-core").is_dir():
        pytest.fail("ui/node_modules/playwright-core is missing: run `make test` (npm ci in ui/)")
    return UI / "e2e" / "inspector.mjs"


def _screenshots(tmp_path: Path, name: str) -> Path:
    root = os.environ.get("GRAPHMEM_UI_SCREENSHOTS")
    folder = Path(root) / name if root else tmp_path / "screenshots"
    folder.mkdir(parents=True, exist_ok=True)
    return folder


def _drive(script: Path, url: str, shots: Path, key: str | None = None) -> dict[str, Any]:
    done = subprocess.run(
        ["node", str(script), url, str(shots), *([key] if key else [])],
        cwd=UI,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    seen: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    assert "error" not in seen, (seen.get("error"), seen.get("statusAtError"), seen["steps"])
    return seen


def _check(seen: dict[str, Any], shots: Path) -> None:
    """What a person would see in each view of the village."""
    assert seen["steps"][-1] == "done"
    assert seen["foreignRequests"] == []  # nothing but this server: works offline
    # The only errors in the console are answers the page expects: 404 (a session with no
    # recap) and, with keys on, the 401 before a key is entered. No script error.
    assert all(
        e.startswith("Failed to load resource") and ("404" in e or "401" in e)
        for e in seen["consoleErrors"]
    ), seen["consoleErrors"]
    assert seen["tenantLine"].startswith("30 entities")
    # World: search, expand by keyboard, by a neighbour's button and by a click on a node.
    assert seen["searchResults"] == ["Odile Marrow npc"]
    assert 10 < seen["nodesAfterOdile"] < seen["nodesAfterHalden"] <= seen["nodesAfterClick"]
    assert seen["clickedNode"] == "crooks_mill"
    tip = seen["tip"]
    assert tip.startswith("Odile Marrow —distrusts→ Halden Crook")
    assert "confirmed" in tip and "confidence 95%" in tip and "session session-3" in tip
    assert "holds in the world:" in tip and "recorded:" in tip
    assert any(f.startswith("Odile Marrow —distrusts→ Halden Crook") for f in seen["selectedFacts"])
    assert {"type-npc", "type-location", "rel-distrusts", "rel-trusts"} <= set(seen["filters"])
    # The time slider: back to before session 3, Odile trusted Halden and did not distrust him.
    assert seen["nowHasDistrust"] and not seen["nowHasTrust"]
    assert seen["stops"] > 3
    assert seen["pastHasTrust"] and not seen["pastHasDistrust"], seen.get("pastLabel")
    assert seen["backToNowHasDistrust"]
    # NPC: the false belief, how she came by it, who else holds it.
    [row] = seen["beliefRows"]
    assert row[:4] == [
        "✗ false",
        "The Patient Heron located in The Ferry Landing",
        "Ashgrove",
        "witnessed",
    ]
    [pip] = seen["pipBeliefRows"]
    assert pip[0] == "✗ false" and pip[3].startswith("told by Odile Marrow")
    assert [w.split(" — ")[0] for w in seen["whoKnows"]] == ["Odile Marrow", "Pip Nettle"]
    assert seen["promptHead"] == "Odile Marrow (npc)"
    assert seen["events"] == 2
    # Conversations: the demo chat forks once; one head, on the active branch.
    assert seen["forks"] == ["fork · 2 branches"]
    assert seen["heads"] == 1 and seen["branches"] == 2 and seen["activeBranches"] == 1
    assert sum("(active)" in label for label in seen["branchLabels"]) == 1
    # Recall: each signal's part, and the graph answer with its path of facts.
    assert {"fulltext_rank", "vector_rank"} <= set(seen["signals"])
    assert "relationship" in seen["recallKinds"]
    assert seen["graphAnswers"][0] == "Halden Crook"
    assert seen["graphPath"][0].startswith("Odile Marrow —distrusts→ Halden Crook")
    # Facts & audit: governed facts with trust and status; the chain verifies.
    assert seen["verification"].startswith("✓ The audit chain verifies")
    statuses = {(f[0], f[2]): f[4] for f in seen["governedFacts"]}
    assert statuses[("odile", "nettle tea")] == "active"
    assert statuses[("odile", "river ale")] == "pending_review"  # conflicts: held for review
    assert seen["auditEntries"] == 3
    for view in ("world", "world-past", "npc", "conversations", "recall", "facts"):
        assert (shots / f"{view}.png").stat().st_size > 10_000, view


@pytest.mark.slow
def test_the_inspector_with_keys_in_chromium(browser: Path, tmp_path: Path) -> None:
    village = build_village(tmp_path)
    keys_file = tmp_path / "keys.toml"
    key = add_key(keys_file, tenant="brindleford", name="inspector")
    other = add_key(keys_file, tenant="elsewhere", name="elsewhere")
    with graphmem_serve(
        "--store",
        f"file://{village}",
        "--keys",
        str(keys_file),
        "--embedder",
        "hashing",
        "--policy",
        str(policy_file(tmp_path)),
        log=tmp_path / "server.log",
        env=SIGNING,
    ) as served:
        with httpx.Client(
            base_url=served.url, headers={"Authorization": f"Bearer {key}"}, timeout=60
        ) as client:
            seed(client)
        shots = _screenshots(tmp_path, "keys")
        seen = _drive(browser, served.url, shots, key)
        assert "needs an API key" in seen["withoutKey"]
        assert seen["withKey"] == "Key accepted."
        _check(seen, shots)
        # The other key opens another tenant: the page would show an empty world.
        with httpx.Client(
            base_url=served.url, headers={"Authorization": f"Bearer {other}"}, timeout=60
        ) as elsewhere:
            assert elsewhere.get("/v1/counts").json()["entities"] == 0


@pytest.fixture
def graphmem_ui(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """``graphmem ui`` on the village, with $BROWSER a script that notes what it was asked."""
    village = build_village(tmp_path)
    asked = tmp_path / "browser-asked"
    opener = tmp_path / "browser.sh"
    opener.write_text(f'#!/bin/sh\nprintf %s "$1" > {asked}\n', encoding="utf-8")
    opener.chmod(0o755)
    env = {**os.environ, **SIGNING, "BROWSER": f"{opener} %s"}
    env.pop("DISPLAY", None)
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "graphmem",
            "ui",
            "--store",
            f"file://{village}",
            "--tenant",
            "brindleford",
            "--embedder",
            "hashing",
            "--policy",
            str(policy_file(tmp_path)),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
        env=env,
    )
    try:
        first = wait_for_line(process, "graphmem ui")
        assert "listening on http://127.0.0.1:" in first and "no keys" in first
        assert process.stdout is not None
        # Printed and flushed with the first: already read into the pipe's buffer.
        second = process.stdout.readline()
        assert second.startswith("graphmem ui: the inspector is at http://127.0.0.1:")
        url = second.rsplit(" ", 1)[1].strip()
        assert url.endswith("/ui/")
        deadline = time.monotonic() + 60
        while not asked.exists() and time.monotonic() < deadline:
            time.sleep(0.1)
        assert asked.read_text(encoding="utf-8") == url  # the browser was asked to open it
        yield url.removesuffix("/ui/"), tmp_path
    finally:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        if process.stdout is not None:
            process.stdout.close()


@pytest.mark.slow
def test_graphmem_ui_opens_the_inspector_on_a_local_store(
    browser: Path, graphmem_ui: tuple[str, Path]
) -> None:
    url, tmp_path = graphmem_ui
    with httpx.Client(base_url=url, timeout=60) as client:
        seed(client)
    shots = _screenshots(tmp_path, "local")
    _check(_drive(browser, url, shots), shots)


def test_graphmem_ui_refuses_an_address_other_machines_reach(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "graphmem",
            "ui",
            "--store",
            "memory://",
            "--tenant",
            "t",
            "--host",
            "0.0.0.0",
            "--embedder",
            "hashing",
            "--no-browser",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2, done.stdout + done.stderr
    assert "loopback" in done.stderr
