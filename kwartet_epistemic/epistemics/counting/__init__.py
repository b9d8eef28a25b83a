"""Exact model counting over families: the counting engine.

- :mod:`.options`: which exact algorithms may run and the memory they may take, one
  value (:class:`CountingOptions`) set for a block (``with counting.options(...)``) or
  passed to a :class:`WorldCounter`;
- :mod:`.family`: one family's polynomial and the clause algebra behind it;
- :mod:`.counter`: :class:`WorldCounter`, which builds the programme over the families
  (:mod:`.programme`) from a history and answers counts, marginals and samples;
- :mod:`.plan`: which exact algorithm runs, within which budget; one module each for
  the algorithms: :mod:`.dense` (the tables, in the kernel or NumPy), :mod:`.sparse`
  (maps of the reachable states), :mod:`.ryser` (Ryser's formula, no tables),
  :mod:`.residues` (beyond 2^127, modulo primes), :mod:`.staged` (merged draws),
  :mod:`.open_families` (the families nobody has asked about, one closing factor);
- :mod:`.numbers`: primes and the Chinese remainder theorem for counts beyond 2^128.

Every cache the engine keeps at module level is emptied by one :func:`clear`.

>>> import kwartet_epistemic as kw
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> with options(kernel=False):
...     slow = kw.knowledge(game).count_worlds()
>>> slow == kw.knowledge(game).count_worlds()
True
>>> sorted(clear())[:2]
['family polynomials', 'family ranges']
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import Any

from kwartet_epistemic.epistemics.counting import counter, family
from kwartet_epistemic.epistemics.counting.counter import (
    WorldCounter,
    exact_probabilities,
    family_probabilities,
)
from kwartet_epistemic.epistemics.counting.family import (
    FamilyPoly,
    factor_terms,
    kernel_available,
    simplify_clauses,
)
from kwartet_epistemic.epistemics.counting.options import (
    CountingOptions,
    current_options,
    limit_from_environment,
    memory_limit,
    options,
    set_process_default,
)

__all__ = [
    "CountingOptions",
    "FamilyPoly",
    "WorldCounter",
    "cache_sizes",
    "clear",
    "current_options",
    "exact_probabilities",
    "factor_terms",
    "family_probabilities",
    "kernel_available",
    "limit_from_environment",
    "memory_limit",
    "options",
    "simplify_clauses",
]


def cache_sizes() -> dict[str, tuple[int, int]]:
    """Every module-level cache of the counting engine: its size now, with its limit.

    >>> all(size <= limit for size, limit in cache_sizes().values())
    True
    """
    return {**family.cache_sizes(), **counter.cache_sizes()}


def clear() -> dict[str, tuple[int, int]]:
    """Empty every module-level cache of the counting engine (a state's own counters are
    the state's); returns each cache's size before, with its limit.

    >>> all(size <= limit for size, limit in clear().values())
    True
    """
    return {**family.clear_caches(), **counter.clear_caches()}


# The module globals that steered counting before the options value; each old name reads
# the options in force, and assigning it changes the process default, with a warning.
_OLD_SWITCHES = {
    "USE_KERNEL": "kernel",
    "USE_FACTORED": "factored",
    "USE_SPARSE": "sparse",
    "USE_STAGED": "staged",
    "USE_RYSER": "ryser",
    "MEMORY_LIMIT": "memory_limit",
}


def _advice(name: str) -> str:
    field = _OLD_SWITCHES[name]
    return (
        f"counting.{name} is deprecated: use `with counting.options({field}=...)` for a "
        f"block, or WorldCounter(..., options=CountingOptions({field}=...))"
    )


def __getattr__(name: str) -> Any:
    if name in _OLD_SWITCHES:
        warnings.warn(_advice(name), DeprecationWarning, stacklevel=2)
        return getattr(current_options(), _OLD_SWITCHES[name])
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _CountingModule(types.ModuleType):
    """The package as a module whose old switches still act when assigned."""

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _OLD_SWITCHES:
            warnings.warn(_advice(name), DeprecationWarning, stacklevel=2)
            set_process_default(**{_OLD_SWITCHES[name]: value})
            return
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _CountingModule
