"""Kripke drawings: what is drawn (worlds, lines per agent, the actual world, fading),
layouts, size limits with their advice, TikZ export, and the Jupyter SVG hook."""

from __future__ import annotations

import itertools

import matplotlib
import numpy as np
import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg

import kwartet_epistemic as kw
from kwartet_epistemic.examples import (
    alice_says_one_of,
    father_announcement,
    muddy_children,
    nobody_knows,
    russian_cards,
)
from kwartet_epistemic.viz import (
    draw_announcement,
    draw_contraction,
    draw_kripke,
    kripke_edges,
    kripke_layout,
    kripke_to_tikz,
    world_labels,
)

matplotlib.use("Agg")


def collections(figure: matplotlib.figure.Figure, panel: int = 0) -> dict[str, object]:
    return {c.get_gid(): c for c in figure.axes[panel].collections}


def segment_count(figure: matplotlib.figure.Figure, gid: str, panel: int = 0) -> int:
    found = collections(figure, panel).get(gid)
    return 0 if found is None else len(found.get_segments())  # type: ignore[attr-defined]


def node_count(figure: matplotlib.figure.Figure, gid: str = "worlds", panel: int = 0) -> int:
    found = collections(figure, panel).get(gid)
    return 0 if found is None else len(found.get_offsets())  # type: ignore[attr-defined]


def tiny_game_model() -> kw.KripkeModel:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    for target, card in [("B", "7D"), ("C", "7D"), ("C", "8C"), ("A", "8S")]:
        game.ask(target, card)
    return kw.knowledge(game).kripke_model()


def test_muddy_children_draws_every_world_and_each_childs_pairs_without_loops() -> None:
    model = muddy_children(3, 2)
    figure = draw_kripke(model)
    assert node_count(figure) == 8
    for child in "123":
        # Child i confuses the 4 pairs of worlds that differ in bit i only.
        segments = collections(figure)[f"agent-{child}"].get_segments()  # type: ignore[attr-defined]
        assert len(segments) == 4
        assert all(not np.allclose(start, end) for start, end in segments)  # no reflexive loops
    assert node_count(figure, "actual") == 1
    labels = [t.get_text() for t in figure.axes[0].texts]
    assert sorted(labels) == sorted(world_labels(model))


def test_each_agent_has_its_own_colour_and_line_style() -> None:
    figure = draw_kripke(muddy_children(4, 1))
    lines = [c for c in figure.axes[0].collections if str(c.get_gid()).startswith("agent-")]
    colours = {tuple(np.round(c.get_colors()[0], 3)) for c in lines}  # type: ignore[attr-defined]
    styles = {str(c.get_linestyles()[0]) for c in lines}  # type: ignore[attr-defined]
    assert len(lines) == 4 and len(colours) == 4 and len(styles) == 4


def test_one_agent_only_draws_that_agents_relation() -> None:
    figure = draw_kripke(muddy_children(3, 2), agent="2")
    gids = [g for g in collections(figure) if str(g).startswith("agent-")]
    assert gids == ["agent-2"] and segment_count(figure, "agent-2") == 4
    with pytest.raises(kw.ModelError, match="agent '9'"):
        draw_kripke(muddy_children(3, 2), agent="9")


def test_lines_shared_by_agents_run_side_by_side() -> None:
    model = kw.KripkeModel(2, {"A": [0, 0], "B": [0, 0]}, {"p": [True, False]})
    figure = draw_kripke(model)
    a = collections(figure)["agent-A"].get_segments()[0]  # type: ignore[attr-defined]
    b = collections(figure)["agent-B"].get_segments()[0]  # type: ignore[attr-defined]
    assert not np.allclose(a, b)
    assert np.allclose(a[1] - a[0], b[1] - b[0])  # parallel, same length


def shape_count(figure: matplotlib.figure.Figure, gid: str, panel: int = 0) -> int:
    """Closed block shapes with this gid (each is a rim and a fill: two patches)."""
    return sum(p.get_gid() == gid for p in figure.axes[panel].patches) // 2


