"""Cost and scale (research question e): every engine's cost per event against deck size
and players, explained by the counting programme's states; the classic benchmarks side by
side with SMCDEL on the same machine.

    python experiments/scaling.py --out DIR [--quick] [--games 6] [--budget 20] [--repeat 5]

1. Engine grid: random games (uniformly random legal asks, publisher rules) with 3-6
   players and 12-52 cards (``--players``, ``--cards``); an event is one ask played plus
   every player's exact ``location_probabilities``, timed in CPU seconds of this process
   (``time.process_time``: the machine is shared, and CPU time does not count the moments
   other jobs had the core).

   - counting engine: ``--games`` whole games per cell, every event; per event also the
     number of states of the counting programmes that answered it (the sum over the
     players of :meth:`WorldCounter.programme_state_total`, the table entries the kernel
     computes, correction programmes included) and the states weighted by each family's
     number of terms (the kernel's work).  Computed after the timer stops.
   - symbolic engine (BDDs) and explicit engine (Kripke model): one game per cell, its
     first ``--events`` events, within ``--budget`` CPU seconds per cell (a CPU-time
     alarm stops a cell; then the larger decks of that player count are skipped, as are
     those after the explicit engine's model limit).  Their rows say why a cell stopped.

   Rows go to ``scaling_events.csv.gz`` one game at a time (a killed run resumes there);
   ``scaling_grid.csv`` summarises each cell: events, median, p90, max (ms), median
   states, and the same over the first ``--events`` events, the window the other engines
   are measured on.
2. SMCDEL side by side (``scaling_smcdel.csv``): muddy children, dining cryptographers,
   Russian cards and a 16-card Kwartet deal at several sizes, each run ``--repeat``
   times in a fresh process, ours and SMCDEL's interleaved (``bench_smcdel.py`` holds
   both sides' definitions).  Figures: the CPU time of the case (ours: inside the
   process, after imports and a warm-up; SMCDEL: the child's CPU time from ``wait4``
   less the median of its start-up, ``MuddyBench seq-cac 1``) and the in-process
   wall-clock times both programs print.  SMCDEL's binaries are looked for in
   ``$SMCDEL_BENCH_DIR`` (default ``/tmp/smcdel/bench``); ``DiningBench`` is compiled
   there from ``experiments/smcdel/DiningBench.hs`` with ``ghc`` and SMCDEL's package
   db when missing.  Without SMCDEL the section runs our side only and says so.

Outputs in ``--out``: the CSVs above, ``scaling_cost.png`` (cost against cards, a line
per player count, log scale; one panel per engine), ``scaling_states.png`` (cost against
programme states), ``scaling_smcdel.png`` (ours against SMCDEL), each also as PDF;
``scaling_numbers.tex``, ``scaling_table.tex`` (counting engine grid),
``scaling_smcdel_table.tex``; the summary is printed (run_all keeps it as
``scaling.txt``).
"""

from __future__ import annotations

import argparse
import csv
import gzip
import io
import json
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.files import atomic_path, drop_torn_gzip_member, read_csv_rows

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
import _latex  # noqa: E402
import bench_smcdel  # noqa: E402

SCRIPT = "experiments/scaling.py"
NAMES = ("A", "B", "C", "D", "E", "F")
ENGINES = ("counting", "symbolic", "explicit")
EVENT_FIELDS = (
    "engine",
    "players",
    "cards",
    "seed",
    "event",
    "cpu_s",
    "states",
    "term_states",
    "status",
    "load1",
)
GRID_FIELDS = (
    "engine",
    "players",
    "cards",
    "games",
    "events",
    "median_ms",
    "p90_ms",
    "max_ms",
    "early_events",
    "early_median_ms",
    "early_p90_ms",
    "early_max_ms",
    "median_states",
    "max_states",
    "status",
)
SMCDEL_FIELDS = ("case", "size", "repeat", "who", "cpu_s", "wall_inside_s", "ok", "load1")


def deck_of(cards: int) -> kw.Deck:
    """The deck of ``cards`` cards (four per family): piquet faces up to 32, then the
    standard deck's.

    >>> len(deck_of(12).cards), len(deck_of(52).cards)
    (12, 52)
    """
    families = cards // 4
    if families * 4 != cards or families < 2:
        raise ValueError(f"cards {cards}: expected a multiple of 4, at least 8")
    return kw.Deck.piquet(families=families) if families <= 8 else kw.Deck.standard(families)


def load1() -> float:
    return round(os.getloadavg()[0], 2)


# ------------------------------------------------------------------ the engine grid


class OverBudget(Exception):
    """Raised in the main thread when a cell has used its CPU budget."""


def _alarm(_signum: int, _frame: FrameType | None) -> None:
    raise OverBudget


