"""From a game's public record to constraints on the possible worlds.

A *world* is a history of the hidden cards consistent with everything public: for every
card its *origin* slot (the hand it was dealt to, the draw that brought it, or the pile
where it still lies).  Without a draw pile a hidden card never moves, so its origin is its
current location and a world is simply a placement of the cards (DESIGN.md).  With a draw
pile, the origin says which draw brought a card; two worlds that differ only in which card
a player drew are told apart by that player, as in the product update with the action
model of a private draw.

Every public fact is a constraint on the origins of the cards of *one* family:

* the origin of a card is restricted to an *allowed* set of slots (refusals, asks without
  bluffing, and every public sighting of the card in someone's hand);
* "Q held at least one card of f when Q asked" is a *some* clause over f's cards;
* "Q never held all of an unexposed f" is a *not-all* clause over f's cards;

while the slot capacities (hand sizes, draws of one card, pile sizes) couple the families.
This is what makes exact counting a dynamic programme over families.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> history.slot_names
('hand A', 'hand B', 'hand C')
>>> [history.slot_names[s] for s in history.allowed_slots("7D")]
['hand C']
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Dealt,
    Drew,
    Event,
    GameEnded,
    MiddleCardTurned,
    QuartetExposed,
    TurnPassed,
)
from kwartet_epistemic.rules import RuleSet

__all__ = [
    "Clause",
    "FactHistory",
    "FactKey",
    "HAND_SIZES",
    "IGNORED",
    "PublicHistory",
    "PrivateInfo",
    "private_info",
]

EXPOSED = "exposed"
IGNORED = -2
"""A clause condition for a card that the clause does not concern."""
CLAUSE_CODES = {"some": 0, "notall": 1, "allornone": 2}
"""Clause kinds as the counting kernel numbers them."""
_FULL = (1 << 62) - 1  # the canonical "every slot" condition
_ALL_FULL = (_FULL,) * 4


_STAMPS = itertools.count(1)
"""Stamps name the constraint states of families, unique across all histories."""


class InconsistentRecordError(KwartetError):
    """A record whose public facts contradict each other (no world is possible)."""


@dataclass(frozen=True, slots=True)
class Clause:
    """A constraint on the origins of a family's four cards.

    ``conditions[i]`` is a bit mask of slots: card i "is with the player" iff its origin
    is in the mask (0 means never, all ones always, :data:`IGNORED` leaves the card out).
    ``kind`` is ``"some"`` (at least one card is with the player), ``"notall"`` (not
    every card is) or ``"allornone"`` (all of them or none: a player passed over in Memory
    Kwartet because the rest of the family lies face up).
    """

    kind: str
    conditions: tuple[int, int, int, int]

    def satisfied(self, origins: Sequence[int]) -> bool:
        """Whether the clause holds when card i has origin slot ``origins[i]``."""
        hits = [
            self.conditions[i] >> origins[i] & 1 for i in range(4) if self.conditions[i] != IGNORED
        ]
        if self.kind == "some":
            return any(hits)
        if self.kind == "notall":
            return not all(hits)
        return all(hits) or not any(hits)  # "allornone"


class PublicHistory:
    """The constraints that a public record puts on the worlds, updated event by event.

    Slots are numbered: one ``hand P`` per player, then ``stock``, ``aside`` and ``middle``
    when the rules have them, then one ``draw i P`` per draw, in the order they happened.
    """

    def __init__(self, deck: Deck, players: Sequence[str], rules: RuleSet) -> None:
        self.deck = deck
        self.players = tuple(players)
        self.rules = rules
        names = [f"hand {p}" for p in self.players]
        owners: list[str | None] = list(self.players)
        self.stock_slot = self.aside_slot = self.middle_slot = -1
        if rules.draw_pile:
            self.stock_slot = len(names)
            names.append("stock")
            owners.append(None)
        if not rules.draw_pile and rules.dealing == "equal":
            self.aside_slot = len(names)
            names.append("aside")
            owners.append(None)
        if rules.memory_cards:
            self.middle_slot = len(names)
            names.append("middle")
            owners.append(None)
        self._names = names
        self.slot_owner: list[str | None] = owners
        self.capacity: list[int] = [0] * len(names)
        everything = (1 << len(names)) - 1
        self.allowed: list[int] = [everything] * len(deck)
        # Where each publicly seen card is now: a player, a pile name, or EXPOSED.
        self.location: list[str | None] = [None] * len(deck)
        self.clauses: list[set[Clause]] = [set() for _ in deck.families]
        # The clauses as (kind, conditions), for a quick test of whether one is new.
        self._clause_keys: list[set[tuple[str, tuple[int, ...]]]] = [set() for _ in deck.families]
        # The same as (kind code, four conditions), as the counting kernel reads them.
        self.coded_clauses: list[list[tuple[int, ...]]] = [[] for _ in deck.families]
        self.exposed_families: dict[int, str] = {}
        # reach[p]: the slots whose cards are with player p now, if never seen moving.
        self.reach: dict[str, int] = {p: 1 << i for i, p in enumerate(self.players)}
        self.draw_slots: list[int] = []
        # Each player's hand size now (public), and whether the last event was a refusal
        # (a draw right after one is the refused asker's; any other draw happens because
        # nobody could ask).
        self.hand_sizes: dict[str, int] = dict.fromkeys(self.players, 0)
        self._after_refusal = False
        # The player to move now (None before the first turn and after the end).
        self.to_move: str | None = None
        # Memory Kwartet: moments at which a player could ask that no later ask of theirs
        # says (they turned a card over and then could not ask), each kept as the
        # conditions of "could not ask then"; and such a moment still open (a card just
        # turned by the mover, who may yet ask).
        self.could_ask: list[tuple[tuple[int, str, tuple[int, ...]], ...]] = []
        self._turning: tuple[str, tuple[tuple[int, str, tuple[int, ...]], ...]] | None = None
        self._stuck: tuple[tuple[int, int], list[tuple[int, PublicHistory]]] | None = None
        self.events_seen = 0
        self._dirty = True
        # Families whose cards moved (or all, after a deal or a draw) since the last
        # settled moment: only their "never held all" clauses can have changed.
        self._dirty_families: set[int] = set(range(deck.n_families))
        self._dealt = False
        self.version = 0  # bumped whenever a constraint changes
        # family_stamps[f] changes whenever family f's constraints (its cards' allowed
        # origins, its clauses) change, and names that state uniquely; the counting
        # engine keeps its per-family tables in ``memo`` under it.
        self.family_stamps: list[int] = [next(_STAMPS) for _ in deck.families]
        self.memo: dict[tuple[object, ...], object] = {}
        self.game_over = False

    # ----- queries ------------------------------------------------------------------

    @property
    def slot_names(self) -> tuple[str, ...]:
        """Readable names of the slots, in slot order."""
        return tuple(self._names)

    def allowed_slots(self, card: Card | str) -> list[int]:
        """The slots that ``card`` may have come from, given the public record."""
        c = self.deck.card(card)
        return [s for s in range(len(self._names)) if self.allowed[c.index] >> s & 1]

    @property
    def dead_slots(self) -> int:
        """Slots whose cards are out of play face down (set aside, middle)."""
        mask = 0
        for slot in (self.aside_slot, self.middle_slot):
            if slot >= 0:
                mask |= 1 << slot
        return mask

    def game_goes_on_with_dead_cards(self) -> bool:
        """Whether the fact "the game is not over" constrains where dead cards lie."""
        return bool(self.dead_slots) and self._dealt and not self.game_over

    def copy(self) -> PublicHistory:
        """An independent copy (for hypothetical events); it shares the counting
        engine's memo, which is keyed by stamps that only one constraint state has."""
        twin = copy.copy(self)
        for name in ("capacity", "allowed", "location", "slot_owner", "draw_slots"):
            setattr(twin, name, list(getattr(self, name)))
        twin.hand_sizes = dict(self.hand_sizes)
        twin.could_ask = list(self.could_ask)
        twin._names = list(self._names)
        twin.clauses = [set(c) for c in self.clauses]
        twin._clause_keys = [set(k) for k in self._clause_keys]
        twin.coded_clauses = [list(k) for k in self.coded_clauses]
        twin.exposed_families = dict(self.exposed_families)
        twin.reach = dict(self.reach)
        twin._dirty_families = set(self._dirty_families)
        twin.family_stamps = list(self.family_stamps)
        return twin

    def family_changed(self, f: int) -> None:
        """Mark family ``f``'s constraints as changed (for code that edits ``allowed`` or
        ``clauses`` directly rather than through events)."""
        self.family_stamps[f] = next(_STAMPS)
        self.version += 1

    # ----- updates ------------------------------------------------------------------

    def extend(self, events: Iterable[Event], settled: bool = True) -> None:
        """Take in further public events (a draw's card, if present, is ignored here).

        A record handed over ends at a settled moment (the referee finishes every action,
        exposures included, before anyone can look), so the no-complete-family rule is
        applied to the latest state too; pass ``settled=False`` when feeding a record
        piece by piece and the next event is an exposure.
        """
        for event in events:
            self._take(event)
            self.events_seen += 1
        if settled and self._dirty and self._dealt:
            self._add_not_all_clauses()
            self._dirty = False

    def _take(self, event: Event) -> None:
        kind = type(event)
        if self.rules.memory_cards and not self.rules.bluffing:
            # Memory Kwartet: the mover can ask (stuck_facts), read against the latest
            # state, so every event can change the worlds even where no constraint of
            # the programme changes: the version changes with it, renewing every cache
            # keyed by it (an earlier mover's answer was kept after a turn passed).
            self.version += 1
        after_refusal, self._after_refusal = self._after_refusal, False
        if self._turning is not None:
            # A card was turned over by a player who could ask just before: their ask
            # now says so again; anything else (the turn passing on, a draw, the end)
            # leaves it to be said.
            player, conditions = self._turning
            self._turning = None
            if not (kind is Asked and event.asker == player):  # type: ignore[attr-defined]
                self.could_ask.append(conditions)
                self.version += 1
        if kind is Dealt:
            assert isinstance(event, Dealt)
            if event.players != self.players:
                raise InconsistentRecordError(
                    f"the deal seats {list(event.players)}, expected {list(self.players)}"
                )
            for p, size in zip(self.players, event.hand_sizes, strict=True):
                self.capacity[self.players.index(p)] = size
                self.hand_sizes[p] = size
            if event.stock_size:
                self.capacity[self._need(self.stock_slot, "stock")] = event.stock_size
            if event.aside_size:
                self.capacity[self._need(self.aside_slot, "set-aside pile")] = event.aside_size
            if event.middle_size:
                self.capacity[self._need(self.middle_slot, "middle")] = event.middle_size
            self._dealt = True
            self._dirty = True
            self._dirty_families.update(range(self.deck.n_families))
            self._all_families_changed()
            return
        if not self._dealt:
            raise InconsistentRecordError("the record must start with the deal")
        if kind is CardMoved:
            assert isinstance(event, CardMoved)
            c = event.card.index
            if self.location[c] is None:
                self._sight(c, event.source)
            elif self.location[c] != event.source:
                raise InconsistentRecordError(
                    f"{event.card.code} moved from {event.source} but was with {self.location[c]}"
                )
            self.location[c] = event.destination
            self._move_hand_size(event.source, -1)
            self._move_hand_size(event.destination, +1)
            self._dirty = True
            self._dirty_families.add(event.card.family_index)
            return
        if kind is Drew:
            assert isinstance(event, Drew)
            # A draw starts from a settled moment (the referee lays down what the previous
            # move or draw completed first), also between the draws of one run.
            if self._dirty:
                self._add_not_all_clauses()
                self._dirty = False
            if not after_refusal:
                # Not a refused asker's draw: the player due draws because nobody could
                # ask.  With two or more players holding cards that says something of
                # each of them (with one, only what the hand sizes already say).
                holders = [p for p in self.players if self.hand_sizes[p] > 0]
                if len(holders) > 1:
                    for player in holders:
                        self._cannot_ask(player)
            if event.player not in self.hand_sizes:
                raise InconsistentRecordError(f"{event.player!r} draws but is not at the table")
            self.hand_sizes[event.player] += 1
            slot = len(self._names)
            self._names.append(f"draw {len(self.draw_slots) + 1} {event.player}")
            self.slot_owner.append(event.player)
            self.capacity.append(1)
            self.capacity[self.stock_slot] -= 1
            bit = 1 << slot
            stock_bit = 1 << self.stock_slot
            for c in range(len(self.deck)):
                if self.location[c] is None and self.allowed[c] & stock_bit:
                    self.allowed[c] |= bit
            self.reach[event.player] |= bit
            self.draw_slots.append(slot)
            self._dirty = True
            self._dirty_families.update(range(self.deck.n_families))
            self._all_families_changed()
            return
        # Every other event but an exposure happens in a settled state: nobody holds an
        # unexposed complete family (it would have been laid down).  An exposure follows
        # the move or draw that completed the family, so it is not a settled state.
        if self._dirty and kind is not QuartetExposed:
            self._add_not_all_clauses()
            self._dirty = False
        if kind is Asked:
            assert isinstance(event, Asked)
            self.to_move = event.asker
            self._asked(event.asker, event.card)
        elif kind is Answered:
            assert isinstance(event, Answered)
            if not event.has_card:
                self._lacks(event.target, event.card.index)
                self._after_refusal = True
        elif kind is QuartetExposed:
            assert isinstance(event, QuartetExposed)
            f = self.deck.family_index(event.family)
            for card in self.deck.family_cards(f):
                c = card.index
                if self.location[c] is None:
                    self._sight(c, event.player)
                elif self.location[c] != event.player:
                    raise InconsistentRecordError(
                        f"{event.player} laid down {event.family} but {card.code} was with "
                        f"{self.location[c]}"
                    )
                self.location[c] = EXPOSED
            self._move_hand_size(event.player, -4)
            self.exposed_families[f] = event.player
            self.family_stamps[f] = next(_STAMPS)
            self.version += 1
        elif kind is MiddleCardTurned:
            assert isinstance(event, MiddleCardTurned)
            if not self.rules.bluffing and self.to_move == event.player:
                # Just before turning it over, the mover could ask.
                before = self._could_not_ask_now(event.player)
                if before is not None:
                    self._turning = (event.player, before)
            c = event.card.index
            self._restrict(c, 1 << self._need(self.middle_slot, "middle"))
            self.location[c] = "middle"
        elif kind is TurnPassed:
            assert isinstance(event, TurnPassed)
            self.to_move = event.player
            for player in event.cannot_ask:
                self._cannot_ask(player)
        elif kind is GameEnded:
            assert isinstance(event, GameEnded)
            self.game_over = True
            self.to_move = None
            self.version += 1
            # The end shows the set-aside cards, then the middle ones (GameEnded lists
            # them so), and the deal said how many were set aside: each revealed card is
            # known to lie in its own pile.
            n_aside = self.capacity[self.aside_slot] if self.aside_slot >= 0 else 0
            for position, card in enumerate(event.revealed):
                slot = self.aside_slot if position < n_aside else self.middle_slot
                pile = "aside" if position < n_aside else "middle"
                if slot < 0:
                    raise InconsistentRecordError(
                        f"the end reveals {card.code} from a pile the rules do not have"
                    )
                if self.location[card.index] is None:
                    self._restrict(card.index, 1 << slot)
                    self.location[card.index] = pile
                elif self.location[card.index] != pile:
                    raise InconsistentRecordError(
                        f"the end reveals {card.code} in the {pile} pile, but it was with "
                        f"{self.location[card.index]}"
                    )

    def _move_hand_size(self, player: str, change: int) -> None:
        if player in self.hand_sizes:
            self.hand_sizes[player] += change

    def _all_families_changed(self) -> None:
        for f in range(len(self.family_stamps)):
            self.family_stamps[f] = next(_STAMPS)
        self.version += 1

    def _need(self, slot: int, what: str) -> int:
        if slot < 0:
            raise InconsistentRecordError(f"the record has a {what} but the rules do not")
        return slot

    def _restrict(self, c: int, mask: int) -> None:
        new = self.allowed[c] & mask
        if new != self.allowed[c]:
            self.allowed[c] = new
            self.family_stamps[c // 4] = next(_STAMPS)
            self.version += 1
        if not new:
            raise InconsistentRecordError(
                f"the record leaves no possible origin for {self.deck.cards[c].code}"
            )

    def _sight(self, c: int, holder: str) -> None:
        """Card ``c`` is seen for the first time, in ``holder``'s hand."""
        self._restrict(c, self.reach[holder])
        self.location[c] = holder

    def condition(self, c: int, player: str) -> int:
        """The slot mask for "card c is with ``player`` now": the player's slots for a
        card not publicly seen, -1 (always) for one seen with the player, 0 (never) for
        one seen elsewhere."""
        where = self.location[c]
        if where is None:
            return self.reach[player]
        return -1 if where == player else 0

    def _lacks(self, player: str, c: int) -> None:
        where = self.location[c]
        if where is None:
            self._restrict(c, ~self.reach[player])
        elif where == player:
            raise InconsistentRecordError(
                f"{player} denied holding {self.deck.cards[c].code}, which {player} holds"
            )

    def _conditions(self, f: int, player: str) -> tuple[int, ...] | None:
        """The masks of "card i of family f is with ``player`` now" (normalised: every
        slot for a card seen with the player), or None when one of the cards is surely
        elsewhere."""
        reach = self.reach[player]
        conditions = []
        for where in self.location[4 * f : 4 * f + 4]:
            if where is None:
                conditions.append(reach)
            elif where == player:
                conditions.append(_FULL)
            else:
                return None
        return tuple(conditions)

    def _asked(self, asker: str, card: Card) -> None:
        f = card.family_index
        conditions = tuple(self.condition(x.index, asker) for x in self.deck.family_cards(f))
        if not any(cond == -1 for cond in conditions):
            self.add_clause(f, Clause("some", conditions))  # type: ignore[arg-type]
        if not self.rules.bluffing:
            self._lacks(asker, card.index)

    def cannot_ask_conditions(self, player: str) -> list[tuple[int, str, tuple[int, ...]]]:
        """What "``player`` holds cards but cannot ask now" (without bluffing) says, per
        unexposed family: ``(family, "none", conditions)``, they hold none of its cards,
        where no card of it lies face up; else ``(family, "allornone", conditions)``, all
        of its hidden cards or none (face-up cards ``IGNORED``).  Conditions are slot
        masks of "card i of the family is with ``player`` now"."""
        result: list[tuple[int, str, tuple[int, ...]]] = []
        for f in range(self.deck.n_families):
            if f in self.exposed_families:
                continue
            cards = [c.index for c in self.deck.family_cards(f)]
            face_up = [self.location[c] == "middle" for c in cards]
            conditions = tuple(
                IGNORED if up else self.condition(c, player)
                for c, up in zip(cards, face_up, strict=True)
            )
            result.append((f, "allornone" if any(face_up) else "none", conditions))
        return result

    def _cannot_ask(self, player: str) -> None:
        """``player`` holds cards but could not ask: apply :meth:`cannot_ask_conditions`."""
        self._apply_could_not_ask(self.cannot_ask_conditions(player), player)

    def _apply_could_not_ask(
        self, conditions: Sequence[tuple[int, str, tuple[int, ...]]], player: str
    ) -> None:
        """Restrict the worlds to those in which conditions of "could not ask" (as
        :meth:`cannot_ask_conditions` gives them, now or at an earlier moment) hold."""
        for f, kind, conds in conditions:
            if kind != "none":
                self.add_clause(f, Clause("allornone", conds))  # type: ignore[arg-type]
                continue
            for i, mask in enumerate(conds):
                if mask == -1:
                    raise InconsistentRecordError(
                        f"{player} could not ask, but holds {self.deck.cards[4 * f + i].code}"
                    )
                if mask:
                    self._restrict(4 * f + i, ~mask)

    def _could_not_ask_now(
        self, player: str
    ) -> tuple[tuple[int, str, tuple[int, ...]], ...] | None:
        """The conditions of "``player`` could not ask now", or None when that is surely
        false (no card face up, or the player is seen holding an askable card)."""
        if not any(where == "middle" for where in self.location):
            return None
        conditions = tuple(self.cannot_ask_conditions(player))
        for _, kind, conds in conditions:
            if kind == "none" and any(c == -1 for c in conds):
                return None
        return conditions

    def stuck_facts(self) -> list[tuple[tuple[int, str, tuple[int, ...]], ...]]:
        """Memory Kwartet: the moments at which a player could ask that nothing else in
        the record says, as the conditions of "could not ask then" (see
        :meth:`cannot_ask_conditions`): the player to move now (or the turn would have
        passed on), and every player who turned a card over and then could not ask
        (just before, they could).  Every other moment at which a player could ask is
        followed by their ask, which says as much."""
        if not self.rules.memory_cards or self.rules.bluffing:
            return []
        facts = list(self.could_ask)  # (a card just turned: the present moment says more)
        if self.to_move is not None and not self.game_over:
            now = self._could_not_ask_now(self.to_move)
            if now is not None:
                facts.append(now)
        return facts

    def stuck_twins(self) -> list[tuple[int, PublicHistory]]:
        """The corrections of :meth:`stuck_facts` by inclusion-exclusion: for each set of
        those moments in which some world could be stuck at all of them, ``(sign,
        history)`` with the history in which the players could not ask at those moments;
        the worlds of the record are those of the programme plus the signed worlds of
        these histories.  Empty when there is nothing to correct."""
        if not self.rules.memory_cards or self.rules.bluffing:
            return []
        key = (self.events_seen, self.version)
        cached = self._stuck
        if cached is not None and cached[0] == key:
            return cached[1]
        facts = self.stuck_facts()
        twins: list[tuple[int, PublicHistory]] = []
        # Moments that cannot be stuck on their own are dropped first (so are all sets
        # holding them); the rest are few (one per card turned, and the present).
        possible = [f for f in facts if self._stuck_at([f]) is not None]
        for size in range(1, len(possible) + 1):
            for chosen in itertools.combinations(possible, size):
                twin = self._stuck_at(list(chosen))
                if twin is not None:
                    twins.append((-1 if size % 2 else 1, twin))
        self._stuck = (key, twins)
        return twins

    def _stuck_at(
        self, facts: list[tuple[tuple[int, str, tuple[int, ...]], ...]]
    ) -> PublicHistory | None:
        """A copy of this history in which the players could not ask at the moments of
        ``facts`` (None if no world allows that)."""
        twin = self.copy()
        twin.to_move = None
        twin.could_ask = []
        twin._turning = None
        twin._stuck = None
        try:
            for conditions in facts:
                twin._apply_could_not_ask(conditions, "a player")
            if twin._dirty and twin._dealt:
                twin._add_not_all_clauses()
                twin._dirty = False
        except InconsistentRecordError:
            return None
        return twin

    def _add_not_all_clauses(self) -> None:
        families, self._dirty_families = self._dirty_families, set()
        for f in sorted(families):
            if f in self.exposed_families:
                continue
            for p in self.players:
                conditions = self._conditions(f, p)
                if conditions is None:
                    continue  # a card of the family is surely not with p
                if conditions == _ALL_FULL:
                    raise InconsistentRecordError(
                        f"{p} holds the whole family {self.deck.families[f]} unexposed"
                    )
                self._add_normalised(f, "notall", conditions)

    def add_clause(self, f: int, clause: Clause) -> None:
        """Add the constraint ``clause`` on the cards of family ``f`` (its conditions as
        :meth:`condition` gives them); call :meth:`family_changed` after the last one."""
        # Conditions are slot masks; normalise "always" to a canonical all-ones mask.
        conditions = tuple(_FULL if c == -1 else c for c in clause.conditions)
        if clause.kind == "allornone" and all(c in (0, IGNORED) for c in conditions):
            return  # the player surely holds none of them
        self._add_normalised(f, clause.kind, conditions)

    def _add_normalised(self, f: int, kind: str, conditions: tuple[int, ...]) -> None:
        key = (kind, conditions)
        known = self._clause_keys[f]
        if key not in known:
            known.add(key)
            self.clauses[f].add(Clause(kind, conditions))  # type: ignore[arg-type]
            self.coded_clauses[f].append((CLAUSE_CODES[kind], *conditions))
            self.family_stamps[f] = next(_STAMPS)
            self.version += 1


@dataclass(frozen=True)
class PrivateInfo:
    """What one player knows beyond the public record: the hand dealt to them and the
    card each of their draws brought (by draw number, counting all draws from 0)."""

    player: str
    dealt: frozenset[int]
    draws: tuple[tuple[int, int], ...] = ()


def private_info(
    deck: Deck, player: str, hand: Iterable[Card], record: Sequence[Event]
) -> PrivateInfo:
    """Reconstruct a player's dealt hand and draws from their current hand and their view
    of the record, by walking the record backwards.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "7H")
    >>> view = game.view("A")
    >>> info = private_info(game.deck, "A", view.hand, view.record)
    >>> sorted(game.deck.cards[i].code for i in info.dealt)
    ['7S', '8S']
    """
    held = {c.index for c in hand}
    draws: list[tuple[int, int]] = []
    draw_number = sum(1 for e in record if isinstance(e, Drew))
    for event in reversed(record):
        if isinstance(event, CardMoved):
            if event.destination == player:
                held.discard(event.card.index)
            if event.source == player:
                held.add(event.card.index)
        elif isinstance(event, QuartetExposed) and event.player == player:
            held.update(c.index for c in deck.family_cards(event.family))
        elif isinstance(event, Drew):
            draw_number -= 1
            if event.player == player:
                if event.card is None:
                    raise InconsistentRecordError(
                        f"{player}'s view hides the card of their own draw {draw_number + 1}"
                    )
                held.discard(event.card.index)
                draws.append((draw_number, event.card.index))
    return PrivateInfo(player, frozenset(held), tuple(sorted(draws)))


FactKey = tuple[str, int, Any]
"""A public fact's identity: (kind, index in the record it is anchored at, detail)."""

HAND_SIZES: FactKey = ("hand sizes", 0, None)
"""The fact that fixes every hand's and pile's size (it is never an operation)."""


class FactHistory(PublicHistory):
    """A public history that notes, for every constraint it applies, the public fact it
    comes from (a :data:`FactKey`), as a list of operations that can be replayed with
    any subset of the facts (:meth:`restricted`): what explanations are made of.

    Every constraint's *content* (which slots, which clause) depends only on the public
    structure (where seen cards are, who drew when), never on other constraints, so the
    replay of a subset is exact.  Only a draw reads the constraints (a card may be the
    drawn one if it may lie in the stock): it is an operation of its own."""

    def __init__(self, deck: Deck, players: Sequence[str], rules: RuleSet) -> None:
        super().__init__(deck, players, rules)
        self.ops: list[tuple[Any, ...]] = []
        """The constraints in order: ``("restrict", key, card, mask)``, ``("clause", key,
        family, kind, conditions)`` and ``("draw", slot, stock slot, unseen cards)``."""
        self.families_of: dict[FactKey, set[int]] = {}
        """The families each fact constrains."""
        self._stamps: dict[tuple[Any, ...], int] = {}
        self._event: Event | None = None
        self._context: FactKey | None = None
        self._rule_player = ""
        self.initial_mask = (1 << len(self._names)) - 1

    def _key(self, family: int) -> FactKey:
        context = self._context
        index = self.events_seen
        if context is not None:
            if context[0] == "rule":
                key: FactKey = ("rule", context[1], (family, self._rule_player))
            else:
                key = context
        else:
            kind = {
                CardMoved: "move",
                Answered: "refusal",
                QuartetExposed: "exposure",
                MiddleCardTurned: "turned",
                GameEnded: "revealed",
            }.get(type(self._event), "other")
            key = (kind, index, None)
        self.families_of.setdefault(key, set()).add(family)
        return key

    def _take(self, event: Event) -> None:
        self._event = event
        self._context = None
        if type(event) is not Drew:
            super()._take(event)
            return
        unseen = tuple(c for c, where in enumerate(self.location) if where is None)
        super()._take(event)
        self.ops.append(("draw", len(self._names) - 1, self.stock_slot, unseen))

    def _asked(self, asker: str, card: Card) -> None:
        self._context = ("ask", self.events_seen, None)
        try:
            super()._asked(asker, card)
        finally:
            self._context = None

    def _lacks(self, player: str, c: int) -> None:
        if self._context is not None and self._context[0] == "ask":
            self._context = ("no bluff", self.events_seen, None)
            try:
                super()._lacks(player, c)
            finally:
                self._context = ("ask", self.events_seen, None)
        else:
            super()._lacks(player, c)

    def _add_not_all_clauses(self) -> None:
        saved, self._context = self._context, ("rule", self.events_seen, None)
        try:
            super()._add_not_all_clauses()
        finally:
            self._context = saved

    def _conditions(self, f: int, player: str) -> tuple[int, ...] | None:
        self._rule_player = player
        return super()._conditions(f, player)

    def _cannot_ask(self, player: str) -> None:
        kind = "draw" if type(self._event) is Drew else "cannot ask"
        saved, self._context = self._context, (kind, self.events_seen, player)
        try:
            super()._cannot_ask(player)
        finally:
            self._context = saved

    def _restrict(self, c: int, mask: int) -> None:
        self.ops.append(("restrict", self._key(c // 4), c, mask))
        super()._restrict(c, mask)

    def _add_normalised(self, f: int, kind: str, conditions: tuple[int, ...]) -> None:
        self.ops.append(("clause", self._key(f), f, kind, conditions))
        super()._add_normalised(f, kind, conditions)

    def constraints_of(
        self, kept: frozenset[FactKey]
    ) -> tuple[list[int], list[dict[tuple[str, tuple[int, ...]], None]]]:
        """The allowed origins of every card and the clauses of every family (as
        ``(kind, conditions)``) that the ``kept`` facts alone impose."""
        allowed = [self.initial_mask] * len(self.deck)
        clauses: list[dict[tuple[str, tuple[int, ...]], None]] = [{} for _ in self.deck.families]
        for op in self.ops:
            if op[0] == "draw":
                _, slot, stock, unseen = op
                bit, stock_bit = 1 << slot, 1 << stock
                for c in unseen:
                    if allowed[c] & stock_bit:
                        allowed[c] |= bit
            elif op[1] in kept:
                if op[0] == "restrict":
                    allowed[op[2]] &= op[3]
                else:
                    clauses[op[2]].setdefault((op[3], op[4]), None)
        return allowed, clauses

    def restricted(self, kept: frozenset[FactKey]) -> PublicHistory:
        """A plain :class:`PublicHistory` of this record's structure (who sits where, which
        card moved when, the draws) with only the constraints of the ``kept`` facts (the
        hand sizes always, as slot capacities).  Families whose constraints repeat an
        earlier subset's keep its stamp, so the counting engine's tables are reused.

        >>> import kwartet_epistemic as kw
        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> _ = game.ask("B", "7S")
        >>> history = FactHistory(game.deck, game.players, game.rules)
        >>> history.extend(game.record)
        >>> facts = {op[1] for op in history.ops if op[0] != "draw"}
        >>> all_of_them = history.restricted(frozenset(facts))
        >>> none = history.restricted(frozenset())
        >>> all_of_them.allowed == history.allowed, none.allowed == history.allowed
        (True, False)
        """
        allowed, clauses = self.constraints_of(kept)
        history = PublicHistory.copy(self)
        history.__class__ = PublicHistory
        history.memo = self.memo
        history._stuck = None
        history.allowed = allowed
        history.clauses = [{Clause(k, cond) for k, cond in family} for family in clauses]  # type: ignore[arg-type]
        history._clause_keys = [set(family) for family in clauses]
        history.coded_clauses = [
            [(CLAUSE_CODES[k], *cond) for k, cond in family] for family in clauses
        ]
        for f in range(self.deck.n_families):
            key = (tuple(allowed[4 * f : 4 * f + 4]), tuple(clauses[f]))
            stamp = self._stamps.get(key)
            if stamp is None:
                history.family_changed(f)
                self._stamps[key] = history.family_stamps[f]
            else:
                history.family_stamps[f] = stamp
        history.version += 1
        return history
