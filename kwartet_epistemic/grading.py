"""Grading a student's agent: seat-rotated games against stated opponents, and a bar.

A student hands in one Python file that provides **either**

* ``StudentAgent``: a subclass of :class:`~kwartet_epistemic.agents.policies.Policy`
  that can be built without arguments (``StudentAgent()``) and overrides ``decide``; or
* ``make_policy()``: a function without arguments that returns a Policy, for example
  a :class:`~kwartet_epistemic.KnowledgeProgram` built with ``from_rules``.

:func:`grade` plays the agent against the opponents in every seating equally often
(:func:`~kwartet_epistemic.tournament`) and compares the lower end of the 95% interval of
its win share with the bar.  The student's code never runs in the referee's process: it
runs in a process of its own (:mod:`~kwartet_epistemic.sandbox`, one per grading
process, so one per worker with ``jobs``), which is sent, at each decision, what a
player at the table gets: its view (its hand and the public record) and the legal asks;
it builds its own knowledge from those views.  Each decision has a time limit, the
process a memory limit.  Whatever goes wrong is a :class:`GradingFailure` with a
``kind`` and an exit status of its own (:data:`EXIT_STATUS`), never a pass: a file
without an agent, a crash, a timeout, an illegal answer, an early exit (``sys.exit``,
``os._exit``), or, with ``own_work``, an agent that returns, subclasses or calls one of
the library's registered policies.

The games' seed is secret by default (drawn afresh, printed after the games: grade again
with ``seed=`` that number to reproduce a grade); a seed on the command line is visible
to other processes of the same user.  The separate process keeps the referee's objects
out of reach of Python code; it is not an operating-system sandbox: for a class that may
attack the machine, run the grader as an unprivileged user or in a container.

:func:`calibrate` plays the library's own agents in the student's seat on the same
games, so that a teacher picks a bar from measured win shares.

>>> import pathlib, tempfile
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "agent.py").write_text(
...     "from kwartet_epistemic.agents.policies import Policy\\n"
...     "class StudentAgent(Policy):\\n"
...     "    name = 'first'\\n"
...     "    def decide(self, situation, rng):\\n"
...     "        return situation.asks[0]\\n"
... )
>>> report = grade(folder / "agent.py", against="random", games=4, seed=1)
>>> report.games, report.bar, report.seed
(4, 0.2, 1)
>>> print(report.verdict())  # doctest: +ELLIPSIS
agent.py: win share ... [95% interval ...] against random x3 over 4 games: ... (bar: lower end above 0.2)
"""

from __future__ import annotations

import atexit
import contextlib
import dataclasses
import json
import os
import pickle
import select
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NoReturn

import numpy as np

import kwartet_epistemic
from kwartet_epistemic.agents import KnowledgeBase, make_agent
from kwartet_epistemic.agents.policies import Policy, Situation
from kwartet_epistemic.errors import KwartetError
from kwartet_epistemic.game import Ask, PlayerView
from kwartet_epistemic.sandbox import MAX_MESSAGE, MESSAGE_HEADER, write_message
from kwartet_epistemic.tournament import (
    TournamentResult,
    fresh_seed,
    share_interval,
    tournament,
)

__all__ = [
    "CALIBRATION_AGENTS",
    "DEFAULT_BAR",
    "EXIT_STATUS",
    "CalibrationRow",
    "GradeReport",
    "GradingFailure",
    "SandboxedPolicy",
    "calibrate",
    "grade",
    "load_policy",
    "student_policy",
]

DEFAULT_BAR = 0.2
"""The default bar: the lower end of the 95% interval of the win share must be above it.
Against three ``defensive:facts`` players over 400 games, the library's agents that
reason about the table clear it and random play does not (:func:`calibrate` measures
it for any opponents)."""

EXIT_STATUS = {
    "pass": 0,
    "fail": 1,
    "usage": 2,
    "no_agent": 3,
    "crash": 4,
    "timeout": 5,
    "illegal": 6,
    "exited": 7,
    "refused": 8,
}
"""The exit status of ``kwartet grade`` for each outcome: PASS, FAIL (below the bar), a
bad command line, and each kind of :class:`GradingFailure`."""

CALIBRATION_AGENTS = ("random", "greedy", "defensive:facts", "knowledge", "search")
"""The library's agents :func:`calibrate` seats in the student's place, weakest first."""

DECISION_TIME_LIMIT = 2.0
"""Seconds a decision may take by default (the library's agents take milliseconds)."""

