"""ivopascal/Epistemic_Kwartet's strategies as their code plays them:
``silent`` asks a known holder only once the whole family is located, else its own card
1/3 of the time and a random request (family, card, opponent) 2/3; ``mixed`` tosses a coin
between greedy and silent before every ask; ``greedy_bluff`` is the former ``silent``.

Decisions are tested on constructed positions: a real view and a knowledge stub that
knows exactly the holders the test gives it."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.agents import GreedyBluff, Mixed, Silent, make_policy
from kwartet_epistemic.agents.policies import Greedy

DECK = kw.Deck.piquet(families=2)  # sevens (family 0) and eights (family 1)


class Known:
    """A knowledge base that knows its own hand and the holders it is given; every
    other card is equally likely with each opponent."""

    kind = "stub"

    def __init__(self, view: kw.PlayerView, holders: Mapping[str, str]) -> None:
        self.player = view.player
        players = list(view.players)
        others = [p for p in players if p != self.player]
        self.matrix = np.zeros((len(DECK), len(players)))
        own = {c.index for c in view.hand}
        for card in DECK.cards:
            if card.index in own:
                self.matrix[card.index, players.index(self.player)] = 1.0
            elif str(card) in holders:
                self.matrix[card.index, players.index(holders[str(card)])] = 1.0
            else:
                for p in others:
                    self.matrix[card.index, players.index(p)] = 1.0 / len(others)

    def update(self, view: kw.PlayerView) -> None:
        pass

    def probabilities(self, families: Iterable[int] | None = None) -> np.ndarray:
        return self.matrix

    def known_holder(self, card: object) -> str | None:  # pragma: no cover - unused
        return None


def position(
    hands: dict[str, list[str]], holders: Mapping[str, str], bluffing: bool = False
) -> tuple[kw.PlayerView, Known]:
    rules = kw.RuleSet(bluffing=bluffing)
    game = kw.Game.from_hands(DECK, hands, first="A", rules=rules)
    view = game.view("A")
    return view, Known(view, holders)


def choices(policy: kw.agents.Policy, view: kw.PlayerView, knowledge: Known, n: int) -> list:
    asks = view.legal_asks()
    return [policy.choose(view, knowledge, asks, np.random.default_rng(s)) for s in range(n)]


# A holds 7S, 8S, 8H; it knows where the other sevens are (7H, 7D with B, 7C with C) and
# one of the eights it lacks (8D with C), not the other (8C).
LOCATED = (
    {"A": ["7S", "8S", "8H"], "B": ["7H", "7D"], "C": ["7C", "8D", "8C"]},
    {"7H": "B", "7D": "B", "7C": "C", "8D": "C"},
)


def test_silent_asks_a_known_holder_only_in_a_located_family() -> None:
    view, knowledge = position(*LOCATED)
    asked = Counter((a.target, str(a.card)) for a in choices(Silent(), view, knowledge, 300))
    assert set(asked) == {("B", "7H"), ("B", "7D"), ("C", "7C")}  # never 8D, known but alone
    assert min(asked.values()) > 60  # at random among the three


def test_greedy_asks_any_known_holder_where_silent_waits() -> None:
    view, knowledge = position(*LOCATED)
    asked = {(a.target, str(a.card)) for a in choices(Greedy(), view, knowledge, 50)}
    assert asked == {("C", "8D")}  # the fullest family's known card


def test_silent_without_a_located_family_makes_random_requests() -> None:
    # Nothing located (7H's holder is known, the rest of the sevens not); bluffing off:
    # every ask is a random request: a family at random (1/2 each), then a card of it.
    hands = {"A": ["7S", "7D", "7C", "8S"], "B": ["7H", "8H"], "C": ["8D", "8C"]}
    view, knowledge = position(hands, {"8H": "B"})
    asked = Counter(str(a.card) for a in choices(Silent(), view, knowledge, 2000))
    assert set(asked) == {"7H", "8H", "8D", "8C"}
    # uniform over the 8 legal asks would give 7H 1/4; by family first it gets 1/2
    assert asked["7H"] / 2000 == pytest.approx(0.5, abs=0.04)
    for card in ("8H", "8D", "8C"):
        assert asked[card] / 2000 == pytest.approx(1 / 6, abs=0.03)


def test_silent_asks_for_its_own_card_a_third_of_the_time_plus_its_random_share() -> None:
    # With bluffing every card of a held family is askable: a random request hits one of
    # A's own two cards with chance 1/4 (family 1/2, then 1 of its 4 cards), so own-card
    # asks come 1/3 + 2/3 * 1/4 = 1/2 of the time; they are always refused.
    hands = {"A": ["7S", "8S"], "B": ["7H", "7D", "8H"], "C": ["7C", "8D", "8C"]}
    view, knowledge = position(hands, {}, bluffing=True)
    asks = choices(Silent(), view, knowledge, 3000)
    own = sum(1 for a in asks if a.card in view.hand)
    assert own / 3000 == pytest.approx(0.5, abs=0.03)
    assert {a.target for a in asks} == {"B", "C"}


def test_mixed_tosses_a_coin_between_greedy_and_silent_at_every_ask() -> None:
    view, knowledge = position(*LOCATED)
    asked = Counter((a.target, str(a.card)) for a in choices(Mixed(), view, knowledge, 2000))
    assert set(asked) == {("C", "8D"), ("B", "7H"), ("B", "7D"), ("C", "7C")}
    assert asked[("C", "8D")] / 2000 == pytest.approx(0.5, abs=0.04)  # greedy's half


def test_the_specs_name_the_policies_the_docs_describe() -> None:
    assert isinstance(make_policy("silent"), Silent)
    assert isinstance(make_policy("mixed"), Mixed)
    assert isinstance(make_policy("greedy_bluff"), GreedyBluff)
    with pytest.raises(kw.GameSetupError, match="bluff_rate"):
        GreedyBluff(bluff_rate=1.0)


def test_greedy_bluff_is_the_former_silent() -> None:
    # Known holder first; else an own card half the time (bluffing on).
    hands = {"A": ["7S", "8S"], "B": ["7H", "7D", "8H"], "C": ["7C", "8D", "8C"]}
    view, knowledge = position(hands, {"7H": "B"}, bluffing=True)
    asks = choices(GreedyBluff(), view, knowledge, 50)
    assert {(a.target, str(a.card)) for a in asks} == {("B", "7H")}
    view, knowledge = position(hands, {}, bluffing=True)
    asks = choices(GreedyBluff(), view, knowledge, 2000)
    # a bluff half the time, and 4 of the 16 legal asks (2 own cards, 2 targets) are
    # bluffs too: 1/2 + 1/2 * 1/4
    own = sum(1 for a in asks if a.card in view.hand)
    assert own / 2000 == pytest.approx(0.625, abs=0.04)


def test_the_earlier_strategies_play_whole_games_on_every_knowledge() -> None:
    result = kw.tournament(
        ["silent", "mixed:facts", "greedy_bluff:hand", "silent:facts"],
        games=24,  # every seating of four agents once
        seed=3,
        deck=kw.Deck.piquet(families=4),
        rules=kw.RuleSet(bluffing=True),
    )
    assert all(g.finished for g in result.games)
    assert all(sum(g.scores) == 4 for g in result.games) and len(result.games) == 24
