"""General model counters as baselines for the counting engine, on the same positions.

Per position, the worlds are counted by

- ``counting``: our :class:`WorldCounter` (its caches emptied first);
- ``bdd``: our symbolic engine's law on BDDs (``dd``), built and counted;
- ``sdd``: the law written as CNF (:func:`kwartet_epistemic.interop.cnf.law_cnf`),
  compiled by the SDD package's CNF compiler (``pysdd``, balanced vtree) and counted in
  Python integers;
- ``ganak``: the CNF counted by Ganak (``pyganak``), projected on the origin variables;
- ``approxmc``: the CNF estimated by ApproxMC (``pyapproxmc``), projected, with its
  (epsilon, delta) guarantee: within a factor 1 + epsilon with probability >= 1 - delta.

Positions: 32- and 52-card deals among four players (public, and player A's view), the
positions a quarter, half and three quarters through a random 32-card and a random
52-card game (public), and 52-card fish games after 16 and more draws nobody else saw,
where the counting programme refuses (``ModelTooLargeError``) and ApproxMC's bounds are
the only answer.  Every exact answer is checked against the counting engine's where it
answered (a disagreement ends the script with status 1).

Each call runs in a forked child process, timed inside it (wall seconds around the call:
for the CNF tools the law is written first, untimed; the time to write it is the
``cnf`` row), and is stopped after ``--timeout`` seconds ("timeout"; a tool that timed
out at a position is not run there again).  Figures are the median and the range over
``--repeats`` runs (ApproxMC with a new seed each).  The figures are taken on whatever
machine runs it: its load is printed; the paper's come from an idle machine.

Run:  python experiments/model_counting_baselines.py [--quick] [--repeats 5]
      [--timeout 60] [--out DIR]
"""

from __future__ import annotations

import argparse
import contextlib
import multiprocessing
import os
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PublicHistory, private_info
from kwartet_epistemic.events import Drew
from kwartet_epistemic.interop.cnf import (
    count_with_approxmc,
    count_with_ganak,
    count_with_sdd,
    law_cnf,
)

if str(Path(__file__).resolve().parent) not in sys.path:  # run as a file or loaded by tests
    sys.path.insert(0, str(Path(__file__).resolve().parent))
import _latex  # noqa: E402

TOOLS = ("counting", "bdd", "sdd", "ganak", "approxmc")
EXACT = ("counting", "bdd", "sdd", "ganak")
EPSILON, DELTA = 0.8, 0.2  # ApproxMC's defaults


@dataclass
class Position:
    """A position: ``key`` (letters only: the TeX macros' part), a description, the game
    at that moment and the viewer (None: the public worlds)."""

    key: str
    text: str
    game: kw.Game
    viewer: str | None = None

    def history(self) -> PublicHistory:
        history = PublicHistory(self.game.deck, self.game.players, self.game.rules)
        history.extend(self.game.record)
        return history

    def viewers(self) -> list[Any]:
        if self.viewer is None:
            return []
        view = self.game.view(self.viewer)
        return [private_info(self.game.deck, self.viewer, view.hand, view.record)]


def deal(deck: kw.Deck, seed: int, rules: kw.RuleSet | None = None) -> kw.Game:
    return kw.Game.deal(deck, ["A", "B", "C", "D"], seed=seed, rules=rules or kw.RuleSet())


def through_game(deck: kw.Deck, seed: int, shares: tuple[float, ...]) -> list[kw.Game]:
    """The positions ``shares`` of the way through one random game (by asks)."""
    whole = deal(deck, seed)
    rng = np.random.default_rng(seed)
    asks = []
    while not whole.is_over:
        ask = whole.random_legal_ask(rng)
        asks.append(ask)
        whole.play(ask)
    games = []
    for share in shares:
        game = deal(deck, seed)
        for ask in asks[: int(share * len(asks))]:
            game.play(ask)
        games.append(game)
    return games


def after_draws(seed: int, draws: int) -> kw.Game:
    """A 52-card fish game (four players, seven cards each) played at random until
    ``draws`` cards have been drawn."""
    game = deal(kw.Deck.standard(), seed, kw.RuleSet.preset("fish"))
    rng = np.random.default_rng(seed)
    while not game.is_over and sum(isinstance(e, Drew) for e in game.record) < draws:
        game.play(game.random_legal_ask(rng))
    return game


