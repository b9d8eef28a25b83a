"""Agent speed: full games per second of knowledge agents, search decision times.

1. Four agents of one spec play whole 32-card, 4-player games (publisher rules) on one
   core, each following the game through its own views; games per second for
   ``knowledge`` (target >= 200), ``higher_order`` (target >= 40), and for reference
   ``knowledge:facts`` and ``defensive:facts``.
2. ``search`` decisions: the same positions (every turn of seat A in games of four
   ``higher_order`` agents) are given to a fresh ``search`` agent; the time of each
   decision, the knowledge's update included.  The median and 90th percentile over the
   decisions in which search plays games out (no sure ask, more than one candidate; the
   target is a median <= 10 ms), and the median over all positions.  The agent has
   taken in the record before the clock starts, as it would have during the game.
3. A tournament of four ``knowledge`` agents with ``jobs=1`` and ``jobs=2`` (target
   >= 1.7x), against what two processes give for plain CPU work right now
   (``--no-parallel`` skips it).

Every figure is the median over ``--repeats`` interleaved rounds, each measurement in a
fresh interpreter (after a two-game warm-up for the game figures), in wall-clock and in
CPU seconds of that process (the steadier figure when other work shares the machine);
the load average is printed before and after.  ``--against DIR`` runs each measurement also
with the package in ``DIR`` (e.g. a git worktree of an older commit), in a subprocess, in
the same rounds, and prints the ratio.  ``--save`` writes the output to
``paper/measurements/bench_agents.txt``.

``--out DIR`` writes the figures as ``DIR/bench_agents_numbers.tex`` (``\\kwBenchAgents...``:
games per CPU second per spec, search's median and p90 decision in CPU ms, the jobs=2
speed-up).

Run: ``python experiments/bench_agents.py [--games 100] [--repeats 5] [--against DIR] [--save]
[--out DIR]``
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.agents import make_agent
from kwartet_epistemic.files import atomic_write_text

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

PLAYERS = ("A", "B", "C", "D")
_SPEC_WORDS = {"knowledge": "Knowledge", "higher_order": "HigherOrder",
               "knowledge:facts": "KnowledgeFacts", "defensive:facts": "DefensiveFacts"}  # fmt: skip
GAME_SPECS = ("knowledge", "higher_order", "knowledge:facts", "defensive:facts")
TARGET_GAMES_PER_SECOND = {"knowledge": 200.0, "higher_order": 40.0}
TARGET_SEARCH_MEDIAN_MS = 10.0
TARGET_SPEEDUP = 1.7
SEARCH_SPEC = "search"
OUTPUT = Path(__file__).resolve().parent.parent / "paper" / "measurements" / "bench_agents.txt"
PACKAGE_ROOT = Path(kw.__file__).resolve().parent.parent


def play_games(spec: str, games: int, first_seed: int) -> tuple[float, float]:
    """Wall-clock and CPU seconds for ``games`` games of four ``spec`` agents."""
    deck = kw.Deck.piquet()
    wall, cpu = time.perf_counter(), time.process_time()
    for seed in range(first_seed, first_seed + games):
        game = kw.Game.deal(deck, PLAYERS, seed=seed)
        agents = {
            p: make_agent(spec, p, np.random.default_rng([seed, i])) for i, p in enumerate(PLAYERS)
        }
        while not game.is_over:
            player = game.to_move
            assert player is not None
            game.play(agents[player].choose(game.view(player)))
    return time.perf_counter() - wall, time.process_time() - cpu


def search_positions(games: int) -> list[tuple[kw.PlayerView, int]]:
    """Every position of seat A in ``games`` seeded games of four higher_order agents,
    with a seed for the searcher's random numbers."""
    positions: list[tuple[kw.PlayerView, int]] = []
    for seed in range(games):
        game = kw.Game.deal(kw.Deck.piquet(), PLAYERS, seed=5000 + seed)
        agents = {
            p: make_agent("higher_order", p, np.random.default_rng([seed, i]))
            for i, p in enumerate(PLAYERS)
        }
        while not game.is_over:
            player = game.to_move
            assert player is not None
            view = game.view(player)
            if player == "A":
                positions.append((view, len(positions)))
            game.play(agents[player].choose(view))
    return positions


def time_search(
    spec: str, positions: list[tuple[kw.PlayerView, int]]
) -> list[tuple[float, float, bool]]:
    """Per position: wall-clock and CPU milliseconds of a fresh agent's decision, and
    whether it played games out (it drew worlds: every sampler of the knowledge and the
    counting engine is watched, as older and newer code use different ones)."""
    from kwartet_epistemic.agents.knowledge import ExactKnowledge
    from kwartet_epistemic.epistemics.counting import WorldCounter

    drew: list[bool] = []
    watched = [
        (ExactKnowledge, "sample_worlds"),
        (WorldCounter, "sample"),
        (WorldCounter, "sample_many"),
    ]
    originals = [(cls, name, getattr(cls, name)) for cls, name in watched if hasattr(cls, name)]
    for cls, name, method in originals:
        setattr(cls, name, _spy(method, drew))
    out = []
    try:
        for view, seed in positions:
            agent = make_agent(spec, view.player, np.random.default_rng(seed))
            agent.observe(view)  # the record so far, as an agent in the game would have it
            drew.clear()
            wall, cpu = time.perf_counter(), time.process_time()
            agent.choose(view)
            wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
            out.append((wall * 1000, cpu * 1000, bool(drew)))
    finally:
        for cls, name, method in originals:
            setattr(cls, name, method)
    return out


