"""The HTTP API through a real uvicorn on loopback, with a real HTTP client: every route group."""

from __future__ import annotations

from urllib.parse import quote

import httpx
import pytest
from server_support import Api, problem_of

ODILE = "npc/odile é"  # a '/', a space and a non-ASCII letter: percent-encoded in paths


def _path(value: str) -> str:
    return quote(value, safe="")


@pytest.fixture(scope="module")
def world(alpha: httpx.Client) -> None:
    entities = [
        {
            "id": ODILE,
            "type": "npc",
            "name": "Odile Marrow",
            "attributes": {"occupation": "ferrywoman"},
        },
        {
            "id": "halden",
            "type": "npc",
            "name": "Halden Crook",
            "attributes": {"occupation": "miller"},
        },
        {"id": "mill", "type": "location", "name": "The Mill"},
        {"id": "river", "type": "location", "name": "The River"},
    ]
    assert alpha.post("/v1/entities", json={"entities": entities}).status_code == 200
    rels = [
        {
            "source_id": ODILE,
            "target_id": "halden",
            "type": "distrusts",
            "provenance": {"confidence": 0.8, "source": "inferred"},
        },
        {"source_id": "halden", "target_id": "mill", "type": "runs"},
        {"source_id": ODILE, "target_id": "river", "type": "works_on"},
    ]
    assert alpha.post("/v1/relationships", json={"relationships": rels}).status_code == 200


def test_healthz_needs_no_key(api: Api) -> None:
    with api.client() as anonymous:
        response = anonymous.get("/healthz")
    assert response.status_code == 200
    assert response.json()["status"] == "ok"


@pytest.mark.parametrize(
    "headers",
    [{}, {"Authorization": "Bearer gmk_not-a-key"}, {"Authorization": "Basic YTpi"}],
    ids=["missing", "unknown", "other scheme"],
)
@pytest.mark.parametrize("path", ["/v1/counts", "/v1/npcs/halden/snapshot"])
def test_a_missing_or_unknown_key_is_401(api: Api, headers: dict, path: str) -> None:
    with api.client() as anonymous:
        response = anonymous.get(path, headers=headers)
    problem_of(response, 401, "IdentityRequired")
    assert response.headers["www-authenticate"] == "Bearer"


def test_entities(alpha: httpx.Client, world: None) -> None:
    got = alpha.get(f"/v1/entities/{_path(ODILE)}").json()
    assert (got["id"], got["attributes"]) == (ODILE, {"occupation": "ferrywoman"})
    npcs = alpha.get("/v1/entities", params={"type": "npc"}).json()["entities"]
    assert sorted(e["id"] for e in npcs) == sorted(["halden", ODILE])
    found = alpha.post("/v1/entities/find", json={"attributes": {"occupation": "miller"}})
    assert [e["id"] for e in found.json()["entities"]] == ["halden"]
    patched = alpha.patch(
        "/v1/entities/halden", json={"attributes": {"mood": "sour"}, "remove_attributes": []}
    ).json()
    assert patched["attributes"] == {"occupation": "miller", "mood": "sour"}
    assert alpha.get("/v1/counts").json() == {"entities": 4, "relationships": 3, "turns": 0}
    problem_of(alpha.get("/v1/entities/nobody"), 404, "NotFound")
    assert alpha.post(
        "/v1/entities", json={"entities": [{"id": "tmp", "type": "item", "name": "T"}]}
    )
    assert alpha.delete("/v1/entities/tmp").json() == {"deleted": 1}
    assert alpha.post("/v1/entities/delete", json={"ids": ["tmp"]}).json() == {"deleted": 0}


def test_relationships_and_time(alpha: httpx.Client, world: None) -> None:
    bad = alpha.post(
        "/v1/relationships",
        json={"relationships": [{"source_id": "halden", "target_id": "ghost", "type": "fears"}]},
    )
    assert "ghost" in problem_of(bad, 422, "InvalidInput")["detail"]
    rel = alpha.post(
        "/v1/relationships",
        json={"relationships": [{"source_id": "halden", "target_id": "river", "type": "fears"}]},
    ).json()["relationships"][0]
    gone = alpha.post(
        "/v1/relationships/invalidate",
        json={"source_id": "halden", "target_id": "river", "type": "fears"},
    ).json()
    assert gone["invalid_at"] is not None
    now = alpha.get("/v1/entities/halden/relationships", params={"types": ["fears"]}).json()
    assert now["relationships"] == []
    then = alpha.get(
        "/v1/entities/halden/relationships",
        params={"types": ["fears"], "as_of": rel["created_at"]},
    ).json()["relationships"]
    assert [r["target_id"] for r in then] == ["river"]
    deleted = alpha.post(
        "/v1/relationships/delete",
        json={"source_id": "halden", "target_id": "river", "type": "fears"},
    )
    assert deleted.json() == {"deleted": True}