LOAD_TIME_LIMIT = 60.0
"""Seconds the student's process may take to start and load the file."""

MEMORY_LIMIT = 4 << 30
"""Bytes of address space the student's process may use by default."""


class GradingFailure(KwartetError):
    """The student's agent failed in a way that is not a game lost: ``kind`` is one of
    the failure keys of :data:`EXIT_STATUS` (``no_agent``, ``crash``, ``timeout``,
    ``illegal``, ``exited``, ``refused``).

    >>> GradingFailure("timeout", "agent.py: a decision took more than 2 s").exit_status
    5
    """

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind

    @property
    def exit_status(self) -> int:
        """The exit status of ``kwartet grade`` for this failure."""
        return EXIT_STATUS[self.kind]

    def __reduce__(self) -> tuple[Any, ...]:  # across worker processes, with its kind
        return (GradingFailure, (self.kind, str(self)))


@dataclass(frozen=True)
class GradeReport:
    """The outcome of :func:`grade`: the win share, its 95% interval, and the verdict."""

    file: str
    opponents: tuple[str, ...]
    games: int
    win_share: float
    interval: tuple[float, float]
    bar: float
    passed: bool
    table: str
    seed: int

    def verdict(self) -> str:
        """One line: the win share with its interval, and PASS or FAIL against the bar."""
        low, high = self.interval
        return (
            f"{self.file}: win share {self.win_share:.3f} [95% interval {low:.3f}, {high:.3f}] "
            f"against {_against(self.opponents)} over {self.games} games: "
            f"{'PASS' if self.passed else 'FAIL'} (bar: lower end above {self.bar:g})"
        )


def _against(opponents: Sequence[str]) -> str:
    names = sorted(set(opponents))
    return f"{names[0]} x{len(opponents)}" if len(names) == 1 else ", ".join(opponents)


# ----- the student's process ------------------------------------------------------------


class _Seat:
    """The student's process, as the grading process sees it: started once, loaded with
    the file, then asked one game and one decision at a time."""

    def __init__(self, file: Path, own_work: bool, time_limit: float, memory: int) -> None:
        self.key = (str(file), own_work, time_limit, memory)
        self.file = file
        try:  # read first: a file that is not text starts no process
            source = file.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise GradingFailure(
                "no_agent", f"agent file {file.name!r}: expected a Python file in UTF-8"
            ) from None
        self.time_limit = time_limit
        self.folder = tempfile.TemporaryDirectory(prefix="kwartet-grade-")
        self.log = Path(self.folder.name) / "output.txt"
        to_child, from_parent = os.pipe()
        to_parent, from_child = os.pipe()
        package_root = str(Path(kwartet_epistemic.__file__).resolve().parent.parent)
        environment = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "PYTHONPATH": package_root,
            "HOME": self.folder.name,
            "OPENBLAS_NUM_THREADS": "1",
            "OMP_NUM_THREADS": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
        }
        command = [sys.executable, "-m", "kwartet_epistemic.sandbox"]
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [*command, str(to_child), str(from_child), str(memory)],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                cwd=self.folder.name,
                env=environment,
                pass_fds=(to_child, from_child),
                start_new_session=True,  # a Ctrl-C reaches the grader, which ends it
            )
        os.close(to_child)
        os.close(from_child)
        self.outgoing = os.fdopen(from_parent, "wb", buffering=0)
        self.incoming = os.fdopen(to_parent, "rb", buffering=0)
        answer = self.ask(("load", source, str(file), own_work), LOAD_TIME_LIMIT, "loading it")
        self.name = str(answer.get("loaded", "student"))

    def ask(self, message: tuple[Any, ...], limit: float, doing: str) -> dict[str, Any]:
        """Send ``message`` and wait at most ``limit`` seconds for the answer; a failure of
        any kind ends the process and raises :class:`GradingFailure`."""
        try:
            write_message(self.outgoing, pickle.dumps(message))
        except (BrokenPipeError, OSError):
            self.fail("exited", f"its process ended before {doing}")
        raw = self.read(time.monotonic() + limit, limit, doing)
        if raw is None:
            self.process.wait(timeout=5)
            self.fail(
                "exited",
                f"its process ended while {doing} (exit status {self.process.returncode}: "
                "sys.exit, os._exit, or killed for its memory)",
            )
        try:
            answer = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            answer = None
        if not isinstance(answer, dict):
            self.fail("illegal", f"its process sent something that is not an answer while {doing}")
        error = answer.get("error")
        if error is not None:
            kind = (
                error
                if error in EXIT_STATUS and error not in ("pass", "fail", "usage")
                else "crash"
            )
            self.fail(kind, f"{doing}: {str(answer.get('message', ''))[:2000]}")
        return answer

    def read(self, deadline: float, limit: float, doing: str) -> bytes | None:
        """One length-prefixed answer, read by the deadline (a process that sends half an
        answer and stalls times out too); None at the end of the pipe."""
        wanted = MESSAGE_HEADER
        data = b""
        length = None
        while True:
            if len(data) >= wanted:
                if length is not None:
                    return data[MESSAGE_HEADER : MESSAGE_HEADER + length]
                length = int.from_bytes(data[:MESSAGE_HEADER], "big")
                if length > MAX_MESSAGE:
                    self.fail("illegal", f"its process sent {length:,} bytes while {doing}")
                wanted = MESSAGE_HEADER + length
                continue
            left = deadline - time.monotonic()
            ready, _, _ = select.select([self.incoming], [], [], max(left, 0))
            if not ready:
                self.fail("timeout", f"{doing} took more than {limit:g} s")
            chunk = os.read(self.incoming.fileno(), wanted - len(data))
            if not chunk:
                return None
            data += chunk

    def fail(self, kind: str, detail: str) -> NoReturn:
        output = self.tail()
        self.close()
        _SEATS_BY_KEY.pop(self.key, None)
        shown = f"\n  its output ended with:\n{output}" if output else ""
        raise GradingFailure(kind, f"agent file {self.file.name!r}: {detail}{shown}")

    def tail(self) -> str:
        try:
            text = self.log.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""
        lines = text.strip().splitlines()[-8:]
        return "\n".join("    " + line[:200] for line in lines)

    def close(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):  # SIGKILL ends it at once
            self.process.wait(timeout=5)
        for stream in (self.outgoing, self.incoming):
            with contextlib.suppress(OSError):
                stream.close()
        self.folder.cleanup()

    def new_game(self, player: str, seed: int) -> None:
        self.ask(("game", player, seed), self.time_limit + LOAD_TIME_LIMIT, "starting a game")

    def decide(self, view: PlayerView, asks: Sequence[Ask]) -> Ask:
        answer = self.ask(("decide", view), self.time_limit, "a decision")
        chosen = answer.get("ask")
        if isinstance(chosen, list) and len(chosen) == 2:
            target, card = chosen
            for ask in asks:
                if ask.target == target and ask.card.index == card:
                    return ask
        return self.fail("illegal", f"a decision returned {str(chosen)[:80]}, not a legal ask")


