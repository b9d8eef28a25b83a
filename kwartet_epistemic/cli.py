"""The ``kwartet`` command: play, simulate, tournament, replay, demo, rules, grade and docs.

Every subcommand has ``--help``.  Bad user input ends the command with a one-line
message on stderr and exit status 2, never a traceback.  ``kwartet play`` reads its
moves from stdin, so a game can be scripted with piped input.

>>> main(["demo", "--seed", "7", "--no-figures"])  # doctest: +ELLIPSIS
Kwartet demo, seed 7: 4 players (A, B, C, D), ... publisher rules, 32 cards.
...
0
>>> main(["simulate", "--players", "7", "--games", "1"])  # the message goes to stderr
2

``python -m kwartet_epistemic`` is the same command; ``kwartet --version`` prints the
version and ``kwartet rules`` the rules the library plays (RULES.md in the package).
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from kwartet_epistemic.agents.agent import make_player, player_names
from kwartet_epistemic.cards import Deck, bundled_packs
from kwartet_epistemic.demo import run_demo
from kwartet_epistemic.docs import DEFAULT_OUTPUT, build_docs
from kwartet_epistemic.errors import GameSetupError, KwartetError, RuleOptionError
from kwartet_epistemic.game import Game
from kwartet_epistemic.play import PACES, Session
from kwartet_epistemic.record import GameRecord
from kwartet_epistemic.rules import PRESETS, RuleSet

__all__ = ["build_parser", "command_help", "main", "deck_from_option", "rules_from_options"]

SEAT_LETTERS = "ABCDEFGH"
#: The computer players of ``kwartet play`` unless --opponents says otherwise: the
#: Monte Carlo search with a 300 ms budget per decision (a computer move takes <= 1 s).
DEFAULT_OPPONENTS = "search[ms=300]"


class _UsageError(Exception):
    """Bad command-line input found after parsing (reported with exit status 2)."""


# ----- option parsing ---------------------------------------------------------------


def deck_from_option(text: str) -> Deck:
    """The deck named on the command line: ``piquet``, ``standard``, ``piquet:N`` or
    ``standard:N`` (the first N families), a size 32/40/48/52, a bundled themed pack, a
    TOML or JSON pack file, or a deck spec such as ``piquet(families=3)``.

    >>> deck_from_option("piquet:3"), deck_from_option("52"), deck_from_option("40")
    (Deck.piquet(families=3), Deck.standard(), Deck.standard(families=10))
    >>> deck_from_option("animals")
    Deck.themed('Animals')
    """
    name = text.strip()
    kind, _, families = name.partition(":")
    if kind.lower() in ("piquet", "standard"):
        maker = Deck.piquet if kind.lower() == "piquet" else Deck.standard
        if not families:
            return maker()
        if not families.isdigit():
            raise GameSetupError(f"deck {text!r}: expected {kind}:N with N a number of families")
        return maker(families=int(families))
    if name.isdigit():
        size = int(name)
        if size == 32:
            return Deck.piquet()
        if size % 4 == 0 and 4 <= size <= 52:
            return Deck.standard(families=size // 4)
        raise GameSetupError(f"deck size {size}: expected 32, 40, 48 or 52 (or any 4k up to 52)")
    if "(" in name:
        return Deck.from_spec(name)
    return Deck.themed(name)


def _parse_option_value(text: str) -> Any:
    lowered = text.strip().lower()
    if lowered in ("true", "yes", "on"):
        return True
    if lowered in ("false", "no", "off"):
        return False
    if lowered.isdigit():
        return int(lowered)
    return text.strip()


def rules_from_options(preset: str, options: Sequence[str] = ()) -> RuleSet:
    """A preset with ``KEY=VALUE`` changes, e.g. ``("publisher", ["memory_cards=4"])``.

    >>> rules_from_options("dutch", ["bluffing=true"]).bluffing
    True
    >>> rules_from_options("publisher", ["memory"])
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.RuleOptionError: rule option 'memory': expected KEY=VALUE such as memory_cards=4
    """
    rules = RuleSet.preset(preset)
    changes: dict[str, Any] = {}
    for option in options:
        key, sep, value = option.partition("=")
        if not sep or not key.strip():
            raise RuleOptionError(
                f"rule option {option!r}: expected KEY=VALUE such as memory_cards=4"
            )
        changes[key.strip()] = _parse_option_value(value)
    return rules.replace(**changes) if changes else rules


def _whole_number(text: str, least: int) -> int:
    """``text`` as a whole number >= ``least``; one message for every bad value."""
    try:
        value = int(text)
    except ValueError:
        value = least - 1
    if value < least:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a whole number >= {least}")
    return value


def _non_negative(text: str) -> int:
    return _whole_number(text, 0)


def _positive(text: str) -> int:
    return _whole_number(text, 1)


def _add_game_options(parser: argparse.ArgumentParser, default_players: int) -> None:
    parser.add_argument(
        "--players", type=_positive, default=default_players, metavar="N",
        help=f"number of players, 3 to 6 (2 with a draw pile); default {default_players}",
    )  # fmt: skip
    parser.add_argument(
        "--seed", type=_non_negative, default=None, metavar="S",
        help="seed for the shuffle (and the computer players); default: random",
    )  # fmt: skip
    parser.add_argument(
        "--rules", default="publisher", metavar="PRESET",
        help=f"rule preset: {', '.join(PRESETS)} (default publisher)",
    )  # fmt: skip
    parser.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="change one rule option of the preset, e.g. memory_cards=4 or bluffing=true "
        "(repeatable)",
    )  # fmt: skip
    parser.add_argument(
        "--deck", default="piquet", metavar="DECK",
        help="piquet (32 cards, default), standard (52), piquet:N or standard:N (first N "
        f"families), a bundled pack ({', '.join(bundled_packs())}) or a TOML/JSON pack file",
    )  # fmt: skip


# ----- kwartet play -----------------------------------------------------------------


def _split_specs(option: str) -> list[str]:
    """Comma-separated agent specs; commas inside ``[...]`` options stay with their spec."""
    return [n.strip() for n in re.split(r",(?![^\[]*\])", option) if n.strip()]


def _opponent_kinds(option: str, count: int) -> list[str]:
    names = _split_specs(option)
    for name in names:
        if not any(mark in name for mark in ":[") and name.lower() not in player_names():
            raise GameSetupError(f"unknown opponent {name!r}; known: {', '.join(player_names())}")
    if len(names) == 1:
        return names * count
    if len(names) != count:
        raise _UsageError(
            f"--opponents {option!r}: give one name for all or {count} names separated by commas"
        )
    return names


def _run_play(args: argparse.Namespace) -> int:
    deck = deck_from_option(args.deck)
    rules = rules_from_options(args.rules, args.option)
    human = args.name
    letters = [c for c in SEAT_LETTERS if c.lower() != human.lower()]
    if args.players > len(letters) + 1:
        raise GameSetupError(
            f"{args.players} players: Kwartet is for 3 to 6 players (2 with a draw pile)"
        )
    players = [human, *letters[: args.players - 1]]  # Game.deal refuses a bad count
    kinds = _opponent_kinds(args.opponents, len(players) - 1)
    game = Game.deal(deck, players, seed=args.seed, rules=rules)
    opponents = {
        player: make_player(
            kind, player, np.random.default_rng(None if args.seed is None else [args.seed, k + 1])
        )
        for k, (player, kind) in enumerate(zip(players[1:], kinds, strict=True))
    }
    out = sys.stdout
    print(
        f"Kwartet: you are {human}; opponents "
        + ", ".join(f"{p} ({k})" for p, k in zip(players[1:], kinds, strict=True))
        + f". {rules.name} rules, {len(deck)} cards"
        + (f", seed {args.seed}" if args.seed is not None else "")
        + ". Type 'help' for commands.",
        file=out,
    )
    return Session(game, human, opponents, sys.stdin, out, args.save, args.pace).run()


# ----- kwartet simulate -------------------------------------------------------------


def _run_simulate(args: argparse.Namespace) -> int:
    from tqdm import tqdm  # only this subcommand needs it

    deck = deck_from_option(args.deck)
    rules = rules_from_options(args.rules, args.option)
    n = args.players
    players = list(SEAT_LETTERS[:n]) if n <= len(SEAT_LETTERS) else []
    if not players:
        raise GameSetupError(f"{n} players: Kwartet is for 3 to 6 players")
    Game.deal(deck, players, seed=0, rules=rules)  # fail fast on a bad setup, before the loop
    seed = args.seed
    if seed is None:  # a fresh seed, printed so that the run can be repeated
        from kwartet_epistemic.tournament import fresh_seed

        seed = fresh_seed()
    rng = np.random.default_rng(seed)
    wins_by_seat = np.zeros(n)
    wins_by_turn = np.zeros(n)  # by position after the dealer: 0 moves first
    quartets_by_seat = np.zeros(n)
    lengths = np.zeros(args.games, dtype=np.int64)
    start = time.perf_counter()
    for g in tqdm(range(args.games), file=sys.stderr, unit="game", disable=args.no_progress):
        game = Game.deal(deck, players, seed=int(rng.integers(2**63)), rules=rules)
        asks = 0
        while not game.is_over:
            game.play(game.random_legal_ask(rng))
            asks += 1
        lengths[g] = asks
        first = (players.index(game.dealer) + 1) % n
        share = 1 / len(game.winners)
        for winner in game.winners:
            seat = players.index(winner)
            wins_by_seat[seat] += share
            wins_by_turn[(seat - first) % n] += share
        for seat, player in enumerate(players):
            quartets_by_seat[seat] += game.scores[player]
    elapsed = time.perf_counter() - start
    games = args.games
    print(
        f"{games} random-vs-random games: {n} players, {rules.name} rules, {deck!r} "
        f"({len(deck)} cards), seed {seed}"
        + (f" (chosen at random; --seed {seed} repeats the run)" if args.seed is None else "")
    )
    print("Win rate by seat (shared wins split):")
    for seat, player in enumerate(players):
        print(
            f"  {player}  {100 * wins_by_seat[seat] / games:5.1f}%   "
            f"mean quartets {quartets_by_seat[seat] / games:.2f}"
        )
    print("Win rate by turn order (1 = moves first):")
    for position in range(n):
        print(f"  {position + 1}  {100 * wins_by_turn[position] / games:5.1f}%")
    print(f"Mean game length: {lengths.mean():.1f} asks (min {lengths.min()}, max {lengths.max()})")
    print(f"Speed: {games / elapsed:.0f} games per second ({elapsed:.2f} s)")
    return 0


# ----- kwartet tournament ------------------------------------------------------------


def _run_tournament(args: argparse.Namespace) -> int:
    import warnings

    from kwartet_epistemic.tournament import arrangements, tournament

    deck = deck_from_option(args.deck)
    rules = rules_from_options(args.rules, args.option)
    agents = _split_specs(args.agents)
    if not agents:
        raise _UsageError("--agents: give one agent per seat, e.g. knowledge,random,random")
    with warnings.catch_warnings():  # an unequal seating is said in the table below
        warnings.simplefilter("ignore", UserWarning)
        result = tournament(
            agents,
            args.games,
            rules=rules,
            deck=deck,
            seed=args.seed,
            jobs=args.jobs,
            out=args.out,
            scheduler=args.scheduler,
            progress=not args.no_progress,
        )
    print(
        f"Tournament: {', '.join(agents)}; seats rotated over {len(arrangements(agents))} "
        f"arrangements; {rules.name} rules, {len(deck)} cards."
    )
    print(result.table())
    played = result.seconds
    if played > 0:
        print(f"Speed: {len(result.games) / played:.1f} games per second ({played:.1f} s)")
    if args.out:
        print(f"Results per game: {args.out}")
    return 0


# ----- kwartet replay and demo --------------------------------------------------------


def _run_replay(args: argparse.Namespace) -> int:
    if args.file == "-":  # the record on stdin
        from kwartet_epistemic.errors import RecordError
        from kwartet_epistemic.record import MAX_RECORD_BYTES

        text = sys.stdin.buffer.read(MAX_RECORD_BYTES + 1)
        if len(text) > MAX_RECORD_BYTES:
            raise RecordError(f"stdin: record: larger than {MAX_RECORD_BYTES:,} bytes")
        try:
            record = GameRecord.from_json(text, check=False)
        except RecordError as err:
            raise RecordError(f"stdin: {err}") from err
        args.file = "(stdin)"
    else:
        record = GameRecord.load(args.file, check=False)
    game = record.replay()
    if args.html is not None:  # written first: a bad page path stops before any output
        from kwartet_epistemic.viz.page import to_html

        to_html(game, args.html, title=f"Kwartet: {os.path.basename(args.file)}")
    print(
        f"Kwartet game record {args.file}: players {', '.join(record.players)}, "
        f"{record.rules.name} rules, {record.deck!r}"
        + (f", seed {record.seed}" if record.seed is not None else "")
        + f", {len(record.actions)} actions{'' if game.is_over else ' (unfinished)'}."
    )
    if args.view is not None:
        print(game.view(args.view).transcript())
    else:
        print(game.transcript())
    if args.html is not None:
        print(f"Wrote {args.html}: the game move by move, with what every player knew.")
    return 0


def _run_rules(args: argparse.Namespace) -> int:
    from kwartet_epistemic.rules import rules_text

    print(rules_text(), end="")
    return 0


def _run_demo(args: argparse.Namespace) -> int:
    figures = None
    if not args.no_figures:
        import tempfile

        figures = args.out or os.path.join(tempfile.gettempdir(), f"kwartet-demo-seed{args.seed}")
    run_demo(args.seed, sys.stdout, figures)
    return 0


# ----- main -------------------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The parser of the ``kwartet`` command, with every subcommand (the docs site prints
    their help).

    >>> build_parser().prog
    'kwartet'
    """
    return _parsers()[0]


