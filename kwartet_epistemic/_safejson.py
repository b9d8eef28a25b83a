"""Reading untrusted JSON (game records, themed packs, deck specs) without surprises.

``json.loads`` alone lets several things escape as errors that are not the library's:
deep nesting (``RecursionError``), numbers past Python's int-string limit (a plain
``ValueError``), bytes that are not UTF-8 (``UnicodeDecodeError``), and it silently keeps
the last of two equal keys in one object.  :func:`load_json` turns each into the caller's
:class:`~kwartet_epistemic.errors.KwartetError` naming the input and the limit, and
:func:`check_nesting` bounds the depth and size of data that did not come from text.

>>> load_json('{"a": [1, 2]}', what="pack", error=ValueError)
{'a': [1, 2]}
>>> load_json('{"a": 1, "a": 2}', what="pack", error=ValueError)
Traceback (most recent call last):
...
ValueError: pack: key 'a' appears twice in one object; every key must be unique
>>> load_json("[" * 100 + "]" * 100, what="pack", error=ValueError, max_depth=10)
Traceback (most recent call last):
...
ValueError: pack: nested more than 10 levels deep
"""

from __future__ import annotations

import json
import reprlib
from typing import Any, NoReturn

__all__ = ["MAX_NUMBER_DIGITS", "check_nesting", "load_json", "short"]

# No number the library reads (versions, seeds below 2**256, counts) needs more digits;
# Python itself refuses to convert more than 4300.
MAX_NUMBER_DIGITS = 100

_TOO_MANY_DIGITS = 10**MAX_NUMBER_DIGITS

_REPR = reprlib.Repr()
_REPR.maxlevel = 3
_REPR.maxstring = 60
_REPR.maxother = 60
_REPR.maxlist = _REPR.maxtuple = _REPR.maxdict = _REPR.maxset = 6


def short(value: object) -> str:
    """A ``repr`` cut to a readable length, safe for deeply nested or huge values.

    >>> short("x" * 1000)[:8], len(short("x" * 1000)) < 80
    ("'xxxxxxx", True)
    >>> deep: list = []
    >>> for _ in range(100_000):
    ...     deep = [deep]
    >>> short(deep)
    '[[[[...]]]]'
    >>> short(10**5000)
    '<an integer of about 5001 digits>'
    """
    if isinstance(value, int) and value.bit_length() > 300:  # repr() refuses > 4300 digits
        digits = int(value.bit_length() * 0.30103) + 1
        return f"<an integer of about {digits} digits>"
    try:
        return _REPR.repr(value)
    except Exception:  # a user object whose repr fails: say what it is
        return f"<{type(value).__name__} object>"


class _Refused(Exception):
    """Raised inside the JSON hooks, turned into the caller's error outside them."""


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_NUMBER_DIGITS:
        raise _Refused(
            f"a number of {len(text.lstrip('-'))} digits; numbers have at most "
            f"{MAX_NUMBER_DIGITS} digits"
        )
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise _Refused(
                f"key {short(key)} appears twice in one object; every key must be unique"
            )
        result[key] = value
    return result


def load_json(
    text: str | bytes | bytearray,
    *,
    what: str,
    error: type[Exception],
    max_depth: int = 64,
    max_bytes: int | None = None,
) -> Any:
    """Parse JSON text; anything wrong raises ``error`` with a message starting ``what:``.

    ``max_bytes`` bounds the length of the text (in characters for ``str``), checked
    before parsing; ``max_depth`` bounds the nesting of arrays and objects.
    """

    def fail(reason: str, cause: BaseException | None = None) -> NoReturn:
        raise error(f"{what}: {reason}") from cause

    if not isinstance(text, str | bytes | bytearray):
        fail(f"expected JSON text, got {type(text).__name__}")
    if max_bytes is not None and len(text) > max_bytes:
        fail(f"{len(text):,} bytes of JSON; at most {max_bytes:,} are read")
    try:
        data = json.loads(text, parse_int=_parse_int, object_pairs_hook=_unique_keys)
    except _Refused as err:
        fail(str(err))
    except RecursionError as err:
        fail(f"not valid JSON here: nested more than {max_depth} levels deep", err)
    except UnicodeDecodeError as err:
        fail(f"not valid JSON (not UTF-8 text): {err}", err)
    except ValueError as err:  # JSONDecodeError is one
        fail(f"not valid JSON: {err}", err)
    check_nesting(data, what=what, error=error, max_depth=max_depth)
    return data


def check_nesting(
    data: Any,
    *,
    what: str,
    error: type[Exception],
    max_depth: int = 64,
    max_items: int = 10_000_000,
) -> None:
    """Refuse data (lists, tuples, dicts) nested deeper than ``max_depth``, holding more
    than ``max_items`` values or an integer of more than 100 digits, without recursion (so
    without ``RecursionError``, nor the ``ValueError`` of printing a 5,000-digit number).

    >>> check_nesting({"a": [[1]]}, what="record", error=ValueError, max_depth=2)
    Traceback (most recent call last):
    ...
    ValueError: record: nested more than 2 levels deep
    """
    stack: list[tuple[Any, int]] = [(data, 0)]
    seen = 0
    while stack:
        value, depth = stack.pop()
        seen += 1
        if seen > max_items:
            raise error(f"{what}: more than {max_items:,} values")
        if isinstance(value, dict):
            children: Any = value.values()
        elif isinstance(value, list | tuple):
            children = value
        else:
            if isinstance(value, int) and not -_TOO_MANY_DIGITS < value < _TOO_MANY_DIGITS:
                raise error(
                    f"{what}: {short(value)}: numbers have at most {MAX_NUMBER_DIGITS} digits"
                )
            continue
        if depth >= max_depth and len(children):
            raise error(f"{what}: nested more than {max_depth} levels deep")
        stack.extend((child, depth + 1) for child in children)
