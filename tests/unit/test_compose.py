"""docker/compose.yml and docker/Dockerfile, read as text (no Docker engine needed).

Compose builds the graphmem image from this checkout (the wheel with its extras, nothing
installed when a container starts), starts Neo4j and graphmem with health checks, passes
the Neo4j password in its own variable (URL-encoded by the entrypoint), refuses to start
without the keys file instead of mounting a directory in its place, and serves retrieval
with the default embedder (healthy only once it is warm).
"""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest

yaml = pytest.importorskip("yaml")

DOCKER = Path(__file__).resolve().parents[2] / "docker"
COMPOSE = DOCKER / "compose.yml"
DOCKERFILE = DOCKER / "Dockerfile"
ENTRYPOINT = DOCKER / "entrypoint.sh"


@pytest.fixture(scope="module")
def services() -> dict:
    found: dict = yaml.safe_load(COMPOSE.read_text("utf-8"))["services"]
    return found


def _instructions(text: str) -> list[tuple[str, str]]:
    """The Dockerfile's instructions (continuation lines joined), comments dropped."""
    joined = re.sub(r"\\\n", " ", text)
    out = []
    for line in joined.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            out.append((keyword.upper(), rest.strip()))
    return out


def test_compose_builds_the_image_and_starts_nothing_with_pip(services: dict) -> None:
    assert {"neo4j", "graphmem", "demo"} <= set(services)
    for name in ("graphmem", "demo"):
        build = services[name]["build"]
        assert (build["context"], build["dockerfile"]) == ("..", "docker/Dockerfile")
        assert services[name]["image"] == "graphmem:local"
        command = " ".join(services[name].get("command", []))
        assert "pip" not in command and "pip install" not in COMPOSE.read_text("utf-8")
        assert services[name]["depends_on"]["neo4j"]["condition"] == "service_healthy"
    assert services["graphmem"]["command"] == ["serve"]
    assert services["demo"]["command"] == ["demo"]


def test_health_checks_and_readiness(services: dict) -> None:
    assert "healthcheck" in services["neo4j"]
    check = " ".join(services["graphmem"]["healthcheck"]["test"])
    assert "http://127.0.0.1:8750/readyz" in check  # ready: store open, embedder warm
    assert services["graphmem"]["ports"] == ["127.0.0.1:8750:8750"]


def test_the_password_travels_in_its_own_variable(services: dict) -> None:
    for name in ("graphmem", "demo"):
        environment = services[name]["environment"]
        assert "GRAPHMEM_STORE" not in environment  # no password spliced into a URL here
        assert environment["NEO4J_PASSWORD"] == "${NEO4J_PASSWORD:-graphmem-dev-password}"
    script = ENTRYPOINT.read_text("utf-8")
    assert "urllib.parse.quote(" in script and 'safe=""' in script


def test_the_entrypoint_encodes_any_password(tmp_path: Path) -> None:
    """Run the entrypoint's URL step with a hostile password; the URL parses back to it."""
    script = ENTRYPOINT.read_text("utf-8")
    url_part = script.split('case "${1:-serve}" in', 1)[0]
    probe = tmp_path / "probe.sh"
    probe.write_text(url_part + 'printf "%s" "$GRAPHMEM_STORE"\n', "utf-8")
    password = "p@ss:w/rd#?&% é"
    done = subprocess.run(
        ["sh", str(probe)],
        capture_output=True,
        text=True,
        env={"NEO4J_PASSWORD": password, "PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin"},
        timeout=30,
    )
    assert done.returncode == 0, done.stderr
    parts = urllib.parse.urlsplit(done.stdout)
    assert (parts.hostname, parts.port, parts.username) == ("neo4j", 7687, "neo4j")
    assert urllib.parse.unquote(parts.password or "") == password


def test_a_missing_keys_file_is_an_error_not_a_directory(services: dict) -> None:
    [keys] = services["graphmem"]["volumes"]
    assert keys["type"] == "bind" and keys["source"] == "./keys.toml"
    assert keys["read_only"] is True
    assert keys["bind"]["create_host_path"] is False


def test_the_dockerfile_installs_the_wheel_with_its_extras() -> None:
    steps = _instructions(DOCKERFILE.read_text("utf-8"))
    froms = [rest for keyword, rest in steps if keyword == "FROM"]
    assert len(froms) == 2 and froms[0].endswith(" AS wheel")
    runs = " ".join(rest for keyword, rest in steps if keyword == "RUN")
    assert "python -m build --wheel" in runs
    assert '"${whl}[neo4j,server,embeddings]"' in runs
    assert "torch==2.13.0" in runs and "whl/cpu" in runs
    assert ("USER", "graphmem") in steps
    health = next(rest for keyword, rest in steps if keyword == "HEALTHCHECK")
    assert "/readyz" in health
    assert ("ENTRYPOINT", '["graphmem-entrypoint"]') in steps
    script = ENTRYPOINT.read_text("utf-8")
    assert "--embedder default" in script and "--mcp" in script
    assert "pip" not in script


def test_the_dockerfile_copies_what_the_wheel_needs() -> None:
    copied = " ".join(
        rest for keyword, rest in _instructions(DOCKERFILE.read_text("utf-8")) if keyword == "COPY"
    )
    for path in ("pyproject.toml", "README.md", "LICENSE", "graphmem", "cypher"):
        assert path in copied
    pyproject = (DOCKER.parent / "pyproject.toml").read_text("utf-8")
    assert 'readme = "README.md"' in pyproject or "README.md" in pyproject
