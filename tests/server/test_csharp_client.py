"""Another language uses graphmem: the C# (Unity) client of clients/csharp against a live server.

The client is compiled with Mono's C# compiler (Debian's ``mono-mcs``, which ``make test``
installs where it can) and its example program runs on ``mono`` against ``graphmem serve`` on
loopback, from an empty tenant: a world, a conversation that forks, the snapshot, beliefs,
a graph question, retrieval, and the server's errors as typed exceptions. The hand-written
JSON reader and writer are checked against Python's ``json``; the UnityWebRequest transport
and the README's MonoBehaviour snippets are compiled against UnityEngine's API as
``Tests~/UnityEngineApi.cs`` declares it (names and types only: no Unity runs here).
"""

from __future__ import annotations

import json
import math
import os
import random
import re
import shutil
import socket
import struct
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from server_support import Api

CLIENT = Path(__file__).resolve().parents[2] / "clients" / "csharp"
RUNTIME = sorted((CLIENT / "Runtime").glob("*.cs"))
UNITY_API = CLIENT / "Tests~" / "UnityEngineApi.cs"
REFERENCES = ["-r:System.Net.Http.dll", "-r:System.Numerics.dll"]
INSTALL = (
    "apt-get install mono-mcs libmono-system-net-http4.0-cil libmono-system-numerics4.0-cil"
    " (make test does, as root)"
)


class Mono:
    """Mono's C# compiler and runtime, and a scratch folder for what they build."""

    def __init__(self, mcs: str, mono: str, folder: Path) -> None:
        self.mcs, self.mono, self.folder = mcs, mono, folder

    def compile(self, name: str, sources: list[Path], *options: str) -> Path:
        """Compile ``sources`` into ``name`` (.exe or .dll); warnings are errors."""
        out = self.folder / name
        target = "library" if name.endswith(".dll") else "exe"
        command = [self.mcs, "-warnaserror", f"-target:{target}", *REFERENCES]
        command += [f"-out:{out}", *options, *map(str, sources)]
        done = subprocess.run(command, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-4000:]
        return out

    def run(self, program: Path, **kwargs: Any) -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([self.mono, str(program)], capture_output=True, timeout=300, **kwargs)


