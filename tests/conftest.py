"""Suite-wide pytest hooks."""

from __future__ import annotations

from collections import Counter

import pytest


def pytest_addoption(parser: pytest.Parser) -> None:
    """``--backend``: which backends the conformance suite runs on (here: only the root
    conftest may add options; tests/conformance/conftest.py reads it)."""
    parser.addoption(
        "--backend",
        action="append",
        default=[],
        metavar="NAME",
        help=(
            "run the conformance suite on this backend only (repeat or comma-separate for "
            "several): an id of tests/conformance/backends.py (memory, file, neo4j) or any "
            "registered URL scheme, e.g. a plugin's. Default: every backend of backends.py."
        ),
    )


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Say once why tests were skipped (e.g. no Neo4j reachable), with how many."""
    reasons: Counter[str] = Counter()
    for report in terminalreporter.stats.get("skipped", []):
        longrepr = report.longrepr
        reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
        reasons[reason.removeprefix("Skipped: ")] += 1
    if reasons:
        terminalreporter.section("skipped, by reason")
        for reason, count in reasons.most_common():
            terminalreporter.line(f"{count:5d}  {reason}")
