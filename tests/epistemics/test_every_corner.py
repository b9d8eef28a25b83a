"""Every rule preset and option, every engine, every viewpoint: against brute force.

Random small games of every preset and option (clockwise turns, bluffing, set-aside
cards, a draw pile with 2 and 3 players, bonus turns, Memory Kwartet, and their
combinations), played past exposures and draws; at the position reached, the three
engines' world counts, location counts, ``knows_location`` and random nested formulas
(K, M, Kw, E, C, D, announcements) must equal what the brute force of
:mod:`brute_force` finds, for the public and for every player.
"""

from __future__ import annotations

import contextlib

import numpy as np
import pytest
from brute_force import (
    actual_world,
    brute_worlds,
    brute_worlds_by_prefix,
    evaluate,
    game_after,
    player_worlds,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import nested_formulas

import kwartet_epistemic as kw
from kwartet_epistemic.logic import Atom, parse

ENGINES = ("counting", "explicit", "symbolic")

# (preset, rule changes, players): two families, so that the brute force stays small.
CORNERS = [
    ("publisher", {}, 3),
    ("publisher", {"bluffing": True}, 3),
    ("lamas", {}, 3),
    ("lamas", {"bluffing": True}, 3),
    ("dutch", {}, 3),
    ("dutch", {"bluffing": True}, 3),
    ("dutch", {"refusal_turn": "asked"}, 3),
    ("fish", {"cards_each": 2}, 2),
    ("fish", {"cards_each": 2}, 3),
    ("fish", {"cards_each": 2, "bonus_turn": True}, 2),
    ("fish", {"cards_each": 2, "refusal_turn": "clockwise"}, 3),
    ("fish", {"cards_each": 2, "bluffing": True, "bonus_turn": True}, 2),
    ("fish", {"cards_each": 2, "memory_cards": 1}, 2),
    ("publisher", {"memory_cards": 1}, 3),
    ("lamas", {"memory_cards": 2, "bluffing": True}, 3),
    ("dutch", {"memory_cards": 1}, 3),
]


def _corner_id(corner) -> str:
    preset, extra, n = corner
    return "-".join([preset, *(f"{k}={v}" for k, v in extra.items()), f"{n}p"])


def _play(corner, seed: int, steps: int) -> kw.Game:
    preset, extra, n_players = corner
    rules = kw.RuleSet.preset(preset).replace(**extra)
    players = ["A", "B", "C"][:n_players]
    game = kw.Game.deal(kw.Deck.piquet(families=2), players, seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        if rules.memory_cards and rng.random() < 0.35:
            face_down = [i for i, c in enumerate(game.middle) if c is None]
            if face_down:
                with contextlib.suppress(kw.IllegalAskError):
                    game.turn_over(int(rng.choice(face_down)))
                if game.is_over:
                    break
        game.play(game.random_legal_ask(rng))
    return game


def _check_position(game: kw.Game, formulas, worlds=None) -> None:
    worlds = brute_worlds(game) if worlds is None else worlds
    everything = list(worlds.values())
    actual = everything.index(actual_world(game, worlds))
    views = {p: player_worlds(game, worlds, p) for p in game.players}
    truths = [actual in evaluate(f, everything, game.players) for f in formulas]
    for engine in ENGINES:
        k = kw.knowledge(game, engine=engine)
        assert k.count_worlds() == len(everything), engine
        for viewer in (None, *game.players):
            mine = everything if viewer is None else views[viewer]
            if viewer is not None:
                assert k.count_worlds(viewer) == len(mine) >= 1, (engine, viewer)
            counts = k.location_counts(viewer)
            for c, card in enumerate(game.deck.cards):
                for q, holder in enumerate(game.players):
                    expected = sum(1 for w in mine if w.place[card.code] == holder)
                    assert counts[c, q] == expected, (engine, viewer, card.code, holder)
        for viewer in game.players:
            for card in game.deck.cards:
                places = {w.place[card.code] for w in views[viewer]}
                known = k.knows_location(viewer, card)
                if len(places) == 1:
                    assert known == next(iter(places)), (engine, viewer, card.code)
                else:
                    assert known is None, (engine, viewer, card.code, places)
        for formula, truth in zip(formulas, truths, strict=True):
            assert k.holds(formula) == truth, (engine, str(formula))
    # What each player can work out from their own view alone is the same.
    for viewer in game.players:
        assert kw.knowledge(game.view(viewer)).count_worlds(viewer) == len(views[viewer])


@pytest.mark.parametrize("corner", CORNERS, ids=_corner_id)
@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), seed=st.integers(0, 100_000), steps=st.integers(0, 14))
def test_every_engine_matches_brute_force_in_every_corner(corner, data, seed, steps) -> None:
    game = _play(corner, seed, steps)
    atoms = [Atom(f"has({p}, {c.code})") for p in game.players for c in game.deck.cards]
    formulas = [data.draw(nested_formulas(list(game.players), atoms)) for _ in range(3)]
    _check_position(game, formulas)


@pytest.mark.parametrize("corner", CORNERS, ids=_corner_id)
def test_every_engine_matches_brute_force_after_every_action_of_one_game(corner) -> None:
    # Every history of one whole game: each prefix of its actions replayed and checked.
    game = _play(corner, 11, 30)
    a, b = game.players[0], game.players[1]
    group = ",".join(game.players)
    formulas = [
        parse(text)
        for text in (
            f"K_{a} has({b}, 8S) | K_{a} ~has({b}, 8S)",
            f"C_{{{group}}} ~has({a}, 7H) -> K_{b} ~has({a}, 7H)",
            f"[!has({b}, 7S) | has({b}, 8H)] (K_{a} has({b}, 7S) | M_{b} has({a}, 8D))",
            f"D_{{{a},{b}}} has({a}, 7S) & ~E_{{{group}}} has({a}, 7S)",
        )
    ]
    for n, worlds in enumerate(brute_worlds_by_prefix(game)):
        _check_position(game_after(game, n), formulas, worlds)


@pytest.mark.parametrize(
    ("corner", "seed", "steps"),
    [
        (("lamas", {"memory_cards": 2}, 3), 51, 6),
        (("publisher", {"memory_cards": 2}, 3), 17, 2),
        (("fish", {"cards_each": 2, "memory_cards": 2}, 2), 49, 1),
        (("dutch", {"memory_cards": 2}, 3), 51, 9),
    ],
)
def test_a_player_who_turns_a_card_and_then_cannot_ask_could_ask_before(
    corner, seed: int, steps: int
) -> None:
    # Memory Kwartet: a player who turned a card over and then could not ask had the
    # turn, so could ask just before; the engines keep that moment (inclusion-exclusion
    # with the present one) and still agree with brute force.
    from kwartet_epistemic.epistemics.history import PublicHistory

    preset, extra, n_players = corner
    rules = kw.RuleSet.preset(preset).replace(**extra)
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"][:n_players], seed=seed,
                        rules=rules)  # fmt: skip
    rng = np.random.default_rng(seed)
    for step in range(steps + 1):
        if rng.random() < 0.6:
            face_down = [i for i, c in enumerate(game.middle) if c is None]
            if face_down:
                with contextlib.suppress(kw.IllegalAskError):
                    game.turn_over(int(rng.choice(face_down)))
        if step < steps:
            game.play(game.random_legal_ask(rng))
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record)
    assert history.could_ask  # such a moment is in this record
    _check_position(game, [parse(f"K_{game.players[0]} has({game.players[1]}, 7S)")])
