"""The demo village served for the inspector's tests, with minds and governed facts added.

``graphmem demo --file`` builds Brindleford (entities, facts with provenance, the contradicted
fact, the GM's session log and a forked conversation); then, through the HTTP API, what an NPC
believes apart from the truth (Kestrel moves the ferry while Odile is away), governed facts
signed into an audit chain, and the search indexes.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

SIGNING_ENV = "GRAPHMEM_INSPECTOR_TEST_SIGNING_KEY"


def build_village(directory: Path) -> Path:
    """The demo village in a file store under ``directory``; returns the file."""
    path = directory / "village.graphmem"
    done = subprocess.run(
        [sys.executable, "-m", "graphmem", "demo", "--file", str(path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return path


def policy_file(directory: Path) -> Path:
    """A governance policy that signs the audit chain with the key in :data:`SIGNING_ENV`."""
    path = directory / "policy.toml"
    path.write_text(f'signing_key_env = "{SIGNING_ENV}"\n', encoding="utf-8")
    return path


def seed(client: Any) -> None:
    """Minds, governed facts and search indexes, through the HTTP API (``client``: httpx)."""

    def call(method: str, url: str, body: dict[str, Any] | None = None) -> Any:
        response = client.request(method, url, json=body)
        assert response.status_code < 300, (url, response.status_code, response.text)
        return response.json()

    heron = {"subject": "patient_heron", "predicate": "located_in"}
    # Odile moors her ferry at the landing with Kestrel watching; Kestrel later takes it to
    # Ashgrove alone. Odile still believes it is at the landing: a false belief.
    call(
        "POST",
        "/v1/events",
        {
            "type": "moored",
            "actor": "odile",
            "changes": [{**heron, "object": "ferry_landing"}],
            "present": ["odile", "kestrel"],
        },
    )
    call(
        "POST",
        "/v1/events",
        {
            "type": "moved",
            "actor": "kestrel",
            "changes": [{**heron, "object": "ashgrove"}],
            "present": ["kestrel"],
        },
    )
    # Pip hears from Odile where the ferry is (told, second hand, and as false as hers).
    call(
        "POST",
        "/v1/tell",
        {"speaker": "odile", "listener": "pip", "fact": {**heron, "object": "ferry_landing"}},
    )
    for subject, relation, value in (
        ("odile", "favourite_drink", "nettle tea"),
        ("halden", "owes_toll", "three silver"),
        ("odile", "favourite_drink", "river ale"),
    ):
        call(
            "POST",
            "/v1/facts",
            {"actor": "game-master", "subject": subject, "relation": relation, "value": value},
        )
    call("POST", "/v1/index/entities", {})
    call("POST", "/v1/index/turns", {})
