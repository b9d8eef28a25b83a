"""The rules and deduction: what each rule set lets players work out (research question d).

Rule sets (``RULE_SETS``), each played by four ``knowledge`` agents (exact epistemic
state, first-order policy: a card whose holder it knows, else the likeliest yes) on the
32-card deck with 4 players:

- ``publisher``: the default profile (after a "no" the asked player moves);
- ``clockwise``: the ``lamas`` preset, i.e. publisher with the turn passing clockwise
  after a "no" (the ``dutch`` preset plays the very same games at 4 players and 32
  cards -- equal hands of 8 leave nothing aside -- and differs only in its tie break);
- ``fish``: the ``fish`` preset (7 cards each, the other 4 form a face-down stock; a
  refused asker draws).  At 4 players the stock holds 4 cards, so a game has at most 4
  draws and the draw-pile counting (exponential in the draws) stays cheap: every move
  is measured;
- ``bluffing``: publisher with bluffing allowed.  The ``knowledge`` policy never bluffs
  (an ask for its own card has chance 0 of a yes; the ``bluffs`` column counts them and
  stays 0), but nobody may assume so: an ask no longer announces that the asker lacks
  the card, which is what the rule changes for deduction;
- ``memory``: Memory Kwartet with 4 cards face down in the middle (7 in each hand).  The
  agents' policy only asks, so the script adds one rule: a player who may turn over a
  middle card does so (the lowest face-down slot) before asking; all four are face up
  after each player's first turn, and their families can never be completed.

Measured after the deal and after every ask (``turn`` = asks so far; in Memory Kwartet a
turn-over is measured with the ask that follows it):

- for each player P, ``hidden_P`` = cards in the other players' hands, ``located_P`` =
  how many of them P's exact state locates (:meth:`EpistemicState.location_counts`:
  the card's holder is the same in every world P considers possible -- exact integer
  counts, no floating point);
- for the public (outsider) view, ``public_hidden`` = cards in all hands and
  ``public_located`` = how many the public model (every world consistent with the
  public record) locates;
- ``ck_families``: families whose four cards' places are common knowledge among the
  players.  **Definition:** a card's place is common knowledge when it is exposed, or
  face up, or the public model places it in one hand (or in no hand: the stock or the
  middle) in every world.  That is what ``C_{A,B,C,D}`` means here: the public model is
  the set of worlds the players' partitions live in, a formula true in all of it is
  common knowledge (the symbolic engine's shortcut uses this), and the converse holds
  when the actual world's common-knowledge component (the union of the players'
  partitions) is the whole public model.  :func:`check_common_knowledge` checks that on
  small random games of every rule set with the explicit Kripke model (card by card
  ``C_G has(Q, c)`` against the public model); the summary prints the counts.  Without
  bluffing the component was the whole public model at every position checked; with
  bluffing it was smaller at about 1% of the positions (17 of 1,809 in the saved run),
  where ``C`` held for a few cards the public model leaves open (34 of 8,214): there
  the measure is a lower bound on what is common knowledge, and its time an upper
  bound.  Located in the public model always implies ``C`` (checked on every card).

Per game (``rules_compare_games.csv``): seed, seating, dealer, first mover, scores,
winners, asks, turns (maximal runs of asks by one player), bluffs, turn-overs, and per
family the ask at which it became common knowledge (``ck_<family>``) and the ask at which
it was exposed (``exposed_<family>``; empty if never).  The deal seeds are
``seed + game`` for every rule set (the same shuffles; fish and Memory Kwartet deal them
differently).  With four identical agents there is one seating; the dealer (and so the
first mover) is drawn by the deal, so the win share by place in the turn order measures
the first-move advantage, and by seat a seat bias.

Outputs in ``--out``: ``rules_compare_games.csv`` and ``rules_compare_moves.csv``
(game rows and move rows, appended whole per finished game: a run started again goes on
after the games there and drops move rows of a game without its game row),
``rules_compare_located.png``/``.pdf`` (located share by ask, mean and 95% band, per rule
set, for the players and the public), ``rules_compare_ck.png``/``.pdf`` (share of the
families that are common knowledge, and exposed, by ask), ``rules_compare_numbers.tex``,
``rules_compare_table.tex`` and ``rules_compare.txt`` (the summary, also printed).

Run: ``nice -n 10 python experiments/rules_compare.py --games 2000 --jobs 2 --out DIR``
(``--quick``: 4 games per rule set and one common-knowledge check game each).
"""

from __future__ import annotations

import argparse
import csv
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.files import atomic_path, read_csv_rows
from kwartet_epistemic.tournament import GameResult, TournamentResult, arrangements

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

