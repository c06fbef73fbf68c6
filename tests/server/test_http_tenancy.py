"""No route leaks across tenants: beta, holding alpha's ids, reads and changes nothing of alpha's.

Alpha's memory holds the word SECRET in every text (names, content, values), never in
an id; beta calls every route of the API with alpha's ids. No answer may hold SECRET,
and alpha's export is the same before and after. A test checks that the table below
covers every route of the OpenAPI document, so a new route cannot skip this.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from server_support import Api

MARK = "SECRET"
Call = Callable[[httpx.Client, dict[str, str]], httpx.Response]


@pytest.fixture(scope="module")
def alpha_ids(alpha: httpx.Client) -> dict[str, str]:
    """Alpha's memory, every kind of item, with SECRET in each text."""
    entities = [
        {"id": "spy", "type": "npc", "name": f"{MARK} Agent", "attributes": {"code": MARK}},
        {"id": "safehouse", "type": "location", "name": f"{MARK} House"},
    ]
    assert alpha.post("/v1/entities", json={"entities": entities}).status_code == 200
    rel = {
        "source_id": "spy",
        "target_id": "safehouse",
        "type": "hides_in",
        "attributes": {"note": MARK},
    }
    assert alpha.post("/v1/relationships", json={"relationships": [rel]}).status_code == 200
    first = alpha.post(
        "/v1/conversations/plot/turns",
        json={"role": "npc", "content": f"The {MARK} plan.", "turn_id": "t-1", "speaker": MARK},
    ).json()
    alpha.post("/v1/conversations/plot/turns", json={"role": "player", "content": f"{MARK} again"})
    alpha.post(
        "/v1/documents", json={"documents": [{"id": "dossier", "text": f"The {MARK} Agent hides."}]}
    )
    learned = alpha.post(
        "/v1/facts",
        json={
            "actor": "spy",
            "subject": f"{MARK}s",
            "relation": "kept_in",
            "value": "the vault",
            "scope": "workspace",
        },
    ).json()
    pending = alpha.post(
        "/v1/facts",
        json={
            "actor": "spy",
            "subject": "Vault",
            "relation": "code",
            "value": f"{MARK} 42",
            "source_type": "webhook",
            "scope": "workspace",
        },
    ).json()
    alpha.post("/v1/memory/spy/plot/turns", json={"role": "player", "content": f"{MARK} words"})
    # NPC minds: an event, beliefs (one told), a recap; SECRET in their texts and values.
    hides = {"subject": "spy", "predicate": "located_in", "object": "safehouse"}
    event = alpha.post(
        "/v1/events",
        json={
            "type": "hid",
            "actor": "spy",
            "place": "safehouse",
            "present": ["spy"],
            "changes": [hides],
            "summary": f"The {MARK} hiding",
            "session_id": "plot",
            "attributes": {"note": MARK},
        },
    )
    assert event.status_code == 200, event.text
    code = {"subject": "spy", "predicate": "code", "value": MARK}
    assert alpha.post("/v1/npcs/spy/beliefs", json={"fact": code}).status_code == 200
    recap = alpha.put("/v1/recaps/plot", json={"text": f"Previously: the {MARK}."})
    assert recap.status_code == 200
    audit = alpha.get("/v1/facts/audit").json()["entries"]
    return {
        "entity": "spy",
        "other": "safehouse",
        "session": "plot",
        "turn": first["id"],
        "fact": learned["fact"]["id"],
        "pending": pending["fact"]["id"],
        "audit": audit[0]["id"],
    }


def _export(client: httpx.Client) -> list[Any]:
    lines = client.get("/v1/export").text.splitlines()
    return sorted(json.dumps(json.loads(line), sort_keys=True) for line in lines[1:])


