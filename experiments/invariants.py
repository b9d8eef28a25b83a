"""Invariants after every action of many random small games of every rule preset.

For each preset (``publisher``, ``dutch``, ``lamas``, ``fish``) it plays ``--games``
random small games (2 to 4 families, 2 to 4 players, the sizes of
``kwartet_epistemic.invariants.SMALL_SIZES`` in turn; Memory Kwartet and bluffing with
``--options``) and checks after every action that every card lies in exactly one place,
no hand holds a complete or an exposed family, the views agree with the game (and each
player's state built from their view alone with the game's), the scores sum to the
families laid, the actual deal is possible from every view, the rows of location
probabilities sum to 1 and no world count grows without a draw pile (see
:class:`kwartet_epistemic.invariants.InvariantChecker`).  It prints the actions checked
and the failures per invariant with a first example, and exits with status 1 if any
invariant failed.

Run: ``nice -n 10 python experiments/invariants.py [--games 20000] [--jobs 2]
[--deep mover|all|none] [--options]`` (``--games 200`` for a quick look).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable, Sequence

from kwartet_epistemic.invariants import INVARIANTS, InvariantReport, check_random_games
from kwartet_epistemic.parallel import process_pool

OPTIONS: dict[str, tuple[str, dict[str, object]]] = {
    "memory": ("publisher", {"memory_cards": 1}),
    "bluffing": ("lamas", {"bluffing": True}),
    "bonus": ("fish", {"bonus_turn": True}),
}
"""Rule options beyond the presets, checked with ``--options``."""


def _chunk(task: tuple[str, dict[str, object], int, int, str]) -> InvariantReport:
    preset, changes, first, games, deep = task
    return check_random_games(preset, games, first_seed=first, deep=deep, changes=changes or None)


def run(
    preset: str,
    changes: dict[str, object],
    games: int,
    deep: str,
    jobs: int,
    chunk: int = 250,
) -> InvariantReport:
    """The report of ``games`` games of ``preset`` (with rule ``changes``), played in
    chunks on ``jobs`` processes; the same games whatever ``jobs`` is."""
    tasks = [
        (preset, changes, first, min(chunk, games - first), deep)
        for first in range(0, games, chunk)
    ]
    reports: list[InvariantReport]
    if jobs > 1 and len(tasks) > 1:
        with process_pool(jobs) as pool:  # forkserver/spawn, not fork
            reports = pool.map(_chunk, tasks, chunksize=1)
    else:
        reports = [_chunk(task) for task in tasks]
    total = InvariantReport(reports[0].rules if reports else preset)
    for report in reports:
        total.merge(report)
    return total


def describe(report: InvariantReport, seconds: float) -> list[str]:
    """The report as lines of text."""
    lines = [
        f"{report.rules}: {report.games} games, {report.actions} actions checked "
        f"({seconds:.0f} s): "
        + (
            "every invariant held"
            if not report.failures
            else f"{sum(report.failures.values())} failures"
        )
    ]
    for name in INVARIANTS:
        if report.failures[name]:
            game, message = report.examples[name]
            lines.append(
                f"  {name}: {report.failures[name]} failures; first in game {game}: {message}"
            )
    return lines


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    """Check every preset (and the options with ``--options``); 1 if any invariant
    failed, else 0."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="games per preset")
    parser.add_argument("--presets", default="publisher,dutch,lamas,fish")
    parser.add_argument("--options", action="store_true", help="also " + ", ".join(OPTIONS))
    parser.add_argument("--deep", default="mover", choices=("all", "mover", "none"),
                        help="whose state is also rebuilt from their view after each action")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1)
    args = parser.parse_args(argv)
    runs: list[tuple[str, dict[str, object]]] = [
        (name.strip(), {}) for name in args.presets.split(",") if name.strip()
    ]
    if args.options:
        runs += list(OPTIONS.values())
    actions = 0
    failed = False
    for preset, changes in runs:
        start = time.perf_counter()
        report = run(preset, dict(changes), args.games, args.deep, args.jobs)
        for line in describe(report, time.perf_counter() - start):
            out(line)
        actions += report.actions
        failed = failed or bool(report.failures)
    out(f"{actions} actions checked in all; " + ("FAILURES" if failed else "every invariant held"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
