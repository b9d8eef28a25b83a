"""The symbolic engine on game states: the same answers as counting and explicit."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import SMALL_SETUPS, nested_formulas, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.logic import Atom


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SMALL_SETUPS), seed=st.integers(0, 10_000), steps=st.integers(0, 10))
def test_symbolic_counts_and_marginals_equal_counting(setup, seed, steps) -> None:
    game = random_game(setup, seed, steps)
    counting = kw.knowledge(game, engine="counting")
    symbolic = kw.knowledge(game, engine="symbolic")
    assert symbolic.count_worlds() == counting.count_worlds()
    for p in game.players:
        assert symbolic.count_worlds(p) == counting.count_worlds(p)
        assert (symbolic.location_counts(p) == counting.location_counts(p)).all()
        for card in game.deck.cards:
            assert symbolic.knows_location(p, card) == counting.knows_location(p, card)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 8),
)
def test_symbolic_and_explicit_agree_on_random_nested_formulas(data, setup, seed, steps) -> None:
    game = random_game(setup, seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    symbolic = kw.knowledge(game, engine="symbolic")
    model = kw.knowledge(game, engine="explicit").kripke_model()
    for _ in range(3):
        formula = data.draw(nested_formulas(list(game.players), atoms))
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
