"""The knowledge figures of the paper: one seeded game, move by move.

Four ``knowledge`` players (exact epistemic state, first-order policy) play one 32-card
game with publisher rules (deal seed 14, ``kwartet_epistemic.viz.play_game``).
:func:`kwartet_epistemic.viz.game_progress` replays it and records after every move each
player's exact world count, the public record's count and the cards each player has
located; from that record:

- ``knowledge_progress.png`` / ``.pdf``: log10 of the world counts and the share of the
  hidden cards each player has located, per move (``viz.plot_progress``);
- ``knowledge_timeline.png`` / ``.pdf``: per player and card, the move after which the
  player first knew where the card was (``viz.plot_timeline``);
- ``knowledge_figure_numbers.tex`` (``\\kwFig...``): the game's moves, the world counts
  at the deal and at the end, and the moves at which each player located half and all of
  the hidden cards.

Run from the repository root:  python paper/knowledge_figure.py [--seed 14] [--out DIR]
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic import viz

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "experiments"))
import _latex  # noqa: E402


def main(argv: list[str] | None = None) -> viz.GameProgress:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=14)
    parser.add_argument("--policy", default="knowledge")
    parser.add_argument("--out", default="paper/measurements")
    args = parser.parse_args(argv)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    game = viz.play_game(kw.RuleSet(), kw.Deck.piquet(), "ABCD", seed=args.seed, policy=args.policy)
    progress = viz.game_progress(game)
    title = f"One game of four {args.policy} players (32 cards, seed {args.seed})"
    # At the size they are printed: the text block, and the timeline across a page
    # turned sideways (32 columns of move numbers).
    with _latex.paper_style():
        figure = viz.plot_progress(progress, title=title, figsize=(_latex.TEXT_WIDTH_IN, 4.6))
        for suffix in (".png", ".pdf"):
            figure.savefig(out / f"knowledge_progress{suffix}", dpi=130)
        figure = viz.plot_timeline(progress, figsize=(_latex.SIDEWAYS_WIDTH_IN, 2.6))
        for suffix in (".png", ".pdf"):
            figure.savefig(out / f"knowledge_timeline{suffix}", dpi=130)
    steps = progress.n_steps
    located = progress.known & progress.hidden[None, :, :]  # [step, viewer, card]
    hidden = progress.hidden.sum(axis=1)
    public = progress.public_worlds[0]
    assert public is not None  # counted: no draw pile
    macros = {
        "kwFigSeed": str(args.seed),
        "kwFigMoves": str(steps),
        "kwFigAsksYes": str(sum(k == "yes" for k in progress.kinds)),
        "kwFigAsksNo": str(sum(k == "no" for k in progress.kinds)),
        "kwFigQuartets": str(int(np.asarray(progress.quartet).sum())),
        "kwFigPublicDeal": _latex.fmt(int(public), 0),
        "kwFigPublicDealLog": _latex.fmt(math.log10(public), 1),
        "kwFigWinners": ", ".join(game.winners),
    }
    for v, player in enumerate(progress.players):
        share = located[:, v, :].sum(axis=1) / max(int(hidden[v]), 1)
        macros[f"kwFigWorldsDeal{player}"] = _latex.fmt(int(progress.worlds[0, v]), 0)
        macros[f"kwFigWorldsDealLog{player}"] = _latex.fmt(
            math.log10(int(progress.worlds[0, v])), 1
        )
        half = np.flatnonzero(share >= 0.5)
        macros[f"kwFigHalf{player}"] = str(int(half[0])) if len(half) else "--"
    _latex.write_numbers(out / "knowledge_figure_numbers.tex", "paper/knowledge_figure.py", macros)
    print("\n".join(f"{k} = {v}" for k, v in macros.items()))
    return progress


if __name__ == "__main__":
    main()
