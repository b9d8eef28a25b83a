"""The PettingZoo environment: PettingZoo's own API, seed and render tests, the seeding
convention, agent names, ``state()``, illegal actions, and what an observation shows."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from kwartet_testing import require_extra

require_extra("pettingzoo", "rl")
require_extra("gymnasium", "rl")

from pettingzoo.test import api_test, render_test, seed_test  # noqa: E402

import kwartet_epistemic as kw  # noqa: E402
from kwartet_epistemic.interop.environments import KwartetEnv, env, raw_env  # noqa: E402

SMALL = kw.Deck.piquet(families=4)


def _random_play(environment, rng: np.random.Generator, asks: int) -> None:
    for _ in range(asks):
        if environment.game.is_over:
            return
        mask = environment.observe(environment.agent_selection)["action_mask"]
        environment.step(int(rng.choice(np.flatnonzero(mask))))


def test_pettingzoo_api_test_passes_without_a_naming_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        api_test(KwartetEnv(players=3, deck=SMALL), num_cycles=200)
        api_test(env(players=4), num_cycles=60)
        api_test(KwartetEnv(players=3, deck=SMALL, render_mode="rgb_array"), num_cycles=20)
        api_test(env(players=3, deck=SMALL, render_mode="rgb_array"), num_cycles=20)
    assert not [w for w in caught if "named" in str(w.message) or "player_0" in str(w.message)]


def test_pettingzoo_seed_and_render_tests_pass() -> None:
    seed_test(lambda: KwartetEnv(players=4, deck=SMALL), num_cycles=100)
    render_test(lambda render_mode=None: KwartetEnv(players=3, deck=SMALL, render_mode=render_mode))


def test_seeded_once_then_plain_resets_deal_the_same_games_in_two_runs() -> None:
    def run() -> list[tuple[object, ...]]:
        environment = KwartetEnv(players=3, deck=SMALL)
        environment.reset(seed=5)
        deals = []
        for k in range(4):
            if k:
                environment.reset()
            game = environment.game
            deals.append(
                (environment.deal_seed, tuple(game.hand(p) for p in game.players), game.to_move)
            )
        return deals

    first, second = run(), run()
    assert first == second
    assert len({deal[0] for deal in first}) == 4  # plain resets deal new games
    # each deal is Game.deal with the recorded seed
    for deal_seed, hands, _ in first:
        game = kw.Game.deal(SMALL, ["A", "B", "C"], seed=deal_seed)
        assert tuple(game.hand(p) for p in game.players) == hands
    # seeding again starts the same sequence again
    environment = KwartetEnv(players=3, deck=SMALL)
    environment.reset(seed=5)
    environment.reset()
    again = environment.deal_seed
    environment.reset(seed=5)
    environment.reset()
    assert environment.deal_seed == again == first[1][0]


def test_unseeded_environments_deal_different_games() -> None:
    seeds = set()
    for _ in range(3):
        environment = KwartetEnv(players=3, deck=SMALL)
        environment.reset()
        seeds.add(environment.deal_seed)
    assert len(seeds) == 3


def test_agents_are_named_as_pettingzoo_expects_and_map_onto_the_seats() -> None:
    environment = KwartetEnv(players=4)
    environment.reset(seed=2)
    assert environment.possible_agents == ["player_0", "player_1", "player_2", "player_3"]
    assert [environment.seat_of(a) for a in environment.possible_agents] == list("ABCD")
    assert environment.agent_selection == environment.agent_of(environment.game.to_move)
    for agent in environment.possible_agents:
        assert environment.agent_of(environment.seat_of(agent)) == agent


@pytest.mark.parametrize("bad", ["A", "player_4", "", None, 0])
def test_bad_agent_names_raise_a_library_error(bad: object) -> None:
    environment = KwartetEnv(players=4)
    environment.reset(seed=2)
    for call in (
        environment.observe,
        environment.action_mask,
        environment.observation_space,
        environment.action_space,
        environment.seat_of,
    ):
        with pytest.raises(kw.GameSetupError, match="player_0, player_1, player_2, player_3"):
            call(bad)  # type: ignore[arg-type]
    if bad != "A":  # a seat name, not an agent name
        with pytest.raises(kw.GameSetupError, match="expected one of A, B, C, D"):
            environment.agent_of(bad)  # type: ignore[arg-type]


def test_the_mask_is_exactly_the_legal_asks_and_actions_round_trip() -> None:
    environment = KwartetEnv(players=4)
    environment.reset(seed=3)
    game = environment.game
    assert game is not None
    rng = np.random.default_rng(3)
    for _ in range(30):
        if game.is_over:
            break
        agent = environment.agent_selection
        mask = environment.observe(agent)["action_mask"]
        legal = {environment.encode(a) for a in game.legal_asks()}
        assert set(np.flatnonzero(mask)) == legal and mask.dtype == np.int8
        for action in legal:
            assert environment.encode(environment.decode(agent, action)) == action
        for other in environment.agents:
            if other != agent:
                assert not environment.observe(other)["action_mask"].any()
        environment.step(int(rng.choice(sorted(legal))))


def test_the_raw_environment_refuses_an_illegal_action_and_changes_nothing() -> None:
    environment = raw_env(players=3, deck=SMALL)
    environment.reset(seed=1)
    agent = environment.agent_selection
    mask = environment.observe(agent)["action_mask"]
    before = environment.game.record if environment.game else ()
    with pytest.raises(kw.IllegalAskError, match="not a legal ask"):
        environment.step(int(np.flatnonzero(mask == 0)[0]))
    assert environment.game is not None and environment.game.record == before
    assert environment.agent_selection == agent and not any(environment.terminations.values())


def test_the_wrapped_environment_ends_the_game_on_an_illegal_action_as_pettingzoo_does(
    caplog: pytest.LogCaptureFixture,
) -> None:
    environment = env(players=3, deck=SMALL)
    environment.reset(seed=1)
    _random_play(environment.unwrapped, np.random.default_rng(1), 3)
    actor = environment.agent_selection
    record = environment.unwrapped.game.record
    mask = environment.observe(actor)["action_mask"]
    environment.step(int(np.flatnonzero(mask == 0)[0]))
    assert "Illegal move" in caplog.text
    assert environment.unwrapped.game.record == record  # the illegal ask was not played
    assert all(environment.terminations.values())
    assert environment.rewards[actor] == -1.0
    assert all(r == 0 for a, r in environment.rewards.items() if a != actor)
    for _agent in environment.agent_iter():  # every seat sees the end, then it is over
        _, _, terminated, truncated, _ = environment.last()
        assert terminated or truncated
        environment.step(None)
    assert environment.agents == []


def test_state_is_the_referees_table() -> None:
    environment = KwartetEnv(players=4, deck=SMALL)
    environment.reset(seed=4)
    rng = np.random.default_rng(4)
    n_cards, n = len(SMALL), 4
    for _ in range(40):
        game = environment.game
        state = environment.state()
        assert environment.state_space.contains(state)
        hands = state[: n_cards * n].reshape(n_cards, n)
        exposed = state[n_cards * n : n_cards * n + n_cards]
        for s, seat in enumerate("ABCD"):
            assert set(np.flatnonzero(hands[:, s])) == {c.index for c in game.hand(seat)}
        # every card is in exactly one hand or laid down (no draw pile)
        assert np.array_equal(hands.sum(axis=1) + exposed, np.ones(n_cards))
        turn = state[-n:]
        if game.is_over:
            assert not turn.any()
            break
        assert turn[game.players.index(game.to_move)] == 1.0 and turn.sum() == 1.0
        _random_play(environment, rng, 1)


def test_observation_holds_the_exact_location_probabilities_seen_from_the_observer() -> None:
    environment = KwartetEnv(players=4)
    environment.reset(seed=5)
    _random_play(environment, np.random.default_rng(5), 12)
    game = environment.game
    assert game is not None
    vector = environment.observe("player_2")["observation"]
    n_cards, n = len(game.deck), 4
    probabilities = vector[-n_cards * n :].reshape(n_cards, n)
    expected = kw.knowledge(game.view("C")).location_probabilities("C")
    order = [(game.players.index("C") + k) % n for k in range(n)]  # observer first
    assert np.allclose(probabilities, expected[:, order], atol=1e-6)
    hand = vector[:n_cards]
    assert {int(i) for i in np.flatnonzero(hand)} == {c.index for c in game.hand("C")}


def test_win_rewards_split_a_shared_win_and_sum_to_one() -> None:
    environment = KwartetEnv(players=3, deck=SMALL)
    environment.reset(seed=8)
    totals = dict.fromkeys(environment.possible_agents, 0.0)
    rng = np.random.default_rng(8)
    for agent in environment.agent_iter(10_000):
        observation, reward, terminated, truncated, _ = environment.last()
        totals[agent] += reward
        if terminated or truncated:
            environment.step(None)
            continue
        environment.step(int(rng.choice(np.flatnonzero(observation["action_mask"]))))
    game = environment.game
    assert sum(totals.values()) == pytest.approx(1.0)
    for agent, total in totals.items():
        seat = environment.seat_of(agent)
        assert total == pytest.approx(1 / len(game.winners) if seat in game.winners else 0.0)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(kw.GameSetupError, match="reward"):
        KwartetEnv(reward="money")
    with pytest.raises(kw.GameSetupError, match="players"):
        KwartetEnv(players=9)


def test_the_old_module_path_still_works_and_warns() -> None:
    import importlib
    import sys

    sys.modules.pop("kwartet_epistemic.env", None)
    with pytest.warns(DeprecationWarning, match="interop.environments"):
        old = importlib.import_module("kwartet_epistemic.env")
    assert old.KwartetEnv is KwartetEnv and old.raw_env is raw_env


def test_rgb_array_renders_the_table_and_the_knowledge_of_the_agent_to_move() -> None:
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    assert {"human", "ansi", "rgb_array"} <= set(KwartetEnv.metadata["render_modes"])
    assert KwartetEnv.metadata["render_fps"] > 0
    environment = KwartetEnv(players=3, deck=SMALL, render_mode="rgb_array")
    assert environment.render() is None  # nothing to draw before reset()
    environment.reset(seed=3)
    first = environment.render()
    assert isinstance(first, np.ndarray) and first.dtype == np.uint8
    assert first.ndim == 3 and first.shape[2] == 3 and first.std() > 0
    _random_play(environment, np.random.default_rng(3), 3)
    later = environment.render()
    assert later.shape == first.shape and not np.array_equal(later, first)
    assert plt.get_fignums() == open_before
    # the text modes are unchanged
    text = KwartetEnv(players=3, deck=SMALL, render_mode="ansi")
    text.reset(seed=3)
    assert isinstance(text.render(), str)


def test_the_spaces_are_also_pettingzoos_dicts_keyed_by_agent() -> None:
    environment = KwartetEnv(players=4, deck=SMALL)
    assert list(environment.observation_spaces) == environment.possible_agents
    assert list(environment.action_spaces) == environment.possible_agents
    for agent in environment.possible_agents:
        assert environment.observation_spaces[agent] is environment.observation_space(agent)
        assert environment.action_spaces[agent] is environment.action_space(agent)
    environment.reset(seed=1)
    agent = environment.agent_selection
    assert environment.observation_spaces[agent].contains(environment.observe(agent))
    assert environment.action_spaces[agent].n == environment.n_actions
    # the wrappers of env() forward them
    wrapped = env(players=4, deck=SMALL)
    assert wrapped.observation_spaces.keys() == environment.observation_spaces.keys()
