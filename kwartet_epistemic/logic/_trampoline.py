"""Recursive evaluators without Python's recursion limit.

A recursive function over formulas is written as a generator: where it would call
itself it yields the generator of that call, and receives the call's value (or its
exception) back from the yield.  :func:`run` drives the generators from an explicit
stack, so nesting depth costs heap, not Python stack, and short-circuits and
``try``/``except`` keep their meaning.

>>> from kwartet_epistemic.logic import parse
>>> def depth(f):
...     deepest = 0
...     for child in f.args:
...         deepest = max(deepest, (yield depth(child)))
...     return deepest + 1
>>> run(depth(parse("~" * 100_000 + "p")))
100001
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, TypeVar

__all__ = ["Step", "run"]

_T = TypeVar("_T")

Step = Generator[Any, Any, _T]
"""A generator that yields the sub-computations it needs and returns its value."""


def run(call: Step[_T]) -> _T:
    """The value of ``call``, driving it and every sub-computation it yields."""
    stack: list[Step[Any]] = [call]
    value: Any = None
    error: BaseException | None = None
    while True:
        top = stack[-1]
        try:
            if error is None:
                request = top.send(value)
            else:
                failure, error = error, None
                request = top.throw(failure)
        except StopIteration as stop:
            stack.pop()
            if not stack:
                return stop.value
            value = stop.value
            continue
        except BaseException as failure:
            stack.pop()
            if not stack:
                raise
            error = failure
            continue
        stack.append(request)
        value = None
