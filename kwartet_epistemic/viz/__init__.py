"""Pictures of deduction: Kripke drawings, progress plots, heatmaps, timelines, a stepper.

Everything draws with matplotlib (and networkx for layouts) and returns a
:class:`matplotlib.figure.Figure`, or draws on an Axes passed as ``ax``; nothing needs a
browser, except the one page :func:`to_html` writes to share a game (self-contained,
opened from a file).  The drawing modules are imported on first use, so ``import kwartet_epistemic``
stays light.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> progress = kw.viz.game_progress(game)
>>> progress.n_steps, progress.log10_worlds.shape
(0, (1, 3))
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from kwartet_epistemic.viz.heatmap import heatmap_animation, plot_heatmap
    from kwartet_epistemic.viz.html import epistemic_state_html, game_html, kripke_svg, view_html
    from kwartet_epistemic.viz.kripke import (
        DRAW_LIMIT,
        SINGLE_AGENT_LIMIT,
        draw_announcement,
        draw_contraction,
        draw_kripke,
        kripke_edges,
        kripke_layout,
        kripke_to_tikz,
        world_labels,
    )
    from kwartet_epistemic.viz.many import (
        RULE_OPTIONS,
        ProgressBands,
        compare_rules,
        play_game,
        plot_bands,
        progress_over_games,
    )
    from kwartet_epistemic.viz.page import to_html
    from kwartet_epistemic.viz.progress import (
        GameProgress,
        game_progress,
        plot_known_share,
        plot_progress,
    )
    from kwartet_epistemic.viz.stepping import stepper, stepper_frame
    from kwartet_epistemic.viz.timeline import knowledge_timeline, plot_timeline

_WHERE = {
    "DRAW_LIMIT": "kripke",
    "SINGLE_AGENT_LIMIT": "kripke",
    "draw_announcement": "kripke",
    "draw_contraction": "kripke",
    "draw_kripke": "kripke",
    "kripke_edges": "kripke",
    "kripke_layout": "kripke",
    "kripke_to_tikz": "kripke",
    "world_labels": "kripke",
    "GameProgress": "progress",
    "game_progress": "progress",
    "plot_known_share": "progress",
    "plot_progress": "progress",
    "ProgressBands": "many",
    "RULE_OPTIONS": "many",
    "compare_rules": "many",
    "play_game": "many",
    "plot_bands": "many",
    "progress_over_games": "many",
    "heatmap_animation": "heatmap",
    "plot_heatmap": "heatmap",
    "knowledge_timeline": "timeline",
    "plot_timeline": "timeline",
    "stepper": "stepping",
    "stepper_frame": "stepping",
    "epistemic_state_html": "html",
    "game_html": "html",
    "kripke_svg": "html",
    "view_html": "html",
    "to_html": "page",
}

__all__ = [
    "DRAW_LIMIT",
    "RULE_OPTIONS",
    "SINGLE_AGENT_LIMIT",
    "GameProgress",
    "ProgressBands",
    "compare_rules",
    "draw_announcement",
    "draw_contraction",
    "draw_kripke",
    "epistemic_state_html",
    "game_html",
    "game_progress",
    "heatmap_animation",
    "knowledge_timeline",
    "kripke_edges",
    "kripke_layout",
    "kripke_svg",
    "kripke_to_tikz",
    "play_game",
    "plot_bands",
    "plot_heatmap",
    "plot_known_share",
    "plot_progress",
    "plot_timeline",
    "progress_over_games",
    "stepper",
    "stepper_frame",
    "to_html",
    "view_html",
    "world_labels",
]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'kwartet_epistemic.viz' has no attribute {name!r}")
    value = getattr(importlib.import_module(f"kwartet_epistemic.viz.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_WHERE))
