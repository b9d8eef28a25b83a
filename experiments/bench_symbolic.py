"""Benchmark of the symbolic engine on the classic puzzles; prints its figures.

Muddy children (all n children muddy), two ways, each from a fresh BDD manager:

- rounds: announce the father, then announce "nobody knows" until the muddy children
  know, checking at the actual state after every round (n - 1 rounds): a chain of
  structure updates.  This is the task of SMCDEL's benchmark (van Benthem, van Eijck,
  Gattinger, Su 2015: 0.45 s to 0.85 s for n = 40 on a 2011 desktop).
- formula: one evaluation of [!father][!nobody knows]^(n-1) (all muddy children know)
  at the actual state, on the initial structure.

Russian cards: build the 140 deals, announce Alice's five hands, check that it is then
common knowledge that Bob knows her hand and Cath knows no card.  With
``--all-announcements`` also count, among all 46,376 announcements of five hands that
contain Alice's actual hand 012, those that make SMCDEL's two-step plan succeed (see
``count_good_announcements``); with no pruning of the candidates this finds 60, the
five-hand share of the 102 good announcements (5, 6 or 7 hands) of van Ditmarsch,
"The Russian cards problem", Studia Logica 75(1), 2003.

Kwartet: on the 32-card, 4-player deal with seed 3 and 20 random asks later,
from a fresh ``kw.knowledge(game, engine="symbolic")`` each time (so any structure the
engine builds is timed): one common-knowledge query ``C_{A,B,C,D} ~has(B, 7S)`` and the
sweep of ``K_A K_B has(P, c)`` over all 128 (card, player) pairs; median and max over
repeats, the load average, and whether the 0.3 s targets are met.  ``--against DIR``
runs the same figures with the code in DIR (a worktree of an older commit) in a
subprocess, in the same run, for comparison.

``--out DIR`` also writes ``DIR/bench_symbolic_numbers.tex`` (``\\kwBenchSymbolic...``: the
CUDD muddy-children times per n, Russian cards, the Kwartet medians).

Run:  python experiments/bench_symbolic.py [--sizes 10 20 40] [--repeat 5] [--out DIR]
      python experiments/bench_symbolic.py --kwartet-only --repeat 5 --against /tmp/old
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from functools import partial
from itertools import combinations
from pathlib import Path

import dd
import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.logic import Announce, C, Formula, K, Kw, conjunction
from kwartet_epistemic.symbolic import (
    available_backends,
    muddy_children_father,
    muddy_children_muddy_know,
    muddy_children_nobody_knows,
    muddy_children_rounds,
    muddy_children_state,
    muddy_children_structure,
    russian_cards_alice_says,
    russian_cards_atom,
    russian_cards_bob_knows_alice,
    russian_cards_cath_ignorant,
    russian_cards_deal,
    russian_cards_structure,
)

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

NUMBERS: dict[str, str] = {}
"""The figures for the paper (macro name -> TeX), filled as the parts run."""
_N_WORDS = {4: "Four", 6: "Six", 8: "Eight", 10: "Ten", 12: "Twelve", 16: "Sixteen",
            20: "Twenty", 30: "Thirty", 40: "Forty"}  # fmt: skip
_TASK_WORDS = {f"0 asks: {'C_{A,B,C,D} ~has(B, 7S)'}": "DealCommon",
               "0 asks: K_A K_B has(P, c), 128 pairs": "DealSweep",
               f"20 asks: {'C_{A,B,C,D} ~has(B, 7S)'}": "LateCommon",
               "20 asks: K_A K_B has(P, c), 128 pairs": "LateSweep"}  # fmt: skip

EVERYONE = ("Alice", "Bob", "Cath")
SAFE_HANDS = [(0, 1, 2), (0, 3, 4), (0, 5, 6), (1, 3, 5), (2, 4, 6)]


def processor_name() -> str:
    """The CPU model, from /proc/cpuinfo where there is one."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as cpuinfo:
            for line in cpuinfo:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def best_time(task: Callable[[], object], repeat: int) -> tuple[float, object]:
    """The median of ``repeat`` runs (the figure; :data:`SPREADS` keeps each task's
    min-max), and the task's result."""
    times, result = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        result = task()
        times.append(time.perf_counter() - start)
    SPREADS.append((min(times), max(times)))
    return statistics.median(times), result


SPREADS: list[tuple[float, float]] = []
"""Each timed task's (min, max) over its runs, in the order they ran (printed beside the
medians)."""


def muddy_rounds(n: int, backend: str) -> int:
    structure = muddy_children_structure(n, backend=backend)
    return muddy_children_rounds(structure.announce(muddy_children_father(n)), range(1, n + 1))


def muddy_formula(n: int, backend: str) -> bool:
    silence = muddy_children_nobody_knows(n)
    formula: Formula = muddy_children_muddy_know(range(1, n + 1))
    for _ in range(n - 1):
        formula = Announce(silence, formula)
    formula = Announce(muddy_children_father(n), formula)
    structure = muddy_children_structure(n, backend=backend)
    return structure.holds(formula, muddy_children_state(range(1, n + 1)))