def _parsers() -> tuple[argparse.ArgumentParser, dict[str, argparse.ArgumentParser]]:
    """The command's parser and each subcommand's, by name."""
    parser = argparse.ArgumentParser(
        prog="kwartet",
        description="Kwartet, the Dutch quartet card game: play, simulate, tournament, replay, "
        "demo, rules, grade, docs.",
    )
    from kwartet_epistemic import __version__

    parser.add_argument("--version", action="version", version=f"kwartet {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser(
        "play",
        help="play against computer players in the terminal",
        description="Play Kwartet against computer players. Ask by typing 'B QH' or "
        "'B, may I have the queen of hearts?'; type 'help' at the prompt for commands. "
        "Moves are read from stdin, so input can be piped.",
    )
    _add_game_options(play, default_players=4)
    play.add_argument(
        "--name", default="A", metavar="YOU",
        help="your name at the table (letters, digits, '_'); default A",
    )  # fmt: skip
    play.add_argument(
        "--opponents", default=DEFAULT_OPPONENTS, metavar="NAMES",
        help=f"computer players: one agent spec for all or one per opponent, comma-separated "
        f"(known: {', '.join(player_names())}); default {DEFAULT_OPPONENTS} (search with a "
        "300 ms budget per move); --opponents random for an easy game",
    )  # fmt: skip
    play.add_argument(
        "--save", default=None, metavar="FILE", help="save the game record here when it ends"
    )
    play.add_argument(
        "--pace", choices=PACES, default=None,
        help="step: pause after each computer turn (the default in a terminal); none: tell "
        "the computer players' moves at once (the default for piped input)",
    )  # fmt: skip
    play.set_defaults(run=_run_play)

    simulate = sub.add_parser(
        "simulate",
        help="random-vs-random games: win rates, game length, speed",
        description="Play many games between random players and print win rates by seat "
        "(shared wins split), the mean game length in asks and games per second.",
    )
    _add_game_options(simulate, default_players=4)
    simulate.add_argument(
        "--games", type=_positive, default=1000, metavar="G", help="number of games (1000)"
    )
    simulate.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    simulate.set_defaults(run=_run_simulate)

    contest = sub.add_parser(
        "tournament",
        help="seat-rotated games between agents: win shares with 95%% intervals",
        description="Play many seeded games between agents, every seating equally often, and "
        "print each agent's win share (shared wins split) and mean quartets with 95% "
        "intervals. Agents are specs such as knowledge, defensive:facts or "
        "search[samples=50] (policy[options][:exact|facts|facts+hands|hand]).",
    )
    contest.add_argument(
        "--agents", required=True, metavar="SPECS",
        help="one agent spec per seat, comma-separated, e.g. knowledge,defensive:facts,random,random "
        f"(policies: {', '.join(n for n in player_names())})",
    )  # fmt: skip
    contest.add_argument(
        "--games", type=_non_negative, default=100, metavar="G", help="number of games (100)"
    )
    contest.add_argument(
        "--seed", type=_non_negative, default=None, metavar="S",
        help="tournament seed (every game is replayable from its row); default: random",
    )  # fmt: skip
    contest.add_argument(
        "--rules", default="publisher", metavar="PRESET",
        help=f"rule preset: {', '.join(PRESETS)} (default publisher)",
    )  # fmt: skip
    contest.add_argument(
        "--option", action="append", default=[], metavar="KEY=VALUE",
        help="change one rule option of the preset (repeatable)",
    )  # fmt: skip
    contest.add_argument(
        "--deck", default="piquet", metavar="DECK", help="deck, as for simulate (default piquet)"
    )
    contest.add_argument(
        "--jobs", type=_positive, default=1, metavar="J", help="worker processes (1)"
    )
    contest.add_argument(
        "--scheduler", default=None, metavar="ADDRESS",
        help="run on a dask.distributed cluster at ADDRESS (needs the dask extra)",
    )  # fmt: skip
    contest.add_argument(
        "--out", default=None, metavar="FILE",
        help="append one CSV row per game as it finishes; an interrupted run resumes from it",
    )  # fmt: skip
    contest.add_argument("--no-progress", action="store_true", help="no progress bar on stderr")
    contest.set_defaults(run=_run_tournament)

    replay = sub.add_parser(
        "replay",
        help="print the transcript of a saved game",
        description="Load a JSON game record, check it move by move and print its transcript.",
    )
    replay.add_argument(
        "file", metavar="FILE", help="a game record (kwartet play --save FILE); - reads stdin"
    )
    replay.add_argument(
        "--view", default=None, metavar="PLAYER",
        help="print the record as PLAYER saw it (others' draws hidden)",
    )  # fmt: skip
    replay.add_argument(
        "--html", default=None, metavar="PAGE",
        help="also write PAGE, one self-contained HTML file stepping through the game: the "
        "table, what each move taught, every player's world count and probability heatmap",
    )  # fmt: skip
    replay.set_defaults(run=_run_replay)

    demo = sub.add_parser(
        "demo",
        help="a seeded game between the best agents, told with what the table deduces",
        description="Deal a seeded 4-player game with the 32-card deck, let the strongest "
        "agents play it, print every move with what the table learns from it, and draw the "
        "progress plot, a heatmap animation and the knowledge timeline.",
    )
    demo.add_argument("--seed", type=_non_negative, default=7, metavar="N", help="seed (7)")
    demo.add_argument(
        "--out",
        metavar="DIR",
        help="where to write the figures (default: kwartet-demo-seedN in the temp folder)",
    )
    demo.add_argument("--no-figures", action="store_true", help="only print the game")
    demo.set_defaults(run=_run_demo)

    rules = sub.add_parser(
        "rules",
        help="print the rules the library plays and what is public",
        description="Print RULES.md from the package: the default rules, every rule option, "
        "what is public at every moment (what the epistemic model is built from) and a worked "
        "example.",
    )
    rules.set_defaults(run=_run_rules)

    grade = sub.add_parser(
        "grade",
        help="grade a student's agent file: seat-rotated games and a pass/fail bar",
        description="Load FILE (it must define a Policy subclass StudentAgent or a function "
        "make_policy() returning a Policy) in a process of its own, play it in seat-rotated "
        "games against the opponents and print its win share with the 95%% interval; PASS "
        "when the interval's lower end is above the bar. With --calibrate, print instead "
        "the win shares of the library's own agents in the student's seat on the same games "
        "(FILE is then not needed). Exit status: 0 PASS, 1 FAIL, 2 bad command line, "
        "3 no agent in the file, 4 the agent crashed, 5 a decision took too long, "
        "6 an illegal ask, 7 the agent's process ended early, 8 refused by --own-work.",
    )
    grade.add_argument("file", metavar="FILE", nargs="?", help="the student's agent, a .py file")
    grade.add_argument(
        "--against", default="defensive:facts", metavar="SPECS",
        help="one spec (three such opponents) or one spec per seat, comma-separated "
        "(default defensive:facts)",
    )  # fmt: skip
    grade.add_argument("--games", type=_positive, default=400, metavar="N", help="games (400)")
    grade.add_argument(
        "--bar", type=float, default=None, metavar="SHARE",
        help="pass when the 95%% interval's lower end is above SHARE (0.2)",
    )  # fmt: skip
    grade.add_argument(
        "--seed", type=_non_negative, default=None, metavar="N",
        help="seed of the games (default: a secret one, printed after the games)",
    )  # fmt: skip
    grade.add_argument("--jobs", type=_positive, default=1, metavar="J", help="processes (1)")
    grade.add_argument(
        "--time-limit", type=float, default=2.0, metavar="SECONDS",
        help="seconds a decision may take (2)",
    )  # fmt: skip
    grade.add_argument(
        "--own-work", action="store_true",
        help="refuse a file that returns, subclasses or calls a library policy",
    )  # fmt: skip
    grade.add_argument(
        "--calibrate", action="store_true",
        help="print the win shares of the library's agents in the student's seat instead",
    )  # fmt: skip
    grade.set_defaults(run=_run_grade)

    docs = sub.add_parser(
        "docs",
        help="build the documentation site (the course, the guide, the API; extra docs)",
        description="Build the documentation site with Sphinx: the guide, the six notebooks "
        "executed with their figures, the command line, the performance figures and the API "
        "reference.  Any warning or broken link fails the build (exit status 1).  Run it in "
        "a clone of the repository; open OUTPUT/index.html.",
    )
    docs.add_argument(
        "--output", default=str(DEFAULT_OUTPUT), metavar="DIR",
        help=f"where to write the site (default {DEFAULT_OUTPUT}; an earlier site there is replaced)",
    )  # fmt: skip
    docs.add_argument(
        "--no-execute", action="store_true",
        help="show the notebooks as written, without running them (a quick check of the rest)",
    )  # fmt: skip
    docs.set_defaults(run=_run_docs)
    return parser, dict(sub.choices)


