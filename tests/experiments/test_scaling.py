"""experiments/scaling.py and the counting programme's states it reports.

``WorldCounter.programme_states`` against the forward and backward tables recomputed
here from the families' polynomials (every entry that carries a world lies within the
states counted, and they never exceed the dense table); the experiment's core at tiny
sizes (one event per ask plus the deal, the statuses of a cell, the CPU budget, the
summary's statistics); dining cryptographers as SMCDEL states it (the announcement is
what makes the formula valid).
"""

from __future__ import annotations

import itertools
import math
import time
from pathlib import Path

import numpy as np
import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PublicHistory, private_info

ROOT = Path(__file__).resolve().parents[2]


scaling = load_script("experiments/scaling.py")


def _history(players: int, cards: int, seed: int, asks: int) -> tuple[kw.Game, PublicHistory]:
    game = kw.Game.deal(scaling.deck_of(cards), list("ABCDEF"[:players]), seed=seed)
    rng = np.random.default_rng(seed)
    for _ in range(asks):
        if game.is_over:
            break
        game.play(game.random_legal_ask(rng))
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record)
    return game, history


def _tables(counter: WorldCounter) -> tuple[list[np.ndarray], list[np.ndarray]]:
    """Dense forward and backward tables (Python ints), recomputed from the polynomials."""
    cap = counter.cap
    shape = tuple(c + 1 for c in cap)

    def unit() -> np.ndarray:
        array = np.zeros(shape, dtype=object)
        array[(0,) * len(shape)] = 1
        return array

    def times(array: np.ndarray, table) -> np.ndarray:
        result = np.zeros(shape, dtype=object)
        for index in itertools.product(*(range(s) for s in shape)):
            if not array[index]:
                continue
            for vector, weight in zip(table.vectors.tolist(), table.weights.tolist(), strict=True):
                target = tuple(i + v for i, v in zip(index, vector, strict=True))
                if all(t <= c for t, c in zip(target, cap, strict=True)):
                    result[target] += weight * array[index]
        return result

    forward = [unit()]
    for table in counter.tables:
        forward.append(times(forward[-1], table))
    backward = [unit()]
    for table in reversed(counter.tables):
        backward.append(times(backward[-1], table))
    return forward, backward[::-1]


@pytest.mark.parametrize(
    ("players", "cards", "seed", "asks"),
    [(3, 12, 1, 0), (4, 16, 2, 3), (3, 20, 5, 6), (5, 20, 3, 2)],
)
def test_programme_states_hold_every_useful_entry(players, cards, seed, asks) -> None:
    game, history = _history(players, cards, seed, asks)
    view = game.view(game.players[0])
    for infos in ([], [private_info(game.deck, view.player, view.hand, view.record)]):
        counter = WorldCounter(history, infos)
        states = counter.programme_states()
        assert len(states) == len(counter.tables) + 1
        assert states[0] == 1 and states[-1] == 1
        dense = math.prod(c + 1 for c in counter.cap)
        assert all(0 < s <= dense for s in states)
        forward, backward = _tables(counter)
        assert forward[-1][counter.cap] == counter.programme_count
        cap = np.array(counter.cap)
        for i, (head, tail) in enumerate(zip(forward, backward, strict=True)):
            # entries that carry a world: reached by the first i families, completed by
            # the rest; the kernel's bounds must keep every one of them
            useful = sum(
                1
                for index in itertools.product(*(range(c + 1) for c in counter.cap))
                if head[index] and tail[tuple(cap - np.array(index))]
            )
            assert useful <= states[i], (i, useful, states[i])


def test_programme_states_without_a_world_and_the_total() -> None:
    _, history = _history(4, 20, 7, 10)
    counter = WorldCounter(history)
    assert counter.programme_state_total() >= sum(counter.programme_states())
    if counter._dead_worlds is None and not counter._stuck_worlds:
        assert counter.programme_state_total() == sum(counter.programme_states())
    card = next(c for c in range(len(history.deck)) if history.location[c] is None)
    impossible = WorldCounter(history, restrict={card: 0})  # no origin at all
    if impossible.zero:
        assert impossible.programme_states() == ()
        assert impossible.programme_state_total() == 0


def test_counting_cell_times_every_event_and_counts_states() -> None:
    events, status = scaling.run_cell("counting", 3, 12, 0, None, 60)
    assert status == "done"
    game = kw.Game.deal(scaling.deck_of(12), ["A", "B", "C"], seed=0)
    rng = np.random.default_rng(0)
    asks = 0
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
        asks += 1
    assert [e.event for e in events] == list(range(asks + 1))  # the deal, then each ask
    assert all(e.cpu_s >= 0 for e in events)
    assert all(e.states is not None and e.states >= 3 for e in events)  # >= 1 per player
    assert all(e.term_states is not None and e.term_states >= 0 for e in events)
    # states shrink as the game reveals cards: the deal is the largest programme
    assert events[0].states == max(e.states for e in events)


