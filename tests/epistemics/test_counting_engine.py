"""The counting engine against known answers and against brute force over every deal.

The brute force is independent of the engine: it deals every possible deal (with the same
hand sizes, and every stock order), replays the recorded actions with the referee, and
keeps the deals whose public record is the one observed.  A world is a deal up to what no
one can ever tell apart: the hands dealt, the set-aside and middle cards, and the cards
drawn so far, in order.
"""

from __future__ import annotations

import contextlib
import json
from collections import Counter
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from brute_force import actual_key, brute_worlds
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.events import Answered, Drew

# Hand-checked positions with their world counts (a copy of shared/data, kept with the
# tests so that a clone runs them on its own).
REFERENCE = Path(__file__).resolve().parents[1] / "data" / "reference_positions.json"


def _reference_positions() -> list[dict]:
    return json.loads(REFERENCE.read_text())["positions"]


def _replay_position(position: dict) -> kw.Game:
    deck = kw.Deck.from_spec(position["deck"])
    hands = {p: position["hands"][p] for p in position["players"]}
    game = kw.Game.from_hands(deck, hands, first=position["first"])
    for asker, target, card, answer in position["asks"]:
        events = game.ask(target, card, asker=asker)
        assert events[1].has_card == (answer == "yes")
    return game


@pytest.mark.parametrize("engine", ["counting", "explicit", "symbolic"])
@pytest.mark.parametrize("index", range(24))
def test_reference_positions_public_and_per_player_world_counts(index: int, engine: str) -> None:
    position = _reference_positions()[index]
    if engine == "explicit" and position["worlds"]["public"] > 100_000:
        pytest.skip("the explicit engine is for teaching sizes")
    game = _replay_position(position)
    k = kw.knowledge(game, engine=engine)
    assert k.count_worlds() == position["worlds"]["public"]
    for player in position["players"]:
        assert k.count_worlds(player) == position["worlds"][player]
        # The same answer built only from what the player sees.
        from_view = kw.knowledge(game.view(player), engine=engine)
        assert from_view.count_worlds(player) == position["worlds"][player]


# ----- brute force ------------------------------------------------------------------


def _brute_worlds(game: kw.Game):
    """World key -> (current hands, each player's private key), for every consistent deal
    (the brute force of :mod:`brute_force`)."""
    return {key: (w.current, w.private) for key, w in brute_worlds(game).items()}


def _brute_player_worlds(game: kw.Game, worlds: dict, player: str) -> list:
    actual = actual_key(game, player)
    return [w for w in worlds.values() if w[1][player] == actual]


SMALL_SETUPS = [
    ("publisher", 2, 3, {}),
    ("publisher", 2, 3, {"bluffing": True}),
    ("lamas", 2, 3, {}),
    ("dutch", 2, 3, {}),
    ("publisher", 3, 3, {}),
    ("publisher", 2, 4, {}),
    ("fish", 2, 2, {"cards_each": 3}),
    ("fish", 2, 3, {"cards_each": 2}),
    ("fish", 2, 2, {"cards_each": 3, "bonus_turn": True}),
    ("publisher", 2, 3, {"memory_cards": 1}),
    ("fish", 2, 2, {"cards_each": 2}),
    ("fish", 2, 2, {"cards_each": 2, "memory_cards": 1}),
]

# Setups where one player often draws several times in a row (a lone holder, or nobody
# able to ask because the cards they want lie face up in the middle).
RUN_OF_DRAWS_SETUPS = [
    ("fish", 2, 2, {"cards_each": 2}),
    ("fish", 2, 2, {"cards_each": 2, "memory_cards": 1}),
    ("fish", 2, 2, {"cards_each": 2, "memory_cards": 2}),
]