def test_graph_questions(alpha: httpx.Client, world: None) -> None:
    snap = alpha.get(f"/v1/npcs/{_path(ODILE)}/snapshot").json()
    assert snap["entity"]["name"] == "Odile Marrow"
    assert sorted(r["type"] for r in snap["relationships"]) == ["distrusts", "works_on"]
    prompt = alpha.get(f"/v1/npcs/{_path(ODILE)}/prompt", params={"max_tokens": 200}).json()
    assert prompt["prompt"].startswith("Odile Marrow (npc)\nOccupation: ferrywoman")
    assert prompt["token_estimate"] <= 200
    near = alpha.get(f"/v1/entities/{_path(ODILE)}/neighbors", params={"depth": 2}).json()
    assert [e["id"] for e in near["entities"]][:2] == ["halden", "river"]
    assert "mill" in [e["id"] for e in near["entities"]]
    sub = alpha.get(f"/v1/entities/{_path(ODILE)}/subgraph").json()
    assert sub["entities"][0]["id"] == ODILE
    path = alpha.get("/v1/path", params={"source_id": ODILE, "target_id": "mill"}).json()
    assert [e["id"] for e in path["path"]] == [ODILE, "halden", "mill"]
    grown = alpha.post("/v1/expand", json={"seed_ids": ["mill"], "depth": 1}).json()
    assert {e["id"] for e in grown["entities"]} == {"mill", "halden"}
    problem_of(alpha.get("/v1/npcs/nobody/snapshot"), 404, "NotFound")


def test_fast_snapshot_routes_answer_as_the_framework_does(
    alpha: httpx.Client, world: None
) -> None:
    # A query string the fast path does not take sends the request through FastAPI.
    for path in (f"/v1/npcs/{_path(ODILE)}/snapshot", "/v1/npcs/nobody/snapshot"):
        fast, framework = alpha.get(path), alpha.get(path, params={"via": "framework"})
        assert (fast.status_code, fast.json()) == (framework.status_code, framework.json())
        assert fast.headers["content-type"] == framework.headers["content-type"]
    fast = alpha.get(f"/v1/npcs/{_path(ODILE)}/prompt", params={"max_tokens": "12"})
    framework = alpha.get(f"/v1/npcs/{_path(ODILE)}/prompt", params={"max_tokens": "012"})
    assert fast.json() == framework.json() and fast.status_code == 200
    problem_of(alpha.get("/v1/npcs/halden/prompt", params={"max_tokens": "0"}), 422)


def test_conversations_fork_and_branches(alpha: httpx.Client) -> None:
    base = "/v1/conversations/ferry%2F1"
    ask = alpha.post(
        f"{base}/turns", json={"role": "player", "content": "Across?", "turn_id": "m1"}
    )
    offer = alpha.post(
        f"{base}/turns", json={"role": "npc", "content": "Two coppers.", "speaker": "Odile"}
    )
    assert offer.json()["parent_id"] == ask.json()["id"]
    assert alpha.get(f"{base}/head").json()["turn"]["id"] == offer.json()["id"]
    forked = alpha.post(f"{base}/fork", json={"turn": "m1"})  # the caller's own turn id
    assert forked.json()["id"] == ask.json()["id"]
    alpha.post(f"{base}/turns", json={"role": "npc", "content": "Not tonight."})
    history = alpha.get(f"{base}/history").json()["turns"]
    assert [t["content"] for t in history] == ["Across?", "Not tonight."]
    branches = alpha.get(f"{base}/branches").json()["branches"]
    assert [(b["length"], b["active"], b["fork_point"]["id"]) for b in branches] == [
        (2, False, ask.json()["id"]),
        (2, True, ask.json()["id"]),
    ]
    batch = alpha.post(
        f"{base}/turns/batch",
        json={
            "turns": [{"role": "player", "content": "Please?"}, {"role": "npc", "content": "No."}]
        },
    ).json()["turns"]
    assert batch[0]["parent_id"] == history[-1]["id"]
    assert len(alpha.get(f"{base}/turns").json()["turns"]) == 5
    assert alpha.delete(f"{base}/turns/{offer.json()['id']}").json() == {"deleted": True}
    assert alpha.get(f"{base}/history", params={"limit": 2}).json()["turns"][-1]["content"] == "No."
    assert alpha.delete(base).json() == {"deleted": 4}
    assert alpha.get(f"{base}/head").json() == {"turn": None}
    problem_of(alpha.post(f"{base}/fork", json={"turn": "nothing"}), 404)


