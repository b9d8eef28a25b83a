"""Fast exact marginals for one viewer: the counting engine's programme, reorganised for agents.

An agent asks the same question after almost every event: for each card of the families
it holds, how many of its possible worlds put the card in each hand?  The counting engine
(:class:`~kwartet_epistemic.epistemics.counting.WorldCounter`) answers it exactly; this
module answers the *same* question with the *same* semantics (worlds are origin
assignments constrained by a :class:`~kwartet_epistemic.epistemics.history.PublicHistory`)
but organised for speed:

* homogeneity, as in the counting engine: every family's free cards use a fixed number of
  slots in total, so the last capacity dimension is implied by the others and the tables
  shrink from ``9^3`` to ``9^2`` entries in a 4-player game;
* each family's polynomial (its origin assignments grouped by capacity use) is enumerated
  once, vectorised, and cached across agents and games by the family's simplified
  constraints;
* products are one integer convolution each (Kronecker substitution), and marginals are
  computed only for the families asked for, placed last in the product.

Counts are exact integers (int64, used only where a bound proves it cannot overflow;
otherwise :func:`viewer_marginals` returns None and callers fall back to the counting
engine).  Marginals are returned as float64 counts: every entry is an exact sum of
non-negative integers, so an entry is 0.0 exactly when no world places the card there, and
"the player knows where the card is" is decided exactly.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.history import PublicHistory, private_info
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
>>> view = game.view("A")
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(view.record)
>>> info = private_info(game.deck, "A", view.hand, view.record)
>>> count, origins = viewer_marginals(history, [info])
>>> count == kw.knowledge(view).count_worlds("A")
True
>>> bool((origins.sum(axis=1) == count).all())
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from kwartet_epistemic.epistemics.counting import simplify_clauses
from kwartet_epistemic.epistemics.history import IGNORED, Clause, PrivateInfo, PublicHistory

__all__ = ["viewer_marginals"]

# Signed int64 holds every count below 2**63; keep a margin for the sums in a convolution.
_INT64_BOUND = 1 << 62
_MAX_KERNEL = 4  # a family has four cards: no dimension is used more than 4 times by it


@dataclass(frozen=True, slots=True)
class _FamilyPoly:
    """One family's origin assignments grouped by their use of the reduced dimensions.

    ``vectors[j]`` is a use vector (reduced dimensions only), ``weights[j]`` the number of
    assignments with that use, ``card_slot[j]`` the flattened ``[4, n_slots]`` counts of
    those assignments placing each card in each slot, and ``dense`` the polynomial as a
    dense array indexed by use vector.
    """

    vectors: np.ndarray
    weights: np.ndarray
    card_slot: np.ndarray
    dense: np.ndarray


_POLY_CACHE: dict[tuple[object, ...], _FamilyPoly | None] = {}
_COMBO_CACHE: dict[tuple[tuple[int, ...], ...], np.ndarray] = {}
_CACHE_LIMIT = 200_000


def _combos(options: tuple[tuple[int, ...], ...]) -> np.ndarray:
    """Every origin tuple allowed by ``options`` (one tuple of slots per card), as rows."""
    rows = _COMBO_CACHE.get(options)
    if rows is None:
        rows = np.array(list(itertools.product(*options)), dtype=np.int64).reshape(-1, len(options))
        if len(_COMBO_CACHE) > _CACHE_LIMIT:
            _COMBO_CACHE.clear()
        _COMBO_CACHE[options] = rows
    return rows


def _family_poly(
    options: tuple[tuple[int, ...], ...],
    clauses: tuple[Clause, ...],
    free: tuple[int, ...],
    reduced_of: tuple[int, ...],
    n_reduced: int,
    n_slots: int,
) -> _FamilyPoly | None:
    """The polynomial of one family (None if no assignment satisfies its clauses).

    ``reduced_of[s]`` is the reduced dimension that slot ``s`` uses, or -1 for the
    implied last dimension; only the cards in ``free`` count in the use vectors.
    """
    key = (options, clauses, free, reduced_of, n_reduced, n_slots)
    if key in _POLY_CACHE:
        return _POLY_CACHE[key]
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
    rows = rows[ok]
    if not len(rows):
        poly = None
    else:
        radix = _MAX_KERNEL + 1
        codes = np.zeros(len(rows), dtype=np.int64)
        reduced = np.array(reduced_of + (-1,), dtype=np.int64)
        for i in free:
            dim = reduced[rows[:, i]]
            codes += np.where(dim >= 0, radix ** np.maximum(dim, 0), 0)
        unique, inverse = np.unique(codes, return_inverse=True)
        m = len(unique)
        weights = np.bincount(inverse, minlength=m).astype(np.int64)
        per_card = 4 * n_slots
        flat = inverse[:, None] * per_card + np.arange(4) * n_slots + rows
        card_slot = np.bincount(flat.ravel(), minlength=m * per_card).astype(np.float64)
        vectors = np.array(
            [[(int(code) // radix**k) % radix for k in range(n_reduced)] for code in unique],
            dtype=np.int64,
        ).reshape(m, n_reduced)
        dense = np.zeros(tuple(int(x) + 1 for x in vectors.max(axis=0)), dtype=np.int64)
        dense[tuple(vectors.T)] = weights
        poly = _FamilyPoly(vectors, weights, card_slot.reshape(m, per_card), dense)
    if len(_POLY_CACHE) > _CACHE_LIMIT:
        _POLY_CACHE.clear()
    _POLY_CACHE[key] = poly
    return poly


def _multiply(array: np.ndarray, poly: _FamilyPoly, cap: tuple[int, ...]) -> np.ndarray:
    """``array`` (shape ``cap + 1``) times a family polynomial, truncated at ``cap``."""
    if array.ndim == 2 and len(poly.weights) > 3:
        return _convolve_2d(array, poly.dense, cap)
    result = np.zeros_like(array)
    for vector, weight in zip(poly.vectors.tolist(), poly.weights.tolist(), strict=True):
        if any(k > c for k, c in zip(vector, cap, strict=True)):
            continue
        target = tuple(slice(k, None) for k in vector)
        source = tuple(slice(0, c + 1 - k) for k, c in zip(vector, cap, strict=True))
        result[target] += weight * array[source]
    return result


def _convolve_2d(a: np.ndarray, b: np.ndarray, cap: tuple[int, ...]) -> np.ndarray:
    """Two 2-D polynomials multiplied and truncated at ``cap`` (result shape ``cap + 1``).

    Kronecker substitution: rows laid out with the full product's row length, so no
    coefficient carries into the next row and one 1-D integer convolution does the work.
    """
    (a0, a1), (b0, b1) = a.shape, b.shape
    width = a1 + b1 - 1
    flat_a = np.zeros((a0, width), dtype=np.int64)
    flat_a[:, :a1] = a
    flat_b = np.zeros((b0, width), dtype=np.int64)
    flat_b[:, :b1] = b
    product = np.convolve(
        flat_a.ravel()[: (a0 - 1) * width + a1], flat_b.ravel()[: (b0 - 1) * width + b1]
    )
    rows = cap[0] + 1
    result = np.zeros(rows * width, dtype=np.int64)
    used = min(len(product), rows * width)
    result[:used] = product[:used]
    return result.reshape(rows, width)[:, : cap[1] + 1]


def viewer_marginals(
    history: PublicHistory,
    viewers: Sequence[PrivateInfo] = (),
    families: Iterable[int] | None = None,
    memo: dict[tuple[object, ...], object] | None = None,
) -> tuple[int, np.ndarray] | None:
    """The exact number of worlds and, for the cards of ``families`` (default: all), the
    number of worlds in which each card came from each slot.

    ``viewers`` pool their private information, as for
    :class:`~kwartet_epistemic.epistemics.counting.WorldCounter`; with none the worlds are
    the public ones.  The second result is ``[n_cards, n_slots]`` float64 (rows of other
    families are NaN).  Returns None where this fast path does not apply (draw piles and
    face-down cards, whose "the game goes on" condition couples the families, or counts
    too large for int64); callers then use the counting engine.

    ``memo`` (a dict kept with ``history``, and only with it) remembers each family's
    polynomial under the family's constraints, so an unchanged family costs one lookup.
    """
    if history.rules.draw_pile or history.dead_slots:
        return None
    deck = history.deck
    n_cards = len(deck)
    n_slots = len(history.capacity)
    allowed = list(history.allowed)
    for viewer in viewers:
        own = 1 << history.players.index(viewer.player)
        for c in range(n_cards):
            allowed[c] &= ~own
        for c in viewer.dealt:
            allowed[c] = history.allowed[c] & own
    capacity = list(history.capacity)
    wanted = set(range(deck.n_families)) if families is None else set(families)
    origins = np.full((n_cards, n_slots), np.nan)
    fixed: dict[int, int] = {}
    pending: list[tuple[int, list[int]]] = []  # (family, free card positions)
    for f in range(deck.n_families):
        base = 4 * f
        free = []
        for i in range(4):
            mask = allowed[base + i]
            if not mask:
                return 0, _zero_rows(origins, wanted)
            if mask & (mask - 1):
                free.append(i)
            else:
                slot = mask.bit_length() - 1
                fixed[base + i] = slot
                capacity[slot] -= 1
        pending.append((f, free))
    if any(c < 0 for c in capacity):
        return 0, _zero_rows(origins, wanted)
    dims = [s for s in range(n_slots) if capacity[s] > 0]
    total_free = sum(len(free) for _, free in pending)
    if total_free != sum(capacity[s] for s in dims):
        return 0, _zero_rows(origins, wanted)
    # Every table entry counts ways to place some families' cards within the capacities,
    # so the multinomial bound of the whole placement bounds them all.
    bound = math.factorial(total_free)
    for s in dims:
        bound //= math.factorial(capacity[s])
    if bound >= _INT64_BOUND:
        return None
    # The last dimension is implied by the others (each family's free cards are placed).
    reduced = dims[:-1] if len(dims) > 1 else dims
    reduced_of = [-1] * n_slots
    for k, s in enumerate(reduced):
        reduced_of[s] = k
    reduced_key = tuple(reduced_of)
    cap = tuple(capacity[s] for s in reduced)
    dims_mask = sum(1 << s for s in dims)
    polys: list[tuple[int, _FamilyPoly]] = []
    for f, free in pending:
        base = 4 * f
        original = (allowed[base], allowed[base + 1], allowed[base + 2], allowed[base + 3])
        # A family's clause set only grows, so its size names it within one history.
        key = (f, len(history.clauses[f]), original, dims_mask, reduced_key)
        entry = memo.get(key, _MISSING) if memo is not None else _MISSING
        if entry is _MISSING:
            entry = _family_entry(history, f, free, original, dims_mask, reduced_key, n_slots)
            if memo is not None:
                memo[key] = entry
        if entry is None:
            return 0, _zero_rows(origins, wanted)
        if isinstance(entry, _FamilyPoly):
            polys.append((f, entry))
    if len(dims) == 1:
        # Every free card goes to the one open slot: the use vectors all equal the free
        # counts, so the count is the product of the weights.
        count = 1
        for _, poly in polys:
            count *= int(poly.weights.sum())
        for f, poly in polys:
            if f in wanted:
                others = count // int(poly.weights.sum())
                origins[4 * f : 4 * f + 4] = (poly.card_slot.sum(axis=0) * others).reshape(
                    4, n_slots
                )
        return count, _fill_fixed(origins, fixed, wanted, count, n_slots)
    # Families without a wanted card first; the wanted ones last, so that their
    # complements come from one prefix and a short suffix.
    polys.sort(key=lambda item: item[0] in wanted)
    unit = np.zeros(tuple(c + 1 for c in cap), dtype=np.int64)
    unit[(0,) * len(cap)] = 1
    prefix = [unit]
    chain: tuple[int, ...] = ()
    for _, poly in polys:
        # Products of the same tables in the same order recur (the same families asked
        # about again, hypothetical announcements about one family): remember them.
        chain += (id(poly),)
        # The entry keeps the tables alive, so their ids cannot be reused meanwhile.
        cached = memo.get(("prefix", cap, chain)) if memo is not None else None
        if isinstance(cached, tuple):
            prefix.append(cached[1])
            continue
        prefix.append(_multiply(prefix[-1], poly, cap))
        if memo is not None:
            kept = tuple(table for _, table in polys[: len(chain)])
            memo[("prefix", cap, chain)] = (kept, prefix[-1])
    count = int(prefix[-1][cap])
    if count == 0:
        return 0, _zero_rows(origins, wanted)
    suffix = unit
    for index in range(len(polys) - 1, -1, -1):
        f, poly = polys[index]
        if f not in wanted:
            break
        # rest[j]: worlds of the other families leaving exactly vector j to this one,
        # sum over y of prefix(y) * suffix(cap - v - y), read off the flipped suffix.
        head = prefix[index]
        flipped = suffix[tuple(slice(None, None, -1) for _ in cap)]
        rest = _rest(head, flipped, poly.vectors, cap)
        origins[4 * f : 4 * f + 4] = (rest @ poly.card_slot).reshape(4, n_slots)
        if index > 0 and polys[index - 1][0] in wanted:
            suffix = _multiply(suffix, poly, cap)
    return count, _fill_fixed(origins, fixed, wanted, count, n_slots)


def _rest(
    head: np.ndarray, flipped: np.ndarray, vectors: np.ndarray, cap: tuple[int, ...]
) -> np.ndarray:
    """For each use vector v: the sum over y of ``head[y] * flipped[y + v]`` (0 where
    ``y + v`` leaves the table), as float64."""
    if len(cap) == 2:
        # One 1-D correlation over rows padded to a common width: a lag of v0 rows and v1
        # columns is the flat lag v0 * width + v1, and the padding keeps rows apart.
        c0, c1 = cap
        width = c1 + 1 + _MAX_KERNEL
        padded_head = np.zeros((c0 + 1, width), dtype=np.int64)
        padded_head[:, : c1 + 1] = head
        padded_flip = np.zeros((c0 + 2 + _MAX_KERNEL, width), dtype=np.int64)
        padded_flip[: c0 + 1, : c1 + 1] = flipped
        lags = np.correlate(padded_flip.ravel(), padded_head.ravel(), "valid")
        return lags[vectors[:, 0] * width + vectors[:, 1]].astype(np.float64)
    rest = np.zeros(len(vectors), dtype=np.float64)
    for j, vector in enumerate(vectors.tolist()):
        if any(k > c for k, c in zip(vector, cap, strict=True)):
            continue
        upto = tuple(slice(0, c + 1 - k) for k, c in zip(vector, cap, strict=True))
        start = tuple(slice(k, None) for k in vector)
        rest[j] = float((head[upto] * flipped[start]).sum())
    return rest


_MISSING = object()
_NO_FREE_CARD = "no free card"


def _family_entry(
    history: PublicHistory,
    f: int,
    free: list[int],
    original: tuple[int, int, int, int],
    dims_mask: int,
    reduced_key: tuple[int, ...],
    n_slots: int,
) -> _FamilyPoly | str | None:
    """A family's polynomial, ``_NO_FREE_CARD`` if its cards are all fixed (and its
    clauses hold), or None if no assignment satisfies its clauses."""
    masks = [mask & dims_mask if i in free else mask for i, mask in enumerate(original)]
    if not all(masks):
        return None
    clauses = simplify_clauses(tuple(history.clauses[f]), masks)
    if clauses is None:
        return None
    if not free:
        return _NO_FREE_CARD
    options = tuple(tuple(s for s in range(n_slots) if mask >> s & 1) for mask in masks)
    n_reduced = sum(1 for d in reduced_key if d >= 0)
    return _family_poly(options, clauses, tuple(free), reduced_key, n_reduced, n_slots)


def _zero_rows(origins: np.ndarray, wanted: set[int]) -> np.ndarray:
    for f in wanted:
        origins[4 * f : 4 * f + 4] = 0.0
    return origins


def _fill_fixed(
    origins: np.ndarray, fixed: dict[int, int], wanted: set[int], count: int, n_slots: int
) -> np.ndarray:
    """Rows of wanted families not in the product (all cards fixed), and fixed cards."""
    for f in wanted:
        rows = origins[4 * f : 4 * f + 4]
        if np.isnan(rows).all():
            rows[:] = 0.0
    for card, slot in fixed.items():
        if card // 4 in wanted:
            origins[card] = 0.0
            origins[card, slot] = float(count)
    return origins
