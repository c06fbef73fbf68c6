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
from server_support import Api  # noqa: E402

EXAMPLES = 12
load_all_checks()
CHECKS = REGISTERED.get_all()
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
