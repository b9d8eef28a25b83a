"""Exact model counting over families: the counting engine's programme.

The constraints of :class:`~kwartet_epistemic.epistemics.history.PublicHistory` concern
one family each; only the slot capacities (hand sizes, draws, piles) couple the families.
So the number of worlds is the coefficient at the capacities of a product of one
polynomial per family (:mod:`~kwartet_epistemic.epistemics.counting.family`), computed
by a dynamic programme whose state is the vector of capacities used so far, less one
that the others imply (every family places all its free cards): at most 9^2 states for
a player's view of a 32-card, 4-player game, 9^3 for the public worlds.  Forward and
backward tables give exact marginals (location probabilities) and exact uniform
sampling.

:class:`WorldCounter` builds the programme (:class:`.programme.Programme`) from a history
and the viewers' private information, hands it to the planner (:mod:`.plan`), which
chooses among the exact algorithms (:mod:`.dense`, :mod:`.sparse`, :mod:`.ryser`,
:mod:`.residues`, :mod:`.staged`), and answers from what they give: counts, marginals,
location tables and uniform samples, with the corrections that couple the families (the
dead-card rule, Memory Kwartet's stuck moments) made by inclusion-exclusion.  Counts are
exact integers throughout, in the narrowest arithmetic that is exact.
:func:`family_probabilities` answers an agent's question, where it can, in one call of
the compiled kernel.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["8H", "8D", "8C", "9C"],
...     "B": ["7S", "7H", "9S", "9D"], "C": ["7D", "7C", "8S", "9H"]}, first="A")
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> WorldCounter(history).count
34032
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

import numpy as np

from kwartet_epistemic.epistemics.counting import plan
from kwartet_epistemic.epistemics.counting.family import (
    FamilyPoly,
    family_poly,
    poly_from_kernel,
    satisfies,
    simplify_clauses,
)
from kwartet_epistemic.epistemics.counting.options import CountingOptions, current_options
from kwartet_epistemic.epistemics.counting.programme import Programme
from kwartet_epistemic.epistemics.history import (
    CLAUSE_CODES,
    IGNORED,
    Clause,
    PrivateInfo,
    PublicHistory,
)
from kwartet_epistemic.errors import KwartetError, ModelTooLargeError

try:  # the compiled kernel; the NumPy path gives the same answers without it
    from kwartet_epistemic import _counting_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = [
    "WorldCounter",
    "cache_sizes",
    "clear_caches",
    "exact_probabilities",
    "family_probabilities",
    "viewer_masks",
]

_EAGER_SIZE = 1 << 12  # larger tables with draws: ``marginals=True`` waits for first use
_LAZY_CARD_SLOT = 1 << 12  # longer enumerations: a family table's card_slot waits
_SIMPLIFY_FROM = 16  # a family with more clauses: the kernel gets them simplified
_MEMO_LIMIT = 20_000

_NO_FREE_CARD = "no free card"


def _dimension_order(slots: list[int], capacity: Sequence[int]) -> list[int]:
    """The programme's dimensions: capacity 1 (draws) first, then the others, each in
    slot order.  The tables are row-major, so the roomier slots are contiguous and every
    pass over a draw runs along long rows; the order changes no count, marginal or
    sample (the tests compare it with slot order)."""
    return sorted(slots, key=lambda s: capacity[s] > 1)


class WorldCounter:
    """Exact counts, marginals and uniform samples of the worlds of a history, either
    public (no viewers) or as some players see them (``viewers``: their private info,
    pooled as distributed knowledge), optionally with cards restricted to slot masks.

    The count is computed in the constructor (with ``marginals``, the marginals of
    :meth:`origin_counts` in the same run, but for ``True`` only while the tables are
    small or have no draws: with many draws the marginals cost twice the count and wait
    until they are asked for); marginals and the tables for sampling are otherwise
    computed on first use, once.  ``stable_layout`` keeps the tables' layout from
    changing with every event (see below): for counters rebuilt event by event whose
    samples are not drawn.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> history = PublicHistory(game.deck, game.players, game.rules)
    >>> history.extend(game.record)
    >>> counter = WorldCounter(history)
    >>> counter.count
    93577100618119680
    >>> bool((counter.origin_counts().sum(axis=1) == counter.count).all())
    True
    """

    def __init__(
        self,
        history: PublicHistory,
        viewers: Sequence[PrivateInfo] = (),
        restrict: Mapping[int, int] | None = None,
        *,
        all_dead: bool = False,
        marginals: bool | frozenset[int] = False,
        stable_layout: bool = False,
        options: CountingOptions | None = None,
    ) -> None:
        if options is not None and not isinstance(options, CountingOptions):
            raise KwartetError(f"options {options!r}: expected a counting.CountingOptions")
        self._options = options
        self.history = history
        self.viewers = tuple(viewers)
        n_slots = len(history.capacity)
        self.n_slots = n_slots
        capacity = list(history.capacity)
        n_families = history.deck.n_families
        fixed_all: dict[int, int] = {}  # card -> its only possible origin
        self.fixed = fixed_all
        zero = False
        # What a family's cards may be, as these viewers see it, changes only with the
        # family's stamp: remembered per viewers (restricted families are worked out).
        memo = history.memo
        if len(memo) > _MEMO_LIMIT:
            memo.clear()
        seen = memo.get(("cards", self.viewers))
        if not isinstance(seen, dict):
            seen = memo[("cards", self.viewers)] = {}
        restricted = {c // 4 for c in restrict} if restrict else ()
        rules: tuple[dict[int, int], int] | None = None
        knowns: list[tuple[Any, ...]] = []
        stamps = history.family_stamps
        for f in range(n_families):
            stamp = stamps[f]
            known = seen.get(f) if f not in restricted else None
            if known is None or known[0] != stamp:
                if rules is None:
                    rules = self._viewer_rules()
                # The last item keeps the family's tables by layout.
                known = (stamp, *self._family_cards(f, rules, restrict), {})
                if f not in restricted:
                    seen[f] = known
            knowns.append(known)
            if known[4]:  # a card with no possible origin
                zero = True
            fixed = known[3]
            if fixed:
                fixed_all.update(fixed)
                for _, slot in fixed:
                    capacity[slot] -= 1
        if min(capacity, default=0) < 0:
            zero = True
        self.capacity = capacity
        # Slots that still have room become the DP dimensions, but one: every family's
        # free cards are all placed, so the use of the roomiest slot is implied by the
        # others', and the tables lose a dimension.
        room = [s for s in range(n_slots) if capacity[s] > 0]
        # The roomiest slot gives the smallest tables, but it changes as cards become
        # known, and with it every family's table; the last slot with room changes only
        # when a slot fills (``stable_layout``, for counters rebuilt after every event;
        # the stock while it has room, else that last slot).
        # Counts and marginals do not depend on the choice; the order of enumeration
        # (samples, explicit models) does, so the roomiest stays the default.
        if len(room) < 2:
            implied = None
        elif stable_layout:
            # The stock, while it has room, is as stable and far roomier than a draw.
            stock = history.stock_slot
            implied = stock if stock >= 0 and capacity[stock] > 0 else room[-1]
        else:
            implied = max(room, key=lambda s: capacity[s])
        self.dims = _dimension_order([s for s in room if s != implied], capacity)
        dim_of = [-1] * n_slots
        room_mask = 0
        for s in room:
            room_mask |= 1 << s
        # An empty set of dimensions is one dimension of capacity 0 (the tables have
        # one entry): the kernel and the NumPy path need no special case.
        cap = []
        for d, s in enumerate(self.dims):
            dim_of[s] = d
            cap.append(capacity[s])
        dim_key = tuple(dim_of)
        self.cap: tuple[int, ...] = tuple(cap) or (0,)
        tables_list: list[FamilyPoly] = []
        table_families: list[int] = []
        self.tables = tables_list
        self.table_families = table_families
        dead = history.dead_slots if all_dead else 0
        layout = _layout_number((room_mask, dim_key, dead))
        free_cards = 0
        if not zero:
            for f in range(n_families):
                known = knowns[f]
                tables = known[5]
                entry = tables.get(layout, _MISSING)
                if entry is _MISSING:
                    entry = self._family_entry(f, known[1], known[2], room_mask, dim_key, dead)
                    tables[layout] = entry
                if entry is None:
                    zero = True
                    break
                if entry.__class__ is FamilyPoly:
                    tables_list.append(entry)
                    table_families.append(f)
                    free_cards += len(known[2])
        self.zero = zero
        total_cards = sum(capacity[s] for s in room)
        if not self.zero and free_cards != total_cards:
            self.zero = True
        bound = math.factorial(total_cards)
        for s in room:
            bound //= math.factorial(capacity[s])
        self.bound = bound
        # What every algorithm takes (the planner chooses between them).
        self.programme = Programme(
            self.cap, self.dims, dim_key, tables_list, n_slots, capacity, bound,
            viewed=bool(self.viewers),
        )  # fmt: skip
        self._origins: np.ndarray | None = None
        self._origins_done = False
        self._backward: list[np.ndarray] | None = None
        self._dead_worlds: WorldCounter | None = None
        self._stuck_worlds: list[tuple[int, WorldCounter]] = []
        self._partial_families: frozenset[int] | None = None
        self._tableless = False  # the count came without tables: merged draws or Ryser's formula
        self._ryser_programme: np.ndarray | None = None  # the programme's, by Ryser's formula
        self._ryser_table: np.ndarray | None | bool = None  # False: not to be had
        self._viewer_restrict = restrict
        # Worlds of the programme itself, before the "game goes on" correction below.
        if self.zero:
            self.programme_count = 0
        elif (
            marginals
            and (
                marginals is not True
                or not self.programme.many_draws()
                or self.programme.size <= _EAGER_SIZE
            )
            and (all_dead or not history.game_goes_on_with_dead_cards())
            and not history.stuck_twins()
        ):
            # No dead-card correction to come: the marginals in the same run (only those
            # of the families asked for, when a set of families is given).
            # After many draws, Ryser's formula may give them all sooner (no tables).
            by_ryser = self._ryser_locations()
            if by_ryser is not None:
                self.programme_count, self._ryser_programme = by_ryser
                self._tableless = True
            else:
                positions = list(range(len(self.tables)))
                if isinstance(marginals, frozenset):
                    positions = [i for i in positions if self.table_families[i] in marginals]
                self.programme_count = self._run(positions)
                self._finish_origins()
                if isinstance(marginals, frozenset) and len(positions) < len(self.tables):
                    self._partial_families = marginals
                    self._origins_done = False  # origin_table() still computes them all
        else:
            self.programme_count = self._run([])
        self.count = self.programme_count
        # While the game goes on, everyone knows some unexposed family can still be
        # completed (none of its cards lies face down out of play): subtract the worlds in
        # which every unexposed family has a dead card.  This one condition couples the
        # families, and inclusion-exclusion keeps the programme per family.
        if not all_dead and history.game_goes_on_with_dead_cards() and self.count:
            self._dead_worlds = WorldCounter(
                history, viewers, restrict, all_dead=True, stable_layout=stable_layout
            )
            self.count -= self._dead_worlds.count
        # Memory Kwartet: the player to move can ask (else the turn would have passed),
        # and so could a player just before turning a card over: the worlds in which they
        # could not are taken away (by inclusion-exclusion over those moments; each
        # counted with the dead-card rule).
        if not all_dead and self.count:
            for sign, twin in history.stuck_twins():
                counter = WorldCounter(
                    twin, viewers, restrict, marginals=marginals, stable_layout=stable_layout
                )
                if counter.count:
                    self._stuck_worlds.append((sign, counter))
                    self.count += sign * counter.count

    def _viewer_rules(self) -> tuple[dict[int, int], int]:
        """The viewers' private information as mask rules: each of their own cards may
        come only from its own slot (their hand, or their draw), and every other card
        from none of their slots (distributed knowledge pools them)."""
        return _viewer_rules(self.history, self.viewers)

    def _family_cards(
        self,
        f: int,
        rules: tuple[dict[int, int], int],
        restrict: Mapping[int, int] | None,
    ) -> tuple[tuple[int, int, int, int], tuple[int, ...], tuple[tuple[int, int], ...], bool]:
        """Family ``f``'s cards as the viewers see them: their allowed masks, the free
        ones (more than one possible origin), the fixed ones (card, slot), and whether
        one has no possible origin at all."""
        own_card, keep = rules
        allowed = self.history.allowed
        masks = []
        free = []
        fixed = []
        empty = False
        for i in range(4):
            c = 4 * f + i
            mask = allowed[c] & own_card.get(c, keep)
            if restrict and c in restrict:
                mask &= restrict[c]
            masks.append(mask)
            if not mask:
                empty = True
            elif mask & (mask - 1):
                free.append(i)
            else:
                fixed.append((c, mask.bit_length() - 1))
        return (masks[0], masks[1], masks[2], masks[3]), tuple(free), tuple(fixed), empty

    def _family_entry(
        self,
        f: int,
        masks: tuple[int, int, int, int],
        free: tuple[int, ...],
        room_mask: int,
        dim_key: tuple[int, ...],
        dead: int,
    ) -> FamilyPoly | str | None:
        """A family's polynomial, ``_NO_FREE_CARD`` if its cards are all fixed (and its
        clauses hold), or None if no assignment satisfies its clauses."""
        history = self.history
        base_clauses = history.clauses[f]
        family_clauses = tuple(base_clauses)
        extra = bool(dead) and f not in history.exposed_families
        if extra:
            family_clauses += (Clause("some", (dead, dead, dead, dead)),)
        # Free cards can only come from slots with room left.
        free_mask = 0
        for i in free:
            free_mask |= 1 << i
        m0, m1, m2, m3 = masks
        if free_mask:
            if free_mask & 1:
                m0 &= room_mask
            if free_mask & 2:
                m1 &= room_mask
            if free_mask & 4:
                m2 &= room_mask
            if free_mask & 8:
                m3 &= room_mask
        options_masks = (m0, m1, m2, m3)
        if not (m0 and m1 and m2 and m3):
            return None
        n_dims = len(self.dims)
        if self.options.kernel and _kernel is not None and self.n_slots <= 62:  # (n_dims < 62)
            # The kernel enumerates at once; simplifying a few clauses would cost more,
            # but a long game leaves a family many (a "not all" at every settled moment)
            # that each assignment would be tested against.
            kernel_clauses: tuple[tuple[int, ...], ...]
            if len(family_clauses) > _SIMPLIFY_FROM:
                simplified = simplify_clauses(family_clauses, options_masks)
                if simplified is None:
                    return None
                family_clauses = simplified
                kernel_clauses = tuple(
                    (CLAUSE_CODES[c.kind], *c.conditions) for c in family_clauses
                )
            else:
                coded = history.coded_clauses[f]
                if len(coded) != len(base_clauses):  # clauses edited by hand
                    coded = [(CLAUSE_CODES[c.kind], *c.conditions) for c in base_clauses]
                kernel_clauses = tuple(coded)
                if extra:
                    kernel_clauses += ((CLAUSE_CODES["some"], dead, dead, dead, dead),)
            arguments = (options_masks, kernel_clauses, free_mask, dim_key, n_dims, self.n_slots)
            # Where the enumeration is long, the placements of each card (for marginals
            # only) are left out until they are needed.
            combos = math.prod(m.bit_count() for m in options_masks)
            lazy = combos > _LAZY_CARD_SLOT
            answer = _kernel.family_table(*arguments, not lazy)
            if answer is None:
                return None
            if not free:
                return _NO_FREE_CARD

            def rebuild() -> np.ndarray:
                # The whole enumeration again, its rows put in the vectors' order (the
                # first one may have enumerated fewer assignments, in another order).
                again = _kernel.family_table(*arguments, True)
                assert again is not None and answer is not None
                width = max(n_dims, 1) * 8
                rows = {again[0][k : k + width]: k // width for k in range(0, len(again[0]), width)}
                order = [rows[answer[0][k : k + width]] for k in range(0, len(answer[0]), width)]
                card_slot = np.frombuffer(again[2], dtype=np.int64).reshape(len(order), -1)
                return card_slot[order].ravel()

            return poly_from_kernel(
                answer,
                (4 * f, 4 * f + 1, 4 * f + 2, 4 * f + 3),
                options_masks,
                family_clauses,
                free,
                dim_key,
                n_dims,
                self.n_slots,
                rebuild if lazy else None,
            )
        clauses = simplify_clauses(family_clauses, options_masks)
        if clauses is None:
            return None
        options = tuple(
            tuple(s for s in range(self.n_slots) if mask >> s & 1) for mask in options_masks
        )
        if not free:
            return _NO_FREE_CARD if satisfies(clauses, [o[0] for o in options]) else None
        cards = tuple(range(4 * f, 4 * f + 4))
        return family_poly(cards, options, clauses, free, dim_key, n_dims, self.n_slots)

    @property
    def options(self) -> CountingOptions:
        """The options this counter counts with: its own if it was given some, else
        those in force at each step (a ``with counting.options(...)`` block)."""
        return current_options() if self._options is None else self._options

    # ----- the programme ------------------------------------------------------------

    def _run(self, wanted: list[int], keep_backward: bool = False) -> int:
        """Run the programme, by the algorithm the planner chooses (:mod:`.plan`): the
        count, and for the tables at positions ``wanted`` their cards' origin counts
        (into ``self._origins``); with ``keep_backward`` the backward tables too (for
        sampling and enumeration)."""
        origins = self._origin_array(self.programme.width != "narrow") if wanted else None
        done = plan.run(self.programme, self.options, wanted, keep_backward, origins)
        if done.tableless:
            self._tableless = True
        if done.backward is not None:
            self._backward = done.backward
        return done.count

    def _ryser_locations(self) -> tuple[int, np.ndarray] | None:
        """The programme's count and location counts by Ryser's formula, or None where
        the planner does not take it (:func:`.plan.ryser_locations`)."""
        history = self.history
        players = history.players
        owner_of = [players.index(o) if o is not None else -1 for o in history.slot_owner]
        return plan.ryser_locations(
            self.programme, self.options, owner_of, self.fixed, len(history.deck)
        )

    def _origin_array(self, wide: bool) -> np.ndarray:
        if self._origins is None:
            dtype: type = object if wide else np.int64
            self._origins = np.zeros((len(self.history.deck), self.n_slots), dtype=dtype)
        return self._origins

    def _run_backward(self) -> list[np.ndarray]:
        """The backward tables: entry ``[i][v]`` counts the ways of tables ``i..`` to use
        exactly ``v``."""
        if self._backward is None:
            if self.zero:
                shape = tuple(c + 1 for c in self.cap)
                self._backward = [
                    np.zeros(shape, dtype=np.int64) for _ in range(len(self.tables) + 1)
                ]
            else:
                self._run([], keep_backward=True)
        assert self._backward is not None
        return self._backward

    # ----- the programme's size (diagnostics, computed on request) --------------------

    @property
    def table_size(self) -> int:
        """Entries of one dense table of the programme (the product of the capacities
        plus one): what the dense algorithm's memory and time grow with."""
        return self.programme.size

    def corrections(self) -> list[WorldCounter]:
        """The counters whose worlds this one's count corrects by (the worlds where every
        unexposed family has a dead card; in Memory Kwartet those where the mover could
        not ask), each with its own corrections."""
        found = [] if self._dead_worlds is None else [self._dead_worlds]
        return found + [other for _, other in self._stuck_worlds]

    def backward_tables(self) -> list[np.ndarray]:
        """The programme's backward tables: entry ``[k][remaining capacities]`` counts
        the ways the families from the ``k``-th on fill what is left (built once)."""
        return self._run_backward()

    def excluded(self, worlds: np.ndarray) -> np.ndarray:
        """For rows of origin slots (one column per card): 1 where the world is one the
        programme counts but the corrections take away, else 0."""
        return self._excluded(worlds)

    def programme_states(self) -> tuple[int, ...]:
        """The number of states of the dynamic programme after each family: entry ``i``
        counts the capacity-use vectors that the compiled kernel computes in forward
        table ``i`` (families ``0..i-1`` placed), ``len(self.tables) + 1`` entries, the
        first and the last 1 (nothing placed; everything placed); ``()`` when the
        programme does not run (no world).

        These are the table entries that can matter, as the kernel bounds them: per
        dimension, no more than the families so far can use and no less than the rest
        can still fill, and likewise for the sum over the dimensions.  The backward
        tables (for marginals) have the same bounds from the other side; the NumPy path
        computes the whole dense table, ``math.prod(c + 1 for c in self.cap)`` entries.
        The kernel's work for a family is about its number of terms
        (``len(self.tables[i].weights)``) times these states.  Computed from the tables'
        use vectors when asked (nothing is recorded while counting), in microseconds.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> history = PublicHistory(game.deck, game.players, game.rules)
        >>> history.extend(game.record)
        >>> states = WorldCounter(history).programme_states()
        >>> len(states), states[0], states[-1], max(states)
        (9, 1, 1, 489)
        >>> max(states) <= math.prod(c + 1 for c in WorldCounter(history).cap)
        True
        """
        if self.zero:
            return ()
        cap = np.array(self.cap, dtype=np.int64)
        total = int(cap.sum())
        n = len(self.tables)
        width = len(cap)
        maxv = np.zeros((n, width), dtype=np.int64)
        minsum = np.zeros(n, dtype=np.int64)
        maxsum = np.zeros(n, dtype=np.int64)
        for g, table in enumerate(self.tables):
            vectors = np.asarray(table.vectors, dtype=np.int64).reshape(-1, width)
            if len(vectors):
                maxv[g] = vectors.max(axis=0)
                sums = vectors.sum(axis=1)
                minsum[g], maxsum[g] = sums.min(), sums.max()
        # Prefix sums: before[f] over families 0..f-1, after[f] over f..n-1.
        zero_row = np.zeros((1, width), dtype=np.int64)
        before = np.concatenate([zero_row, np.cumsum(maxv, axis=0)])
        after = before[-1] - before
        min_before = np.concatenate([[0], np.cumsum(minsum)])
        max_before = np.concatenate([[0], np.cumsum(maxsum)])
        min_after, max_after = min_before[-1] - min_before, max_before[-1] - max_before
        states = []
        for f in range(n + 1):
            lo = np.maximum(0, cap - after[f])
            hi = np.minimum(cap, before[f])
            low_sum = max(int(min_before[f]), total - int(max_after[f]))
            high_sum = min(int(max_before[f]), total - int(min_after[f]))
            if (lo > hi).any() or low_sum > high_sum:
                states.append(0)
                continue
            # How many vectors in the box have each coordinate sum: a product of
            # intervals, one convolution per dimension.
            by_sum = np.ones(1, dtype=np.int64)
            for a, b in zip(lo.tolist(), hi.tolist(), strict=True):
                by_sum = np.convolve(by_sum, np.ones(b - a + 1, dtype=np.int64))
            offset = int(lo.sum())
            first, last = max(low_sum - offset, 0), high_sum - offset
            states.append(int(by_sum[first : last + 1].sum()) if last >= first else 0)
        return tuple(states)

    def programme_state_total(self) -> int:
        """The states of :meth:`programme_states` summed over the families, and over the
        programmes of the corrections this count makes (the worlds in which every
        unexposed family has a dead card; Memory Kwartet's stuck moments): the size of
        the whole recount, a proxy for its cost.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> history = PublicHistory(game.deck, game.players, game.rules)
        >>> history.extend(game.record)
        >>> counter = WorldCounter(history)
        >>> counter.programme_state_total() >= sum(counter.programme_states()) > 0
        True
        """
        total = sum(self.programme_states())
        if self._dead_worlds is not None:
            total += self._dead_worlds.programme_state_total()
        for _, other in self._stuck_worlds:
            total += other.programme_state_total()
        return total

    # ----- answers ------------------------------------------------------------------

    def origin_table(self) -> np.ndarray:
        """``[n_cards, n_slots]`` exact counts of the worlds in which each card came from
        each slot: int64 when every count fits, else Python ints (object array).  The
        array is shared: copy it before changing it."""
        if self._origins is not None and self._origins_done:
            return self._origins
        n_cards = len(self.history.deck)
        if self.zero or self.count == 0:
            self._origins = np.zeros((n_cards, self.n_slots), dtype=np.int64)
            self._origins_done = True
        else:
            self._origins = None
            self._run(list(range(len(self.tables))))
            self._finish_origins()
        assert self._origins is not None
        return self._origins

    def _finish_origins(self) -> None:
        origins = self._origin_array(self.programme.width != "narrow")
        for card, slot in self.fixed.items():
            origins[card, slot] = self.programme_count
        self._origins = self._corrected(origins, WorldCounter.origin_table)
        self._origins_done = True

    def _corrected(self, table: np.ndarray, of: Callable[[WorldCounter], np.ndarray]) -> np.ndarray:
        """The programme's ``table`` with the corrections made: the same table (``of``
        each correction's counter) of the worlds in which every unexposed family has a
        dead card taken away, and the Memory Kwartet ones added with their signs."""
        corrections = [(-1, self._dead_worlds)] if self._dead_worlds is not None else []
        for sign, other in [*corrections, *self._stuck_worlds]:
            taken = of(other)
            if taken.dtype != table.dtype:
                table, taken = table.astype(object), taken.astype(object)
            table = table + taken if sign > 0 else table - taken
        return table

    def location_table(self) -> np.ndarray:
        """``[n_cards, n_players]`` exact counts of the worlds in which each player holds
        each card now (a card seen moving is with its holder in every world; exposed and
        piled cards have no holder); int64 when every count fits, else Python ints."""
        history = self.history
        by_ryser = self._location_table_by_ryser()
        if by_ryser is not None:
            result = by_ryser.copy()
        else:
            origins = self._origins_unless_tableless()
            if origins is None:
                return self._restricted_location_rows(range(len(history.deck)))
            result = origins @ _owner_matrix(history, origins.dtype)
        players = history.players
        for c, where in enumerate(history.location):
            if where is not None:
                result[c] = 0
                if where in players:
                    result[c, players.index(where)] = self.count
        return result

    def location_rows(self, cards: Sequence[int] | np.ndarray) -> np.ndarray:
        """``location_table()[cards]``, from the marginals of just those cards' families
        when the counter was made with ``marginals`` set to those families (or more).

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> history = PublicHistory(game.deck, game.players, game.rules)
        >>> history.extend(game.record)
        >>> some = WorldCounter(history, marginals=frozenset({2}))
        >>> bool((some.location_rows([8, 9]) == WorldCounter(history).location_table()[[8, 9]]).all())
        True
        """
        rows = cards if isinstance(cards, np.ndarray) else np.array(list(cards), dtype=np.intp)
        listed = rows.tolist()
        partial = self._partial_families
        by_ryser = None
        origins: np.ndarray | None
        if (
            partial is not None
            and self._origins is not None
            and not self._origins_done
            and partial.issuperset([c // 4 for c in listed])
        ):
            origins = self._origins
        else:
            origins = None
            by_ryser = self._location_table_by_ryser()
            if by_ryser is None:
                origins = self._origins_unless_tableless()
                if origins is None:
                    return self._restricted_location_rows(listed)
        history = self.history
        if origins is None:
            assert by_ryser is not None
            result = by_ryser.take(rows, axis=0)
        else:
            result = origins.take(rows, axis=0) @ _owner_matrix(history, origins.dtype)
        players = history.players
        location = history.location
        for i, c in enumerate(listed):
            where = location[c]
            if where is not None:
                result[i] = 0
                if where in players:
                    result[i, players.index(where)] = self.count
        return result

    def _location_table_by_ryser(self) -> np.ndarray | None:
        """:meth:`location_table` by Ryser's formula (:meth:`_ryser_locations`, with the
        corrections' tables; the caller sets the cards seen), kept; None where the
        origin table is already known or Ryser's formula does not apply or would be
        slower."""
        if self._ryser_table is None:
            self._ryser_table = False
            table = self._ryser_programme  # made with the count
            if table is None and not self._origins_done and not self.zero and self.count:
                by_ryser = self._ryser_locations()
                table = None if by_ryser is None else by_ryser[1]
            if table is None:
                return None
            self._ryser_table = self._corrected(table, WorldCounter.location_table)
        return self._ryser_table if isinstance(self._ryser_table, np.ndarray) else None

    def _origins_unless_tableless(self) -> np.ndarray | None:
        """:meth:`origin_table`, or None where its tables would not fit in memory but the
        count came without them (merged draws or Ryser's formula: then
        :meth:`_restricted_location_rows` answers)."""
        try:
            return self.origin_table()
        except ModelTooLargeError:
            if not self._tableless:
                raise
            return None

    def _restricted_location_rows(self, cards: Iterable[int]) -> np.ndarray:
        """Location rows where the marginals' tables would be too large but the count
        came without them (a lone holder's long run of draws over merged draws, or
        Ryser's formula): each entry is the count with its card restricted to its
        player's slots, counted the same way (Python integers).  A card seen is with its holder in every world."""
        history = self.history
        players = history.players
        owned = [history.reach[p] for p in players]  # each player's hand and draws
        listed = list(cards)
        result = np.zeros((len(listed), len(players)), dtype=object)
        restrict = dict(self._viewer_restrict or {})
        for i, c in enumerate(listed):
            where = history.location[c]
            if where is not None:
                if where in players:
                    result[i, players.index(where)] = self.count
                continue
            for q, mask in enumerate(owned):
                keep = restrict.get(c, -1) & mask & history.allowed[c]
                if keep:
                    result[i, q] = WorldCounter(
                        history, self.viewers, {**restrict, c: keep}, stable_layout=True
                    ).count
        return result

    def origin_counts(self) -> np.ndarray:
        """``[n_cards, n_slots]`` exact counts (Python ints, object array) of the worlds in
        which each card came from each slot."""
        return self.origin_table().astype(object)

    def sample(self, rng: np.random.Generator) -> dict[int, int]:
        """One world drawn exactly uniformly: card -> origin slot."""
        if self.count == 0:
            raise ValueError("no world is possible")
        if self._dead_worlds is None and not self._stuck_worlds:
            return self._sample_all(rng)
        n_cards = len(self.history.deck)
        while True:  # rejection keeps the draw exactly uniform
            origins = self._sample_all(rng)
            row = np.array([[origins.get(c, -1) for c in range(n_cards)]], dtype=np.int64)
            if self._excluded(row)[0] == 0:
                return origins

    def _excluded(self, worlds: np.ndarray) -> np.ndarray:
        """For rows of origin slots (one column per card): 1 where the world is one that
        the programme counts but the corrections take away (every unexposed family has
        a dead card; the mover could not ask), else 0."""
        history = self.history
        out = np.zeros(len(worlds), dtype=bool)
        if self._dead_worlds is not None:
            dead = history.dead_slots
            is_dead = ((dead >> np.maximum(worlds, 0)) & 1).astype(bool)
            live = [f for f in range(history.deck.n_families) if f not in history.exposed_families]
            ok = np.zeros(len(worlds), dtype=bool)
            for f in live:
                ok |= ~is_dead[:, 4 * f : 4 * f + 4].any(axis=1)
            out |= ~ok
        if self._stuck_worlds:
            for conditions in history.stuck_facts():
                out |= _stuck_rows(conditions, worlds)
        return out.astype(np.int8)

    def sample_many(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """``n`` worlds drawn exactly and independently uniformly, vectorised: an
        ``[n, n_cards]`` array of origin slots (-1 for no card).  It draws other worlds
        from a generator than :meth:`sample` does (the same distribution).

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        >>> history = PublicHistory(game.deck, game.players, game.rules)
        >>> history.extend(game.record)
        >>> worlds = WorldCounter(history).sample_many(5, np.random.default_rng(1))
        >>> worlds.shape, bool((np.bincount(worlds[0], minlength=4) == 8).all())
        ((5, 32), True)
        """
        if self.count == 0:
            raise ValueError("no world is possible")
        if self.programme.width != "narrow":  # weights beyond int64: one world at a time
            rows = [self.sample(rng) for _ in range(n)]
            result = np.full((n, len(self.history.deck)), -1, dtype=np.int64)
            for i, origins in enumerate(rows):
                for card, slot in origins.items():
                    result[i, card] = slot
            return result
        result = self._sample_many_all(n, rng)
        if self._dead_worlds is not None or self._stuck_worlds:
            while True:  # rejection keeps every draw exactly uniform
                bad = np.flatnonzero(self._excluded(result))
                if not len(bad):
                    break
                result[bad] = self._sample_many_all(len(bad), rng)
        return result

    def _sample_many_all(self, n: int, rng: np.random.Generator) -> np.ndarray:
        backward = self._run_backward()
        result = np.full((n, len(self.history.deck)), -1, dtype=np.int64)
        for card, slot in self.fixed.items():
            result[:, card] = slot
        remaining = np.tile(np.array(self.cap, dtype=np.int64), (n, 1))
        for index, table in enumerate(self.tables):
            after = backward[index + 1]
            left = remaining[:, None, :] - table.vectors[None, :, :]  # n, m, D
            ok = (left >= 0).all(axis=2)
            flat = np.ravel_multi_index(tuple(np.maximum(left, 0).transpose(2, 0, 1)), after.shape)
            ways = np.where(ok, after.ravel()[flat], 0) * table.weights[None, :]
            bounds = np.cumsum(ways, axis=1)
            pick = rng.integers(0, bounds[:, -1])
            j = (bounds <= pick[:, None]).sum(axis=1)
            offset = pick - (bounds[np.arange(n), j] - ways[np.arange(n), j])
            groups = table.group_rows
            sizes = table.weights[j]
            chosen = np.array(
                [groups[g][o] for g, o in zip(j.tolist(), (offset % sizes).tolist(), strict=True)]
            ).reshape(n, 4)
            result[:, list(table.cards)] = chosen
            remaining = left[np.arange(n), j]
        return result

    def _sample_all(self, rng: np.random.Generator) -> dict[int, int]:
        backward = self._run_backward()
        origins = dict(self.fixed)
        remaining = np.array(self.cap, dtype=np.int64)
        for index, table in enumerate(self.tables):
            after = backward[index + 1]
            left = remaining - table.vectors
            ok = (left >= 0).all(axis=1)
            weights = [0] * len(table.weights)
            for j in np.flatnonzero(ok).tolist():
                weights[j] = int(table.weights[j]) * int(after[tuple(left[j])])
            pick = _uniform_below(sum(weights), rng)
            for j, w in enumerate(weights):
                if pick < w:
                    group = table.assignments[j]
                    chosen = group[pick % len(group)]
                    remaining = left[j]
                    for card, slot in zip(table.cards, chosen, strict=True):
                        origins[card] = slot
                    break
                pick -= w
        return origins


def _holds_condition(mask: int, origins: np.ndarray) -> np.ndarray:
    """Where a clause condition (a slot mask; -1 or all ones: always) holds for a column
    of origin slots."""
    if mask == -1:
        return np.ones(len(origins), dtype=bool)
    return ((mask >> np.maximum(origins, 0)) & 1).astype(bool) & (origins >= 0)


def _stuck_rows(
    facts: Sequence[tuple[int, str, tuple[int, ...]]], worlds: np.ndarray
) -> np.ndarray:
    """For rows of origin slots: True where a player could not ask at a moment (every
    family's condition of :meth:`PublicHistory.cannot_ask_conditions` then holds)."""
    stuck = np.ones(len(worlds), dtype=bool)
    for f, kind, conditions in facts:
        held = [
            _holds_condition(mask, worlds[:, 4 * f + i])
            for i, mask in enumerate(conditions)
            if mask != IGNORED
        ]
        if not held:
            continue
        some = np.logical_or.reduce(held)
        if kind == "none":
            stuck &= ~some
        else:
            stuck &= np.logical_and.reduce(held) | ~some
    return stuck


def exact_probabilities(counts: np.ndarray, total: int) -> np.ndarray:
    """``counts / total`` as float64, each entry the correctly rounded quotient of the
    exact integers (as Python's ``int / int``).

    >>> exact_probabilities(np.array([[1, 2]]), 3).tolist()
    [[0.3333333333333333, 0.6666666666666666]]
    """
    if counts.dtype != object and total < 1 << 53:
        # Both exactly representable: one correctly rounded division.
        return counts.astype(np.float64) / float(total)
    return np.array([[int(x) / total for x in row] for row in counts], dtype=np.float64).reshape(
        counts.shape
    )


_FAMILY_RANGES: dict[int, frozenset[int]] = {}


def family_probabilities(
    history: PublicHistory,
    viewers: Sequence[PrivateInfo] = (),
    families: Iterable[int] | None = None,
) -> tuple[np.ndarray, int]:
    """The exact probability, over the worlds of ``history`` as ``viewers`` see them (as
    :class:`WorldCounter` counts them), that each player holds each card now, for the
    cards of ``families`` (every family by default; the other rows are NaN), and the
    number of worlds: ``(matrix [n_cards, n_players], count)``.  Each probability is the
    correctly rounded quotient of exact counts, as :func:`exact_probabilities` of
    :meth:`WorldCounter.location_rows` gives it; with no world, the count is 0 and every
    row NaN.

    Where the compiled kernel can do it exactly in 64-bit arithmetic (no dead-card or
    Memory Kwartet correction to make, every count below 2^63, small family tables), the
    whole recount is one call of the kernel, which builds every family's table afresh;
    otherwise a :class:`WorldCounter` does it, with the same answers.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> history = PublicHistory(game.deck, game.players, game.rules)
    >>> history.extend(game.record)
    >>> matrix, count = family_probabilities(history, families=[0])
    >>> count, matrix[0].tolist(), bool(np.isnan(matrix[4:]).all())
    (93577100618119680, [0.25, 0.25, 0.25, 0.25], True)
    """
    n_families = history.deck.n_families
    every = _FAMILY_RANGES.get(n_families)
    if every is None:
        if len(_FAMILY_RANGES) >= 64:
            _FAMILY_RANGES.clear()
        every = _FAMILY_RANGES[n_families] = frozenset(range(n_families))
    wanted = every if families is None else frozenset(families)
    if not wanted <= every:
        bad = sorted(wanted - every, key=repr)
        raise KwartetError(
            f"families: expected family numbers 0 to {n_families - 1}, got {bad[0]!r}"
        )
    viewers = tuple(viewers)
    matrix = np.full((len(history.deck), len(history.players)), np.nan)
    in_force = current_options()
    if (
        in_force.kernel
        and _kernel is not None
        and not history.game_goes_on_with_dead_cards()
        and not history.stuck_twins()
        and _recount_fits(n_families, in_force.memory_limit)
    ):
        count = _kernel.recount(
            history.capacity,
            history.allowed,
            viewer_masks(history, viewers) if viewers else None,
            history.coded_clauses,
            history.clauses,
            wanted,
            history.location,
            history.players,
            history.slot_owner,
            matrix,
        )
        if count is not None:
            return matrix, count
    counter = WorldCounter(history, viewers, marginals=wanted, stable_layout=True)
    count = counter.count
    if count:
        order, rows = _wanted_rows(wanted)
        probabilities = exact_probabilities(counter.location_rows(rows), count)
        for j, f in enumerate(order):  # whole families: slices, no fancy indexing
            matrix[4 * f : 4 * f + 4] = probabilities[4 * j : 4 * j + 4]
    return matrix, count


_WANTED_ROWS: dict[frozenset[int], tuple[list[int], np.ndarray]] = {}


_RECOUNT_MAX_SIZE = 1 << 22  # the kernel's recount: tables of at most this many entries


def _recount_fits(n_families: int, limit: int | None) -> bool:
    """Whether the kernel's one-call recount keeps within ``limit``, the options'
    ``memory_limit`` (None: none set): its tables (int64) are at most
    :data:`_RECOUNT_MAX_SIZE` entries, about two per family and ten more.  Below such a
    limit the :class:`WorldCounter` runs, which refuses before it allocates.  (The
    default limit, what memory is free, is not read here: it costs a file read.)"""
    return limit is None or limit >= _RECOUNT_MAX_SIZE * 8 * (2 * n_families + 10)


def _wanted_rows(wanted: frozenset[int]) -> tuple[list[int], np.ndarray]:
    """The families in order and the index array of their cards (remembered: the same
    few sets of families recur at every decision)."""
    found = _WANTED_ROWS.get(wanted)
    if found is None:
        families = sorted(wanted)
        rows = np.array([c for f in families for c in range(4 * f, 4 * f + 4)], dtype=np.intp)
        rows.setflags(write=False)
        if len(_WANTED_ROWS) >= 4096:
            _WANTED_ROWS.clear()
        found = _WANTED_ROWS[wanted] = (families, rows)
    return found


def _viewer_rules(
    history: PublicHistory, viewers: tuple[PrivateInfo, ...]
) -> tuple[dict[int, int], int]:
    """``(own card -> its slot mask, mask of every other card)``: the viewers' own cards
    come only from their own slots (hand or draw), every other card from none of them."""
    own_card: dict[int, int] = {}
    own_slots = 0
    for viewer in viewers:
        hand = 1 << history.players.index(viewer.player)
        own_slots |= hand
        for c in viewer.dealt:
            own_card[c] = hand
        for number, card in viewer.draws:
            own_slots |= 1 << history.draw_slots[number]
            own_card[card] = 1 << history.draw_slots[number]
    return own_card, ~own_slots


def viewer_masks(history: PublicHistory, viewers: tuple[PrivateInfo, ...]) -> tuple[int, ...]:
    """Per card the slots the viewers' private information allows (their own cards from
    their own slots, every other card from none of them; a mask to intersect with the
    history's ``allowed``), remembered in the history's memo.

    >>> import kwartet_epistemic as kw
    >>> from kwartet_epistemic.epistemics.history import private_info
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> history = PublicHistory(game.deck, game.players, game.rules)
    >>> history.extend(game.record)
    >>> info = private_info(game.deck, "A", game.view("A").hand, game.view("A").record)
    >>> masks = viewer_masks(history, (info,))
    >>> {masks[c] & 0b111 for c in info.dealt}
    {1}
    """
    key = ("viewer masks", viewers)
    masks = history.memo.get(key)
    if masks is None:
        own_card, keep = _viewer_rules(history, viewers)
        masks = tuple(own_card.get(c, keep) for c in range(len(history.deck)))
        if len(history.memo) > _MEMO_LIMIT:
            history.memo.clear()
        history.memo[key] = masks
    return masks  # type: ignore[return-value]


_OWNERS: dict[tuple[tuple[str | None, ...], tuple[str, ...], np.dtype[Any]], np.ndarray] = {}


def _owner_matrix(history: PublicHistory, dtype: np.dtype[Any]) -> np.ndarray:
    """``[n_slots, n_players]``: 1 where the slot's cards are with the player."""
    key = (tuple(history.slot_owner), history.players, dtype)
    matrix = _OWNERS.get(key)
    if matrix is None:
        matrix = np.zeros((len(history.slot_owner), len(history.players)), dtype=dtype)
        for slot, owner in enumerate(history.slot_owner):
            if owner is not None:
                matrix[slot, history.players.index(owner)] = 1
        if len(_OWNERS) > 1000:
            _OWNERS.clear()
        _OWNERS[key] = matrix
    return matrix


_MISSING = object()
_LAYOUTS: dict[tuple[int, tuple[int, ...], int], int] = {}
"""Table layouts (slots with room, dimensions, dead slots) numbered, so that a family's
tables are found by a small key.  Bounded: past ``_MAX_LAYOUTS`` it starts afresh, and
numbers are never given twice (a table kept under an old number is simply not found)."""
_MAX_LAYOUTS = 4096
_LAYOUT_NUMBERS = itertools.count()


def _layout_number(key: tuple[int, tuple[int, ...], int]) -> int:
    number = _LAYOUTS.get(key)
    if number is None:
        if len(_LAYOUTS) >= _MAX_LAYOUTS:
            _LAYOUTS.clear()
        number = _LAYOUTS[key] = next(_LAYOUT_NUMBERS)
    return number


def _uniform_below(bound: int, rng: np.random.Generator) -> int:
    """An exactly uniform integer in [0, bound), also for bounds beyond 64 bits."""
    if bound <= 0:
        raise ValueError("empty range")
    if bound < (1 << 62):
        return int(rng.integers(bound))
    bits = bound.bit_length()
    while True:
        value = 0
        for _ in range(0, bits, 32):
            value = (value << 32) | int(rng.integers(1 << 32))
        value >>= (-bits) % 32
        if value < bound:
            return value


def cache_sizes() -> dict[str, tuple[int, int]]:
    """The programme's module caches: each one's size, with its limit (the caches of
    family polynomials are :mod:`.family`'s)."""
    return {
        "family ranges": (len(_FAMILY_RANGES), 64),
        "wanted rows": (len(_WANTED_ROWS), 4096),
        "owner matrices": (len(_OWNERS), 1001),
        "layouts": (len(_LAYOUTS), _MAX_LAYOUTS),
    }


def clear_caches() -> dict[str, tuple[int, int]]:
    """Empty the programme's module caches; returns each one's size before, with its
    limit."""
    sizes = cache_sizes()
    _FAMILY_RANGES.clear()
    _WANTED_ROWS.clear()
    _OWNERS.clear()
    _LAYOUTS.clear()
    return sizes
