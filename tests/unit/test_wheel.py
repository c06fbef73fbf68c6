"""The wheel ships the Cypher files inside the package, where the loader finds them."""

from __future__ import annotations

import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from graphmem.backends.neo4j.queries import query_names

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.slow
def test_wheel_contains_every_cypher_file(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    wheels = list(tmp_path.glob("graphmem-*.whl"))
    assert len(wheels) == 1, wheels
    with zipfile.ZipFile(wheels[0]) as wheel:
        inside = {
            name.removeprefix("graphmem/cypher/").removesuffix(".cypher")
            for name in wheel.namelist()
            if name.startswith("graphmem/cypher/") and name.endswith(".cypher")
        }
        # The loader reads graphmem/cypher through importlib.resources in an installed wheel.
        assert "graphmem/backends/neo4j/queries.py" in wheel.namelist()
        # Typed (PEP 561), with its licence.
        assert "graphmem/py.typed" in wheel.namelist()
        licences = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(licences) == 1
        assert "Apache License" in wheel.read(licences[0]).decode("utf-8")
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        assert "License-Expression: Apache-2.0" in wheel.read(metadata).decode("utf-8")
    assert inside == set(query_names())
