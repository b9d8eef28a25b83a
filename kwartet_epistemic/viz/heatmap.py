"""Location heatmaps: one player's exact probabilities of where each card is.

Columns are the cards, grouped by family; rows are the players (and the stock or other
piles where the rules have them).  A filled dot marks a location the player knows, a
grey column a family already laid down as a quartet.  :func:`heatmap_animation` writes
a sequence of them, one frame per move, as an animated GIF.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
>>> figure = plot_heatmap(game, "A")
>>> image = figure.axes[0].get_images()[0].get_array()
>>> image.shape, float(image[0, game.hand("A")[0].index])
((3, 8), 1.0)
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.files import atomic_path
from kwartet_epistemic.game import Game
from kwartet_epistemic.viz._style import card_label, family_spans
from kwartet_epistemic.viz.progress import GameProgress, as_progress

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = ["heatmap_animation", "heatmap_values", "plot_heatmap"]

_CMAP = "Blues"


def heatmap_values(progress: GameProgress, player: str, step: int) -> np.ndarray:
    """``[rows, cards]``: ``player``'s probability that each row (players in seat order,
    then one "piles" row when the rules have a stock or set-aside cards) holds each card
    after move ``step``; exposed cards are NaN.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> heatmap_values(kw.viz.game_progress(game), "B", 0).sum(axis=0).round(6).tolist()
    [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    """
    seat = progress.player_index(player)
    step = check_step(progress, step)
    values = progress.probabilities[step, seat].T.copy()  # [holder, card]
    if has_piles(progress):
        values = np.vstack([values, np.clip(1.0 - values.sum(axis=0), 0.0, 1.0)])
    values[:, progress.exposed[step]] = np.nan
    return values


def has_piles(progress: GameProgress) -> bool:
    """Whether the rules put cards in no hand (a stock, set-aside or middle cards)."""
    return bool(progress.rules.draw_pile or progress.rules.dealing == "equal"
                or progress.rules.memory_cards)  # fmt: skip


def check_step(progress: GameProgress, step: int | None) -> int:
    """``step`` if it is a step of ``progress`` (None: the last), else KwartetError."""
    if step is None:
        return progress.n_steps
    if (
        not isinstance(step, int | np.integer)
        or not -progress.n_steps - 1 <= step <= progress.n_steps
    ):
        raise KwartetError(f"step {step!r}: expected a move number 0..{progress.n_steps}")
    return int(step) % (progress.n_steps + 1)


class _Heatmap:
    """The artists of one heatmap, updated in place from frame to frame."""

    def __init__(self, ax: Axes, progress: GameProgress, player: str) -> None:
        from matplotlib import colormaps

        self.ax, self.progress, self.player = ax, progress, player
        deck = progress.deck
        rows = list(progress.players) + (["piles"] if has_piles(progress) else [])
        self.rows = rows
        n_cards = len(deck)
        cmap = colormaps[_CMAP].with_extremes(bad="#DDDDDD")
        self.image = ax.imshow(
            np.zeros((len(rows), n_cards)), cmap=cmap, vmin=0.0, vmax=1.0, aspect="auto",
            interpolation="nearest",
        )  # fmt: skip
        ax.set_yticks(range(len(rows)), rows, fontsize=9)
        ax.set_xticks(range(n_cards), [card_label(c) for c in deck.cards], fontsize=7)
        ax.tick_params(axis="x", length=0, pad=2)
        ax.tick_params(axis="y", length=0)
        spans = family_spans(deck)
        # Family names on a top axis, so that the title is placed above them.
        top = ax.secondary_xaxis("top")
        top.set_xticks([(first + last) / 2 for first, last, _ in spans],
                       [title for _, _, title in spans], fontsize=8)  # fmt: skip
        top.tick_params(length=0, pad=1)
        top.spines["top"].set_visible(False)
        for first, _, _ in spans[1:]:
            ax.axvline(first - 0.5, color="white", linewidth=3)
        for row in range(1, len(rows)):
            ax.axhline(row - 0.5, color="white", linewidth=0.8)
        for side in ax.spines.values():
            side.set_visible(False)
        self.known = ax.scatter([], [], marker="o", s=28, color="#F2D64B",
                                edgecolors="#333333", linewidths=0.8, zorder=3, gid="known")  # fmt: skip
        self.cells = [
            [ax.text(c, r, "", ha="center", va="center", fontsize=6.5, zorder=4)
             for c in range(n_cards)]
            for r in range(len(rows))
        ]  # fmt: skip
        self.title = ax.set_title("", fontsize=9, loc="left")
        middle = (len(rows) - 1) / 2
        self.quartets = [
            ax.text((first + last) / 2, middle, "", ha="center", va="center", fontsize=8,
                    color="#555555", rotation=90 if len(rows) > 4 else 0, zorder=4)
            for first, last, _ in spans
        ]  # fmt: skip
        self.spans = spans

    def show(self, step: int) -> None:
        progress = self.progress
        seat = progress.player_index(self.player)
        values = heatmap_values(progress, self.player, step)
        self.image.set_data(np.ma.masked_invalid(values))
        known_cells = []
        for c in range(values.shape[1]):
            for r in range(values.shape[0]):
                value = values[r, c]
                text = ""
                if not np.isnan(value) and 0.005 <= value <= 0.995:
                    text = f"{value * 100:.0f}"
                cell = self.cells[r][c]
                cell.set_text(text)
                cell.set_visible(bool(text))  # empty texts still cost a layout per frame
                cell.set_color("white" if value > 0.6 else "#222222")
                if (
                    progress.known[step, seat, c]
                    and not progress.exposed[step, c]
                    and value > 0.999
                ):
                    known_cells.append((c, r))
        self.known.set_offsets(np.array(known_cells, dtype=float).reshape(-1, 2))
        for label, (first, _, _) in zip(self.quartets, self.spans, strict=True):
            label.set_text("quartet\non the table" if progress.exposed[step, first] else "")
            label.set_visible(bool(progress.exposed[step, first]))
        line = progress.lines[step].replace("\n", " ") if step else "the deal"
        if len(line) > 120:
            line = line[:117] + "..."
        located = progress.known_share[step, seat]
        self.title.set_text(
            f"What {self.player} believes after move {step} of {progress.n_steps} "
            f"({located:.0%} of the cards hidden from {self.player} located)\n{line}"
        )


def plot_heatmap(
    source: Game | GameProgress,
    player: str,
    step: int | None = None,
    *,
    ax: Axes | None = None,
    colorbar: bool = True,
) -> Figure:
    """``player``'s location probabilities after move ``step`` (default: the last),
    cards grouped by family, known locations dotted, quartets on the table grey; cell
    numbers are percentages.
    """
    from matplotlib.figure import Figure

    progress = as_progress(source)
    step = check_step(progress, step)
    if ax is None:
        ax = Figure(figsize=(_width(progress), 0.42 * len(progress.players) + 1.5),
                    layout="constrained").add_subplot()  # fmt: skip
    heatmap = _Heatmap(ax, progress, player)
    heatmap.show(step)
    figure = ax.get_figure()
    assert figure is not None
    if colorbar:
        bar = figure.colorbar(heatmap.image, ax=ax, fraction=0.03, pad=0.01)
        bar.set_label("probability", fontsize=8)
        bar.ax.tick_params(labelsize=7)
    return figure  # type: ignore[return-value]


def _width(progress: GameProgress) -> float:
    return max(6.0, 0.3 * len(progress.deck) + 1.6)


def heatmap_animation(
    source: Game | GameProgress,
    player: str,
    path: str | Path,
    *,
    fps: int = 2,
    dpi: int = 80,
    progress_bar: bool = False,
) -> Path:
    """Write ``player``'s heatmap after every move as an animated GIF at ``path`` (the
    last frame is held a little longer); returns the path.  The GIF is written to a
    temporary file beside ``path`` and renamed over it when complete, so a stop leaves
    the old file or the new one, never half a GIF.

    >>> import kwartet_epistemic as kw, tempfile, pathlib
    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> _ = game.play(game.legal_asks()[0])
    >>> gif = heatmap_animation(game, "A", pathlib.Path(tempfile.mkdtemp()) / "a.gif")
    >>> gif.read_bytes()[:6]
    b'GIF89a'
    """
    from matplotlib.animation import PillowWriter
    from matplotlib.figure import Figure

    progress = as_progress(source)
    progress.player_index(player)
    target = Path(path)
    if target.suffix.lower() != ".gif":
        raise KwartetError(f"heatmap_animation writes a GIF: {str(path)!r} should end in .gif")
    figure = Figure(figsize=(_width(progress), 0.42 * len(progress.players) + 1.5),
                    layout="constrained")  # fmt: skip
    ax = figure.add_subplot()
    heatmap = _Heatmap(ax, progress, player)
    bar = figure.colorbar(heatmap.image, ax=ax, fraction=0.03, pad=0.01)
    bar.set_label("probability", fontsize=8)
    bar.ax.tick_params(labelsize=7)
    hold = max(1, int(round(fps * 2)))
    frames: list[int] = list(range(progress.n_steps + 1)) + [progress.n_steps] * hold
    bar_frames: Any = frames
    if progress_bar:
        from tqdm.auto import tqdm

        bar_frames = tqdm(frames, desc=f"heatmap GIF ({player})", unit="frame")

    heatmap.show(progress.n_steps)  # the longest title: lay the figure out once for it
    figure.draw_without_rendering()
    figure.set_layout_engine("none")  # keep that layout: re-solving it per frame is slow
    target.parent.mkdir(parents=True, exist_ok=True)
    # The writer's own loop: FuncAnimation.save would draw every frame twice.
    writer = PillowWriter(fps=fps)
    with atomic_path(target) as temporary, writer.saving(figure, str(temporary), dpi):
        for step in bar_frames:
            heatmap.show(step)
            writer.grab_frame()
    return target
