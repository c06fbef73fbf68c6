"""Every notebook runs top to bottom on the embedded backend (nbclient, python3 kernel)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

NOTEBOOKS = sorted((Path(__file__).resolve().parents[2] / "notebooks").glob("*.ipynb"))


@pytest.mark.notebook
@pytest.mark.parametrize("path", NOTEBOOKS, ids=[p.name for p in NOTEBOOKS])
def test_notebook_runs_top_to_bottom(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Notebook 02 reads LIGHT from the evaluation data when it is there (else its sample).
    _execute(path, monkeypatch)


@pytest.mark.notebook
def test_notebook_02_shows_its_pictures_without_evaluation_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A fresh clone has no ../shared/eval: the sample world that ships is used instead."""
    monkeypatch.setenv("GRAPHMEM_EVAL_DIR", str(tmp_path / "no-evaluation-data"))
    [path] = [p for p in NOTEBOOKS if p.name == "02_graphrag.ipynb"]
    notebook = _execute(path, monkeypatch)
    printed = "".join(
        output.get("text", "")
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
    )
    assert "hollowmere.json" in printed  # the sample world, written by the notebook
    pictures = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if "image/png" in output.get("data", {})
    ]
    assert len(pictures) >= 2  # the retrieved subgraph and the Hits@1 chart


def _execute(path: Path, monkeypatch: pytest.MonkeyPatch) -> Any:
    """Run ``path`` top to bottom; check it raised nothing and drew what it promised."""
    # jupyter_core warns (DeprecationWarning) unless the new platform dirs are chosen.
    monkeypatch.setenv("JUPYTER_PLATFORM_DIRS", "1")
    import nbclient
    import nbformat

    notebook = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(
        notebook,
        timeout=120,
        kernel_name="python3",
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()  # raises CellExecutionError naming the failing cell

    errors = [
        output
        for cell in notebook.cells
        if cell.cell_type == "code"
        for output in cell.get("outputs", [])
        if output.get("output_type") == "error"
    ]
    assert errors == []
    if path.name == "03_npc_minds.ipynb":  # the belief graph is drawn
        images = [
            output
            for cell in notebook.cells
            if cell.cell_type == "code"
            for output in cell.get("outputs", [])
            if "image/png" in output.get("data", {})
        ]
        assert images, "the belief graph picture is missing"
    # A cell that shows a figure must leave a picture in the executed notebook (a
    # non-interactive backend would draw nothing and say nothing).
    for index, cell in enumerate(notebook.cells):
        if cell.cell_type == "code" and "plt.show()" in cell.source:
            images = [
                output
                for output in cell.get("outputs", [])
                if "image/png" in output.get("data", {})
            ]
            assert images, f"{path.name} cell {index} promises a figure and shows none"
    return notebook


def test_figures_are_promised_where_they_are_drawn() -> None:
    """Each notebook that draws calls plt.show(), so the check above covers its pictures."""
    import nbformat

    for path in NOTEBOOKS:
        notebook = nbformat.read(path, as_version=4)
        for cell in notebook.cells:
            if cell.cell_type == "code" and "plt.subplots" in cell.source:
                assert "plt.show()" in cell.source, path.name
            if cell.cell_type == "code":
                assert 'matplotlib.use("Agg")' not in cell.source, path.name


def test_there_is_a_quickstart_notebook() -> None:
    assert [p.name for p in NOTEBOOKS][:1] == ["01_quickstart.ipynb"]
