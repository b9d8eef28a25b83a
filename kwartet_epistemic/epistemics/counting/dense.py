"""The counting programme on dense tables: every entry of the box of capacities.

Forward table ``i`` counts, for every vector ``v`` of capacities used, the ways the
first ``i`` families use exactly ``v``; the count is the last table's entry at the
capacities.  Backward tables (the families from ``i`` on) give the marginals: a family's
cards' origin counts sum, over its use vectors, the forward table before it times the
backward table after it.  The products run in the compiled kernel (only the entries that
can still reach the capacities; a family's polynomial multiplied in its factored form
where that takes fewer passes) or in NumPy (:func:`numpy_count`, the same answers
without the kernel).  The kernel's calling convention for marginals (one request per
wanted family) is shared with the sparse programme (:mod:`.sparse`).

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import WorldCounter
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> programme = WorldCounter(history).programme
>>> numpy_count(programme, [], "narrow", False, None)[0] == WorldCounter(history).count
True
"""

from __future__ import annotations

from typing import Any

import numpy as np

from kwartet_epistemic.epistemics.counting.family import FamilyPoly
from kwartet_epistemic.epistemics.counting.programme import Programme, Width

try:  # the compiled kernel; the NumPy path gives the same answers without it
    from kwartet_epistemic import _counting_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = [
    "FactoredPlan",
    "KernelRequests",
    "copy_marginals",
    "gather_marginals",
    "kernel_count",
    "kernel_requests",
    "numpy_count",
]

FactoredPlan = list[tuple[int, np.ndarray, np.ndarray] | None]
"""Per table its factored form for the kernel, or None: its use vectors."""


class KernelRequests:
    """The marginals asked of the kernel: one request per wanted table (its position,
    its card-slot matrix, the array the kernel writes its four cards' rows into) and,
    in 128-bit arithmetic, the arrays to gather them from (:func:`gather_marginals`)."""

    __slots__ = ("outputs", "requests")

    def __init__(self, requests: list[Any], outputs: list[np.ndarray]) -> None:
        self.requests = requests
        self.outputs = outputs


def kernel_requests(
    tables: list[FamilyPoly], wanted: list[int], wide: bool, origins: np.ndarray | None
) -> KernelRequests:
    """The kernel's requests for the marginals of the tables at positions ``wanted``: in
    64-bit arithmetic it writes each family's four rows straight into ``origins``
    (``[n_cards, n_slots]`` int64); in 128-bit arithmetic into arrays of low and high
    words, gathered afterwards."""
    requests = []
    outputs = []
    for position in wanted:
        table = tables[position]
        if wide:
            out = np.empty(2 * table.card_slot.shape[1], dtype=np.int64)
            outputs.append(out)
            requests.append((position, table.card_slot, out))
        else:
            assert origins is not None
            first = table.cards[0]
            requests.append((position, table.card_slot, origins[first : first + 4]))
    return KernelRequests(requests, outputs)


def gather_marginals(
    asked: KernelRequests,
    tables: list[FamilyPoly],
    wanted: list[int],
    copies: list[tuple[FamilyPoly, FamilyPoly]],
    origins: np.ndarray | None,
    n_slots: int,
) -> None:
    """Put the kernel's 128-bit answers into ``origins`` (Python integers), and give the
    copies (families with a representative's table) their representative's rows."""
    if origins is None:
        return
    for position, out in zip(wanted if asked.outputs else (), asked.outputs, strict=True):
        half = len(out) // 2
        low = out[:half].view(np.uint64).astype(object)
        high = out[half:].view(np.uint64).astype(object)
        first = tables[position].cards[0]
        origins[first : first + 4] = ((high << 64) | low).reshape(4, n_slots)
    copy_marginals(copies, origins)


def copy_marginals(copies: list[tuple[FamilyPoly, FamilyPoly]], origins: np.ndarray) -> None:
    """Give the copies (families with a representative's table) their representative's
    rows of ``origins``."""
    for table, representative in copies:
        first, source = table.cards[0], representative.cards[0]
        origins[first : first + 4] = origins[source : source + 4]


