"""Grading hostile files: the student's code runs in a process of its own that sees only
a player's view; every way out (exit, timeout, memory, illegal asks, the library's own
policies under --own-work) is a failure with its own exit status, never a pass."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from kwartet_testing import children_of

from kwartet_epistemic import grading
from kwartet_epistemic.cli import main
from kwartet_epistemic.grading import EXIT_STATUS, GradingFailure, calibrate, grade
from kwartet_epistemic.tournament import tournament

POLICY = "from kwartet_epistemic.agents.policies import Policy\n"


def _agent(tmp_path: Path, body: str, name: str = "agent.py") -> Path:
    path = tmp_path / name
    path.write_text(textwrap.dedent(body))
    return path


def _decide(body: str) -> str:
    """A StudentAgent whose decide runs ``body`` (indented as a method body)."""
    return (
        POLICY
        + "class StudentAgent(Policy):\n    def decide(self, situation, rng):\n"
        + textwrap.indent(textwrap.dedent(body), " " * 8)
    )


def _fails(path: Path, kind: str, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    """Grade ``path`` from the command line: it fails with ``kind`` and its status."""
    args = ["grade", str(path), "--against", "random", "--games", "2", *extra]
    assert main(args) == EXIT_STATUS[kind]
    err = capsys.readouterr().err
    assert f"{path.name}: FAILED ({kind})" in err
    return err


@pytest.mark.parametrize(
    "body",
    ["import sys\nsys.exit(0)\n", "import os\nos._exit(0)\n", "raise SystemExit\n"],
    ids=["sys.exit", "os._exit", "SystemExit"],
)
def test_an_early_exit_while_loading_is_a_failure_not_a_pass(
    tmp_path: Path, body: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _fails(_agent(tmp_path, body), "exited", capsys)


@pytest.mark.parametrize("call", ["import os; os._exit(0)", "import sys; sys.exit(0)"])
def test_an_early_exit_during_a_decision_is_a_failure(
    tmp_path: Path, call: str, capsys: pytest.CaptureFixture[str]
) -> None:
    _fails(_agent(tmp_path, _decide(call + "\n")), "exited", capsys)


def test_the_student_process_holds_no_game_of_the_referee(tmp_path: Path) -> None:
    """gc peeking and importing the referee find no game: the agent plays normally, and
    raises (a crash) if it finds one."""
    body = """
    import gc, sys
    from kwartet_epistemic.game import Game
    found = [o for o in gc.get_objects() if isinstance(o, Game)]
    import kwartet_epistemic.tournament, kwartet_epistemic.grading
    for module in list(sys.modules.values()):
        found += [v for v in vars(module).values() if isinstance(v, Game)]
    if found:
        raise RuntimeError(f"found {len(found)} games")
    hand = situation.view.hand
    seen = {c for e in situation.view.record for c in [getattr(e, "card", None)] if c}
    return situation.asks[0]
    """
    report = grade(_agent(tmp_path, _decide(body)), against="random", games=4, seed=2)
    assert report.games == 4  # it played every game without finding anything


def test_the_student_process_gets_a_clean_folder_and_environment(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Reading files: its working folder is empty and its own, and the grader's
    environment (where a seed or a path could be) is not passed on."""
    monkeypatch.setenv("KWARTET_GRADER_SECRET", "42")
    (tmp_path / "answers.txt").write_text("the deal")
    body = """
    import os
    assert "KWARTET_GRADER_SECRET" not in os.environ, "saw the grader's environment"
    assert os.listdir(".") in ([], ["output.txt"]), os.listdir(".")
    assert os.environ["HOME"] == os.getcwd()
    return situation.asks[0]
    """
    report = grade(_agent(tmp_path, _decide(body)), against="random", games=2, seed=1)
    assert report.games == 2


def test_the_seed_is_secret_unless_given(tmp_path: Path) -> None:
    path = _agent(tmp_path, _decide("return situation.asks[0]\n"))
    first = grade(path, against="random", games=2)
    second = grade(path, against="random", games=2)
    assert first.seed != second.seed  # drawn afresh, and reported
    again = grade(path, against="random", games=2, seed=first.seed)
    assert again.win_share == first.win_share and again.table == first.table


