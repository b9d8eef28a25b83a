"""Tournaments: many seeded, seat-rotated games between agents, with a summary table.

Every arrangement of the agents over the seats is used equally often (in a cycle; a
multiple of :func:`arrangements` games balances it exactly), so seat bias is not taken for
strength.  Each game's seed comes from a ``numpy.random.SeedSequence`` of the tournament
seed, so any single game can be replayed from its CSV row (:func:`replay_game`).  With
``out`` the results are appended to a CSV file as games finish; a run started again with
the same settings and file continues where it stopped and loses nothing.  ``jobs`` runs
games on several processes; ``scheduler`` on a dask.distributed cluster.

>>> import kwartet_epistemic as kw
>>> result = kw.tournament(["knowledge", "random", "random"], games=6, seed=1,
...                        deck=kw.Deck.piquet(families=4))
>>> len(result.games), sorted({g.agents for g in result.games}) == sorted(set(arrangements(
...     ["knowledge", "random", "random"])))
(6, True)
>>> round(sum(s.win_share * s.seats for s in result.summary()), 9)
1.0
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
import sys
import time
import types
import warnings
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from kwartet_epistemic._safejson import short
from kwartet_epistemic.cards import Deck
from kwartet_epistemic.errors import GameSetupError, KwartetError
from kwartet_epistemic.files import LineAppender, complete_lines, drop_torn_last_line
from kwartet_epistemic.game import MAX_SEED, Ask, Game
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "fresh_seed",
    "GameResult",
    "MAX_ASKS",
    "AgentSummary",
    "ShareSummary",
    "TournamentResult",
    "arrangements",
    "play_game",
    "read_results",
    "replay_game",
    "share_interval",
    "tournament",
    "unequal_seating",
]

SEAT_NAMES = "ABCDEF"
#: A game still running after this many asks is stopped (and marked).
MAX_ASKS = 5_000
MAX_GAMES = 1_000_000  # the schedule of every game is listed up front


def _is_whole(value: object) -> bool:
    """An int that is not a bool (``True`` is not a number of games)."""
    return isinstance(value, int) and not isinstance(value, bool)


@dataclass(frozen=True)
class GameResult:
    """One finished game: the agent spec in each seat (seat order A, B, ...: ``agents[i]``
    sat in seat ``SEAT_NAMES[i]``), scores, winners (seat names; several share the win),
    asks made, the deal seed, whether it ended normally (``finished``) or was stopped at
    :data:`MAX_ASKS`, the ``dealer``'s seat and the seat that moved ``first`` (the
    dealer's left, unless that player could not ask).  ``dealer`` and ``first`` are None
    only for results made by hand or read from a CSV file written before they were
    recorded.

    >>> result = GameResult(0, 7, ("knowledge", "random", "random"), (2, 2, 0), ("A", "B"), 30,
    ...                     dealer="C", first="A")
    >>> result.share(0), result.share(2), result.position(0), result.position(2)
    (0.5, 0.0, 0, 2)
    """

    game: int
    seed: int
    agents: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[str, ...]
    asks: int
    finished: bool = True
    dealer: str | None = None
    first: str | None = None

    def share(self, seat: int) -> float:
        """The seat's share of the win (1/k when k seats share it)."""
        return 1.0 / len(self.winners) if SEAT_NAMES[seat] in self.winners else 0.0

    def position(self, seat: int) -> int | None:
        """The seat's place in the turn order: 0 for the first mover, 1 for the next
        player clockwise, ...; None when the first mover was not recorded."""
        if self.first is None:
            return None
        return (seat - SEAT_NAMES.index(self.first)) % len(self.agents)


@dataclass(frozen=True)
class AgentSummary:
    """One agent spec over a tournament (pooled over the seats it played).

    ``win_share`` is its mean share of the win per seat and game (1/n if all are equal);
    ``win_interval`` is the 95% interval of :func:`share_interval` (its method in
    ``win_method``: ``"wilson"``, ``"t"`` or ``"bounded"``) over the games, divided by the
    seats; ``quartets_interval`` a 95% t interval of the mean quartets per seat, kept
    within 0 and the number of families.  Both are ``(nan, nan)`` with fewer than 2
    games: one game says nothing about the spread.

    >>> result = tournament(["greedy", "random", "random"], games=3, seed=2)
    >>> [(row.agent, row.seats) for row in result.summary()]
    [('greedy', 1), ('random', 2)]
    """

    agent: str
    seats: int
    games: int
    win_share: float
    win_interval: tuple[float, float]
    mean_quartets: float
    quartets_interval: tuple[float, float]
    win_method: str = "t"


