"""The referee: a game of Kwartet under a :class:`~kwartet_epistemic.rules.RuleSet`.

The :class:`Game` knows the true deal, checks every ask, moves cards, exposes quartets,
passes the turn and scores.  Players (and agents) get only :meth:`Game.view`.  The
referee never imports the epistemic layer.

Asks and events are immutable values.  For speed the referee hands out shared instances
(one per deck, seating and move, built on first use), so compare them with ``==``: two
games dealt from the same deck object to the same players return the very same
:class:`Ask` objects.

>>> import kwartet_epistemic as kw
>>> small = kw.Deck.piquet(families=3)
>>> game = kw.Game.from_hands(small, {"A": ["7S", "7H", "8S", "9D"],
...     "B": ["7D", "8H", "9S", "9H"], "C": ["7C", "8D", "8C", "9C"]}, first="A")
>>> game.to_move
'A'
>>> [str(e.sentence()) for e in game.ask("B", "7D")]
['A asks B: may I have the seven of diamonds?', 'B: yes.', 'B gives the seven of diamonds to A.']
>>> game.ask("C", "7C")[-1].sentence()
'A lays down the quartet of sevens.'
>>> game.scores
{'A': 1, 'B': 0, 'C': 0}
"""

from __future__ import annotations

import copy
import re
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from os import PathLike
from typing import Any

import numpy as np

from kwartet_epistemic._safejson import short
from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.errors import (
    GameSetupError,
    IllegalAskError,
    KwartetError,
    RecordError,
    UnknownCardError,
)
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Dealt,
    Drew,
    Event,
    GameEnded,
    HandEmptied,
    MiddleCardTurned,
    QuartetExposed,
    TurnPassed,
    transcript,
)
from kwartet_epistemic.record_format import RecordData, describe_action
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "Ask",
    "DerivedCache",
    "Game",
    "PlayerView",
    "UnknownAskCardError",
    "cache_sizes",
    "parse_ask",
]


# RuleSet is frozen, so one shared default saves re-validating it for every game dealt.
_PUBLISHER_RULES = RuleSet()

# Seatings that passed Game._check_players (names are immutable strings, so a seating once
# valid stays valid).
_CHECKED_PLAYERS: set[tuple[str, ...]] = set()
_MAX_CHECKED = 1024


# Seeds are kept in game records as JSON numbers, read back with at most 100 digits.
MAX_SEED = 2**256 - 1
MAX_NAME_LENGTH = 40


def _check_seed(seed: object) -> int | None:
    """``seed`` as a plain int (numpy integers too), or None; anything else is refused."""
    if seed is None:
        return None
    if (
        isinstance(seed, bool)
        or not isinstance(seed, int | np.integer)
        or not 0 <= seed <= MAX_SEED
    ):
        raise GameSetupError(
            f"seed {short(seed)}: expected None or an integer from 0 to 2**256 - 1"
        )
    return int(seed)  # a plain int, so that game records can store it as JSON


class UnknownAskCardError(IllegalAskError, UnknownCardError):
    """An ask for a card name the deck does not have (both an illegal ask and an unknown card)."""


@dataclass(frozen=True, slots=True)
class Ask:
    """One request: ``asker`` asks ``target`` for ``card``.

    >>> Ask("A", "B", kw.Deck.piquet().card("QH"))
    Ask('A', 'B', 'QH')
    >>> str(Ask("A", "B", kw.Deck.piquet().card("QH")))
    'A asks B for QH'
    >>> Ask("A", "B", "QH")  # a card given as text (game.play reads it in the game's deck)
    Ask('A', 'B', 'QH')

    Both printed forms read back with :func:`parse_ask`.
    """

    asker: str
    target: str
    card: Card

    def _code(self) -> str:
        card = self.card
        return card.code if isinstance(card, Card) else str(card)

    def __str__(self) -> str:
        return f"{self.asker} asks {self.target} for {self._code()}"

    def __repr__(self) -> str:
        return f"Ask({self.asker!r}, {self.target!r}, {self._code()!r})"


def _bits(mask: int) -> Iterable[int]:
    """Indices of the set bits of ``mask``, lowest first."""
    while mask:
        low = mask & -mask
        yield low.bit_length() - 1
        mask ^= low


def _family_mask(family_index: int) -> int:
    return 0b1111 << (4 * family_index)


# The set bits of every byte, shifted to each byte position: a mask's bit indices are then
# a handful of tuple lookups instead of one loop step per bit.
_BYTE_BITS = [
    [tuple(8 * k + i for i in range(8) if byte >> i & 1) for byte in range(256)] for k in range(8)
]


def _indices(mask: int) -> tuple[int, ...]:
    """The indices of the set bits of ``mask``, lowest first (as :func:`_bits`).

    >>> _indices(0b1011 | 1 << 40)
    (0, 1, 3, 40)
    """
    table = _BYTE_BITS
    if mask >> 32 == 0:  # up to 32 cards, the default deck: no loop at all
        return (
            table[0][mask & 255]
            + table[1][mask >> 8 & 255]
            + table[2][mask >> 16 & 255]
            + table[3][mask >> 24]
        )
    found: tuple[int, ...] = ()
    k = 0
    while mask:
        byte = mask & 255
        if byte:
            found += table[k][byte] if k < 8 else tuple(8 * k + i for i in _bits(byte))
        mask >>= 8
        k += 1
    return found


def _picker(mask: int) -> Callable[[Sequence[Ask]], Sequence[Ask]]:
    """A function taking the entries of ``mask``'s set bits from a per-card row, in order
    (``operator.itemgetter`` does it in C, but returns a bare item for one index).

    >>> _picker(0b0110)("abcd"), _picker(0b1000)("abcd")
    (('b', 'c'), ('d',))
    """
    pick = _PICKERS.get(mask)
    if pick is not None:
        return pick
    indices = _indices(mask)
    if len(indices) > 1:
        pick = itemgetter(*indices)
    elif indices:
        (only,) = indices
        pick = lambda row: (row[only],)  # noqa: E731
    else:
        pick = lambda row: ()  # noqa: E731
    if len(_PICKERS) >= _MAX_PICKERS:
        _PICKERS.clear()
    _PICKERS[mask] = pick
    return pick


# Pickers by mask: about half of all legal_asks calls meet a mask seen among the last few
# thousand (a lone family's missing cards, say), whatever the deck or seating.
_PICKERS: dict[int, Callable[[Sequence[Ask]], Sequence[Ask]]] = {}
_MAX_PICKERS = 4096