# One process per student file and settings in each grading process (the grader, or each
# of its workers), ended when that process ends.
_SEATS_BY_KEY: dict[tuple[str, bool, float, int], _Seat] = {}


@atexit.register
def _close_seats() -> None:
    for seat in list(_SEATS_BY_KEY.values()):
        seat.close()
    _SEATS_BY_KEY.clear()


def _seat(file: Path, own_work: bool, time_limit: float, memory: int) -> _Seat:
    key = (str(file), own_work, time_limit, memory)
    seat = _SEATS_BY_KEY.get(key)
    if seat is None or seat.process.poll() is not None:
        seat = _Seat(file, own_work, time_limit, memory)
        _SEATS_BY_KEY[key] = seat
    return seat


class SandboxedPolicy(Policy):
    """The student's agent as the referee's side sees it: each decision is sent to the
    student's process (:mod:`~kwartet_epistemic.sandbox`) as the player's view and the
    legal asks, and its answer checked against them.  One instance plays one game.

    >>> SandboxedPolicy(Path("agent.py")).name
    'student'
    """

    name = "student"

    def __init__(
        self,
        file: Path,
        *,
        own_work: bool = False,
        time_limit: float = DECISION_TIME_LIMIT,
        memory: int = MEMORY_LIMIT,
    ) -> None:
        self.file = file
        self.own_work = own_work
        self.time_limit = time_limit
        self.memory = memory
        self.started = False

    def choose(
        self,
        view: PlayerView,
        knowledge: KnowledgeBase,
        asks: Sequence[Ask],
        rng: np.random.Generator,
    ) -> Ask:
        """The student's ask, from their own process."""
        seat = _seat(self.file, self.own_work, self.time_limit, self.memory)
        if not self.started:  # the game's first decision: a fresh policy and knowledge
            seat.new_game(view.player, int(rng.integers(1 << 62)))
            self.started = True
        return seat.decide(view, asks)

    def decide(self, situation: Situation, rng: np.random.Generator) -> Ask:
        return self.choose(situation.view, situation.knowledge, situation.asks, rng)


