"""``search`` against a tuned ISMCTS over decision budgets from 10 ms to 1 s.

1. *Tuning.*  OpenSpiel's ISMCTS has two settings that matter here: the UCT constant
   (``uct_c``; returns are win shares in [0, 1]) and how the final move is chosen (most
   visits or highest value).  Each combination of ``--uct`` and ``--final`` plays
   ``--tune-games`` seat-rotated games, two seats against two ``knowledge:facts`` players,
   at ``--tune-ms``; the best by win share is the tuned ISMCTS.
2. *Budget curves.*  At every budget of ``--budgets`` (ms per decision, wall clock, the
   same for both), two ``search`` seats play two seats of the tuned ISMCTS
   (``--games`` seat-rotated games per budget): each side's win share with its 95%
   interval, and the time each really spent per decision.

The games are ``experiments/openspiel_match.py``'s (its ``play``): each budget's rows go
to ``search_budget_<ms>.csv`` in ``--out`` as games finish, and a run started again
continues.  Timings are wall-clock budgets: run it with nothing else on the machine.

Writes ``search_budget.txt``, ``search_budget.csv`` (one row per budget),
``search_budget_numbers.tex`` (``\\kwBudget...``) and ``search_budget.pdf``/``.png``.

Run from the repository root:
    nice -n 5 python experiments/search_budget.py --jobs 2 --out paper/measurements
"""

from __future__ import annotations

import argparse
import csv
import os
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402
import openspiel_match  # noqa: E402

from kwartet_epistemic.files import read_csv_rows  # noqa: E402
from kwartet_epistemic.parallel import process_pool  # noqa: E402
from kwartet_epistemic.tournament import arrangements  # noqa: E402

SEARCH = "search"
REFERENCE = "knowledge:facts"
WORDS = {10: "Ten", 30: "Thirty", 100: "Hundred", 300: "ThreeHundred", 1000: "Thousand"}


def ismcts_spec(uct: float, final: str) -> str:
    return f"openspiel:ismcts[uct_c={uct:g},final={final}]"


def play_match(
    a: str, b: str, ms: float, games: int, seed: int, jobs: int, path: Path, b_as_is: bool = False
) -> list[dict[str, str]]:
    """``games`` seat-rotated games of two ``a`` seats against two ``b`` seats at ``ms``
    per decision (``b`` untimed with ``b_as_is``), resumed from ``path``."""
    spec_a = openspiel_match.with_ms(a, ms)
    spec_b = b if b_as_is else openspiel_match.with_ms(b, ms)
    rows = read_csv_rows(path) if path.exists() else []
    done = {int(r["game"]) for r in rows}
    seatings = arrangements([spec_a, spec_a, spec_b, spec_b])
    tasks = [
        (k, seed * 1_000_003 + k, tuple(seatings[k % len(seatings)]), ms, spec_a, spec_b)
        for k in range(games)
        if k not in done
    ]
    if tasks:
        new = not path.exists()
        with path.open("a", newline="") as handle:
            writer = csv.DictWriter(handle, openspiel_match.COLUMNS)
            if new:
                writer.writeheader()
            with process_pool(max(1, jobs)) as pool:
                for row in pool.imap_unordered(openspiel_match.play, tasks):
                    writer.writerow(row)
                    handle.flush()
        rows = read_csv_rows(path)
    return [r for r in rows if int(r["game"]) < games]


def side(rows: list[dict[str, str]], spec: str, key: str) -> dict[str, float]:
    """A side's win share with its interval, and its wall ms per decision."""
    share, low, high = openspiel_match.interval([openspiel_match.share(r, spec) for r in rows])
    decisions = sum(int(r[f"decisions_{key}"]) for r in rows)
    wall = 1000 * sum(float(r[f"wall_{key}"]) for r in rows) / max(decisions, 1)
    return {"share": share, "low": low, "high": high, "wall_ms": wall}


