"""Progress bars for long work: drawn with tqdm on a terminal, nothing otherwise.

Every long operation of the library and the CLI (document ingest, turn indexing,
``graphmem eval``, ``bench`` and ``import``) reports through :func:`progress_bar`. A bar
is drawn on stderr only when asked for *and* stderr is a terminal, so logs, pipes and CI
output get nothing extra; tqdm is imported only then (``import graphmem`` stays light).
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol

__all__ = ["Bar", "progress_bar", "wants_progress", "write_line"]


class Bar(Protocol):
    """What a long operation reports to: how many steps were done."""

    def update(self, n: float = 1) -> Any:
        """Count ``n`` more steps done."""
        ...

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> Any:
        """Show a short status after the bar."""
        ...


class _Silent:
    """A bar that draws nothing."""

    def update(self, n: float = 1) -> None:
        """Count nothing."""

    def set_postfix_str(self, s: str = "", refresh: bool = True) -> None:
        """Show nothing."""


def wants_progress(quiet: bool = False) -> bool:
    """Whether to draw bars: not ``quiet``, and stderr is a terminal."""
    if quiet:
        return False
    isatty = getattr(sys.stderr, "isatty", None)
    return bool(isatty and isatty())


@contextmanager
def progress_bar(
    total: int | None, description: str, enabled: bool, unit: str = "it"
) -> Iterator[Bar]:
    """A bar of ``total`` steps when ``enabled`` and stderr is a terminal, else a silent one."""
    if not (enabled and wants_progress()):
        yield _Silent()
        return
    from tqdm import tqdm

    bar = tqdm(
        total=total, desc=description, unit=unit, leave=False, file=sys.stderr, dynamic_ncols=True
    )
    try:
        yield bar
    finally:
        bar.close()


def write_line(text: str, file: Any = None) -> None:
    """Print a line without breaking a progress bar drawn on the same terminal."""
    file = file if file is not None else sys.stdout
    tqdm_module = sys.modules.get("tqdm")
    if tqdm_module is not None:  # a bar may be on screen: tqdm clears and redraws it
        tqdm_module.tqdm.write(text, file=file)
        file.flush()
    else:
        print(text, file=file, flush=True)