def test_one_agents_blocks_are_closed_shapes_and_every_pair_on_request() -> None:
    deal = russian_cards()  # Cath: 7 blocks of 20 worlds
    figure = draw_kripke(deal, agent="Cath")
    assert shape_count(figure, "block-Cath") == 7
    assert segment_count(figure, "agent-Cath") == 0  # the shapes say it, not lines
    assert "a block of Cath" in [t.get_text() for t in figure.axes[0].get_legend().get_texts()]
    assert segment_count(draw_kripke(deal, agent="Cath", edges="all"), "agent-Cath") == 7 * 190
    # Several agents: a tree of near neighbours per block each.
    assert segment_count(draw_kripke(deal), "agent-Cath") == 7 * 19
    assert len(kripke_edges(deal, "Cath")) == 7 * 190


def test_too_large_a_model_is_refused_with_advice_but_one_agent_is_drawn() -> None:
    model = muddy_children(9, 1)  # 512 worlds
    # Only what shrinks it is offered: a child's view (2 worlds), one agent's relation;
    # not contraction (the model is already bisimulation-minimal).
    with pytest.raises(kw.ModelTooLargeError, match=r"possible_for='1'.*agent='1'") as refused:
        draw_kripke(model)
    assert "contract" not in str(refused.value)
    assert node_count(draw_kripke(model, agent="1")) == 512
    with pytest.raises(kw.ModelTooLargeError, match="the 2 worlds 1 considers possible"):
        draw_kripke(muddy_children(11, 1), agent="1")
    with pytest.raises(kw.ModelTooLargeError):
        kripke_to_tikz(model)


def test_highlight_fills_the_worlds_where_the_formula_holds() -> None:
    model = muddy_children(3, 2)
    figure = draw_kripke(model, highlight="m1 & m2")
    faces = collections(figure)["worlds"].get_facecolors()  # type: ignore[attr-defined]
    filled = [not np.allclose(face[:3], 1.0) for face in faces]
    assert filled == model.truth_set("m1 & m2").tolist()


def test_announcement_fades_exactly_the_removed_worlds_and_their_lines() -> None:
    model = muddy_children(3, 2)
    figure = draw_announcement(model, father_announcement(3))
    assert node_count(figure, "worlds", 0) == 8
    assert node_count(figure, "worlds", 1) == 7 and node_count(figure, "worlds-faded", 1) == 1
    for child in "123":  # world 000 had one line per child
        assert segment_count(figure, f"agent-{child}-faded", 1) == 1
        assert segment_count(figure, f"agent-{child}", 1) == 3
    with pytest.raises(kw.FalseAnnouncementError):
        draw_announcement(model, "~m1")


def test_announcement_on_big_blocks_keeps_the_survivors_connected() -> None:
    deal = russian_cards()
    said = alice_says_one_of(["012", "034", "056", "135", "246"])
    figure = draw_announcement(deal, said, agent="Cath")
    after = deal.announce(said)
    blocks = np.unique(after.labels("Cath"), return_counts=True)[1]
    # every surviving block is one shape round its survivors; the old blocks fade
    assert shape_count(figure, "block-Cath", 1) == len(blocks)
    assert shape_count(figure, "block-Cath-faded", 1) == 7
    assert segment_count(draw_announcement(deal, said), "agent-Cath", 1) == int((blocks - 1).sum())


def test_contraction_draws_the_smaller_model_coloured_by_class() -> None:
    model = kw.KripkeModel(4, {"A": [0, 0, 1, 1], "B": [0, 1, 2, 3]}, {"p": [1, 0, 1, 0]})
    figure = draw_contraction(model)
    assert node_count(figure, panel=0) == 4 and node_count(figure, panel=1) == 2
    faces = collections(figure, 0)["worlds"].get_facecolors()  # type: ignore[attr-defined]
    classes = model.bisimulation_classes()
    for i, j in itertools.combinations(range(4), 2):
        assert np.allclose(faces[i], faces[j]) == (classes[i] == classes[j])


def test_layouts_are_deterministic_and_fit_the_unit_square() -> None:
    model = tiny_game_model()
    for layout in ["auto", "spring", "blocks", "kamada_kawai", "circular", "layers"]:
        points = kripke_layout(model, layout)
        assert points.shape == (model.n_worlds, 2)
        assert points.min() >= -1e-9 and points.max() <= 1 + 1e-9
        assert np.allclose(points, kripke_layout(model, layout))
    with pytest.raises(kw.ModelError, match="layout='hexagon'"):
        kripke_layout(model, "hexagon")
    with pytest.raises(kw.ModelError, match="positions have shape"):
        draw_kripke(model, positions=np.zeros((2, 2)))


