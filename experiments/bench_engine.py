"""Referee speed: random-vs-random full games per second on one core.

32 cards, 4 players, publisher rules.  Each game is dealt with its own seed and played to
the end; the loop is the one agents and simulations use::

    while not game.is_over:
        game.play(game.random_legal_ask(rng))

The same figure with ``legal_asks()`` enumeration (list every legal ask, pick one) is
printed for reference.  The best of ``--repeats`` runs is reported, since other work on
the machine only ever slows a run down.

Run: ``python experiments/bench_engine.py [--games 3000] [--repeats 3]``
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np

import kwartet_epistemic as kw

PLAYERS = ("A", "B", "C", "D")
TARGET = 1000  # games per second, issue 2


def with_random_legal_ask(game: kw.Game, rng: np.random.Generator) -> int:
    asks = 0
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
        asks += 1
    return asks


def with_enumeration(game: kw.Game, rng: np.random.Generator) -> int:
    asks = 0
    while not game.is_over:
        legal = game.legal_asks()
        game.play(legal[int(rng.integers(len(legal)))])
        asks += 1
    return asks


def measure(
    play: Callable[[kw.Game, np.random.Generator], int], games: int, seed: int
) -> tuple[float, float, float]:
    """Games per wall-clock second and per CPU second (dealing included), and the mean
    asks per game.  CPU time is the steadier figure when other work shares the machine."""
    deck = kw.Deck.piquet()
    rules = kw.RuleSet.preset("publisher")
    rng = np.random.default_rng(seed)
    asks = 0
    start, start_cpu = time.perf_counter(), time.process_time()
    for g in range(games):
        game = kw.Game.deal(deck, PLAYERS, seed=seed * 1_000_003 + g, rules=rules)
        asks += play(game, rng)
    elapsed, cpu = time.perf_counter() - start, time.process_time() - start_cpu
    return games / elapsed, games / cpu, asks / games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=3000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    print(f"Random-vs-random Kwartet: 32 cards, 4 players, publisher rules, {args.games} games")
    for label, play in [
        ("random_legal_ask()", with_random_legal_ask),
        ("legal_asks() enumeration", with_enumeration),
    ]:
        runs = [measure(play, args.games, args.seed) for _ in range(args.repeats)]
        best = max(wall for wall, _, _ in runs)
        best_cpu = max(cpu for _, cpu, _ in runs)
        mean_asks = runs[0][2]
        rates = ", ".join(f"{wall:.0f}" for wall, _, _ in runs)
        print(
            f"  {label:26s} {best:6.0f} games/s wall (runs: {rates}), {best_cpu:6.0f} per "
            f"CPU second; mean {mean_asks:.1f} asks per game"
        )
    print(f"Target: at least {TARGET} games/s with random_legal_ask() on one core.")


if __name__ == "__main__":
    main()
