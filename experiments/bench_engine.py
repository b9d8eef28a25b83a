"""Referee speed: random-vs-random full games per second on one core.

32 cards, 4 players, publisher rules.  Each game is dealt with its own seed and played to
the end.  Three loops are timed, dealing included:

* the public-API reference loop (list the legal asks, pick one with ``random``, ask)::

      game = kw.Game.deal(deck, players=["A", "B", "C", "D"], seed=seed)
      rng = random.Random(seed)
      while not game.is_over:
          a = rng.choice(game.legal_asks())
          game.ask(a.target, a.card)

* the loop agents and simulations use::

      while not game.is_over:
          game.play(game.random_legal_ask(rng))

* ``legal_asks()`` enumeration with a numpy generator and ``play`` (for reference).

Each loop runs ``--repeats`` times, interleaved, and the median is reported, in games per
wall-clock second and per CPU second (CPU time is the steadier figure when other work
shares the machine).  The load average is printed before and after.  To compare with older
code, run this script with ``PYTHONPATH`` pointing at an older copy of the package.

With ``--out DIR``, ``DIR/bench_engine_numbers.tex`` holds the medians as
``\\kwBenchEngine<Loop>Cpu`` / ``...Wall`` (``PublicApi``, ``RandomLegal``, ``Enumeration``)
and the mean asks per game (``\\kwBenchEngineAsks``).

Run: ``python experiments/bench_engine.py [--games 2000] [--repeats 5] [--out DIR]``
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

PLAYERS = ["A", "B", "C", "D"]
MACROS = {
    "legal_asks() + ask()": "PublicApi",
    "random_legal_ask() + play()": "RandomLegal",
    "legal_asks() + play(), numpy": "Enumeration",
}
TARGETS = {
    "legal_asks() + ask()": 1500,  # games per second
    "random_legal_ask() + play()": 1000,
}


def public_api_loop(games: int) -> int:
    """The reference loop, exactly; returns the number of asks."""
    deck = kw.Deck.piquet()
    asks = 0
    for seed in range(games):
        game = kw.Game.deal(deck, players=PLAYERS, seed=seed)
        rng = random.Random(seed)
        while not game.is_over:
            a = rng.choice(game.legal_asks())
            game.ask(a.target, a.card)
            asks += 1
    return asks


def random_legal_ask_loop(games: int) -> int:
    deck = kw.Deck.piquet()
    rules = kw.RuleSet.preset("publisher")
    rng = np.random.default_rng(1)
    asks = 0
    for g in range(games):
        game = kw.Game.deal(deck, PLAYERS, seed=1_000_003 + g, rules=rules)
        while not game.is_over:
            game.play(game.random_legal_ask(rng))
            asks += 1
    return asks


def enumeration_loop(games: int) -> int:
    deck = kw.Deck.piquet()
    rules = kw.RuleSet.preset("publisher")
    rng = np.random.default_rng(1)
    asks = 0
    for g in range(games):
        game = kw.Game.deal(deck, PLAYERS, seed=1_000_003 + g, rules=rules)
        while not game.is_over:
            legal = game.legal_asks()
            game.play(legal[int(rng.integers(len(legal)))])
            asks += 1
    return asks


LOOPS: dict[str, Callable[[int], int]] = {
    "legal_asks() + ask()": public_api_loop,
    "random_legal_ask() + play()": random_legal_ask_loop,
    "legal_asks() + play(), numpy": enumeration_loop,
}


def measure(loop: Callable[[int], int], games: int) -> tuple[float, float, float]:
    """Games per wall-clock second, per CPU second, and mean asks per game."""
    start, start_cpu = time.perf_counter(), time.process_time()
    asks = loop(games)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return games / elapsed, games / cpu, asks / games


def load() -> str:
    try:
        return " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:  # pragma: no cover - not on every platform
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--out", type=Path, help="folder for bench_engine_numbers.tex")
    args = parser.parse_args()
    print(f"kwartet_epistemic from {os.path.dirname(kw.__file__)}")
    print(
        f"Random-vs-random Kwartet: 32 cards, 4 players, publisher rules, {args.games} games, "
        f"median of {args.repeats} interleaved repeats; load average {load()} (1, 5, 15 min)"
    )
    runs: dict[str, list[tuple[float, float, float]]] = {label: [] for label in LOOPS}
    for _ in range(args.repeats):
        for label, loop in LOOPS.items():
            runs[label].append(measure(loop, args.games))
    medians: dict[str, float] = {}
    numbers = {"kwBenchEngineGames": _latex.fmt(args.games, 0),
               "kwBenchEngineRepeats": str(args.repeats)}  # fmt: skip
    for label, results in runs.items():
        wall = statistics.median(r[0] for r in results)
        cpu = medians[label] = statistics.median(r[1] for r in results)
        numbers[f"kwBenchEngine{MACROS[label]}Wall"] = _latex.sig(wall)
        numbers[f"kwBenchEngine{MACROS[label]}Cpu"] = _latex.sig(cpu)
        numbers.setdefault("kwBenchEngineAsks", _latex.fmt(results[0][2], 1))
        spread = ", ".join(f"{r[1]:.0f}" for r in results)
        print(
            f"  {label:30s} {wall:6.0f} games/s wall, {cpu:6.0f} per CPU second "
            f"(CPU runs: {spread}); mean {results[0][2]:.1f} asks per game"
        )
    print(f"Load average after: {load()}")
    if args.out:
        _latex.write_numbers(
            args.out / "bench_engine_numbers.tex", "experiments/bench_engine.py", numbers
        )
    for label, target in TARGETS.items():
        met = "met" if medians[label] >= target else "NOT met"
        print(f"Target: {label} at least {target} games per CPU second on one core: {met}.")


if __name__ == "__main__":
    main()
