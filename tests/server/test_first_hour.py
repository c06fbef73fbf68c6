"""What a new user meets in the first hour over HTTP: each rough edge of issue 28, smoothed."""

from __future__ import annotations

import time

import httpx
import pytest
from server_support import Api


def test_find_entities_by_whole_name(alpha: httpx.Client) -> None:
    alpha.post(
        "/v1/entities",
        json={
            "entities": [
                {"id": "fh-mira", "type": "npc", "name": "Mira Quell"},
                {"id": "fh-mira-2", "type": "npc", "name": "Mira Quellson"},
            ]
        },
    ).raise_for_status()
    found = alpha.post("/v1/entities/find", json={"name": "mira quell"})
    assert [e["id"] for e in found.json()["entities"]] == ["fh-mira"]
    listed = alpha.get("/v1/entities", params={"name": "MIRA QUELL"})
    assert [e["id"] for e in listed.json()["entities"]] == ["fh-mira"]
    both = alpha.post("/v1/entities/find", json={"name_contains": "mira quell"})
    assert [e["id"] for e in both.json()["entities"]] == ["fh-mira", "fh-mira-2"]


def test_a_405_lists_every_method_of_the_path(alpha: httpx.Client) -> None:
    response = alpha.put("/v1/entities/anyone")
    assert response.status_code == 405
    assert response.headers["allow"] == "DELETE, GET, PATCH"
    assert response.json()["detail"] == "PUT is not allowed here; allowed: DELETE, GET, PATCH"


@pytest.mark.parametrize("value", [0, 1, "true", None])
def test_booleans_are_true_or_false_only(alpha: httpx.Client, value: object) -> None:
    response = alpha.post("/v1/documents", json={"documents": [{"text": "x"}], "embed": value})
    assert response.status_code == 422, response.text
    assert response.json()["errors"][0]["loc"] == ["body", "embed"]


def test_a_validator_message_reads_without_pydantic_prefix(alpha: httpx.Client) -> None:
    response = alpha.post(
        "/v1/relationships",
        json={
            "relationships": [
                {
                    "source_id": "fh-mira",
                    "target_id": "fh-mira-2",
                    "type": "knows",
                    "valid_at": "2020-01-02T00:00:00Z",
                    "invalid_at": "2020-01-01T00:00:00Z",
                }
            ]
        },
    )
    assert response.status_code == 422
    assert "Value error" not in response.text
    assert "invalid_at is before valid_at" in response.json()["detail"]


@pytest.mark.parametrize("path", ["/docs", "/redoc"])
def test_the_reference_pages_need_no_cdn(api: Api, path: str) -> None:
    with api.client() as anonymous:
        page = anonymous.get(path)
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert 'fetch("/openapi.json")' in page.text
    assert "http://" not in page.text and "https://" not in page.text  # nothing fetched elsewhere


def test_readiness_says_ready_once_warm(api: Api) -> None:
    with api.client() as anonymous:
        for _ in range(600):
            ready = anonymous.get("/readyz")
            if ready.status_code == 200:
                break
            assert ready.status_code == 503
            time.sleep(0.1)
    assert ready.json()["status"] == "ready" and ready.json()["embedder"] == "ready"


def test_the_openapi_document_states_the_id_and_name_rules(api: Api) -> None:
    with api.client() as anonymous:
        document = anonymous.get("/openapi.json").json()
    entity = document["components"]["schemas"]["Entity-Input"]["properties"]
    assert entity["id"]["maxLength"] == 512 and entity["id"]["minLength"] == 1
    assert entity["type"]["pattern"] == "^[A-Za-z][A-Za-z0-9_]{0,63}$"


@pytest.mark.parametrize(
    "name",
    [
        "Acme",
        "game master",
        "Mira Quell",
        "é",
        "日本",
        " lead",
        "trail ",
        "a\u200bb",
        "x\x01y",
        "nb\u00a0sp",
        "\ue000private",
        "bom\ufeff",
    ],
)
def test_the_printable_pattern_agrees_with_the_server_rule(name: str) -> None:
    """The schema's pattern for actors says what check_printable_name enforces."""
    import re

    from graphmem.core.errors import InvalidInput
    from graphmem.core.store import check_printable_name
    from graphmem.doors.schemas import PRINTABLE_PATTERN

    try:
        check_printable_name(name, "actor")
        accepted = True
    except InvalidInput:
        accepted = False
    assert bool(re.search(PRINTABLE_PATTERN, name)) == accepted


def test_the_openapi_document_states_the_printable_rule(api: Api) -> None:
    with api.client() as anonymous:
        document = anonymous.get("/openapi.json").json()
    actor = document["components"]["schemas"]["LearnRequest"]["properties"]["actor"]
    assert actor["pattern"].startswith("^[^\\u0000-\\u001f") and actor["maxLength"] == 256
    [query] = [
        p for p in document["paths"]["/v1/facts"]["get"]["parameters"] if p["name"] == "actor"
    ]
    assert query["schema"]["pattern"] == actor["pattern"]


def test_the_openapi_document_states_names_types_and_keys(api: Api) -> None:
    with api.client() as anonymous:
        document = anonymous.get("/openapi.json").json()
    schemas = document["components"]["schemas"]
    assert schemas["Entity-Input"]["properties"]["name"]["minLength"] == 1
    assert schemas["Entity-Input"]["properties"]["attributes"]["propertyNames"] == {"minLength": 1}
    assert (
        schemas["Invalidation"]["properties"]["type"]["pattern"] == "^[A-Za-z][A-Za-z0-9_]{0,63}$"
    )
    [types] = [
        p
        for p in document["paths"]["/v1/entities/{entity_id}/relationships"]["get"]["parameters"]
        if p["name"] == "types"
    ]
    assert types["schema"]["anyOf"][0]["items"]["pattern"].startswith("^[A-Za-z]")


def test_a_405_names_the_documented_path_not_a_lookalike(alpha: httpx.Client) -> None:
    """/v1/entities/delete also fits /v1/entities/{entity_id}; its Allow is its own: POST."""
    response = alpha.get("/v1/entities/delete")
    if response.status_code == 405:
        assert response.headers["allow"] == "POST"
    put = alpha.put("/v1/entities/find")
    assert put.status_code == 405 and put.headers["allow"] == "POST"
