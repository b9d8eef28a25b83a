"""The sparse programme (``_counting_kernel.sparse``: the programme's tables as hash maps
of their reachable states) against the dense tables: the same count and the same origin
counts on random positions of every rule variant, 3-6 players and 12-32 cards, seen by
nobody, one player or two pooling, in 64- and 128-bit arithmetic; the players' own views
of draw-pile games it is for; and its giving up (over budget, beyond its limit of states
in a map, states that do not pack into 63 bits), after which the dense tables answer."""

from __future__ import annotations

import numpy as np
import pytest
from kwartet_testing import on_random_positions, public_history, random_position, viewer_infos

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import WorldCounter

pytestmark = pytest.mark.skipif(not counting.kernel_available(), reason="needs the kernel")


def _answers(history, viewers, sparse: bool | None, monkeypatch, *, wanted=True):
    """Count and origin counts with the options' ``sparse`` set to ``sparse``."""
    options = counting.current_options().replace(sparse=sparse)
    counter = WorldCounter(history, viewers, marginals=wanted, options=options)
    return counter.count, counter.origin_counts()


class _Spy:
    """Records what ``sparse`` returned (None: it gave up) and calls it."""

    def __init__(self, monkeypatch) -> None:
        self.results: list[int | None] = []
        kernel = counting.sparse._kernel
        original = kernel.sparse

        def spy(*args):
            result = original(*args)
            self.results.append(result)
            return result

        proxy = type("Kernel", (), {})()
        for name in dir(kernel):
            if not name.startswith("_"):
                setattr(proxy, name, getattr(kernel, name))
        proxy.sparse = spy
        monkeypatch.setattr(counting.sparse, "_kernel", proxy)


