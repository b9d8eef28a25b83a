"""The old home of the OpenSpiel game and bots: deprecated, import
:mod:`kwartet_epistemic.interop.openspiel_game` and
:mod:`kwartet_epistemic.interop.openspiel_bots` (importing either registers the game).
"""

from __future__ import annotations

import warnings

from kwartet_epistemic.interop.openspiel_bots import *  # noqa: F403
from kwartet_epistemic.interop.openspiel_bots import __all__ as _bots
from kwartet_epistemic.interop.openspiel_game import *  # noqa: F403
from kwartet_epistemic.interop.openspiel_game import __all__ as _game

__all__ = [*_game, *_bots]

warnings.warn(
    "kwartet_epistemic.openspiel is deprecated: import kwartet_epistemic.interop.openspiel_game "
    "(the game) and kwartet_epistemic.interop.openspiel_bots (the bots)",
    DeprecationWarning,
    stacklevel=2,
)
