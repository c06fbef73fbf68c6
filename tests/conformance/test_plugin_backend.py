"""A backend from another distribution joins through the entry-point group and passes.

The test writes a small installed distribution (a module and its ``.dist-info`` with an
``entry_points.txt``) to a temporary directory, puts it on ``PYTHONPATH`` and runs a
representative part of this suite with ``--backend loopback`` in a fresh pytest process:
``importlib.metadata`` finds the entry point as it finds any installed plugin's, and
``open_store("loopback://")`` loads it. The loopback store is a class of its own that
forwards every operation to a ``memory://`` store.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

REPOSITORY = Path(__file__).parents[2]

MODULE = '''"""A loopback graphmem backend: memory:// stores behind a class of its own."""

from graphmem.core.registry import Backend
from graphmem.core.store import GraphStore, open_store, protocol_members


class LoopbackStore:
    def __init__(self, url, **options):
        self._inner = open_store("memory://", **options)
        self._url = url

    @property
    def url(self):
        return self._url

    @property
    def capabilities(self):
        return self._inner.capabilities


def _forward(name):
    def operation(self, *args, **kwargs):
        return getattr(self._inner, name)(*args, **kwargs)

    operation.__name__ = name
    return operation


for _name in sorted(protocol_members(GraphStore) - {"url", "capabilities"}):
    setattr(LoopbackStore, _name, _forward(_name))

BACKEND = Backend("loopback", ("loopback",), LoopbackStore)
'''

MODULES = [
    "test_rooms.py",
    "test_entities.py",
    "test_relationships.py",
    "test_traversal.py",
    "test_identity.py",
    "test_conversations.py",
    "test_turn_window.py",
    "test_records.py",
    "test_record_writes.py",
    "test_search.py",
    "test_hybrid_search.py",
    "test_dump_load.py",
    "test_tenancy.py",
]


def _install_loopback(site: Path) -> None:
    (site / "graphmem_loopback.py").write_text(MODULE)
    info = site / "graphmem_loopback-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: graphmem-loopback\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[graphmem.backends]\nloopback = graphmem_loopback:BACKEND\n"
    )


@pytest.mark.slow
def test_a_plugin_backend_passes_the_conformance_suite(tmp_path: Path) -> None:
    site = tmp_path / "site"
    site.mkdir()
    _install_loopback(site)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(site), env.get("PYTHONPATH")]))
    pytest_script = Path(sys.executable).with_name("pytest")
    run = subprocess.run(
        [
            str(pytest_script),
            "-v",
            "-p",
            "no:cacheprovider",
            "--backend",
            "loopback",
            *(f"tests/conformance/{module}" for module in MODULES),
        ],
        cwd=REPOSITORY,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-2000:]
    passed = re.findall(r"\[loopback[^\]]*\] PASSED", run.stdout)
    other = re.findall(r"\[(memory|file|neo4j)[^\]]*\] ", run.stdout)
    assert len(passed) > 300, run.stdout[-4000:]
    assert not other  # --backend selected the plugin only
    assert "test_the_store_satisfies_the_rooms_its_backend_declares[loopback] PASSED" in run.stdout