def test_an_endless_decision_times_out(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    start = time.monotonic()
    err = _fails(
        _agent(tmp_path, _decide("while True:\n    pass\n")), "timeout", capsys,
        "--time-limit", "0.5",
    )  # fmt: skip
    assert "took more than 0.5 s" in err and time.monotonic() - start < 30


def test_an_endless_load_times_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(grading, "LOAD_TIME_LIMIT", 8.0)
    with pytest.raises(GradingFailure, match="loading it took more than 8 s") as failure:
        grade(_agent(tmp_path, "while True:\n    pass\n"), against="random", games=2)
    assert failure.value.exit_status == EXIT_STATUS["timeout"]


def test_a_huge_allocation_is_a_crash_within_the_memory_limit(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = "hog = bytearray(64 << 30)\nreturn situation.asks[0]\n"
    err = _fails(_agent(tmp_path, _decide(body)), "crash", capsys)
    assert "MemoryError" in err


def test_an_ask_that_is_not_legal_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    body = """
    from kwartet_epistemic.game import Ask
    me = situation.view.player
    return Ask(me, me, situation.asks[0].card)
    """
    _fails(_agent(tmp_path, _decide(body)), "illegal", capsys)


WRAPPED = {
    "returns": """
        import kwartet_epistemic as kw
        def make_policy():
            return kw.make_agent("knowledge", "A").policy
        """,
    "subclasses": """
        from kwartet_epistemic.agents.policies import Defensive
        class StudentAgent(Defensive):
            name = "mine"
        """,
    "delegates": """
        import kwartet_epistemic as kw
        from kwartet_epistemic.agents.policies import Policy
        class StudentAgent(Policy):
            def __init__(self):
                self.inner = kw.make_agent("search", "A").policy
            def decide(self, situation, rng):
                return self.inner.decide(situation, rng)
        """,
    "program": """
        import kwartet_epistemic as kw
        def make_policy():
            library = kw.make_agent("greedy_program", "A").policy
            return kw.KnowledgeProgram(library.rules, name="mine")
        """,
    "plain player": """
        import kwartet_epistemic as kw
        from kwartet_epistemic.agents.policies import Policy
        class StudentAgent(Policy):
            def decide(self, situation, rng):
                return kw.make_agent("random", "A").policy.decide(situation, rng)
        """,
}


@pytest.mark.parametrize("how", sorted(WRAPPED))
def test_own_work_refuses_the_librarys_policies(
    tmp_path: Path, how: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _agent(tmp_path, WRAPPED[how])
    err = _fails(path, "refused", capsys, "--own-work")
    assert "the library's" in err
    # Without --own-work the same file is graded (a teacher's choice).
    assert main(["grade", str(path), "--against", "random", "--games", "2", "--bar", "0"]) in (0, 1)


def test_own_work_accepts_a_students_own_program_and_policy(tmp_path: Path) -> None:
    program = """
        import kwartet_epistemic as kw
        from kwartet_epistemic.agents.policies import known_first
        def make_policy():
            return kw.KnowledgeProgram.from_rules(
                [("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"), ("M_me has(?p, ?c)", "ask ?p ?c")],
                name="mine",
            )
        """
    report = grade(_agent(tmp_path, program), against="random", games=2, own_work=True, seed=1)
    assert report.games == 2
    helper = _decide("from kwartet_epistemic.agents.policies import known_first\n"
                     "return known_first(situation, rng) or situation.asks[0]\n")  # fmt: skip
    assert grade(_agent(tmp_path, helper, "b.py"), against="random", games=2, own_work=True).games


def test_jobs_grade_the_same_games_as_one_process(tmp_path: Path) -> None:
    path = _agent(tmp_path, _decide("return situation.asks[-1]\n"))
    one = grade(path, against="random", games=8, seed=4)
    two = grade(path, against="random", games=8, seed=4, jobs=2)
    assert (one.win_share, one.table) == (two.win_share, two.table)
    with pytest.raises(GradingFailure) as failure:
        grade(_agent(tmp_path, _decide("return None\n"), "bad.py"), games=8, jobs=2)
    assert failure.value.kind == "illegal"


@pytest.mark.skipif(not Path("/proc").is_dir(), reason="reads /proc")
def test_a_killed_grader_leaves_no_student_process(tmp_path: Path) -> None:
    path = _agent(tmp_path, _decide("while True:\n    pass\n"))
    grader = subprocess.Popen(
        [sys.executable, "-m", "kwartet_epistemic", "grade", str(path), "--against", "random",
         "--games", "2", "--time-limit", "600"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    deadline = time.monotonic() + 60
    children: list[int] = []
    while time.monotonic() < deadline and not children:
        time.sleep(0.2)
        children = children_of(grader.pid)
    assert children, "the grader started no student process"
    time.sleep(1.0)  # the student's decide is looping now
    os.kill(grader.pid, signal.SIGKILL)
    grader.wait()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(Path(f"/proc/{c}").exists() for c in children):
        time.sleep(0.2)
    alive = [c for c in children if Path(f"/proc/{c}").exists()]
    for c in alive:
        os.kill(c, signal.SIGKILL)
    assert not alive, "a student process outlived the grader"


def test_calibration_plays_the_librarys_agents_on_the_graded_games() -> None:
    rows = calibrate(against="greedy", games=8, seed=2, agents=("random", "knowledge"))
    assert [row.agent for row in rows] == ["random", "knowledge"]
    for row in rows:
        direct = tournament([row.agent, "greedy", "greedy", "greedy"], 8, seed=2)
        summary = direct.summary()[0]
        assert row.win_share == summary.win_share and row.interval == summary.win_interval
        assert row.passes(-1.0) and not row.passes(1.0)


def test_calibrating_the_opponents_own_agent_takes_one_seat() -> None:
    """The same spec as the opponents: the table pools all four seats (exactly a fair
    share, an interval of almost no width); calibration reports one seat per game."""
    (row,) = calibrate(against="random", games=12, seed=5, agents=("random",))
    pooled = tournament(["random"] * 4, 12, seed=5).summary()[0]
    assert pooled.win_share == pytest.approx(0.25)
    assert row.interval[1] - row.interval[0] > 2 * (pooled.win_interval[1] - pooled.win_interval[0])


def test_calibrate_from_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(["grade", "--calibrate", "--against", "random", "--games", "4", "--bar", "0.5"]) == 0
    )
    out = capsys.readouterr().out
    assert "passes bar 0.5" in out
    for agent in grading.CALIBRATION_AGENTS:
        assert any(line.split()[0] == agent for line in out.splitlines()[2:])
    assert main(["grade", "--against", "random"]) == EXIT_STATUS["usage"]


@pytest.mark.parametrize(
    ("forged", "kind"),
    [
        ("os.write(out, b'\\x00\\x00')\nwhile True:\n    pass\n", "timeout"),  # half a header
        ("os.write(out, b'\\x00\\x00\\x00\\x05{oops')\nwhile True:\n    pass\n", "illegal"),
        ("os.write(out, (1 << 31).to_bytes(4, 'big'))\nwhile True:\n    pass\n", "illegal"),
        (
            "os.write(out, b'\\x00\\x00\\x00\\x0c{\"ask\": [1]}')\nwhile True:\n    pass\n",
            "illegal",
        ),
    ],
    ids=["stalls", "not json", "too long", "no ask"],
)
def test_forged_answers_on_the_pipe_are_failures(
    tmp_path: Path, forged: str, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """The student's code can write to the answer pipe itself: whatever it writes is
    read within the time limit and checked field by field."""
    body = "import os, sys\nout = int(sys.argv[2])\n" + forged
    _fails(_agent(tmp_path, _decide(body)), kind, capsys, "--time-limit", "1")


LIKELIEST = '''
from kwartet_epistemic.agents.policies import Policy

class StudentAgent(Policy):
    """The likeliest yes; among those, the family I hold most of."""

    def decide(self, situation, rng):
        held = {}
        for card in situation.view.hand:
            held[card.family_index] = held.get(card.family_index, 0) + 1
        def score(ask):
            return (situation.chance(ask), held.get(ask.card.family_index, 0))
        best = max(score(a) for a in situation.asks)
        ties = [a for a in situation.asks if score(a) == best]
        return ties[int(rng.integers(len(ties)))]
'''


def test_the_default_bar_is_reached_by_a_reasonable_hand_written_agent(tmp_path: Path) -> None:
    """The README's default grade (400 games against three defensive:facts, bar 0.2): a
    short hand-written agent passes it, the template as shipped does not."""
    good = grade(_agent(tmp_path, LIKELIEST), seed=1, jobs=2)
    assert good.passed, good.verdict()
    template = (
        Path(__file__).resolve().parents[2] / "notebooks" / "assignment" / "agent_template.py"
    )
    assert not grade(template, seed=1, jobs=2).passed
