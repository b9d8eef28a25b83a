"""Leakage and hiding: what an ask tells the table, and what a policy-aware listener hears
(research question f).

**(1) Bits per ask.**  For an ask by ``a`` (for card ``c`` of family ``f``, of target
``b``) and an observer ``O`` (every other player), with ``W_O`` the exact number of worlds
``O`` considers possible (the counting engine; Python integers):

* ``bits_ask = log2(W_O(before the ask) / W_O(after the Asked event))``: the information
  of the ask itself.  The Asked event announces "``a`` holds a card of ``f``" and, without
  bluffing, "``a`` lacks ``c``", a predicate of ``a``'s cards of ``f`` alone, so under the
  uniform prior these bits are *exactly* what the ask reveals about the asker's hand
  (the surprisal ``-log2 P_O(predicate)``);
* ``bits_answer = log2(W_O(after the Asked event) / W_O(after the whole move))``: the
  answer, the card handed over, a quartet laid down (about the target, mostly);
* ``H_before``, ``H_after``: the entropy (bits) of ``O``'s exact distribution over which
  of the four cards of ``f`` the asker holds (16 cases, each counted exactly by restricting
  the cards' origins), before the ask and after the Asked event; ``dH = H_before -
  H_after`` is the entropy change of the asker's hand restricted to the asked family.  It
  can be negative (an ask can make a hand less predictable); ``bits_ask`` cannot.

Both are exact, under the library's uniform-likelihood assumption (every consistent deal
equally likely).  Rows are averaged over the observers.

**(2) Does hiding pay.**  Each policy ``P`` plays seat-rotated games against three
``knowledge`` players (exact listeners: everything an ask reveals under the uniform model
is used against the asker), every one of the 4 seatings equally often, with one
tournament seed for all policies, so game ``k`` has the same deal and seating for every
``P`` (paired).  Its win share (95% interval), its twin's, the paired difference (t
interval over games), and the mean ``bits_ask`` of ``P``'s own asks (measured on the
first ``--leak-games`` of those games, replayed).  Twins: ``silent``, ``mixed`` against
``greedy``; ``higher_order`` against ``knowledge``; ``tips[remember,X]`` against
``tips[remember]`` for the tips ``hide``, ``spread``, ``bluff``; and, under the rule option
``bluffing``, ``greedy_bluff``, ``silent``, ``mixed`` against ``greedy``.

**(3) The policy-aware posterior.**  The uniform posterior treats every consistent world
as equally likely.  If the opponents play a known policy ``pi`` (with known randomness:
uniform tie-breaks), the Bayesian posterior of observer ``O`` weighs world ``w`` by
``L(w) = prod over the opponents' past asks t of pi(ask_t | view of its asker in w at
t)``: the asker's view in ``w`` (its hand then, the public record) is rebuilt by replaying
the record on ``w``'s deal, and the asker's exact knowledge of that view gives ``pi``'s
choice probabilities (:func:`ask_distribution`: ``random``, ``greedy``, ``knowledge``,
``silent``, ``mixed``).  ``O``'s own asks and every answer do not depend on ``w`` beyond
consistency, so they cancel.  The weight factorises over the opponents (each factor
depends only on that opponent's dealt hand), and factors are cached per (opponent, hand).
Computed two ways: *exact reweighting* over every world of ``O`` (enumerated; small decks:
16 cards, 3 players) and *importance sampling*: ``N`` exactly uniform worlds
(``sample_worlds``), self-normalised weights, effective sample size ``ESS = (sum w)^2 /
sum w^2``.  On the small deck both are compared (the sampling error shrinks as ``N``
grows); at full size (32 cards, 4 players) only sampling is possible, and its own noise
is measured by the same statistic on the same samples with equal weights (``noise``).
Reported per decision: the total variation between the uniform and the policy-aware
location distribution of each card ``O`` does not hold (mean over those cards) and the
largest absolute difference of one probability.

**(4) The posterior agent.**  ``posterior_knowledge``: the ``knowledge`` policy fed the
policy-aware probabilities (exact reweighting, opponents modelled as ``knowledge``), on
the small deck, against two ``knowledge`` players, paired with the plain ``knowledge``
player in its seat on the same deals and random numbers (a difference in win share, t
interval over games).  It is kept in this script (not in the library): it needs every
world of its view enumerated, which only small decks allow.

**Outputs** in ``--out``: ``leakage_asks.csv`` (one row per ask of the measured seat:
rules, policy, game, ask number, bits, entropies), ``leakage_matches.csv`` (per policy and
game: the seat's win share), ``leakage_posterior.csv`` (per decision: setting, method,
``N``, mean TV, max difference, ESS, noise), ``leakage_agent.csv`` (per paired game),
``leakage_bits.png``/``.pdf``, ``leakage_posterior.png``/``.pdf``, ``leakage_numbers.tex``,
``leakage_table.tex`` and ``leakage.txt`` (the summary, also printed).  Every CSV is
appended a game at a time; a run started again skips what it holds.

Run: ``nice -n 10 python experiments/leakage.py --jobs 2 --out DIR`` (``--quick``: tiny).
"""

from __future__ import annotations

import argparse
import itertools
import math
import os
import sys
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

import _latex  # noqa: E402

import kwartet_epistemic as kw  # noqa: E402
from kwartet_epistemic.agents.knowledge import ExactKnowledge  # noqa: E402
from kwartet_epistemic.agents.policies import (  # noqa: E402
    KnowledgePolicy,
    Policy,
    Situation,
    located_asks,
)
from kwartet_epistemic.epistemics.counting import WorldCounter  # noqa: E402
from kwartet_epistemic.epistemics.history import PrivateInfo, PublicHistory, private_info  # noqa: E402
from kwartet_epistemic.events import Answered, Asked, QuartetExposed  # noqa: E402
from kwartet_epistemic.files import UnitLog  # noqa: E402
from kwartet_epistemic.game import Ask, Game, PlayerView  # noqa: E402
from kwartet_epistemic.tournament import play_game, replay_game, share_interval  # noqa: E402

SCRIPT = "experiments/leakage.py"
PREFIX = "kwLeak"

# ----- (1) bits per ask --------------------------------------------------------------


def _log2_ratio(a: int, b: int) -> float:
    """log2(a / b) for (big) positive integers, exactly to float precision."""
    return math.log2(a) - math.log2(b)


def family_entropy(history: PublicHistory, info: PrivateInfo, player: str, f: int) -> float:
    """The entropy (bits) of ``info``'s viewer's exact distribution over which cards of
    family ``f`` ``player`` holds now: each of the (at most 16) cases counted by
    restricting the family's hidden cards to ``player``'s hand or away from it.

    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
    >>> h = PublicHistory(game.deck, game.players, game.rules); h.extend(game.record)
    >>> info = private_info(game.deck, "A", game.hand("A"), game.record)
    >>> family_entropy(h, info, "A", 0)                # A knows its own hand
    0.0
    >>> 0.0 < family_entropy(h, info, "B", 0) <= 4.0
    True
    """
    cards = [4 * f + i for i in range(4)]
    hidden = [c for c in cards if history.location[c] is None]
    reach = history.reach[player]
    counts = []
    for k in range(len(hidden) + 1):
        for chosen in itertools.combinations(hidden, k):
            restrict = {c: (reach if c in chosen else ~reach) for c in hidden}
            n = WorldCounter(history, [info], restrict=restrict).count
            if n:
                counts.append(n)
    total = sum(counts)
    return -sum(n / total * math.log2(n / total) for n in counts if n != total)


