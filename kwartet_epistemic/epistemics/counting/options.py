"""How the counting engine counts: one options value, set for a block or passed in.

Every answer is the same under every option; they choose which exact algorithm runs
(and so how fast), and how much memory the tables may take.  The default is read from
the environment once, at import: ``KWARTET_NO_KERNEL=1`` turns the compiled kernel off,
``KWARTET_MEMORY_LIMIT`` (bytes) caps the tables.  A block changes them for the code it
runs (``with counting.options(ryser=True): ...``; blocks nest and hold per thread and
per task), and a :class:`~kwartet_epistemic.epistemics.counting.WorldCounter` may be
given its own (``options=``).

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics import counting
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> with counting.options(kernel=False, sparse=False):
...     counting.current_options().kernel, kw.knowledge(game).count_worlds()
(False, 34032)
>>> counting.current_options() == counting.CountingOptions.from_environment()
True
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Mapping
from contextvars import ContextVar
from dataclasses import dataclass
from typing import Any

from kwartet_epistemic._safejson import short
from kwartet_epistemic.errors import KwartetError

__all__ = [
    "CountingOptions",
    "current_options",
    "limit_from_environment",
    "memory_in_force",
    "memory_limit",
    "options",
    "readable_bytes",
]


def limit_from_environment(name: str, environ: Mapping[str, str] | None = None) -> int | None:
    """The environment's ``name`` (bytes) if it is a whole number above 0, else None.

    >>> limit_from_environment("LIMIT", {"LIMIT": "4096"}), limit_from_environment("LIMIT", {})
    (4096, None)
    """
    text = (os.environ if environ is None else environ).get(name, "").strip()
    if text.isdigit() and len(text) < 20 and int(text) > 0:
        return int(text)
    return None


_CHOICES = ("factored", "sparse", "staged", "ryser", "merge_open")


@dataclass(frozen=True)
class CountingOptions:
    """Which exact algorithms the counting engine may use, and its memory limit.

    - ``kernel``: use the compiled kernel where it is installed (False: the NumPy path,
      the same programme; the tests compare the two);
    - ``factored``: multiply a family by its factored form (a signed sum of products of
      one linear form per card, see
      :func:`~kwartet_epistemic.epistemics.counting.factor_terms`): None picks per family
      the cheaper of that and its use-vector table, True takes it wherever it exists,
      False never;
    - ``sparse``: keep the programme's tables as maps of their reachable entries: None
      tries it on large tables within a budget of the dense tables' work, True on every
      table without one, False never (after many draws, a player's view reaches a few
      percent of the entries: tens of times faster);
    - ``staged``: count (no marginals) over merged capacity-1 dimensions, draws that no
      family still to be multiplied tells apart (a lone holder drawing a 31-card stock
      costs milliseconds where the dense tables need 2^33 entries): None within a
      budget, True always, False never;
    - ``ryser``: counts and location counts by Ryser's formula (inclusion-exclusion over
      the slots' places, no tables): None where its work, known up front, is below the
      dense tables', True wherever it applies (no budget), False never;
    - ``merge_open``: multiply the families nobody has asked about as one closing factor
      (a multinomial, one pass over a table instead of one per family and use vector,
      see :mod:`~kwartet_epistemic.epistemics.counting.open_families`): None on tables
      large enough for it to pay, True wherever there are some, False never;
    - ``memory_limit``: the most bytes the tables may take (None: nine tenths of the
      memory available at the moment of the count); above it a count raises
      :class:`~kwartet_epistemic.errors.ModelTooLargeError` before allocating anything.

    >>> CountingOptions(ryser=True).replace(memory_limit=1 << 30).memory_limit
    1073741824
    >>> CountingOptions(sparse="yes")
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: counting option sparse='yes': expected True, False or None
    """

    kernel: bool = True
    factored: bool | None = None
    sparse: bool | None = None
    staged: bool | None = None
    ryser: bool | None = None
    merge_open: bool | None = None
    memory_limit: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.kernel, bool):
            raise KwartetError(
                f"counting option kernel={short(self.kernel)}: expected True or False"
            )
        for name in _CHOICES:
            value = getattr(self, name)
            if value is not None and not isinstance(value, bool):
                raise KwartetError(
                    f"counting option {name}={short(value)}: expected True, False or None"
                )
        limit = self.memory_limit
        if limit is not None and (
            isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0
        ):
            raise KwartetError(
                f"counting option memory_limit={short(limit)}: expected a whole number of "
                "bytes above 0, or None"
            )

    def replace(self, **changes: Any) -> CountingOptions:
        """These options with ``changes`` (checked as the constructor checks them)."""
        unknown = sorted(set(changes) - {f.name for f in dataclasses.fields(self)})
        if unknown:
            raise KwartetError(
                f"counting option {unknown[0]!r}: expected one of "
                + ", ".join(f.name for f in dataclasses.fields(self))
            )
        return dataclasses.replace(self, **changes)

    @classmethod
    def from_environment(cls, environ: Mapping[str, str] | None = None) -> CountingOptions:
        """The defaults as the environment sets them: ``KWARTET_NO_KERNEL=1`` (or any
        value but ``0``) turns the kernel off, ``KWARTET_MEMORY_LIMIT`` gives bytes.

        >>> CountingOptions.from_environment({"KWARTET_NO_KERNEL": "1"}).kernel
        False
        """
        env = os.environ if environ is None else environ
        return cls(
            kernel=env.get("KWARTET_NO_KERNEL", "") in ("", "0"),
            memory_limit=limit_from_environment("KWARTET_MEMORY_LIMIT", env),
        )


# The process default, read from the environment once; only the deprecated module
# attributes (counting.USE_KERNEL = ... and the like) change it.
_DEFAULT = [CountingOptions.from_environment()]
_IN_FORCE: ContextVar[CountingOptions | None] = ContextVar("kwartet_counting", default=None)
_DERIVED: dict[tuple[CountingOptions, tuple[tuple[str, Any], ...]], CountingOptions] = {}


def current_options() -> CountingOptions:
    """The options in force here (the innermost :func:`options` block's, else the
    defaults the environment set)."""
    found = _IN_FORCE.get()
    return _DEFAULT[0] if found is None else found


def set_process_default(**changes: Any) -> None:
    """Change the defaults for the whole process: only for the deprecated spellings
    (``counting.USE_RYSER = True``); use an :func:`options` block instead."""
    _DEFAULT[0] = _DEFAULT[0].replace(**changes)


_last_derived: tuple[Any, Any, Any] = (None, None, None)


def _derived(outer: CountingOptions, changes: dict[str, Any]) -> CountingOptions:
    """``outer`` with ``changes``, a memory limit never above the outer one (kept: an
    agent enters a block, with its memory limit, at every decision)."""
    global _last_derived
    last = _last_derived  # one read: another thread may replace it
    if last[0] is outer and last[1] == changes:
        return last[2]  # an agent's block again: no hashing of the options
    key = (outer, tuple(sorted(changes.items())))
    chosen = _DERIVED.get(key)
    if chosen is None:
        chosen = outer.replace(**changes)
        if outer.memory_limit is not None and chosen.memory_limit is not None:
            chosen = chosen.replace(memory_limit=min(outer.memory_limit, chosen.memory_limit))
        elif chosen.memory_limit is None:
            chosen = chosen.replace(memory_limit=outer.memory_limit)
        if len(_DERIVED) >= 256:
            _DERIVED.clear()
        _DERIVED[key] = chosen
    _last_derived = (outer, changes, chosen)
    return chosen


class _Block:
    """A block of changed options (a plain context manager: entered at every decision)."""

    __slots__ = ("_changes", "_token")

    def __init__(self, changes: dict[str, Any]) -> None:
        self._changes = changes
        self._token: Any = None

    def __enter__(self) -> CountingOptions:
        chosen = _derived(current_options(), self._changes)
        self._token = _IN_FORCE.set(chosen)
        return chosen

    def __exit__(self, *exc: object) -> None:
        _IN_FORCE.reset(self._token)


def options(**changes: Any) -> contextlib.AbstractContextManager[CountingOptions]:
    """Within the block, count with these options changed (the rest as they were).

    A memory limit never rises above an outer block's; bad options raise
    :class:`~kwartet_epistemic.errors.KwartetError` when the block starts, and leave the
    options in force as they were.

    >>> with options(ryser=False) as inner:
    ...     with options(memory_limit=1 << 20):
    ...         current_options().ryser, current_options().memory_limit
    (False, 1048576)
    >>> with options(spares=True):
    ...     pass
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.KwartetError: counting option 'spares': expected one of kernel, factored, sparse, staged, ryser, merge_open, memory_limit
    """
    return _Block(changes)


def memory_limit(limit: int) -> contextlib.AbstractContextManager[CountingOptions]:
    """Within the block, the counting programme's tables may take at most ``limit``
    bytes (or an outer limit, if that is lower): above, a count or marginal raises
    :class:`~kwartet_epistemic.errors.ModelTooLargeError` before anything is allocated.
    Unlike the default limit (the memory free at that moment), a fixed one refuses the
    same positions on every machine that has that much memory free: agents decide
    under one (:data:`~kwartet_epistemic.agents.agent.AGENT_MEMORY_LIMIT`), so that their
    games repeat.  The same as ``options(memory_limit=limit)``.

    >>> import kwartet_epistemic as kw
    >>> game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    >>> _ = game.ask("A", "7S")   # B asks A for the seven of spades and gets it
    >>> with memory_limit(100):
    ...     kw.knowledge(game).count_worlds()
    Traceback (most recent call last):
    ...
    kwartet_epistemic.errors.ModelTooLargeError: exact counting here needs tables of 648 entries (3 dimensions, 0 of them of capacity 1: unseen draws), about 131.6 KiB, above the limit of 100 bytes (counting.options(memory_limit=...), KWARTET_MEMORY_LIMIT in bytes; by default what memory is free)
    >>> with memory_limit(1 << 30):
    ...     kw.knowledge(game).count_worlds()
    14014945813898880
    """
    if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
        raise KwartetError(f"memory limit {limit!r}: expected a whole number of bytes above 0")
    return _Block({"memory_limit": limit})


def readable_bytes(size: int) -> str:
    """A number of bytes for a message.

    >>> readable_bytes(3 << 20), readable_bytes(512)
    ('3.0 MiB', '512 bytes')
    """
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if size >= 1 << shift:
            return f"{size / (1 << shift):,.1f} {unit}"
    return f"{size:,} bytes"


def memory_in_force(chosen: CountingOptions | None = None) -> int:
    """The bytes the tables may take now: the options' limit, else nine tenths of the
    memory available at this moment (``MemAvailable``; half the machine's memory where
    that cannot be read)."""
    limit = (chosen or current_options()).memory_limit
    if limit is not None:
        return limit
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024 * 9 // 10
    except (OSError, ValueError, IndexError):  # pragma: no cover - platform
        pass
    try:  # pragma: no cover - platform
        return os.sysconf("SC_PHYS_PAGES") * os.sysconf("SC_PAGE_SIZE") // 2
    except (ValueError, OSError, AttributeError):  # pragma: no cover - platform
        return 8 << 30
