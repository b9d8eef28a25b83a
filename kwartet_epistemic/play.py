"""The terminal game behind ``kwartet play``: a human against computer players, told with
what every move teaches.

After every move the session prints the move with the demo's narration
(:func:`kwartet_epistemic.epistemics.narration.lessons`), told from the human's seat: what the table
learns (a refusal, what became common knowledge), what the human now knows, and what the
human can be sure the others now know about their hand.  Nothing the human could not
work out from their own seat is told about other hands: "Now B knows you hold 8♠." means
that in every world the human considers possible, B knows it.

At the prompt, besides asks, the human can type ``knows [PLAYER]``, ``worlds``,
``chances``, ``why CARD``, ``log``, ``hand``, ``asks``, ``save FILE``, ``help`` and
``quit`` (see :data:`PLAY_HELP`).  Repeating an ask that was refused, when the asked
player cannot have got the card since, gets a hint first; typing it again asks anyway.

>>> import io
>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> out = io.StringIO()
>>> session = Session(game, "A", {}, io.StringIO("worlds\\nquit\\n"), out, None)
>>> session.run()
0
>>> print(out.getvalue())  # doctest: +ELLIPSIS
  0. C deals 8 cards: A 2, B 3, C 3. A's turn.
Your hand (2): sevens: 7♠ | eights: 8♠
Hand sizes: A 2 (you), B 3, C 3
Quartets laid down: none yet
You know where 0 of the 6 cards you cannot see are; you consider 20 worlds possible.
A> worlds
Worlds each player still considers possible (exact):
  A (you)         20
  B               10
  C               10
  public record  560
  (a world: ...)
A> quit
Stopping the game.
<BLANKLINE>
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from typing import TextIO

import numpy as np

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.epistemics.narration import Moment, lessons
from kwartet_epistemic.errors import GameSetupError, KwartetError, UnknownCardError
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Drew,
    Event,
    GameEnded,
    MiddleCardTurned,
)
from kwartet_epistemic.game import Ask, Game, PlayerView, parse_ask
from kwartet_epistemic.opponents import ComputerPlayer

__all__ = ["PACES", "PLAY_HELP", "PUBLIC_DRAWS", "Session", "Tutor"]

PACES = ("step", "none")
"""How the computer players' moves are told: ``step`` pauses after each turn (the
default in a terminal), ``none`` tells them all at once (the default for piped input)."""

PLAY_HELP = """\
Commands (type them at the prompt):
  B QH                          ask B for the queen of hearts (QH, Q♥, "queen of hearts")
  B, may I have the 7 of clubs? the same, in words
  turn N                        Memory Kwartet: turn over face-down middle card N
  knows [PLAYER]                the cards you (or PLAYER) know the place of, and the move
                                that settled each (for another player: what you can be
                                sure they know)
  worlds                        how many worlds each player still considers possible
  chances                       your probability (%) that each player holds each card
  why CARD                      why you know (or do not know) where CARD is
  hand                          show your hand, hand sizes and quartets again
  asks                          list the asks you may make now
  log                           every move so far, numbered
  save FILE                     save the game as a JSON record (kwartet replay FILE)
  help                          this text
  quit                          stop playing (saves to --save FILE if given)