def figure(budgets: list[dict[str, Any]], out: Path) -> None:
    """Win share of each side against the budget (log scale), with 95% intervals."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import FuncFormatter

    with _latex.paper_style():
        fig, ax = plt.subplots(figsize=(_latex.TEXT_WIDTH_IN, 2.8))
        xs = [b["ms"] for b in budgets]
        for name, colour in (("search", "C1"), ("ismcts", "C0")):
            ys = [b[f"{name}_share"] for b in budgets]
            low = [b[f"{name}_share"] - b[f"{name}_low"] for b in budgets]
            high = [b[f"{name}_high"] - b[f"{name}_share"] for b in budgets]
            label = "search" if name == "search" else "ISMCTS, tuned"
            ax.errorbar(xs, ys, yerr=[low, high], marker="o", capsize=3, color=colour,
                        label=label)  # fmt: skip
        ax.axhline(0.25, color="grey", linestyle="--", linewidth=0.8, label="even")
        ax.set_xscale("log")
        ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _: f"{v:g}"))
        ax.set_xticks(xs)
        ax.set_xlabel("decision budget (ms, wall clock, both sides)")
        ax.set_ylabel("win share per seat")
        ax.legend()
        ax.grid(alpha=0.3)
        for ext in ("png", "pdf"):
            fig.savefig(out / f"search_budget.{ext}", dpi=150)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> list[dict[str, Any]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=float, nargs="+", default=[10, 30, 100, 300, 1000])
    parser.add_argument("--games", type=int, default=48, help="games per budget (x6 seatings)")
    parser.add_argument("--uct", type=float, nargs="+", default=[0.35, 0.7, 1.4])
    parser.add_argument("--final", nargs="+", default=["visits", "value"])
    parser.add_argument("--tune-ms", type=float, default=100)
    parser.add_argument("--tune-games", type=int, default=36)
    parser.add_argument("--seed", type=int, default=17)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--quick", action="store_true", help="two budgets, six games each")
    parser.add_argument("--out", type=Path, default=Path("paper/measurements"))
    args = parser.parse_args(argv)
    if args.quick:
        args.budgets, args.games, args.uct, args.final = [10, 30], 6, [0.7], ["visits"]
        args.tune_ms, args.tune_games = 10, 6
    out = args.out
    (out / "search_budget").mkdir(parents=True, exist_ok=True)
    start = time.time()
    lines = [line.lstrip("% ") for line in _latex.provenance("experiments/search_budget.py")[1:]]
    lines.append(f"1. tuning at {args.tune_ms:g} ms, two seats against two {REFERENCE}:")
    best: tuple[float, str] | None = None
    best_share = -1.0
    for uct in args.uct:
        for final in args.final:
            spec = ismcts_spec(uct, final)
            path = out / "search_budget" / f"tune_{uct:g}_{final}.csv"
            rows = play_match(spec, REFERENCE, args.tune_ms, args.tune_games, args.seed,
                              args.jobs, path, b_as_is=True)  # fmt: skip
            mine = side(rows, openspiel_match.with_ms(spec, args.tune_ms), "a")
            lines.append(f"  {spec:44} {mine['share']:.3f} [{mine['low']:.3f}, {mine['high']:.3f}]")
            if mine["share"] > best_share:
                best, best_share = (uct, final), mine["share"]
    assert best is not None
    tuned = ismcts_spec(*best)
    lines.append(f"  tuned: {tuned}")
    lines.append(f"2. {SEARCH} against {tuned}, two seats each, {args.games} games per budget:")
    budgets = []
    for ms in args.budgets:
        path = out / "search_budget" / f"budget_{ms:g}.csv"
        rows = play_match(SEARCH, tuned, ms, args.games, args.seed + 1, args.jobs, path)
        s = side(rows, openspiel_match.with_ms(SEARCH, ms), "a")
        i = side(rows, openspiel_match.with_ms(tuned, ms), "b")
        budgets.append({"ms": ms, "games": len(rows),
                        **{f"search_{k}": v for k, v in s.items()},
                        **{f"ismcts_{k}": v for k, v in i.items()}})  # fmt: skip
        lines.append(
            f"  {ms:6g} ms: search {s['share']:.3f} [{s['low']:.3f}, {s['high']:.3f}] "
            f"({s['wall_ms']:.0f} ms a decision), ISMCTS {i['share']:.3f} "
            f"[{i['low']:.3f}, {i['high']:.3f}] ({i['wall_ms']:.0f} ms), {len(rows)} games"
        )
    lines.append(f"{time.time() - start:.0f} s wall; load at the end "
                 + ", ".join(f"{x:.2f}" for x in os.getloadavg()))  # fmt: skip
    with (out / "search_budget.csv").open("w", newline="") as handle:
        writer = csv.DictWriter(handle, list(budgets[0]))
        writer.writeheader()
        writer.writerows(budgets)
    figure(budgets, out)
    macros = {"kwBudgetTuned": _latex.escape(tuned), "kwBudgetGames": str(args.games)}
    for b in budgets:
        word = WORDS.get(int(b["ms"]))
        if word:
            macros[f"kwBudget{word}Search"] = _latex.fmt(b["search_share"], 3)
            macros[f"kwBudget{word}Ismcts"] = _latex.fmt(b["ismcts_share"], 3)
    _latex.write_numbers(out / "search_budget_numbers.tex", "experiments/search_budget.py", macros)
    text = "\n".join(lines) + "\n"
    (out / "search_budget.txt").write_text(text)
    print(text, end="")
    return budgets


if __name__ == "__main__":
    main()
