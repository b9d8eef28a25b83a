"""The encodings the reinforcement-learning environments share: the observation layout
and action numbering of a game, and the public record as planes of the cards and seats.

A trained policy sees the game through these; an agent that plays a trained policy at
the referee's table builds the same vector from its own view with them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from kwartet_epistemic._safejson import short
from kwartet_epistemic.agents.knowledge import KnowledgeBase, make_knowledge
from kwartet_epistemic.cards import Deck
from kwartet_epistemic.errors import GameSetupError, IllegalAskError
from kwartet_epistemic.events import Answered, Asked, CardMoved, QuartetExposed
from kwartet_epistemic.game import Ask, Game
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "ACTION_MASK_DTYPE",
    "OBSERVATIONS",
    "REWARDS",
    "SEATS",
    "ObservationLayout",
    "RecordPlanes",
    "RecordSummary",
    "gym_to_openspiel_action",
    "openspiel_to_gym_action",
]

SEATS = "ABCDEF"
REWARDS = ("win", "quartets")
OBSERVATIONS = ("raw", "knowledge", "both")
ACTION_MASK_DTYPE = np.dtype(np.int8)
"""The dtype of every action mask of the environments (1 legal, 0 not): PettingZoo's
classic games use it, and sb3-contrib's ``MaskablePPO`` reads any 0/1 array as a mask."""


