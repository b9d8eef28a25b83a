"""Cost of exact knowledge with a draw pile (the ``fish`` preset, 32 cards).

Each draw adds a slot of capacity one to the counting programme (the drawn card's
identity is private), so the programme's state grows with the draws whose card the
public has not yet seen.  This plays a few random games and reports, per game, the
number of events and draws, the largest number of programme dimensions met in the first
player's view, and the median and worst time to update and compute every player's
location probabilities after an event.

Run from the repository root:  python paper/draw_pile_cost.py
"""

from __future__ import annotations

import statistics
import time

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.events import Drew


def main() -> None:
    rules = kw.RuleSet.preset("fish")
    for players in (["A", "B"], ["A", "B", "C"]):
        for seed in range(2):
            game = kw.Game.deal(kw.Deck.piquet(), players, seed=seed, rules=rules)
            rng = np.random.default_rng(seed)
            state = kw.knowledge(game)
            times: list[float] = []
            widest = 0
            while not game.is_over:
                game.play(game.random_legal_ask(rng))
                start = time.perf_counter()
                for p in game.players:
                    state.location_probabilities(p)
                times.append(time.perf_counter() - start)
                widest = max(widest, len(state.world_counter((players[0],)).dims))
            draws = sum(isinstance(e, Drew) for e in game.record)
            print(
                f"fish, 32 cards, {len(players)} players, seed {seed}: {len(times)} asks, "
                f"{draws} draws, up to {widest} programme dimensions; per ask median "
                f"{1000 * statistics.median(times):.1f} ms, max {1000 * max(times):.1f} ms"
            )


if __name__ == "__main__":
    main()
