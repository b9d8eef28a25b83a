"""Heatmaps and their GIF, the stepper (its drawing as a function of the move, and the
widget without a browser), and how games, views and states show themselves in Jupyter."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import matplotlib
import numpy as np
import pytest
from PIL import Image

import kwartet_epistemic as kw
from kwartet_epistemic.viz import (
    game_progress,
    heatmap_animation,
    plot_heatmap,
    stepper,
    stepper_frame,
)
from kwartet_epistemic.viz.heatmap import heatmap_values
from kwartet_epistemic.viz.many import play_game

matplotlib.use("Agg")


@pytest.fixture(scope="module")
def progress() -> kw.viz.GameProgress:
    return game_progress(play_game(kw.RuleSet(), kw.Deck.piquet(families=4), "ABC", seed=3))


def test_heatmap_shows_the_players_probabilities_with_quartets_blank(
    progress: kw.viz.GameProgress,
) -> None:
    step = progress.n_steps // 2
    figure = plot_heatmap(progress, "B", step)
    image = figure.axes[0].get_images()[0].get_array()
    expected = progress.probabilities[step, 1].T
    exposed = progress.exposed[step]
    assert image.shape == (3, 16)
    assert np.ma.getmaskarray(image)[:, exposed].all()
    assert np.allclose(np.ma.filled(image, -1)[:, ~exposed], expected[:, ~exposed])
    dots = figure.axes[0].collections[0].get_offsets()
    wanted = {
        (c, int(np.argmax(expected[:, c])))
        for c in range(16)
        if progress.known[step, 1, c] and not exposed[c]
    }
    assert {(int(x), int(y)) for x, y in dots} == wanted
    numbers = [t.get_text() for t in figure.axes[0].texts if t.get_visible() and t.get_text()]
    uncertain = expected[:, ~exposed]
    assert len([n for n in numbers if n.isdigit()]) == int(
        ((uncertain >= 0.005) & (uncertain <= 0.995)).sum()
    )


def test_heatmap_rows_add_up_and_a_draw_pile_gets_a_row_of_its_own() -> None:
    rules = kw.RuleSet.preset("fish").replace(cards_each=4)
    fish = game_progress(play_game(rules, kw.Deck.piquet(families=4), "ABC", seed=1))
    values = heatmap_values(fish, "A", 0)
    assert values.shape == (4, 16)
    assert np.allclose(values.sum(axis=0), 1.0)
    assert values[3].sum() == pytest.approx(4.0)  # the stock holds 4 cards
    with pytest.raises(kw.KwartetError, match="step 99"):
        heatmap_values(fish, "A", 99)


def test_heatmap_gif_has_a_frame_per_move(progress: kw.viz.GameProgress, tmp_path: Path) -> None:
    path = heatmap_animation(progress, "A", tmp_path / "a.gif")
    with Image.open(path) as gif:
        assert gif.format == "GIF"
        assert gif.n_frames == progress.n_steps + 1  # the held last frame merges
    with pytest.raises(kw.KwartetError, match="end in .gif"):
        heatmap_animation(progress, "A", tmp_path / "a.mp4")


def test_stepper_frame_is_a_function_of_the_move(progress: kw.viz.GameProgress) -> None:
    for step in (0, 5, progress.n_steps):
        figure = stepper_frame(progress, step, "C")
        bars, heat = figure.axes
        widths = [bar.get_width() for bar in bars.patches]
        expected = [*progress.log10_worlds[step], np.log10(progress.public_worlds[step])]
        assert np.allclose(widths, expected)
        image = heat.get_images()[0].get_array()
        assert np.allclose(
            np.ma.filled(image, -1), np.nan_to_num(heatmap_values(progress, "C", step), nan=-1)
        )
        line = progress.lines[step].replace("\n", " ") if step else "the deal"
        assert line[:60] in heat.get_title(loc="left")


def test_stepper_widget_follows_its_slider_without_a_browser(
    progress: kw.viz.GameProgress,
) -> None:
    widget = stepper(progress, "B")
    assert widget.slider.max == progress.n_steps and widget.chooser.value == "B"
    first = widget.image.value
    assert first[:8] == b"\x89PNG\r\n\x1a\n"
    widget.show(4)
    assert "move 4/" in widget.line.value and widget.image.value != first
    widget.chooser.value = "A"
    assert widget.image.value[:8] == b"\x89PNG\r\n\x1a\n"


def test_games_views_and_states_show_themselves_as_html() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    game.ask("D", "KD")
    page = game._repr_html_()
    for player in game.players:
        assert f"<b>{player}</b>" in page
    assert all(card.symbol in page for card in game.hand("C"))
    view = game.view("B")._repr_html_()
    assert all(card.symbol in view for card in game.hand("B"))
    assert not any(card.symbol in view for card in game.hand("C"))  # others' hands stay hidden
    state = kw.knowledge(game)._repr_html_()
    assert f"{kw.knowledge(game).count_worlds():,}" in state
    mine = kw.knowledge(game.view("B"))
    html = mine._repr_html_()
    known = sum(mine.knows_location("B", c) is not None for c in game.deck.cards)
    assert html.count("●") == known  # one dot per card B can place


def test_importing_the_package_loads_no_drawing_library() -> None:
    code = (
        "import sys, kwartet_epistemic as kw; kw.viz.draw_kripke; "
        "print(sorted(m for m in ('matplotlib', 'networkx', 'ipywidgets') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "[]"


def test_no_viz_name_is_shadowed_by_a_module() -> None:
    import importlib
    import types

    for module in ("kripke", "progress", "many", "heatmap", "timeline", "stepping", "html"):
        importlib.import_module(f"kwartet_epistemic.viz.{module}")
    for name in kw.viz.__all__:
        assert not isinstance(getattr(kw.viz, name), types.ModuleType), name