class ObservationLayout:
    """The checked settings of an environment's game (players, deck, rules, reward,
    knowledge, max asks), its action numbering (the target relative to the asker, times
    the number of cards, plus the card) and its observation vector: the own hand, the
    exposed cards, hand sizes and scores from the seat's point of view, then the record's
    planes (:class:`RecordPlanes`) and/or the seat's located cards.

    >>> layout = ObservationLayout(4, None, None, "win", "exact", 5000, None, ())
    >>> layout.n_actions, layout.length("raw"), layout.length("both")
    (128, 456, 584)
    """

    def __init__(
        self,
        players: int,
        deck: Deck | None,
        rules: RuleSet | None,
        reward: str,
        knowledge: str,
        max_asks: int,
        render_mode: str | None,
        render_modes: Sequence[str],
    ) -> None:
        if (
            isinstance(players, bool)
            or not isinstance(players, int)
            or not 2 <= players <= len(SEATS)
        ):
            raise GameSetupError(f"players={short(players)}: expected 3 to 6 (2 with a draw pile)")
        if not isinstance(reward, str) or reward not in REWARDS:
            raise GameSetupError(f"reward={short(reward)}: expected one of {', '.join(REWARDS)}")
        if render_mode is not None and render_mode not in render_modes:
            raise GameSetupError(
                f"render_mode={short(render_mode)}: expected None or one of "
                + ", ".join(repr(m) for m in render_modes)
            )
        if isinstance(max_asks, bool) or not isinstance(max_asks, int) or max_asks < 1:
            raise GameSetupError(f"max_asks={short(max_asks)}: expected a whole number >= 1")
        if not isinstance(knowledge, str):
            raise GameSetupError(f"knowledge={short(knowledge)}: expected a knowledge kind")
        make_knowledge(knowledge, "A")  # refuse an unknown kind now
        self.deck = deck if deck is not None else Deck.piquet()
        self.rules = rules if rules is not None else RuleSet()
        self.seats = list(SEATS[:players])
        Game.deal(self.deck, self.seats, seed=0, rules=self.rules)  # a bad setup fails now
        self.reward = reward
        self.knowledge = knowledge
        self.max_asks = max_asks
        self.n_cards = len(self.deck)
        self.n_actions = players * self.n_cards

    def length(self, parts: str) -> int:
        """The observation length with ``parts`` (raw, knowledge or both)."""
        return sum(int(np.prod(shape)) for shape in self.shapes(parts).values())

    def shapes(self, parts: str) -> dict[str, tuple[int, ...]]:
        """The named parts of the observation with ``parts`` (``"raw"``, ``"knowledge"``
        or ``"both"``) and their shapes, in the order the vector holds them; seats are
        counted from the observer (the observer first, then its left):

        * ``hand``, ``exposed`` (per card: 1 if the observer holds it, if it was laid down);
        * ``hand_sizes`` (per seat, over the deck size), ``quartets`` (per seat, over the
          number of families);
        * with ``raw`` or ``both``, the public record as ``[card, seat]`` tables: ``asked``
          (the seat asked for the card), ``refused`` (the seat said it lacked it),
          ``received`` (the seat was seen receiving it and still holds it);
        * with ``knowledge`` or ``both``, ``probabilities``: ``[card, seat]``, the
          observer's exact probability that the seat holds the card.

        >>> layout = ObservationLayout(4, None, None, "win", "exact", 5000, None, ())
        >>> layout.shapes("knowledge")
        {'hand': (32,), 'exposed': (32,), 'hand_sizes': (4,), 'quartets': (4,), 'probabilities': (32, 4)}
        """
        if not isinstance(parts, str) or parts not in OBSERVATIONS:
            raise GameSetupError(
                f"observation parts {short(parts)}: expected one of {', '.join(OBSERVATIONS)}"
            )
        n_cards, n = self.n_cards, len(self.seats)
        shapes: dict[str, tuple[int, ...]] = {
            "hand": (n_cards,),
            "exposed": (n_cards,),
            "hand_sizes": (n,),
            "quartets": (n,),
        }
        if parts in ("raw", "both"):
            shapes |= {"asked": (n_cards, n), "refused": (n_cards, n), "received": (n_cards, n)}
        if parts in ("knowledge", "both"):
            shapes["probabilities"] = (n_cards, n)
        return shapes

    def slices(self, parts: str) -> dict[str, slice]:
        """Where each named part (:meth:`shapes`) lies in the flat observation vector with
        ``parts``: the slices tile the vector, in order, without gap or overlap.

        >>> layout = ObservationLayout(4, None, None, "win", "exact", 5000, None, ())
        >>> layout.slices("raw")["hand_sizes"], layout.slices("raw")["received"]
        (slice(64, 68, None), slice(328, 456, None))
        """
        found: dict[str, slice] = {}
        start = 0
        for name, shape in self.shapes(parts).items():
            width = int(np.prod(shape))
            found[name] = slice(start, start + width)
            start += width
        return found

    def split(self, vector: np.ndarray, parts: str) -> dict[str, np.ndarray]:
        """The named parts of an observation ``vector`` with ``parts``, each a view of the
        vector in its shape (:meth:`shapes`), as OpenSpiel's observers name their tensors.

        >>> import kwartet_epistemic as kw
        >>> layout = ObservationLayout(4, None, None, "win", "exact", 5000, None, ())
        >>> game = kw.Game.deal(layout.deck, layout.seats, seed=3)
        >>> vector = layout.features(game, "B", "raw", RecordPlanes(layout.deck, layout.seats), None)
        >>> named = layout.split(vector, "raw")
        >>> int(named["hand"].sum()), named["asked"].shape
        (8, (32, 4))
        """
        slices = self.slices(parts)
        shapes = self.shapes(parts)
        length = self.length(parts)
        if not isinstance(vector, np.ndarray) or vector.shape != (length,):
            shape = getattr(vector, "shape", type(vector).__name__)
            raise GameSetupError(
                f"observation vector of shape {short(shape)}: expected shape ({length},) "
                f"for {parts!r}"
            )
        return {name: vector[slices[name]].reshape(shapes[name]) for name in slices}

    def decode(self, game: Game, seat: str, action: object) -> Ask:
        """The ask that ``action`` means for ``seat`` (IllegalAskError if none)."""
        if isinstance(action, bool) or not isinstance(action, int | np.integer):
            raise IllegalAskError(
                f"{seat} must ask: expected an action number, got {short(action)}"
            )
        number = int(action)
        if not 0 <= number < self.n_actions:
            raise IllegalAskError(f"action {short(number)}: expected 0 to {self.n_actions - 1}")
        offset, card = divmod(number, self.n_cards)
        seats = self.seats
        target = seats[(seats.index(seat) + offset) % len(seats)]
        ask = Ask(seat, target, self.deck.cards[card])
        if ask not in game.legal_asks():
            raise IllegalAskError(f"action {number} ({ask}) is not a legal ask now")
        return ask

    def encode(self, ask: Ask) -> int:
        seats = self.seats
        offset = (seats.index(ask.target) - seats.index(ask.asker)) % len(seats)
        return offset * self.n_cards + ask.card.index

    def mask(self, game: Game, seat: str) -> np.ndarray:
        """``ACTION_MASK_DTYPE`` over the actions: 1 for each legal ask of ``seat`` now."""
        mask = np.zeros(self.n_actions, dtype=ACTION_MASK_DTYPE)
        if game.to_move == seat:
            for ask in game.legal_asks():
                mask[self.encode(ask)] = 1
        return mask

    def features(
        self,
        game: Game,
        seat: str,
        parts: str,
        record: RecordPlanes,
        knowledge: KnowledgeBase | None,
    ) -> np.ndarray:
        """The observation vector of ``seat`` (see the module text)."""
        view = game.view(seat)
        deck, seats = self.deck, self.seats
        me = seats.index(seat)
        order = [(me + k) % len(seats) for k in range(len(seats))]
        hand = np.zeros(self.n_cards, dtype=np.float32)
        hand[[c.index for c in view.hand]] = 1.0
        exposed = np.zeros(self.n_cards, dtype=np.float32)
        for family in view.exposed:
            f = deck.families.index(family)
            exposed[4 * f : 4 * f + 4] = 1.0
        sizes = np.array(
            [view.hand_sizes[seats[i]] / self.n_cards for i in order], dtype=np.float32
        )
        scores = np.array(
            [view.scores[seats[i]] / deck.n_families for i in order], dtype=np.float32
        )
        pieces = [hand, exposed, sizes, scores]
        if parts in ("raw", "both"):
            pieces.append(record.update(view.record)[:, :, order].reshape(-1))
        if parts in ("knowledge", "both"):
            assert knowledge is not None
            knowledge.update(view)
            located = np.nan_to_num(knowledge.probabilities())[:, order]
            pieces.append(located.astype(np.float32).reshape(-1))
        return np.clip(np.concatenate(pieces), 0.0, 1.0).astype(np.float32)


