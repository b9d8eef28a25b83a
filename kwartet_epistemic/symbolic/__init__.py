"""Symbolic model checking of dynamic epistemic logic: knowledge structures on BDDs.

>>> from kwartet_epistemic.symbolic import muddy_children_structure
>>> ks = muddy_children_structure(3).announce("m1 | m2 | m3")
>>> ks.holds("K_1 m1", {"m1"})
True
"""

from __future__ import annotations

from kwartet_epistemic.symbolic.backend import available_backends
from kwartet_epistemic.symbolic.puzzles import (
    RUSSIAN_CARDS_AGENTS,
    RUSSIAN_CARDS_CARDS,
    muddy_children_father,
    muddy_children_muddy_know,
    muddy_children_nobody_knows,
    muddy_children_rounds,
    muddy_children_state,
    muddy_children_structure,
    russian_cards_alice_says,
    russian_cards_atom,
    russian_cards_bob_knows_alice,
    russian_cards_cath_ignorant,
    russian_cards_deal,
    russian_cards_structure,
)
from kwartet_epistemic.symbolic.structure import (
    BddKnowledgeStructure,
    KnowledgeStructure,
    UnknownAgentError,
    UnknownAtomError,
)

__all__ = [
    "RUSSIAN_CARDS_AGENTS",
    "RUSSIAN_CARDS_CARDS",
    "BddKnowledgeStructure",
    "KnowledgeStructure",
    "UnknownAgentError",
    "UnknownAtomError",
    "available_backends",
    "muddy_children_father",
    "muddy_children_muddy_know",
    "muddy_children_nobody_knows",
    "muddy_children_rounds",
    "muddy_children_state",
    "muddy_children_structure",
    "russian_cards_alice_says",
    "russian_cards_atom",
    "russian_cards_bob_knows_alice",
    "russian_cards_cath_ignorant",
    "russian_cards_deal",
    "russian_cards_structure",
]
