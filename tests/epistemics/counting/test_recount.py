"""The whole recount in one kernel call (``_counting_kernel.recount``, behind
``counting.family_probabilities``) against the general engine: the same exact counts and
bit for bit the same probabilities as the NumPy path and as ``WorldCounter`` with
``exact_probabilities``, on random positions of every rule preset and table size; it
falls back where 64-bit arithmetic cannot hold the counts, and where a correction (dead
cards, Memory Kwartet) or hand-edited clauses need the general engine."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import RULE_VARIANTS, played_position, public_history, viewer_infos

import kwartet_epistemic as kw
from kwartet_epistemic import _counting_kernel  # the kernel's own call, tested white-box
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import (
    WorldCounter,
    counter,
    exact_probabilities,
    family_probabilities,
)
from kwartet_epistemic.epistemics.history import Clause, PublicHistory


def _kernel_answer(history: PublicHistory, viewers: list, families: frozenset[int]):
    """What the kernel's recount itself says: (count or None, the matrix it wrote)."""
    matrix = np.full((len(history.deck), len(history.players)), np.nan)
    masks = counter.viewer_masks(history, tuple(viewers)) if viewers else None
    count = _counting_kernel.recount(
        history.capacity,
        history.allowed,
        masks,
        history.coded_clauses,
        history.clauses,
        families,
        history.location,
        history.players,
        history.slot_owner,
        matrix,
    )
    return count, matrix


def _general(history: PublicHistory, viewers: list, families: frozenset[int]):
    """The general engine's answer, as the knowledge agents computed it before."""
    counter = WorldCounter(history, viewers)
    matrix = np.full((len(history.deck), len(history.players)), np.nan)
    if counter.count:
        rows = np.array([c for f in sorted(families) for c in range(4 * f, 4 * f + 4)])
        matrix[rows] = exact_probabilities(counter.location_table()[rows], counter.count)
    return matrix, counter.count


def _numpy_path(history: PublicHistory, viewers: list, families: frozenset[int]):
    history.memo.clear()
    counting.clear()
    with counting.options(kernel=False):
        return family_probabilities(history, viewers, families)


def _same(a: tuple[np.ndarray, int], b: tuple[np.ndarray, int]) -> bool:
    # Bit for bit: both sides are correctly rounded quotients of the same integers.
    return a[1] == b[1] and a[0].tobytes() == b[0].tobytes()


@settings(
    max_examples=80,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
@given(
    seed=st.integers(0, 10_000),
    families=st.integers(2, 8),
    players=st.integers(3, 6),
    rules=st.sampled_from(RULE_VARIANTS),
    asks=st.integers(0, 40),
    which=st.integers(0, 2),
    data=st.data(),
)
def test_one_call_recount_equals_the_numpy_path_and_the_general_engine(
    seed: int,
    families: int,
    players: int,
    rules: kw.RuleSet,
    asks: int,
    which: int,
    data: st.DataObject,
) -> None:
    if rules.draw_pile and players * rules.cards_each >= 4 * families:
        players, families = 3, max(families, 6)
    game = played_position(seed, families, players, rules, asks)
    history = public_history(game)
    viewers = viewer_infos(game, which)
    wanted = frozenset(data.draw(st.sets(st.integers(0, families - 1), min_size=1)))
    fast = family_probabilities(history, viewers, wanted)
    assert _same(fast, _general(history, viewers, wanted))
    if WorldCounter(history, viewers).bound < 1 << 63 or families <= 5:
        # (Python integers on the NumPy path take seconds at full size: the test of
        # counts beyond 2^63 below covers them.)
        assert _same(fast, _numpy_path(history, viewers, wanted))
    if not history.game_goes_on_with_dead_cards() and not history.stuck_twins():
        # No correction to make: where the kernel answers, its answer is the answer.
        count, matrix = _kernel_answer(history, viewers, wanted)
        if count is not None:
            assert _same((matrix, count), fast)


@pytest.mark.parametrize(("seed", "asks"), [(11, 0), (13, 0), (11, 1), (13, 1)])
def test_public_counts_beyond_2_to_the_53_are_rounded_exactly(seed: int, asks: int) -> None:
    # The public worlds of 32 cards among 4 players: counts between 2^53 and 2^63, where
    # a float division of the counts would round twice; the kernel rounds the exact
    # quotient once, as Python's int / int does.
    game = played_position(seed, 8, 4, kw.RuleSet(), asks)
    history = public_history(game)
    every = frozenset(range(8))
    count, matrix = _kernel_answer(history, [], every)
    assert count is not None and 1 << 53 <= count < 1 << 63
    table = WorldCounter(history).location_table()
    expected = [[int(x) / count for x in row] for row in table.tolist()]
    assert matrix.tolist() == expected
    assert _same(family_probabilities(history, [], every), _numpy_path(history, [], every))
    # A player's view of the same position (counts below 2^53) is the kernel's too.
    viewers = viewer_infos(game, 1)
    count, matrix = _kernel_answer(history, viewers, every)
    assert count is not None and count < 1 << 53
    assert _same((matrix, count), _general(history, viewers, every))


@pytest.mark.parametrize("players", [5, 6])
def test_counts_beyond_2_to_the_63_fall_back_to_the_general_engine(players: int) -> None:
    game = played_position(players, 8, players, kw.RuleSet(), 3)
    history = public_history(game)
    every = frozenset(range(8))
    assert WorldCounter(history).bound >= 1 << 63
    count, matrix = _kernel_answer(history, [], every)
    assert count is None and np.isnan(matrix).all()  # declined, nothing written
    fast = family_probabilities(history, [], every)
    assert _same(fast, _numpy_path(history, [], every))
    assert _same(fast, _general(history, [], every))


def test_hand_edited_clauses_fall_back_and_are_counted() -> None:
    # Clauses added to ``clauses`` by hand, not to ``coded_clauses``: the kernel cannot
    # see them, so it declines and the general engine counts them.
    game = played_position(3, 4, 3, kw.RuleSet(), 4)
    history = public_history(game)
    before = family_probabilities(history, [], {0})
    clause = Clause("some", (2, 2, 0, 2))  # B holds one of three cards of family 0
    assert clause not in history.clauses[0]
    history.clauses[0].add(clause)
    history.family_changed(0)
    assert _kernel_answer(history, [], frozenset({0}))[0] is None
    after = family_probabilities(history, [], {0})
    assert after[1] < before[1]
    assert _same(after, _general(history, [], frozenset({0})))


def test_no_world_gives_count_zero_and_nan_rows() -> None:
    game = played_position(2, 3, 3, kw.RuleSet(), 0)
    history = public_history(game)
    history.allowed[0] = 0  # card 0 can come from nowhere
    history.family_changed(0)
    matrix, count = family_probabilities(history, [], {0, 1})
    assert count == 0 and np.isnan(matrix).all()


def test_families_outside_the_deck_are_refused() -> None:
    history = public_history(played_position(1, 3, 3, kw.RuleSet(), 0))
    with pytest.raises(kw.KwartetError, match="families: expected family numbers 0 to 2"):
        family_probabilities(history, [], [1, 3])
