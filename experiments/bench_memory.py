"""Memory over long runs: resident memory stays flat over thousands of games.

Two long runs in one process, each sampling the resident memory (``/proc/self/statm``,
else ``getrusage``) as it goes:

1. ``--games`` games (default 20,000) of random play, each player with an epistemic state
   of their own (``kw.knowledge(game)``, one per player, following the game), asked after
   every ask for that player's exact world count and location probabilities; every tenth
   game also builds each player's state from their view alone at the end;
2. a tournament of ``--tournament-games`` games (default 10,000) between four
   ``knowledge`` agents, written to a CSV file as it goes (the file's rows say how far it
   has got; a thread samples the memory).

For each it prints the resident memory at the start, its peak, at the end, and the growth
per 1,000 games over the second half of the run (a least-squares slope, after every
cache has had the first half to fill), with the sizes of the library's module-level
caches at the end.  It asserts the stated bounds: over the second half resident memory
rises at most ``--max-growth`` MiB per 1,000 games (default 2, plus 4 MiB for the
allocator's steps), and the end lies at most ``--max-rise`` MiB above the start
(default 64).  Every cache of the library is bounded; the limits are listed in
``paper/measurements/bench_memory.txt`` with this run's figures (``--save`` writes the
output there).

Run: ``nice -n 10 python experiments/bench_memory.py [--games 20000] [--tournament-games
10000] [--rules publisher,lamas,dutch] [--save]`` (``--games 500`` for a quick look).
"""

from __future__ import annotations

import argparse
import importlib
import os
import resource
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic import game as referee
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.files import atomic_write_text
from kwartet_epistemic.symbolic import structure

OUTPUT = Path(__file__).resolve().parent.parent / "paper" / "measurements" / "bench_memory.txt"
PAGE = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096


def resident_mib() -> float:
    """The process's resident memory now, in MiB (the peak so far where the system
    does not tell the current figure)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[1]) * PAGE / 2**20
    except OSError:
        return peak_mib()


def peak_mib() -> float:
    """The process's peak resident memory so far, in MiB."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 2**20 if sys.platform == "darwin" else peak / 2**10  # bytes on macOS


@dataclass
class Trace:
    """Resident memory samples ``(games done, MiB)`` of one run."""

    label: str
    samples: list[tuple[int, float]] = field(default_factory=list)
    seconds: float = 0.0

    def add(self, games: int) -> None:
        """Record the resident memory after ``games`` games."""
        self.samples.append((games, resident_mib()))

    @property
    def start(self) -> float:
        """Resident MiB before the first game."""
        return self.samples[0][1]

    @property
    def end(self) -> float:
        """Resident MiB after the last game."""
        return self.samples[-1][1]

    @property
    def peak(self) -> float:
        """The largest sample."""
        return max(mib for _, mib in self.samples)

    @property
    def games(self) -> int:
        """Games played."""
        return self.samples[-1][0]

    def growth_per_1000(self) -> float:
        """MiB per 1,000 games over the second half of the run (least squares)."""
        half = [(g, m) for g, m in self.samples if g >= self.games / 2]
        if len(half) < 2 or half[-1][0] == half[0][0]:
            return 0.0
        x = np.array([g for g, _ in half], dtype=float)
        y = np.array([m for _, m in half], dtype=float)
        slope = np.polyfit(x, y, 1)[0]
        return float(slope * 1000)

    def report(self) -> str:
        """The figures as text."""
        rate = self.games / self.seconds if self.seconds else 0.0
        return (
            f"{self.label}: {self.games} games in {self.seconds:.0f} s ({rate:.0f} games/s); "
            f"resident memory start {self.start:.1f} MiB, peak {self.peak:.1f} MiB, end "
            f"{self.end:.1f} MiB ({self.end - self.start:+.1f}); growth over the second half "
            f"{self.growth_per_1000():+.2f} MiB per 1,000 games ({len(self.samples)} samples)"
        )


def random_play(
    games: int,
    presets: Sequence[str],
    families: int,
    players: int,
    every: int,
    seed: int = 0,
) -> Trace:
    """Random games with one epistemic state per player, asked after every ask; the
    presets take turns."""
    deck = kw.Deck.piquet(families=families)
    names = list("ABCDEF"[:players])
    rules = [kw.RuleSet.preset(name) for name in presets]
    trace = Trace(f"random play, {len(deck)} cards, {players} players, {'/'.join(presets)}")
    trace.add(0)
    start = time.perf_counter()
    for number in range(games):
        game = kw.Game.deal(deck, names, seed=seed + number, rules=rules[number % len(rules)])
        rng = np.random.default_rng(seed + number)
        states = {p: kw.knowledge(game) for p in names}
        while not game.is_over:
            game.play(game.random_legal_ask(rng))
            for p, state in states.items():
                state.count_worlds(p)
                state.location_probabilities(p)
        if number % 10 == 0:
            for p in names:
                kw.knowledge(game.view(p)).count_worlds(p)
        if (number + 1) % every == 0 or number + 1 == games:
            trace.add(number + 1)
    trace.seconds = time.perf_counter() - start
    return trace


