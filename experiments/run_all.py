"""Every experiment in one command: ``python -m experiments --quick`` or ``--full``.

A registry (:data:`STEPS`) names each step: the script in ``experiments/``, its arguments
for ``--quick`` (small sizes, seconds each: a smoke run of the pipeline, for CI) and for
``--full`` (the settings of the saved measurements in ``paper/measurements/``), and the
files it writes.  Each step runs in its own subprocess (``python experiments/x.py ...``
from the repository root), so one failing step is reported and the others go on; the exit
status is 1 if any step failed.  In the output folder (``--out``, default
``build/experiments/quick`` or ``build/experiments/full``):

- ``<step>.txt``: the step's standard output (``<step>.err``: its standard error);
- ``<step>/``: the folder its own files go to (``{dir}`` in its arguments);
- ``manifest.json``: per step the command, the commit (``git rev-parse HEAD`` and whether
  the tree had uncommitted changes), the machine (platform, cores, python), the load
  average before and after, the wall and CPU seconds (``cpu_s``: the larger of the
  step's and every process it waited for, and of the sum over the step's process tree
  sampled every quarter second with psutil, which catches forkserver workers), the exit
  code and the status: ``ok``, ``failed``, ``skipped`` (with the reason, e.g. an optional
  extra missing) or ``missing`` (it ran but a file it should write is not there, which
  counts as a failure).

``--publish DIR`` copies each step's files, once it has succeeded, flat into ``DIR``:
``python -m experiments --full --publish paper/measurements`` rewrites every file the paper
reads (``paper/build.sh`` then builds it from them).

A run resumes: a step whose manifest entry is ``ok`` at the same commit is not run again
(``--force`` runs it anyway; the scripts that resume from their own CSV files,
``strength`` and ``exact_vs_facts``, then go on from what ``<out>/<step>/`` holds: remove
that folder for a fresh run).  ``--only a,b`` runs only those steps, ``--jobs N`` runs up
to N steps at a time (each a subprocess; the full steps already use both cores of a
small machine with their own ``--jobs 2``, so ``--jobs 1`` is the default), and one line
per step on standard error shows the progress.  ``--scheduler ADDRESS`` sends the steps
to a dask.distributed cluster instead (``--scheduler local`` starts one on this machine with
``--jobs`` worker processes): each step still runs as its own subprocess, on a worker, so
the workers must see this repository and the output folder at the same paths (one
machine, or a shared file system); the manifest records each step's worker machine.

Run:  python -m experiments --quick   [--out DIR] [--only a,b] [--jobs N] [--force] [--list]

>>> sorted({step.name for step in STEPS}) == [step.name for step in sorted(STEPS, key=lambda s: s.name)]
True
>>> all(step.script.startswith(("experiments/", "paper/")) for step in STEPS)
True
"""

from __future__ import annotations

import argparse
import concurrent.futures
import importlib.util
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kwartet_epistemic.files import atomic_path, atomic_write_text

ROOT = Path(__file__).resolve().parent.parent
"""The repository root: every step runs with this as its working directory."""

MANIFEST = "manifest.json"


@dataclass(frozen=True)
class Step:
    """One experiment: ``script`` (relative to the repository root, or absolute) run with
    ``quick`` or ``full`` as its arguments (``None``: not run in that mode, ``skip`` says
    why); ``{dir}`` in an argument is the step's own folder ``<out>/<name>``.  ``outputs``
    are the files it must write there (besides its standard output, ``<out>/<name>.txt``);
    ``needs`` are modules it imports that an optional extra provides.

    >>> Step("x", "experiments/x.py", ("--n", "1"), None).argv("quick", Path("/o"))
    ['experiments/x.py', '--n', '1']
    >>> Step("x", "x.py", ("--out", "{dir}/a.csv"), None).argv("quick", Path("/o"))
    ['x.py', '--out', '/o/x/a.csv']
    """

    name: str
    script: str
    quick: tuple[str, ...] | None
    full: tuple[str, ...] | None
    outputs: tuple[str, ...] = ()
    needs: tuple[str, ...] = ()
    skip: str = ""
    env: dict[str, str] = field(default_factory=dict)

    def argv(self, mode: str, out: Path) -> list[str]:
        """The script and its arguments in ``mode`` ("quick" or "full"), ``{dir}`` filled in."""
        args = self.quick if mode == "quick" else self.full
        if args is None:
            raise ValueError(f"step {self.name!r} has no arguments for mode {mode!r}")
        folder = str(out / self.name)
        return [self.script] + [a.replace("{dir}", folder) for a in args]