def test_kwartet_worlds_are_labelled_by_the_hands_that_differ() -> None:
    model = tiny_game_model()
    labels = world_labels(model)
    assert len(set(labels)) == model.n_worlds == 6
    assert all(label.count("|") == 2 for label in labels)
    actual = labels[model.actual]
    assert "A 7♠" in actual and "B 7♥" in actual and "C 7♣" in actual


def test_tikz_has_one_node_per_world_one_line_per_pair_and_escaped_labels() -> None:
    model = tiny_game_model()
    tikz = kripke_to_tikz(model, edges="all")
    assert tikz.count("\\node[world]") + tikz.count("\\node[actual]") == model.n_worlds
    assert tikz.count("\\node[actual]") == 1
    pairs = sum(len(kripke_edges(model, a)) for a in model.agents)
    assert tikz.count(") -- (w") == pairs
    assert "\\spadesuit" in tikz and "♠" not in tikz
    assert tikz.strip().endswith("\\end{tikzpicture}")


def test_kripke_models_draw_themselves_as_svg_up_to_the_limit() -> None:
    svg = muddy_children(3, 2)._repr_svg_()
    assert svg is not None and svg.startswith("<svg") and "</svg>" in svg
    assert muddy_children(8, 1)._repr_svg_() is None  # 256 worlds: the text repr shows


def _tiny_deal_models() -> list[kw.KripkeModel]:
    """Notebook 2's tiny game: the 560-world deal, 150 worlds after a refusal, 45 after
    two more asks."""
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}
    game = kw.Game.from_hands(kw.Deck.piquet(families=2), hands, first="A")
    models = [kw.knowledge(game).kripke_model()]
    game.ask("B", "7D")
    models.append(kw.knowledge(game).kripke_model())
    game.ask("C", "7D")
    game.ask("C", "8C")
    models.append(kw.knowledge(game).kripke_model())
    return models


def test_three_player_deals_draw_as_a_grid_of_two_players_blocks() -> None:
    from kwartet_epistemic.viz.kripke import grid_axes

    for model in _tiny_deal_models():
        rows_agent, cols_agent = grid_axes(model)
        points = kripke_layout(model)  # auto: past 40 worlds, a grid
        assert np.allclose(points, kripke_layout(model, "grid"))
        for agent, axis in ((rows_agent, 1), (cols_agent, 0)):
            labels = np.asarray(model.labels(agent))
            # One row (column) per block of the agent, and each block on one line.
            coordinate = {}
            for w, block in enumerate(labels.tolist()):
                assert coordinate.setdefault(block, round(points[w, axis], 9)) == round(
                    points[w, axis], 9
                )
            assert len(set(coordinate.values())) == len(coordinate)
        # Two players' blocks pin down a world: no two worlds share a place.
        assert len({(round(x, 9), round(y, 9)) for x, y in points}) == model.n_worlds
        figure = draw_kripke(model)
        ax = figure.axes[0]
        rows = [t.get_text() for t in ax.texts if t.get_gid() == "row-label"]
        assert len(rows) == model.block_count(rows_agent)
        # Rows are named by the hand, cards in deck order (7 before 8, spades first).
        assert all("♠" in r or "♥" in r or "♦" in r or "♣" in r for r in rows)
    assert _tiny_deal_models()[0].n_worlds == 560  # drawn, not refused


def test_world_labels_list_cards_in_deck_order() -> None:
    model = _tiny_deal_models()[2]
    for label in world_labels(model):
        for part in label.split(" | "):
            cards = part.split(" ", 1)[1]
            order = ["7♠", "7♥", "7♦", "7♣", "8♠", "8♥", "8♦", "8♣"]
            found = [c for c in order if c in cards]
            assert "".join(found) == cards, label


