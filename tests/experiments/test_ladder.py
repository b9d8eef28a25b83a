"""experiments/ladder.py: the strength ladder's schedule, games, resume and rating fit.

Known answers for the Bradley-Terry fit (two agents in closed form, three agents recovered
from exact expected results), the invariants of the schedule (every seating of a pair
equally often, seeds fixed by the pair's names), shares of a game summing to one, a run
that resumes without playing anything again, and the RL player's observation equal to the
environment's at every step of a game.
"""

from __future__ import annotations

import csv
import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from kwartet_testing import load_script, require_extra

from kwartet_epistemic.errors import KwartetError

ROOT = Path(__file__).resolve().parents[2]


ladder = load_script("experiments/ladder.py")


def test_two_agents_closed_form_and_fisher_error() -> None:
    fit = ladder.fit_bradley_terry(["x", "y"], {("x", "y"): (70.0, 100.0)}, anchor="x", prior=0)
    assert fit.ratings[0] == 0.0
    assert math.isclose(fit.ratings[1], math.log(30 / 70), abs_tol=1e-9)
    assert math.isclose(fit.stderr[1], 1 / math.sqrt(100 * 0.7 * 0.3), rel_tol=1e-6)
    # the pair stored the other way round gives the same ratings
    flipped = ladder.fit_bradley_terry(["x", "y"], {("y", "x"): (30.0, 100.0)}, "x", prior=0)
    assert np.allclose(flipped.ratings, fit.ratings)


def test_three_agents_recovered_from_expected_results() -> None:
    truth = {"random": 0.0, "b": 0.8, "c": -0.5}
    wins = {}
    for a, b in (("random", "b"), ("random", "c"), ("b", "c")):
        p = 1 / (1 + math.exp(truth[b] - truth[a]))
        wins[(a, b)] = (600 * p, 600.0)
    fit = ladder.fit_bradley_terry(list(truth), wins, prior=0)
    assert np.allclose(fit.ratings, list(truth.values()), atol=1e-8)
    # the prior (virtual drawn games) pulls towards 0, by little
    shrunk = ladder.fit_bradley_terry(list(truth), wins, prior=1)
    assert np.all(np.abs(shrunk.ratings) <= np.abs(fit.ratings) + 1e-12)
    assert np.allclose(shrunk.ratings, fit.ratings, atol=0.01)


def test_agent_that_never_wins_stays_finite_and_unlinked_agent_is_refused() -> None:
    fit = ladder.fit_bradley_terry(["random", "z"], {("random", "z"): (0.0, 60.0)})
    assert np.isfinite(fit.ratings).all() and fit.ratings[1] > 3
    with pytest.raises(KwartetError, match="w played no game linked to random"):
        ladder.fit_bradley_terry(["random", "v", "w"], {("random", "v"): (3.0, 6.0)})


def test_schedule_seats_every_pair_equally_and_seeds_by_names() -> None:
    pairs = ladder.schedule(
        ["random", "greedy:facts", "owner:facts"], 10, [("search", ["random"], 7)]
    )
    assert [(p.a, p.b, p.games) for p in pairs] == [
        ("random", "greedy:facts", 12), ("random", "owner:facts", 12),
        ("greedy:facts", "owner:facts", 12), ("search", "random", 12),
    ]  # fmt: skip
    tasks = ladder.tasks_of(pairs[0], seed=3)
    seatings = Counter(t[4] for t in tasks)
    assert len(seatings) == 6 and set(seatings.values()) == {2}
    assert all(
        sorted(s) == sorted(["random", "random", "greedy:facts", "greedy:facts"]) for s in seatings
    )
    assert len({t[3] for t in tasks}) == len(tasks)  # distinct deals
    # a pair's seeds do not depend on its place in the schedule, only on its names
    alone = ladder.tasks_of(ladder.Pair("random", "greedy:facts", 12), seed=3)
    assert alone == tasks
    assert ladder.tasks_of(pairs[1], seed=3)[0][3] != tasks[0][3]


def test_played_rows_shares_sum_to_one_and_round_trip(tmp_path: Path) -> None:
    tasks = ladder.tasks_of(ladder.Pair("random", "knowledge:facts", 6), seed=5)
    rows = ladder.play_chunk(tasks)
    for row, task in zip(rows, tasks, strict=True):
        assert row.agents == task[4]
        share_b = sum(
            1 / len(row.winners) for s, agent in enumerate(row.agents)
            if agent == row.b and "ABCD"[s] in row.winners
        )  # fmt: skip
        assert math.isclose(row.share_a + share_b, 1.0)
        assert sum(row.scores) == 8 and row.finished
    path = tmp_path / "ladder.csv"
    with path.open("wb") as handle:
        handle.write(",".join(ladder.COLUMNS).encode() + b"\r\n")
        for row in rows:
            handle.write(ladder._line(row, 5))
        handle.write(b"random,knowledge:facts,99,12")  # a torn last line
    back = ladder.read_rows(path, 5)
    assert [back[(r.a, r.b, r.game)] for r in rows] == [
        ladder.Row(**{**r.__dict__, "cpu_s": round(r.cpu_s, 4)}) for r in rows
    ]
    with pytest.raises(KwartetError, match="run seed 5, not 6"):
        ladder.read_rows(path, 6)


def test_run_resumes_and_writes_every_output(tmp_path: Path, capsys) -> None:
    argv = ["--agents", "random,greedy:facts,knowledge:hand", "--games", "6", "--search-games",
            "0", "--ismcts-games", "0", "--ppo-games", "0", "--bootstrap", "20", "--jobs", "1",
            "--out", str(tmp_path)]  # fmt: skip
    ladder.main(argv)
    first = capsys.readouterr().out
    assert "18 to play" in first
    ratings = (tmp_path / "ladder_ratings.csv").read_text()
    ladder.main(argv)
    again = capsys.readouterr().out
    assert "18 done before this run, 0 to play" in again
    assert (tmp_path / "ladder_ratings.csv").read_text() == ratings  # same games, same fit
    with (tmp_path / "ladder_ratings.csv").open() as handle:
        table = {r["agent"]: r for r in csv.DictReader(handle)}
    assert set(table) == {"random", "greedy:facts", "knowledge:hand"}
    assert float(table["random"]["elo"]) == 0.0
    for row in table.values():
        assert float(row["low"]) <= float(row["elo"]) <= float(row["high"])
        assert int(row["games"]) == 12
    for name in ("ladder.png", "ladder.pdf", "ladder_numbers.tex", "ladder_table.tex",
                 "ladder_knowledge_table.tex", "ladder_pairs.csv"):  # fmt: skip
        assert (tmp_path / name).stat().st_size > 0
    numbers = (tmp_path / "ladder_numbers.tex").read_text()
    assert "\\newcommand{\\kwLadderGames}{18}" in numbers
    assert "\\newcommand{\\kwLadderRandom}{0}" in numbers


def test_ppo_player_sees_what_the_environment_shows() -> None:
    require_extra("sb3_contrib", "rl")
    model = ladder.train_ppo(0, seed=1)
    env = model.get_env().envs[0].unwrapped
    observation, _ = env.reset(seed=4, options={"seat": 1})
    player = ladder.PPOPlayer(model, env.seat, np.random.default_rng(0))
    done, steps = False, 0
    while not done:
        view = env.game.view(env.seat)
        assert np.array_equal(player.observe(view), observation)
        ask = player.choose(view)
        assert ask in env.game.legal_asks()
        observation, _, done, truncated, _ = env.step(env.encode(ask))
        done = done or truncated
        steps += 1
    assert steps > 0
