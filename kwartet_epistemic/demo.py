"""The demo behind ``kwartet demo``: a seeded game between the best agents, told with what
the table deduces, and the pictures of that deduction.

Four players of the strongest registered agent (``search``, else ``higher_order``, else
``knowledge``) play a 32-card game under the publisher's rules.  After every move the
demo says what the move taught: the refusal as a fact, then who now knows where which
card is ("Now A knows C holds Q♥.", and for the first few such deductions the public
facts that force it, from :meth:`~kwartet_epistemic.EpistemicState.explain`), what has
become common knowledge, and when every
player knows where every card of a family is.  With a figure directory it also writes
the progress plot, the heatmap animation and the knowledge timeline there.

>>> import io
>>> out = io.StringIO()
>>> game = run_demo(7, out)
>>> game.is_over, sum(game.scores.values())
(True, 8)
>>> print(out.getvalue())  # doctest: +ELLIPSIS
Kwartet demo, seed 7: 4 players (A, B, C, D), ... publisher rules, 32 cards.
Every agent sees only its own hand and the public record, and reasons about them exactly.
The deal (D deals):
  A: 8♥ 10♦ 10♣ J♦ J♣ K♠ K♥ A♠
...
Game over. Quartets: ...
"""

from __future__ import annotations

import math
import sys
from pathlib import Path
from typing import TextIO

import numpy as np

from kwartet_epistemic.cards import Deck
from kwartet_epistemic.epistemics.narration import Moment, card_label, lessons
from kwartet_epistemic.events import GameEnded
from kwartet_epistemic.game import Game
from kwartet_epistemic.viz.progress import narrate

__all__ = [
    "DEMO_AGENTS",
    "DEMO_PLAYERS",
    "Moment",
    "demo_agent",
    "lessons",
    "narrate",
    "run_demo",
    "write_figures",
]

DEMO_PLAYERS = ("A", "B", "C", "D")
#: The agents the demo prefers, strongest first (the first one registered is used).
DEMO_AGENTS = ("search", "higher_order", "knowledge")


def demo_agent() -> str:
    """The strongest registered agent policy of :data:`DEMO_AGENTS`.

    >>> demo_agent() in DEMO_AGENTS
    True
    """
    from kwartet_epistemic.agents import policy_names

    registered = policy_names()
    for name in DEMO_AGENTS:
        if name in registered:
            return name
    raise LookupError(f"none of the demo agents {DEMO_AGENTS} is registered")  # pragma: no cover


def _play(seed: int, agent: str) -> Game:
    from kwartet_epistemic.agents import make_agent

    game = Game.deal(Deck.piquet(), DEMO_PLAYERS, seed=seed)
    players = {
        p: make_agent(agent, p, np.random.default_rng([seed, 1, seat]))
        for seat, p in enumerate(game.players)
    }
    while not game.is_over:
        mover = game.to_move
        assert mover is not None
        game.play(players[mover].choose(game.view(mover)))
    return game


def _power(count: int) -> str:
    return f"{count:,}" if count < 10_000 else f"10^{math.log10(count):.1f}"


EXPLAINED_DEDUCTIONS = 3
"""How many of the first private deductions the demo explains ("because: ...")."""


def _because(game: Game, progress: object, step: int) -> str:
    """Why the first player who newly knows where a card is after move ``step`` knows it
    (the card not just moved or laid down, nor newly common knowledge): a deletion-minimal
    set of public facts from :meth:`~kwartet_epistemic.EpistemicState.explain`, or ""."""
    from kwartet_epistemic.epistemics import knowledge
    from kwartet_epistemic.record import GameRecord
    from kwartet_epistemic.viz.progress import GameProgress

    assert isinstance(progress, GameProgress)
    ask = progress.asks[step]
    moved = ask.card.index if ask is not None and progress.kinds[step] == "yes" else None
    before, after = step - 1, step
    for card in game.deck.cards:
        c = card.index
        holder = int(progress.holder[after, c])
        if progress.exposed[after, c] or holder < 0 or c == moved:
            continue
        if progress.public_known[after, c]:
            continue
        for seat, player in enumerate(game.players):
            if (
                seat != holder
                and progress.known[after, seat, c]
                and not progress.known[before, seat, c]
            ):
                record = GameRecord.from_game(game)
                then = record.with_actions(record.actions[:step]).replay()
                why = knowledge(then).explain(player, card)
                if not why.facts:
                    return ""
                return f"{player} knows because: {why.because()}."
    return ""