SCRIPT = "experiments/rules_compare.py"
SEATS = ("A", "B", "C", "D")
AGENTS = ("knowledge",) * 4
MEMORY_CARDS = 4
RULE_SETS: dict[str, kw.RuleSet] = {
    "publisher": kw.RuleSet.preset("publisher"),
    "clockwise": kw.RuleSet.preset("lamas"),
    "fish": kw.RuleSet.preset("fish"),
    "bluffing": kw.RuleSet(bluffing=True),
    "memory": kw.RuleSet(memory_cards=MEMORY_CARDS),
}
"""The rule sets compared, by the name the outputs use."""
MAX_ASKS = 2_000
MOVE_COLUMNS = (
    ["rules", "game", "turn"]
    + [f"hidden_{p}" for p in SEATS]
    + [f"located_{p}" for p in SEATS]
    + ["public_hidden", "public_located", "ck_families"]
)


def game_columns(deck: kw.Deck) -> list[str]:
    """The columns of ``rules_compare_games.csv`` for ``deck``."""
    families = list(deck.families)
    return (
        ["rules", "game", "seed", "seating", "dealer", "first"]
        + [f"score_{p}" for p in SEATS]
        + ["winners", "asks", "turns", "bluffs", "turn_overs", "finished", "cpu_s"]
        + [f"ck_{f}" for f in families]
        + [f"exposed_{f}" for f in families]
    )


# ----- measuring one position ------------------------------------------------------


def public_places(state: Any) -> list[str | None]:
    """For every card, its place if that place is common knowledge among the players
    (see the module docstring): "exposed" or a pile name from the public record, a
    player when every public world puts it in that hand, "pile" when no public world
    puts it in a hand; else None.  Exact integer counts.

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "7D")
    >>> places = public_places(kw.knowledge(game))
    >>> places[game.deck.card("7D").index], places[game.deck.card("7S").index]
    ('C', None)
    """
    counts = state.location_counts(None)
    total = state.count_worlds(None)
    seen = state.history.location
    players = state.players
    places: list[str | None] = []
    for c in range(len(state.deck)):
        if seen[c] is not None:
            places.append(seen[c])
            continue
        row = [int(x) for x in counts[c]]
        if not any(row):
            places.append("pile")
        elif total in row:
            places.append(players[row.index(total)])
        else:
            places.append(None)
    return places


def player_located(state: Any, game: kw.Game, player: str) -> tuple[int, int]:
    """(cards in the other players' hands, how many of them ``player`` locates): the
    card lies in that hand in every world ``player`` considers possible."""
    counts = state.location_counts(player)
    total = state.count_worlds(player)
    hidden = located = 0
    for q, holder in enumerate(state.players):
        if holder == player:
            continue
        for card in game.hand(holder):
            hidden += 1
            located += int(counts[card.index, q]) == total
    return hidden, located


# ----- one game ---------------------------------------------------------------------


@dataclass
class Played:
    rules: str
    index: int
    seed: int
    seating: tuple[str, ...]
    moves: list[dict[str, Any]] = field(default_factory=list)
    game: dict[str, Any] = field(default_factory=dict)


