"""Agent strength: the seat-rotated tournaments, with 95% intervals.

Four players, 32 cards, publisher rules, every seating equally often (a multiple of the
number of seatings is used), games seeded from one tournament seed each (replayable from
the CSV rows, which are written as games finish, so an interrupted run resumes):

1. ``knowledge`` (exact) against three ``defensive:facts``: its win share must exceed a
   quarter with the 95% interval above 0.25;
2. ``knowledge`` (exact) against ``knowledge:facts``, two against two: exact must win more;
3. ``higher_order`` against ``knowledge``, two against two;
4. ``search`` against ``knowledge``, two against two;
5. ``search`` against ``higher_order``, two against two.

"Beats" means a higher win share with the two 95% intervals apart.  The figures are
printed as measured; nothing here is tuned to pass.

Besides the CSV files, ``--out`` receives ``strength_numbers.tex`` (``\\kwStrength...``:
per experiment ``One`` .. ``Five`` the games and each side's win share with its 95%
interval, e.g. ``\\kwStrengthTwoFirstShare``) and ``strength_table.tex`` for the paper,
for the experiments of this run (the others' CSVs resume in a second).

Run: ``python experiments/strength.py [--games 2000] [--jobs 2] [--only 1,3] [--out DIR]``
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import kwartet_epistemic as kw
from kwartet_epistemic.tournament import arrangements

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

WORDS = {1: "One", 2: "Two", 3: "Three", 4: "Four", 5: "Five"}

EXPERIMENTS = {
    1: ("knowledge vs three defensive:facts", ["knowledge", "defensive:facts", "defensive:facts", "defensive:facts"]),
    2: ("knowledge exact vs knowledge facts", ["knowledge", "knowledge:facts", "knowledge", "knowledge:facts"]),
    3: ("higher_order vs knowledge", ["higher_order", "knowledge", "higher_order", "knowledge"]),
    4: ("search vs knowledge", ["search", "knowledge", "search", "knowledge"]),
    5: ("search vs higher_order", ["search", "higher_order", "search", "higher_order"]),
}  # fmt: skip


def verdict(number: int, result: kw.TournamentResult) -> str:
    rows = {row.agent: row for row in result.summary()}
    first, second = list(rows.values())[:2]
    if number == 1:
        low = rows["knowledge"].win_interval[0]
        share = rows["knowledge"].win_share
        ok = share > 0.25 and low > 0.25
        return (
            f"knowledge win share {share:.3f}, interval low {low:.3f}: {'met' if ok else 'NOT met'}"
        )
    apart = first.win_interval[0] > second.win_interval[1]
    ahead = first.win_share > second.win_share
    state = (
        "beats (intervals apart)"
        if apart
        else ("ahead, intervals overlap" if ahead else "does NOT beat")
    )
    return f"{first.agent} {first.win_share:.3f} vs {second.agent} {second.win_share:.3f}: {state}"


def latex_numbers(results: dict[int, kw.TournamentResult], folder: Path) -> None:
    """Write ``strength_numbers.tex`` and ``strength_table.tex`` for ``results``."""
    macros: dict[str, str] = {}
    rows = []
    for number, result in sorted(results.items()):
        first, second = result.summary()[:2]
        word = WORDS[number]
        macros[f"kwStrength{word}Games"] = _latex.fmt(len(result.games), 0)
        cells = [str(number), _latex.fmt(len(result.games), 0)]
        for side, row in (("First", first), ("Second", second)):
            macros[f"kwStrength{word}{side}Agent"] = _latex.escape(row.agent)
            macros[f"kwStrength{word}{side}Share"] = _latex.fmt(row.win_share, 3)
            macros[f"kwStrength{word}{side}CI"] = _latex.interval(*row.win_interval)
            cells += [
                "\\texttt{" + _latex.escape(row.agent) + "}",
                _latex.fmt(row.win_share, 3),
                _latex.interval(*row.win_interval),
            ]
        rows.append(cells)
    _latex.write_numbers(folder / "strength_numbers.tex", "experiments/strength.py", macros)
    _latex.write_table(
        folder / "strength_table.tex",
        "experiments/strength.py",
        ["", "games", "first agent", "win share", "95\\%", "second agent", "win share", "95\\%"],
        rows,
        align="rrlrrlrr",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=2000)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=2026)
    parser.add_argument("--only", default="", help="comma-separated experiment numbers")
    parser.add_argument("--out", default="strength_results", help="folder for the CSV files")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args()
    chosen = [int(x) for x in args.only.split(",") if x.strip()] or list(EXPERIMENTS)
    folder = Path(args.out)
    folder.mkdir(parents=True, exist_ok=True)
    results: dict[int, kw.TournamentResult] = {}
    for number in chosen:
        title, agents = EXPERIMENTS[number]
        seatings = len(arrangements(agents))
        games = -(-args.games // seatings) * seatings  # every seating equally often
        start = time.perf_counter()
        result = kw.tournament(
            agents, games=games, seed=args.seed + number, jobs=args.jobs,
            out=folder / f"experiment_{number}.csv", progress=args.progress,
        )  # fmt: skip
        elapsed = time.perf_counter() - start
        print(
            f"== {number}. {title}: {len(result.games)} games, {seatings} seatings "
            f"({elapsed:.0f} s this run)"
        )
        print(result.table())
        print(f"-> {verdict(number, result)}")
        print(flush=True)
        results[number] = result
        latex_numbers(results, folder)


if __name__ == "__main__":
    main()