def _spy(method: Callable[..., Any], drew: list[bool]) -> Callable[..., Any]:
    """``method`` that also notes in ``drew`` that it was called."""

    def spy(self: Any, *args: Any) -> Any:
        drew.append(True)
        return method(self, *args)

    return spy


def measure(kind: str, spec: str, games: int, round_: int) -> dict[str, float]:
    """One measurement (one repeat): see :func:`main`."""
    if kind == "games":
        wall, cpu = play_games(spec, games, 1 + round_ * games)
        return {"per_second": games / wall, "per_cpu_second": games / cpu}
    positions = search_positions(games)
    timed = time_search(spec, positions)
    searched = [ms for ms, _, drew in timed if drew] or [float("nan")]
    searched_cpu = [ms for _, ms, drew in timed if drew] or [float("nan")]
    return {
        "median": statistics.median(searched),
        "p90": float(np.percentile(searched, 90)),
        "median_cpu": statistics.median(searched_cpu),
        "p90_cpu": float(np.percentile(searched_cpu, 90)),
        "median_all": statistics.median(ms for ms, _, _ in timed),
        "searched": len(searched),
        "positions": len(timed),
    }


def measure_elsewhere(package: str, kind: str, spec: str, games: int, round_: int) -> dict:
    """:func:`measure` with the package found in ``package`` (a fresh interpreter)."""
    env = {**os.environ, "PYTHONPATH": package}
    command = [sys.executable, __file__, "--one", json.dumps([kind, spec, games, round_])]
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=True)
    return json.loads(done.stdout.strip().splitlines()[-1])


def _spin(n: int) -> int:
    total = 0
    for i in range(n):
        total += i * i
    return total


def machine_speedup(tasks: int = 8, size: int = 2_000_000) -> float:
    """What two processes give on this machine right now for plain CPU work (the
    workers' start-up, a fresh interpreter or a fork of the forkserver, is not timed)."""
    from kwartet_epistemic.parallel import process_pool

    start = time.perf_counter()
    for _ in range(tasks):
        _spin(size)
    serial = time.perf_counter() - start
    with process_pool(2) as pool:
        pool.map(_spin, [1, 1], chunksize=1)  # both workers started
        start = time.perf_counter()
        pool.map(_spin, [size] * tasks)
        return serial / (time.perf_counter() - start)


def _met(ok: bool) -> str:
    return "met" if ok else "NOT met"