While the computer players move (--pace step, the default in a terminal): Enter shows
the next turn, 'rest' all the moves up to yours, 'quit' stops.
"""


def _card_text(deck: Deck, card: Card) -> str:
    """How a card is typed by the human: its code for rank decks, its label for themes."""
    return card.code if deck.name in ("piquet", "standard") else card.name


def _label(card: Card) -> str:
    """How a card is shown in sentences and tables (the demo's way)."""
    return card.symbol or card.code


def _names(items: Sequence[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _hand_by_family(view: PlayerView) -> str:
    groups: dict[str, list[str]] = {}
    for card in view.hand:  # in the narration's symbols (7♠); asks may type 7S or 7♠
        groups.setdefault(view.deck.family_titles[card.family_index], []).append(_label(card))
    return " | ".join(f"{title}: {' '.join(cards)}" for title, cards in groups.items()) or "-"


def _status(view: PlayerView) -> str:
    """The human's hand grouped by family, hand sizes, quartets and piles."""
    me = view.player
    lines = [f"Your hand ({len(view.hand)}): {_hand_by_family(view)}"]
    sizes = ", ".join(
        f"{p} {view.hand_sizes[p]}{' (you)' if p == me else ''}" for p in view.players
    )
    lines.append(f"Hand sizes: {sizes}")
    if view.exposed:
        laid = ", ".join(
            f"{view.deck.family_title(f)} ({owner})" for f, owner in view.exposed.items()
        )
        lines.append(f"Quartets laid down: {laid}")
    else:
        lines.append("Quartets laid down: none yet")
    if view.rules.draw_pile:
        lines.append(f"Stock: {view.stock_size} card{'' if view.stock_size == 1 else 's'}")
    if view.middle:
        slots = ", ".join(
            f"[{i}] {'face down' if c is None else _card_text(view.deck, c)}"
            for i, c in enumerate(view.middle)
        )
        lines.append(f"Middle: {slots}")
    return "\n".join(lines)


def _list_asks(view: PlayerView) -> str:
    by_target: dict[str, list[str]] = {}
    for ask in view.legal_asks():
        by_target.setdefault(ask.target, []).append(_card_text(view.deck, ask.card))
    if not by_target:
        return "You have no ask to make now."
    return "\n".join(f"  {target} {' '.join(cards)}" for target, cards in by_target.items())


def _outcome(game: Game, human: str) -> str:
    winners = game.winners
    if human in winners:
        return "You win!" if len(winners) == 1 else "You share the win."
    return f"{' and '.join(winners)} {'wins' if len(winners) == 1 else 'share the win'}."


def _is_terminal(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):  # closed or stream-like objects without a tty
        return False


def _percent(p: float) -> str:
    if p <= 0.0:
        return "."
    if p >= 1.0:
        return "100"
    value = round(100 * p)
    return "<1" if value < 1 else ">99" if value > 99 else str(value)


# ----- what one seat learns ------------------------------------------------------------

PUBLIC_DRAWS = 7
"""With a draw pile, the tutor counts the public worlds while at most this many cards
have been drawn (beyond, each public count takes seconds)."""


class Tutor:
    """Follows a game from the seat of ``you``: after each move the :class:`Moment` of
    what ``you`` know, what the public record fixes, and what ``you`` can be sure each
    other player knows (``K_you K_P has(holder, card)``), and the move that settled each.

    Only questions ``you`` could answer from their own seat are asked of the epistemic
    state, except :meth:`world_counts`, which gives every player's own count.

    With a draw pile, "you can be sure P knows" is taken from what the public record
    fixes (while at most :data:`PUBLIC_DRAWS` cards have been drawn; then from what it
    fixed then, as a place once known changes only in public): the nested query itself
    would need the symbolic engine, minutes per move after a few draws.  So in those
    games the tutor may say less than the players know, never more.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> tutor = Tutor(game, "B")
    >>> _ = game.ask("B", "7D")
    >>> tutor.follow(game.record[1:])
    ['Everyone now knows you have no 7♦.', 'It is now common knowledge that C holds 7♦.']
    >>> tutor.settled_at("B", game.deck.card("7D"))
    1
    """

    def __init__(self, game: Game, you: str) -> None:
        from kwartet_epistemic.epistemics import knowledge

        self.game, self.you = game, you
        self.seat = game.players.index(you)
        self.state = knowledge(game)
        self.draw_pile = game.rules.draw_pile
        self.moments: list[Moment] = [self._moment(None)]
        n = len(game.players)
        self._settled = np.where(self.moments[0].known, 0, -1).reshape(n, len(game.deck))

    def counts_public(self) -> bool:
        """Whether the public worlds are counted now: always without a draw pile, with
        one while at most :data:`PUBLIC_DRAWS` cards have been drawn (beyond, each
        public count takes seconds)."""
        if not self.draw_pile:
            return True
        return sum(isinstance(e, Drew) for e in self.game.record) <= PUBLIC_DRAWS

    @property
    def step(self) -> int:
        """The number of moves followed."""
        return len(self.moments) - 1

    def _moment(self, previous: Moment | None) -> Moment:
        game, state, deck = self.game, self.state, self.game.deck
        n_cards = len(deck)
        exposed = np.zeros(n_cards, dtype=bool)
        for family in game.exposed:
            for card in deck.family_cards(family):
                exposed[card.index] = True
        holder = np.full(n_cards, -1, dtype=np.int64)
        for seat, player in enumerate(game.players):
            for card in game.hand(player):
                holder[card.index] = seat
        total = state.count_worlds(self.you)
        counts = state.location_counts(self.you)
        mine = exposed | np.array([max(int(x) for x in row) == total for row in counts])
        public = exposed.copy()
        if self.counts_public():
            public_total = state.count_worlds()
            public |= np.array(
                [max(int(x) for x in row) == public_total for row in state.location_counts()]
            )
        known = np.zeros((len(game.players), n_cards), dtype=bool)
        for seat, player in enumerate(game.players):
            if seat == self.seat:
                known[seat] = mine
                continue
            for c in range(n_cards):
                h = int(holder[c])
                if public[c] or h == seat:
                    known[seat, c] = bool(public[c] or mine[c])
                elif mine[c] and h >= 0:
                    if (
                        previous is not None
                        and previous.known[seat, c]
                        and int(previous.holder[c]) == h
                    ):
                        # A place, once known, changes only in public (a card in a hand
                        # is never drawn).
                        known[seat, c] = True
                    elif self.draw_pile:
                        known[seat, c] = False  # not public (see the class docstring)
                    elif state.knows_location(player, deck.cards[c]) is None:
                        # A shortcut only: what `you` can be sure of is true, so where the
                        # player does not know it (a fast count) the nested query is False.
                        known[seat, c] = False
                    else:
                        owner, code = game.players[h], deck.cards[c].code
                        known[seat, c] = state.holds(
                            f"K_{self.you} K_{player} has({owner}, {code})"
                        )
        return Moment(known=known, public_known=public, exposed=exposed, holder=holder)

    def follow(self, events: Sequence[Event]) -> list[str]:
        """Take in one move (its events) and return what it taught, from ``you``'s seat."""
        ask, kind = None, "turn"
        for event in events:
            if isinstance(event, Asked):
                ask = Ask(event.asker, event.target, event.card)
            elif isinstance(event, Answered):
                kind = "yes" if event.has_card else "no"
        before = self.moments[-1]
        after = self._moment(before)
        self.moments.append(after)
        step = self.step
        newly = after.known & (self._settled < 0)
        self._settled[newly] = step
        self._settled[~after.known] = -1
        sentences = lessons(
            self.game.deck, self.game.players, ask, kind, before, after, you=self.you
        )
        if ask is not None and kind == "no" and ask.target == self.you:
            sentences[0] = f"Everyone now knows you have no {_label(ask.card)}."
        return sentences

    def settled_at(self, player: str, card: Card) -> int | None:
        """The move since which ``player`` knows (as far as ``you`` can be sure) where
        ``card`` is, or None."""
        step = int(self._settled[self.game.players.index(player), card.index])
        return None if step < 0 else step

    def world_counts(self) -> dict[str, int]:
        """Every player's own exact world count (the referee's: each depends on that
        player's hand)."""
        return {p: self.state.count_worlds(p) for p in self.game.players}

    def probabilities(self) -> np.ndarray:
        """``[card, player]``: ``you``'s exact probabilities."""
        return np.asarray(self.state.location_probabilities(self.you), dtype=float)


# ----- the session ----------------------------------------------------------------------


class Session:
    """One terminal game: the human at ``human``'s seat, computer players elsewhere."""

    def __init__(
        self,
        game: Game,
        human: str,
        opponents: Mapping[str, ComputerPlayer],
        inp: TextIO,
        out: TextIO,
        save_path: str | None,
        pace: str | None = None,
    ) -> None:
        if pace is None:
            pace = "step" if _is_terminal(inp) else "none"
        if pace not in PACES:
            raise GameSetupError(f"pace {pace!r}: expected one of {', '.join(PACES)}")
        self.game, self.human, self.opponents = game, human, opponents
        self.inp, self.out, self.save_path = inp, out, save_path
        self.pace = pace
        self.stopped = False  # the human quit while the others played
        self.tutor = Tutor(game, human)
        self.shown = 0  # record events (of the human's view) already told
        self.moves: list[str] = []  # the text of every move, 0 being the deal
        self.move_starts: list[int] = []  # the record index at which each move begins
        self.pending: Ask | None = None  # an ask the human was warned about
        self.hinted = False
        self._tell_move(first=True)

    def say(self, text: str = "") -> None:
        print(text, file=self.out)

    # ----- telling moves

    def _new_events(self) -> list[Event]:
        record = self.game.view(self.human).record
        events = list(record[self.shown :])
        self.shown = len(record)
        return events

    def _tell_move(self, first: bool = False) -> None:
        self.move_starts.append(self.shown)
        events = self._new_events()
        text = " ".join(e.sentence() for e in events if not isinstance(e, GameEnded))
        number = len(self.moves)
        self.moves.append(text)
        self.say(f"{number:3d}. {text}")
        if first:
            return
        for sentence in self.tutor.follow(events):
            self.say(f"       {sentence}")

    def save(self, path: str) -> None:
        try:
            self.game.save(path)
        except OSError as err:
            self.say(f"Could not save to {path}: {err.strerror or err}")
        else:
            self.say(f"Saved the game to {path} (kwartet replay {path}).")

    def run(self) -> int:
        game = self.game
        while True:
            self.move_opponents()
            if self.stopped:
                self.say("Stopping the game.")
                if self.save_path:
                    self.save(self.save_path)
                return 0
            if game.is_over:
                self.summary()
                if self.save_path:
                    self.save(self.save_path)
                return 0
            self.say(_status(game.view(self.human)))
            self.say(self._standing())
            if not self.human_turn():
                if self.save_path:
                    self.save(self.save_path)
                return 0

    def _standing(self) -> str:
        located, hidden = self._located()
        worlds = self.tutor.state.count_worlds(self.human)
        return (
            f"You know where {located} of the {hidden} cards you cannot see "
            f"{'is' if located == 1 else 'are'}; "
            f"you consider {worlds:,} world{'s' if worlds != 1 else ''} possible."
        )

    def summary(self) -> None:
        """The end: the number of moves, every player's quartets and who won."""
        game = self.game
        end = game.events[-1]
        self.say()
        self.say(f"Game over after {len(self.moves) - 1} moves. Final score (quartets):")
        laid: dict[str, list[str]] = {}
        for family, owner in game.exposed.items():
            laid.setdefault(owner, []).append(game.deck.family_title(family))
        pad = max(len(p) for p in game.players) + 6
        for player in game.players:
            who = f"{player} (you)" if player == self.human else player
            families = ", ".join(laid.get(player, []))
            self.say(f"  {who:<{pad}} {game.scores[player]}{'  ' + families if families else ''}")
        if isinstance(end, GameEnded) and end.revealed:
            self.say("Face-down cards: " + ", ".join(_label(c) for c in end.revealed) + ".")
        self.say(_outcome(game, self.human))

    def move_opponents(self) -> None:
        """The computer players' moves until the human's turn, told one by one; with the
        ``step`` pace, a pause after each turn (Enter: the next turn, ``rest``: the rest
        at once, ``quit``: stop), then what the human learnt while they waited."""
        game = self.game
        first_move = len(self.moves)
        before = self._located(), self.tutor.state.count_worlds(self.human)
        pausing = self.pace == "step"
        while not game.is_over and game.to_move != self.human:
            player = game.to_move
            assert player is not None
            choice = self.opponents[player].choose(game.view(player))
            try:
                if isinstance(choice, Ask):
                    game.play(choice)
                else:
                    game.turn_over(choice)
            except KwartetError as err:
                raise GameSetupError(
                    f"computer player {player} made an illegal move: {err}"
                ) from err
            self._tell_move()
            turn_passed = game.to_move != player
            if pausing and turn_passed and not game.is_over and game.to_move != self.human:
                pausing = self._pause(f"{game.to_move}'s turn next")
                if self.stopped:
                    return
        if len(self.moves) > first_move + 1:
            self._while_waiting(first_move, *before)

    def _pause(self, next_up: str) -> bool:
        """Wait for the human between two computer turns; whether to go on pausing."""
        print(
            f"       ({next_up}: Enter for it, 'rest' for all moves up to yours, 'quit' to stop) ",
            end="", file=self.out, flush=True,
        )  # fmt: skip
        line = self.inp.readline()
        if not _is_terminal(self.inp):
            self.say(line.rstrip("\n"))
        word = line.strip().lower()
        if not line or word in ("rest", "r", "all", "a"):
            return False
        if word in ("quit", "exit", "q"):
            self.stopped = True
        return True

    def _located(self) -> tuple[int, int]:
        """The cards the human cannot see, and how many of them they know the place of."""
        moment = self.tutor.moments[-1]
        hidden = ~moment.exposed & (moment.holder != self.tutor.seat)
        return int((moment.known[self.tutor.seat] & hidden).sum()), int(hidden.sum())

    def _while_waiting(self, first_move: int, located: tuple[int, int], worlds: int) -> None:
        """One line on what the human learnt during the computer players' moves."""
        now, now_worlds = self._located(), self.tutor.state.count_worlds(self.human)
        moves = len(self.moves) - first_move
        self.say(
            f"While the others played ({moves} move{'s' if moves != 1 else ''}): you know where "
            f"{now[0]} of the {now[1]} cards you cannot see {'is' if now[0] == 1 else 'are'} "
            f"(before: {located[0]} of {located[1]}); you consider {now_worlds:,} "
            f"world{'s' if now_worlds != 1 else ''} possible (before: {worlds:,})."
        )

    # ----- the prompt

    def human_turn(self) -> bool:
        """Read commands until the human has acted; False when they quit or input ends."""
        game, me = self.game, self.human
        while True:
            print(f"{me}> ", end="", file=self.out, flush=True)
            line = self.inp.readline()
            if not line:
                self.say()
                self.say("Input ended: stopping the game.")
                return False
            if not _is_terminal(self.inp):
                self.say(line.rstrip("\n"))  # echo piped moves so the output reads as a session
            text = line.strip()
            if not text:
                continue
            word, _, rest = text.partition(" ")
            command, rest = word.lower(), rest.strip()
            if command in ("quit", "exit", "q"):
                self.say("Stopping the game.")
                return False
            handler = self._COMMANDS.get(command)
            if handler is not None:
                handler(self, rest)
            elif command == "save":
                if rest:
                    self.save(rest)
                else:
                    self.say("save needs a file name: save FILE")
            elif command == "turn":
                if not rest.isdigit():
                    self.say(
                        f"turn {rest!r}: expected a middle slot number, turn N"
                        if rest
                        else "turn needs a middle slot number: turn N"
                    )
                    continue
                try:
                    game.turn_over(int(rest))
                except KwartetError as err:
                    self.say(f"Not allowed: {err}")
                else:
                    self._tell_move()
                    return True
            else:
                if command == "ask" and rest:  # "ask B QH" reads as "B QH"
                    text = rest
                elif self._unknown_command(command, rest):
                    self.say(
                        f"Unknown command {word!r}: type 'help' for the commands, or an ask "
                        "such as 'B QH'."
                    )
                    continue
                try:
                    ask = parse_ask(text, game, asker=me)
                    if self._warn(ask):
                        continue
                    game.play(ask)
                except KwartetError as err:
                    self.say(f"Not allowed: {err}")
                    if "expected a player and a card" in str(err) or "is not a player" in str(err):
                        self.say("Type an ask such as 'B QH', or 'help'.")
                else:
                    self.pending = None
                    self._tell_move()
                    return True

    def _unknown_command(self, command: str, rest: str) -> bool:
        """Whether a line is neither a command nor an ask: its first word is no player's
        name (``clear``, ``ls``), and as one word it is not a player and card written
        together (``BQH``)."""
        players = {p.lower() for p in self.game.players}
        first = command.rstrip(",:").lower()
        if first in players:
            return False
        if rest:  # "B, may I have ..." starts with a player; "may I ..." names none
            return not any(word.strip(",:?").lower() in players for word in rest.split())
        try:
            parse_ask(command, self.game, asker=self.human)
        except KwartetError:
            return True
        return False

    def _no_argument(self, command: str, rest: str) -> bool:
        if rest:
            self.say(f"{command} {rest!r}: {command} takes nothing after it; type just {command}")
            return False
        return True

    def _player_argument(self, command: str, rest: str) -> str | None:
        by_lower = {p.lower(): p for p in self.game.players}
        if not rest:
            return self.human
        if rest.lower() in ("me", "you", "i"):
            return self.human
        if rest.lower() not in by_lower:
            self.say(
                f"{command} {rest!r}: expected a player, one of {', '.join(self.game.players)}"
            )
            return None
        return by_lower[rest.lower()]

    def _cmd_help(self, rest: str) -> None:
        self.say(PLAY_HELP.rstrip())

    def _cmd_hand(self, rest: str) -> None:
        if self._no_argument("hand", rest):
            self.say(_status(self.game.view(self.human)))

    def _cmd_asks(self, rest: str) -> None:
        if self._no_argument("asks", rest):
            self.say(_list_asks(self.game.view(self.human)))

    def _cmd_log(self, rest: str) -> None:
        if self._no_argument("log", rest):
            for number, text in enumerate(self.moves):
                self.say(f"{number:3d}. {text}")

    def _cmd_worlds(self, rest: str) -> None:
        if not self._no_argument("worlds", rest):
            return
        counts = self.tutor.world_counts()
        rows = [(f"{p} (you)" if p == self.human else p, n) for p, n in counts.items()]
        if self.tutor.counts_public():
            rows.append(("public record", self.tutor.state.count_worlds()))
        pad = max(len(name) for name, _ in rows)
        width = max(len(f"{n:,}") for _, n in rows)
        self.say("Worlds each player still considers possible (exact):")
        for name, count in rows:
            self.say(f"  {name:<{pad}}  {count:>{width},}")
        self.say(
            "  (a world: where the hidden cards are, fitting everything that player has\n"
            "  seen; the others' counts depend on their hands, the public record's on no hand)"
        )

    def _cmd_chances(self, rest: str) -> None:
        if not self._no_argument("chances", rest):
            return
        game, deck, me = self.game, self.game.deck, self.human
        moment = self.tutor.moments[-1]
        probabilities = self.tutor.probabilities()
        others = [s for s, p in enumerate(game.players) if p != me]
        rows = [
            c for c in deck.cards
            if not moment.exposed[c.index] and moment.holder[c.index] != self.tutor.seat
        ]  # fmt: skip
        if not rows:
            self.say("Every card is in your hand or in a quartet on the table.")
            return
        names = [game.players[s] for s in others]
        cell = max(4, *(len(n) + 1 for n in names))
        label = max(len(_label(c)) for c in rows) + 1
        head = " " * label + "".join(f"{n:>{cell}}" for n in names)

        def line(card: Card) -> str:
            cells = "".join(
                f"{_percent(float(probabilities[card.index, s])):>{cell}}" for s in others
            )
            return f"{_label(card):<{label}}{cells}"

        blocks = 3 if len(rows) > 12 else 1
        height = -(-len(rows) // blocks)
        columns = [rows[i * height : (i + 1) * height] for i in range(blocks)]
        gap = "   "
        width = len(head)
        self.say("Your chances (%) that each player holds each card (. = not there, 100 = sure):")
        self.say(gap.join([head] * len([c for c in columns if c])))
        for r in range(height):
            parts = [line(col[r]) if r < len(col) else " " * width for col in columns if col]
            self.say(gap.join(parts).rstrip())

    def _cmd_knows(self, rest: str) -> None:
        player = self._player_argument("knows", rest)
        if player is None:
            return
        game, deck, tutor = self.game, self.game.deck, self.tutor
        seat = game.players.index(player)
        moment = tutor.moments[-1]
        you = player == self.human
        by_holder: dict[int, list[str]] = {}
        for card in deck.cards:
            c = card.index
            h = int(moment.holder[c])
            if moment.exposed[c] or h < 0 or h == seat or not moment.known[seat, c]:
                continue
            step = tutor.settled_at(player, card)
            when = "dealt" if step == 0 else f"move {step}"
            by_holder.setdefault(h, []).append(f"{_label(card)} ({when})")
        count = sum(len(v) for v in by_holder.values())
        cards = f"{count} card{'s' if count != 1 else ''}"
        verb = "is" if count == 1 else "are"
        if you:
            self.say(
                f"You know where {cards} outside your hand {verb}:"
                if count
                else "You know where no card outside your hand is yet."
            )
        else:
            self.say(
                f"You can be sure {player} knows where {cards} outside {player}'s hand {verb}"
                f"{':' if count else '.'} ({player} may know more from {player}'s own hand.)"
            )
        for h in sorted(by_holder):
            holder = "you" if game.players[h] == self.human else game.players[h]
            self.say(f"  {holder}: {', '.join(by_holder[h])}")
        if game.exposed:
            laid = ", ".join(
                f"{deck.family_title(f)} ({owner})" for f, owner in game.exposed.items()
            )
            self.say(f"  on the table: {laid}")

    def _cmd_why(self, rest: str) -> None:
        if not rest:
            self.say("why needs a card: why CARD, e.g. why QH")
            return
        try:
            card = self.game.deck.card(rest)
        except UnknownCardError as err:
            self.say(f"why {rest!r}: expected a card of this deck ({err})")
            return
        self.say(str(self.tutor.state.explain(self.human, card)))

    _COMMANDS = {
        "help": _cmd_help, "?": _cmd_help, "h": _cmd_help,
        "hand": _cmd_hand, "status": _cmd_hand, "show": _cmd_hand,
        "asks": _cmd_asks, "legal": _cmd_asks, "moves": _cmd_asks,
        "log": _cmd_log, "record": _cmd_log,
        "worlds": _cmd_worlds,
        "chances": _cmd_chances,
        "knows": _cmd_knows,
        "why": _cmd_why,
    }  # fmt: skip

    # ----- the hint

    def _warn(self, ask: Ask) -> bool:
        """Whether to hint instead of asking: the same ask was refused before and nothing
        since could have brought the card to the asked player, or the human can work out
        otherwise that they lack it.  Typing the same ask again asks."""
        if self.pending == ask:
            self.pending = None
            return False
        if ask not in self.game.legal_asks():
            return False  # the game says why it may not be asked
        refusal = self._refusal(ask)
        label, target = _label(ask.card), ask.target
        if refusal is not None:
            number, asker = refusal
            who = "you" if asker == self.human else asker
            self.say(
                f"Hint: {who} asked {target} for {label} at move {number} and {target} said "
                f"no; nothing since could have brought {label} to {target}, so {target} "
                f"still has no {label}."
            )
        else:
            seat = self.game.players.index(target)
            if float(self.tutor.probabilities()[ask.card.index, seat]) > 0.0:
                return False
            self.say(
                f"Hint: you can work out that {target} has no {label} (type 'why "
                f"{_card_text(self.game.deck, ask.card)}')."
            )
        self.say("Type the ask again to ask anyway, or choose another ('asks' lists them).")
        self.pending = ask
        self.hinted = True
        return True

    def _refusal(self, ask: Ask) -> tuple[int, str] | None:
        """The move at which ``ask.target`` last refused ``ask.card`` and who asked, if
        nothing since could have brought the card to them (it has not moved, they have not
        drawn or turned over a card); else None."""
        record = self.game.view(self.human).record
        for i in range(len(record) - 1, -1, -1):
            event = record[i]
            if isinstance(event, CardMoved) and event.card == ask.card:
                return None  # the card went somewhere, in public: a new situation
            if isinstance(event, Drew | MiddleCardTurned) and event.player == ask.target:
                return None
            if (
                isinstance(event, Answered)
                and not event.has_card
                and event.target == ask.target
                and event.card == ask.card
            ):
                asked = record[i - 1] if i > 0 else None
                asker = asked.asker if isinstance(asked, Asked) else "someone"
                return bisect.bisect_right(self.move_starts, i) - 1, asker
        return None
