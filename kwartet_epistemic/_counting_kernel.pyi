"""Types of the counting engine's compiled kernel (``_counting_kernel.c``).

Buffers are any C-contiguous objects of 64-bit integers (NumPy int64 arrays, bytes).
The search agent's play-outs are ``agents/_playout_kernel``.
"""

from collections.abc import Iterable, Sequence
from typing import Any

def programme(
    cap: tuple[int, ...],
    polys: Sequence[tuple[Any, Any]],
    wanted: Sequence[tuple[int, Any, Any]],
    wide: bool,
    backward_out: Any | None,
    closing: tuple[int, ...] | None = None,
) -> int: ...
def sparse(
    cap: tuple[int, ...],
    polys: Sequence[tuple[Any, Any]],
    wanted: Sequence[tuple[int, Any, Any]],
    wide: bool,
    budget: int,
    max_states: int,
) -> int | None: ...
def factored(
    cap: tuple[int, ...],
    dim_of: tuple[int, ...],
    families: Sequence[tuple[Any, Any] | tuple[int, Any, Any]],
    wanted: Sequence[tuple[int, Any | None, Any]],
    wide: bool,
    backward_out: Any | None,
    modulus: int = 0,
    closing: tuple[int, ...] | None = None,
) -> int: ...

# ryser: with a negative budget, only its work (known before any of it is done).
def ryser(
    cap: tuple[int, ...],
    families: list[tuple[int, Any]],
    wide: bool,
    budget: int,
    owners: tuple[int, ...] | None = ...,
    out: Any = ...,
    memory: int = ...,
    modulus: int = ...,
) -> int | None: ...
def family_table(
    options: tuple[int, ...],
    clauses: tuple[tuple[int, ...], ...],
    free: int,
    dim_of: Sequence[int],
    n_dims: int,
    n_slots: int,
    with_card_slot: bool = True,
) -> tuple[bytes, bytes, bytes] | None: ...
def recount(
    capacity: list[int],
    allowed: list[int],
    viewer: tuple[int, ...] | None,
    coded: list[list[tuple[int, ...]]],
    clause_sets: list[Any],
    families: Iterable[int],
    location: list[str | None],
    players: tuple[str, ...],
    slot_owner: list[str | None],
    out: Any,
) -> int | None: ...
