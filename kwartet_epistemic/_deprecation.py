"""Old spellings kept working with a :class:`DeprecationWarning`.

A deprecated function is the only code besides Jupyter display that may import a higher
floor of the package (from inside its body): the house's import-graph test leaves out
imports inside functions marked with :func:`deprecated`, and module ``__getattr__``
forwarders of names that moved up.

>>> @deprecated("use new_name() instead")
... def old_name() -> int:
...     return 1
>>> import warnings
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     old_name(), str(caught[0].message)
(1, 'old_name() is deprecated: use new_name() instead')
"""

from __future__ import annotations

import functools
import importlib
import warnings
from collections.abc import Callable, Mapping
from typing import Any, TypeVar

_Function = TypeVar("_Function", bound=Callable[..., Any])


def deprecated(advice: str) -> Callable[[_Function], _Function]:
    """Mark a function or method as deprecated: each call warns, naming ``advice``."""

    def mark(function: _Function) -> _Function:
        @functools.wraps(function)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            warnings.warn(
                f"{function.__name__}() is deprecated: {advice}", DeprecationWarning, stacklevel=2
            )
            return function(*args, **kwargs)

        wrapper.__deprecated__ = advice  # type: ignore[attr-defined]
        return wrapper  # type: ignore[return-value]

    return mark


def moved_name(module: str, name: str, moved: Mapping[str, str]) -> Any:
    """For a module's ``__getattr__``: ``name`` from the module it moved to (with a
    :class:`DeprecationWarning`), or AttributeError for a name that never was there."""
    target = moved.get(name)
    if target is None:
        raise AttributeError(f"module {module!r} has no attribute {name!r}")
    warnings.warn(
        f"{module}.{name} is deprecated: import it from {target}", DeprecationWarning, stacklevel=3
    )
    return getattr(importlib.import_module(target), name)