def _check_numbering(
    action: object, asker: object, players: object, n_cards: object
) -> tuple[int, int]:
    """(action, asker index) checked against ``players`` seats and ``n_cards`` cards."""
    if (
        isinstance(players, bool)
        or not isinstance(players, int | np.integer)
        or not 2 <= players <= len(SEATS)
    ):
        raise GameSetupError(f"players={short(players)}: expected 2 to {len(SEATS)}")
    if isinstance(n_cards, bool) or not isinstance(n_cards, int | np.integer) or n_cards < 1:
        raise GameSetupError(f"n_cards={short(n_cards)}: expected a whole number >= 1")
    seats = SEATS[: int(players)]
    if isinstance(asker, str) and len(asker) == 1 and asker in seats:
        index = seats.index(asker)
    elif (
        isinstance(asker, int | np.integer)
        and not isinstance(asker, bool)
        and 0 <= int(asker) < int(players)
    ):
        index = int(asker)
    else:
        raise GameSetupError(
            f"asker={short(asker)}: expected a seat number from 0 to {int(players) - 1} or "
            f"one of {', '.join(seats)}"
        )
    bound = int(players) * int(n_cards)
    if (
        isinstance(action, bool)
        or not isinstance(action, int | np.integer)
        or not 0 <= int(action) < bound
    ):
        raise IllegalAskError(
            f"action {short(action)}: expected a whole number from 0 to {bound - 1}"
        )
    return int(action), index


def gym_to_openspiel_action(action: int, asker: int | str, players: int, n_cards: int) -> int:
    """The OpenSpiel action (``python_kwartet``: ``target * n_cards + card``, the target an
    absolute seat) of the environments' ``action`` (the target counted from ``asker`` to
    its left) of the seat ``asker`` (its number, OpenSpiel's player id, or its name
    ``"A"``, ``"B"``, ...) in a game of ``players`` seats and ``n_cards`` cards.

    The card part is the same in both numberings; only the target turns.  Asking oneself
    (never legal) maps to asking oneself, so the two numberings are in one-to-one
    correspondence (:func:`openspiel_to_gym_action` is the inverse).

    C (seat 2 of 4) asks B for card 5 of 32: B is 3 seats to C's left, seat 1 absolute.

    >>> gym_to_openspiel_action(3 * 32 + 5, "C", players=4, n_cards=32)
    37
    >>> import kwartet_epistemic as kw
    >>> layout = ObservationLayout(4, None, None, "win", "exact", 5000, None, ())
    >>> ask = kw.Ask("C", "B", layout.deck.cards[5])
    >>> gym_to_openspiel_action(layout.encode(ask), 2, players=4, n_cards=32)
    37
    """
    number, me = _check_numbering(action, asker, players, n_cards)
    offset, card = divmod(number, int(n_cards))
    return (me + offset) % int(players) * int(n_cards) + card


def openspiel_to_gym_action(action: int, asker: int | str, players: int, n_cards: int) -> int:
    """The environments' action (the target counted from ``asker`` to its left) of the
    OpenSpiel ``action`` (the target an absolute seat) of the seat ``asker`` (its number
    or name) in a game of ``players`` seats and ``n_cards`` cards; the inverse of
    :func:`gym_to_openspiel_action`.

    >>> openspiel_to_gym_action(37, "C", players=4, n_cards=32)
    101
    >>> gym_to_openspiel_action(openspiel_to_gym_action(37, 2, 4, 32), 2, 4, 32)
    37
    >>> openspiel_to_gym_action(128, "C", players=4, n_cards=32)
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.IllegalAskError: action 128: expected a whole number from 0 to 127
    """
    number, me = _check_numbering(action, asker, players, n_cards)
    target, card = divmod(number, int(n_cards))
    return (target - me) % int(players) * int(n_cards) + card


