"""Draw-pile games: the cost of exact counting as draws pile up.

Fish rules, 32 cards, 4 players with 3 cards each, random legal asks: after every event,
the public ``count_worlds()`` and one player's ``location_probabilities`` from a fresh
epistemic state, in CPU seconds of this process, printed per number of draws so far.
Every draw is a capacity-1 slot of the counting programme (a world says which card each
draw brought), so the programme's table doubles with each draw that no public fact has
settled: the figures show that growth (the speed issue's target is 70 ms per event).

With ``--out``, the last position's public count and location counts are also taken
on the dense tables alone (``ryser``, ``sparse`` and ``staged`` of
``counting`` False), for comparison with the default, which takes Ryser's formula
where its work is smaller; the paper quotes the worst event of the whole game.

With ``--own-view``, A's own count and location counts instead, on one epistemic state
kept from event to event (what ``kwartet play`` and the agents keep); with ``--draws``
above the stock's size the game is played to its end.

Then ``--agent-games`` whole fish games of four ``knowledge`` agents (4 players with 3
cards each, seeds 0, 1, ...): each agent decides from its own exact view, whose tables
have a dimension for every draw the others made; per game, the CPU time, the number of
asks and the slowest decision.  With ``--dense`` the counting engine keeps its dense
tables (``counting.options(sparse=False, ryser=False)``), for comparison
with the sparse programme and Ryser's formula; with
``--out DIR`` the games are played both ways and the figures the paper quotes go to
``DIR/bench_draw_pile_numbers.tex``.  With ``--agent-deck standard`` the agent games
have 52 cards and 7 cards each: where an agent's exact counting for a decision would
take more than ``AGENT_MEMORY_LIMIT``, it decides on facts, and the last column counts
those decisions.

Then a lone holder's run (``--no-lone`` leaves it out): 52 cards, three players with
seven each; B and C hand all their cards to A before anyone draws, and A, alone with
cards, draws the whole 31-card stock, laying down each family it completes.  The public
``count_worlds()`` after every event, as a fresh state computes it, per number of draws:
the families to come tell few of those draws apart, and the merged-draw count takes them
together (the counting options' ``staged``), where the dense tables would need 2^33
entries.

Run: ``python experiments/bench_draw_pile.py [--draws 10] [--seed 1] [--players 4]
[--deck piquet|standard] [--give-up SECONDS] [--agent-games 6] [--agent-deck
piquet|standard] [--dense] [--no-lone] [--own-view] [--out DIR]`` (``--give-up``: stop
after the first event slower than that).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import warnings
from pathlib import Path

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.agents import agent as agent_module
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter, kernel_available
from kwartet_epistemic.epistemics.history import PublicHistory
from kwartet_epistemic.events import Drew, QuartetExposed
from kwartet_epistemic.tournament import play_game

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--draws",
        type=int,
        default=10,
        help="stop after this many draws (more than the stock holds: play to the game's end)",
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--players", type=int, default=4)
    parser.add_argument("--cards-each", type=int, default=3)
    parser.add_argument("--deck", choices=["piquet", "standard"], default="piquet")
    parser.add_argument("--give-up", type=float, default=float("inf"), metavar="SECONDS")
    parser.add_argument("--agent-games", type=int, default=6, metavar="N")
    parser.add_argument(
        "--agent-deck",
        choices=["piquet", "standard"],
        default="piquet",
        help="the agent games' deck: 32 cards with 3 each, or 52 with the preset's 7",
    )
    parser.add_argument(
        "--dense", action="store_true", help="no sparse programme, no Ryser's formula"
    )
    parser.add_argument("--no-lone", action="store_true", help="leave out the lone holder")
    parser.add_argument(
        "--own-view",
        action="store_true",
        help="time A's own count and location counts on one state kept from event to "
        "event (as kwartet play and the agents keep it), not the public count and A's "
        "probabilities from a fresh state",
    )
    parser.add_argument("--out", type=Path, default=None, metavar="DIR")
    args = parser.parse_args()
    if args.dense and args.out:
        parser.error("--out plays the agent games both ways already: leave out --dense")
    if args.no_lone and args.out:
        parser.error("--out needs the lone holder's figures: leave out --no-lone")
    if args.own_view and args.out:
        parser.error("--out quotes the public counts: leave out --own-view")
    if args.out and args.agent_deck != "piquet":
        parser.error("--out quotes the 32-card agent games: leave out --agent-deck")
    with counting.options(**({"sparse": False, "ryser": False} if args.dense else {})):
        return _run(args)


def _run(args: argparse.Namespace) -> None:
    print(f"load average {os.getloadavg()[0]:.2f}; kernel {kernel_available()}")
    print(f"tables: {'dense only' if args.dense else 'sparse or none where it pays'}")
    rules = kw.RuleSet.preset("fish").replace(cards_each=args.cards_each)
    players = ["A", "B", "C", "D", "E", "F"][: args.players]
    deck = kw.Deck.standard() if args.deck == "standard" else kw.Deck.piquet()
    game = kw.Game.deal(deck, players, seed=args.seed, rules=rules)
    rng = np.random.default_rng(args.seed)
    print(f"{'draws':>5}  {'worst event (ms)':>16}", flush=True)
    worst: dict[int, float] = {}

    def report(draws: int) -> None:
        print(f"{draws:>5}  {1000 * worst[draws]:>16.1f}", flush=True)

    count = 0
    refused = ""
    kept = kw.knowledge(game)  # --own-view: one state, updated event by event
    while not game.is_over:
        before = sum(isinstance(e, Drew) for e in game.record)
        game.play(game.random_legal_ask(rng))
        draws = sum(isinstance(e, Drew) for e in game.record)
        if draws != before and before in worst:
            report(before)  # every event with that many draws is measured
        start = time.process_time()
        try:
            if args.own_view:
                count = kept.count_worlds(players[0])
                kept.location_counts(players[0])
            else:
                state = kw.knowledge(game)
                count = state.count_worlds()
                state.location_probabilities(players[0])
        except kw.ModelTooLargeError as error:  # beyond memory and the formula's budget
            refused = f"{draws:>5}  refused: {error}"
            break
        spent = time.process_time() - start
        worst[draws] = max(worst.get(draws, 0.0), spent)
        if draws >= args.draws or spent > args.give_up:
            break
    if draws in worst:
        report(draws)
    if refused:
        print(refused)
    whose = f"{players[0]}'s" if args.own_view else "public"
    print(f"{whose} worlds at the end: {count} ({int(count).bit_length()} bits)")
    numbers: dict[str, str] = {}
    if args.out:
        numbers["kwDrawPileRandomDraws"] = str(draws)
        numbers["kwDrawPileRandomWorst"] = _latex.sig(1000 * max(worst.values()))
        figures = formula_against_tables(game)
        for name, value in zip(
            ("Count", "DenseCount", "Table", "DenseTable"), figures, strict=True
        ):
            numbers[f"kwDrawPileRyser{name}"] = _latex.sig(1000 * value)
    if not args.no_lone:
        lone_worst, lone_draws, lone_entries = lone_holder()
        numbers["kwDrawPileLoneDraws"] = str(lone_draws)
        numbers["kwDrawPileLoneWorst"] = _latex.sig(1000 * lone_worst)
        numbers["kwDrawPileLoneLogEntries"] = str(lone_entries)
    if not args.agent_games:
        return
    total, slowest = agent_games(args.agent_games, args.agent_deck == "standard")
    if args.out:
        print("\nthe same with the dense tables only")
        with counting.options(sparse=False, ryser=False):
            dense_total, dense_slowest = agent_games(args.agent_games)
        numbers |= {
            "kwDrawPileAgentGames": str(args.agent_games),
            "kwDrawPileAgentCpu": _latex.sig(total),
            "kwDrawPileAgentDenseCpu": _latex.sig(dense_total),
            "kwDrawPileAgentSlowest": _latex.sig(slowest),
            "kwDrawPileAgentDenseSlowest": _latex.sig(dense_slowest),
        }
        args.out.mkdir(parents=True, exist_ok=True)
        _latex.write_numbers(
            args.out / "bench_draw_pile_numbers.tex", "experiments/bench_draw_pile.py", numbers
        )


def lone_holder_game() -> kw.Game:
    """The lone holder's game (see the module's text): 52 cards, A, B and C with seven
    each; B and C hand all their cards to A, and A draws the whole 31-card stock."""
    deck = kw.Deck.standard()
    ranks = ["2", "3", "4", "5", "6", "7", "8"]
    hands = {p: [r + suit for r in ranks] for p, suit in zip("ABC", "SHD", strict=True)}
    dealt = {code for cards in hands.values() for code in cards}
    stock = [c.code for c in deck.cards if c.code not in dealt]
    np.random.default_rng(1).shuffle(stock)
    game = kw.Game.from_hands(deck, hands, first="A", rules=kw.RuleSet.preset("fish"), stock=stock)
    for target, suit in (("B", "H"), ("C", "D")):
        for r in ranks:
            game.ask(target, r + suit)
    return game


def lone_holder() -> tuple[float, int, int]:
    """The lone holder's run (:func:`lone_holder_game`), each event counted afresh as
    ``count_worlds()`` counts it; prints the worst event per number of draws and returns
    the worst of all (seconds), the number of draws and the base-2 logarithm of the
    largest dense table's entries."""
    game = lone_holder_game()
    record = game.record
    print("\na lone holder's run: 52 cards, A draws the whole stock after B and C are out")
    print(f"{'draws':>5}  {'worst event (ms)':>16}  {'dense table entries':>19}", flush=True)
    worst: dict[int, float] = {}
    entries: dict[int, int] = {}
    for cut in range(1, len(record) + 1):
        # A record handed over ends settled, but for the move or draw before an exposure.
        settled = cut == len(record) or not isinstance(record[cut], QuartetExposed)
        start = time.process_time()
        history = PublicHistory(game.deck, game.players, game.rules)
        history.extend(record[:cut], settled=settled)
        counter = WorldCounter(history, marginals=True, stable_layout=True)
        spent = time.process_time() - start
        draws = len(history.draw_slots)
        worst[draws] = max(worst.get(draws, 0.0), spent)
        entries[draws] = counter.table_size
    for draws in sorted(worst):
        print(f"{draws:>5}  {1000 * worst[draws]:>16.1f}  {entries[draws]:>19,}")
    print(f"public worlds at the end: {counter.count}; load average {os.getloadavg()[0]:.2f}")
    return max(worst.values()), max(worst), max(entries.values()).bit_length() - 1


