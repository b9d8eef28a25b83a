"""The counting engine's fast paths against its reference: the compiled kernel, the NumPy
path and the engine as it stood before them (tests/reference_counting.py) give identical
counts, marginals and samples on random positions of every rule preset and table size."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import RULE_VARIANTS, played_position, public_history, viewer_infos
from reference_counting import WorldCounter as ReferenceCounter

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter, kernel_available
from kwartet_epistemic.epistemics.counting.family import family_poly
from kwartet_epistemic.epistemics.history import Clause


def fast(examples: int) -> settings:
    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    )


def _both_paths(history, viewers, restrict=None):
    """(kernel answer, NumPy answer), each a fresh counter on a fresh memo."""
    answers = []
    for use_kernel in (True, False):
        history.memo.clear()
        counting.clear()
        options = counting.CountingOptions(kernel=use_kernel)
        counter = WorldCounter(history, viewers, restrict, options=options)
        answers.append((counter.count, counter.origin_counts()))
    return answers


def test_the_compiled_kernel_is_built_by_the_install() -> None:
    # The README's install compiles it; without it every answer is still right (the
    # NumPy path), but this suite would then not be testing what users run.
    assert kernel_available()


@fast(60)
@given(
    seed=st.integers(0, 10_000),
    families=st.integers(2, 6),
    players=st.integers(3, 6),
    rules=st.sampled_from(RULE_VARIANTS),
    asks=st.integers(0, 40),
    which=st.integers(0, 2),
)
def test_kernel_numpy_and_reference_give_identical_counts_and_marginals(
    seed: int, families: int, players: int, rules: kw.RuleSet, asks: int, which: int
) -> None:
    if rules.draw_pile and players * rules.cards_each >= 4 * families:
        players = 3
        families = max(families, 6)
    game = played_position(seed, families, players, rules, asks)
    history = public_history(game)
    viewers = viewer_infos(game, which)
    reference = ReferenceCounter(history, viewers)
    (kernel_count, kernel_origins), (numpy_count, numpy_origins) = _both_paths(history, viewers)
    assert kernel_count == numpy_count == reference.count
    expected = reference.origin_counts()
    assert (kernel_origins == expected).all()
    assert (numpy_origins == expected).all()


@fast(30)
@given(
    seed=st.integers(0, 10_000),
    asks=st.integers(0, 30),
    card=st.integers(0, 19),
    mask=st.integers(1, 15),
)
def test_restricted_counts_equal_the_reference(seed: int, asks: int, card: int, mask: int) -> None:
    game = played_position(seed, 5, 4, kw.RuleSet(), asks)
    history = public_history(game)
    restrict = {card: mask}
    reference = ReferenceCounter(history, [], restrict)
    (kernel_count, kernel_origins), (numpy_count, _) = _both_paths(history, [], restrict)
    assert kernel_count == numpy_count == reference.count
    assert (kernel_origins == reference.origin_counts()).all()


@pytest.mark.parametrize("players", [5, 6])
def test_counts_beyond_64_bits_are_exact(players: int) -> None:
    # 32 cards among 6 players: the public count needs more than 64 bits (the kernel's
    # 128-bit arithmetic), 5 players a viewer's too after a few asks.
    game = played_position(players, 8, players, kw.RuleSet(), 3)
    history = public_history(game)
    reference = ReferenceCounter(history, [])
    counter = WorldCounter(history, [])
    assert counter.bound >= 1 << 63  # the wide path is the one under test
    assert counter.count == reference.count
    assert (counter.origin_counts() == reference.origin_counts()).all()
    (_, kernel_origins), (_, numpy_origins) = _both_paths(history, [])
    assert (kernel_origins == numpy_origins).all()


def test_counts_beyond_128_bits_fall_back_to_python_integers() -> None:
    # No deck of the rules needs it: force the path by pretending the bound is huge.
    game = played_position(1, 6, 5, kw.RuleSet(), 5)
    history = public_history(game)
    counter = WorldCounter(history, [])
    wide = counter.origin_counts()
    counter.bound = 1 << 200
    counter._origins_done = False
    assert (counter.origin_counts() == wide).all()


@fast(20)
@given(
    seed=st.integers(0, 10_000),
    rules=st.sampled_from(RULE_VARIANTS),
    asks=st.integers(0, 25),
    which=st.integers(0, 1),
)
def test_samples_are_the_reference_samples_for_the_same_generator(
    seed: int, rules: kw.RuleSet, asks: int, which: int
) -> None:
    # Seeded agents that sample worlds play the same games as before the fast engine.
    game = played_position(seed, 6 if rules.draw_pile else 5, 3, rules, asks)
    history = public_history(game)
    viewers = viewer_infos(game, which)
    reference = ReferenceCounter(history, viewers)
    if reference.count == 0:
        return
    for use_kernel in (True, False):
        options = counting.CountingOptions(kernel=use_kernel)
        counter = WorldCounter(history, viewers, options=options)
        ours, theirs = np.random.default_rng(seed), np.random.default_rng(seed)
        for _ in range(5):
            assert counter.sample(ours) == reference.sample(theirs)


def test_a_family_table_is_rebuilt_only_when_its_constraints_change() -> None:
    game = played_position(4, 8, 4, kw.RuleSet(), 0)
    k = kw.knowledge(game)
    k.location_probabilities("A")
    history = k.history
    stamps = list(history.family_stamps)
    ask = game.legal_asks()[0]
    game.ask(ask.target, ask.card)
    k.location_probabilities("A")
    changed = [f for f in range(8) if history.family_stamps[f] != stamps[f]]
    assert changed == [ask.card.family_index]


@pytest.mark.parametrize("rules", [kw.RuleSet(), kw.RuleSet.preset("dutch")], ids=lambda r: r.name)
def test_many_worlds_at_once_are_possible_and_uniform(rules: kw.RuleSet) -> None:
    from scipy.stats import chisquare

    from kwartet_epistemic.epistemics.explicit import enumerate_origins

    game = played_position(2, 3, 3, rules, 2)
    history = public_history(game)
    viewers = viewer_infos(game, 1)
    counter = WorldCounter(history, viewers)
    every = enumerate_origins(counter).astype(np.int64)
    index = {row.tobytes(): i for i, row in enumerate(every)}
    assert len(index) == counter.count
    drawn = counter.sample_many(40 * counter.count, np.random.default_rng(7))
    hits = np.zeros(counter.count)
    for row in drawn:
        hits[index[row.tobytes()]] += 1  # a KeyError would be an impossible world
    # A fixed generator: the test is deterministic; uniform draws pass it comfortably.
    assert chisquare(hits).pvalue > 1e-3


@fast(60)
@given(
    n_slots=st.integers(2, 40),
    data=st.data(),
)
def test_family_tables_of_the_kernel_and_numpy_agree_with_many_dimensions(
    n_slots: int, data: st.DataObject
) -> None:
    # Draw piles add one dimension per draw: tables must group use vectors exactly
    # however many dimensions there are.
    slot = st.integers(0, n_slots - 1)
    options = tuple(
        tuple(sorted(set(data.draw(st.lists(slot, min_size=1, max_size=4))))) for _ in range(4)
    )
    n_dims = data.draw(st.integers(0, min(n_slots, 32)))
    dim_of = tuple(data.draw(st.integers(-1, n_dims - 1)) if n_dims else -1 for _ in range(n_slots))
    free = tuple(i for i in range(4) if data.draw(st.booleans()))
    mask = st.integers(0, (1 << n_slots) - 1)
    kinds = st.sampled_from(["some", "notall", "allornone"])
    clauses = tuple(
        Clause(data.draw(kinds), tuple(data.draw(mask) for _ in range(4)))
        for _ in range(data.draw(st.integers(0, 3)))
    )
    tables = []
    for use_kernel in (True, False):
        counting.clear()
        with counting.options(kernel=use_kernel):
            tables.append(
                family_poly((0, 1, 2, 3), options, clauses, free, dim_of, n_dims, n_slots)
            )
    kernel, numpy_path = tables
    assert (kernel is None) == (numpy_path is None)
    if kernel is not None and numpy_path is not None:
        assert (kernel.vectors == numpy_path.vectors).all()
        assert (kernel.weights == numpy_path.weights).all()
        assert (kernel.card_slot == numpy_path.card_slot).all()
        assert kernel.assignments == numpy_path.assignments


@pytest.mark.skipif(not kernel_available(), reason="needs the kernel")
@fast(80)
@given(
    n_slots=st.integers(2, 40),
    seed=st.integers(0, 10_000),
    alike=st.booleans(),
    n_clauses=st.integers(0, 3),
    free=st.sampled_from([15, 15, 7, 11]),
)
def test_family_tables_without_card_slot_have_the_same_vectors_and_weights(
    n_slots: int, seed: int, alike: bool, n_clauses: int, free: int
) -> None:
    # Without card_slot, four alike cards enumerate only their sorted assignments, each
    # weighted by its permutations: the same polynomial, its vectors in another order.
    from kwartet_epistemic import _counting_kernel as kernel

    rng = np.random.default_rng(seed)
    every = (1 << n_slots) - 1

    def mask() -> int:
        return int(rng.integers(1, every + 1)) if n_slots < 63 else every

    first = mask()
    options = tuple(first if alike else mask() for _ in range(4))
    clauses = []
    for _ in range(n_clauses):
        condition = mask()
        conditions = [condition] * 4 if alike else [mask() for _ in range(4)]
        clauses.append((int(rng.integers(0, 3)), *conditions))
    dims = [int(d) for d in rng.permutation(n_slots)]
    dims[int(rng.integers(0, n_slots))] = -1  # one slot is no dimension (implied)
    n_dims = n_slots
    full = kernel.family_table(options, tuple(clauses), free, tuple(dims), n_dims, n_slots, True)
    lazy = kernel.family_table(options, tuple(clauses), free, tuple(dims), n_dims, n_slots, False)
    assert (full is None) == (lazy is None)
    if full is None:
        return
    assert lazy[2] == b""

    def polynomial(answer):
        vectors = np.frombuffer(answer[0], dtype=np.int64).reshape(-1, n_dims)
        weights = np.frombuffer(answer[1], dtype=np.int64)
        return {tuple(v): int(w) for v, w in zip(vectors.tolist(), weights.tolist(), strict=True)}

    assert polynomial(full) == polynomial(lazy)