@dataclass(frozen=True)
class ShareSummary:
    """The win share of one seat (``"A"``, ...) or one place in the turn order (``"1"``
    moves first, ``"2"`` next, ...), over the ``games`` that count for it, with its 95%
    interval and method (:func:`share_interval`).  Under seat rotation every seat and
    place should have 1/n; a large difference is seat bias.

    >>> ShareSummary("A", 12, 0.25, (0.08, 0.53), "wilson").label
    'A'
    """

    label: str
    games: int
    win_share: float
    win_interval: tuple[float, float]
    method: str


@dataclass(frozen=True)
class TournamentResult:
    """The games of a tournament, with its settings.

    >>> result = tournament(["greedy", "random", "random"], games=3, seed=2)
    >>> print(result.table())  # doctest: +ELLIPSIS
    agent   seats  win share  95% interval ...
    greedy      1 ...
    3 games, publisher rules, 32 cards, tournament seed 2
    win share by seat:
      A ...
    win share by turn order (1 moves first):
      1 ...
    """

    agents: tuple[str, ...]
    games: tuple[GameResult, ...]
    rules: RuleSet
    deck: Deck
    seed: int
    seconds: float = 0.0

    def summary(self) -> list[AgentSummary]:
        """Win share (shared wins split), mean quartets and 95% intervals, per agent spec."""
        specs = list(dict.fromkeys(self.agents))
        rows = []
        n = len(self.games)
        for spec in specs:
            seats = sum(1 for a in self.agents if a == spec)
            taken = np.zeros(n)  # the spec's whole share of each game's win (0 to 1)
            quartets = np.zeros(n)
            for k, game in enumerate(self.games):
                mine = [s for s, a in enumerate(game.agents) if a == spec]
                taken[k] = sum(game.share(s) for s in mine)
                quartets[k] = sum(game.scores[s] for s in mine) / len(mine)
            (low, high), method = share_interval(taken)
            rows.append(
                AgentSummary(
                    spec, seats, n, float(taken.mean()) / seats if n else 0.0,
                    (low / seats, high / seats), float(quartets.mean()) if n else 0.0,
                    _t_interval(quartets, 0.0, float(self.deck.n_families)), method,
                )
            )  # fmt: skip
        return rows

    def by_seat(self, agent: str | None = None) -> list[ShareSummary]:
        """Win share by seat (A, B, ...), over every game, or with ``agent`` over the
        games in which that spec sat in the seat.

        >>> result = tournament(["greedy", "random", "random"], games=6, seed=2)
        >>> [row.label for row in result.by_seat()]
        ['A', 'B', 'C']
        >>> round(sum(row.win_share for row in result.by_seat()), 9)
        1.0
        """
        width = len(self.agents)
        return [
            _share_row(
                SEAT_NAMES[seat],
                [g.share(seat) for g in self.games if agent is None or g.agents[seat] == agent],
            )
            for seat in range(width)
        ]

    def by_position(self, agent: str | None = None) -> list[ShareSummary]:
        """Win share by place in the turn order: label ``"1"`` for the first mover,
        ``"2"`` for the next player clockwise, ...; with ``agent`` only the games in which
        that spec had the place.  Games without a recorded first mover are left out.

        >>> result = tournament(["greedy", "random", "random"], games=6, seed=2)
        >>> [(row.label, row.games) for row in result.by_position("greedy")]
        [('1', 2), ('2', 2), ('3', 2)]
        """
        width = len(self.agents)
        values: list[list[float]] = [[] for _ in range(width)]
        for game in self.games:
            for seat in range(width):
                place = game.position(seat)
                if place is not None and (agent is None or game.agents[seat] == agent):
                    values[place].append(game.share(seat))
        return [_share_row(str(place + 1), values[place]) for place in range(width)]

    def table(self) -> str:
        """The summary as aligned text, then the win share by seat and by turn order."""
        width = max([len("agent"), *(len(a) for a in self.agents)])
        lines = [
            f"{'agent':<{width}}  seats  win share  95% interval       mean quartets  95% interval"
        ]
        for row in self.summary():
            lines.append(
                f"{row.agent:<{width}}  {row.seats:>5}  {row.win_share:9.3f}  "
                f"{_bracket(row.win_interval, 3):<16}   {row.mean_quartets:13.2f}  "
                f"{_bracket(row.quartets_interval, 2)}"
            )
        unfinished = sum(1 for g in self.games if not g.finished)
        lines.append(
            f"{len(self.games)} games, {self.rules.name} rules, {len(self.deck)} cards, "
            f"tournament seed {self.seed}"
            + (f", {unfinished} stopped after {MAX_ASKS} asks" if unfinished else "")
        )
        unequal = unequal_seating(self.agents, len(self.games))
        if unequal:
            lines.append(unequal)
        for title, rows in (
            ("by seat", self.by_seat()),
            ("by turn order (1 moves first)", self.by_position()),
        ):
            lines.append(f"win share {title}:")
            lines.extend(
                f"  {row.label}  {row.win_share:6.3f}  {_bracket(row.win_interval, 3)}"
                for row in rows
            )
        if len(self.games) < 2:
            lines.append("(an interval needs 2 games or more: n/a)")
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.table()


