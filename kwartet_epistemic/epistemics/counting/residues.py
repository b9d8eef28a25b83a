"""The counting programme beyond 2^127: the factored products modulo primes.

Where the multinomial bound of a placement exceeds the kernel's 128-bit arithmetic, the
dense programme runs once modulo each of a few primes below 2^62 whose product exceeds
the bound, every family multiplied in its factored form, and the residues are joined by
the Chinese remainder theorem (:mod:`.numbers`): every answer is at most the bound, so
the joined residues are the exact answers.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import WorldCounter, kernel_available
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> counter = WorldCounter(history)
>>> not kernel_available() or residue_count(counter.programme, [], None) == counter.count
True
"""

from __future__ import annotations

import numpy as np

from kwartet_epistemic.epistemics.counting.numbers import join_residues, primes_beyond
from kwartet_epistemic.epistemics.counting.programme import Programme

try:  # the compiled kernel; the residues are computed only there
    from kwartet_epistemic import _counting_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = ["residue_count"]

_TERM_LIMIT = 4096  # a family's factored form of more terms: the residues are not tried


def residue_count(
    programme: Programme, wanted: list[int], origins: np.ndarray | None
) -> int | None:
    """The count, and the marginals of the tables at positions ``wanted`` written into
    ``origins`` (``[n_cards, n_slots]``, Python integers), modulo primes and joined;
    None where the kernel is missing or a family has no factored form."""
    if _kernel is None:
        return None
    tables, wanted, copies = programme.kernel_order(wanted)
    families = []
    for table in tables:
        rows = table.factored_rows(_TERM_LIMIT)
        if rows is None:
            return None
        families.append((sum(1 << i for i in table.free), rows, table.vectors))
    primes = primes_beyond(programme.bound)
    n_slots = programme.n_slots
    width = 4 * n_slots
    counts = []
    outputs: list[list[np.ndarray]] = [[] for _ in wanted]
    for prime in primes:
        requests = []
        for j, position in enumerate(wanted):
            out = np.zeros(width, dtype=np.int64)
            outputs[j].append(out)
            requests.append((position, None, out))
        counts.append(
            _kernel.factored(
                programme.cap, programme.dim_key, families, requests, False, None, prime
            )
        )
    count = join_residues(counts, primes)
    if wanted:
        assert origins is not None
        for position, residues in zip(wanted, outputs, strict=True):
            columns = [r.view(np.uint64).tolist() for r in residues]
            values = [join_residues(list(v), primes) for v in zip(*columns, strict=True)]
            first = tables[position].cards[0]
            origins[first : first + 4] = np.array(values, dtype=object).reshape(4, n_slots)
        for table, representative in copies:
            first, source = table.cards[0], representative.cards[0]
            origins[first : first + 4] = origins[source : source + 4]
    return count
