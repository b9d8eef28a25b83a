"""Benchmarks of the counting engine; prints its figures.

    python experiments/bench_knowledge.py [--games N] [--grid-games N] [--repeats 5] [--quick]

Every figure is the median of ``--repeats`` runs with its spread (min-max), at two
significant digits; run it with nothing else on the machine (the load average is printed
at the start and the end).

1. Full random 32-card and 52-card, 4-player games: per event, the ask plus all four
   players' exact ``location_probabilities`` (mean, median, p90, max over the game, and
   the mean over events 1-20 separately: those are the hard ones).  Targets: 32 cards
   mean over events 1-20 <= 0.7 ms and whole-game median <= 0.3 ms; 52 cards <= 1.5 ms.
2. A grid of 3-6 players and 12-52 cards: every player's probabilities at the deal and
   after each of the first asks; the worst event.  Target: <= 70 ms everywhere.
3. ``knows_location`` for every card of one player against one ``location_counts``.
   Target: no dearer than one table.
4. The compiled kernel against the NumPy path on the same positions (the same answers;
   the ratio of times), and the exactness of the counts at the largest table (52 cards,
   6 players: counts beyond 2^63 stay exact Python integers).
5. The 16-card, 3-player deal (hands 6/5/5) on the counting and explicit engines.

With ``--out DIR`` the figures the paper quotes go to ``DIR/bench_knowledge_numbers.tex``
(``\\kwBenchKnowledge...``) and the grid to ``DIR/bench_knowledge_table.tex``.

Times are the CPU time of this one process (``time.process_time``: on a shared machine
wall-clock time also counts the moments another process had the core; on an idle core the
two agree), with the wall-clock figures beside them; the load average is printed before
and after (2 cores).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

NAMES = ["A", "B", "C", "D", "E", "F"]
NUMBERS: dict[str, str] = {}
"""The figures the paper quotes, as TeX (macro name -> text), filled as the parts run."""
GRID: list[list[str]] = []
_CARDS = {12: "Twelve", 20: "Twenty", 32: "ThirtyTwo", 40: "Forty", 52: "FiftyTwo"}
_PLAYERS = {3: "Three", 4: "Four", 5: "Five", 6: "Six"}


def _deck(cards: int) -> kw.Deck:
    families = cards // 4
    return kw.Deck.piquet(families=families) if families <= 8 else kw.Deck.standard(families)


def _clock() -> float:
    return time.process_time()


def full_games(cards: int, games: int) -> tuple[list[float], list[float], list[float]]:
    """Per-event CPU times (seconds) of the ask plus four players' probabilities: all
    events, and events 1-20; and the wall-clock times of all events."""
    every, early, wall = [], [], []
    deck = _deck(cards)
    for seed in range(games):
        game = kw.Game.deal(deck, NAMES[:4], seed=seed)
        rng = np.random.default_rng(seed)
        k = kw.knowledge(game)
        for p in game.players:  # the deal itself is not an event of the game
            k.location_probabilities(p)
        number = 0
        while not game.is_over:
            ask = game.random_legal_ask(rng)
            start, start_wall = _clock(), time.perf_counter()
            game.play(ask)
            for p in game.players:
                k.location_probabilities(p)
            elapsed = _clock() - start
            wall.append(time.perf_counter() - start_wall)
            number += 1
            every.append(elapsed)
            if number <= 20:
                early.append(elapsed)
    return every, early, wall


def _p90(times: list[float]) -> float:
    return sorted(times)[int(0.9 * len(times))]


def sig(x: float) -> str:
    """Two significant digits (the figures are medians of a few repeats on a shared
    machine: more digits would be noise).

    >>> sig(0.2612), sig(21.6), sig(138.4)
    ('0.26', '22', '138')
    """
    return f"{x:.2g}" if abs(x) < 100 else f"{x:.0f}"


def spread(values: list[float], scale: float = 1.0) -> str:
    """``median [min-max]`` of repeated measurements, two significant digits.

    >>> spread([0.0021, 0.0024, 0.0030], 1000)
    '2.4 [2.1-3]'
    """
    return (
        f"{sig(scale * statistics.median(values))} "
        f"[{sig(scale * min(values))}-{sig(scale * max(values))}]"
    )


def report_games(
    cards: int, games: int, early_target: float, median_target: float, repeats: int
) -> None:
    """Per event of ``games`` full games, ``repeats`` times (the same games): the
    statistics of each run, then their median and spread over the runs."""
    runs = [full_games(cards, games) for _ in range(repeats)]
    ms = 1000
    stats = {
        "mean": [statistics.mean(e) for e, _, _ in runs],
        "median": [statistics.median(e) for e, _, _ in runs],
        "p90": [_p90(e) for e, _, _ in runs],
        "max": [max(e) for e, _, _ in runs],
        "early": [statistics.mean(x) for _, x, _ in runs],
        "wall": [statistics.median(w) for _, _, w in runs],
    }
    events = len(runs[0][0])
    name = f"kwBenchKnowledge{_CARDS[cards]}"
    NUMBERS[name + "Games"] = str(games)
    NUMBERS[name + "Events"] = _latex.fmt(events, 0)
    for key, macro in (("mean", "Mean"), ("median", "Median"), ("p90", "Pninety"),
                       ("max", "Max"), ("early", "EarlyMean")):  # fmt: skip
        NUMBERS[name + macro] = sig(ms * statistics.median(stats[key]))
    print(
        f"  {cards} cards: {events} events, {repeats} runs, ms CPU per event as median "
        f"[min-max] over the runs: whole-game mean {spread(stats['mean'], ms)}, median "
        f"{spread(stats['median'], ms)}, p90 {spread(stats['p90'], ms)}, max "
        f"{spread(stats['max'], ms)} (wall median {spread(stats['wall'], ms)})"
    )
    early, median = ms * statistics.median(stats["early"]), ms * statistics.median(stats["median"])
    print(
        f"    events 1-20: mean {spread(stats['early'], ms)} ms  (targets: mean <= "
        f"{early_target} ms"
        + (f", whole-game median <= {median_target} ms" if median_target else "")
        + "): "
        + _verdict(early <= early_target and (not median_target or median <= median_target))
    )


def grid_worst(players: int, cards: int, games: int, asks: int) -> tuple[float, float]:
    """(time at the deal, worst time) of every player's probabilities, in seconds."""
    deck = _deck(cards)
    at_deal, worst = [], 0.0
    for seed in range(games):
        try:
            game = kw.Game.deal(deck, NAMES[:players], seed=seed)
        except kw.KwartetError:
            return float("nan"), float("nan")
        rng = np.random.default_rng(seed)
        k = kw.knowledge(game)
        for number in range(asks + 1):
            start = _clock()
            for p in game.players:
                k.location_probabilities(p)
            elapsed = _clock() - start
            if number == 0:
                at_deal.append(elapsed)
            worst = max(worst, elapsed)
            if game.is_over:
                break
            game.play(game.random_legal_ask(rng))
    return statistics.median(at_deal), worst