def play_measured(
    rules_name: str,
    index: int,
    seed: int,
    seating: Sequence[str] = AGENTS,
    deck: kw.Deck | None = None,
) -> Played:
    """Play one game of ``rules_name`` (a key of :data:`RULE_SETS`) with ``seating``
    (one agent spec per seat A-D) and measure every position (module docstring).

    >>> played = play_measured("publisher", 0, 7, deck=kw.Deck.piquet(families=3))
    >>> played.moves[0]["turn"], played.moves[-1]["turn"] == played.game["asks"]
    (0, True)
    """
    cpu = time.process_time()
    rules = RULE_SETS[rules_name]
    deck = deck or kw.Deck.piquet()
    seating = tuple(seating)
    game = kw.Game.deal(deck, list(SEATS), seed=seed, rules=rules)
    dealer = game.dealer
    first = game.to_move or SEATS[(SEATS.index(dealer) + 1) % len(SEATS)]
    agents = {
        p: make_player(spec, p, np.random.default_rng([seed, seat]))
        for seat, (p, spec) in enumerate(zip(SEATS, seating, strict=True))
    }
    state = kw.knowledge(game)
    families = list(deck.families)
    ck_at: dict[str, int | None] = dict.fromkeys(families)
    exposed_at: dict[str, int | None] = dict.fromkeys(families)
    played = Played(rules_name, index, seed, seating)
    asks = turns = bluffs = turn_overs = 0
    last_asker: str | None = None

    def measure(turn: int) -> None:
        row: dict[str, Any] = {"rules": rules_name, "game": index, "turn": turn}
        for p in SEATS:
            row[f"hidden_{p}"], row[f"located_{p}"] = player_located(state, game, p)
        places = public_places(state)
        hands = [c.index for p in SEATS for c in game.hand(p)]
        row["public_hidden"] = len(hands)
        row["public_located"] = sum(places[c] is not None for c in hands)
        ck = 0
        for f, name in enumerate(families):
            if all(places[c.index] is not None for c in deck.family_cards(f)):
                ck += 1
                if ck_at[name] is None:
                    ck_at[name] = turn
            if exposed_at[name] is None and all(places[c.index] == "exposed"
                                                for c in deck.family_cards(f)):  # fmt: skip
                exposed_at[name] = turn
        row["ck_families"] = ck
        played.moves.append(row)

    measure(0)
    while not game.is_over and asks < MAX_ASKS:
        player = game.to_move
        assert player is not None
        view = game.view(player)
        if view.may_turn_over:
            slot = next(s for s, card in enumerate(game.middle) if card is None)
            game.turn_over(slot)
            turn_overs += 1
            continue
        ask = agents[player].choose(view)
        if ask.card in game.hand(player):
            bluffs += 1
        if player != last_asker:
            turns += 1
            last_asker = player
        game.play(ask)
        asks += 1
        measure(asks)
    scores = game.scores
    winners = game.winners if game.is_over else ()
    played.game = {
        "rules": rules_name, "game": index, "seed": seed, "seating": " ".join(seating),
        "dealer": dealer, "first": first, **{f"score_{p}": scores[p] for p in SEATS},
        "winners": "".join(winners), "asks": asks, "turns": turns, "bluffs": bluffs,
        "turn_overs": turn_overs, "finished": int(game.is_over),
        "cpu_s": round(time.process_time() - cpu, 4),
        **{f"ck_{f}": ("" if ck_at[f] is None else ck_at[f]) for f in families},
        **{f"exposed_{f}": ("" if exposed_at[f] is None else exposed_at[f]) for f in families},
    }  # fmt: skip
    return played


def _play(task: tuple[str, int, int, tuple[str, ...]]) -> Played:
    return play_measured(*task)


# ----- the common-knowledge check ----------------------------------------------------

CHECK_SIZES: dict[str, tuple[int, int, kw.RuleSet]] = {
    "publisher": (3, 3, RULE_SETS["publisher"]),
    "clockwise": (3, 3, RULE_SETS["clockwise"]),
    "fish": (3, 3, kw.RuleSet(draw_pile=True, cards_each=3)),
    "bluffing": (3, 3, RULE_SETS["bluffing"]),
    "memory": (3, 3, kw.RuleSet(memory_cards=1)),
}
"""Small games for :func:`check_common_knowledge`: (families, players, rules)."""


def check_common_knowledge(rules_name: str, games: int, seed: int = 0) -> dict[str, int]:
    """Small games of ``rules_name`` played at random; after every action, with the
    explicit Kripke model: whether the actual world's common-knowledge component (all
    players) is the whole public model, and card by card whether ``C_G has(Q, c)`` (the
    model's own evaluation) agrees with :func:`public_places` (``cards_agree``), and
    whether it holds where :func:`public_places` locates the card
    (``public_located_agree``: always, by the semantics).

    >>> check = check_common_knowledge("publisher", 2)
    >>> check["positions"] > 0, check["component_whole"] == check["positions"]
    (True, True)
    >>> check["cards_agree"] == check["cards"]
    True
    """
    from kwartet_epistemic.invariants import play_random_action

    families, n, rules = CHECK_SIZES[rules_name]
    players = list(SEATS[:n])
    out = {"games": 0, "positions": 0, "component_whole": 0, "cards": 0, "cards_agree": 0,
           "public_located": 0, "public_located_agree": 0}  # fmt: skip
    for g in range(games):
        game = kw.Game.deal(kw.Deck.piquet(families=families), players, seed=seed + g,
                            rules=rules)  # fmt: skip
        rng = np.random.default_rng([seed, g])
        out["games"] += 1
        while True:
            state = kw.knowledge(game)
            model = state.kripke_model()
            labels = model.common_knowledge_labels(players)
            assert model.actual is not None
            out["positions"] += 1
            out["component_whole"] += bool((labels == labels[model.actual]).all())
            places = public_places(state)
            for card in game.deck.cards:
                if state.history.location[card.index] is not None:
                    continue  # exposed or face up: public by the record
                out["cards"] += 1
                holder = next(
                    (q for q in players if model.holds(f"C_{{{','.join(players)}}} has({q}, {card.code})")),
                    None,
                )  # fmt: skip
                in_no_hand = model.holds(
                    f"C_{{{','.join(players)}}} ("
                    + " & ".join(f"~has({q}, {card.code})" for q in players)
                    + ")"
                )
                expected = holder if holder is not None else ("pile" if in_no_hand else None)
                out["cards_agree"] += places[card.index] == expected
                if places[card.index] is not None:  # the sound direction: public => C
                    out["public_located"] += 1
                    out["public_located_agree"] += places[card.index] == expected
            if game.is_over:
                break
            play_random_action(game, rng)
    return out


