"""One family's polynomial: its cards' origin assignments grouped by the capacities they
use, from its clauses (the constraints of one family), and the clause algebra behind it
(simplifying clauses, factoring a family into signed sums of products of linear forms).

Every family's polynomial is built once, vectorised (in the compiled kernel where it is
installed), and kept under the family's constraint stamp: after an event only the
family it touched is built again.

Four free cards, each from any of three slots, no clause: 3^4 assignments, grouped by
how many cards the first two slots take (the third's use is implied):

>>> poly = family_poly((0, 1, 2, 3), ((0, 1, 2),) * 4, (), (0, 1, 2, 3), (0, 1, -1), 2, 3)
>>> int(poly.weights.sum()), poly.vectors.shape
(81, (15, 2))
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence

import numpy as np

from kwartet_epistemic._cached import cached_property
from kwartet_epistemic.epistemics.counting.options import current_options
from kwartet_epistemic.epistemics.history import (
    CLAUSE_CODES,
    IGNORED,
    Clause,
)

try:  # the compiled kernel; the NumPy path gives the same answers without it
    from kwartet_epistemic import _counting_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = [
    "FamilyPoly",
    "MAX_KERNEL_DIMS",
    "cache_sizes",
    "clear_caches",
    "factor_terms",
    "family_poly",
    "kernel_available",
    "poly_from_kernel",
    "satisfies",
    "simplify_clauses",
]

MAX_KERNEL_DIMS = 32  # the kernel's limit on capacity dimensions
_FACTOR_TERM_LIMIT = 96  # more terms than this: the family keeps its table
_CACHE_LIMIT = 20_000  # entries of a few KiB each: tens of MiB at most


def kernel_available() -> bool:
    """Whether the compiled counting kernel is installed (it is optional: without a C
    compiler at install time, the NumPy path gives the same answers).

    >>> isinstance(kernel_available(), bool)
    True
    """
    return _kernel is not None


def simplify_clauses(
    clauses: Sequence[Clause], allowed: Sequence[int]
) -> tuple[Clause, ...] | None:
    """Clauses restricted to the allowed origins, without the trivially true or subsumed
    ones, in a canonical order; None if one can never be satisfied.

    >>> simplify_clauses([Clause("some", (0b01, 0b01, 0, 0))], [0b01, 0b11, 0b10, 0b10])
    ()
    """
    somes: set[tuple[int, ...]] = set()
    notalls: set[tuple[int, ...]] = set()
    others: set[Clause] = set()
    for clause in clauses:
        if clause.kind == "allornone":
            others.add(clause)
            continue
        conds = tuple(c & a for c, a in zip(clause.conditions, allowed, strict=True))
        if clause.kind == "some":
            if any(c == a for c, a in zip(conds, allowed, strict=True)):
                continue  # some card is surely with the player
            if not any(conds):
                return None
            somes.add(conds)
        else:
            if not all(conds):
                continue  # some card is surely not with the player
            if all(c == a for c, a in zip(conds, allowed, strict=True)):
                return None
            notalls.add(conds)

    def subsumed(x: tuple[int, ...], others: set[tuple[int, ...]], wider: bool) -> bool:
        for y in others:
            if y != x and all(
                (yi | xi == yi) if wider else (yi & xi == yi) for xi, yi in zip(x, y, strict=True)
            ):
                return True
        return False

    kept = [Clause("some", c) for c in sorted(somes) if not subsumed(c, somes, wider=False)]  # type: ignore[arg-type]
    kept += [Clause("notall", c) for c in sorted(notalls) if not subsumed(c, notalls, wider=True)]  # type: ignore[arg-type]
    kept += sorted(others, key=lambda c: c.conditions)
    return tuple(kept)


def factor_terms(
    options: Sequence[int], clauses: Sequence[Clause], limit: int = _FACTOR_TERM_LIMIT
) -> tuple[tuple[int, int, int, int, int], ...] | None:
    """A family's assignments as a signed sum of products: rows ``(coefficient, mask0,
    mask1, mask2, mask3)`` such that, for every origin tuple, the sum of the
    coefficients of the rows whose masks hold each card's origin is 1 if the tuple is
    allowed by ``options`` (one slot mask per card) and satisfies ``clauses``, else 0;
    None if that takes more than ``limit`` rows.

    Inclusion-exclusion over the clauses (simplified first): "some" is 1 minus "none
    with the player", "not all" is 1 minus "all with the player", "all or none" is "all"
    plus "none" (disjoint), and products of restrictions are intersections of masks.
    Multiplying the counting tables by a row then takes one linear form per card.

    >>> factor_terms((0b11, 0b11, 0b11, 0b11), [Clause("notall", (0b01,) * 4)])
    ((-1, 1, 1, 1, 1), (1, 3, 3, 3, 3))
    """
    masks = tuple(int(m) for m in options)
    simplified = simplify_clauses(tuple(clauses), masks)
    if simplified is None:
        return ()
    terms: dict[tuple[int, ...], int] = {masks: 1}
    for clause in simplified:
        conds = clause.conditions
        if clause.kind == "allornone" and all(c == IGNORED for c in conds):
            continue
        inside = tuple(-1 if c == IGNORED else c for c in conds)
        outside = tuple(-1 if c == IGNORED else ~c for c in conds)
        patterns: tuple[tuple[int, tuple[int, ...] | None], ...]
        if clause.kind == "some":
            patterns = ((1, None), (-1, outside))
        elif clause.kind == "notall":
            patterns = ((1, None), (-1, inside))
        else:
            patterns = ((1, inside), (1, outside))
        new: dict[tuple[int, ...], int] = {}
        for sets, coeff in terms.items():
            for sign, restriction in patterns:
                if restriction is None:
                    narrowed = sets
                else:
                    narrowed = tuple(m & r for m, r in zip(sets, restriction, strict=True))
                    if not all(narrowed):
                        continue
                new[narrowed] = new.get(narrowed, 0) + sign * coeff
        terms = {k: v for k, v in new.items() if v}
        if len(terms) > limit:
            return None
    # Sorted, so that rows sharing their first masks follow each other (the kernel
    # reuses the partial products).
    return tuple((coeff, *sets) for sets, coeff in sorted(terms.items()))  # type: ignore[misc]


def satisfies(clauses: Sequence[Clause], origins: Sequence[int]) -> bool:
    return all(clause.satisfied(origins) for clause in clauses)


class FamilyPoly:
    """One family's origin assignments that satisfy its clauses, grouped by how much of
    each capacity dimension they use: the family's polynomial.

    ``vectors[j]`` is a use vector (one column per dimension), ``weights[j]`` the number
    of assignments with that use, ``card_slot[j]`` the flattened ``[4, n_slots]`` counts
    of those assignments placing each card in each slot; vectors come in the order of
    their first assignment in the enumeration (``itertools.product`` over each card's
    slots).  ``rows`` (the assignments, one origin slot per card) and ``group`` (the
    vector index of each row) are built on first use.
    """

    __slots__ = (
        "cards",
        "vectors",
        "weights",
        "_card_slot",
        "_rebuild",
        "_options",
        "_clauses",
        "_free",
        "_dim_of",
        "__dict__",
    )

    def __init__(
        self,
        cards: tuple[int, ...],
        vectors: np.ndarray,
        weights: np.ndarray,
        card_slot: np.ndarray | None,
        options: tuple[tuple[int, ...], ...],
        clauses: tuple[Clause, ...],
        free: tuple[int, ...],
        dim_of: tuple[int, ...],
        rebuild: Callable[[], np.ndarray] | None = None,
    ) -> None:
        self.cards = cards
        self.vectors = vectors
        self.weights = weights
        self._card_slot = card_slot
        self._rebuild = rebuild  # makes card_slot where it was left out (see below)
        self._options = options
        self._clauses = clauses
        self._free = free
        self._dim_of = dim_of

    @property
    def card_slot(self) -> np.ndarray:
        """``[n_vectors, 4 * n_slots]``: each vector's assignments placing each card in
        each slot.  A large table built for a count alone leaves it out; it is then
        enumerated again on first use."""
        if self._card_slot is None:
            assert self._rebuild is not None
            self._card_slot = self._rebuild()
        return self._card_slot

    @cached_property
    def _rows_and_group(self) -> tuple[np.ndarray, np.ndarray]:
        # Options may be given as slot masks (from the kernel): as slot tuples here.
        n_slots = len(self._dim_of)
        options = tuple(
            o if isinstance(o, tuple) else tuple(s for s in range(n_slots) if o >> s & 1)
            for o in self._options
        )
        rows = _assignment_rows(options, self._clauses)
        uses = _use_vectors(rows, self._free, self._dim_of, self.vectors.shape[1])
        index = {tuple(v): j for j, v in enumerate(self.vectors.tolist())}
        group = np.array([index[tuple(u)] for u in uses.tolist()], dtype=np.int64)
        return rows, group

    @property
    def rows(self) -> np.ndarray:
        return self._rows_and_group[0]

    @property
    def group(self) -> np.ndarray:
        return self._rows_and_group[1]

    @cached_property
    def assignments(self) -> tuple[tuple[tuple[int, ...], ...], ...]:
        """The origin tuples of each use vector, in vector order."""
        grouped: list[list[tuple[int, ...]]] = [[] for _ in range(len(self.weights))]
        for row, j in zip(self.rows.tolist(), self.group.tolist(), strict=True):
            grouped[j].append(tuple(row))
        return tuple(tuple(g) for g in grouped)

    @cached_property
    def group_rows(self) -> list[np.ndarray]:
        """The assignments of each use vector, as arrays (in vector order)."""
        order = np.argsort(self.group, kind="stable")
        bounds = np.cumsum(self.weights)[:-1]
        return np.split(self.rows[order], bounds)

    @cached_property
    def signature(self) -> bytes:
        """The table's content: equal for families with the same polynomial."""
        return self.vectors.tobytes() + self.weights.tobytes() + self.card_slot.tobytes()

    @cached_property
    def vector_tuples(self) -> tuple[tuple[int, ...], ...]:
        return tuple(tuple(v) for v in self.vectors.tolist())

    def factored_rows(self, limit: int) -> np.ndarray | None:
        """The :func:`factor_terms` rows with up to ``limit`` rows (as int64), or None."""
        form = self.factored
        if form is not None:
            return form[1]
        key = f"_rows_{limit}"
        if key not in self.__dict__:
            rows = factor_terms(self.option_masks(), self._clauses, limit)
            self.__dict__[key] = (
                None if rows is None else np.array(rows, dtype=np.int64).reshape(-1, 5)
            )
        return self.__dict__[key]

    def ryser_rows(self, room: tuple[int, ...]) -> tuple[int, np.ndarray] | None:
        """The factored form for the kernel's ``ryser``: ``(free mask, int64 rows)`` with
        each mask over the positions of its slots in ``room`` (the slots with room
        left); None without a factored form."""
        memo: dict[tuple[int, ...], tuple[int, np.ndarray] | None]
        memo = self.__dict__.setdefault("_ryser_rows", {})
        if room not in memo:
            form = self.factored
            if form is None:
                memo[room] = None
            else:
                free, rows, _ = form
                masks = rows[:, 1:]
                moved = np.zeros_like(masks)
                for i, slot in enumerate(room):
                    moved |= ((masks >> slot) & 1) << i
                out = rows.copy()
                out[:, 1:] = moved
                memo[room] = (free, np.ascontiguousarray(out))
        return memo[room]

    def option_masks(self) -> list[int]:
        """Per card, the slots it may come from, as a bit mask."""
        return [o if isinstance(o, int) else sum(1 << s for s in o) for o in self._options]

    @property
    def clauses(self) -> tuple[Clause, ...]:
        """The family's clauses (constraints on its cards' origins)."""
        return self._clauses

    @property
    def free(self) -> tuple[int, ...]:
        """The family's cards (positions 0-3) whose origin the record leaves open."""
        return self._free

    @cached_property
    def open_form(self) -> tuple[int, int, int] | None:
        """``(R, k, T)`` where the family is open: its ``k`` free cards each from the same
        slots ``R`` (a mask), its other cards from one slot each, and no clause but, for
        each slot of ``T`` (a mask, 0 for none), that its free cards are not all there
        (its polynomial is then ``L^k`` less the ``k``-th powers of T's slots, and merges
        with the other open families': :mod:`.open_families`); else None."""
        masks = self.option_masks()
        free = self._free
        shared = {masks[k] for k in free}
        fixed = [k for k in range(len(masks)) if k not in free]
        if len(shared) != 1 or any(masks[k] & (masks[k] - 1) for k in fixed):
            return None
        slots = shared.pop()
        held = 0
        for clause in self._clauses:
            conditions = clause.conditions
            if clause.kind != "notall" or IGNORED in conditions:
                return None
            if not all(conditions[k] & masks[k] for k in fixed):
                continue  # a seen card surely not with the player: always true
            if any(conditions[k] & masks[k] != masks[k] for k in fixed):
                return None
            where = {conditions[k] & slots for k in free}
            if 0 in where:
                continue  # a free card never with the player: always true
            if len(where) != 1:
                return None
            slot = where.pop()
            if slot & (slot - 1):
                return None  # a player of several slots
            held |= slot
        return slots, len(free), held

    @cached_property
    def factored(self) -> tuple[int, np.ndarray, int] | None:
        """The polynomial as :func:`factor_terms` rows for the kernel: ``(free mask,
        int64 rows, passes)`` with ``passes`` the number of table passes a product
        takes; None if there are too many rows."""
        rows = factor_terms(self.option_masks(), self._clauses)
        if rows is None:
            return None
        free = sum(1 << i for i in self._free)
        dim_of = self._dim_of
        passes = 0
        for row in rows:
            for k in range(4):
                mask = row[1 + k]
                dims = (
                    sum(1 for s in range(len(dim_of)) if mask >> s & 1 and dim_of[s] >= 0)
                    if free >> k & 1
                    else 0
                )
                passes += dims + 1
        return free, np.array(rows, dtype=np.int64).reshape(-1, 5), passes


