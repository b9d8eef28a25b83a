"""Translations between the two kinds of model, and SMCDEL's input of a Kripke model
(the floor above :mod:`~kwartet_epistemic.kripke` and the knowledge structures, as
SMCDEL's own ``Translations`` module).

>>> from kwartet_epistemic.kripke import KripkeModel
>>> m = KripkeModel(2, {"A": [0, 0]}, {"p": [True, False]})
>>> ks, states = kripke_to_structure(m)
>>> [ks.holds("~K_A p", s) for s in states], ks.to_kripke(states[0]).holds("~K_A p")
([True, True], True)
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import numpy as np

from kwartet_epistemic.errors import KwartetError, ModelError, ModelTooLargeError
from kwartet_epistemic.kripke import KripkeModel
from kwartet_epistemic.kripke.partition import compact
from kwartet_epistemic.logic.formula import Atom, FormulaLike, formula_excerpt
from kwartet_epistemic.symbolic.backend import new_manager, plain_errors
from kwartet_epistemic.symbolic.smcdel import (
    SmcdelExport,
    comment_text,
    export_structure,
    queries_of,
)
from kwartet_epistemic.symbolic.structure import KnowledgeStructure

__all__ = ["export_kripke", "kripke_to_structure"]


def _fresh_name(base: str, fallback: str, taken: set[str]) -> str:
    try:
        name = Atom(base).name
    except KwartetError:
        name = Atom(fallback).name
    while name in taken:
        name = Atom("x" + name).name
    taken.add(name)
    return name


def _observed_atoms(
    labels: np.ndarray, count: int, atoms: Sequence[str], columns: Mapping[str, list[bool]]
) -> list[str] | None:
    """The atoms constant on every block of a partition, if the blocks differ on them
    (then the blocks are exactly the classes of worlds agreeing on those atoms); else None.

    >>> labels = np.array([0, 0, 1, 1])
    >>> _observed_atoms(labels, 2, ["p", "q"], {"p": [0, 0, 1, 1], "q": [0, 1, 0, 1]})
    ['p']
    """
    constant = []
    for name in atoms:
        values = np.asarray(columns[name], dtype=bool)
        first = np.zeros(count, dtype=bool)
        first[labels] = values  # one world's value per block (the last written)
        if np.array_equal(first[labels], values):
            constant.append(name)
    signatures = {
        tuple(columns[name][w] for name in constant): label
        for w, label in enumerate(labels.tolist())
    }
    return constant if len(signatures) == count else None


@plain_errors
def kripke_to_structure(
    model: KripkeModel, *, backend: str = "auto", max_worlds: int = 100_000
) -> tuple[KnowledgeStructure, tuple[frozenset[str], ...]]:
    """A knowledge structure with the same states as an S5 Kripke model, and per world
    its state (the set of true atoms).

    Variables: the model's atoms; for an agent whose blocks are not told apart by atoms
    alone, bits ``cell(A, j)``, the binary number of the agent's block, which the agent
    observes (an agent whose blocks are the classes of agreeing on some atoms observes
    those atoms, as in SMCDEL's own models: muddy children needs only its atoms); and
    bits ``copy(j)`` numbering worlds that agree on all of those (only where some do).  The law is the disjunction of the
    worlds' states, so the worlds and the states correspond one to one and every
    formula over the model's atoms has the same truth value at a world and its state.

    >>> from kwartet_epistemic.kripke import KripkeModel
    >>> m = KripkeModel(3, {"A": [0, 0, 1]}, {"p": [True, False, False]})
    >>> ks, states = kripke_to_structure(m)
    >>> ks.vocabulary, [sorted(s) for s in states]
    (('p', 'cell(A, 0)'), [['p'], [], ['cell(A, 0)']])
    >>> [ks.holds("K_A ~p", s) for s in states] == m.truth_set("K_A ~p").tolist()
    True
    """
    n = model.n_worlds
    if n > max_worlds:
        raise ModelTooLargeError(
            f"the model has {n:,} worlds; the export writes at most {max_worlds:,} "
            "(contract() it or raise max_worlds)"
        )
    atoms = sorted(a.name for a in model.atoms)
    taken = set(atoms)
    columns: dict[str, list[bool]] = {name: model.truth_set(Atom(name)).tolist() for name in atoms}
    observed: dict[str, list[str]] = {}
    for index, agent in enumerate(model.agents):
        labels, count = compact(model.labels(agent))
        seen = _observed_atoms(labels, count, atoms, columns)
        if seen is not None:  # the agent's blocks are told apart by atoms: it observes them
            observed[agent] = seen
            continue
        bits = []
        for j in range((count - 1).bit_length()):
            name = _fresh_name(f"cell({agent}, {j})", f"cell({index}, {j})", taken)
            columns[name] = ((labels >> j) & 1).astype(bool).tolist()
            bits.append(name)
        observed[agent] = bits
    names = list(columns)
    signatures = list(zip(*(columns[name] for name in names), strict=True)) if names else [()] * n
    copies: list[int] = []
    counter: dict[tuple[bool, ...], int] = {}
    for signature in signatures:
        copies.append(counter.get(signature, 0))
        counter[signature] = copies[-1] + 1
    most = max(counter.values(), default=1)
    for j in range((most - 1).bit_length()):
        name = _fresh_name(f"copy({j})", f"copy({j})", taken)
        columns[name] = [bool(c >> j & 1) for c in copies]
        names.append(name)
    states = tuple(frozenset(name for name in names if columns[name][w]) for w in range(n))
    manager = new_manager(backend)
    if names:
        manager.declare(*names)
    law = manager.false
    for w in range(n):
        law |= manager.cube({name: columns[name][w] for name in names})
    return KnowledgeStructure(names, law, observed, manager=manager), states


@plain_errors
def export_kripke(
    model: KripkeModel,
    query: FormulaLike | Sequence[FormulaLike] | None = None,
    *,
    jobs: Iterable[str] | None = None,
    max_worlds: int = 100_000,
) -> SmcdelExport:
    """The SMCDEL input of a Kripke model (see :func:`kripke_to_structure`)."""
    known = {atom.name for atom in model.atoms}
    for formula in queries_of(query):
        for atom in sorted(formula.atoms() - model.atoms, key=lambda a: a.name):
            raise ModelError(
                f"atom {atom.name!r} in {formula_excerpt(formula)!r} is not in the model's "
                f"vocabulary {sorted(known)[:8]}"
            )
    structure, states = kripke_to_structure(model, max_worlds=max_worlds)
    actual = None if model.actual is None else structure.assignment_of(states[model.actual])
    title = [f"a Kripke model of {model.n_worlds} worlds, one state per world:"]
    if model.n_worlds <= 1000:
        for w, state in enumerate(states):
            title.append(
                f"  world {w} {comment_text(model.world_name(w))}: "
                + (", ".join(comment_text(a) for a in sorted(state)) or "(no true variable)")
            )
    export = export_structure(structure, query, actual=actual, jobs=jobs, title=title)
    worlds = {
        frozenset(export.variables[name] for name in state): w for w, state in enumerate(states)
    }
    return SmcdelExport(
        export.text,
        export.variables,
        export.auxiliary,
        export.agents,
        export.jobs,
        export.queries,
        worlds,
    )
