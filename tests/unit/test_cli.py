"""The graphmem command line, driven through main(argv) on file:// stores in tmp_path."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest

import graphmem
from graphmem.cli import program as cli
from graphmem.cli.program import main
from graphmem.core.models import NPCIdentity, estimate_tokens
from graphmem.tools.demos.village import DEMO_TENANT, ENTITIES, FACTS, MAIN_NPC_ID, build_demo_world


@pytest.fixture
def world(tmp_path: Path) -> str:
    """A file:// store holding the demo village, closed again."""
    url = (tmp_path / "world.graphmem").as_uri()
    with graphmem.open(url, tenant=DEMO_TENANT) as mem:
        build_demo_world(mem)
    return url


def _sorted(dump: graphmem.TenantDump) -> tuple[list, list, list, dict]:
    return (
        sorted(dump.entities, key=lambda e: e.id),
        sorted(dump.relationships, key=lambda r: r.key),
        sorted(dump.turns, key=lambda t: t.id),
        dict(dump.heads),
    )


# ----------------------------------------------------------------------------- demo


def test_demo_builds_forks_snapshots_and_reopens(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "village.graphmem"
    assert main(["demo", "--file", str(path)]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert path.exists()
    assert "Odile Marrow (npc)" in out
    assert "Occupation: ferrywoman" in out
    assert "fork" in out
    assert "Who runs the mill these days?" in out
    assert out.count("identical") == 5
    assert "DIFFERENT" not in out
    # The file holds the world afterwards: 30 entities, the facts and the learned one.
    with graphmem.open(path.as_uri(), tenant=DEMO_TENANT) as mem:
        assert mem.count_entities() == len(ENTITIES)
        assert mem.count_relationships() == len(FACTS) + 2
        history = mem.conversation("demo-chat").history()
        assert [t.role for t in history] == ["player", "npc", "player", "npc"]
        assert mem.conversation("demo-chat").count() == 6


def test_demo_default_runs_in_a_temporary_directory(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo"]) == 0
    out = capsys.readouterr().out
    assert "graphmem-demo-" in out
    assert out.count("identical") == 5


def test_demo_refuses_an_existing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "taken.graphmem"
    path.write_text("keep me\n")
    assert main(["demo", "--file", str(path)]) == 2
    captured = capsys.readouterr()
    assert "already exists" in captured.err
    assert path.read_text() == "keep me\n"


# ----------------------------------------------------------------------------- snapshot


def test_snapshot_prints_the_prompt(world: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--store", world, "--tenant", DEMO_TENANT, MAIN_NPC_ID]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert lines[0] == "Odile Marrow (npc)"
    assert lines[1] == "Occupation: ferrywoman"
    assert "- Odile Marrow distrusts Halden Crook (confirmed, confidence 0.95)" in lines
    # The invalidated fact is not part of who she is now.
    assert not any("trusts Halden" in line and "distrusts" not in line for line in lines)


def test_snapshot_keeps_within_max_tokens(world: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["snapshot", "--store", world, "--tenant", DEMO_TENANT, MAIN_NPC_ID]
    assert main([*argv, "--max-tokens", "120"]) == 0
    text = capsys.readouterr().out.rstrip("\n")
    assert estimate_tokens(text) <= 120
    assert text.startswith("Odile Marrow (npc)")


def test_snapshot_json_is_an_npc_identity(world: str, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["snapshot", "--store", world, "--tenant", DEMO_TENANT, MAIN_NPC_ID, "--json"]
    assert main(argv) == 0
    identity = NPCIdentity.model_validate_json(capsys.readouterr().out)
    assert identity.entity.id == MAIN_NPC_ID
    assert identity.entity.attributes["alignment"] == "lawful neutral"
    assert ("odile", "halden", "distrusts") in {r.key for r in identity.relationships}


def test_snapshot_json_and_max_tokens_exclude_each_other(
    world: str, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["snapshot", "--store", world, "--tenant", DEMO_TENANT, MAIN_NPC_ID]
    assert main([*argv, "--json", "--max-tokens", "50"]) == 2
    assert "not allowed with" in capsys.readouterr().err


# ----------------------------------------------------------------------------- export / import


def test_export_to_stdout_is_json_lines(world: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--store", world, "--tenant", DEMO_TENANT]) == 0
    records = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert records[0]["kind"] == "graphmem"
    assert records[0]["tenant"] == DEMO_TENANT
    kinds = [r["kind"] for r in records]
    assert kinds.count("entity") == len(ENTITIES)
    assert kinds.count("relationship") == len(FACTS) + 1
    assert kinds.count("turn") == 10
    assert kinds.count("head") == 3


def test_export_import_round_trip(
    world: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / "world.jsonl"
    copy_url = (tmp_path / "copy.graphmem").as_uri()
    assert main(["export", "--store", world, "--tenant", DEMO_TENANT, "-o", str(exported)]) == 0
    assert f"to {exported}" in capsys.readouterr().out

    assert main(["import", "--store", copy_url, "--tenant", "copy", str(exported)]) == 0
    out = capsys.readouterr().out
    assert f"imported {len(ENTITIES)} entities, {len(FACTS) + 1} relationships" in out
    assert "10 turns in 3 conversations" in out

    with (
        graphmem.open(world, tenant=DEMO_TENANT) as original,
        graphmem.open(copy_url, tenant="copy") as copy,
    ):
        assert _sorted(copy.dump()) == _sorted(original.dump())
        assert copy.identity_snapshot(MAIN_NPC_ID) == original.identity_snapshot(MAIN_NPC_ID)


def test_import_reads_stdin(
    world: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    exported = tmp_path / "world.jsonl"
    assert main(["export", "--store", world, "--tenant", DEMO_TENANT, "-o", str(exported)]) == 0
    capsys.readouterr()
    copy_url = (tmp_path / "stdin.graphmem").as_uri()
    with exported.open(encoding="utf-8") as handle:
        monkeypatch.setattr("sys.stdin", handle)
        assert main(["import", "--store", copy_url, "--tenant", "copy", "-"]) == 0
    assert f"imported {len(ENTITIES)} entities" in capsys.readouterr().out


# ----------------------------------------------------------------------------- errors


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("graphmem: error: ")
    assert err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def test_unknown_npc_is_a_clear_error(world: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--store", world, "--tenant", DEMO_TENANT, "nobody"]) == 2
    assert "nobody" in _one_line_error(capsys)


def test_empty_tenant_fails_closed(world: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["snapshot", "--store", world, "--tenant", "", MAIN_NPC_ID]) == 2
    assert "tenant" in _one_line_error(capsys)
    assert main(["export", "--store", world, "--tenant", "  "]) == 2
    assert "tenant" in _one_line_error(capsys)


def test_unknown_store_scheme(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["export", "--store", "nosuch://x", "--tenant", "t"]) == 2
    assert "nosuch://" in _one_line_error(capsys)


def test_import_of_a_missing_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    url = (tmp_path / "empty.graphmem").as_uri()
    missing = tmp_path / "missing.jsonl"
    assert main(["import", "--store", url, "--tenant", "t", str(missing)]) == 2
    assert "missing.jsonl" in _one_line_error(capsys)


def test_import_of_a_bad_file_names_the_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"kind": "graphmem", "version": 1}\n{"kind": "entity", "id": "x"}\n')
    url = (tmp_path / "target.graphmem").as_uri()
    assert main(["import", "--store", url, "--tenant", "t", str(bad)]) == 2
    assert "line 2" in _one_line_error(capsys)
    with graphmem.open(url, tenant="t") as mem:
        assert mem.count_entities() == 0


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 2
    assert "COMMAND" in capsys.readouterr().err
    assert main(["snapshot", "odile"]) == 2
    assert "--store" in capsys.readouterr().err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"graphmem {graphmem.__version__}"


def test_demo_against_a_store_url(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--store", "memory://"]) == 0
    out = capsys.readouterr().out
    assert "identity snapshot" in out
    assert "keeps nothing after close" in out


def test_demo_reset_needs_a_store(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["demo", "--reset"]) == 2
    assert "--reset goes with --store" in capsys.readouterr().err


def test_demo_reset_clears_the_demo_tenant_first(tmp_path: Path) -> None:
    url = f"file://{tmp_path}/w.graphmem"
    assert main(["demo", "--store", url]) == 0
    assert main(["demo", "--store", url]) == 2  # the tenant already holds the world
    assert main(["demo", "--store", url, "--reset"]) == 0


def test_schema_install_on_the_embedded_backend_has_nothing_to_do(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["schema", "install", "--store", "memory://"]) == 0
    assert "nothing to install" in capsys.readouterr().out


def test_schema_install_on_an_unreachable_neo4j_is_a_clear_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    pytest.importorskip("neo4j")
    assert main(["schema", "install", "--store", "bolt://neo4j:secret@127.0.0.1:1"]) == 2
    err = capsys.readouterr().err
    assert "cannot be reached" in err
    assert "secret" not in err


@pytest.mark.parametrize(
    ("flags", "quantization", "rebuild"),
    [
        ([], False, False),
        (["--quantization", "on"], True, False),
        (["--quantization", "off", "--rebuild-vector-indexes"], False, True),
    ],
)
def test_schema_install_passes_quantization_and_rebuild(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    flags: list[str],
    quantization: bool,
    rebuild: bool,
) -> None:
    calls: list[dict[str, object]] = []

    class Report:
        indexes = ()

        def __init__(self, quantization: bool) -> None:
            self.quantization = quantization

    def fake_install(url: str, **options: Any) -> Report:
        calls.append({"url": url, **options})
        return Report(bool(options["quantization"]))

    monkeypatch.setattr(cli, "install_schema", fake_install)
    assert main(["schema", "install", "--store", "bolt://h:7687", *flags]) == 0
    assert calls == [
        {
            "url": "bolt://h:7687",
            "dimension": 384,
            "quantization": quantization,
            "rebuild_vector_indexes": rebuild,
            "wait": True,
        }
    ]
    assert f"vector quantization {'on' if quantization else 'off'}" in capsys.readouterr().out


def test_schema_install_refuses_an_unknown_quantization(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema", "install", "--store", "bolt://h:7687", "--quantization", "maybe"]) == 2
    assert "--quantization" in capsys.readouterr().err


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize("quiet", [False, True])
def test_import_draws_a_progress_bar_on_a_terminal_unless_quiet(
    world: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    quiet: bool,
) -> None:
    exported = tmp_path / "world.jsonl"
    assert main(["export", "--store", world, "--tenant", DEMO_TENANT, "-o", str(exported)]) == 0
    capsys.readouterr()
    terminal = _Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    argv = ["import", "--store", (tmp_path / "c.graphmem").as_uri(), "--tenant", "c"]
    assert main([*argv, str(exported), *(["--quiet"] if quiet else [])]) == 0
    assert ("importing world.jsonl" in terminal.getvalue()) is not quiet
    assert "imported" in capsys.readouterr().out