def _bracket(interval: tuple[float, float], digits: int) -> str:
    low, high = interval
    if math.isnan(low) or math.isnan(high):
        return "[n/a]"
    return f"[{low:.{digits}f}, {high:.{digits}f}]"


def _share_row(label: str, values: Sequence[float]) -> ShareSummary:
    array = np.asarray(values, dtype=float)
    interval, method = share_interval(array)
    return ShareSummary(
        label, len(array), float(array.mean()) if len(array) else 0.0, interval, method
    )


def unequal_seating(agents: Sequence[str], games: int) -> str | None:
    """None if ``games`` seat-rotated games play every seating of ``agents`` equally often,
    else a sentence saying how unequal it is and which numbers of games would be equal.

    >>> unequal_seating(["knowledge", "defensive:facts", "random", "random"], 24) is None
    True
    >>> print(unequal_seating(["knowledge", "defensive:facts", "random", "random"], 40))
    40 games cannot seat everyone equally: 12 seatings, 4 of them played 4 times and 8 3 times;
    use a multiple of 12 (36 or 48)
    """
    count = len(arrangements(agents))
    extra = games % count
    if extra == 0:
        return None
    rounds = games // count
    below, above = rounds * count, (rounds + 1) * count
    nearest = f"{below} or {above}" if below else f"{above}"

    def played(times: int) -> str:
        return {0: "not at all", 1: "once", 2: "twice"}.get(times, f"{times} times")

    return (
        f"{games} games cannot seat everyone equally: {count} seatings, {extra} of them played "
        f"{played(rounds + 1)} and {count - extra} {played(rounds)}; use a multiple of "
        f"{count} ({nearest})"
    )


def share_interval(
    values: Sequence[float] | np.ndarray, confidence: float = 0.95
) -> tuple[tuple[float, float], str]:
    """A ``confidence`` interval of the mean of per-game win shares (each from 0 to 1),
    and the method used:

    * ``"none"``, ``(nan, nan)``: fewer than 2 games (one game says nothing about the
      spread; an interval of zero width would claim certainty);
    * ``"wilson"``: every value is 0 or 1 (nobody shared a win with it): a proportion,
      and the Wilson score interval (``scipy.stats.binomtest``) is right for it even at
      0 or n wins out of n;
    * ``"t"``: shared wins make fractions: the Student t interval of the mean
      (``scipy.stats.t``), kept within 0 and 1;
    * ``"bounded"``: fractions that are all equal (a t interval would have zero width):
      the Wilson formula with the mean for p, which holds for any values in [0, 1]
      because none has a larger variance than a 0/1 one with the same mean.

    >>> share_interval([1.0])
    ((nan, nan), 'none')
    >>> (low, high), method = share_interval([0.0] * 23 + [1.0])
    >>> method, round(low, 4), round(high, 4)
    ('wilson', 0.0074, 0.2024)
    >>> (low, high), method = share_interval([0.5, 0, 1, 1, 0, 0, 0.5, 0, 1, 0])
    >>> method, round(low, 4), round(high, 4)  # 0.4 -+ 2.262 * 0.459 / sqrt(10)
    ('t', 0.0713, 0.7287)
    """
    from scipy import stats

    array = np.asarray(values, dtype=float)
    n = len(array)
    if not 0.0 < confidence < 1.0:
        raise KwartetError(f"confidence={short(confidence)}: expected a number between 0 and 1")
    if array.ndim != 1 or (n and not ((array >= 0.0) & (array <= 1.0)).all()):
        raise KwartetError(
            f"share_interval: expected a list of win shares from 0 to 1, got {short(values)}"
        )
    if n < 2:
        return (math.nan, math.nan), "none"
    if ((array == 0.0) | (array == 1.0)).all():
        wins = int(array.sum())
        ci = stats.binomtest(wins, n).proportion_ci(confidence, method="wilson")
        return (max(0.0, float(ci.low)), min(1.0, float(ci.high))), "wilson"
    mean = float(array.mean())
    spread = float(array.std(ddof=1))
    if spread == 0.0:
        z = float(stats.norm.ppf(0.5 + confidence / 2))
        centre = (mean + z * z / (2 * n)) / (1 + z * z / n)
        half = z / (1 + z * z / n) * math.sqrt(mean * (1 - mean) / n + z * z / (4 * n * n))
        return (max(0.0, centre - half), min(1.0, centre + half)), "bounded"
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * spread / math.sqrt(n)
    return (max(0.0, mean - half), min(1.0, mean + half)), "t"


