"""The factored programme (``_counting_kernel.factored``: a family's polynomial as a
signed sum of products of one linear form per card) against the use-vector programme
and the NumPy path: the same count, the same origin counts, the same backward tables
and the same samples, on random positions of every rule variant, 3-6 players and 12-32
cards, seen by nobody, one player or two pooling; and the inclusion-exclusion rows of
``factor_terms`` against brute force over every origin tuple."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kwartet_testing import (
    on_random_positions,
    played_position,
    public_history,
    random_position,
    viewer_infos,
)

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter, factor_terms
from kwartet_epistemic.epistemics.history import IGNORED, Clause

pytestmark = pytest.mark.skipif(not counting.kernel_available(), reason="needs the kernel")


def _answers(history, viewers, mode, monkeypatch, *, backward: bool = False):
    """Count, origin counts and (with ``backward``) the backward tables, with the
    options' ``factored`` set to ``mode`` and the dense tables (``sparse`` off); ``mode``
    "numpy" runs without the kernel."""
    options = counting.current_options().replace(
        factored=None if mode == "numpy" else mode, sparse=False, kernel=mode != "numpy"
    )
    counter = WorldCounter(history, viewers, marginals=True, options=options)
    origins = counter.origin_counts()
    tables = None
    if backward and counter.count and counter.programme.width == "narrow":
        tables = [np.asarray(t).copy() for t in counter.backward_tables()]
    return counter.count, origins, tables


@on_random_positions(60, families=8, players=6, asks=30)
def test_factored_programme_equals_the_use_vector_programme(
    seed: int, variant: int, families: int, players: int, asks: int, which: int, monkeypatch
) -> None:
    position = random_position(seed, variant, families, players, asks, which)
    if position is None:
        return
    history, viewers = position
    count, origins, back = _answers(history, viewers, False, monkeypatch, backward=True)
    factored = _answers(history, viewers, True, monkeypatch, backward=True)
    assert factored[0] == count
    assert (factored[1] == origins).all()
    if back is not None:
        assert factored[2] is not None
        assert all((a == b).all() for a, b in zip(back, factored[2], strict=True))
    assert _answers(history, viewers, None, monkeypatch)[0] == count


@pytest.mark.parametrize(("players", "each", "draws"), [(4, 3, 9), (3, 4, 6), (5, 2, 6)])
def test_draw_pile_positions_agree_on_all_three_paths(
    players: int, each: int, draws: int, monkeypatch
) -> None:
    """Fish games with several private draws (the positions the factored form is for),
    public and as the first player sees them, wide (2^128) arithmetic included."""
    rules = kw.RuleSet.preset("fish").replace(cards_each=each)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D", "E"][:players], seed=7, rules=rules)
    rng = np.random.default_rng(7)
    while not game.is_over and sum(isinstance(e, kw.events.Drew) for e in game.record) < draws:
        game.play(game.random_legal_ask(rng))
    history = public_history(game)
    if players == 4:  # this one needs the 128-bit arithmetic
        assert WorldCounter(history).bound >= 1 << 63
    for which in (0, 1):
        viewers = viewer_infos(game, which)
        reference = _answers(history, viewers, False, monkeypatch)
        for mode in (True, None, "numpy"):
            count, origins, _ = _answers(history, viewers, mode, monkeypatch)
            assert count == reference[0], mode
            assert (origins == reference[1]).all(), mode
        assert reference[0] > 0


def test_samples_are_the_same_worlds_on_both_programmes(monkeypatch, counting_options) -> None:
    rules = kw.RuleSet.preset("fish").replace(cards_each=3)
    game = played_position(11, 6, 4, rules, 12)
    history = public_history(game)
    drawn = []
    for mode in (False, True):
        counting_options(factored=mode)
        counter = WorldCounter(history)
        drawn.append(counter.sample_many(200, np.random.default_rng(3)))
    assert (drawn[0] == drawn[1]).all()


_SLOTS = 4


@settings(max_examples=200, deadline=None)
@given(
    options=st.tuples(*[st.integers(1, 2**_SLOTS - 1)] * 4),
    clauses=st.lists(
        st.tuples(
            st.sampled_from(["some", "notall", "allornone"]),
            st.tuples(*[st.one_of(st.integers(0, 2**_SLOTS - 1), st.just(IGNORED))] * 4),
        ),
        max_size=4,
    ),
)
def test_factor_terms_sum_to_the_indicator_of_the_clauses(options, clauses) -> None:
    rules = [
        Clause(kind, tuple(c if c != IGNORED or kind == "allornone" else 0 for c in conds))
        for kind, conds in clauses
    ]
    rows = factor_terms(options, rules, limit=10_000)
    assert rows is not None
    for origins in itertools.product(range(_SLOTS), repeat=4):
        allowed = all(options[i] >> origins[i] & 1 for i in range(4))
        wanted = int(allowed and all(rule.satisfied(origins) for rule in rules))
        total = sum(row[0] for row in rows if all(row[1 + i] >> origins[i] & 1 for i in range(4)))
        assert total == wanted, (origins, rows)


def test_factor_terms_gives_up_beyond_its_limit() -> None:
    clauses = [Clause("some", (1 << k,) * 4) for k in range(5)]  # 2^5 rows, none cancel
    assert factor_terms((0xFF,) * 4, clauses, limit=31) is None
    rows = factor_terms((0xFF,) * 4, clauses, limit=32)
    assert rows is not None and len(rows) == 32


@pytest.mark.parametrize("stable", [False, True])
def test_the_order_of_dimensions_changes_no_answer(stable: bool, monkeypatch) -> None:
    """Draws first (the engine's order) or every slot in its own order: the same count,
    origin counts and samples, public and as a player sees it."""
    rules = kw.RuleSet.preset("fish").replace(cards_each=3)
    game = played_position(1, 6, 3, rules, 10)  # five draws, 64-bit counts
    history = public_history(game)
    assert sum(isinstance(e, kw.events.Drew) for e in game.record) >= 3
    for which in (0, 1):
        viewers = viewer_infos(game, which)
        answers = []
        for order in (counting.counter._dimension_order, lambda slots, capacity: sorted(slots)):
            monkeypatch.setattr(counting.counter, "_dimension_order", order)
            counter = WorldCounter(history, viewers, stable_layout=stable)
            answers.append(
                (
                    counter.dims,
                    counter.count,
                    counter.origin_counts(),
                    counter.sample_many(50, np.random.default_rng(2)),
                )
            )
        (dims, count, origins, samples), (slot_dims, *rest) = answers
        if which == 0:
            assert dims != slot_dims  # the orders differ, the answers do not
        assert count == rest[0]
        assert (origins == rest[1]).all()
        assert (samples == rest[2]).all()


def _small_primes_beyond(bound: int) -> list[int]:
    """Primes near 2^20, as many as the bound needs: several residues to join."""
    from sympy import prevprime

    primes, product, prime = [], 1, 1 << 20
    while product <= bound:
        prime = int(prevprime(prime))
        primes.append(prime)
        product *= prime
    return primes


@on_random_positions(40, families=7, players=5, asks=25)
def test_counts_beyond_the_kernel_widths_are_joined_from_residues_exactly(
    seed: int,
    variant: int,
    families: int,
    players: int,
    asks: int,
    which: int,
    monkeypatch,
    counting_options,
) -> None:
    """Counts beyond 2^127 run modulo primes and are joined by the Chinese remainder
    theorem: here every count is made "big" and the primes are small, so that several
    residues are joined; the answers equal the exact ones of the ordinary paths."""
    position = random_position(seed, variant, families, players, asks, which)
    if position is None:
        return
    history, viewers = position
    exact = WorldCounter(history, viewers, marginals=True)
    origins = exact.origin_counts()
    calls = []
    original = counting.residues.residue_count

    def spy(programme, wanted, origins):
        calls.append(len(_small_primes_beyond(programme.bound)))
        return original(programme, wanted, origins)

    counting_options(factored=True)  # (by default: with draws only)
    monkeypatch.setattr(counting.programme, "_NARROW", 2)
    monkeypatch.setattr(counting.programme, "_WIDE", 2)
    monkeypatch.setattr(counting.ryser, "_NARROW", 2)
    for module in (counting.residues, counting.ryser, counting.plan):
        monkeypatch.setattr(module, "primes_beyond", _small_primes_beyond)
    monkeypatch.setattr(counting.plan, "residue_count", spy)
    joined = WorldCounter(history, viewers, marginals=True)
    assert joined.count == exact.count
    assert (joined.origin_counts() == origins).all()
    if exact.count > 1 << 20:
        assert calls and max(calls) >= 2  # several residues were joined
