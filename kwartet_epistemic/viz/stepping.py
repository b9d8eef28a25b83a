"""Step through a game in Jupyter: a slider and a play button over the moves.

The picture for a move is the plain function :func:`stepper_frame` (the transcript line,
each player's world count and one player's heatmap), so it is tested without a browser;
:func:`stepper` only wires it to ipywidgets (the ``notebooks`` or ``test`` extra).

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
>>> _ = game.play(game.legal_asks()[0])
>>> figure = stepper_frame(game, 1, "A")
>>> [float(round(bar.get_width(), 2)) for bar in figure.axes[0].patches]  # log10 worlds
[0.78, 0.95, 0.95, 2.26]
>>> figure.axes[0].get_yticklabels()[-1].get_text()
'public'
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.game import Game
from kwartet_epistemic.viz._style import agent_style
from kwartet_epistemic.viz.heatmap import check_step, plot_heatmap
from kwartet_epistemic.viz.progress import GameProgress, as_progress

if TYPE_CHECKING:
    from matplotlib.figure import Figure

__all__ = ["stepper", "stepper_frame"]


def stepper_frame(source: Game | GameProgress, step: int, player: str | None = None) -> Figure:
    """The stepper's picture after move ``step``: the move in words, a bar per player of
    log10 worlds considered possible (and the public record's), and ``player``'s
    heatmap (default: the first player)."""
    from matplotlib.figure import Figure

    progress = as_progress(source)
    step = check_step(progress, step)
    viewer = progress.players[0] if player is None else player
    progress.player_index(viewer)
    width = max(8.0, 0.3 * len(progress.deck) + 2.6)
    figure = Figure(figsize=(width, 2.2 + 0.42 * len(progress.players)), layout="constrained")
    bars, heat = figure.subplots(1, 2, width_ratios=[1, 4])
    logs = progress.log10_worlds[step]
    names = list(progress.players)
    values = list(logs)
    colours = [agent_style(seat)[0] for seat in range(len(names))]
    public = progress.public_worlds[step]
    if public is not None:
        names.append("public")
        values.append(float(np.log10(public)))
        colours.append("#777777")
    positions = np.arange(len(names))
    bars.barh(positions, values, color=colours, height=0.6)
    bars.set_yticks(positions, names, fontsize=9)
    bars.invert_yaxis()
    top = float(np.nanmax(progress.log10_worlds[0]))
    if progress.public_worlds[0] is not None:
        top = max(top, float(np.log10(progress.public_worlds[0])))
    bars.set_xlim(0, max(top, 1.0) * 1.12)
    for y, value in zip(positions, values, strict=True):
        bars.text(value, y, f" {value:.1f}", va="center", fontsize=7)
    bars.set_xlabel("log10 worlds", fontsize=8)
    bars.set_title("worlds considered possible", fontsize=9, loc="left")
    bars.tick_params(axis="x", labelsize=7)
    for side in ("top", "right"):
        bars.spines[side].set_visible(False)
    plot_heatmap(progress, viewer, step, ax=heat, colorbar=False)
    return figure


def _png(figure: Figure) -> bytes:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=80)
    return buffer.getvalue()


def stepper(source: Game | GameProgress, player: str | None = None) -> Any:
    """An ipywidgets box: play button, slider over the moves, a player chooser, the
    move in words and :func:`stepper_frame` as an image.  Needs ipywidgets.

    The widget's ``.show(step)`` sets the slider; ``.image.value`` holds the PNG shown.
    """
    import ipywidgets as widgets

    progress = as_progress(source)
    viewer = progress.players[0] if player is None else player
    progress.player_index(viewer)
    slider = widgets.IntSlider(value=0, min=0, max=progress.n_steps, description="move",
                               continuous_update=False)  # fmt: skip
    play = widgets.Play(value=0, min=0, max=progress.n_steps, interval=900, description="play")
    widgets.jslink((play, "value"), (slider, "value"))
    chooser = widgets.Dropdown(options=list(progress.players), value=viewer, description="view of")
    line = widgets.HTML()
    image = widgets.Image(format="png")

    def render(_change: object = None) -> None:
        step = int(slider.value)
        text = progress.lines[step] if step else "The deal."
        line.value = f"<b>move {step}/{progress.n_steps}</b>: {_escape(text)}"
        image.value = _png(stepper_frame(progress, step, chooser.value))

    slider.observe(render, names="value")
    chooser.observe(render, names="value")
    render()
    box = widgets.VBox([widgets.HBox([play, slider, chooser]), line, image])
    box.slider, box.chooser, box.image, box.line = slider, chooser, image, line

    def show(step: int) -> None:
        slider.value = int(step)

    box.show = show
    return box


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
