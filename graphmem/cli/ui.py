"""``graphmem ui``: the inspector on a local store, served on loopback and opened.

Starts the same server as ``graphmem serve --tenant T`` (loopback only, no keys), prints the
address of the inspector page and opens it in a browser when there is one to open (a
desktop session; never a text browser in the terminal the server writes to). Stops on
Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import os
import sys
import threading
import webbrowser
from pathlib import Path
from typing import Any, TextIO

__all__ = ["add_ui", "run_ui"]

UI_PATH = "/ui/"


def add_ui(commands: Any) -> None:
    """Add ``graphmem ui`` to the ``graphmem`` subparsers."""
    ui = commands.add_parser(
        "ui",
        help="open the inspector (a web page) on a store, served on loopback",
        description="Serve the HTTP API and the inspector page for one tenant on a loopback "
        "address (no keys), print the page's address and open it in a browser when one "
        "can be opened. For a shared server with keys, use graphmem serve and open /ui.",
    )
    ui.add_argument(
        "--store",
        required=True,
        metavar="URL",
        help="the store URL: memory://, file:///path/world.graphmem, neo4j://host, ...",
    )
    ui.add_argument("--tenant", required=True, metavar="T", help="whose memory to inspect")
    ui.add_argument("--host", default="127.0.0.1", help="a loopback address (127.0.0.1)")
    ui.add_argument("--port", type=int, default=0, help="port (0, the default, picks a free one)")
    ui.add_argument("--policy", type=Path, metavar="FILE", help="a governance policy file")
    ui.add_argument(
        "--embedder",
        choices=("default", "hashing"),
        default="default",
        help="what embeds text for the Recall view: 'default' (all-MiniLM-L6-v2, the "
        "embeddings extra) or 'hashing' (deterministic, no model)",
    )
    ui.add_argument(
        "--no-browser", action="store_true", help="only print the address; open nothing"
    )


def _can_open_browser() -> bool:
    """A graphical browser can be opened: a desktop session, or $BROWSER says which."""
    if os.environ.get("BROWSER"):
        return True
    if sys.platform in ("darwin", "win32"):
        return True
    return bool(os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY"))


class _Announcer:
    """Passes the server's lines on; on the first one, says where the page is and opens it."""

    def __init__(self, out: TextIO, *, browse: bool) -> None:
        self._out = out
        self._browse = browse
        self._done = False
        self._line = ""

    def write(self, text: str) -> int:
        written = self._out.write(text)
        self._line += text
        if not self._done and "\n" in self._line and "listening on " in self._line:
            self._done = True
            base = self._line.split("listening on ", 1)[1].split()[0]
            url = f"{base}{UI_PATH}"
            self._out.write(f"graphmem ui: the inspector is at {url}\n")
            if self._browse and _can_open_browser():
                # In a thread: a browser that takes its time must not hold up the server.
                threading.Thread(target=_open, args=(url, self._out), daemon=True).start()
            else:
                self._out.write("graphmem ui: open that address in a browser\n")
            self._out.flush()
        if "\n" in self._line:
            self._line = self._line.rsplit("\n", 1)[1]
        return written

    def flush(self) -> None:
        self._out.flush()


def _open(url: str, out: TextIO) -> None:
    try:
        opened = webbrowser.open(url, new=2)
    except webbrowser.Error:
        opened = False
    if not opened:
        out.write("graphmem ui: no browser could be opened; open the address above\n")
        out.flush()


def run_ui(args: argparse.Namespace, out: TextIO | None = None) -> int:
    """Run ``graphmem ui`` until SIGINT or SIGTERM; return the exit status."""
    from graphmem.cli.arguments import load_policy, server_embedder
    from graphmem.doors.extras import require_extra

    require_extra()
    from graphmem.doors.http.app import ServerConfig
    from graphmem.doors.http.run import serve

    config = ServerConfig(
        store=args.store,
        tenant=args.tenant,
        policy=load_policy(args.policy),
        embedder=server_embedder(args.embedder),
    )
    announcer = _Announcer(out or sys.stdout, browse=not args.no_browser)
    serve(config, host=args.host, port=args.port, out=announcer)  # type: ignore[arg-type]
    return 0