def student_policy(name: str, options: Mapping[str, str]) -> SandboxedPolicy:
    """The policy of a ``student:NAME[file=HEX,...]`` spec (how grading seats the file in
    every worker process): ``file`` is the file's absolute path in hexadecimal UTF-8,
    ``own`` 1 or 0, ``limit`` the seconds a decision may take, ``memory`` bytes.

    >>> policy = student_policy("agent", {"file": "/tmp/agent.py".encode().hex(), "own": "1"})
    >>> policy.file, policy.own_work, policy.time_limit
    (PosixPath('/tmp/agent.py'), True, 2.0)
    """
    try:
        file = Path(bytes.fromhex(options["file"]).decode("utf-8"))
        own = options.get("own", "0") == "1"
        limit = float(options.get("limit", DECISION_TIME_LIMIT))
        memory = int(options.get("memory", MEMORY_LIMIT))
    except (KeyError, ValueError) as error:
        raise KwartetError(
            f"student:{name} options {dict(options)!r}: expected file=HEX (and own, limit, "
            f"memory): {error}"
        ) from None
    return SandboxedPolicy(file, own_work=own, time_limit=limit, memory=memory)


def _student_spec(file: Path, own_work: bool, time_limit: float, memory: int) -> str:
    path = str(file.resolve()).encode("utf-8").hex()
    return f"student:agent[file={path},own={int(own_work)},limit={time_limit!r},memory={memory}]"


# ----- grading --------------------------------------------------------------------------


def _checked_file(path: str | os.PathLike[str]) -> Path:
    file = Path(path)
    if not file.is_file():
        raise KwartetError(f"agent file {str(path)!r}: expected an existing Python file")
    if file.suffix != ".py":
        raise KwartetError(f"agent file {str(path)!r}: expected a Python file ending in .py")
    return file


def load_policy(path: str | os.PathLike[str]) -> Policy:
    """The student's agent in ``path``, loaded in a process of its own (see the module
    docstring) and ready to play: a :class:`SandboxedPolicy`.  A file that provides no
    agent raises :class:`GradingFailure` now.

    >>> load_policy("no_such_agent.py")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: agent file 'no_such_agent.py': expected an existing Python file
    """
    file = _checked_file(path)
    _seat(file.resolve(), False, DECISION_TIME_LIMIT, MEMORY_LIMIT)
    return SandboxedPolicy(file.resolve())


def _opponents(against: str | Sequence[str]) -> tuple[str, ...]:
    specs = [against] if isinstance(against, str) else list(against)
    if not specs or not all(isinstance(s, str) for s in specs):
        raise KwartetError(f"against={against!r}: expected agent specs such as 'defensive:facts'")
    specs = [p.strip() for s in specs for p in s.split(",") if p.strip()]
    if len(specs) == 1:
        specs = specs * 3  # one spec: a four-player table of three such opponents
    if not 1 <= len(specs) <= 7:
        raise KwartetError(
            f"against={against!r}: expected one spec (three such opponents) or 1 to 7 specs"
        )
    for spec in specs:
        make_agent(spec, "A")  # an unknown spec is refused now, naming it
    return tuple(specs)


def _checked(bar: float, games: int, time_limit: float, memory: int) -> None:
    if isinstance(bar, bool) or not isinstance(bar, int | float) or not 0 <= bar < 1:
        raise KwartetError(f"bar={bar!r}: expected a win share between 0 and 1")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise KwartetError(f"games={games!r}: expected a positive number of games")
    if isinstance(time_limit, bool) or not isinstance(time_limit, int | float):
        raise KwartetError(f"time_limit={time_limit!r}: expected seconds above 0")
    if not 0 < time_limit <= 3600:
        raise KwartetError(f"time_limit={time_limit!r}: expected seconds above 0, at most 3600")
    if isinstance(memory, bool) or not isinstance(memory, int) or memory < 1 << 28:
        raise KwartetError(f"memory_limit={memory!r}: expected bytes, at least 256 MiB")


def _fresh_seed(seed: int | None) -> int:
    if seed is None:
        return fresh_seed()
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise KwartetError(f"seed={seed!r}: expected None or a whole number from 0")
    return seed


