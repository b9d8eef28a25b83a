"""Computer players by name, for ``kwartet play --opponents``: a tiny registry.

Only ``random`` exists here; the agents issue registers better players with
:func:`register_opponent`.  A computer player gets only its :class:`PlayerView` (never the
true deal) and returns an :class:`Ask`, or in Memory Kwartet the slot (an int) of a
face-down middle card to turn over.

>>> import kwartet_epistemic as kw
>>> "random" in opponent_names()
True
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
>>> player = make_opponent("random", "A", np.random.default_rng(1))
>>> player.choose(game.view("A")) in game.legal_asks()
True
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

import numpy as np

from kwartet_epistemic.errors import GameSetupError, IllegalAskError
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


_REGISTRY: dict[str, OpponentFactory] = {"random": RandomPlayer}


def register_opponent(name: str, factory: OpponentFactory, *, replace: bool = False) -> None:
    """Make ``name`` usable in ``kwartet play --opponents``.

    >>> register_opponent("random", RandomPlayer)
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: opponent 'random' is already registered; pass replace=True to replace it
    """
    key = name.strip().lower() if isinstance(name, str) else ""
    if not key.replace("_", "").replace("-", "").isalnum():
        raise GameSetupError(f"opponent name {name!r}: expected letters, digits, '-' or '_'")
    if key in _REGISTRY and not replace:
        raise GameSetupError(
            f"opponent {key!r} is already registered; pass replace=True to replace it"
        )
    _REGISTRY[key] = factory


def opponent_names() -> tuple[str, ...]:
    """The registered computer-player names, sorted."""
    return tuple(sorted(_REGISTRY))


def make_opponent(name: str, player: str, rng: np.random.Generator) -> ComputerPlayer:
    """A new computer player of kind ``name`` for seat ``player``.

    >>> make_opponent("genius", "B", np.random.default_rng(0))
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: unknown opponent 'genius'; known: ...random...
    """
    key = name.strip().lower() if isinstance(name, str) else name
    if key not in _REGISTRY:
        raise GameSetupError(f"unknown opponent {name!r}; known: {', '.join(opponent_names())}")
    return _REGISTRY[key](player, rng)
