"""Long runs lose nothing: a tournament killed at any moment (``kill -9``, a full disk,
Ctrl-C) leaves a file that resumes to the results of an uninterrupted run, and files
written whole (game records, figures) are replaced atomically, never left half-written.

The kills come at random moments (seeded): a run is started in a subprocess, killed,
resumed, killed again, and so on, and the file it leaves is finished and compared with a
run that was never interrupted."""

from __future__ import annotations

import errno
import importlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from kwartet_testing import descendants, process_alive

import kwartet_epistemic as kw
import kwartet_epistemic.files as files
from kwartet_epistemic.tournament import GameResult, read_results, tournament

# The module itself (the package attribute of that name is its main function).
tournament_module = importlib.import_module("kwartet_epistemic.tournament")

SMALL = kw.Deck.piquet(families=4)
AGENTS = ["knowledge", "random", "random"]
SEED = 11
GAMES = 201  # a multiple of the 3 seatings

# The run in the subprocess: the same tournament, each game taking a few milliseconds
# longer (asleep, using no processor), so that the run lasts long enough to be killed at
# random moments in it whatever the machine's speed.
RUN = textwrap.dedent(
    """
    import signal, sys, time
    # Ctrl-C raises KeyboardInterrupt even when this runs under a shell that started the
    # tests in the background (such a shell makes its children ignore SIGINT).
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import kwartet_epistemic as kw
    module = sys.modules["kwartet_epistemic.tournament"]
    play = module.play_game
    def slower(*args, **kwargs):
        time.sleep(0.005)
        return play(*args, **kwargs)
    module.play_game = slower
    kw.tournament({agents!r}, games={games}, seed={seed}, deck=kw.Deck.piquet(families=4),
                  out=sys.argv[1], jobs=int(sys.argv[2]))
    """
)


@pytest.fixture(scope="module")
def uninterrupted() -> tuple[GameResult, ...]:
    return tournament(AGENTS, games=GAMES, seed=SEED, deck=SMALL).games


def _complete_rows(path: Path) -> int:
    """Whole lines in the file, the header included."""
    if not path.exists():
        return 0
    return path.read_bytes().count(b"\n")


def _start(path: Path, jobs: int) -> subprocess.Popen[bytes]:
    script = RUN.format(agents=AGENTS, games=GAMES, seed=SEED)
    return subprocess.Popen(
        [sys.executable, "-c", script, str(path), str(jobs)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # its own process group: the kill takes its workers too
    )


def _wait_for_rows(process: subprocess.Popen[bytes], path: Path, rows: int) -> None:
    """Wait until the file has more than ``rows`` whole lines or the run has ended."""
    deadline = time.monotonic() + 120  # a guard against a hung run, not a measurement
    while _complete_rows(path) <= rows and process.poll() is None:
        if time.monotonic() > deadline:  # pragma: no cover
            os.killpg(process.pid, signal.SIGKILL)
            pytest.fail("the tournament subprocess wrote nothing")
        time.sleep(0.005)


def _assert_resumes_to(path: Path, expected: tuple[Any, ...]) -> None:
    """Finishing the run in ``path`` gives the uninterrupted results; every game is in
    the file once."""
    resumed = tournament(AGENTS, games=GAMES, seed=SEED, deck=SMALL, out=path)
    assert resumed.games == expected
    stored = read_results(path)
    assert sorted(g.game for g in stored) == list(range(GAMES))
    assert sorted(stored, key=lambda g: g.game) == list(expected)
    assert path.read_bytes().endswith(b"\n")


def test_a_tournament_killed_at_random_moments_resumes_to_the_same_results(
    tmp_path: Path, uninterrupted: tuple[Any, ...]
) -> None:
    out = tmp_path / "results.csv"
    rng = np.random.default_rng(2024)
    kills = 0
    rows_seen = []
    for attempt in range(5):
        before = _complete_rows(out)
        process = _start(out, jobs=2 if attempt % 2 else 1)
        if attempt == 0:
            # The first kill may come before the header is whole (or written at all).
            time.sleep(float(rng.uniform(0.05, 0.6)))
        else:
            _wait_for_rows(process, out, before)
            time.sleep(float(rng.uniform(0.0, 0.05)))
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            kills += 1
        process.wait()
        assert process.returncode in (0, -signal.SIGKILL), process.stderr.read().decode()  # type: ignore[union-attr]
        process.stderr.close()  # type: ignore[union-attr]
        rows_seen.append(_complete_rows(out))
        if out.exists():  # what a kill leaves is readable: its whole rows are its games
            assert len(read_results(out)) == max(0, rows_seen[-1] - 1)
    assert kills >= 3, rows_seen  # the runs were stopped part way, not left to finish
    assert rows_seen[-1] < 1 + GAMES
    _assert_resumes_to(out, uninterrupted)


def test_ctrl_c_in_a_subprocess_leaves_whole_rows_that_resume(
    tmp_path: Path, uninterrupted: tuple[Any, ...]
) -> None:
    out = tmp_path / "results.csv"
    rng = np.random.default_rng(7)
    process = _start(out, jobs=1)
    # the header and a first game (under load the header alone came 0.1 s before any row)
    _wait_for_rows(process, out, 1)
    time.sleep(float(rng.uniform(0.0, 0.1)))
    process.send_signal(signal.SIGINT)
    _, err = process.communicate()
    assert process.returncode != 0 and b"KeyboardInterrupt" in err  # stopped part way
    assert out.read_bytes().endswith(b"\n")  # the writer stopped after a whole row
    assert 0 < len(read_results(out)) < GAMES
    _assert_resumes_to(out, uninterrupted)


def test_a_keyboard_interrupt_between_games_loses_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, uninterrupted: tuple[Any, ...]
) -> None:
    out = tmp_path / "results.csv"
    real = tournament_module.play_game
    calls = {"n": 0}

    def interrupted(*args: Any, **kwargs: Any) -> Any:
        calls["n"] += 1
        if calls["n"] == 40:
            raise KeyboardInterrupt
        return real(*args, **kwargs)

    monkeypatch.setattr(tournament_module, "play_game", interrupted)
    with pytest.raises(KeyboardInterrupt):
        tournament(AGENTS, games=GAMES, seed=SEED, deck=SMALL, out=out)
    monkeypatch.undo()
    assert _complete_rows(out) == 1 + 39 and out.read_bytes().endswith(b"\n")
    assert read_results(out) == list(uninterrupted[:39])
    _assert_resumes_to(out, uninterrupted)


