"""The per-game progress record against the epistemic state, its plots' points, the
knowledge timeline against EpistemicState.timeline, and the many-games bands."""

from __future__ import annotations

import math

import matplotlib
import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.viz import (
    compare_rules,
    game_progress,
    knowledge_timeline,
    plot_bands,
    plot_known_share,
    plot_progress,
    plot_timeline,
    progress_over_games,
)
from kwartet_epistemic.viz.many import play_game

matplotlib.use("Agg")

SMALL = kw.Deck.piquet(families=3)


@pytest.fixture(scope="module")
def small_game() -> kw.Game:
    return play_game(kw.RuleSet(), SMALL, "ABC", seed=4)


@pytest.fixture(scope="module")
def full_game() -> kw.Game:
    return play_game(kw.RuleSet(), kw.Deck.piquet(), "ABCD", seed=7, policy="knowledge")


def test_every_step_matches_the_epistemic_state_of_the_replayed_prefix(
    small_game: kw.Game,
) -> None:
    progress = game_progress(small_game)
    record = kw.GameRecord.from_game(small_game)
    assert progress.n_steps == len(record.actions)
    for step in range(progress.n_steps + 1):
        prefix = record.with_actions(record.actions[:step]).replay()
        state = kw.knowledge(prefix)
        assert progress.public_worlds[step] == state.count_worlds()
        assert progress.event_index[step] == len(prefix.record) - 1
        for seat, player in enumerate(prefix.players):
            assert progress.worlds[step, seat] == state.count_worlds(player)
            assert np.allclose(
                progress.probabilities[step, seat], state.location_probabilities(player)
            )
            for card in prefix.deck.cards:
                knows = state.knows_location(player, card) is not None
                assert progress.known[step, seat, card.index] == knows


def test_without_a_draw_pile_knowledge_only_grows(full_game: kw.Game) -> None:
    progress = game_progress(full_game)
    assert (np.diff(progress.log10_worlds, axis=0) <= 1e-12).all()
    assert (np.diff(progress.known_share, axis=0) >= -1e-12).all()
    assert (progress.known_share[0] == 0).all() and (progress.known_share[-1] == 1).all()
    assert (
        progress.public_worlds[0]
        == kw.knowledge(kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)).count_worlds()
    )
    kinds = set(progress.kinds[1:])
    assert kinds <= {"yes", "no"} and progress.quartet.sum() == 8


def test_with_a_draw_pile_a_world_count_grows_after_a_draw() -> None:
    rules = kw.RuleSet.preset("fish").replace(cards_each=5)  # 24 cards: a stock of 9
    grew = []
    for seed in range(2):
        progress = game_progress(play_game(rules, kw.Deck.piquet(families=6), "ABC", seed=seed))
        for step in range(1, progress.n_steps + 1):
            if (progress.worlds[step] > progress.worlds[step - 1]).any():
                grew.append(bool(progress.drew[step]))
    assert grew and all(grew)  # it happens, and only after a draw


def test_progress_plot_draws_the_counts_the_public_record_and_every_move(
    full_game: kw.Game,
) -> None:
    progress = game_progress(full_game)
    figure = plot_progress(progress)
    worlds_axes, strip, share_axes = figure.axes
    lines = {line.get_label(): line for line in worlds_axes.get_lines()}
    for seat, player in enumerate(progress.players):
        assert np.allclose(lines[player].get_ydata(), progress.log10_worlds[:, seat])
    public = [math.log10(n) for n in progress.public_worlds]
    assert np.allclose(lines["public record"].get_ydata(), public)
    marks = {c.get_gid(): len(c.get_offsets()) for c in strip.collections}
    assert marks["event-yes"] == progress.kinds.count("yes")
    assert marks["event-no"] == progress.kinds.count("no")
    assert marks["event-quartet"] == int(progress.quartet.sum())
    shares = [line.get_ydata() for line in share_axes.get_lines()]
    assert np.allclose(np.array(shares).T, progress.known_share)


