"""The writing verbs of the command line, through main(argv) on file:// stores in tmp_path."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

import graphmem
from graphmem import BackendUnavailable, IdentityRequired
from graphmem.cli.program import main


@pytest.fixture
def url(tmp_path: Path) -> str:
    return (tmp_path / "world.graphmem").as_uri()


SINCE = datetime(2024, 3, 1, tzinfo=UTC)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_entity_relate_say_history_branches(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    at = ["--store", url, "--tenant", "t"]
    status, out, _ = run(
        capsys,
        "entity",
        "add",
        *at,
        "odile",
        "--type",
        "npc",
        "--name",
        "Odile Marrow",
        "--attr",
        "occupation=ferrywoman",
        "--attr",
        "level=3",
        "--attr",
        'tags=["river"]',
    )
    assert status == 0
    assert (
        out.strip() == 'odile: Odile Marrow (npc)  occupation="ferrywoman", level=3, tags=["river"]'
    )
    run(capsys, "entity", "add", *at, "halden", "--type", "npc", "--name", "Halden")
    status, out, _ = run(
        capsys,
        "relate",
        *at,
        "odile",
        "distrusts",
        "halden",
        "--confidence",
        "0.8",
        "--source-kind",
        "inferred",
        "--json",
    )
    rel = json.loads(out)
    assert (status, rel["type"], rel["provenance"]["confidence"]) == (0, "distrusts", 0.8)
    status, out, _ = run(capsys, "entity", "get", *at, "odile", "--json")
    assert json.loads(out)["attributes"] == {
        "occupation": "ferrywoman",
        "level": 3,
        "tags": ["river"],
    }
    status, out, _ = run(
        capsys, "say", *at, "--session", "s1", "--role", "player", "Across?", "--json"
    )
    ask = json.loads(out)
    run(
        capsys, "say", *at, "--session", "s1", "--role", "npc", "--speaker", "Odile", "Two coppers."
    )
    status, out, _ = run(capsys, "fork", *at, "--session", "s1", ask["id"], "--json")
    assert (status, json.loads(out)["id"]) == (0, ask["id"])
    status, out, _ = run(capsys, "say", *at, "--session", "s1", "--role", "npc", "Not tonight.")
    assert status == 0 and out.rstrip().endswith("npc: Not tonight.")
    status, out, _ = run(capsys, "history", *at, "--session", "s1", "--json")
    assert [t["content"] for t in json.loads(out)["turns"]] == ["Across?", "Not tonight."]
    status, out, _ = run(capsys, "history", *at, "--session", "s1", "--all")
    assert len(out.strip().splitlines()) == 3 and "Odile (npc): Two coppers." in out
    status, out, _ = run(capsys, "branches", *at, "--session", "s1", "--json")
    branches = json.loads(out)["branches"]
    assert [(b["length"], b["active"]) for b in branches] == [(2, False), (2, True)]
    status, out, _ = run(capsys, "branches", *at, "--session", "s1")
    assert out.splitlines()[1].endswith("Not tonight.  (active)")


def test_retrieve_with_the_hashing_embedder_and_text_only(
    url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with graphmem.open(url, tenant="t") as mem:
        mem.upsert_entities([{"id": "halden", "type": "npc", "name": "Halden Crook"}])
        mem.add_documents(["Halden Crook runs the mill."], embed=False)
    at = ["--store", url, "--tenant", "t"]
    status, out, _ = run(capsys, "retrieve", *at, "who runs the mill", "--text-only", "--json")
    results = json.loads(out)["results"]
    assert status == 0 and results[0]["kind"] == "chunk" and results[0]["provenance"]["evidence"]
    status, out, _ = run(capsys, "retrieve", *at, "the mill", "--text-only", "--max-tokens", "40")
    assert status == 0 and "Halden Crook runs the mill." in out
    status, out, err = run(capsys, "retrieve", *at, "the mill", "--embedder", "hashing", "-k", "3")
    assert status == 0, err
    assert "evidence:" in out
    with graphmem.open(url, tenant="t") as mem:
        mem.upsert_entities([{"id": "mill", "type": "location", "name": "the mill"}])
        mem.upsert_relationships(
            [{"source_id": "halden", "target_id": "mill", "type": "runs", "valid_at": SINCE}]
        )
    question = ["who runs the mill?", "--embedder", "hashing", "-k", "3", "--json"]
    status, out, err = run(capsys, "retrieve", *at, *question)
    facts = [r for r in json.loads(out)["results"] if r["kind"] == "relationship"]
    assert status == 0 and facts[0]["content"] == "Halden Crook runs the mill"
    status, out, err = run(capsys, "retrieve", *at, *question[:-1])
    assert "relationship halden|runs|mill  Halden Crook runs the mill" in out
    assert "valid: 2024-03-01 00:00 .. now" in out


def test_ask_answers_from_the_graph(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    with graphmem.open(url, tenant="t") as mem:
        mem.upsert_entities(
            [
                {"id": "halden", "type": "npc", "name": "Halden Crook"},
                {"id": "mill", "type": "location", "name": "The Mill"},
            ]
        )
        mem.upsert_relationships([{"source_id": "halden", "target_id": "mill", "type": "runs"}])
    at = ["--store", url, "--tenant", "t", "--no-semantic"]
    status, out, _ = run(capsys, "ask", *at, "what does Halden Crook run?", "--json")
    answers = json.loads(out)["answers"]
    assert status == 0 and [a["entity"]["id"] for a in answers] == ["mill"]
    # the wire form of POST /v1/ask: a step says its direction in words, as HTTP does
    assert answers[0]["path"] == [{"type": "runs", "direction": "out"}]
    assert answers[0]["facts"][0]["type"] == "runs"
    assert answers[0]["explanation"] == "halden -runs-> mill"
    assert json.loads(out)["abstained"] is False and json.loads(out)["confidence"] > 0
    status, out, _ = run(capsys, "ask", *at, "what does Halden Crook run?")
    sure, answer = out.splitlines()
    assert status == 0 and sure.startswith("confidence ")
    assert answer.split()[1:] == ["The", "Mill", "(mill)", "halden", "-runs->", "mill"]
    status, out, _ = run(capsys, "ask", *at, "who is nobody?")
    assert status == 0 and out == "no answer: the question names no known entity\n"
    status, out, _ = run(capsys, "ask", *at, "who is Halden's wife?", "--json")
    unknown = json.loads(out)
    assert unknown["answers"] == [] and unknown["abstained"] and unknown["unexplained"] == ["wife"]


def test_missing_embeddings_extra_is_cli_advice(
    url: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from graphmem.retrieval import SentenceTransformerEmbedder

    monkeypatch.setattr(SentenceTransformerEmbedder, "available", staticmethod(lambda: False))
    status, _, err = run(capsys, "retrieve", "--store", url, "--tenant", "t", "anything")
    assert status == 2
    assert "--embedder hashing" in err and "embedder=" not in err
    assert err.count("\n") == 1


@pytest.mark.parametrize(
    "argv",
    [
        ["entity", "get", "nobody"],
        ["entity", "add", "x", "--type", "bad type", "--name", "X"],
        ["entity", "add", "x", "--type", "npc", "--name", "X", "--attr", "novalue"],
        ["relate", "a", "knows", "b"],
        ["say", "--session", "s", "--role", "bad role", "hi"],
        ["history", "--session", "s", "--all", "--limit", "2"],
    ],
    ids=[
        "unknown entity",
        "unsafe type",
        "bad attr",
        "missing ends",
        "unsafe role",
        "all and limit",
    ],
)
def test_errors_are_one_line_with_status_2(
    url: str, capsys: pytest.CaptureFixture[str], argv: list[str]
) -> None:
    verb, rest = argv[0], argv[1:]
    if verb == "entity":
        argv = ["entity", rest[0], "--store", url, "--tenant", "t", *rest[1:]]
    else:
        argv = [verb, "--store", url, "--tenant", "t", *rest]
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert err.startswith("graphmem: error: ") and err.count("\n") == 1
    assert "Traceback" not in err and "=" not in err.split(": ", 2)[-1].split(" ")[0]


def test_tenants_lists_the_store(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    for tenant in ("b-team", "a-team"):
        with graphmem.open(url, tenant=tenant) as mem:
            mem.conversation("s").append("player", "hi")
    status, out, _ = run(capsys, "tenants", "--store", url, "--json")
    assert (status, json.loads(out)) == (0, {"tenants": ["a-team", "b-team"]})
    status, out, _ = run(capsys, "tenants", "--store", url)
    assert out.split() == ["a-team", "b-team"]


def test_keys_add_prints_once_and_stores_the_hash(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    keys = tmp_path / "keys.toml"
    status, out, err = run(
        capsys, "keys", "add", "--keys", str(keys), "--tenant", "t", "--name", "unity"
    )
    key = out.strip()
    assert status == 0 and key.startswith("gmk_") and "only time" in err
    assert key not in keys.read_text() and keys.stat().st_mode & 0o077 == 0
    status, out, _ = run(
        capsys, "keys", "add", "--keys", str(keys), "--tenant", "u", "--name", "godot", "--json"
    )
    assert json.loads(out)["tenant"] == "u"
    status, out, _ = run(capsys, "keys", "list", "--keys", str(keys), "--json")
    assert json.loads(out) == {
        "keys": [
            {"name": "unity", "tenant": "t", "expires": None},
            {"name": "godot", "tenant": "u", "expires": None},
        ]
    }
    status, _, err = run(
        capsys, "keys", "add", "--keys", str(keys), "--tenant", "t", "--name", "unity"
    )
    assert status == 2 and "already has a key named 'unity'" in err


def test_keys_expire_and_are_revoked(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from graphmem.doors.http.keys import KeyRing

    keys = tmp_path / "keys.json"
    args = ("keys", "add", "--keys", str(keys), "--tenant", "t")
    status, out, _ = run(capsys, *args, "--name", "old", "--expires", "2020-01-01T00:00:00Z")
    old = out.strip()
    status, out, _ = run(capsys, *args, "--name", "month", "--expires", "30d")
    month = out.strip()
    status, out, _ = run(capsys, *args, "--name", "forever")
    forever = out.strip()
    status, out, _ = run(capsys, "keys", "list", "--keys", str(keys), "--json")
    rows = json.loads(out)["keys"]
    assert rows[0]["expires"] == "2020-01-01T00:00:00+00:00" and rows[1]["expires"]
    ring = KeyRing.load(keys)
    with pytest.raises(IdentityRequired, match="expired"):
        ring.lookup(old)
    assert ring.lookup(month).name == "month" and ring.lookup(forever).name == "forever"
    status, _, err = run(capsys, "keys", "revoke", "--keys", str(keys), "--name", "month")
    assert status == 0 and "revoked" in err
    with pytest.raises(IdentityRequired, match="not known"):
        ring.lookup(month)  # the same ring: it read the changed file again
    assert ring.lookup(forever).name == "forever"
    status, _, err = run(capsys, "keys", "revoke", "--keys", str(keys), "--name", "nobody")
    assert status != 0 and "no key named 'nobody'" in err
    status, _, err = run(capsys, *args, "--name", "bad", "--expires", "next tuesday")
    assert status == 2 and "ISO 8601" in err
    keys.write_text("{not json")  # a half-edited file: every key refused, none let in
    with pytest.raises(BackendUnavailable, match="keys file"):
        ring.lookup(forever)


def test_openapi_writes_the_committed_document(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    target = tmp_path / "openapi.json"
    status, out, _ = run(capsys, "openapi", "-o", str(target))
    committed = Path(__file__).resolve().parents[2] / "docs" / "openapi.json"
    assert status == 0 and target.read_text() == committed.read_text()


def test_import_prints_json(url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with graphmem.open(url, tenant="t") as mem:
        mem.upsert_entities([{"id": "a", "type": "npc", "name": "A"}])
        mem.export_jsonl(tmp_path / "out.jsonl")
    other = (tmp_path / "other.graphmem").as_uri()
    status, out, _ = run(
        capsys, "import", "--store", other, "--tenant", "t", str(tmp_path / "out.jsonl"), "--json"
    )
    assert status == 0 and json.loads(out)["entities"] == 1


def test_schema_install_prints_json(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "schema", "install", "--store", url, "--json")
    assert status == 0
    assert json.loads(out)["indexes"] == []  # the embedded backend keeps no schema


def test_say_parent_answers_an_earlier_turn(url: str, capsys: pytest.CaptureFixture[str]) -> None:
    at = ["--store", url, "--tenant", "t", "--session", "s"]
    run(capsys, "say", *at, "--role", "player", "--turn-id", "q", "Across?")
    run(capsys, "say", *at, "--role", "npc", "Two coppers.")
    status, out, _ = run(capsys, "say", *at, "--role", "npc", "--parent", "q", "Free.", "--json")
    assert status == 0 and json.loads(out)["content"] == "Free."
    status, out, _ = run(capsys, "history", *at, "--json")
    assert [t["content"] for t in json.loads(out)["turns"]] == ["Across?", "Free."]
    status, out, _ = run(capsys, "fork", *at, "q")
    assert status == 0 and out.startswith("the head of s is now:") and "Across?" in out
    status, _, err = run(capsys, "fork", *at, "no-such-turn")
    assert status == 2 and "no-such-turn" in err


def test_check_and_demo_speak_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "demo.graphmem"
    status, out, _ = run(capsys, "demo", "--file", str(target), "--json")
    demo = json.loads(out)
    assert status == 0 and demo["ok"] is True and demo["tenant"] == "brindleford"
    assert demo["reopened"]["turns"]["identical"] is True and demo["active_branch"]
    assert demo["snapshot_prompt"] and demo["persistent"] is True
    status, out, _ = run(capsys, "check", "--store", target.as_uri(), "--json")
    report = json.loads(out)
    assert (status, report["ok"], report["problems"]) == (0, True, [])
    assert report["counts"]