def russian_cards_check(backend: str) -> bool:
    structure = russian_cards_structure(backend=backend)
    outcome = russian_cards_bob_knows_alice() & russian_cards_cath_ignorant()
    deal = russian_cards_deal((0, 1, 2), (3, 4, 5), (6,))
    after = structure.announce(russian_cards_alice_says(SAFE_HANDS), actual=deal)
    return after.holds(C(EVERYONE, outcome), deal)


def count_good_announcements(backend: str) -> tuple[int, int]:
    """(good, total) over five-hand announcements containing Alice's hand 012.

    Good as in the two-step plan checked by SMCDEL (Gattinger's RussianCards example),
    at the deal 012|345|6: after Alice's announcement Bob knows her hand, and Alice
    and Bob commonly know that, while Cath's ignorance is common knowledge of all
    three; after Bob then says "Cath has 6", Alice and Bob commonly know each other's
    hands and Cath's ignorance is still common knowledge.
    """
    structure = russian_cards_structure(backend=backend)
    deal = russian_cards_deal((0, 1, 2), (3, 4, 5), (6,))
    bob_knows, cath_ignorant = russian_cards_bob_knows_alice(), russian_cards_cath_ignorant()
    alice_knows = conjunction(Kw("Alice", russian_cards_atom("Bob", c)) for c in range(7))
    bob_says = K("Bob", russian_cards_atom("Cath", 6))
    after_alice = conjunction(
        [bob_knows, C(("Alice", "Bob"), bob_knows), C(EVERYONE, cath_ignorant), bob_says]
    )
    after_bob = C(("Alice", "Bob"), alice_knows & bob_knows) & C(EVERYONE, cath_ignorant)
    hands = list(combinations(range(7), 3))
    # Alice observes her own atoms, so "K_Alice (my hand is one of these)" is, within
    # the law, the disjunction itself: build each hand's BDD once and restrict by it.
    hand_bdd = {hand: structure.bdd(russian_cards_alice_says([hand])) for hand in hands}
    others = [hand for hand in hands if hand != (0, 1, 2)]
    good = total = 0
    for rest in combinations(others, 4):
        total += 1
        announced = hand_bdd[0, 1, 2]
        for hand in rest:
            announced = announced | hand_bdd[hand]
        after = structure.restrict(announced)
        good += after.holds(after_alice, deal) and after.announce(bob_says).holds(after_bob, deal)
    return good, total


KWARTET_TARGET = 0.3  # seconds
KWARTET_COMMON = "C_{A,B,C,D} ~has(B, 7S)"


def kwartet_position(asks: int) -> kw.Game:
    """The 32-card, 4-player deal with seed 3, then ``asks`` random asks (rng seed 3)."""
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    rng = np.random.default_rng(3)
    for _ in range(asks):
        game.play(game.random_legal_ask(rng))
    return game


def kwartet_timings(repeat: int) -> dict[str, list[float]]:
    """Seconds per run of each Kwartet task, from a fresh symbolic state each time."""
    timings: dict[str, list[float]] = {}
    for asks in (0, 20):
        game = kwartet_position(asks)
        sweep = [f"K_A K_B has({p}, {card.code})" for card in game.deck.cards for p in game.players]
        for _ in range(repeat):
            start = time.perf_counter()
            kw.knowledge(game, engine="symbolic").holds(KWARTET_COMMON)
            timings.setdefault(f"{asks} asks: {KWARTET_COMMON}", []).append(
                time.perf_counter() - start
            )
            start = time.perf_counter()
            state = kw.knowledge(game, engine="symbolic")
            for formula in sweep:
                state.holds(formula)
            timings.setdefault(f"{asks} asks: K_A K_B has(P, c), 128 pairs", []).append(
                time.perf_counter() - start
            )
    return timings