def test_progress_on_one_axes_and_the_known_share_alone(small_game: kw.Game) -> None:
    progress = game_progress(small_game)
    figure = plot_known_share(progress, players=["B"])
    (line,) = figure.axes[0].get_lines()
    assert line.get_label() == "B" and np.allclose(line.get_ydata(), progress.known_share[:, 1])
    from matplotlib.figure import Figure

    ax = Figure().add_subplot()
    assert plot_progress(progress, ax=ax) is ax.figure
    labelled = [line for line in ax.get_lines() if not line.get_label().startswith("_")]
    assert len(labelled) == 4  # three players and the public record
    with pytest.raises(kw.KwartetError, match="player 'Z'"):
        plot_known_share(progress, players=["Z"])


def test_timeline_agrees_with_the_epistemic_state(full_game: kw.Game) -> None:
    progress = game_progress(full_game)
    first = knowledge_timeline(progress)
    events = kw.knowledge(full_game).timeline()
    for seat, player in enumerate(full_game.players):
        for card in full_game.deck.cards:
            event = events[player][card.code]
            expected = -1 if event is None else progress.step_of_event(event)
            assert first[seat, card.index] == expected
    figure = plot_timeline(progress)
    image = figure.axes[0].get_images()[0].get_array()
    assert np.array_equal(np.ma.filled(image, 0), np.where(first >= 1, first, 0))
    numbers = [t.get_text() for t in figure.axes[0].texts]
    assert numbers.count("·") == int((first == 0).sum())
    title = figure.axes[0].get_title(loc="left")
    never = int((first < 0).sum())
    assert "never: 0" not in title
    assert (f"never known: {never} of {first.size}" in title) == (never > 0)
    assert ("every card became known to every player" in title) == (never == 0)


def test_bands_pool_every_player_of_the_games_still_going() -> None:
    bands = progress_over_games(kw.RuleSet(), games=4, deck=SMALL, players="ABC", seed=2)
    runs = [game_progress(play_game(kw.RuleSet(), SMALL, "ABC", seed=s)) for s in range(2, 6)]
    assert list(bands.lengths) == [r.n_steps for r in runs]
    for step in (0, 3, int(bands.lengths.min())):
        pooled = np.concatenate([r.log10_worlds[step] for r in runs if r.n_steps >= step])
        assert bands.worlds_median[step] == pytest.approx(np.median(pooled))
        assert bands.alive[step] == sum(r.n_steps >= step for r in runs)
    assert (np.diff(bands.worlds_quantiles, axis=0) >= -1e-12).all()  # 10 <= 25 <= ... <= 90
    figure = plot_bands(bands, measure="share")
    median = next(line for line in figure.axes[0].get_lines() if line.get_label() == "median")
    shown = len(median.get_xdata())
    assert np.allclose(median.get_ydata(), bands.share_median[:shown])
    with pytest.raises(kw.KwartetError, match="measure="):
        plot_bands(bands, measure="depth")


def test_compare_rules_puts_the_options_side_by_side() -> None:
    options = {"publisher": kw.RuleSet(), "fish": kw.RuleSet.preset("fish").replace(cards_each=3)}
    figure = compare_rules(options, games=2, deck=SMALL, players="ABC")
    assert len(figure.axes) == 4
    assert [ax.get_title() for ax in figure.axes[:2]] == ["publisher: 2 games", "fish: 2 games"]
    with pytest.raises(kw.KwartetError):
        compare_rules({}, games=1)


def test_many_games_with_a_registered_agent(small_game: kw.Game) -> None:
    bands = progress_over_games(kw.RuleSet(), games=2, deck=SMALL, players="ABC",
                                policy="knowledge")  # fmt: skip
    assert bands.games == 2 and bands.alive[0] == 2
    with pytest.raises(kw.KwartetError, match="games=0"):
        progress_over_games(kw.RuleSet(), games=0)