# ----- running and resuming ----------------------------------------------------------


def _read(path: Path) -> list[dict[str, str]]:
    return read_csv_rows(path)  # a torn last row (a stopped run) is cut off and redone


def _append(path: Path, columns: Sequence[str], rows: Sequence[dict[str, Any]]) -> None:
    with path.open("a", newline="") as handle:
        csv.DictWriter(handle, list(columns)).writerows(rows)
        handle.flush()
        os.fsync(handle.fileno())


def run(
    games: int,
    out: Path,
    rule_sets: Sequence[str] = tuple(RULE_SETS),
    seed: int = 14_400,
    jobs: int = 1,
    progress: bool = False,
    check_games: int = 30,
) -> dict[str, Any]:
    """Play (or finish) ``games`` games of every rule set into ``out``, then summarise."""
    from kwartet_epistemic.parallel import process_pool

    out.mkdir(parents=True, exist_ok=True)
    deck = kw.Deck.piquet()
    games_path, moves_path = out / "rules_compare_games.csv", out / "rules_compare_moves.csv"
    columns = game_columns(deck)
    done_rows = _read(games_path)
    done = {(r["rules"], int(r["game"])) for r in done_rows}
    if not done_rows:
        for path, cols in ((games_path, columns), (moves_path, MOVE_COLUMNS)):
            with path.open("w", newline="") as handle:
                csv.DictWriter(handle, cols).writeheader()
    else:  # keep only the move rows of finished games (a run killed between the two writes)
        kept = [r for r in _read(moves_path) if (r["rules"], int(r["game"])) in done]
        with atomic_path(moves_path) as temporary, temporary.open("w", newline="") as handle:
            writer = csv.DictWriter(handle, MOVE_COLUMNS)
            writer.writeheader()
            writer.writerows(kept)
    seatings = arrangements(AGENTS)
    tasks = [
        (name, i, seed + i, seatings[i % len(seatings)])
        for i in range(games)
        for name in rule_sets
        if (name, i) not in done
    ]
    started = time.time()

    def results() -> Iterator[Played]:
        if jobs <= 1:
            yield from map(_play, tasks)
            return
        with process_pool(jobs) as pool:
            yield from pool.imap_unordered(_play, tasks, chunksize=4)

    for n, played in enumerate(results(), 1):
        _append(moves_path, MOVE_COLUMNS, played.moves)
        _append(games_path, columns, [played.game])
        if progress and n % 100 == 0:
            print(f"{n}/{len(tasks)} games ({time.time() - started:.0f} s)", file=sys.stderr)
    checks = {name: check_common_knowledge(name, check_games) for name in rule_sets}
    return summarise(out, rule_sets, games, checks)


# ----- summing up ------------------------------------------------------------------


def _t(
    values: Sequence[float], low: float = -math.inf, high: float = math.inf
) -> tuple[float, float, float]:
    """Mean and its 95% t interval, kept within ``low`` and ``high``."""
    from scipy import stats

    a = np.asarray(values, dtype=float)
    if len(a) < 2:
        return (float(a.mean()) if len(a) else math.nan, math.nan, math.nan)
    half = float(stats.t.ppf(0.975, len(a) - 1)) * float(a.std(ddof=1)) / math.sqrt(len(a))
    mean = float(a.mean())
    return mean, max(low, mean - half), min(high, mean + half)


def _int(text: str) -> int | None:
    return None if text == "" else int(text)


def per_ask(
    moves: Sequence[dict[str, Any]], key: str
) -> dict[int, tuple[int, float, float, float]]:
    """Per ask: games still going, and the mean share ``key`` (``players``: located over
    hidden summed over the four players; ``public``) with its 95% t interval over games."""
    shares: dict[int, list[float]] = {}
    for r in moves:
        share = _share(r, key)
        if share is not None:
            shares.setdefault(int(r["turn"]), []).append(share)
    return {t: (len(v), *_t(v, 0.0, 1.0)) for t, v in sorted(shares.items())}


BINS = 10
"""The located share by progress through the game: this many equal bins of the game's asks."""


