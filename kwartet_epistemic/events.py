"""Events of a Kwartet game: frozen values, each with a plain-English sentence.

The referee emits them in order; ``game.record`` is the public record.  Only a draw has a
private part (the drawn card), which :meth:`Drew.public` hides.

>>> from kwartet_epistemic.cards import Deck
>>> qh = Deck.piquet().card("QH")
>>> Asked("A", "B", qh).sentence()
'A asks B: may I have the queen of hearts?'
>>> Answered("B", qh, False).sentence()
'B: no.'
"""

from __future__ import annotations

from dataclasses import dataclass

from kwartet_epistemic.cards import Card

__all__ = [
    "Event",
    "Dealt",
    "Asked",
    "Answered",
    "CardMoved",
    "QuartetExposed",
    "Drew",
    "MiddleCardTurned",
    "TurnPassed",
    "HandEmptied",
    "GameEnded",
    "transcript",
]


class Event:
    """Base class of all events."""

    __slots__ = ()

    def sentence(self) -> str:
        """The event as a short plain sentence."""
        raise NotImplementedError

    def public(self) -> Event:
        """The event as every player sees it (only draws hide something)."""
        return self


@dataclass(frozen=True, slots=True)
class Dealt(Event):
    """The deal: seats clockwise, dealer, and the public sizes of every hand and pile.

    >>> Dealt(("A", "B", "C"), "C", (4, 4, 4)).sentence()
    'C deals 12 cards: A 4, B 4, C 4.'
    """

    players: tuple[str, ...]
    dealer: str
    hand_sizes: tuple[int, ...]
    stock_size: int = 0
    aside_size: int = 0
    middle_size: int = 0

    def sentence(self) -> str:
        total = sum(self.hand_sizes)
        sizes = ", ".join(f"{p} {n}" for p, n in zip(self.players, self.hand_sizes, strict=True))
        extra = []
        if self.stock_size:
            extra.append(f"{self.stock_size} in the stock")
        if self.aside_size:
            extra.append(f"{self.aside_size} set aside face down")
        if self.middle_size:
            extra.append(f"{self.middle_size} face down in the middle")
        tail = f"; {', '.join(extra)}" if extra else ""
        return f"{self.dealer} deals {total} cards: {sizes}{tail}."


@dataclass(frozen=True, slots=True)
class Asked(Event):
    """``asker`` asks ``target`` for ``card``."""

    asker: str
    target: str
    card: Card

    def sentence(self) -> str:
        return f"{self.asker} asks {self.target}: may I have the {self.card.name}?"


@dataclass(frozen=True, slots=True)
class Answered(Event):
    """``target`` answers whether it holds ``card`` (always truthfully)."""

    target: str
    card: Card
    has_card: bool

    def sentence(self) -> str:
        return f"{self.target}: {'yes' if self.has_card else 'no'}."


@dataclass(frozen=True, slots=True)
class CardMoved(Event):
    """``card`` moves openly from ``source``'s hand to ``destination``'s hand.

    >>> from kwartet_epistemic.cards import Deck
    >>> CardMoved(Deck.piquet().card("7S"), "B", "A").sentence()
    'B gives the seven of spades to A.'
    """

    card: Card
    source: str
    destination: str

    def sentence(self) -> str:
        return f"{self.source} gives the {self.card.name} to {self.destination}."


@dataclass(frozen=True, slots=True)
class QuartetExposed(Event):
    """``player`` lays down the complete family ``family`` and scores a point."""

    player: str
    family: str
    title: str = ""

    def sentence(self) -> str:
        return f"{self.player} lays down the quartet of {self.title or self.family}."


@dataclass(frozen=True, slots=True)
class Drew(Event):
    """``player`` draws the top card of the stock; ``card`` is None in others' views.

    >>> from kwartet_epistemic.cards import Deck
    >>> e = Drew("A", Deck.piquet().card("7S"))
    >>> e.sentence(), e.public().sentence()
    ('A draws the seven of spades from the stock.', 'A draws a card from the stock.')
    """

    player: str
    card: Card | None = None

    def sentence(self) -> str:
        what = f"the {self.card.name}" if self.card is not None else "a card"
        return f"{self.player} draws {what} from the stock."

    def public(self) -> Drew:
        return self if self.card is None else Drew(self.player, None)


@dataclass(frozen=True, slots=True)
class MiddleCardTurned(Event):
    """Memory Kwartet: ``player`` turns over the face-down card in middle ``slot``."""

    player: str
    slot: int
    card: Card

    def sentence(self) -> str:
        return f"{self.player} turns over middle card {self.slot}: the {self.card.name}."


@dataclass(frozen=True, slots=True)
class TurnPassed(Event):
    """The turn goes to ``player``; ``reason`` says why ("refusal", "empty hand", ...).

    ``cannot_ask`` names the players passed over although they hold cards: they could not
    ask for anything (Memory Kwartet: every family they hold has its other cards face up),
    which everyone at the table learns.

    >>> TurnPassed("C", "cannot ask", ("B",)).sentence()
    "B cannot ask. C's turn."
    """

    player: str
    reason: str = ""
    cannot_ask: tuple[str, ...] = ()

    def sentence(self) -> str:
        skipped = "".join(f"{p} cannot ask. " for p in self.cannot_ask)
        return f"{skipped}{self.player}'s turn."


@dataclass(frozen=True, slots=True)
class HandEmptied(Event):
    """``player`` holds no cards any more and is out of further requests."""

    player: str

    def sentence(self) -> str:
        return f"{self.player}'s hand is empty."


@dataclass(frozen=True, slots=True)
class GameEnded(Event):
    """The end: scores in seat order, the winners, and the hidden cards now revealed."""

    players: tuple[str, ...]
    scores: tuple[int, ...]
    winners: tuple[str, ...]
    revealed: tuple[Card, ...] = ()

    def sentence(self) -> str:
        scores = ", ".join(f"{p} {s}" for p, s in zip(self.players, self.scores, strict=True))
        if len(self.winners) == 1:
            result = f"{self.winners[0]} wins"
        else:
            result = " and ".join(self.winners) + " share the win"
        shown = ""
        if self.revealed:
            shown = " Face-down cards: " + ", ".join(c.code for c in self.revealed) + "."
        return f"Game over. Quartets: {scores}. {result}.{shown}"


def transcript(events: tuple[Event, ...] | list[Event]) -> str:
    """Events as readable lines: an ask, its answer and what follows share one line.

    >>> from kwartet_epistemic.cards import Deck
    >>> qh = Deck.piquet().card("QH")
    >>> print(transcript([Asked("A", "B", qh), Answered("B", qh, False), TurnPassed("B")]))
    A asks B: may I have the queen of hearts? B: no. B's turn.
    """
    lines: list[str] = []
    current: list[str] = []
    for event in events:
        if isinstance(event, Asked | Dealt | MiddleCardTurned | GameEnded) and current:
            lines.append(" ".join(current))
            current = []
        current.append(event.sentence())
    if current:
        lines.append(" ".join(current))
    return "\n".join(lines)
