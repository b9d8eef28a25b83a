"""The ``search`` policy: sample possible worlds, play each out, keep the best ask.

The agent draws worlds from its own knowledge (exactly uniformly with exact knowledge),
and for each world and each candidate ask plays the game to the end with a fast default
policy for every player, scoring the final result: by default its lead in quartets over
the best opponent (``objective="margin"``), or its own quartets (``"score"``), or its
share of the win (``"win"``).  The ask with the best expected value wins.  Play-outs run
on bit masks, not on :class:`~kwartet_epistemic.Game`, and the players in them use only
what is public in the play-out (cards seen moving, refusals, hand sizes) and their own
hands, so no simulated player peeks at the sampled world.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.agents.knowledge import ExactKnowledge
>>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
>>> view = game.view(game.to_move)
>>> knowledge = ExactKnowledge(view.player); knowledge.update(view)
>>> ask = Search(samples=4, candidates=3).choose(view, knowledge, view.legal_asks(),
...                                              np.random.default_rng(0))
>>> ask in view.legal_asks()
True
"""

from __future__ import annotations

import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from kwartet_epistemic.agents.knowledge import ExactKnowledge, KnowledgeBase
from kwartet_epistemic.agents.policies import (
    HigherOrder,
    KnowledgePolicy,
    Policy,
    Situation,
    known_first,
)
from kwartet_epistemic.epistemics.counting import WorldCounter, current_options
from kwartet_epistemic.epistemics.history import private_info
from kwartet_epistemic.epistemics.state import World
from kwartet_epistemic.errors import GameSetupError, KwartetError
from kwartet_epistemic.events import Answered, Asked, CardMoved, Drew
from kwartet_epistemic.game import Ask, PlayerView

try:  # the compiled play-out; the Python path below gives the same scores without it
    from kwartet_epistemic.agents import _playout_kernel as _kernel
except ImportError:  # pragma: no cover - depends on the install
    _kernel = None  # type: ignore[assignment]

__all__ = ["OBJECTIVES", "ROLLOUTS", "Playout", "PreparedWorld", "Search"]


# The kernel's play-out, or None (not built, or built before it had one).
_KERNEL_PLAYOUT = getattr(_kernel, "playout", None)
_KERNEL_MAX_PLAYERS = 16

OBJECTIVES = ("score", "margin", "win")
"""What a play-out is worth to the searcher: its final quartets, its lead over the best
opponent, or its share of the win."""

ROLLOUTS = ("fewest", "likeliest")
"""How the simulated players guess in a play-out: the card with the fewest possible
holders, or the likeliest yes (weighing the holders by their unknown cards in hand)."""