@pytest.fixture(scope="module")
def mono(tmp_path_factory: pytest.TempPathFactory) -> Mono:
    mcs, runtime = shutil.which("mcs"), shutil.which("mono")
    if mcs is None or runtime is None:
        pytest.skip(f"no C# compiler (mcs) or mono runtime on this machine: {INSTALL}")
    folder = tmp_path_factory.mktemp("csharp")
    probe = folder / "probe.cs"
    probe.write_text(
        "class P { static void Main() {"
        ' new System.Net.Http.HttpClient(); System.Numerics.BigInteger.Parse("1"); } }'
    )
    done = subprocess.run(
        [mcs, *REFERENCES, f"-out:{folder / 'probe.exe'}", str(probe)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        pytest.skip(f"mcs cannot find the assemblies ({done.stdout.strip()}): {INSTALL}")
    return Mono(mcs, runtime, folder)


@pytest.fixture
def refused_url() -> Iterator[str]:
    """A loopback port that is bound but not listening: connections to it are refused."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield f"http://127.0.0.1:{bound.getsockname()[1]}"


@pytest.fixture
def silent_url() -> Iterator[str]:
    """A loopback port that accepts connections (the kernel's backlog) and never answers."""
    with socket.socket() as listening:
        listening.bind(("127.0.0.1", 0))
        listening.listen(8)
        yield f"http://127.0.0.1:{listening.getsockname()[1]}"


def test_the_csharp_client_builds_a_world_forks_and_reads_beliefs(
    mono: Mono, api: Api, refused_url: str, silent_url: str
) -> None:
    example = mono.compile("example.exe", [*RUNTIME, CLIENT / "Example~" / "Example.cs"])
    env = {
        **os.environ,
        "GRAPHMEM_URL": api.served.url,
        "GRAPHMEM_KEY": api.keys["beta"],
        "GRAPHMEM_DEAD_URL": refused_url,
        "GRAPHMEM_SILENT_URL": silent_url,
    }
    done = mono.run(example, env=env)
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")[-4000:]
    seen = json.loads(done.stdout.decode("utf-8"))
    invalid_errors = seen["invalid"].pop()
    assert seen == {
        "stored": ["odile", "kestrel", "zoe"],
        # Attributes of every JSON kind, written by the client, read back from the server.
        "attributes": {
            "occupation": "ferrywoman",
            "age": 41,
            "fare": 2.5,
            "routes": ["north", "south"],
            "moods": {"calm": True, "grudge": None},
        },
        "unicodeName": 'Zoë «the Ferry» 🚣 "quoted"\\ \x01',
        "forkedTo": "Can you take me across?",
        "history": ["Can you take me across?", "Not tonight. The river is high."],
        "branches": [2, 2],
        "activeBranch": 1,
        "head": ["t-3", "ferry/1", True],  # a '/' in the session id is one path segment
        "emptyHead": None,
        "npc": "Odile Marrow",
        "facts": ["odile -distrusts-> kestrel"],
        "factProvenance": [0.7, "inferred"],
        "related": ["kestrel"],
        "prompt": seen["prompt"],
        "promptTokens": seen["promptTokens"],
        "mooredWitnesses": ["kestrel", "odile"],
        "odileThinksTheBoatIsAt": ["north-bank"],  # she did not see it moved
        "odileBelief": ["north-bank", "witnessed"],
        "noBelief": None,
        "lieBelievedBy": [["odile"]],  # Kestrel's lie agrees with what she saw
        "kestrelThinksOdileThinks": ["north-bank"],
        "toldOdile": ["kestrel owns boat / told / kestrel"],
        "perspectiveBeliefs": 2,
        "odileSees": seen["odileSees"],
        "odileDistrusts": ["odile -distrusts-> kestrel"],
        "retrievedKinds": seen["retrievedKinds"],
        "retrievedOdile": True,
        "retrieveContext": True,
        "invalidated": True,
        "factsAfter": 0,  # invalidated: gone from the snapshot of now ...
        "keptFacts": 1,  # ... and kept, with its end
        "missing": [
            "NotFoundException",
            404,
            "NotFound",
            "no entity 'nobody' in tenant 'beta'",
            "/v1/npcs/nobody/snapshot",
        ],
        "invalid": ["InvalidInputException", 422, "InvalidInput", seen["invalid"][3]],
        "emptyId": [
            "InvalidInputException",
            0,
            "InvalidInput",
            "entityId is empty: give the id",
            None,
        ],
        "wrongKey": [
            "IdentityRequiredException",
            401,
            "IdentityRequired",
            "the API key is not known to this server",
            None,
        ],
        "noKey": [
            "IdentityRequiredException",
            401,
            "IdentityRequired",
            "this server needs an API key: send 'Authorization: Bearer <key>'",
            None,
        ],
        "nowhere": ["GraphmemConnectionException", 0, "ConnectionFailed", seen["nowhere"][3], None],
        "silent": ["GraphmemConnectionException", 0, "ConnectionFailed", seen["silent"][3], None],
        "cancelled": True,
        "rawCounts": {"entities": 6, "relationships": 3, "turns": 3},
    }
    assert seen["prompt"].startswith("Odile Marrow (npc)\nOccupation: ferrywoman\n")
    assert "Odile Marrow distrusts Kestrel Vane (inferred, confidence 0.70)" in seen["prompt"]
    assert 0 < seen["promptTokens"] <= 100
    assert "the boat located in the north bank" in seen["odileSees"]
    assert "Kestrel Vane owns the boat (heard from Kestrel Vane" in seen["odileSees"]
    assert set(seen["retrievedKinds"]) <= {"entity", "relationship", "turn", "chunk"}
    assert "'not a type!' is not a safe name" in seen["invalid"][3]
    assert [e["loc"] for e in invalid_errors] == [["body", "entities", 0, "type"]]
    assert seen["silent"][3] == f"no answer from {silent_url}/v1/npcs/odile/snapshot within 1 s"
    assert seen["nowhere"][3].startswith(f"no answer from GET {refused_url}/v1/npcs/odile/snapshot")
    # What the C# client wrote is in beta's memory, and only there.
    with api.client("beta") as beta, api.client("alpha") as alpha:
        assert beta.get("/v1/entities/zoe").json()["name"] == 'Zoë «the Ferry» 🚣 "quoted"\\ \x01'
        assert beta.get("/v1/conversations/ferry%2F1/branches").json()["branches"][1]["active"]
        assert alpha.get("/v1/entities/odile").status_code == 404


# ---------------------------------------------------------------------------- JSON


def _int64(text: str) -> int | float:
    """Python's reading of an integer, as the client reads it: a long, else a double."""
    value = int(text)
    return value if -(2**63) <= value < 2**63 else float(value)


def _exact(value: Any) -> Any:
    """A JSON value with each number tagged by its type, a double by its bits (-0.0 is not 0)."""
    if isinstance(value, float):
        return ("double", struct.pack("<d", value))
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, int):
        return ("long", value)
    if isinstance(value, list):
        return [_exact(item) for item in value]
    return {key: _exact(item) for key, item in value.items()}


def _random_text(rng: random.Random) -> str:
    alphabet = 'ab "\\/\n\t\x00\x1f\x7fé€\u2028\U0001f6a3\ufffd'
    text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(12)))
    return text + chr(rng.randrange(0x20, 0xD800))


