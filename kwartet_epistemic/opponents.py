"""What a computer player is: it gets only its :class:`PlayerView` (never the true deal)
and returns an :class:`Ask`, or in Memory Kwartet the slot (an int) of a face-down middle
card to turn over.  Players are made by name from the one registry of
:mod:`kwartet_epistemic.agents` (``make_player``); the functions here that kept a
registry of their own are deprecated and forward to it.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
>>> player = RandomPlayer("A", np.random.default_rng(1))
>>> player.choose(game.view("A")) in game.legal_asks()
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from kwartet_epistemic._deprecation import deprecated
from kwartet_epistemic.errors import IllegalAskError
from kwartet_epistemic.game import Ask, PlayerView

__all__ = [
    "ComputerPlayer",
    "OpponentFactory",
    "RandomPlayer",
    "make_opponent",
    "opponent_names",
    "register_opponent",
]


class ComputerPlayer(Protocol):
    """A player the program moves: it sees only its view and chooses the next action."""

    def choose(self, view: PlayerView) -> Ask | int:
        """The next action: an :class:`Ask`, or a middle slot to turn over (Memory Kwartet)."""
        ...


#: Builds a computer player for seat ``player``, drawing any randomness from ``rng``.
OpponentFactory = Callable[[str, np.random.Generator], ComputerPlayer]


@dataclass
class RandomPlayer:
    """Asks uniformly at random among its legal asks (never turns over middle cards).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=3)
    >>> RandomPlayer("B", np.random.default_rng(0)).choose(game.view("B")).asker
    'B'
    """

    player: str
    rng: np.random.Generator

    def choose(self, view: PlayerView) -> Ask:
        asks = view.legal_asks()
        if not asks:
            raise IllegalAskError(f"{self.player} has no legal ask: it is not their turn")
        return asks[int(self.rng.integers(len(asks)))]


@deprecated("use kwartet_epistemic.agents.register_player (the one player registry)")
def register_opponent(name: str, factory: OpponentFactory, *, replace: bool = False) -> None:
    """Make ``name`` usable in ``kwartet play --opponents``: deprecated, see
    :func:`~kwartet_epistemic.agents.agent.register_player`."""
    from kwartet_epistemic.agents.agent import register_player

    register_player(name, factory, replace=replace)


@deprecated("use kwartet_epistemic.agents.player_names (the one player registry)")
def opponent_names() -> tuple[str, ...]:
    """The registered computer-player names: deprecated, see
    :func:`~kwartet_epistemic.agents.agent.player_names`."""
    from kwartet_epistemic.agents.agent import player_names

    return player_names()


@deprecated("use kwartet_epistemic.agents.make_player (the one constructor)")
def make_opponent(name: str, player: str, rng: np.random.Generator) -> ComputerPlayer:
    """A new computer player of kind ``name`` for seat ``player``: deprecated, see
    :func:`~kwartet_epistemic.agents.agent.make_player` (``random`` here is still the
    plain :class:`RandomPlayer`, as it always was)."""
    from kwartet_epistemic.agents.agent import make_player

    if isinstance(name, str) and name.strip().lower() == "random":
        return RandomPlayer(player, rng)
    made: ComputerPlayer = make_player(name, player, rng)
    return made
