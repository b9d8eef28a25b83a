"""The count and the location counts by Ryser's formula, without tables.

With every slot's places labelled, the count times the product of the capacities'
factorials is a signed sum, over the evaluation points ``s`` (``s_v`` places of each
slot ``v``, from 0 to its capacity), of the product of ``(-1)^(cap_v - s_v) C(cap_v, s_v)``
and every family's factored form evaluated at ``s`` (inclusion-exclusion over the places
left empty, as in Ryser's formula for the permanent).  Its work grows with the product of
the capacities plus one over the slots with room, but not with the number of unseen
draws the way the tables do (a draw is a slot of capacity 1: a factor 2).

The kernel takes the sum modulo 2^64, 2^128 or primes below 2^62 (:func:`moduli`).  With
``e`` factors of 2 in the product of factorials, the count is exact modulo 2^(64 - e) or
2^(128 - e) (its odd part is invertible) and modulo every prime (above every capacity);
the residues are joined by the Chinese remainder theorem, enough of them that their
moduli's product exceeds the bound.  A location count is the same sum with the card's
linear form narrowed to one player's slots.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import WorldCounter, kernel_available
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> counter = WorldCounter(history)
>>> sums = RyserSums.of(counter.programme) if kernel_available() else None
>>> sums is None or sums.count(1 << 62) == (counter.count, None)
True
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from kwartet_epistemic.epistemics.counting.numbers import join_residues, primes_beyond
from kwartet_epistemic.epistemics.counting.programme import Programme

try:  # the compiled kernel; the formula runs only there
    from kwartet_epistemic import _counting_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = ["RyserSums", "moduli"]

_NARROW = 1 << 63  # a count below this is exact modulo 2^(64 - twos) after one run


def moduli(bound: int, twos: int) -> list[int]:
    """The moduli of the runs of the sum that make a count below ``bound`` exact, where
    the product of the capacities' factorials has ``twos`` factors of 2: 2^64 or 2^128
    (the count is then exact modulo 2^(64 - twos) or 2^(128 - twos)), else primes below
    2^62, with a run modulo 2^128 first where that makes one prime fewer (each run costs
    about the same).

    >>> moduli(1000, 3)
    [18446744073709551616]
    """
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


class RyserSums:
    """What the kernel's ``ryser`` takes on a programme: the slots with room (``room``)
    and their capacities (``caps``), the product of the capacities' factorials
    (``scale``) and its factors of 2 (``twos``), each family's factored form over those
    slots (kept with the family's table) and the ``moduli`` of the runs."""

    __slots__ = ("caps", "families", "moduli", "room", "scale", "twos")

    def __init__(
        self,
        room: tuple[int, ...],
        caps: tuple[int, ...],
        families: list[Any],
        bound: int,
    ) -> None:
        self.room = room
        self.caps = caps
        self.scale = math.prod(math.factorial(c) for c in caps)
        self.twos = (self.scale & -self.scale).bit_length() - 1
        self.families = families
        self.moduli = moduli(bound, self.twos)

    @classmethod
    def of(cls, programme: Programme) -> RyserSums | None:
        """The formula's inputs on ``programme``, or None where it does not apply (no
        kernel, no family, or a family without a factored form)."""
        if _kernel is None or not programme.tables:
            return None
        capacity = programme.capacity
        room = tuple(s for s in range(programme.n_slots) if capacity[s] > 0)
        families = []
        for table in programme.tables:
            rows = table.ryser_rows(room)
            if rows is None:
                return None
            families.append(rows)
        caps = tuple(capacity[s] for s in room)
        return cls(room, caps, families, programme.bound)

    def work(self, memory_limit: int) -> int | None:
        """The kernel's work for the count, all its runs together (known before any of it
        is done), or None where its tables would not fit in ``memory_limit`` bytes."""
        assert _kernel is not None
        wide = self.moduli[0] == 1 << 128
        work = _kernel.ryser(self.caps, self.families, wide, -1, None, None, memory_limit)
        return None if work is None else work * len(self.moduli)

    def count(
        self, budget: int, owners: Sequence[int] = (), memory_limit: int = 1 << 62
    ) -> tuple[int, list[int] | None] | None:
        """The count (with ``owners``, each slot's player from 0 up, or -1, its location
        counts too, one per free card and player: ``sums[(f * 4 + c) * n + p]`` for card
        ``c`` of the ``f``-th family with player ``p``): ``(count, sums or None)``; None
        where a run's work would exceed ``budget`` or its memory ``memory_limit``."""
        assert _kernel is not None
        placed = tuple(owners[s] for s in self.room) if owners else None
        n_players = max(owners, default=-1) + 1
        n_sums = len(self.families) * 4 * n_players if owners else 0
        residues: list[int] = []
        columns: list[list[int]] = []
        exact_moduli: list[int] = []  # what each run's count is exact modulo
        twos, scale = self.twos, self.scale
        for modulus in self.moduli:  # odd: a prime; else 2^64 or 2^128
            prime = modulus & 1
            wide = modulus == 1 << 128
            sums = np.zeros(n_sums * (2 if wide else 1), dtype=np.uint64) if owners else None
            y = _kernel.ryser(
                self.caps, self.families, wide, budget, placed, sums, memory_limit,
                prime and modulus,
            )  # fmt: skip
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

    def location_table(
        self,
        programme: Programme,
        budget: int,
        owners: Sequence[int],
        fixed: Mapping[int, int],
        n_cards: int,
        memory_limit: int,
    ) -> tuple[int, np.ndarray] | None:
        """The programme's count and ``[n_cards, n_players]`` location counts (each free
        card's sum narrowed to one player's slots; each card of ``fixed``, card -> slot,
        with its slot's player), or None where a run would exceed ``budget``."""
        call = self.count(budget, owners, memory_limit)
        if call is None:
            return None
        count, sums = call
        assert sums is not None
        n = max(owners, default=-1) + 1
        wide = programme.width != "narrow"
        result = np.zeros((n_cards, n), dtype=object if wide else np.int64)
        for index, table in enumerate(programme.tables):
            for k in table.free:
                card = table.cards[k]
                for p in range(n):
                    result[card, p] = sums[(index * 4 + k) * n + p]
        for card, slot in fixed.items():
            if owners[slot] >= 0:
                result[card, owners[slot]] = count
        return count, result
