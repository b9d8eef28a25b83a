"""The draw-pile benchmark's own-view mode (``experiments/bench_draw_pile.py
--own-view``): it plays the seeded game of random asks and times A's own count on one
kept state; the count it prints is the one a fresh state gives at that position."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.events import Drew

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "bench_draw_pile.py"


def test_own_view_prints_the_count_a_fresh_state_gives() -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(SCRIPT),
            "--draws",
            "4",
            "--agent-games",
            "0",
            "--no-lone",
            "--own-view",
            "--seed",
            "2",
        ],
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )
    line = next(x for x in run.stdout.splitlines() if x.startswith("A's worlds at the end: "))
    printed = int(line.split(": ")[1].split()[0])
    rows = [x.split() for x in run.stdout.splitlines() if x.strip()[:1].isdigit()]
    assert [int(r[0]) for r in rows] == list(range(1, 5))  # a row per number of draws
    rules = kw.RuleSet.preset("fish").replace(cards_each=3)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=2, rules=rules)
    rng = np.random.default_rng(2)
    while sum(isinstance(e, Drew) for e in game.record) < 4:
        game.play(game.random_legal_ask(rng))
    assert printed == kw.knowledge(game).count_worlds("A")


def test_own_view_and_out_are_refused_together() -> None:
    run = subprocess.run(
        [sys.executable, str(SCRIPT), "--own-view", "--out", "somewhere"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 2 and "--own-view" in run.stderr
