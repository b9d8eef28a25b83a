"""Fixtures shared by the tests."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from kwartet_epistemic.epistemics import counting


@pytest.fixture
def counting_options() -> Iterator[Callable[..., counting.CountingOptions]]:
    """``counting_options(ryser=False, ...)`` counts with those options for the rest of
    the test (an ``options`` block, left when the test ends, whatever it raised)."""
    with contextlib.ExitStack() as stack:

        def enter(**changes: Any) -> counting.CountingOptions:
            return stack.enter_context(counting.options(**changes))

        yield enter
