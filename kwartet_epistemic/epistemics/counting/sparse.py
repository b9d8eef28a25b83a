"""The counting programme on maps of the reachable states.

A player's view of a game with unseen draws reaches few entries of the dense box: most
capacity vectors cannot be filled by the families that remain.  The sparse programme
keeps, after each family, a hash map of the states it reached (a state's key and its
count), in the compiled kernel.  It gives the dense programme's count and marginals, or
gives up (None) past a budget of work or of states, so that the planner
(:mod:`.plan`) can fall back on the dense tables.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import WorldCounter, kernel_available
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> counter = WorldCounter(history)
>>> not kernel_available() or sparse_count(counter.programme, [], False, 1 << 40, 1 << 20) == counter.count
True
"""

from __future__ import annotations

from typing import Any

from kwartet_epistemic.epistemics.counting.programme import Programme

try:  # the compiled kernel; without it there are no maps
    from kwartet_epistemic import _counting_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = ["sparse_count"]


def sparse_count(
    programme: Programme,
    requests: list[Any],
    wide: bool,
    budget: int,
    max_states: int,
    tables: list[Any] | None = None,
) -> int | None:
    """The count over maps of reachable states, and the marginals of ``requests`` (see
    :func:`.dense.kernel_requests`), the families ``tables`` (the programme's by
    default) in that order; None where it would exceed ``budget`` products of entries or
    ``max_states`` states in one map, or where the kernel is not installed."""
    if _kernel is None:
        return None
    ordered = programme.tables if tables is None else tables
    polys = [(t.vectors, t.weights) for t in ordered]
    count: int | None = _kernel.sparse(programme.cap, polys, requests, wide, budget, max_states)
    return count