def _random_game(setup, seed: int, steps: int) -> kw.Game:
    preset, families, n_players, extra = setup
    rules = kw.RuleSet.preset(preset).replace(**extra)
    players = ["A", "B", "C", "D"][:n_players]
    game = kw.Game.deal(kw.Deck.piquet(families=families), players, seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    for _ in range(steps):
        if game.is_over:
            break
        if rules.memory_cards and rng.random() < 0.3:
            face_down = [i for i, c in enumerate(game.middle) if c is None]
            if face_down:
                with contextlib.suppress(kw.IllegalAskError):
                    game.turn_over(face_down[0])
                if game.is_over:
                    break
        game.play(game.random_legal_ask(rng))
    return game


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 12),
)
def test_counting_engine_matches_brute_force_on_small_games(setup, seed, steps) -> None:
    game = _random_game(setup, seed, steps)
    worlds = _brute_worlds(game)
    k = kw.knowledge(game)
    assert k.count_worlds() == len(worlds)
    for player in game.players:
        mine = _brute_player_worlds(game, worlds, player)
        assert k.count_worlds(player) == len(mine) >= 1
        counts = k.location_counts(player)
        for c, card in enumerate(game.deck.cards):
            for q, holder in enumerate(game.players):
                expected = sum(1 for current, _ in mine if card.code in current[holder])
                assert counts[c, q] == expected, (player, card.code, holder)


def _has_draw_not_after_a_refusal(game: kw.Game) -> bool:
    record = game.record
    return any(
        isinstance(e, Drew)
        and not (isinstance(record[i - 1], Answered) and not record[i - 1].has_card)
        for i, e in enumerate(record)
    )


@pytest.mark.parametrize(
    "setup", RUN_OF_DRAWS_SETUPS, ids=lambda s: "+".join(map(str, s[3].values()))
)
def test_runs_of_draws_keep_the_no_complete_family_rule_on_every_engine(setup) -> None:
    # Each draw of a run starts from a settled moment (the previous draw's quartet, if
    # any, is laid down first); these seeds include runs that the engines once got wrong.
    games = [_random_game(setup, seed, 12) for seed in range(80)]
    games = [g for g in games if _has_draw_not_after_a_refusal(g)][:10]
    assert len(games) >= 3
    for game in games:
        worlds = _brute_worlds(game)
        for engine in ("counting", "explicit", "symbolic"):
            k = kw.knowledge(game, engine=engine)
            assert k.count_worlds() == len(worlds), (engine, game.record)
            for player in game.players:
                mine = _brute_player_worlds(game, worlds, player)
                assert k.count_worlds(player) == len(mine), (engine, player, game.record)


@pytest.mark.parametrize("engine", ["counting", "explicit", "symbolic"])
def test_back_to_back_draws_of_a_lone_holder(engine) -> None:
    rules = kw.RuleSet.preset("fish").replace(cards_each=2)
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H"]},
        first="A",
        rules=rules,
        stock=["8C", "7C", "8D", "7D"],
    )
    game.ask("B", "7H")
    game.ask("B", "8H")  # B is out; A draws 7D, 8D, 7C (sevens laid down), then 8C
    assert sum(isinstance(e, Drew) for e in game.record) == 4
    # By hand: A was dealt one seven and one eight, not the hearts (3 * 3); the draws put
    # one seven and one eight first (else the second draw completes the sevens), in
    # either order (2), each of the two left (2 * 2); then the last seven, the last eight.
    assert kw.knowledge(game, engine=engine).count_worlds() == 72
    assert len(_brute_worlds(game)) == 72


@pytest.mark.parametrize("engine", ["counting", "explicit", "symbolic"])
def test_a_draw_because_nobody_can_ask_tells_what_the_holders_hold(engine) -> None:
    rules = kw.RuleSet.preset("fish").replace(cards_each=3, memory_cards=2)
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7S", "7H", "7C"], "B": ["8S", "8H", "8C"]},
        first="A",
        rules=rules,
        stock=["9S", "9H", "9C", "9D"],
        middle=["7D", "8D"],
    )
    game.turn_over(0)  # 7D face up: A cannot ask any more, so B moves
    game.turn_over(1)  # 8D face up: nobody can ask, so B draws
    assert isinstance(game.record[-1], Drew)
    # A could not ask: of the sevens A holds all three hidden ones or none, and no
    # eight or nine (those were all askable); with three cards, A holds the three
    # sevens.  Nobody could ask at B's draw: B likewise holds the three eights.  Left
    # open: which nine B drew (4).  Without the second inference: 136 worlds.
    k = kw.knowledge(game, engine=engine)
    assert k.count_worlds() == 4
    assert k.count_worlds("A") == 4
    assert k.count_worlds("B") == 1
    assert k.knows_location("A", "8S") == "B"


