"""Grading a student's agent: seat-rotated games against stated opponents, and a bar.

A student hands in one Python file that provides **either**

* ``StudentAgent``: a subclass of :class:`~kwartet_epistemic.agents.policies.Policy`
  that can be built without arguments (``StudentAgent()``) and overrides ``decide``; or
* ``make_policy()``: a function without arguments that returns a Policy, for example
  a :class:`~kwartet_epistemic.KnowledgeProgram` built with ``from_rules``.

:func:`grade` loads the file as a module by its path (the student's own code runs, as it
must to play; nothing is ever unpickled), seats the agent against the opponents in every
arrangement equally often (:func:`~kwartet_epistemic.tournament`) and compares the lower
end of the 95% interval of its win share with the bar (default 0.25, a fair share at a
four-player table).  ``kwartet grade agent.py --against defensive:facts --games 400`` is the
same from the command line; ``notebooks/assignment/agent_template.py`` is a template.

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
>>> report.games, report.bar
(4, 0.25)
>>> print(report.verdict())  # doctest: +ELLIPSIS
agent.py: win share ... [95% interval ...] against random x3 over 4 games: ... (bar: lower end above 0.25)
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType

from kwartet_epistemic.agents import make_agent, register_policy
from kwartet_epistemic.agents.policies import Policy
from kwartet_epistemic.errors import KwartetError

__all__ = ["GradeReport", "grade", "load_policy"]

#: The spec the graded agent plays under in the tournament table.
STUDENT_SPEC = "student"


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

    def verdict(self) -> str:
        """One line: the win share with its interval, and PASS or FAIL against the bar."""
        low, high = self.interval
        names = sorted(set(self.opponents))
        against = (
            f"{names[0]} x{len(self.opponents)}" if len(names) == 1 else ", ".join(self.opponents)
        )
        return (
            f"{self.file}: win share {self.win_share:.3f} [95% interval {low:.3f}, {high:.3f}] "
            f"against {against} over {self.games} games: {'PASS' if self.passed else 'FAIL'} "
            f"(bar: lower end above {self.bar:g})"
        )


def _load_module(path: Path) -> ModuleType:
    if not path.is_file():
        raise KwartetError(f"agent file {str(path)!r}: expected an existing Python file")
    if path.suffix != ".py":
        raise KwartetError(f"agent file {str(path)!r}: expected a Python file ending in .py")
    digest = hashlib.sha256(str(path.resolve()).encode()).hexdigest()[:12]
    name = f"kwartet_student_{digest}"
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise KwartetError(f"agent file {str(path)!r}: cannot be loaded as a Python module")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses and pickling by reference look modules up
    try:
        spec.loader.exec_module(module)
    except SyntaxError as error:
        del sys.modules[name]
        raise KwartetError(
            f"agent file {path.name!r}: syntax error on line {error.lineno}: {error.msg}"
        ) from None
    except Exception as error:  # the student's module-level code failed
        del sys.modules[name]
        raise KwartetError(
            f"agent file {path.name!r}: loading it raised {type(error).__name__}: {error}"
        ) from None
    return module


def _policy_maker(file: Path) -> Callable[[], Policy]:
    """A function that builds the student's policy, checked once (see the module docstring)."""
    module = _load_module(file)
    expected = "a Policy subclass named StudentAgent or a function make_policy() returning a Policy"
    cls = getattr(module, "StudentAgent", None)
    build = getattr(module, "make_policy", None)
    if cls is not None:
        if not (isinstance(cls, type) and issubclass(cls, Policy)):
            raise KwartetError(f"agent file {file.name!r}: StudentAgent is not a Policy subclass")
        maker: Callable[[], object] = cls
    elif callable(build):
        maker = build
    else:
        raise KwartetError(f"agent file {file.name!r}: expected {expected}; it has neither")

    def make() -> Policy:
        try:
            policy = maker()
        except Exception as error:
            raise KwartetError(
                f"agent file {file.name!r}: building the policy raised "
                f"{type(error).__name__}: {error}"
            ) from None
        if not isinstance(policy, Policy):
            raise KwartetError(
                f"agent file {file.name!r}: make_policy() returned {type(policy).__name__}; "
                f"expected a Policy"
            )
        return policy

    make()  # a policy that cannot be built is refused before any game
    return make


def load_policy(path: str | os.PathLike[str]) -> Policy:
    """The Policy that the student's file at ``path`` provides (see the module docstring).

    >>> load_policy("no_such_agent.py")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: agent file 'no_such_agent.py': expected an existing Python file
    """
    return _policy_maker(Path(path))()


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


def grade(
    path: str | os.PathLike[str],
    *,
    against: str | Sequence[str] = "defensive:facts",
    games: int = 400,
    bar: float = 0.25,
    seed: int | None = 1,
    jobs: int = 1,
) -> GradeReport:
    """Play the student's agent in ``path`` against ``against`` over ``games`` seat-rotated
    games and compare the lower end of its win share's 95% interval with ``bar``.

    ``against`` is one spec (three such opponents) or a comma-separated list or sequence
    of specs (one per opponent seat).  The games are seeded (``seed``), so that a grade
    can be reproduced.  See the module docstring for what the file must provide.
    """
    from kwartet_epistemic.tournament import tournament

    if isinstance(bar, bool) or not isinstance(bar, int | float) or not 0 <= bar < 1:
        raise KwartetError(f"bar={bar!r}: expected a win share between 0 and 1")
    if isinstance(games, bool) or not isinstance(games, int) or games < 1:
        raise KwartetError(f"games={games!r}: expected a positive number of games")
    opponents = _opponents(against)
    file = Path(path)
    make = _policy_maker(file)

    def factory(options: Mapping[str, str]) -> Policy:
        if options:
            raise KwartetError(f"the student's agent takes no options; got {', '.join(options)}")
        return make()

    register_policy(STUDENT_SPEC, factory, replace=True)
    seats = [STUDENT_SPEC, *opponents]
    try:
        result = tournament(seats, games, seed=seed, jobs=jobs)
    except Exception as error:
        raise KwartetError(
            f"agent file {file.name!r}: a game failed with {type(error).__name__}: {error}"
        ) from None
    row = result.summary()[0]
    low, high = row.win_interval
    return GradeReport(
        file=file.name,
        opponents=opponents,
        games=len(result.games),
        win_share=row.win_share,
        interval=(low, high),
        bar=float(bar),
        passed=low > bar,
        table=result.table(),
    )
