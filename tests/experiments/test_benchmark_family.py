"""experiments/benchmark_family.py: the committed instances rebuild byte for byte, their
answers are the engines' (and SMCDEL's, where it is built), and the quick run times
every tool on the smallest ones."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.symbolic.smcdel import find_smcdel

ROOT = Path(__file__).resolve().parents[2]
INSTANCES = ROOT / "experiments" / "benchmarks" / "kwartet"
family = load_script("experiments/benchmark_family.py", "benchmark_family_under_test")


def test_the_committed_instances_are_what_the_script_writes(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(family, "LADDER", {3: (2, 3, 4)})
    written = family.write_instances(tmp_path, [3])
    committed = {e["instance"]: e for e in json.loads((INSTANCES / "answers.json").read_text())}
    assert written
    for entry in written:
        assert committed[entry["instance"]] == entry
        name = entry["smcdel_input"]
        assert (tmp_path / name).read_bytes() == (INSTANCES / name).read_bytes()


def test_the_answers_are_the_engines_answers() -> None:
    """The recorded answers, from the counting engine, are the explicit engine's too on
    the instances small enough for it."""
    entries = json.loads((INSTANCES / "answers.json").read_text())
    small = [e for e in entries if e["families"] <= 3]
    assert small
    for entry in small:
        game = kw.Game.load(INSTANCES / f"{entry['instance']}.game.json")
        explicit = kw.knowledge(game, engine="explicit")
        assert str(explicit.count_worlds()) == entry["public_worlds"]
        for query, value in entry["answers"]:
            assert explicit.holds(query) is value


def test_the_quick_run(tmp_path: Path) -> None:
    rows = family.main(["--quick", "--players", "3", "--out", str(tmp_path)])
    tools = {r["tool"] for r in rows}
    assert tools == {"counting", "symbolic", "explicit", "smcdel"}
    ours = [r for r in rows if r["tool"] != "smcdel"]
    assert ours and all(r["status"] == "ok" for r in ours)
    smcdel = [r for r in rows if r["tool"] == "smcdel"]
    expected = "ok" if find_smcdel() else "not built"
    assert all(r["status"] == expected for r in smcdel)  # SMCDEL's answers agree
    assert "largest deck solved" in (tmp_path / "benchmark_family.txt").read_text()


@pytest.mark.skipif(find_smcdel() is None, reason="SMCDEL is not built here")
def test_smcdel_gives_the_recorded_answers_on_a_mid_sized_instance() -> None:
    entries = {e["instance"]: e for e in json.loads((INSTANCES / "answers.json").read_text())}
    entry = entries["kwartet-f5-p4-a10"]
    status, _ = family.time_smcdel(
        INSTANCES / entry["smcdel_input"], 60, [v for _, v in entry["answers"]]
    )
    assert status == "ok"