def test_agent_turns_travel_whole(alpha: httpx.Client) -> None:
    turn = {
        "role": "assistant",
        "content": "In 1802.",
        "trajectory": {"tools": [{"name": "search_lore", "summary": "bell"}], "reasoning": "cite"},
        "artifacts": [
            {"id": "chronicle", "title": "Bell chronicle", "media_type": "text/markdown"}
        ],
        "hidden_artifacts": [{"id": "scratch", "uri": "file:///tmp/scratch"}],
    }
    stored = alpha.post("/v1/conversations/agent/turns", json=turn).json()
    for key in ("trajectory", "artifacts", "hidden_artifacts"):
        assert stored[key] == alpha.get("/v1/conversations/agent/history").json()["turns"][0][key]
    assert stored["trajectory"]["tools"][0]["name"] == "search_lore"
    assert stored["hidden_artifacts"] == [
        {"id": "scratch", "media_type": None, "uri": "file:///tmp/scratch"}
    ]


def test_session_log(alpha: httpx.Client) -> None:
    alpha.post(
        "/v1/conversations/log-a/turns",
        json={"role": "gm", "content": "The bell tolls twice.", "speaker": "GM"},
    )
    alpha.post(
        "/v1/conversations/log-b/turns", json={"role": "player", "content": "A bell? Where?"}
    )
    sessions = [s["session_id"] for s in alpha.get("/v1/sessions").json()["sessions"]]
    assert sessions[:2] == ["log-b", "log-a"]
    found = alpha.get("/v1/turns/search", params={"text": "bell", "role": "gm"}).json()["turns"]
    assert [t["content"] for t in found] == ["The bell tolls twice."]
    recent = alpha.get("/v1/turns/recent", params={"within_seconds": 600, "session_id": "log-b"})
    assert len(recent.json()["turns"]) == 1


def test_documents_and_retrieval_with_provenance(alpha: httpx.Client, world: None) -> None:
    report = alpha.post(
        "/v1/documents",
        json={
            "documents": [
                {"id": "lore", "text": "Halden Crook runs the mill and waters the flour."}
            ]
        },
    ).json()
    assert report["chunk_ids"] == ["lore#0"] and report["mentions"] >= 1
    assert alpha.post("/v1/index/entities", json={}).json()["indexed"] >= 4
    assert alpha.post("/v1/index/turns", json={"embed": True}).json()["indexed"] >= 0
    out = alpha.post(
        "/v1/retrieve", json={"query": "who runs the mill?", "k": 5, "max_tokens": 120}
    ).json()
    kinds = {r["kind"] for r in out["results"]}
    assert "chunk" in kinds
    chunk = next(r for r in out["results"] if r["kind"] == "chunk")
    assert chunk["provenance"]["evidence"] == ["lore#0"]
    assert "mill" in out["context"]
    problem_of(alpha.post("/v1/retrieve", json={"query": "   "}), 422)


def test_ask_answers_a_graph_question_with_its_chain_of_facts(
    alpha: httpx.Client, world: None
) -> None:
    body = {"question": "what does Halden Crook run?", "semantic": False}
    answers = alpha.post("/v1/ask", json=body).json()["answers"]
    assert [a["entity"]["id"] for a in answers] == ["mill"]
    best = answers[0]
    assert (best["topic"], best["path"]) == ("halden", [{"type": "runs", "direction": "out"}])
    assert [(f["source_id"], f["type"], f["target_id"]) for f in best["facts"]] == [
        ("halden", "runs", "mill")
    ]
    assert best["explanation"] == "halden -runs-> mill"
    two_hops = {"question": "what does the one Odile Marrow distrusts run?", "semantic": False}
    chained = alpha.post("/v1/ask", json=two_hops).json()["answers"]
    assert chained[0]["entity"]["id"] == "mill"
    assert [f["type"] for f in chained[0]["facts"]] == ["distrusts", "runs"]
    nobody = {"question": "who is nobody at all?", "semantic": False}
    unknown = alpha.post("/v1/ask", json=nobody).json()
    assert unknown["answers"] == [] and unknown["abstained"] is True
    assert unknown["reason"] == "the question names no known entity"
    problem_of(alpha.post("/v1/ask", json={"question": "mill", "k": 0}), 422)