def _quiet_tournament(seats: list[str], games: int, seed: int, jobs: int) -> TournamentResult:
    """The tournament without its warning about seatings played unequally often: the
    table a grade prints says so itself, and the student's spec in it would be noise."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", ".*cannot seat everyone equally", UserWarning)
        return tournament(seats, games, seed=seed, jobs=jobs)


def _labelled(result: TournamentResult, spec: str, label: str) -> TournamentResult:
    """The same games with ``spec`` shown as ``label`` (the file's spec is long)."""

    def relabel(agents: tuple[str, ...]) -> tuple[str, ...]:
        return tuple(label if agent == spec else agent for agent in agents)

    games = tuple(dataclasses.replace(g, agents=relabel(g.agents)) for g in result.games)
    return dataclasses.replace(result, agents=relabel(result.agents), games=games)


def _share(result: TournamentResult) -> tuple[float, tuple[float, float]]:
    row = result.summary()[0]
    low, high = row.win_interval
    return row.win_share, (low, high)


def grade(
    path: str | os.PathLike[str],
    *,
    against: str | Sequence[str] = "defensive:facts",
    games: int = 400,
    bar: float = DEFAULT_BAR,
    seed: int | None = None,
    jobs: int = 1,
    time_limit: float = DECISION_TIME_LIMIT,
    own_work: bool = False,
    memory_limit: int = MEMORY_LIMIT,
) -> GradeReport:
    """Play the student's agent in ``path`` against ``against`` over ``games`` seat-rotated
    games and compare the lower end of its win share's 95% interval with ``bar``.

    ``against`` is one spec (three such opponents) or a comma-separated list or sequence
    of specs (one per opponent seat).  ``seed`` None draws a secret one (the report
    gives it, to reproduce the grade).  ``time_limit`` is per decision, in seconds;
    ``memory_limit`` the bytes of the student's process; ``own_work`` refuses an agent
    that returns, subclasses or calls a registered library policy.  See the module
    docstring for what the file must provide; a failure raises :class:`GradingFailure`.
    """
    _checked(bar, games, time_limit, memory_limit)
    opponents = _opponents(against)
    file = _checked_file(path).resolve()
    used_seed = _fresh_seed(seed)
    # The file is loaded here first, so that a file without an agent fails before any game.
    _seat(file, own_work, float(time_limit), memory_limit)
    spec = _student_spec(file, own_work, float(time_limit), memory_limit)
    try:
        result = _quiet_tournament([spec, *opponents], games, used_seed, jobs)
    except GradingFailure:
        raise
    except KwartetError as error:
        raise GradingFailure("crash", f"agent file {file.name!r}: a game failed: {error}") from None
    share, interval = _share(result)
    table = _labelled(result, spec, "student").table()
    return GradeReport(
        file=file.name,
        opponents=opponents,
        games=len(result.games),
        win_share=share,
        interval=interval,
        bar=float(bar),
        passed=interval[0] > bar,
        table=table,
        seed=used_seed,
    )


@dataclass(frozen=True)
class CalibrationRow:
    """One library agent in the student's seat: its win share and 95% interval."""

    agent: str
    win_share: float
    interval: tuple[float, float]

    def passes(self, bar: float) -> bool:
        """Whether this agent would pass ``bar`` (its interval's lower end above it)."""
        return self.interval[0] > bar


def calibrate(
    *,
    against: str | Sequence[str] = "defensive:facts",
    games: int = 400,
    seed: int | None = 1,
    jobs: int = 1,
    agents: Sequence[str] = CALIBRATION_AGENTS,
) -> list[CalibrationRow]:
    """The win share of each of the library's ``agents`` in the student's seat, on the
    games a grade with the same ``against``, ``games`` and ``seed`` plays: the numbers a
    teacher picks a bar from.

    >>> rows = calibrate(against="random", games=4, agents=("random", "knowledge"))
    >>> [row.agent for row in rows], all(0 <= row.win_share <= 1 for row in rows)
    (['random', 'knowledge'], True)
    """
    _checked(DEFAULT_BAR, games, DECISION_TIME_LIMIT, MEMORY_LIMIT)
    opponents = _opponents(against)
    used_seed = _fresh_seed(seed)
    rows = []
    for agent in agents:
        result = _quiet_tournament([agent, *opponents], games, used_seed, jobs)
        if agent in opponents:
            # The table pools every seat of one spec (a fair share by symmetry, with a
            # narrow interval): one seat per game is what a student's agent would get.
            values = [g.share(g.agents.index(agent)) for g in result.games]
            interval, _ = share_interval(values)
            rows.append(CalibrationRow(agent, float(np.mean(values)), interval))
        else:
            share, interval = _share(result)
            rows.append(CalibrationRow(agent, share, interval))
    return rows
