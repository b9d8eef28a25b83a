"""Memory stays flat over long runs (a few hundred games here; experiments/bench_memory.py
runs 20,000 and a 10,000-game tournament).

After a warm-up, games of random play with an epistemic state per player, and a
tournament of ``knowledge`` agents, must leave nothing behind: the interpreter's
allocated memory blocks (``sys.getallocatedblocks``: every object, container and small
buffer) are as many after the games as before, within a small bound, once the library's
bounded caches are emptied; each of those caches stays within its own limit; and
resident memory (which also sees NumPy's buffers and the compiled kernel's allocations)
does not climb.
"""

from __future__ import annotations

import gc
import importlib
import os
import sys
from collections.abc import Callable

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics import counting

game_module = importlib.import_module("kwartet_epistemic.game")

BLOCKS_BOUND = 500  # interpreter memory blocks the measured games may leave allocated
RESIDENT_BOUND = 16 * 2**20  # bytes of resident memory the measured games may add


def _resident() -> int:
    with open("/proc/self/statm", encoding="ascii") as statm:
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _bounded_caches_within_their_limits() -> None:
    """Every bounded module-level cache is within its limit (the limits as the library
    states them: cleared when full, or the oldest dropped)."""
    for name, (size, limit) in counting.clear().items():
        assert size <= limit + 1, f"the counting engine's {name}: {size} > {limit}"
    assert len(game_module._PICKERS) <= game_module._MAX_PICKERS
    assert len(game_module._CHECKED_PLAYERS) <= 1024


def _empty_bounded_caches() -> None:
    """Empty the caches that are bounded (and so may hold up to their limit at any
    time), so that what is left is what nothing bounds."""
    counting.clear()
    game_module._PICKERS.clear()
    game_module._CHECKED_PLAYERS.clear()


def _left_behind(play: Callable[[int], None], warm_up: int, measured: int) -> tuple[int, int]:
    """Play ``warm_up`` games, then ``measured`` more: the interpreter memory blocks the
    measured games left allocated (bounded caches emptied) and the resident growth."""
    for number in range(warm_up):
        play(number)
    _empty_bounded_caches()
    gc.collect()
    blocks, resident = sys.getallocatedblocks(), _resident()
    for number in range(warm_up, warm_up + measured):
        play(number)
    _bounded_caches_within_their_limits()
    _empty_bounded_caches()
    gc.collect()
    return sys.getallocatedblocks() - blocks, _resident() - resident


@pytest.fixture
def small_caches(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bounded caches' limits lowered, so that a few hundred games fill them."""
    monkeypatch.setattr(counting.family, "_CACHE_LIMIT", 200)
    monkeypatch.setattr(counting.counter, "_MAX_LAYOUTS", 64)
    monkeypatch.setattr(game_module, "_MAX_PICKERS", 128)


def _random_play(setups: list[tuple[str, int, int, dict[str, object]]]) -> Callable[[int], None]:
    def play(number: int) -> None:
        preset, families, players, changes = setups[number % len(setups)]
        rules = kw.RuleSet.preset(preset).replace(**changes)
        deck = kw.Deck.piquet(families=families)
        game = kw.Game.deal(deck, list("ABCDEF"[:players]), seed=number, rules=rules)
        rng = np.random.default_rng(number)
        states = {p: kw.knowledge(game) for p in game.players}  # one per player
        while not game.is_over:
            game.play(game.random_legal_ask(rng))
            for p, state in states.items():
                assert state.count_worlds(p) >= 1
                state.location_probabilities(p)
        if number % 10 == 0:
            for p in game.players:
                kw.knowledge(game.view(p)).count_worlds(p)

    return play


@pytest.mark.usefixtures("small_caches")
def test_random_play_with_a_state_per_player_leaves_nothing_behind() -> None:
    play = _random_play(
        [("publisher", 4, 3, {}), ("lamas", 4, 4, {}), ("dutch", 4, 3, {}),
         ("publisher", 4, 3, {"memory_cards": 1, "bluffing": True})]
    )  # fmt: skip
    blocks, resident = _left_behind(play, warm_up=100, measured=200)
    assert blocks <= BLOCKS_BOUND, f"{blocks} blocks left behind by 200 games"
    assert resident <= RESIDENT_BOUND


@pytest.mark.usefixtures("small_caches")
def test_a_tournament_of_knowledge_agents_leaves_nothing_behind() -> None:
    deck = kw.Deck.piquet(families=4)

    def play(number: int) -> None:
        kw.tournament(["knowledge"] * 4, games=4, seed=number, deck=deck)

    blocks, resident = _left_behind(play, warm_up=25, measured=50)  # 4 games each
    assert blocks <= BLOCKS_BOUND, f"{blocks} blocks left behind by 200 games"
    assert resident <= RESIDENT_BOUND


@pytest.mark.usefixtures("small_caches")
def test_random_play_with_a_draw_pile_leaves_nothing_behind() -> None:
    play = _random_play([("fish", 4, 2, {"cards_each": 3}), ("fish", 4, 3, {"cards_each": 3})])
    blocks, resident = _left_behind(play, warm_up=60, measured=120)
    assert blocks <= BLOCKS_BOUND, f"{blocks} blocks left behind by 120 games"
    assert resident <= RESIDENT_BOUND
