"""experiments/rl_baseline.py at CI size: MaskablePPO trains a few thousand steps on the
3-player 16-card game, and its seeded, seat-rotated evaluation reproduces."""

from __future__ import annotations

from pathlib import Path

import numpy as np
from kwartet_testing import load_script, require_extra

require_extra("sb3_contrib", "rl")
require_extra("gymnasium", "rl")

ROOT = Path(__file__).resolve().parents[2]


rl = load_script("experiments/rl_baseline.py")


def _traced(choose):
    """The chooser, and the (game, seat, deal seed, action) of every move it makes."""
    trace: list[tuple[int, str, int, int]] = []

    def wrapped(env, observation, k):
        action = choose(env, observation, k)
        trace.append((k, env.seat, env.deal_seed, action))
        return action

    return wrapped, trace


def test_training_runs_and_seeded_evaluation_reproduces(tmp_path: Path) -> None:
    model, curve = rl.train("small", "defensive:facts", "knowledge", 1024, seed=3, points=1,
                            curve_games=6, n_steps=256)  # fmt: skip
    assert model.num_timesteps >= 1024
    assert [point.timesteps for point in curve] == [0, model.num_timesteps]
    assert all(0.0 <= point.low <= point.win_share <= point.high <= 1.0 for point in curve)

    env = rl.make_env("small", "defensive:facts", "knowledge")
    first, trace_1 = _traced(rl.model_chooser(model))
    second, trace_2 = _traced(rl.model_chooser(model))
    shares_1 = rl.evaluate(env, first, 12, seed=50)
    shares_2 = rl.evaluate(
        rl.make_env("small", "defensive:facts", "knowledge"), second, 12, seed=50
    )
    assert np.array_equal(shares_1, shares_2) and trace_1 == trace_2
    assert set(shares_1) <= {0.0, 0.5, 1.0}
    # seat-rotated: game k seats the learner in seat k mod 3
    assert {(k, seat) for k, seat, _, _ in trace_1} <= {(k, "ABC"[k % 3]) for k in range(12)}
    other, trace_3 = _traced(rl.model_chooser(model))
    rl.evaluate(env, other, 12, seed=500)
    assert {t[2] for t in trace_3}.isdisjoint({t[2] for t in trace_1})  # other seeds, other deals

    # a spec in the learner's seat reproduces too, and the results survive the CSV
    spec_shares = [rl.evaluate(env, rl.spec_chooser("random"), 12, seed=50) for _ in range(2)]
    assert np.array_equal(*spec_shares)
    rows = [*curve, rl.Result("small", "defensive:facts", "-", "random", -1, 0, 12,
                              *rl.interval(spec_shares[0]), "reference")]  # fmt: skip
    rl.write_csv(rows, tmp_path / "rows.csv")
    assert rl.read_csv(tmp_path / "rows.csv") == rows