def run(args: argparse.Namespace) -> dict[str, str]:
    """Measure and print; returns the figures as TeX macros (name -> text)."""
    numbers = {"kwBenchAgentsGames": str(args.games), "kwBenchAgentsRepeats": str(args.repeats)}
    print(
        f"Machine: {os.cpu_count()} cores; load average {os.getloadavg()[0]:.2f} at start; "
        f"package {Path(kw.__file__).parent}"
        + (f"; against {args.against}" if args.against else "")
    )
    plan = [("games", spec, args.games) for spec in GAME_SPECS]
    plan.append(("search", SEARCH_SPEC, args.search_games))
    ours: dict[tuple[str, str], list[dict]] = {}
    theirs: dict[tuple[str, str], list[dict]] = {}
    for r in range(args.repeats):  # interleaved: every measurement once per round
        for kind, spec, games in plan:
            # Each measurement in a fresh interpreter, ours as the other package's: the
            # same start (imports, warm-up, empty caches) for both.
            ours.setdefault((kind, spec), []).append(
                measure_elsewhere(str(PACKAGE_ROOT), kind, spec, games, r)
            )
            if args.against:
                theirs.setdefault((kind, spec), []).append(
                    measure_elsewhere(args.against, kind, spec, games, r)
                )

    def median(rows: list[dict], key: str) -> float:
        return statistics.median(row[key] for row in rows)

    print(
        f"1. Four agents, {args.games} full games of 32 cards, one core "
        f"(median of {args.repeats} rounds; games/s wall-clock, per CPU second):"
    )
    for spec in GAME_SPECS:
        rows = ours[("games", spec)]
        speed, cpu = median(rows, "per_second"), median(rows, "per_cpu_second")
        line = f"   4 x {spec:<16} {speed:7.1f} games/s  ({cpu:7.1f} per CPU s)"
        numbers[f"kwBenchAgents{_SPEC_WORDS[spec]}Cpu"] = _latex.sig(cpu)
        numbers[f"kwBenchAgents{_SPEC_WORDS[spec]}Wall"] = _latex.sig(speed)
        if args.against:
            old = median(theirs[("games", spec)], "per_second")
            old_cpu = median(theirs[("games", spec)], "per_cpu_second")
            line += (
                f"   old {old:6.1f} ({old_cpu:6.1f})  x{speed / old:4.2f} (x{cpu / old_cpu:4.2f})"
            )
        if spec in TARGET_GAMES_PER_SECOND:
            target = TARGET_GAMES_PER_SECOND[spec]
            line += f"   target >= {target:.0f}: {_met(speed >= target)}"
        print(line)
    rows = ours[("search", SEARCH_SPEC)]
    print(
        f"2. {SEARCH_SPEC} decisions at the {rows[0]['positions']:.0f} positions of seat A in "
        f"{args.search_games} games of four higher_order agents ({rows[0]['searched']:.0f} "
        "with play-outs), ms:"
    )

    def search_line(label: str, rows: list[dict]) -> tuple[float, float]:
        med, cpu = median(rows, "median"), median(rows, "median_cpu")
        print(
            f"   {label:<8} with play-outs: median {med:6.1f} (CPU {cpu:6.1f})  p90 "
            f"{median(rows, 'p90'):6.1f} (CPU {median(rows, 'p90_cpu'):6.1f});  "
            f"all positions: median {median(rows, 'median_all'):5.1f}"
        )
        return med, cpu

    med, cpu = search_line("new", rows)
    numbers["kwBenchAgentsSearchPositions"] = _latex.fmt(rows[0]["positions"], 0)
    numbers["kwBenchAgentsSearchSearched"] = _latex.fmt(rows[0]["searched"], 0)
    numbers["kwBenchAgentsSearchGames"] = str(args.search_games)
    numbers["kwBenchAgentsSearchMedianCpu"] = _latex.sig(cpu)
    numbers["kwBenchAgentsSearchPninetyCpu"] = _latex.sig(median(rows, "p90_cpu"))
    numbers["kwBenchAgentsSearchMedianAll"] = _latex.sig(median(rows, "median_all"))
    print(
        f"   target median <= {TARGET_SEARCH_MEDIAN_MS:.0f} ms: "
        f"{_met(med <= TARGET_SEARCH_MEDIAN_MS)} (wall-clock), "
        f"{_met(cpu <= TARGET_SEARCH_MEDIAN_MS)} (CPU)"
    )
    if args.against:
        o_med, o_cpu = search_line("old code", theirs[("search", SEARCH_SPEC)])
        print(f"   {o_med / med:.1f}x faster at the median ({o_cpu / cpu:.1f}x in CPU time)")
    if not args.no_parallel:
        agents = ["knowledge"] * 4
        print(f"3. kw.tournament, 4 x knowledge, {args.parallel_games} games:")
        times = {}
        for jobs in (1, 2):
            runs = []
            for r in range(args.repeats):
                start = time.perf_counter()
                kw.tournament(agents, games=args.parallel_games, seed=100 + r, jobs=jobs)
                runs.append(time.perf_counter() - start)
            times[jobs] = min(runs)
            print(f"   jobs={jobs}: {times[jobs]:6.2f} s (best of {args.repeats})")
        speedup = times[1] / times[2]
        machine = machine_speedup()
        numbers["kwBenchAgentsParallelGames"] = _latex.fmt(args.parallel_games, 0)
        numbers["kwBenchAgentsSpeedup"] = _latex.sig(speedup)
        numbers["kwBenchAgentsMachineSpeedup"] = _latex.sig(machine)
        print(
            f"   speed-up with jobs=2: {speedup:.2f}x (target >= {TARGET_SPEEDUP}: "
            f"{_met(speedup >= TARGET_SPEEDUP)}); plain CPU work in two processes gets "
            f"{machine:.2f}x on this machine right now"
        )
    print(f"Load average at the end: {os.getloadavg()[0]:.2f}")
    return numbers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--search-games", type=int, default=3)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--against", default="", help="a directory holding an older package")
    parser.add_argument("--no-parallel", action="store_true", help="skip jobs=1 vs jobs=2")
    parser.add_argument("--parallel-games", type=int, default=400)
    parser.add_argument("--save", action="store_true", help=f"write the output to {OUTPUT}")
    parser.add_argument("--one", help=argparse.SUPPRESS)  # one measurement, as JSON
    parser.add_argument("--out", type=Path, help="folder for bench_agents_numbers.tex")
    args = parser.parse_args()
    if args.one:
        kind, spec, games, round_ = json.loads(args.one)
        if kind == "games":
            play_games(spec, 2, 10**6)  # the same warm-up as the caller's
        print(json.dumps(measure(kind, spec, games, round_)))
        return
    if not args.save:
        numbers = run(args)
    else:
        buffer = io.StringIO()
        with contextlib.redirect_stdout(buffer):
            numbers = run(args)
        text = buffer.getvalue()
        print(text, end="")
        command = "python experiments/bench_agents.py " + " ".join(sys.argv[1:])
        atomic_write_text(OUTPUT, f"$ {command}\n{text}")  # a stop leaves the old figures whole
    if args.out:
        _latex.write_numbers(
            args.out / "bench_agents_numbers.tex", "experiments/bench_agents.py", numbers
        )


if __name__ == "__main__":
    main()