def report_grid(games: int, asks: int, target_ms: float, repeats: int) -> None:
    sizes = [12, 20, 32, 40, 52]
    print(
        f"  worst event in ms (deal and {asks} asks, {games} games each), median of {repeats} "
        "runs [min-max]; at the deal (median) in braces"
    )
    print("  players " + "".join(f"{c:>22} cards" for c in sizes))
    overall = 0.0
    NUMBERS["kwBenchKnowledgeGridGames"] = str(games)
    NUMBERS["kwBenchKnowledgeGridAsks"] = str(asks)
    NUMBERS["kwBenchKnowledgeGridRepeats"] = str(repeats)
    GRID.clear()
    GRID.append(["$p$"] + [f"{c} cards" for c in sizes])
    for players in (3, 4, 5, 6):
        cells, table = [], []
        for cards in sizes:
            runs = [grid_worst(players, cards, games, asks) for _ in range(repeats)]
            deals = [d for d, _ in runs]
            worsts = [w for _, w in runs]
            if any(w != w for w in worsts):  # a deal the rules refuse
                cells.append(f"{'--':>27}")
                table.append("--")
                continue
            worst = statistics.median(worsts)
            overall = max(overall, worst)
            cells.append(
                f"{spread(worsts, 1000):>18} {{{sig(1000 * statistics.median(deals)):>5}}}"
            )
            table.append(
                f"{sig(1000 * worst)} [{sig(1000 * min(worsts))}--{sig(1000 * max(worsts))}]"
            )
            key = f"kwBenchKnowledgeGrid{_PLAYERS[players]}{_CARDS[cards]}"
            NUMBERS[key] = sig(1000 * worst)
            NUMBERS[key + "Deal"] = sig(1000 * statistics.median(deals))
        print(f"  {players:>7} " + "".join(cells))
        GRID.append([str(players)] + table)
    print(
        f"  worst of the grid {sig(1000 * overall)} ms (target <= {target_ms} ms): "
        + _verdict(1000 * overall <= target_ms)
    )


