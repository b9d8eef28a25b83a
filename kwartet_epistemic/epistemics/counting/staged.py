"""The count where draws are interchangeable: a programme over merged draw dimensions.

The counting programme (:mod:`~kwartet_epistemic.epistemics.counting`) has one table
dimension of capacity 1 for every draw nobody has seen, so its tables double with each.
Many of those draws cannot be told apart by the families still to be multiplied: a lone
holder's run of draws, say, is distinguished only where a family's quartet was completed.
This programme keeps, after each family, only what the families still to come can tell
apart.

Write ``F(S)`` for the number of ways the families multiplied so far fill exactly the
set ``S`` of capacity-1 dimensions.  The count is ``sum_S F(S) B(S')`` over the
complement ``S'``, where ``B`` (the families to come) does not change when dimensions of
one *part* of their partition are permuted (two dimensions are in one part when every
remaining family's allowed slots and clause conditions treat them alike).  So ``F`` is
needed only through its sums over the sets with the same number ``t_j`` of dimensions in
each part ``j``.  With ``p_j`` the size of the part, the table keeps
``D[t] = (sum of F over those sets) * prod_j (p_j - t_j)!``:

* multiplying a family whose polynomial is symmetric within the parts is then a plain
  truncated product with the family's polynomial over the parts, each part a slot of
  capacity ``p_j`` (``w(u)``: its assignments of cards to parts, the use of part ``j``
  being ``u_j``), because ``(p - t)!/(p - t - u)!`` ways to place the ``u`` cards in the
  part's free dimensions telescope against the factorials;
* merging parts ``j_1..j_q`` into one, when a family leaves the ones to come, sends
  ``D[t]`` to the entry with the sum ``T`` of their counts, times the multinomial
  coefficient ``(P - T)! / prod_k (p_k - t_k)!`` (``P`` the merged size): integers only;
* it starts at ``D[0] = prod_j p_j!`` and ends with every dimension full, where ``D`` is
  the count itself.

The tables hold only their reachable entries: the entries as rows of NumPy arrays, their
values as Python integers (exact at any size) in object arrays.  A product adds each of
the family's uses to every entry at once, testing only the dimensions that the use
touches, and the sums meet by sorting the entries' numbers in mixed radix.  The
families are taken in the order that keeps the fewest parts in use: a family whose cards
go only to dimensions the others no longer tell apart costs little.  Where the table
would hold more than ``max_states`` entries the programme gives up (None), and the
counting engine decides what to do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from kwartet_epistemic.epistemics.counting.family import FamilyPoly, simplify_clauses
from kwartet_epistemic.epistemics.history import IGNORED

__all__ = ["staged_count"]


def _dimension_keys(table: FamilyPoly, slots: Sequence[int]) -> list[int]:
    """Per dimension in ``slots`` (slot numbers), what this family's allowed slots and
    clause conditions say of it, numbered: equal numbers, interchangeable dimensions."""
    masks = table.option_masks()
    clauses = simplify_clauses(tuple(table.clauses), masks) or ()
    conditions = [c for clause in clauses for c in clause.conditions if c != IGNORED]
    seen: dict[tuple[tuple[int, ...], tuple[int, ...]], int] = {}
    return [
        seen.setdefault(
            (tuple(m >> s & 1 for m in masks), tuple(c >> s & 1 for c in conditions)), len(seen)
        )
        for s in slots
    ]


def _parts(keys: list[list[int]], members: list[int], ones: int) -> list[int]:
    """Part number of each of ``ones`` capacity-1 dimensions under the families
    ``members`` (indices into ``keys``), numbered in order of first appearance."""
    if not members:
        return [0] * ones
    seen: dict[tuple[int, ...], int] = {}
    return [
        seen.setdefault(key, len(seen)) for key in zip(*(keys[f] for f in members), strict=True)
    ]


def _order(keys: list[list[int]], spans: list[set[int]], ones: int) -> list[int]:
    """The families in a greedy order: next, the one after which the fewest parts of
    the remaining families' partition hold a dimension that a family so far can use."""
    remaining = list(range(len(keys)))
    used: set[int] = set()
    order: list[int] = []
    while remaining:
        best, best_cost = remaining[0], None
        for f in remaining:
            rest = [g for g in remaining if g != f]
            parts = _parts(keys, rest, ones)
            touched = used | spans[f]
            cost = (len({parts[i] for i in touched}), len(set(parts)))
            if best_cost is None or cost < best_cost:
                best, best_cost = f, cost
        order.append(best)
        used |= spans[best]
        remaining.remove(best)
    return order


