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

:class:`WorldCounter` plans which exact algorithm runs, by the options in force
(:mod:`~kwartet_epistemic.epistemics.counting.options`) and by the work each would
take:

* the products run in a small compiled kernel (``_counting_kernel``, built by ``pip
  install``) that computes only the table entries that can still reach the capacities;
  without it the same programme runs in NumPy (``kernel=False``; the tests run both);
* with many private draws (capacity-1 dimensions, each doubling the tables) a family's
  polynomial is multiplied in its factored form instead (``factored``);
* where a player's view reaches few of the tables' entries, the tables are maps of the
  reachable ones (``sparse``);
* draws that the families still to be multiplied cannot tell apart are merged into one
  dimension (``staged``, :mod:`~kwartet_epistemic.epistemics.counting.staged`);
* after many draws that no public fact tells apart, counts and location counts come
  without tables from Ryser's formula (``ryser``): a signed sum over how many places of
  each slot a set holds of the product of the families' factored forms there;
* where only location probabilities are wanted and 64-bit arithmetic is exact,
  :func:`family_probabilities` runs the whole recount in one kernel call: what the
  knowledge agents ask at every decision;
* counts are exact integers throughout, with the narrowest arithmetic that is exact:
  modulo 2^64 or 2^128 when the multinomial bound of the whole placement proves that
  every answer is below it (modular arithmetic is a ring homomorphism, so wrap-around in
  between does not matter), beyond that residues modulo primes joined by the Chinese
  remainder theorem (:mod:`~kwartet_epistemic.epistemics.counting.numbers`).

Why each budget and threshold below has the value it has (the measurements behind them)
is in ``paper/measurements/counting_tuning.md``.

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

from kwartet_epistemic.epistemics.counting.family import (
    MAX_KERNEL_DIMS,
    FamilyPoly,
    family_poly,
    poly_from_kernel,
    satisfies,
    simplify_clauses,
)
from kwartet_epistemic.epistemics.counting.numbers import join_residues, primes_beyond
from kwartet_epistemic.epistemics.counting.options import (
    CountingOptions,
    current_options,
    memory_in_force,
    readable_bytes,
)
from kwartet_epistemic.epistemics.counting.staged import staged_count
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
]

_NARROW = 1 << 63  # answers below this are exact modulo 2^64 and fit a signed int64
_WIDE = 1 << 127  # the same for the kernel's 128-bit arithmetic

# The budgets of each algorithm against the dense tables' work (entries times passes);
# the measurements behind each value: paper/measurements/counting_tuning.md.
_RYSER_SHARE = 2  # Ryser's formula when its work is below the dense tables' over this
_RYSER_VIEW_SHARE = 2  # a player's view: the sparse maps may be faster, a smaller budget
_RYSER_MARGINAL_SHARE = 15  # its location sums against the dense marginals' work
_RYSER_UNFIT_WORK = 1 << 31  # its work where the dense tables would not fit: about a second
_RYSER_FIRST_WORK = 1 << 23  # the formula before the merged draws below this work
_STAGED_MIN_SIZE = 1 << 12  # smaller tables: the compiled programme is as fast
_STAGED_MAX_STATES = 1 << 20  # entries of one merged table (a few hundred MB at most)
_STAGED_SHARE = 1000  # the merged draws' budget: this share of the dense work
_STAGED_LOOSE = 100  # its bound before any work may exceed the budget this many times
_STAGED_MAX_WORK = 1 << 26  # and no more than this many products of entries
_STAGED_UNIT = 300  # the formula's steps a product of merged entries costs, per dimension
_SPARSE_MIN_SIZE = 1 << 12  # smaller tables: the dense products are as fast
_SPARSE_SHARE = 10  # its budget: this share of the dense work (see WorldCounter._run_sparse)
_SPARSE_PUBLIC_SHARE = 100  # the same for the public worlds after draws (they reach most)
_SPARSE_UNFIT_WORK = 1 << 27  # its budget where the dense tables would not fit: 1-2 s
_SPARSE_PASSES = 80  # a family's passes over the dense tables at most, without draws
_SPARSE_DENSITY = 2  # a map holds at most this share of the dense table's entries
_FACTOR_MIN_SIZE = 512  # smaller tables: the use-vector products are as fast
_EAGER_SIZE = 1 << 12  # larger tables with draws: ``marginals=True`` waits for first use
_LAZY_CARD_SLOT = 1 << 12  # longer enumerations: a family table's card_slot waits
_SIMPLIFY_FROM = 16  # a family with more clauses: the kernel gets them simplified
_MEMO_LIMIT = 20_000

