"""Another language uses graphmem: the Node client of clients/typescript against a live server.

Its types are generated from docs/openapi.json and checked with tsc (`npm run build`), so a
change of the API that breaks the client fails here; then the example makes the three calls
a game makes, with plain fetch, against ``graphmem serve`` on loopback.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from server_support import Api

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "typescript"


@pytest.fixture(scope="module")
def built() -> Path:
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.fail("Node 20+ and npm are needed: make test installs the client's packages")
    if not (CLIENT / "node_modules" / ".package-lock.json").exists():
        pytest.fail("clients/typescript/node_modules is missing: run `make test` (npm ci)")
    done = subprocess.run(
        [npm, "run", "build"], cwd=CLIENT, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
    return CLIENT / "dist" / "example.js"


def test_node_client_creates_forks_and_reads_a_snapshot(api: Api, built: Path) -> None:
    env = {**os.environ, "GRAPHMEM_URL": api.served.url, "GRAPHMEM_KEY": api.keys["beta"]}
    done = subprocess.run(
        ["node", str(built)], cwd=CLIENT, capture_output=True, text=True, timeout=120, env=env
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen == {
        "npc": "Odile Marrow",
        "facts": ["odile distrusts kestrel"],
        "prompt": seen["prompt"],
        "history": ["Can you take me across?", "Not tonight. The river is high."],
        "branches": [2, 2],
        "odileThinksTheBoatIsAt": ["north-bank"],  # she did not see it moved
        "lieBelievedBy": [["odile"]],  # Kestrel's lie agrees with what she saw
        "kestrelThinksOdileThinks": ["north-bank"],
        "odileIsWrong": [["north-bank", ["south-bank"]]],  # beside the truth
        "boatIsAt": ["located_in south-bank"],
        "odileSees": seen["odileSees"],
        "odileDistrusts": ["odile -distrusts-> kestrel"],
        "missing": "404 NotFound",
    }
    assert "the boat located in the north bank" in seen["odileSees"]
    assert seen["prompt"].startswith("Odile Marrow (npc)\nOccupation: ferrywoman")
    # What the Node client wrote is in beta's memory, and only there.
    with api.client("beta") as beta, api.client("alpha") as alpha:
        assert beta.get("/v1/conversations/ferry-1/branches").json()["branches"][1]["active"]
        assert alpha.get("/v1/entities/odile").status_code == 404


def test_a_broken_spec_fails_the_type_check(tmp_path: Path, built: Path) -> None:
    """The client refers to schema names tsc must find: rename one and the build fails."""
    spec = json.loads((CLIENT.parents[1] / "docs" / "openapi.json").read_text("utf-8"))
    schemas = spec["components"]["schemas"]
    schemas["Renamed"] = schemas.pop("NPCIdentity")
    broken = tmp_path / "openapi.json"
    broken.write_text(json.dumps(spec).replace("/NPCIdentity", "/Renamed"), "utf-8")
    schema_ts = tmp_path / "schema.d.ts"
    generate = subprocess.run(
        [
            str(CLIENT / "node_modules" / ".bin" / "openapi-typescript"),
            str(broken),
            "--output",
            str(schema_ts),
            "--default-non-nullable",
            "false",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert generate.returncode == 0, generate.stderr
    project = tmp_path / "project"
    shutil.copytree(CLIENT / "src", project / "src")
    shutil.copy(schema_ts, project / "src" / "schema.d.ts")
    shutil.copy(CLIENT / "tsconfig.json", project / "tsconfig.json")
    (project / "node_modules").symlink_to(CLIENT / "node_modules")
    check = subprocess.run(
        [str(CLIENT / "node_modules" / ".bin" / "tsc"), "-p", "tsconfig.json", "--noEmit"],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert check.returncode != 0 and "NPCIdentity" in check.stdout


def test_the_readme_snippets_compile_under_the_package_tsconfig(
    built: Path, tmp_path: Path
) -> None:
    """Every ```ts block of clients/typescript/README.md, in order, as one module, type-checks."""
    readme = (CLIENT / "README.md").read_text("utf-8")
    blocks = [b.split("```", 1)[0] for b in readme.split("```ts\n")[1:]]
    assert blocks, "the README has no TypeScript example"
    source = tmp_path / "src"
    source.mkdir()
    for name in ("client.ts", "schema.d.ts"):
        shutil.copy(CLIENT / "src" / name, source / name)
    (source / "readme.ts").write_text("\n".join(blocks) + "\nexport {};\n", "utf-8")
    shutil.copy(CLIENT / "tsconfig.json", tmp_path / "tsconfig.json")
    # The package is an ES module ("type": "module"), so its README may await at top level.
    shutil.copy(CLIENT / "package.json", tmp_path / "package.json")
    (tmp_path / "node_modules").symlink_to(CLIENT / "node_modules")
    tsc = CLIENT / "node_modules" / ".bin" / "tsc"
    done = subprocess.run(
        [str(tsc), "-p", str(tmp_path / "tsconfig.json"), "--noEmit"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