class _Tables:
    """The immutable objects every game of one deck and seating shares: each possible Ask,
    and the events and record entries an ask, a pass of the turn or an exposure produces.

    They are values (frozen, compared by value), so handing the same object to many games
    changes nothing a caller can see, and saves building ~25 frozen dataclasses per move.
    Rows and event tuples are built on first use.  A game keeps its tables in ``_tables``;
    :func:`_tables_for` finds them by deck identity (not deck equality: the objects must
    hold the game's own Card objects).
    """

    __slots__ = (
        "_deck",
        "cards",
        "players",
        "seat",
        "family_masks",
        "others",
        "rows",
        "other_seat",
        "said",
        "passes",
        "plain_turns",
        "emptied",
        "exposures",
        "draws",
    )

    def __init__(self, deck: Deck, players: tuple[str, ...]) -> None:
        # A weak reference: the module cache must not keep decks alive.
        self._deck = weakref.ref(deck)
        self.cards = deck.cards
        self.players = players
        self.seat = {p: i for i, p in enumerate(players)}
        # others[seat]: the other seats in order, and the others' names -> seats.
        self.others = tuple(
            tuple(t for t in range(len(players)) if t != s) for s in range(len(players))
        )
        self.other_seat = tuple(
            {p: t for t, p in enumerate(players) if t != s} for s in range(len(players))
        )
        self.family_masks = tuple(_family_mask(c.family_index) for c in deck.cards)
        # rows[seat][target seat][card index]: every ask seat could make (() for itself).
        self.rows: list[tuple[tuple[Ask, ...], ...] | None] = [None] * len(players)
        # (card index, asker, target, answer) packed in an int -> (events, record action);
        # Game._resolve_ask fills it from make_said.
        self.said: dict[int, tuple[tuple[Event, ...], tuple[Any, ...]]] = {}
        self.passes: dict[tuple[int, str, tuple[str, ...]], TurnPassed] = {}
        # The usual passes, nobody passed over: by reason, then by seat.
        self.plain_turns = {
            reason: tuple(TurnPassed(p, reason) for p in players)
            for reason in ("start", "turn", "refusal")
        }
        self.emptied = tuple(HandEmptied(p) for p in players)
        self.exposures: dict[tuple[int, int], QuartetExposed] = {}
        self.draws: dict[tuple[int, int], tuple[Drew, Drew]] = {}

    def build_rows(self, seat: int) -> tuple[tuple[Ask, ...], ...]:
        """Fill ``rows[seat]`` on first use."""
        me = self.players[seat]
        rows = self.rows[seat] = tuple(
            () if target == me else tuple(Ask(me, target, card) for card in self.cards)
            for target in self.players
        )
        return rows

    def make_said(
        self, seat: int, target_seat: int, card_index: int, has_card: bool
    ) -> tuple[tuple[Event, ...], tuple[Any, ...]]:
        """The events of an ask and its answer, and the action the record stores."""
        card = self.cards[card_index]
        me, target = self.players[seat], self.players[target_seat]
        said: tuple[Event, ...] = (Asked(me, target, card), Answered(target, card, has_card))
        if has_card:
            said += (CardMoved(card, target, me),)
        return said, ("ask", me, target, card.code, has_card)

    def passed(self, seat: int, reason: str, passed_over: tuple[str, ...]) -> TurnPassed:
        key = (seat, reason, passed_over)
        event = self.passes.get(key)
        if event is None:
            event = self.passes[key] = TurnPassed(self.players[seat], reason, passed_over)
        return event

    def drew(self, seat: int, card_index: int) -> tuple[Drew, Drew]:
        """A draw as the drawer sees it and as everyone else does."""
        key = (seat, card_index)
        pair = self.draws.get(key)
        if pair is None:
            event = Drew(self.players[seat], self.cards[card_index])
            pair = self.draws[key] = (event, event.public())
        return pair

    def exposed(self, seat: int, family: int, deck: Deck) -> QuartetExposed:
        key = (seat, family)
        event = self.exposures.get(key)
        if event is None:
            event = self.exposures[key] = QuartetExposed(
                self.players[seat], deck.families[family], deck.family_titles[family]
            )
        return event

    # Games hold their tables, and tests compare deep copies of a game's attributes: two
    # tables are equal when they serve the same deck (by value) and seating.
    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, _Tables)
            and self.players == other.players
            and self.cards == other.cards
        )

    def __hash__(self) -> int:
        return hash(self.players)

    def __deepcopy__(self, memo: dict[int, Any]) -> _Tables:
        # A deep-copied game has a deep-copied deck: give it that deck's own tables.
        deck = self._deck()
        if deck is None:  # pragma: no cover - a live game keeps its deck alive
            return self
        return _tables_for(copy.deepcopy(deck, memo), self.players)

    def __reduce__(self) -> tuple[Any, ...]:
        return (_tables_for, (self._deck(), self.players))


# id(deck) -> seating -> tables; an entry goes when its deck is garbage collected.
_TABLES: dict[int, dict[tuple[str, ...], _Tables]] = {}
_MAX_SEATINGS = 64  # per deck; seat rotations of a tournament stay far below this


def cache_sizes() -> dict[str, tuple[int, int]]:
    """The referee's module-level caches: each one's entries now, with its bound (the
    shared tables: decks alive now, each with at most 64 seatings; the others are
    cleared when full).

    >>> all(size <= bound for size, bound in cache_sizes().values() if bound)
    True
    """
    return {
        "shared tables (decks alive)": (len(_TABLES), 0),
        "ask pickers": (len(_PICKERS), _MAX_PICKERS),
        "checked seatings": (len(_CHECKED_PLAYERS), _MAX_CHECKED),
    }


def _tables_for(deck: Deck, players: tuple[str, ...]) -> _Tables:
    """The shared tables of ``deck`` (this very object) and ``players`` (in seat order)."""
    by_seating = _TABLES.get(id(deck))
    if by_seating is None:
        by_seating = _TABLES[id(deck)] = {}
        weakref.finalize(deck, _TABLES.pop, id(deck), None).atexit = False
    tables = by_seating.get(players)
    if tables is None:
        if len(by_seating) >= _MAX_SEATINGS:
            by_seating.clear()
        tables = by_seating[players] = _Tables(deck, players)
    return tables


class DerivedCache(dict[str, Any]):
    """What the layers above the referee derive from one game's public record, kept by
    the game and shared by its views (:attr:`PlayerView.derived`).  Each user picks its
    own key and checks that what it finds fits the record it is given; a copied game
    starts with an empty cache (its record may go another way).

    >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    >>> game.view("A").derived is game.view("B").derived
    True
    >>> import copy
    >>> copy.deepcopy(game).view("A").derived is game.view("A").derived
    False
    """

    def __copy__(self) -> DerivedCache:
        return DerivedCache()

    def __deepcopy__(self, memo: dict[int, Any]) -> DerivedCache:
        return DerivedCache()

    def __reduce__(self) -> tuple[type[DerivedCache], tuple[()]]:
        return (DerivedCache, ())  # a pickled game (a worker's) derives afresh


@dataclass(frozen=True)
class PlayerView:
    """What one player knows from the table: the only thing an agent is given.

    It holds the player's own hand, the public sizes and exposures, and the public record
    in which only this player's own draws show the drawn card.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=1)
    >>> view = game.view("B")
    >>> view.player, len(view.hand) == view.hand_sizes["B"]
    ('B', True)
    >>> all(ask.asker == view.to_move for ask in view.legal_asks())
    True
    """

    player: str
    deck: Deck
    rules: RuleSet
    players: tuple[str, ...]
    hand: tuple[Card, ...]
    hand_sizes: Mapping[str, int]
    exposed: Mapping[str, str]
    scores: Mapping[str, int]
    to_move: str | None
    record: tuple[Event, ...]
    stock_size: int
    middle: tuple[Card | None, ...]
    may_turn_over: bool = False
    """Memory Kwartet: whether the player to move may still turn over a middle card."""
    derived: DerivedCache = field(default_factory=lambda: DerivedCache(), compare=False, repr=False)
    """Shared by every view of one game: where the layers above the referee keep what
    they derive from the public record (the epistemic state keeps the public
    constraints there), so that the players of one game do not each derive it again.
    The referee never reads it; a view built by hand gets an empty one."""

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self.to_move is None

    def legal_asks(self) -> list[Ask]:
        """The legal asks if it is this player's turn (else an empty list).

        Legality depends only on the asker's own hand and public facts, so a player
        can always compute it from the view.
        """
        if self.to_move != self.player:
            return []
        deck = self.deck
        hand = 0
        for card in self.hand:
            hand |= 1 << card.index
        blocked = 0
        for family in self.exposed:
            blocked |= _family_mask(deck.family_index(family))
        for face_up in self.middle:
            if face_up is not None:
                blocked |= 1 << face_up.index
        wanted = _askable_mask(self.rules, deck.n_families, hand, blocked)
        players = tuple(self.players)
        tables = _tables_for(deck, players)
        seat = tables.seat.get(self.player)
        if seat is None or len(tables.seat) != len(players):  # not a seating a game makes
            cards = [deck.cards[i] for i in _indices(wanted)]
            return [Ask(self.player, p, c) for p in self._targets() for c in cards]
        rows = tables.rows[seat] or tables.build_rows(seat)
        pick = _picker(wanted)
        asks: list[Ask] = []
        for target in self._targets():
            asks += pick(rows[tables.seat[target]])
        return asks

    def _targets(self) -> list[str]:
        return [p for p in self.players if p != self.player and self.hand_sizes[p] > 0]

    def transcript(self) -> str:
        """The record as this player saw it, one line per ask."""
        return transcript(self.record)

    def _repr_html_(self) -> str:
        """The view in Jupyter: own hand, the table, the last record lines."""
        from kwartet_epistemic.viz.html import view_html  # loaded on first display only

        return view_html(self)


