"""The examples of examples/ run as a user runs them (a fresh interpreter) and do what they say."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


def _run(script: str, *args: str) -> str:
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    return done.stdout


def test_the_langgraph_example_remembers_across_runs(tmp_path: Path) -> None:
    pytest.importorskip("langgraph", reason="the langgraph extra is not installed")
    store = f"file://{tmp_path}/agent.graphmem"
    first = _run("langgraph_store.py", "--store", store).splitlines()
    assert first[:2] == [
        "said:     My sister Ada keeps bees on the roof.",
        "recalled: (nothing yet)",
    ]
    # the question about walnuts recalls the allergy, not the bees
    assert first[6:8] == [
        "said:     Should I bake a cake with walnuts?",
        "recalled: I am allergic to walnuts.",
    ]
    assert first[-2:] == ["namespaces: [('memories', 'sam')]", "memories of sam: 4"]
    # a second run opens the same file: the first run's memories are there
    second = _run("langgraph_store.py", "--store", store).splitlines()
    assert second[1] != "recalled: (nothing yet)"
    assert second[-1] == "memories of sam: 8"


def test_the_openai_agents_example_keeps_history_and_branches(tmp_path: Path) -> None:
    pytest.importorskip("agents", reason="the openai-agents extra is not installed")
    out = _run("openai_agents_session.py", "--store", f"file://{tmp_path}/s.graphmem")
    lines = out.splitlines()
    assert lines[1] == "  That is question 1; your first was: 'Can you take me across?'."
    assert lines[5] == "  That is question 3; your first was: 'Can you take me across?'."
    # after undoing the third exchange, the next question is the third again
    assert lines[6:8] == [
        "> When do you leave?",
        "  That is question 3; your first was: 'Can you take me across?'.",
    ]
    assert lines[-2] == "items in the session: 6"
    assert lines[-1].startswith("branches kept: 2")