def positions(quick: bool, seed: int) -> list[Position]:
    piquet, standard = kw.Deck.piquet(), kw.Deck.standard()
    found = [
        Position("piquetDeal", "32 cards, the deal, public", deal(piquet, seed)),
        Position("piquetDealView", "32 cards, the deal, A's view", deal(piquet, seed), "A"),
        Position("standardDeal", "52 cards, the deal, public", deal(standard, seed)),
    ]
    if quick:
        half = through_game(piquet, seed, (0.5,))[0]
        found.append(Position("piquetHalf", "32 cards, half a game, public", half))
        found.append(Position("fishTwo", "52 cards fish, 2 draws, public", after_draws(seed, 2)))
        return found
    found.append(
        Position("standardDealView", "52 cards, the deal, A's view", deal(standard, seed), "A")
    )
    for deck, name, label in ((piquet, "piquet", "32"), (standard, "standard", "52")):
        for share, word in zip(
            (0.25, 0.5, 0.75), ("Quarter", "Half", "ThreeQuarters"), strict=True
        ):
            game = through_game(deck, seed, (share,))[0]
            found.append(
                Position(f"{name}{word}", f"{label} cards, {share:.0%} of a game, public", game)
            )
    for draws, word in ((16, "Sixteen"), (20, "Twenty"), (24, "TwentyFour")):
        game = after_draws(seed, draws)
        found.append(Position(f"fish{word}", f"52 cards fish, {draws} draws, public", game))
    return found


# ----- one call of one tool, in a child process --------------------------------------


def run_tool(tool: str, position: Position, repeat: int) -> tuple[str, Any]:
    """``("ok", (answer, seconds))``, or ``("refused", message)`` where the counting
    engine refuses; the CNF is written before the clock starts."""
    history, viewers = position.history(), position.viewers()
    call: Callable[[], int]
    if tool == "counting":
        counting.clear()
        call = lambda: WorldCounter(history, viewers).count  # noqa: E731
    elif tool == "bdd":
        source = position.game
        call = lambda: (  # noqa: E731
            kw.knowledge(source, engine="symbolic")
            .engine_named("symbolic")
            .count_worlds(position.viewer)
        )
    elif tool == "cnf":
        start = time.perf_counter()
        law = law_cnf(history, viewers)
        return "ok", ((law.n_vars, len(law.clauses), len(law.primary)), time.perf_counter() - start)
    else:
        law = law_cnf(history, viewers)
        if tool == "sdd":
            call = lambda: count_with_sdd(law)  # noqa: E731
        elif tool == "ganak":
            call = lambda: count_with_ganak(law)  # noqa: E731
        else:
            call = lambda: count_with_approxmc(  # noqa: E731
                law, epsilon=EPSILON, delta=DELTA, seed=repeat + 1
            )
    start = time.perf_counter()
    try:
        answer = call()
    except kw.ModelTooLargeError as error:
        return "refused", str(error).split(" (counting.options")[0]
    return "ok", (answer, time.perf_counter() - start)


def _child(connection: Any, tool: str, position: Position, repeat: int) -> None:
    # The SDD package prints what it reads on the C library's standard output.
    with open(os.devnull, "w") as devnull, contextlib.redirect_stdout(devnull):
        os.dup2(devnull.fileno(), 1)
        try:
            connection.send(run_tool(tool, position, repeat))
        except Exception as error:  # reported, not raised: the others go on
            connection.send(("error", f"{type(error).__name__}: {error}"[:200]))


def timed(tool: str, position: Position, repeat: int, timeout: float) -> tuple[str, Any]:
    """One call in a forked child, stopped (by its own process id) after ``timeout``."""
    context = multiprocessing.get_context("fork")
    receive, send = context.Pipe(duplex=False)
    child = context.Process(target=_child, args=(send, tool, position, repeat))
    child.start()
    send.close()
    result: tuple[str, Any] = ("timeout", None)
    if receive.poll(timeout):
        try:
            result = receive.recv()
        except EOFError:
            result = ("error", f"the child ended with status {child.exitcode}")
    else:
        child.kill()
    child.join()
    if result[0] == "timeout" and child.exitcode not in (None, -9):
        result = ("error", f"the child ended with status {child.exitcode}")
    return result


# ----- the driver --------------------------------------------------------------------


def machine() -> str:
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short=12", "HEAD"],
            cwd=Path(__file__).resolve().parent,
            capture_output=True,
            text=True,
            timeout=30,
        ).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        commit = ""
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return (
        f"commit {commit or 'unknown'}; {platform.machine()}, {os.cpu_count()} cores, "
        f"python {platform.python_version()}; load average {load}"
    )