@pytest.mark.parametrize("wide", [False, True])
@on_random_positions(60, families=8, players=6, asks=30)
def test_sparse_programme_equals_the_dense_tables(
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
    count, origins = _answers(history, viewers, False, monkeypatch)
    spy = _Spy(monkeypatch)
    sparse = _answers(history, viewers, True, monkeypatch)
    assert sparse[0] == count
    assert (sparse[1] == origins).all()
    # It ran (tables of one family and no table at all are left to the dense path).
    assert any(r is not None for r in spy.results) or len(WorldCounter(history, viewers).tables) < 2


def _fish_game(players: int, each: int, draws: int, seed: int) -> kw.Game:
    rules = kw.RuleSet.preset("fish").replace(cards_each=each)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"][:players], seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    while not game.is_over and sum(isinstance(e, kw.events.Drew) for e in game.record) < draws:
        game.play(game.random_legal_ask(rng))
    return game


@pytest.mark.parametrize(("players", "each", "draws", "seed", "which"), [(4, 3, 18, 3, 1)])
def test_own_views_of_draw_pile_games_agree_by_default(
    players: int, each: int, draws: int, seed: int, which: int, monkeypatch, counting_options
) -> None:
    """Where a player sees a fish game after many draws (most of its table unreachable):
    by default Ryser's formula answers an agent's question (its count and two families'
    location counts) and the count alone, no tables; the sparse programme the origin
    counts asked for after that, or the dense tables where it gives up; every answer the
    dense tables'."""
    game = _fish_game(players, each, draws, seed)
    history = public_history(game)
    viewers = viewer_infos(game, which)
    counter = WorldCounter(history, viewers)
    assert counter.count > 0
    assert sum(1 for c in counter.cap if c == 1) >= 10  # draws the viewer did not see
    assert counter._tableless  # the count alone: by Ryser's formula
    cards = [8, 9, 10, 11, 20, 21, 22, 23]
    for wanted in (frozenset({2, 5}), True):  # an agent's question, and every family
        dense = _answers(history, viewers, False, monkeypatch, wanted=wanted)
        counting_options(ryser=False)
        expected = WorldCounter(history, viewers, marginals=wanted).location_rows(cards)
        counting_options(ryser=None)
        counting_options(sparse=None)
        spy = _Spy(monkeypatch)
        default = WorldCounter(history, viewers, marginals=wanted)
        if wanted is not True:  # with the count (every family waits for first use)
            assert default._ryser_programme is not None
        assert (default.location_rows(cards) == expected).all()
        assert isinstance(default._ryser_table, np.ndarray) and not spy.results
        assert default.count == dense[0]
        assert (default.origin_counts() == dense[1]).all()
        assert spy.results  # the origin counts: the maps tried


def test_over_budget_it_gives_up_and_the_dense_tables_answer(monkeypatch) -> None:
    game = _fish_game(4, 3, 12, 1)
    history = public_history(game)
    viewers = viewer_infos(game, 1)
    dense = _answers(history, viewers, False, monkeypatch)
    monkeypatch.setattr(counting.plan, "_SPARSE_SHARE", 1 << 62)  # a budget of 0
    spy = _Spy(monkeypatch)
    count, origins = _answers(history, viewers, None, monkeypatch)
    assert spy.results and all(r is None for r in spy.results)
    assert count == dense[0]
    assert (origins == dense[1]).all()


def test_maps_beyond_their_limit_give_up(monkeypatch, counting_options) -> None:
    """A state limit below what the position reaches: None, and the dense tables answer."""
    game = _fish_game(4, 3, 18, 3)
    history = public_history(game)
    viewers = viewer_infos(game, 1)
    counter = WorldCounter(history, viewers)
    polys = [(t.vectors, t.weights) for t in counter.tables]
    wide = counter.bound >= 1 << 63
    exact = counting.sparse._kernel.sparse(counter.cap, polys, [], wide, 1 << 62, 1 << 40)
    assert exact == counter.count
    assert counting.sparse._kernel.sparse(counter.cap, polys, [], wide, 1 << 62, 100) is None
    monkeypatch.setattr(counting.plan, "_SPARSE_DENSITY", counter.table_size // 16)  # 16 states
    counting_options(ryser=False)  # it would count without maps
    spy = _Spy(monkeypatch)
    assert WorldCounter(history, viewers).count == counter.count
    assert spy.results and all(r is None for r in spy.results)


def test_states_beyond_63_bits_are_left_to_the_dense_tables() -> None:
    """32 dimensions of capacity 1 take 64 bits packed (a guard bit each): None."""
    cap = (1,) * 32
    vectors = np.eye(32, dtype=np.int64)
    weights = np.ones(32, dtype=np.int64)
    polys = [(vectors, weights), (vectors, weights)]
    assert counting.sparse._kernel.sparse(cap, polys, [], False, 1 << 40, 1 << 40) is None
    # 31 of them fit: two families of one unit vector each fill two of 31 slots only.
    cap = (1,) * 31
    vectors = np.eye(31, dtype=np.int64)
    weights = np.ones(31, dtype=np.int64)
    polys = [(vectors, weights), (vectors, weights)]
    assert counting.sparse._kernel.sparse(cap, polys, [], False, 1 << 40, 1 << 40) == 0
    cap = (1, 1)
    vectors = np.eye(2, dtype=np.int64)
    polys = [(vectors, np.ones(2, dtype=np.int64))] * 2
    assert (
        counting.sparse._kernel.sparse(cap, polys, [], False, 1 << 40, 1 << 40) == 2
    )  # either order


def test_the_kernel_refuses_malformed_calls() -> None:
    vectors = np.zeros((1, 2), dtype=np.int64)
    weights = np.ones(1, dtype=np.int64)
    with pytest.raises(ValueError, match="polys"):
        counting.sparse._kernel.sparse(
            (1, 1), [(vectors,), (vectors, weights)], [], False, 100, 100
        )
    with pytest.raises(ValueError, match="wanted"):
        counting.sparse._kernel.sparse(
            (1, 1), [(vectors, weights)] * 2, [(5, None, None)], False, 100, 100
        )
    out = np.zeros(1, dtype=np.int64)
    card_slot = np.zeros(1, dtype=np.int64)
    with pytest.raises(ValueError, match="wanted"):
        counting.sparse._kernel.sparse(
            (1, 1),
            [(vectors, weights)] * 2,
            [(0, card_slot, out), (0, card_slot, out)],
            False,
            9,
            9,
        )
