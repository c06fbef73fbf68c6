import subprocess
import sys

import graphmem


def test_all_is_sorted_and_complete():
    assert list(graphmem.__all__) == sorted(graphmem.__all__)
    for name in graphmem.__all__:
        assert hasattr(graphmem, name), name


def test_models_are_importable_from_the_package():
    for name in ("Entity", "Relationship", "Provenance", "Turn", "NPCIdentity", "Memory"):
        assert name in graphmem.__all__


def test_import_loads_no_heavy_dependency():
    code = (
        "import sys, graphmem; "
        "print(','.join(m for m in ('torch', 'neo4j', 'neomodel', 'sentence_transformers', "
        "'networkx', 'numpy', 'fastapi', 'uvicorn', 'starlette', 'mcp', 'asyncio') "
        "if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_import_loads_no_backend():
    code = "import sys, graphmem; print('graphmem.backends.networkx' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"