@dataclass
class AskLeak:
    """One ask and what it told the other players (means over them)."""

    number: int  # the ask's number in the game (1, 2, ...)
    asker: str
    target: str
    card: str
    yes: bool
    own_number: int  # the asker's own ask count so far (1 for its first ask)
    bits_ask: float
    bits_answer: float
    h_before: float
    h_after: float

    @property
    def dh(self) -> float:
        return self.h_before - self.h_after


def ask_leakage(game: Game, askers: Iterable[str] | None = None) -> list[AskLeak]:
    """Every ask of the finished ``game`` (of the players ``askers``, default all) with
    its bits and entropies, averaged over the other players as observers (section (1)).

    >>> result = kw.tournament.play_game(["knowledge"] * 3, seed=4, deck=kw.Deck.piquet(families=4))
    >>> rows = ask_leakage(kw.tournament.replay_game(result, deck=kw.Deck.piquet(families=4)))
    >>> len(rows) == result.asks and all(r.bits_ask >= 0 and r.bits_answer >= 0 for r in rows)
    True
    """
    record = game.record
    players = game.players
    wanted = set(players if askers is None else askers)
    infos = {p: private_info(game.deck, p, game.view(p).hand, record) for p in players}
    history = PublicHistory(game.deck, players, game.rules)
    own_counts = dict.fromkeys(players, 0)
    rows: list[AskLeak] = []
    pending: tuple[Asked, dict[str, int], dict[str, int], list[float], list[float]] | None = None
    number = 0

    def close(counts_after: dict[str, int]) -> None:
        nonlocal pending
        if pending is None:
            return
        asked, before, middle, h0, h1 = pending
        observers = [p for p in players if p != asked.asker]
        answer = next_answer[0]
        rows.append(
            AskLeak(
                number, asked.asker, asked.target, asked.card.code, answer,
                own_counts[asked.asker],
                float(np.mean([_log2_ratio(before[o], middle[o]) for o in observers])),
                float(np.mean([_log2_ratio(middle[o], counts_after[o]) for o in observers])),
                float(np.mean(h0)), float(np.mean(h1)),
            )
        )  # fmt: skip
        pending = None

    next_answer = [False]
    for i, event in enumerate(record):
        following = record[i + 1] if i + 1 < len(record) else None
        if type(event) is Asked:
            counts = {p: WorldCounter(history, [infos[p]]).count for p in players}
            close(counts)
            number += 1
            own_counts[event.asker] += 1
            measure = event.asker in wanted
            observers = [p for p in players if p != event.asker]
            f = event.card.family_index
            h0 = (
                [family_entropy(history, infos[o], event.asker, f) for o in observers]
                if measure
                else []
            )
            history.extend([event.public()], settled=True)
            if measure:
                middle = {p: WorldCounter(history, [infos[p]]).count for p in players}
                h1 = [family_entropy(history, infos[o], event.asker, f) for o in observers]
                pending = (event, counts, middle, h0, h1)
            continue
        if type(event) is Answered:
            next_answer[0] = event.has_card
        history.extend([event.public()], settled=not isinstance(following, QuartetExposed))
    if pending is not None:
        close({p: WorldCounter(history, [infos[p]]).count for p in players})
    # Rows are numbered by the ask they describe.
    return rows


# ----- (3) policy likelihoods --------------------------------------------------------


def _uniform(mask: np.ndarray) -> np.ndarray:
    return mask / mask.sum()


def _greedy_distribution(s: Situation) -> np.ndarray:
    known = s.chances == 1.0
    if known.any():
        counts = s.family_counts
        return _uniform(known & (counts == counts[known].max()))
    return np.full(len(s.asks), 1.0 / len(s.asks))


def _silent_distribution(s: Situation) -> np.ndarray:
    n = len(s.asks)
    located = located_asks(s)
    if located:
        out = np.zeros(n)
        out[located] = 1.0 / len(located)
        return out
    cards = s.ask_cards
    families = cards // 4
    random_request = np.zeros(n)
    family_set = sorted(set(families.tolist()))
    for fam in family_set:
        in_family = sorted(set(cards[families == fam].tolist()))
        for c in in_family:
            targets = cards == c
            random_request[targets] = 1.0 / len(family_set) / len(in_family) / targets.sum()
    own = sorted({int(c) for c in cards.tolist() if int(c) in s.own})
    if not own:
        return random_request
    own_request = np.zeros(n)
    for c in own:
        targets = cards == c
        own_request[targets] = 1.0 / len(own) / targets.sum()
    return own_request / 3.0 + random_request * 2.0 / 3.0


def _knowledge_distribution(s: Situation) -> np.ndarray:
    chances = s.chances
    best = chances == chances.max()
    if best.sum() > 1:
        counts = s.family_counts
        best &= counts == counts[best].max()
    return _uniform(best)


MODELLED = ("random", "greedy", "knowledge", "silent", "mixed")
"""The policies whose choice probabilities :func:`ask_distribution` gives."""


def ask_distribution(policy: str, situation: Situation) -> np.ndarray:
    """The probability with which ``policy`` (one of :data:`MODELLED`, exactly as the
    library plays it, ties and coins included) makes each of ``situation.asks``.

    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> view = game.view(game.to_move); k = ExactKnowledge(view.player); k.update(view)
    >>> s = Situation(view, k, view.legal_asks())
    >>> [round(float(ask_distribution(p, s).sum()), 12) for p in MODELLED]
    [1.0, 1.0, 1.0, 1.0, 1.0]
    """
    if policy == "random":
        return np.full(len(situation.asks), 1.0 / len(situation.asks))
    if policy == "greedy":
        return _greedy_distribution(situation)
    if policy == "knowledge":
        return _knowledge_distribution(situation)
    if policy == "silent":
        return _silent_distribution(situation)
    if policy == "mixed":
        return 0.5 * _greedy_distribution(situation) + 0.5 * _silent_distribution(situation)
    raise kw.KwartetError(f"policy {policy!r}: expected one of {', '.join(MODELLED)}")


def _ask_actions(record: Sequence[Any]) -> list[tuple[str, str, str, bool]]:
    """(asker, target, card code, answer) of every ask in the record, in order."""
    out = []
    for i, event in enumerate(record):
        if type(event) is Asked:
            answer = record[i + 1]
            assert type(answer) is Answered
            out.append((event.asker, event.target, event.card.code, answer.has_card))
    return out


class _Replay:
    """One hypothetical deal, replayed along the real record's asks; it gives each
    modelled player's choice probability of its own asks (a factor per ask)."""

    def __init__(
        self, deck: kw.Deck, rules: kw.RuleSet, dealt: dict[str, list[int]], first: str,
        modelled: dict[str, str],
    ) -> None:  # fmt: skip
        hands = {p: [deck.cards[c] for c in cards] for p, cards in dealt.items()}
        self.game = Game.from_hands(deck, hands, first=first, rules=rules)
        self.modelled = modelled
        self.knowledge = {p: ExactKnowledge(p) for p in modelled}
        self.done = 0
        # Exact rationals: the choice probabilities are ratios of small integers, and
        # exact weights keep the ties of exactly equal posteriors (floats could break them).
        self.factors: dict[str, Fraction] = dict.fromkeys(modelled, Fraction(1))

    def advance(self, actions: Sequence[tuple[str, str, str, bool]]) -> None:
        """Play the asks ``actions[self.done:]``, multiplying in the modelled askers'
        choice probabilities (a factor that reaches 0 is not computed further)."""
        game = self.game
        for asker, target, code, answer in actions[self.done :]:
            if all(v == 0 for v in self.factors.values()):
                break  # every factor is final: 0 stays 0
            if game.to_move != asker:
                raise kw.KwartetError(f"replay: {asker} asks but {game.to_move} is to move")
            if asker in self.modelled and self.factors[asker] != 0:
                view = game.view(asker)
                knowledge = self.knowledge[asker]
                knowledge.update(view)
                asks = view.legal_asks()
                situation = Situation(view, knowledge, asks)
                index = next(
                    i for i, a in enumerate(asks) if a.target == target and a.card.code == code
                )
                chance = float(ask_distribution(self.modelled[asker], situation)[index])
                self.factors[asker] *= Fraction(chance).limit_denominator(1 << 24)
            events = game.ask(target, code)
            if events[1].has_card != answer:  # type: ignore[attr-defined]
                raise kw.KwartetError("replay: a world inconsistent with the record")
        self.done = len(actions)


