"""experiments/model_counting_baselines.py: its quick mode runs every tool, checks each
exact answer against the counting engine and writes its two files."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from kwartet_testing import require_extra

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "model_counting_baselines.py"


def test_quick_mode_agrees_with_the_counting_engine_and_writes_its_files(tmp_path):
    for module in ("pyganak", "pyapproxmc", "pysdd"):
        require_extra(module, "baselines")
    # A short timeout: the tools that need longer on the deals say "timeout", which is
    # what the test expects of them too; 5 s leaves the half-game SDD (about 1 s on an idle
    # machine) room on a loaded one.
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--quick", "--timeout", "5", "--out", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert "exact answers that disagree: 0" in run.stdout
    assert "DISAGREES" not in run.stdout
    # Half a game leaves few worlds: every exact tool answers, and agrees.
    half = run.stdout.split("32 cards, half a game, public")[1].split("\n\n")[0]
    for tool in ("bdd", "sdd", "ganak"):
        assert any(
            line.split()[:1] == [tool] and "= counting" in line for line in half.splitlines()
        )
    text = (tmp_path / "model_counting_baselines.txt").read_text()
    assert text.startswith("model counting baselines: commit ")
    numbers = (tmp_path / "model_counting_baselines_numbers.tex").read_text()
    assert "\\newcommand{\\kwBaselinesPiquetHalfGanak}" in numbers


def test_bad_options_are_refused():
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--tools", "smcdel"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 2 and "--tools" in run.stderr