def report_knows_location(repeats: int) -> None:
    game = kw.Game.deal(kw.Deck.piquet(), NAMES[:4], seed=3)
    rng = np.random.default_rng(3)
    for _ in range(10):
        game.play(game.random_legal_ask(rng))
    table_times, all_cards_times = [], []
    for _ in range(repeats):
        k = kw.knowledge(game)
        start = _clock()
        k.location_counts("A")
        table_times.append(_clock() - start)
        k = kw.knowledge(game)
        start = _clock()
        for card in game.deck.cards:
            k.knows_location("A", card)
        all_cards_times.append(_clock() - start)
    one, every = statistics.median(table_times), statistics.median(all_cards_times)
    print(
        f"  32 cards, 10 asks in, {repeats} runs: one location_counts('A') "
        f"{spread(table_times, 1000)} ms; knows_location for all 32 cards "
        f"{spread(all_cards_times, 1000)} ms (ratio of medians {every / one:.2g}; target: no "
        f"dearer than one table): " + _verdict(every <= 1.2 * one)
    )


def report_kernel(games: int, repeats: int) -> None:
    if not counting.kernel_available():
        print("  compiled kernel: not built (the NumPy path answers alone)")
        return
    timings: dict[bool, list[float]] = {True: [], False: []}
    answers = {}
    for _ in range(repeats):  # interleaved: kernel, NumPy, kernel, ...
        for use_kernel in (True, False):
            with counting.options(kernel=use_kernel):
                start = _clock()
                result = []
                for seed in range(games):
                    game = kw.Game.deal(kw.Deck.piquet(), NAMES[:4], seed=seed)
                    rng = np.random.default_rng(seed)
                    k = kw.knowledge(game)
                    for _ in range(20):
                        game.play(game.random_legal_ask(rng))
                        result.append([k.location_counts(p).tolist() for p in game.players])
                timings[use_kernel].append(_clock() - start)
                answers[use_kernel] = result
    same = answers[True] == answers[False]
    ratios = [n / k for k, n in zip(timings[True], timings[False], strict=True)]
    NUMBERS["kwBenchKnowledgeKernelSpeedup"] = sig(statistics.median(ratios))
    print(
        f"  32 cards, 4 players, events 1-20 of {games} games, all players' exact counts, "
        f"{repeats} interleaved runs: kernel {spread(timings[True])} s, NumPy path "
        f"{spread(timings[False])} s (ratio {spread(ratios)}); identical answers: {same}"
    )
    game = kw.Game.deal(kw.Deck.standard(), NAMES[:6], seed=1)
    k = kw.knowledge(game)
    public, mine = k.count_worlds(), k.count_worlds("A")
    counts = k.location_counts("A")
    print(
        f"  52 cards, 6 players at the deal: {public} public worlds ({public.bit_length()} bits),"
        f" {mine} for A ({mine.bit_length()} bits); every row of A's table sums to A's count:"
        f" {all(sum(int(x) for x in row) == mine for row in counts if any(row))}"
    )


