"""The engines behind an epistemic state: one protocol, one registry.

Every engine answers the same questions with the same semantics (worlds, what each
player considers possible, truth at the actual world or, on a player's view, over the
viewer's worlds), so that :class:`~kwartet_epistemic.epistemics.state.EpistemicState`
dispatches once, by name, and one test suite runs on all of them:

- ``"counting"`` (:class:`~kwartet_epistemic.epistemics.evaluate.CountingEngine`): the
  family-by-family counting programme, any table size;
- ``"explicit"`` (:class:`~kwartet_epistemic.epistemics.explicit.ExplicitEngine`): the
  enumerated Kripke model, teaching sizes;
- ``"symbolic"`` (:class:`~kwartet_epistemic.epistemics.symbolic.SymbolicEngine`): a BDD
  knowledge structure;
- ``"auto"`` (:class:`~kwartet_epistemic.epistemics.evaluate.AutoEngine`): counting
  first, then explicit or symbolic for what counting cannot answer.

>>> import kwartet_epistemic as kw
>>> sorted(ENGINES)
['auto', 'counting', 'explicit', 'symbolic']
>>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
>>> state = kw.knowledge(game)
>>> {name: state.engine_named(name).count_worlds("A") for name in sorted(ENGINES)}
{'auto': 10, 'counting': 10, 'explicit': 10, 'symbolic': 10}
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from kwartet_epistemic.epistemics.evaluate import AutoEngine, CountingEngine
from kwartet_epistemic.epistemics.explicit import ExplicitEngine
from kwartet_epistemic.epistemics.symbolic import SymbolicEngine
from kwartet_epistemic.logic import Formula

__all__ = ["ENGINES", "Engine"]


class Engine(Protocol):
    """What every engine of an epistemic state answers.

    ``player`` None means the public worlds (everything consistent with the record);
    a player's worlds are those agreeing with their private information.  On a state
    built from a player's view only the viewer's own worlds (and the public ones) are
    known: another player's raise
    :class:`~kwartet_epistemic.errors.UnknownToViewerError`.
    """

    name: str

    def count_worlds(self, player: str | None) -> int:
        """The exact number of the worlds."""
        ...

    def location_table(self, player: str | None) -> tuple[np.ndarray, int]:
        """``[n_cards, n_players]`` counts of the worlds in which each player holds each
        card now, and the number of worlds."""
        ...

    def known_place(self, player: str, card: int) -> str | None:
        """Where ``player`` knows the card (deck index) not publicly seen lies: a
        player, or a pile's name; None if they do not know."""
        ...

    def truth(self, formula: Formula) -> bool:
        """Truth of a canonical formula at the actual world; on a view, True where it
        holds in every world the viewer considers possible, False where in none, and
        :class:`~kwartet_epistemic.errors.UnknownToViewerError` where that differs.
        Refuses with :class:`~kwartet_epistemic.errors.UnsupportedFormulaError` (a
        formula the engine cannot evaluate) or
        :class:`~kwartet_epistemic.errors.ModelTooLargeError` (beyond its limit)."""
        ...


ENGINES: dict[str, type[CountingEngine] | type[ExplicitEngine] | type[SymbolicEngine]] = {
    "auto": AutoEngine,
    "counting": CountingEngine,
    "explicit": ExplicitEngine,
    "symbolic": SymbolicEngine,
}
"""The engines by name: ``knowledge(source, engine=name)``."""