def knowledge_tournament(games: int, every_seconds: float = 0.25, seed: int = 1) -> Trace:
    """A tournament of four ``knowledge`` agents; a thread samples the memory and reads
    from the CSV file how many games are done."""
    trace = Trace("tournament, 4 x knowledge, 32 cards")
    with tempfile.TemporaryDirectory() as folder:
        out = Path(folder) / "results.csv"
        stop = threading.Event()

        def rows() -> int:
            try:
                return max(0, out.read_bytes().count(b"\n") - 1)
            except OSError:
                return 0

        def sample() -> None:
            while not stop.wait(every_seconds):
                trace.add(rows())

        trace.add(0)
        sampler = threading.Thread(target=sample, daemon=True)
        start = time.perf_counter()
        sampler.start()
        try:
            kw.tournament(["knowledge"] * 4, games=games, seed=seed, out=out)
        finally:
            stop.set()
            sampler.join()
        trace.seconds = time.perf_counter() - start
        trace.add(rows())
    return trace


# The library's module-level caches, by where they live: each reports (entries, bound).
CACHE_REPORTS = {
    "counting": counting.cache_sizes,
    "game": referee.cache_sizes,
    "structure": structure.cache_sizes,
}


def cache_table() -> dict[str, tuple[int, int]]:
    """Every module-level cache now: entries and bound (0: bounded by the decks alive)."""
    return {
        f"{where}: {name}": sizes
        for where, report in CACHE_REPORTS.items()
        for name, sizes in report().items()
    }


def cache_sizes() -> dict[str, int]:
    """Entries in each module-level cache now."""
    return {name: size for name, (size, _) in cache_table().items()}


NOISE_MIB = 4.0
"""Allowance for the allocator's steps (arenas, the sawtooth of caches that are cleared
when full) in the second half's rise: a short run cannot tell a slope from them."""


def second_half_rise(trace: Trace) -> tuple[int, float]:
    """Games in the second half of the run and the rise of resident memory over it
    (from the sample at the half-way point to the end)."""
    half = [(g, m) for g, m in trace.samples if g >= trace.games / 2]
    return half[-1][0] - half[0][0], half[-1][1] - half[0][1]


def check(trace: Trace, max_growth: float, max_rise: float) -> list[str]:
    """The bounds ``trace`` breaks (none if it keeps them): over the second half of the
    run resident memory rises at most ``max_growth`` MiB per 1,000 games (plus
    :data:`NOISE_MIB`), and the end lies at most ``max_rise`` MiB above the start."""
    broken = []
    games, rise = second_half_rise(trace)
    allowed = NOISE_MIB + max_growth * games / 1000
    if rise > allowed:
        broken.append(
            f"{trace.label}: rises {rise:.1f} MiB over the last {games} games (bound "
            f"{allowed:.1f}: {max_growth} per 1,000 games + {NOISE_MIB} MiB)"
        )
    if trace.end - trace.start > max_rise:
        broken.append(
            f"{trace.label}: ends {trace.end - trace.start:.1f} MiB above its start "
            f"(bound {max_rise})"
        )
    return broken


def main(argv: Sequence[str] | None = None, out: Callable[[str], None] = print) -> int:
    """Run both long runs, print the figures and assert the bounds."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=20_000, help="random-play games")
    parser.add_argument(
        "--tournament-games", type=int, default=None, help="default: half of --games"
    )
    parser.add_argument("--rules", default="publisher,lamas,dutch", help="presets, in turn")
    parser.add_argument("--families", type=int, default=8)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--max-growth", type=float, default=2.0, help="MiB per 1,000 games")
    parser.add_argument("--max-rise", type=float, default=64.0, help="MiB, end over start")
    parser.add_argument("--save", action="store_true", help=f"also write the output to {OUTPUT}")
    args = parser.parse_args(argv)
    if args.save:
        lines: list[str] = []
        shown = out

        def out(line: str) -> None:
            shown(line)
            lines.append(line)

        out(
            "$ python experiments/bench_memory.py "
            + " ".join(sys.argv[1:] if argv is None else argv)
        )
    tournament_games = args.games // 2 if args.tournament_games is None else args.tournament_games
    importlib.import_module("kwartet_epistemic.agents")  # loaded before the first sample
    out(
        f"python {sys.version.split()[0]}, numpy {np.__version__}, compiled kernel "
        f"{'on' if counting.current_options().kernel else 'off'}; start "
        f"{resident_mib():.1f} MiB resident"
    )
    every = max(1, args.games // 100)
    traces = [
        random_play(
            args.games, [r.strip() for r in args.rules.split(",")], args.families,
            args.players, every,
        ),
        knowledge_tournament(tournament_games),
    ]  # fmt: skip
    broken: list[str] = []
    for trace in traces:
        out(trace.report())
        broken += check(trace, args.max_growth, args.max_rise)
    out(f"peak resident memory of the process: {peak_mib():.1f} MiB")
    out("module-level caches at the end (entries; bound):")
    for name, (size, limit) in cache_table().items():
        bound = f"{limit:,} entries at most" if limit else "one per deck alive"
        out(f"  {name:<36} {size:>7}   {bound}")
    out(
        f"bounds: over the second half at most {args.max_growth} MiB per 1,000 games "
        f"(+ {NOISE_MIB} MiB), end <= start + {args.max_rise} MiB: "
        + ("kept" if not broken else "BROKEN")
    )
    for line in broken:
        out("  " + line)
    if args.save:
        atomic_write_text(OUTPUT, "\n".join(lines) + "\n")
    assert not broken, "; ".join(broken)
    return 0


if __name__ == "__main__":
    sys.exit(main())
