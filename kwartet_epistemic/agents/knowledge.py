"""What an agent knows: the knowledge part of an agent, built only from its views.

Four kinds, all with one interface (:class:`KnowledgeBase`), so that every policy runs on
each and the gain of exact reasoning can be measured:

* :class:`ExactKnowledge` (``exact``): the player's exact epistemic state, counting the
  worlds the player considers possible (the semantics of
  :func:`~kwartet_epistemic.knowledge`), kept up to date event by event;
* :class:`FactKnowledge` (``facts``): a list of facts with unit propagation inside one
  family, as earlier student projects did: "P holds c", "P lacks c", "exactly one of these
  players holds c", "P holds at least one of these cards"; no hand-size counting, no
  complete-family rule, no reasoning across families;
* :class:`FactKnowledgeWithHands` (``facts+hands``): the same list plus the hand-size
  rules a careful player counts with (full and empty hands, pigeonhole over free places),
  to measure what exactness adds beyond counting;
* :class:`HandKnowledge` (``hand``): no memory at all, only the own hand and the table as
  it lies now (the baseline for the folk tip "remember every question").

Probabilities are the player's chance that each player holds each card: exact (uniform
over the possible worlds) for ``exact``, uniform over the remaining candidate holders for
the others.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")                     # B: no, and B's turn
>>> exact, facts = ExactKnowledge("A"), FactKnowledge("A")
>>> exact.update(game.view("A")); facts.update(game.view("A"))
>>> exact.known_holder("7D"), facts.known_holder("7D")
('C', 'C')
"""

from __future__ import annotations

import copy
import itertools
from collections.abc import Iterable, Sequence
from typing import Protocol

import numpy as np

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.epistemics.evaluate import CountingEngine
from kwartet_epistemic.epistemics.history import PublicHistory, private_info
from kwartet_epistemic.epistemics.state import EpistemicState, World
from kwartet_epistemic.errors import GameSetupError, KwartetError
from kwartet_epistemic.events import (
    Answered,
    Asked,
    CardMoved,
    Dealt,
    Drew,
    Event,
    HandEmptied,
    MiddleCardTurned,
    QuartetExposed,
)
from kwartet_epistemic.game import PlayerView

__all__ = [
    "KNOWLEDGE_KINDS",
    "ExactKnowledge",
    "FactKnowledge",
    "FactKnowledgeWithHands",
    "HandKnowledge",
    "KnowledgeBase",
    "make_knowledge",
]


class KnowledgeBase(Protocol):
    """What a player knows, kept up to date from the player's successive views.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> bases = [make_knowledge(kind, "A") for kind in KNOWLEDGE_KINDS]
    >>> for base in bases: base.update(game.view("A"))
    >>> [base.probabilities().shape for base in bases]
    [(32, 4), (32, 4), (32, 4), (32, 4)]
    """

    kind: str
    player: str

    def update(self, view: PlayerView) -> None:
        """Take in the view (the same game, later or equal; a new game starts afresh)."""
        ...

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        """``[n_cards, n_players]``: the player's probability that each player holds each
        card now (rows in deck order).  With ``families`` only their rows are
        guaranteed; other rows may be NaN."""
        ...

    def known_holder(self, card: Card | str) -> str | None:
        """The player who holds ``card`` if this player knows it, else None."""
        ...


def _known_from_row(row: np.ndarray, players: Sequence[str]) -> str | None:
    """The holder a probability row names with certainty, or None."""
    holders = np.flatnonzero(row)
    if len(holders) == 1 and row[holders[0]] == 1.0:
        return players[int(holders[0])]
    return None


class _ViewFollower:
    """Follows one game through a player's successive views: new events only."""

    def __init__(self, player: str) -> None:
        if not isinstance(player, str):
            raise GameSetupError(f"player {player!r}: expected a player name such as 'A'")
        self.player = player
        self.view: PlayerView | None = None
        self._first: Event | None = None
        self._seen = 0
        self._last: Event | None = None

    def _new_events(self, view: PlayerView) -> tuple[tuple[Event, ...], bool]:
        """The events of ``view`` not yet taken in, and whether the game is a new one."""
        if not isinstance(view, PlayerView):
            raise GameSetupError(f"{view!r}: expected a PlayerView (game.view(player))")
        if view.player != self.player:
            raise GameSetupError(
                f"this knowledge belongs to {self.player}; it was given {view.player}'s view"
            )
        record = view.record
        # The same game hands out the same event objects: identity, not equality (two
        # games can have equal public records but different hands).
        same = (
            self.view is not None
            and len(record) >= self._seen
            and record[0] is self._first
            and (self._seen == 0 or record[self._seen - 1] is self._last)
        )
        fresh = not same
        if fresh:
            self._seen = 0
        new = record[self._seen :]
        self.view = view
        self._first = record[0] if record else None
        self._last = record[-1] if record else None
        self._seen = len(record)
        return new, fresh


