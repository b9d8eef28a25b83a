"""The student's side of the grader: a process of its own that plays one seat.

The grader (:mod:`~kwartet_epistemic.grading`) starts this module as a separate Python
process (``python -m kwartet_epistemic.sandbox IN OUT``) for a student's agent file, so
that nothing of the referee's game lives where the student's code runs: no
``gc.get_objects()`` or import of the referee finds the deal.  The process gets, for each
decision, what a player at the table gets: its :class:`~kwartet_epistemic.game.PlayerView`
(its hand and the public record), the legal asks, and its own knowledge, which it
builds from those views alone.

The conversation runs over two pipes (file descriptors ``IN`` and ``OUT``, not stdin
and stdout, which the student's prints may use).  Each message is a 4-byte big-endian
length and a payload.  The grader sends pickles (it trusts nothing that comes back, and
this process trusts the grader); this process answers in JSON, which the grader checks
field by field:

* ``("load", source, filename, own_work)``: run the file, find ``StudentAgent`` or
  ``make_policy()``, build the policy once; answer ``{"loaded": name}``;
* ``("game", player, seed)``: a new game in seat ``player``: a fresh policy, fresh
  knowledge, and the random numbers of ``seed``; answer ``{"ready": true}``;
* ``("decide", view)``: answer ``{"ask": [target, card index]}``;
* a failure of the student's code answers ``{"error": kind, "message": text}``, with
  ``kind`` one of :data:`ERROR_KINDS`.

With ``own_work``, the library's registered policies may not be returned, subclassed or
called: their ``decide`` and ``choose`` are wrapped here, before the student's file
runs, so that a call from the student's code is seen.

>>> sorted(ERROR_KINDS)
['crash', 'exited', 'illegal', 'no_agent', 'refused']
"""

from __future__ import annotations

import io
import json
import os
import pickle
import struct
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

from kwartet_epistemic.parallel import end_with

__all__ = ["ERROR_KINDS", "MAX_MESSAGE", "MESSAGE_HEADER", "read_message", "write_message"]

ERROR_KINDS = frozenset({"crash", "exited", "illegal", "no_agent", "refused"})
"""What a student's code can do wrong, as this process reports it."""

MAX_MESSAGE = 1 << 16
"""The longest answer the grader reads (an answer is a few dozen bytes)."""

_HEADER = struct.Struct(">I")
MESSAGE_HEADER = _HEADER.size
"""Bytes of a message's length in front of it (big-endian)."""


def read_message(stream: io.BufferedIOBase | Any, limit: int = 1 << 30) -> bytes | None:
    """One length-prefixed message from ``stream``, or None at its end (or a message
    cut short, or longer than ``limit`` bytes)."""
    header = _read_exactly(stream, _HEADER.size)
    if header is None:
        return None
    (length,) = _HEADER.unpack(header)
    if length > limit:
        return None
    return _read_exactly(stream, length)


def _read_exactly(stream: Any, size: int) -> bytes | None:
    data = b""
    while len(data) < size:
        chunk = stream.read(size - len(data))
        if not chunk:
            return None
        data += chunk
    return data


def write_message(stream: Any, payload: bytes) -> None:
    """Write ``payload`` to ``stream`` with its length in front, and flush it."""
    stream.write(_HEADER.pack(len(payload)) + payload)
    stream.flush()


class _Refused(Exception):
    """The student's code used one of the library's registered policies."""


def _library_policies() -> tuple[dict[type, str], list[tuple[str, Any]]]:
    """The library's registered policy classes (by name) and its registered knowledge
    programs (name, program): what ``own_work`` forbids."""
    from kwartet_epistemic.agents import KnowledgeProgram, make_policy, policy_names
    from kwartet_epistemic.agents.agent import make_player, player_names

    classes: dict[type, str] = {}
    programs: list[tuple[str, Any]] = []
    for name in policy_names():
        policy = make_policy(name, {})
        if isinstance(policy, KnowledgeProgram):
            programs.append((name, policy))
        else:
            classes.setdefault(type(policy), name)
    for name in player_names():
        if name.endswith(":") or name in policy_names():
            continue
        player = make_player(name, "A")
        classes.setdefault(type(player), name)
    return classes, programs


def _guard_library(used: list[str]) -> tuple[dict[type, str], list[tuple[str, Any]]]:
    """Wrap the ``decide`` and ``choose`` of every registered library policy (and of a
    knowledge program equal to a registered one) so that a call is noted in ``used``."""
    from kwartet_epistemic.agents import KnowledgeProgram

    classes, programs = _library_policies()

    def tripwire(method: Callable[..., Any], name: str) -> Callable[..., Any]:
        def guarded(*args: Any, **kwargs: Any) -> Any:
            used.append(name)
            return method(*args, **kwargs)

        return guarded

    for cls, name in classes.items():
        for attribute in ("decide", "choose"):
            method = cls.__dict__.get(attribute)
            if isinstance(method, types.FunctionType):
                setattr(cls, attribute, tripwire(method, name))
    original = KnowledgeProgram.decide

    def program_decide(self: Any, *args: Any, **kwargs: Any) -> Any:
        for name, program in programs:
            if self.rules == program.rules:
                used.append(name)
        return original(self, *args, **kwargs)

    KnowledgeProgram.decide = program_decide  # type: ignore[method-assign]
    return classes, programs


