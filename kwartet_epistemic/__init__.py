"""kwartet_epistemic: dynamic epistemic logic for the Dutch card game Kwartet.

Every public ask and refusal in Kwartet is an announcement that prunes possible
worlds.  This package plays the game (the referee), states knowledge in an
epistemic language, and answers "who knows what" exactly, at full game size.

>>> import kwartet_epistemic as kw
>>> len(kw.Deck.piquet().cards)
32
"""

from __future__ import annotations

from kwartet_epistemic.errors import (
    FalseAnnouncementError,
    FormulaSyntaxError,
    GameSetupError,
    IllegalAskError,
    InvalidDeckError,
    KwartetError,
    ModelError,
    ModelTooLargeError,
    RecordError,
    RuleOptionError,
    UnknownCardError,
)

__version__ = "0.1.0"

__all__ = [
    "FalseAnnouncementError",
    "FormulaSyntaxError",
    "GameSetupError",
    "IllegalAskError",
    "InvalidDeckError",
    "KwartetError",
    "ModelError",
    "ModelTooLargeError",
    "RecordError",
    "RuleOptionError",
    "UnknownCardError",
]

# --- game (issue 2) ---

# --- logic and kripke (issue 3) ---

# --- symbolic (issue 4) ---
