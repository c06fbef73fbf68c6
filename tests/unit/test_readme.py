"""The README's example runs, and prints what the README says it prints."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[2] / "README.md"


def _first_block(language: str) -> str:
    match = re.search(rf"^```{language}\n(.*?)^```$", README.read_text("utf-8"), re.S | re.M)
    assert match, f"README.md has no ```{language} block"
    return match.group(1)


def test_readme_example_runs(capsys: pytest.CaptureFixture[str]) -> None:
    code = _first_block("python")
    exec(compile(code, str(README), "exec"), {"__name__": "readme_example"})
    assert capsys.readouterr().out == _first_block("text")


def test_readme_example_is_on_the_first_screen() -> None:
    lines = README.read_text("utf-8").splitlines()
    first_screen = "\n".join(lines[:40])
    assert lines[0] == "# graphmem"
    assert "make demo" in first_screen
    assert "make test" in first_screen
    # not on a package index yet: from a checkout, or a wheel built from one
    assert "pip install ." in first_screen
    assert "python -m build" in first_screen and "dist/graphmem-" in first_screen
    assert "```python" in first_screen


def test_readme_shell_lines_survive_zsh() -> None:
    """A URL with '?' is quoted: zsh would take it as a glob and stop ("no matches found")."""
    for line in README.read_text("utf-8").splitlines():
        if line.startswith("curl "):
            for word in line.split():
                assert "?" not in word or word[0] in "'\"", line


def test_readme_links_name_files_of_the_repository() -> None:
    """Every relative link names a file or folder of the repository."""
    text = README.read_text("utf-8")
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links
    for link in links:
        if link.startswith(("http://", "https://", "mailto:")):
            continue
        target = link.split("#", 1)[0]
        assert (README.parent / target).exists(), f"README links to a missing {target}"
