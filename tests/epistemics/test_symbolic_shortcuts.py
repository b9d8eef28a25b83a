"""The symbolic engine's shortcuts (settled atoms, own knowledge, counting) give the
same answers as the plain BDD route and the explicit engine."""

from __future__ import annotations

from functools import partial

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import SMALL_SETUPS, nested_formulas, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.symbolic import shortcut_holds
from kwartet_epistemic.errors import UnknownToViewerError
from kwartet_epistemic.logic import Atom, C, K, Not, parse


def _outcome(ask) -> object:
    """An answer, or the fact that the viewer cannot tell."""
    try:
        return bool(ask())
    except UnknownToViewerError:
        return "unknown to the viewer"


def _agree(state, explicit, formula) -> None:
    fast = _outcome(lambda: state.holds(formula))
    plain = _outcome(lambda: state.engine_named("symbolic").structure().holds(formula))
    reference = _outcome(lambda: explicit.holds(formula))
    assert fast == plain == reference, str(formula)
    decided = shortcut_holds(state, formula)
    assert decided is None or decided == reference, str(formula)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 10),
)
def test_shortcuts_agree_with_bdd_and_explicit_on_the_whole_table(data, setup, seed, steps):
    game = random_game(setup, seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    state = kw.knowledge(game, engine="symbolic")
    explicit = kw.knowledge(game, engine="explicit")
    for _ in range(4):
        _agree(state, explicit, data.draw(nested_formulas(list(game.players), atoms)))


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    data=st.data(),
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 10),
)
def test_shortcuts_agree_with_bdd_and_explicit_on_a_players_view(data, setup, seed, steps):
    game = random_game(setup, seed, steps)
    viewer = data.draw(st.sampled_from(list(game.players)))
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    state = kw.knowledge(game.view(viewer), engine="symbolic")
    explicit = kw.knowledge(game.view(viewer), engine="explicit")
    for _ in range(4):
        _agree(state, explicit, data.draw(nested_formulas(list(game.players), atoms)))


@pytest.mark.parametrize("setup", SMALL_SETUPS, ids=lambda s: f"{s[0]}-{s[1]}-{len(s[2])}")
def test_shortcuts_agree_on_every_two_level_knowledge_and_common_knowledge_query(setup):
    game = random_game(setup, 11, 4)
    state = kw.knowledge(game, engine="symbolic")
    explicit = kw.knowledge(game, engine="explicit")
    players = list(game.players)
    for card in game.deck.cards:
        for p in players:
            atom = Atom(f"has({p}, {card.code})")
            for formula in (
                K(players[0], K(players[1], atom)),
                K(players[1], Not(K(players[0], atom))),
                C(players, Not(atom)),
                C(players[:2], atom | Not(atom) if p == players[0] else atom),
            ):
                _agree(state, explicit, formula)


def test_settled_atoms_are_constants_on_the_full_deck():
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    rng = np.random.default_rng(3)
    for _ in range(20):
        game.play(game.random_legal_ask(rng))
    state = kw.knowledge(game, engine="symbolic")
    for card in game.deck.cards:
        where = state.history.location[card.index]
        if where in game.players:
            # a card seen in a hand: everybody commonly knows where it is
            assert shortcut_holds(state, f"C_{{A,B,C,D}} has({where}, {card.code})") is True


def test_malformed_atoms_are_left_to_the_bdd_route_and_its_errors():
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    state = kw.knowledge(game, engine="symbolic")
    for text in ("K_A has(Z, 7S)", "has(Z, 7S) & bot", "K_Z top", "C_{A,Z} has(A, 7S)"):
        assert shortcut_holds(state, parse(text)) is None
        with pytest.raises(kw.KwartetError):
            state.holds(text)


@pytest.mark.parametrize("asks", [12, 24])
def test_shortcuts_agree_with_the_bdd_route_on_the_full_deck(asks):
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    rng = np.random.default_rng(3)
    for _ in range(asks):
        game.play(game.random_legal_ask(rng))
    table = kw.knowledge(game, engine="symbolic")
    view = kw.knowledge(game.view("B"), engine="symbolic")
    formulas = [f"K_A K_B has({p}, {c.code})" for c in game.deck.cards for p in game.players]
    # common knowledge on the BDD costs seconds at this size: a few cards only
    formulas += [f"C_{{A,B,C,D}} ~has({p}, {c.code})" for c in game.deck.cards[::7] for p in "AB"]
    for state in (table, view):
        for text in formulas:
            fast = _outcome(partial(state.holds, text))
            plain = _outcome(partial(state.engine_named("symbolic").structure().holds, text))
            assert fast == plain, text
