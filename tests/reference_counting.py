"""The counting engine as it stood before its compiled kernel: the reference that the
fast engine is tested against (tests only; the library never imports it).

Exact model counting over families.

The constraints of :class:`~kwartet_epistemic.epistemics.history.PublicHistory` concern
one family each; only the slot capacities (hand sizes, draws, piles) couple the families.
So the number of worlds is the coefficient at the capacities of a product of one
polynomial per family, computed by a dynamic programme whose state is the vector of
capacities used so far, less one that the others imply (at most 9^2 states for a
player's view of a 32-card, 4-player game, 9^3 for the public worlds).  Forward and
backward tables give exact marginals (location probabilities) and exact uniform
sampling.  Counts are exact Python integers: the tables use int64 when the
multinomial bound on every entry fits, and Python integers otherwise.

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
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from kwartet_epistemic.epistemics.history import Clause, PrivateInfo, PublicHistory

__all__ = ["WorldCounter", "FamilyTable", "simplify_clauses"]

_INT64_SAFE = 1 << 62


@dataclass(frozen=True)
class FamilyTable:
    """The possible origins of one family's cards, grouped by how much of each slot
    dimension they use.

    ``vectors[j]`` is a usage vector over the DP dimensions, ``assignments[j]`` the
    origin tuples (one slot per card) with that usage, and ``card_slot[j]`` counts, for
    each card of the family and each slot, the assignments placing the card there.
    """

    cards: tuple[int, ...]
    vectors: tuple[tuple[int, ...], ...]
    assignments: tuple[tuple[tuple[int, ...], ...], ...]
    card_slot: tuple[np.ndarray, ...]

    @property
    def weights(self) -> list[int]:
        return [len(a) for a in self.assignments]


def _satisfies(clauses: Sequence[Clause], origins: Sequence[int]) -> bool:
    return all(clause.satisfied(origins) for clause in clauses)


def simplify_clauses(
    clauses: Sequence[Clause], allowed: Sequence[int]
) -> tuple[Clause, ...] | None:
    """Clauses restricted to the allowed origins, without the trivially true or subsumed
    ones, in a canonical order; None if one can never be satisfied."""
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


_TABLE_CACHE: dict[tuple[object, ...], FamilyTable | None] = {}


def _family_table(
    cards: tuple[int, ...],
    allowed: tuple[tuple[int, ...], ...],
    clauses: tuple[Clause, ...],
    dim_of: tuple[int, ...],
    n_dims: int,
    n_slots: int,
    free: tuple[int, ...],
) -> FamilyTable | None:
    """Enumerate a family's origin assignments; None if none satisfies the clauses.

    Only the cards in ``free`` count in the usage vectors: the others have one possible
    origin and are already taken off the capacities (they still take part in clauses).
    """
    key = (cards, allowed, clauses, dim_of, n_dims, n_slots, free)
    if key in _TABLE_CACHE:
        return _TABLE_CACHE[key]
    groups: dict[tuple[int, ...], list[tuple[int, ...]]] = {}
    for origins in itertools.product(*allowed):
        if clauses and not _satisfies(clauses, origins):
            continue
        usage = [0] * n_dims
        for i in free:
            d = dim_of[origins[i]]
            if d >= 0:  # the implied dimension is not counted
                usage[d] += 1
        groups.setdefault(tuple(usage), []).append(origins)
    if not groups:
        _TABLE_CACHE[key] = None
        return None
    vectors = tuple(groups)
    assignments = tuple(tuple(groups[v]) for v in vectors)
    card_slot = []
    for group in assignments:
        counts = np.zeros((len(cards), n_slots), dtype=np.int64)
        for origins in group:
            for i, slot in enumerate(origins):
                counts[i, slot] += 1
        card_slot.append(counts)
    table = FamilyTable(cards, vectors, assignments, tuple(card_slot))
    if len(_TABLE_CACHE) > 50_000:
        _TABLE_CACHE.clear()
    _TABLE_CACHE[key] = table
    return table


class WorldCounter:
    """Exact counts, marginals and uniform samples of the worlds of a history, either
    public (``viewer=None``) or as one player sees them (``viewer``: their private info).

    The work is done once in the constructor (forward tables); marginals and samples
    build the backward tables on first use.
    """

    def __init__(
        self,
        history: PublicHistory,
        viewers: Sequence[PrivateInfo] = (),
        restrict: Mapping[int, int] | None = None,
        *,
        all_dead: bool = False,
    ) -> None:
        self.history = history
        self.viewers = tuple(viewers)
        n_slots = len(history.capacity)
        self.n_slots = n_slots
        allowed = list(history.allowed)
        # Each viewer knows their dealt hand and their draws exactly; several viewers
        # pool what they know (distributed knowledge).
        for viewer in self.viewers:
            own = 1 << history.players.index(viewer.player)
            for number, _card in viewer.draws:
                own |= 1 << history.draw_slots[number]
            for c in range(len(allowed)):
                allowed[c] &= ~own
            for c in viewer.dealt:
                allowed[c] = history.allowed[c] & (1 << history.players.index(viewer.player))
            for number, card in viewer.draws:
                allowed[card] = history.allowed[card] & (1 << history.draw_slots[number])
        for c, mask in (restrict or {}).items():
            allowed[c] &= mask
        capacity = list(history.capacity)
        deck = history.deck
        self.families: list[tuple[int, ...]] = []  # families left to the DP, by card index
        self.fixed: dict[int, int] = {}  # card -> its only possible origin
        self.zero = False
        pending: list[tuple[int, list[list[int]], tuple[Clause, ...]]] = []
        for f in range(deck.n_families):
            base = 4 * f
            options = [[s for s in range(n_slots) if allowed[base + i] >> s & 1] for i in range(4)]
            masks = [allowed[base + i] for i in range(4)]
            family_clauses = tuple(history.clauses[f])
            if all_dead and f not in history.exposed_families:
                dead = history.dead_slots
                family_clauses += (Clause("some", (dead, dead, dead, dead)),)
            simplified = simplify_clauses(family_clauses, masks)
            if simplified is None:
                self.zero = True
                continue
            clauses = simplified
            if any(not o for o in options):
                self.zero = True
                continue
            for i, o in enumerate(options):
                if len(o) == 1:
                    self.fixed[base + i] = o[0]
                    capacity[o[0]] -= 1
            if all(len(o) == 1 for o in options):
                if not _satisfies(clauses, [o[0] for o in options]):
                    self.zero = True
            else:
                pending.append((f, options, clauses))
        if any(c < 0 for c in capacity):
            self.zero = True
        self.capacity = capacity
        # Slots that still have room become the DP dimensions, but one: every family's
        # free cards are all placed, so the use of the roomiest slot is implied by the
        # others' (the family's free cards minus the rest), and the tables lose a
        # dimension.  Entries that would overfill it cannot reach the full capacities.
        room = [s for s in range(n_slots) if capacity[s] > 0]
        implied = max(room, key=lambda s: capacity[s]) if len(room) > 1 else None
        dims = [s for s in room if s != implied]
        self.dims = dims
        dim_of = [-1] * n_slots
        for d, s in enumerate(dims):
            dim_of[s] = d
        self.cap = tuple(capacity[s] for s in dims)
        self.tables: list[FamilyTable] = []
        self._free_of: list[list[int]] = []
        for f, options, clauses in pending:
            pruned = tuple(
                tuple(o) if len(o) == 1 else tuple(s for s in o if capacity[s] > 0) for o in options
            )
            if any(not o for o in pruned):
                self.zero = True
                break
            table = _family_table(
                tuple(range(4 * f, 4 * f + 4)),
                pruned,
                clauses,
                tuple(dim_of),
                len(dims),
                n_slots,
                tuple(i for i, o in enumerate(options) if len(o) > 1),
            )
            if table is None:
                self.zero = True
                break
            self.tables.append(table)
            self._free_of.append([i for i, o in enumerate(options) if len(o) > 1])
        total_cards = sum(capacity[s] for s in room)
        free_cards = sum(len(options) for options in self._free_of)
        if free_cards != total_cards:
            self.zero = True
        bound = math.factorial(total_cards)
        for s in room:
            bound //= math.factorial(capacity[s])
        self.dtype: type = np.int64 if bound < _INT64_SAFE else object
        self._forward: list[np.ndarray] = []
        self._backward: list[np.ndarray] | None = None
        # Worlds of the programme itself, before the "game goes on" correction below.
        self.programme_count = 0 if self.zero else self._run_forward()
        self.count = self.programme_count
        # While the game goes on, everyone knows some unexposed family can still be
        # completed (none of its cards lies face down out of play): subtract the worlds in
        # which every unexposed family has a dead card.  This one condition couples the
        # families, and inclusion-exclusion keeps the programme per family.
        self._dead_worlds: WorldCounter | None = None
        if not all_dead and history.game_goes_on_with_dead_cards() and self.count:
            self._dead_worlds = WorldCounter(history, viewers, restrict, all_dead=True)
            self.count -= self._dead_worlds.count

    # ----- dynamic programme --------------------------------------------------------

    def _empty(self) -> np.ndarray:
        shape = tuple(c + 1 for c in self.cap)
        return (
            np.zeros(shape, dtype=self.dtype)
            if self.dtype is not object
            else np.full(shape, 0, dtype=object)
        )

    def _unit(self) -> np.ndarray:
        array = self._empty()
        array[(0,) * len(self.cap)] = 1
        return array

    def _multiply(self, array: np.ndarray, table: FamilyTable) -> np.ndarray:
        """``array`` times the family polynomial, truncated at the capacities."""
        result = self._empty()
        for vector, weight in zip(table.vectors, table.weights, strict=True):
            if any(k > c for k, c in zip(vector, self.cap, strict=True)):
                continue
            target = tuple(slice(k, None) for k in vector)
            source = tuple(slice(0, c + 1 - k) for k, c in zip(vector, self.cap, strict=True))
            result[target] += weight * array[source]
        return result

    def _run_forward(self) -> int:
        array = self._unit()
        self._forward = [array]
        for table in self.tables:
            array = self._multiply(array, table)
            self._forward.append(array)
        return int(array[self.cap])

    def _run_backward(self) -> list[np.ndarray]:
        if self._backward is None:
            array = self._unit()
            backward = [array]
            for table in reversed(self.tables):
                array = self._multiply(array, table)
                backward.append(array)
            backward.reverse()
            # backward[i]: ways for tables i.. to use exactly a given vector
            self._backward = backward
        return self._backward

    def _rest(self, index: int) -> list[int]:
        """For each usage vector of table ``index``: the number of ways the other
        families fill the remaining capacity."""
        forward = self._forward[index]
        backward = self._run_backward()[index + 1]
        flipped = backward[tuple(slice(None, None, -1) for _ in self.cap)]
        rest = []
        for vector in self.tables[index].vectors:
            if any(k > c for k, c in zip(vector, self.cap, strict=True)):
                rest.append(0)
                continue
            head = tuple(slice(0, c + 1 - k) for k, c in zip(vector, self.cap, strict=True))
            tail = tuple(slice(k, c + 1) for k, c in zip(vector, self.cap, strict=True))
            rest.append(int((forward[head] * flipped[tail]).sum()))
        return rest

    # ----- answers ------------------------------------------------------------------

    def origin_counts(self) -> np.ndarray:
        """``[n_cards, n_slots]`` exact counts (Python ints, object array) of the worlds in
        which each card came from each slot."""
        counts = np.zeros((len(self.history.deck), self.n_slots), dtype=object)
        if self.zero or self.count == 0:
            return counts
        if self._dead_worlds is not None:
            return self._origin_counts_all() - self._dead_worlds.origin_counts()
        return self._origin_counts_all()

    def _origin_counts_all(self) -> np.ndarray:
        counts = np.zeros((len(self.history.deck), self.n_slots), dtype=object)
        for card, slot in self.fixed.items():
            counts[card, slot] = self.programme_count
        for index, table in enumerate(self.tables):
            rest = self._rest(index)
            acc = np.zeros((4, self.n_slots), dtype=object)
            for per_card, ways in zip(table.card_slot, rest, strict=True):
                if ways:
                    acc += per_card.astype(object) * ways
            counts[list(table.cards)] = acc
        return counts

    def sample(self, rng: np.random.Generator) -> dict[int, int]:
        """One world drawn exactly uniformly: card -> origin slot."""
        if self.count == 0:
            raise ValueError("no world is possible")
        if self._dead_worlds is None:
            return self._sample_all(rng)
        dead = self.history.dead_slots
        live = [
            f for f in range(self.history.deck.n_families) if f not in self.history.exposed_families
        ]
        while True:  # rejection keeps the draw exactly uniform
            origins = self._sample_all(rng)
            if any(all(not dead >> origins[4 * f + i] & 1 for i in range(4)) for f in live):
                return origins

    def _sample_all(self, rng: np.random.Generator) -> dict[int, int]:
        backward = self._run_backward()
        origins = dict(self.fixed)
        remaining = self.cap
        for index, table in enumerate(self.tables):
            after = backward[index + 1]
            weights = []
            for vector, group in zip(table.vectors, table.assignments, strict=True):
                left = tuple(r - k for r, k in zip(remaining, vector, strict=True))
                weights.append(len(group) * int(after[left]) if min(left, default=0) >= 0 else 0)
            pick = _uniform_below(sum(weights), rng)
            for j, w in enumerate(weights):
                if pick < w:
                    group = table.assignments[j]
                    chosen = group[pick % len(group)]
                    remaining = tuple(
                        r - k for r, k in zip(remaining, table.vectors[j], strict=True)
                    )
                    for card, slot in zip(table.cards, chosen, strict=True):
                        origins[card] = slot
                    break
                pick -= w
        return origins


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
