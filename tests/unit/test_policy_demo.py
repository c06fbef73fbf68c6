"""The policy demo runs and shows a degraded conversation recovering."""

from pathlib import Path

from graphmem.policy.demo import run


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