_POLY_CACHE: dict[tuple[object, ...], FamilyPoly | None] = {}
_COMBO_CACHE: dict[tuple[tuple[int, ...], ...], np.ndarray] = {}


def _combos(options: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Every origin tuple allowed by ``options`` (one tuple of slots per card), as rows."""
    rows = _COMBO_CACHE.get(options)
    if rows is None:
        rows = np.array(list(itertools.product(*options)), dtype=np.int64).reshape(-1, len(options))
        if len(_COMBO_CACHE) > _CACHE_LIMIT:
            _COMBO_CACHE.clear()
        _COMBO_CACHE[options] = rows
    return rows


def _assignment_rows(
    options: tuple[tuple[int, ...], ...], clauses: tuple[Clause, ...]
) -> np.ndarray:
    """The origin tuples allowed by ``options`` that satisfy ``clauses``, in order."""
    rows = _combos(options)
    ok = np.ones(len(rows), dtype=bool)
    for clause in clauses:
        used = [i for i, c in enumerate(clause.conditions) if c != IGNORED]
        conditions = np.array([clause.conditions[i] for i in used], dtype=np.int64)
        hits = ((conditions >> rows[:, used]) & 1).astype(bool)
        if clause.kind == "some":
            ok &= hits.any(axis=1)
        elif clause.kind == "notall":
            ok &= ~hits.all(axis=1)
        else:  # "allornone"
            ok &= hits.all(axis=1) | ~hits.any(axis=1)
    return rows[ok]


def _use_vectors(
    rows: np.ndarray, free: tuple[int, ...], dim_of: tuple[int, ...], width: int
) -> np.ndarray:
    """Each row's use of the dimensions (``[len(rows), width]``; only free cards count)."""
    uses = np.zeros((len(rows), width), dtype=np.int64)
    dims = np.array(dim_of, dtype=np.int64)
    for i in free:
        dim = dims[rows[:, i]]
        counted = dim >= 0
        np.add.at(uses, (np.flatnonzero(counted), dim[counted]), 1)
    return uses


def poly_from_kernel(
    answer: tuple[bytes, bytes, bytes],
    cards: tuple[int, ...],
    options: Sequence[int] | tuple[tuple[int, ...], ...],
    clauses: tuple[Clause, ...],
    free: tuple[int, ...],
    dim_of: tuple[int, ...],
    n_dims: int,
    n_slots: int,
    rebuild: Callable[[], np.ndarray] | None = None,
) -> FamilyPoly:
    """The kernel's ``family_table`` answer as a :class:`FamilyPoly`; with ``rebuild``
    the answer left out ``card_slot``, and ``rebuild()`` makes it."""
    vectors, weights, card_slot = answer
    weights_array = np.frombuffer(weights, dtype=np.int64)
    m = len(weights_array)
    return FamilyPoly(
        cards,
        np.frombuffer(vectors, dtype=np.int64).reshape(m, max(n_dims, 1)),
        weights_array,
        np.frombuffer(card_slot, dtype=np.int64).reshape(m, 4 * n_slots)
        if rebuild is None
        else None,
        tuple(options),  # type: ignore[arg-type]
        clauses,
        free,
        dim_of,
        None if rebuild is None else lambda: rebuild().reshape(m, 4 * n_slots),
    )


def family_poly(
    cards: tuple[int, ...],
    options: tuple[tuple[int, ...], ...],
    clauses: tuple[Clause, ...],
    free: tuple[int, ...],
    dim_of: tuple[int, ...],
    n_dims: int,
    n_slots: int,
) -> FamilyPoly | None:
    """The polynomial of one family (None if no assignment satisfies its clauses).

    ``dim_of[s]`` is the dimension that slot ``s`` uses, or -1 (the implied dimension,
    or no room); only the cards in ``free`` count in the use vectors: the others have one
    possible origin and are already taken off the capacities (they still take part in
    clauses).  Tables are shared across histories under their full description.
    """
    key = (cards, options, clauses, free, dim_of, n_dims, n_slots)
    if key in _POLY_CACHE:
        return _POLY_CACHE[key]
    width = max(n_dims, 1)  # no dimension at all: one of capacity 0
    per_card = 4 * n_slots
    poly: FamilyPoly | None = None
    if (
        current_options().kernel
        and _kernel is not None
        and n_slots <= 62
        and n_dims <= MAX_KERNEL_DIMS
    ):
        answer = _kernel.family_table(
            tuple(sum(1 << s for s in o) for o in options),
            tuple((CLAUSE_CODES[c.kind], *c.conditions) for c in clauses),
            sum(1 << i for i in free),
            dim_of,
            n_dims,
            n_slots,
        )
        if answer is not None:
            poly = poly_from_kernel(answer, cards, options, clauses, free, dim_of, n_dims, n_slots)
    else:
        rows = _assignment_rows(options, clauses)
        if len(rows):
            uses = _use_vectors(rows, free, dim_of, width)
            unique, first, group = np.unique(uses, axis=0, return_index=True, return_inverse=True)
            # Vectors in the order of their first assignment (the order of enumeration),
            # so that sampling draws the same worlds from the same generator as ever.
            order = np.argsort(first, kind="stable")
            m = len(unique)
            rank = np.empty(m, dtype=np.int64)
            rank[order] = np.arange(m)
            unique = unique[order]
            group = rank[group.reshape(-1)]
            weights = np.bincount(group, minlength=m).astype(np.int64)
            flat = group[:, None] * per_card + np.arange(4) * n_slots + rows
            card_slot = np.bincount(flat.ravel(), minlength=m * per_card).astype(np.int64)
            vectors = unique
            poly = FamilyPoly(
                cards,
                np.ascontiguousarray(vectors, dtype=np.int64),
                weights,
                card_slot.reshape(m, per_card),
                options,
                clauses,
                free,
                dim_of,
            )
            poly.__dict__["_rows_and_group"] = (rows, group)
    if len(_POLY_CACHE) > _CACHE_LIMIT:
        _POLY_CACHE.clear()
    _POLY_CACHE[key] = poly
    return poly


def cache_sizes() -> dict[str, tuple[int, int]]:
    """The caches of family polynomials and origin tuples: each one's size, with its
    limit."""
    return {
        "family polynomials": (len(_POLY_CACHE), _CACHE_LIMIT),
        "origin tuples": (len(_COMBO_CACHE), _CACHE_LIMIT),
    }


def clear_caches() -> dict[str, tuple[int, int]]:
    """Empty the caches of family polynomials and origin tuples; returns each one's
    size before, with its limit."""
    sizes = cache_sizes()
    _POLY_CACHE.clear()
    _COMBO_CACHE.clear()
    return sizes