def _s(*args: str) -> tuple[str, ...]:
    return tuple(args)


STEPS: tuple[Step, ...] = (
    Step("bench_agents", "experiments/bench_agents.py",
         _s("--games", "4", "--repeats", "1", "--search-games", "1", "--no-parallel",
            "--out", "{dir}"),
         _s("--games", "100", "--repeats", "5", "--search-games", "5", "--out", "{dir}"),
         outputs=("bench_agents_numbers.tex",)),
    Step("bench_draw_pile", "experiments/bench_draw_pile.py",
         _s("--draws", "2", "--agent-games", "1", "--out", "{dir}"),
         _s("--draws", "12", "--agent-games", "6", "--out", "{dir}"),
         outputs=("bench_draw_pile_numbers.tex",)),
    Step("bench_engine", "experiments/bench_engine.py",
         _s("--games", "20", "--repeats", "1", "--out", "{dir}"),
         _s("--games", "2000", "--repeats", "5", "--out", "{dir}"),
         outputs=("bench_engine_numbers.tex",)),
    Step("bench_knowledge", "experiments/bench_knowledge.py", _s("--quick", "--out", "{dir}"),
         _s("--out", "{dir}"), outputs=("bench_knowledge_numbers.tex", "bench_knowledge_table.tex")),
    Step("bench_kripke", "experiments/bench_kripke.py",
         _s("--muddy", "4", "6", "--skip-deals"), _s()),
    Step("bench_memory", "experiments/bench_memory.py",
         _s("--games", "200", "--rules", "publisher"), _s("--games", "20000")),
    # Our side only unless SMCDEL's binaries are in $SMCDEL_BENCH_DIR (the script says so).
    Step("bench_smcdel", "experiments/bench_smcdel.py",
         _s("--sizes", "4", "--repeat", "1", "--out", "{dir}"), _s("--out", "{dir}"),
         outputs=("bench_smcdel_numbers.tex",)),
    Step("bench_symbolic", "experiments/bench_symbolic.py",
         _s("--sizes", "4", "6", "--repeat", "1", "--out", "{dir}"),
         _s("--repeat", "5", "--out", "{dir}"), outputs=("bench_symbolic_numbers.tex",)),
    # General model counters on the law as CNF (extra baselines); the full run takes
    # about an hour, most of it in the tools' 60-second timeouts.
    Step("model_counting_baselines", "experiments/model_counting_baselines.py",
         _s("--quick", "--out", "{dir}"), _s("--repeats", "5", "--timeout", "60", "--out", "{dir}"),
         outputs=("model_counting_baselines.txt", "model_counting_baselines_numbers.tex"),
         needs=("pyganak", "pyapproxmc", "pysdd")),
    Step("duplicate", "experiments/duplicate.py",
         _s("random", "knowledge", "--deals", "4", "--jobs", "1"),
         _s("search", "higher_order")),
    Step("duplicate_samples", "experiments/duplicate.py", None,
         _s("search", "search[samples=12]", "--deals", "200", "--jobs", "2"),
         skip="the full comparison only (search is slow; the duplicate step covers the script)"),
    Step("exact_vs_facts", "experiments/exact_vs_facts.py",
         _s("--quick", "--out", "{dir}"),
         _s("--games", "3000", "--jobs", "2", "--out", "{dir}", "--progress"),
         outputs=("exact_vs_facts.csv", "exact_vs_facts_by_turn.csv", "exact_vs_facts.txt",
                  "exact_vs_facts.png")),
    Step("folk_tips", "experiments/folk_tips.py",
         _s("--quick", "--jobs", "1", "--out", "{dir}"),
         _s("--games", "2400", "--jobs", "2", "--out", "{dir}"),
         outputs=("folk_tips.csv", "folk_tips_games.csv.gz", "folk_tips.png", "folk_tips.pdf",
                  "folk_tips_numbers.tex", "folk_tips_table.tex")),
    Step("invariants", "experiments/invariants.py",
         _s("--games", "20", "--presets", "publisher,fish"), _s("--jobs", "2")),
    Step("ladder", "experiments/ladder.py",
         _s("--quick", "--jobs", "1", "--out", "{dir}"), _s("--jobs", "2", "--out", "{dir}"),
         outputs=("ladder.csv", "ladder_ratings.csv", "ladder.png", "ladder_numbers.tex",
                  "ladder_table.tex"), needs=("sb3_contrib", "torch", "pyspiel")),
    Step("leakage", "experiments/leakage.py",
         _s("--quick", "--out", "{dir}"), _s("--jobs", "2", "--out", "{dir}"),
         outputs=("leakage_matches.csv", "leakage_asks.csv", "leakage_posterior.csv",
                  "leakage_agent.csv", "leakage.txt", "leakage_bits.png", "leakage_posterior.png",
                  "leakage_numbers.tex", "leakage_table.tex")),
    Step("openspiel_exploitability", "experiments/openspiel_exploitability.py",
         _s("--quick"), _s(), needs=("pyspiel",)),
    Step("openspiel_match", "experiments/openspiel_match.py",
         _s("--games", "6", "--ms", "5", "--jobs", "1", "--out", "{dir}/openspiel_match.csv",
            "--label", "Main"),
         _s("--games", "120", "--ms", "300", "--jobs", "2", "--out", "{dir}/openspiel_match.csv",
            "--label", "Main"),
         outputs=("openspiel_match.csv", "openspiel_match_numbers.tex"), needs=("pyspiel",)),
    Step("openspiel_match_1000ms", "experiments/openspiel_match.py", None,
         _s("--games", "60", "--ms", "1000", "--jobs", "2",
            "--out", "{dir}/openspiel_match_1000ms.csv", "--label", "Thousand"),
         outputs=("openspiel_match_1000ms.csv", "openspiel_match_1000ms_numbers.tex"),
         needs=("pyspiel",), skip="the full comparison only (the openspiel_match step covers the script)"),
    Step("openspiel_match_ismcts_vs_random", "experiments/openspiel_match.py", None,
         _s("--games", "36", "--ms", "100", "--a", "openspiel:ismcts", "--b", "random",
            "--b-as-is", "--jobs", "2", "--out", "{dir}/openspiel_match_ismcts_vs_random.csv",
            "--label", "Random"),
         outputs=("openspiel_match_ismcts_vs_random.csv",
                  "openspiel_match_ismcts_vs_random_numbers.tex"),
         needs=("pyspiel",), skip="the full comparison only (the openspiel_match step covers the script)"),
    Step("rl_baseline", "experiments/rl_baseline.py",
         # the saved table merges six runs (--merge); this is the first one's settings
         _s("--quick", "--out", "{dir}"), _s("--timesteps", "30000", "--points", "7", "--out", "{dir}"),
         outputs=("rl_baseline.csv", "rl_baseline.png"), needs=("sb3_contrib", "torch")),
    Step("rules_compare", "experiments/rules_compare.py",
         _s("--quick", "--out", "{dir}"),
         _s("--games", "1200", "--jobs", "2", "--out", "{dir}", "--progress"),
         outputs=("rules_compare_games.csv", "rules_compare_moves.csv", "rules_compare.txt",
                  "rules_compare_located.png", "rules_compare_ck.png",
                  "rules_compare_numbers.tex", "rules_compare_table.tex")),
    # SMCDEL's columns only where its binaries are (see the script); otherwise our side.
    Step("scaling", "experiments/scaling.py",
         _s("--quick", "--out", "{dir}"),
         _s("--games", "4", "--budget", "10", "--repeat", "5", "--muddy", "10", "20", "40",
            "--dining", "5", "10", "20", "40", "--out", "{dir}"),
         outputs=("scaling_events.csv.gz", "scaling_grid.csv", "scaling_smcdel.csv",
                  "scaling_cost.png", "scaling_states.png", "scaling_numbers.tex",
                  "scaling_table.tex", "scaling_smcdel_table.tex")),
    Step("strength", "experiments/strength.py",
         _s("--games", "8", "--jobs", "1", "--out", "{dir}"),
         _s("--jobs", "2", "--out", "{dir}"),
         outputs=("experiment_1.csv", "strength_numbers.tex", "strength_table.tex")),
    # Wall-clock budgets: a full run wants the machine to itself.
    Step("search_budget", "experiments/search_budget.py",
         _s("--quick", "--jobs", "1", "--out", "{dir}"), _s("--jobs", "2", "--out", "{dir}"),
         outputs=("search_budget.txt", "search_budget.csv", "search_budget_numbers.tex",
                  "search_budget.pdf", "search_budget.png"), needs=("pyspiel",)),
    # SMCDEL's side runs where it is built (shared/tools/smcdel/build.sh); else ours only.
    Step("benchmark_family", "experiments/benchmark_family.py",
         _s("--quick", "--players", "3", "--out", "{dir}"), _s("--out", "{dir}"),
         outputs=("benchmark_family.txt", "benchmark_family.csv",
                  "benchmark_family_numbers.tex", "benchmark_family_table.tex")),
    # Reads the stored games of folk_tips, ladder, leakage, strength and exact_vs_facts:
    # after them in a full run (its --data is the folder they published to).
    Step("statistics_review", "experiments/statistics_review.py",
         _s("--bootstrap", "50", "--out", "{dir}"), _s("--out", "{dir}"),
         outputs=("statistics_review.txt", "statistics_review_numbers.tex",
                  "statistics_review_table.tex")),
    # The paper's own scripts: the numbers of its sections 3-6 and its first figures.
    Step("paper_knowledge_figure", "paper/knowledge_figure.py", _s("--out", "{dir}"),
         _s("--out", "{dir}"), outputs=("knowledge_figure_numbers.tex", "knowledge_progress.pdf",
                                        "knowledge_timeline.pdf")),
    Step("paper_symbolic_law_size", "paper/symbolic_law_size.py", _s("--out", "{dir}"),
         _s("--out", "{dir}"), outputs=("symbolic_law_size_numbers.tex",)),
    Step("paper_world_counts", "paper/world_counts.py", _s("--out", "{dir}"),
         _s("--out", "{dir}"), outputs=("world_counts_numbers.tex", "world_counts_table.tex")),
)  # fmt: skip
"""The registry: every experiment script with its quick and full settings."""


