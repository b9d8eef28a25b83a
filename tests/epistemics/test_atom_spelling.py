"""One spelling rule for a game's atoms: a card in any spelling the deck reads, in
kw.knowledge, in the game's Kripke model, its announcements and its drawings."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.errors import ModelError

SPELLINGS = ["7D", "7d", "7♦", "seven of diamonds", " 7D "]


@pytest.fixture(scope="module")
def game() -> kw.Game:
    return kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)


@pytest.mark.parametrize("card", SPELLINGS)
@pytest.mark.parametrize(
    "template", ["K_A has(C, {})", "has(B, {}) | M_B has(A, {})", "C_{{A,B,C}} ~has(A, {})"]
)
def test_the_model_reads_every_spelling_the_state_reads(
    game: kw.Game, card: str, template: str
) -> None:
    state = kw.knowledge(game)
    model = state.kripke_model()
    formula = template.format(card, card)
    canonical = template.format("7D", "7D")
    assert model.holds(formula) == model.holds(canonical) == state.holds(formula)
    assert np.array_equal(model.truth_set(formula), model.truth_set(canonical))
    after = model.announce(f"~has(A, {card})")  # an announcement keeps the spelling
    assert np.array_equal(after.truth_set(formula), after.truth_set(canonical))


def test_what_is_no_atom_of_the_game_is_a_model_error(game: kw.Game) -> None:
    model = kw.knowledge(game).kripke_model()
    for bad, said in [
        ("K_A has(Z, 7D)", "a player of the game"),
        ("K_A has(C, 9Z)", "no card '9Z'"),
        ("K_A p", "expected has\\(player, card\\)"),
    ]:
        with pytest.raises(ModelError, match=said):
            model.holds(bad)
        with pytest.raises(ValueError):
            model.truth_set(bad)


def test_a_drawing_marks_the_same_worlds_in_any_spelling(game: kw.Game) -> None:
    model = kw.knowledge(game.view("A")).kripke_model()
    a = kw.viz.draw_kripke(model, highlight="has(B, 7♥)")
    b = kw.viz.draw_kripke(model, highlight="has(B, 7H)")
    faces = [
        [tuple(c) for coll in fig.axes[0].collections for c in coll.get_facecolors()]
        for fig in (a, b)
    ]
    assert faces[0] == faces[1]


def test_a_model_without_a_spelling_keeps_its_strict_vocabulary() -> None:
    model = kw.KripkeModel(2, {"A": [0, 0]}, {"has(C, 7D)": [True, False]})
    with pytest.raises(ModelError, match="not in the model's vocabulary"):
        model.holds("has(C, 7♦)")
    with pytest.raises(ModelError, match="spelling"):
        kw.KripkeModel(2, {"A": [0, 0]}, spelling="7D")  # type: ignore[arg-type]
