"""experiments/run_all.py: the runner of every experiment (python -m experiments)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from kwartet_testing import load_script

ROOT = Path(__file__).resolve().parents[2]


run_all = load_script("experiments/run_all.py", "run_all_under_test")


def _script(tmp_path: Path, name: str, body: str) -> str:
    path = tmp_path / f"{name}.py"
    path.write_text(body)
    return str(path)


def test_quick_real_step_manifest_and_resume(tmp_path: Path) -> None:
    out = tmp_path / "out"
    lines: list[str] = []
    code = run_all.main(["--quick", "--only", "bench_kripke", "--out", str(out)], log=lines.append)
    assert code == 0, lines
    manifest = json.loads((out / "manifest.json").read_text())
    entry = manifest["steps"]["bench_kripke"]
    assert entry["status"] == "ok" and entry["returncode"] == 0
    assert "experiments/bench_kripke.py --muddy 4 6" in entry["command"]
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    assert entry["commit"] == head.stdout.strip()
    assert isinstance(entry["dirty"], bool)
    assert entry["machine"]["cores"] >= 1 and entry["machine"]["python"].count(".") == 2
    assert len(entry["load_before"]) == 3 and len(entry["load_after"]) == 3
    assert entry["wall_s"] > 0 and entry["cpu_s"] >= entry["cpu_s_waited"] > 0
    # the step's own output: muddy children for n = 4 and 6
    text = (out / "bench_kripke.txt").read_text()
    assert "n =  4" in text and "n =  6" in text and "n =  8" not in text
    # resuming: done at this commit, so not run again (the file is left as it was)
    (out / "bench_kripke.txt").write_text("kept")
    lines.clear()
    assert (
        run_all.main(["--quick", "--only", "bench_kripke", "--out", str(out)], log=lines.append)
        == 0
    )
    assert any("done at this commit already" in line for line in lines)
    assert (out / "bench_kripke.txt").read_text() == "kept"
    assert json.loads((out / "manifest.json").read_text())["steps"]["bench_kripke"] == entry


def test_failing_step_reported_others_run_and_force(tmp_path: Path) -> None:
    good = _script(
        tmp_path,
        "good",
        "import sys, pathlib\nprint('hello', sys.argv[1:])\n"
        "pathlib.Path(sys.argv[2]).write_text('a,b\\n1,2\\n')\n",
    )
    bad = _script(
        tmp_path, "bad", "import sys\nprint('about to fail')\nsys.exit('broken on purpose')\n"
    )
    lazy = _script(tmp_path, "lazy", "print('wrote nothing')\n")
    steps = [
        run_all.Step("bad", bad, ("--n", "1"), None),
        run_all.Step("good", good, ("--out", "{dir}/t.csv"), None, outputs=("t.csv",)),
        run_all.Step("lazy", lazy, (), None, outputs=("never.csv",)),
        run_all.Step("extra", good, ("x",), None, needs=("no_such_module_kwartet_xyz",)),
        run_all.Step("fullonly", good, None, ("x",), skip="full only"),
    ]
    out = tmp_path / "out"
    lines: list[str] = []
    code = run_all.main(
        ["--quick", "--jobs", "2", "--out", str(out)], steps=steps, log=lines.append
    )
    assert code == 1
    got = json.loads((out / "manifest.json").read_text())["steps"]
    assert got["bad"]["status"] == "failed" and got["bad"]["returncode"] == 1
    assert "broken on purpose" in got["bad"]["reason"]
    assert (out / "bad.txt").read_text() == "about to fail\n"
    assert got["good"]["status"] == "ok"
    assert (out / "good" / "t.csv").read_text() == "a,b\n1,2\n"
    assert str(out / "good" / "t.csv") in (out / "good.txt").read_text()
    assert got["lazy"]["status"] == "missing" and "never.csv" in got["lazy"]["reason"]
    assert (
        got["extra"]["status"] == "skipped"
        and "no_such_module_kwartet_xyz" in got["extra"]["reason"]
    )
    assert got["fullonly"] == {"status": "skipped", "mode": "quick", "reason": "full only"}
    # a second run reruns the failures but not the step that succeeded, unless --force
    lines.clear()
    assert run_all.main(["--quick", "--out", str(out)], steps=steps, log=lines.append) == 1
    assert any(line.startswith("good: done") for line in lines)
    assert any("] bad: failed" in line for line in lines)
    lines.clear()
    run_all.main(
        ["--quick", "--force", "--only", "good", "--out", str(out)], steps=steps, log=lines.append
    )
    assert any("] good: ok" in line for line in lines)


def test_bad_options_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SystemExit):
        run_all.main(["--quick", "--only", "no_such_step", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):
        run_all.main(["--quick", "--jobs", "0", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):  # a mode is required
        run_all.main(["--out", str(tmp_path)])
    assert not (tmp_path / "manifest.json").exists()


def test_registry_scripts_exist_and_python_dash_m_lists_them() -> None:
    for step in run_all.STEPS:
        assert (ROOT / step.script).is_file(), step.script
        assert step.quick is not None or step.skip, step.name
    done = subprocess.run(
        [sys.executable, "-m", "experiments", "--list"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    listed = [line.split()[0] for line in done.stderr.splitlines()]
    assert listed == [step.name for step in run_all.STEPS]


def test_steps_run_on_a_local_dask_cluster_with_the_same_manifest(tmp_path: Path) -> None:
    distributed = pytest.importorskip("distributed")
    good = _script(
        tmp_path, "good", "import sys, pathlib\npathlib.Path(sys.argv[2]).write_text('x')\n"
    )
    bad = _script(tmp_path, "bad", "import sys\nsys.exit('broken on purpose')\n")
    steps = [
        run_all.Step("good", good, ("--out", "{dir}/t.csv"), None, outputs=("t.csv",)),
        run_all.Step("bad", bad, (), None),
    ]
    out = tmp_path / "out"
    lines: list[str] = []
    # a cluster with its worker in this process (its address as a user would give it);
    # '--scheduler local' starts worker processes the same way, by dask's own LocalCluster
    with distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as cluster:
        code = run_all.main(
            ["--quick", "--scheduler", cluster.scheduler_address, "--out", str(out)],
            steps=steps,
            log=lines.append,
        )
    assert code == 1
    assert any("on dask" in line for line in lines), lines
    got = json.loads((out / "manifest.json").read_text())["steps"]
    assert got["good"]["status"] == "ok" and (out / "good" / "t.csv").read_text() == "x"
    assert got["good"]["worker"] and got["good"]["cpu_s"] >= 0
    assert got["bad"]["status"] == "failed" and "broken on purpose" in got["bad"]["reason"]


def test_publish_copies_each_finished_steps_files_flat(tmp_path: Path) -> None:
    good = _script(
        tmp_path,
        "good",
        "import sys, pathlib\nprint('stdout of good')\n"
        "folder = pathlib.Path(sys.argv[2]).parent\n"
        "pathlib.Path(sys.argv[2]).write_text('a,b\\n')\n"
        "(folder / 'x_numbers.tex').write_text('% x')\n(folder / 'sub').mkdir()\n"
        "(folder / 'sub' / 'inner.csv').write_text('no')\n",
    )
    bad = _script(tmp_path, "bad", "import pathlib, sys\nsys.exit('broken on purpose')\n")
    steps = [
        run_all.Step("good", good, ("--out", "{dir}/t.csv"), None, outputs=("t.csv",)),
        run_all.Step("bad", bad, (), None),
    ]
    out, pub = tmp_path / "out", tmp_path / "pub"
    code = run_all.main(
        ["--quick", "--out", str(out), "--publish", str(pub)], steps=steps, log=lambda _: None
    )
    assert code == 1
    assert sorted(p.name for p in pub.iterdir()) == ["good.txt", "t.csv", "x_numbers.tex"]
    assert (pub / "good.txt").read_text() == "stdout of good\n"
    assert (pub / "t.csv").read_text() == "a,b\n"
    manifest = json.loads((out / "manifest.json").read_text())["steps"]
    assert manifest["good"]["published"] == ["t.csv", "x_numbers.tex", "good.txt"]
    assert "published" not in manifest["bad"]