def per_progress(
    moves: Sequence[dict[str, Any]], asks: dict[int, int], key: str
) -> list[tuple[int, float, float, float]]:
    """Per bin of the game's progress (ask / the game's asks, :data:`BINS` bins, the last
    one holding the final position): games, and the mean over games of each game's mean
    located share (``players`` or ``public``) in the bin, with its 95% t interval."""
    by_game: dict[tuple[int, int], list[float]] = {}
    for r in moves:
        share = _share(r, key)
        if share is None:
            continue
        game, turn = int(r["game"]), int(r["turn"])
        b = min(int(BINS * turn / asks[game]), BINS - 1) if asks[game] else 0
        by_game.setdefault((b, game), []).append(share)
    out = []
    for b in range(BINS):
        values = [float(np.mean(v)) for (bb, _), v in by_game.items() if bb == b]
        out.append((len(values), *_t(values, 0.0, 1.0)))
    return out


def _share(r: dict[str, Any], key: str) -> float | None:
    if key == "players":
        hidden = sum(int(r[f"hidden_{p}"]) for p in SEATS)
        located = sum(int(r[f"located_{p}"]) for p in SEATS)
    else:
        hidden, located = int(r["public_hidden"]), int(r["public_located"])
    return located / hidden if hidden else None


def game_mean_share(moves: Sequence[dict[str, Any]], key: str) -> list[float]:
    """Per game, the mean over its positions of the located share (``players`` or
    ``public``)."""
    by_game: dict[int, list[float]] = {}
    for r in moves:
        share = _share(r, key)
        if share is not None:
            by_game.setdefault(int(r["game"]), []).append(share)
    return [float(np.mean(v)) for v in by_game.values()]


def ck_times(rows: Sequence[dict[str, str]], deck: kw.Deck) -> dict[str, list[float]]:
    """Over every family of every game: the ask at which it became common knowledge,
    that as a share of the game's asks, the asks from then to its exposure (families
    exposed after they became common knowledge, or at the same ask), and whether it
    was common knowledge before its exposure."""
    out: dict[str, list[float]] = {"ck": [], "ck_fraction": [], "lead": [], "before": [],
                                   "never_exposed": [], "ck_at_end": []}  # fmt: skip
    for r in rows:
        asks = int(r["asks"])
        for f in range(deck.n_families):
            name = deck.families[f]
            ck, exposed = _int(r[f"ck_{name}"]), _int(r[f"exposed_{name}"])
            out["ck_at_end"].append(float(ck is not None))
            out["never_exposed"].append(float(exposed is None))
            if ck is None:
                continue
            out["ck"].append(ck)
            out["ck_fraction"].append(ck / asks if asks else 0.0)
            if exposed is not None:
                out["lead"].append(exposed - ck)
                out["before"].append(float(ck < exposed))
    return out


def tournament_view(rows: Sequence[dict[str, str]], rules: kw.RuleSet) -> TournamentResult:
    """The games as a :class:`~kwartet_epistemic.tournament.TournamentResult`, for its
    win shares by seat and by place in the turn order (with 95% intervals)."""
    results = tuple(
        GameResult(
            int(r["game"]),
            int(r["seed"]),
            tuple(r["seating"].split()),
            tuple(int(r[f"score_{p}"]) for p in SEATS),
            tuple(r["winners"]),
            int(r["asks"]),
            r["finished"] == "1",
            r["dealer"],
            r["first"],
        )
        for r in sorted(rows, key=lambda r: int(r["game"]))
    )
    return TournamentResult(AGENTS, results, rules, kw.Deck.piquet(), 14_400)


