"""How deduction progresses in one game: world counts and known locations after each move.

:func:`game_progress` replays a game move by move (a move is one ask with its answer and
everything that follows it, or a middle card turned over) and records, after each move,
every player's exact world count, location probabilities and known locations.  The
plots, heatmaps, the timeline and the stepper all draw from that one record.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")  # no: so C holds it, as everyone now knows
>>> progress = game_progress(game)
>>> progress.kinds, [int(n) for n in progress.worlds[:, 0]], progress.public_worlds
(('deal', 'no'), [20, 10], (560, 150))
>>> figure = plot_progress(progress)
>>> [line.get_label() for line in figure.axes[0].get_lines()][:4]
['A', 'B', 'C', 'public record']
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from kwartet_epistemic.cards import Deck
from kwartet_epistemic.epistemics.narration import Moment, lessons
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.events import Answered, Drew, Event, QuartetExposed, transcript
from kwartet_epistemic.game import Ask, Game
from kwartet_epistemic.rules import RuleSet
from kwartet_epistemic.viz._style import agent_style

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

__all__ = [
    "GameProgress",
    "game_progress",
    "narrate",
    "plot_known_share",
    "plot_progress",
    "replay_moves",
]

_YES, _NO, _QUARTET, _DRAW = "#009E73", "#D55E00", "#E69F00", "#CC79A7"


@dataclass(frozen=True, eq=False)
class GameProgress:
    """What every player knew after each move of one game (step 0 is the deal).

    Arrays have one row per step (``n_steps + 1`` rows); players and cards follow the
    game's seat order and deck order.

    Attributes:
        deck: the game's deck.
        rules: the game's rules.
        players: the game's players, in seat order.
        event_index: per step, the index in the record of the step's last event.
        kinds: per step ``"deal"``, ``"yes"``, ``"no"`` or ``"turn"`` (a middle card).
        quartet: per step, whether a quartet was laid down.
        drew: per step, whether a card was drawn.
        asks: per step the :class:`~kwartet_epistemic.Ask` (None for the deal and turns).
        lines: per step, the transcript line (the referee's log: draws show the card).
        worlds: ``[step, player]`` exact world counts (Python ints, object array).
        public_worlds: per step the number of worlds of the public record, or None
            where it was not computed.
        public_known: ``[step, card]`` whether the public record alone fixes where the
            card is (so that it is common knowledge); all False where not computed.
        probabilities: ``[step, viewer, card, holder]`` each viewer's probability that
            each player holds each card.
        known: ``[step, viewer, card]`` whether the viewer knows where the card is.
        hidden: ``[viewer, card]`` whether the card was hidden from the viewer at the
            deal (not in the viewer's own hand).
        exposed: ``[step, card]`` whether the card lies in a quartet on the table.
        holder: ``[step, card]`` the true holder's seat (-1: exposed or in a pile).
        to_move: per step, whose turn it is after the move (None once the game is over).
        laid: per step, the quartets on the table: family -> the player who laid it down.
        location_counts: ``[step, viewer, card, holder]`` the exact number of the viewer's
            worlds in which the holder holds the card (Python ints, object array), so that
            ``location_counts / worlds`` are the exact probabilities.
    """

    deck: Deck
    rules: RuleSet
    players: tuple[str, ...]
    event_index: np.ndarray
    kinds: tuple[str, ...]
    quartet: np.ndarray
    drew: np.ndarray
    asks: tuple[Ask | None, ...]
    lines: tuple[str, ...]
    worlds: np.ndarray
    public_worlds: tuple[int | None, ...]
    public_known: np.ndarray
    probabilities: np.ndarray
    known: np.ndarray
    hidden: np.ndarray
    exposed: np.ndarray
    holder: np.ndarray
    to_move: tuple[str | None, ...] = ()
    laid: tuple[dict[str, str], ...] = ()
    location_counts: np.ndarray | None = None

    @property
    def n_steps(self) -> int:
        """The number of moves after the deal."""
        return len(self.kinds) - 1

    @property
    def log10_worlds(self) -> np.ndarray:
        """``[step, player]`` log10 of the world counts (exact ints, so no overflow)."""
        return np.array([[math.log10(int(n)) for n in row] for row in self.worlds], dtype=float)

    @property
    def known_share(self) -> np.ndarray:
        """``[step, player]`` the share of the cards hidden from each player at the deal
        whose location the player knows now (a card in a quartet on the table counts as
        located).  Without a draw pile it never falls: locations change only in public."""
        hidden = self.hidden.sum(axis=1)
        known = (self.known & self.hidden[None, :, :]).sum(axis=2)
        return np.where(hidden > 0, known / np.maximum(hidden, 1), 1.0)

    def step_of_event(self, event_index: int) -> int:
        """The step whose events include record event ``event_index``.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
        >>> _ = game.play(game.legal_asks()[0])
        >>> game_progress(game).step_of_event(len(game.record) - 1)
        1
        """
        return int(np.searchsorted(self.event_index, event_index))

    def player_index(self, player: str) -> int:
        """The seat of ``player`` (a clear error for an unknown name)."""
        if player not in self.players:
            raise KwartetError(
                f"player {player!r} is not in this game; players are {', '.join(self.players)}"
            )
        return self.players.index(player)


def replay_moves(game: Game) -> Any:
    """Replay ``game`` from its deal, yielding ``(replayed game, events of the move)``
    before any move (with the setup events) and after each move.  The replayed game is
    the same object throughout, so an epistemic state following it stays in step.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
    >>> _ = game.play(game.legal_asks()[0])
    >>> [len(events) > 0 for _, events in replay_moves(game)]
    [True, True]
    """
    from kwartet_epistemic.record import GameRecord

    replay = GameRecord.from_game(game).with_actions([]).replay()
    yield replay, list(replay.events)
    for action in game.actions:
        start = len(replay.events)
        if action[0] == "ask":
            _, asker, target, card, _answer = action
            replay.ask(target, card, asker=asker)
        else:
            replay.turn_over(action[2])
        yield replay, list(replay.events[start:])


def _describe(events: Sequence[Event]) -> tuple[str, bool, bool]:
    kind = "turn"
    for event in events:
        if isinstance(event, Answered):
            kind = "yes" if event.has_card else "no"
    quartet = any(isinstance(e, QuartetExposed) for e in events)
    drew = any(isinstance(e, Drew) for e in events)
    return kind, quartet, drew


def game_progress(
    game: Game, *, public: bool | None = None, progress_bar: bool = False
) -> GameProgress:
    """Replay ``game`` and record every player's knowledge after each move.

    ``public`` also counts the worlds of the public record (default: only without a
    draw pile, where counting public histories of many private draws is slow).
    ``progress_bar`` shows a tqdm bar over the moves.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    >>> _ = game.ask("C", "KD")
    >>> p = game_progress(game)
    >>> p.public_worlds[0] >= max(p.worlds[0]), bool(p.known[0, 0, game.hand("A")[0].index])
    (True, True)
    """
    from kwartet_epistemic.epistemics import knowledge

    if not isinstance(game, Game):
        raise KwartetError(f"game_progress({game!r}): expected a Game")
    count_public = not game.rules.draw_pile if public is None else public
    players = game.players
    deck = game.deck
    n_players, n_cards = len(players), len(deck)
    moves = replay_moves(game)
    if progress_bar:
        from tqdm.auto import tqdm

        moves = tqdm(moves, total=len(game.actions) + 1, desc="replaying", unit="move")
    state = None
    rows: dict[str, list[Any]] = {key: [] for key in (
        "event_index", "kinds", "quartet", "drew", "asks", "lines", "worlds", "public",
        "public_known",
        "probabilities", "known", "hidden", "exposed", "holder", "to_move", "laid", "counts",
    )}  # fmt: skip
    for replay, events in moves:
        if state is None:
            state = knowledge(replay)
        kind, quartet, drew = _describe(events)
        rows["kinds"].append("deal" if not rows["kinds"] else kind)
        rows["quartet"].append(quartet)
        rows["drew"].append(drew)
        ask_action = replay.actions[-1] if replay.actions and rows["kinds"][-1] != "deal" else None
        rows["asks"].append(
            Ask(ask_action[1], ask_action[2], deck.card(ask_action[3]))
            if ask_action is not None and ask_action[0] == "ask"
            else None
        )
        rows["lines"].append(transcript(events))
        rows["event_index"].append(len(replay.record) - 1)
        exposed = np.zeros(n_cards, dtype=bool)
        for family in replay.exposed:
            for card in deck.family_cards(family):
                exposed[card.index] = True
        holder = np.full(n_cards, -1, dtype=np.int64)
        own = np.zeros((n_players, n_cards), dtype=bool)
        for seat, player in enumerate(players):
            for card in replay.hand(player):
                holder[card.index] = seat
                own[seat, card.index] = True
        rows["to_move"].append(replay.to_move)
        rows["laid"].append(dict(replay.exposed))
        worlds, probabilities, known, exact = [], [], [], []
        pile_count = sum(owner is None for owner in state.history.slot_owner)
        for viewer in players:
            total = state.count_worlds(viewer)
            counts = state.location_counts(viewer)
            worlds.append(total)
            exact.append([[int(x) for x in row] for row in counts])
            probabilities.append(
                np.array([[int(x) / total for x in row] for row in counts], dtype=float)
            )
            row_known = np.array(
                [
                    exposed[c]
                    or any(int(x) == total for x in counts[c])
                    or (pile_count == 1 and not any(counts[c]))
                    or (pile_count > 1 and state.knows_location(viewer, deck.cards[c]) is not None)
                    for c in range(n_cards)
                ],
                dtype=bool,
            )
            known.append(row_known)
        rows["worlds"].append(worlds)
        rows["counts"].append(exact)
        public_known = exposed.copy()
        if count_public:
            public_total = state.count_worlds()
            public_counts = state.location_counts()
            public_known |= np.array(
                [any(int(x) == public_total for x in public_counts[c]) for c in range(n_cards)]
            )
        rows["public"].append(public_total if count_public else None)
        rows["public_known"].append(public_known)
        rows["probabilities"].append(probabilities)
        rows["known"].append(known)
        if not rows["hidden"]:
            rows["hidden"].append(~own)
        rows["exposed"].append(exposed)
        rows["holder"].append(holder)
    world_array = np.empty((len(rows["worlds"]), n_players), dtype=object)
    for s, row in enumerate(rows["worlds"]):
        world_array[s, :] = row
    count_array = np.empty((len(rows["counts"]), n_players, n_cards, n_players), dtype=object)
    for s, per_viewer in enumerate(rows["counts"]):
        for v, table in enumerate(per_viewer):
            for c, row in enumerate(table):
                count_array[s, v, c, :] = row
    return GameProgress(
        deck=deck,
        rules=game.rules,
        players=players,
        event_index=np.array(rows["event_index"], dtype=np.int64),
        kinds=tuple(rows["kinds"]),
        quartet=np.array(rows["quartet"], dtype=bool),
        drew=np.array(rows["drew"], dtype=bool),
        asks=tuple(rows["asks"]),
        lines=tuple(rows["lines"]),
        worlds=world_array,
        public_worlds=tuple(rows["public"]),
        public_known=np.array(rows["public_known"], dtype=bool),
        probabilities=np.array(rows["probabilities"], dtype=float),
        known=np.array(rows["known"], dtype=bool),
        hidden=np.array(rows["hidden"][0], dtype=bool),
        exposed=np.array(rows["exposed"], dtype=bool),
        holder=np.array(rows["holder"], dtype=np.int64),
        to_move=tuple(rows["to_move"]),
        laid=tuple(rows["laid"]),
        location_counts=count_array,
    )


def as_progress(source: Game | GameProgress) -> GameProgress:
    """``source`` itself, or the progress of a game."""
    if isinstance(source, GameProgress):
        return source
    if isinstance(source, Game):
        return game_progress(source)
    raise KwartetError(f"{source!r}: expected a Game or a GameProgress")


# ----- plots ------------------------------------------------------------------------


def _mark_events(ax: Axes, progress: GameProgress, *, strip: bool) -> None:
    """Mark each move: yes, no, quartet, draw.

    On a strip of its own (``strip``) the kinds get rows named on the y axis; otherwise
    they sit along the bottom of ``ax`` with the key above the plot."""
    from matplotlib.lines import Line2D
    from matplotlib.transforms import blended_transform_factory

    steps = np.arange(progress.n_steps + 1)
    kinds = np.array(progress.kinds)
    rows = [
        ("answer", [(kinds == "yes", "o", _YES, "yes", 16), (kinds == "no", "x", _NO, "no", 20)])
    ]
    rows.append(("quartet", [(progress.quartet, "*", _QUARTET, "quartet", 80)]))
    if progress.drew.any():
        rows.append(("draw", [(progress.drew, "v", _DRAW, "draw", 20)]))
    # y in axes coordinates on the plain panel (below the curves), data rows on a strip.
    transform = ax.transData if strip else blended_transform_factory(ax.transData, ax.transAxes)
    handles = []
    for number, (_, marks) in enumerate(rows):
        y = (len(rows) - 1 - number) if strip else 0.035 + 0.045 * (len(rows) - 1 - number)
        for mask, marker, colour, label, size in marks:
            handles.append(Line2D([], [], marker=marker, color=colour, linestyle="", label=label))
            if mask.any():
                ax.scatter(
                    steps[mask], np.full(int(mask.sum()), y), marker=marker, color=colour,
                    s=size, zorder=3, gid=f"event-{label}", transform=transform,
                    clip_on=False,
                )  # fmt: skip
    for step in np.flatnonzero(progress.quartet):
        ax.axvline(float(step), color=_QUARTET, alpha=0.3, linewidth=1, zorder=0)
    if strip:
        ax.set_yticks(range(len(rows)), [name for name, _ in reversed(rows)])
        ax.set_ylim(-0.6, len(rows) - 0.4)
        ax.tick_params(axis="y", length=0)
        for side in ("top", "right", "left"):
            ax.spines[side].set_visible(False)
        ax.legend(handles=handles, loc="center left", bbox_to_anchor=(1.0, 0.5),
                  frameon=False, handletextpad=0.2)  # fmt: skip
    else:
        legend = ax.legend(handles=handles, loc="lower left", bbox_to_anchor=(0.0, 1.0),
                           ncol=len(handles), frameon=False)  # fmt: skip
        ax.add_artist(legend)


def _worlds_panel(ax: Axes, progress: GameProgress, players: Sequence[str]) -> None:
    steps = np.arange(progress.n_steps + 1)
    logs = progress.log10_worlds
    for player in players:
        seat = progress.player_index(player)
        colour, style = agent_style(seat)
        ax.plot(steps, logs[:, seat], drawstyle="steps-post", color=colour, linestyle=style,
                linewidth=1.8, label=player)  # fmt: skip
    if any(n is not None for n in progress.public_worlds):
        public = np.array(
            [math.log10(n) if n is not None else np.nan for n in progress.public_worlds]
        )
        ax.plot(steps, public, drawstyle="steps-post", color="#555555", linewidth=1.2,
                linestyle=(0, (1, 1)), label="public record")  # fmt: skip
    ax.set_ylabel("log10 worlds considered possible")
    ax.set_xlim(-0.5, max(progress.n_steps, 1) + 0.5)
    ax.grid(axis="y", alpha=0.3)
    players_legend = ax.legend(loc="upper right", frameon=False, title="player")
    ax.add_artist(players_legend)


def plot_known_share(
    source: Game | GameProgress,
    *,
    ax: Axes | None = None,
    players: Sequence[str] | None = None,
) -> Figure:
    """The share of the cards hidden from each player whose location they know, after
    each move (1 = the player knows where every card is).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
    >>> figure = plot_known_share(game)
    >>> figure.axes[0].get_lines()[0].get_ydata().tolist()
    [0.0]
    """
    from matplotlib.figure import Figure

    progress = as_progress(source)
    if ax is None:
        ax = Figure(figsize=(8, 3), layout="constrained").add_subplot()
    steps = np.arange(progress.n_steps + 1)
    share = progress.known_share
    for player in players or progress.players:
        seat = progress.player_index(player)
        colour, style = agent_style(seat)
        ax.plot(steps, share[:, seat], drawstyle="steps-post", color=colour, linestyle=style,
                linewidth=1.8, label=player)  # fmt: skip
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlim(-0.5, max(progress.n_steps, 1) + 0.5)
    ax.set_xlabel("move (0 = the deal)")
    ax.set_ylabel("hidden cards located")
    ax.yaxis.set_major_formatter("{x:.0%}")
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="upper left", frameon=False)
    figure = ax.get_figure()
    assert figure is not None
    return figure  # type: ignore[return-value]


def plot_progress(
    source: Game | GameProgress,
    *,
    ax: Axes | None = None,
    players: Sequence[str] | None = None,
    title: str | None = None,
    figsize: tuple[float, float] = (9, 6.8),
) -> Figure:
    """Deduction progress of one game: log10 of each player's world count after every
    move (moves marked yes, no, quartet, draw), the public record's count beside them,
    and below it the share of hidden cards each player has located.  Text is set at
    Matplotlib's ``font.size`` (a figure for print sets it in an ``rc_context``);
    ``figsize`` in inches.

    With ``ax`` only the world counts are drawn there.
    """
    from matplotlib.figure import Figure

    progress = as_progress(source)
    chosen = list(players or progress.players)
    if ax is not None:
        _worlds_panel(ax, progress, chosen)
        top = float(np.nanmax(progress.log10_worlds))
        ax.set_ylim(-0.2 * max(top, 1.0), None)  # room for the move marks
        _mark_events(ax, progress, strip=False)
        figure = ax.get_figure()
        assert figure is not None
        return figure  # type: ignore[return-value]
    figure = Figure(figsize=figsize, layout="constrained")
    rows = 3 if progress.drew.any() else 2
    top, strip, bottom = figure.subplots(3, 1, sharex=True, height_ratios=[3, 0.25 * rows + 0.1, 2])
    _worlds_panel(top, progress, chosen)
    _mark_events(strip, progress, strip=True)
    plot_known_share(progress, ax=bottom, players=chosen)
    top.set_title(
        title
        if title is not None
        else f"Deduction in a {len(progress.deck)}-card game, {progress.rules.name} rules: "
        f"{progress.n_steps} moves",
    )
    return figure


def narrate(progress: GameProgress, step: int) -> list[str]:
    """What move ``step`` taught the table, as sentences: the refusal as a fact, new
    common knowledge, new knowledge of single players, families everyone can place.

    ``progress`` is a :class:`~kwartet_epistemic.viz.GameProgress` (with public counts).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> narrate(game_progress(game), 1)
    ['B has no 7♦.', 'It is now common knowledge that C holds 7♦.']
    """
    return lessons(
        progress.deck,
        progress.players,
        progress.asks[step],
        progress.kinds[step],
        Moment.of_progress(progress, step - 1),
        Moment.of_progress(progress, step),
    )