def _refusal(policy: Any, classes: dict[type, str], programs: list[tuple[str, Any]]) -> str | None:
    """Why ``policy`` is the library's own work, or None."""
    for cls in type(policy).__mro__:
        name = classes.get(cls)
        if name is not None:
            verb = "returns" if cls is type(policy) else "subclasses"
            return f"{verb} the library's policy {name!r}"
    for name, program in programs:
        if getattr(policy, "rules", None) == program.rules:
            return f"returns the library's knowledge program {name!r}"
    return None


class _Student:
    """The student's agent in this process."""

    def __init__(self, source: str, filename: str, own_work: bool) -> None:
        from kwartet_epistemic.agents.policies import Policy

        self.used: list[str] = []
        self.classes: dict[type, str] = {}
        self.programs: list[tuple[str, Any]] = []
        if own_work:
            self.classes, self.programs = _guard_library(self.used)
        module = types.ModuleType("student_agent")
        module.__file__ = filename
        sys.modules["student_agent"] = module
        code = compile(source, filename, "exec")
        exec(code, module.__dict__)  # the student's own file: running it is the point
        cls = getattr(module, "StudentAgent", None)
        build = getattr(module, "make_policy", None)
        if cls is not None:
            if not (isinstance(cls, type) and issubclass(cls, Policy)):
                raise _NoAgent("StudentAgent is not a Policy subclass")
            self.maker: Callable[[], Any] = cls
        elif callable(build):
            self.maker = build
        else:
            raise _NoAgent(
                "expected a Policy subclass named StudentAgent or a function make_policy() "
                "returning a Policy; it has neither"
            )
        self.policy = self.build()
        self.name = str(getattr(self.policy, "name", type(self.policy).__name__))

    def build(self) -> Any:
        from kwartet_epistemic.agents.policies import Policy

        policy = self.maker()
        if not isinstance(policy, Policy):
            raise _NoAgent(f"make_policy() returned {type(policy).__name__}; expected a Policy")
        why = _refusal(policy, self.classes, self.programs)
        if why is not None:
            raise _Refused(why)
        self.check_used()
        return policy

    def check_used(self) -> None:
        if self.used:
            raise _Refused(f"calls the library's policy {self.used[0]!r}")


class _NoAgent(Exception):
    """The file provides no agent the grader can use."""


def _student_trace(error: BaseException, filename: str) -> str:
    """The error with the frames of the student's file (the grader's are noise)."""
    frames = [
        f"line {frame.lineno} in {frame.name}: {(frame.line or '').strip()}"
        for frame in traceback.extract_tb(error.__traceback__)
        if frame.filename == filename
    ]
    where = f" ({'; '.join(frames[-3:])})" if frames else ""
    return f"{type(error).__name__}: {error}{where}"[:2000]


def serve(incoming: Any, outgoing: Any) -> int:
    """Answer the grader's messages until it closes the pipe; the exit status."""
    import numpy as np

    from kwartet_epistemic.agents.knowledge import make_knowledge
    from kwartet_epistemic.agents.policies import Situation

    student: _Student | None = None
    filename = "agent.py"
    policy: Any = None
    knowledge: Any = None
    rng: np.random.Generator | None = None

    def answer(payload: dict[str, Any]) -> None:
        write_message(outgoing, json.dumps(payload).encode())

    while True:
        raw = read_message(incoming)
        if raw is None:
            return 0  # the grader is gone (or done): so is this process
        message = pickle.loads(raw)  # from the grader, which started this process
        kind = message[0]
        try:
            if kind == "load":
                _, source, filename, own_work = message
                student = _Student(source, filename, own_work)
                answer({"loaded": student.name})
            elif kind == "game":
                assert student is not None
                _, player, seed = message
                policy = student.build()
                knowledge = make_knowledge("exact", player)
                rng = np.random.default_rng(seed)
                answer({"ready": True})
            elif kind == "decide":
                assert student is not None and rng is not None
                view = message[1]
                asks = view.legal_asks()
                knowledge.update(view)
                ask = policy.decide(Situation(view, knowledge, asks), rng)
                student.check_used()
                card = getattr(getattr(ask, "card", None), "index", None)
                target = getattr(ask, "target", None)
                if ask not in asks:
                    answer(
                        {
                            "error": "illegal",
                            "message": f"decide() returned {ask!r}, not one of the legal asks",
                        }
                    )
                else:
                    answer({"ask": [target, card]})
        except _Refused as refused:
            answer({"error": "refused", "message": str(refused)})
        except _NoAgent as missing:
            answer({"error": "no_agent", "message": str(missing)})
        except SystemExit as stop:
            answer({"error": "exited", "message": f"the agent called sys.exit({stop.code!r})"})
        except BaseException as error:  # the student's code failed: say how, and go on
            answer({"error": "crash", "message": _student_trace(error, filename)})


def main(argv: list[str]) -> int:
    """``python -m kwartet_epistemic.sandbox IN OUT [MEMORY]``: serve the grader on the
    pipes ``IN`` and ``OUT``, within ``MEMORY`` bytes of address space."""
    incoming = os.fdopen(int(argv[0]), "rb", buffering=0)
    outgoing = os.fdopen(int(argv[1]), "wb", buffering=0)
    if len(argv) > 2 and int(argv[2]) > 0:
        try:
            import resource

            limit = int(argv[2])
            resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
        except (ImportError, ValueError, OSError):  # pragma: no cover - platform
            pass
    # a killed grader must leave nothing running, even while the student's code loops
    end_with(os.getppid())
    return serve(incoming, outgoing)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