def staged_count(
    tables: Sequence[FamilyPoly],
    dims: Sequence[int],
    cap: Sequence[int],
    max_states: int,
    max_work: int = 1 << 62,
    max_bound: int = 1 << 62,
) -> int | None:
    """The programme's count (the coefficient at ``cap`` of the product of the tables'
    polynomials over the dimensions ``dims``, slot numbers), computed over merged
    capacity-1 dimensions as the module's text says; None where a table would hold more
    than ``max_states`` entries, where the products of entries by terms would add up to
    more than ``max_work``, or where a bound on them, known before any work, exceeds
    ``max_bound``.

    >>> import kwartet_epistemic as kw
    >>> from kwartet_epistemic.epistemics.counting import WorldCounter
    >>> rules = kw.RuleSet.preset("fish").replace(cards_each=2)
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2), {"A": ["7S", "8S"],
    ...     "B": ["7H", "8H"]}, first="A", rules=rules, stock=["8C", "7C", "8D", "7D"])
    >>> _ = game.ask("B", "7H"), game.ask("B", "8H")  # B is out: A draws four cards
    >>> counter = WorldCounter(kw.knowledge(game).history)
    >>> staged_count(counter.tables, counter.dims, counter.cap, 10_000)
    72
    """
    ones_at = [d for d, c in enumerate(cap) if c == 1]
    others_at = [d for d, c in enumerate(cap) if c != 1]
    ones = len(ones_at)
    one_slots = [dims[d] for d in ones_at]
    keys = [_dimension_keys(t, one_slots) for t in tables]
    spans: list[set[int]] = []
    for t in tables:
        reached = np.flatnonzero(t.vectors[:, ones_at].any(axis=0)) if ones else ()
        spans.append({int(i) for i in reached})
    order = _order(keys, spans, ones)
    other_cap = tuple(cap[d] for d in others_at)
    n_other = len(others_at)
    # The layout before family order[i]: the partition of the families order[i:].
    stages = [_parts(keys, order[i:], ones) for i in range(len(order))]
    if _work_bound(stages, spans, order, other_cap, tables) > max_bound:
        return None  # known before any work
    parts = stages[0] if stages else _parts(keys, [], ones)  # no family: one part
    sizes = _part_sizes(parts)
    # The table: its entries' uses (one row each) and their values (Python integers).
    states = np.zeros((1, n_other + len(sizes)), dtype=np.int64)
    values = np.array([math.prod(math.factorial(p) for p in sizes)], dtype=object)
    for i, f in enumerate(order):
        weights = _part_weights(tables[f], ones_at, others_at, parts, sizes)
        limit = other_cap + tuple(sizes)
        max_work -= len(states) * len(weights)
        if max_work < 0:
            return None
        states, values = _product(states, values, weights, limit)
        if len(states) > max_states:
            return None
        if i + 1 == len(order):
            return _value_at(states, values, limit)
        new_parts = stages[i + 1]
        states, values, sizes = _merge(states, values, n_other, parts, sizes, new_parts)
        parts = new_parts
    return _value_at(states, values, other_cap + tuple(sizes))  # no family: the empty product


# Rows of a product worked out at once (each row one entry times one term).
_CHUNK = 1 << 16