@dataclass(frozen=True)
class Search(Policy):
    """Monte Carlo search over the agent's possible worlds.

    Sure asks (a known holder) are played without searching.  Otherwise the default is
    the :class:`HigherOrder` choice (:class:`KnowledgePolicy` without exact knowledge),
    and up to ``candidates`` more asks compete with it: one per target and family (the
    likeliest card), among the asks whose chance of a yes is at least ``spread`` times
    the best one's.  The contest is a successive halving: every live candidate is
    played out in the same ``samples`` worlds with the same random numbers, the worse
    half drops out, the number of worlds doubles, until two remain (with a
    ``milliseconds`` budget, until the time is up).  A candidate's value is stratified on
    the answer to its first ask, whose chance is known exactly.  The best survivor
    replaces the default if its mean gain over the default, in the worlds both were
    played in, exceeds ``confidence`` standard errors of the paired differences (0: the
    best estimate always wins).  ``rollout`` picks how the simulated players guess.

    The defaults were chosen by duplicate matches against ``higher_order``
    (``experiments/duplicate.py``); ``experiments/strength.py`` measures the result.
    Before the speed work the defaults were ``samples=12`` and ``confidence=0``;
    ``search[samples=12,confidence=0]`` still plays exactly as that search did.  Half the
    worlds halve the play-outs of a decision; with fewer worlds the best of several noisy
    contests looks better than it is, so it must now beat the default by half a standard
    error.  The duplicate matches against the earlier search are in
    ``paper/measurements/duplicate.txt`` (even within about 2 points).

    >>> Search(samples=0)
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.GameSetupError: search samples=0: expected at least 1
    """

    samples: int = 6
    candidates: int = 8
    milliseconds: float | None = None
    objective: str = "margin"
    spread: float = 0.8
    confidence: float = 0.5
    rollout: str = "likeliest"
    name = "search"

    def __post_init__(self) -> None:
        if not isinstance(self.samples, int) or self.samples < 1:
            raise GameSetupError(f"search samples={self.samples!r}: expected at least 1")
        if not isinstance(self.candidates, int) or self.candidates < 1:
            raise GameSetupError(f"search candidates={self.candidates!r}: expected at least 1")
        if self.milliseconds is not None and not self.milliseconds > 0:
            raise GameSetupError(
                f"search milliseconds={self.milliseconds!r}: expected a positive budget"
            )
        if not self.confidence >= 0.0:
            raise GameSetupError(
                f"search confidence={self.confidence!r}: expected a number of standard errors >= 0"
            )
        if not 0.0 <= self.spread <= 1.0:
            raise GameSetupError(f"search spread={self.spread!r}: expected 0 to 1")
        if self.objective not in OBJECTIVES:
            raise GameSetupError(
                f"search objective={self.objective!r}: expected one of {', '.join(OBJECTIVES)}"
            )
        if self.rollout not in ROLLOUTS:
            raise GameSetupError(
                f"search rollout={self.rollout!r}: expected one of {', '.join(ROLLOUTS)}"
            )

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        sure = known_first(situation, rng)
        if sure is not None:
            return sure
        # The default: what the higher-order player would ask (first order without exact
        # knowledge).  Search may overrule it, with evidence.
        if isinstance(situation.knowledge, ExactKnowledge):
            default = HigherOrder().decide(situation, rng)
        else:
            default = KnowledgePolicy().decide(situation, rng)
        ranked = self._candidates(situation, default, rng)
        if len(ranked) == 1:
            return default
        start = time.perf_counter()
        playout = Playout.from_view(
            situation.view, situation.knowledge, weighted=self.rollout == "likeliest"
        )
        sampler = _WorldSampler(situation.knowledge, situation.view)
        worlds: list[tuple[tuple[int, ...], dict[str, list[int]]]] = []
        seeds: list[int] = []
        values: list[list[float]] = [[] for _ in ranked]
        prepared: list[tuple[PreparedWorld, np.random.Generator]] = []
        states: list[Mapping[str, Any]] = []
        alive = list(range(len(ranked)))
        wanted = self.samples if self.milliseconds is None else 4
        out_of_time = False

        def terms(i: int, n: int) -> np.ndarray:
            ask = ranked[i]
            seat, bit = situation.column[ask.target], 1 << ask.card.index
            yes = [bool(hands[seat] & bit) for hands, _ in worlds[:n]]
            return _stratified_terms(values[i][:n], yes, situation.chance(ask))

        # Successive halving: every live candidate is played out in the same worlds with
        # the same random numbers; after each round the worse half drops out and the
        # number of worlds doubles, so the budget goes to the close contests.
        while True:
            for world in sampler.draw(wanted - len(worlds), rng):
                worlds.append(world)
                seeds.append(int(rng.integers(2**63)))
            for i in alive:
                for j in range(len(values[i]), len(worlds)):
                    # Every candidate meets the same random numbers in world j: the world
                    # is prepared once and the generator's state replayed (cheaper than a
                    # new generator per play-out; the same numbers).
                    if j == len(prepared):
                        generator = np.random.default_rng(seeds[j])
                        hands, piles = worlds[j]
                        prepared.append((playout.prepare_masks(hands, piles, generator), generator))
                        states.append(generator.bit_generator.state)
                    deal, generator = prepared[j]
                    generator.bit_generator.state = states[j]
                    scores = playout.play(deal, ranked[i], generator)
                    values[i].append(playout.worth(scores, self.objective))
                    if self.milliseconds is not None:
                        out_of_time = (time.perf_counter() - start) * 1000 >= self.milliseconds
                        if out_of_time:
                            break
                if out_of_time:
                    break
            n = min(len(values[i]) for i in alive)
            if n == 0:
                return default
            if out_of_time or (len(alive) <= 2 and self.milliseconds is None):
                break
            if len(alive) > 2:
                means = {i: float(terms(i, n).mean()) for i in alive}
                alive = sorted(alive, key=lambda i: -means[i])[: (len(alive) + 1) // 2]
            wanted *= 2
        # The best survivor replaces the default only if the paired play-outs (same
        # worlds, same random numbers) show a gain beyond ``confidence`` standard errors;
        # each value is stratified on the answer to its own first ask (the chance of a
        # yes is known exactly, so the share of yes-worlds among the samples is noise).
        n = min(len(values[i]) for i in alive)
        best = max(alive, key=lambda i: float(terms(i, n).mean()))
        if best == 0 or n < 2:
            return default
        if len(values[0]) < n:
            return ranked[best]  # the default dropped out in an earlier round
        differences = terms(best, n) - terms(0, n)
        gain = float(differences.mean())
        error = float(differences.std(ddof=1)) / np.sqrt(n)
        return ranked[best] if gain > self.confidence * error else default

    def _candidates(
        self, situation: Situation, default: Ask, rng: np.random.Generator
    ) -> list[Ask]:
        """The default first, then up to ``candidates`` asks nearly as likely to get a yes
        as the best: one per target and family (asks for sibling cards from one player
        differ little), the likeliest of each, then the fullest family."""
        best = max(situation.chance(a) for a in situation.asks)
        floor = self.spread * best
        groups: dict[tuple[str, int], Ask] = {}
        order = rng.permutation(len(situation.asks))
        for i in order:
            ask = situation.asks[int(i)]
            if situation.chance(ask) < floor:
                continue
            key = (ask.target, ask.card.family_index)
            held = groups.get(key)
            if held is None or situation.chance(ask) > situation.chance(held):
                groups[key] = ask
        groups[(default.target, default.card.family_index)] = default
        ranked = sorted(
            (a for a in groups.values() if a != default),
            key=lambda a: (-situation.chance(a), -situation.family_count(a.card.index)),
        )
        return [default] + ranked[: self.candidates]


def _stratified_terms(values: list[float], yes: list[bool], chance: float) -> np.ndarray:
    """Per-world terms whose mean is the play-outs' value stratified on the first answer:
    ``chance`` times the mean value where the ask is answered yes, plus ``1 - chance``
    times the mean where it is refused (the plain values when a stratum has no world).

    >>> _stratified_terms([4.0, 0.0, 0.0, 0.0], [True, False, False, False], 0.5).mean()
    np.float64(2.0)
    """
    row = np.asarray(values, dtype=float)
    hit = np.asarray(yes, dtype=bool)
    n, n_yes = len(row), int(hit.sum())
    if n_yes == 0 or n_yes == n:
        return row
    weights = np.where(hit, chance * n / n_yes, (1.0 - chance) * n / (n - n_yes))
    return row * weights


def _masks(world: World, players: Sequence[str]) -> tuple[tuple[int, ...], dict[str, list[int]]]:
    """A world as hand masks (seat order) and piles of card indices (in the world's order)."""
    hands = tuple(sum(1 << c.index for c in world.hands.get(p, ())) for p in players)
    return hands, {name: [c.index for c in cards] for name, cards in world.piles.items()}


class _WorldSampler:
    """Draws the worlds of one search decision as hand masks (seat order) and piles of
    card indices: exactly uniformly with exact knowledge, else random fillings of the
    hands consistent with the knowledge's candidate holders and the hand sizes.

    With exact knowledge it draws from the counting engine what
    :meth:`ExactKnowledge.sample_worlds` draws (the same counter, so the same worlds
    from the same random numbers) but skips building :class:`World` objects, which were
    a third of the sampling time; a play-out wants bit masks.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view("A")
    >>> knowledge = ExactKnowledge("A"); knowledge.update(view)
    >>> [(hands, piles)] = _WorldSampler(knowledge, view).draw(1, np.random.default_rng(0))
    >>> [world] = knowledge.sample_worlds(1, np.random.default_rng(0))
    >>> (hands, piles) == _masks(world, view.players), [h.bit_count() for h in hands]
    (True, [8, 8, 8, 8])
    """

    def __init__(self, knowledge: KnowledgeBase, view: PlayerView) -> None:
        self.knowledge = knowledge
        self.view = view
        self.counter: WorldCounter | None = None
        if not isinstance(knowledge, ExactKnowledge):
            return
        history = knowledge.history
        # The viewer's dealt hand and draws, as its knowledge takes them in.
        info = private_info(view.deck, view.player, view.hand, view.record)
        self.counter = WorldCounter(history, [info])
        if self.counter.count == 0:
            raise KwartetError("no world is consistent with the record")
        seat = {p: i for i, p in enumerate(view.players)}
        # Per card: the seat known to hold it now (-1: known to lie elsewhere), or None
        # when the record does not say, so that the world's origin slot does.
        self.known = [None if where is None else seat.get(where, -1) for where in history.location]
        self.slot_seat = [-1 if owner is None else seat[owner] for owner in history.slot_owner]
        self.slot_names = history.slot_names

    def draw(
        self, n: int, rng: np.random.Generator
    ) -> list[tuple[tuple[int, ...], dict[str, list[int]]]]:
        """``n`` worlds, each as (hand masks, piles)."""
        counter = self.counter
        if counter is None:
            view = self.view
            worlds = [_fill_hands(self.knowledge, view, rng) for _ in range(n)]
            return [_masks(world, view.players) for world in worlds]
        known, slot_seat, names = self.known, self.slot_seat, self.slot_names
        players = len(self.view.players)
        out = []
        for _ in range(n):
            hands = [0] * players
            piles: dict[str, list[int]] = {}
            for c, slot in sorted(counter.sample(rng).items()):
                holder = known[c]
                if holder is None:
                    holder = slot_seat[slot]
                    if holder < 0:
                        piles.setdefault(names[slot], []).append(c)
                        continue
                if holder >= 0:
                    hands[holder] |= 1 << c
            out.append((tuple(hands), piles))
        return out


def _fill_hands(knowledge: KnowledgeBase, view: PlayerView, rng: np.random.Generator) -> World:
    deck = view.deck
    players = view.players
    probabilities = knowledge.probabilities()
    exposed = {deck.family_index(f) for f in view.exposed}
    face_up = {c.index for c in view.middle if c is not None}
    own = {c.index for c in view.hand}
    hidden = [
        c for c in range(len(deck)) if c // 4 not in exposed and c not in face_up and c not in own
    ]
    me = players.index(view.player)
    for _attempt in range(50):
        room = [view.hand_sizes[p] for p in players]
        room[me] = 0
        hands: dict[str, list[int]] = {p: [] for p in players}
        hands[view.player] = sorted(own)
        piles: list[int] = []
        # Most constrained cards first, so that random filling rarely paints itself in.
        order = sorted(hidden, key=lambda c: (int((probabilities[c] > 0).sum()), rng.random()))
        failed = False
        for c in order:
            options = [q for q in range(len(players)) if room[q] > 0 and probabilities[c, q] > 0]
            if not options:
                options = [q for q in range(len(players)) if room[q] > 0]
            if not options:
                piles.append(c)  # the stock, set-aside or middle cards
                continue
            q = options[int(rng.integers(len(options)))]
            hands[players[q]].append(c)
            room[q] -= 1
        if any(room):
            failed = True
        if not failed:
            break
    return World(
        {p: tuple(deck.cards[c] for c in sorted(h)) for p, h in hands.items()},
        {"stock": tuple(deck.cards[c] for c in piles)} if piles else {},
    )


@dataclass(frozen=True)
class PreparedWorld:
    """A sampled world as a play-out uses it: the hands as bit masks (seat order), the
    stock in drawing order, the ranking of (card, target) pairs for ties, and the cards
    lying out of play."""

    hands: tuple[int, ...]
    stock: tuple[int, ...]
    rank: list[int]
    dead_cards: int


class Playout:
    """A fast play-out of the rest of a game on bit masks, from a player's view.

    Every simulated player asks a card it has seen go to an opponent if it can.  Else,
    with ``weighted`` (the ``likeliest`` rollout of :class:`Search`), the likeliest yes:
    a card's chance to be with an opponent taken as that opponent's share of the unknown
    cards in hand among the opponents not known to lack it, doubled for one who asked
    about the family and is not yet known to hold any of it; ties go by a ranking of
    (card, target) drawn once per play-out.  Without ``weighted``, the card of its
    families with the fewest possible holders (opponents not known to lack it, from the
    public record and the play-out so far) from one of them at random, preferring those
    who asked about that family (they announced holding some of it).

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move)
    >>> playout = Playout.from_view(view)
    >>> world = World({p: game.hand(p) for p in game.players}, {})
    >>> scores = playout.run(world, view.legal_asks()[0], np.random.default_rng(0))
    >>> sum(scores)
    8
    """

    def __init__(
        self,
        view: PlayerView,
        seen: list[int],
        lacks: list[int],
        mine: list[int] | None = None,
        claims: list[int] | None = None,
        weighted: bool = False,
    ) -> None:
        self.view = view
        self.weighted = weighted
        deck = view.deck
        self.n_players = len(view.players)
        self.me = view.players.index(view.player)
        self.n_families = deck.n_families
        self.ones = sum(1 << (4 * f) for f in range(deck.n_families))
        blocked = 0
        for f in view.exposed:
            blocked |= 0b1111 << (4 * deck.family_index(f))
        for c in view.middle:
            if c is not None:
                blocked |= 1 << c.index
        self.blocked = blocked
        self.scores = [view.scores[p] for p in view.players]
        self.seen = seen
        self.lacks = lacks
        # What the viewer alone knows: per opponent, the cards it surely holds.
        self.mine = mine if mine is not None else [0] * len(view.players)
        # Families each player announced holding a card of (by asking for one of them).
        self.claims = claims if claims is not None else _claims(view)
        self.rules = view.rules

    @classmethod
    def from_view(
        cls, view: PlayerView, knowledge: KnowledgeBase | None = None, weighted: bool = False
    ) -> Playout:
        """The public facts of the view's record, as the simulated players will use them.

        With exact knowledge, what everybody knows is read off the public worlds (every
        deduction, not just the record's facts), and the viewer's simulated self also uses
        what it alone knows.
        """
        n = len(view.players)
        seat = {p: i for i, p in enumerate(view.players)}
        seen = [0] * n
        lacks = [0] * n
        if isinstance(knowledge, ExactKnowledge) and not view.rules.draw_pile:
            public = np.nan_to_num(knowledge.public_probabilities(), nan=0.0)
            private = np.nan_to_num(knowledge.probabilities(), nan=0.0)
            mine = [0] * n
            me = seat[view.player]
            for t in range(n):
                seen[t] = _mask(public[:, t] == 1.0)
                lacks[t] = _mask(public[:, t] == 0.0)
                if t != me:
                    mine[t] = _mask(private[:, t] == 1.0) & ~seen[t]
            return cls(view, seen, lacks, mine, weighted=weighted)
        bluffing = view.rules.bluffing
        for event in view.record:
            kind = type(event)
            if kind is CardMoved:
                bit = 1 << event.card.index  # type: ignore[attr-defined]
                seen[seat[event.source]] &= ~bit  # type: ignore[attr-defined]
                seen[seat[event.destination]] |= bit  # type: ignore[attr-defined]
                lacks[seat[event.destination]] &= ~bit  # type: ignore[attr-defined]
            elif kind is Answered and not event.has_card:  # type: ignore[attr-defined]
                lacks[seat[event.target]] |= 1 << event.card.index  # type: ignore[attr-defined]
            elif kind is Asked and not bluffing:
                lacks[seat[event.asker]] |= 1 << event.card.index  # type: ignore[attr-defined]
            elif kind is Drew:
                lacks[seat[event.player]] = 0  # type: ignore[attr-defined]
        return cls(view, seen, lacks, weighted=weighted)

    def value(
        self, world: World, first: Ask, rng: np.random.Generator, objective: str = "score"
    ) -> float:
        """What the play-out starting with ``first`` is worth to the viewer."""
        return self.worth(self.run(world, first, rng), objective)

    def worth(self, scores: list[int], objective: str) -> float:
        """What final ``scores`` (seat order) are worth to the viewer under ``objective``."""
        mine = scores[self.me]
        if objective == "score":
            return float(mine)
        best_other = max(s for i, s in enumerate(scores) if i != self.me)
        if objective == "margin":
            return float(mine - best_other)
        top = max(scores)
        return 1.0 / scores.count(top) if mine == top else 0.0

    def run(self, world: World, first: Ask, rng: np.random.Generator) -> list[int]:
        """Final scores (seat order) of the game played on from ``world`` with ``first``."""
        return self.play(self.prepare(world, rng), first, rng)

    def prepare(self, world: World, rng: np.random.Generator) -> PreparedWorld:
        """The world as bit masks, with the random numbers a play-out draws first (the
        stock's order and the tie ranking): the same for every first ask played in it, so
        :class:`Search` prepares each world once and replays the generator's state."""
        hands, piles = _masks(world, self.view.players)
        return self.prepare_masks(hands, piles, rng)

    def prepare_masks(
        self, hands: tuple[int, ...], piles: Mapping[str, list[int]], rng: np.random.Generator
    ) -> PreparedWorld:
        """:meth:`prepare` for a world given as hand masks (seat order) and piles of card
        indices."""
        stock = list(piles.get("stock", ()))
        if stock:
            order = rng.permutation(len(stock))
            stock = [stock[int(i)] for i in order]
        n = self.n_players
        rank = rng.permutation(len(self.view.deck) * n).tolist() if self.weighted else []
        dead_cards = 0
        for name in ("aside", "middle"):
            for c in piles.get(name, ()):
                dead_cards |= 1 << c
        return PreparedWorld(tuple(hands), tuple(stock), rank, dead_cards)

    def play(self, prepared: PreparedWorld, first: Ask, rng: np.random.Generator) -> list[int]:
        """Final scores (seat order) of the game played on from a prepared world with
        ``first``; ``rng`` as :meth:`prepare` left it.

        A weighted play-out draws no random numbers, and runs in the compiled kernel
        where it can (decks of up to 64 cards, up to 16 players; the counting options'
        ``kernel``, as for the counting engine); the Python code here is its reference,
        with the same scores."""
        view = self.view
        players = view.players
        n = self.n_players
        if (
            self.weighted
            and current_options().kernel
            and _KERNEL_PLAYOUT is not None
            and self.n_families <= 16
            and n <= _KERNEL_MAX_PLAYERS
        ):
            rules = self.rules
            scores = _KERNEL_PLAYOUT(
                prepared.hands,
                prepared.stock,
                prepared.rank,
                prepared.dead_cards,
                self.seen,
                self.lacks,
                self.mine,
                self.claims,
                self.scores,
                self.blocked,
                self.n_families,
                self.me,
                players.index(first.target),
                first.card.index,
                rules.bluffing,
                rules.refusal_turn == "clockwise",
                rules.bonus_turn,
            )
            if scores is not None:
                return scores
        hands = list(prepared.hands)
        stock = list(prepared.stock)
        rank = prepared.rank
        dead_cards = prepared.dead_cards
        spread_dead = dead_cards | dead_cards >> 1
        spread_dead |= spread_dead >> 2
        blocked = self.blocked
        unfinished = ((1 << (4 * self.n_families)) - 1) & ~blocked
        unfinished &= ~((spread_dead & self.ones) * 0b1111)
        seen = list(self.seen)
        lacks = list(self.lacks)
        mine = list(self.mine)
        claims = list(self.claims)
        me = self.me
        scores = list(self.scores)
        ones = self.ones
        bluffing = self.rules.bluffing
        clockwise = self.rules.refusal_turn == "clockwise"
        bonus = self.rules.bonus_turn

        def askable(seat: int) -> int:
            hand = hands[seat]
            spread = hand | hand >> 1
            spread |= spread >> 2
            return (spread & ones) * 0b1111 & ~blocked & ~hand

        def expose(seat: int, card: int) -> bool:
            nonlocal blocked, unfinished
            family = 0b1111 << (4 * (card // 4))
            if hands[seat] & family == family:
                hands[seat] &= ~family
                blocked |= family
                unfinished &= ~family
                scores[seat] += 1
                return True
            return False

        def mover(seat: int) -> tuple[int, int] | None:
            """The first seat from ``seat`` on that can ask, and the cards it may ask for."""
            if hands.count(0) > n - 2:  # fewer than two players hold cards
                return None
            for k in range(n):
                s = (seat + k) % n
                if hands[s]:
                    wanted = askable(s)
                    if wanted:
                        return s, wanted
            return None

        seat = self.me
        target = players.index(first.target)
        card = first.card.index
        for _step in range(10_000):
            bit = 1 << card
            claims[seat] |= 0b1111 << (4 * (card // 4))
            if hands[target] & bit:
                hands[target] &= ~bit
                hands[seat] |= bit
                seen[target] &= ~bit
                mine[target] &= ~bit
                seen[seat] |= bit
                lacks[seat] &= ~bit
                expose(seat, card)
                next_seat = seat
            else:
                lacks[target] |= bit
                if not bluffing:
                    lacks[seat] |= bit
                next_seat = (seat + 1) % n if clockwise else target
                if stock:
                    drawn = stock.pop()
                    hands[seat] |= 1 << drawn
                    lacks[seat] = 0
                    if expose(seat, drawn) and bonus and hands[seat]:
                        next_seat = seat
            if not unfinished:
                break
            chosen = mover(next_seat)
            while chosen is None and stock:
                holders = [(next_seat + k) % n for k in range(n) if hands[(next_seat + k) % n]]
                drawer = holders[0] if holders else next_seat
                drawn = stock.pop()
                hands[drawer] |= 1 << drawn
                lacks[drawer] = 0
                expose(drawer, drawn)
                if not unfinished:
                    break
                chosen = mover(next_seat)
            if chosen is None or not unfinished:
                break
            seat, wanted = chosen
            targets = [t for t in range(n) if t != seat and hands[t]]
            target = -1
            for t in targets:
                sure = wanted & (seen[t] | mine[t] if seat == me else seen[t])
                if sure:
                    target, card = t, (sure & -sure).bit_length() - 1
                    break
            if target < 0 and self.weighted:
                target, card = _likeliest(
                    wanted,
                    targets,
                    hands,
                    seen,
                    mine if seat == me else None,
                    lacks,
                    claims,
                    rank,
                    n,
                )
            if target < 0:
                # The card with the fewest possible holders, and one of them at random.
                fewest: list[int] = []
                least = n
                pool = wanted
                while pool:
                    low = pool & -pool
                    pool ^= low
                    possible = sum(1 for t in targets if not lacks[t] & low)
                    if possible and possible < least:
                        least = possible
                        fewest = [low]
                    elif possible == least:
                        fewest.append(low)
                if fewest:
                    low = fewest[int(rng.integers(len(fewest)))]
                    open_targets = [t for t in targets if not lacks[t] & low]
                    # Whoever asked for the family holds some of it: ask them first.
                    open_targets = [t for t in open_targets if claims[t] & low] or open_targets
                    target = open_targets[int(rng.integers(len(open_targets)))]
                    card = low.bit_length() - 1
                else:
                    target = targets[int(rng.integers(len(targets)))]
                    card = _nth_bit(wanted, int(rng.integers(wanted.bit_count())))
        return scores


def _likeliest(
    wanted: int,
    targets: list[int],
    hands: list[int],
    seen: list[int],
    mine: list[int] | None,
    lacks: list[int],
    claims: list[int],
    rank: list[int],
    n: int,
) -> tuple[int, int]:
    """The likeliest yes of a play-out player who wants the cards ``wanted``: (target,
    card).  A card's chance to be with an opponent is that opponent's weight over the
    weights of all opponents not known to lack it; the weight is the opponent's number of
    unknown cards in hand, doubled if it asked about the card's family and is not yet
    known to hold any of it.  Ties go by ``rank`` of (card, target); with no candidate at
    all, any wanted card of any target.

    Cards that the same opponents may hold with the same weights have the same chances,
    so the wanted cards are split into such groups with bit operations, and each group is
    scored once (a play-out makes this choice at every step: it is most of the search's
    time).  Chances are ratios of small integers, so equal ones are equal floats and the
    order of scoring does not change the choice.

    >>> _likeliest(0b0110, [1, 2], [0, 0b1, 0b1], [0, 0, 0], None, [0, 0b0100, 0], [0] * 3,
    ...            list(range(12)), 3)
    (2, 2)
    """
    # (cards, [(target, weight), ...]): the targets in seat order, as the weights are summed.
    # (cards, [(target, weight), ...], total weight): the weights in seat order and summed
    # in that order (as they always were: the same floats).
    groups: list[tuple[int, list[tuple[int, float]], float]] = [(wanted, [], 0)]
    for t in targets:
        known = seen[t] | mine[t] if mine is not None else seen[t]
        free = (hands[t] & ~known).bit_count()
        if free <= 0:
            continue
        open_cards = wanted & ~lacks[t]
        if not open_cards:
            continue
        # The families t asked about and of which no card is known to be with t.
        held = seen[t]
        held |= held >> 1
        held |= held >> 2
        held = (held & _NIBBLE_ONES) * 0b1111
        claimed = open_cards & claims[t] & ~held
        plain = open_cards & ~claimed
        split = []
        double, single = free * 2.0, free * 1.0
        for cards, members, total in groups:
            if cards & claimed:
                split.append((cards & claimed, [*members, (t, double)], total + double))
            if cards & plain:
                split.append((cards & plain, [*members, (t, single)], total + single))
            if cards & ~open_cards:
                split.append((cards & ~open_cards, members, total))
        groups = split
    best = 0.0
    choices: list[tuple[int, int]] = []  # (target, cards) scored best so far
    for cards, members, total in groups:
        for t, weight in members:
            chance = weight / total
            if chance > best + 1e-9:
                best, choices = chance, [(t, cards)]
            elif chance > best - 1e-9:
                choices.append((t, cards))
    if not choices:
        choices = [(t, wanted) for t in targets]
    top = -1
    pick = (-1, -1)
    for t, cards in choices:
        while cards:
            low = cards & -cards
            cards ^= low
            c = low.bit_length() - 1
            if rank[c * n + t] > top:
                top, pick = rank[c * n + t], (t, c)
    return pick


# One bit per family (the lowest of its four), for up to 64 families.
_NIBBLE_ONES = sum(1 << (4 * f) for f in range(64))


def _claims(view: PlayerView) -> list[int]:
    """Per seat, the families (4-bit groups) it asked about in the record."""
    seat = {p: i for i, p in enumerate(view.players)}
    claims = [0] * len(view.players)
    for event in view.record:
        if type(event) is Asked:
            claims[seat[event.asker]] |= 0b1111 << (4 * event.card.family_index)
    return claims


def _mask(flags: np.ndarray) -> int:
    """The bit mask of the true entries (card indices)."""
    return sum(1 << int(i) for i in np.flatnonzero(flags))


def _bits(mask: int) -> list[int]:
    """The indices of the set bits of ``mask``, lowest first.

    >>> _bits(0b1010)
    [1, 3]
    """
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def _nth_bit(mask: int, n: int) -> int:
    """The index of the ``n``-th set bit of ``mask`` (lowest first)."""
    for _ in range(n):
        mask &= mask - 1
    return (mask & -mask).bit_length() - 1


def __getattr__(name: str) -> Any:
    if name == "USE_KERNEL":  # the old switch: the counting options' kernel now
        warnings.warn(
            "search.USE_KERNEL is deprecated: use `with counting.options(kernel=...)`",
            DeprecationWarning,
            stacklevel=2,
        )
        return current_options().kernel
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