def _random_value(rng: random.Random, depth: int = 0) -> Any:
    kind = rng.randrange(9 if depth < 6 else 6)
    if kind == 0:
        return None
    if kind == 1:
        return rng.random() < 0.5
    if kind == 2:
        return rng.randrange(-(2**63), 2**63)
    if kind == 3:
        while True:  # any finite double, subnormals and extremes included
            value = struct.unpack("<d", rng.randbytes(8))[0]
            if math.isfinite(value):
                return value
    if kind == 4:
        return rng.choice([0.1, -0.0, 1e300, 5e-324, 2.5, 1 / 3, 123456789.125])
    if kind == 5:
        return _random_text(rng)
    size = rng.randrange(5)
    if kind in (6, 7):
        return [_random_value(rng, depth + 1) for _ in range(size)]
    return {_random_text(rng): _random_value(rng, depth + 1) for _ in range(size)}


NOT_JSON = [
    "",
    " ",
    "[1,]",
    "{,}",
    '{"a":1,}',
    "01",
    "-",
    "1.",
    ".5",
    "+1",
    "1e",
    "0x10",
    "NaN",
    "Infinity",
    "tru",
    "nul",
    "[1 2]",
    '{"a" 1}',
    "{'a': 1}",
    '"\\x"',
    '"\\u12"',
    '"a\tb"',
    '"unterminated',
    "[]x",
    "[" * 257 + "]" * 257,  # deeper than the client's limit (the server's is 32)
]


def test_the_json_reader_and_writer_agree_with_python(mono: Mono) -> None:
    program = mono.compile("json.exe", [*RUNTIME, CLIENT / "Tests~" / "JsonRoundTrip.cs"])
    rng = random.Random(20261127)
    values = [_random_value(rng) for _ in range(400)]
    texts = [json.dumps(v, ensure_ascii=rng.random() < 0.5) for v in values]
    texts += [
        '{"a": 1, "a": 2}',  # the last wins, as in Python
        " [ 1 , -0 , -0.0 , 2.0 , 1E+2 , 12345678901234567890123 , -9223372036854775808 ] ",
        "[2.4703282292062328e-324, 2.4703282292062327e-324, 1.7976931348623157e308, 1e-400]",
        "[0.1, 0.7, 1e23, 9007199254740993.0, -7.19941171069098e+227, 8.98846567431158e307]",
        '"\\ud83d\\udea3 \\ud800 \\/"',  # a pair, a lone surrogate, an escaped slash
        "[" * 256 + "]" * 256,
        *NOT_JSON,
    ]
    lines = "".join(json.dumps(text) + "\n" for text in texts)
    done = mono.run(program, input=lines.encode("utf-8"))
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    answers = done.stdout.decode("utf-8").split("\n")
    assert answers[-1] == "" and len(answers) == len(texts) + 1
    for text, answer in zip(texts, answers[:-1], strict=True):
        status, _, written = answer.partition(" ")
        if text in NOT_JSON:
            assert status == "error", (text, answer)
            assert "at offset" in json.loads(written), answer
            continue
        assert status == "ok", (text, answer)
        expected = json.loads(text, parse_int=_int64)
        assert _exact(json.loads(written, parse_int=_int64)) == _exact(expected), (text, written)
        # Non-ASCII goes out as itself (UTF-8), control characters and lone surrogates escaped.
        assert re.search(r"[\x00-\x1f]", written) is None