class ExactKnowledge(_ViewFollower):
    """A player's exact knowledge: the player's :class:`~kwartet_epistemic.EpistemicState`
    (``kw.knowledge(view)``, the counting engine), kept through the game.

    Each view's new events only are taken in (:meth:`EpistemicState.follow
    <kwartet_epistemic.epistemics.state.EpistemicState.follow>`); the public constraints
    are shared with the other players' states of the same game, and the marginals are
    recounted only when something changed (see
    :meth:`~kwartet_epistemic.epistemics.evaluate.CountingEngine.family_probabilities`).

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> me = ExactKnowledge("A")
    >>> me.update(game.view("A"))
    >>> me.world_count() == kw.knowledge(game.view("A")).count_worlds("A")
    True
    >>> p = me.probabilities()
    >>> bool(np.allclose(p, kw.knowledge(game.view("A")).location_probabilities("A")))
    True
    """

    kind = "exact"

    def __init__(self, player: str) -> None:
        super().__init__(player)
        self._state: EpistemicState | None = None
        self._counting: CountingEngine | None = None

    # ----- following the game -------------------------------------------------------

    def update(self, view: PlayerView) -> None:
        """Take in the new events of ``view``."""
        _, fresh = self._new_events(view)
        state = self._state
        if not fresh and state is not None:
            try:
                state.follow(view)  # the usual case: the same game, a later view
                return
            except KwartetError:  # another game: a state of its own
                pass
        self._state = EpistemicState(view, engine="counting")
        counting = self._state.engine_named("counting")
        assert isinstance(counting, CountingEngine)
        self._counting = counting

    @property
    def state(self) -> EpistemicState:
        """The player's epistemic state (caught up with the last view)."""
        if self._state is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        return self._state

    @property
    def history(self) -> PublicHistory:
        """The public constraints so far."""
        return self.state.history

    # ----- answers ------------------------------------------------------------------

    def _engine(self) -> CountingEngine:
        if self._counting is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        return self._counting

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        """``[n_cards, n_players]``: the exact probability, over this player's possible
        worlds, that each player holds each card now (rows of families not asked for may
        be NaN): the state's counting engine's
        :meth:`~kwartet_epistemic.epistemics.evaluate.CountingEngine.family_probabilities`."""
        return self._engine().family_probabilities(self.player, families)[0]

    def public_probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        """The same over the public worlds (what everybody knows: no private hand)."""
        return self._engine().family_probabilities(None, families)[0]

    def world_count(self) -> int:
        """The exact number of worlds this player considers possible."""
        return self._engine().family_probabilities(self.player)[1]

    def known_holder(self, card: Card | str) -> str | None:
        """The holder of ``card`` if this player knows it, else None."""
        state = self.state
        resolved = state.deck.card(card)
        row = self.probabilities([resolved.family_index])[resolved.index]
        return _known_from_row(row, state.players)

    def sample_worlds(self, n: int, rng: np.random.Generator) -> list[World]:
        """``n`` of this player's possible worlds, drawn exactly uniformly."""
        return self.state.sample_worlds(self.player, n, rng)


