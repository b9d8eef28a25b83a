"""The symbolic engine on game states: the same answers as counting and explicit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.logic import And, Announce, Atom, C, D, E, K, Kw, M, Not, Or

SETUPS = [
    ("publisher", 2, ["A", "B", "C"], {}),
    ("publisher", 3, ["A", "B", "C"], {}),
    ("lamas", 2, ["A", "B", "C", "D"], {}),
    ("publisher", 2, ["A", "B", "C"], {"bluffing": True}),
    ("dutch", 3, ["A", "B", "C"], {}),
    ("fish", 2, ["A", "B"], {"cards_each": 3}),
    ("fish", 3, ["A", "B", "C"], {"cards_each": 3}),
    ("publisher", 3, ["A", "B", "C"], {"memory_cards": 1}),
]


def _random_game(setup, seed: int, steps: int, deck: kw.Deck | None = None) -> kw.Game:
    preset, families, players, extra = setup
    rules = kw.RuleSet.preset(preset).replace(**extra)
    deck = deck or kw.Deck.piquet(families=families)
    game = kw.Game.deal(deck, players, seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        game.play(game.random_legal_ask(rng))
    return game


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SETUPS), seed=st.integers(0, 10_000), steps=st.integers(0, 10))
def test_symbolic_counts_and_marginals_equal_counting(setup, seed, steps) -> None:
    game = _random_game(setup, seed, steps)
    counting = kw.knowledge(game, engine="counting")
    symbolic = kw.knowledge(game, engine="symbolic")
    assert symbolic.count_worlds() == counting.count_worlds()
    for p in game.players:
        assert symbolic.count_worlds(p) == counting.count_worlds(p)
        assert (symbolic.location_counts(p) == counting.location_counts(p)).all()


def _nested(players, atoms):
    agents = st.sampled_from(players)
    groups = st.lists(agents, min_size=1, max_size=len(players), unique=True)

    def extend(children):
        return st.one_of(
            children.map(Not),
            st.tuples(children, children).map(lambda t: And(*t)),
            st.tuples(children, children).map(lambda t: Or(*t)),
            st.tuples(agents, children).map(lambda t: K(*t)),
            st.tuples(agents, children).map(lambda t: M(*t)),
            st.tuples(agents, children).map(lambda t: Kw(*t)),
            st.tuples(groups, children).map(lambda t: E(*t)),
            st.tuples(groups, children).map(lambda t: C(*t)),
            st.tuples(groups, children).map(lambda t: D(*t)),
            st.tuples(children, children).map(lambda t: Announce(*t)),
        )

    return st.recursive(st.sampled_from(atoms), extend, max_leaves=6)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    setup=st.sampled_from(SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 8),
)
def test_symbolic_and_explicit_agree_on_random_nested_formulas(data, setup, seed, steps) -> None:
    game = _random_game(setup, seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    symbolic = kw.knowledge(game, engine="symbolic")
    model = kw.knowledge(game, engine="explicit").kripke_model()
    for _ in range(3):
        formula = data.draw(_nested(list(game.players), atoms))
        assert symbolic.holds(formula) == model.holds(formula), str(formula)


def _check_event(game: kw.Game, counting, symbolic, rng) -> None:
    assert symbolic.count_worlds() == counting.count_worlds() >= 1
    for p in game.players:
        assert symbolic.count_worlds(p) == counting.count_worlds(p) >= 1
        for index in rng.choice(len(game.deck), size=2, replace=False):
            card = game.deck.cards[int(index)]
            holder = counting.knows_location(p, card)
            if holder in game.players:
                assert symbolic.holds(f"K_{p} has({holder}, {card.code})")
            elif holder is None and counting.history.location[card.index] is None:
                assert not any(symbolic.holds(f"K_{p} has({q}, {card.code})") for q in game.players)


def test_full_32_card_game_counting_and_symbolic_agree_at_every_event() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=21)
    counting = kw.knowledge(game, engine="counting")
    symbolic = kw.knowledge(game, engine="symbolic")
    rng = np.random.default_rng(21)
    _check_event(game, counting, symbolic, rng)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
        _check_event(game, counting, symbolic, rng)


@pytest.mark.parametrize("seed", [5])
def test_full_52_card_game_counting_and_symbolic_agree_late_in_the_game(seed: int) -> None:
    game = kw.Game.deal(kw.Deck.standard(), ["A", "B", "C", "D"], seed=seed)
    counting = kw.knowledge(game, engine="counting")
    symbolic = kw.knowledge(game, engine="symbolic")
    rng = np.random.default_rng(seed)
    asks = 0
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
        asks += 1
        if asks >= 40 and asks % 3 == 0:
            _check_event(game, counting, symbolic, rng)