ROUTES: dict[tuple[str, str], Call] = {
    ("POST", "/v1/entities"): lambda c, i: c.post(
        "/v1/entities", json={"entities": [{"id": i["entity"], "type": "npc", "name": "B"}]}
    ),
    ("GET", "/v1/entities"): lambda c, i: c.get("/v1/entities"),
    ("POST", "/v1/entities/find"): lambda c, i: c.post("/v1/entities/find", json={}),
    ("POST", "/v1/entities/delete"): lambda c, i: c.post(
        "/v1/entities/delete", json={"ids": [i["entity"], i["other"]]}
    ),
    ("GET", "/v1/entities/{entity_id}"): lambda c, i: c.get(f"/v1/entities/{i['other']}"),
    ("PATCH", "/v1/entities/{entity_id}"): lambda c, i: c.patch(
        f"/v1/entities/{i['other']}", json={"name": "stolen"}
    ),
    ("DELETE", "/v1/entities/{entity_id}"): lambda c, i: c.delete(f"/v1/entities/{i['other']}"),
    ("GET", "/v1/counts"): lambda c, i: c.get("/v1/counts"),
    ("POST", "/v1/relationships"): lambda c, i: c.post(
        "/v1/relationships",
        json={"relationships": [{"source_id": i["entity"], "target_id": i["other"], "type": "x"}]},
    ),
    ("GET", "/v1/entities/{entity_id}/relationships"): lambda c, i: c.get(
        f"/v1/entities/{i['other']}/relationships", params={"direction": "both"}
    ),
    ("POST", "/v1/relationships/invalidate"): lambda c, i: c.post(
        "/v1/relationships/invalidate",
        json={"source_id": i["entity"], "target_id": i["other"], "type": "hides_in"},
    ),
    ("POST", "/v1/relationships/delete"): lambda c, i: c.post(
        "/v1/relationships/delete",
        json={"source_id": i["entity"], "target_id": i["other"], "type": "hides_in"},
    ),
    ("GET", "/v1/npcs/{npc_id}/snapshot"): lambda c, i: c.get(f"/v1/npcs/{i['other']}/snapshot"),
    ("GET", "/v1/npcs/{npc_id}/prompt"): lambda c, i: c.get(f"/v1/npcs/{i['other']}/prompt"),
    ("GET", "/v1/entities/{entity_id}/neighbors"): lambda c, i: c.get(
        f"/v1/entities/{i['other']}/neighbors"
    ),
    ("GET", "/v1/entities/{entity_id}/subgraph"): lambda c, i: c.get(
        f"/v1/entities/{i['other']}/subgraph"
    ),
    ("GET", "/v1/entities/{entity_id}/neighborhood"): lambda c, i: c.get(
        f"/v1/entities/{i['other']}/neighborhood"
    ),
    ("GET", "/v1/npcs/{npc_id}/beliefs/truth"): lambda c, i: c.get(
        f"/v1/npcs/{i['other']}/beliefs/truth"
    ),
    ("GET", "/v1/facts/verify"): lambda c, i: c.get("/v1/facts/verify"),
    ("GET", "/v1/path"): lambda c, i: c.get(
        "/v1/path", params={"source_id": i["entity"], "target_id": i["other"]}
    ),
    ("POST", "/v1/expand"): lambda c, i: c.post("/v1/expand", json={"seed_ids": [i["other"]]}),
    ("POST", "/v1/conversations/{session_id}/turns"): lambda c, i: c.post(
        f"/v1/conversations/{i['session']}/turns", json={"role": "player", "content": "b"}
    ),
    ("GET", "/v1/conversations/{session_id}/turns"): lambda c, i: c.get(
        f"/v1/conversations/{i['session']}/turns"
    ),
    ("POST", "/v1/conversations/{session_id}/turns/batch"): lambda c, i: c.post(
        f"/v1/conversations/{i['session']}/turns/batch",
        json={"turns": [{"role": "player", "content": "b"}]},
    ),
    ("GET", "/v1/conversations/{session_id}/history"): lambda c, i: c.get(
        f"/v1/conversations/{i['session']}/history"
    ),
    ("GET", "/v1/conversations/{session_id}/head"): lambda c, i: c.get(
        f"/v1/conversations/{i['session']}/head"
    ),
    ("POST", "/v1/conversations/{session_id}/fork"): lambda c, i: c.post(
        f"/v1/conversations/{i['session']}/fork", json={"turn": i["turn"]}
    ),
    ("GET", "/v1/conversations/{session_id}/branches"): lambda c, i: c.get(
        f"/v1/conversations/{i['session']}/branches"
    ),
    ("DELETE", "/v1/conversations/{session_id}/turns/{turn_id}"): lambda c, i: c.delete(
        f"/v1/conversations/{i['session']}/turns/{i['turn']}"
    ),
    ("DELETE", "/v1/conversations/{session_id}"): lambda c, i: c.delete(
        f"/v1/conversations/{i['session']}"
    ),
    ("GET", "/v1/sessions"): lambda c, i: c.get("/v1/sessions"),
    ("GET", "/v1/turns/search"): lambda c, i: c.get("/v1/turns/search", params={"text": MARK}),
    ("GET", "/v1/turns/recent"): lambda c, i: c.get(
        "/v1/turns/recent", params={"within_seconds": 3600}
    ),
    ("POST", "/v1/documents"): lambda c, i: c.post(
        "/v1/documents", json={"documents": [{"id": "dossier", "text": "beta text"}]}
    ),
    ("POST", "/v1/index/entities"): lambda c, i: c.post(
        "/v1/index/entities", json={"ids": [i["entity"]]}
    ),
    ("POST", "/v1/index/turns"): lambda c, i: c.post(
        "/v1/index/turns", json={"session_id": i["session"]}
    ),
    ("POST", "/v1/retrieve"): lambda c, i: c.post(
        "/v1/retrieve", json={"query": f"{MARK} agent plan", "max_tokens": 500}
    ),
    ("POST", "/v1/facts/relate"): lambda c, i: c.post(
        "/v1/facts/relate",
        json={"actor": "spy", "source_id": "spy", "type": "hides_in", "target_id": "safehouse"},
    ),
    ("POST", "/v1/ask"): lambda c, i: c.post(
        "/v1/ask", json={"question": f"where does the {MARK} Agent hide?", "semantic": False}
    ),
    # The same subject and relation as alpha's fact (keys are case-insensitive): beta's is
    # new, not a contradiction of alpha's.
    ("POST", "/v1/facts"): lambda c, i: c.post(
        "/v1/facts",
        json={
            "actor": "spy",
            "subject": "secrets",
            "relation": "kept_in",
            "value": "my house",
            "scope": "workspace",
        },
    ),
    ("GET", "/v1/facts"): lambda c, i: c.get(
        "/v1/facts", params={"actor": "spy", "include_all": True}
    ),
    ("POST", "/v1/facts/recall"): lambda c, i: c.post(
        "/v1/facts/recall", json={"actor": "spy", "query": "vault"}
    ),
    ("GET", "/v1/facts/audit"): lambda c, i: c.get("/v1/facts/audit"),
    ("POST", "/v1/facts/rollback"): lambda c, i: c.post(
        "/v1/facts/rollback", json={"actor": "spy", "entry_id": i["audit"]}
    ),
    ("POST", "/v1/facts/{fact_id}/forget"): lambda c, i: c.post(
        f"/v1/facts/{i['fact']}/forget", json={"actor": "spy"}
    ),
    ("POST", "/v1/facts/{fact_id}/approve"): lambda c, i: c.post(
        f"/v1/facts/{i['pending']}/approve", json={"actor": "spy"}
    ),
    ("POST", "/v1/facts/{fact_id}/reject"): lambda c, i: c.post(
        f"/v1/facts/{i['pending']}/reject", json={"actor": "spy"}
    ),
    ("POST", "/v1/memory/{user}/{session}/turns"): lambda c, i: c.post(
        "/v1/memory/spy/plot/turns", json={"role": "player", "content": "b"}
    ),
    ("GET", "/v1/memory/{user}/{session}/context"): lambda c, i: c.get(
        "/v1/memory/spy/plot/context"
    ),
    ("GET", "/v1/memory/{user}/{session}/snapshot"): lambda c, i: c.get(
        "/v1/memory/spy/plot/snapshot"
    ),
    ("PUT", "/v1/memory/{user}/{session}/snapshot"): lambda c, i: c.put(
        "/v1/memory/spy/plot/snapshot", json={"format": "graphmem.conversation_memory"}
    ),
    ("POST", "/v1/events"): lambda c, i: c.post(
        "/v1/events",
        json={
            "type": "moved",
            "present": [i["entity"]],
            "changes": [{"subject": i["entity"], "predicate": "located_in", "object": i["other"]}],
        },
    ),
    ("GET", "/v1/events"): lambda c, i: c.get("/v1/events", params={"about": i["entity"]}),
    ("POST", "/v1/places/{place_id}/observe"): lambda c, i: c.post(
        f"/v1/places/{i['other']}/observe", json={"present": [i["entity"]]}
    ),
    ("POST", "/v1/tell"): lambda c, i: c.post(
        "/v1/tell", json={"speaker": i["entity"], "listener": i["other"], "about": i["entity"]}
    ),
    ("POST", "/v1/announce"): lambda c, i: c.post(
        "/v1/announce",
        json={
            "speaker": i["entity"],
            "fact": {"subject": i["entity"], "predicate": "code", "value": "said"},
            "audience": [i["other"]],
        },
    ),
    ("POST", "/v1/npcs/{npc_id}/beliefs"): lambda c, i: c.post(
        f"/v1/npcs/{i['entity']}/beliefs",
        json={"fact": {"subject": i["entity"], "predicate": "code", "value": "guess"}},
    ),
    ("GET", "/v1/npcs/{npc_id}/beliefs"): lambda c, i: c.get(
        f"/v1/npcs/{i['entity']}/beliefs", params={"history": True}
    ),
    ("GET", "/v1/npcs/{npc_id}/belief"): lambda c, i: c.get(
        f"/v1/npcs/{i['entity']}/belief", params={"subject": i["entity"], "predicate": "code"}
    ),
    ("POST", "/v1/beliefs/who-knows"): lambda c, i: c.post(
        "/v1/beliefs/who-knows",
        json={"fact": {"subject": i["entity"], "predicate": "code", "value": MARK}},
    ),
    ("POST", "/v1/npcs/{npc_id}/recall"): lambda c, i: c.post(
        f"/v1/npcs/{i['entity']}/recall", json={"query": "code"}
    ),
    ("POST", "/v1/beliefs/forget"): lambda c, i: c.post("/v1/beliefs/forget", json={"below": 1.0}),
    ("GET", "/v1/npcs/{npc_id}/perspective"): lambda c, i: c.get(
        f"/v1/npcs/{i['entity']}/perspective"
    ),
    ("GET", "/v1/recaps"): lambda c, i: c.get("/v1/recaps"),
    ("GET", "/v1/recaps/{session_id}"): lambda c, i: c.get(f"/v1/recaps/{i['session']}"),
    ("PUT", "/v1/recaps/{session_id}"): lambda c, i: c.put(
        f"/v1/recaps/{i['session']}", json={"text": "beta's own"}
    ),
    ("GET", "/v1/recaps/{session_id}/draft"): lambda c, i: c.get(
        f"/v1/recaps/{i['session']}/draft"
    ),
    ("GET", "/v1/export"): lambda c, i: c.get("/v1/export"),
    ("POST", "/v1/import"): lambda c, i: c.post(
        "/v1/import",
        content=(
            '{"kind":"graphmem","version":1}\n'
            f'{{"kind":"entity","id":"{i["other"]}","type":"npc","name":"imported"}}\n'
        ).encode(),
    ),
}
PUBLIC = {("GET", "/healthz"), ("GET", "/readyz"), ("GET", "/metrics")}


