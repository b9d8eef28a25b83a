"""kwartet grade: a student's agent file graded over seat-rotated games, with a bar."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.cli import main
from kwartet_epistemic.grading import EXIT_STATUS, GradingFailure, grade, load_policy

FIRST_ASK = """
from kwartet_epistemic.agents.policies import Policy

class StudentAgent(Policy):
    name = "first"
    def decide(self, situation, rng):
        return situation.asks[0]
"""

PROGRAM = """
import kwartet_epistemic as kw

def make_policy():
    return kw.KnowledgeProgram.from_rules(
        [("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"), ("M_me has(?p, ?c) & need(?c)", "ask ?p ?c")],
        name="mine",
    )
"""

TEMPLATE = Path(__file__).resolve().parents[2] / "notebooks" / "assignment" / "agent_template.py"
LINE = re.compile(
    r"^(?P<file>\S+): win share (?P<share>\d\.\d{3}) \[95% interval (?P<low>\d\.\d{3}), "
    r"(?P<high>\d\.\d{3})\] against (?P<against>.+) over (?P<games>\d+) games: (?P<verdict>PASS|FAIL) "
    r"\(bar: lower end above (?P<bar>[\d.]+)\)$"
)


def _write(tmp_path: Path, text: str, name: str = "agent.py") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_cli_grades_a_tiny_agent(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, FIRST_ASK)
    status = main(["grade", str(path), "--against", "random", "--games", "8", "--bar", "0"])
    out = capsys.readouterr().out.splitlines()
    assert out[-1].startswith("games seed ")
    out = out[:-1]
    assert out[0].startswith("agent") and "win share" in out[0] and "95% interval" in out[0]
    assert out[1].split()[0] == "student"
    match = LINE.match(out[-1])
    assert match, out[-1]
    assert match["file"] == "agent.py" and match["against"] == "random x3"
    assert match["games"] == "8" and float(match["bar"]) == 0
    low, share, high = float(match["low"]), float(match["share"]), float(match["high"])
    assert low <= share <= high
    assert (match["verdict"] == "PASS") == (low > 0) == (status == 0)


def test_pass_and_fail_follow_the_bar(tmp_path: Path) -> None:
    path = _write(tmp_path, PROGRAM)
    report = grade(path, against="random", games=12, bar=0.0, seed=3)
    assert report.games == 12 and report.opponents == ("random",) * 3
    assert report.interval[0] > 0.0 and report.passed  # a knowledge program beats random play
    strict = grade(path, against="random", games=12, bar=0.99, seed=3)
    assert not strict.passed and strict.win_share == report.win_share  # same seeded games
    assert "FAIL" in strict.verdict() and "PASS" in report.verdict()
    assert main(["grade", str(path), "--against", "random", "--games", "12", "--bar", "0.99"]) == 1


def test_opponents_per_seat_and_the_template(tmp_path: Path) -> None:
    report = grade(TEMPLATE, against="random,defensive:facts", games=6, seed=1)
    assert report.opponents == ("random", "defensive:facts")
    assert "defensive:facts" in report.table and report.file == "agent_template.py"
    assert isinstance(load_policy(TEMPLATE), kw.agents.policies.Policy)


@pytest.mark.parametrize(
    ("text", "kind", "message"),
    [
        ("def f(:\n", "crash", r"SyntaxError"),
        ("raise RuntimeError('boom')\n", "crash", r"RuntimeError: boom \(line 1"),
        ("x = 1\n", "no_agent", r"expected a Policy subclass named StudentAgent or"),
        ("class StudentAgent:\n    pass\n", "no_agent", r"StudentAgent is not a Policy subclass"),
        (
            "def make_policy():\n    return 'knowledge'\n",
            "no_agent",
            r"make_policy\(\) returned str; expected a Policy",
        ),
        (FIRST_ASK.replace("return situation.asks[0]", "return None"), "illegal", r"not one of"),
        (FIRST_ASK.replace("return situation.asks[0]", "return 1 / 0"), "crash", "ZeroDivision"),
    ],
)
def test_a_bad_file_fails_with_its_own_kind_and_status(
    tmp_path: Path, text: str, kind: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    path = _write(tmp_path, text)
    with pytest.raises(GradingFailure, match=message) as failure:
        grade(path, against="random", games=2)
    assert failure.value.kind == kind and isinstance(failure.value, ValueError)
    status = main(["grade", str(path), "--against", "random", "--games", "2"])
    assert status == EXIT_STATUS[kind] not in (EXIT_STATUS["pass"], EXIT_STATUS["fail"])
    assert f"agent.py: FAILED ({kind})" in capsys.readouterr().err


def test_bad_options_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path, FIRST_ASK)
    with pytest.raises(kw.KwartetError, match="expected an existing Python file"):
        grade(tmp_path / "missing.py")
    with pytest.raises(kw.KwartetError, match=r"ending in \.py"):
        grade(_write(tmp_path, FIRST_ASK, "agent.txt"))
    with pytest.raises(kw.KwartetError, match="bar=1.5: expected a win share"):
        grade(path, bar=1.5)
    with pytest.raises(kw.KwartetError, match="games=0"):
        grade(path, games=0)
    with pytest.raises(kw.KwartetError, match="wizard"):
        grade(path, against="wizard", games=2)
    assert main(["grade", str(path), "--games", "0"]) == 2
