"""Schemathesis against the live server's OpenAPI, every check it has, on every route.

For every operation, ``EXAMPLES`` generated requests that fit the schema and as many that
do not (negative mode), sent with a valid key to a real ``graphmem serve`` on loopback;
each answer goes through every check schemathesis registers: not a server error, a
documented status, content type, headers and body; data the schema allows is accepted
and data it forbids refused (so the schema states what the server enforces); a missing
or wrong key is refused; an undocumented method is refused with its ``Allow`` header.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis.checks import CHECKS as REGISTERED  # noqa: E402
from schemathesis.checks import load_all_checks  # noqa: E402
from schemathesis.specs.openapi.checks import positive_data_acceptance  # noqa: E402
from server_support import Api  # noqa: E402

EXAMPLES = 12
load_all_checks()
CHECKS = REGISTERED.get_all()

_MUST_EXIST = "the entities it names must exist: stored data, which no schema can state"
_PRINTABLE = (
    "actors, users and sessions are printable names: the pattern states the character "
    "classes; unassigned code points and NFC are checked by the server alone"
)
_MIND_FACT = "a minds fact holds exactly one of object and value (either may be null)"
STATE_OR_CROSS_FIELD = {
    ("GET", "/v1/facts/verify"): "needs a server policy with a signing key (the server's state)",
    ("POST", "/v1/entities"): "updated_at must not be before created_at (two fields)",
    ("POST", "/v1/entities/find"): "attribute filters: keys non-empty at every nesting level",
    ("POST", "/v1/relationships"): _MUST_EXIST,
    ("POST", "/v1/facts/relate"): _MUST_EXIST,
    ("POST", "/v1/documents"): _MUST_EXIST,
    ("POST", "/v1/events"): _MUST_EXIST,
    ("POST", "/v1/places/{place_id}/observe"): _MUST_EXIST,
    ("POST", "/v1/conversations/{session_id}/turns"): "a hidden artifact's media type "
    "(graphmem.core.models.ArtifactRef) is checked by the model, not stated in its schema",
    ("POST", "/v1/conversations/{session_id}/turns/batch"): "as a single turn's",
    ("POST", "/v1/retrieve"): "fusion presets are a registry that plugins extend",
    ("POST", "/v1/facts"): _PRINTABLE,
    ("GET", "/v1/facts"): _PRINTABLE,
    ("POST", "/v1/facts/recall"): _PRINTABLE,
    ("POST", "/v1/facts/rollback"): _PRINTABLE,
    ("POST", "/v1/facts/{fact_id}/forget"): _PRINTABLE,
    ("POST", "/v1/facts/{fact_id}/approve"): _PRINTABLE,
    ("POST", "/v1/facts/{fact_id}/reject"): _PRINTABLE,
    ("POST", "/v1/memory/{user}/{session}/turns"): _PRINTABLE,
    ("GET", "/v1/memory/{user}/{session}/context"): _PRINTABLE,
    ("GET", "/v1/memory/{user}/{session}/snapshot"): _PRINTABLE,
    ("PUT", "/v1/memory/{user}/{session}/snapshot"): "a snapshot made by GET .../snapshot: "
    "its format, version and contents are checked as it is restored",
    ("POST", "/v1/tell"): "speaker and listener are two different NPCs (two fields)",
    ("POST", "/v1/announce"): _MIND_FACT,
    ("POST", "/v1/npcs/{npc_id}/beliefs"): _MIND_FACT,
    ("POST", "/v1/beliefs/who-knows"): _MIND_FACT,
    ("POST", "/v1/import"): "JSON Lines made by GET /v1/export: the header and every record "
    "are checked as the import reads them",
}
"""Operations where a request the schema allows may still be refused (422), and why.

Every other check runs on them as on the rest; only ``positive_data_acceptance`` takes a
422 (whose body is checked against the problem schema) as an answer to valid data."""
DOCUMENT = json.loads(
    (Path(__file__).resolve().parents[2] / "docs" / "openapi.json").read_text("utf-8")
)
OPERATIONS = [(method.upper(), path) for path, ops in DOCUMENT["paths"].items() for method in ops]
# Negative examples need something to get wrong: a parameter, a body or a key.
NEGATABLE = {
    (method.upper(), path)
    for path, ops in DOCUMENT["paths"].items()
    for method, op in ops.items()
    if op.get("parameters") or op.get("requestBody") or op.get("security")
}
CASES = [
    pytest.param(method, path, mode, id=f"{method} {path} {mode}")
    for method, path in OPERATIONS
    for mode in ("positive", "negative")
    if mode == "positive" or (method, path) in NEGATABLE
]


@schemathesis.serializer("application/x-ndjson")
def _json_lines(context: Any, value: Any) -> bytes:
    """Bodies of ``POST /v1/import``: the generated value, as UTF-8 text."""
    text = value if isinstance(value, str) else json.dumps(value)
    return text.encode("utf-8", "surrogatepass")


@pytest.fixture(scope="module")
def live_schema(api: Api) -> Any:
    with api.client("alpha") as client:  # something to find besides random ids
        client.post(
            "/v1/entities", json={"entities": [{"id": "mira", "type": "npc", "name": "Mira"}]}
        )
    return schemathesis.openapi.from_url(f"{api.served.url}/openapi.json")


@pytest.mark.parametrize(("method", "path", "mode"), CASES)
def test_operation_answers_within_its_schema(
    live_schema: Any, api: Api, method: str, path: str, mode: str
) -> None:
    operation = live_schema[path][method]
    strategy = operation.as_strategy(generation_mode=schemathesis.GenerationMode(mode))
    key = {"Authorization": f"Bearer {api.keys['alpha']}"}

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        # A case whose credentials are the wrong part keeps them (the server must refuse
        # them); every other case is sent with a valid key.
        headers = None if _negative_credentials(case) else key
        checks = CHECKS
        if (method, path) in STATE_OR_CROSS_FIELD:
            checks = [_accepted_or_422 if c is positive_data_acceptance else c for c in CHECKS]
        case.call_and_validate(headers=headers, checks=checks, timeout=60)

    check()


def _negative_credentials(case: Any) -> bool:
    """Whether a negative case got its headers (the ``Authorization`` one) wrong."""
    components = getattr(case.meta, "components", None) or {}
    return any(
        getattr(where, "value", where) == "header" and part.mode.is_negative
        for where, part in components.items()
    )


def _accepted_or_422(ctx: Any, response: Any, case: Any) -> bool | None:
    """``positive_data_acceptance``, with a 422 taken as an answer (see STATE_OR_CROSS_FIELD)."""
    if response.status_code == 422:
        return None
    result: bool | None = positive_data_acceptance(ctx, response, case)
    return result
