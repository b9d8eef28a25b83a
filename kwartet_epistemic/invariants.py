"""Invariants of a game and of everyone's knowledge of it, checked after every action.

:class:`InvariantChecker` follows one game (the referee's :class:`~kwartet_epistemic.Game`)
and, each time :meth:`~InvariantChecker.check` is called, tests what must hold after any
action whatever the rules:

``placement``
    every card lies in exactly one place: a hand, the stock, the set-aside pile, the
    middle or an exposed quartet; the stock holds what the deal put there less what was
    drawn, and as many cards as the game says.
``hands``
    no hand holds a complete family or a card of an exposed family.
``scores``
    the scores sum to the families laid down, each player's score is the number of
    families they laid, and a finished game's winners have the top score.
``views``
    each player's view agrees with the game: own hand, hand sizes, exposures, scores,
    the player to move, the stock size, the middle, the legal asks, and the record (the
    public record, with the player's own draws showing the card); and the epistemic
    state built from the view alone agrees with the one built from the game.
``actual``
    the actual deal is possible from every view: every player gives each card's actual
    holder a positive probability, considers the actual position of all cards possible
    (``M_p`` of it holds), and any card they know the place of is where they say.
``probabilities``
    every row of every player's location probabilities lies in [0, 1] and sums to 1
    with the pile share (to exactly 1 where the rules have no piles), the rows of
    exposed cards are 0, the columns sum to the hand sizes, and own cards are certain.
``monotone``
    without a draw pile no world count grows: neither the public count nor any
    player's (with a draw pile a private draw may raise them).

Each failure is reported as ``(invariant, message)``; the checker never raises for a
broken invariant, so that a caller can count failures by invariant and rule preset.

>>> import kwartet_epistemic as kw, numpy as np
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> checker = InvariantChecker(game)
>>> rng = np.random.default_rng(1)
>>> while not game.is_over:
...     _ = game.play(game.random_legal_ask(rng))
...     assert checker.check() == []
>>> checker.checked > 0
True
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np

from kwartet_epistemic.cards import Deck
from kwartet_epistemic.epistemics.state import EpistemicState, knowledge
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.events import Drew
from kwartet_epistemic.game import Ask, Game
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "INVARIANTS",
    "SMALL_SIZES",
    "InvariantChecker",
    "InvariantReport",
    "Violation",
    "check_random_games",
    "play_random_action",
]

INVARIANTS = ("placement", "hands", "scores", "views", "actual", "probabilities", "monotone")
"""The names of the invariants, in the order they are checked."""

Violation = tuple[str, str]
"""A broken invariant: its name (one of :data:`INVARIANTS`) and what was wrong."""

_TOLERANCE = 1e-9


class InvariantChecker:
    """Checks the invariants of ``game`` each time :meth:`check` is called (after each
    action).

    ``deep`` says for whom the costly checks run: the epistemic state built from their
    view alone, compared with the game's (part of ``views``), and the actual position of
    all cards as one formula, ``M_p`` of it (part of ``actual``): ``"all"`` players, the
    ``"mover"`` (the player who just acted, else the one to move), or ``"none"``.
    """

    def __init__(self, game: Game, *, deep: str = "all") -> None:
        if deep not in ("all", "mover", "none"):
            raise KwartetError(f"deep={deep!r}: expected 'all', 'mover' or 'none'")
        self.game = game
        self.deep = deep
        self.state: EpistemicState = knowledge(game)
        self.checked = 0
        """How many times :meth:`check` has run (actions checked)."""
        self._previous: dict[str | None, int] | None = None
        self._last_mover: str | None = None

    # ----- the checks ---------------------------------------------------------------

    def check(self) -> list[Violation]:
        """Every broken invariant after the latest action (empty if all hold)."""
        self.checked += 1
        found: list[Violation] = []
        places = self._placement(found)
        self._hands(found)
        self._scores(found)
        self._views(found)
        try:
            self._epistemic(found, places)
        except KwartetError as err:  # e.g. "no world is consistent with the record"
            found.append(("actual", f"the epistemic state fails: {err}"))
        return found

    def _placement(self, found: list[Violation]) -> dict[int, str]:
        """Where each card lies (card index -> player, 'stock', 'aside', 'middle',
        'exposed'), checking that each lies in exactly one place."""
        game, deck = self.game, self.game.deck
        deal = game.initial_deal
        places: dict[int, list[str]] = {c.index: [] for c in deck.cards}
        for p in game.players:
            for card in game.hand(p):
                places[card.index].append(p)
        for family in game.exposed:
            for card in deck.family_cards(family):
                places[card.index].append("exposed")
        drawn = [e.card.index for e in game.events if isinstance(e, Drew) and e.card is not None]
        stock = [deck.card(code).index for code in deal["stock"]]
        for index in drawn:
            if index in stock:
                stock.remove(index)
            else:
                found.append(("placement", f"{deck.cards[index].code} was drawn but not stocked"))
        for index in stock:
            places[index].append("stock")
        for code in deal["aside"]:
            places[deck.card(code).index].append("aside")
        for code in deal["middle"]:
            places[deck.card(code).index].append("middle")
        if len(stock) != game.stock_size:
            found.append(
                (
                    "placement",
                    f"the stock holds {len(stock)} cards, the game says {game.stock_size}",
                )
            )
        if sorted(stock) != sorted(card.index for card in game.stock):
            found.append(("placement", "the stock is not the dealt stock less the draws"))
        sizes = game.hand_sizes
        for p in game.players:
            if sizes[p] != len(game.hand(p)):
                found.append(("placement", f"{p}'s hand size {sizes[p]} is not its card count"))
        where: dict[int, str] = {}
        for index, found_in in places.items():
            if len(found_in) != 1:
                code = deck.cards[index].code
                found.append(
                    ("placement", f"{code} lies in {len(found_in)} places: {found_in or 'none'}")
                )
            if found_in:
                where[index] = found_in[0]
        return where

    def _hands(self, found: list[Violation]) -> None:
        game, deck = self.game, self.game.deck
        for p in game.players:
            hand = {c.index for c in game.hand(p)}
            for family in deck.families:
                members = {c.index for c in deck.family_cards(family)}
                if members <= hand:
                    found.append(("hands", f"{p} holds the complete family {family}"))
                elif family in game.exposed and members & hand:
                    found.append(("hands", f"{p} holds a card of the exposed family {family}"))

    def _scores(self, found: list[Violation]) -> None:
        game = self.game
        scores, exposed = game.scores, game.exposed
        if sum(scores.values()) != len(exposed):
            found.append(
                ("scores", f"scores sum to {sum(scores.values())}, {len(exposed)} families laid")
            )
        for p in game.players:
            laid = sum(1 for who in exposed.values() if who == p)
            if scores[p] != laid:
                found.append(("scores", f"{p} scores {scores[p]} but laid {laid} families"))
        if game.is_over:
            best = max(scores.values())
            if not game.winners or any(scores[w] != best for w in game.winners):
                found.append(("scores", f"winners {game.winners} without the top score {best}"))

    def _views(self, found: list[Violation]) -> None:
        game = self.game
        record, events = game.record, game.events
        legal = game.legal_asks()
        for p in game.players:
            view = game.view(p)
            problems = [
                name
                for name, mine, truth in (
                    ("players", view.players, game.players),
                    ("rules", view.rules, game.rules),
                    ("hand", view.hand, game.hand(p)),
                    ("hand sizes", dict(view.hand_sizes), game.hand_sizes),
                    ("exposures", dict(view.exposed), game.exposed),
                    ("scores", dict(view.scores), game.scores),
                    ("player to move", view.to_move, game.to_move),
                    ("stock size", view.stock_size, game.stock_size),
                    ("middle", view.middle, game.middle),
                    ("legal asks", view.legal_asks(), legal if p == game.to_move else []),
                )
                if mine != truth
            ]
            expected = tuple(
                full if isinstance(full, Drew) and full.player == p else public
                for full, public in zip(events, record, strict=True)
            )
            if view.record != expected:
                problems.append("record")
            if problems:
                found.append(
                    ("views", f"{p}'s view differs from the game in: {', '.join(problems)}")
                )

    def _deep_players(self) -> Sequence[str]:
        if self.deep == "all":
            return self.game.players
        if self.deep == "none":
            return ()
        mover = self._mover()
        return (mover,) if mover is not None else ()

    def _mover(self) -> str | None:
        """The player who made the latest action (else the one to move)."""
        actions = self.game.actions
        if actions:
            return str(actions[-1][1])
        return self.game.to_move

    def _epistemic(self, found: list[Violation], places: dict[int, str]) -> None:
        game, state, deck = self.game, self.state, self.game.deck
        piles = game.rules.draw_pile or game.rules.dealing == "equal" or game.rules.memory_cards
        in_hands = {c: p for c, p in places.items() if p in game.players}
        sizes = game.hand_sizes
        counts: dict[str | None, int] = {None: state.count_worlds()}
        if counts[None] < 1:
            found.append(("actual", "the public state counts no world"))
        position = " & ".join(
            f"has({p}, {deck.cards[c].code})" for c, p in sorted(in_hands.items())
        )
        deep = self._deep_players()
        for p in game.players:
            counts[p] = state.count_worlds(p)
            if counts[p] < 1:
                found.append(("actual", f"{p} considers no world possible"))
                continue
            probabilities = state.location_probabilities(p)
            # actual: the true holder of every card is possible, jointly too
            for c, holder in in_hands.items():
                if probabilities[c, game.players.index(holder)] <= 0:
                    found.append(
                        (
                            "actual",
                            f"{p} gives {deck.cards[c].code}'s holder {holder} probability 0",
                        )
                    )
            if p in deep and position and not state.holds(f"M_{p} ({position})"):
                found.append(("actual", f"{p} considers the actual position impossible"))
            for card in deck.cards:
                known = state.knows_location(p, card)
                if known is None:
                    continue
                actual = places.get(card.index)
                if known != actual:
                    found.append(
                        ("actual", f"{p} knows {card.code} is with {known}; it is with {actual}")
                    )
            self._probabilities(found, p, probabilities, places, sizes, bool(piles))
            if p in deep:
                self._view_state(found, p, counts[p], probabilities)
        if self._previous is not None and not game.rules.draw_pile:
            for who, count in counts.items():
                before = self._previous.get(who)
                if before is not None and count > before:
                    name = "the public world count" if who is None else f"{who}'s world count"
                    found.append(("monotone", f"{name} grew from {before} to {count}"))
        self._previous = counts

    def _probabilities(
        self,
        found: list[Violation],
        p: str,
        probabilities: np.ndarray,
        places: dict[int, str],
        sizes: dict[str, int],
        piles: bool,
    ) -> None:
        game, deck = self.game, self.game.deck
        if not np.all((probabilities >= -_TOLERANCE) & (probabilities <= 1 + _TOLERANCE)):
            found.append(("probabilities", f"{p}'s probabilities leave [0, 1]"))
        rows = probabilities.sum(axis=1)
        for card in deck.cards:
            c = card.index
            where = places.get(c)
            if where == "exposed":
                if np.any(probabilities[c] != 0):
                    found.append(("probabilities", f"{p}: exposed {card.code} has a holder"))
            elif where == "middle" and card in game.middle:
                if rows[c] > _TOLERANCE:
                    found.append(("probabilities", f"{p}: face-up {card.code} has a holder"))
            elif rows[c] > 1 + _TOLERANCE or (not piles and abs(rows[c] - 1) > _TOLERANCE):
                found.append(("probabilities", f"{p}: {card.code}'s row sums to {rows[c]}"))
        columns = probabilities.sum(axis=0)
        for q, holder in enumerate(game.players):
            if abs(columns[q] - sizes[holder]) > 1e-6:
                found.append(
                    ("probabilities", f"{p}: {holder}'s column sums to {columns[q]}, not "
                     f"{sizes[holder]} cards")
                )  # fmt: skip
        me = game.players.index(p)
        for card in game.hand(p):
            if abs(probabilities[card.index, me] - 1) > _TOLERANCE:
                found.append(("probabilities", f"{p} is not sure of holding {card.code}"))

    def _view_state(
        self, found: list[Violation], p: str, count: int, probabilities: np.ndarray
    ) -> None:
        """The state built from ``p``'s view alone agrees with the game's for ``p``."""
        own = knowledge(self.game.view(p))
        if own.count_worlds(p) != count:
            found.append(
                (
                    "views",
                    f"{p}'s own state counts {own.count_worlds(p)} worlds, the game's {count}",
                )
            )
        elif not np.allclose(own.location_probabilities(p), probabilities, atol=1e-12):
            found.append(("views", f"{p}'s own state has other probabilities than the game's"))


def play_random_action(game: Game, rng: np.random.Generator, turn_over: float = 0.3) -> None:
    """One random legal action of the player to move: in Memory Kwartet, turning over a
    face-down middle card with probability ``turn_over`` when allowed, else a random
    legal ask.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
    >>> play_random_action(game, np.random.default_rng(0)); len(game.actions)
    1
    """
    player = game.to_move
    if player is None:
        raise KwartetError("the game is over: nobody may act")
    view = game.view(player)
    if view.may_turn_over and rng.random() < turn_over:
        slots = [s for s, card in enumerate(game.middle) if card is None]
        game.turn_over(int(slots[rng.integers(len(slots))]))
        return
    ask: Ask = game.random_legal_ask(rng)
    game.play(ask)


SMALL_SIZES: dict[str, tuple[tuple[int, int, int], ...]] = {
    "publisher": ((2, 3, 0), (3, 3, 0), (3, 4, 0), (4, 3, 0)),
    "dutch": ((2, 3, 0), (3, 3, 0), (3, 4, 0), (4, 3, 0)),
    "lamas": ((2, 3, 0), (3, 3, 0), (3, 4, 0), (4, 3, 0)),
    "fish": ((2, 2, 2), (3, 2, 3), (3, 3, 2), (3, 3, 3)),
}
"""Small games per preset, in turn: (families, players, cards each with a draw pile)."""


@dataclass
class InvariantReport:
    """What :func:`check_random_games` found: games played, actions checked, and the
    failures per invariant with the first example of each (game number and message)."""

    rules: str
    games: int = 0
    actions: int = 0
    failures: Counter[str] = field(default_factory=Counter)
    examples: dict[str, tuple[int, str]] = field(default_factory=dict)

    def add(self, game_number: int, violations: Sequence[Violation]) -> None:
        """Count the violations found after one action of game ``game_number``."""
        self.actions += 1
        for name, message in violations:
            self.failures[name] += 1
            self.examples.setdefault(name, (game_number, message))

    def merge(self, other: InvariantReport) -> None:
        """Add another report's counts (of the same rules) to this one."""
        self.games += other.games
        self.actions += other.actions
        self.failures.update(other.failures)
        for name, example in other.examples.items():
            self.examples.setdefault(name, example)