def _git(*args: str) -> str:
    try:
        done = subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.SubprocessError):
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""


def commit_info() -> dict[str, Any]:
    """``{"commit": HEAD or "", "dirty": uncommitted changes to tracked files}``."""
    return {
        "commit": _git("rev-parse", "HEAD"),
        "dirty": bool(_git("status", "--porcelain", "--untracked-files=no")),
    }


def machine_info() -> dict[str, Any]:
    """Platform, processor, cores and python of this machine.

    >>> machine_info()["cores"] == os.cpu_count()
    True
    """
    return {
        "platform": platform.platform(),
        "machine": platform.machine(),
        "node": platform.node(),
        "cores": os.cpu_count(),
        "python": platform.python_version(),
    }


def _load() -> list[float]:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except OSError:
        return []


def read_manifest(out: Path) -> dict[str, Any]:
    """The manifest in ``out`` (``{}`` if there is none or it cannot be read as JSON)."""
    try:
        data = json.loads((out / MANIFEST).read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def write_manifest(out: Path, manifest: dict[str, Any]) -> None:
    """Write ``manifest`` to ``out/manifest.json`` whole (a temporary file, then a rename)."""
    path = out / MANIFEST
    atomic_write_text(path, json.dumps(manifest, indent=2, sort_keys=True) + "\n")


def missing_needs(step: Step) -> list[str]:
    """The modules of ``step.needs`` that cannot be imported here."""
    return [name for name in step.needs if importlib.util.find_spec(name) is None]


try:
    import psutil

    _HAVE_PSUTIL = True
except ImportError:  # pragma: no cover - psutil is optional
    _HAVE_PSUTIL = False


def _sample_tree(pid: int, stop: threading.Event, seen: dict[tuple[int, float], float]) -> None:
    """Until ``stop``, record every quarter second the CPU seconds of ``pid`` and each of
    its descendants (by pid and start time) in ``seen`` (nothing without psutil)."""
    if not _HAVE_PSUTIL:
        return
    try:
        root = psutil.Process(pid)
    except psutil.Error:
        return
    while not stop.is_set():
        try:
            tree = [root, *root.children(recursive=True)]
        except psutil.Error:
            return
        for proc in tree:
            try:
                with proc.oneshot():
                    times = proc.cpu_times()
                    seen[(proc.pid, proc.create_time())] = times.user + times.system
            except psutil.Error:
                continue
        stop.wait(0.25)


def run_step(step: Step, mode: str, out: Path) -> dict[str, Any]:
    """Run one step in a subprocess; its manifest entry (status ``ok``, ``failed`` or
    ``missing``)."""
    (out / step.name).mkdir(parents=True, exist_ok=True)
    command = [sys.executable] + step.argv(mode, out)
    env = dict(os.environ)
    env.setdefault("MPLBACKEND", "Agg")
    env.update(step.env)
    entry: dict[str, Any] = {
        "command": shlex.join(command),
        "mode": mode,
        **commit_info(),
        "machine": machine_info(),
        "load_before": _load(),
        "started": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
    }
    start = time.perf_counter()
    with (
        open(out / f"{step.name}.txt", "wb") as stdout,
        open(out / f"{step.name}.err", "wb") as err,
    ):
        process = subprocess.Popen(command, cwd=ROOT, stdout=stdout, stderr=err, env=env)
        stop = threading.Event()
        seen: dict[tuple[int, float], float] = {}
        sampler = threading.Thread(target=_sample_tree, args=(process.pid, stop, seen), daemon=True)
        sampler.start()
        _, status, usage = os.wait4(process.pid, 0)
        stop.set()
        sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    entry["wall_s"] = round(time.perf_counter() - start, 3)
    waited = usage.ru_utime + usage.ru_stime
    # forkserver workers are children of the server, which the step need not wait for:
    # their CPU is only in the sampled sum (short of each process's last interval)
    entry["cpu_s"] = round(max(waited, sum(seen.values())), 3)
    entry["cpu_s_waited"] = round(waited, 3)
    entry["cpu_s_sampled"] = round(sum(seen.values()), 3) if _HAVE_PSUTIL else None
    entry["load_after"] = _load()
    entry["returncode"] = process.returncode
    absent = [name for name in step.outputs if not (out / step.name / name).exists()]
    if process.returncode != 0:
        entry["status"] = "failed"
        tail = (out / f"{step.name}.err").read_text(errors="replace").strip().splitlines()[-5:]
        entry["reason"] = "\n".join(tail)
    elif absent:
        entry["status"] = "missing"
        entry["reason"] = "not written: " + ", ".join(absent)
    else:
        entry["status"] = "ok"
    entry["outputs"] = [f"{step.name}.txt"] + [f"{step.name}/{name}" for name in step.outputs]
    return entry


def publish(step: Step, out: Path, target: Path) -> list[str]:
    """Copy the files ``step`` wrote into ``out/<step>/`` (not its subfolders, not
    temporary files) and its standard output (as ``<step>.txt``, unless the step wrote a
    file of that name itself) into ``target``, each whole (a temporary file, then a
    rename); the names copied."""
    target.mkdir(parents=True, exist_ok=True)
    folder = out / step.name
    # hidden names are temporaries of a save in progress (or of one a kill cut short);
    # a ".units" file is a resumable file's ledger, of use only to a resumed run
    sources = sorted(
        p
        for p in folder.iterdir()
        if p.is_file() and not p.name.startswith(".") and not p.name.endswith(".units")
    )
    if not (folder / f"{step.name}.txt").exists():
        sources.append(out / f"{step.name}.txt")
    copied = []
    for source in sources:
        with atomic_path(target / source.name) as temporary:
            shutil.copyfile(source, temporary)
        copied.append(source.name)
    return copied


def _failed(mode: str, error: BaseException) -> dict[str, Any]:
    return {"status": "failed", "mode": mode, "reason": repr(error)}


def _on_threads(
    todo: Sequence[Step], mode: str, out: Path, jobs: int, say: Callable[[str], None]
) -> Iterator[tuple[Step, dict[str, Any]]]:
    """Run ``todo`` here, up to ``jobs`` subprocesses at a time; (step, entry) as each ends."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        futures = {pool.submit(run_step, step, mode, out): step for step in todo}
        say(f"running {len(todo)} step(s), {jobs} at a time, into {out}")
        for future in concurrent.futures.as_completed(futures):
            try:
                entry = future.result()
            except Exception as error:  # the runner itself failed (e.g. no python)
                entry = _failed(mode, error)
            yield futures[future], entry


def _on_dask(
    todo: Sequence[Step],
    mode: str,
    out: Path,
    scheduler: str,
    jobs: int,
    say: Callable[[str], None],
) -> Iterator[tuple[Step, dict[str, Any]]]:
    """Run ``todo`` on a dask.distributed cluster (``"local"``: ``jobs`` worker processes
    here, one thread each); (step, entry) as each ends."""
    try:
        from distributed import Client, LocalCluster, as_completed
    except ImportError as error:
        raise SystemExit(
            "--scheduler needs dask.distributed: pip install 'kwartet_epistemic[dask]'"
        ) from error
    cluster = (
        LocalCluster(n_workers=jobs, threads_per_worker=1, processes=True, dashboard_address=":0")
        if scheduler == "local"
        else None
    )
    try:
        with Client(cluster if cluster is not None else scheduler) as client:
            say(f"running {len(todo)} step(s) on dask {client.scheduler.address}, into {out}")
            futures = {
                client.submit(
                    _run_step_on_worker, step, mode, out, pure=False, key=f"step-{step.name}"
                ): step
                for step in todo
            }
            for future in as_completed(futures):
                try:
                    entry = future.result()
                except Exception as error:  # the worker or the runner failed
                    entry = _failed(mode, error)
                yield futures[future], entry
    finally:
        if cluster is not None:
            cluster.close()


def _run_step_on_worker(step: Step, mode: str, out: Path) -> dict[str, Any]:
    """:func:`run_step` on a dask worker, recording the worker's machine."""
    entry = run_step(step, mode, out)
    entry["worker"] = platform.node()
    return entry


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="python -m experiments", description=__doc__.split("\n")[0]
    )
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--quick", action="store_true", help="small sizes, a few minutes in all")
    mode.add_argument("--full", action="store_true", help="the saved measurements' settings")
    mode.add_argument("--list", action="store_true", help="print the steps and their commands")
    parser.add_argument("--out", type=Path, help="default build/experiments/quick or .../full")
    parser.add_argument("--only", default="", help="comma-separated step names")
    parser.add_argument("--jobs", type=int, default=1, help="steps run at the same time")
    parser.add_argument("--force", action="store_true", help="rerun steps already done")
    parser.add_argument(
        "--publish",
        type=Path,
        help="copy each finished step's files (and its standard output as <step>.txt) flat "
        "into this folder, e.g. paper/measurements, which paper.tex reads",
    )
    parser.add_argument(
        "--scheduler",
        help="dask.distributed scheduler address (tcp://host:8786), or 'local' for a "
        "cluster of --jobs worker processes on this machine",
    )
    return parser


