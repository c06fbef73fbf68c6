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
        # The inspector's built page (graphmem serve answers /ui from it).
        assert "graphmem/doors/http/ui_static/app.js" in wheel.namelist()
        # The relation words of graph questions, with WordNet's notice beside them.
        assert "graphmem/retrieval/graphqa/relwords.tsv.gz" in wheel.namelist()
        assert "graphmem/retrieval/graphqa/WORDNET-LICENSE" in wheel.namelist()
        # and the kinds of nouns ("who" asks for a person), from the same WordNet
        assert "graphmem/retrieval/graphqa/nounkinds.tsv.gz" in wheel.namelist()
        # Typed (PEP 561), with its licence.
        assert "graphmem/py.typed" in wheel.namelist()
        licences = [n for n in wheel.namelist() if n.endswith(".dist-info/licenses/LICENSE")]
        assert len(licences) == 1
        assert "Apache License" in wheel.read(licences[0]).decode("utf-8")
        metadata = next(n for n in wheel.namelist() if n.endswith(".dist-info/METADATA"))
        assert "License-Expression: Apache-2.0" in wheel.read(metadata).decode("utf-8")
    assert inside == set(query_names())


@pytest.mark.slow
def test_the_wheel_installs_and_runs_in_a_fresh_environment(tmp_path: Path) -> None:
    """What the README says: build the wheel, install it elsewhere, run the demo.

    Offline: the wheel goes in with ``--no-index --no-deps``, and its dependencies come
    from this environment's site-packages, placed after the new environment's own (a
    ``.pth`` line), so ``import graphmem`` is the installed wheel, not this checkout.
    """
    import json
    import os
    import site
    import venv

    clean = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # not this checkout

    built = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist"), str(ROOT)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stdout[-3000:] + built.stderr[-3000:]
    [wheel] = list((tmp_path / "dist").glob("graphmem-*.whl"))
    env_dir = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / "bin" / "python"
    fresh_site = Path(
        subprocess.check_output(
            [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
            text=True,
        ).strip()
    )
    (fresh_site / "zz_dependencies.pth").write_text(
        "\n".join(site.getsitepackages()) + "\n", "utf-8"
    )
    installed = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "--python",
            str(python),
            "install",
            "--no-index",
            "--no-deps",
            "--quiet",
            str(wheel),
        ],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert installed.returncode == 0, installed.stdout[-3000:] + installed.stderr[-3000:]
    where = subprocess.run(
        [str(python), "-c", "import graphmem; print(graphmem.__file__, graphmem.__version__)"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
        env=clean,
    )
    assert where.returncode == 0, where.stderr
    path, version = where.stdout.split()
    assert Path(path).is_relative_to(fresh_site) and version == "0.1.0"
    demo = subprocess.run(
        [str(env_dir / "bin" / "graphmem"), "demo", "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=clean,
    )
    assert demo.returncode == 0, demo.stderr[-3000:]
    assert json.loads(demo.stdout)["ok"] is True
