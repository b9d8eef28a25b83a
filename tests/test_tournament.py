"""Tournaments: seat rotation, seeded and replayable games, CSV rows that survive a stop,
the summary's arithmetic, parallel runs (processes, dask) equal to serial ones, the CLI."""

from __future__ import annotations

import csv
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.cli import main
from kwartet_epistemic.tournament import (
    GameResult,
    TournamentResult,
    arrangements,
    read_results,
    replay_game,
    tournament,
)

SMALL = kw.Deck.piquet(families=4)
AGENTS = ["knowledge", "defensive:facts", "random"]


def test_every_seating_is_used_equally_often() -> None:
    result = tournament(AGENTS, games=12, seed=1, deck=SMALL)
    seatings = Counter(game.agents for game in result.games)
    assert set(seatings) == set(arrangements(AGENTS)) and set(seatings.values()) == {2}
    for seat in range(3):
        assert Counter(game.agents[seat] for game in result.games) == {a: 4 for a in AGENTS}


def test_identical_agents_count_as_one_arrangement() -> None:
    assert arrangements(["knowledge", "random", "random"]) == [
        ("knowledge", "random", "random"),
        ("random", "knowledge", "random"),
        ("random", "random", "knowledge"),
    ]


def test_a_seed_fixes_every_game_and_each_game_replays_alone() -> None:
    one = tournament(AGENTS, games=6, seed=7, deck=SMALL)
    two = tournament(AGENTS, games=6, seed=7, deck=SMALL)
    assert one.games == two.games
    assert len({g.seed for g in one.games}) == 6  # SeedSequence children differ
    for game in one.games:
        replayed = replay_game(game, deck=SMALL)
        assert tuple(replayed.scores[p] for p in "ABC") == game.scores
        assert tuple(replayed.winners) == game.winners


def test_summary_splits_shared_wins_and_brackets_the_mean() -> None:
    games = (
        GameResult(0, 1, ("x", "y", "y"), (2, 2, 0), ("A", "B"), 10),
        GameResult(1, 2, ("y", "x", "y"), (0, 3, 1), ("B",), 12),
    )
    result = TournamentResult(("x", "y", "y"), games, kw.RuleSet(), SMALL, 0)
    rows = {row.agent: row for row in result.summary()}
    assert rows["x"].win_share == pytest.approx((0.5 + 1) / 2)
    assert rows["y"].win_share == pytest.approx(((0.5 + 0) / 2 + 0) / 2)
    assert rows["x"].mean_quartets == pytest.approx(2.5)
    assert sum(r.win_share * r.seats for r in rows.values()) == pytest.approx(1.0)
    low, high = rows["x"].win_interval
    assert low <= rows["x"].win_share <= high
    assert "win share" in result.table()


def test_intervals_stay_within_the_possible_range() -> None:
    # x wins four of five games: the normal interval would reach past 1 (and y's below 0)
    games = tuple(
        GameResult(k, k, ("x", "y", "y"), (3, 0, 0) if k < 4 else (0, 3, 0),
                   ("A",) if k < 4 else ("B",), 10)
        for k in range(5)
    )  # fmt: skip
    result = TournamentResult(("x", "y", "y"), games, kw.RuleSet(), SMALL, 0)
    rows = {row.agent: row for row in result.summary()}
    assert rows["x"].win_interval[1] == 1.0 and rows["y"].win_interval[0] == 0.0
    assert rows["x"].win_interval[0] < rows["x"].win_share < 1.0
    for row in rows.values():
        assert 0.0 <= row.quartets_interval[0] <= row.quartets_interval[1] <= SMALL.n_families


