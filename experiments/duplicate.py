"""Duplicate matches: two agents, two seats each, every deal played in all six seatings.

Each deal is played six times, once for each way of giving two of the four seats to
agent A (the others to B), so the luck of the deal and of the seat cancels out within a
deal.  What is reported is A's team share of the wins (ties shared; 0.5 is even) with a
95% interval over deals, and the mean quartets per agent and game.  This is the paired
design used to choose the settings of ``search``; ``experiments/strength.py`` measures the
issue's seat-rotated tournaments, whose games each have a fresh deal.

Run: ``python experiments/duplicate.py "search[objective=score]" higher_order [--deals 150]
[--seed 10000] [--jobs 2]``

Today's ``search`` against its earlier settings (the same code with the earlier
settings, which replays the earlier games exactly)::

    python experiments/duplicate.py search "search[confidence=0,samples=12]" --deals 200
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np
from scipy import stats

import kwartet_epistemic.agents  # noqa: F401  (registers the policies)
from kwartet_epistemic.parallel import process_pool
from kwartet_epistemic.tournament import play_game


def seatings(a: str, b: str) -> list[tuple[str, ...]]:
    """The six ways to seat two of ``a`` and two of ``b``."""
    return [
        tuple(a if seat in pair else b for seat in range(4))
        for pair in itertools.combinations(range(4), 2)
    ]


def play_deal(task: tuple[str, str, int]) -> tuple[float, int, int]:
    """A's share of the wins over the six seatings of one deal, and both sides' quartets."""
    a, b, seed = task
    share = 0.0
    quartets_a = quartets_b = 0
    for agents in seatings(a, b):
        result = play_game(list(agents), seed=seed)
        for seat, name in enumerate("ABCD"):
            if agents[seat] == a:
                quartets_a += result.scores[seat]
                if name in result.winners:
                    share += 1.0 / len(result.winners)
            else:
                quartets_b += result.scores[seat]
    return share / 6, quartets_a, quartets_b


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", help="agent spec A, e.g. search")
    parser.add_argument("b", help="agent spec B, e.g. higher_order")
    parser.add_argument("--deals", type=int, default=150)
    parser.add_argument("--seed", type=int, default=10_000, help="first deal seed")
    parser.add_argument("--jobs", type=int, default=2)
    args = parser.parse_args()
    tasks = [(args.a, args.b, args.seed + i) for i in range(args.deals)]
    start = time.perf_counter()
    if args.jobs > 1:
        with process_pool(args.jobs) as pool:  # forkserver/spawn, not fork
            rows = pool.map(play_deal, tasks, chunksize=1)
    else:
        rows = [play_deal(task) for task in tasks]
    elapsed = time.perf_counter() - start
    shares = np.array([row[0] for row in rows])
    # Student t: the per-deal shares are fractions, and a few deals are a small sample.
    half_width = (
        float(stats.t.ppf(0.975, len(shares) - 1)) * shares.std(ddof=1) / np.sqrt(len(shares))
        if len(shares) > 1
        else np.nan
    )
    per_agent_game = 12 * len(rows)  # two agents a side, six games a deal
    print(
        f"{args.a} vs {args.b}: {args.deals} deals x 6 seatings = {6 * args.deals} games "
        f"(deal seeds {args.seed}..{args.seed + args.deals - 1}), {elapsed:.0f} s"
    )
    print(
        f"  team share of the wins for {args.a}: {shares.mean():.4f} +- {half_width:.4f} "
        "(95%; 0.5 is even)"
    )
    print(
        f"  mean quartets per agent and game: {args.a} "
        f"{sum(r[1] for r in rows) / per_agent_game:.3f}, "
        f"{args.b} {sum(r[2] for r in rows) / per_agent_game:.3f}"
    )


if __name__ == "__main__":
    main()