class _FullDisk:
    """``os`` as the file helpers see it, but the disk fills up during a write: after
    ``whole`` writes, the next one stores only half its bytes (a short write, as a
    nearly full disk gives) and every write after that raises ENOSPC."""

    def __init__(self, whole: int) -> None:
        self.whole = whole
        self.writes = 0

    def write(self, handle: int, data: Any) -> int:
        self.writes += 1
        if self.writes <= self.whole:
            return os.write(handle, data)
        if self.writes == self.whole + 1:
            return os.write(handle, bytes(data)[: max(1, len(data) // 2)])
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


class _OsWith:
    """``os`` as the file helpers see it, with some functions replaced."""

    def __init__(self, **replaced: Any) -> None:
        self.__dict__.update(replaced)

    def __getattr__(self, name: str) -> Any:
        return getattr(os, name)


@pytest.mark.parametrize("whole", [0, 1, 25])
def test_a_full_disk_midway_leaves_a_file_that_resumes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, whole: int, uninterrupted: tuple[Any, ...]
) -> None:
    out = tmp_path / "results.csv"
    monkeypatch.setattr(files, "os", _FullDisk(whole))
    with pytest.raises(OSError) as raised:
        tournament(AGENTS, games=GAMES, seed=SEED, deck=SMALL, out=out)
    assert raised.value.errno == errno.ENOSPC
    monkeypatch.undo()
    data = out.read_bytes()
    assert data and not data.endswith(b"\n")  # the row being written was torn
    # Whole rows only: the header and ``whole - 1`` games (none if the header was torn).
    assert read_results(out) == list(uninterrupted[: max(0, whole - 1)])
    _assert_resumes_to(out, uninterrupted)


def test_a_torn_header_alone_starts_the_run_afresh(
    tmp_path: Path, uninterrupted: tuple[Any, ...]
) -> None:
    out = tmp_path / "results.csv"
    out.write_bytes(b"game,seed,age")
    _assert_resumes_to(out, uninterrupted)


# ----- files written whole ------------------------------------------------------------


def _two_records() -> tuple[kw.GameRecord, kw.GameRecord]:
    first = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=1)
    second = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=2)
    rng = np.random.default_rng(0)
    for _ in range(30):
        second.play(second.random_legal_ask(rng))
    return kw.GameRecord.from_game(first), kw.GameRecord.from_game(second)