def test_each_server_error_becomes_the_exception_of_its_graphmem_class(mono: Mono) -> None:
    """The exception tree mirrors graphmem/core/errors.py; a title it does not know, its status."""
    import graphmem.core.errors
    from graphmem.doors.http.problems import status_of

    expected: dict[tuple[int, str], tuple[str, str]] = {}
    root = graphmem.core.errors.GraphmemError
    for name in graphmem.core.errors.__all__:
        cls = getattr(graphmem.core.errors, name)
        if cls is root:
            continue
        base = next(b for b in cls.__mro__[1:] if issubclass(b, root))
        parent = "GraphmemException" if base is root else f"{base.__name__}Exception"
        expected[(status_of(cls("x")), name)] = (f"{name}Exception", parent)
    http = {400: "BadRequest", 405: "MethodNotAllowed", 413: "PayloadTooLarge"}
    http |= {415: "UnsupportedMediaType", 500: "InternalError"}
    for status, name in http.items():
        expected[(status, name)] = (f"{name}Exception", "GraphmemException")
    # A newer server's error class: the exception of its status, or the root.
    expected[(404, "SomethingNew")] = ("NotFoundException", "GraphmemException")
    expected[(422, "SomethingNew")] = ("InvalidInputException", "GraphmemException")
    expected[(418, "SomethingNew")] = ("GraphmemException", "Exception")
    program = mono.compile("errors.exe", [*RUNTIME, CLIENT / "Tests~" / "ErrorMapping.cs"])
    lines = "".join(f"{status} {title}\n" for status, title in expected)
    done = mono.run(program, input=lines.encode())
    assert done.returncode == 0, done.stderr.decode("utf-8", "replace")
    seen = [line.split() for line in done.stdout.decode().splitlines()]
    assert {(int(status), title): (cls, base) for cls, base, status, title in seen} == expected


# ---------------------------------------------------------------------------- Unity


def _exported_types(mono: Mono, library: Path) -> set[str]:
    """The public types of a compiled assembly, listed by a small C# program."""
    lister = mono.folder / "list_types.exe"
    if not lister.exists():
        source = mono.folder / "list_types.cs"
        source.write_text(
            "using System; using System.Reflection;\n"
            "class P { static void Main(string[] a) {\n"
            "  foreach (var t in Assembly.LoadFrom(a[0]).GetExportedTypes())"
            " Console.WriteLine(t.FullName); } }",
            "utf-8",
        )
        mono.compile(lister.name, [source])
    done = subprocess.run(
        [mono.mono, str(lister), str(library)], capture_output=True, text=True, timeout=60
    )
    assert done.returncode == 0, done.stderr
    return set(done.stdout.split())


def _readme_snippets() -> list[str]:
    """The client README's C# blocks, and those of docs/server.md that use the client."""
    blocks = []
    for page in (CLIENT / "README.md", CLIENT.parents[1] / "docs" / "server.md"):
        text = page.read_text("utf-8")
        blocks += [block.split("```", 1)[0] for block in text.split("```csharp\n")[1:]]
    return [block for block in blocks if "GraphmemClient" in block]


@pytest.mark.parametrize(
    "defines",
    [
        ["-define:UNITY_5_3_OR_NEWER", "-define:UNITY_2020_2_OR_NEWER"],
        # Before 2020.2, UnityWebRequest says isNetworkError (obsolete since: warning 618).
        ["-define:UNITY_5_3_OR_NEWER", "-nowarn:618"],
    ],
    ids=["unity-2020.2+", "unity-2018.4"],
)
def test_the_unity_transport_and_the_readme_snippets_compile(
    mono: Mono, defines: list[str], tmp_path: Path
) -> None:
    """In Unity the client sends with UnityWebRequest; the README's MonoBehaviours compile."""
    snippets = _readme_snippets()
    assert len(snippets) >= 4, "the README has no MonoBehaviour example"
    body = "\n".join(snippets)
    usings = sorted(set(re.findall(r"^using [\w.]+;$", body, re.MULTILINE)))
    source = tmp_path / "Readme.cs"
    source.write_text(
        "\n".join(usings) + "\n" + re.sub(r"^using [\w.]+;$", "", body, flags=re.MULTILINE),
        "utf-8",
    )
    name = "unity-2020.dll" if "-define:UNITY_2020_2_OR_NEWER" in defines else "unity-2018.dll"
    library = mono.compile(name, [*RUNTIME, UNITY_API, source], *defines)
    assert "Graphmem.UnityWebRequestTransport" in _exported_types(mono, library)


