"""The policy demo (a tool: graphmem/tools/demos/) runs; a degraded conversation recovers."""

import ast
from pathlib import Path

import pytest

from graphmem.cli.program import main
from graphmem.tools.demos.policy import run


def test_demo_transcript_degrades_and_recovers():
    lines: list[str] = []
    run(lines.append)
    text = "\n".join(lines)
    order = [
        "health healthy -> retry (summarizer_failed)",
        "health retry -> degraded (retries_exhausted)",
        "mode=truncation health=degraded",
        "health recovering -> healthy (recovered)",
        "mode=rolling_summary health=healthy",
    ]
    positions = [text.index(part) for part in order[:-1]] + [text.rindex(order[-1])]
    assert positions == sorted(positions)
    assert lines[-1] == "stored turns: 8; folded into the summary: 6"


def test_the_transcript_in_the_docs_is_the_real_output():
    lines: list[str] = []
    run(lines.append)
    doc = (Path(__file__).parents[2] / "docs" / "policy.md").read_text(encoding="utf-8")
    assert "\n".join(lines) in doc


def test_graphmem_demo_policy_prints_the_same_transcript(capsys):
    lines: list[str] = []
    run(lines.append)
    assert main(["demo", "--policy"]) == 0
    assert capsys.readouterr().out == "\n".join(lines) + "\n"


@pytest.mark.parametrize("extra", [["--file", "x.graphmem"], ["--store", "memory://"]])
def test_graphmem_demo_policy_takes_no_store(extra, capsys):
    assert main(["demo", "--policy", *extra]) == 2
    assert "--policy runs on an embedded store" in capsys.readouterr().err


def test_the_policy_layer_imports_no_door():
    """Logic never imports the package face or a demo (examples in docstrings aside)."""
    root = Path(__file__).parents[2] / "graphmem" / "policy"
    for path in root.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [node.module or ""]
            else:
                continue
            for name in names:
                assert name != "graphmem" and not name.startswith("graphmem.tools.demos"), path