def test_ask_says_how_sure_it_is_and_when_it_does_not_know(
    alpha: httpx.Client, world: None
) -> None:
    # a first name is enough, and the answer comes with a confidence
    first_name = alpha.post(
        "/v1/ask", json={"question": "what does Halden run?", "semantic": False}
    )
    sure = first_name.json()
    assert [a["entity"]["id"] for a in sure["answers"]] == ["mill"]
    assert sure["abstained"] is False and 0 < sure["confidence"] <= 1
    assert sure["ambiguity"] == [] and sure["unexplained"] == []
    # no fact is about marriage: no answer, and the word it could not explain
    husband = {"question": "who is Odile Marrow's husband?", "semantic": False}
    unknown = alpha.post("/v1/ask", json=husband).json()
    assert unknown["answers"] == [] and unknown["abstained"] is True
    assert unknown["unexplained"] == ["husband"] and "'husband'" in unknown["reason"]
    # two people called Crook: the question's "Crook" is reported ambiguous
    other = {"id": "mabel", "type": "npc", "name": "Mabel Crook"}
    assert alpha.post("/v1/entities", json={"entities": [other]}).status_code == 200
    crook = alpha.post("/v1/ask", json={"question": "what does Crook run?", "semantic": False})
    assert crook.json()["ambiguity"] == [{"mention": "crook", "candidates": ["halden", "mabel"]}]
    assert [a["entity"]["id"] for a in crook.json()["answers"]] == ["mill"]


def test_governed_relationship_is_an_edge_with_its_fact(gamma: httpx.Client) -> None:
    entities = [
        {"id": "halden", "type": "npc", "name": "Halden Crook"},
        {"id": "river", "type": "location", "name": "The River"},
    ]
    assert gamma.post("/v1/entities", json={"entities": entities}).status_code == 200
    body = {"actor": "quest-agent", "source_id": "halden", "type": "owns", "target_id": "river"}
    related = gamma.post("/v1/facts/relate", json=body).json()
    assert (related["decision"], related["fact"]["status"]) == ("add", "active")
    edges = gamma.get("/v1/entities/halden/relationships", params={"types": ["owns"]}).json()
    [edge] = edges["relationships"]
    assert edge["target_id"] == "river"
    assert edge["attributes"]["fact_id"] == related["fact"]["id"]
    audit = gamma.get("/v1/facts/audit").json()["entries"]
    assert related["audit_id"] in [e["id"] for e in audit]
    missing = {**body, "target_id": "nowhere"}
    assert "nowhere" in problem_of(gamma.post("/v1/facts/relate", json=missing), 422)["detail"]
    problem_of(gamma.post("/v1/facts/relate", json={**body, "type": "owns\n"}), 422)


def test_governed_facts(alpha: httpx.Client) -> None:
    learned = alpha.post(
        "/v1/facts",
        json={
            "actor": "quest-agent",
            "subject": "Mira",
            "relation": "works_at",
            "value": "the forge",
        },
    ).json()
    assert (learned["decision"], learned["fact"]["status"]) == ("add", "active")
    listed = alpha.get("/v1/facts", params={"actor": "quest-agent"}).json()["facts"]
    assert [f["value"] for f in listed] == ["the forge"]
    recalled = alpha.post(
        "/v1/facts/recall", json={"actor": "quest-agent", "query": "where does Mira work"}
    )
    assert recalled.json()["facts"][0]["fact"]["id"] == learned["fact"]["id"]
    pii = alpha.post(
        "/v1/facts",
        json={"actor": "a", "subject": "Mira", "relation": "email", "value": "mira@example.com"},
    )
    assert problem_of(pii, 403, "PIIDetected")["kinds"] == ["email"]
    forgotten = alpha.post(
        f"/v1/facts/{learned['fact']['id']}/forget", json={"actor": "quest-agent"}
    )
    assert forgotten.json()["status"] == "invalidated"
    audit = alpha.get("/v1/facts/audit").json()["entries"]
    assert [e["action"] for e in audit][-2:] == ["add", "invalidate"]
    undone = alpha.post(
        "/v1/facts/rollback", json={"actor": "quest-agent", "entry_id": audit[-2]["id"]}
    ).json()
    assert undone == {"undone": 1}
    pending = alpha.post(
        "/v1/facts",
        json={
            "actor": "hook",
            "subject": "Mira",
            "relation": "likes",
            "value": "tea",
            "source_type": "webhook",
        },
    ).json()
    assert pending["pending_review"] is True or pending["fact"]["status"] == "pending_review"
    approved = alpha.post(f"/v1/facts/{pending['fact']['id']}/approve", json={"actor": "hook"})
    assert approved.json()["status"] == "active"
    problem_of(alpha.post(f"/v1/facts/{pending['fact']['id']}/reject", json={"actor": "hook"}), 422)
    problem_of(alpha.post("/v1/facts/nope/forget", json={"actor": "hook"}), 404)


