"""The bridge from a game's public record to its epistemic state (who knows what).

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
>>> kw.knowledge(game).count_worlds() > 0
True
"""

from kwartet_epistemic.epistemics.state import (
    EpistemicState,
    UnknownToViewerError,
    World,
    knowledge,
)

__all__ = ["EpistemicState", "UnknownToViewerError", "World", "knowledge"]
