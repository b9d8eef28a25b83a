"""The engine protocol, one suite for every engine (dd's habit): on the god's-eye state
and on every player's view of every small setup, each engine gives the explicit model's
answer, and on a view a formula is refused only when its truth differs between the
worlds the viewer considers possible.

The reference is the god's-eye Kripke model: the viewer's worlds are the actual world's
class in the viewer's partition, and a formula is settled for the viewer when its truth
set holds all of that class or none of it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import SMALL_SETUPS, nested_formulas, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.engines import ENGINES
from kwartet_epistemic.logic import Atom, Formula

SETTLED_BY_THE_VIEWER = [
    "K_B has(B, 7H) | ~K_B has(B, 7H)",  # a tautology about another's knowledge
    "K_B has(B, 7C)",  # A holds 7C: false in every world A considers possible
    "~K_B has(A, 7H)",
    "C_{A,B,C} has(A, 7S)",
    "K_B has(B, 7C) -> K_C has(B, 7C)",
    "[!has(A, 7C)] K_B ~has(B, 7C)",
    "E_{B,C} ~has(A, 7H) | D_{B,C} has(A, 7H)",
    "M_B K_C has(A, 8S)",
]


def _reference(game: kw.Game, viewer: str | None, formula: Formula | str) -> bool | None:
    """The explicit model's answer: truth at the actual world (no viewer), or on a view
    True / False when the formula holds in all / none of the viewer's worlds, else None."""
    model = kw.knowledge(game, engine="explicit").kripke_model()
    truth = model.truth_set(formula)
    if viewer is None:
        return bool(truth[model.actual])
    mine = truth[model.indistinguishable(viewer, model.actual)]
    return True if mine.all() else False if not mine.any() else None


def _answer(state: kw.EpistemicState, formula: Formula | str) -> bool | None:
    try:
        return state.holds(formula)
    except kw.UnknownToViewerError:
        return None


@pytest.mark.parametrize("engine", sorted(ENGINES))
@pytest.mark.parametrize("formula", SETTLED_BY_THE_VIEWER)
def test_a_viewer_answers_what_their_worlds_settle_on_every_engine(engine, formula) -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    expected = _reference(game, "A", formula)
    assert expected is not None, "the examples are all settled for A"
    assert kw.knowledge(game.view("A"), engine=engine).holds(formula) is expected


@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_unknown_to_viewer_means_the_truth_varies_over_the_viewers_worlds(engine) -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    state = kw.knowledge(game.view("A"), engine=engine)
    for formula in ["has(B, 7H)", "K_B has(B, 7H)", "has(B, 7H) & K_A ~has(A, 7H)"]:
        assert _reference(game, "A", formula) is None
        with pytest.raises(kw.UnknownToViewerError, match="true in some of A's worlds"):
            state.holds(formula)


@pytest.mark.parametrize("setup", SMALL_SETUPS, ids=lambda s: f"{s[0]}-{s[1]}x{len(s[2])}")
@pytest.mark.parametrize("engine", sorted(ENGINES))
def test_every_engine_counts_and_locates_like_the_kripke_model_on_every_view(setup, engine) -> None:
    for seed, steps in [(1, 0), (2, 4), (3, 9)]:
        game = random_game(setup, seed, steps)
        reference = kw.knowledge(game, engine="explicit")
        for viewer in game.players:
            state = kw.knowledge(game.view(viewer), engine=engine)
            assert state.count_worlds(viewer) == reference.count_worlds(viewer)
            assert state.count_worlds() == reference.count_worlds()
            assert (state.location_counts(viewer) == reference.location_counts(viewer)).all()
            assert np.allclose(
                state.location_probabilities(viewer), reference.location_probabilities(viewer)
            )
            for card in game.deck.cards:
                assert state.knows_location(viewer, card) == reference.knows_location(viewer, card)
            other = next(p for p in game.players if p != viewer)
            with pytest.raises(kw.UnknownToViewerError):
                state.count_worlds(other)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 8),
)
def test_nested_formulas_on_views_agree_with_the_kripke_model_on_every_engine(
    data, setup, seed, steps
) -> None:
    game = random_game(setup, seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    formula = data.draw(nested_formulas(list(game.players), atoms))
    viewer = data.draw(st.sampled_from([None, *game.players]))
    expected = _reference(game, viewer, formula)
    source = game if viewer is None else game.view(viewer)
    for engine in sorted(ENGINES):
        assert _answer(kw.knowledge(source, engine=engine), formula) is expected, (
            engine,
            viewer,
            str(formula),
        )


def test_engine_named_keeps_one_engine_per_name_and_refuses_unknown_names() -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    state = kw.knowledge(game)
    assert state.engine_named("symbolic") is state.engine_named("symbolic")
    assert {state.engine_named(name).name for name in ENGINES} == set(ENGINES)
    with pytest.raises(kw.KwartetError, match="engine 'bdd': expected one of"):
        state.engine_named("bdd")


def test_a_view_state_follows_later_views_and_refuses_another_game() -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=4)
    kept = kw.knowledge(game.view("A"))
    for _ in range(6):
        if game.is_over:
            break
        ask = game.legal_asks()[0]
        game.ask(ask.target, ask.card)
        kept.follow(game.view("A"))
        fresh = kw.knowledge(game.view("A"))
        assert kept.count_worlds("A") == fresh.count_worlds("A")
        assert (kept.location_counts("A") == fresh.location_counts("A")).all()
    other = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=5)
    before = kept.count_worlds("A")
    with pytest.raises(kw.KwartetError, match="not a later view"):
        kept.follow(other.view("A"))
    with pytest.raises(kw.KwartetError, match="expected a later view of A"):
        kept.follow(game.view("B"))
    assert kept.count_worlds("A") == before