def check_random_games(
    preset: str,
    games: int,
    *,
    first_seed: int = 0,
    deep: str = "mover",
    deep_every: int = 1,
    changes: Mapping[str, object] | None = None,
) -> InvariantReport:
    """Play ``games`` small random games of ``preset`` (the sizes of
    :data:`SMALL_SIZES` in turn, game ``k`` dealt and played with seed
    ``first_seed + k``) and check every invariant after every action (the costly ones
    as ``deep`` says, in every ``deep_every``-th game).

    >>> report = check_random_games("lamas", 3)
    >>> report.games, report.actions > 3, dict(report.failures)
    (3, True, {})
    """
    if preset not in SMALL_SIZES:
        raise KwartetError(f"preset {preset!r}: expected one of {', '.join(SMALL_SIZES)}")
    report = InvariantReport(preset if not changes else f"{preset} {dict(changes)}")
    sizes = SMALL_SIZES[preset]
    for k in range(games):
        number = first_seed + k
        families, players, cards_each = sizes[number % len(sizes)]
        extra = dict(changes or {})
        if cards_each:
            extra["cards_each"] = cards_each
        rules = RuleSet.preset(preset).replace(**extra)
        game = Game.deal(
            Deck.piquet(families=families), list("ABCDEF"[:players]), seed=number, rules=rules
        )
        checker = InvariantChecker(game, deep=deep if k % deep_every == 0 else "none")
        rng = np.random.default_rng(number)
        report.add(number, checker.check())
        while not game.is_over:
            play_random_action(game, rng)
            report.add(number, checker.check())
        report.games += 1
    return report