def test_the_client_compiles_without_unity_and_without_its_transport(mono: Mono) -> None:
    """Outside Unity (no UNITY_ define) the UnityWebRequest transport is not compiled at all."""
    types = _exported_types(mono, mono.compile("plain.dll", RUNTIME))
    assert {"Graphmem.GraphmemClient", "Graphmem.HttpClientTransport"} <= types
    assert "Graphmem.UnityWebRequestTransport" not in types
    # Every graphmem error class has its exception (graphmem/core/errors.py is the tree).
    import graphmem.core.errors

    for name in graphmem.core.errors.__all__:
        expected = "GraphmemException" if name == "GraphmemError" else f"{name}Exception"
        assert f"Graphmem.{expected}" in types, name


def test_every_unity_asset_of_the_package_has_its_meta_file() -> None:
    """Unity ignores a file without a .meta in a package from git: each has one, GUIDs unique."""
    guids: dict[str, Path] = {}
    for path in sorted(CLIENT.rglob("*")):
        relative = path.relative_to(CLIENT)
        if any(part.endswith("~") or part.startswith(".") for part in relative.parts):
            continue  # Unity skips folders ending in ~ (the example, the tests)
        if path.suffix == ".meta":
            assert path.with_suffix("").exists(), f"{relative} has no asset"
            continue
        meta = path.with_name(path.name + ".meta")
        assert meta.exists(), f"{relative} has no .meta file"
        text = meta.read_text("utf-8")
        found = re.search(r"^guid: ([0-9a-f]{32})$", text, re.MULTILINE)
        assert found, f"{meta.name} has no guid"
        assert found[1] not in guids, f"{relative} and {guids[found[1]]} share a guid"
        guids[found[1]] = relative
        assert ("folderAsset: yes" in text) == path.is_dir(), relative
    assert len(guids) >= len(RUNTIME) + 4  # the sources, the asmdef, Runtime/, package.json, README


# ---------------------------------------------------------------------------- the API's shape

SPEC = json.loads((CLIENT.parents[1] / "docs" / "openapi.json").read_text("utf-8"))

# Each model: the schema it reads (the server's answer) and the one it writes (a request).
MODELS: dict[str, tuple[str | None, str | None]] = {
    "Entity": ("Entity-Output", "Entity-Input"),
    "Provenance": ("Provenance-Output", "Provenance-Input"),
    "Relationship": ("Relationship-Output", "Relationship-Input"),
    "NpcIdentity": ("NPCIdentity", None),
    "PerspectiveIdentity": ("PerspectiveIdentity", None),
    "NpcPrompt": ("PromptOut", None),
    "TurnIn": (None, "TurnIn"),
    "Turn": ("Turn", None),
    "Branch": ("Branch", None),
    "ContextResult": ("ContextResult", None),
    "RetrieveResult": ("RetrieveOut", None),
    "PathStep": ("PathStepOut", None),
    "GraphAnswer": ("GraphAnswerOut", None),
    "Ambiguity": ("AmbiguityOut", None),
    "AskResult": ("AskOut", None),
    "MindFact": ("MindFact-Output", "MindFact-Input"),
    "EventIn": (None, "EventIn"),
    "WorldEvent": ("Event", None),
    "Belief": ("Belief", None),
}
# Members a model leaves to its Raw dictionary (a turn's agent trajectory and artifacts).
UNTYPED = {"Turn": {"trajectory", "artifacts", "hidden_artifacts"}}


def _classes() -> dict[str, str]:
    """Each C# class of the runtime and its source text."""
    source = "\n".join(path.read_text("utf-8") for path in RUNTIME)
    found = list(re.finditer(r"public (?:sealed )?class (\w+)", source))
    return {
        match[1]: source[match.end() : found[i + 1].start() if i + 1 < len(found) else None]
        for i, match in enumerate(found)
    }


def _model_drift(spec: dict[str, Any]) -> list[str]:
    """How the C# models disagree with the spec's schemas (empty: they agree)."""
    schemas, classes, problems = spec["components"]["schemas"], _classes(), []
    for name, (read_schema, write_schema) in MODELS.items():
        body = classes[name] + (classes["NpcIdentity"] if name == "PerspectiveIdentity" else "")
        read = set(re.findall(r'Fields\.\w+\(data, "(\w+)"', body))
        written = set(re.findall(r'\.Field\("(\w+)"', body))
        for schema, names, what in (
            (read_schema, read, "reads"),
            (write_schema, written, "writes"),
        ):
            if schema is None:
                continue
            properties = set(schemas[schema]["properties"]) if schema in schemas else set()
            required = set(schemas.get(schema, {}).get("required", []))
            for member in sorted(names - properties):
                problems.append(f"{name} {what} '{member}', which {schema} does not have")
            for member in sorted(required - names - UNTYPED.get(name, set())):
                problems.append(f"{name} never {what} '{member}', which {schema} requires")
    return problems


