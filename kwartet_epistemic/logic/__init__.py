"""The formula language of dynamic epistemic logic: syntax trees, parser, printers.

>>> from kwartet_epistemic.logic import parse, K, has
>>> parse("K_A has(B, Q♥)") == K("A", has("B", "Q♥"))
True
"""

from __future__ import annotations

from kwartet_epistemic.logic.formula import (
    FORMULA_PRINT_LIMIT,
    FORMULA_TEXT_LIMIT,
    SYMPY_DEPTH_LIMIT,
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    E,
    Formula,
    FormulaLike,
    FormulaTooLargeError,
    FormulaTypeError,
    Iff,
    Implies,
    K,
    Kw,
    M,
    Not,
    NotPropositionalError,
    Or,
    Top,
    conjunction,
    disjunction,
    has,
)
from kwartet_epistemic.logic.parser import as_formula, parse

__all__ = [
    "And",
    "Announce",
    "AnnounceDual",
    "Atom",
    "Bottom",
    "C",
    "D",
    "E",
    "FORMULA_PRINT_LIMIT",
    "FORMULA_TEXT_LIMIT",
    "Formula",
    "FormulaLike",
    "FormulaTooLargeError",
    "FormulaTypeError",
    "Iff",
    "Implies",
    "K",
    "Kw",
    "M",
    "Not",
    "NotPropositionalError",
    "Or",
    "SYMPY_DEPTH_LIMIT",
    "Top",
    "as_formula",
    "conjunction",
    "disjunction",
    "has",
    "parse",
]
