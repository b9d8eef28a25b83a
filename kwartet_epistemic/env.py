"""The old home of the PettingZoo and Gymnasium environments: deprecated, import
:mod:`kwartet_epistemic.interop.environments`.
"""

from __future__ import annotations

import warnings

from kwartet_epistemic.interop.environments import *  # noqa: F403

warnings.warn(
    "kwartet_epistemic.env is deprecated: import kwartet_epistemic.interop.environments",
    DeprecationWarning,
    stacklevel=2,
)
