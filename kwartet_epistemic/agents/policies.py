"""How an agent chooses: policies that read only the view and the agent's knowledge.

A policy gets the player's :class:`~kwartet_epistemic.PlayerView`, the player's
:class:`~kwartet_epistemic.agents.knowledge.KnowledgeBase` (already updated with the view)
and the legal asks, and returns one of them.  Every policy works with every kind of
knowledge: "known holder" means the knowledge names the holder for sure, "candidate
holders" are the players it gives a chance above 0, and "probability" is its chance.

The strategies of the earlier student projects, as they describe them: :class:`Owner`,
:class:`Defensive`, :class:`Aggressive` (P-Zande), :class:`Greedy`, and as ivopascal's code
plays them :class:`Silent` and :class:`Mixed`; :class:`GreedyBluff` (greedy with bluffs,
the ``silent`` of earlier versions of this library); the folk tips of
the rule texts as switchable behaviours (:class:`Tips`); :class:`KnowledgePolicy` (first
order, exact probabilities) and :class:`HigherOrder` (also what the others know).

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.agents.knowledge import ExactKnowledge
>>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
...     {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}, first="A")
>>> _ = game.ask("B", "7D")                     # no: B's turn
>>> _ = game.ask("A", "7C")                     # B asks A: no; A's turn again
>>> view = game.view("A")
>>> knowledge = ExactKnowledge("A")
>>> knowledge.update(view)
>>> knowledge.known_holder("7D"), knowledge.known_holder("7C")    # both refusals told A
('C', 'C')
>>> KnowledgePolicy().choose(view, knowledge, view.legal_asks(), np.random.default_rng(0))
Ask('A', 'C', '7C')
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kwartet_epistemic._cached import cached_property
from kwartet_epistemic.agents.knowledge import ExactKnowledge, KnowledgeBase
from kwartet_epistemic.cards import Card
from kwartet_epistemic.errors import GameSetupError, IllegalAskError
from kwartet_epistemic.events import Asked, CardMoved
from kwartet_epistemic.game import Ask, PlayerView

__all__ = [
    "TIPS",
    "Aggressive",
    "Defensive",
    "Greedy",
    "GreedyBluff",
    "HigherOrder",
    "KnowledgePolicy",
    "Mixed",
    "Owner",
    "Policy",
    "RandomPolicy",
    "Silent",
    "Situation",
    "Tips",
    "known_first",
    "located_asks",
]


class Situation:
    """One decision's facts, computed once and shared by the helpers of every policy.

    Besides the per-ask helpers (:meth:`chance`, :meth:`family_count`) it keeps the same
    facts as arrays over the legal asks, in their order (:attr:`ask_cards`,
    :attr:`chances`, :attr:`family_counts`), so that a policy scores every ask at once:
    an agent decides many times per game, and per-ask Python calls were most of a
    knowledge agent's own time.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view("B")
    >>> knowledge = ExactKnowledge("B"); knowledge.update(view)
    >>> s = Situation(view, knowledge, view.legal_asks())
    >>> s.me, len(s.asks) == len(view.legal_asks()), s.known_asks() == []
    ('B', True, True)
    >>> ask = s.asks[5]
    >>> s.chances[5] == s.chance(ask), s.family_counts[5] == s.family_count(ask.card.index)
    (np.True_, np.True_)
    """

    def __init__(self, view: PlayerView, knowledge: KnowledgeBase, asks: Sequence[Ask]) -> None:
        if not asks:
            raise IllegalAskError(f"{view.player} has no legal ask: it is not their turn")
        self.view = view
        self.knowledge = knowledge
        self.asks = list(asks)
        self.me = view.player
        self.players = view.players
        self.column = {p: i for i, p in enumerate(view.players)}
        self.own = {c.index for c in view.hand}
        self.held_families = sorted({c.family_index for c in view.hand})

    @cached_property
    def probabilities(self) -> np.ndarray:
        """The knowledge's probabilities for the families the player can ask about."""
        return self.knowledge.probabilities(self.held_families)

    @cached_property
    def _targets_and_cards(self) -> tuple[np.ndarray, np.ndarray]:
        asks = self.asks  # this runs at every decision: comprehensions, no appends
        column = self.column
        cards = [ask.card.index for ask in asks]
        columns = [column[ask.target] for ask in asks]
        return np.array(columns, dtype=np.intp), np.array(cards, dtype=np.intp)

    @property
    def ask_cards(self) -> np.ndarray:
        """The card index of each ask (ask order)."""
        return self._targets_and_cards[1]

    @property
    def ask_columns(self) -> np.ndarray:
        """The target's column (seat) of each ask."""
        return self._targets_and_cards[0]

    @cached_property
    def rows(self) -> np.ndarray:
        """Each ask's probability that its target holds the card (bluffs included)."""
        return self.probabilities[self.ask_cards, self.ask_columns]

    @cached_property
    def chances(self) -> np.ndarray:
        """Each ask's probability of a yes: :meth:`chance` for every ask at once."""
        chances = self.rows
        if self.own and self.view.rules.bluffing:
            bluffs = np.isin(self.ask_cards, list(self.own))
            if bluffs.any():
                chances = np.where(bluffs, 0.0, chances)
        return chances

    @cached_property
    def held_counts(self) -> np.ndarray:
        """How many cards of each family the player holds (family order)."""
        counts = np.zeros(self.view.deck.n_families, dtype=np.intp)
        for c in self.own:
            counts[c // 4] += 1
        return counts

    @cached_property
    def family_counts(self) -> np.ndarray:
        """Each ask's :meth:`family_count`."""
        return self.held_counts[self.ask_cards // 4]

    def chance(self, ask: Ask) -> float:
        """The knowledge's probability that ``ask`` gets a yes."""
        if ask.card.index in self.own:
            return 0.0  # a bluff: the target cannot hold it
        return float(self.probabilities[ask.card.index, self.column[ask.target]])

    def known_asks(self) -> list[Ask]:
        """The asks whose target the knowledge names as the card's holder."""
        return [self.asks[i] for i in np.flatnonzero(self.chances == 1.0).tolist()]

    @cached_property
    def _candidates(self) -> dict[int, list[str]]:
        """Per card, the targets given a chance of holding it (in the asks' order)."""
        out: dict[int, list[str]] = {}
        for ask, positive in zip(self.asks, (self.rows > 0.0).tolist(), strict=True):
            targets = out.setdefault(ask.card.index, [])
            if positive:
                targets.append(ask.target)
        return out

    def candidates(self, card_index: int) -> list[str]:
        """Opponents (among the targets) whom the knowledge gives a chance of holding it."""
        return list(self._candidates.get(card_index, ()))

    def missing_cards(self) -> list[int]:
        """The askable cards the player lacks (deck order)."""
        return sorted({a.card.index for a in self.asks if a.card.index not in self.own})

    def family_count(self, card_index: int) -> int:
        """How many cards of the card's family the player holds."""
        return int(self.held_counts[card_index // 4])

    def scores(self) -> Mapping[str, int]:
        """Quartets laid down so far."""
        return self.view.scores


def _pick(options: Sequence[Ask], rng: np.random.Generator) -> Ask:
    return options[int(rng.integers(len(options)))]


def _best(options: Sequence[Ask], key: Callable[[Ask], Any], rng: np.random.Generator) -> Ask:
    """A uniformly random choice among the options with the largest ``key``."""
    scored = [(key(ask), ask) for ask in options]
    top = max(score for score, _ in scored)
    return _pick([ask for score, ask in scored if score == top], rng)


def _best_index(indices: np.ndarray, keys: Sequence[np.ndarray], rng: np.random.Generator) -> int:
    """Among the asks at ``indices`` (ascending), a uniformly random one of those with
    the largest key, the keys compared in order (``keys[0]`` first; each an array over
    all asks): the same choice, with the same random number, as :func:`_best` with the
    tuple key, without a Python call per ask."""
    # Plain lists: on a few dozen asks, Python's max beats NumPy's per-call overhead.
    best = indices.tolist()
    for key in keys:
        if len(best) == 1:
            break
        values = key.tolist()
        top = max([values[i] for i in best])
        best = [i for i in best if values[i] == top]
    return int(best[int(rng.integers(len(best)))])


class Policy:
    """Base of all policies: :meth:`choose` returns one of the legal ``asks``.

    A new policy overrides :meth:`decide`, which gets a :class:`Situation`:

    >>> class FirstAsk(Policy):
    ...     name = "first"
    ...     def decide(self, situation, rng):
    ...         return situation.asks[0]
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> FirstAsk().choose(view, k, view.legal_asks(), np.random.default_rng(0)) == view.legal_asks()[0]
    True
    """

    name = "policy"

    def choose(
        self,
        view: PlayerView,
        knowledge: KnowledgeBase,
        asks: Sequence[Ask],
        rng: np.random.Generator,
    ) -> Ask:
        """The ask to make (one of ``asks``)."""
        return self.decide(Situation(view, knowledge, asks), rng)

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        """The ask to make in ``situation``."""
        raise NotImplementedError


def known_first(situation: Situation, rng: np.random.Generator) -> Ask | None:
    """A sure ask, finishing the fullest family first; None if no holder is known (the
    first rule of every knowledge-based policy here; ties broken by ``rng``)."""
    known = np.flatnonzero(situation.chances == 1.0)
    if not len(known):
        return None
    return situation.asks[_best_index(known, [situation.family_counts], rng)]


@dataclass(frozen=True)
class RandomPolicy(Policy):
    """A uniformly random legal ask (the knowledge is not used).

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> RandomPolicy().choose(view, k, view.legal_asks(), np.random.default_rng(1)) in view.legal_asks()
    True
    """

    name = "random"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        return _pick(situation.asks, rng)


@dataclass(frozen=True)
class Greedy(Policy):
    """Known holder first, else a random legal ask.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> Greedy().choose(view, k, view.legal_asks(), np.random.default_rng(0)).asker == view.player
    True
    """

    name = "greedy"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        return known_first(situation, rng) or _pick(situation.asks, rng)


@dataclass(frozen=True)
class Owner(Policy):
    """Known holder first, else a random missing card and a random candidate holder of it.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> Owner().choose(view, k, view.legal_asks(), np.random.default_rng(0)).card in view.hand
    False
    """

    name = "owner"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        sure = known_first(situation, rng)
        if sure is not None:
            return sure
        holders = situation._candidates
        cards = [c for c in situation.missing_cards() if holders[c]]
        if not cards:
            return _pick(situation.asks, rng)
        card = cards[int(rng.integers(len(cards)))]
        target = _pick_name(holders[card], rng)
        return _ask_for(situation, target, card)


def _pick_name(names: Sequence[str], rng: np.random.Generator) -> str:
    return names[int(rng.integers(len(names)))]


def _ask_for(situation: Situation, target: str, card_index: int) -> Ask:
    for ask in situation.asks:
        if ask.target == target and ask.card.index == card_index:
            return ask
    raise IllegalAskError(f"no legal ask of {target} for card {card_index}")  # pragma: no cover


@dataclass(frozen=True)
class Defensive(Policy):
    """Known holder first; else the families closest to completion, among their cards
    those with the fewest candidate holders, and a random candidate.

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "7H", "7D", "8S"], "B": ["7C", "8H"], "C": ["8D", "8C"]}, first="A")
    >>> view = game.view("A")
    >>> k = ExactKnowledge("A"); k.update(view)
    >>> Defensive().choose(view, k, view.legal_asks(), np.random.default_rng(0)).card
    Card('7C')
    """

    name = "defensive"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        sure = known_first(situation, rng)
        if sure is not None:
            return sure
        holders = situation._candidates
        cards = [c for c in situation.missing_cards() if holders[c]]
        if not cards:
            return _pick(situation.asks, rng)
        held = situation.held_counts.tolist()
        closest = max(held[c // 4] for c in cards)
        cards = [c for c in cards if held[c // 4] == closest]
        fewest = min(len(holders[c]) for c in cards)
        cards = [c for c in cards if len(holders[c]) == fewest]
        card = cards[int(rng.integers(len(cards)))]
        return _ask_for(situation, _pick_name(holders[card], rng), card)


@dataclass(frozen=True)
class Aggressive(Policy):
    """Known holder first; else target the highest-scoring opponent, with the cards whose
    candidate set (containing that opponent) is smallest.

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=3), {"A": ["8S", "9C"],
    ...     "B": ["7S", "7H", "7D", "7C", "8H", "9S"], "C": ["8D", "8C", "9H", "9D"]}, first="A")
    >>> view = game.view("A")                   # B laid down the sevens at the deal
    >>> k = kw.FactKnowledge("A"); k.update(view)
    >>> Aggressive().choose(view, k, view.legal_asks(), np.random.default_rng(0)).target
    'B'
    """

    name = "aggressive"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        sure = known_first(situation, rng)
        if sure is not None:
            return sure
        scores = situation.scores()
        # The targets in seat order (the asks' order), not a set of names: the random
        # tie-breaks are drawn in this order, and a set of strings iterates differently in
        # every process (PYTHONHASHSEED), so seeded games would not replay.
        targets = sorted(
            dict.fromkeys(a.target for a in situation.asks),
            key=lambda p: (-scores[p], rng.random()),
        )
        holders = situation._candidates
        missing = situation.missing_cards()
        for target in targets:
            cards = [c for c in missing if target in holders[c]]
            if cards:
                fewest = min(len(holders[c]) for c in cards)
                cards = [c for c in cards if len(holders[c]) == fewest]
                return _ask_for(situation, target, cards[int(rng.integers(len(cards)))])
        return _pick(situation.asks, rng)


@dataclass(frozen=True)
class GreedyBluff(Policy):
    """Known holder first; else, when the rules allow bluffing, it asks for a card it
    holds (revealing nothing true beyond the family) with probability ``bluff_rate``, and
    otherwise a random legal ask (so that it cannot stall a game forever); without
    bluffing it plays greedy.  This was this library's ``silent`` until that name went to
    the earlier project's strategy (:class:`Silent`); spec ``greedy_bluff``.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3,
    ...                     rules=kw.RuleSet(bluffing=True))
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> asks = [GreedyBluff().choose(view, k, view.legal_asks(), np.random.default_rng(s))
    ...         for s in range(10)]
    >>> any(a.card in view.hand for a in asks)  # some bluffs
    True
    """

    bluff_rate: float = 0.5
    name = "greedy_bluff"

    def __post_init__(self) -> None:
        if not 0.0 <= self.bluff_rate < 1.0:
            raise GameSetupError(
                f"greedy_bluff bluff_rate={self.bluff_rate!r}: expected 0 <= rate < 1"
            )

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        sure = known_first(situation, rng)
        if sure is not None:
            return sure
        bluffs = [a for a in situation.asks if a.card.index in situation.own]
        if bluffs and rng.random() < self.bluff_rate:
            return _pick(bluffs, rng)
        return _pick(situation.asks, rng)


def located_asks(situation: Situation) -> list[int]:
    """The sure asks (indices into ``situation.asks``) for the missing cards of the
    families whose four cards are all located: each one its own or with a known holder
    among the targets (a quartet that can be completed now)."""
    sure: dict[int, int] = {}
    for i in np.flatnonzero(situation.chances == 1.0).tolist():
        sure.setdefault(int(situation.ask_cards[i]), i)
    out: list[int] = []
    for f in situation.held_families:
        missing = [c for c in range(4 * f, 4 * f + 4) if c not in situation.own]
        if all(c in sure for c in missing):
            out.extend(sure[c] for c in missing)
    return out


def _random_request(situation: Situation, rng: np.random.Generator) -> Ask:
    """ivopascal's random request: a family it holds, a card of it and an opponent, each
    uniformly at random among the legal asks (not uniform over the asks themselves)."""
    asks = situation.asks
    families = sorted({a.card.family_index for a in asks})
    family = families[int(rng.integers(len(families)))]
    cards = sorted({a.card.index for a in asks if a.card.family_index == family})
    card = cards[int(rng.integers(len(cards)))]
    return _pick([a for a in asks if a.card.index == card], rng)


def _own_card_request(situation: Situation, rng: np.random.Generator) -> Ask | None:
    """ivopascal's "owned request": one of its own cards, uniformly, from a random
    opponent (a sure no that hides what it lacks); None where the rules forbid it."""
    own = sorted({a.card.index for a in situation.asks if a.card.index in situation.own})
    if not own:
        return None
    card = own[int(rng.integers(len(own)))]
    return _pick([a for a in situation.asks if a.card.index == card], rng)


@dataclass(frozen=True)
class Silent(Policy):
    """ivopascal/Epistemic_Kwartet's silent strategy (2020): ask a known holder only
    when all four cards of that family are located (its own and the known holders');
    otherwise ask for one of its own cards 1/3 of the time and make a random request
    (family, card, then opponent, each at random) 2/3 of the time.
    It tells the others as little as it can about what it lacks.

    Differences from their code, all forced by this library's rules or for fairness:
    among several located families it picks a sure ask at random (they took the first in
    their list); an opponent with no cards is never asked (no such ask is legal here);
    and where the rules forbid asking for a card one holds (``bluffing`` off, as in the
    ``publisher`` preset) the own-card third becomes a random request too.  Before this
    class the spec ``silent`` meant :class:`GreedyBluff`.

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7S", "7H"], "B": ["7D", "8S"], "C": ["7C", "8H", "8D", "8C"]}, first="A")
    >>> view = game.view("A")
    >>> k = kw.FactKnowledge("A"); k.update(view)
    >>> Silent().choose(view, k, view.legal_asks(), np.random.default_rng(0)).card.family_index
    0
    """

    name = "silent"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        located = located_asks(situation)
        if located:
            return situation.asks[located[int(rng.integers(len(located)))]]
        if int(rng.integers(3)) == 0:
            own = _own_card_request(situation, rng)
            if own is not None:
                return own
        return _random_request(situation, rng)


@dataclass(frozen=True)
class Mixed(Policy):
    """ivopascal/Epistemic_Kwartet's mixed strategy: before every ask a fair coin
    chooses :class:`Greedy` or :class:`Silent` for that ask.  (Their README says "half
    of the times"; their code tosses the coin again before each ask of a turn, which is
    what this does; it does not alternate turns.)  Greedy here is this library's
    :class:`Greedy`: a known holder, fullest family first, else a uniformly random ask.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> Mixed().choose(view, k, view.legal_asks(), np.random.default_rng(0)) in view.legal_asks()
    True
    """

    name = "mixed"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        if int(rng.integers(2)) == 0:
            return Greedy().decide(situation, rng)
        return Silent().decide(situation, rng)


@dataclass(frozen=True)
class KnowledgePolicy(Policy):
    """First order: a card whose holder it knows; else the ask with the highest
    probability of a yes, ties broken towards finishing a family, then at random.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> ask = KnowledgePolicy().choose(view, k, view.legal_asks(), np.random.default_rng(0))
    >>> p = k.probabilities()
    >>> bool(p[ask.card.index, view.players.index(ask.target)] == max(
    ...     p[a.card.index, view.players.index(a.target)] for a in view.legal_asks()))
    True
    """

    name = "knowledge"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        # _best_index over every ask, the family counts looked up only on a tie.
        chances = situation.chances.tolist()
        top = max(chances)
        best = [i for i, chance in enumerate(chances) if chance == top]
        if len(best) > 1:
            counts = situation.family_counts.tolist()
            most = max([counts[i] for i in best])
            best = [i for i in best if counts[i] == most]
        return situation.asks[best[int(rng.integers(len(best)))]]


TIPS = ("remember", "rarest", "hide", "spread", "bluff", "watch", "endgame")
"""The folk tips of the rule texts (seeds 002/004, "Tips en strategieën"), by name, in the
texts' order."""


def _watched_holders(view: PlayerView) -> dict[int, str]:
    """The tip ``watch``: per card seen handed over, the player it went to last, while
    its family is not laid down.  Cards leave a hand only openly (a handed-over card or
    a laid-down quartet), so each of these holders is certain."""
    holders: dict[int, str] = {}
    for event in view.record:
        if type(event) is CardMoved:
            holders[event.card.index] = event.destination
    exposed = {view.deck.family_index(f) for f in view.exposed}
    own = {c.index for c in view.hand}
    return {c: p for c, p in holders.items() if c // 4 not in exposed and c not in own}


class _Watching:
    """A no-memory player who watches who receives (the tip ``watch`` without
    ``remember``): :class:`~kwartet_epistemic.agents.knowledge.HandKnowledge`, with the
    holders of the cards seen handed over (:func:`_watched_holders`) made certain."""

    kind = "hand+watch"

    def __init__(self, player: str) -> None:
        from kwartet_epistemic.agents.knowledge import HandKnowledge

        self.player = player
        self._hand = HandKnowledge(player)
        self._holders: dict[int, str] = {}
        self._players: tuple[str, ...] = ()

    def update(self, view: PlayerView) -> None:
        self._hand.update(view)
        self._holders = _watched_holders(view)
        self._players = view.players

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        matrix = self._hand.probabilities(families)
        if self._holders:
            matrix = matrix.copy()
            column = {p: i for i, p in enumerate(self._players)}
            for c, holder in self._holders.items():
                matrix[c] = 0.0
                matrix[c, column[holder]] = 1.0
        return matrix

    def known_holder(self, card: Card | str) -> str | None:
        known = self._hand.known_holder(card)
        view = self._hand.view
        if known is None and view is not None:
            known = self._holders.get(view.deck.card(card).index)
        return known


@dataclass(frozen=True)
class Tips(Policy):
    """The folk tips of the rule texts, each a switch, on a greedy base player.

    The base asks a known holder if there is one, else the most likely ask.  Each tip
    changes one thing, so that each can be tested alone:

    * ``remember``: remember every question (without it the agent looks only at its
      hand and the table: its knowledge is replaced by no memory at all);
    * ``rarest``: ask first for the card whose siblings were already asked about most
      (three asked siblings make the fourth a near-sure ask);
    * ``hide``: don't reveal a family early: prefer families the others already know it
      collects (it asked for them before or received their cards openly);
    * ``spread``: spread the questions over the opponents: among equal asks, the
      opponent asked least often;
    * ``bluff``: bluff when it can afford a miss (it leads or shares the lead): ask a
      less likely holder of the card it wants, hiding its real target (the texts' bluff
      is this decoy ask, legal under every rule set; asking for a card one holds, which
      only the ``bluffing`` rule allows, is :class:`GreedyBluff`);
    * ``watch``: watch who receives ("if A asked B for Rembrandt and B handed it over,
      A now has Rembrandt"): a card seen handed over is with its receiver until it is
      seen handed on or laid down, a sure ask.  Remembering every ask includes its
      answer, so with ``remember`` on this adds nothing (the knowledge already follows
      every handed-over card); without it the agent forgets every question and refusal
      but follows the cards.  (The texts add "and B is done with that quartet"; B may
      still hold other cards of it, so that is not used.);
    * ``endgame``: keep a sure ask for the end: while more than two quartets are open
      and an uncertain ask is worth trying, hold back a known holder whose card does
      not finish a family.

    The spec ``tips`` switches every tip on, ``tips[none]`` none (the base player) and
    ``tips[rarest,spread]`` those named.  The texts' remaining tip, "know the full list of
    cards", every agent follows: the deck is public.

    >>> Tips(("spread", "rarest")).enabled
    ('rarest', 'spread')
    >>> Tips(("psychic",))
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: tip 'psychic': expected some of remember, rarest, hide, spread, bluff, watch, endgame

    Watching: B gives A the 7S; a forgetful player C knows where it is only if it watches.

    >>> game = kw.Game.from_hands(kw.Deck.piquet(families=2),
    ...     {"A": ["7H", "8S"], "B": ["7S", "8H"], "C": ["7D", "7C", "8D", "8C"]}, first="A")
    >>> _ = game.ask("B", "7S"), game.ask("C", "8H")     # yes, then no: C's turn
    >>> view = game.view("C")
    >>> Tips(("watch",)).choose(view, ExactKnowledge("C"), view.legal_asks(),
    ...                         np.random.default_rng(0))
    Ask('C', 'A', '7S')
    >>> from kwartet_epistemic.agents.knowledge import HandKnowledge
    >>> forgetful = HandKnowledge("C"); forgetful.update(view)     # what C has without it
    >>> forgetful.known_holder("7S") is None
    True
    """

    enabled: tuple[str, ...] = TIPS
    name = "tips"

    def __post_init__(self) -> None:
        for tip in self.enabled:
            if tip not in TIPS:
                raise GameSetupError(f"tip {tip!r}: expected some of {', '.join(TIPS)}")
        object.__setattr__(self, "enabled", tuple(t for t in TIPS if t in self.enabled))

    def choose(
        self,
        view: PlayerView,
        knowledge: KnowledgeBase,
        asks: Sequence[Ask],
        rng: np.random.Generator,
    ) -> Ask:
        if "remember" not in self.enabled:
            from kwartet_epistemic.agents.knowledge import HandKnowledge

            forgetful: KnowledgeBase
            if "watch" in self.enabled:
                forgetful = _Watching(view.player)
            else:
                forgetful = HandKnowledge(view.player)
            forgetful.update(view)
            knowledge = forgetful
        return self.decide(Situation(view, knowledge, asks), rng)

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        on = set(self.enabled)
        record = situation.view.record
        me = situation.me
        asked_about: dict[int, int] = {}
        my_asks: dict[str, int] = {}
        revealed: set[int] = set()
        for event in record:
            if type(event) is Asked:
                asked_about[event.card.index] = asked_about.get(event.card.index, 0) + 1
                if event.asker == me:
                    my_asks[event.target] = my_asks.get(event.target, 0) + 1
                    revealed.add(event.card.family_index)
            elif type(event) is CardMoved and event.destination == me:
                revealed.add(event.card.family_index)

        def siblings_asked(card_index: int) -> int:
            f = card_index // 4
            return sum(1 for c in range(4 * f, 4 * f + 4) if c != card_index and c in asked_about)

        known = situation.known_asks()
        uncertain = [a for a in situation.asks if a not in known]
        open_families = situation.view.deck.n_families - len(situation.view.exposed)
        if known and "endgame" in on and uncertain and open_families > 2:
            finishing = [a for a in known if situation.family_count(a.card.index) == 3]
            best_uncertain = max(situation.chance(a) for a in uncertain)
            if not finishing and best_uncertain >= 0.5:
                known = []  # keep the sure asks for later
        if known:
            return _best(known, lambda a: situation.family_count(a.card.index), rng)

        def key(ask: Ask) -> tuple[float, ...]:
            # A possible holder before anything else: hopeless asks can go on forever.
            parts: list[float] = [float(situation.chance(ask) > 0.0)]
            if "rarest" in on:
                parts.append(siblings_asked(ask.card.index))
            if "hide" in on:
                parts.append(1.0 if ask.card.family_index in revealed else 0.0)
            parts.append(situation.chance(ask))
            parts.append(situation.family_count(ask.card.index))
            if "spread" in on:
                parts.append(-my_asks.get(ask.target, 0))
            return tuple(parts)

        choice = _best(uncertain or situation.asks, key, rng)
        if "bluff" in on:
            scores = situation.scores()
            if scores[me] >= max(scores.values()):
                decoys = [
                    a
                    for a in situation.asks
                    if a.card == choice.card
                    and a.target != choice.target
                    and 0.0 < situation.chance(a) < situation.chance(choice)
                ]
                if decoys:
                    return _best(decoys, lambda a: -situation.chance(a), rng)
        return choice


@dataclass(frozen=True)
class HigherOrder(Policy):
    """First order plus what the others know about it and about each other.

    What every player knows is read off the public worlds (the record without any
    hand): whether the others know it holds a card, and whether everybody knows where a
    card is.  Then:

    * sure asks first; among them the cards everybody can locate (denying the card to
      an opponent who knows where to find it), then the families the others know it
      holds (they are at risk), then the fullest family;
    * otherwise, among the asks whose chance of a yes is within ``tolerance`` of the
      best: first the smallest expected loss if refused (the target gets the turn, and
      with it every card of ours that everybody knows about in a family the target
      probably collects: ``K_target has(me, c)``), then the families the others know it
      holds (finish what is at risk), then the ask that reveals least, i.e. after which
      (if refused) the fewest of its own cards become known to everybody, computed by
      announcing the ask and the refusal to the public worlds; then the fullest family
      and the higher chance.

    With fact-list or no-memory knowledge the public worlds are not available and it
    plays as :class:`KnowledgePolicy`.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> k = ExactKnowledge(view.player); k.update(view)
    >>> HigherOrder().choose(view, k, view.legal_asks(), np.random.default_rng(0)) in view.legal_asks()
    True
    """

    tolerance: float = 0.02
    name = "higher_order"

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        knowledge = situation.knowledge
        if not isinstance(knowledge, ExactKnowledge):
            return KnowledgePolicy().decide(situation, rng)
        public = knowledge.public_probabilities(situation.held_families)
        me = situation.column[situation.me]
        mine = sorted(situation.own)
        exposure = {
            f: float(sum(public[c, me] for c in mine if c // 4 == f))
            for f in situation.held_families
        }
        known = situation.known_asks()
        if known:

            def sure_key(ask: Ask) -> tuple[float, ...]:
                everybody_knows = public[ask.card.index, situation.column[ask.target]] == 1.0
                return (
                    float(everybody_knows),
                    exposure[ask.card.family_index],
                    situation.family_count(ask.card.index),
                )

            return _best(known, sure_key, rng)
        chances = situation.chances
        close = np.flatnonzero(chances >= chances.max() - self.tolerance).tolist()
        asks = situation.asks
        # Python floats, as the keys were always computed (Python's round, not NumPy's).
        chance = dict(zip(close, chances[close].tolist(), strict=True))

        # What a refusal hands the target: the turn, and with it every card of ours that
        # everybody knows about in a family the target (probably) collects.  Only rows of
        # our own families are read, and those the situation's probabilities have.
        everybody_knows_mine = [c for c in mine if public[c, me] == 1.0]
        whole = situation.probabilities
        danger: dict[str, float] = {}
        for target in dict.fromkeys(asks[i].target for i in close):
            t = situation.column[target]
            total = 0.0
            for c in everybody_knows_mine:
                f = c // 4
                others = [x for x in range(4 * f, 4 * f + 4) if x not in situation.own]
                total += 1.0 - float(np.prod([1.0 - whole[x, t] for x in others]))
            danger[target] = total

        # The key is (-loss, exposure, -revealed, family count, chance), compared in that
        # order.  What a refusal would reveal costs a hypothetical count each, so it is
        # computed only for the asks still tied on the first two parts.
        def first(i: int) -> tuple[float, float]:
            ask = asks[i]
            loss = (1.0 - chance[i]) * danger[ask.target]
            return (-round(loss, 9), round(exposure[ask.card.family_index], 9))

        keys = {i: first(i) for i in close}
        top = max(keys.values())
        tied = [i for i in close if keys[i] == top]
        if len(tied) > 1:

            def rest(i: int) -> tuple[float, int, float]:
                ask = asks[i]
                revealed = _revealed_by_refusal(knowledge, situation, ask, exposure)
                return (-round(revealed, 9), situation.family_count(ask.card.index), chance[i])

            more = {i: rest(i) for i in tied}
            best = max(more.values())
            tied = [i for i in tied if more[i] == best]
        return asks[tied[int(rng.integers(len(tied)))]]


def _revealed_by_refusal(
    knowledge: ExactKnowledge,
    situation: Situation,
    ask: Ask,
    exposure: Mapping[int, float],
) -> float:
    """How much more everybody would know about the asker's cards of the family after
    the ask and a refusal: the rise in the public chances of those cards being its own."""
    from kwartet_epistemic.epistemics.counting import WorldCounter
    from kwartet_epistemic.epistemics.history import Clause

    history = knowledge.history
    # The measure has always been 0 where its first implementation could not count
    # (piles of hidden cards, counts beyond 2^62): kept, so that seeded games replay.
    if history.rules.draw_pile or history.dead_slots:
        return 0.0
    f = ask.card.family_index
    me = situation.me
    hypothetical = history.copy()
    reach = history.reach
    c = ask.card.index
    if history.location[c] is None:
        lacking = reach[ask.target] | (0 if situation.view.rules.bluffing else reach[me])
        hypothetical.allowed[c] = history.allowed[c] & ~lacking
    conditions = tuple(history.condition(card.index, me) for card in history.deck.family_cards(f))
    if not any(cond == -1 for cond in conditions):
        hypothetical.add_clause(f, Clause("some", conditions))  # type: ignore[arg-type]
    hypothetical.family_changed(f)
    counter = WorldCounter(hypothetical, marginals=True)
    if counter.count == 0 or counter.bound >= 1 << 62:
        return 0.0
    count, origins = counter.count, counter.origin_table()
    column = situation.column[me]
    # Cards seen moving are located by the record; the others by where they were dealt.
    after = sum(
        1.0 if history.location[card] == me else float(origins[card, column]) / count
        for card in situation.own
        if card // 4 == f
    )
    return after - exposure[f]