class CpuBudget:
    """Stop the block (``OverBudget``) once this process has used ``seconds`` of CPU in it.

    A watchdog thread reads the CPU clock every 50 ms and signals the main thread.  (A
    CPU-time interval timer, ``setitimer(ITIMER_PROF)``, would be simpler, but on this
    machine arming one makes ``time.process_time`` advance in 4 ms steps.)

    >>> with CpuBudget(60):
    ...     sum(range(1000))
    499500
    """

    def __init__(self, seconds: float) -> None:
        self.seconds = seconds
        self._stop = threading.Event()
        self._previous: Any = None

    def __enter__(self) -> CpuBudget:
        start, main = time.process_time(), threading.main_thread().ident
        self._previous = signal.signal(signal.SIGUSR1, _alarm)

        def watch() -> None:
            while not self._stop.wait(0.05):
                if time.process_time() - start > self.seconds:
                    assert main is not None
                    signal.pthread_kill(main, signal.SIGUSR1)
                    return

        self._thread = threading.Thread(target=watch, daemon=True)
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
        signal.signal(signal.SIGUSR1, self._previous)


@dataclass
class EventCost:
    event: int
    cpu_s: float
    states: int | None = None
    term_states: int | None = None


def programme_size(state: Any, players: Sequence[str]) -> tuple[int, int]:
    """The programme states behind every player's probabilities at this moment, and the
    states weighted by each family's number of terms (the counting engine's counters,
    read from the state's cache: the ones that just answered, not recomputed)."""
    states = term_states = 0
    for player in players:
        counter = state.world_counter((player,))  # kept by the state
        states += counter.programme_state_total()
        stack = [counter]
        while stack:  # the kernel's work: each family's terms times its states
            current = stack.pop()
            per_step = current.programme_states()
            for table, count in zip(current.tables, per_step, strict=False):
                term_states += len(table.weights) * count
            stack.extend(current.corrections())
    return states, term_states


def play_game(
    engine: str, players: int, cards: int, seed: int, max_events: int | None
) -> Iterator[EventCost]:
    """One random game: per event (ask plus every player's probabilities) its CPU time,
    and for the counting engine the programme's size.  Event 0 is the deal."""
    game = kw.Game.deal(deck_of(cards), list(NAMES[:players]), seed=seed)
    rng = np.random.default_rng(seed)
    state = kw.knowledge(game, engine=engine)
    number = 0
    while True:
        start = time.process_time()
        if number:
            game.play(game.random_legal_ask(rng))
        for p in game.players:
            state.location_probabilities(p)
        elapsed = time.process_time() - start
        cost = EventCost(number, elapsed)
        if engine == "counting":
            cost.states, cost.term_states = programme_size(state, game.players)
        yield cost
        number += 1
        if game.is_over or (max_events is not None and number > max_events):
            return


def run_cell(
    engine: str, players: int, cards: int, seed: int, max_events: int | None, budget: float
) -> tuple[list[EventCost], str]:
    """The events of one game within ``budget`` CPU seconds: (events, status), status
    ``done``, ``over budget`` (the alarm rang), ``too large`` (the explicit model limit)
    or ``no deal`` (too few cards for the players)."""
    events: list[EventCost] = []
    status = "done"
    try:
        with CpuBudget(budget):
            for cost in play_game(engine, players, cards, seed, max_events):
                events.append(cost)
    except OverBudget:
        status = "over budget"
    except kw.KwartetError as error:
        name = type(error).__name__
        if name == "ModelTooLargeError":
            status = "too large"
        elif not events:
            status = "no deal"
        else:
            raise
    return events, status


def read_events(path: Path) -> list[dict[str, str]]:
    """The rows of every whole game in ``path``.  Each game's rows are one gzip member; a
    member cut short (a kill, a full disk) is cut off the file first, so that its game is
    played again and later members follow whole ones."""
    if not path.exists():
        return []
    drop_torn_gzip_member(path)
    with gzip.open(path, "rt", newline="") as handle:
        return list(csv.DictReader(handle))


