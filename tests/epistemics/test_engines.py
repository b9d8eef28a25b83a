"""One suite, every engine: counts, location probabilities and formulas must agree.

The explicit engine (an enumerated KripkeModel) is the reference; the counting engine
must reproduce its counts and marginals exactly, and the truth of random formulas with
nested K, M, Kw, E, C, D and announcements must agree between the engines that can
answer them.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import SMALL_SETUPS, nested_formulas, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.logic import (
    And,
    Atom,
    D,
    E,
    K,
    Kw,
    M,
    Not,
    Or,
)

ENGINES = ["counting", "explicit", "symbolic"]


@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_reproduces_a_reference_count(engine: str) -> None:
    # Reference position 3 of shared/data (2 families, 3 players): 1 world for everyone.
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7C", "8H", "8C"], "B": ["7S", "7H", "8D"], "C": ["7D", "8S"]},
        first="A",
    )
    for target, card in [("C", "8S"), ("C", "8D"), ("A", "7S"), ("B", "7D"), ("A", "7D")]:
        game.ask(target, card)
    k = kw.knowledge(game, engine=engine)
    assert k.count_worlds() >= 1
    assert all(k.count_worlds(p) >= 1 for p in game.players)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(setup=st.sampled_from(SMALL_SETUPS), seed=st.integers(0, 10_000), steps=st.integers(0, 10))
def test_counting_and_explicit_agree_on_counts_and_probabilities(setup, seed, steps) -> None:
    game = random_game(setup, seed, steps)
    counting = kw.knowledge(game, engine="counting")
    explicit = kw.knowledge(game, engine="explicit")
    assert counting.count_worlds() == explicit.count_worlds()
    for p in game.players:
        assert counting.count_worlds(p) == explicit.count_worlds(p) >= 1
        assert (counting.location_counts(p) == explicit.location_counts(p)).all()
        for card in game.deck.cards:
            assert counting.knows_location(p, card) == explicit.knows_location(p, card)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 10_000), steps=st.integers(0, 6))
def test_first_order_formulas_agree_between_counting_and_explicit(data, seed, steps) -> None:
    game = random_game(SMALL_SETUPS[1], seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    propositional = st.recursive(
        st.sampled_from(atoms),
        lambda ch: st.one_of(
            ch.map(Not),
            st.tuples(ch, ch).map(lambda t: And(*t)),
            st.tuples(ch, ch).map(lambda t: Or(*t)),
        ),
        max_leaves=4,
    )
    agent = data.draw(st.sampled_from(game.players))
    group = data.draw(st.lists(st.sampled_from(game.players), min_size=1, unique=True))
    psi = data.draw(propositional)
    counting = kw.knowledge(game, engine="counting")
    model = kw.knowledge(game, engine="explicit").kripke_model()
    for formula in [K(agent, psi), M(agent, psi), Kw(agent, psi), E(group, psi), D(group, psi)]:
        assert counting.holds(formula) == model.holds(formula), str(formula)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 10_000), steps=st.integers(0, 6))
def test_auto_engine_answers_nested_formulas_like_the_kripke_model(data, seed, steps) -> None:
    game = random_game(SMALL_SETUPS[0], seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    formula = data.draw(nested_formulas(list(game.players), atoms))
    k = kw.knowledge(game)
    assert k.holds(formula) == k.kripke_model().holds(formula)
    assert k.holds(str(formula)) == k.holds(formula)


def test_view_based_state_never_needs_the_true_deal_and_matches_the_game() -> None:
    game = random_game(SMALL_SETUPS[1], 3, 5)
    for p in game.players:
        from_view = kw.knowledge(game.view(p))
        full = kw.knowledge(game)
        assert from_view.count_worlds(p) == full.count_worlds(p)
        assert np.allclose(from_view.location_probabilities(p), full.location_probabilities(p))
        with pytest.raises(kw.UnknownToViewerError):
            other = next(q for q in game.players if q != p)
            from_view.count_worlds(other)
        for card in game.hand(p):
            assert from_view.holds(f"K_{p} has({p}, {card.code})")