@settings(max_examples=10, deadline=None)
@given(setup=st.sampled_from(SMALL_SETUPS[:6]), seed=st.integers(0, 10_000))
def test_sampled_worlds_are_possible_and_roughly_uniform(setup, seed) -> None:
    game = _random_game(setup, seed, 4)
    worlds = _brute_worlds(game)
    player = game.players[0]
    possible = Counter(
        tuple(tuple(sorted(current[p])) for p in game.players)
        for current, _ in _brute_player_worlds(game, worlds, player)
    )
    k = kw.knowledge(game)
    samples = k.sample_worlds(player, 200, np.random.default_rng(seed))
    seen = Counter(
        tuple(tuple(sorted(c.code for c in w.hands[p])) for p in game.players) for w in samples
    )
    assert set(seen) <= set(possible)
    assert all(w.hands[player] == game.hand(player) for w in samples)
    if len(possible) == 1:
        assert len(seen) == 1


def test_location_probabilities_are_exact_fractions_of_counts() -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=5)
    rng = np.random.default_rng(5)
    for _ in range(4):
        game.play(game.random_legal_ask(rng))
    k = kw.knowledge(game)
    counts = k.location_counts("B")
    total = k.count_worlds("B")
    probabilities = k.location_probabilities("B")
    for c in range(len(game.deck)):
        for q in range(3):
            assert probabilities[c, q] == float(Fraction(int(counts[c, q]), total))


# ----- full games -------------------------------------------------------------------


@pytest.mark.parametrize("deck", [kw.Deck.piquet(), kw.Deck.standard()], ids=["32", "52"])
def test_full_game_actual_world_stays_possible_and_counts_never_grow(deck) -> None:
    game = kw.Game.deal(deck, ["A", "B", "C", "D"], seed=11)
    k = kw.knowledge(game)
    rng = np.random.default_rng(11)
    previous = {p: k.count_worlds(p) for p in game.players}
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
        for p in game.players:
            now = k.count_worlds(p)
            assert 1 <= now <= previous[p]
            previous[p] = now
            for card in game.hand(p):
                assert k.knows_location(p, card) == p


def test_count_can_grow_after_a_draw() -> None:
    grew = False
    for seed in range(40):
        game = kw.Game.deal(
            kw.Deck.piquet(), ["A", "B", "C"], seed=seed, rules=kw.RuleSet.preset("fish")
        )
        k = kw.knowledge(game)
        rng = np.random.default_rng(seed)
        while not game.is_over and not grew:
            before = {p: k.count_worlds(p) for p in game.players}
            events = game.play(game.random_legal_ask(rng))
            if any(isinstance(e, Drew) for e in events):
                drawer = next(e.player for e in events if isinstance(e, Drew))
                others = [p for p in game.players if p != drawer]
                grew = any(k.count_worlds(p) > before[p] for p in others)
            assert all(k.count_worlds(p) >= 1 for p in game.players)
        if grew:
            break
    assert grew


# ----- hand-worked cases ------------------------------------------------------------


def test_seed_000_example_refusal_tells_everyone_b_lacks_the_queen_of_hearts() -> None:
    deck = kw.Deck.piquet()
    hands = {
        "A": ["QS", "QD", "QC", "7S", "8S", "9S", "10S", "JS"],
        "B": ["7H", "8H", "9H", "10H", "JH", "KH", "AH", "7D"],
        "C": ["QH", "8D", "9D", "10D", "JD", "KD", "AD", "7C"],
        "D": ["8C", "9C", "10C", "JC", "KC", "AC", "KS", "AS"],
    }
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "QH")
    assert game.to_move == "B"
    k = kw.knowledge(game)
    for p in game.players:
        assert k.holds(f"K_{p} ~has(B, QH)")
    # A holds the other three queens, B refused: A knows C or D has it, not which.
    assert k.knows_location("A", "QH") is None
    assert k.knows_location("C", "QH") == "C"


