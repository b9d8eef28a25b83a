"""experiments/rules_compare.py: the rules and deduction (research question d).

One 32-card game per rule set, measured by the script's core, with invariants: counts in
range, the public model's places are known to every player and true, common knowledge of
a family comes no later than its exposure, the scores count the exposed families, Memory
Kwartet turns every middle card over, the knowledge agents never bluff.  The
common-knowledge definition against the explicit Kripke model's own ``C`` operator on
small games of every rule set.  A resumed run equals a fresh one.
"""

from __future__ import annotations

import csv
from pathlib import Path

import numpy as np
import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.invariants import play_random_action

ROOT = Path(__file__).resolve().parents[2]


rc = load_script("experiments/rules_compare.py")
SEED = 14_400


@pytest.fixture(scope="module", params=list(rc.RULE_SETS))
def played(request):
    return rc.play_measured(request.param, 0, SEED + 3)


def test_rows_in_range_and_in_order(played):
    moves, game = played.moves, played.game
    assert [m["turn"] for m in moves] == list(range(game["asks"] + 1))
    deck = kw.Deck.piquet()
    in_play = len(deck) - (rc.MEMORY_CARDS if played.rules == "memory" else 0)
    for m in moves:
        for p in rc.SEATS:
            assert 0 <= m[f"located_{p}"] <= m[f"hidden_{p}"] <= in_play
        assert 0 <= m["public_located"] <= m["public_hidden"] <= in_play
        assert 0 <= m["ck_families"] <= deck.n_families
    assert moves[-1]["public_hidden"] == (3 * sum(game[f"exposed_{f}"] == "" for f in deck.families)
                                          if played.rules == "memory" else 0)  # fmt: skip
    assert game["finished"] == 1
    assert 1 <= game["turns"] <= game["asks"]
    assert game["bluffs"] == 0  # the knowledge policy never asks for its own card


def test_family_times_and_scores(played):
    game, deck = played.game, kw.Deck.piquet()
    exposed = 0
    for f in deck.families:
        ck, shown = game[f"ck_{f}"], game[f"exposed_{f}"]
        if shown != "":
            exposed += 1
            assert ck != "" and 0 <= ck <= shown <= game["asks"]
    assert sum(game[f"score_{p}"] for p in rc.SEATS) == exposed
    if played.rules == "memory":
        assert game["turn_overs"] == rc.MEMORY_CARDS and exposed < deck.n_families
    else:
        assert game["turn_overs"] == 0 and exposed == deck.n_families
    if played.rules != "fish":  # without draws public knowledge only grows
        counts = [m["ck_families"] for m in played.moves]
        assert counts == sorted(counts)


@pytest.mark.parametrize("rules", ["publisher", "fish", "bluffing"])
def test_public_places_are_true_and_known_to_everyone(rules):
    game = kw.Game.deal(kw.Deck.piquet(), list(rc.SEATS), seed=SEED, rules=rc.RULE_SETS[rules])
    rng = np.random.default_rng(1)

    seen_located = 0
    for _ in range(40):
        if game.is_over:
            break
        state = kw.knowledge(game)
        places = rc.public_places(state)
        for card in game.deck.cards:
            place = places[card.index]
            holder = next((p for p in rc.SEATS if card in game.hand(p)), None)
            if place in rc.SEATS:
                seen_located += 1
                assert place == holder
                assert all(state.knows_location(p, card) == place for p in rc.SEATS)
            elif place == "pile":
                assert holder is None
        for p in rc.SEATS:  # the script's count agrees with knows_location
            hidden, located = rc.player_located(state, game, p)
            others = [c for q in rc.SEATS if q != p for c in game.hand(q)]
            assert hidden == len(others)
            assert located == sum(state.knows_location(p, c) is not None for c in others)
        play_random_action(game, rng)
    assert seen_located > 0


@pytest.mark.parametrize("rules", list(rc.RULE_SETS))
def test_common_knowledge_is_the_public_model(rules):
    check = rc.check_common_knowledge(rules, 1, seed=5)
    assert check["positions"] > 1 and check["public_located"] > 0
    # located in the public model implies C, under every rule set
    assert check["public_located_agree"] == check["public_located"]
    if rules != "bluffing":  # with bluffing the component can be smaller (module docstring)
        assert check["component_whole"] == check["positions"]
        assert check["cards_agree"] == check["cards"]


def test_a_refusal_makes_a_place_common_knowledge():
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    before = rc.public_places(kw.knowledge(game))
    game.ask("B", "7D")  # B: no; A holds a seven and not 7D, so C holds 7D
    after = rc.public_places(kw.knowledge(game))
    card = game.deck.card("7D").index
    assert before[card] is None and after[card] == "C"
    state = kw.knowledge(game)
    assert state.holds("C_{A,B,C} has(C, 7D)")
    assert not state.holds("C_{A,B,C} has(B, 7H)") and after[game.deck.card("7H").index] is None


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return sorted(csv.DictReader(handle), key=lambda r: (r["rules"], int(r["game"]),
                                                              int(r.get("turn", 0))))  # fmt: skip


def _strip(rows):
    return [{k: v for k, v in r.items() if k != "cpu_s"} for r in rows]


def test_resumed_run_equals_fresh_run(tmp_path):
    names = ("publisher", "memory")
    fresh, resumed = tmp_path / "fresh", tmp_path / "resumed"
    summary = rc.run(2, fresh, names, check_games=0)
    for s in summary.values():
        assert s["games"] == 2
        assert sum(r.win_share for r in s["by_seat"]) == pytest.approx(1.0)
        assert sum(r.win_share for r in s["by_position"]) == pytest.approx(1.0)
    rc.run(1, resumed, names, check_games=0)
    with (resumed / "rules_compare_moves.csv").open("a", newline="") as handle:
        handle.write("publisher,1,0,24,24,24,24,0,0,0,0,32,0,0\n")  # a torn game: no game row
    rc.run(2, resumed, names, check_games=0)
    for name in ("rules_compare_games.csv", "rules_compare_moves.csv"):
        assert _strip(_rows(fresh / name)) == _strip(_rows(resumed / name))
    numbers = (fresh / "rules_compare_numbers.tex").read_text()
    assert "\\newcommand{\\kwRulesPublisherFirst}" in numbers
    assert (fresh / "rules_compare_located.png").stat().st_size > 0