def _t_interval(values: np.ndarray, low: float, high: float) -> tuple[float, float]:
    """The 95% Student t interval of the mean of ``values``, kept within the range
    ``[low, high]`` that every value lies in; ``(nan, nan)`` for fewer than 2 values.

    >>> _t_interval(np.array([1.0, 2.0, 3.0]), 0.0, 4.0)  # 2 -+ 4.303 * 1 / sqrt(3)
    (0.0, 4.0)
    >>> [round(x, 4) for x in _t_interval(np.array([1.0, 2.0, 2.0, 3.0]), 0.0, 4.0)]
    [0.7008, 3.2992]
    """
    from scipy import stats

    if len(values) < 2:
        return (math.nan, math.nan)
    mean = float(values.mean())
    half = float(stats.t.ppf(0.975, len(values) - 1)) * float(values.std(ddof=1))
    half /= math.sqrt(len(values))
    return (max(low, mean - half), min(high, mean + half))


def arrangements(agents: Sequence[str]) -> list[tuple[str, ...]]:
    """The distinct seatings of the agents (seat order), in a fixed order.

    >>> len(arrangements(["knowledge", "defensive:facts", "random", "random"]))
    12
    """
    return sorted(set(itertools.permutations(agents)))


def _schedule(
    agents: Sequence[str], games: int, seed: int
) -> list[tuple[int, int, tuple[str, ...]]]:
    """(game index, deal seed, seating) for every game of the tournament."""
    seatings = arrangements(agents)
    children = np.random.SeedSequence(seed).spawn(games)
    return [
        (
            k,
            int(child.generate_state(1, dtype=np.uint64)[0] >> np.uint64(1)),
            seatings[k % len(seatings)],
        )
        for k, child in enumerate(children)
    ]


def play_game(
    agents: Sequence[str],
    seed: int,
    rules: RuleSet | None = None,
    deck: Deck | None = None,
    game_index: int = 0,
) -> GameResult:
    """Play one game: ``agents[i]`` sits in seat ``SEAT_NAMES[i]``; the deal and every
    agent's random numbers come from ``seed``.

    >>> result = play_game(["knowledge", "random", "random"], seed=5,
    ...                    deck=kw.Deck.piquet(families=3))
    >>> result.agents, sum(result.scores), result.finished
    (('knowledge', 'random', 'random'), 3, True)
    """
    from kwartet_epistemic.agents.agent import make_player

    game, players = _deal(agents, seed, rules, deck)
    first = _first_to_move(game, players)
    computer = {
        p: make_player(spec, p, np.random.default_rng([seed, seat]))
        for seat, (p, spec) in enumerate(zip(players, agents, strict=True))
    }
    asks = 0
    while not game.is_over and asks < MAX_ASKS:
        player = game.to_move
        assert player is not None
        choice = computer[player].choose(game.view(player))
        if isinstance(choice, Ask):
            game.play(choice)
            asks += 1
        else:
            game.turn_over(choice)
    scores = game.scores
    if game.is_over:
        winners = game.winners
    else:
        best = max(scores.values())
        winners = tuple(p for p in players if scores[p] == best)
    return GameResult(
        game_index,
        seed,
        tuple(agents),
        tuple(scores[p] for p in players),
        tuple(winners),
        asks,
        game.is_over,
        game.dealer,
        first,
    )


def _first_to_move(game: Game, players: Sequence[str]) -> str:
    """Who has the first turn: the dealer's left, unless that player cannot ask; the
    dealer's left also when the deal ended the game (nobody moved)."""
    if game.to_move is not None:
        return game.to_move
    return players[(players.index(game.dealer) + 1) % len(players)]


