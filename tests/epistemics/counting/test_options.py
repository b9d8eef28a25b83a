"""The counting options: one value, read from the environment once, set for a block or
passed to a counter; the old module switches still act, with a warning."""

from __future__ import annotations

import threading

import pytest
from kwartet_testing import played_position, public_history

import kwartet_epistemic as kw
from kwartet_epistemic.agents import search
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import CountingOptions, WorldCounter

OPTIONS = [
    CountingOptions(),
    CountingOptions(kernel=False),
    CountingOptions(factored=True, sparse=False),
    CountingOptions(sparse=True, ryser=False, staged=False),
    CountingOptions(ryser=True, staged=True),
    CountingOptions(merge_open=True, sparse=False),
    CountingOptions(merge_open=False),
]


@pytest.mark.parametrize("chosen", OPTIONS, ids=str)
def test_every_option_gives_the_same_answers(chosen: CountingOptions) -> None:
    game = played_position(5, 4, 3, kw.RuleSet.preset("fish").replace(cards_each=3), 8)
    history = public_history(game)
    reference = WorldCounter(history, marginals=True, options=CountingOptions(kernel=False))
    counter = WorldCounter(history, marginals=True, options=chosen)
    assert counter.count == reference.count
    assert (counter.origin_counts() == reference.origin_counts()).all()
    with counting.options(**{f: getattr(chosen, f) for f in ("kernel", "sparse", "ryser")}):
        assert kw.knowledge(game).count_worlds() == reference.count


def test_blocks_nest_restore_and_never_raise_a_memory_limit() -> None:
    before = counting.current_options()
    with counting.options(ryser=False, memory_limit=1 << 20) as outer:
        assert counting.current_options() is outer
        with counting.options(ryser=True, memory_limit=1 << 30):
            inner = counting.current_options()
            assert inner.ryser is True and inner.memory_limit == 1 << 20
        assert counting.current_options() == outer
    assert counting.current_options() == before


def test_a_block_holds_for_its_own_thread_only() -> None:
    seen: list[bool] = []
    with counting.options(kernel=False):
        worker = threading.Thread(target=lambda: seen.append(counting.current_options().kernel))
        worker.start()
        worker.join()
        assert counting.current_options().kernel is False
    assert seen == [counting.CountingOptions.from_environment().kernel]


def test_an_options_value_passed_to_a_counter_wins_over_the_block() -> None:
    history = public_history(played_position(2, 4, 3, kw.RuleSet(), 4))
    mine = CountingOptions(kernel=False, sparse=False)
    with counting.options(kernel=True, sparse=True):
        assert WorldCounter(history, options=mine).options == mine
        assert WorldCounter(history).options.sparse is True


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"kernel": "yes"}, "counting option kernel='yes': expected True or False"),
        ({"ryser": 1}, "counting option ryser=1: expected True, False or None"),
        ({"memory_limit": -5}, "memory_limit=-5: expected a whole number of bytes"),
        ({"spares": True}, "counting option 'spares': expected one of kernel"),
    ],
)
def test_bad_options_are_refused_and_change_nothing(changes: dict, message: str) -> None:
    before = counting.current_options()
    with pytest.raises(kw.KwartetError, match=message), counting.options(**changes):
        pass
    assert counting.current_options() == before
    with pytest.raises(kw.KwartetError):
        WorldCounter(public_history(played_position(1, 3, 3, kw.RuleSet(), 0)), options="fast")


def test_the_old_switches_warn_and_still_act() -> None:
    before = counting.current_options()
    try:
        with pytest.warns(DeprecationWarning, match=r"counting.options\(ryser=...\)"):
            counting.USE_RYSER = False
        assert counting.current_options().ryser is False
        with pytest.warns(DeprecationWarning, match="MEMORY_LIMIT is deprecated"):
            assert before.memory_limit == counting.MEMORY_LIMIT
        with pytest.warns(DeprecationWarning, match="search.USE_KERNEL is deprecated"):
            assert before.kernel == search.USE_KERNEL
    finally:
        with pytest.warns(DeprecationWarning):
            counting.USE_RYSER = before.ryser
    assert counting.current_options() == before


def test_clear_empties_every_cache_and_reports_its_limits() -> None:
    kw.knowledge(played_position(3, 5, 3, kw.RuleSet(), 8)).location_probabilities("A")
    sizes = counting.clear()
    assert any(size for size, _ in sizes.values())
    assert all(size == 0 for size, _ in counting.cache_sizes().values())
