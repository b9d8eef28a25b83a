"""Size of the symbolic engine's law for the 32-card, 4-player game of the benchmarks.

The game is the one of ``experiments/bench_knowledge.py`` (seed 3, random legal asks):
at the deal and 20 asks in, print the number of BDD variables (one-hot origin variables
for the cards whose origin is not yet certain), the number of nodes of the law, the time
to build the knowledge structure, and the world count it gives.

Also writes ``paper/measurements/symbolic_law_size_numbers.tex`` (``\\kwLaw...``: variables,
law nodes and worlds at the deal and 20 asks in; ``--out DIR`` for another folder).

Run from the repository root:  python paper/symbolic_law_size.py [--out DIR]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.symbolic import SymbolicKwartet

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))
import _latex  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default="paper/measurements")
    args = parser.parse_args()
    macros = {"kwLawSeed": "3", "kwLawLateAsks": "20"}
    for asks in (0, 20):
        game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
        rng = np.random.default_rng(3)
        for _ in range(asks):
            game.play(game.random_legal_ask(rng))
        state = kw.knowledge(game, engine="symbolic")
        start = time.perf_counter()
        structure = SymbolicKwartet(state)
        seconds = time.perf_counter() - start
        worlds = structure.count_worlds(None)
        assert worlds == kw.knowledge(game, engine="counting").count_worlds()
        print(
            f"32 cards, 4 players, {asks:2d} asks in: {len(structure.names)} variables, "
            f"law {len(structure.law):,} BDD nodes, built in {seconds:.2f} s, "
            f"{worlds:,} worlds"
        )
        key = "kwLawDeal" if asks == 0 else "kwLawLate"
        macros[key + "Variables"] = _latex.fmt(len(structure.names), 0)
        macros[key + "Nodes"] = _latex.fmt(len(structure.law), 0)
        macros[key + "Worlds"] = _latex.fmt(worlds, 0)
    _latex.write_numbers(
        Path(args.out) / "symbolic_law_size_numbers.tex", "paper/symbolic_law_size.py", macros
    )


if __name__ == "__main__":
    main()
