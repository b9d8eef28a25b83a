"""Benchmarks of the epistemic state (issue 4); prints its figures.

    python experiments/bench_knowledge.py [--games N] [--skip-symbolic]

1. Full 32-card and 52-card, 4-player games played at random: after each ask, update the
   state and compute all four players' exact location probabilities (median, p90, max).
2. The 16-card, 3-player game with hands 6/5/5 at the deal: the same queries (counts and
   every player's location probabilities) on the counting and explicit engines.
3. Symbolic engine, 32-card game, if available: K_A K_B has(P, c) for every card and
   player, and one common-knowledge query, at the deal and 20 asks in.
"""

from __future__ import annotations

import argparse
import statistics
import time

import numpy as np

import kwartet_epistemic as kw


def per_event(deck: kw.Deck, games: int) -> list[float]:
    times = []
    for seed in range(games):
        game = kw.Game.deal(deck, ["A", "B", "C", "D"], seed=seed)
        rng = np.random.default_rng(seed)
        k = kw.knowledge(game)
        while not game.is_over:
            game.play(game.random_legal_ask(rng))
            start = time.perf_counter()
            for player in game.players:
                k.location_probabilities(player)
            times.append(time.perf_counter() - start)
    return times


def report(label: str, times: list[float]) -> None:
    ordered = sorted(times)
    print(
        f"{label}: {len(times)} events, median {1000 * statistics.median(times):.2f} ms, "
        f"p90 {1000 * ordered[int(0.9 * len(ordered))]:.2f} ms, max {1000 * ordered[-1]:.1f} ms"
    )


def engines_on_16_cards() -> None:
    deck = kw.Deck.piquet(families=4)
    hands = {"A": [], "B": [], "C": []}
    order = ["A", "B", "C"]
    for i, card in enumerate(deck.cards):  # 6/5/5 without a complete family
        hands[order[i % 3]].append(card.code)
    game = kw.Game.from_hands(deck, hands, first="A")
    timings = {}
    for engine in ("counting", "explicit"):
        start = time.perf_counter()
        k = kw.knowledge(game, engine=engine)
        counts = [k.count_worlds()] + [k.count_worlds(p) for p in game.players]
        for p in game.players:
            k.location_probabilities(p)
        timings[engine] = time.perf_counter() - start
        print(f"16 cards, 3 players, 6/5/5, {engine}: worlds {counts}, {timings[engine]:.3f} s")
    print(f"explicit / counting time ratio: {timings['explicit'] / timings['counting']:.0f}x")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--skip-symbolic", action="store_true")
    args = parser.parse_args()
    report(
        "32 cards, 4 players, all four players' probabilities per event",
        per_event(kw.Deck.piquet(), args.games),
    )
    report(
        "52 cards, 4 players, all four players' probabilities per event",
        per_event(kw.Deck.standard(), args.games),
    )
    engines_on_16_cards()
    if not args.skip_symbolic:
        try:
            from kwartet_epistemic.epistemics import symbolic  # noqa: F401
        except ImportError:
            print("symbolic Kwartet engine: not available yet")
            return
        symbolic_figures()


def symbolic_figures() -> None:
    for asks in (0, 20):
        game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        rng = np.random.default_rng(3)
        for _ in range(asks):
            game.play(game.random_legal_ask(rng))
        k = kw.knowledge(game, engine="symbolic")
        start = time.perf_counter()
        for card in game.deck.cards:
            for p in game.players:
                k.holds(f"K_A K_B has({p}, {card.code})")
        sweep = time.perf_counter() - start
        # Common knowledge about a card still hidden from the table, so that the fixpoint
        # has work to do: "it is common knowledge that B does not hold it".
        hidden = next(c for c in game.deck.cards if k.history.location[c.index] is None)
        query = f"C_{{A,B,C,D}} ~has(B, {hidden.code})"
        start = time.perf_counter()
        k.holds(query)
        common = time.perf_counter() - start
        print(
            f"symbolic, 32 cards, {asks} asks in: K_A K_B sweep {sweep:.2f} s, "
            f"one common-knowledge query ({query}) {common:.2f} s"
        )


if __name__ == "__main__":
    main()
