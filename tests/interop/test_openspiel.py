"""The OpenSpiel game python_kwartet, OpenSpiel's bots as agents, and agents as bots."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest
from kwartet_testing import require_extra

import kwartet_epistemic as kw
from kwartet_epistemic.agents.agent import AgentSpec, make_agent, make_player

pyspiel = require_extra("pyspiel", "openspiel")
kos = require_extra("kwartet_epistemic.interop.openspiel_game", "openspiel")
kob = require_extra("kwartet_epistemic.interop.openspiel_bots", "openspiel")


def _deal_randomly(state, rng: np.random.Generator) -> None:
    while state.is_chance_node():
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))


def _play_randomly(state, rng: np.random.Generator, asks: int) -> None:
    _deal_randomly(state, rng)
    for _ in range(asks):
        if state.is_terminal():
            break
        state.apply_action(int(rng.choice(state.legal_actions())))


@pytest.mark.parametrize(
    "params, sims",
    [
        ({"players": 3, "families": 2}, 4),
        ({"players": 3, "families": 3, "preset": "dutch"}, 4),
        ({"players": 4, "families": 3, "options": "bluffing:true;refusal_turn:clockwise"}, 4),
        ({"players": 4}, 2),  # the full game: 32 cards
    ],
)
def test_random_sim_test_passes(params, sims):
    game = pyspiel.load_game("python_kwartet", params)
    pyspiel.random_sim_test(game, num_sims=sims, serialize=True, verbose=False)


def test_the_game_string_loads_the_same_game():
    game = kos.load_game(5, kw.Deck.standard(families=6), kw.RuleSet.preset("dutch"))
    again = pyspiel.load_game(str(game))
    assert again.setup.rules == kw.RuleSet.preset("dutch")
    assert again.setup.deck == kw.Deck.standard(families=6)
    assert (again.num_players(), again.num_distinct_actions()) == (5, 5 * 24)


def _deal_probabilities(game) -> dict[tuple, float]:
    """Every deal (dealer, each seat's hand, the undealt rest) with its probability, by
    walking the whole chance tree."""
    found: dict[tuple, float] = {}

    def walk(state, p: float) -> None:
        if not state.is_chance_node():
            core = state._core
            hands = tuple(frozenset(core.dealt_to(s)) for s in range(core.setup.n))
            rest = frozenset(range(len(core.setup.deck))) - set(core.dealt)
            key = (core.dealer, hands, rest)
            found[key] = found.get(key, 0.0) + p
            return
        for action, q in state.chance_outcomes():
            child = state.clone()
            child.apply_action(action)
            walk(child, p * q)

    walk(game.new_initial_state(), 1.0)
    return found


@pytest.mark.parametrize(
    "params, hands_of_dealer_2",
    [
        ({"players": 3, "families": 1}, (2, 1, 1)),  # uneven: the dealer's left gets more
        ({"players": 3, "families": 1, "preset": "dutch"}, (1, 1, 1)),  # one card set aside
    ],
)
def test_every_deal_is_equally_likely(params, hands_of_dealer_2):
    game = pyspiel.load_game("python_kwartet", params)
    deals = _deal_probabilities(game)
    assert math.isclose(sum(deals.values()), 1.0)
    # 3 dealers times the multinomial number of deals of 4 cards into those hand sizes
    sizes = hands_of_dealer_2 + (4 - sum(hands_of_dealer_2),)
    multinomial = math.factorial(4) // math.prod(math.factorial(k) for k in sizes)
    assert len(deals) == 3 * multinomial
    assert all(math.isclose(p, 1 / len(deals)) for p in deals.values())
    # The hand sizes are the referee's for the same dealer.
    reference = kw.Game.deal(
        game.setup.deck, list("ABC"), seed=0, rules=game.setup.rules
    )  # any seed: sizes depend on the dealer only
    for (dealer, hands, _), _p in deals.items():
        if dealer == "ABC".index(reference.dealer):
            assert tuple(len(h) for h in hands) == tuple(reference.hand_sizes.values())
        if dealer == 2:
            assert tuple(len(h) for h in hands) == hands_of_dealer_2


def test_the_state_follows_the_referee_and_returns_win_shares():
    game = pyspiel.load_game("python_kwartet", {"players": 4, "families": 4})
    rng = np.random.default_rng(3)
    for _ in range(5):
        state = game.new_initial_state()
        _play_randomly(state, rng, 10_000)
        assert state.is_terminal()
        table = kos.core_game(state)
        assert table.is_over and sum(table.scores.values()) == 4
        returns = state.returns()
        assert math.isclose(sum(returns), 1.0)
        assert [r > 0 for r in returns] == [p in table.winners for p in "ABCD"]
        assert len({r for r in returns if r > 0}) == 1


def test_actions_and_asks_translate_both_ways():
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 3})
    state = game.new_initial_state()
    _deal_randomly(state, np.random.default_rng(1))
    table = kos.core_game(state)
    actions = state.legal_actions()
    assert actions == sorted(actions)
    assert sorted(kos.action_of(state, a) for a in table.legal_asks()) == actions
    assert [kos.ask_of(state, a) for a in actions] == sorted(
        table.legal_asks(), key=lambda a: kos.action_of(state, a)
    )


def test_information_state_is_what_the_player_saw():
    game = pyspiel.load_game("python_kwartet", {"players": 4})
    size = game.information_state_tensor_size()
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    _play_randomly(state, rng, 25)
    table = kos.core_game(state)
    for seat, name in enumerate("ABCD"):
        text = state.information_state_string(seat)
        tensor = np.array(state.information_state_tensor(seat))
        assert tensor.shape == (size,)
        own = {c.index for c in table.hand(name)}
        hand_part = tensor[4 + 32 : 4 + 64]  # player one-hot, dealt, hand
        assert set(np.flatnonzero(hand_part)) == own
        assert text.startswith(name + " | dealt ")
        observation = state.observation_string(seat)
        assert all(c.code in observation for c in table.hand(name))
        assert len(state.observation_tensor(seat)) == game.observation_tensor_size()
    assert len({state.information_state_string(s) for s in range(4)}) == 4


def test_resampling_keeps_the_information_state_and_is_exactly_uniform():
    # Small enough to count the worlds: 3 players, 2 families.
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 2})
    rng = np.random.default_rng(11)
    state = game.new_initial_state()
    _play_randomly(state, rng, 1)
    assert not state.is_terminal()
    player = state.current_player()
    table = kos.core_game(state)
    view = table.view("ABC"[player])
    worlds = kw.knowledge(view).count_worlds(view.player)
    assert worlds > 2
    seen: Counter[tuple] = Counter()
    draws = 120 * worlds
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    for _ in range(draws):
        other = state.resample_from_infostate(player, sampler)
        assert other.information_state_string(player) == state.information_state_string(player)
        assert other.legal_actions() == state.legal_actions()
        assert kos.core_game(other).view(view.player).record == view.record
        seen[tuple(kos.core_game(other).hand(p) for p in "ABC")] += 1
    assert len(seen) == worlds  # every possible world, and no other
    assert all(hands["ABC".index(view.player)] == view.hand for hands in seen)
    worlds_seen = seen
    expected = draws / worlds  # each about 120 times: within 5 standard deviations
    spread = 5 * math.sqrt(expected * (1 - 1 / worlds))
    assert all(abs(k - expected) < spread for k in worlds_seen.values())


def test_state_from_world_replays_the_record():
    table = kw.Game.deal(kw.Deck.piquet(), list("ABCD"), seed=8)
    rng = np.random.default_rng(2)
    for _ in range(30):
        table.play(table.random_legal_ask(rng))
    view = table.view("C")
    (world,) = kw.knowledge(view).sample_worlds("C", 1, rng)
    state = kos.state_from_world(kos.load_game(4, table.deck), view, world)
    rebuilt = kos.core_game(state)
    assert rebuilt.view("C").record == view.record
    assert rebuilt.hand("C") == table.hand("C")
    assert {p: rebuilt.hand(p) for p in "ABCD"} == dict(world.hands)
    assert len(state.history()) == 1 + 32 + 30  # the dealer, the cards, the asks
    with pytest.raises(kw.GameSetupError, match="differ"):
        kos.state_from_world(kos.load_game(3, table.deck), view, world)


@pytest.mark.parametrize(
    "params, error",
    [
        ({"preset": "fish"}, kw.RuleOptionError),
        ({"options": "memory_cards:2"}, kw.RuleOptionError),
        ({"options": "bluffing"}, kw.RuleOptionError),
        ({"players": 2}, kw.GameSetupError),
        ({"deck": "tarot"}, kw.GameSetupError),
    ],
)
def test_bad_parameters_are_refused(params, error):
    with pytest.raises(error, match="python_kwartet"):
        pyspiel.load_game("python_kwartet", params)


def test_openspiel_specs_parse_and_refuse_bad_options():
    spec = AgentSpec.parse("OpenSpiel:ISMCTS[ms=300, uct_c=1]")
    assert (spec.policy, str(spec)) == ("openspiel:ismcts", "openspiel:ismcts[ms=300,uct_c=1]")
    for text, message in [
        ("openspiel:alphazero", "OpenSpiel bots are openspiel:ismcts"),
        ("openspiel:ismcts[ms=-5]", "ms='-5': expected milliseconds > 0"),
        ("openspiel:mcts[depth=3]", "unknown option"),
        ("openspiel:random:facts", "take no :KNOWLEDGE"),
        ("openspiel:ismcts[final=best]", "visits or value"),
        ("openspiel:ismcts[simulations=1]", "expected a whole number >= 2"),
    ]:
        with pytest.raises(kw.GameSetupError, match=message):
            make_agent(text, "A")
    with pytest.raises(kw.GameSetupError, match="OpenSpiel bots"):
        kw.tournament(["openspiel:minimax", "random", "random"], games=1, seed=1)


def test_openspiel_bots_play_tournaments():
    deck = kw.Deck.piquet(families=2)
    agents = [
        "openspiel:ismcts[simulations=4]",
        "openspiel:mcts[simulations=2,worlds=2]",
        "openspiel:random",
    ]
    result = kw.tournament(agents, games=6, seed=2, deck=deck)
    assert len(result.games) == 6 and all(g.finished for g in result.games)
    assert math.isclose(sum(r.win_share * r.seats for r in result.summary()), 1.0)
    # Seeded: the same tournament again gives the same games.
    again = kw.tournament(agents, games=6, seed=2, deck=deck)
    assert again.games == result.games


def test_ismcts_with_a_time_budget_uses_it_and_only_legal_asks():
    table = kw.Game.deal(kw.Deck.piquet(), list("ABCD"), seed=4)
    agent = make_player("openspiel:ismcts[ms=40]", table.to_move, np.random.default_rng(0))
    view = table.view(table.to_move)
    ask = agent.choose(view)
    assert ask in table.legal_asks()
    assert agent.policy.simulations_done > 1


def test_agents_play_a_whole_openspiel_game_as_bots():
    from open_spiel.python.algorithms import evaluate_bots

    game = pyspiel.load_game("python_kwartet", {"players": 4})
    specs = ["knowledge", "defensive:facts", "random", "greedy"]
    bots = [kob.AgentBot(game, seat, spec, seed=seat) for seat, spec in enumerate(specs)]
    state = game.new_initial_state()
    returns = evaluate_bots.evaluate_bots(state, bots, np.random.RandomState(4))
    assert math.isclose(sum(returns), 1.0)
    table = kos.core_game(state)
    assert table.is_over
    assert returns == [1 / len(table.winners) if p in table.winners else 0.0 for p in "ABCD"]
    with pytest.raises(kw.GameSetupError, match="player_id"):
        kob.AgentBot(game, 4, "random")


@pytest.mark.parametrize(
    "kind", ["ismcts[simulations=6]", "mcts[simulations=3,worlds=2]", "random"]
)
def test_openspiel_agents_play_seats_of_any_name(kind):
    table = kw.Game.deal(kw.Deck.piquet(families=4), ["Ann", "Bob", "Cy"], seed=6)
    agents = {
        p: make_agent(f"openspiel:{kind}", p, np.random.default_rng(i))
        for i, p in enumerate(table.players)
    }
    while not table.is_over:
        ask = agents[table.to_move].choose(table.view(table.to_move))
        assert ask in table.legal_asks()
        table.play(ask)
    assert sum(table.scores.values()) == 4


def test_the_dealer_is_in_the_information_state_during_the_deal():
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 2})
    strings = set()
    for dealer in range(3):
        state = game.new_initial_state()
        state.apply_action(dealer)
        strings.add(state.information_state_string(0))
        tensor = np.array(state.information_state_tensor(0))
        assert tensor.sum() == 2  # the player and the dealer
    assert len(strings) == 3


def test_resampling_during_the_deal_keeps_the_players_cards():
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 3})
    state = game.new_initial_state()
    rng = np.random.default_rng(9)
    for _ in range(1 + 7):  # the dealer and 7 cards
        actions, probs = zip(*state.chance_outcomes(), strict=True)
        state.apply_action(int(rng.choice(actions, p=probs)))
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    others = set()
    for _ in range(20):
        other = state.resample_from_infostate(1, sampler)
        assert other.information_state_string(1) == state.information_state_string(1)
        assert other._core.dealt_to(1) == state._core.dealt_to(1)
        assert other._core.dealer == state._core.dealer
        assert len(other._core.dealt) == 7
        others.add(tuple(other._core.dealt))
    assert len(others) > 1  # the others' cards vary


def test_a_game_stopped_at_max_asks_is_shared_by_the_leaders():
    game = pyspiel.load_game("python_kwartet", {"players": 3, "max_asks": 3})
    state = game.new_initial_state()
    _play_randomly(state, np.random.default_rng(0), 3)
    table = kos.core_game(state)
    assert state.is_terminal() and not table.is_over
    best = max(table.scores.values())
    leaders = [p for p in "ABC" if table.scores[p] == best]
    assert state.returns() == [1 / len(leaders) if p in leaders else 0.0 for p in "ABC"]


def test_an_openspiel_bot_spec_is_an_openspiel_bot_again():
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 3})
    bots = [kob.AgentBot(game, s, "openspiel:random", seed=s) for s in range(3)]
    from open_spiel.python.algorithms import evaluate_bots

    returns = evaluate_bots.evaluate_bots(game.new_initial_state(), bots, np.random.RandomState(1))
    assert math.isclose(sum(returns), 1.0)


def test_the_old_module_path_still_works_and_warns() -> None:
    import importlib
    import sys

    sys.modules.pop("kwartet_epistemic.openspiel", None)
    with pytest.warns(DeprecationWarning, match="interop.openspiel_game"):
        old = importlib.import_module("kwartet_epistemic.openspiel")
    assert old.KwartetGame is kos.KwartetGame and old.AgentBot is kob.AgentBot
    assert "python_kwartet" in [g.short_name for g in pyspiel.registered_games()]


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_a_resampled_state_has_the_history_of_its_information_state(seed):
    game = pyspiel.load_game("python_kwartet", {"players": 4, "families": 4})
    rng = np.random.default_rng(seed)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    state = game.new_initial_state()
    _play_randomly(state, rng, int(rng.integers(0, 40)))
    for player in range(4):
        other = state.resample_from_infostate(player, sampler)
        assert len(other.history()) == len(state.history())
        assert other.move_number() == state.move_number()
        # the public moves are the same actions; the chance outcomes are the sampled deal
        asks = len(state.history()) - 1 - 16
        assert other.history()[16 + 1 :] == state.history()[16 + 1 :] and asks >= 0
        assert other.history()[0] == state.history()[0]  # the dealer
        for key in ("information_state_string", "information_state_tensor"):
            assert getattr(other, key)(player) == getattr(state, key)(player)
        again = game.deserialize_state(other.serialize())
        assert again.history() == other.history()
        assert again.information_state_string(player) == state.information_state_string(player)
        assert kos.core_game(again).view("ABCD"[player]).record == (
            kos.core_game(state).view("ABCD"[player]).record
        )
        if player == state.current_player():  # its own hand decides its asks
            assert again.legal_actions() == state.legal_actions()


@pytest.mark.parametrize(
    "params, kind",
    [
        ({"players": 9}, "GameParameterError"),
        ({"players": 2}, "GameParameterError"),
        ({"deck": "nonsense"}, "GameParameterError"),
        ({"families": 0}, "GameParameterError"),
        ({"max_asks": -1}, "GameParameterError"),
        ({"preset": "fish"}, "RuleParameterError"),
        ({"preset": "nonsense"}, "RuleParameterError"),
        ({"options": "bluffing"}, "RuleParameterError"),
    ],
)
def test_bad_parameters_raise_what_openspiel_users_catch(params, kind):
    value = str(next(iter(params.values())))
    with pytest.raises(pyspiel.SpielError, match=f"python_kwartet.*{value}") as caught:
        pyspiel.load_game("python_kwartet", params)
    assert type(caught.value).__name__ == kind
    assert isinstance(caught.value, kw.KwartetError)
    assert "not set up" in repr(caught.traceback[-1].frame.f_locals["self"])
    # OpenSpiel's own checks (an unknown name, a value of the wrong type) raise it too
    with pytest.raises(pyspiel.SpielError):
        pyspiel.load_game("python_kwartet", {"players": "nine"})


def test_max_game_length_counts_decisions_and_chance_separately():
    params = {"players": 3, "families": 1, "max_asks": 3}
    game = pyspiel.load_game("python_kwartet", params)
    assert game.max_game_length() == 3
    assert game.max_chance_nodes_in_history() == 1 + 4
    assert game.max_history_length() == 3 + 5
    from open_spiel.python.algorithms import get_all_states

    terminals = get_all_states.get_all_states(game, include_terminals=True).values()
    players = [[m.player for m in s.full_history()] for s in terminals if s.is_terminal()]
    decisions = [sum(p >= 0 for p in history) for history in players]
    chances = [sum(p < 0 for p in history) for history in players]
    assert max(decisions) == game.max_game_length()
    assert max(chances) == game.max_chance_nodes_in_history()


def test_openspiel_exact_algorithms_run_on_the_small_configuration():
    from open_spiel.python import policy
    from open_spiel.python.algorithms import cfr, exploitability, get_all_states

    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 1, "max_asks": 4})
    assert game.get_type().utility == pyspiel.GameType.Utility.CONSTANT_SUM
    assert game.utility_sum() == 1.0
    states = get_all_states.get_all_states(game, include_terminals=True)
    assert len(states) == 19_060 - (1 + 3 + 12 + 36 + 72)  # without the deal's chance nodes
    assert all(math.isclose(sum(s.returns()), 1.0) for s in states.values() if s.is_terminal())
    uniform = exploitability.nash_conv(game, policy.UniformRandomPolicy(game))
    assert math.isclose(uniform, 0.263888888888889)
    solver = cfr.CFRSolver(game)
    for _ in range(2):  # the first iteration's average is the uniform policy
        solver.evaluate_and_update_policy()
    average = solver.average_policy()
    assert len(average.state_lookup) == 2_322
    assert 0 <= exploitability.nash_conv(game, average) < uniform
    # exploitability() itself is for two players only: NashConv is the measure here
    with pytest.raises(ValueError, match="2-player"):
        exploitability.exploitability(game, average)


def test_agent_policy_is_the_agents_choice_at_every_information_state():
    from open_spiel.python.algorithms import exploitability

    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 1, "max_asks": 4})
    table = kob.agent_policy(game, ["greedy", "random", "knowledge"], samples=3, seed=1)
    probabilities = table.action_probability_array
    assert np.allclose(probabilities.sum(axis=1), 1.0)
    for index, state in enumerate(table.states[:200]):
        support = set(np.flatnonzero(probabilities[index]))
        assert support <= set(state.legal_actions())
        if state.current_player() == 0:  # greedy's choices (it breaks ties at random)
            choices = {kob.AgentBot(game, 0, "greedy", seed=s).step(state) for s in range(12)}
            assert support <= choices
    # a pure policy that always takes the first legal ask is exploitable; the table is
    # an OpenSpiel policy its algorithms measure
    first = kob.agent_policy(game, "greedy")
    for index, state in enumerate(first.states):
        first.action_probability_array[index][:] = 0.0
        first.action_probability_array[index][state.legal_actions()[0]] = 1.0
    assert exploitability.nash_conv(game, first) > 0.3
    assert exploitability.nash_conv(game, table) >= 0
    for bad, message in [("genius", "unknown agent"), (["random"] * 2, "one per seat")]:
        with pytest.raises(kw.GameSetupError, match=message):
            kob.agent_policy(game, bad)
    with pytest.raises(kw.GameSetupError, match="samples"):
        kob.agent_policy(game, "random", samples=0)
