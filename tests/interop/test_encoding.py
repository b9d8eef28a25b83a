"""The encoding the environments and the OpenSpiel game share: one summary of the public
record, and observations bit for bit what they were before the summary was shared."""

from __future__ import annotations

import hashlib

import numpy as np
from kwartet_testing import require_extra

import kwartet_epistemic as kw

require_extra("pettingzoo", "rl")
pyspiel = require_extra("pyspiel", "openspiel")
from kwartet_epistemic.interop import openspiel_game  # noqa: E402
from kwartet_epistemic.interop.encoding import RecordPlanes, RecordSummary  # noqa: E402
from kwartet_epistemic.interop.environments import KwartetEnv, KwartetGymEnv  # noqa: E402

# Taken with the code before the environments and OpenSpiel shared the record's summary
# (commit 36f8fca): PettingZoo and Gymnasium observations, OpenSpiel's information state
# and observation tensors and strings, on seeded random games.
OBSERVATIONS_DIGEST = "4bf49094025a6b765fc8a7d2a781bb2cc52d4f642fb1880b85201eda21949509"


def _pettingzoo_observations(h: hashlib._Hash, seed: int) -> None:
    env = KwartetEnv(players=4)
    env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(60):
        agent = env.agent_selection
        if env.terminations[agent] or env.truncations[agent]:
            env.step(None)
            if not env.agents:
                break
            continue
        observation = env.observe(agent)
        for key in sorted(observation):
            h.update(np.asarray(observation[key]).tobytes())
        env.step(int(rng.choice(np.flatnonzero(env.action_mask(agent)))))


def _gymnasium_observations(h: hashlib._Hash, seed: int) -> None:
    gym = KwartetGymEnv(opponents="random")
    observation, _ = gym.reset(seed=seed)
    h.update(observation.tobytes())
    rng = np.random.default_rng(seed)
    for _ in range(30):
        mask = gym.action_masks()
        if not mask.any():
            break
        observation, _, done, cut, _ = gym.step(int(rng.choice(np.flatnonzero(mask))))
        h.update(observation.tobytes())
        if done or cut:
            break


def _openspiel_observations(h: hashlib._Hash, seed: int) -> None:
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 4})
    rng = np.random.default_rng(seed)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=chances)))
            continue
        for player in range(3):
            h.update(np.asarray(state.information_state_tensor(player)).tobytes())
            h.update(state.information_state_string(player).encode())
            h.update(np.asarray(state.observation_tensor(player)).tobytes())
            h.update(state.observation_string(player).encode())
        state.apply_action(int(rng.choice(state.legal_actions())))


def test_every_adapters_observations_are_what_they_were() -> None:
    h = hashlib.sha256()
    for seed in range(6):
        for _ in ("raw", "both"):  # the digest was taken with two passes per seed
            _pettingzoo_observations(h, seed)
        _gymnasium_observations(h, seed)
    for seed in range(6):
        _openspiel_observations(h, seed)
    assert h.hexdigest() == OBSERVATIONS_DIGEST


def test_openspiel_and_the_planes_read_the_same_summary() -> None:
    game = pyspiel.load_game("python_kwartet", {"players": 3, "families": 4})
    rng = np.random.default_rng(5)
    state = game.new_initial_state()
    while not state.is_terminal():
        if state.is_chance_node():
            actions, chances = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=chances)))
        else:
            state.apply_action(int(rng.choice(state.legal_actions())))
    referee = openspiel_game.core_game(state)
    planes = RecordPlanes(referee.deck, list(referee.players))
    planes.update(referee.view("A").record)
    core = state.core.summary
    assert (planes.summary.holds, planes.summary.lacks) == (core.holds, core.lacks)
    assert planes.summary.asked_families == core.asked_families and core.last is not None
    copy = core.copy()
    copy.lacks[0] ^= 1
    assert copy.lacks != core.lacks and isinstance(copy, RecordSummary)
    assert kw.Deck.piquet(families=4).n_families == 4
