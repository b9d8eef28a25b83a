"""The tutorial notebooks: the six of the course, stored without outputs, each opening
with what the reader will learn and ending with exercises.  (pytest --nbmake, set in
pyproject.toml, runs them.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
EXPECTED = [
    "01_first_game.ipynb",
    "02_kripke_tiny_game.ipynb",
    "03_epistemic_language.ipynb",
    "04_deduction_full_size.ipynb",
    "05_classic_puzzles.ipynb",
    "06_agents_and_tournaments.ipynb",
]


def test_the_six_notebooks_are_there() -> None:
    assert sorted(p.name for p in NOTEBOOKS.glob("*.ipynb")) == EXPECTED


@pytest.mark.parametrize("name", EXPECTED)
def test_notebook_is_stored_without_outputs_and_reads_as_a_lesson(name: str) -> None:
    notebook = json.loads((NOTEBOOKS / name).read_text(encoding="utf-8"))
    cells = notebook["cells"]
    for cell in cells:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    first = "".join(cells[0]["source"])
    assert cells[0]["cell_type"] == "markdown" and "What you will learn" in first
    # The exercises close the notebook: each a numbered markdown cell followed by its check
    # cell, with a placeholder answer (kw.exercises.check says "not answered yet").
    start = next(i for i, c in enumerate(cells) if "## Exercises" in "".join(c["source"]))
    tail = cells[start:]
    assert len(tail) == 10
    for k in range(1, 6):
        text, code = ("".join(c["source"]) for c in tail[2 * k - 2 : 2 * k])
        assert tail[2 * k - 2]["cell_type"] == "markdown" and f"\n{k}. " in "\n" + text
        assert tail[2 * k - 1]["cell_type"] == "code"
        assert f'kw.exercises.check("{name[:2]}.{k}", your_answer)' in code
        assert "your_answer = None" in code
    assert notebook["metadata"]["kernelspec"]["name"] == "python3"


def test_the_worked_solutions_are_kept_for_teachers_apart_from_the_course() -> None:
    """Students open notebooks/*.ipynb: no solution sits beside them; the teachers'
    folder holds the solutions and says how to hand out the course without them."""
    beside = [p.name for p in NOTEBOOKS.glob("*.ipynb") if "solution" in p.name.lower()]
    assert beside == [] and not (NOTEBOOKS / "solutions").exists()
    teacher = NOTEBOOKS / "teacher"
    assert (teacher / "solutions.ipynb").is_file()
    note = (teacher / "README.md").read_text(encoding="utf-8")
    assert "To hand out the course" in note and "not for students" in note
    assert "cp notebooks/*.ipynb course/" in note  # the top level only: not this folder