def _group(pattern: str, text: str) -> str:
    found = re.search(pattern, text, re.S)
    assert found, f"no {pattern!r} in {text[:200]!r}"
    return found[1]


def _route_drift(spec: dict[str, Any]) -> list[str]:
    """How the client's calls disagree with the spec's routes, bodies and query parameters."""
    source = (CLIENT / "Runtime" / "GraphmemClient.cs").read_text("utf-8")
    starts = [m.start() for m in re.finditer(r"public (?:async )?Task<", source)]
    templates = {re.sub(r"\{[^}]+\}", "{}", path): path for path in spec["paths"]}
    problems: list[str] = []
    for start, end in zip(starts, [*starts[1:], len(source)], strict=True):
        method = source[start:end]
        call = re.search(
            r'Call\("(\w+)", (.+?), (\w+|Required\(.+?\)), (\w+), cancellation\)', method
        )
        if call is None:
            continue  # a method that delegates to another
        name = _group(r"Task<.*?> (\w+)\(", method)
        verb, where = call[1].lower(), call[2]
        if where == "path":
            where = _group(r"var path = (.+?);", method)
        # "/npcs/" + Segment(npcId, "npcId") + "/beliefs" is /v1/npcs/{}/beliefs
        parts = [part.strip() for part in where.split(" + ")]
        path = "/v1" + "".join("{}" if p.startswith("Segment(") else p.strip('"') for p in parts)
        operation = spec["paths"].get(templates.get(path, ""), {}).get(verb)
        if operation is None:
            problems.append(f"{name} calls {verb.upper()} {path}, which the API does not have")
            continue
        if call[3] == "body":
            names = set(re.findall(r'\.Add\("(\w+)"', _group(r"var body = (.+?);", method)))
            ref = operation["requestBody"]["content"]["application/json"]["schema"]["$ref"]
            schema = spec["components"]["schemas"][ref.rsplit("/", 1)[1]]
            for member in sorted(names - set(schema["properties"])):
                problems.append(f"{name} sends '{member}', which {ref} does not have")
            for member in sorted(set(schema.get("required", [])) - names):
                problems.append(f"{name} never sends '{member}', which {ref} requires")
        if call[4] == "query":
            text = _group(r"var query = (.+?);", method)
            names = set(re.findall(r'\.Add\("(\w+)"', text))
            if "Clocks(" in text:
                names |= {"as_of", "recorded_as_of"}
            params = {p["name"]: p for p in operation.get("parameters", []) if p["in"] == "query"}
            for member in sorted(names - set(params)):
                problems.append(
                    f"{name} sends ?{member}, which {verb.upper()} {path} does not take"
                )
            for member in sorted(
                n for n, p in params.items() if p.get("required") and n not in names
            ):
                problems.append(
                    f"{name} never sends ?{member}, which {verb.upper()} {path} requires"
                )
    return problems


def test_the_models_and_calls_fit_the_committed_openapi_document() -> None:
    """Every member a model reads or writes, every route, body member and query parameter."""
    assert _model_drift(SPEC) == []
    assert _route_drift(SPEC) == []


def test_a_renamed_member_or_route_is_found() -> None:
    """The check above sees a change of the API: a schema member, a route, a parameter."""
    spec = json.loads(json.dumps(SPEC))
    belief = spec["components"]["schemas"]["Belief"]
    belief["properties"]["believer"] = belief["properties"].pop("holder")
    belief["required"] = ["believer" if r == "holder" else r for r in belief["required"]]
    spec["paths"]["/v1/conversations/{session_id}/forks"] = spec["paths"].pop(
        "/v1/conversations/{session_id}/fork"
    )
    for parameter in spec["paths"]["/v1/npcs/{npc_id}/prompt"]["get"]["parameters"]:
        if parameter["name"] == "max_tokens":
            parameter["name"] = "budget"
    assert _model_drift(spec) == [
        "Belief reads 'holder', which Belief does not have",
        "Belief never reads 'believer', which Belief requires",
    ]
    assert _route_drift(spec) == [
        "Prompt sends ?max_tokens, which GET /v1/npcs/{}/prompt does not take",
        "Fork calls POST /v1/conversations/{}/fork, which the API does not have",
    ]