def main(
    argv: Sequence[str] | None = None,
    steps: Sequence[Step] = STEPS,
    log: Callable[[str], None] | None = None,
) -> int:
    """Run the steps as the command line ``argv`` says; 0 if none failed, else 1.

    ``steps`` is the registry (a test may pass its own), ``log`` gets one line per step
    (default: standard error).

    >>> main(["--list"], steps=[Step("a", "experiments/a.py", ("-q",), None)], log=print)
    a  quick: experiments/a.py -q  full: (none)
    0
    """
    args = _parser().parse_args(argv)
    say = log or (lambda line: print(line, file=sys.stderr, flush=True))
    by_name = {step.name: step for step in steps}
    wanted = [name for name in args.only.split(",") if name]
    unknown = [name for name in wanted if name not in by_name]
    if unknown:
        _parser().error(
            f"--only: unknown step(s) {', '.join(unknown)}; known: {', '.join(by_name)}"
        )
    chosen = [by_name[name] for name in wanted] if wanted else list(steps)
    if args.list:
        for step in chosen:
            quick = shlex.join([step.script, *step.quick]) if step.quick is not None else "(none)"
            full = shlex.join([step.script, *step.full]) if step.full is not None else "(none)"
            say(f"{step.name}  quick: {quick}  full: {full}")
        return 0
    if args.jobs < 1:
        _parser().error(f"--jobs must be at least 1, got {args.jobs}")
    mode = "quick" if args.quick else "full"
    out = args.out if args.out is not None else ROOT / "build" / "experiments" / mode
    out = out.resolve()
    out.mkdir(parents=True, exist_ok=True)
    manifest = read_manifest(out)
    steps_done: dict[str, Any] = manifest.setdefault("steps", {})
    manifest["mode"] = mode
    head = commit_info()["commit"]

    todo: list[Step] = []
    for step in chosen:
        old = steps_done.get(step.name, {})
        args_for_mode = step.quick if mode == "quick" else step.full
        if args_for_mode is None:
            steps_done[step.name] = {
                "status": "skipped",
                "mode": mode,
                "reason": step.skip or f"no {mode} settings",
            }
            say(f"{step.name}: skipped ({steps_done[step.name]['reason']})")
        elif lacking := missing_needs(step):
            steps_done[step.name] = {
                "status": "skipped",
                "mode": mode,
                "reason": "not installed: " + ", ".join(lacking),
            }
            say(f"{step.name}: skipped (not installed: {', '.join(lacking)})")
        elif (
            not args.force
            and old.get("status") == "ok"
            and old.get("commit") == head
            and old.get("command", "").endswith(shlex.join(step.argv(mode, out)))
        ):
            say(f"{step.name}: done at this commit already (--force runs it again)")
        else:
            todo.append(step)
    write_manifest(out, manifest)

    failed: list[str] = []
    finished = (
        _on_dask(todo, mode, out, args.scheduler, args.jobs, say)
        if args.scheduler
        else _on_threads(todo, mode, out, args.jobs, say)
    )
    for number, (step, entry) in enumerate(finished, 1):
        if args.publish is not None and entry["status"] == "ok":
            entry["published"] = publish(step, out, args.publish)
        steps_done[step.name] = entry
        write_manifest(out, manifest)
        line = f"[{number}/{len(todo)}] {step.name}: {entry['status']}"
        if "wall_s" in entry:
            line += f" in {entry['wall_s']:.1f} s wall, {entry['cpu_s']:.1f} s CPU"
        if entry["status"] != "ok":
            failed.append(step.name)
            line += f" ({entry.get('reason', '')[-300:]})"
        say(line)
    counts: dict[str, int] = {}
    for step in chosen:
        status = steps_done.get(step.name, {}).get("status", "?")
        counts[status] = counts.get(status, 0) + 1
    tally = ", ".join(f"{n} {status}" for status, n in sorted(counts.items()))
    say(
        f"{len(chosen)} step(s): {tally}; manifest {out / MANIFEST}"
        + (f"; failed: {', '.join(failed)}" if failed else "")
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