def kernel_count(
    programme: Programme,
    tables: list[FamilyPoly],
    requests: list[Any],
    wide: bool,
    keep_backward: bool,
    plan: FactoredPlan | None,
    closing: tuple[int, ...] | None = None,
) -> tuple[int, list[np.ndarray] | None]:
    """The dense programme in the kernel, the tables in the order given (the marginals
    of ``requests``; with ``plan``, the families it names multiplied in their factored
    form; with ``closing``, the merged open families multiplied last, see
    :mod:`.open_families`): the count and, with ``keep_backward``, the backward tables
    (64-bit only)."""
    assert _kernel is not None
    cap = programme.cap
    backward = None
    if keep_backward:
        backward = np.empty((len(tables) + 1) * programme.size, dtype=np.int64)
    if plan is None:
        polys = [(t.vectors, t.weights) for t in tables]
        count = _kernel.programme(cap, polys, requests, wide, backward, closing)
    else:
        families = [
            (table.vectors, table.weights) if entry is None else entry
            for table, entry in zip(tables, plan, strict=True)
        ]
        mixed = [
            (position, None if plan[position] is not None else card_slot, out)
            for position, card_slot, out in requests
        ]
        count = _kernel.factored(
            cap, programme.dim_key, families, mixed, wide, backward, 0, closing
        )
    kept = None
    if backward is not None:
        shape = tuple(c + 1 for c in cap)
        kept = list(backward.reshape((len(tables) + 1, *shape)))
    return int(count), kept


def numpy_count(
    programme: Programme,
    wanted: list[int],
    width: Width,
    keep_backward: bool,
    origins: np.ndarray | None,
) -> tuple[int, list[np.ndarray] | None]:
    """The same programme in NumPy, the tables in their own order: int64 arithmetic
    (exact modulo 2^64) for narrow counts, Python integers otherwise.  The count, the
    marginals of the tables at positions ``wanted`` written into ``origins``, and with
    ``keep_backward`` the backward tables."""
    cap = programme.cap
    tables = programme.tables
    dtype: type = np.int64 if width == "narrow" else object
    shape = tuple(c + 1 for c in cap)

    def unit() -> np.ndarray:
        array: np.ndarray = np.zeros(shape, dtype=dtype)
        array[(0,) * len(shape)] = 1
        return array

    def multiply(array: np.ndarray, table: FamilyPoly) -> np.ndarray:
        result: np.ndarray = np.zeros(shape, dtype=dtype)
        for vector, weight in zip(table.vector_tuples, table.weights.tolist(), strict=True):
            if any(k > c for k, c in zip(vector, cap, strict=True)):
                continue
            target = tuple(slice(k, None) for k in vector)
            source = tuple(slice(0, c + 1 - k) for k, c in zip(vector, cap, strict=True))
            result[target] += weight * array[source]
        return result

    with np.errstate(over="ignore"):
        forward = [unit()]
        for table in tables:
            forward.append(multiply(forward[-1], table))
        count = forward[-1][cap]
        if not wanted and not keep_backward:
            return int(count), None
        backward = [unit()]
        first = 0 if keep_backward else min(wanted)
        for table in reversed(tables[first:]):
            backward.append(multiply(backward[-1], table))
        backward.reverse()  # backward[i]: the tables from position first + i on
        for position in wanted:
            assert origins is not None
            table = tables[position]
            head = forward[position]
            tail = backward[position + 1 - first][tuple(slice(None, None, -1) for _ in shape)]
            rest = []
            for vector in table.vector_tuples:
                if any(k > c for k, c in zip(vector, cap, strict=True)):
                    rest.append(0)
                    continue
                upto = tuple(slice(0, c + 1 - k) for k, c in zip(vector, cap, strict=True))
                start = tuple(slice(k, None) for k in vector)
                rest.append((head[upto] * tail[start]).sum())
            rest_array: np.ndarray = np.array(rest, dtype=dtype)
            values = rest_array @ table.card_slot.astype(dtype)
            origins[list(table.cards)] = values.reshape(4, programme.n_slots)
    return int(count), backward if keep_backward else None
