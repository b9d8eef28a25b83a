"""The demo game behind ``kwartet demo``: a seeded random game, printed as a transcript.

Kept as a function of its own so that later work can extend it (for instance with what
the table deduces after each ask) without touching the command line.

>>> import io
>>> out = io.StringIO()
>>> game = run_demo(7, out)
>>> game.is_over, sum(game.scores.values())
(True, 8)
>>> print(out.getvalue())  # doctest: +ELLIPSIS
Kwartet demo, seed 7: 4 players (A, B, C, D) asking at random, publisher rules, 32 cards.
The deal (D deals):
  A: 8H 10D 10C JD JC KS KH AS
  ...
D deals 32 cards: A 8, B 8, C 8, D 8.
...
Game over. Quartets: ...
"""

from __future__ import annotations

import sys
from typing import TextIO

import numpy as np

from kwartet_epistemic.cards import Deck
from kwartet_epistemic.game import Game

__all__ = ["run_demo", "DEMO_PLAYERS"]

DEMO_PLAYERS = ("A", "B", "C", "D")


def run_demo(seed: int = 7, out: TextIO | None = None) -> Game:
    """Deal a 4-player, 32-card game with ``seed``, let every player ask uniformly at
    random until the end, print a short header and the transcript to ``out`` (default
    stdout), and return the finished game.

    The same seed always prints the same game.
    """
    out = sys.stdout if out is None else out
    game = Game.deal(Deck.piquet(), DEMO_PLAYERS, seed=seed)
    # A separate stream for the asks, so the deal is exactly Game.deal(seed=seed).
    rng = np.random.default_rng([seed, 1])
    deal = game.initial_deal
    print(
        f"Kwartet demo, seed {seed}: {len(game.players)} players ({', '.join(game.players)}) "
        f"asking at random, {game.rules.name} rules, {len(game.deck)} cards.",
        file=out,
    )
    print(f"The deal ({deal['dealer']} deals):", file=out)
    for player in game.players:
        print(f"  {player}: {' '.join(deal['hands'][player])}", file=out)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
    print(game.transcript(), file=out)
    return game