def _deal(
    agents: Sequence[str], seed: int, rules: RuleSet | None, deck: Deck | None
) -> tuple[Game, list[str]]:
    if not 2 <= len(agents) <= len(SEAT_NAMES):
        raise GameSetupError(f"{len(agents)} agents: a game seats 3 to 6 (2 with a draw pile)")
    players = list(SEAT_NAMES[: len(agents)])
    game = Game.deal(deck or Deck.piquet(), players, seed=seed, rules=rules)
    return game, players


def replay_game(result: GameResult, rules: RuleSet | None = None, deck: Deck | None = None) -> Game:
    """Play a tournament game again from its result (or CSV row): the same game, move
    for move.

    >>> first = kw.tournament(["greedy", "random", "random"], games=3, seed=3).games[0]
    >>> replay_game(first).scores == dict(zip("ABC", first.scores))
    True
    """
    from kwartet_epistemic.agents.agent import make_player

    if not isinstance(result, GameResult):
        raise KwartetError(
            f"replay_game({short(result)}): expected a GameResult, such as one of "
            "tournament(...).games or read_results(path)"
        )
    game, players = _deal(result.agents, result.seed, rules, deck)
    computer = {
        p: make_player(spec, p, np.random.default_rng([result.seed, seat]))
        for seat, (p, spec) in enumerate(zip(players, result.agents, strict=True))
    }
    asks = 0
    while not game.is_over and asks < MAX_ASKS:
        player = game.to_move
        assert player is not None
        choice = computer[player].choose(game.view(player))
        if isinstance(choice, Ask):
            game.play(choice)
            asks += 1
        else:
            game.turn_over(choice)
    return game


# ----- running many games --------------------------------------------------------------

_WORKER: dict[str, Any] = {}


def _worker_setup(rules: RuleSet, deck: Deck) -> None:
    _WORKER["rules"], _WORKER["deck"] = rules, deck
    import kwartet_epistemic.agents  # noqa: F401  (registers the policies in the worker)


def _play_tasks(tasks: list[tuple[int, int, tuple[str, ...]]]) -> list[GameResult]:
    """A worker's games, with the rules and deck its initializer stored."""
    rules, deck = _WORKER["rules"], _WORKER["deck"]
    return [play_game(seating, seed, rules, deck, index) for index, seed, seating in tasks]


def _play_chunk(
    tasks: list[tuple[int, int, tuple[str, ...]]], rules: RuleSet, deck: Deck
) -> list[GameResult]:
    return [play_game(seating, seed, rules, deck, index) for index, seed, seating in tasks]


def fresh_seed() -> int:
    """A new seed from the operating system's entropy, below 2**63 (it fits every CSV
    reader and JSON number): what a tournament without ``seed`` plays and records.

    >>> 0 <= fresh_seed() < 2**63
    True
    """
    return int(np.random.SeedSequence().entropy % (1 << 63))  # type: ignore[operator]


