"""The open families merged into one closing factor (``counting.open_families`` and the
kernel's ``closing`` argument): the kernel's closed form against the families' own
polynomials multiplied one by one (enumerated here from their definition), and the
counter's counts and origin counts with and without the merge on random positions of
every rule variant, in 64- and 128-bit arithmetic, and at 52 cards among 6 players,
where it is for."""

from __future__ import annotations

import itertools
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kwartet_testing import on_random_positions, public_history, random_position, viewer_infos

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import CountingOptions, WorldCounter
from kwartet_epistemic.epistemics.counting.family import FamilyPoly

pytestmark = pytest.mark.skipif(not counting.kernel_available(), reason="needs the kernel")

_kernel = pytest.importorskip("kwartet_epistemic._counting_kernel")


def _polynomial(
    k: int, dims: int, ones: int, mask: int, held_dims: int = 0, held_ones: int = 0
) -> tuple[np.ndarray, np.ndarray]:
    """A family of ``k`` free cards, each from ``ones`` slots without a dimension or the
    dimensions of ``mask``, not all in one slot of T (``held_dims``, ``held_ones``:
    T's dimensions and how many of the slots without one), by enumeration."""
    slots = [("one", i) for i in range(ones)] + [("dim", i) for i in range(dims) if mask >> i & 1]
    held = {("one", i) for i in range(held_ones)}
    held |= {("dim", i) for i in range(dims) if held_dims >> i & 1}
    terms: Counter[tuple[int, ...]] = Counter()
    for choice in itertools.product(slots, repeat=k):
        if len(set(choice)) == 1 and choice[0] in held:
            continue
        use = [0] * dims
        for kind, i in choice:
            if kind == "dim":
                use[i] += 1
        terms[tuple(use)] += 1
    if not terms:
        terms[(0,) * dims] = 0
    vectors = np.array(list(terms), dtype=np.int64).reshape(-1, dims)
    return np.ascontiguousarray(vectors), np.array(list(terms.values()), dtype=np.int64)


@st.composite
def _closings(draw: st.DrawFn) -> tuple:
    dims = draw(st.integers(1, 3))
    ones = draw(st.integers(0, 2))
    mask = draw(st.integers(1, (1 << dims) - 1))
    held_dims = draw(st.integers(0, (1 << dims) - 1)) & mask
    held_ones = draw(st.integers(0, ones))
    k = draw(st.integers(1, 3))
    plain = draw(st.lists(st.integers(1, 3), max_size=2))
    held = draw(st.integers(0, 3))
    others = [
        _polynomial(draw(st.integers(1, 2)), dims, draw(st.integers(0, 1)),
                    draw(st.integers(1, (1 << dims) - 1)))
        for _ in range(draw(st.integers(0, 2)))
    ]  # fmt: skip
    cap = tuple(draw(st.integers(0, 6)) for _ in range(dims))
    opens = [_polynomial(p, dims, ones, mask) for p in plain]
    opens += [_polynomial(k, dims, ones, mask, held_dims, held_ones)] * held
    closing = (sum(plain), ones, mask, k, held, held_dims, held_ones)
    return cap, others, opens, closing


@settings(max_examples=150, deadline=None)
@given(_closings(), st.booleans())
def test_the_closing_factor_is_the_product_of_the_open_families(case, wide: bool) -> None:
    cap, others, opens, closing = case
    width = 3

    def marginals() -> list:
        if not others:
            return []
        card_slot = np.ascontiguousarray(np.tile(others[0][1][:, None], (1, width)))
        return [(0, card_slot, np.zeros(width * (2 if wide else 1), dtype=np.int64))]

    apart, merged = marginals(), marginals()
    assert _kernel.programme(cap, others + opens, apart, wide, None) == _kernel.programme(
        cap, others, merged, wide, None, closing
    )
    for (_, _, one), (_, _, other) in zip(apart, merged, strict=True):
        assert (one == other).all()
    dim_of = tuple(range(len(cap)))
    assert _kernel.factored(cap, dim_of, others + opens, [], wide, None) == _kernel.factored(
        cap, dim_of, others, [], wide, None, 0, closing
    )


