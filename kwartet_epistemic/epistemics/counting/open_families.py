"""The families nobody has asked about, merged into one closing factor of the programme.

A family is *open* where the record says nothing about it: each of its cards either
seen (one slot) or free to come from any of the same slots ``R``, and no clause but
that its free cards are not all with one player, for each player of a set ``T`` (at the
deal nobody holds a whole family: it would be on the table).  With ``L`` the sum of the
slots' variables, its polynomial is ``L^k`` (no such clause) or ``L^k`` less the
``k``-th powers of T's slots; the open families with the same ``R`` (of the second kind
one ``k`` and ``T``) together give a closed form, sums of shifted multinomials, which
the kernel builds in a few passes over a table and multiplies last (its ``closing``
argument, see ``_kernel/open_families.c``) instead of one pass per family and use
vector.  At the deal every family is open; 52 cards among 6 players is 13 families of
up to 70 use vectors each over a view's 10^4 entries.

The marginals of a merged family need no table of their own: the free cards of the
open families of one kind are exchangeable (each has the same origin counts), so one
family of each kind is left out of the merge and asked for, and the others' free cards
copy its rows; their seen cards come from their one slot in every world.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import CountingOptions, WorldCounter
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.standard(13), list("ABCDEF"), seed=0)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> merged = WorldCounter(history, marginals=True)
>>> apart = WorldCounter(history, marginals=True, options=CountingOptions(merge_open=False))
>>> merged.count == apart.count, bool((merged.origin_counts() == apart.origin_counts()).all())
(True, True)
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from kwartet_epistemic.epistemics.counting.family import FamilyPoly

__all__ = ["OpenMerge", "merge_open"]


# Tables of the closing factor kept at a time, besides its own: the multinomials of the
# second kind's families and one more (see _kernel/open_families.c).
_CLOSING_TABLES = 3


class OpenMerge:
    """The programme with its open families merged: the ``tables`` the kernel multiplies
    (in order, the wanted ones at positions ``wanted``), the ``closing`` factor for the
    kernel (``(cards, ones, dims_mask, k, families, t_dims_mask, t_ones)``), and how to
    fill the rows of the merged families that were wanted (:meth:`fill`)."""

    __slots__ = ("closing", "merged_terms", "merged_wanted", "tables", "wanted")

    def __init__(
        self,
        tables: list[FamilyPoly],
        wanted: list[int],
        closing: tuple[int, ...],
        merged_wanted: list[tuple[FamilyPoly, FamilyPoly | None]],
        merged_terms: int = 0,
    ) -> None:
        self.merged_terms = merged_terms  # use vectors the merged families would have taken
        self.tables = tables
        self.wanted = wanted
        self.closing = closing
        self.merged_wanted = merged_wanted

    def fill(self, origins: np.ndarray, count: int) -> None:
        """Write the merged wanted families' origin counts into ``origins`` (``[n_cards,
        n_slots]``), once their representatives' are there: for each free card the
        row of a free card of the representative of its kind, for each seen card
        ``count`` at its one slot."""
        for table, representative in self.merged_wanted:
            masks = table.option_masks()
            for k, card in enumerate(table.cards):
                if k in table.free:
                    assert representative is not None
                    origins[card] = origins[representative.cards[representative.free[0]]]
                else:
                    origins[card] = 0
                    origins[card, masks[k].bit_length() - 1] = count


def merge_open(
    tables: Sequence[FamilyPoly],
    wanted: Sequence[int],
    dim_of: Sequence[int],
    size: int,
    memory: int,
) -> OpenMerge | None:
    """The open families of ``tables`` (the kernel's order, wanted at ``wanted``) merged:
    those with the slots ``R`` that merge the most free cards, the ones without
    clauses and the largest group of one ``k`` and ``T`` (as many of its families as
    the closing factor's tables, of ``size`` entries, allow within ``memory`` bytes),
    less one wanted family of each kind, which stays to give the kind's rows.  None
    where that merges nothing.  ``dim_of``: each slot's dimension, or -1 (none)."""
    pure: dict[int, list[int]] = {}
    held: dict[tuple[int, int, int], list[int]] = {}
    for position, table in enumerate(tables):
        form = table.open_form
        if form is None or not form[1]:
            continue
        if form[2]:
            held.setdefault(form, []).append(position)
        else:
            pure.setdefault(form[0], []).append(position)
    if not pure and not held:
        return None
    most = max(1, memory // (16 * size) - _CLOSING_TABLES)  # families of the second kind
    best: tuple[int, int, list[int], tuple[int, int, int] | None, list[int]] | None = None
    for slots in set(pure) | {form[0] for form in held}:
        plain = pure.get(slots, [])
        cards = sum(len(tables[p].free) for p in plain)
        group: tuple[int, int, int] | None = None
        members: list[int] = []
        for form, positions in held.items():
            if form[0] == slots and form[1] * min(len(positions), most) > form[1] * len(members):
                group, members = form, positions[:most]
        gain = cards + (group[1] * len(members) if group else 0)
        if best is None or gain > best[0]:
            best = (gain, slots, plain, group, members)
    assert best is not None
    _, slots, plain, group, members = best
    wanted_set = set(wanted)
    merged: list[tuple[int, FamilyPoly | None]] = []
    for kind in (plain, members):
        asked = [p for p in kind if p in wanted_set]
        representative = None
        if asked:
            # The smallest table stays (its marginals are every merged card's).
            keep = min(asked, key=lambda p: len(tables[p].weights))
            representative = tables[keep]
            kind = [p for p in kind if p != keep]
        merged += [(p, representative) for p in kind]
    if not merged:
        return None
    gone = {p for p, _ in merged}
    kept = [t for p, t in enumerate(tables) if p not in gone]
    new_position: dict[int, int] = {}
    for p in range(len(tables)):
        if p not in gone:
            new_position[p] = len(new_position)
    plain_left = [p for p, _ in merged if p in set(plain)]
    held_left = [p for p, _ in merged if p not in set(plain)]

    def split(mask: int) -> tuple[int, int]:
        ones = dims = 0
        for slot, dim in enumerate(dim_of):
            if mask >> slot & 1:
                if dim < 0:
                    ones += 1
                else:
                    dims |= 1 << dim
        return ones, dims

    ones, dims = split(slots)
    k, t_mask = (group[1], group[2]) if group else (1, 0)
    t_ones, t_dims = split(t_mask)
    closing = (
        sum(len(tables[p].free) for p in plain_left),
        ones,
        dims,
        k,
        len(held_left),
        t_dims,
        t_ones,
    )
    return OpenMerge(
        kept,
        [new_position[p] for p in wanted if p not in gone],
        closing,
        [(tables[p], representative) for p, representative in merged if p in wanted_set],
        sum(len(tables[p].weights) for p in gone),
    )