def summarise(
    out: Path, rule_sets: Sequence[str], games: int, checks: dict[str, dict[str, int]]
) -> dict[str, Any]:
    """Write the figures, the numbers, the table and the summary; return the numbers."""
    deck = kw.Deck.piquet()
    all_games = _read(out / "rules_compare_games.csv")
    all_moves = _read(out / "rules_compare_moves.csv")
    summary: dict[str, Any] = {}
    for name in rule_sets:
        rows = [r for r in all_games if r["rules"] == name and int(r["game"]) < games]
        keep = {int(r["game"]) for r in rows}
        moves = [m for m in all_moves if m["rules"] == name and int(m["game"]) in keep]
        if not rows:
            continue
        asks = {int(r["game"]): int(r["asks"]) for r in rows}
        result = tournament_view(rows, RULE_SETS[name])
        times = ck_times(rows, deck)
        summary[name] = {
            "games": len(rows),
            "unfinished": sum(r["finished"] != "1" for r in rows),
            "asks": _t([int(r["asks"]) for r in rows]),
            "asks_median": float(np.median([int(r["asks"]) for r in rows])),
            "turns": _t([int(r["turns"]) for r in rows]),
            "bluffs": sum(int(r["bluffs"]) for r in rows),
            "turn_overs": _t([int(r["turn_overs"]) for r in rows])[0],
            "quartets": _t([sum(int(r[f"score_{p}"]) for p in SEATS) for r in rows])[0],
            "shared": float(np.mean([len(r["winners"]) > 1 for r in rows])),
            "players": _t(game_mean_share(moves, "players"), 0.0, 1.0),
            "public": _t(game_mean_share(moves, "public"), 0.0, 1.0),
            "by_ask_players": per_ask(moves, "players"),
            "by_ask_public": per_ask(moves, "public"),
            "by_progress_players": per_progress(moves, asks, "players"),
            "by_progress_public": per_progress(moves, asks, "public"),
            "ck": _t(times["ck"]),
            "ck_median": float(np.median(times["ck"])) if times["ck"] else math.nan,
            "ck_fraction": _t(times["ck_fraction"]),
            "lead": _t(times["lead"]),
            "before": float(np.mean(times["before"])) if times["before"] else math.nan,
            "never_exposed": float(np.mean(times["never_exposed"])),
            "ck_at_end": float(np.mean(times["ck_at_end"])),
            "ck_curve": _curve(
                [_int(r[f"ck_{deck.families[f]}"]) for r in rows for f in range(deck.n_families)]
            ),
            "exposed_curve": _curve(
                [
                    _int(r[f"exposed_{deck.families[f]}"])
                    for r in rows
                    for f in range(deck.n_families)
                ]
            ),
            "by_seat": result.by_seat(),
            "by_position": result.by_position(),
            "cpu_s": sum(float(r["cpu_s"]) for r in rows),
            "check": checks.get(name, {}),
        }
    figures(summary, out)
    write_tex(summary, out)
    text = summary_text(summary, out)
    (out / "rules_compare.txt").write_text(text + "\n")
    print(text)
    return summary


def _curve(times: Sequence[int | None]) -> np.ndarray:
    """Share of the families whose time is at most t, for t = 0 .. the largest."""
    finite = [t for t in times if t is not None]
    top = max(finite, default=0)
    counts = np.bincount(np.asarray(finite, dtype=int), minlength=top + 1)
    return np.cumsum(counts) / max(len(times), 1)


COLORS = {"publisher": "C0", "clockwise": "C1", "fish": "C2", "bluffing": "C3", "memory": "C4"}


