"""The BDD backends behind the symbolic engine: CUDD (``dd.cudd``) or pure Python.

Both backends of the ``dd`` package share one interface; the few operations where
they differ (the relational product, exact model counting) are wrapped here so that
the knowledge structures have a single code path.

>>> manager = new_manager("autoref")
>>> manager.declare("p", "q")
>>> backend_of(manager)
'autoref'
>>> exact_count(manager, manager.var("p") | manager.var("q"), ["p", "q"])
3
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import sys
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterable, Iterator, Sequence
from typing import Any, Literal, TypeVar, cast

from kwartet_epistemic.errors import KwartetError, ModelError

__all__ = [
    "plain_errors",
    "SMALL_CACHE",
    "BackendName",
    "available_backends",
    "and_exists",
    "and_exists_function",
    "backend_of",
    "exact_count",
    "new_manager",
]

BackendName = Literal["auto", "cudd", "autoref"]

# The computed-table size that knowledge structures start their own CUDD managers with.
SMALL_CACHE = 1 << 12

# Counts up to this many variables are exact in CUDD's double-precision count: every
# intermediate value is an integer times a power of two below 2**53.
_FLOAT_EXACT_VARIABLES = 52


@contextlib.contextmanager
def _dd_without_networkx() -> Iterator[None]:
    """Import ``dd`` without the networkx it loads for its own graph exports.

    ``dd`` imports networkx when it is installed (about 0.1 s, most of what a process's
    first BDD cost) and runs without it.  This library never uses those exports, so while
    ``dd`` is first imported networkx counts as missing; the marker is removed at once, so
    that networkx imports as usual afterwards.  A program that wants dd's networkx
    exports imports networkx before it first uses this module.
    """
    if "dd" in sys.modules or "networkx" in sys.modules:
        yield
        return
    sys.modules["networkx"] = None  # type: ignore[assignment]  # import: ModuleNotFoundError
    try:
        yield
    finally:
        if sys.modules.get("networkx", 0) is None:
            del sys.modules["networkx"]


def _cudd_module() -> Any | None:
    try:
        with _dd_without_networkx():
            return importlib.import_module("dd.cudd")
    except ImportError:  # the wheel without the compiled extension: fall back
        return None


def available_backends() -> tuple[str, ...]:
    """The concrete backends that can be used here, fastest first.

    >>> "autoref" in available_backends()
    True
    """
    return ("cudd", "autoref") if _cudd_module() is not None else ("autoref",)


def new_manager(backend: str = "auto", *, initial_cache_size: int | None = None) -> Any:
    """A fresh BDD manager with automatic variable reordering switched off.

    ``"auto"`` picks CUDD when ``dd.cudd`` can be imported, else ``dd.autoref``.
    Reordering is off because the callers choose a good static order and reordering
    in the middle of a fixpoint costs more than it saves on these problems.

    ``initial_cache_size`` is the number of slots CUDD's computed table starts with
    (``None``: dd's default, 262,144).  CUDD enlarges the table by itself while its hit
    rate is high, so a small start loses little on large problems and saves the 5 to
    20 ms that setting up the default table takes on these machines, which is most of
    the time of a small problem.  The pure-Python backend ignores it.

    >>> new_manager("autoref").configure()["reordering"]
    False
    >>> new_manager(initial_cache_size=SMALL_CACHE).configure()["reordering"]
    False
    """
    if backend not in ("auto", "cudd", "autoref"):
        raise ModelError(f"unknown BDD backend {backend!r}: expected 'auto', 'cudd' or 'autoref'")
    if backend in ("auto", "cudd"):
        cudd = _cudd_module()
        if cudd is not None:
            manager = cudd.BDD() if initial_cache_size is None else _small_cudd(initial_cache_size)
            manager.configure(reordering=False)
            return manager
        if backend == "cudd":
            raise ModelError("backend 'cudd' requested but dd.cudd cannot be imported")
    with _dd_without_networkx():
        autoref = importlib.import_module("dd.autoref")
    manager = autoref.BDD()
    manager.configure(reordering=False)
    return manager


def _small_cudd(initial_cache_size: int) -> Any:
    cudd = importlib.import_module("dd.cudd")
    if isinstance(initial_cache_size, bool) or not isinstance(initial_cache_size, int):
        raise ModelError(f"initial_cache_size {initial_cache_size!r}: expected an integer")
    if initial_cache_size < 1:
        raise ModelError(f"initial_cache_size {initial_cache_size}: expected at least 1")
    return cudd.BDD(cudd.DEFAULT_MEMORY, initial_cache_size)


def backend_of(manager: Any) -> str:
    """The name of the backend of a ``dd`` manager: ``"cudd"`` or ``"autoref"``.

    >>> backend_of(new_manager("autoref"))
    'autoref'
    """
    module = type(manager).__module__
    if module == "dd.cudd":
        return "cudd"
    if module == "dd.autoref":
        return "autoref"
    raise ModelError(
        f"unsupported BDD manager {manager!r}: expected a dd.cudd.BDD or dd.autoref.BDD"
    )


def and_exists(u: Any, v: Any, variables: Collection[str]) -> Any:
    """The relational product ``∃ variables (u ∧ v)`` without building ``u ∧ v`` first.

    >>> manager = new_manager("autoref")
    >>> manager.declare("p", "q")
    >>> and_exists(manager.var("p"), ~manager.var("q"), {"p"}) == ~manager.var("q")
    True
    """
    if not variables:
        return u & v
    manager = u.bdd
    if backend_of(manager) == "cudd":
        cudd = importlib.import_module("dd.cudd")
        return cudd.and_exists(u, v, set(variables))
    autoref = importlib.import_module("dd.autoref")
    # dd.autoref's image is exactly the relational product when nothing is renamed.
    return autoref.image(u, v, {}, set(variables))


def and_exists_function(manager: Any) -> Callable[[Any, Any, Collection[str]], Any]:
    """The relational product of the manager's backend, as one function to call often.

    It is :func:`and_exists` without the per-call dispatch on the backend: for CUDD,
    ``dd.cudd.and_exists`` itself.  An empty collection of variables is a conjunction.

    >>> manager = new_manager("autoref")
    >>> manager.declare("p", "q")
    >>> product = and_exists_function(manager)
    >>> product(manager.var("p"), manager.var("q"), {"p"}) == manager.var("q")
    True
    >>> product(manager.var("p"), manager.var("q"), ()) == manager.var("p") & manager.var("q")
    True
    """
    if backend_of(manager) == "cudd":
        return cast(
            Callable[[Any, Any, Collection[str]], Any],
            importlib.import_module("dd.cudd").and_exists,
        )
    image = importlib.import_module("dd.autoref").image

    def relational_product(u: Any, v: Any, variables: Collection[str]) -> Any:
        # dd.autoref's image is exactly the relational product when nothing is renamed.
        return image(u, v, {}, set(variables)) if variables else u & v

    return relational_product


def exact_count(manager: Any, u: Any, count_variables: Sequence[str]) -> int:
    """The exact number of assignments to ``count_variables`` that satisfy ``u``.

    Variables of ``u`` outside ``count_variables`` are quantified existentially first
    (so the count is that of the projection).  CUDD counts in floating point; above 52
    variables that is not exact, so the count is then done here over the nodes (never
    over the satisfying assignments) with Python integers.

    >>> manager = new_manager("autoref")
    >>> manager.declare("x", "y", "z")
    >>> exact_count(manager, manager.var("x") & manager.var("y"), ["x", "y", "z"])
    2
    """
    count_set = set(count_variables)
    extra = set(manager.support(u)) - count_set
    if extra:
        u = manager.exist(extra, u)
    n_variables = len(count_set)
    if backend_of(manager) == "autoref":
        return int(manager.count(u, nvars=n_variables))
    if n_variables <= _FLOAT_EXACT_VARIABLES:
        return int(manager.count(u, nvars=n_variables))
    return _count_over_nodes(manager, u, count_set)


def _count_over_nodes(manager: Any, u: Any, count_variables: Iterable[str]) -> int:
    """Exact model count of a CUDD function, one visit per node, complement edges included."""
    levels = sorted(manager.level_of_var(name) for name in count_variables)
    total = len(levels)
    true, false = manager.true, manager.false

    def free_from(level: int) -> int:
        """How many count variables sit at ``level`` or below it."""
        return total - bisect_left(levels, level)

    def level_of(edge: Any) -> int:
        return 1 << 62 if edge in (true, false) else int(edge.level)

    def regular(edge: Any) -> Any:
        return ~edge if edge.negated else edge

    def count_edge(edge: Any, memo: dict[int, int]) -> int:
        # Models over the count variables at the edge's level and below.
        if edge == true:
            return 1
        if edge == false:
            return 0
        value = memo[int(regular(edge))]
        return (1 << free_from(level_of(edge))) - value if edge.negated else value

    # Post-order over the regular nodes with an explicit stack: BDDs of a few thousand
    # levels would overflow Python's recursion limit.
    memo: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(u, False)]
    while stack:
        edge, expanded = stack.pop()
        if edge in (true, false):
            continue
        node = regular(edge)
        key = int(node)
        if key in memo:
            continue
        children = (node.low, node.high)
        if not expanded:
            stack.append((node, True))
            stack.extend((child, False) for child in children)
            continue
        level = int(node.level)
        memo[key] = sum(
            count_edge(child, memo) << (free_from(level + 1) - free_from(level_of(child)))
            for child in children
        )
    return count_edge(u, memo) << (total - free_from(level_of(u)))


_Method = TypeVar("_Method", bound=Callable[..., Any])


def plain_errors(method: _Method) -> _Method:
    """Raise our input errors with no traceback into the engine's frames.

    Those frames hold BDD nodes and the manager.  An exception kept alive in a
    reference cycle (a notebook's ``sys.last_value``, pytest's ``raises``) would drag
    them into the cycle collector, which may free the manager before its nodes and make
    ``dd`` complain.  The message already says what was wrong with the input.
    """

    @functools.wraps(method)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        try:
            return method(*args, **kwargs)
        except KwartetError as error:
            failure = error
        del args, kwargs  # this frame stays in the traceback: keep no BDDs in it
        failure.__context__ = failure.__cause__ = None
        try:
            raise failure.with_traceback(None)
        finally:
            del failure  # else error -> traceback -> this frame -> error is a cycle

    return cast(_Method, wrapper)
