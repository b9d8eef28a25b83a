"""Deduction over many games: medians and bands per move, side by side for rule options.

Without a draw pile a player's knowledge only grows (world counts fall, located cards
rise); with one, every private draw makes the others lose track of a card, and the
located share falls back.

>>> import kwartet_epistemic as kw
>>> bands = progress_over_games(kw.RuleSet(), games=2, deck=kw.Deck.piquet(families=3),
...                             players=("A", "B", "C"), seed=1)
>>> bands.games, int(bands.alive[0]), float(bands.share_median[0])
(2, 2, 0.0)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from kwartet_epistemic.cards import Deck
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.game import Ask, Game, PlayerView
from kwartet_epistemic.rules import RuleSet
from kwartet_epistemic.viz.progress import GameProgress, game_progress

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "RULE_OPTIONS",
    "ProgressBands",
    "compare_rules",
    "play_game",
    "plot_bands",
    "progress_over_games",
]

#: The rule options compared by default: the publisher's rules, a draw pile (fish) and
#: the turn passing clockwise after a refusal.
RULE_OPTIONS: dict[str, RuleSet] = {
    "publisher": RuleSet.preset("publisher"),
    "fish (draw pile)": RuleSet.preset("fish"),
    "clockwise after a no": RuleSet(refusal_turn="clockwise"),
}

_QUANTILES = (10, 25, 50, 75, 90)


@dataclass(frozen=True, eq=False)
class ProgressBands:
    """Per move index, over many games and every player: quantiles of log10 world counts
    and of the located share (see :attr:`GameProgress.known_share`).

    ``alive[i]`` games lasted at least ``i`` moves; quantiles at ``i`` pool the players
    of those games.  ``example_*`` is the first game's first player, to show one
    game's jumps under the smooth medians.
    """

    label: str
    rules: RuleSet
    games: int
    alive: np.ndarray
    worlds_quantiles: np.ndarray  # [5, steps]: 10, 25, 50, 75, 90th percentiles
    share_quantiles: np.ndarray
    example_worlds: np.ndarray
    example_share: np.ndarray
    lengths: np.ndarray

    @property
    def worlds_median(self) -> np.ndarray:
        """Median log10 world count per move index."""
        return self.worlds_quantiles[2]

    @property
    def share_median(self) -> np.ndarray:
        """Median located share per move index."""
        return self.share_quantiles[2]


Policy = Callable[[PlayerView, np.random.Generator], Ask]


def _player_factory(policy: str | Policy) -> Callable[[str, np.random.Generator], Policy | None]:
    """A chooser per seat; None for random play (the referee's fast sampler)."""
    if callable(policy):
        return lambda player, rng: policy
    if policy == "random":
        return lambda player, rng: None
    from kwartet_epistemic.agents.agent import make_player

    def make(player: str, rng: np.random.Generator) -> Policy:
        chooser = make_player(policy, player, rng)

        def choose(view: PlayerView, _rng: np.random.Generator) -> Ask:
            action = chooser.choose(view)
            if not isinstance(action, Ask):
                raise KwartetError(f"policy {policy!r} turned a middle card; only asks are played")
            return action

        return choose

    return make


def play_game(
    rules: RuleSet,
    deck: Deck,
    players: Sequence[str],
    seed: int,
    policy: str | Policy = "random",
) -> Game:
    """Deal with ``seed`` and play to the end, every seat choosing by ``policy``: a
    registered computer player's name (``kwartet_epistemic.opponents``), ``"random"``,
    or a function ``(view, rng) -> Ask``.

    >>> import kwartet_epistemic as kw
    >>> play_game(kw.RuleSet(), kw.Deck.piquet(families=3), "ABC", seed=2).is_over
    True
    """
    game = Game.deal(deck, list(players), seed=seed, rules=rules)
    rng = np.random.default_rng([seed, 2])
    factory = _player_factory(policy)
    choosers = {p: factory(p, np.random.default_rng([seed, 3, i])) for i, p in enumerate(players)}
    while not game.is_over:
        mover = game.to_move
        assert mover is not None
        chooser = choosers[mover]
        game.play(game.random_legal_ask(rng) if chooser is None else chooser(game.view(mover), rng))
    return game


def _quantiles(columns: list[np.ndarray]) -> np.ndarray:
    return np.array([[np.percentile(c, q) for c in columns] for q in _QUANTILES])


def progress_over_games(
    rules: RuleSet,
    *,
    games: int = 20,
    deck: Deck | None = None,
    players: Sequence[str] = ("A", "B", "C", "D"),
    seed: int = 0,
    policy: str | Policy = "random",
    label: str | None = None,
    progress_bar: bool = False,
) -> ProgressBands:
    """Play ``games`` seeded games under ``rules`` (seeds ``seed, seed+1, ...``) and
    collect every player's world counts and located share after each move.

    ``policy`` picks the asks (see :func:`play_game`); random play is the default
    because it is fast and reasons about nothing, so what the curves show is what the
    public record alone teaches an attentive player.
    """
    if not isinstance(games, int) or games < 1:
        raise KwartetError(f"games={games!r}: expected a positive number of games")
    deck = Deck.piquet() if deck is None else deck
    runs: list[GameProgress] = []
    seeds = range(seed, seed + games)
    if progress_bar:
        from tqdm.auto import tqdm

        seeds = tqdm(seeds, desc=label or rules.name, unit="game")
    for game_seed in seeds:
        game = play_game(rules, deck, players, game_seed, policy)
        runs.append(game_progress(game, public=False))
    lengths = np.array([r.n_steps for r in runs])
    longest = int(lengths.max())
    worlds_columns, share_columns, alive = [], [], []
    for step in range(longest + 1):
        live = [r for r in runs if r.n_steps >= step]
        alive.append(len(live))
        worlds_columns.append(np.concatenate([r.log10_worlds[step] for r in live]))
        share_columns.append(np.concatenate([r.known_share[step] for r in live]))
    return ProgressBands(
        label=label or rules.name,
        rules=rules,
        games=games,
        alive=np.array(alive),
        worlds_quantiles=_quantiles(worlds_columns),
        share_quantiles=_quantiles(share_columns),
        example_worlds=runs[0].log10_worlds[:, 0],
        example_share=runs[0].known_share[:, 0],
        lengths=lengths,
    )


def _shown_steps(bands: ProgressBands) -> int:
    """Moves shown: while at least a quarter of the games (and two) are still going."""
    enough = max(2, int(np.ceil(bands.games / 4))) if bands.games > 1 else 1
    return int(np.flatnonzero(bands.alive >= enough).max()) + 1


def plot_bands(
    bands: ProgressBands,
    *,
    ax: Axes | None = None,
    measure: str = "worlds",
    colour: str = "#0072B2",
    example: bool = True,
) -> Figure:
    """Median (line), 25-75% (dark band) and 10-90% (light band) per move index of
    ``measure`` (``"worlds"``: log10 world counts; ``"share"``: located share), with
    one example game drawn thin.

    >>> import kwartet_epistemic as kw
    >>> bands = progress_over_games(kw.RuleSet(), games=2, deck=kw.Deck.piquet(families=3),
    ...                             players=("A", "B", "C"), seed=1)
    >>> line = plot_bands(bands).axes[0].get_lines()[0]
    >>> line.get_label(), len(line.get_xdata()) <= len(bands.alive)
    ('median', True)
    """
    from matplotlib.figure import Figure

    if measure not in ("worlds", "share"):
        raise KwartetError(f"measure={measure!r}: expected 'worlds' or 'share'")
    if ax is None:
        ax = Figure(figsize=(6, 3.5), layout="constrained").add_subplot()
    shown = _shown_steps(bands)
    steps = np.arange(shown)
    q = (bands.worlds_quantiles if measure == "worlds" else bands.share_quantiles)[:, :shown]
    ax.fill_between(steps, q[0], q[4], color=colour, alpha=0.15, linewidth=0, label="10-90%")
    ax.fill_between(steps, q[1], q[3], color=colour, alpha=0.3, linewidth=0, label="25-75%")
    ax.plot(steps, q[2], color=colour, linewidth=2, label="median")
    if example:
        trace = bands.example_worlds if measure == "worlds" else bands.example_share
        ax.plot(np.arange(len(trace)), trace, color="#333333", linewidth=0.9,
                drawstyle="steps-post", alpha=0.8, label="one game, player A")  # fmt: skip
    ax.set_xlim(0, max(shown - 1, 1))
    ax.set_xlabel("move")
    if measure == "worlds":
        ax.set_ylabel("log10 worlds per player")
    else:
        ax.set_ylabel("hidden cards located")
        ax.set_ylim(-0.02, 1.02)
        ax.yaxis.set_major_formatter("{x:.0%}")
    ax.grid(alpha=0.3)
    ax.set_title(f"{bands.label}: {bands.games} games", fontsize=10)
    figure = ax.get_figure()
    assert figure is not None
    return figure  # type: ignore[return-value]


def compare_rules(
    options: Mapping[str, RuleSet] | Sequence[ProgressBands] | None = None,
    *,
    games: int = 20,
    deck: Deck | None = None,
    players: Sequence[str] = ("A", "B", "C", "D"),
    seed: int = 0,
    policy: str | Policy = "random",
    progress_bar: bool = False,
) -> Figure:
    """Rule options side by side (default :data:`RULE_OPTIONS`): per option a column
    with the world counts (top) and the located share (bottom) over ``games`` games.
    Pass already computed :class:`ProgressBands` to draw them without playing again.

    >>> import kwartet_epistemic as kw
    >>> figure = compare_rules({"publisher": kw.RuleSet(), "clockwise": kw.RuleSet(
    ...     refusal_turn="clockwise")}, games=2, deck=kw.Deck.piquet(families=3),
    ...     players=("A", "B", "C"))
    >>> len(figure.axes), figure.axes[1].get_title()
    (4, 'clockwise: 2 games')
    """
    from matplotlib.figure import Figure

    from kwartet_epistemic.viz._style import AGENT_COLOURS

    if options is None:
        options = RULE_OPTIONS
    if isinstance(options, Mapping):
        all_bands = [
            progress_over_games(rules, games=games, deck=deck, players=players, seed=seed,
                                policy=policy, label=name, progress_bar=progress_bar)
            for name, rules in options.items()
        ]  # fmt: skip
    else:
        all_bands = list(options)
    if not all_bands:
        raise KwartetError("compare_rules needs at least one rule option")
    figure = Figure(figsize=(4.2 * len(all_bands) + 0.6, 6.4), layout="constrained")
    axes = figure.subplots(2, len(all_bands), sharey="row", squeeze=False)
    for column, bands in enumerate(all_bands):
        colour = AGENT_COLOURS[column % len(AGENT_COLOURS)]
        plot_bands(bands, ax=axes[0][column], measure="worlds", colour=colour)
        plot_bands(bands, ax=axes[1][column], measure="share", colour=colour)
        axes[1][column].set_title("")
        if column:
            axes[0][column].set_ylabel("")
            axes[1][column].set_ylabel("")
    axes[0][0].legend(fontsize=7, loc="upper right", frameon=False)
    figure.suptitle("Deduction per move under each rule option (all players pooled)", fontsize=11)
    return figure