def engines_on_16_cards(repeats: int) -> None:
    deck = kw.Deck.piquet(families=4)
    hands: dict[str, list[str]] = {"A": [], "B": [], "C": []}
    for i, card in enumerate(deck.cards):  # 6/5/5 without a complete family
        hands["ABC"[i % 3]].append(card.code)
    game = kw.Game.from_hands(deck, hands, first="A")
    timings: dict[str, list[float]] = {"counting": [], "explicit": []}
    counts: list[int] = []
    for _ in range(repeats):
        for engine in ("counting", "explicit"):
            start = time.perf_counter()
            k = kw.knowledge(game, engine=engine)
            counts = [k.count_worlds()] + [k.count_worlds(p) for p in game.players]
            for p in game.players:
                k.location_probabilities(p)
            timings[engine].append(time.perf_counter() - start)
    for engine in ("counting", "explicit"):
        print(
            f"  16 cards, 3 players, 6/5/5, {engine}: worlds {counts}, {spread(timings[engine])} s"
        )
        NUMBERS[f"kwBenchKnowledgeSixteen{engine.capitalize()}S"] = sig(
            statistics.median(timings[engine])
        )
    ratio = statistics.median(timings["explicit"]) / statistics.median(timings["counting"])
    print(f"  explicit / counting time ratio (medians of {repeats}): {ratio:.2g}x")
    NUMBERS["kwBenchKnowledgeSixteenWorlds"] = _latex.fmt(counts[0], 0)
    NUMBERS["kwBenchKnowledgeSixteenRatio"] = sig(ratio)


def _verdict(ok: bool) -> str:
    return "met" if ok else "NOT met"


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def _commit() -> str:
    try:
        return subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
        ).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "unknown"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20, help="full games per deck size")
    parser.add_argument("--grid-games", type=int, default=2)
    parser.add_argument("--grid-asks", type=int, default=30)
    parser.add_argument("--repeats", type=int, default=5, help="runs of every measurement")
    parser.add_argument("--quick", action="store_true", help="small sizes (CI smoke run)")
    parser.add_argument("--out", type=Path, help="folder for the TeX numbers and grid table")
    args = parser.parse_args()
    if args.quick:
        args.games, args.grid_games, args.grid_asks, args.repeats = 2, 1, 5, 1
    print(
        f"commit {_commit()}, python {platform.python_version()}, {platform.machine()},"
        f" kernel {'built' if counting.kernel_available() else 'not built'}; load {_load()}"
    )
    print("1. Full random games, 4 players: the ask plus all four players' probabilities")
    report_games(32, args.games, 0.7, 0.3, args.repeats)
    report_games(52, args.games, 1.5, 1.5, args.repeats)
    print("2. Every player's probabilities, 3-6 players, 12-52 cards")
    report_grid(args.grid_games, args.grid_asks, 70, args.repeats)
    print("3. knows_location for every card")
    report_knows_location(5 if args.quick else 21)
    print("4. Kernel and NumPy path; exact counts")
    report_kernel(2 if args.quick else 5, args.repeats)
    print("5. The counting and explicit engines on the 16-card deal")
    engines_on_16_cards(args.repeats)
    print(f"load at the end {_load()}")
    if args.out:
        _latex.write_numbers(
            args.out / "bench_knowledge_numbers.tex", "experiments/bench_knowledge.py", NUMBERS
        )
        header, *rows = GRID
        _latex.write_table(
            args.out / "bench_knowledge_table.tex", "experiments/bench_knowledge.py", header, rows
        )


if __name__ == "__main__":
    main()