def figures(summary: dict[str, Any], out: Path) -> None:
    """``rules_compare_located`` and ``rules_compare_ck`` (PNG and PDF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with _latex.paper_style():
        fig, axes = plt.subplots(2, 2, figsize=(_latex.TEXT_WIDTH_IN, 5.4), sharey=True)
        for column, (who, title) in enumerate(
            (("players", "each player's exact state"),
             ("public", "the public model"))
        ):  # fmt: skip
            top, bottom = axes[0, column], axes[1, column]
            centres = (np.arange(BINS) + 0.5) * 100 / BINS
            for name, s in summary.items():
                color = COLORS.get(name)
                table = s[f"by_ask_{who}"]
                shown = [t for t, v in table.items() if v[0] >= max(1, 0.1 * s["games"])]
                top.plot(shown, [table[t][1] for t in shown], color=color, label=name)
                top.fill_between(shown, [table[t][2] for t in shown], [table[t][3] for t in shown],
                                 color=color, alpha=0.25, linewidth=0)  # fmt: skip
                bins = s[f"by_progress_{who}"]
                bottom.plot(centres, [b[1] for b in bins], color=color, marker=".", label=name)
                bottom.fill_between(centres, [b[2] for b in bins], [b[3] for b in bins],
                                    color=color, alpha=0.25, linewidth=0)  # fmt: skip
            top.set_title(title)
            top.set_xlabel("asks so far")
            bottom.set_xlabel("% of the game's asks")
            bottom.set_xlim(0, 100)
            for ax in (top, bottom):
                ax.set_ylim(0, 1)
                ax.grid(alpha=0.3)
        for ax in axes[:, 0]:
            ax.set_ylabel("share located")
        axes[0, 0].legend(loc="upper left")
        games = min(s["games"] for s in summary.values())
        fig.suptitle(f"Four knowledge agents, {games} games per rule set (mean, 95% band)")
        for ext in ("png", "pdf"):
            fig.savefig(out / f"rules_compare_located.{ext}", dpi=120)
    plt.close(fig)

    with _latex.paper_style():
        fig, ax = plt.subplots(figsize=(_latex.TEXT_WIDTH_IN, 3.4))
        for name, s in summary.items():
            ck, exposed = s["ck_curve"], s["exposed_curve"]
            ax.step(range(len(ck)), ck, where="post", color=COLORS.get(name),
                    label=f"{name} (median {s['ck_median']:.0f})")  # fmt: skip
            ax.step(range(len(exposed)), exposed, where="post", color=COLORS.get(name),
                    linestyle=":", linewidth=1)  # fmt: skip
        ax.plot([], [], color="grey", linestyle=":", label="dotted: exposed")
        ax.set_xlabel("asks so far")
        ax.set_ylabel("share of all families (8 per game)")
        ax.set_ylim(0, 1.02)
        ax.set_xlim(0, max(len(s["ck_curve"]) for s in summary.values()))
        ax.grid(alpha=0.3)
        ax.legend(loc="lower right")
        ax.set_title("Common knowledge of a family's places (solid), its exposure (dotted)")
        for ext in ("png", "pdf"):
            fig.savefig(out / f"rules_compare_ck.{ext}", dpi=120)
        plt.close(fig)


def _letters(name: str) -> str:
    return "".join(ch for ch in name if ch.isalpha())


def _fmt(value: float, digits: int = 3) -> str:
    """:func:`_latex.fmt`, and ``\\mbox{n/a}`` for a number not defined (one game)."""
    return _latex.fmt(value, digits) if math.isfinite(value) else "\\mbox{n/a}"


def _interval(low: float, high: float, digits: int = 3) -> str:
    return f"[{_fmt(low, digits)}, {_fmt(high, digits)}]"


def write_tex(summary: dict[str, Any], out: Path) -> None:
    """``rules_compare_numbers.tex`` and ``rules_compare_table.tex``."""
    f = _fmt
    numbers: dict[str, str] = {}
    for name, s in summary.items():

        def put(metric: str, text: str, name: str = name) -> None:
            numbers[_latex.macro_name("kw", "rules", _letters(name), metric)] = text

        put("games", f(s["games"], 0))
        put("asks", f(s["asks"][0], 1))
        put("asksCI", _interval(s["asks"][1], s["asks"][2], 1))
        put("asksMedian", f(s["asks_median"], 1))
        put("turns", f(s["turns"][0], 1))
        put("located", f(s["players"][0], 3))
        put("locatedCI", _interval(s["players"][1], s["players"][2]))
        put("public", f(s["public"][0], 3))
        put("publicCI", _interval(s["public"][1], s["public"][2]))
        put("ckAsk", f(s["ck"][0], 1))
        put("ckAskCI", _interval(s["ck"][1], s["ck"][2], 1))
        put("ckMedian", f(s["ck_median"], 1))
        put("ckFraction", f(s["ck_fraction"][0], 3))
        put("ckLead", f(s["lead"][0], 2))
        put("ckBefore", f(s["before"], 3))
        put("neverExposed", f(s["never_exposed"], 3))
        put("quartets", f(s["quartets"], 2))
        put("shared", f(s["shared"], 3))
        put("bluffs", f(s["bluffs"], 0))
        first = s["by_position"][0]
        put("first", f(first.win_share, 3))
        put("firstCI", _interval(*first.win_interval))
        for row in s["by_seat"]:
            put("seat" + row.label, f(row.win_share, 3))
            put("seat" + row.label + "CI", _interval(*row.win_interval))
        check = s["check"]
        if check.get("games"):
            put("checkPositions", f(check["positions"], 0))
            put("checkWhole", f(check["component_whole"], 0))
            put("checkCards", f(check["cards"], 0))
            put("checkAgree", f(check["cards_agree"], 0))
    _latex.write_numbers(out / "rules_compare_numbers.tex", SCRIPT, numbers)
    header = ["rules", "asks", "turns", "located (players)", "located (public)",
              "CK ask (median)", "CK lead", "first mover wins"]  # fmt: skip
    rows = []
    for name, s in summary.items():
        first = s["by_position"][0]
        rows.append([
            _latex.escape(name), f"${f(s['asks'][0], 1)}$", f"${f(s['turns'][0], 1)}$",
            f"${f(s['players'][0], 3)}$", f"${f(s['public'][0], 3)}$",
            f"${f(s['ck'][0], 1)}$ (${f(s['ck_median'], 0)}$)", f"${f(s['lead'][0], 1)}$",
            f"${f(first.win_share, 3)}$ ${_interval(*first.win_interval)}$",
        ])  # fmt: skip
    _latex.write_table(out / "rules_compare_table.tex", SCRIPT, header, rows)


def summary_text(summary: dict[str, Any], out: Path) -> str:
    """The printed summary."""
    lines = [
        "rules_compare: four knowledge agents, 4 players, 32 cards; per rule set: games, "
        "asks and turns per game (mean [95% t interval]), located shares (per game the mean "
        "over its positions, then the mean over games [95%]), common knowledge of each "
        "family (ask, share of the game, asks from common knowledge to exposure), win shares "
        "by seat and by place in the turn order [95%]",
        f"output folder {out}; load average now " + " ".join(f"{x:.2f}" for x in os.getloadavg()),
        "",
    ]
    for name, s in summary.items():
        c = s["check"]
        lines += [
            f"{name} ({RULE_SETS[name].name}): {s['games']} games ({s['unfinished']} stopped "
            f"at {MAX_ASKS} asks), {s['cpu_s']:.0f} CPU s",
            f"  asks {s['asks'][0]:.1f} [{s['asks'][1]:.1f}, {s['asks'][2]:.1f}] (median "
            f"{s['asks_median']:.0f}); turns {s['turns'][0]:.1f} [{s['turns'][1]:.1f}, "
            f"{s['turns'][2]:.1f}]; quartets laid {s['quartets']:.2f}; shared wins "
            f"{s['shared']:.3f}; bluffs {s['bluffs']}; turn-overs per game {s['turn_overs']:.1f}",
            f"  located share: players {s['players'][0]:.3f} [{s['players'][1]:.3f}, "
            f"{s['players'][2]:.3f}], public {s['public'][0]:.3f} [{s['public'][1]:.3f}, "
            f"{s['public'][2]:.3f}]",
            "  located share after 10 / 20 / 30 asks (players; public): "
            + " / ".join(
                f"{s['by_ask_players'][t][1]:.3f}; {s['by_ask_public'][t][1]:.3f} "
                f"(n={s['by_ask_players'][t][0]})"
                if t in s["by_ask_players"]
                else "n/a"
                for t in (10, 20, 30)
            ),
            f"  family common knowledge: at ask {s['ck'][0]:.1f} [{s['ck'][1]:.1f}, "
            f"{s['ck'][2]:.1f}] (median {s['ck_median']:.0f}), {s['ck_fraction'][0]:.3f} of "
            f"the game; {s['lead'][0]:.2f} asks before its exposure; strictly before exposure "
            f"{s['before']:.3f}; never exposed {s['never_exposed']:.3f}; common knowledge "
            f"by the end {s['ck_at_end']:.3f}",
            "  win share by seat: "
            + ", ".join(
                f"{r.label} {r.win_share:.3f} [{r.win_interval[0]:.3f}, {r.win_interval[1]:.3f}]"
                for r in s["by_seat"]
            ),
            "  by place in the turn order (1 moves first): "
            + ", ".join(
                f"{r.label} {r.win_share:.3f} [{r.win_interval[0]:.3f}, {r.win_interval[1]:.3f}]"
                for r in s["by_position"]
            ),
        ]
        if c.get("games"):
            lines.append(
                f"  common-knowledge check ({c['games']} random games at "
                f"{CHECK_SIZES[name][0]} families, {CHECK_SIZES[name][1]} players, "
                f"{CHECK_SIZES[name][2].name}; explicit model): component = public model at "
                f"{c['component_whole']}/{c['positions']} positions; C_G has(Q, c) = located "
                f"in the public model for {c['cards_agree']}/{c['cards']} cards"
            )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--games", type=int, default=2000, help="games per rule set")
    parser.add_argument(
        "--quick", action="store_true", help="4 games per rule set, 1 check game (CI)"
    )
    parser.add_argument("--rules", default=",".join(RULE_SETS),
                        help="rule sets, comma-separated (default: %(default)s)")  # fmt: skip
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=14_400)
    parser.add_argument("--check-games", type=int, default=30,
                        help="small random games per rule set for the common-knowledge check")  # fmt: skip
    parser.add_argument("--out", default="rules_compare_results")
    parser.add_argument("--progress", action="store_true")
    args = parser.parse_args(argv)
    names = [n.strip() for n in args.rules.split(",") if n.strip()]
    unknown = [n for n in names if n not in RULE_SETS]
    if unknown or not names:
        parser.error(f"--rules {args.rules!r}: expected some of {', '.join(RULE_SETS)}")
    if args.games < 1 or args.jobs < 1 or args.check_games < 0:
        parser.error("--games and --jobs: expected 1 or more; --check-games 0 or more")
    games = 4 if args.quick else args.games
    check_games = 1 if args.quick else args.check_games
    return run(games, Path(args.out), names, seed=args.seed, jobs=args.jobs,
               progress=args.progress, check_games=check_games)  # fmt: skip


if __name__ == "__main__":
    main()