_NO_FREE_CARD = "no free card"

_RESIDUE_TERM_LIMIT = 4096  # the residue path needs every family factored


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
        self._dim_key = dim_key
        self.cap: tuple[int, ...] = tuple(cap) or (0,)
        self._size = math.prod(c + 1 for c in self.cap)  # entries of a dense table
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
            and (marginals is not True or not self._many_draws() or self._size <= _EAGER_SIZE)
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

    def _width(self) -> str:
        if self.bound < _NARROW:
            return "narrow"
        return "wide" if self.bound < _WIDE else "big"

    def _use_kernel(self, width: str) -> bool:
        return (
            self.options.kernel
            and _kernel is not None
            and width != "big"
            and len(self.cap) <= MAX_KERNEL_DIMS
        )

    def _run(self, wanted: list[int], keep_backward: bool = False) -> int:
        """Run the programme: the count, and for the tables at positions ``wanted`` their
        cards' origin counts (into ``self._origins``); with ``keep_backward`` the
        backward tables too (for sampling and enumeration)."""
        width = self._width()
        if keep_backward and width != "narrow":
            width = "big"  # sampling reads Python integers from the tables
        if not wanted and not keep_backward:
            count = self._run_tableless()
            if count is not None:
                self._tableless = True
                return count
        if self._use_kernel(width):
            return self._run_kernel(wanted, width, keep_backward)
        self._check_memory(
            self._memory_need(wanted, width, keep_backward),
            memory_in_force(self.options),
            count_only=not wanted and not keep_backward,
        )
        if (
            width == "big"
            and not keep_backward
            and self.options.kernel
            and _kernel is not None
            and self.options.factored is not False
            and (self.options.factored or self._many_draws())
            and len(self.cap) <= MAX_KERNEL_DIMS
            and self.n_slots <= 62
        ):
            count = self._run_residues(wanted)
            if count is not None:
                return count
        return self._run_numpy(wanted, width, keep_backward)

    def _run_tableless(self) -> int | None:
        """The count without tables, where that is faster than the tables: by merged
        draws (:meth:`_run_staged`) or by Ryser's formula (:meth:`_run_ryser`).  Ryser's
        work is known before it starts; where it is small (at most
        :data:`_RYSER_FIRST_WORK`), the formula goes first.  Otherwise the merged draws
        go first, within a small share of the time the formula would take (their own
        work is known only as they go), and the formula after them if they give up.
        None where neither answers within its budget."""
        work = self._ryser_work()
        if work is None or work > _RYSER_FIRST_WORK:
            count = self._run_staged(work)
            if count is not None:
                return count
        return self._run_ryser()

    def _run_staged(self, ryser_work: int | None = None) -> int | None:
        """The count over merged capacity-1 dimensions (see :class:`~kwartet_epistemic.epistemics.counting.options.CountingOptions`, ``staged``), or None
        where it is not tried or runs out of its budget: a thousandth of the dense
        tables' work (an entry of its maps costs a few hundred times an entry of a dense
        pass), at most :data:`_STAGED_MAX_WORK` products of entries, and where
        ``ryser_work`` (the work of Ryser's formula) is given, about a fifteenth of the
        formula's time (:data:`_STAGED_UNIT` steps of the formula a product of entries
        and dimension of the maps' entries).  It is not tried where a bound on that
        work, known before it starts, exceeds the tables' share :data:`_STAGED_LOOSE`
        times (the bound is loose: it assumes every use of every part it cannot rule
        out; against the formula's share it would turn away a lone holder's draws,
        whose merged count takes a few hundred products where the bound says
        millions)."""
        if self.options.staged is False or self.zero:
            return None
        size = self._size
        ones = sum(1 for c in self.cap if c == 1)
        if self.options.staged is None and (size < _STAGED_MIN_SIZE or ones < 2):
            return None
        work = bound = 1 << 62
        if self.options.staged is None:
            dense = size * sum(min(len(t.weights), _SPARSE_PASSES) for t in self.tables)
            work = min(dense // _STAGED_SHARE, _STAGED_MAX_WORK)
            bound = work * _STAGED_LOOSE  # the loose bound against the tables' share only
            if ryser_work is not None:
                work = min(work, ryser_work // (_STAGED_UNIT * len(self.cap)))
        return staged_count(self.tables, self.dims, self.cap, _STAGED_MAX_STATES, work, bound)

    def _dense_work(self) -> int:
        """The dense programme's work for a count: its tables' size times, per family,
        its passes (the fewer of its use vectors and, with draws, its factored form's)."""
        draws = self._many_draws()
        passes = 0
        for table in self.tables:
            form = table.factored if draws else None
            passes += min(len(table.weights), form[2] if form else len(table.weights))
        return self._size * passes

    def _run_ryser(self) -> int | None:
        """The count by Ryser's formula in the kernel (see the options' ``ryser``), or None
        where it is not tried or would take longer than the dense tables.

        With every slot's places labelled, the kernel sums, over the evaluation points
        ``s`` (``s_v`` places of each slot ``v``, from 0 to its capacity), the product of
        ``(-1)^(cap_v - s_v) C(cap_v, s_v)`` and every family's factored form evaluated
        at ``s``: the count times the product of the capacities' factorials, modulo
        2^64, 2^128 or primes below 2^62 (:meth:`_ryser_moduli`).  With ``e`` factors of
        2 in that product, the count is exact modulo 2^(64 - e) or 2^(128 - e) (its odd
        part is invertible), and modulo every prime (above every capacity); the residues
        are joined by the Chinese remainder theorem, enough of them that their moduli's
        product exceeds the bound.  Where the dense tables would not fit in memory, it
        gets :data:`_RYSER_UNFIT_WORK` of work."""
        share = _RYSER_SHARE if not self.viewers else _RYSER_SHARE / _RYSER_VIEW_SHARE
        call = self._ryser_call(share)
        return None if call is None else call[0]

    def _ryser_moduli(self, twos: int) -> list[int]:
        """The moduli of the runs of Ryser's sum that make the count exact (it is below
        the bound): 2^64 or 2^128 (the count is then exact modulo 2^(64 - twos) or
        2^(128 - twos)), else primes below 2^62, with a run modulo 2^128 first where that
        makes one prime fewer (each run costs about the same)."""
        bound = self.bound
        if bound << twos < 2 * _NARROW:
            return [1 << 64]
        if bound << twos < 1 << 128:
            return [1 << 128]
        primes = primes_beyond(bound)
        if twos < 128:
            mixed = [1 << 128, *primes_beyond(bound >> (128 - twos))]
            if len(mixed) < len(primes):
                return mixed
        return primes

    def _ryser_inputs(
        self,
    ) -> tuple[tuple[int, ...], tuple[int, ...], int, int, list[Any], list[int]] | None:
        """What the kernel's ``ryser`` takes on this programme: ``(room, caps, scale, twos,
        families, moduli)``, the slots with room and their capacities, the product of the
        capacities' factorials and its factors of 2, each family's factored form over
        those slots (kept with the family's table) and the moduli of the runs; None where
        the formula is not tried (the options' ``ryser``) or does not apply
        (a family without a factored form)."""
        if (
            self.options.ryser is False
            or self.zero
            or not self.tables
            or not self.options.kernel
            or _kernel is None
            or (self.options.ryser is None and not self._many_draws())
        ):
            return None
        capacity = self.capacity
        room = tuple(s for s in range(self.n_slots) if capacity[s] > 0)
        caps = tuple(capacity[s] for s in room)
        scale = math.prod(math.factorial(c) for c in caps)
        twos = (scale & -scale).bit_length() - 1
        families = []
        for table in self.tables:
            rows = table.ryser_rows(room)
            if rows is None:
                return None
            families.append(rows)
        return room, caps, scale, twos, families, self._ryser_moduli(twos)

    def _ryser_work(self) -> int | None:
        """The kernel's work for the count by Ryser's formula, all its runs together
        (known before any of it is done), or None where the formula does not apply or its
        tables would not fit in the memory limit in force."""
        inputs = self._ryser_inputs()
        if inputs is None:
            return None
        _, caps, _, _, families, moduli = inputs
        wide = moduli[0] == 1 << 128
        work = _kernel.ryser(caps, families, wide, -1, None, None, memory_in_force(self.options))
        return None if work is None else work * len(moduli)

    def _ryser_call(
        self, share: float, owners: Sequence[int] = ()
    ) -> tuple[int, list[int] | None] | None:
        """The count by the kernel's ``ryser`` on this programme (with ``owners``, each
        slot's player, from 0 to the number of players less one, or -1, its location
        counts too, one per free card and player: ``sums[(f * 4 + c) * n + p]`` for card
        ``c`` of family ``f`` with player ``p``): ``(count, sums or None)``; None where
        it does not apply or its work would exceed ``share`` of the dense tables' (without
        the options' ``ryser`` True: with it, no budget) or its memory the limit in force."""
        inputs = self._ryser_inputs()
        if inputs is None:
            return None
        room, caps, scale, twos, families, moduli = inputs
        # Its own tables are small, but within the memory limit too.
        limit = memory_in_force(self.options)
        if self.options.ryser:
            budget = 1 << 62
        elif self._memory_need([], self._width(), False) > limit:
            # No dense tables to weigh it against: a fixed budget (about a second).
            budget = _RYSER_UNFIT_WORK // len(moduli)
        else:
            # The dense tables beyond 2^127 take one pass of residues a prime.
            dense_runs = len(primes_beyond(self.bound)) if self._width() == "big" else 1
            budget = int(self._dense_work() * share * dense_runs) // len(moduli)
        placed = tuple(owners[s] for s in room) if owners else None
        n_sums = len(families) * 4 * len(self.history.players) if owners else 0
        residues: list[int] = []
        columns: list[list[int]] = []
        exact_moduli: list[int] = []  # what each run's count is exact modulo
        for modulus in moduli:  # odd: a prime; else 2^64 or 2^128
            prime = modulus & 1
            wide = modulus == 1 << 128
            sums = np.zeros(n_sums * (2 if wide else 1), dtype=np.uint64) if owners else None
            y = _kernel.ryser(caps, families, wide, budget, placed, sums, limit, prime and modulus)
            if y is None:
                return None
            values: list[int] = sums.tolist() if sums is not None else []
            if wide and values:  # the low words, then the high words
                values = [
                    lo | hi << 64 for lo, hi in zip(values[:n_sums], values[n_sums:], strict=True)
                ]
            # A prime is above every capacity: the factorials are invertible; modulo 2^k
            # the factors of 2 are divided out and the count is exact modulo 2^(k - twos).
            assert prime or y & ((1 << twos) - 1) == 0, "the sum is the count times the factorials"
            exact = modulus if prime else modulus >> twos
            shift = 0 if prime else twos
            inverse = pow(scale >> shift, -1, exact)
            exact_moduli.append(exact)
            residues.append((y >> shift) * inverse % exact)
            columns.append([(v >> shift) * inverse % exact for v in values])
        count = join_residues(residues, exact_moduli)
        if not owners:
            return count, None
        joined = [join_residues(list(v), exact_moduli) for v in zip(*columns, strict=True)]
        return count, joined

    def _ryser_locations(self) -> tuple[int, np.ndarray] | None:
        """The programme's count and ``[n_cards, n_players]`` location counts by Ryser's
        formula (each free card's sum with its linear form narrowed to one player's
        slots; the fixed cards with their slot's player), or None where it does not
        apply or would take longer than the dense marginals
        (:data:`_RYSER_MARGINAL_SHARE`)."""
        history = self.history
        players = history.players
        owner_of = [players.index(o) if o is not None else -1 for o in history.slot_owner]
        call = self._ryser_call(_RYSER_MARGINAL_SHARE, owner_of)
        if call is None:
            return None
        count, sums = call
        assert sums is not None
        n = len(players)
        wide = self._width() != "narrow"
        result = np.zeros((len(history.deck), n), dtype=object if wide else np.int64)
        for index, table in enumerate(self.tables):
            for k in table.free:
                card = table.cards[k]
                for p in range(n):
                    result[card, p] = sums[(index * 4 + k) * n + p]
        for card, slot in self.fixed.items():
            if owner_of[slot] >= 0:
                result[card, owner_of[slot]] = count
        return count, result

    def _memory_need(self, wanted: list[int], width: str, keep_backward: bool) -> int:
        """The bytes the dense programme's tables would take."""
        entry = {"narrow": 8, "wide": 16}.get(width, 48)  # a Python integer and its slot
        n = len(self.tables)
        # The wanted tables go last (_kernel_order): two tables for each, ten more.
        kept = 2 * n + 8 if keep_backward else 2 * len(wanted) + 10
        if not self._use_kernel(width):
            kept = 2 * n + 4  # the NumPy path keeps every forward table
        return self._size * entry * kept

    def _check_memory(self, need: int, limit: int, count_only: bool = False) -> None:
        """Refuse (:class:`ModelTooLargeError`) a programme whose tables would take
        ``need`` bytes, more than ``limit`` (the one in force, :func:`memory_in_force`),
        before they are allocated.  For a count alone (``count_only``), the message also
        says what Ryser's formula would take, where it applies: it was over its budget."""
        if need > limit:
            ones = sum(1 for c in self.cap if c == 1)
            formula = ""
            work = self._ryser_work() if count_only and self.options.ryser is None else None
            if work is not None:
                formula = (
                    f"; Ryser's formula, without tables, would take {work:,} steps, above "
                    f"its budget of {_RYSER_UNFIT_WORK:,} where the tables do not fit "
                    f"(counting.options(ryser=True) takes it without a budget)"
                )
            raise ModelTooLargeError(
                f"exact counting here needs tables of {self._size:,} entries "
                f"({len(self.cap)} dimensions, {ones} of them of capacity 1: unseen draws), "
                f"about {readable_bytes(need)}, above the limit of {readable_bytes(limit)} "
                f"(counting.options(memory_limit=...), KWARTET_MEMORY_LIMIT in bytes; "
                f"by default what memory is free){formula}"
            )

    def _kernel_order(
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

    def _run_residues(self, wanted: list[int]) -> int | None:
        """The programme beyond 2^127 in the kernel: the factored products modulo primes
        below 2^62 whose product exceeds the bound, joined by the Chinese remainder
        theorem (every answer is at most the bound, so the joined residues are exact);
        None where a family has no factored form."""
        assert _kernel is not None
        tables, wanted, copies = self._kernel_order(wanted)
        families = []
        for table in tables:
            rows = table.factored_rows(_RESIDUE_TERM_LIMIT)
            if rows is None:
                return None
            families.append((sum(1 << i for i in table.free), rows, table.vectors))
        primes = primes_beyond(self.bound)
        width = 4 * self.n_slots
        counts = []
        outputs: list[list[np.ndarray]] = [[] for _ in wanted]
        for prime in primes:
            requests = []
            for j, position in enumerate(wanted):
                out = np.zeros(width, dtype=np.int64)
                outputs[j].append(out)
                requests.append((position, None, out))
            counts.append(
                _kernel.factored(self.cap, self._dim_key, families, requests, False, None, prime)
            )
        count = join_residues(counts, primes)
        if wanted:
            origins = self._origin_array(True)
            for position, residues in zip(wanted, outputs, strict=True):
                columns = [r.view(np.uint64).tolist() for r in residues]
                values = [join_residues(list(v), primes) for v in zip(*columns, strict=True)]
                first = tables[position].cards[0]
                origins[first : first + 4] = np.array(values, dtype=object).reshape(4, self.n_slots)
            for table, representative in copies:
                first, source = table.cards[0], representative.cards[0]
                origins[first : first + 4] = origins[source : source + 4]
        return count

    def _run_kernel(self, wanted: list[int], width: str, keep_backward: bool) -> int:
        """The programme in the kernel: on maps of the reachable states where they pay
        (:meth:`_run_sparse`; they keep within the memory limit themselves), else on the
        dense tables, refused (:meth:`_check_memory`) before they are allocated."""
        assert _kernel is not None
        wide = width == "wide"
        need = self._memory_need(wanted, width, keep_backward)  # before the reordering
        copies: list[tuple[FamilyPoly, FamilyPoly]] = []
        if keep_backward:
            tables = self.tables
        else:
            tables, wanted, copies = self._kernel_order(wanted)
        polys = [(t.vectors, t.weights) for t in tables]
        requests = []
        if wanted and not wide:
            # The kernel writes each family's four rows straight into the table.
            origins = self._origin_array(False)
            for position in wanted:
                table = tables[position]
                first = table.cards[0]
                requests.append((position, table.card_slot, origins[first : first + 4]))
        elif wanted:
            outputs = []
            for position in wanted:
                table = tables[position]
                out = np.empty(2 * table.card_slot.shape[1], dtype=np.int64)
                outputs.append(out)
                requests.append((position, table.card_slot, out))
        count = None
        limit = memory_in_force(self.options)  # read once (by default it reads /proc/meminfo)
        if not keep_backward:
            count = self._run_sparse(tables, polys, requests, wide, need <= limit, limit)
        if count is None:
            self._check_memory(need, limit, count_only=not wanted and not keep_backward)
        backward = None
        if keep_backward:
            backward = np.empty((len(tables) + 1) * self._size, dtype=np.int64)
        if count is None:
            plan = self._factored_plan(tables)
            if plan is None:
                count = _kernel.programme(self.cap, polys, requests, wide, backward)
            else:
                families = [
                    (table.vectors, table.weights) if entry is None else entry
                    for table, entry in zip(tables, plan, strict=True)
                ]
                mixed = [
                    (position, None if plan[position] is not None else card_slot, out)
                    for position, card_slot, out in requests
                ]
                count = _kernel.factored(self.cap, self._dim_key, families, mixed, wide, backward)
        if backward is not None:
            shape = tuple(c + 1 for c in self.cap)
            self._backward = list(backward.reshape((len(tables) + 1, *shape)))
        if wanted and wide:
            origins = self._origin_array(True)
            for position, out in zip(wanted, outputs, strict=True):
                half = len(out) // 2
                low = out[:half].view(np.uint64).astype(object)
                high = out[half:].view(np.uint64).astype(object)
                first = tables[position].cards[0]
                origins[first : first + 4] = ((high << 64) | low).reshape(4, self.n_slots)
        for table, representative in copies:
            first, source = table.cards[0], representative.cards[0]
            origins[first : first + 4] = origins[source : source + 4]
        return int(count)

    def _run_sparse(
        self,
        tables: list[FamilyPoly],
        polys: list[tuple[np.ndarray, np.ndarray]],
        requests: list[Any],
        wide: bool,
        fits: bool,
        limit: int,
    ) -> int | None:
        """The programme on maps of the reachable states (see the options' ``sparse``), or None
        where it is not tried or would take longer than the dense tables.  Where these
        do not fit in memory (not ``fits``: the count is refused if the maps give up), the
        maps get :data:`_SPARSE_UNFIT_WORK` of work and as many states as the memory
        ``limit`` (bytes) allows, so that a refusal comes within a second or two.

        The budget is a tenth of the dense tables' work: their size times, per family,
        its passes (the fewer of its use vectors and, with draws, its factored form's
        passes; without draws at most :data:`_SPARSE_PASSES`), twice that for marginals.
        Where it runs out, the dense tables lose at most about a fifth of their time.
        The public worlds after two draws or more (:data:`_SPARSE_PUBLIC_SHARE`) reach
        most of their box, nobody's hand being known (random fish games: a third of the
        states, and the maps never finished within the budget): there it is a hundredth,
        which spares them most of that loss and still lets small reachable sets through.  A
        map holds at most half the dense table's entries (a state takes about four times
        an entry's memory, and a few maps live at a time where the dense programme keeps
        ten tables or more): the maps take about as much memory as the dense tables at
        most."""
        assert _kernel is not None
        size = self._size
        if self.options.sparse is False or (
            self.options.sparse is None and size < _SPARSE_MIN_SIZE
        ):
            return None
        budget, max_states = 1 << 62, size
        if self.options.sparse is None:
            draws = self._many_draws()
            passes = 0
            for table in tables:
                form = table.factored if draws else None
                passes += min(len(table.weights), form[2] if form else _SPARSE_PASSES)
            share = _SPARSE_PUBLIC_SHARE if draws and not self.viewers else _SPARSE_SHARE
            budget = size * passes * (2 if requests else 1) // share
            max_states = size // _SPARSE_DENSITY
            if not fits:  # the maps or nothing: all the states memory allows, in time
                budget, max_states = _SPARSE_UNFIT_WORK, size
        # A state of a map takes its key and count, twice over for the hashing, in a
        # few maps at a time; a map starts with room for 16.
        room = limit // 128
        if room < 16:
            return None
        max_states = min(max_states, room)
        count: int | None = _kernel.sparse(self.cap, polys, requests, wide, budget, max_states)
        return count

    def _many_draws(self) -> bool:
        """Whether the tables have two or more dimensions of capacity 1 (unseen draws):
        there the use-vector products run in rows of two entries, and the factored form
        and deferred marginals pay; elsewhere the boxes of the use-vector products prune
        more than dense passes save."""
        return sum(1 for c in self.cap if c == 1) >= 2

    def _factored_plan(
        self, tables: list[FamilyPoly]
    ) -> list[tuple[int, np.ndarray, np.ndarray] | None] | None:
        """Per table, its factored form for the kernel (or None: its use vectors), or
        None for no factored form at all (see the options' ``factored``)."""
        if self.options.factored is False:
            return None
        if self.options.factored is None and (
            self._size < _FACTOR_MIN_SIZE or not self._many_draws()
        ):
            return None
        plan: list[tuple[int, np.ndarray, np.ndarray] | None] = []
        for table in tables:
            form = table.factored
            if form is None or (self.options.factored is None and form[2] >= len(table.weights)):
                plan.append(None)
            else:
                plan.append((form[0], form[1], table.vectors))
        if all(entry is None for entry in plan):
            return None
        return plan

    def _origin_array(self, wide: bool) -> np.ndarray:
        if self._origins is None:
            dtype: type = object if wide else np.int64
            self._origins = np.zeros((len(self.history.deck), self.n_slots), dtype=dtype)
        return self._origins

    def _run_numpy(self, wanted: list[int], width: str, keep_backward: bool) -> int:
        """The same programme in NumPy: int64 arithmetic (exact modulo 2^64, see the
        module's text) for narrow counts, Python integers otherwise."""
        dtype: type = np.int64 if width == "narrow" else object
        shape = tuple(c + 1 for c in self.cap)

        def unit() -> np.ndarray:
            array: np.ndarray = np.zeros(shape, dtype=dtype)
            array[(0,) * len(shape)] = 1
            return array

        def multiply(array: np.ndarray, table: FamilyPoly) -> np.ndarray:
            result: np.ndarray = np.zeros(shape, dtype=dtype)
            for vector, weight in zip(table.vector_tuples, table.weights.tolist(), strict=True):
                if any(k > c for k, c in zip(vector, self.cap, strict=True)):
                    continue
                target = tuple(slice(k, None) for k in vector)
                source = tuple(slice(0, c + 1 - k) for k, c in zip(vector, self.cap, strict=True))
                result[target] += weight * array[source]
            return result

        with np.errstate(over="ignore"):
            forward = [unit()]
            for table in self.tables:
                forward.append(multiply(forward[-1], table))
            count = forward[-1][self.cap]
            if not wanted and not keep_backward:
                return int(count)
            backward = [unit()]
            first = 0 if keep_backward else min(wanted)
            for table in reversed(self.tables[first:]):
                backward.append(multiply(backward[-1], table))
            backward.reverse()  # backward[i]: the tables from position first + i on
            if keep_backward:
                self._backward = backward
            origins = self._origin_array(width != "narrow")
            for position in wanted:
                table = self.tables[position]
                head = forward[position]
                tail = backward[position + 1 - first][tuple(slice(None, None, -1) for _ in shape)]
                rest = []
                for vector in table.vector_tuples:
                    if any(k > c for k, c in zip(vector, self.cap, strict=True)):
                        rest.append(0)
                        continue
                    upto = tuple(slice(0, c + 1 - k) for k, c in zip(vector, self.cap, strict=True))
                    start = tuple(slice(k, None) for k in vector)
                    rest.append((head[upto] * tail[start]).sum())
                rest_array: np.ndarray = np.array(rest, dtype=dtype)
                values = rest_array @ table.card_slot.astype(dtype)
                origins[list(table.cards)] = values.reshape(4, self.n_slots)
        return int(count)

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
        return self._size

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
        origins = self._origin_array(self._width() != "narrow")
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
        if self._width() != "narrow":  # weights beyond int64: one world at a time
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
    if (
        current_options().kernel
        and _kernel is not None
        and not history.game_goes_on_with_dead_cards()
        and not history.stuck_twins()
        and _recount_fits(n_families)
    ):
        count = _kernel.recount(
            history.capacity,
            history.allowed,
            _viewer_masks(history, viewers) if viewers else None,
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


def _recount_fits(n_families: int) -> bool:
    """Whether the kernel's one-call recount keeps within a memory limit that is set
    (the options' ``memory_limit``): its tables (int64) are at most
    :data:`_RECOUNT_MAX_SIZE` entries, about two per family and ten more.  Below such a
    limit the :class:`WorldCounter` runs, which refuses before it allocates.  (The
    default limit, what memory is free, is not read here: it costs a file read.)"""
    limit = current_options().memory_limit
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


def _viewer_masks(history: PublicHistory, viewers: tuple[PrivateInfo, ...]) -> tuple[int, ...]:
    """Per card the slots the viewers' private information allows (as
    :meth:`WorldCounter._viewer_rules` says it: their own cards from their own slots,
    every other card from none of them), remembered in the history's memo."""
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