def test_llm_context_maps_roles_and_hides_hidden_artifacts(alpha: httpx.Client) -> None:
    base = "/v1/memory/ada/evening-1"
    params = {"strategy": "rolling_summary", "max_tokens": 60, "window_turns": 2}
    alpha.post(
        f"{base}/turns", params=params, json={"role": "player", "content": "Where is the smithy?"}
    )
    alpha.post(
        f"{base}/turns",
        params=params,
        json={
            "role": "npc",
            "content": "By the river.",
            "trajectory": {"tools": [{"name": "lookup_map"}]},
            "hidden_artifacts": [{"id": "secret-notes"}],
        },
    )
    alpha.post(f"{base}/turns", params=params, json={"role": "player", "content": "Thanks."})
    context = alpha.get(f"{base}/context", params=params).json()
    assert context["summary"] == "player: Where is the smithy?"
    assert [m["role"] for m in context["messages"]] == ["system", "assistant", "user"]
    assert "lookup_map" in context["messages"][1]["content"]
    assert "secret-notes" not in str(context)
    snapshot = alpha.get(f"{base}/snapshot", params=params).json()
    assert snapshot["format"] == "graphmem.conversation_memory"
    restored = alpha.put(f"{base}/snapshot", params=params, json=snapshot).json()
    assert restored["summary"] == context["summary"]
    problem_of(
        alpha.put(f"{base}/snapshot", params=params, json={"format": "x"}), 422, "InvalidSnapshot"
    )


def test_export_streams_and_import_round_trips(
    alpha: httpx.Client, beta: httpx.Client, world: None
) -> None:
    with alpha.stream("GET", "/v1/export") as response:
        assert response.headers["content-type"] == "application/x-ndjson"
        lines = [line for line in response.iter_lines() if line]
    assert lines[0].startswith('{"kind":"graphmem"')
    imported = beta.post(
        "/v1/import",
        content="\n".join(lines).encode("utf-8"),
        headers={"Content-Type": "application/x-ndjson"},
    ).json()
    assert imported["entities"] == alpha.get("/v1/counts").json()["entities"]
    assert beta.get(f"/v1/entities/{_path(ODILE)}").json()["name"] == "Odile Marrow"
    again = beta.post("/v1/import", content="\n".join(lines).encode("utf-8"))
    problem_of(again, 422)  # turns must be new: all or nothing
    problem_of(beta.post("/v1/import", content=b"not json\n"), 422)
    problem_of(beta.post("/v1/import", content=b"\xff\xfe\n"), 422)


@pytest.mark.parametrize(
    ("method", "path", "kwargs", "status"),
    [
        (
            "POST",
            "/v1/entities",
            {"content": b"{not json", "headers": {"Content-Type": "application/json"}},
            400,
        ),
        (
            "POST",
            "/v1/entities",
            {"content": b"entities: mira", "headers": {"Content-Type": "text/plain"}},
            415,
        ),
        (
            "POST",
            "/v1/entities",
            {"json": {"entities": [{"id": "x", "type": "bad type", "name": "X"}]}},
            422,
        ),
        ("POST", "/v1/entities", {"json": {"entities": [], "extra": 1}}, 422),
        (
            "POST",
            "/v1/entities",
            {
                "content": b'{"entities": [{"id": "\\ud800", "type": "npc", "name": "X"}]}',
                "headers": {"Content-Type": "application/json"},
            },
            422,
        ),
        (
            "POST",
            "/v1/entities",
            {
                "content": b"[" * 100_000 + b"]" * 100_000,
                "headers": {"Content-Type": "application/json"},
            },
            400,
        ),
        ("GET", "/v1/entities/halden/neighbors", {"params": {"depth": 10_000}}, 422),
        ("GET", "/v1/entities/halden/neighbors", {"params": {"direction": "sideways"}}, 422),
        ("GET", "/v1/no/such/route", {}, 404),
        ("PUT", "/v1/entities", {}, 405),
    ],
    ids=[
        "not json",
        "not a json body",
        "unsafe type",
        "unknown field",
        "lone surrogate",
        "too deep",
        "too deep walk",
        "bad enum",
        "no route",
        "wrong method",
    ],
)
def test_malformed_requests_get_problems_never_500(
    alpha: httpx.Client, world: None, method: str, path: str, kwargs: dict, status: int
) -> None:
    problem = problem_of(alpha.request(method, path, **kwargs), status)
    if status == 422:
        assert problem["errors"] or problem["detail"]


def test_unsafe_type_error_names_the_field(alpha: httpx.Client) -> None:
    response = alpha.post(
        "/v1/entities", json={"entities": [{"id": "x", "type": "bad type", "name": "X"}]}
    )
    problem = problem_of(response, 422, "InvalidInput")
    assert problem["errors"][0]["loc"] == ["body", "entities", 0, "type"]
    assert problem["errors"][0]["msg"].startswith("'bad type' is not a safe name")
    assert "input" not in problem["errors"][0]