def write_figures(
    progress: object, directory: str | Path, *, player: str = "A", progress_bar: bool = False
) -> dict[str, Path]:
    """Write the progress plot, ``player``'s heatmap animation and the knowledge timeline
    of a game's progress into ``directory``; returns ``{what: path}``.  Each file is
    written atomically (to a temporary file, then renamed): a stop leaves whole figures."""
    from kwartet_epistemic.files import atomic_path
    from kwartet_epistemic.viz import heatmap_animation, plot_progress, plot_timeline

    folder = Path(directory)
    folder.mkdir(parents=True, exist_ok=True)
    written = {
        "progress": folder / "progress.png",
        "heatmap": folder / f"heatmap_{player}.gif",
        "timeline": folder / "timeline.png",
    }
    with atomic_path(written["progress"]) as temporary:
        plot_progress(progress).savefig(temporary, dpi=110)  # type: ignore[arg-type]
    with atomic_path(written["timeline"]) as temporary:
        plot_timeline(progress).savefig(temporary, dpi=110)  # type: ignore[arg-type]
    heatmap_animation(progress, player, written["heatmap"], progress_bar=progress_bar)  # type: ignore[arg-type]
    return written


def run_demo(
    seed: int = 7,
    out: TextIO | None = None,
    figures: str | Path | None = None,
    *,
    progress_bar: bool | None = None,
) -> Game:
    """Play the demo game with ``seed``, print it with what the table learns after every
    move to ``out`` (default stdout), write the figures into the directory ``figures``
    (none when None) and return the finished game.  ``progress_bar`` (default: when
    stderr is a terminal) shows tqdm bars on stderr for the slow parts.

    The same seed always prints the same game.
    """
    from kwartet_epistemic.viz.progress import game_progress

    out = sys.stdout if out is None else out
    bars = sys.stderr.isatty() if progress_bar is None else progress_bar
    agent = demo_agent()
    game = _play(seed, agent)
    progress = game_progress(game, public=True, progress_bar=bars)
    deal = game.initial_deal
    say = lambda text="": print(text, file=out)  # noqa: E731
    say(
        f"Kwartet demo, seed {seed}: {len(game.players)} players ({', '.join(game.players)}), "
        f"each played by the '{agent}' agent, {game.rules.name} rules, {len(game.deck)} cards."
    )
    say("Every agent sees only its own hand and the public record, and reasons about them exactly.")
    say(f"The deal ({deal['dealer']} deals):")
    for player in game.players:
        say(f"  {player}: {' '.join(card_label(game.deck.card(c)) for c in deal['hands'][player])}")
    say(progress.lines[0])
    public0 = progress.public_worlds[0]
    assert public0 is not None
    say(
        f"At the deal {public0:,} deals (10^{math.log10(public0):.1f}) fit the public record; "
        "seeing their own hand,"
    )
    say(
        "each player still considers possible: "
        + ", ".join(
            f"{p} {_power(int(n))}" for p, n in zip(game.players, progress.worlds[0], strict=True)
        )
        + "."
    )
    say("After each move: what the table learned, and the worlds each player still considers.")
    say()
    events = game.events
    explained = 0
    for step in range(1, progress.n_steps + 1):
        first = int(progress.event_index[step - 1]) + 1
        move = events[first : int(progress.event_index[step]) + 1]
        text = " ".join(e.sentence() for e in move if not isinstance(e, GameEnded))
        say(f"{step:3d}. {text}")
        counts = "  ".join(
            f"{p} {_power(int(n))}"
            for p, n in zip(game.players, progress.worlds[step], strict=True)
        )
        lessons = narrate(progress, step)
        for sentence in lessons:
            say(f"       {sentence}")
        if explained < EXPLAINED_DEDUCTIONS:
            reason = _because(game, progress, step)
            if reason:
                say(f"       {reason}")
                explained += 1
        say(f"       possible worlds: {counts}")
    say()
    share = progress.known_share
    located = []
    for seat, player in enumerate(game.players):
        full = np.flatnonzero(share[:, seat] >= 1.0)
        located.append(f"{player} from move {int(full[0])}" if full.size else f"{player} never")
    say("Each player knew where every card was: " + ", ".join(located) + ".")
    if figures is not None:
        written = write_figures(progress, figures, progress_bar=bars)
        say(f"Figures in {Path(figures).resolve()}:")
        say(f"  {written['progress'].name:<15} world counts and located cards after every move")
        say(f"  {written['heatmap'].name:<15} what A believed about every card, move by move")
        say(f"  {written['timeline'].name:<15} when each player first knew where each card was")
    say(events[-1].sentence())
    return game