def command_help() -> dict[str, str]:
    """The help text of ``kwartet`` (key ``""``) and of each subcommand, as printed by
    ``--help``: what the docs site's command-line page shows.

    >>> helps = command_help()
    >>> "" in helps and helps["play"].startswith("usage: kwartet play")
    True
    """
    parser, subcommands = _parsers()
    return {"": parser.format_help()} | {
        name: sub.format_help() for name, sub in subcommands.items()
    }


def _run_docs(args: argparse.Namespace) -> int:
    build = build_docs(
        args.output, commands=command_help(), execute=not args.no_execute, strict=False
    )
    print(build.summary())
    return 0 if build.clean else 1


def _run_grade(args: argparse.Namespace) -> int:
    from kwartet_epistemic.grading import (
        DEFAULT_BAR,
        EXIT_STATUS,
        GradingFailure,
        calibrate,
        grade,
    )

    bar = DEFAULT_BAR if args.bar is None else args.bar
    if args.calibrate:
        seed = 1 if args.seed is None else args.seed
        rows = calibrate(against=args.against, games=args.games, seed=seed, jobs=args.jobs)
        print(f"the library's agents in the student's seat, {args.games} games, seed {seed}:")
        print(f"{'agent':<18} win share  95% interval     passes bar {bar:g}")
        for row in rows:
            low, high = row.interval
            verdict = "yes" if row.passes(bar) else "no"
            print(f"{row.agent:<18} {row.win_share:9.3f}  [{low:.3f}, {high:.3f}]  {verdict}")
        return 0
    if args.file is None:
        raise _UsageError("grade: expected FILE (or --calibrate)")
    try:
        report = grade(
            args.file, against=args.against, games=args.games, bar=bar, seed=args.seed,
            jobs=args.jobs, time_limit=args.time_limit, own_work=args.own_work,
        )  # fmt: skip
    except GradingFailure as failure:
        print(f"{os.path.basename(args.file)}: FAILED ({failure.kind}): {failure}", file=sys.stderr)
        return failure.exit_status
    print(report.table)
    print(report.verdict())
    print(f"games seed {report.seed} (grade again with --seed {report.seed} to reproduce)")
    return EXIT_STATUS["pass"] if report.passed else EXIT_STATUS["fail"]


def _silence_stdout() -> None:
    """Point stdout at devnull so that flushing at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):  # stdout without a file descriptor
        pass


def main(argv: Sequence[str] | None = None) -> int:
    """Run the ``kwartet`` command with ``argv`` (default: the process arguments);
    returns the exit status: 0 on success, 2 on bad input."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help, or argparse's own usage error (status 2)
        return int(exit_.code or 0) if not isinstance(exit_.code, str) else 2
    if args.command is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.run(args))
    except (KwartetError, _UsageError) as err:
        print(f"kwartet: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # e.g. `kwartet replay game.json | head`: stop quietly
        _silence_stdout()
        return 0
    except OSError as err:
        print(f"kwartet: error: {err}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\nkwartet: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