def test_other_engines_cells_and_statuses() -> None:
    events, status = scaling.run_cell("symbolic", 3, 12, 0, 2, 60)
    assert status == "done" and [e.event for e in events] == [0, 1, 2]
    assert all(e.states is None for e in events)
    events, status = scaling.run_cell("explicit", 4, 16, 0, 2, 60)
    assert (events, status) == ([], "too large")
    events, status = scaling.run_cell("counting", 6, 12, 0, 1, 60)
    assert status == "done" and len(events) == 2  # 2 cards each still deals


def test_cpu_budget_stops_a_busy_block() -> None:
    start = time.process_time()
    with pytest.raises(scaling.OverBudget), scaling.CpuBudget(0.2):
        while time.process_time() - start < 5:
            sum(range(1000))
    assert time.process_time() - start < 2


def test_summary_statistics_and_resume_file(tmp_path: Path) -> None:
    rows = [
        scaling._row("counting", 3, 12, 0, scaling.EventCost(i, i / 1000, 10 * i, i), "event")
        for i in range(1, 11)
    ]
    rows.append(scaling._row("symbolic", 3, 16, 0, None, "over budget"))
    path = tmp_path / "events.csv.gz"
    scaling.append_rows(path, rows[:4])
    scaling.append_rows(path, rows[4:])
    back = scaling.read_events(path)
    assert len(back) == len(rows)
    summary = scaling.summarise(back, early=3)
    counting = next(r for r in summary if r["engine"] == "counting")
    assert counting["events"] == 10 and counting["early_events"] == 3
    assert float(counting["median_ms"]) == pytest.approx(5.5)
    assert float(counting["p90_ms"]) == pytest.approx(9.0)
    assert float(counting["max_ms"]) == pytest.approx(10.0)
    assert float(counting["early_max_ms"]) == pytest.approx(3.0)
    assert counting["median_states"] == 55
    symbolic = next(r for r in summary if r["engine"] == "symbolic")
    assert symbolic["events"] == 0 and symbolic["status"] == "over budget"


def test_smcdel_summary_takes_away_start_up() -> None:
    rows = [scaling._smcdel_row("start-up", "smcdel", r, 0.01 * (r + 1), float("nan"), True)
            for r in range(3)]  # fmt: skip
    rows += [scaling._smcdel_row("muddy-10", "ours", r, 0.05, 0.06, True) for r in range(3)]
    rows += [scaling._smcdel_row("muddy-10", "smcdel", r, 0.1 + r, 0.2, True) for r in range(3)]
    (entry,) = scaling.smcdel_summary(rows)
    assert entry["ours_cpu"] == pytest.approx(0.05)
    assert entry["smcdel_cpu"] == pytest.approx(1.1 - 0.02)


def test_dining_cryptographers_need_the_announcement() -> None:
    bench = scaling.bench_smcdel
    assert bench.dining_cryptographers(3) is True
    structure, seen = bench.dining_structure(3)
    assert structure.count_states() == 4 * 2**3  # who paid, times the three coins
    assert all(len(atoms) == 3 for atoms in seen.values())
    from kwartet_epistemic.logic import Atom, K, Not, disjunction

    # Before anything is said, cryptographer 1 cannot know that someone else paid.
    someone_else = K("1", disjunction(Atom(f"p{k}") for k in (2, 3)))
    assert not structure.is_satisfiable(Not(Atom("p1")) & someone_else)


def test_a_resume_file_cut_at_every_byte_of_its_last_game_redoes_that_game(
    tmp_path: Path,
) -> None:
    def game(seed: int) -> list[dict[str, object]]:
        return [
            scaling._row(
                "counting", 3, 12, seed, scaling.EventCost(i, i / 1000, 10 * i, i), "event"
            )
            for i in range(1, 4)
        ]

    path = tmp_path / "events.csv.gz"
    scaling.append_rows(path, game(140))
    scaling.append_rows(path, game(141))
    keep = path.stat().st_size
    scaling.append_rows(path, game(142))
    whole = path.read_bytes()
    for cut in range(keep, len(whole)):
        path.write_bytes(whole[:cut])
        rows = scaling.read_events(path)
        assert [r["seed"] for r in rows] == ["140"] * 3 + ["141"] * 3, cut
        scaling.append_rows(path, game(142))  # the resumed run plays it again
        assert [r["seed"] for r in scaling.read_events(path)][-3:] == ["142"] * 3