def _product(
    states: np.ndarray,
    values: np.ndarray,
    weights: list[tuple[tuple[int, ...], int]],
    limit: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray]:
    """The truncated product of a table (``states``, ``values``) with a family's
    polynomial ``weights`` (use, weight): every entry plus every use within ``limit``,
    the values times the weights, summed where they meet.  Entries are numbered in mixed
    radix (a sum of entries is the sum of their numbers, where it stays within
    ``limit``), and a use is tested only on the dimensions it uses (at most four)."""
    width = len(limit)
    if not weights or not len(states):
        return _empty(width)
    strides = _strides(limit)
    if strides is None:  # too many entries to number: row by row
        return _product_by_rows(states, values, weights, limit)
    keys = states @ strides
    found_keys, found_values = [], []
    for use, weight in weights:
        within = np.ones(len(states), dtype=bool)
        shift = 0
        for j, u in enumerate(use):
            if u:
                within &= states[:, j] <= limit[j] - u
                shift += u * int(strides[j])
        hit = np.flatnonzero(within)
        if len(hit):
            found_keys.append(keys[hit] + shift)
            found_values.append(values[hit] * weight)
    if not found_keys:
        return _empty(width)
    all_keys = np.concatenate(found_keys)
    firsts, sums = _summed_keys(all_keys, np.concatenate(found_values))
    radices = np.array(limit, dtype=np.int64) + 1
    return (all_keys[firsts][:, None] // strides[None, :]) % radices, sums


def _strides(limit: tuple[int, ...]) -> np.ndarray | None:
    """The mixed-radix place values of entries at most ``limit``, or None where their
    numbers would not fit in 63 bits."""
    radix = 1
    strides = []
    for top in limit:
        strides.append(radix)
        radix *= top + 1
    return np.array(strides, dtype=np.int64) if radix < 1 << 63 else None


def _summed_keys(keys: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each distinct key (in sorted order), the index of one entry with it and the
    sum of their values."""
    order = np.argsort(keys, kind="stable")
    sorted_keys = keys[order]
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    return order[starts], np.add.reduceat(values[order], starts)


def _empty(width: int) -> tuple[np.ndarray, np.ndarray]:
    """A table with no entries."""
    return np.zeros((0, width), dtype=np.int64), np.zeros(0, dtype=object)


def _product_by_rows(
    states: np.ndarray,
    values: np.ndarray,
    weights: list[tuple[tuple[int, ...], int]],
    limit: tuple[int, ...],
) -> tuple[np.ndarray, np.ndarray]:
    """:func:`_product` for entries too many to number: every entry plus every use as
    rows, in chunks of :data:`_CHUNK` rows."""
    uses = np.array([use for use, _ in weights], dtype=np.int64).reshape(len(weights), -1)
    factors = np.array([w for _, w in weights], dtype=object)
    top = np.array(limit, dtype=np.int64)
    per_chunk = max(1, _CHUNK // len(uses))
    found_states, found_values = [], []
    for start in range(0, len(states), per_chunk):
        block = states[start : start + per_chunk]
        targets = (block[:, None, :] + uses[None, :, :]).reshape(-1, len(limit))
        within = np.flatnonzero((targets <= top).all(axis=1))
        if not len(within):
            continue
        entry, term = np.divmod(within, len(uses))
        found_states.append(targets[within])
        found_values.append(values[start + entry] * factors[term])
    if not found_states:
        return _empty(len(limit))
    return _summed(np.concatenate(found_states), np.concatenate(found_values), limit)


def _summed(
    states: np.ndarray, values: np.ndarray, limit: tuple[int, ...]
) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows of ``states`` (each at most ``limit``) with the sums of their
    values."""
    firsts, sums = _summed_keys(_row_keys(states, limit), values)
    return states[firsts], sums


def _row_keys(states: np.ndarray, limit: tuple[int, ...]) -> np.ndarray:
    """One integer a row of ``states`` (each at most ``limit``), equal for equal rows:
    the row in mixed radix where the radices fit in 63 bits, else its index among the
    distinct rows."""
    strides = _strides(limit)
    if strides is not None:
        return states @ strides
    return np.unique(states, axis=0, return_inverse=True)[1].ravel()


def _value_at(states: np.ndarray, values: np.ndarray, state: tuple[int, ...]) -> int:
    """The table's value at ``state`` (0 where it has no entry)."""
    hit = np.flatnonzero((states == np.array(state, dtype=np.int64)).all(axis=1))
    return int(values[hit[0]]) if len(hit) else 0


def _work_bound(
    stages: list[list[int]],
    spans: list[set[int]],
    order: list[int],
    other_cap: tuple[int, ...],
    tables: Sequence[FamilyPoly],
) -> int:
    """An upper bound on the products of entries by terms: before each family, at most
    every use (up to the cards placed so far) of the other dimensions and of the parts
    that a family so far can reach, times the family's terms."""
    used: set[int] = set()
    placed = 0
    total = 0
    for parts, f in zip(stages, order, strict=True):
        sizes = _part_sizes(parts)
        states = math.prod(min(c, placed) + 1 for c in other_cap)
        states *= math.prod(min(sizes[j], placed) + 1 for j in {parts[k] for k in used})
        total += states * len(tables[f].weights)
        used |= spans[f]
        placed += len(tables[f].free)
    return total


def _part_sizes(parts: list[int]) -> list[int]:
    sizes = [0] * (max(parts) + 1 if parts else 0)
    for j in parts:
        sizes[j] += 1
    return sizes


def _part_weights(
    table: FamilyPoly,
    ones_at: list[int],
    others_at: list[int],
    parts: list[int],
    sizes: list[int],
) -> list[tuple[tuple[int, ...], int]]:
    """The family's polynomial over the parts: ``w(u)``, its assignments of cards to the
    other dimensions and to parts (not to the parts' single dimensions)."""
    vectors = table.vectors
    draws = vectors[:, ones_at]
    feasible = (draws <= 1).all(axis=1)  # two cards from one draw: no world
    onehot = np.zeros((len(ones_at), len(sizes)), dtype=np.int64)
    onehot[np.arange(len(ones_at)), parts] = 1
    uses = np.concatenate([vectors[:, others_at], draws @ onehot], axis=1)[feasible]
    if not len(uses):
        return []
    keys, inverse = _unique_rows(uses)
    sums = np.zeros(len(keys), dtype=np.int64)  # at most the family's assignments
    np.add.at(sums, inverse.ravel(), table.weights[feasible])
    result: list[tuple[tuple[int, ...], int]] = []
    for key, total in zip(map(tuple, keys.tolist()), sums.tolist(), strict=True):
        # sum over the dimension sets with these counts = prod C(p, u) u! * w(u)
        ways = 1
        for j, u in enumerate(key[len(others_at) :]):
            ways *= math.perm(sizes[j], u)
        weight, left = divmod(total, ways)
        assert not left, "a family's polynomial is not symmetric within its parts"
        if weight:
            result.append((key, weight))
    return result


def _unique_rows(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The distinct rows and each row's index among them (as ``np.unique(axis=0)``,
    in another order).  A family places four cards, so a use is at most 4: rows of up to
    21 columns pack into one integer of three bits a column, whose one-dimensional
    ``unique`` is several times faster than comparing rows."""
    width = rows.shape[1]
    if width > 21 or not len(rows) or rows.max() > 7 or rows.min() < 0:
        keys, inverse = np.unique(rows, axis=0, return_inverse=True)
        return keys, inverse.ravel()
    packed = (rows.astype(np.int64) << (3 * np.arange(width, dtype=np.int64))).sum(axis=1)
    _, first, inverse = np.unique(packed, return_index=True, return_inverse=True)
    return rows[first], inverse.ravel()


def _merge(
    states: np.ndarray,
    values: np.ndarray,
    n_other: int,
    parts: list[int],
    sizes: list[int],
    new_parts: list[int],
) -> tuple[np.ndarray, np.ndarray, list[int]]:
    """The table over the coarser partition ``new_parts``: each entry goes to the sums
    of its counts, times the multinomial coefficient of the parts' free dimensions."""
    new_sizes = _part_sizes(new_parts)
    if not len(states):
        no_states, no_values = _empty(n_other + len(new_sizes))
        return no_states, no_values, new_sizes
    into = np.zeros((len(sizes), len(new_sizes)), dtype=np.int64)  # old part -> new part
    for old, new in zip(parts, new_parts, strict=True):
        into[old, new] = 1
    counts = states[:, n_other:]
    merged = counts @ into
    factorial = np.array([math.factorial(k) for k in range(len(parts) + 1)], dtype=object)
    numerator = np.ones(len(states), dtype=object)
    for k, size in enumerate(new_sizes):
        numerator = numerator * factorial[size - merged[:, k]]
    divisor = np.ones(len(states), dtype=object)
    for j, size in enumerate(sizes):
        divisor = divisor * factorial[size - counts[:, j]]
    new_states = np.concatenate([states[:, :n_other], merged], axis=1)
    limit = tuple(int(x) for x in new_states.max(axis=0))
    new_states, new_values = _summed(new_states, values * (numerator // divisor), limit)
    return new_states, new_values, new_sizes
