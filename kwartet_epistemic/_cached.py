"""A lock-free ``cached_property`` for the hot paths (agents decide thousands of times).

Python 3.11's :func:`functools.cached_property` takes a lock on every first access of
every instance; 3.12 dropped it.  This one behaves as 3.12's: the value is computed on
first access and stored in the instance's ``__dict__``, where later reads find it without
calling the descriptor.  Only for objects that one thread uses at a time.

>>> class Circle:
...     def __init__(self, r): self.r, self.calls = r, 0
...     @cached_property
...     def area(self):
...         self.calls += 1
...         return 3 * self.r * self.r
>>> c = Circle(2)
>>> c.area, c.area, c.calls
(12, 12, 1)
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Generic, TypeVar, overload

__all__ = ["cached_property"]

T = TypeVar("T")


class cached_property(Generic[T]):  # noqa: N801 - named as the functools one it replaces
    """Compute once per instance, then read from the instance's ``__dict__``."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        self.attrname: str | None = None
        self.__doc__ = func.__doc__
        self.__module__ = func.__module__

    def __set_name__(self, owner: type, name: str) -> None:
        self.attrname = name

    @overload
    def __get__(self, instance: None, owner: type | None = None) -> cached_property[T]: ...
    @overload
    def __get__(self, instance: object, owner: type | None = None) -> T: ...
    def __get__(self, instance: object | None, owner: type | None = None) -> Any:
        if instance is None:
            return self
        value = self.func(instance)
        instance.__dict__[self.attrname] = value  # type: ignore[index]
        return value