def describe(answer: Any) -> str:
    return str(answer) if not isinstance(answer, int) else f"{answer} (~{float(answer):.3g})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small positions, short timeouts")
    parser.add_argument("--repeats", type=int, default=None, help="default 5 (quick: 1)")
    parser.add_argument(
        "--timeout", type=float, default=None, help="seconds per call (default 60; quick: 5)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tools", default=",".join(TOOLS), help="comma-separated")
    parser.add_argument("--out", type=Path, default=None, metavar="DIR")
    args = parser.parse_args(argv)
    repeats = args.repeats or (1 if args.quick else 5)
    timeout = args.timeout or (5.0 if args.quick else 60.0)
    tools = [t for t in args.tools.split(",") if t]
    unknown = sorted(set(tools) - set(TOOLS))
    if unknown or repeats < 1 or timeout <= 0:
        parser.error(f"--tools: expected some of {', '.join(TOOLS)}; --repeats >= 1, --timeout > 0")
    lines = [f"model counting baselines: {machine()}"]
    lines.append(
        f"{repeats} repeat(s), timeout {timeout:g} s per call; ApproxMC epsilon {EPSILON}, "
        f"delta {DELTA}; times: median [min, max] wall seconds inside the call"
    )
    print("\n".join(lines), flush=True)
    numbers: dict[str, str] = {}
    disagreements = 0
    for position in positions(args.quick, args.seed):
        head = f"\n{position.text}"
        status, value = timed("cnf", position, 0, timeout)
        if status == "ok":
            (n_vars, n_clauses, n_primary), seconds = value
            head += (
                f": CNF of {n_vars} variables ({n_primary} primary), {n_clauses} clauses, "
                f"written in {seconds:.3f} s"
            )
        print(head, flush=True)
        lines.append(head)
        exact: int | None = None
        for tool in tools:
            answers, times, note = [], [], ""
            for repeat in range(repeats):
                status, value = timed(tool, position, repeat, timeout)
                if status != "ok":
                    note = status if status == "timeout" else f"{status}: {value}"
                    break
                answers.append(value[0])
                times.append(value[1])
            macro = _latex.macro_name("kw", "baselines", position.key, tool)
            if not times:
                row = f"  {tool:<9} {note}"
                numbers[macro] = _latex.escape(note.split(":")[0])
            else:
                median = statistics.median(times)
                answer = answers[0] if tool != "approxmc" else int(statistics.median(answers))
                row = (
                    f"  {tool:<9} {describe(answer):<40} {median:9.3f} s "
                    f"[{min(times):.3f}, {max(times):.3f}]"
                )
                numbers[macro] = _latex.sig(median)
                if note:
                    row += f" ({note} after {len(times)} run(s))"
                if tool == "counting":
                    exact = answer
                if tool in EXACT and len(set(answers)) > 1:
                    row += "  DISAGREES between repeats"
                    disagreements += 1
                if tool in EXACT and tool != "counting" and exact is not None:
                    if answer == exact:
                        row += "  = counting"
                    else:
                        row += "  DISAGREES with counting"
                        disagreements += 1
                if tool == "approxmc":
                    estimates = [float(a) for a in answers]
                    if exact is not None:
                        inside = sum(
                            exact / (1 + EPSILON) <= e <= exact * (1 + EPSILON) for e in estimates
                        )
                        row += f"  within 1+eps of the count: {inside}/{len(estimates)}"
                    else:
                        row += (
                            f"  bounds [{min(estimates) / (1 + EPSILON):.3g}, "
                            f"{max(estimates) * (1 + EPSILON):.3g}] w.p. >= {1 - DELTA:g} each"
                        )
            print(row, flush=True)
            lines.append(row)
    tail = f"\nload average at the end {', '.join(f'{x:.2f}' for x in os.getloadavg())}"
    tail += f"; exact answers that disagree: {disagreements}"
    print(tail, flush=True)
    lines.append(tail)
    if args.out is not None:
        args.out.mkdir(parents=True, exist_ok=True)
        (args.out / "model_counting_baselines.txt").write_text("\n".join(lines) + "\n")
        _latex.write_numbers(
            args.out / "model_counting_baselines_numbers.tex",
            "experiments/model_counting_baselines.py",
            numbers,
        )
    return 1 if disagreements else 0


if __name__ == "__main__":
    sys.exit(main())
