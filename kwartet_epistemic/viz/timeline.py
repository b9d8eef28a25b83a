"""The knowledge timeline: for each player and card, the move after which the player
first knew where the card was.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> first = knowledge_timeline(game)
>>> first[0].tolist()  # A: own cards at the deal, 7D after move 1, the rest never
[0, -1, 1, -1, 0, -1, -1, -1]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from kwartet_epistemic.game import Game
from kwartet_epistemic.viz._style import card_label, family_spans
from kwartet_epistemic.viz.progress import GameProgress, as_progress

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["knowledge_timeline", "plot_timeline"]


def knowledge_timeline(source: Game | GameProgress) -> np.ndarray:
    """``[player, card]``: the first move (0 = the deal) after which the player knew
    where the card was, or -1 if they never did.  The same moments as
    :meth:`EpistemicState.timeline`, counted in moves instead of record events."""
    progress = as_progress(source)
    known = progress.known  # [step, player, card]
    ever = known.any(axis=0)
    first = np.argmax(known, axis=0)
    return np.where(ever, first, -1)


def plot_timeline(
    source: Game | GameProgress,
    *,
    ax: Axes | None = None,
    figsize: tuple[float, float] | None = None,
) -> Figure:
    """For each player (rows) and card (columns, grouped by family): the move after which
    the player first knew where the card was, as a colour and a number; blank where they
    never knew, "·" for cards they held at the deal.  Text is set at Matplotlib's
    ``font.size`` (a figure for print sets it in an ``rc_context``); ``figsize`` (inches)
    replaces the size fitted to the deck.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> figure = plot_timeline(game)
    >>> figure.axes[0].get_images()[0].get_array().shape
    (3, 8)
    """
    from matplotlib import colormaps
    from matplotlib.figure import Figure

    progress = as_progress(source)
    first = knowledge_timeline(progress)
    deck = progress.deck
    from matplotlib import rcParams

    size = float(rcParams["font.size"])
    if ax is None:
        fitted = (max(6.0, 0.3 * len(deck) + 1.6), 0.42 * len(progress.players) + 1.7)
        ax = Figure(figsize=figsize or fitted, layout="constrained").add_subplot()
    cmap = colormaps["viridis_r"].with_extremes(bad="white")
    shown = np.ma.masked_less(first.astype(float), 1)  # deal knowledge and never: no colour
    last = max(progress.n_steps, 1)
    image = ax.imshow(shown, cmap=cmap, vmin=1, vmax=last, aspect="auto", interpolation="nearest")
    ax.set_yticks(range(len(progress.players)), progress.players, fontsize=size)
    # Narrow columns (under 0.3 inch): the labels turn upright, so that they do not collide.
    width = ax.get_figure().get_size_inches()[0] / max(len(deck), 1)  # type: ignore[union-attr]
    ax.set_xticks(range(len(deck)), [card_label(c) for c in deck.cards], fontsize=size,
                  rotation=90 if width < 0.3 else 0)  # fmt: skip
    ax.tick_params(length=0)
    spans = family_spans(deck)
    top = ax.secondary_xaxis("top")
    top.set_xticks([(a + b) / 2 for a, b, _ in spans], [t for _, _, t in spans], fontsize=size)
    top.tick_params(length=0, pad=1)
    for first_column, _, _ in spans[1:]:
        ax.axvline(first_column - 0.5, color="#888888", linewidth=1.2)
    for row in range(1, len(progress.players)):
        ax.axhline(row - 0.5, color="#DDDDDD", linewidth=0.8)
    for side in ax.spines.values():
        side.set_color("#BBBBBB")
    for r in range(first.shape[0]):
        for c in range(first.shape[1]):
            step = int(first[r, c])
            if step < 0:
                continue
            text = "·" if step == 0 else str(step)
            light = step > 0 and step < 0.45 * last  # dark end of viridis_r is late
            ax.text(c, r, text, ha="center", va="center", fontsize=size,
                    color="#222222" if (step == 0 or light) else "white")  # fmt: skip
    owner = ax.get_figure()
    assert owner is not None
    bar = owner.colorbar(image, ax=ax, fraction=0.03, pad=0.01)
    bar.set_label("move first known", fontsize=size)
    bar.ax.tick_params(labelsize=size)
    never = int((first < 0).sum())
    unknown = (
        f"blank = never known: {never} of {first.size}"
        if never
        else "every card became known to every player"
    )
    ax.set_title(
        f"When each player first knew where each card was ({progress.n_steps} moves)\n"
        f"· = own card at the deal; {unknown}",
        fontsize=size,
        loc="left",
    )
    return owner  # type: ignore[return-value]