def _dealt_hands(history: PublicHistory, origins: np.ndarray) -> dict[str, list[int]]:
    """Each player's dealt cards in a world given by every card's origin slot."""
    out: dict[str, list[int]] = {p: [] for p in history.players}
    for c, slot in enumerate(origins.tolist()):
        owner = history.slot_owner[slot]
        if owner is None:
            raise kw.KwartetError("worlds with piles are not modelled here")
        out[owner].append(c)
    return out


def _current_holders(history: PublicHistory, origins: np.ndarray) -> np.ndarray:
    """Per card, the column of its holder now (-1: exposed) in the world ``origins``."""
    column = {p: i for i, p in enumerate(history.players)}
    out = np.empty(len(origins), dtype=np.int64)
    for c, slot in enumerate(origins.tolist()):
        where = history.location[c]
        if where is None:
            out[c] = column[str(history.slot_owner[slot])]
        else:
            out[c] = column.get(where, -1)
    return out


def enumerate_worlds(history: PublicHistory, info: PrivateInfo) -> np.ndarray:
    """Every world ``info``'s viewer considers possible, as rows of origin slots per card
    (small decks only: the rows are listed; the count equals the counting engine's).

    >>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=2)
    >>> h = PublicHistory(game.deck, game.players, game.rules); h.extend(game.record)
    >>> info = private_info(game.deck, "A", game.hand("A"), game.record)
    >>> len(enumerate_worlds(h, info)) == WorldCounter(h, [info]).count
    True
    """
    n = len(history.deck)
    own_slot = history.players.index(info.player)
    masks = []
    for c in range(n):
        mask = history.allowed[c]
        mask &= (1 << own_slot) if c in info.dealt else ~(1 << own_slot)
        masks.append(mask)
    capacity = list(history.capacity)
    origins = [-1] * n
    for c in range(n):
        if masks[c] & (masks[c] - 1) == 0:
            if masks[c] == 0:
                return np.zeros((0, n), dtype=np.int64)
            origins[c] = masks[c].bit_length() - 1
            capacity[origins[c]] -= 1
    if min(capacity) < 0:
        return np.zeros((0, n), dtype=np.int64)
    free = [c for c in range(n) if origins[c] < 0]
    slots = range(len(capacity))
    out: list[list[int]] = []
    last_of_family = {}
    for c in free:
        last_of_family[c // 4] = c

    def family_ok(f: int) -> bool:
        four = origins[4 * f : 4 * f + 4]
        return all(clause.satisfied(four) for clause in history.clauses[f])

    def place(i: int) -> None:
        if i == len(free):
            out.append(list(origins))
            return
        c = free[i]
        for s in slots:
            if masks[c] >> s & 1 and capacity[s] > 0:
                origins[c] = s
                capacity[s] -= 1
                if last_of_family.get(c // 4) != c or family_ok(c // 4):
                    place(i + 1)
                capacity[s] += 1
        origins[c] = -1

    for f in range(history.deck.n_families):
        if f not in last_of_family and not family_ok(f):
            return np.zeros((0, n), dtype=np.int64)
    place(0)
    return np.array(out, dtype=np.int64).reshape(len(out), n)


@dataclass
class PolicyPosterior:
    """Observer ``player``'s policy-aware posterior in a game whose other players play
    the policies ``models`` (player -> one of :data:`MODELLED`): weights of worlds, cached
    per (opponent, dealt hand) and extended as the record grows."""

    player: str
    models: dict[str, str]
    cache: dict[tuple[str, tuple[int, ...]], _Replay] = field(default_factory=dict)

    def weights(
        self, deck: kw.Deck, rules: kw.RuleSet, history: PublicHistory, record: Sequence[Any],
        worlds: np.ndarray,
    ) -> np.ndarray:  # fmt: skip
        """The (unnormalised) policy likelihood of each world (rows of origins), as exact
        fractions (an object array)."""
        actions = _ask_actions(record)
        dealer = record[0].dealer
        players = history.players
        first = players[(players.index(dealer) + 1) % len(players)]
        out = np.array([Fraction(1)] * len(worlds), dtype=object)
        for w, origins in enumerate(worlds):
            dealt = _dealt_hands(history, origins)
            keys = {q: (q, tuple(sorted(dealt[q]))) for q in self.models}
            missing = {q: self.models[q] for q, key in keys.items() if key not in self.cache}
            if missing:  # one replay of this deal serves every opponent not yet cached
                replay = _Replay(deck, rules, dealt, first, missing)
                for q in missing:
                    self.cache[keys[q]] = replay
            for opponent, key in keys.items():
                replay = self.cache[key]
                if replay.done < len(actions):
                    replay.advance(actions)
                out[w] *= replay.factors[opponent]
                if out[w] == 0:
                    break
        return out


def location_matrix(
    history: PublicHistory, worlds: np.ndarray, weights: np.ndarray | None = None
) -> np.ndarray:
    """``[cards, players]``: the (weighted) share of ``worlds`` in which each player holds
    each card now.  Exact weights (integers or fractions) give each entry as the correctly
    rounded float of the exact share (so equal weights give the counting engine's
    probabilities, bit for bit); float weights a float sum."""
    n_players = len(history.players)
    n_cards = len(history.deck)
    if weights is None:
        weights = np.ones(len(worlds), dtype=np.int64)
    weights = np.asarray(weights)
    if weights.dtype == object or weights.dtype.kind in "iu":
        sums: list[list[Any]] = [[0] * n_players for _ in range(n_cards)]
        for row, weight in zip(worlds, weights.tolist(), strict=True):
            if weight == 0:
                continue
            for c, h in enumerate(_current_holders(history, row).tolist()):
                if h >= 0:
                    sums[c][h] += weight
        total = Fraction(sum(weights.tolist()))
        return np.array([[float(Fraction(x) / total) for x in row] for row in sums])
    p = np.zeros((n_cards, n_players))
    w = weights.astype(float) / float(weights.sum())
    for row, weight in zip(worlds, w, strict=True):
        if weight == 0.0:
            continue
        holders = _current_holders(history, row)
        live = holders >= 0
        p[np.flatnonzero(live), holders[live]] += weight
    return p


def compare(uniform: np.ndarray, aware: np.ndarray, cards: Sequence[int]) -> tuple[float, float]:
    """(mean over ``cards`` of the total variation between their location rows, largest
    absolute difference of one probability)."""
    if not len(cards):
        return 0.0, 0.0
    diff = np.abs(uniform[list(cards)] - aware[list(cards)])
    return float(diff.sum(axis=1).mean() / 2.0), float(diff.max())


def _unknown_cards(history: PublicHistory, info: PrivateInfo) -> list[int]:
    """The cards whose holder the observer cannot read off the record or its hand."""
    return [
        c for c in range(len(history.deck)) if history.location[c] is None and c not in info.dealt
    ]


# ----- (4) the posterior agent -------------------------------------------------------


class _ReweightedKnowledge:
    """The knowledge part of ``posterior_knowledge``: the exact worlds of the view,
    weighted by the opponents' policy likelihoods (exact reweighting)."""

    kind = "exact+policy"

    def __init__(self, player: str, model: str) -> None:
        self.player = player
        self.model = model
        self._posterior: PolicyPosterior | None = None
        self._first: Any = None
        self._matrix: np.ndarray | None = None

    def update(self, view: PlayerView) -> None:
        if self._posterior is None or view.record[0] is not self._first:
            models = {p: self.model for p in view.players if p != self.player}
            self._posterior = PolicyPosterior(self.player, models)
            self._first = view.record[0]
        history = PublicHistory(view.deck, view.players, view.rules)
        history.extend(view.record)
        info = private_info(view.deck, self.player, view.hand, view.record)
        worlds = enumerate_worlds(history, info)
        weights = self._posterior.weights(view.deck, view.rules, history, view.record, worlds)
        if not any(weights.tolist()):  # the model is wrong about somebody: uniform
            weights = np.ones(len(worlds), dtype=np.int64)
        self._matrix = location_matrix(history, worlds, weights)
        self._players = view.players

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        assert self._matrix is not None
        return self._matrix

    def known_holder(self, card: Any) -> str | None:  # pragma: no cover - not used by the policy
        return None


class PosteriorKnowledge(Policy):
    """The ``knowledge`` policy on the policy-aware posterior (opponents modelled as
    ``model``): section (4)."""

    name = "posterior_knowledge"

    def __init__(self, model: str = "knowledge") -> None:
        self.model = model
        self._knowledge: _ReweightedKnowledge | None = None

    def choose(
        self, view: PlayerView, knowledge: Any, asks: Sequence[Ask], rng: np.random.Generator
    ) -> Ask:
        if self._knowledge is None or self._knowledge.player != view.player:
            self._knowledge = _ReweightedKnowledge(view.player, self.model)
        self._knowledge.update(view)
        return KnowledgePolicy().decide(Situation(view, self._knowledge, asks), rng)


def _register() -> None:
    if "posterior_knowledge" not in kw.agents.policy_names():
        kw.register_policy("posterior_knowledge", lambda options: PosteriorKnowledge())


_register()


# ----- drivers -----------------------------------------------------------------------

RULES = {"publisher": kw.RuleSet(), "bluffing": kw.RuleSet(bluffing=True)}
FIELD = "knowledge"  # the three listeners every measured policy plays against

TWINS: tuple[tuple[str, str, str], ...] = (
    ("publisher", "silent", "greedy"),
    ("publisher", "mixed", "greedy"),
    ("publisher", "higher_order", "knowledge"),
    ("publisher", "tips[remember,hide]", "tips[remember]"),
    ("publisher", "tips[remember,spread]", "tips[remember]"),
    ("publisher", "tips[remember,bluff]", "tips[remember]"),
    ("bluffing", "greedy_bluff", "greedy"),
    ("bluffing", "silent", "greedy"),
    ("bluffing", "mixed", "greedy"),
)
"""(rules, hiding policy, its non-hiding twin)."""

POLICIES: tuple[tuple[str, str], ...] = tuple(
    dict.fromkeys([("publisher", "random")] + [(r, p) for r, h, t in TWINS for p in (t, h)])
)
"""Every (rules, policy) measured against the field, twins first."""


def game_seed(seed: int, k: int) -> int:
    """The deal seed of game ``k`` (the same for every policy: games are paired)."""
    state = np.random.SeedSequence([seed, k]).generate_state(1, dtype=np.uint64)[0]
    return int(state >> np.uint64(1))


def _match_task(
    args: tuple[str, str, int, int, bool],
) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """One game of ``policy`` (in seat ``k mod 4``) against three of the field, and, if
    ``leak``, the leakage of its asks."""
    rules_name, policy, seed, k, leak = args
    rules = RULES[rules_name]
    seat = k % 4
    agents = [FIELD] * 4
    agents[seat] = policy
    result = play_game(agents, game_seed(seed, k), rules=rules, game_index=k)
    row = {
        "rules": rules_name, "policy": policy, "game": k, "seat": "ABCD"[seat],
        "share": result.share(seat), "quartets": result.scores[seat], "asks": result.asks,
        "finished": int(result.finished),
    }  # fmt: skip
    leaks = []
    if leak:
        game = replay_game(result, rules=rules)
        for r in ask_leakage(game, askers=["ABCD"[seat]]):
            leaks.append({
                "rules": rules_name, "policy": policy, "game": k, "number": r.number,
                "own_number": r.own_number, "yes": int(r.yes), "bits_ask": r.bits_ask,
                "bits_answer": r.bits_answer, "h_before": r.h_before, "h_after": r.h_after,
            })  # fmt: skip
    return row, leaks


MATCH_FIELDS = ["rules", "policy", "game", "seat", "share", "quartets", "asks", "finished"]
LEAK_FIELDS = ["rules", "policy", "game", "number", "own_number", "yes", "bits_ask",
               "bits_answer", "h_before", "h_after"]  # fmt: skip


def _pool(jobs: int) -> Any:
    from kwartet_epistemic.parallel import process_executor

    return process_executor(jobs) if jobs > 1 else None


def _run(tasks: Sequence[Any], function: Any, jobs: int) -> Iterator[Any]:
    """``function`` over ``tasks``, in order of completion (one process, or a pool)."""
    if jobs <= 1 or len(tasks) < 2:
        for task in tasks:
            yield function(task)
        return
    from concurrent.futures import as_completed

    pool = _pool(jobs)
    try:
        futures = [pool.submit(function, task) for task in tasks]
        for future in as_completed(futures):
            yield future.result()
    finally:
        pool.shutdown(wait=False, cancel_futures=True)


def run_matches(out: Path, games: int, leak_games: int, seed: int, jobs: int) -> None:
    """Sections (1) and (2): every policy of :data:`POLICIES` against the field."""
    matches, leaks = (
        UnitLog(out / "leakage_matches.csv", MATCH_FIELDS),
        UnitLog(out / "leakage_asks.csv", LEAK_FIELDS),
    )
    done = {(r["rules"], r["policy"], int(r["game"])) for r in matches.rows()}
    leaked = {(r["rules"], r["policy"], int(r["game"])) for r in leaks.rows()}
    tasks = [
        (rules, policy, seed, k, k < leak_games)
        for rules, policy in POLICIES
        for k in range(games)
        if (rules, policy, k) not in done
    ]
    for row, rows in _run(tasks, _match_task, jobs):
        key = (row["rules"], row["policy"], row["game"])
        if rows and key not in leaked:
            leaks.append(rows)
        matches.append([row])


POSTERIOR_FIELDS = ["setting", "game", "number", "observer", "worlds_log10", "method", "n",
                    "tv", "max_diff", "ess", "noise_tv", "noise_max", "noise_ess_tv", "err_tv", "err_max",
                    "true_weight_positive"]  # fmt: skip


@dataclass(frozen=True)
class Setting:
    """A posterior setting: deck size, players, the policy all of them play (and the
    observers' model of it), and how the posterior is computed."""

    name: str
    families: int
    players: int
    policy: str
    exact: bool  # exact reweighting possible (small deck)
    every: int  # measure before every ``every``-th ask
    observers: str  # "all" or "mover"


SETTINGS = {
    "small-knowledge": Setting("small-knowledge", 4, 3, "knowledge", True, 1, "all"),
    "small-silent": Setting("small-silent", 4, 3, "silent", True, 1, "all"),
    "full-knowledge": Setting("full-knowledge", 8, 4, "knowledge", False, 3, "mover"),
    "full-random": Setting("full-random", 8, 4, "random", False, 3, "mover"),
}


def _uniform_exact(history: PublicHistory, info: PrivateInfo) -> tuple[np.ndarray, int]:
    from kwartet_epistemic.epistemics.counting import exact_probabilities

    counter = WorldCounter(history, [info], marginals=True)
    return exact_probabilities(counter.location_table(), counter.count), counter.count


def _posterior_task(args: tuple[str, int, int, tuple[int, ...], int]) -> list[dict[str, Any]]:
    """Every measured decision of one game of a setting (section (3))."""
    name, seed, k, sizes, max_asks = args
    setting = SETTINGS[name]
    deck = kw.Deck.piquet(families=setting.families)
    result = play_game(
        [setting.policy] * setting.players, game_seed(seed, k), deck=deck, game_index=k
    )
    game = replay_game(result, deck=deck)
    record = game.record
    players = game.players
    rng = np.random.default_rng([seed, k, 7])
    infos = {p: private_info(deck, p, game.view(p).hand, record) for p in players}
    posteriors = {
        p: PolicyPosterior(p, {q: setting.policy for q in players if q != p}) for p in players
    }
    true_origins = np.zeros(len(deck), dtype=np.int64)
    for p in players:
        true_origins[sorted(infos[p].dealt)] = players.index(p)
    rows: list[dict[str, Any]] = []
    history = PublicHistory(deck, players, game.rules)
    seen = 0
    number = 0
    for i, event in enumerate(record):
        if type(event) is not Asked:
            continue
        number += 1
        if number > max_asks:
            break
        history.extend(record[seen:i])
        seen = i
        if (number - 1) % setting.every:
            continue
        prefix = record[:i]
        observers = players if setting.observers == "all" else [event.asker]
        for observer in observers:
            info = infos[observer]
            cards = _unknown_cards(history, info)
            if not cards:
                continue
            uniform, count = _uniform_exact(history, info)
            base = {"setting": name, "game": k, "number": number, "observer": observer,
                    "worlds_log10": round(math.log10(count), 4)}  # fmt: skip
            exact_aware = None
            if setting.exact:
                worlds = enumerate_worlds(history, info)
                weights = posteriors[observer].weights(deck, game.rules, history, prefix, worlds)
                exact_aware = location_matrix(history, worlds, weights)
                tv, mx = compare(uniform, exact_aware, cards)
                # The true world (every card's true origin) has weight > 0 when the
                # model is the policy played.
                true_row = (worlds == true_origins).all(axis=1)
                true_rows = [
                    w
                    for w, hit in zip(weights.tolist(), true_row.tolist(), strict=True)
                    if hit and w > 0
                ]
                rows.append({**base, "method": "exact", "n": len(worlds), "tv": tv,
                             "max_diff": mx, "ess": _ess(weights),
                             "true_weight_positive": int(bool(true_rows))})  # fmt: skip
            counter = WorldCounter(history, [info])
            for n in sizes:
                sample = counter.sample_many(n, rng)
                exact_weights = posteriors[observer].weights(
                    deck, game.rules, history, prefix, sample
                )
                weights = np.array([float(w) for w in exact_weights.tolist()])
                if weights.sum() == 0.0:
                    rows.append({**base, "method": "sampled", "n": n, "ess": 0.0})
                    continue
                aware = location_matrix(history, sample, weights)
                plain = location_matrix(history, sample, np.ones(n))
                ess = _ess(weights)
                # The sampling noise of an estimate as good as the weighted one: equal
                # weights on round(ESS) of the samples.
                few = location_matrix(
                    history, sample[: max(1, round(ess))], np.ones(max(1, round(ess)))
                )
                tv, mx = compare(uniform, aware, cards)
                noise_tv, noise_max = compare(uniform, plain, cards)
                row = {**base, "method": "sampled", "n": n, "tv": tv, "max_diff": mx,
                       "ess": ess, "noise_tv": noise_tv, "noise_max": noise_max,
                       "noise_ess_tv": compare(uniform, few, cards)[0]}  # fmt: skip
                if exact_aware is not None:
                    row["err_tv"], row["err_max"] = compare(exact_aware, aware, cards)
                rows.append(row)
            if not setting.exact:
                posteriors[observer].cache.clear()  # no two sampled hands repeat at full size
    if not rows:  # nothing to measure: the game still counts as done
        rows.append({"setting": name, "game": k, "method": "none"})
    return rows


def _ess(weights: np.ndarray) -> float:
    """The effective sample size of importance weights: (sum w)^2 / sum w^2."""
    weights = np.array([float(w) for w in np.asarray(weights).tolist()])
    total = float(weights.sum())
    return total * total / float((weights**2).sum()) if total > 0 else 0.0


def run_posterior(
    out: Path, plan: dict[str, tuple[int, tuple[int, ...], int]], seed: int, jobs: int
) -> None:
    """Section (3): per setting ``(games, sample sizes, asks measured)``."""
    table = UnitLog(out / "leakage_posterior.csv", POSTERIOR_FIELDS)
    done = {(r["setting"], int(r["game"])) for r in table.rows()}
    tasks = [
        (name, seed, k, sizes, asks)
        for name, (games, sizes, asks) in plan.items()
        for k in range(games)
        if (name, k) not in done
    ]
    for rows in _run(tasks, _posterior_task, jobs):
        table.append(rows)


AGENT_FIELDS = ["game", "seat", "posterior_share", "plain_share", "posterior_quartets",
                "plain_quartets", "asks_posterior", "asks_plain", "cpu_s"]  # fmt: skip
AGENT_DECK_FAMILIES = 4
AGENT_PLAYERS = 3


def _agent_task(args: tuple[int, int]) -> dict[str, Any]:
    """One paired deal of section (4): ``posterior_knowledge`` in seat ``k mod 3``
    against two ``knowledge``, and the same deal with a plain ``knowledge`` there."""
    seed, k = args
    deck = kw.Deck.piquet(families=AGENT_DECK_FAMILIES)
    seat = k % AGENT_PLAYERS
    agents = ["knowledge"] * AGENT_PLAYERS
    start = time.process_time()
    plain = play_game(agents, game_seed(seed, k), deck=deck, game_index=k)
    agents[seat] = "posterior_knowledge"
    posterior = play_game(agents, game_seed(seed, k), deck=deck, game_index=k)
    return {
        "game": k, "seat": "ABC"[seat], "posterior_share": posterior.share(seat),
        "plain_share": plain.share(seat), "posterior_quartets": posterior.scores[seat],
        "plain_quartets": plain.scores[seat], "asks_posterior": posterior.asks,
        "asks_plain": plain.asks, "cpu_s": round(time.process_time() - start, 3),
    }  # fmt: skip


def run_agent(out: Path, games: int, seed: int, jobs: int) -> None:
    """Section (4)."""
    table = UnitLog(out / "leakage_agent.csv", AGENT_FIELDS)
    done = {int(r["game"]) for r in table.rows()}
    tasks = [(seed, k) for k in range(games) if k not in done]
    for row in _run(tasks, _agent_task, jobs):
        table.append([row])


# ----- summary, figures, numbers -----------------------------------------------------


def _mean_interval(values: Sequence[float]) -> tuple[float, float, float]:
    """Mean and 95% t interval (nan without two values)."""
    from scipy import stats

    x = np.asarray(values, dtype=float)
    if len(x) < 2:
        return (float(x.mean()) if len(x) else math.nan, math.nan, math.nan)
    half = float(stats.t.ppf(0.975, len(x) - 1)) * float(x.std(ddof=1)) / math.sqrt(len(x))
    return float(x.mean()), float(x.mean()) - half, float(x.mean()) + half


def _letters(rules: str, policy: str) -> list[str]:
    """Macro parts naming a (rules, policy): ``tips[remember,hide]`` -> ``TipsHide``."""
    name = policy.replace("[", ",").replace("]", "")
    parts = [p for p in name.split(",") if p and p != "remember"]
    words = [w for p in parts for w in p.split("_")]
    letters = "".join(w[:1].upper() + w[1:] for w in words)
    if policy == "tips[remember]":
        letters = "TipsBase"
    return (["bluffing"] if rules == "bluffing" else []) + [letters]


def summarise(out: Path) -> dict[str, Any]:
    """Read the CSVs of ``out`` and compute every reported figure."""
    matches = UnitLog(out / "leakage_matches.csv", MATCH_FIELDS).rows()
    leaks = UnitLog(out / "leakage_asks.csv", LEAK_FIELDS).rows()
    posterior = UnitLog(out / "leakage_posterior.csv", POSTERIOR_FIELDS).rows()
    agent = UnitLog(out / "leakage_agent.csv", AGENT_FIELDS).rows()
    shares: dict[tuple[str, str], dict[int, float]] = {}
    for r in matches:
        shares.setdefault((r["rules"], r["policy"]), {})[int(r["game"])] = float(r["share"])
    per_game: dict[tuple[str, str], dict[int, list[dict[str, str]]]] = {}
    seen: set[tuple[str, str, str, str]] = set()
    for r in leaks:
        ask_key = (r["rules"], r["policy"], r["game"], r["number"])
        if ask_key in seen:
            continue
        seen.add(ask_key)
        per_game.setdefault((r["rules"], r["policy"]), {}).setdefault(int(r["game"]), []).append(r)
    policies: dict[tuple[str, str], dict[str, Any]] = {}
    for key in POLICIES:
        row: dict[str, Any] = {"rules": key[0], "policy": key[1]}
        games = shares.get(key, {})
        values = np.array([games[k] for k in sorted(games)])
        row["games"] = len(values)
        if len(values):
            (low, high), _ = share_interval(values)
            row["share"], row["share_low"], row["share_high"] = float(values.mean()), low, high
        asks = per_game.get(key, {})
        for column in ("bits_ask", "bits_answer"):
            means = [float(np.mean([float(a[column]) for a in v])) for v in asks.values() if v]
            row[column], row[column + "_low"], row[column + "_high"] = _mean_interval(means)
        dh = [
            float(np.mean([float(a["h_before"]) - float(a["h_after"]) for a in v]))
            for v in asks.values()
            if v
        ]
        row["dh"] = _mean_interval(dh)[0]
        row["leak_games"] = len(asks)
        row["asks_per_game"] = float(np.mean([len(v) for v in asks.values()])) if asks else math.nan
        by_number: dict[int, list[float]] = {}
        for v in asks.values():
            for a in v:
                by_number.setdefault(int(a["own_number"]), []).append(float(a["bits_ask"]))
        row["by_number"] = {n: (float(np.mean(x)), len(x)) for n, x in sorted(by_number.items())}
        policies[key] = row
    twins = []
    for rules, hider, twin in TWINS:
        mine, theirs = shares.get((rules, hider), {}), shares.get((rules, twin), {})
        common = sorted(set(mine) & set(theirs))
        if not common:
            continue
        diff = _mean_interval([mine[k] - theirs[k] for k in common])
        twins.append({"rules": rules, "hider": hider, "twin": twin, "games": len(common),
                      "diff": diff[0], "low": diff[1], "high": diff[2],
                      "bits_diff": policies[(rules, hider)]["bits_ask"] - policies[(rules, twin)]["bits_ask"]})  # fmt: skip
    post: dict[tuple[str, str, int], list[dict[str, str]]] = {}
    for r in posterior:
        if r.get("method") in (None, "", "none") or r.get("tv") in (None, ""):
            continue
        key2 = (r["setting"], r["method"], int(r["n"]) if r["method"] == "sampled" else 0)
        post.setdefault(key2, []).append(r)
    post_summary = {}
    for post_key, rows in post.items():

        def col(name: str, rows: list[dict[str, str]] = rows) -> list[float]:
            return [float(x[name]) for x in rows if x.get(name) not in (None, "")]

        by_number2: dict[int, list[dict[str, str]]] = {}
        for x in rows:
            by_number2.setdefault(int(x["number"]), []).append(x)
        post_summary[post_key] = {
            "decisions": len(rows), "games": len({x["game"] for x in rows}),
            "tv": float(np.mean(col("tv"))), "max_diff": float(np.mean(col("max_diff"))),
            "max_max": float(np.max(col("max_diff"))), "ess": float(np.median(col("ess"))),
            "noise_tv": float(np.mean(col("noise_tv"))) if col("noise_tv") else math.nan,
            "noise_ess_tv": float(np.mean(col("noise_ess_tv"))) if col("noise_ess_tv") else math.nan,
            "err_tv": float(np.mean(col("err_tv"))) if col("err_tv") else math.nan,
            "true_positive": float(np.mean(col("true_weight_positive"))) if col("true_weight_positive") else math.nan,
            "by_number": {
                n: {k: float(np.mean([float(x[k]) for x in xs if x.get(k) not in (None, "")] or [math.nan]))
                    for k in ("tv", "max_diff", "noise_ess_tv", "noise_tv", "ess")}
                for n, xs in sorted(by_number2.items())
            },
        }  # fmt: skip
    agent_summary: dict[str, Any] = {"games": len(agent)}
    if agent:
        p = np.array([float(r["posterior_share"]) for r in agent])
        q = np.array([float(r["plain_share"]) for r in agent])
        agent_summary["share"] = (float(p.mean()), *share_interval(p)[0])
        agent_summary["plain"] = (float(q.mean()), *share_interval(q)[0])
        agent_summary["diff"] = _mean_interval(p - q)
        agent_summary["changed"] = float(np.mean([r["asks_posterior"] != r["asks_plain"] or
                                                  r["posterior_share"] != r["plain_share"] for r in agent]))  # fmt: skip
        agent_summary["cpu_s"] = float(np.mean([float(r["cpu_s"]) for r in agent]))
    return {"policies": policies, "twins": twins, "posterior": post_summary, "agent": agent_summary}


def _label(rules: str, policy: str) -> str:
    return policy + (" (bluffing)" if rules == "bluffing" else "")


def report(summary: dict[str, Any]) -> str:
    """The printed summary (``leakage.txt``)."""
    lines = ["(1)+(2) each policy in every seat against three knowledge players (paired deals)",
             f"{'rules':<10} {'policy':<24} {'bits/ask':>9} {'95% interval':>16} {'answer':>7} "
             f"{'dH':>6} {'asks':>5} {'win share':>9} {'95% interval':>16} games"]  # fmt: skip
    for (rules, policy), r in summary["policies"].items():
        if not r["games"]:
            continue
        lines.append(
            f"{rules:<10} {policy:<24} {r['bits_ask']:9.3f} [{r['bits_ask_low']:.3f}, {r['bits_ask_high']:.3f}] "
            f"{r['bits_answer']:7.3f} {r['dh']:6.3f} {r['asks_per_game']:5.1f} {r['share']:9.3f} "
            f"[{r['share_low']:.3f}, {r['share_high']:.3f}] {r['games']} ({r['leak_games']} measured)"
        )
    lines.append(
        "hiding vs its twin (paired win-share difference, t interval; bits/ask difference)"
    )
    for t in summary["twins"]:
        lines.append(
            f"  {t['rules']:<10} {t['hider']:<24} - {t['twin']:<16} {t['diff']:+.3f} "
            f"[{t['low']:+.3f}, {t['high']:+.3f}]  bits {t['bits_diff']:+.3f}  ({t['games']} games)"
        )
    lines.append("(3) uniform vs policy-aware location probabilities (per decision; mean TV over the "
                 "observer's unknown cards, max |difference|)")  # fmt: skip
    for (setting, method, n), r in sorted(summary["posterior"].items()):
        lines.append(
            f"  {setting:<16} {method:<8} N={n:<5} decisions {r['decisions']:4d} games {r['games']:3d}: "
            f"TV {r['tv']:.4f}  max {r['max_diff']:.4f} (largest {r['max_max']:.3f})  ESS median {r['ess']:.1f}"
            f"  noise TV {r['noise_tv']:.4f} at ESS {r['noise_ess_tv']:.4f}  |IS-exact| TV {r['err_tv']:.4f}"
            f"  true world kept {r['true_positive']:.3f}"
        )
    a = summary["agent"]
    if a.get("games"):
        lines.append(
            f"(4) posterior_knowledge vs two knowledge, {AGENT_DECK_FAMILIES * 4} cards, {AGENT_PLAYERS} "
            f"players, {a['games']} paired deals: win share {a['share'][0]:.3f} [{a['share'][1]:.3f}, "
            f"{a['share'][2]:.3f}]; plain knowledge in its seat {a['plain'][0]:.3f} [{a['plain'][1]:.3f}, "
            f"{a['plain'][2]:.3f}]; paired difference {a['diff'][0]:+.3f} [{a['diff'][1]:+.3f}, "
            f"{a['diff'][2]:+.3f}]; games that changed {a['changed']:.3f}; {a['cpu_s']:.3f} s CPU per pair"
        )
    return "\n".join(lines)


def figures(summary: dict[str, Any], out: Path) -> None:
    """``leakage_bits`` and ``leakage_posterior`` (PNG and PDF)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    with _latex.paper_style():
        fig, axes = plt.subplots(
            3, 1, figsize=(_latex.TEXT_WIDTH_IN, 6.8), height_ratios=(1, 1, 1.4)
        )
        colours = plt.cm.tab10.colors  # type: ignore[attr-defined]
        for ax, rules in zip(axes[:2], ("publisher", "bluffing"), strict=True):
            k = 0
            for (r, policy), row in summary["policies"].items():
                if r != rules or not row["by_number"]:
                    continue
                points = [
                    (n, m) for n, (m, count) in row["by_number"].items() if count >= 10 and n <= 20
                ]
                if points:
                    steps = [n for n, _ in points]
                    ax.plot(steps, [b for _, b in points], marker="o", ms=3, color=colours[k % 10],
                            ls="-" if k < 10 else "--", label=policy)  # fmt: skip
                k += 1
            ax.set_xlabel("the policy's own ask number in the game")
            ax.set_ylabel("bits about the asker's\nhand per ask")
            ax.set_title(f"{rules} rules: leakage by move")
            ax.legend(ncol=2, handlelength=1.5, loc="upper right")
            ax.grid(alpha=0.3)
        ax = axes[2]
        shown = []
        for (rules, policy), row in summary["policies"].items():
            if not row["games"] or math.isnan(row["bits_ask"]):
                continue
            marker = "o" if rules == "publisher" else "s"
            ax.errorbar(row["bits_ask"], row["share"],
                        xerr=[[row["bits_ask"] - row["bits_ask_low"]], [row["bits_ask_high"] - row["bits_ask"]]],
                        yerr=[[row["share"] - row["share_low"]], [row["share_high"] - row["share"]]],
                        fmt=marker, ms=4, capsize=2, color="C0" if rules == "publisher" else "C3")  # fmt: skip
            short = policy.replace("tips[remember]", "tips").replace("tips[remember,", "tips+")
            shown.append((row["share"], row["bits_ask"], _label(rules, short.rstrip("]"))))
        # The labels in a column at the right, in the order of their points' heights, each
        # tied to its point by a line: the policies sit in clusters a label cannot share.
        for rank, (share, bits, text) in enumerate(sorted(shown)):
            ax.annotate(text, (bits, share), xytext=(1.02, (rank + 0.5) / len(shown)),
                        textcoords="axes fraction", va="center", ha="left", annotation_clip=False,
                        arrowprops={"arrowstyle": "-", "lw": 0.4, "color": "grey"})  # fmt: skip
        ax.axhline(0.25, color="grey", lw=0.8, ls=":")
        ax.set_xlabel("mean bits about its hand per ask")
        ax.set_ylabel("win share against three\nknowledge players (95%)")
        ax.set_title("Does leaking less win more?", loc="left")
        ax.grid(alpha=0.3)
        for ext in ("png", "pdf"):
            fig.savefig(out / f"leakage_bits.{ext}", dpi=130)
    plt.close(fig)

    with _latex.paper_style():
        fig, axes = plt.subplots(3, 1, figsize=(_latex.TEXT_WIDTH_IN, 6.8))
        post = summary["posterior"]
        lines: list[tuple[str, dict[str, Any], str, str | None]] = []
        for (setting, method, n), r in sorted(post.items()):
            if method == "exact":
                lines.append((f"{setting} exact", r, "-", None))
            elif setting.startswith("full") and n == max(k[2] for k in post if k[0] == setting):
                lines.append((f"{setting} sampled N={n}", r, "--", "noise_ess_tv"))
        for ax, column, title in (
            (axes[0], "tv", "mean total variation"),
            (axes[1], "max_diff", "mean max |difference|"),
        ):
            for i, (label, r, style, noise) in enumerate(lines):
                xs = list(r["by_number"])
                ax.plot(xs, [r["by_number"][x][column] for x in xs], style, marker="o", ms=3,
                        color=colours[i], label=label)  # fmt: skip
                if noise and column == "tv":
                    ax.plot(xs, [r["by_number"][x][noise] for x in xs], ":", color=colours[i],
                            label=f"{label}: noise at its ESS")  # fmt: skip
            ax.set_xlabel("ask number (decision before it)")
            ax.set_ylabel(title)
            ax.set_title(f"policy-aware against uniform: {title}")
            ax.grid(alpha=0.3)
            low, high = ax.get_ylim()
            ax.set_ylim(low, high + (0.8 if column == "tv" else 0.45) * (high - low))  # legend room
            ax.legend(loc="upper right", handlelength=1.5)
        ax = axes[2]
        for i, setting in enumerate(sorted({k[0] for k in post if k[1] == "exact"})):
            ns = sorted(k[2] for k in post if k[0] == setting and k[1] == "sampled")
            if not ns:
                continue
            ax.plot(ns, [post[(setting, "sampled", n)]["err_tv"] for n in ns], "-o", color=colours[i],
                    label=f"{setting}: sampled, policy-aware")  # fmt: skip
            ax.plot(ns, [post[(setting, "sampled", n)]["noise_tv"] for n in ns], ":", color=colours[i],
                    label=f"{setting}: sampled, uniform")  # fmt: skip
            ax.axhline(post[(setting, "exact", 0)]["tv"], color=colours[i], lw=0.8, ls="--",
                       label=f"{setting}: exact, the two posteriors")  # fmt: skip
        from matplotlib.ticker import NullFormatter, ScalarFormatter

        ax.set_xscale("log")
        ax.set_yscale("log")
        sizes = sorted({k[2] for k in post if k[1] == "sampled" and k[0].startswith("small")})
        if sizes:
            ax.set_xticks(sizes)
        ax.set_yticks([0.01, 0.02, 0.03, 0.05, 0.07, 0.1])
        for axis in (ax.xaxis, ax.yaxis):
            axis.set_major_formatter(ScalarFormatter())
            axis.set_minor_formatter(NullFormatter())
        ax.set_xlabel("samples N")
        ax.set_ylabel("mean total variation")
        ax.set_title("Small deck: sampling against exact reweighting")
        ax.grid(alpha=0.3, which="both")
        ax.legend(handlelength=1.5, loc="lower left")
        for ext in ("png", "pdf"):
            fig.savefig(out / f"leakage_posterior.{ext}", dpi=130)
        plt.close(fig)


def _num(x: float, digits: int = 3) -> str:
    """``x`` with fixed decimals, its minus sign safe in TeX text and math mode alike."""
    text = f"{abs(x):.{digits}f}"
    negative = x < 0 and float(text) != 0.0
    return ("\\ensuremath{-}" if negative else "") + text


def _span(low: float, high: float, digits: int = 3) -> str:
    """A 95% interval ``[low, high]`` with :func:`_num`'s numbers."""
    return f"[{_num(low, digits)}, {_num(high, digits)}]"


def numbers(summary: dict[str, Any], out: Path) -> None:
    """``leakage_numbers.tex`` and ``leakage_table.tex``."""
    m = _latex.macro_name
    values: dict[str, str] = {}
    for (rules, policy), r in summary["policies"].items():
        if not r["games"]:
            continue
        parts = _letters(rules, policy)
        values[m("kw", "leak", "bits", *parts)] = _latex.fmt(r["bits_ask"], 3)
        values[m("kw", "leak", "share", *parts)] = _latex.fmt(r["share"], 3)
        values[m("kw", "leak", "share", *parts, "interval")] = _span(
            r["share_low"], r["share_high"]
        )
    for t in summary["twins"]:
        parts = _letters(t["rules"], t["hider"])
        values[m("kw", "leak", "diff", *parts)] = _num(t["diff"])
        values[m("kw", "leak", "diff", *parts, "interval")] = _span(t["low"], t["high"])
    # Across the policies of one rule set (the bluffing rules halve every ask's bits).
    rows = [
        r
        for r in summary["policies"].values()
        if r["games"] and not math.isnan(r["bits_ask"]) and r["rules"] == "publisher"
    ]
    if len(rows) > 2:
        r_value = float(
            np.corrcoef([r["bits_ask"] for r in rows], [r["share"] for r in rows])[0, 1]
        )
        values[m("kw", "leak", "corr", "publisher")] = _latex.fmt(r_value, 2)
    values[m("kw", "leak", "match", "games")] = _latex.fmt(
        max(r["games"] for r in summary["policies"].values()), 0
    )
    values[m("kw", "leak", "measured", "games")] = _latex.fmt(
        max(r["leak_games"] for r in summary["policies"].values()), 0
    )
    names = {"small-knowledge": "small", "small-silent": "smallSilent", "full-knowledge": "full",
             "full-random": "fullRandom"}  # fmt: skip
    for (setting, method, n), r in summary["posterior"].items():
        if method == "sampled" and setting.startswith("small"):
            continue
        if method == "sampled" and n != max(k[2] for k in summary["posterior"] if k[0] == setting):
            continue
        base = ["kw", "leak", "post", names[setting]]
        values[m(*base, "tv")] = _latex.fmt(r["tv"], 3)
        values[m(*base, "max")] = _latex.fmt(r["max_diff"], 3)
        values[m(*base, "largest")] = _latex.fmt(r["max_max"], 3)
        values[m(*base, "decisions")] = _latex.fmt(r["decisions"], 0)
        if method == "sampled":
            values[m(*base, "ess")] = _latex.fmt(r["ess"], 1)
            values[m(*base, "samples")] = _latex.fmt(n, 0)
            values[m(*base, "noise")] = _latex.fmt(r["noise_ess_tv"], 3)
    for setting in ("small-knowledge", "small-silent"):
        ns = sorted(k[2] for k in summary["posterior"] if k[0] == setting and k[1] == "sampled")
        if ns:
            r = summary["posterior"][(setting, "sampled", ns[-1])]
            values[m("kw", "leak", "post", names[setting], "check", "err")] = _latex.fmt(
                r["err_tv"], 3
            )
            values[m("kw", "leak", "post", names[setting], "check", "samples")] = _latex.fmt(
                ns[-1], 0
            )
    a = summary["agent"]
    if a.get("games"):
        values[m("kw", "leak", "agent", "games")] = _latex.fmt(a["games"], 0)
        values[m("kw", "leak", "agent", "share")] = _latex.fmt(a["share"][0], 3)
        values[m("kw", "leak", "agent", "share", "interval")] = _span(a["share"][1], a["share"][2])
        values[m("kw", "leak", "agent", "plain")] = _latex.fmt(a["plain"][0], 3)
        values[m("kw", "leak", "agent", "diff")] = _num(a["diff"][0])
        values[m("kw", "leak", "agent", "diff", "interval")] = _span(a["diff"][1], a["diff"][2])
    _latex.write_numbers(out / "leakage_numbers.tex", SCRIPT, values)
    table = []
    twin_of = {(t["rules"], t["hider"]): t for t in summary["twins"]}
    for (rules, policy), r in summary["policies"].items():
        if not r["games"]:
            continue
        t = twin_of.get((rules, policy))
        table.append([
            _latex.escape(rules), "\\texttt{" + _latex.escape(policy) + "}",
            _latex.fmt(r["bits_ask"], 2), _latex.fmt(r["bits_answer"], 2), _latex.fmt(r["dh"], 2),
            f"{_latex.fmt(r['share'], 3)} {_span(r['share_low'], r['share_high'])}",
            (f"{_num(t['diff'])} {_span(t['low'], t['high'])} vs \\texttt{{{_latex.escape(t['twin'])}}}"
             if t else "--"),
        ])  # fmt: skip
    _latex.write_table(
        out / "leakage_table.tex", SCRIPT,
        ["rules", "policy", "bits/ask", "answer bits", "$\\Delta H$", "win share [95\\%]", "vs twin [95\\%]"],
        table, align="llrrrll",
    )  # fmt: skip


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--out", default="leakage_results")
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--seed", type=int, default=14_006)
    parser.add_argument("--quick", action="store_true", help="tiny sizes (CI)")
    parser.add_argument("--games", type=int, default=1200, help="games per policy (section 2)")
    parser.add_argument("--leak-games", type=int, default=120, help="of them measured (section 1)")
    parser.add_argument("--post-games", type=int, default=50, help="small-deck games (section 3)")
    parser.add_argument(
        "--post-full-games", type=int, default=8, help="full-size games (section 3)"
    )
    parser.add_argument("--agent-games", type=int, default=2500, help="paired deals (section 4)")
    args = parser.parse_args(argv)
    if args.quick:
        args.games, args.leak_games, args.post_games = 4, 2, 1
        args.post_full_games, args.agent_games = 1, 6
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    start = time.time()
    global POLICIES
    if args.quick:
        POLICIES = (("publisher", "greedy"), ("publisher", "silent"), ("bluffing", "greedy_bluff"))
    run_matches(out, args.games, args.leak_games, args.seed, args.jobs)
    small = (20, 100, 500) if not args.quick else (10,)
    full = (200, 2000) if not args.quick else (10,)
    plan: dict[str, tuple[int, tuple[int, ...], int]] = {
        "small-knowledge": (args.post_games, small, 40),
        "small-silent": (args.post_games, small, 40),
        "full-knowledge": (args.post_full_games, full, 40 if not args.quick else 4),
        "full-random": (args.post_full_games, full, 40 if not args.quick else 4),
    }
    run_posterior(out, plan, args.seed, args.jobs)
    run_agent(out, args.agent_games, args.seed, args.jobs)
    summary = summarise(out)
    text = report(summary)
    try:
        load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        load = "unknown"
    text += (f"\n{time.time() - start:.0f} s wall this run; load average at the end {load}; "
             f"{os.cpu_count()} cores; seed {args.seed}")  # fmt: skip
    (out / "leakage.txt").write_text(text + "\n")
    figures(summary, out)
    numbers(summary, out)
    print(text)
    return summary


if __name__ == "__main__":
    main()
