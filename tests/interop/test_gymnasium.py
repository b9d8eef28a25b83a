"""The single-agent Gymnasium environment: Gymnasium's checker, seeding, seats, masks,
illegal actions, the two observations and the rewards."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from kwartet_testing import require_extra

gymnasium = require_extra("gymnasium", "rl")
require_extra("pettingzoo", "rl")

from gymnasium.utils.env_checker import check_env  # noqa: E402

import kwartet_epistemic as kw  # noqa: E402
from kwartet_epistemic.interop.encoding import ACTION_MASK_DTYPE  # noqa: E402
from kwartet_epistemic.interop.environments import KwartetEnv, KwartetGymEnv  # noqa: E402

SMALL = kw.Deck.piquet(families=4)


def _small(**options) -> KwartetGymEnv:
    return KwartetGymEnv(**{"players": 3, "deck": SMALL, "opponents": "random", **options})


@pytest.mark.parametrize("observation", ["raw", "knowledge", "both"])
def test_gymnasiums_checker_passes_without_warnings(observation: str) -> None:
    # made through the registry, so that the checker can also try the ansi render mode
    for options in (
        {"players": 3, "deck": SMALL, "opponents": "defensive:facts"},
        {"players": 4, "opponents": "knowledge"},
    ):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            check_env(gymnasium.make("Kwartet-v0", observation=observation, **options).unwrapped)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(_small(observation=observation), skip_render_check=True)  # built directly


def test_registered_with_gymnasium() -> None:
    made = gymnasium.make("Kwartet-v0", players=3, deck=SMALL, observation="raw")
    assert isinstance(made.unwrapped, KwartetGymEnv)
    observation, _ = made.reset(seed=0)
    assert made.observation_space.contains(observation)


def _episodes(environment: KwartetGymEnv, seed: int, count: int) -> list[tuple[object, ...]]:
    """``count`` episodes after one seeded reset, the learner always taking its last
    legal action; every observation, reward and deal."""
    trace: list[tuple[object, ...]] = []
    observation, info = environment.reset(seed=seed)
    for episode in range(count):
        if episode:
            observation, info = environment.reset()
        steps = [observation.tobytes()]
        done = False
        while not done:
            action = int(np.flatnonzero(environment.action_masks())[-1])
            observation, reward, terminated, truncated, info = environment.step(action)
            steps.append((observation.tobytes(), reward))
            done = terminated or truncated
        trace.append((info["seat"], info["deal_seed"], tuple(environment.game.record), steps))
    return trace


def test_seeded_once_then_plain_resets_reproduce_whole_episodes() -> None:
    first = _episodes(_small(), 11, 5)
    second = _episodes(_small(), 11, 5)
    assert first == second
    assert len({t[1] for t in first}) == 5
    # the random opponents' choices come from the seed too: another seed, other games
    assert _episodes(_small(), 12, 5) != first


def test_the_learner_sits_in_every_seat_in_turn_or_where_it_is_told() -> None:
    environment = _small()
    seats = []
    for k in range(4):
        _, info = environment.reset(seed=3) if k == 0 else environment.reset()
        seats.append(info["seat"])
    assert seats == ["A", "B", "C", "A"]
    _, info = environment.reset(seed=3)
    assert info["seat"] == "A"  # a seeded reset starts the rotation again
    _, info = environment.reset(options={"seat": 2})
    assert info["seat"] == "C" and environment.game.to_move == "C"
    fixed = _small(seat="B")
    assert {fixed.reset(seed=k)[1]["seat"] for k in range(3)} == {"B"}


def test_masks_are_the_learners_legal_asks_and_it_is_always_the_learners_turn() -> None:
    environment = KwartetGymEnv(players=4, opponents="defensive:facts", observation="raw")
    environment.reset(seed=1)
    rng = np.random.default_rng(1)
    for _ in range(3):
        done = False
        while not done:
            game = environment.game
            assert game.to_move == environment.seat
            mask = environment.action_masks()
            assert mask.dtype == np.int8
            assert set(np.flatnonzero(mask)) == {environment.encode(a) for a in game.legal_asks()}
            _, _, terminated, truncated, info = environment.step(
                int(rng.choice(np.flatnonzero(mask)))
            )
            done = terminated or truncated
        assert not environment.action_masks().any() and not info["action_mask"].any()
        environment.reset()


def test_an_illegal_action_ends_the_episode_with_the_penalty_and_plays_nothing() -> None:
    environment = _small(illegal_reward=-2.5)
    environment.reset(seed=4)
    record = environment.game.record
    illegal = int(np.flatnonzero(environment.action_masks() == 0)[0])
    _, reward, terminated, truncated, info = environment.step(illegal)
    assert (reward, terminated, truncated, info["illegal"]) == (-2.5, True, False, True)
    assert environment.game.record == record
    with pytest.raises(kw.GameSetupError, match="reset"):
        environment.step(illegal)


def test_the_knowledge_observation_is_the_learners_exact_location_probabilities() -> None:
    environment = KwartetGymEnv(players=4, opponents="random", observation="knowledge", seat="C")
    observation, _ = environment.reset(seed=6)
    rng = np.random.default_rng(6)
    for _ in range(3):
        observation, *_ = environment.step(
            int(rng.choice(np.flatnonzero(environment.action_masks())))
        )
    game = environment.game
    n_cards, n = 32, 4
    assert observation.shape == (2 * n_cards + 2 * n + n_cards * n,)
    expected = kw.knowledge(game.view("C")).location_probabilities("C")
    order = [2, 3, 0, 1]  # the learner first
    assert np.allclose(
        observation[-n_cards * n :].reshape(n_cards, n), expected[:, order], atol=1e-6
    )
    sizes = observation[2 * n_cards : 2 * n_cards + n] * n_cards
    assert np.allclose(sizes, [game.hand_sizes[p] for p in "CDAB"])


def test_the_win_reward_is_the_learners_share_and_skipped_deals_are_reported() -> None:
    environment = _small(opponents="knowledge")
    skipped = 0
    for k in range(30):
        _, info = environment.reset(seed=k)
        skipped += len(info["skipped"])
        assert all(share in (0.0, 0.5, 1.0) for share in info["skipped"])
        total, done = 0.0, False
        while not done:
            action = int(np.flatnonzero(environment.action_masks())[0])
            _, reward, terminated, truncated, _ = environment.step(action)
            total += reward
            done = terminated or truncated
        game = environment.game
        assert terminated and game.is_over
        winners = game.winners
        assert total == pytest.approx(1 / len(winners) if environment.seat in winners else 0.0)
    assert skipped == environment.skipped


def test_bad_settings_are_refused() -> None:
    with pytest.raises(kw.GameSetupError, match="observation"):
        _small(observation="pixels")
    with pytest.raises(kw.GameSetupError, match="2 agent specs"):
        _small(opponents=["random"])
    with pytest.raises(kw.GameSetupError, match="genius"):
        _small(opponents="genius")
    with pytest.raises(kw.GameSetupError, match="seat"):
        _small(seat=3)
    with pytest.raises(kw.GameSetupError, match="seat"):
        _small(seat="D")
    with pytest.raises(kw.GameSetupError, match="illegal_reward"):
        _small(illegal_reward="-1")
    environment = _small()
    with pytest.raises(kw.GameSetupError, match="reset"):
        environment.action_masks()
    with pytest.raises(kw.GameSetupError, match="'seat'"):
        environment.reset(options={"learner": 1})


def test_rgb_array_renders_the_table_as_a_picture_each_step_and_leaves_no_figure_open() -> None:
    import matplotlib.pyplot as plt

    open_before = plt.get_fignums()
    for observation in ("raw", "knowledge"):  # raw: the learner's knowledge is drawn anyway
        environment = _small(render_mode="rgb_array", observation=observation)
        assert environment.render() is None  # nothing to draw before reset()
        environment.reset(seed=2)
        frames = [environment.render()]
        for _ in range(3):
            environment.step(int(np.flatnonzero(environment.action_masks())[0]))
            frames.append(environment.render())
        for frame in frames:
            assert isinstance(frame, np.ndarray) and frame.dtype == np.uint8
            assert (
                frame.ndim == 3 and frame.shape[2] == 3 and frame.shape[:2] == frames[0].shape[:2]
            )
            assert frame.std() > 0  # a picture, not a blank canvas
        assert not np.array_equal(frames[0], frames[-1])  # the picture follows the game
    assert plt.get_fignums() == open_before


def test_rgb_array_is_declared_and_passes_gymnasiums_checker() -> None:
    metadata = KwartetGymEnv.metadata
    assert {"ansi", "rgb_array"} <= set(metadata["render_modes"]) and metadata["render_fps"] > 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        # made through the registry, so that the checker also makes one in each other mode
        made = gymnasium.make(
            "Kwartet-v0", players=3, deck=SMALL, opponents="random", render_mode="rgb_array"
        )
        check_env(made.unwrapped)
    assert isinstance(_small(render_mode="ansi").render() or "", str)  # the text mode remains
    with pytest.raises(kw.GameSetupError, match="render_mode='video'.*'rgb_array'"):
        _small(render_mode="video")


def test_every_action_mask_of_both_environments_has_the_one_documented_dtype() -> None:
    assert np.dtype(ACTION_MASK_DTYPE) == np.int8  # PettingZoo's classic games use int8
    aec = KwartetEnv(players=3, deck=SMALL)
    aec.reset(seed=0)
    agent = aec.agent_selection
    masks = [aec.observe(agent)["action_mask"], aec.action_mask(agent)]
    assert aec.observation_space(agent)["action_mask"].dtype == ACTION_MASK_DTYPE
    single = _small()
    _, info = single.reset(seed=0)
    masks += [single.action_masks(), info["action_mask"]]
    illegal = int(np.flatnonzero(single.action_masks() == 0)[0])
    _, _, terminated, _, info = single.step(illegal)  # the episode ends: all zero
    masks += [single.action_masks(), info["action_mask"]]
    assert terminated and not masks[-1].any()
    single.reset(seed=1)
    _, _, _, _, info = single.step(int(np.flatnonzero(single.action_masks())[0]))
    masks += [info["action_mask"]]
    for mask in masks:
        assert mask.dtype == ACTION_MASK_DTYPE and set(np.unique(mask)) <= {0, 1}
