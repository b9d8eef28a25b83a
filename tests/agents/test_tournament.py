"""Tournaments: seat rotation, seeded and replayable games, CSV rows that survive a stop,
the summary's arithmetic, parallel runs (processes, dask) equal to serial ones, the CLI."""

from __future__ import annotations

import csv
import math
import subprocess
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
import scipy.stats

import kwartet_epistemic as kw
from kwartet_epistemic.cli import main
from kwartet_epistemic.tournament import (
    GameResult,
    TournamentResult,
    arrangements,
    play_game,
    read_results,
    replay_game,
    share_interval,
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
    # x wins four of five games alone: 0/1 outcomes, so Wilson's interval, inside [0, 1]
    games = tuple(
        GameResult(k, k, ("x", "y", "y"), (3, 0, 0) if k < 4 else (0, 3, 0),
                   ("A",) if k < 4 else ("B",), 10)
        for k in range(5)
    )  # fmt: skip
    result = TournamentResult(("x", "y", "y"), games, kw.RuleSet(), SMALL, 0)
    rows = {row.agent: row for row in result.summary()}
    assert rows["x"].win_method == "wilson"
    assert rows["x"].win_interval == pytest.approx(wilson(4, 5))
    # y's two seats took the whole win once in five games: its interval per seat is half
    assert rows["y"].win_interval == pytest.approx(tuple(x / 2 for x in wilson(1, 5)))
    assert rows["x"].win_interval[0] < rows["x"].win_share < rows["x"].win_interval[1] < 1.0
    for row in rows.values():
        assert 0.0 <= row.quartets_interval[0] <= row.quartets_interval[1] <= SMALL.n_families


def wilson(wins: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval, by its formula."""
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z / (1 + z * z / n) * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n))
    return (centre - half, centre + half)


@pytest.mark.parametrize("wins, n", [(0, 10), (1, 24), (7, 12), (10, 10), (0, 2)])
def test_win_or_lose_shares_get_the_wilson_interval(wins: int, n: int) -> None:
    (low, high), method = share_interval([1.0] * wins + [0.0] * (n - wins))
    assert method == "wilson"
    assert (low, high) == pytest.approx(wilson(wins, n), abs=1e-12)
    assert high - low > 0.0  # even 0 or n wins out of n


def test_fractional_shares_get_the_student_t_interval() -> None:
    values = [0.5, 0.0, 1.0, 1.0, 0.0, 0.0, 0.5, 0.0, 1.0, 0.0]
    (low, high), method = share_interval(values)
    mean, sd = 0.4, math.sqrt(sum((v - 0.4) ** 2 for v in values) / 9)
    half = 2.2621571627409915 * sd / math.sqrt(10)  # t(0.975, 9 degrees of freedom)
    assert method == "t" and (low, high) == pytest.approx((mean - half, mean + half))
    assert scipy.stats.t.interval(0.95, 9, loc=mean, scale=sd / math.sqrt(10)) == pytest.approx(
        (low, high)
    )
    (low, high), _ = share_interval([0.0, 0.0, 0.5])  # the t interval would go below 0
    assert low == 0.0 and 0.0 < high < 1.0


def test_equal_fractions_get_no_zero_width_interval() -> None:
    (low, high), method = share_interval([0.5] * 8)
    assert method == "bounded" and low < 0.5 < high
    assert (low, high) == pytest.approx(wilson(4, 8))  # Wilson's formula with p = 0.5


def test_one_game_gives_no_interval_and_the_table_says_so() -> None:
    assert all(math.isnan(x) for x in share_interval([])[0])
    (low, high), method = share_interval([1.0])
    assert method == "none" and math.isnan(low) and math.isnan(high)
    one = GameResult(0, 1, ("x", "y", "y"), (3, 1, 0), ("A",), 9, dealer="C", first="A")
    result = TournamentResult(("x", "y", "y"), (one,), kw.RuleSet(), SMALL, 0)
    row = result.summary()[0]
    assert row.win_share == 1.0 and all(math.isnan(x) for x in row.win_interval)
    assert all(math.isnan(x) for x in row.quartets_interval)
    table = result.table()
    assert "[n/a]" in table and "an interval needs 2 games" in table


def test_bad_shares_are_refused() -> None:
    with pytest.raises(kw.KwartetError, match="win shares from 0 to 1"):
        share_interval([0.5, 1.5])
    with pytest.raises(kw.KwartetError, match="confidence=1"):
        share_interval([0.5, 1.0], confidence=1)


def test_each_game_records_its_dealer_and_first_mover() -> None:
    result = tournament(AGENTS, games=12, seed=11, deck=SMALL)
    dealers = Counter(g.dealer for g in result.games)
    assert set(dealers) <= set("ABC") and len(dealers) > 1  # the deal seed picks the dealer
    for game in result.games:
        dealt = kw.Game.deal(SMALL, ["A", "B", "C"], seed=game.seed)
        assert game.dealer == dealt.dealer and game.first == dealt.to_move
        assert game.first == "ABC"[("ABC".index(game.dealer) + 1) % 3]  # the dealer's left
        assert sorted(game.position(s) for s in range(3)) == [0, 1, 2]
        assert game.position("ABC".index(game.first)) == 0
        assert play_game(game.agents, game.seed, deck=SMALL, game_index=game.game) == game


def test_win_share_by_seat_and_by_turn_order() -> None:
    games = (  # seat A moves first twice, C once; x sits in A, B, A
        GameResult(0, 1, ("x", "y", "y"), (2, 2, 0), ("A", "B"), 10, dealer="C", first="A"),
        GameResult(1, 2, ("y", "x", "y"), (0, 3, 1), ("B",), 12, dealer="C", first="A"),
        GameResult(2, 3, ("x", "y", "y"), (0, 1, 3), ("C",), 12, dealer="B", first="C"),
    )
    result = TournamentResult(("x", "y", "y"), games, kw.RuleSet(), SMALL, 0)
    seats = {row.label: row for row in result.by_seat()}
    assert [seats[s].win_share for s in "ABC"] == pytest.approx([0.5 / 3, 1.5 / 3, 1 / 3])
    assert {row.games for row in seats.values()} == {3}
    places = {row.label: row for row in result.by_position()}
    # first movers: A, A, C -> shares 0.5, 0, 1; second: B, B, A -> 0.5, 1, 0; third: C, C, B
    assert [places[p].win_share for p in "123"] == pytest.approx([1.5 / 3, 1.5 / 3, 0.0])
    assert sum(r.win_share for r in result.by_position()) == pytest.approx(1.0)
    (low, high), method = share_interval([0.5, 0.0, 1.0])
    assert places["1"].win_interval == (low, high) and places["1"].method == method == "t"
    assert places["3"].method == "wilson" and places["3"].win_interval[1] > 0.0
    x_places = {row.label: row for row in result.by_position("x")}
    # x (in A, B, A) moved first in game 0 (half the win), second in 1 (won) and 2 (lost)
    assert [x_places[p].games for p in "123"] == [1, 2, 0]
    assert x_places["1"].win_share == 0.5 and x_places["2"].win_share == 0.5
    assert [row.games for row in result.by_seat("x")] == [2, 1, 0]
    table = result.table()
    assert "win share by seat" in table and "by turn order (1 moves first)" in table
    assert str(result) == table


def test_seat_shares_of_a_real_tournament_add_up() -> None:
    result = tournament(["random"] * 3, games=9, seed=4, deck=SMALL)
    for rows in (result.by_seat(), result.by_position()):
        assert sum(r.win_share for r in rows) == pytest.approx(1.0)
        for row in rows:
            low, high = row.win_interval
            assert row.games == 9 and 0.0 <= low <= row.win_share <= high <= 1.0


@pytest.mark.filterwarnings("ignore:.*cannot seat everyone equally")  # odd counts on purpose
def test_a_results_file_written_before_the_dealer_was_recorded(tmp_path: Path) -> None:
    new = tmp_path / "new.csv"
    played = tournament(AGENTS, games=3, seed=3, deck=SMALL, out=new)
    rows = list(csv.reader(new.open(newline="")))
    assert "dealer" in rows[0] and "first_mover" in rows[0]
    assert sorted(read_results(new), key=lambda g: g.game) == list(played.games)
    dealer, first = rows[0].index("dealer"), rows[0].index("first_mover")
    old = tmp_path / "old.csv"
    with old.open("w", newline="") as handle:
        csv.writer(handle).writerows(
            [field for k, field in enumerate(row) if k not in (dealer, first)] for row in rows
        )
    read = sorted(read_results(old), key=lambda g: g.game)
    assert [(g.dealer, g.first) for g in read] == [(None, None)] * 3
    assert [g.scores for g in read] == [g.scores for g in played.games]
    with pytest.raises(kw.KwartetError, match="old.csv: written by an earlier version"):
        tournament(AGENTS, games=6, seed=3, deck=SMALL, out=old)
    assert len(old.read_text().splitlines()) == 4  # left as it was


@pytest.mark.filterwarnings("ignore:.*cannot seat everyone equally")  # odd counts on purpose
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


@pytest.mark.filterwarnings("ignore:.*cannot seat everyone equally")  # odd counts on purpose
def test_a_results_file_of_another_tournament_is_refused(tmp_path: Path) -> None:
    out = tmp_path / "results.csv"
    tournament(AGENTS, games=2, seed=3, deck=SMALL, out=out)
    with pytest.raises(kw.KwartetError, match="another tournament"):
        tournament(["knowledge", "random", "random"], games=4, seed=3, deck=SMALL, out=out)
    with pytest.raises(kw.KwartetError, match="another tournament"):
        tournament(AGENTS, games=4, seed=4, deck=SMALL, out=out)


@pytest.mark.filterwarnings("ignore:.*cannot seat everyone equally")  # odd counts on purpose
def test_two_processes_play_the_same_games_as_one() -> None:
    serial = tournament(AGENTS, games=8, seed=5, deck=SMALL)
    parallel = tournament(AGENTS, games=8, seed=5, deck=SMALL, jobs=2)
    assert parallel.games == serial.games


def test_workers_are_not_forked() -> None:
    from kwartet_epistemic.parallel import process_context

    assert process_context().get_start_method() in ("forkserver", "spawn")


def test_a_script_without_the_main_guard_gets_an_error_not_a_hang(tmp_path: Path) -> None:
    # Each new worker imports the script, which starts a tournament again and fails: the
    # run stops with the library's error that says what to do.
    script = tmp_path / "no_guard.py"
    script.write_text(
        "import kwartet_epistemic as kw\n"
        "kw.tournament(['random'] * 3, games=6, seed=1, deck=kw.Deck.piquet(families=4), "
        "jobs=2)\n"
    )
    done = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 1
    assert "KwartetError: tournament(jobs=2): a worker process stopped" in done.stderr
    assert 'if __name__ == "__main__":' in done.stderr


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
    assert "win share by seat:" in captured.out and "win share by turn order" in captured.out
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