def test_a_record_saved_over_another_is_whole_when_the_saver_is_killed(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    first, second = _two_records()
    first.save(target)
    script = textwrap.dedent(
        """
        import sys
        import kwartet_epistemic as kw
        records = [kw.GameRecord.from_json(open(p, encoding="utf-8").read()) for p in sys.argv[2:]]
        print("ready", flush=True)
        k = 0
        while True:
            records[k % 2].save(sys.argv[1])
            k += 1
        """
    )
    sources = []
    for k, record in enumerate((first, second)):
        source = tmp_path / f"source{k}.json"
        source.write_text(record.to_json(), encoding="utf-8")
        sources.append(str(source))
    rng = np.random.default_rng(5)
    for _ in range(4):
        process = subprocess.Popen(
            [sys.executable, "-c", script, str(target), *sources],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
        )
        assert process.stdout is not None and process.stdout.readline() == b"ready\n"
        time.sleep(float(rng.uniform(0.01, 0.2)))
        process.kill()
        process.wait()
        process.stdout.close()
        assert kw.GameRecord.load(target) in (first, second)


def test_a_failed_record_save_leaves_the_old_file_and_no_temporary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "game.json"
    first, second = _two_records()
    first.save(target)
    before = target.read_bytes()
    monkeypatch.setattr(files, "os", _FullDisk(0))
    with pytest.raises(OSError):
        second.save(target)
    monkeypatch.undo()
    assert target.read_bytes() == before and kw.GameRecord.load(target) == first
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    # Interrupted between the write and the rename: the same.
    monkeypatch.setattr(files, "os", _OsWith(replace=_raise(KeyboardInterrupt())))
    with pytest.raises(KeyboardInterrupt):
        second.save(target)
    monkeypatch.undo()
    assert target.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]
    second.save(target)
    assert kw.GameRecord.load(target) == second


def test_a_saved_record_keeps_the_files_permissions_and_links(tmp_path: Path) -> None:
    target = tmp_path / "game.json"
    first, second = _two_records()
    first.save(target)
    os.chmod(target, 0o640)
    second.save(target)
    assert target.stat().st_mode & 0o777 == 0o640
    # Saved through a symbolic link, the file it points to is replaced, the link kept.
    link = tmp_path / "latest.json"
    link.symlink_to(target)
    first.save(link)
    assert link.is_symlink() and kw.GameRecord.load(target) == first


def _raise(error: BaseException) -> Any:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise error

    return fail


def test_figures_are_whole_or_absent_when_writing_fails(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from matplotlib.animation import PillowWriter
    from matplotlib.figure import Figure

    from kwartet_epistemic.demo import write_figures
    from kwartet_epistemic.viz.progress import game_progress

    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    game.play(game.legal_asks()[0])
    progress = game_progress(game)
    folder = tmp_path / "figures"
    written = write_figures(progress, folder)
    before = {name: path.read_bytes() for name, path in written.items()}
    assert before["progress"].startswith(b"\x89PNG") and before["heatmap"].startswith(b"GIF89a")
    real_savefig = Figure.savefig

    def savefig_then_full_disk(self: Any, target: Any, *args: Any, **kwargs: Any) -> None:
        real_savefig(self, target, *args, **kwargs)
        Path(target).write_bytes(Path(target).read_bytes()[:100])  # half written...
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))  # ...then the disk is full

    monkeypatch.setattr(Figure, "savefig", savefig_then_full_disk)
    with pytest.raises(OSError):
        write_figures(progress, folder)
    monkeypatch.undo()
    monkeypatch.setattr(PillowWriter, "finish", _raise(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        kw.viz.heatmap_animation(progress, "A", folder / "heatmap_A.gif")
    with pytest.raises(KeyboardInterrupt):
        kw.viz.heatmap_animation(progress, "A", folder / "new.gif")
    monkeypatch.undo()
    assert {name: path.read_bytes() for name, path in written.items()} == before
    assert sorted(p.name for p in folder.iterdir()) == sorted(p.name for p in written.values())


# ----- workers end with their caller ----------------------------------------------------

POOL_RUN = textwrap.dedent(
    """
    import sys
    import kwartet_epistemic as kw

    if __name__ == "__main__":
        print("started", flush=True)
        kw.tournament(["search", "search", "knowledge", "knowledge"], games=100_000,
                      seed=1, jobs=2, progress=False)
    """
)


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads /proc (Linux)")
def test_a_killed_tournament_leaves_no_worker_server_or_tracker_behind(tmp_path: Path) -> None:
    script = tmp_path / "run.py"
    script.write_text(POOL_RUN)
    caller = subprocess.Popen(
        [sys.executable, str(script)],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        cwd=tmp_path,
    )
    left: set[int] = set()
    try:
        assert caller.stdout is not None and caller.stdout.readline().strip() == b"started"
        deadline = time.monotonic() + 60
        # the forkserver, its two workers and the resource tracker
        while len(descendants(caller.pid)) < 4 and time.monotonic() < deadline:
            time.sleep(0.1)
        left = descendants(caller.pid)
        assert len(left) >= 4, "the pool did not start"
        caller.kill()
        caller.wait()
        deadline = time.monotonic() + 10
        while any(process_alive(pid) for pid in left) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert [pid for pid in left if process_alive(pid)] == []
        # nobody holds the caller's output open any more: a reader sees its end
        caller.stdout.read()
    finally:
        caller.kill()
        for pid in left | descendants(caller.pid):
            if process_alive(pid):
                os.kill(pid, signal.SIGKILL)