class FactKnowledge(_ViewFollower):
    """A list of facts with unit propagation inside one family (earlier projects' method).

    Facts: "P holds c" (a known holder), "P lacks c", the candidate holders of c
    (exactly one of them holds it), and clauses "P holds at least one of these cards".
    Propagation stays inside a family: a card with one candidate left is held by it; a
    clause with one card left makes that card held.  Hand sizes, the no-complete-family
    rule and links between families are ignored: that is what separates it from
    :class:`ExactKnowledge`.

    The rules are those of the two earlier projects, P-Zande/quartets (2023: Facts,
    Disjunctions and ExclusiveOrs per quartet group; docs/_pages/04model.md) and
    ivopascal/Epistemic_Kwartet (2020: known cards and non-cards per opponent; README,
    ``perform_inference``).  Rule by rule:

    * copied from both: the own hand is known from the deal on; a "no" means the asked
      player lacks the card; a "yes" makes the asker its holder and everyone else lacks
      it; a card whose candidates (the players not known to lack it) are down to one is
      held by that one (P-Zande's ExclusiveOr, ivopascal's "only possible owner"); a
      laid-down quartet is gone (ivopascal's removed kinds; P-Zande's completed group
      stays in its owner's hand, where nobody can ask for it);
    * copied from P-Zande: an ask shows the asker holds one of the family and, without
      bluffing, lacks the asked card (their ``agent_can_ask_owned_card`` is off; with
      the ``bluffing`` rule only the first fact is learnt, as in ivopascal's game, where
      one may ask for one's own card); a known holder strikes the card from the other
      players' clauses, a "lacks" fact from the player's own; a clause the player
      is known to satisfy goes, and so does one of the giver's that holds the given card
      (it may have been the only one); a "yes" is their two announcements in order,
      "the giver holds c", then "the asker holds c", so the received card is struck from
      the asker's clauses and they stay (the asker held one of the others and still
      does); each fact's consequences are drawn before the next event is taken in;
    * copied from ivopascal as their code runs: an empty hand holds nothing (their test
      "unknown cards > 0");
    * not copied: ivopascal's intended hand-size counting (a player whose cards are all
      known lacks every other card).  Its helper compares a player object with an id
      (``known_player is opponent``), so it counts no known cards and never fires; their
      reported results were made without it, P-Zande has none, and counting is what the
      exact knowledge adds.  Nor P-Zande's "one Disjunction per player and group" (a
      second ask adds none there): every clause is kept, which never knows less and, on
      random games, knows the same (``tests/agents/test_facts_baseline.py``);
    * our rules beyond theirs: with a stock, set-aside or middle cards a card may lie
      in no hand, so "one candidate left" is not used; one's own draws are seen, another
      player's draw lets them hold any unseen card; a face-up middle card is seen.

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
    >>> _ = game.ask("B", "7H")     # so A holds one of 7S 7D 7C; C holds 7D and 7C
    >>> facts = FactKnowledge("C")
    >>> facts.update(game.view("C"))
    >>> facts.known_holder("7H"), facts.known_holder("7S"), facts.candidates("8H")
    ('A', 'A', ('A', 'B'))

    A received card leaves the receiver's clause standing.  C asks D for 7H: C lacks 7H
    and holds one of 7S 7D (D holds 7C); D gives it.  C asks B for 7S and gets it: C
    lacked 7S, so its other seven is 7D:

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2), {"A": ["8S", "8H"],
    ...     "B": ["7S", "8D"], "C": ["7D", "8C"], "D": ["7H", "7C"]}, first="C")
    >>> _ = game.ask("D", "7H"), game.ask("B", "7S")
    >>> facts = FactKnowledge("D")
    >>> facts.update(game.view("D"))
    >>> facts.known_holder("7D")
    'C'
    """

    kind = "facts"

    def __init__(self, player: str) -> None:
        super().__init__(player)
        self._deck: Deck | None = None
        self._players: tuple[str, ...] = ()
        self._holder: list[str | None] = []
        self._lacks: list[set[str]] = []
        self._clauses: list[list[tuple[str, frozenset[int]]]] = []
        self._piles = False
        self._cache: tuple[int, np.ndarray] | None = None

    def update(self, view: PlayerView) -> None:
        """Take in the new events of ``view`` and propagate."""
        new, fresh = self._new_events(view)
        if fresh or self._deck is None:
            self._start(view)
        # Each event's consequences are drawn at once, before the next event: a fact such
        # as "P lacks c" holds only until c moves to P, and the clauses it narrows must be
        # narrowed while it holds (however many events one update brings).
        for event in new:
            self._consequences(self._take(event, view))
        touched: set[int] = set()
        # The own hand is known exactly (it also shows the player's own draws).
        own = {c.index for c in view.hand}
        for c in range(len(self._holder)):
            holder = self._holder[c]
            if c in own:
                if holder != self.player:
                    self._holder[c] = self.player
                    touched.add(c // 4)
            elif holder == self.player:
                self._holder[c] = None
                touched.add(c // 4)
            if c not in own and self.player not in self._lacks[c] and holder is None:
                self._lacks[c].add(self.player)
                touched.add(c // 4)
        self._consequences(touched)
        if new or touched:
            self._cache = None

    def _start(self, view: PlayerView) -> None:
        """Forget everything: a new game, seen from the deal on."""
        self._deck = view.deck
        self._players = view.players
        n = len(view.deck)
        self._holder = [None] * n
        self._lacks = [set() for _ in range(n)]
        self._clauses = [[] for _ in range(view.deck.n_families)]
        rules = view.rules
        self._piles = bool(rules.draw_pile or rules.dealing == "equal" or rules.memory_cards)
        self._cache = None
        # From the deal on, as the earlier projects' players did: the own dealt hand
        # is known, every other card is not the player's.
        dealt = private_info(view.deck, self.player, view.hand, view.record).dealt
        for c in range(n):
            if c in dealt:
                self._holder[c] = self.player
            else:
                self._lacks[c].add(self.player)
        self._consequences(range(view.deck.n_families))

    def _consequences(self, families: Iterable[int]) -> None:
        """Draw the consequences of new facts about ``families`` (unit propagation in
        each; a subclass may add rules that reach across families)."""
        for f in families:
            self._propagate(f)

    def _take(self, event: Event, view: PlayerView) -> set[int]:
        """Record one event's facts; returns the families it touched."""
        deck = view.deck
        kind = type(event)
        if kind is Asked:
            assert isinstance(event, Asked)
            f = event.card.family_index
            cards = {c.index for c in deck.family_cards(f)}
            if not view.rules.bluffing:
                self._lacks[event.card.index].add(event.asker)
                cards.discard(event.card.index)
            self._clauses[f].append((event.asker, frozenset(cards)))
            return {f}
        if kind is Answered:
            assert isinstance(event, Answered)
            if not event.has_card:
                self._lacks[event.card.index].add(event.target)
            return {event.card.family_index}
        if kind is CardMoved:
            assert isinstance(event, CardMoved)
            c = event.card.index
            f = event.card.family_index
            # First "the source holds c", then "the destination holds c" (P-Zande's two
            # announcements).  The source's clauses with c may have been made true by c
            # alone: they go.  Every other player's clause loses c, the receiver's too:
            # it held one of the others before and still does (it only gained a card).
            kept: list[tuple[str, frozenset[int]]] = []
            for p, options in self._clauses[f]:
                if c in options:
                    if p == event.source:
                        continue
                    options = options - {c}
                kept.append((p, options))
            self._clauses[f] = kept
            self._holder[c] = event.destination
            self._lacks[c] = set()
            return {f}
        if kind is QuartetExposed:
            assert isinstance(event, QuartetExposed)
            f = deck.family_index(event.family)
            for card in deck.family_cards(f):
                self._holder[card.index] = "exposed"
            self._clauses[f] = []
            return {f}
        if kind is Drew:
            assert isinstance(event, Drew)
            if event.card is not None:  # the own draw: the card is seen
                self._holder[event.card.index] = event.player
                self._lacks[event.card.index] = set()
                return {event.card.family_index}
            # The drawer may now hold any card still unseen: their "lacks" facts lapse.
            for c, holder in enumerate(self._holder):
                if holder is None:
                    self._lacks[c].discard(event.player)
            return set(range(deck.n_families))
        if kind is MiddleCardTurned:
            assert isinstance(event, MiddleCardTurned)
            self._holder[event.card.index] = "middle"
            return {event.card.family_index}
        if kind is HandEmptied:
            assert isinstance(event, HandEmptied)
            for c, holder in enumerate(self._holder):
                if holder is None:
                    self._lacks[c].add(event.player)
            return set(range(deck.n_families))
        return set()

    def _propagate(self, f: int) -> None:
        """Unit propagation inside family ``f`` until nothing changes."""
        players = self._players
        cards = range(4 * f, 4 * f + 4)
        changed = True
        while changed:
            changed = False
            for c in cards:
                if self._holder[c] is None and not self._piles:
                    candidates = [p for p in players if p not in self._lacks[c]]
                    if len(candidates) == 1:
                        self._holder[c] = candidates[0]
                        changed = True
            kept = []
            for player, options in self._clauses[f]:
                if any(self._holder[c] == player for c in options):
                    continue  # satisfied: no longer informative
                left = frozenset(
                    c for c in options if self._holder[c] is None and player not in self._lacks[c]
                )
                if len(left) == 1:
                    (c,) = left
                    self._holder[c] = player
                    changed = True
                    continue
                if left:
                    kept.append((player, left))
            self._clauses[f] = kept

    # ----- the facts, for rules built on top of them ---------------------------------

    @property
    def players(self) -> tuple[str, ...]:
        """The players of the game the facts are about."""
        return self._players

    def holders(self) -> list[str | None]:
        """Per card (deck order), the holder the facts name: a player, ``"exposed"``,
        ``"middle"``, or None where they name none (a copy)."""
        return list(self._holder)

    def lacking(self, c: int) -> frozenset[str]:
        """The players the facts say lack card ``c`` (deck index)."""
        return frozenset(self._lacks[c])

    def clauses(self, family: int) -> tuple[tuple[str, frozenset[int]], ...]:
        """The standing clauses of ``family``: (player, cards) meaning the player holds
        at least one of the cards."""
        return tuple(self._clauses[family])

    def learn_holder(self, c: int, player: str) -> None:
        """Add the fact "``player`` holds card ``c``" (call :meth:`propagate` after)."""
        self._holder[c] = player
        self._cache = None

    def learn_lacks(self, c: int, player: str) -> None:
        """Add the fact "``player`` lacks card ``c``" (call :meth:`propagate` after)."""
        self._lacks[c].add(player)
        self._cache = None

    def propagate(self) -> None:
        """Draw the consequences of the facts in every family (unit propagation, and
        whatever rules the kind adds)."""
        self._consequences(range(len(self._clauses)))
        self._cache = None

    def copy(self) -> FactKnowledge:
        """An independent copy: facts added to it leave this one as it is.

        >>> game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
        >>> facts = FactKnowledge("A"); facts.update(game.view("A"))
        >>> twin = facts.copy(); twin.learn_holder(0, "B"); twin.propagate()
        >>> twin.holders()[0], facts.holders()[0]
        ('B', None)
        """
        twin = copy.copy(self)
        twin._holder = list(self._holder)
        twin._lacks = [set(s) for s in self._lacks]
        twin._clauses = [list(c) for c in self._clauses]
        twin._cache = None
        return twin

    def candidates(self, card: Card | str) -> tuple[str, ...]:
        """The players who may hold ``card`` (one if it is known; none if exposed or in a
        pile for sure)."""
        if self._deck is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        c = self._deck.card(card).index
        holder = self._holder[c]
        if holder is not None:
            return (holder,) if holder in self._players else ()
        return tuple(p for p in self._players if p not in self._lacks[c])

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        """Uniform over each card's candidate holders (1 for a known holder)."""
        if self._deck is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        if self._cache is not None and self._cache[0] == self._seen:
            return self._cache[1]
        players = self._players
        matrix = np.zeros((len(self._deck), len(players)))
        column = {p: i for i, p in enumerate(players)}
        for c in range(len(self._deck)):
            holder = self._holder[c]
            if holder is not None:
                if holder in column:
                    matrix[c, column[holder]] = 1.0
                continue
            holders = [column[p] for p in players if p not in self._lacks[c]]
            # With piles the card may lie in none of the hands: one more "candidate".
            places = len(holders) + (1 if self._piles else 0)
            if holders:
                matrix[c, holders] = 1.0 / places
        self._cache = (self._seen, matrix)
        return matrix

    def known_holder(self, card: Card | str) -> str | None:
        """The holder of ``card`` if the facts say who it is."""
        if self._deck is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        holder = self._holder[self._deck.card(card).index]
        return holder if holder in self._players else None


class FactKnowledgeWithHands(FactKnowledge):
    """The fact list of :class:`FactKnowledge` plus the hand-size rules a careful player
    uses: full and empty hands, and pigeonhole counts over players' free places.

    The hand sizes are public (every deal, move, draw and exposure changes them in the
    open), so a player who keeps a fact list can also count.  These rules are drawn to a
    fixpoint together with the per-family unit propagation, after every event, and what
    they find stays in the list as ordinary facts ("P lacks c", "P holds c": true until c
    moves, which is public).  A player's *free places* are their hand size minus the cards
    the facts place in their hand; the *open* cards are those the facts place nowhere.

    * **empty or full hand**: a player with no free place (an empty hand, or one whose
      cards are all located) lacks every open card.  Sound: every card in the hand is
      located.
    * **no room to spare**: a player whose possible cards (the open cards not known to be
      lacked by them) number exactly their free places holds every one of them.  Sound:
      each free place holds an open card that player may hold.
    * **pigeonhole** (Hall's count): for a set S of players with free places (one player or
      more), S must hold at least the open cards that only S's players may hold (not
      counted when a card may lie in a stock, set-aside or middle pile), plus one card for
      every player Q of S and family with a standing clause "Q holds one of X" whose X
      avoids those cards (distinct cards: a different holder or family each).  When that
      lower bound equals S's free places, S's players hold exactly those cards, so each
      lacks every other open card (any not counted and in none of those X).  With one
      player: "Q holds a card of each of k families and has k free places, so nothing
      else"; with a set: "only B or C may hold 7H, B holds one of 8H 8D, and B and C have
      two free places: they hold nothing else".

    Not used: the no-complete-family rule and any case split (trying a holder and
    refuting it), which stay with :class:`ExactKnowledge`.  Every rule only adds facts
    that hold in every world the player considers possible, so this list never locates a
    card the exact knowledge does not, and it locates every card :class:`FactKnowledge`
    locates (``tests/agents/test_facts_baseline.py`` checks both on random games).

    C holds 7D 7C 8D 8C and B was dealt one card.  B asks A for 7S: B holds a seven but
    not 7S, so 7H; A gives 7S.  B's two cards are known, so B lacks 8S and 8H: they are
    A's.  The plain fact list leaves them with A or B:

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2), {"A": ["7S", "8S", "8H"],
    ...     "B": ["7H"], "C": ["7D", "7C", "8D", "8C"]}, first="B")
    >>> _ = game.ask("A", "7S")
    >>> hands, facts = FactKnowledgeWithHands("C"), FactKnowledge("C")
    >>> hands.update(game.view("C")); facts.update(game.view("C"))
    >>> hands.known_holder("8S"), facts.known_holder("8S"), facts.candidates("8S")
    ('A', None, ('A', 'B'))
    """

    kind = "facts+hands"

    def __init__(self, player: str) -> None:
        super().__init__(player)
        self._sizes: dict[str, int] | None = None

    def _start(self, view: PlayerView) -> None:
        self._sizes = None  # until the deal is taken in
        super()._start(view)

    def update(self, view: PlayerView) -> None:
        """Take in the new events of ``view`` and propagate, counting hands."""
        super().update(view)
        if self._sizes != dict(view.hand_sizes):
            raise KwartetError(
                f"{self.player}'s fact list followed the hand sizes to {self._sizes}, but "
                f"the view shows {dict(view.hand_sizes)}"
            )

    def _take(self, event: Event, view: PlayerView) -> set[int]:
        touched = super()._take(event, view)
        # The hand sizes as they were at this event (the view shows only the last ones).
        kind = type(event)
        if kind is Dealt:
            assert isinstance(event, Dealt)
            self._sizes = dict(zip(event.players, event.hand_sizes, strict=True))
            return set(range(view.deck.n_families))
        sizes = self._sizes
        if sizes is None:
            return touched
        if kind is CardMoved:
            assert isinstance(event, CardMoved)
            for p, change in ((event.source, -1), (event.destination, +1)):
                if p in sizes:
                    sizes[p] += change
        elif kind is QuartetExposed:
            assert isinstance(event, QuartetExposed)
            sizes[event.player] -= 4
        elif kind is Drew:
            assert isinstance(event, Drew)
            sizes[event.player] += 1
        return touched

    def _consequences(self, families: Iterable[int]) -> None:
        super()._consequences(families)
        # Each rule that adds a fact is followed by unit propagation in every family,
        # then the rules are tried again: to a fixpoint (facts only grow, so it ends).
        while self._full_hands() or self._pigeonhole():
            super()._consequences(range(len(self._clauses)))

    def _free_and_open(self) -> tuple[dict[str, int], list[int]]:
        """Each player's free places, and the open cards."""
        assert self._sizes is not None
        free = dict(self._sizes)
        open_cards = []
        for c, holder in enumerate(self._holder):
            if holder is None:
                open_cards.append(c)
            elif holder in free:
                free[holder] -= 1
        return free, open_cards

    def _full_hands(self) -> bool:
        """Empty or full hands, and no room to spare; whether a fact was added."""
        if self._sizes is None:
            return False
        free, open_cards = self._free_and_open()
        changed = False
        for p in self._players:
            possible = [
                c for c in open_cards if p not in self._lacks[c] and self._holder[c] is None
            ]
            if not possible:
                continue
            if free[p] == 0:
                for c in possible:
                    self._lacks[c].add(p)
                changed = True
            elif free[p] == len(possible):
                for c in possible:
                    self._holder[c] = p
                changed = True
        return changed

    def _pigeonhole(self) -> bool:
        """The first pigeonhole count that adds a fact (Hall's count over sets of players
        with free places); whether one did."""
        if self._sizes is None:
            return False
        free, open_cards = self._free_and_open()
        unplaced = frozenset(open_cards)
        roomy = [p for p in self._players if free[p] > 0]
        candidates = {c: frozenset(p for p in roomy if p not in self._lacks[c]) for c in open_cards}
        for k in range(1, len(roomy) + 1):
            for group in itertools.combinations(roomy, k):
                members = frozenset(group)
                # With piles a card only S may hold may still lie in a pile: not counted.
                inside: set[int] = set()
                if not self._piles:
                    inside = {c for c in open_cards if candidates[c] and candidates[c] <= members}
                needed = len(inside)
                spared = set(inside)
                for clauses in self._clauses:
                    for q in group:
                        # A clause over a located card is not counted (it is dropped
                        # once propagated; counting it could count a located card twice).
                        options = [
                            o for p, o in clauses if p == q and o <= unplaced and not o & inside
                        ]
                        if options:  # one more card, of this family, in q's hand
                            needed += 1
                            spared.update(*options)
                if needed != sum(free[q] for q in group):
                    continue
                changed = False
                for c in open_cards:
                    if c not in spared and candidates[c] & members:
                        self._lacks[c].update(candidates[c] & members)
                        changed = True
                if changed:
                    return True
        return False


class HandKnowledge(_ViewFollower):
    """No memory: the own hand and the table as it lies now, nothing from the record.

    Every opponent who still holds cards is a candidate holder of every card not in the
    own hand and not exposed (face-up middle cards are seen on the table).

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> hand = HandKnowledge("A")
    >>> hand.update(game.view("A"))
    >>> hand.known_holder(game.hand("A")[0]), hand.known_holder(game.hand("B")[0])
    ('A', None)
    """

    kind = "hand"

    def update(self, view: PlayerView) -> None:
        """Look at the table now (nothing is remembered)."""
        self._new_events(view)

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        """1 for the own cards; uniform over the opponents holding cards otherwise."""
        view = self.view
        if view is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        players = view.players
        me = players.index(self.player)
        matrix = np.zeros((len(view.deck), len(players)))
        others = [i for i, p in enumerate(players) if i != me and view.hand_sizes[p] > 0]
        exposed = {view.deck.family_index(f) for f in view.exposed}
        face_up = {c.index for c in view.middle if c is not None}
        own = {c.index for c in view.hand}
        for c in range(len(view.deck)):
            if c in own:
                matrix[c, me] = 1.0
            elif c // 4 not in exposed and c not in face_up and others:
                matrix[c, others] = 1.0 / len(others)
        return matrix

    def known_holder(self, card: Card | str) -> str | None:
        """Only the own cards are known."""
        view = self.view
        if view is None:
            raise KwartetError(f"{self.player}'s knowledge has seen no view yet: call update()")
        return self.player if view.deck.card(card) in view.hand else None


KNOWLEDGE_KINDS: dict[str, type[ExactKnowledge | FactKnowledge | HandKnowledge]] = {
    "exact": ExactKnowledge,
    "facts": FactKnowledge,
    "facts+hands": FactKnowledgeWithHands,
    "hand": HandKnowledge,
}


def make_knowledge(kind: str, player: str) -> KnowledgeBase:
    """A new knowledge base of ``kind`` (``exact``, ``facts``, ``facts+hands`` or ``hand``)
    for ``player``.

    >>> make_knowledge("facts", "B").kind
    'facts'
    >>> make_knowledge("psychic", "B")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: knowledge 'psychic': expected one of exact, facts, facts+hands, hand
    """
    if kind not in KNOWLEDGE_KINDS:
        raise GameSetupError(f"knowledge {kind!r}: expected one of {', '.join(KNOWLEDGE_KINDS)}")
    return KNOWLEDGE_KINDS[kind](player)
