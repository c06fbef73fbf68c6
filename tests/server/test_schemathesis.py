"""Schemathesis against the live server's OpenAPI: no 5xx, no response outside the schema.

For every operation, ``EXAMPLES`` generated requests that fit the schema and as many that
do not (negative mode), sent with a valid key to a real ``graphmem serve`` on loopback;
each answer is checked: not a server error, a documented status, the documented content
type, a body that fits the documented schema.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

schemathesis = pytest.importorskip("schemathesis")

from hypothesis import HealthCheck, given, settings  # noqa: E402
from schemathesis.checks import not_a_server_error  # noqa: E402
from schemathesis.specs.openapi.checks import (  # noqa: E402
    content_type_conformance,
    response_schema_conformance,
    status_code_conformance,
)
from server_support import Api  # noqa: E402

EXAMPLES = 12
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_schema_conformance,
]
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
    headers = {"Authorization": f"Bearer {api.keys['alpha']}"}

    @given(case=strategy)
    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        database=None,
        derandomize=True,
        suppress_health_check=list(HealthCheck),
    )
    def check(case: Any) -> None:
        case.call_and_validate(headers=headers, checks=CHECKS, timeout=60)

    check()