def append_rows(path: Path, rows: list[dict[str, Any]]) -> None:
    """Append one game's rows as one gzip member (the file reads as one stream; the
    header once, in the first member), flushed to disk before the next game."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=EVENT_FIELDS)
    if not path.exists() or path.stat().st_size == 0:
        writer.writeheader()
    writer.writerows(rows)
    with path.open("ab") as handle:
        handle.write(gzip.compress(buffer.getvalue().encode("utf-8")))
        handle.flush()
        os.fsync(handle.fileno())


def run_grid(args: argparse.Namespace, out: Path) -> list[dict[str, str]]:
    path = out / "scaling_events.csv.gz"
    rows = read_events(path)
    done = {(r["engine"], int(r["players"]), int(r["cards"]), int(r["seed"])) for r in rows}
    stopped = {
        (r["engine"], int(r["players"])): int(r["cards"])
        for r in rows
        if r["status"] in ("over budget", "too large")
    }
    for engine in args.engines:
        games = args.games if engine == "counting" else 1
        for players in args.players:
            for cards in sorted(args.cards):
                limit = stopped.get((engine, players))
                for seed in range(games):
                    key = (engine, players, cards, seed)
                    if key in done:
                        continue
                    if limit is not None and cards > limit:
                        new = [_row(engine, players, cards, seed, None, "skipped")]
                    else:
                        max_events = None if engine == "counting" else args.events
                        budget = args.counting_budget if engine == "counting" else args.budget
                        events, status = run_cell(engine, players, cards, seed, max_events, budget)
                        new = [_row(engine, players, cards, seed, e, "event") for e in events]
                        if status != "done":
                            new.append(_row(engine, players, cards, seed, None, status))
                            if status in ("over budget", "too large"):
                                stopped[(engine, players)] = cards
                                limit = cards
                    append_rows(path, new)
                    rows.extend({k: str(v) for k, v in r.items()} for r in new)
                    if args.progress:
                        print(f"  {engine} {players}p {cards}c seed {seed}: {new[-1]['status']}")
    return rows


def _row(
    engine: str, players: int, cards: int, seed: int, event: EventCost | None, status: str
) -> dict[str, Any]:
    return {
        "engine": engine,
        "players": players,
        "cards": cards,
        "seed": seed,
        "event": "" if event is None else event.event,
        "cpu_s": "" if event is None else f"{event.cpu_s:.7f}",
        "states": "" if event is None or event.states is None else event.states,
        "term_states": "" if event is None or event.term_states is None else event.term_states,
        "status": status,
        "load1": load1(),
    }


def percentile(values: Sequence[float], q: float) -> float:
    """The ``q`` quantile by the nearest rank at or above it (a value that occurred).

    >>> percentile([1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 0.9)
    9
    """
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


def summarise(rows: list[dict[str, str]], early: int) -> list[dict[str, Any]]:
    """One row per (engine, players, cards): the cell's statistics."""
    cells: dict[tuple[str, int, int], list[dict[str, str]]] = {}
    for r in rows:
        cells.setdefault((r["engine"], int(r["players"]), int(r["cards"])), []).append(r)
    summary = []
    for (engine, players, cards), cell in sorted(
        cells.items(), key=lambda kv: (ENGINES.index(kv[0][0]), kv[0][1], kv[0][2])
    ):
        events = [r for r in cell if r["status"] == "event"]
        notes = sorted({r["status"] for r in cell if r["status"] != "event"})
        times = [1000 * float(r["cpu_s"]) for r in events]
        first = [1000 * float(r["cpu_s"]) for r in events if int(r["event"]) <= early]
        states = [int(r["states"]) for r in events if r["states"]]
        row: dict[str, Any] = {
            "engine": engine,
            "players": players,
            "cards": cards,
            "games": len({r["seed"] for r in cell}),
            "events": len(times),
            "early_events": len(first),
            "status": "; ".join(notes) or "done",
        }
        for prefix, values in (("", times), ("early_", first)):
            for name, value in (
                ("median_ms", statistics.median(values) if values else None),
                ("p90_ms", percentile(values, 0.9) if values else None),
                ("max_ms", max(values) if values else None),
            ):
                row[prefix + name] = "" if value is None else f"{value:.4f}"
        row["median_states"] = statistics.median(states) if states else ""
        row["max_states"] = max(states) if states else ""
        summary.append(row)
    return summary


def write_csv(path: Path, fields: Sequence[str], rows: list[dict[str, Any]]) -> None:
    with atomic_path(path) as temporary, open(temporary, "w", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=fields)
        writer.writeheader()
        writer.writerows(rows)


def log_fit(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, float]:
    """Least squares of log10 y on log10 x over the positive pairs: (slope, intercept, R^2).

    >>> slope, _, r2 = log_fit([1, 10, 100], [2, 20, 200])
    >>> round(slope, 6), round(r2, 6)
    (1.0, 1.0)
    """
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    keep = (xs > 0) & (ys > 0)  # an event with no family left to place has no work
    lx, ly = np.log10(xs[keep]), np.log10(ys[keep])
    slope, intercept = np.polyfit(lx, ly, 1)
    residual = ly - (slope * lx + intercept)
    total = ((ly - ly.mean()) ** 2).sum()
    r2 = 1 - (residual**2).sum() / total if total else 1.0
    return float(slope), float(intercept), float(r2)


def linear_fit(x: Sequence[float], y: Sequence[float]) -> tuple[float, float, float]:
    """Least squares of y = a + b x: (a, b, R^2).

    >>> a, b, r2 = linear_fit([0, 1, 2, 3], [1, 3, 5, 7])
    >>> round(a, 6), round(b, 6), round(r2, 6)
    (1.0, 2.0, 1.0)
    """
    xs, ys = np.asarray(x, float), np.asarray(y, float)
    design = np.vstack([np.ones_like(xs), xs]).T
    (a, b), *_ = np.linalg.lstsq(design, ys, rcond=None)
    residual = ys - (a + b * xs)
    total = ((ys - ys.mean()) ** 2).sum()
    return float(a), float(b), float(1 - (residual**2).sum() / total) if total else 1.0


TAIL = 10_000  # programme states above which the cost is fitted on its own (log-log)


# ---------------------------------------------------------------- SMCDEL side by side


def ensure_dining_bench(bench: Path) -> Path | None:
    """``DiningBench`` in ``bench``, compiled from ``experiments/smcdel/DiningBench.hs``
    with ghc and SMCDEL's package db (``bench/../pkgdb``) when it is missing; None if
    it cannot be."""
    target = bench / "DiningBench"
    if os.access(target, os.X_OK):
        return target
    ghc, pkgdb = shutil.which("ghc"), bench.parent / "pkgdb"
    if ghc is None or not pkgdb.is_dir():
        return None
    done = subprocess.run(
        [ghc, "-O2", "-package-db", str(pkgdb), "-outputdir", str(bench / "obj" / "DiningBench"),
         "-o", str(target), str(HERE / "smcdel" / "DiningBench.hs")],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    return target if done.returncode == 0 and os.access(target, os.X_OK) else None


def timed_child(command: list[str]) -> tuple[float, str]:
    """Run ``command`` and return (its CPU seconds, its stdout); raise if it fails."""
    before = _children_cpu()
    done = subprocess.run(command, capture_output=True, text=True, check=False)
    cpu = _children_cpu() - before
    if done.returncode != 0:
        raise SystemExit(f"failed: {' '.join(command)}\n{done.stdout}\n{done.stderr}")
    return cpu, done.stdout


def _children_cpu() -> float:
    import resource

    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def smcdel_cases(args: argparse.Namespace) -> list[str]:
    cases = [f"muddy-{n}" for n in args.muddy] + [f"dining-{n}" for n in args.dining]
    return cases + (["russian", "kwartet"] if args.classic else [])


def run_smcdel(args: argparse.Namespace, out: Path) -> tuple[list[dict[str, Any]], str]:
    """Both sides' repeats (resumed from the CSV); and a note on SMCDEL's availability."""
    path = out / "scaling_smcdel.csv"
    rows: list[dict[str, Any]] = list(read_csv_rows(path))  # a torn last row is run again
    have = {(r["case"], r["who"], int(r["repeat"])) for r in rows}
    bench = bench_smcdel.smcdel_dir()
    dining = ensure_dining_bench(bench) if os.access(bench / "MuddyBench", os.X_OK) else None
    cases = smcdel_cases(args)
    commands = {case: bench_smcdel.smcdel_command(bench, case) for case in cases}
    baseline = bench_smcdel.smcdel_command(bench, "muddy-1")
    built = baseline is not None and all(c is not None for c in commands.values())
    if built:
        note = f"SMCDEL 1.3.0 (CacBDD) binaries from {bench}"
    elif baseline is not None and dining is None:
        note = f"SMCDEL found in {bench} but DiningBench could not be built: SMCDEL skipped"
    else:
        note = f"SMCDEL not built (no binaries in {bench}): only our side runs"
    new = not path.exists()
    with open(path, "a", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=SMCDEL_FIELDS)
        if new:
            writer.writeheader()

        def record(row: dict[str, Any]) -> None:
            writer.writerow(row)
            handle.flush()
            rows.append({k: str(v) for k, v in row.items()})

        for repeat in range(args.repeat):
            if built and baseline is not None and ("start-up", "smcdel", repeat) not in have:
                cpu, _ = timed_child(baseline)
                record(_smcdel_row("start-up", "smcdel", repeat, cpu, float("nan"), True))
            for case in cases:
                order = ("ours", "smcdel") if repeat % 2 == 0 else ("smcdel", "ours")
                for who in order:
                    if (case, who, repeat) in have:
                        continue
                    if who == "ours":
                        cpu, stdout = timed_child([sys.executable, str(HERE / "bench_smcdel.py"),
                                                   "--worker", case])  # fmt: skip
                        figures = json.loads(stdout.strip().splitlines()[-1])
                        inside = figures["seconds"] + figures.get("setup", 0.0)
                        record(_smcdel_row(case, who, repeat, figures["cpu"], inside,
                                           figures["ok"]))  # fmt: skip
                    elif built:
                        command = commands[case]
                        assert command is not None
                        cpu, stdout = timed_child(command)
                        inside = sum(
                            float(m.group(1))
                            for line in stdout.splitlines()
                            if (m := bench_smcdel.SECONDS.search(line))
                            and line.startswith(("muddy", "dining", "russian", "kwartet cac total"))
                        )
                        record(_smcdel_row(case, who, repeat, cpu, inside, True))
    return rows, note


def _smcdel_row(
    case: str, who: str, repeat: int, cpu: float, inside: float, ok: bool
) -> dict[str, Any]:
    kind, _, size = case.partition("-")
    return {
        "case": case,
        "size": size,
        "repeat": repeat,
        "who": who,
        "cpu_s": f"{cpu:.5f}",
        "wall_inside_s": "" if math.isnan(inside) else f"{inside:.5f}",
        "ok": ok,
        "load1": load1(),
    }


def smcdel_summary(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per case: medians of ours and SMCDEL's CPU (less start-up) and in-process wall."""
    startup = [float(r["cpu_s"]) for r in rows if r["case"] == "start-up"]
    start = statistics.median(startup) if startup else 0.0
    result = []
    cases = list(dict.fromkeys(r["case"] for r in rows if r["case"] != "start-up"))
    for case in cases:
        mine = [r for r in rows if r["case"] == case and r["who"] == "ours"]
        theirs = [r for r in rows if r["case"] == case and r["who"] == "smcdel"]
        entry: dict[str, Any] = {"case": case, "repeats": len(mine)}
        entry["ours_cpu"] = statistics.median(float(r["cpu_s"]) for r in mine) if mine else None
        entry["ours_wall"] = (
            statistics.median(float(r["wall_inside_s"]) for r in mine) if mine else None
        )
        if theirs:
            entry["smcdel_cpu"] = max(
                statistics.median(float(r["cpu_s"]) for r in theirs) - start, 0.0
            )
            entry["smcdel_wall"] = statistics.median(float(r["wall_inside_s"]) for r in theirs)
        else:
            entry["smcdel_cpu"] = entry["smcdel_wall"] = None
        result.append(entry)
    return result


# ---------------------------------------------------------------------- the outputs


def _cells(summary: list[dict[str, Any]], engine: str) -> dict[tuple[int, int], dict[str, Any]]:
    return {(r["players"], r["cards"]): r for r in summary if r["engine"] == engine}


def figures(
    summary: list[dict[str, Any]],
    rows: list[dict[str, str]],
    side: list[dict[str, Any]],
    out: Path,
) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with _latex.paper_style():
        colours = {3: "tab:blue", 4: "tab:orange", 5: "tab:green", 6: "tab:red"}
        engines = [e for e in ENGINES if any(r["engine"] == e for r in summary)]
        if engines:
            cost_figure(summary, engines, colours, out)

        counting = [r for r in rows if r["engine"] == "counting" and r["status"] == "event"]
        if counting:
            fig, axes = plt.subplots(1, 2, figsize=(_latex.TEXT_WIDTH_IN, 2.9), sharey=True)
            for ax, column, label in (
                (axes[0], "states", "programme states"),
                (axes[1], "term_states", "states x terms"),
            ):
                for players in sorted({int(r["players"]) for r in counting}):
                    mine = [r for r in counting if int(r["players"]) == players]
                    ax.scatter([int(r[column]) for r in mine], [1000 * float(r["cpu_s"]) for r in mine],
                               s=3, alpha=0.25, color=colours.get(players), rasterized=True,
                               label=f"{players} players")  # fmt: skip
                x = [int(r[column]) for r in counting]
                y = [1000 * float(r["cpu_s"]) for r in counting]
                a, b, r2 = linear_fit(x, y)
                positive = [v for v in x if v > 0]
                grid = np.logspace(np.log10(min(positive)), np.log10(max(positive)), 80)
                ax.plot(grid, a + b * grid, "k--", lw=1,
                        label=f"linear fit, R² {r2:.2f}")  # fmt: skip
                ax.set_xscale("log")
                ax.set_yscale("log")
                _plain_log(ax, "x", "y")
                ax.set_xlabel(label)
                ax.grid(True, which="both", alpha=0.3)
                ax.legend(markerscale=3, handlelength=1)
            axes[0].set_ylabel("CPU ms per event")
            _save(fig, out / "scaling_states.png")
            plt.close(fig)

        if side:
            fig, ax = plt.subplots(figsize=(_latex.TEXT_WIDTH_IN, 3.0))
            labels = [s["case"] for s in side]
            place = np.arange(len(side))
            ours = [s["ours_cpu"] or np.nan for s in side]
            theirs = [s["smcdel_cpu"] if s["smcdel_cpu"] else np.nan for s in side]
            ax.bar(place - 0.2, ours, 0.4, label="ours (symbolic engine, CUDD)")
            if any(not math.isnan(t) for t in theirs):
                ax.bar(place + 0.2, theirs, 0.4, label="SMCDEL 1.3.0 (CacBDD)")
            ax.set_xticks(place, labels, rotation=30, ha="right")
            ax.set_yscale("log")
            _plain_log(ax, "y")
            ax.set_ylabel("CPU seconds (median)")
            ax.grid(True, axis="y", which="both", alpha=0.3)
            ax.legend()
            _save(fig, out / "scaling_smcdel.png")
            plt.close(fig)


def cost_figure(
    summary: list[dict[str, Any]], engines: list[str], colours: dict[int, str], out: Path
) -> None:
    """Cost against cards, a line per player count (log scale), a panel per engine."""
    import matplotlib.pyplot as plt

    with _latex.paper_style():
        fig, axes = plt.subplots(1, len(engines), figsize=(_latex.TEXT_WIDTH_IN, 2.9), sharey=True)
        axes = np.atleast_1d(axes)
        for ax, engine in zip(axes, engines, strict=True):
            cells = _cells(summary, engine)
            early = engine != "counting"
            sizes: set[int] = set()
            for players in sorted({p for p, _ in cells}):
                points = sorted(
                    (c, r) for (p, c), r in cells.items() if p == players and r["median_ms"] != ""
                )
                if not points:
                    continue
                key = "early_" if early else ""
                x = [c for c, _ in points]
                ax.plot(x, [float(r[key + "median_ms"]) for _, r in points], "o-",
                        color=colours.get(players), label=f"{players} players")  # fmt: skip
                ax.plot(x, [float(r[key + "p90_ms"]) for _, r in points], "_--", lw=0.9, ms=6,
                        color=colours.get(players), alpha=0.8)  # fmt: skip
                ax.plot(x, [float(r[key + "max_ms"]) for _, r in points], "v:", ms=3,
                        color=colours.get(players), alpha=0.8)  # fmt: skip
                sizes.update(x)
            ax.set_yscale("log")
            _plain_log(ax, "y")
            ax.set_xticks(sorted(sizes) if len(sizes) < 8 else sorted(sizes)[::2])
            ax.set_xlabel("cards")
            ax.set_title(engine)
            ax.grid(True, which="both", alpha=0.3)
        axes[0].set_ylabel("CPU ms per event")
        axes[0].legend(handlelength=1)
        _save(fig, out / "scaling_cost.png")
        plt.close(fig)


def _save(fig: Any, path: Path) -> None:
    """PNG and PDF at the figure's own size (its layout is constrained: no cropping)."""
    fig.savefig(path, dpi=130)
    fig.savefig(path.with_suffix(".pdf"))


def _plain_log(ax: Any, *axes: str) -> None:
    """Log-scale tick labels as plain numbers (1, 10, 100): a power of ten's exponent
    would be set smaller than the paper's 8 points."""
    from matplotlib.ticker import FuncFormatter, LogLocator, NullFormatter

    def text(value: float, _: object) -> str:
        for step, suffix in ((1e6, "M"), (1e3, "k")):
            if value >= step:
                return f"{value / step:g}{suffix}"
        return f"{value:g}"

    plain = FuncFormatter(text)
    for name in axes:
        axis = ax.xaxis if name == "x" else ax.yaxis
        axis.set_major_locator(LogLocator(base=10, numticks=5 if name == "x" else 8))
        axis.set_major_formatter(plain)
        axis.set_minor_formatter(NullFormatter())


_WORDS = {3: "Three", 4: "Four", 5: "Five", 6: "Six", 10: "Ten", 12: "Twelve", 20: "Twenty",
          32: "ThirtyTwo", 40: "Forty", 52: "FiftyTwo", 60: "Sixty", 80: "Eighty"}  # fmt: skip


def _word(n: int | str) -> str | None:
    return _WORDS.get(int(n)) if str(n).isdigit() else None


def latex(
    summary: list[dict[str, Any]],
    rows: list[dict[str, str]],
    side: list[dict[str, Any]],
    out: Path,
    early: int,
) -> dict[str, str]:
    numbers: dict[str, str] = {}
    name = _latex.macro_name
    cells = _cells(summary, "counting")
    for (players, cards), r in cells.items():
        pw, cw = _word(players), _word(cards)
        if pw and cw and r["median_ms"] != "" and cards in (12, 32, 52):
            for stat in ("median", "p", "max"):
                column = {"median": "median_ms", "p": "p90_ms", "max": "max_ms"}[stat]
                label = {"median": "Median", "p": "Pninety", "max": "Max"}[stat]
                numbers[name("kw", "scaling", pw, cw, label)] = _latex.sig(float(r[column]))
    done = [r for r in cells.values() if r["max_ms"] != ""]
    if done:
        worst = max(done, key=lambda r: float(r["max_ms"]))
        numbers[name("kw", "scaling", "counting", "worst", "max")] = _latex.sig(
            float(worst["max_ms"])
        )
        numbers[name("kw", "scaling", "counting", "worst", "median")] = _latex.sig(
            max(float(r["median_ms"]) for r in done)
        )
        numbers[name("kw", "scaling", "counting", "events")] = _latex.fmt(
            sum(int(r["events"]) for r in done), 0
        )
        numbers[name("kw", "scaling", "counting", "games")] = _latex.fmt(
            sum(int(r["games"]) for r in done), 0
        )
    counting = [r for r in rows if r["engine"] == "counting" and r["status"] == "event"]
    if len(counting) > 2:
        for column, label in (("states", "states"), ("term_states", "work")):
            x = [int(r[column]) for r in counting]
            y = [1000 * float(r["cpu_s"]) for r in counting]
            a, b, r2 = linear_fit(x, y)
            numbers[name("kw", "scaling", label, "fixed", "ms")] = _latex.fmt(a, 2)
            # microseconds per thousand states (or state-terms)
            numbers[name("kw", "scaling", label, "per", "thousand", "us")] = _latex.fmt(1e6 * b, 2)
            numbers[name("kw", "scaling", label, "rsquared")] = _latex.fmt(r2, 2)
            tail = [(u, v) for u, v in zip(x, y, strict=True) if u >= TAIL]
            if len(tail) > 2:
                slope, _, tail_r2 = log_fit([u for u, _ in tail], [v for _, v in tail])
                numbers[name("kw", "scaling", label, "tail", "slope")] = _latex.fmt(slope, 2)
                numbers[name("kw", "scaling", label, "tail", "rsquared")] = _latex.fmt(tail_r2, 2)
                numbers[name("kw", "scaling", label, "tail", "events")] = _latex.fmt(len(tail), 0)
        numbers[name("kw", "scaling", "tail", "threshold")] = _latex.fmt(TAIL, 0)
        numbers[name("kw", "scaling", "states", "max")] = _latex.fmt(
            max(int(r["states"]) for r in counting), 0
        )
    for engine in ("symbolic", "explicit"):
        mine = [r for r in summary if r["engine"] == engine and r["early_median_ms"] != ""]
        if not mine:
            continue
        largest = max(mine, key=lambda r: (r["cards"], r["players"]))
        numbers[name("kw", "scaling", engine, "cells")] = _latex.fmt(len(mine), 0)
        numbers[name("kw", "scaling", engine, "largest", "cards")] = _latex.fmt(largest["cards"], 0)
        numbers[name("kw", "scaling", engine, "largest", "players")] = _latex.fmt(
            largest["players"], 0
        )
        # the slowdown against the counting engine over the same first events
        ratios = [
            float(r["early_median_ms"]) / float(cells[(r["players"], r["cards"])]["early_median_ms"])
            for r in mine
            if (r["players"], r["cards"]) in cells and cells[(r["players"], r["cards"])]["early_median_ms"]
        ]  # fmt: skip
        if ratios:
            numbers[name("kw", "scaling", engine, "ratio", "min")] = _latex.fmt(min(ratios), 0)
            numbers[name("kw", "scaling", engine, "ratio", "max")] = _latex.fmt(max(ratios), 0)
    numbers[name("kw", "scaling", "early", "events")] = _latex.fmt(early, 0)
    for s in side:
        kind, _, size = s["case"].partition("-")
        words = [kind] + ([_word(size) or ""] if size else [])
        if not all(words):
            continue
        numbers[name("kw", "scaling", "smcdel", *words, "ours")] = _latex.sig(s["ours_cpu"])
        if s["smcdel_cpu"]:
            numbers[name("kw", "scaling", "smcdel", *words, "theirs")] = _latex.sig(s["smcdel_cpu"])
            numbers[name("kw", "scaling", "smcdel", *words, "ratio")] = _latex.fmt(
                s["smcdel_cpu"] / s["ours_cpu"], 1
            )
    _latex.write_numbers(out / "scaling_numbers.tex", SCRIPT, numbers)

    card_sizes = sorted({c for _, c in cells})
    table_rows = []
    for players in sorted({p for p, _ in cells}):
        row = [str(players)]
        for cards in card_sizes:
            found = cells.get((players, cards))
            if found is None or found["median_ms"] == "":
                row.append("--")
            else:
                mid, top = float(found["median_ms"]), float(found["max_ms"])
                row.append(f"{_latex.sig(mid)} / {_latex.sig(top)}")
        table_rows.append(row)
    if table_rows:
        _latex.write_table(
            out / "scaling_table.tex",
            SCRIPT,
            ["players"] + [f"{c} cards" for c in card_sizes],
            table_rows,
        )
    side_rows = []
    for s in side:
        theirs = s["smcdel_cpu"]
        side_rows.append(
            [
                _latex.escape(s["case"]),
                _latex.sig(s["ours_cpu"]),
                _latex.sig(theirs) if theirs else "--",
                _latex.fmt(theirs / s["ours_cpu"], 1) if theirs else "--",
            ]
        )
    if side_rows:
        _latex.write_table(
            out / "scaling_smcdel_table.tex",
            SCRIPT,
            ["case", "ours (CPU s)", "SMCDEL (CPU s)", "SMCDEL / ours"],
            side_rows,
        )
    return numbers


def report(
    summary: list[dict[str, Any]],
    side: list[dict[str, Any]],
    note: str,
    numbers: dict[str, str],
    early: int,
) -> None:
    print("\n1. Engine grid: CPU ms per event (an ask plus every player's probabilities)")
    print("   counting: whole games; symbolic, explicit: the deal and the first"
          f" {early} asks (counting over the same window in 'early')")  # fmt: skip
    head = (
        f"   {'engine':<9}{'pl':>3}{'cards':>6}{'events':>7}{'median':>9}{'p90':>9}{'max':>9}"
        f"{'early med':>10}{'early max':>10}{'med states':>11}  status"
    )
    print(head)
    for r in summary:

        def cell(key: str, row: dict[str, Any] = r) -> str:
            return f"{float(row[key]):.3f}" if row[key] != "" else "-"

        print(
            f"   {r['engine']:<9}{r['players']:>3}{r['cards']:>6}{r['events']:>7}"
            f"{cell('median_ms'):>9}{cell('p90_ms'):>9}{cell('max_ms'):>9}"
            f"{cell('early_median_ms'):>10}{cell('early_max_ms'):>10}"
            f"{r['median_states']!s:>11}  {r['status']}"
        )
    print(f"\n2. Side by side with SMCDEL ({note})")
    print("   CPU seconds, median over repeats in fresh processes (SMCDEL less its start-up);")
    print("   in brackets the in-process wall-clock medians both programs print")
    for s in side:
        theirs = (
            f"{s['smcdel_cpu']:.4f} [{s['smcdel_wall']:.4f}]"
            if s["smcdel_cpu"] is not None
            else "-"
        )
        ratio = f"{s['smcdel_cpu'] / s['ours_cpu']:.1f}x" if s["smcdel_cpu"] else "-"
        print(
            f"   {s['case']:<12} ours {s['ours_cpu']:.4f} [{s['ours_wall']:.4f}]"
            f"  SMCDEL {theirs}  SMCDEL/ours {ratio}"
        )
    print("\n3. Numbers for the paper (scaling_numbers.tex)")
    for key, value in numbers.items():
        print(f"   \\{key} = {value}")


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default=str(HERE.parent / "paper" / "measurements"))
    parser.add_argument("--quick", action="store_true", help="tiny sizes (CI)")
    parser.add_argument("--players", type=int, nargs="+", default=[3, 4, 5, 6])
    parser.add_argument("--cards", type=int, nargs="+", default=list(range(12, 53, 4)))
    parser.add_argument("--engines", nargs="*", default=list(ENGINES), choices=ENGINES)
    parser.add_argument("--games", type=int, default=6, help="counting games per cell")
    parser.add_argument("--events", type=int, default=10, help="asks per symbolic/explicit game")
    parser.add_argument("--budget", type=float, default=20.0, help="CPU s per symbolic cell")
    parser.add_argument("--counting-budget", type=float, default=120.0)
    parser.add_argument("--repeat", type=int, default=5, help="SMCDEL side-by-side repeats")
    parser.add_argument("--muddy", type=int, nargs="*", default=[10, 20, 40, 80])
    parser.add_argument("--dining", type=int, nargs="*", default=[5, 10, 20, 40, 80])
    parser.add_argument("--no-classic", dest="classic", action="store_false",
                        help="leave out Russian cards and the Kwartet deal")  # fmt: skip
    parser.add_argument("--no-smcdel", action="store_true", help="skip section 2")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    if args.quick:
        args.players, args.cards, args.games, args.events = [3, 4], [12, 16], 1, 3
        args.budget, args.repeat, args.muddy, args.dining = 3.0, 1, [4], [4]
        args.classic = False
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    print(f"# {time.strftime('%Y-%m-%d %H:%M:%S UTC', time.gmtime())}; load average "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))  # fmt: skip
    print(f"# {bench_smcdel.processor_name()}, {os.cpu_count()} cores;"
          f" counting kernel {'built' if kw.epistemics.counting.kernel_available() else 'absent'}")  # fmt: skip
    cpu_start = time.process_time()
    rows = run_grid(args, out)
    summary = summarise(rows, args.events)
    write_csv(out / "scaling_grid.csv", GRID_FIELDS, summary)
    side_rows, note = ([], "skipped (--no-smcdel)") if args.no_smcdel else run_smcdel(args, out)
    side = smcdel_summary(side_rows)
    figures(summary, rows, side, out)
    numbers = latex(summary, rows, side, out, args.events)
    report(summary, side, note, numbers, args.events)
    loads = [float(r["load1"]) for r in rows if r["load1"]]
    if loads:
        print(f"\n# load average (1 min) while measuring: median {statistics.median(loads):.2f},"
              f" range {min(loads):.2f}-{max(loads):.2f}")  # fmt: skip
    print(f"# CPU of this process {time.process_time() - cpu_start:.1f} s; load at the end "
          + " ".join(f"{x:.2f}" for x in os.getloadavg()))  # fmt: skip


if __name__ == "__main__":
    main()
