"""Benchmark of the explicit Kripke engine; prints its figures (time and peak memory).

1. Card deals: 16 cards, 3 players, hands 6/5/5: 2,018,016 worlds (deals), each
   player's partition by own hand; A holds 0..5, B 6..10, C 11..15.  Times building
   the model, checking K, C and D formulas at the actual deal, one public
   announcement (an ask in Kwartet style: A asks C for card 6 and C says no) and K
   and C checks after it.
   Target: built and checked in under 10 s and under 2 GB.
2. Muddy children, all n children muddy, n = 8, 10, 12 (and 16, 20) (2**n worlds): build, announce
   the father, then "nobody knows whether they are muddy" n-1 times, checking after
   every round that the muddy children know exactly at the end; and, separately, one
   evaluation of [!father][!nobody knows]^(n-1) (all muddy children know).  SMCDEL's
   benchmark reports DEMO-S5 (explicit) at 7.5 s for n = 10 and 212 s for n = 12 on a
   2011 desktop; the target here is n = 12 in under 10 s.

Peak memory is measured with tracemalloc (numpy reports its buffers to it) and the
process's maximum resident set size.

Run:  python experiments/bench_kripke.py [--muddy 8 10 12] [--skip-deals]
"""

from __future__ import annotations

import argparse
import platform
import resource
import time
import tracemalloc
from collections.abc import Callable
from functools import partial
from typing import TypeVar

import numpy as np

from kwartet_epistemic.examples import (
    card_deals,
    father_announcement,
    muddy_children,
    nobody_knows,
)
from kwartet_epistemic.logic import Announce, Atom, Formula, K, conjunction

T = TypeVar("T")


_overall_peak = 0


def measured(label: str, task: Callable[[], T]) -> T:
    """Run the task; print its wall time and the peak traced memory while it ran.

    The peak counts everything alive at the time (e.g. the model being checked), not
    only what the task allocates.
    """
    global _overall_peak
    tracemalloc.reset_peak()
    start = time.perf_counter()
    result = task()
    elapsed = time.perf_counter() - start
    _, peak = tracemalloc.get_traced_memory()
    _overall_peak = max(_overall_peak, peak)
    print(f"  {label:<72} {elapsed:7.3f} s  peak {peak / 2**20:7.1f} MiB")
    return result


def bench_card_deals() -> None:
    print("Card deals: 16 cards, hands A 6, B 5, C 5 (cards 0..15, family f = 4f..4f+3)")
    global _overall_peak
    _overall_peak = 0
    total_start = time.perf_counter()
    model = measured(
        "build the model", lambda: card_deals({"A": 6, "B": 5, "C": 5}, world_names=False)
    )
    print(f"    {model!r}")
    assert model.n_worlds == 2_018_016
    checks = {
        "K_A ~has(B, 0)": True,  # A holds card 0
        "K_A has(B, 6)": False,
        "K_B (has(A, 0) | has(C, 0))": True,  # B holds cards 6..10
        "C_{A,B,C} (has(A, 3) | has(B, 3) | has(C, 3))": True,
        "C_{A,B,C} ~K_C has(A, 0)": True,  # B could always hold it instead
        "C_{A,B} (has(A, 0) | has(B, 0))": False,  # not where C holds card 0
        "D_{A,B} has(C, 15)": True,  # A and B together see every other card
        "D_{B,C} has(A, 0)": True,
        "K_C (has(A, 0) | has(B, 0))": True,
    }
    for text, expected in checks.items():
        value = measured(f"check {text}", partial(model.holds, text))
        assert value == expected, (text, value)
    # A asks C for card 6 and C says no: A holds another card of family 1 (4..7), not 6,
    # and C does not hold 6.
    ask = "(has(A, 4) | has(A, 5) | has(A, 7)) & ~has(A, 6) & ~has(C, 6)"
    announced = measured(f"announce {ask}", lambda: model.announce(ask))
    print(f"    {announced!r}")
    value = measured(
        "after it: K_B (has(A, 4) | has(A, 5) | has(A, 7))",
        lambda: announced.holds("K_B (has(A, 4) | has(A, 5) | has(A, 7))"),
    )
    assert value
    value = measured(
        "after it: C_{A,B,C} ~has(C, 6)", lambda: announced.holds("C_{A,B,C} ~has(C, 6)")
    )
    assert value
    value = measured(
        "on the full model: [!ask]C_{A,B,C} (~has(C, 6) & ~K_C has(A, 0))",
        lambda: model.holds(f"[!{ask}]C_{{A,B,C}} (~has(C, 6) & ~K_C has(A, 0))"),
    )
    assert value
    total = time.perf_counter() - total_start
    label = "total: build and every check above"
    print(f"  {label:<72} {total:7.3f} s  peak {_overall_peak / 2**20:7.1f} MiB")


def muddy_rounds(n: int) -> int:
    """Announce the father and "nobody knows" until the muddy children know; rounds used."""
    model = muddy_children(n, n).announce(father_announcement(n))
    goal = conjunction(K(str(i), Atom(f"m{i}")) for i in range(1, n + 1))
    silence = nobody_knows(n)
    rounds = 0
    while not model.holds(goal):
        model = model.announce(silence)
        rounds += 1
    assert rounds == n - 1, rounds
    return rounds


def muddy_formula(n: int) -> bool:
    """One evaluation of [!father][!nobody knows]^(n-1) (all muddy children know)."""
    model = muddy_children(n, n)
    goal: Formula = conjunction(K(str(i), Atom(f"m{i}")) for i in range(1, n + 1))
    for _ in range(n - 1):
        goal = Announce(nobody_knows(n), goal)
    return model.holds(Announce(father_announcement(n), goal))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--muddy", type=int, nargs="*", default=[8, 10, 12, 16, 20])
    parser.add_argument("--skip-deals", action="store_true")
    arguments = parser.parse_args()
    tracemalloc.start()
    print(f"Python {platform.python_version()}, numpy {np.__version__}, {platform.machine()}")
    if not arguments.skip_deals:
        bench_card_deals()
    print("Muddy children, all children muddy")
    for n in arguments.muddy:
        measured(
            f"n = {n:2d}: build, father, {n - 1} rounds of nobody knows",
            partial(muddy_rounds, n),
        )
        assert measured(
            f"n = {n:2d}: one formula [!father][!nobody]^{n - 1} all know",
            partial(muddy_formula, n),
        )
    max_rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(f"Maximum resident set size of the process: {max_rss / 2**10:.0f} MiB")


if __name__ == "__main__":
    main()
