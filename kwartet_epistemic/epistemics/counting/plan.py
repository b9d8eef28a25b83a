"""Which exact algorithm counts a programme, within which budget.

Every algorithm gives the same exact answers; they differ in time and memory, and each
pays on other positions.  The planner weighs them by the work each would take, known or
bounded before it starts, against the dense tables' (:meth:`Programme.dense_work`), by
the options in force (:class:`~kwartet_epistemic.epistemics.counting.CountingOptions`:
``None`` lets the planner choose, ``True`` forces an algorithm where it applies,
``False`` turns it off):

* a count alone, with many unseen draws, comes without tables where that is faster: by
  Ryser's formula (:mod:`.ryser`) or by merged draws (:mod:`.staged`);
* otherwise the programme runs in the compiled kernel, on maps of the reachable states
  where few are reachable (:mod:`.sparse`), else on the dense tables (:mod:`.dense`),
  with the families nobody has asked about merged into one closing factor
  (:mod:`.open_families`) and the families' factored forms after many draws; beyond
  2^127 modulo primes
  (:mod:`.residues`); without the kernel in NumPy;
* dense tables that would not fit in the memory limit are refused before they are
  allocated (:class:`~kwartet_epistemic.errors.ModelTooLargeError`, saying what the
  limit is and how to change it).

Why each budget and threshold below has the value it has (the measurements behind them)
is in ``paper/measurements/counting_tuning.md``.

>>> import kwartet_epistemic as kw
>>> from kwartet_epistemic.epistemics.counting import WorldCounter, current_options
>>> from kwartet_epistemic.epistemics.history import PublicHistory
>>> game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=1)
>>> history = PublicHistory(game.deck, game.players, game.rules)
>>> history.extend(game.record)
>>> counter = WorldCounter(history)
>>> run(counter.programme, current_options(), [], False, None).count == counter.count
True
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np

from kwartet_epistemic.epistemics.counting.dense import (
    FactoredPlan,
    copy_marginals,
    gather_marginals,
    kernel_count,
    kernel_requests,
    numpy_count,
)
from kwartet_epistemic.epistemics.counting.family import (
    MAX_KERNEL_DIMS,
    FamilyPoly,
    kernel_available,
)
from kwartet_epistemic.epistemics.counting.numbers import primes_beyond
from kwartet_epistemic.epistemics.counting.open_families import merge_open
from kwartet_epistemic.epistemics.counting.options import (
    CountingOptions,
    memory_in_force,
    readable_bytes,
)
from kwartet_epistemic.epistemics.counting.programme import Programme, Width
from kwartet_epistemic.epistemics.counting.residues import residue_count
from kwartet_epistemic.epistemics.counting.ryser import RyserSums
from kwartet_epistemic.epistemics.counting.sparse import sparse_count
from kwartet_epistemic.epistemics.counting.staged import staged_count
from kwartet_epistemic.errors import ModelTooLargeError

__all__ = ["Run", "check_memory", "factored_plan", "ryser_locations", "ryser_work", "run"]

# The budgets of each algorithm against the dense tables' work (entries times passes).
_RYSER_SHARE = 2  # Ryser's formula when its work is below the dense tables' over this
_RYSER_VIEW_SHARE = 2  # a player's view: the sparse maps may be faster, a smaller budget
_RYSER_MARGINAL_SHARE = 15  # its location sums against the dense marginals' work
_RYSER_UNFIT_WORK = 1 << 31  # its work where the dense tables would not fit: about a second
_RYSER_FIRST_WORK = 1 << 23  # the formula before the merged draws below this work
_STAGED_MIN_SIZE = 1 << 12  # smaller tables: the compiled programme is as fast
_STAGED_MAX_STATES = 1 << 20  # entries of one merged table (a few hundred MB at most)
_STAGED_SHARE = 1000  # the merged draws' budget: this share of the dense work
_STAGED_LOOSE = 100  # its bound before any work may exceed the budget this many times
_STAGED_MAX_WORK = 1 << 26  # and no more than this many products of entries
_STAGED_UNIT = 300  # the formula's steps a product of merged entries costs, per dimension
_SPARSE_MIN_SIZE = 1 << 12  # smaller tables: the dense products are as fast
_SPARSE_SHARE = 10  # its budget: this share of the dense work (see _sparse_budget)
_SPARSE_PUBLIC_SHARE = 100  # the same for the public worlds after draws (they reach most)
_SPARSE_OPEN_SHARE = 100  # the same without draws: open families fill the box early
_SPARSE_UNFIT_WORK = 1 << 27  # its budget where the dense tables would not fit: 1-2 s
_SPARSE_PASSES = 80  # a family's passes over the dense tables at most, without draws
_SPARSE_DENSITY = 2  # a map holds at most this share of the dense table's entries
_FACTOR_MIN_SIZE = 512  # smaller tables: the use-vector products are as fast
_UNWEIGHED_NEED = 16 << 20  # smaller dense tables: not weighed against the memory free
_MERGE_MIN_SIZE = 4096  # smaller tables: merging the open families saves less than it costs
_MERGE_SHARE = 3  # and the merged families hold at least this share of the use vectors


class Run:
    """What a run of the programme gives: the ``count``, the ``backward`` tables where
    they were asked for, and whether it came without tables (``tableless``: merged draws
    or Ryser's formula, whose marginals the tables may not be able to give)."""

    __slots__ = ("backward", "count", "tableless")

    def __init__(
        self, count: int, backward: list[np.ndarray] | None = None, tableless: bool = False
    ) -> None:
        self.count = count
        self.backward = backward
        self.tableless = tableless


def _in_kernel(programme: Programme, options: CountingOptions, width: Width) -> bool:
    return (
        options.kernel
        and kernel_available()
        and width != "big"
        and len(programme.cap) <= MAX_KERNEL_DIMS
    )


def _memory_need(
    programme: Programme, options: CountingOptions, n_wanted: int, width: Width, backward: bool
) -> int:
    in_kernel = _in_kernel(programme, options, width)
    return programme.memory_need(n_wanted, width, backward, in_kernel=in_kernel)


def run(
    programme: Programme,
    options: CountingOptions,
    wanted: list[int],
    keep_backward: bool,
    origins: np.ndarray | None,
) -> Run:
    """Run the programme: the count, and for the tables at positions ``wanted`` their
    cards' origin counts written into ``origins`` (``[n_cards, n_slots]``, Python
    integers unless the programme is narrow); with ``keep_backward`` the backward tables
    too (for sampling and enumeration)."""
    width = programme.width
    if keep_backward and width != "narrow":
        width = "big"  # sampling reads Python integers from the tables
    if not wanted and not keep_backward:
        count = _count_without_tables(programme, options)
        if count is not None:
            return Run(count, tableless=True)
    if _in_kernel(programme, options, width):
        return _run_in_kernel(programme, options, wanted, width, keep_backward, origins)
    need = _memory_need(programme, options, len(wanted), width, keep_backward)
    check_memory(
        programme, options, need, memory_in_force(options), not wanted and not keep_backward
    )
    if (
        width == "big"
        and not keep_backward
        and options.kernel
        and kernel_available()
        and options.factored is not False
        and (options.factored or programme.many_draws())
        and len(programme.cap) <= MAX_KERNEL_DIMS
        and programme.n_slots <= 62
    ):
        count = residue_count(programme, wanted, origins)
        if count is not None:
            return Run(count)
    count, backward = numpy_count(programme, wanted, width, keep_backward, origins)
    return Run(count, backward)


def _count_without_tables(programme: Programme, options: CountingOptions) -> int | None:
    """The count without tables, where that is faster than the tables: by merged draws
    or by Ryser's formula.  Ryser's work is known before it starts; where it is small
    (at most :data:`_RYSER_FIRST_WORK`), the formula goes first.  Otherwise the merged
    draws go first, within a small share of the time the formula would take (their own
    work is known only as they go), and the formula after them if they give up.  None
    where neither answers within its budget."""
    work = ryser_work(programme, options)
    if work is None or work > _RYSER_FIRST_WORK:
        count = _staged(programme, options, work)
        if count is not None:
            return count
    share = _RYSER_SHARE if not programme.viewed else _RYSER_SHARE / _RYSER_VIEW_SHARE
    call = _ryser(programme, options, share)
    return None if call is None else call[0]


def _staged(programme: Programme, options: CountingOptions, ryser: int | None) -> int | None:
    """The count over merged capacity-1 dimensions, or None where it is not tried or runs
    out of its budget: a thousandth of the dense tables' work (an entry of its maps
    costs a few hundred times an entry of a dense pass), at most
    :data:`_STAGED_MAX_WORK` products of entries, and where ``ryser`` (the work of
    Ryser's formula) is given, about a fifteenth of the formula's time
    (:data:`_STAGED_UNIT` steps of the formula a product of entries and dimension of the
    maps' entries).  It is not tried where a bound on that work, known before it starts,
    exceeds the tables' share :data:`_STAGED_LOOSE` times (the bound is loose: it assumes
    every use of every part it cannot rule out; against the formula's share it would
    turn away a lone holder's draws, whose merged count takes a few hundred products
    where the bound says millions)."""
    if options.staged is False:
        return None
    size = programme.size
    if options.staged is None and (size < _STAGED_MIN_SIZE or programme.draws < 2):
        return None
    work = bound = 1 << 62
    if options.staged is None:
        passes = sum(min(len(t.weights), _SPARSE_PASSES) for t in programme.tables)
        work = min(size * passes // _STAGED_SHARE, _STAGED_MAX_WORK)
        bound = work * _STAGED_LOOSE  # the loose bound against the tables' share only
        if ryser is not None:
            work = min(work, ryser // (_STAGED_UNIT * len(programme.cap)))
    tables, dims, cap = programme.tables, programme.dims, programme.cap
    return staged_count(tables, dims, cap, _STAGED_MAX_STATES, work, bound)


def _ryser_inputs(programme: Programme, options: CountingOptions) -> RyserSums | None:
    """Ryser's formula's inputs where it is tried (see the options' ``ryser``: by
    default after many draws) and applies."""
    if (
        options.ryser is False
        or not options.kernel
        or (options.ryser is None and not programme.many_draws())
    ):
        return None
    return RyserSums.of(programme)


def ryser_work(programme: Programme, options: CountingOptions) -> int | None:
    """The work of the count by Ryser's formula, all its runs together, or None where the
    formula is not tried, does not apply, or its tables would not fit in the memory
    limit in force."""
    inputs = _ryser_inputs(programme, options)
    return None if inputs is None else inputs.work(memory_in_force(options))


def _ryser(
    programme: Programme,
    options: CountingOptions,
    share: float,
    owners: Sequence[int] = (),
    fixed: Mapping[int, int] | None = None,
    n_cards: int = 0,
) -> tuple[int, np.ndarray | list[int] | None] | None:
    """The count by Ryser's formula (with ``owners``, the location table too, see
    :meth:`RyserSums.location_table`), or None where it does not apply or its work would
    exceed ``share`` of the dense tables' (with the options' ``ryser`` True: no budget;
    where the dense tables would not fit: :data:`_RYSER_UNFIT_WORK`)."""
    inputs = _ryser_inputs(programme, options)
    if inputs is None:
        return None
    runs = len(inputs.moduli)
    # Its own tables are small, but within the memory limit too.
    limit = memory_in_force(options)
    width = programme.width
    if options.ryser:
        budget = 1 << 62
    elif _memory_need(programme, options, 0, width, False) > limit:
        # No dense tables to weigh it against: a fixed budget (about a second).
        budget = _RYSER_UNFIT_WORK // runs
    else:
        # The dense tables beyond 2^127 take one pass of residues a prime.
        dense_runs = len(primes_beyond(programme.bound)) if width == "big" else 1
        budget = int(programme.dense_work() * share * dense_runs) // runs
    if not owners:
        return inputs.count(budget, memory_limit=limit)
    assert fixed is not None
    return inputs.location_table(programme, budget, owners, fixed, n_cards, limit)


def ryser_locations(
    programme: Programme,
    options: CountingOptions,
    owners: Sequence[int],
    fixed: Mapping[int, int],
    n_cards: int,
) -> tuple[int, np.ndarray] | None:
    """The programme's count and ``[n_cards, n_players]`` location counts by Ryser's
    formula (``owners``: each slot's player, or -1; ``fixed``: card -> slot), or None
    where it does not apply or would take longer than the dense marginals
    (``_RYSER_MARGINAL_SHARE``)."""
    call = _ryser(programme, options, _RYSER_MARGINAL_SHARE, owners, fixed, n_cards)
    if call is None:
        return None
    count, table = call
    assert isinstance(table, np.ndarray)
    return count, table


def check_memory(
    programme: Programme, options: CountingOptions, need: int, limit: int, count_only: bool
) -> None:
    """Refuse (:class:`ModelTooLargeError`) a programme whose tables would take ``need``
    bytes, more than ``limit``, before they are allocated.  For a count alone
    (``count_only``), the message also says what Ryser's formula would take, where it
    applies: it was over its budget."""
    if need <= limit:
        return
    formula = ""
    work = ryser_work(programme, options) if count_only and options.ryser is None else None
    if work is not None:
        formula = (
            f"; Ryser's formula, without tables, would take {work:,} steps, above "
            f"its budget of {_RYSER_UNFIT_WORK:,} where the tables do not fit "
            f"(counting.options(ryser=True) takes it without a budget)"
        )
    raise ModelTooLargeError(
        f"exact counting here needs tables of {programme.size:,} entries "
        f"({len(programme.cap)} dimensions, {programme.draws} of them of capacity 1: unseen "
        f"draws), about {readable_bytes(need)}, above the limit of {readable_bytes(limit)} "
        f"(counting.options(memory_limit=...), KWARTET_MEMORY_LIMIT in bytes; "
        f"by default what memory is free){formula}"
    )


def _run_in_kernel(
    programme: Programme,
    options: CountingOptions,
    wanted: list[int],
    width: Width,
    keep_backward: bool,
    origins: np.ndarray | None,
) -> Run:
    """The programme in the kernel: on maps of the reachable states where they pay
    (they keep within the memory limit themselves), else on the dense tables, refused
    (:func:`check_memory`) before they are allocated."""
    wide = width == "wide"
    need = _memory_need(programme, options, len(wanted), width, keep_backward)
    copies: list[tuple[FamilyPoly, FamilyPoly]] = []
    if keep_backward:
        tables = programme.tables
    else:
        tables, wanted, copies = programme.kernel_order(wanted)
    if (
        options.memory_limit is None
        and need <= _UNWEIGHED_NEED
        and programme.size < _SPARSE_MIN_SIZE
    ):
        # What memory is free costs a file read, a tenth of a small count: tables of a
        # few MiB are not weighed against it (a limit that is set always is).
        limit = _UNWEIGHED_NEED
    else:
        limit = memory_in_force(options)  # read once (by default it reads /proc/meminfo)
    merge = None
    if not keep_backward and (
        options.merge_open or (options.merge_open is None and programme.size >= _MERGE_MIN_SIZE)
    ):
        merge = merge_open(tables, wanted, programme.dim_key, programme.size, limit // 4)
        # The closing factor makes the backward tables dense from their first: it pays
        # where the merged families hold a good share of the use vectors.
        total = sum(len(t.weights) for t in tables)
        if (
            merge is not None
            and options.merge_open is None
            and merge.merged_terms * _MERGE_SHARE < total
        ):
            merge = None
    count: int | None = None
    backward = None
    # Without draws the open families fill the maps' box: merged, the dense tables win
    # (unless the options ask for the maps).
    if not keep_backward and (options.sparse or merge is None or programme.draws > 0):
        asked = kernel_requests(tables, wanted, wide, origins)
        budget = _sparse_budget(programme, options, tables, bool(wanted), need <= limit, limit)
        if budget is not None:
            count = sparse_count(programme, asked.requests, wide, *budget, tables=tables)
    if count is None:
        count_only = not wanted and not keep_backward
        check_memory(programme, options, need, limit, count_only)
        closing = None
        if merge is not None:
            tables, wanted, closing = merge.tables, merge.wanted, merge.closing
        asked = kernel_requests(tables, wanted, wide, origins)
        plan = factored_plan(programme, options, tables)
        count, backward = kernel_count(
            programme, tables, asked.requests, wide, keep_backward, plan, closing
        )
    else:
        merge = None  # the maps counted every family
    gather_marginals(asked, tables, wanted, [], origins, programme.n_slots)
    if origins is not None:
        if merge is not None:
            merge.fill(origins, count)
        copy_marginals(copies, origins)
    return Run(count, backward)


def _sparse_budget(
    programme: Programme,
    options: CountingOptions,
    tables: list[FamilyPoly],
    marginals: bool,
    fits: bool,
    limit: int,
) -> tuple[int, int] | None:
    """The sparse programme's ``(budget, max_states)``, or None where it is not tried.
    Where the dense tables do not fit in memory (not ``fits``: the count is refused if
    the maps give up), the maps get :data:`_SPARSE_UNFIT_WORK` of work and as many
    states as the memory ``limit`` (bytes) allows, so that a refusal comes within a
    second or two.

    The budget is a tenth of the dense tables' work: their size times, per family, its
    passes (the fewer of its use vectors and, with draws, its factored form's passes;
    without draws at most :data:`_SPARSE_PASSES`), twice that for marginals.  Where it
    runs out, the dense tables lose at most about a fifth of their time.  The public
    worlds after two draws or more (:data:`_SPARSE_PUBLIC_SHARE`) reach most of their
    box, nobody's hand being known (random fish games: a third of the states, and the
    maps never finished within the budget): there it is a hundredth, which spares them
    most of that loss and still lets small reachable sets through.  Without draws it is
    a hundredth too (:data:`_SPARSE_OPEN_SHARE`): there the families nobody has asked
    about yet can go to any hand, and the maps soon hold the whole box (52 cards among 6
    players: every attempt gave up, and doubled the time).  A map holds at most
    half the dense table's entries (a state takes about four times an entry's memory,
    and a few maps live at a time where the dense programme keeps ten tables or more):
    the maps take about as much memory as the dense tables at most."""
    size = programme.size
    if options.sparse is False or (options.sparse is None and size < _SPARSE_MIN_SIZE):
        return None
    budget, max_states = 1 << 62, size
    if options.sparse is None:
        draws = programme.many_draws()
        passes = 0
        for table in tables:
            form = table.factored if draws else None
            passes += min(len(table.weights), form[2] if form else _SPARSE_PASSES)
        if draws and not programme.viewed:
            share = _SPARSE_PUBLIC_SHARE
        elif programme.draws == 0:
            share = _SPARSE_OPEN_SHARE
        else:
            share = _SPARSE_SHARE
        budget = size * passes * (2 if marginals else 1) // share
        max_states = size // _SPARSE_DENSITY
        if not fits:  # the maps or nothing: all the states memory allows, in time
            budget, max_states = _SPARSE_UNFIT_WORK, size
    # A state of a map takes its key and count, twice over for the hashing, in a few
    # maps at a time; a map starts with room for 16.
    room = limit // 128
    if room < 16:
        return None
    return budget, min(max_states, room)


def factored_plan(
    programme: Programme, options: CountingOptions, tables: list[FamilyPoly]
) -> FactoredPlan | None:
    """Per table, its factored form for the kernel (or None: its use vectors), or None
    for no factored form at all (see the options' ``factored``)."""
    if options.factored is False:
        return None
    if options.factored is None and (
        programme.size < _FACTOR_MIN_SIZE or not programme.many_draws()
    ):
        return None
    plan: FactoredPlan = []
    for table in tables:
        form = table.factored
        if form is None or (options.factored is None and form[2] >= len(table.weights)):
            plan.append(None)
        else:
            plan.append((form[0], form[1], table.vectors))
    if all(entry is None for entry in plan):
        return None
    return plan