def test_refusal_by_last_candidate_reveals_the_holder_to_everyone() -> None:
    deck = kw.Deck.piquet(families=3)
    hands = {
        "A": ["7S", "8S", "9S", "9H"],
        "B": ["7H", "8H", "9D", "7C"],
        "C": ["7D", "8D", "8C", "9C"],
    }
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "7D")  # no: only C can have it now, and everyone knows it
    k = kw.knowledge(game)
    for p in game.players:
        assert k.knows_location(p, "7D") == "C"
        assert k.holds(f"K_{p} has(C, 7D)")
    assert k.holds("C_{A,B,C} has(C, 7D)")
    assert not k.holds("C_{A,B,C} has(C, 7C)")


def test_no_complete_family_rule_gives_a_deduction_that_fact_lists_miss() -> None:
    # B ends up publicly holding 7S and 7D (received) and 8C.  A has one card left.  C,
    # holding only 8D, reasons: B cannot hold both 7H and 7C (B would have laid down the
    # sevens), so A's single card is one of them and B holds 8S and 8H.  A fact list
    # leaves 8H with A or B: only the complete-family rule places it.
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7H", "7D", "8C"], "B": ["7C", "8S", "8H"], "C": ["7S", "8D"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "8D")  # no
    game.ask("C", "7S")  # B: yes
    game.ask("A", "7D")  # B: yes
    game.ask("A", "8C")  # B: yes
    k = kw.knowledge(game)
    assert k.knows_location("C", "8H") == "B"
    assert k.holds("K_C has(B, 8H)")
    # C cannot tell which seven A kept.
    assert k.knows_location("C", "7H") is None
    # No single public fact names 8H: nobody was asked for it and it never moved.
    assert all(getattr(e, "card", None) is None or e.card.code != "8H" for e in game.record)


def test_timeline_matches_knowledge_after_each_action() -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=4)
    rng = np.random.default_rng(4)
    snapshots = []
    k = kw.knowledge(game)
    while not game.is_over and len(snapshots) < 12:
        game.play(game.random_legal_ask(rng))
        known = {
            (p, c.code) for p in game.players for c in game.deck.cards if k.knows_location(p, c)
        }
        snapshots.append((len(game.record) - 1, known))
    timeline = k.timeline()
    for last_index, known in snapshots:
        for p, code in known:
            first = timeline[p][code]
            assert first is not None and first <= last_index


def _play_past_first_exposure(rules: kw.RuleSet, families: int, players: list[str], seed: int):
    game = kw.Game.deal(kw.Deck.piquet(families=families), players, seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    while not game.is_over and not game.exposed:
        game.play(game.random_legal_ask(rng))
    if not game.is_over:
        game.play(game.random_legal_ask(rng))
    return game


@pytest.mark.parametrize("seed", range(0, 40, 3))
def test_cards_out_of_play_after_an_exposure_match_brute_force(seed: int) -> None:
    # With a card face down out of play, "the game goes on" says some unexposed family can
    # still be completed; exposed families must not enter that condition.
    game = _play_past_first_exposure(kw.RuleSet(memory_cards=1), 2, ["A", "B", "C"], seed)
    worlds = _brute_worlds(game)
    k = kw.knowledge(game)
    assert k.count_worlds() == len(worlds)
    for player in game.players:
        assert k.count_worlds(player) == len(_brute_player_worlds(game, worlds, player))


@pytest.mark.parametrize("seed", range(0, 60, 7))
def test_set_aside_cards_after_an_exposure_counting_equals_explicit(seed: int) -> None:
    game = _play_past_first_exposure(kw.RuleSet.preset("dutch"), 3, ["A", "B", "C", "D", "E"], seed)
    counting = kw.knowledge(game, engine="counting")
    explicit = kw.knowledge(game, engine="explicit")
    assert counting.count_worlds() == explicit.count_worlds()
    for player in game.players:
        assert counting.count_worlds(player) == explicit.count_worlds(player)
