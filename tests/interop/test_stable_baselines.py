"""The Gymnasium environment as the RL libraries use it: Stable-Baselines3's vectorised
environments (in this process and in subprocesses), sb3-contrib's MaskablePPO on the
environment's action masks, and Gymnasium's RecordVideo filming the rgb_array frames."""

from __future__ import annotations

import numpy as np
import pytest
from kwartet_testing import require_extra

gymnasium = require_extra("gymnasium", "rl")
require_extra("stable_baselines3", "rl")

from stable_baselines3.common.env_util import make_vec_env  # noqa: E402
from stable_baselines3.common.vec_env import SubprocVecEnv  # noqa: E402

import kwartet_epistemic as kw  # noqa: E402
from kwartet_epistemic.interop.environments import KwartetGymEnv  # noqa: E402

SMALL = {"players": 3, "deck": kw.Deck.piquet(families=4), "opponents": "random"}


def _step_with_legal_actions(vec_env, steps: int) -> None:
    """Reset ``vec_env`` and step it ``steps`` times with a legal action in every copy
    (an episode that ends is reset by the vectorised environment itself)."""
    observations = vec_env.reset()
    assert observations.shape == (vec_env.num_envs, *vec_env.observation_space.shape)
    for _ in range(steps):
        masks = np.stack(vec_env.env_method("action_masks"))
        assert masks.shape == (vec_env.num_envs, vec_env.action_space.n)
        actions = np.array([int(np.flatnonzero(mask)[0]) for mask in masks])
        observations, rewards, dones, infos = vec_env.step(actions)
        assert observations.shape[0] == rewards.shape[0] == dones.shape[0] == vec_env.num_envs
        assert not any(info.get("illegal") for info in infos)


def test_make_vec_env_builds_and_steps_the_registered_environment() -> None:
    # make_vec_env makes each copy with render_mode="rgb_array"
    vec_env = make_vec_env("Kwartet-v0", n_envs=2, seed=0, env_kwargs=SMALL)
    try:
        assert vec_env.get_attr("render_mode") == ["rgb_array", "rgb_array"]
        _step_with_legal_actions(vec_env, 6)
        frames = vec_env.env_method("render")
        assert all(f.dtype == np.uint8 and f.ndim == 3 and f.shape[2] == 3 for f in frames)
    finally:
        vec_env.close()


# A new process has not imported the library, so Gymnasium's registry there lacks
# Kwartet-v0: the id names its module ("module:id" makes Gymnasium import it), or the class
# itself is given (unpickling it imports its module).
@pytest.mark.parametrize(
    ("start_method", "env_id"),
    [
        ("forkserver", "kwartet_epistemic.interop.environments:Kwartet-v0"),
        ("spawn", KwartetGymEnv),
    ],
)
def test_subprocesses_build_and_step_the_environment(start_method: str, env_id) -> None:
    vec_env = make_vec_env(
        env_id,
        n_envs=2,
        seed=1,
        env_kwargs=SMALL,
        vec_env_cls=SubprocVecEnv,
        vec_env_kwargs={"start_method": start_method},
    )
    try:
        _step_with_legal_actions(vec_env, 4)
        # each subprocess dealt its own game from its own seed
        assert len(set(vec_env.get_attr("deal_seed"))) == 2
    finally:
        vec_env.close()


def test_maskable_ppo_learns_from_the_int8_masks_and_plays_only_legal_asks() -> None:
    require_extra("sb3_contrib", "rl")
    from sb3_contrib import MaskablePPO
    from sb3_contrib.common.maskable.utils import get_action_masks

    environment = KwartetGymEnv(**SMALL, observation="raw")
    model = MaskablePPO("MlpPolicy", environment, n_steps=32, batch_size=32, n_epochs=1, seed=0)
    model.learn(total_timesteps=32)  # masks read through env.action_masks() as they are
    observation, _ = environment.reset(seed=5)
    for _ in range(20):
        masks = get_action_masks(environment)
        assert masks.dtype == np.int8
        action, _ = model.predict(observation, action_masks=masks)
        assert masks[int(action)] == 1
        observation, _, terminated, truncated, info = environment.step(int(action))
        assert not info.get("illegal")
        if terminated or truncated:
            observation, _ = environment.reset()


def test_record_video_films_an_episode_from_the_rgb_array_frames(tmp_path) -> None:
    require_extra("moviepy", "rl")
    from gymnasium.wrappers import RecordVideo

    made = gymnasium.make("Kwartet-v0", render_mode="rgb_array", **SMALL)
    folder = tmp_path / "videos"
    recorder = RecordVideo(made, str(folder), episode_trigger=lambda episode: True)
    recorder.reset(seed=3)
    steps, done = 0, False
    while not done:
        mask = recorder.unwrapped.action_masks()
        _, _, terminated, truncated, _ = recorder.step(int(np.flatnonzero(mask)[0]))
        steps, done = steps + 1, terminated or truncated
    recorder.close()
    videos = sorted(folder.glob("*.mp4"))
    assert len(videos) == 1 and videos[0].stat().st_size > 0
    import imageio.v2 as imageio

    with imageio.get_reader(str(videos[0]), "ffmpeg") as reader:
        first = reader.get_data(0)
        assert first.shape == (384, 640, 3)
        assert reader.count_frames() == steps + 1  # the frame after reset and one per step
