"""The PettingZoo environment: PettingZoo's own API and seed tests, and what it shows."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from pettingzoo.test import api_test, seed_test  # noqa: E402

import kwartet_epistemic as kw  # noqa: E402
from kwartet_epistemic.env import KwartetEnv, env  # noqa: E402

SMALL = kw.Deck.piquet(families=4)


def test_pettingzoo_api_test_passes() -> None:
    api_test(KwartetEnv(players=3, deck=SMALL), num_cycles=200)
    api_test(env(players=4), num_cycles=60)


def test_pettingzoo_seed_test_passes() -> None:
    seed_test(lambda: KwartetEnv(players=4, deck=SMALL), num_cycles=100)


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
        for other in environment.agents:
            if other != agent:
                assert not environment.observe(other)["action_mask"].any()
        environment.step(int(rng.choice(sorted(legal))))


def test_an_illegal_action_is_refused_and_changes_nothing() -> None:
    environment = KwartetEnv(players=3, deck=SMALL)
    environment.reset(seed=1)
    agent = environment.agent_selection
    mask = environment.observe(agent)["action_mask"]
    before = environment.game.record if environment.game else ()
    with pytest.raises(kw.IllegalAskError):
        environment.step(int(np.flatnonzero(mask == 0)[0]))
    assert environment.game is not None and environment.game.record == before


def test_observation_holds_the_exact_location_probabilities_seen_from_the_observer() -> None:
    environment = KwartetEnv(players=4)
    environment.reset(seed=5)
    rng = np.random.default_rng(5)
    for _ in range(12):
        mask = environment.observe(environment.agent_selection)["action_mask"]
        environment.step(int(rng.choice(np.flatnonzero(mask))))
    game = environment.game
    assert game is not None
    agent = "C"
    vector = environment.observe(agent)["observation"]
    n_cards, n = len(game.deck), 4
    probabilities = vector[-n_cards * n :].reshape(n_cards, n)
    expected = kw.knowledge(game.view(agent)).location_probabilities(agent)
    order = [(game.players.index(agent) + k) % n for k in range(n)]  # observer first
    assert np.allclose(probabilities, expected[:, order], atol=1e-6)
    hand = vector[:n_cards]
    assert {int(i) for i in np.flatnonzero(hand)} == {c.index for c in game.hand(agent)}


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
    assert sum(totals.values()) == pytest.approx(1.0)


def test_bad_settings_are_refused() -> None:
    with pytest.raises(kw.GameSetupError, match="reward"):
        KwartetEnv(reward="money")
    with pytest.raises(kw.GameSetupError, match="players"):
        KwartetEnv(players=9)