def _family_spread(hand: int, n_families: int) -> int:
    """The union of the families (as 4-bit groups) that ``hand`` touches, in O(1) big-int ops."""
    ones = _NIBBLE_ONES[n_families]
    x = hand | hand >> 1
    x |= x >> 2
    return (x & ones) * 0b1111


_NIBBLE_ONES = [sum(1 << (4 * f) for f in range(k)) for k in range(65)]


def _askable_mask(rules: RuleSet, n_families: int, hand: int, blocked: int) -> int:
    """The cards (bit mask) a player with ``hand`` may ask for; ``blocked`` are the exposed
    and face-up cards."""
    wanted = _family_spread(hand, n_families) & ~blocked
    return wanted if rules.bluffing else wanted & ~hand


class Game:
    """A game of Kwartet in progress: the referee, which knows the true deal.

    Start one with :meth:`deal` (shuffled with a seed) or :meth:`from_hands` (a chosen
    deal).  The player to move plays with :meth:`ask` (and, in Memory Kwartet,
    :meth:`turn_over`).  Illegal actions raise :class:`IllegalAskError` and change nothing.

    >>> game = kw.Game.deal(kw.Deck.piquet(), players=["A", "B", "C", "D"], seed=7)
    >>> game.hand_sizes
    {'A': 8, 'B': 8, 'C': 8, 'D': 8}
    >>> rng = np.random.default_rng(0)
    >>> while not game.is_over:
    ...     asks = game.legal_asks()
    ...     _ = game.play(asks[rng.integers(len(asks))])
    >>> sum(game.scores.values())
    8
    """

    def __init__(
        self,
        deck: Deck,
        players: Sequence[str],
        hands: Mapping[str, Iterable[Card | str]],
        *,
        dealer: str,
        rules: RuleSet | None = None,
        stock: Sequence[Card | str] = (),
        aside: Iterable[Card | str] = (),
        middle: Sequence[Card | str] = (),
        seed: int | None = None,
    ) -> None:
        """Set up a game from a complete placement of the deck (use :meth:`deal` or
        :meth:`from_hands` normally).  ``stock`` is listed bottom to top."""
        self.rules = rules if rules is not None else _PUBLISHER_RULES
        if not isinstance(self.rules, RuleSet):
            raise GameSetupError(f"rules {rules!r}: expected a RuleSet")
        if not isinstance(deck, Deck):
            raise GameSetupError(f"deck {deck!r}: expected a Deck such as Deck.piquet()")
        self.deck = deck
        self.players = self._check_players(players)
        self.seed = _check_seed(seed)
        self._seat = {p: i for i, p in enumerate(self.players)}
        if not isinstance(dealer, str) or dealer not in self._seat:
            raise GameSetupError(f"dealer {short(dealer)} is not one of the players {self.players}")
        self.dealer = dealer
        n = len(self.players)
        if not isinstance(hands, Mapping):
            raise GameSetupError(f"hands {short(hands)}: expected a mapping of player to cards")
        if set(hands) != set(self.players):
            raise GameSetupError(
                f"hands are given for {sorted(map(short, hands))}; expected exactly the players "
                f"{list(self.players)}"
            )
        placed: dict[int, str] = {}

        def place(cards: Iterable[Card | str], where: str) -> list[int]:
            if isinstance(cards, str) or not isinstance(cards, Iterable):
                raise GameSetupError(f"{where}: expected a list of cards, got {short(cards)}")
            indices = []
            deck_cards = deck.cards
            for item in cards:
                # Game.deal passes the deck's own Card objects: skip the name lookup for them.
                if type(item) is Card and deck_cards[item.index % len(deck_cards)] is item:
                    card = item
                else:
                    try:
                        card = deck.card(item)
                    except UnknownCardError as err:
                        raise GameSetupError(f"{where}: {err}") from err
                if card.index in placed:
                    raise GameSetupError(
                        f"card {card.code} is placed twice: in {placed[card.index]} and in {where}"
                    )
                placed[card.index] = where
                indices.append(card.index)
            return indices

        hand_masks = []
        for p in self.players:
            mask = 0
            for i in place(hands[p], f"{p}'s hand"):
                mask |= 1 << i
            hand_masks.append(mask)
        stock_list = place(stock, "the stock")
        aside_list = place(aside, "the set-aside pile")
        middle_list = place(middle, "the middle")
        missing = [c.code for c in deck.cards if c.index not in placed]
        if missing:
            raise GameSetupError(
                f"cards {', '.join(missing)} are placed nowhere; every card must be in a hand, "
                "the stock, the set-aside pile or the middle"
            )
        if stock_list and not self.rules.draw_pile:
            raise GameSetupError("a stock was given but the rules have no draw pile")
        if len(middle_list) != self.rules.memory_cards:
            raise GameSetupError(
                f"the middle holds {len(middle_list)} cards; the rules ask for "
                f"memory_cards={self.rules.memory_cards}"
            )
        if n < 2 or (n == 2 and not self.rules.draw_pile):
            raise GameSetupError(
                f"{n} players: Kwartet needs 3 to 6 players (2 only with a draw pile)"
            )

        self._start(self._seat[dealer], hand_masks, stock_list, aside_list, middle_list)

    def _start(
        self,
        dealer_seat: int,
        hand_masks: list[int],
        stock_list: list[int],
        aside_list: list[int],
        middle_list: list[int],
    ) -> None:
        """Set up play from a checked placement (card indices): expose complete quartets
        and give the first turn.  ``deck``, ``rules``, ``players`` and ``seed`` are set."""
        deck = self.deck
        players = self.players
        n = len(players)
        tables = self._tables = _tables_for(deck, players)
        self._seat = tables.seat  # shared and never written: name -> seat
        self.dealer = players[dealer_seat]
        self._hands: list[int] = hand_masks
        self._stock: list[int] = stock_list
        self._aside: int = sum(1 << i for i in aside_list)
        self._middle: list[int] = middle_list
        self._middle_up: list[bool] = [False] * len(middle_list)
        self._exposed: dict[int, int] = {}
        # Cards nobody may ask for: exposed families and face-up middle cards.
        self._blocked = 0
        self._nibble_ones = ones = _NIBBLE_ONES[deck.n_families]
        # The cards the player to move may ask for (set with the turn by _first_mover).
        self._wanted = 0
        # Families that can never be completed: a card of theirs is out of play face down.
        dead = self._aside
        for i in middle_list:
            dead |= 1 << i
        self._unfinished = ((1 << len(deck)) - 1) & ~_family_spread(dead, deck.n_families)
        self._last_quartet_at: list[int] = [-1] * n
        self._events: list[Event] = []
        self._public: list[Event] = []
        self._derived = DerivedCache()
        self._actions: list[tuple[Any, ...]] = []
        self._turned_this_turn = False
        # Hands as masks (initial_deal lists them in deck order); the other piles in the
        # order given, as the record stores them.
        self._initial = (
            tuple(hand_masks),
            tuple(stock_list),
            tuple(aside_list),
            tuple(middle_list),
        )
        self._emit(
            Dealt(
                players,
                self.dealer,
                tuple(m.bit_count() for m in hand_masks),
                len(stock_list),
                len(aside_list),
                len(middle_list),
            )
        )
        for seat, hand in enumerate(hand_masks):
            if hand & hand >> 1 & hand >> 2 & hand >> 3 & ones:  # a complete family
                self._expose_complete(seat)
        for seat in range(n):
            if self._hands[seat] == 0:
                self._emit(tables.emptied[seat])
        self._to_move: int | None = None
        self._settle_turn((dealer_seat + 1) % n, "start")

    # ----- construction -------------------------------------------------------------

    @staticmethod
    def _check_players(players: Sequence[str]) -> tuple[str, ...]:
        if isinstance(players, str) or not isinstance(players, Sequence):
            raise GameSetupError(
                f"players {short(players)}: expected a list of names such as ['A', 'B', 'C']"
            )
        if len(players) > 6:  # before looking at the names: a million names is no seating
            raise GameSetupError(f"{len(players)} players: Kwartet is for 3 to 6 players")
        names = tuple(players)
        try:
            if names in _CHECKED_PLAYERS:  # every deal checks the same few seatings
                return names
        except TypeError:  # an unhashable name: the checks below name it
            pass
        for name in names:
            if (
                not isinstance(name, str)
                or len(name) > MAX_NAME_LENGTH
                or not re.fullmatch(r"[A-Za-z0-9_]+", name)
            ):
                raise GameSetupError(
                    f"player name {short(name)}: expected 1 to {MAX_NAME_LENGTH} ASCII letters, "
                    "digits or '_' (it is used in formulas such as has(A, QH))"
                )
        if len(set(names)) != len(names):
            raise GameSetupError(f"players {list(names)}: names must be unique")
        if len(_CHECKED_PLAYERS) >= _MAX_CHECKED:
            _CHECKED_PLAYERS.clear()
        _CHECKED_PLAYERS.add(names)
        return names

    @classmethod
    def deal(
        cls,
        deck: Deck,
        players: Sequence[str],
        seed: int | None = None,
        rules: RuleSet | None = None,
    ) -> Game:
        """Shuffle with ``seed``, pick the dealer at random and deal singly clockwise from
        the dealer's left; complete quartets are exposed at once; the player left of the
        dealer starts.  The same seed gives the same game on any machine.

        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=3)
        >>> g.hand_sizes, g.dealer, g.to_move
        ({'A': 10, 'B': 11, 'C': 11}, 'A', 'B')
        """
        rules = rules if rules is not None else _PUBLISHER_RULES
        names = cls._check_players(players)
        n = len(names)
        if n < 2:
            raise GameSetupError(f"{n} players: Kwartet needs 3 to 6 players")
        seed = _check_seed(seed)
        if not isinstance(rules, RuleSet):
            raise GameSetupError(f"rules {rules!r}: expected a RuleSet")
        if not isinstance(deck, Deck):
            raise GameSetupError(f"deck {deck!r}: expected a Deck such as Deck.piquet()")
        rng = np.random.default_rng(seed)
        order: list[int] = rng.permutation(len(deck)).tolist()
        dealer_seat = int(rng.integers(n))
        middle = order[: rules.memory_cards]
        rest = order[rules.memory_cards :]
        if rules.draw_pile:
            dealt = rules.cards_each * n
            if dealt > len(rest):
                raise GameSetupError(
                    f"cards_each={rules.cards_each} for {n} players needs {dealt} cards; the deck "
                    f"has {len(rest)} to deal"
                )
            to_deal, leftover = rest[:dealt], rest[dealt:]
        elif rules.dealing == "equal":
            dealt = (len(rest) // n) * n
            to_deal, leftover = rest[:dealt], rest[dealt:]
        else:
            to_deal, leftover = rest, []
        if len(middle) != rules.memory_cards or (n == 2 and not rules.draw_pile):
            # Not a playable deal: let the checking constructor say what is wrong.
            cards = deck.cards
            hands: dict[str, list[Card]] = {p: [] for p in names}
            for k, i in enumerate(to_deal):
                hands[names[(dealer_seat + 1 + k) % n]].append(cards[i])
            return cls(
                deck,
                names,
                hands,
                dealer=names[dealer_seat],
                rules=rules,
                stock=[cards[i] for i in leftover] if rules.draw_pile else (),
                aside=() if rules.draw_pile else [cards[i] for i in leftover],
                middle=[cards[i] for i in middle],
                seed=seed,
            )
        # A permutation places every card exactly once, so the constructor's checks hold
        # by construction: build the game from the card indices directly.
        masks = [0] * n
        for k in range(n):  # the k-th card from the dealer's left goes to seat dealer+1+k
            mask = 0
            for i in to_deal[k::n]:
                mask |= 1 << i
            masks[(dealer_seat + 1 + k) % n] = mask
        game = object.__new__(cls)
        game.rules = rules
        game.deck = deck
        game.players = names
        game.seed = seed
        # The stock keeps the shuffled order; its top is the end of the list.
        game._start(
            dealer_seat,
            masks,
            leftover if rules.draw_pile else [],
            [] if rules.draw_pile else leftover,
            middle,
        )
        return game

    @classmethod
    def from_hands(
        cls,
        deck: Deck,
        hands: Mapping[str, Iterable[Card | str]],
        first: str | None = None,
        rules: RuleSet | None = None,
        *,
        stock: Sequence[Card | str] = (),
        aside: Iterable[Card | str] = (),
        middle: Sequence[Card | str] = (),
    ) -> Game:
        """A game from a chosen deal; seats follow the order of ``hands``; ``first``
        (default: the first player) moves first, so the dealer sits to their right.

        >>> g = kw.Game.from_hands(kw.Deck.piquet(families=1),
        ...     {"A": ["7S", "7H"], "B": ["7D"], "C": ["7C"]}, first="B")
        >>> g.to_move, g.dealer
        ('B', 'A')
        """
        if not isinstance(hands, Mapping):
            raise GameSetupError(f"hands {hands!r}: expected a mapping of player to cards")
        players = cls._check_players(list(hands))
        if not players:
            raise GameSetupError("hands {}: no players; Kwartet needs 3 to 6 players")
        first = players[0] if first is None else first
        if not isinstance(first, str) or first not in players:
            raise GameSetupError(f"first player {first!r} is not one of {list(players)}")
        dealer = players[(players.index(first) - 1) % len(players)]
        return cls(
            deck,
            players,
            hands,
            dealer=dealer,
            rules=rules,
            stock=stock,
            aside=aside,
            middle=middle,
        )

    # ----- state --------------------------------------------------------------------

    @property
    def to_move(self) -> str | None:
        """The player whose turn it is; None once the game is over."""
        return None if self._to_move is None else self.players[self._to_move]

    @property
    def is_over(self) -> bool:
        """Whether the game has ended."""
        return self._to_move is None

    def hand(self, player: str) -> tuple[Card, ...]:
        """A player's hand in deck order (the referee's knowledge).

        >>> kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7).hand("A")[0]
        Card('8H')
        """
        return tuple(self.deck.cards[i] for i in _bits(self._hands[self._seat_of(player)]))

    def _seat_of(self, player: str) -> int:
        try:
            return self._seat[player]
        except (KeyError, TypeError):
            raise GameSetupError(
                f"player {player!r} is not in this game; players are {', '.join(self.players)}"
            ) from None

    @property
    def hand_sizes(self) -> dict[str, int]:
        """Every player's number of cards (public)."""
        return {p: m.bit_count() for p, m in zip(self.players, self._hands, strict=True)}

    @property
    def exposed(self) -> dict[str, str]:
        """Exposed quartets: family -> the player who laid it down, in the order laid."""
        return {self.deck.families[f]: self.players[s] for f, s in self._exposed.items()}

    @property
    def scores(self) -> dict[str, int]:
        """Quartets laid down per player."""
        counts = dict.fromkeys(self.players, 0)
        for seat in self._exposed.values():
            counts[self.players[seat]] += 1
        return counts

    @property
    def winners(self) -> tuple[str, ...]:
        """The winners once the game is over (several if they share the win), else ()."""
        if not self.is_over:
            return ()
        scores = self.scores
        best = max(scores.values())
        leaders = [p for p in self.players if scores[p] == best]
        if self.rules.tie_break == "earliest_last_quartet" and len(leaders) > 1 and best > 0:
            earliest = min(self._last_quartet_at[self._seat[p]] for p in leaders)
            leaders = [p for p in leaders if self._last_quartet_at[self._seat[p]] == earliest]
        return tuple(leaders)

    @property
    def stock_size(self) -> int:
        """Cards left in the draw pile."""
        return len(self._stock)

    @property
    def stock(self) -> tuple[Card, ...]:
        """The cards left in the draw pile, bottom to top (the referee's secret: no
        player's view shows it).

        >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=2,
        ...                     rules=kw.RuleSet.preset("fish"))
        >>> len(game.stock) == game.stock_size
        True
        """
        return tuple(self.deck.cards[i] for i in self._stock)

    @property
    def middle(self) -> tuple[Card | None, ...]:
        """Memory Kwartet: the middle cards, None where still face down."""
        return tuple(
            self.deck.cards[i] if up else None
            for i, up in zip(self._middle, self._middle_up, strict=True)
        )

    @property
    def record(self) -> tuple[Event, ...]:
        """The public record: every event in order, draws without the drawn card."""
        return tuple(self._public)

    def record_since(self, seen: int) -> tuple[Event, ...]:
        """The public events after the first ``seen`` (what a follower of the game has
        not taken in yet), without copying the whole record.

        >>> game = Game.deal(Deck.piquet(), ["A", "B", "C"], seed=3)
        >>> game.record_since(0) == game.record, game.record_since(len(game.record))
        (True, ())
        """
        if len(self._public) <= seen:
            return ()
        return tuple(self._public[seen:])

    @property
    def events(self) -> tuple[Event, ...]:
        """Every event with its private parts (the referee's log)."""
        return tuple(self._events)

    @property
    def actions(self) -> tuple[tuple[Any, ...], ...]:
        """The players' actions so far, as stored in a game record."""
        return tuple(self._actions)

    @property
    def initial_deal(self) -> dict[str, Any]:
        """The deal as it was before any move (for game records)."""
        hands, stock, aside, middle = self._initial
        code = [c.code for c in self.deck.cards]
        return {
            "dealer": self.dealer,
            "hands": {
                p: [code[i] for i in _indices(h)] for p, h in zip(self.players, hands, strict=True)
            },
            "stock": [code[i] for i in stock],
            "aside": [code[i] for i in aside],
            "middle": [code[i] for i in middle],
        }

    def view(self, player: str) -> PlayerView:
        """What ``player`` knows from the table; agents get only this."""
        seat = self._seat_of(player)
        if self.rules.draw_pile:
            record = tuple(
                full if isinstance(full, Drew) and full.player == player else pub
                for full, pub in zip(self._events, self._public, strict=True)
            )
        else:
            record = tuple(self._public)
        cards = self.deck.cards
        # The frozen dataclass's __init__ sets each field through object.__setattr__:
        # agents take a view at every move, so the fields go straight into __dict__
        # (PlayerView has no __post_init__ to skip).
        view = object.__new__(PlayerView)
        view.__dict__.update(
            player=player,
            deck=self.deck,
            rules=self.rules,
            players=self.players,
            hand=tuple([cards[i] for i in _bits(self._hands[seat])]),
            hand_sizes=self.hand_sizes,
            exposed=self.exposed,
            scores=self.scores,
            to_move=self.to_move,
            record=record,
            derived=self._derived,
            stock_size=len(self._stock),
            middle=self.middle if self._middle else (),
            may_turn_over=(
                self._to_move is not None
                and not self._turned_this_turn
                and not all(self._middle_up)
            ),
        )
        return view

    def legal_asks(self) -> list[Ask]:
        """Every legal ask of the player to move (empty once the game is over): every
        opponent who holds cards, times every card of a held, unexposed family that the
        player lacks (or holds too, with bluffing).

        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
        >>> len(g.legal_asks()), g.legal_asks()[0]
        (36, Ask('A', 'B', '8S'))
        """
        seat = self._to_move
        if seat is None:
            return []
        # The shared Ask objects of this seat, picked by the askable-card mask kept with
        # the turn: no Ask is built here.
        tables = self._tables
        rows = tables.rows[seat] or tables.build_rows(seat)
        pick = _PICKERS.get(self._wanted) or _picker(self._wanted)
        hands = self._hands
        asks: list[Ask] = []
        for target_seat in tables.others[seat]:
            if hands[target_seat]:
                asks += pick(rows[target_seat])
        return asks

    def random_legal_ask(self, rng: np.random.Generator) -> Ask:
        """A uniformly random legal ask, drawn without listing them all (fast play-outs).

        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
        >>> g.random_legal_ask(np.random.default_rng(1)) in g.legal_asks()
        True
        """
        if not isinstance(rng, np.random.Generator):
            raise KwartetError(
                f"random_legal_ask(rng={short(rng)}): expected a numpy.random.Generator "
                "such as numpy.random.default_rng(1)"
            )
        seat = self._to_move
        if seat is None:
            raise IllegalAskError("the game is over: there is no legal ask")
        targets = [s for s, hand in enumerate(self._hands) if hand and s != seat]
        wanted = self._wanted
        n_cards = wanted.bit_count()
        k = int(rng.integers(len(targets) * n_cards))
        target, nth = divmod(k, n_cards)
        for _ in range(nth):
            wanted &= wanted - 1
        tables = self._tables
        rows = tables.rows[seat] or tables.build_rows(seat)
        return rows[targets[target]][(wanted & -wanted).bit_length() - 1]

    # ----- moves --------------------------------------------------------------------

    def play(self, ask: Ask) -> list[Event]:
        """Play an :class:`Ask` (as agents return them); the asker must be the player to move."""
        if not isinstance(ask, Ask):
            raise IllegalAskError(f"{ask!r}: expected an Ask(asker, target, card)")
        return self.ask(ask.target, ask.card, asker=ask.asker)

    def ask(self, target: str, card: Card | str, *, asker: str | None = None) -> list[Event]:
        """The player to move asks ``target`` for ``card``; returns the events that follow.

        Raises :class:`IllegalAskError` naming the broken rule, changing nothing.

        >>> g = kw.Game.from_hands(kw.Deck.piquet(families=2),
        ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
        >>> g.ask("A", "7H")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.IllegalAskError: A may not ask themselves for a card
        >>> g.ask("B", "7S")
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.IllegalAskError: A may not ask for 7S: A holds it already
        """
        seat = self._to_move
        # Fast path (simulations call this in their inner loop): one of the deck's own
        # cards, in the askable-card mask kept with the turn, asked of another player who
        # holds cards.  Anything else, every illegal ask included, takes _check_ask, which
        # names the first broken rule.
        if seat is not None and type(card) is Card and type(target) is str:
            index = card.index
            cards = self.deck.cards
            # (A negative index fails the identity test before the shift could raise.)
            if index < len(cards) and cards[index] is card and self._wanted >> index & 1:
                target_seat = self._tables.other_seat[seat].get(target)
                if (
                    target_seat is not None
                    and self._hands[target_seat]
                    and (asker is None or asker == self.players[seat])
                ):
                    start = len(self._events)
                    self._resolve_ask(seat, target_seat, index)
                    return self._events[start:]
        seat, target_seat, index = self._check_ask(target, card, asker)
        start = len(self._events)
        self._resolve_ask(seat, target_seat, index)
        return self._events[start:]

    def _check_ask(self, target: str, card: Card | str, asker: str | None) -> tuple[int, int, int]:
        """The seats and card index of an ask, or IllegalAskError naming the first broken
        rule (in this order: game over, turn, card, target, family, own card, face up)."""
        if self._to_move is None:
            raise IllegalAskError("the game is over: nobody may ask")
        seat = self._to_move
        me = self.players[seat]
        if asker is not None and asker != me:
            raise IllegalAskError(f"it is not {asker}'s turn: {me} is to move")
        try:
            if type(card) is Card and self.deck.cards[card.index] is card:
                resolved = card
            else:
                resolved = self.deck.card(card)
        except (UnknownCardError, IndexError) as err:
            raise UnknownAskCardError(f"{me} may not ask for an unknown card: {err}") from None
        target_seat = self._seat.get(target) if isinstance(target, str) else None
        if target_seat is None:
            raise IllegalAskError(
                f"{me} may not ask {target!r}: no such player; players are {', '.join(self.players)}"
            )
        if target_seat == seat:
            raise IllegalAskError(f"{me} may not ask themselves for a card")
        if not self._hands[target_seat]:
            raise IllegalAskError(f"{me} may not ask {target}: {target} has no cards")
        f = resolved.family_index
        if f in self._exposed:
            raise IllegalAskError(
                f"{me} may not ask for {resolved.code}: the quartet of "
                f"{self.deck.family_titles[f]} is already exposed"
            )
        hand = self._hands[seat]
        if not hand & _family_mask(f):
            raise IllegalAskError(
                f"{me} may not ask for {resolved.code}: {me} holds no card of the "
                f"{self.deck.family_titles[f]}"
            )
        if hand >> resolved.index & 1 and not self.rules.bluffing:
            raise IllegalAskError(f"{me} may not ask for {resolved.code}: {me} holds it already")
        if self._blocked >> resolved.index & 1:
            raise IllegalAskError(
                f"{me} may not ask for {resolved.code}: it lies face up in the middle"
            )
        return seat, target_seat, resolved.index

    def _resolve_ask(self, seat: int, target_seat: int, card_index: int) -> None:
        hands = self._hands
        bit = 1 << card_index
        has_card = hands[target_seat] & bit != 0
        tables = self._tables
        # The events and the record entry of this ask and answer, shared by every game.
        # None of them is a Drew, so the public record gets the same objects.
        key = ((card_index << 3 | seat) << 3 | target_seat) << 1 | has_card  # seats < 8
        entry = tables.said.get(key)
        if entry is None:
            entry = tables.said[key] = tables.make_said(seat, target_seat, card_index, has_card)
        said, action = entry
        self._actions.append(action)
        self._events += said
        self._public += said
        if has_card:
            hands[target_seat] ^= bit
            hand = hands[seat] = hands[seat] | bit
            mask = tables.family_masks[card_index]
            if hand & mask == mask:
                self._expose_complete(seat, self.deck.cards[card_index].family_index)
                hand = hands[seat]
            if not hands[target_seat]:
                self._emit(tables.emptied[target_seat])
            if not hand:
                self._emit(tables.emptied[seat])
            self._settle_turn(seat, "")
            return
        next_seat = (
            target_seat if self.rules.refusal_turn == "asked" else (seat + 1) % len(self.players)
        )
        if self._stock:
            completed = self._draw(seat)
            if completed and self.rules.bonus_turn and self._hands[seat]:
                self._settle_turn(seat, "")
                return
        elif hands[next_seat]:
            # The usual no (two asks in three): nothing moved, so a quartet is still to be
            # completed and two players hold cards; if next_seat can ask, it is its turn.
            # (_settle_turn's fast path without the checks a refusal makes needless.)
            wanted = self._askable(hands[next_seat])
            if wanted:
                self._wanted = wanted
                self._to_move = next_seat
                self._turned_this_turn = False
                event = tables.plain_turns["refusal"][next_seat]
                self._events.append(event)
                self._public.append(event)
                return
        self._settle_turn(next_seat, "refusal")

    def _askable(self, hand: int) -> int:
        """The cards (mask) a player holding ``hand`` may ask for now: the other cards of
        the families the hand touches, less exposed and face-up cards (and, without
        bluffing, less the hand itself)."""
        spread = hand | hand >> 1
        spread |= spread >> 2
        wanted = (spread & self._nibble_ones) * 0b1111 & ~self._blocked
        return wanted if self.rules.bluffing else wanted & ~hand

    def turn_over(self, slot: int) -> list[Event]:
        """Memory Kwartet: the player to move turns over face-down middle card ``slot``
        for all to see (at most once per turn); the player then asks as usual."""
        if self._to_move is None:
            raise IllegalAskError("the game is over: nobody may turn over a card")
        if not self._middle:
            raise IllegalAskError("there are no middle cards: the rules have memory_cards=0")
        if (
            isinstance(slot, bool)
            or not isinstance(slot, int | np.integer)
            or not 0 <= slot < len(self._middle)
        ):
            raise IllegalAskError(
                f"middle slot {short(slot)}: expected an integer from 0 to "
                f"{len(self._middle) - 1} (True and False are not slot numbers)"
            )
        slot = int(slot)  # a plain int, as the record stores it
        if self._middle_up[slot]:
            raise IllegalAskError(f"middle card {slot} is already face up")
        if self._turned_this_turn:
            raise IllegalAskError(f"{self.to_move} has already turned over a middle card this turn")
        me = self.players[self._to_move]
        start = len(self._events)
        self._middle_up[slot] = True
        self._blocked |= 1 << self._middle[slot]
        self._turned_this_turn = True
        self._actions.append(("turn_over", me, slot))
        self._emit(MiddleCardTurned(me, slot, self.deck.cards[self._middle[slot]]))
        # The turned card may leave the mover with nothing to ask for.
        self._settle_turn(self._to_move, "")
        return self._events[start:]

    # ----- internals ----------------------------------------------------------------

    def _emit(self, event: Event) -> None:
        """Log an event that is not a draw (draws log their private and public forms)."""
        self._events.append(event)
        self._public.append(event)

    def _expose_complete(self, seat: int, family: int | None = None) -> bool:
        """Expose every complete family in a hand (or just ``family``); True if one was."""
        hand = self._hands[seat]
        if family is None:
            # One bit per complete family (at the family's lowest card), found in O(1).
            complete = hand & hand >> 1 & hand >> 2 & hand >> 3 & self._nibble_ones
            families: Iterable[int] = [i >> 2 for i in _bits(complete)]
        else:
            families = (family,)
        exposed_any = False
        for f in families:
            mask = _family_mask(f)
            if hand & mask == mask:
                hand ^= mask
                self._exposed[f] = seat
                self._blocked |= mask
                self._unfinished &= ~mask
                self._last_quartet_at[seat] = len(self._events)
                self._emit(self._tables.exposed(seat, f, self.deck))
                exposed_any = True
        self._hands[seat] = hand
        return exposed_any

    def _draw(self, seat: int) -> bool:
        """``seat`` draws the top stock card; True if it completed a quartet."""
        index = self._stock.pop()
        self._hands[seat] |= 1 << index
        drew, public = self._tables.drew(seat, index)
        self._events.append(drew)
        self._public.append(public)
        return self._expose_complete(seat, self.deck.cards[index].family_index)

    def _first_mover(self, seat: int) -> int | None:
        """The first seat clockwise from ``seat`` (itself included) that can ask: it holds
        cards, someone else holds cards, and some card is askable; None if nobody can.

        Keeps that seat's askable cards in ``_wanted``: every change of hands or of the
        blocked cards ends in :meth:`_settle_turn`, so the mask is always the mover's."""
        hands = self._hands
        n = len(hands)
        holders = n - hands.count(0)
        if holders < 2:  # a lone holder has nobody to ask
            return None
        for k in range(n):
            s = seat + k
            if s >= n:
                s -= n
            hand = hands[s]
            if not hand:
                continue
            wanted = self._askable(hand)
            if wanted:
                self._wanted = wanted
                return s
        return None

    def _settle_turn(self, seat: int, reason: str) -> None:
        """Give the turn to ``seat`` or, if it cannot ask (empty hand, nobody to ask, or
        only cards of families that can no longer be asked for), to the next player
        clockwise who can.  If nobody can ask, the player due draws from the stock.  End
        the game when no quartet can be completed any more."""
        hands = self._hands
        hand = hands[seat]
        if hand and self._unfinished and len(hands) - hands.count(0) > 1:
            # Fast path, the usual case after any ask: ``seat`` itself can ask.  This is
            # _first_mover's test for that one seat, and what the general case below does
            # when its candidate is ``seat``.
            wanted = self._askable(hand)
            if wanted:
                self._wanted = wanted
                if seat != self._to_move or reason == "refusal":
                    self._to_move = seat
                    self._turned_this_turn = False
                    event = self._tables.plain_turns[reason or "turn"][seat]
                    self._events.append(event)
                    self._public.append(event)
                return
        n = len(self.players)
        while True:
            if not self._unfinished:
                self._end()
                return
            candidate = self._first_mover(seat)
            if candidate is not None:
                break
            if not self._stock:  # cannot happen while a quartet is completable; be safe
                self._end()
                return
            holders = [(seat + k) % n for k in range(n) if self._hands[(seat + k) % n]]
            seat = holders[0] if holders else seat
            self._draw(seat)
        # A refusal always ends the turn, even when it comes back to the asker because
        # nobody else can ask: that is a new turn (Memory Kwartet may turn a card again).
        if candidate != self._to_move or reason == "refusal":
            if candidate == seat:
                why = reason or "turn"
                passed_over: tuple[str, ...] = ()
            else:
                why = "empty hand" if not self._hands[seat] else "cannot ask"
                passed_over = tuple(
                    self.players[(seat + k) % n]
                    for k in range((candidate - seat) % n)
                    if self._hands[(seat + k) % n]
                )
            self._to_move = candidate
            self._turned_this_turn = False
            self._emit(self._tables.passed(candidate, why, passed_over))

    def _end(self) -> None:
        self._to_move = None
        scores = self.scores
        revealed = tuple(self.deck.cards[i] for i in (*_bits(self._aside), *self._middle))
        self._emit(
            GameEnded(self.players, tuple(scores[p] for p in self.players), self.winners, revealed)
        )

    # ----- text ---------------------------------------------------------------------

    def transcript(self) -> str:
        """The whole game as readable lines (the referee's log, draws shown)."""
        return transcript(self._events)

    def _repr_html_(self) -> str:
        """The game in Jupyter: hands, quartets, whose turn, the last transcript lines."""
        from kwartet_epistemic.viz.html import game_html  # loaded on first display only

        return game_html(self)

    def __str__(self) -> str:
        lines = [
            f"Kwartet, {self.rules.name} rules, {self.deck!r}, players {', '.join(self.players)}"
        ]
        for p in self.players:
            cards = " ".join(c.code for c in self.hand(p)) or "-"
            lines.append(f"  {p}: {cards}  ({self.scores[p]} quartets)")
        lines.append(f"  to move: {self.to_move or 'nobody, game over'}")
        return "\n".join(lines)

    def __repr__(self) -> str:
        state = "over" if self.is_over else f"{self.to_move} to move"
        return (
            f"<Game {self.deck!r} {list(self.players)} rules={self.rules.name} "
            f"events={len(self._events)} {state}>"
        )

    # ----- records ------------------------------------------------------------------

    def record_data(self) -> RecordData:
        """The game so far as record data (deck, rules, players, the deal, every action,
        and the seed if it was dealt with one): what :meth:`save` writes.

        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=3)
        >>> g.record_data().seed, len(g.record_data().hands[0])
        (3, 10)
        """
        deal = self.initial_deal
        seed = self.seed
        if seed is not None and not _seed_deals(self, seed):
            seed = None  # set up by hand with a seed it was not dealt from: keep the deal only
        return RecordData(
            deck=self.deck,
            rules=self.rules,
            players=tuple(self.players),
            dealer=deal["dealer"],
            hands=tuple(tuple(deal["hands"][p]) for p in self.players),
            stock=tuple(deal["stock"]),
            aside=tuple(deal["aside"]),
            middle=tuple(deal["middle"]),
            actions=tuple(tuple(a) for a in self.actions),
            seed=seed,
        )

    @classmethod
    def from_record(cls, record: RecordData) -> Game:
        """Rebuild a game from record data: deal as recorded, then play every action,
        checking each recorded answer against the replay.  Raises :class:`RecordError`
        naming the first entry that is illegal or disagrees with the deal.

        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
        >>> _ = g.ask("C", "KD")
        >>> kw.Game.from_record(g.record_data()).events == g.events
        True
        >>> lie = g.record_data().with_actions([("ask", "A", "C", "KD", True)])
        >>> kw.Game.from_record(lie)
        Traceback (most recent call last):
        ...
        kwartet_epistemic.errors.RecordError: entry 1 (A asks C for KD): the record says yes, but C does not hold KD in the recorded deal
        """
        try:
            cls._check_players(record.players)
        except KwartetError as err:
            raise RecordError(f"players: {err}") from err
        if not isinstance(record.hands, Sequence) or isinstance(record.hands, str):
            raise RecordError(f"deal: hands {short(record.hands)}: expected one list per player")
        if len(record.hands) != len(record.players):
            raise RecordError(
                f"deal: {len(record.hands)} hands for {len(record.players)} players "
                f"{', '.join(map(str, record.players))}"
            )
        try:
            game = cls(
                record.deck,
                record.players,
                dict(zip(record.players, record.hands, strict=True)),
                dealer=record.dealer,
                rules=record.rules,
                stock=record.stock,
                aside=record.aside,
                middle=record.middle,
                seed=record.seed,
            )
        except KwartetError as err:
            raise RecordError(f"deal: {err}") from err
        # A seed promises the deal Game.deal makes with it: a hand edited afterwards would
        # otherwise pass unnoticed as long as the answers were edited to match.
        if record.seed is not None and not _seed_deals(game, record.seed):
            raise RecordError(
                f"deal: it is not the deal that seed {record.seed} gives (tampered deal, "
                "or a record whose seed was changed)"
            )
        for number, action in enumerate(record.actions, start=1):
            _replay_action(game, number, action)
        return game

    def save(self, path: str | PathLike[str]) -> None:
        """Save the game so far as a JSON game record (see :class:`~kwartet_epistemic.record.GameRecord`).

        >>> import tempfile, pathlib
        >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
        >>> _ = g.ask("C", "KD")
        >>> path = pathlib.Path(tempfile.mkdtemp()) / "game.json"
        >>> g.save(path)
        >>> kw.Game.load(path).events == g.events
        True
        """
        self.record_data().save(path)

    @classmethod
    def load(cls, path: str | PathLike[str]) -> Game:
        """Load a JSON game record and replay it; a bad record raises RecordError."""
        return cls.from_record(RecordData.load(path))

    def copy(self) -> Game:
        """An independent copy of the game (for search and what-if analysis)."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        other._derived = DerivedCache()  # the copy's record may go another way
        other._hands = list(self._hands)
        other._stock = list(self._stock)
        other._middle = list(self._middle)
        other._middle_up = list(self._middle_up)
        other._exposed = dict(self._exposed)
        other._last_quartet_at = list(self._last_quartet_at)
        other._events = list(self._events)
        other._public = list(self._public)
        other._actions = list(self._actions)
        return other


_ASK_PATTERN = re.compile(
    r"^\s*(?P<target>[A-Za-z0-9_]+)\s*[,:]?\s*(?:(?:please\s*,?\s*)?(?:may|can|could)\s+i\s+(?:please\s+)?have\s+|do\s+you\s+have\s+|have\s+you\s+got\s+)?(?:the\s+)?(?P<card>.+?)\s*[?.!]?\s*$",
    re.IGNORECASE,
)


_PRINTED_ASK_PATTERNS = (
    # str(ask): "A asks B for QH"
    re.compile(r"^\s*(?P<asker>\w+)\s+asks\s+(?P<target>\w+)\s+for\s+(?P<card>.+?)\s*$"),
    # repr(ask): "Ask('A', 'B', 'QH')"
    re.compile(
        r"^\s*Ask\(\s*(?P<q1>['\"])(?P<asker>\w+)(?P=q1)\s*,\s*(?P<q2>['\"])(?P<target>\w+)(?P=q2)"
        r"\s*,\s*(?P<q3>['\"])(?P<card>.+?)(?P=q3)\s*\)\s*$"
    ),
)


def parse_ask(text: str, game: Game | PlayerView, asker: str | None = None) -> Ask:
    """Read an ask typed by a person: ``"B QH"`` or ``"B, may I have the queen of hearts?"``,
    or an ask's printed form, ``str(ask)`` or ``repr(ask)`` (which name the asker too).

    >>> g = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    >>> parse_ask("C, may I have the queen of hearts?", g)
    Ask('A', 'C', 'QH')
    >>> ask = g.legal_asks()[0]
    >>> parse_ask(str(ask), g) == ask == parse_ask(repr(ask), g)
    True
    """
    if not isinstance(text, str):
        raise IllegalAskError(f"ask {short(text)}: expected text such as 'B QH'")
    if not isinstance(game, Game | PlayerView):
        raise IllegalAskError(f"parse_ask(game={short(game)}): expected a Game or a PlayerView")
    if len(text) > 1000:
        raise IllegalAskError(f"ask of {len(text):,} characters: an ask has at most 1,000")
    players = game.players
    by_lower = {p.lower(): p for p in players}
    printed = None
    for pattern in _PRINTED_ASK_PATTERNS:
        printed = pattern.match(text)
        if printed and printed.group("asker").lower() in by_lower:
            break
        printed = None
    match = printed or _ASK_PATTERN.match(text)
    if not match:
        raise IllegalAskError(f"ask {text!r}: expected a player and a card, such as 'B QH'")
    target, card_text = match.group("target"), match.group("card")
    if printed:
        named = by_lower[printed.group("asker").lower()]
        if asker is not None and named != asker:
            raise IllegalAskError(f"ask {text!r}: the asker is {named}, not {asker}")
        asker = named
    if target.lower() not in by_lower:
        raise IllegalAskError(
            f"ask {text!r}: {target!r} is not a player; players are {', '.join(players)}"
        )
    try:
        card = game.deck.card(card_text)
    except UnknownCardError as err:
        raise UnknownAskCardError(f"ask {text!r}: {err}") from None
    mover = asker or game.to_move
    if mover is None:
        raise IllegalAskError("the game is over: nobody may ask")
    return Ask(mover, by_lower[target.lower()], card)


def _seed_deals(game: Game, seed: int) -> bool:
    """Whether :meth:`Game.deal` with ``seed`` gives ``game``'s initial deal."""
    try:
        dealt = Game.deal(game.deck, game.players, seed=seed, rules=game.rules)
    except (KwartetError, TypeError):
        return False
    return dealt.initial_deal == game.initial_deal


def _replay_action(game: Game, number: int, action: Any) -> None:
    """Play one recorded action on ``game``; a bad one raises RecordError naming it."""
    where = f"entry {number} ({describe_action(action)})"
    if not isinstance(action, Sequence) or isinstance(action, str) or not action:
        raise RecordError(f"{where}: expected an action such as ('ask', 'A', 'B', 'QH', False)")
    kind = action[0]
    try:
        if kind == "ask":
            if len(action) != 5:
                raise RecordError(
                    f"{where}: an ask has 5 parts: 'ask', asker, target, card, answer"
                )
            _, asker, target, card, answer = action
            if not all(isinstance(x, str) for x in (asker, target, card)):
                raise RecordError(f"{where}: asker, target and card must be text")
            if not isinstance(answer, bool):
                raise RecordError(f"{where}: answer {answer!r}: expected true or false")
            game.ask(target, card, asker=asker)
            given = game.actions[-1][4]
            if given != answer:
                raise RecordError(
                    f"{where}: the record says {'yes' if answer else 'no'}, but {target} "
                    f"{'holds' if given else 'does not hold'} {game.actions[-1][3]} in the "
                    "recorded deal"
                )
        elif kind == "turn_over":
            if len(action) != 3 or not isinstance(action[1], str) or not _is_whole(action[2]):
                raise RecordError(f"{where}: expected ('turn_over', player, slot number)")
            if action[1] != game.to_move:
                raise RecordError(
                    f"{where}: it is not {action[1]}'s turn: {game.to_move or 'nobody'} is to move"
                )
            game.turn_over(action[2])
        else:
            raise RecordError(f"{where}: unknown action {kind!r}; expected 'ask' or 'turn_over'")
    except RecordError:
        raise
    except KwartetError as err:
        raise RecordError(f"{where}: {err}") from err


def _is_whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