def tournament(
    agents: Sequence[str],
    games: int,
    *,
    rules: RuleSet | None = None,
    deck: Deck | None = None,
    seed: int | None = None,
    jobs: int = 1,
    out: str | os.PathLike[str] | None = None,
    scheduler: str | None = None,
    progress: bool = False,
) -> TournamentResult:
    """Play ``games`` seat-rotated games between ``agents`` (one spec per seat, such as
    ``["knowledge", "defensive:facts", "random", "random"]``).

    Game ``k`` is played in seating ``k mod S`` of the ``S`` distinct seatings
    (:func:`arrangements`); when ``games`` is no multiple of ``S`` some seatings are played
    once more than others, and a ``UserWarning`` and the table say so
    (:func:`unequal_seating`).

    ``seed`` fixes everything (None: a fresh one, recorded in the CSV).  ``jobs`` worker
    processes, or a dask.distributed ``scheduler`` address; ``out`` appends each game to a
    CSV file as it finishes and resumes an interrupted run; ``progress`` shows a tqdm bar.
    """
    from kwartet_epistemic.agents.agent import AgentSpec, make_player, player_names

    if isinstance(agents, str | bytes) or not isinstance(agents, Sequence):
        raise GameSetupError(
            f"agents {short(agents)}: expected a list of agent specs, one per seat, such as "
            "['knowledge', 'random', 'random']"
        )
    agents = tuple(str(a).strip() for a in agents)
    if not 2 <= len(agents) <= len(SEAT_NAMES):
        raise GameSetupError(f"{len(agents)} agents: a game seats 3 to 6 (2 with a draw pile)")
    for spec in agents:
        if ":" in spec or "[" in spec:
            AgentSpec.parse(spec)  # refuse a bad spec before any game is played
        elif spec.lower().replace("-", "_") not in player_names():
            raise GameSetupError(f"unknown agent {spec!r}; known: {', '.join(player_names())}")
        make_player(spec, "A", np.random.default_rng(0))
    if not _is_whole(games) or not 0 <= games <= MAX_GAMES:
        raise GameSetupError(
            f"games={short(games)}: expected a whole number from 0 to {MAX_GAMES:,}"
        )
    if not _is_whole(jobs) or not 1 <= jobs <= 1024:
        raise GameSetupError(f"jobs={short(jobs)}: expected a whole number from 1 to 1024")
    if seed is not None and (not _is_whole(seed) or not 0 <= seed <= MAX_SEED):
        raise GameSetupError(
            f"seed={short(seed)}: expected None or an integer from 0 to 2**256 - 1"
        )
    if scheduler is not None and not isinstance(scheduler, str):
        raise GameSetupError(f"scheduler={short(scheduler)}: expected a dask scheduler address")
    unequal = unequal_seating(agents, games)
    if unequal:
        warnings.warn(unequal, UserWarning, stacklevel=2)
    rules = rules if rules is not None else RuleSet()
    deck = deck if deck is not None else Deck.piquet()
    _deal(agents, 0, rules, deck)  # a bad setup fails here, not in a worker
    path = Path(out) if out is not None else None
    done: dict[int, GameResult] = {}
    if path is not None and path.exists() and path.stat().st_size:
        stored_seed, done = _read_results(path, agents, rules, deck, seed)
        seed = stored_seed
    if seed is None:
        seed = fresh_seed()
    tasks = [t for t in _schedule(agents, games, seed) if t[0] not in done]
    start = time.perf_counter()
    writer = _CsvAppender(path, len(agents), rules, deck, seed) if path is not None else None
    bar = _progress(games, len(done), progress)
    try:
        for result in _run(tasks, rules, deck, jobs, scheduler):
            done[result.game] = result
            if writer is not None:
                writer.write(result)
            bar(1)
    finally:
        if writer is not None:
            writer.close()
        bar(0, close=True)
    ordered = tuple(done[k] for k in sorted(done) if k < games)
    return TournamentResult(agents, ordered, rules, deck, seed, time.perf_counter() - start)