def test_the_table_covers_every_route() -> None:
    document = json.loads(
        (Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text("utf-8")
    )
    routes = {(m.upper(), p) for p, ops in document["paths"].items() for m in ops}
    assert routes - PUBLIC == set(ROUTES), "add the new route to ROUTES"
    for (method, path), operation in (
        ((m.upper(), p), op) for p, ops in document["paths"].items() for m, op in ops.items()
    ):
        if (method, path) not in PUBLIC:
            assert operation.get("security") == [{"HTTPBearer": []}], (method, path)


def test_beta_reads_and_changes_nothing_of_alpha(
    api: Api, alpha: httpx.Client, beta: httpx.Client, alpha_ids: dict[str, str]
) -> None:
    before = _export(alpha)
    assert any(MARK in line for line in before)
    statuses: dict[tuple[str, str], int] = {}
    for route, call in ROUTES.items():
        response = call(beta, alpha_ids)
        statuses[route] = response.status_code
        assert response.status_code < 500, (route, response.text)
        assert MARK not in response.text, (route, response.text[:500])
    assert _export(alpha) == before
    learned = beta.get("/v1/facts", params={"actor": "spy"}).json()["facts"]
    assert [(f["subject"], f["status"]) for f in learned] == [("secrets", "active")]
    # Beta's reads of alpha's things find nothing there: each one is a 404 or empty.
    for route in [
        ("GET", "/v1/entities/{entity_id}"),
        ("GET", "/v1/npcs/{npc_id}/snapshot"),
        ("POST", "/v1/conversations/{session_id}/fork"),
        ("POST", "/v1/facts/{fact_id}/forget"),
        ("POST", "/v1/facts/rollback"),
        ("GET", "/v1/npcs/{npc_id}/beliefs"),
        ("GET", "/v1/npcs/{npc_id}/perspective"),
        ("GET", "/v1/recaps/{session_id}"),
    ]:
        assert statuses[route] == 404, route


def test_without_a_key_every_route_is_401(api: Api, alpha_ids: dict[str, str]) -> None:
    with api.client() as anonymous:
        for route, call in ROUTES.items():
            response = call(anonymous, alpha_ids)
            assert response.status_code == 401, (route, response.status_code, response.text)
            assert MARK not in response.text