def test_openapi_is_served_and_committed(api: Api) -> None:
    import json
    from pathlib import Path

    from graphmem.doors.http.openapi import openapi_text

    committed = (Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text("utf-8")
    with api.client() as anonymous:
        served = anonymous.get("/openapi.json").json()
    fix = "run `graphmem openapi -o docs/openapi.json` and commit it"
    assert served == json.loads(committed), (
        f"the served OpenAPI differs from docs/openapi.json: {fix}"
    )
    assert committed == openapi_text(), f"docs/openapi.json is not in its canonical form: {fix}"
    # Schemas are named by their class (MindFact beside the governed Fact), never by a
    # module path: generated clients turn these names into their types.
    schemas = served["components"]["schemas"]
    assert not [name for name in schemas if "__" in name]
    assert "proposition" in schemas["MindFact-Input"]["description"]
    assert "governed fact" in schemas["Fact"]["description"]


def test_keys_never_reach_the_log_or_error_bodies(api: Api, alpha: httpx.Client) -> None:
    alpha.get("/v1/entities/nobody")
    with api.client() as anonymous:
        wrong = anonymous.get(
            "/v1/counts", headers={"Authorization": "Bearer gmk_leaked-guess-123"}
        )
    assert "gmk_leaked-guess-123" not in wrong.text
    log = api.served.log_text()
    assert "GET /v1/entities/nobody" in log  # the access log is on
    for key in [*api.keys.values(), "gmk_leaked-guess-123"]:
        assert key not in log
    assert api.keys_file.read_text().count("gmk_") == 0


def test_npc_minds(alpha: httpx.Client) -> None:
    """Events, witnessing, telling, beliefs at two clocks, perspective, recall, forgetting."""
    t0 = "1312-03-14T20:00:00Z"

    def at(minute: int) -> str:
        return f"1312-03-14T20:{minute:02d}:00Z"

    scene = [
        {"id": "hall", "type": "location", "name": "the hall"},
        {"id": "chest", "type": "item", "name": "the chest"},
        {"id": "sword", "type": "item", "name": "the sword"},
        {"id": "mira", "type": "npc", "name": "Mira"},
        {"id": "tomas", "type": "npc", "name": "Tomas"},
    ]
    assert alpha.post("/v1/entities", json={"entities": scene}).status_code == 200
    for minute, who in enumerate(("mira", "tomas")):
        entered = alpha.post(
            "/v1/events",
            json={
                "type": "entered",
                "actor": who,
                "changes": [{"subject": who, "predicate": "located_in", "object": "hall"}],
                "at": at(minute),
                "session_id": "tavern",
            },
        )
        assert entered.status_code == 200, entered.text
    in_chest = {"subject": "sword", "predicate": "located_in", "object": "chest"}
    hid = alpha.post(
        "/v1/events",
        json={
            "type": "hid",
            "actor": "mira",
            "changes": [in_chest],
            "present": ["mira"],  # Tomas looked away
            "at": at(2),
            "session_id": "tavern",
            "event_id": "hid-1",
        },
    ).json()
    assert (hid["id"], hid["place"], hid["witnesses"]) == ("hid-1", "hall", ["mira"])
    problem_of(alpha.post("/v1/events", json={"type": "hid", "event_id": "hid-1"}), 422)
    knows = alpha.post("/v1/beliefs/who-knows", json={"fact": in_chest}).json()["beliefs"]
    assert [b["holder"] for b in knows] == ["mira"]
    where = {"subject": "sword", "predicate": "located_in"}
    assert alpha.get("/v1/npcs/tomas/belief", params=where).json() == {"belief": None}

    # Mira tells Tomas; the two clocks see before and after.
    before_tell = alpha.get("/v1/npcs/tomas/beliefs").json()["beliefs"][-1]["recorded_at"]
    told = alpha.post(
        "/v1/tell",
        json={"speaker": "mira", "listener": "tomas", "fact": in_chest, "at": at(5)},
    ).json()["beliefs"]
    assert [(b["how"], b["told_by"], b["confidence"]) for b in told] == [("told", "mira", 0.8)]
    problem_of(
        alpha.post("/v1/tell", json={"speaker": "tomas", "listener": "mira", "about": "nobody"}),
        422,
    )

    def held(**params: object) -> list[str]:
        answer = alpha.get("/v1/npcs/tomas/beliefs", params=params)
        assert answer.status_code == 200, answer.text
        return [b["fact"].get("object") or "" for b in answer.json()["beliefs"]]

    assert held() == ["hall", "chest"]
    assert held(as_of=at(3)) == ["hall"]  # world time: before he was told
    assert held(recorded_as_of=before_tell) == ["hall"]  # memory time: before it was stored
    nested = alpha.get("/v1/npcs/mira/belief", params={**where, "of": "tomas"}).json()["belief"]
    assert nested["chain"] == ["tomas"] and nested["fact"]["object"] == "chest"
    problem_of(alpha.get("/v1/npcs/nobody/beliefs"), 404, "NotFound")

    # A lie in public: Tomas says the sword is in the hall; Mira saw it hidden and stays.
    said = alpha.post(
        "/v1/announce",
        json={"speaker": "tomas", "fact": {**in_chest, "object": "hall"}, "at": at(5)},
    )
    assert said.status_code == 200, said.text
    said_event = said.json()
    assert (said_event["type"], said_event["place"]) == ("announced", "hall")
    assert said_event["witnesses"] == ["mira", "tomas"] and said_event["adopted"] == [[]]
    assert (
        alpha.get("/v1/npcs/mira/belief", params=where).json()["belief"]["fact"]["object"]
        == "chest"
    )
    order4 = alpha.get(
        "/v1/npcs/mira/belief", params={**where, "of": ["tomas", "mira", "tomas"]}
    ).json()["belief"]
    assert order4["fact"]["object"] == "chest"  # he was told; she knows he knows she knows
    problem_of(
        alpha.post("/v1/announce", json={"speaker": "tomas", "fact": in_chest, "place": "hall",
                                          "audience": ["mira"]}),
        422,
    )  # fmt: skip

    rumour = alpha.post(
        "/v1/npcs/tomas/beliefs",
        json={
            "fact": {"subject": "mira", "predicate": "mood", "value": "nervous"},
            "how": "rumour",
            "confidence": 0.5,
            "at": at(6),
        },
    ).json()
    assert (rumour["how"], rumour["fact"]["value"]) == ("rumour", "nervous")

    # Who Tomas is as he sees things; the world's snapshot at two world times.
    seen = alpha.get("/v1/npcs/tomas/perspective").json()
    assert {b["fact"].get("object") for b in seen["beliefs"]} >= {"hall", "chest"}
    prompt = alpha.get("/v1/npcs/tomas/prompt", params={"perspective": True}).json()["prompt"]
    assert "the sword located in the chest (heard from Mira" in prompt
    world_prompt = alpha.get("/v1/npcs/tomas/prompt", params={"max_tokens": 100}).json()
    assert "heard from" not in world_prompt["prompt"]
    assert alpha.get("/v1/npcs/sword/snapshot", params={"as_of": t0}).json()["relationships"] == []
    now = alpha.get("/v1/npcs/sword/snapshot", params={"as_of": at(3)}).json()
    assert [r["target_id"] for r in now["relationships"]] == ["chest"]

    observed = alpha.post(
        "/v1/places/hall/observe", json={"present": ["tomas"], "at": at(7)}
    ).json()
    assert (observed["type"], observed["witnesses"]) == ("observed", ["tomas"])
    events = alpha.get("/v1/events", params={"witness": "tomas"}).json()["events"]
    assert [e["type"] for e in events] == ["entered", "told", "announced", "observed"]
    assert [e["id"] for e in alpha.get("/v1/events", params={"type": "hid"}).json()["events"]] == [
        "hid-1"
    ]

    recalled = alpha.post(
        "/v1/npcs/tomas/recall", json={"query": "the sword", "at": at(8), "k": 2}
    ).json()["recollections"]
    assert recalled[0]["belief"]["fact"]["subject"] == "sword" and len(recalled) == 2
    problem_of(alpha.post("/v1/beliefs/forget", json={"npc": "tomas"}), 422)
    retired = alpha.post(
        "/v1/beliefs/forget", json={"npc": "tomas", "about": "sword", "below": 1.0, "at": at(9)}
    ).json()["beliefs"]
    assert {b["fact"]["subject"] for b in retired} == {"sword"}
    assert all(b["retired_at"] for b in retired)
    assert "chest" not in held() and "chest" in held(history=True)


def test_recaps_with_audio(alpha: httpx.Client) -> None:
    import base64

    alpha.post(
        "/v1/conversations/recap-night/turns",
        json={"role": "player", "content": "We found the bell."},
    )
    draft = alpha.get("/v1/recaps/recap-night/draft").json()
    assert draft["source"] == "default" and "bell" in draft["text"]
    problem_of(alpha.get("/v1/recaps/recap-night"), 404, "NotFound")  # a draft is not saved
    audio = bytes(range(256)) * 4
    saved = alpha.put(
        "/v1/recaps/recap-night",
        json={
            "text": "Previously: the bell.",
            "campaign": "bells",
            "audio": base64.b64encode(audio).decode(),
            "audio_type": "audio/ogg",
        },
    )
    assert saved.status_code == 200, saved.text
    read = alpha.get("/v1/recaps/recap-night").json()
    assert read == saved.json() and base64.b64decode(read["audio"]) == audio
    assert [
        r["session_id"]
        for r in alpha.get("/v1/recaps", params={"campaign": "bells"}).json()["recaps"]
    ] == ["recap-night"]
    problem_of(alpha.put("/v1/recaps/recap-night", json={"audio": "not base64!"}), 422)
    written = alpha.put("/v1/recaps/recap-night", json={"campaign": "bells"}).json()
    assert written["source"] == "default" and "bell" in written["text"]


def test_retrieve_gives_facts_as_sentences_and_turns_with_the_callers_id(
    gamma: httpx.Client,
) -> None:
    entities = [
        {"id": "rosalind", "type": "npc", "name": "Rosalind Hale"},
        {"id": "brigid", "type": "location", "name": "St. Brigid's Infirmary"},
        {"id": "lakeview", "type": "location", "name": "Lakeview Apartments"},
    ]
    assert gamma.post("/v1/entities", json={"entities": entities}).status_code == 200
    rels = [
        {
            "source_id": "rosalind",
            "target_id": "brigid",
            "type": "works_at",
            "valid_at": "2024-03-01T00:00:00Z",
        },
        {"source_id": "rosalind", "target_id": "lakeview", "type": "lives_in"},
    ]
    assert gamma.post("/v1/relationships", json={"relationships": rels}).status_code == 200
    turn = {"role": "user", "content": "Rosalind's night shift starts at ten", "turn_id": "D4:2"}
    assert gamma.post("/v1/conversations/ward/turns", json=turn).status_code == 200

    out = gamma.post("/v1/retrieve", json={"query": "Where does Rosalind Hale work?", "k": 3})
    facts = [r for r in out.json()["results"] if r["kind"] == "relationship"]
    assert facts[0]["content"] == "Rosalind Hale works at St. Brigid's Infirmary"
    assert facts[0]["valid_at"].startswith("2024-03-01") and facts[0]["invalid_at"] is None
    said = gamma.post(
        "/v1/retrieve", json={"query": "when does Rosalind's shift start?", "kinds": ["turn"]}
    ).json()["results"]
    assert said[0]["turn_id"] == "D4:2" and said[0]["source_id"] != "D4:2"


def test_documents_with_title_entities(gamma: httpx.Client) -> None:
    body = {
        "documents": [
            {"id": "venus", "title": "Venus (planet)", "text": "The second planet from the Sun."}
        ],
        "title_entities": True,
    }
    report = gamma.post("/v1/documents", json=body).json()
    assert report["entities"] == 1
    page = gamma.get("/v1/entities/title:Venus (planet)").json()
    assert page["attributes"]["aliases"] == ["Venus"]


def test_retrieve_folds_a_bare_name_into_the_passage_naming_it(gamma: httpx.Client) -> None:
    entities = [
        {"id": "wendmere", "type": "location", "name": "Wendmere Ford"},
        {"id": "osric", "type": "npc", "name": "Osric Pell"},
        {"id": "tollhouse", "type": "location", "name": "Pell's Tollhouse"},
    ]
    assert gamma.post("/v1/entities", json={"entities": entities}).status_code == 200
    rels = [{"source_id": "osric", "target_id": "tollhouse", "type": "works_at"}]
    assert gamma.post("/v1/relationships", json={"relationships": rels}).status_code == 200
    docs = [{"id": "ford", "text": "A ferry crosses at Wendmere Ford, where Osric Pell fishes."}]
    assert gamma.post("/v1/documents", json={"documents": docs}).status_code == 200
    found = gamma.post("/v1/retrieve", json={"query": "Wendmere Ford Osric Pell", "k": 4})
    ids = [(r["kind"], r["source_id"]) for r in found.json()["results"]]
    assert ids[0] == ("chunk", "ford#0")
    assert ("entity", "wendmere") not in ids  # a name the passage says, nothing more
    assert ("entity", "osric") in ids  # takes part in a fact: more than a name


def test_retrieve_ranks_what_a_speaker_says_of_themselves_first(gamma: httpx.Client) -> None:
    # The same words either way; the turn about the listener is said first.
    lines = [
        ("Elise", "How was your week?"),
        ("Kate", "You like to cook risotto on weekends"),
        ("Kate", "I like to cook risotto on weekends"),
    ]
    for n, (speaker, text) in enumerate(lines):
        turn = {"role": "user", "speaker": speaker, "content": text, "turn_id": f"K{n}"}
        assert gamma.post("/v1/conversations/kitchen/turns", json=turn).status_code == 200
    found = gamma.post(
        "/v1/retrieve", json={"query": "What does Kate like to cook?", "kinds": ["turn"], "k": 2}
    ).json()["results"]
    assert [r["turn_id"] for r in found] == ["K2", "K1"]
    assert found[0]["signals"]["first_person"] == 1.0