@pytest.mark.parametrize("n", [3, 4, 5])
def test_muddy_children_draw_as_the_lattice_by_number_of_muddy_children(n: int) -> None:
    model = muddy_children(n, muddy=[1, 2])
    points = kripke_layout(model)  # auto
    assert np.allclose(points, kripke_layout(model, "layers"))
    muddy = [label.count("1") for label in world_labels(model)]
    heights = {round(float(y), 9) for y in points[:, 1]}
    assert len(heights) == n + 1  # one row per number of muddy children
    for w, v in itertools.combinations(range(model.n_worlds), 2):
        assert (muddy[w] < muddy[v]) == (points[w, 1] < points[v, 1] - 1e-9)
    draw_kripke(model)  # and it draws


def test_a_model_too_big_to_draw_names_only_reductions_that_shrink_it() -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C", "D"], seed=4)
    model = kw.knowledge(game).kripke_model()
    assert model.n_worlds == 2520
    with pytest.raises(kw.ModelTooLargeError) as refused:
        draw_kripke(model)
    message = str(refused.value)
    view = model.possible_for("A")
    assert f"the {view.n_worlds} worlds A considers possible" in message
    assert "contract" not in message  # contraction does not shrink a deal: not offered
    assert len(np.unique(model.bisimulation_classes())) == model.n_worlds
    # The remedy works: A's cell, every agent's relation within it, the actual world kept.
    assert view.n_worlds == len(model.indistinguishable("A", model.actual))
    assert view.actual is not None and view.block_count("A") == 1
    figure = draw_kripke(model, possible_for="A")
    assert node_count(figure) == view.n_worlds
    assert "A considers possible" in figure.axes[0].get_title()
    with pytest.raises(kw.ModelError, match="agent 'Z'"):
        model.possible_for("Z")


def test_the_title_says_in_how_many_worlds_the_marked_formula_holds() -> None:
    model = muddy_children(3, 2)
    title = draw_kripke(model, highlight="m1").axes[0].get_title()
    assert title.endswith("marked: m1 (true in 4 of 8)")
    assert (
        draw_kripke(model, highlight="m1 | ~m1")
        .axes[0]
        .get_title()
        .endswith("(true in every world)")
    )
    assert (
        draw_kripke(model, highlight="m1 & ~m1").axes[0].get_title().endswith("(true in no world)")
    )


def test_an_agent_without_lines_says_why_in_the_legend() -> None:
    after = russian_cards().announce(alice_says_one_of(["012", "034", "056", "135", "246"]))
    legend = draw_kripke(after).axes[0].get_legend()
    texts = [t.get_text() for t in legend.get_texts()]
    assert "Bob (no lines: tells every world apart)" in texts and "Alice" in texts


def _six_children_after_two_rounds() -> kw.KripkeModel:
    model = muddy_children(6, [1, 2, 3]).announce(father_announcement(6))
    return model.announce(nobody_knows(6)).announce(nobody_knows(6))  # 42 worlds


@pytest.mark.parametrize("which", ["russian cards", "six children"])
def test_world_labels_do_not_overlap(which: str) -> None:
    """Every world labelled, no two labels on each other: Russian cards after Alice's
    announcement (a spring layout), six muddy children (a lattice stretched to its rows)."""
    if which == "six children":
        after = _six_children_after_two_rounds()
    else:
        after = russian_cards().announce(alice_says_one_of(["012", "034", "056", "135", "246"]))
    figure = draw_kripke(after)
    canvas = FigureCanvasAgg(figure)
    canvas.draw()
    renderer = canvas.get_renderer()
    boxes = [t.get_window_extent(renderer) for t in figure.axes[0].texts if t.get_gid() == "label"]
    assert len(boxes) == after.n_worlds
    for first, second in itertools.combinations(boxes, 2):
        assert not first.overlaps(second), (first, second)


def test_a_big_grid_keeps_its_labels_legible_at_a_notebooks_width() -> None:
    """The 560-world deal: at most about 12 inches wide (what a notebook shows unshrunk),
    every row and column named at 7.5 points or more."""
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}
    game = kw.Game.from_hands(kw.Deck.piquet(families=2), hands, first="A")
    model = kw.knowledge(game).kripke_model()
    figure = draw_kripke(model)
    assert model.n_worlds == 560 and figure.get_size_inches()[0] <= 12
    names = [t for t in figure.axes[0].texts if t.get_gid() in ("row-label", "column-label")]
    assert len(names) == model.block_count("A") + model.block_count("B")
    assert min(t.get_fontsize() for t in names) >= 7.5
