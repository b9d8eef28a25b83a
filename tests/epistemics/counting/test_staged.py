"""The count over merged draws (``epistemics.counting.staged``) against the dense programme, and
the memory limit of the counting programme.

The staged count keeps, after each family, only what the families still to come can
tell apart; it must give the programme's count on random positions of every rule
variant (3-5 players, 12-20 cards, seen by nobody, one player or two pooling), on the
small games with runs of draws that brute force checks, and on a 52-card lone holder's
run of draws, where the dense tables would need 2^43 entries.  Where the tables would
take more memory than the options' ``memory_limit``, the engine refuses with
``ModelTooLargeError`` before allocating anything, and the state stays usable."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kwartet_testing import on_random_positions, random_game, random_position

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.counting.options import memory_in_force
from kwartet_epistemic.epistemics.counting.staged import _unique_rows, staged_count
from kwartet_epistemic.epistemics.history import PublicHistory
from kwartet_epistemic.events import Drew


def _count(history, viewers, staged: bool, monkeypatch) -> int:
    options = counting.current_options().replace(staged=staged)
    return WorldCounter(history, viewers, options=options).count


@on_random_positions(40, families=5, players=5, asks=25)
def test_staged_count_equals_the_programme(
    seed: int, variant: int, families: int, players: int, asks: int, which: int, monkeypatch
) -> None:
    position = random_position(seed, variant, families, players, asks, which)
    if position is None:
        return
    history, viewers = position
    assert _count(history, viewers, True, monkeypatch) == _count(
        history, viewers, False, monkeypatch
    )


@pytest.mark.parametrize("seed", range(12))
def test_staged_count_on_runs_of_draws(seed: int, monkeypatch) -> None:
    # Two-family fish games of two players: a lone holder draws several cards in a row.
    game = random_game(("fish", 2, ["A", "B"], {"cards_each": 2}), seed, 12)
    k = kw.knowledge(game)
    for viewer in (None, *game.players):
        viewers = () if viewer is None else [k.private_info(viewer)]
        assert _count(k.history, viewers, True, monkeypatch) == k.count_worlds(viewer)


def _lone_holder() -> kw.Game:
    """52 cards, three players: B and C hand over their only cards at once, and A draws
    the 43 cards of the stock one after the other, laying down the families it completes."""
    deck = kw.Deck.standard()
    hands = {"A": ["2S", "3S", "4S", "5S", "6S", "7S", "8S"], "B": ["2H"], "C": ["3H"]}
    dealt = {code for cards in hands.values() for code in cards}
    stock = [c.code for c in deck.cards if c.code not in dealt]
    game = kw.Game.from_hands(deck, hands, first="A", rules=kw.RuleSet.preset("fish"), stock=stock)
    game.ask("B", "2H")
    game.ask("C", "3H")
    return game


def test_a_lone_holders_run_of_43_draws(monkeypatch, counting_options) -> None:
    game = _lone_holder()
    assert sum(isinstance(e, Drew) for e in game.record) == 43
    counts = []
    for cut in (30, 40, len(game.record)):  # 16, 24 and 43 draws
        history = PublicHistory(game.deck, game.players, game.rules)
        history.extend(game.record[:cut])
        counting_options(staged=None)  # the default takes it
        for stable in (False, True):  # other implied slots, other merged dimensions
            counter = WorldCounter(history, stable_layout=stable)
            counts.append(counter.count)
            if cut > 30:  # dense tables of 2^26 entries and more: the merged ones answer
                assert counter.table_size >= 1 << 26
        if cut == 30:  # 2^20 entries: the dense tables still answer
            assert _count(history, (), False, monkeypatch) == counts[-1]
    assert counts[0::2] == counts[1::2] and len(set(counts)) == 3
    assert kw.knowledge(game).count_worlds() == counts[-1]


def test_staged_count_gives_up_over_its_budget() -> None:
    game = kw.Game.deal(
        kw.Deck.piquet(),
        ["A", "B", "C", "D"],
        seed=1,
        rules=kw.RuleSet.preset("fish").replace(cards_each=3),
    )
    rng = np.random.default_rng(1)
    while sum(isinstance(e, Drew) for e in game.record) < 8:
        game.play(game.random_legal_ask(rng))
    counter = WorldCounter(kw.knowledge(game).history)
    args = (counter.tables, counter.dims, counter.cap)
    assert staged_count(*args, 1 << 20, max_work=1000) is None
    assert staged_count(*args, 10) is None  # more entries than that in a table


def test_tables_beyond_the_memory_limit_are_refused() -> None:
    game = random_game(("fish", 4, ["A", "B", "C"], {"cards_each": 3}), 3, 20)
    k = kw.knowledge(game)
    expected = k.count_worlds()
    probabilities = k.location_probabilities("A")
    fresh = kw.knowledge(game)
    with counting.options(memory_limit=1000, staged=False):
        with pytest.raises(kw.ModelTooLargeError, match=r"counting\.options\(memory_limit"):
            fresh.count_worlds()
        with pytest.raises(kw.ModelTooLargeError, match="entries"):
            fresh.location_probabilities("B")
    assert fresh.count_worlds() == expected  # nothing half done was kept
    assert np.array_equal(fresh.location_probabilities("A"), probabilities)


def test_the_memory_limit_reads_the_environment(monkeypatch) -> None:
    monkeypatch.setenv("KWARTET_MEMORY_LIMIT", "123456789")
    assert counting.limit_from_environment("KWARTET_MEMORY_LIMIT") == 123456789
    assert counting.CountingOptions.from_environment().memory_limit == 123456789
    for text in ("", "lots", "-5", "0", "9" * 30):
        monkeypatch.setenv("KWARTET_MEMORY_LIMIT", text)
        assert counting.limit_from_environment("KWARTET_MEMORY_LIMIT") is None
    assert memory_in_force(counting.CountingOptions()) > 1 << 20  # what memory is free now
    with counting.options(memory_limit=5000):
        assert memory_in_force() == 5000


def test_card_placements_left_out_of_long_enumerations_are_made_when_needed(monkeypatch) -> None:
    # At 16 draws of the lone holder, four unseen cards of a family have about twenty
    # origins each: their table is built without card_slot for the count, and the
    # marginals enumerate it again.
    game = _lone_holder()
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record[:30])
    lazy = WorldCounter(history)
    assert any(t._card_slot is None for t in lazy.tables)
    monkeypatch.setattr(counting.counter, "_LAZY_CARD_SLOT", 1 << 62)
    eager_history = PublicHistory(game.deck, game.players, game.rules)
    eager_history.extend(game.record[:30])
    eager = WorldCounter(eager_history)
    assert all(t._card_slot is not None for t in eager.tables)
    assert lazy.count == eager.count
    assert (lazy.origin_table() == eager.origin_table()).all()
    assert (lazy.location_table() == eager.location_table()).all()


def test_location_counts_where_only_the_merged_count_fits() -> None:
    game = _lone_holder()
    small = PublicHistory(game.deck, game.players, game.rules)
    small.extend(game.record[:30])  # 16 draws: the dense marginals still fit
    counter = WorldCounter(small, stable_layout=True)
    assert counter._tableless
    assert (counter._restricted_location_rows(range(52)) == counter.location_table()).all()
    large = PublicHistory(game.deck, game.players, game.rules)
    large.extend(game.record[:50])  # 32 draws: tables of 2^33 entries
    counter = WorldCounter(large, stable_layout=True)
    with pytest.raises(kw.ModelTooLargeError):
        counter.origin_table()
    table = counter.location_table()
    unseen = [c for c in range(52) if large.location[c] is None]
    assert unseen and all(0 < table[c, 0] <= counter.count for c in unseen)
    assert not table[:, 1:].any()  # B and C hold nothing and never drew
    rows = counter.location_rows(unseen[:3])
    assert (rows == table[unseen[:3]]).all()


@settings(max_examples=200, deadline=None)
@given(
    st.integers(0, 40),
    st.integers(1, 26),
    st.sampled_from([4, 7, 9]),
    st.integers(0, 2**32 - 1),
)
def test_unique_rows_are_numpys_unique_rows(n: int, width: int, top: int, seed: int) -> None:
    """The packed grouping of a family's uses (up to 21 columns of values 0..7) and the
    fallback beyond: the same distinct rows as ``np.unique(axis=0)``, and each row's
    index among them."""
    rows = np.random.default_rng(seed).integers(0, top + 1, size=(n, width))
    keys, inverse = _unique_rows(rows)
    assert inverse.shape == (n,)
    assert np.array_equal(keys[inverse], rows)
    expected = np.unique(rows, axis=0) if n else np.zeros((0, width), dtype=rows.dtype)
    assert sorted(map(tuple, keys.tolist())) == sorted(map(tuple, expected.tolist()))


def _reference_product(states, values, weights, limit):
    """The truncated product entry by entry, as a dict (the programme before NumPy)."""
    product: dict[tuple[int, ...], int] = {}
    for state, value in zip(map(tuple, states.tolist()), values.tolist(), strict=True):
        for use, weight in weights:
            target = tuple(a + b for a, b in zip(state, use, strict=True))
            if all(x <= c for x, c in zip(target, limit, strict=True)):
                product[target] = product.get(target, 0) + value * weight
    return product


@settings(max_examples=150, deadline=None)
@given(
    st.integers(1, 6),
    st.integers(0, 40),
    st.integers(1, 12),
    st.integers(0, 2**32 - 1),
)
def test_a_product_of_maps_is_the_entry_by_entry_product(
    width: int, n_states: int, n_terms: int, seed: int
) -> None:
    """The merged draws' product (entries numbered in mixed radix, uses tested on the
    dimensions they touch) and its row-by-row fallback both equal the product taken
    entry by entry, with values beyond 2^64."""
    from kwartet_epistemic.epistemics.counting import staged as _staged

    rng = np.random.default_rng(seed)
    limit = tuple(int(x) for x in rng.integers(0, 6, size=width))
    states = np.unique(
        np.array(
            [[int(rng.integers(0, c + 1)) for c in limit] for _ in range(n_states)], dtype=np.int64
        ).reshape(-1, width),
        axis=0,
    )
    values = np.array(
        [int(rng.integers(1, 1 << 62)) << 40 for _ in range(len(states))], dtype=object
    )
    weights = []
    for _ in range(n_terms):
        use = [0] * width
        for _ in range(int(rng.integers(0, 5))):  # a family places at most four cards
            use[int(rng.integers(0, width))] += 1
        weights.append((tuple(use), int(rng.integers(1, 1000))))
    expected = _reference_product(states, values, weights, limit)
    for product in (_staged._product, _staged._product_by_rows):
        rows, sums = product(states, values, weights, limit)
        got = dict(zip(map(tuple, rows.tolist()), sums.tolist(), strict=True))
        assert got == expected


@pytest.mark.parametrize("width", [3, 40])
def test_entries_are_numbered_equal_exactly_when_they_are_equal(width: int) -> None:
    """Entries' numbers (mixed radix where that fits in 63 bits, as with 40 dimensions
    of capacity 3 it does not, else their rank among the distinct rows) are equal
    exactly for equal rows."""
    from kwartet_epistemic.epistemics.counting import staged as _staged

    rng = np.random.default_rng(width)
    limit = (3,) * width
    rows = rng.integers(0, 2, size=(200, width)).astype(np.int64)
    rows[100:] = rows[rng.integers(0, 100, size=100)]  # repeats
    assert (_staged._strides(limit) is None) == (width == 40)
    keys = _staged._row_keys(rows, limit)
    for i in range(0, 200, 7):
        same_rows = (rows == rows[i]).all(axis=1)
        assert ((keys == keys[i]) == same_rows).all()