@pytest.mark.parametrize(
    ("closing", "message"),
    [
        ((1, 1), "expected None or"),
        ("cards", "expected None or"),
        ((-1, 1, 1), "0 to 4096 cards"),
        ((2, 1, 0b100), "dimensions of the tables"),
        ((2, 1, 0b01, 1, 1, 0b10, 0), "T's among R's"),
        ((2, 1, 0b01, 0, 1, 0, 0), "k >= 1"),
    ],
)
def test_the_kernel_refuses_a_bad_closing_factor(closing, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        _kernel.programme((2, 2), [], [], False, None, closing)


def test_no_closing_factor_with_backward_tables() -> None:
    backward = np.zeros(9, dtype=np.int64)
    with pytest.raises(ValueError, match="not with a modulus or backward tables"):
        _kernel.programme((2, 2), [], [], False, backward, (2, 1, 0b11))


def _both(history, viewers, marginals=True):
    options = counting.current_options()
    merged = WorldCounter(
        history, viewers, marginals=marginals, options=options.replace(merge_open=True)
    )
    apart = WorldCounter(
        history, viewers, marginals=marginals, options=options.replace(merge_open=False)
    )
    return merged, apart


@pytest.mark.parametrize("wide", [False, True])
@on_random_positions(60, families=8, players=6, asks=30)
def test_merged_and_apart_give_the_same_answers(
    wide: bool,
    seed: int,
    variant: int,
    families: int,
    players: int,
    asks: int,
    which: int,
    monkeypatch,
) -> None:
    position = random_position(seed, variant, families, players, asks, which)
    if position is None:
        return
    history, viewers = position
    if wide:
        monkeypatch.setattr(counting.programme, "_NARROW", 2)  # every count: 128-bit tables
    for seen_by in ([], viewers):
        merged, apart = _both(history, seen_by)
        assert merged.count == apart.count
        assert (merged.origin_counts() == apart.origin_counts()).all()
        assert (merged.location_table() == apart.location_table()).all()


class _Closings:
    """Records the closing factors the planner hands the kernel."""

    def __init__(self, monkeypatch) -> None:
        self.seen: list[tuple | None] = []
        original = counting.plan.kernel_count

        def spy(*args, **kwargs):
            self.seen.append(args[6] if len(args) > 6 else kwargs.get("closing"))
            return original(*args, **kwargs)

        monkeypatch.setattr(counting.plan, "kernel_count", spy)


@pytest.mark.parametrize("asks", [0, 6, 20])
def test_fifty_two_cards_among_six_players(asks: int, monkeypatch) -> None:
    """Where it is for: every player's view of a 6-player deal of 52 cards, at the deal
    (every family open: 4 free cards not all with one player, or the viewer's own
    families without a clause) and after asks.  By default the planner merges; the
    answers are those of the families multiplied one by one (later in the game the
    planner may not merge: the answers stay the same)."""
    game = kw.Game.deal(kw.Deck.standard(13), list("ABCDEF"), seed=asks)
    rng = np.random.default_rng(asks)
    for _ in range(asks):
        game.play(game.random_legal_ask(rng))
    history = public_history(game)
    closings = _Closings(monkeypatch)
    for which in range(1, 7):
        viewers = viewer_infos(game, which)[-1:]
        default = WorldCounter(history, viewers, marginals=True)
        apart = WorldCounter(
            history, viewers, marginals=True, options=CountingOptions(merge_open=False)
        )
        assert default.count == apart.count > 0
        assert (default.location_table() == apart.location_table()).all()
        assert default.programme.width == "wide"
    merged = [c for c in closings.seen if c is not None]
    if asks < 20:  # later the families asked about hold most use vectors: no merge pays
        assert merged  # the default merged
    if asks == 0:
        # At the deal: the viewer's families (no clause) and 4 cards not all together.
        assert all(c[3] == 4 and c[4] >= 1 for c in merged)


def test_open_forms_of_the_families() -> None:
    """At the deal the families a viewer holds none of are open with the other players'
    slots as T; once a player has asked for a card of one, it is not."""
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    history = public_history(game)
    viewers = viewer_infos(game, 1)
    forms = [t.open_form for t in WorldCounter(history, viewers).tables]
    assert all(f is not None for f in forms)
    for slots, k, held in forms:
        assert held in (0, slots) and (held == 0) == (k < 4)
    ask = game.random_legal_ask(np.random.default_rng(0))
    game.play(ask)
    family = ask.card.family_index
    counter = WorldCounter(public_history(game))
    table: FamilyPoly = counter.tables[counter.table_families.index(family)]
    assert table.open_form is None  # the asker holds one of its cards: a clause