def test_csv_rows_are_appended_and_an_interrupted_run_resumes(tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    tournament(AGENTS, games=5, seed=3, deck=SMALL, out=out)
    first_rows = out.read_text().splitlines()
    assert len(first_rows) == 1 + 5
    # A stop in the middle of writing a row leaves half a line: it is cut off.
    with out.open("a") as handle:
        handle.write("5,123,knowl")
    resumed = tournament(AGENTS, games=9, seed=3, deck=SMALL, out=out)
    rows = out.read_text().splitlines()
    assert rows[: len(first_rows)] == first_rows and len(rows) == 1 + 9
    fresh = tournament(AGENTS, games=9, seed=3, deck=SMALL)
    assert resumed.games == fresh.games
    assert sorted(read_results(out), key=lambda g: g.game) == list(fresh.games)
    header = next(csv.reader(out.open()))
    assert header[:5] == ["game", "seed", "agent_A", "agent_B", "agent_C"]
    # Resuming without a seed takes the tournament seed from the file.
    again = tournament(AGENTS, games=10, deck=SMALL, out=out)
    assert again.seed == 3 and again.games[:9] == fresh.games


def test_a_results_file_of_another_tournament_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    tournament(AGENTS, games=2, seed=3, deck=SMALL, out=out)
    with pytest.raises(kw.KwartetError, match="another tournament"):
        tournament(["knowledge", "random", "random"], games=4, seed=3, deck=SMALL, out=out)
    with pytest.raises(kw.KwartetError, match="another tournament"):
        tournament(AGENTS, games=4, seed=4, deck=SMALL, out=out)


def test_two_processes_play_the_same_games_as_one() -> None:
    serial = tournament(AGENTS, games=8, seed=5, deck=SMALL)
    parallel = tournament(AGENTS, games=8, seed=5, deck=SMALL, jobs=2)
    assert parallel.games == serial.games


def test_a_dask_cluster_plays_the_same_games() -> None:
    distributed = pytest.importorskip("distributed")
    with (
        distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
    ):
        remote = tournament(
            AGENTS, games=6, seed=9, deck=SMALL, scheduler=cluster.scheduler_address
        )
    assert remote.games == tournament(AGENTS, games=6, seed=9, deck=SMALL).games


def test_bad_tournaments_are_refused_before_any_game() -> None:
    for agents, message in [
        (["knowledge"], "a game seats 3 to 6"),
        (["knowledge", "oracle", "random"], "unknown agent 'oracle'"),
        (["knowledge:psychic", "random", "random"], "knowledge 'psychic'"),
    ]:
        with pytest.raises(kw.GameSetupError, match=message):
            tournament(agents, games=1)
    with pytest.raises(kw.GameSetupError, match="jobs=0"):
        tournament(AGENTS, games=1, jobs=0)


def test_kwartet_tournament_prints_the_table_and_writes_the_csv(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "r.csv"
    status = main(
        ["tournament", "--agents", "knowledge,tips[spread,hide]:facts,random", "--games", "6",
         "--seed", "2", "--deck", "piquet:4", "--out", str(out)]
    )  # fmt: skip
    captured = capsys.readouterr()
    assert status == 0
    assert "tips[hide,spread]:facts" in captured.out or "tips[spread,hide]:facts" in captured.out
    assert "win share" in captured.out and "95% interval" in captured.out
    assert "game/s" in captured.err or "100%" in captured.err  # the tqdm bar
    assert len(out.read_text().splitlines()) == 7
    assert main(["tournament", "--agents", "knowledge,nobody,random", "--games", "1"]) == 2
    assert "unknown agent 'nobody'" in capsys.readouterr().err


def test_kwartet_play_takes_agent_specs_as_opponents(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import io

    monkeypatch.setattr("sys.stdin", io.StringIO("quit\n"))
    status = main(
        ["play", "--opponents", "knowledge,higher_order,search[samples=2]", "--seed", "4"]
    )
    out = capsys.readouterr().out
    assert status == 0
    assert "B (knowledge), C (higher_order), D (search[samples=2])" in out


def test_unfinished_games_are_marked_not_hidden() -> None:
    result = GameResult(0, 1, ("a", "b", "c"), (1, 1, 0), ("A", "B"), 5000, finished=False)
    table = TournamentResult(("a", "b", "c"), (result,), kw.RuleSet(), SMALL, 0).table()
    assert "1 stopped after 5000 asks" in table
    assert np.isclose(result.share(0), 0.5)