class RecordSummary:
    """The public record read once, event by event, into what every adapter encodes:
    per seat the cards asked for and refused (bit masks), the families asked from and
    the cards refused since (cleared when the seat receives one); per card the seat last
    seen receiving it, and the seat holding it as far as the record shows (-1 after its
    quartet was laid down); the last ask and its answer.  Plain integers and lists, so a
    copy is cheap (OpenSpiel copies states in every play-out).

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> _ = game.ask("A", "7S")
    >>> summary = RecordSummary(game.deck, ["A", "B", "C", "D"])
    >>> summary.take(game.record)
    >>> summary.last, summary.holds[0], bin(summary.asked_cards[1])
    ((1, 0, 0, True), 1, '0b1')
    """

    __slots__ = (
        "deck",
        "seat",
        "seen",
        "asked_cards",
        "refused",
        "receiver",
        "holds",
        "lacks",
        "asked_families",
        "last",
        "_pending",
    )

    def __init__(self, deck: Deck, seats: Sequence[str]) -> None:
        self.deck = deck
        self.seat = {p: i for i, p in enumerate(seats)}
        self.seen = 0  # events taken in
        n_cards = len(deck)
        n = len(seats)
        self.asked_cards = [0] * n  # per seat: cards asked for
        self.refused = [0] * n  # per seat: cards refused, ever
        self.receiver = [-1] * n_cards  # per card: the seat last seen receiving it
        self.holds = [-1] * n_cards  # per card: the seat seen receiving it, until laid down
        self.lacks = [0] * n  # per seat: cards refused since it last received one
        self.asked_families = [0] * n  # per seat: families asked from
        self.last: tuple[int, int, int, bool] | None = None  # (asker, target, card, yes)
        self._pending: Asked | None = None

    def copy(self) -> RecordSummary:
        """An independent copy."""
        other = object.__new__(RecordSummary)
        other.deck = self.deck
        other.seat = self.seat
        other.seen = self.seen
        other.asked_cards = list(self.asked_cards)
        other.refused = list(self.refused)
        other.receiver = list(self.receiver)
        other.holds = list(self.holds)
        other.lacks = list(self.lacks)
        other.asked_families = list(self.asked_families)
        other.last = self.last
        other._pending = self._pending
        return other

    def __getstate__(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in self.__slots__}

    def __setstate__(self, state: dict[str, Any]) -> None:
        for name, value in state.items():
            setattr(self, name, value)

    def take(self, events: Sequence[Any]) -> None:
        """Take in further public events (the record's next ones)."""
        seat = self.seat
        for event in events:
            kind = type(event)
            if kind is Asked:
                self._pending = event
                self.asked_cards[seat[event.asker]] |= 1 << event.card.index
            elif kind is Answered:
                asked = self._pending
                a, t = seat[asked.asker], seat[asked.target]  # type: ignore[union-attr]
                c = event.card.index
                self.asked_families[a] |= 1 << event.card.family_index
                if event.has_card:
                    self.holds[c] = a
                    self.lacks[a] &= ~(1 << c)
                else:
                    self.lacks[t] |= 1 << c
                    self.refused[seat[event.target]] |= 1 << c
                self.last = (a, t, c, event.has_card)
            elif kind is CardMoved:
                self.receiver[event.card.index] = seat[event.destination]
            elif kind is QuartetExposed:
                start = 4 * self.deck.family_index(event.family)
                for c in range(start, start + 4):
                    self.holds[c] = -1
        self.seen += len(events)


class RecordPlanes:
    """The public record as three [card, seat] planes: asked for, refused, seen receiving
    (and still holding), read off a :class:`RecordSummary` kept up to date event by
    event.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> _ = game.ask("A", "7S")
    >>> planes = RecordPlanes(game.deck, ["A", "B", "C", "D"]).update(game.view("B").record)
    >>> planes.shape, int(planes[0].sum()), int(planes[2].sum())
    ((3, 32, 4), 1, 1)
    """

    def __init__(self, deck: Deck, seats: list[str]) -> None:
        self.summary = RecordSummary(deck, seats)
        self.planes = np.zeros((3, len(deck), len(seats)), dtype=np.float32)

    def update(self, record: tuple[Any, ...]) -> np.ndarray:
        summary = self.summary
        if len(record) == summary.seen:
            return self.planes
        summary.take(record[summary.seen :])
        planes = self.planes
        n_cards = planes.shape[1]
        for s, (asked, refused) in enumerate(
            zip(summary.asked_cards, summary.refused, strict=True)
        ):
            planes[0, :, s] = [asked >> c & 1 for c in range(n_cards)]
            planes[1, :, s] = [refused >> c & 1 for c in range(n_cards)]
        planes[2] = 0.0
        for c, s in enumerate(summary.receiver):
            if s >= 0:
                planes[2, c, s] = 1.0
        return planes
