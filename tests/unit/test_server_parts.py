"""The server's parts without a server: keys files, the error mapping, limits, policy files."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

import pytest

from graphmem import (
    BackendUnavailable,
    ForbiddenCategory,
    IdentityRequired,
    InvalidInput,
    InvalidSnapshot,
    InvalidTransition,
    MalformedPrivacyTag,
    NotFound,
    PIIDetected,
    PolicyViolation,
    SignatureMismatch,
    StoreClosed,
    UnsupportedOperation,
)
from graphmem.cli.arguments import load_policy
from graphmem.doors.http.keys import KEY_PREFIX, KeyRing, add_key, hash_key
from graphmem.doors.http.limits import Limits
from graphmem.doors.http.problems import PayloadTooLarge, problem, status_of


@pytest.mark.parametrize("suffix", [".toml", ".json"])
def test_keys_files_hold_hashes_and_open_one_tenant_each(tmp_path: Path, suffix: str) -> None:
    path = tmp_path / f"keys{suffix}"
    first = add_key(path, tenant="village", name="unity")
    second = add_key(path, tenant="other world", name="godot")
    text = path.read_text()
    assert first.startswith(KEY_PREFIX) and first not in text and hash_key(first) in text
    ring = KeyRing.load(path)
    assert ring.lookup(first).tenant == "village"
    assert ring.lookup(second).tenant == "other world"
    assert ring.tenants == ["other world", "village"]
    for bad in (None, "", "gmk_guess", first + "x"):
        with pytest.raises(IdentityRequired) as info:
            ring.lookup(bad)
        assert first not in str(info.value)
        assert not bad or bad not in str(info.value)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("{", "not valid JSON"),
        ('{"keys": {}}', "must hold a list 'keys'"),
        ('{"keys": [{"name": "a", "tenant": "t"}]}', "exactly name, tenant and sha256"),
        ('{"keys": [{"name": "a b", "tenant": "t", "sha256": "' + "0" * 64 + '"}]}', "name must"),
        ('{"keys": [{"name": "a", "tenant": " ", "sha256": "' + "0" * 64 + '"}]}', "tenant"),
        ('{"keys": [{"name": "a", "tenant": "t", "sha256": "' + "A" * 64 + '"}]}', "lowercase hex"),
        ('{"keys": []}', "holds no keys"),
        (
            json.dumps({"keys": [{"name": n, "tenant": "t", "sha256": "0" * 64} for n in "ab"]}),
            "have the same hash",
        ),
    ],
)
def test_bad_keys_files_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "keys.json"
    path.write_text(text)
    with pytest.raises(InvalidInput) as info:
        KeyRing.load(path)
    assert message in str(info.value)
    assert "0" * 64 not in str(info.value)


def test_a_missing_keys_file_is_invalid_input(tmp_path: Path) -> None:
    with pytest.raises(InvalidInput, match="cannot read the keys file"):
        KeyRing.load(tmp_path / "none.toml")


@pytest.mark.parametrize(
    ("error", "status"),
    [
        (InvalidInput("x"), 422),
        (InvalidSnapshot("x"), 422),
        (PolicyViolation("x"), 403),
        (ForbiddenCategory("x"), 403),
        (PIIDetected("x"), 403),
        (MalformedPrivacyTag("x"), 403),
        (NotFound("x"), 404),
        (IdentityRequired("x"), 401),
        (SignatureMismatch("x"), 409),
        (InvalidTransition("x"), 409),
        (UnsupportedOperation("x"), 501),
        (BackendUnavailable("x"), 503),
        (StoreClosed("x"), 503),
        (PayloadTooLarge("x"), 413),
    ],
)
def test_every_error_class_has_its_status(error: Exception, status: int) -> None:
    assert status_of(error) == status  # type: ignore[arg-type]
    code, body = problem(error)  # type: ignore[arg-type]
    assert code == status and body["type"] == f"urn:graphmem:error:{type(error).__name__}"


def test_problems_carry_plain_data_never_values_sent() -> None:
    error = InvalidInput(
        "bad",
        entity_id="mira",
        missing=("a", "b"),
        value="the secret text",
        errors=[{"loc": ("body", 0), "msg": "m", "type": "t", "input": "the secret text"}],
        nested={"x": 1},
    )
    _status, body = problem(error, instance="/v1/x")
    assert body["entity_id"] == "mira" and body["missing"] == ["a", "b"]
    assert body["errors"] == [{"loc": ["body", 0], "msg": "m", "type": "t"}]
    assert "the secret text" not in json.dumps(body) and "nested" not in body


@pytest.mark.parametrize(
    "field", ["max_body_bytes", "max_import_bytes", "max_batch_rows", "max_text_chars"]
)
@pytest.mark.parametrize("value", [0, -1, True, 1.5])
def test_limits_must_be_positive_integers(field: str, value: object) -> None:
    with pytest.raises(InvalidInput, match=field):
        Limits(**{field: value})  # type: ignore[arg-type]


def test_policy_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "policy.toml"
    path.write_text(
        'pii = "redact"\nforbidden_categories = ["health"]\nreview_below = 0.3\n'
        "dedup_window_seconds = 60\nhalf_life_days = 2\nretention_max_age_days = 30\n"
        'retention_max_entries = 500\nsigning_key_env = "GM_TEST_KEY"\n'
    )
    monkeypatch.setenv("GM_TEST_KEY", "s3cret")
    policy = load_policy(path)
    assert policy is not None
    assert (policy.pii, policy.forbidden_categories, policy.review_below) == (
        "redact",
        frozenset({"health"}),
        0.3,
    )
    assert policy.dedup_window == timedelta(seconds=60) and policy.half_life == timedelta(days=2)
    assert policy.retention_max_age == timedelta(days=30) and policy.retention_max_entries == 500
    assert policy.signing_key == b"s3cret"
    monkeypatch.delenv("GM_TEST_KEY")
    with pytest.raises(InvalidInput, match="GM_TEST_KEY"):
        load_policy(path)
    assert load_policy(None) is None


def test_the_server_package_names_its_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib

    from graphmem.doors import http as server

    real = importlib.import_module

    def without_fastapi(name: str, package: str | None = None) -> object:
        if name == "fastapi":
            raise ImportError("No module named 'fastapi'", name="fastapi")
        return real(name, package)

    monkeypatch.setattr(importlib, "import_module", without_fastapi)
    with pytest.raises(ImportError, match=r"pip install 'graphmem\[server\]'") as info:
        server.require_extra()
    assert info.value.name == "fastapi"


def test_snapshot_json_from_cached_parts_equals_the_models_own() -> None:
    import graphmem
    from graphmem.doors.http.state import Fragments
    from graphmem.tools.bench.common import synthetic_world

    entities, rels = synthetic_world(300, seed=3)
    fragments = Fragments(limit=500)  # small: the cache empties itself on the way
    with graphmem.open("memory://", tenant="t") as mem:
        mem.upsert_entities(
            [
                *entities,
                {
                    "id": "odd",
                    "type": "npc",
                    "name": 'Ödi "quoted" \\ \u2028',
                    "attributes": {"x": [1.5, None, {"k": "\u00e9"}], "big": 2**63 - 1},
                },
            ]
        )
        mem.upsert_relationships(rels)
        for entity in [*entities[:300], mem.get_entity("odd")]:
            identity = mem.identity_snapshot(entity.id)
            assert fragments.identity(identity) == identity.model_dump_json().encode("utf-8")
            assert fragments.identity(identity) == identity.model_dump_json().encode("utf-8")
        # A part that changes makes a new document (the last one is kept by its parts).
        first = entities[0].id
        before = fragments.identity(mem.identity_snapshot(first))
        mem.update_entity(first, attributes={"mood": -0.0})
        after = mem.identity_snapshot(first)
        assert fragments.identity(after) == after.model_dump_json().encode("utf-8") != before
        neighbour = after.related_entities[0].id
        mem.update_entity(neighbour, name="Renamed")
        again = mem.identity_snapshot(first)
        assert fragments.identity(again) == again.model_dump_json().encode("utf-8")
        assert b"Renamed" in fragments.identity(again)