def formula_against_tables(game: kw.Game) -> tuple[float, float, float, float]:
    """The public count and location counts of the game's last position, each from a
    fresh counter, by default (Ryser's formula where its work is smaller) and on the
    dense tables alone (no Ryser's formula, no maps, no merged draws): CPU seconds,
    printed."""
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record)
    spent: dict[bool | None, tuple[float, float]] = {}
    answers = []
    for mode in (None, False):
        with counting.options(ryser=mode, sparse=mode, staged=mode):
            start = time.process_time()
            counter = WorldCounter(history)
            middle = time.process_time()
            table = counter.location_table()
            spent[mode] = (middle - start, time.process_time() - middle)
        answers.append((counter.count, table.tolist()))
    assert answers[0] == answers[1], "the formula and the tables disagree"
    (count, locations), (dense_count, dense_locations) = spent[None], spent[False]
    print(
        f"\nthe last position's public count: {1000 * count:.1f} ms by default, "
        f"{1000 * dense_count:.1f} ms on the dense tables; its location counts: "
        f"{1000 * locations:.1f} ms against {1000 * dense_locations:.1f} ms (the same answers)"
    )
    return count, dense_count, locations, dense_locations


def agent_games(n: int, standard: bool = False) -> tuple[float, float]:
    """Whole fish games of four knowledge agents (32 cards with 3 each, or with
    ``standard`` 52 cards with 7 each), each printed with its CPU time, asks, slowest
    decision and the decisions taken on facts because exact counting did not fit in
    ``AGENT_MEMORY_LIMIT``; returns the total CPU time and the slowest decision
    (seconds)."""
    slowest = [0.0]
    make_player = agent_module.make_player
    players: list = []

    def timed_player(*a, **k):  # every decision timed
        player = make_player(*a, **k)
        players.append(player)
        choose = player.choose

        def timed_choose(view):
            start = time.process_time()
            choice = choose(view)
            slowest[0] = max(slowest[0], time.process_time() - start)
            return choice

        player.choose = timed_choose
        return player

    agent_module.make_player = timed_player
    rules = kw.RuleSet.preset("fish")
    deck = kw.Deck.standard() if standard else kw.Deck.piquet()
    if not standard:
        rules = rules.replace(cards_each=3)
    print(
        f"\n{n} fish games of four knowledge agents ({len(deck)} cards, "
        f"{rules.cards_each} cards each; exact counting within "
        f"{agent_module.AGENT_MEMORY_LIMIT / 2**30:g} GiB per decision)"
    )
    print(
        f"{'seed':>4}  {'CPU (s)':>8}  {'asks':>4}  {'slowest decision (ms)':>21}  {'on facts':>8}",
        flush=True,
    )
    total = worst = 0.0
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # counted in the last column
            for seed in range(n):
                slowest[0] = 0.0
                players.clear()
                start = time.process_time()
                result = play_game(["knowledge"] * 4, seed=seed, rules=rules, deck=deck)
                spent = time.process_time() - start
                total += spent
                worst = max(worst, slowest[0])
                fallbacks = sum(getattr(p, "fallbacks", 0) for p in players)
                print(
                    f"{seed:>4}  {spent:>8.2f}  {result.asks:>4}  "
                    f"{1000 * slowest[0]:>21.1f}  {fallbacks:>8}",
                    flush=True,
                )
    finally:
        agent_module.make_player = make_player
    print(f"all {n} games: {total:.1f} s CPU; load average {os.getloadavg()[0]:.2f}")
    return total, worst


if __name__ == "__main__":
    main()
