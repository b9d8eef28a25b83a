"""Explicit S5 Kripke models: model checking, announcements, action models, bisimulation.

>>> from kwartet_epistemic.kripke import KripkeModel
>>> m = KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]})
>>> m.holds("~K_A p"), m.announce("p").holds("K_A p")
(True, True)
"""

from __future__ import annotations

from kwartet_epistemic.kripke.action import ActionModel, product_update
from kwartet_epistemic.kripke.model import KripkeModel, Valuation
from kwartet_epistemic.kripke.partition import PartitionLike, Relation

__all__ = [
    "ActionModel",
    "KripkeModel",
    "PartitionLike",
    "Relation",
    "Valuation",
    "product_update",
]