def _run(
    tasks: list[tuple[int, int, tuple[str, ...]]],
    rules: RuleSet,
    deck: Deck,
    jobs: int,
    scheduler: str | None,
) -> Iterator[GameResult]:
    if not tasks:
        return
    if scheduler is not None:
        yield from _run_dask(tasks, rules, deck, scheduler)
        return
    if jobs == 1:
        for index, seed, seating in tasks:
            yield play_game(seating, seed, rules, deck, index)
        return
    from concurrent.futures import as_completed
    from concurrent.futures.process import BrokenProcessPool

    from kwartet_epistemic.parallel import process_executor

    size = max(1, min(8, len(tasks) // (jobs * 8)))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    # An executor, not a multiprocessing.Pool: a worker that dies (for one, a script
    # without ``if __name__ == "__main__":`` fails as each new worker imports it) breaks
    # it and the run stops with an error, where a Pool would start new workers forever.
    pool = process_executor(jobs, initializer=_worker_setup, initargs=(rules, deck))
    try:
        for future in as_completed([pool.submit(_play_tasks, chunk) for chunk in chunks]):
            yield from future.result()
    except BrokenProcessPool as err:
        raise KwartetError(
            f"tournament(jobs={jobs}): a worker process stopped ({err}).  Workers start "
            "with forkserver or spawn and import the main module: in a script, call "
            'tournament under `if __name__ == "__main__":`'
        ) from None
    finally:  # stopped early (an error, Ctrl-C): drop the games not started
        pool.shutdown(wait=False, cancel_futures=True)


def _run_dask(
    tasks: list[tuple[int, int, tuple[str, ...]]], rules: RuleSet, deck: Deck, scheduler: str
) -> Iterator[GameResult]:
    try:
        from distributed import Client, as_completed
    except ImportError:
        raise GameSetupError(
            "--scheduler needs dask.distributed: pip install 'kwartet_epistemic[dask]'"
        ) from None
    size = max(1, min(25, len(tasks) // 50))
    chunks = [tasks[i : i + size] for i in range(0, len(tasks), size)]
    with Client(scheduler) as client:
        futures = client.map(_play_chunk, chunks, rules=rules, deck=deck, pure=False)
        for future in as_completed(futures):
            yield from future.result()


def _progress(total: int, initial: int, show: bool) -> Callable[..., None]:
    if not show:
        return lambda n, close=False: None
    from tqdm import tqdm

    bar = tqdm(total=total, initial=initial, unit="game", file=sys.stderr)

    def update(n: int, close: bool = False) -> None:
        if n:
            bar.update(n)
        if close:
            bar.close()

    return update


# ----- CSV ---------------------------------------------------------------------------


def _columns(n: int) -> list[str]:
    seats = SEAT_NAMES[:n]
    return (
        ["game", "seed"]
        + [f"agent_{s}" for s in seats]
        + [f"score_{s}" for s in seats]
        + ["winners", "asks", "finished", "dealer", "first_mover"]
        + ["rules", "deck", "tournament_seed"]
    )


def _old_columns(n: int) -> list[str]:
    """The header written before the dealer and first mover were recorded."""
    return [c for c in _columns(n) if c not in ("dealer", "first_mover")]


class _CsvAppender:
    """Appends one row per finished game: each row goes to the file in one ``write()``
    of the whole line and is flushed to disk before the next game is counted, so a run
    killed at any moment (``kill -9``, a full disk, Ctrl-C) loses at most the row being
    written and leaves it torn, which a resumed run cuts off (:func:`_read_results`)."""

    def __init__(self, path: Path, n: int, rules: RuleSet, deck: Deck, seed: int) -> None:
        new = not path.exists() or path.stat().st_size == 0
        self.out = LineAppender(path)
        self.rules, self.deck, self.seed = rules, deck, seed
        self._rules, self._deck = _rules_text(rules), repr(deck)
        if new:
            self.out.append(_csv_line(_columns(n)))

    def write(self, result: GameResult) -> None:
        self.out.append(
            _csv_line(
                [result.game, result.seed, *result.agents, *result.scores,
                 " ".join(result.winners), result.asks, int(result.finished),
                 result.dealer or "", result.first or "", self._rules, self._deck, self.seed]
            )
        )  # fmt: skip

    def close(self) -> None:
        self.out.close()


def _csv_line(fields: Sequence[object]) -> bytes:
    """One CSV row as the bytes of a whole line (quoted as the csv module does, ending
    in ``\\r\\n``)."""
    buffer = io.StringIO()
    csv.writer(buffer).writerow(fields)
    return buffer.getvalue().encode("utf-8")


def _rules_text(rules: RuleSet) -> str:
    import json

    return json.dumps(rules.to_dict(), sort_keys=True, separators=(",", ":"))


def _read_results(
    path: Path, agents: Sequence[str], rules: RuleSet, deck: Deck, seed: int | None
) -> tuple[int, dict[int, GameResult]]:
    """The games already in ``path``; refuses a file of another tournament.  A torn last
    row (a run stopped while writing it) is cut off first; a file left with no whole line
    (stopped while writing the header) starts afresh."""
    _drop_torn_last_line(path)
    try:
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
    except (UnicodeDecodeError, csv.Error) as err:
        raise KwartetError(f"{path}: not a tournament results file (CSV in UTF-8): {err}") from err
    n = len(agents)
    if not rows:
        rows = [_columns(n)]
    if rows[0] == _old_columns(n):
        raise KwartetError(
            f"{path}: written by an earlier version, without the dealer and first_mover "
            "columns; a resumed run cannot add rows to it.  Choose another output file (the "
            "games in it stay readable with read_results)"
        )
    if rows[0] != _columns(n):
        raise KwartetError(
            f"{path}: not a results file of a {n}-seat tournament (its header differs); "
            "choose another output file"
        )
    done: dict[int, GameResult] = {}
    stored_seed: int | None = None
    for line, row in enumerate(rows[1:], start=2):
        if len(row) != len(rows[0]):
            raise KwartetError(f"{path}, line {line}: expected {len(rows[0])} fields")
        record = dict(zip(rows[0], row, strict=True))
        row_agents = tuple(record[f"agent_{s}"] for s in SEAT_NAMES[:n])
        row_seed = _whole(record["tournament_seed"], path, line, "tournament_seed")
        if (
            sorted(row_agents) != sorted(agents)
            or record["rules"] != _rules_text(rules)
            or record["deck"] != repr(deck)
            or (seed is not None and row_seed != seed)
            or (stored_seed is not None and row_seed != stored_seed)
        ):
            raise KwartetError(
                f"{path}, line {line}: this file holds another tournament (agents "
                f"{', '.join(row_agents)}, tournament seed {row_seed}); choose another output "
                "file or the same settings to resume it"
            )
        stored_seed = row_seed
        winners = tuple(record["winners"].split())
        number = _whole(record["game"], path, line, "game")
        done[number] = GameResult(
            number, _whole(record["seed"], path, line, "seed"), row_agents,
            tuple(_whole(record[f"score_{s}"], path, line, f"score_{s}") for s in SEAT_NAMES[:n]),
            winners, _whole(record["asks"], path, line, "asks"), record["finished"] == "1",
            _seat_name(record["dealer"], n, path, line, "dealer"),
            _seat_name(record["first_mover"], n, path, line, "first_mover"),
        )  # fmt: skip
    if stored_seed is None:
        stored_seed = seed
    if stored_seed is None:
        stored_seed = fresh_seed()
    return stored_seed, done


def _drop_torn_last_line(path: Path) -> None:
    """A run stopped mid-write can leave half a row: cut it off before resuming."""
    drop_torn_last_line(path)


def read_results(path: str | os.PathLike[str]) -> list[GameResult]:
    """The games stored in a tournament CSV file.  A file written before the dealer and
    first mover were recorded is read too, with ``dealer`` and ``first`` None.

    >>> import tempfile, pathlib
    >>> out = pathlib.Path(tempfile.mkdtemp()) / "results.csv"
    >>> played = tournament(["greedy", "random", "random"], games=3, seed=4, out=out)
    >>> sorted(read_results(out), key=lambda g: g.game) == list(played.games)
    True
    """
    # A torn last row (a run stopped while writing it) is not a game: leave it out.
    try:
        text = complete_lines(Path(path).read_bytes()).decode("utf-8")
        rows = list(csv.DictReader(io.StringIO(text, newline="")))
    except OSError as err:
        raise KwartetError(
            f"cannot read tournament results {short(str(path))}: {err.strerror or err}"
        ) from err
    except (UnicodeDecodeError, csv.Error) as err:
        raise KwartetError(f"{path}: not a tournament results file (CSV in UTF-8): {err}") from err
    results = []
    for line, record in enumerate(rows, start=2):
        seats = [s for s in SEAT_NAMES if f"agent_{s}" in record]
        missing = [c for c in ("game", "seed", "winners", "asks", "finished") if c not in record]
        if missing or not seats or None in record.values() or None in record:
            raise KwartetError(
                f"{path}, line {line}: not a row of a tournament results file (columns "
                f"{', '.join(missing) or 'of its header'} missing or extra fields)"
            )
        results.append(
            GameResult(
                _whole(record["game"], path, line, "game"),
                _whole(record["seed"], path, line, "seed"),
                tuple(record[f"agent_{s}"] for s in seats),
                tuple(_whole(record.get(f"score_{s}"), path, line, f"score_{s}") for s in seats),
                tuple(record["winners"].split()),
                _whole(record["asks"], path, line, "asks"),
                record["finished"] == "1",
                _seat_name(record.get("dealer"), len(seats), path, line, "dealer"),
                _seat_name(record.get("first_mover"), len(seats), path, line, "first_mover"),
            )  # fmt: skip
        )
    return results


def _seat_name(text: str | None, n: int, path: object, line: int, column: str) -> str | None:
    """A seat name read from a results file; None for a file without the column (written
    before it existed) or an empty field."""
    if text is None or text == "":
        return None
    if text not in SEAT_NAMES[:n]:
        raise KwartetError(
            f"{path}, line {line}: {column} {short(text)}: expected one of the seats "
            f"{', '.join(SEAT_NAMES[:n])}"
        )
    return text


def _whole(text: object, path: object, line: int, column: str) -> int:
    """A whole number >= 0 read from a results file, or KwartetError naming the place
    (int() alone gives Python's ValueError, and refuses more than 4300 digits)."""
    if not isinstance(text, str) or not 1 <= len(text) <= 80 or not text.isdigit():
        raise KwartetError(
            f"{path}, line {line}: {column} {short(text)}: expected a whole number >= 0 "
            "(at most 80 digits)"
        )
    return int(text)


class _CallableModule(types.ModuleType):
    """``kw.tournament`` is both this module and its main function: tools that import
    the module by path (pytest's importlib mode, for one) rebind the package attribute
    to the module, so the module itself forwards calls to :func:`tournament`."""

    def __call__(self, *args: Any, **kwargs: Any) -> TournamentResult:
        return tournament(*args, **kwargs)


sys.modules[__name__].__class__ = _CallableModule