def kwartet_figures(repeat: int, against: str | None) -> None:
    """Print the Kwartet figures (and those of the code in ``against``, if given)."""
    load_before = os.getloadavg()
    old: dict[str, list[float]] = {}
    if against is not None:
        child = subprocess.run(
            [sys.executable, __file__, "--kwartet-json", "--repeat", str(repeat)],
            env={**os.environ, "PYTHONPATH": against},
            capture_output=True,
            text=True,
            check=True,
        )
        old = json.loads(child.stdout.strip().splitlines()[-1])
    new = kwartet_timings(repeat)
    load_after = os.getloadavg()
    print(f"\nKwartet, 32 cards, 4 players, seed 3 (seconds from a fresh state, {repeat} runs)")
    print(
        "load average before "
        + " ".join(f"{x:.2f}" for x in load_before)
        + ", after "
        + " ".join(f"{x:.2f}" for x in load_after)
    )
    if against is not None:
        print(f"old code: {against}")
    header = f"{'task':<48} {'median':>8} {'max':>8}"
    if old:
        header += f" {'old median':>11} {'old max':>8}"
    print(header + f"  target {KWARTET_TARGET} s")
    for task, times in new.items():
        line = f"{task:<48} {statistics.median(times):>8.3f} {max(times):>8.3f}"
        if task in old:
            line += f" {statistics.median(old[task]):>11.3f} {max(old[task]):>8.3f}"
        met = statistics.median(times) <= KWARTET_TARGET
        print(line + ("  met" if met else "  not met"))
        if task in _TASK_WORDS:
            NUMBERS[f"kwBenchSymbolicKwartet{_TASK_WORDS[task]}"] = _latex.sig(
                statistics.median(times)
            )
    NUMBERS["kwBenchSymbolicKwartetRepeats"] = str(repeat)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10, 20, 40])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--backends", nargs="+", default=list(available_backends()))
    parser.add_argument(
        "--autoref-max", type=int, default=20, help="largest n run on the pure-Python backend"
    )
    parser.add_argument("--all-announcements", action="store_true")
    parser.add_argument("--kwartet-only", action="store_true", help="only the Kwartet figures")
    parser.add_argument("--skip-kwartet", action="store_true")
    parser.add_argument("--against", help="also time the Kwartet tasks with the code in this dir")
    parser.add_argument("--kwartet-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help="folder for bench_symbolic_numbers.tex")
    options = parser.parse_args()
    try:
        run(options)
    finally:
        if options.out and NUMBERS:
            _latex.write_numbers(
                options.out / "bench_symbolic_numbers.tex", "experiments/bench_symbolic.py", NUMBERS
            )


def run(options: argparse.Namespace) -> None:
    """The parts the options ask for (see the module docstring)."""
    if options.kwartet_json:  # the child process of --against
        print(json.dumps(kwartet_timings(options.repeat)))
        return
    if options.kwartet_only:
        kwartet_figures(options.repeat, options.against)
        return

    print(f"python {platform.python_version()}, dd {dd.__version__}, {platform.machine()}")
    print(f"processor: {processor_name()}; median of {options.repeat} runs [min-max]\n")
    NUMBERS["kwBenchSymbolicRepeats"] = str(options.repeat)
    print("muddy children, all n muddy (seconds, fresh BDD manager each run)")
    print(
        f"{'backend':>8} {'n':>4} {'rounds':>7} {'rounds s':>9} {'formula s':>10} {'law nodes':>10}"
    )
    for backend in options.backends:
        for n in options.sizes:
            if backend == "autoref" and n > options.autoref_max:
                continue
            rounds_time, rounds = best_time(partial(muddy_rounds, n, backend), options.repeat)
            formula_time, holds = best_time(partial(muddy_formula, n, backend), options.repeat)
            assert rounds == n - 1 and holds is True, (n, rounds, holds)
            structure = muddy_children_structure(n, backend=backend)
            nodes = structure.announce(muddy_children_father(n)).law.dag_size
            (r_low, r_high), (f_low, f_high) = SPREADS[-2:]
            print(
                f"{backend:>8} {n:>4} {rounds:>7} {rounds_time:>9.3f} {formula_time:>10.3f}"
                f" {nodes:>10}   [{r_low:.3f}-{r_high:.3f}] [{f_low:.3f}-{f_high:.3f}]"
            )
            if backend == "cudd" and n in _N_WORDS:
                NUMBERS[f"kwBenchSymbolicMuddy{_N_WORDS[n]}Rounds"] = _latex.sig(rounds_time)
                NUMBERS[f"kwBenchSymbolicMuddy{_N_WORDS[n]}Formula"] = _latex.sig(formula_time)

    print("\nRussian cards: announce 012|034|056|135|246 at deal 012|345|6, check C(...)")
    for backend in options.backends:
        seconds, holds = best_time(partial(russian_cards_check, backend), options.repeat)
        assert holds is True
        low, high = SPREADS[-1]
        print(f"{backend:>8} {seconds:.4f} s [{low:.4f}-{high:.4f}] (holds: {holds})")
        if backend == "cudd":
            NUMBERS["kwBenchSymbolicRussian"] = _latex.sig(seconds)

    if options.all_announcements:
        backend = options.backends[0]
        start = time.perf_counter()
        good, total = count_good_announcements(backend)
        seconds = time.perf_counter() - start
        print(
            f"\n{good} of {total} five-hand announcements make the plan succeed "
            f"({backend}, {seconds:.1f} s)"
        )
        NUMBERS["kwBenchSymbolicRussianGood"] = _latex.fmt(good, 0)
        NUMBERS["kwBenchSymbolicRussianTotal"] = _latex.fmt(total, 0)

    if not options.skip_kwartet:
        kwartet_figures(options.repeat, options.against)


if __name__ == "__main__":
    main()
