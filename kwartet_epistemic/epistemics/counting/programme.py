"""The counting programme as every algorithm takes it: the families' polynomials and the
capacities they must fill exactly.

A :class:`Programme` is what a :class:`~kwartet_epistemic.epistemics.counting.WorldCounter`
builds from a history and hands to the algorithms (:mod:`.dense`, :mod:`.sparse`,
:mod:`.ryser`, :mod:`.residues`, :mod:`.staged`), which :mod:`.plan` chooses between.  It
knows its sizes (entries of a dense table, the dense work, the memory the tables take)
and the narrowest arithmetic in which its answers are exact, and nothing of games,
viewers or options.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import WorldCounter
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> programme = WorldCounter(history).programme
>>> programme.cap, programme.size, programme.width
((8, 8, 8), 729, 'narrow')
"""

from __future__ import annotations

import math
from collections.abc import Sequence

from kwartet_epistemic.epistemics.counting.family import FamilyPoly

__all__ = ["Programme", "Width"]

# Answers below the first bound are exact modulo 2^64 and fit a signed int64; below the
# second, exact in the kernel's 128-bit arithmetic (modular arithmetic is a ring
# homomorphism, so wrap-around on the way does not matter).
_NARROW = 1 << 63
_WIDE = 1 << 127

Width = str
"""``"narrow"`` (int64), ``"wide"`` (the kernel's 128 bits) or ``"big"`` (beyond)."""


class Programme:
    """The families' polynomials (``tables``, each over the dimensions ``dim_key``
    numbers: the slots ``dims``, in order) and the capacities ``cap`` they must fill
    exactly; ``capacity`` is every
    slot's room (the dimensions are the slots with room but one, implied by the others),
    ``bound`` the multinomial bound on every answer, ``viewed`` whether some player's
    private information shaped it.

    >>> Programme((1, 2), [0, 1], (0, 1, -1), [], 3, (1, 2, 3), 60, viewed=False).size
    6
    """

    __slots__ = (
        "bound", "cap", "capacity", "dim_key", "dims", "n_slots", "size", "tables", "viewed",
    )  # fmt: skip

    def __init__(
        self,
        cap: tuple[int, ...],
        dims: list[int],
        dim_key: tuple[int, ...],
        tables: list[FamilyPoly],
        n_slots: int,
        capacity: Sequence[int],
        bound: int,
        *,
        viewed: bool,
    ) -> None:
        self.cap = cap
        self.dims = dims
        self.dim_key = dim_key
        self.tables = tables
        self.n_slots = n_slots
        self.capacity = capacity
        self.bound = bound
        self.viewed = viewed
        self.size = math.prod(c + 1 for c in cap)  # entries of a dense table

    @property
    def width(self) -> Width:
        """The narrowest arithmetic in which every answer is exact."""
        if self.bound < _NARROW:
            return "narrow"
        return "wide" if self.bound < _WIDE else "big"

    @property
    def draws(self) -> int:
        """The dimensions of capacity 1: draws nobody has seen, each doubling a table."""
        return sum(1 for c in self.cap if c == 1)

    def many_draws(self) -> bool:
        """Whether the tables have two or more dimensions of capacity 1 (unseen draws):
        there the use-vector products run in rows of two entries, and the factored form
        and deferred marginals pay; elsewhere the boxes of the use-vector products prune
        more than dense passes save."""
        return self.draws >= 2

    def dense_work(self) -> int:
        """The dense programme's work for a count: its tables' size times, per family,
        its passes (the fewer of its use vectors and, with draws, its factored form's)."""
        draws = self.many_draws()
        passes = 0
        for table in self.tables:
            form = table.factored if draws else None
            passes += min(len(table.weights), form[2] if form else len(table.weights))
        return self.size * passes

    def memory_need(
        self, n_wanted: int, width: Width, keep_backward: bool, *, in_kernel: bool
    ) -> int:
        """The bytes the dense programme's tables would take, with the marginals of
        ``n_wanted`` families, in the kernel or (not ``in_kernel``) in NumPy."""
        entry = {"narrow": 8, "wide": 16}.get(width, 48)  # a Python integer and its slot
        n = len(self.tables)
        # The wanted tables go last (kernel_order): two tables for each, ten more.
        kept = 2 * n + 8 if keep_backward else 2 * n_wanted + 10
        if not in_kernel:
            kept = 2 * n + 4  # the NumPy path keeps every forward table
        return self.size * entry * kept

    def kernel_order(
        self, wanted: list[int]
    ) -> tuple[list[FamilyPoly], list[int], list[tuple[FamilyPoly, FamilyPoly]]]:
        """The tables in the order the kernel multiplies them, the positions of the wanted
        ones there, and the (copy, representative) pairs whose marginals are the same.

        Families with the same table have the same marginals (the others leave each the
        same rest): one of each is asked for, placed last, so that the backward products
        stop early.  The order of the product does not matter."""
        tables = self.tables
        copies: list[tuple[FamilyPoly, FamilyPoly]] = []
        if not wanted:
            return tables, wanted, copies
        first_of: dict[bytes, FamilyPoly] = {}
        others = []
        for position in wanted:
            table = tables[position]
            representative = first_of.setdefault(table.signature, table)
            if representative is not table:
                copies.append((table, representative))
                others.append(table)
        wanted_set = set(wanted)
        unwanted = [t for i, t in enumerate(tables) if i not in wanted_set]
        tables = unwanted + others + list(first_of.values())
        return tables, list(range(len(tables) - len(first_of), len(tables))), copies
