"""kw.exercises: every exercise of the six notebooks has a check; right answers pass,
wrong ones fail with a hint, malformed ones are KwartetErrors naming the exercise, and no
answer is written in the notebooks or readable in the module."""

from __future__ import annotations

import itertools
import json
import math
import re
from pathlib import Path

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic import exercises

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.ipynb"))


def _source(path: Path) -> str:
    return "\n".join("".join(c["source"]) for c in json.loads(path.read_text())["cells"])


def _exercise_count(path: Path) -> int:
    cells = json.loads(path.read_text())["cells"]
    start = next(i for i, c in enumerate(cells) if "## Exercises" in "".join(c["source"]))
    return sum(
        1
        for c in cells[start:]
        if c["cell_type"] == "markdown" and re.match(r"(?s).*?\d\. ", "".join(c["source"]))
    )


def test_every_exercise_of_every_notebook_has_a_check() -> None:
    ids = [f"{p.name[:2]}.{k}" for p in NOTEBOOKS for k in range(1, _exercise_count(p) + 1)]
    assert len(ids) == 30
    assert exercises.exercise_ids() == ids
    for key in ids:
        assert f'kw.exercises.check("{key}", your_answer)' in "".join(map(_source, NOTEBOOKS))
        assert exercises.describe(key)


def test_placeholder_is_not_answered_yet() -> None:
    for key in exercises.exercise_ids():
        result = exercises.check(key, None)
        assert result.correct is None and not result
        assert result.message == f"{key}: not answered yet (expected {exercises.describe(key)})"


def _tiny() -> tuple[kw.Game, kw.KripkeModel]:
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}
    game = kw.Game.from_hands(kw.Deck.piquet(families=2), hands, first="A")
    return game, kw.knowledge(game).kripke_model()


def _right_answers() -> dict[str, object]:
    """Right answers of the cheap exercises, computed here independently of the module."""
    game, model = _tiny()
    blocks = math.comb(8, 3)
    fish = kw.Game.deal(kw.Deck.piquet(), list("ABCD"), seed=1, rules=kw.RuleSet.preset("fish"))
    m4_game = game.copy()
    for target, card in [("B", "7D"), ("C", "7D"), ("C", "8C"), ("A", "8S")]:
        m4_game.ask(target, card)
    m4 = kw.knowledge(m4_game).kripke_model()
    sum_hands = [h for h in itertools.combinations(range(7), 3) if sum(h) % 7 == 3]
    return {
        "01.1": (len(fish.hand("A")), [c.code for c in fish.stock]),
        "01.5": kw.Deck.themed("dutch_masters").family_cards(0)[0].name,
        "02.1": (blocks, model.n_worlds // blocks),
        "02.2": "has(C, 7D) & (has(A, 7S) | has(A, 7H) | has(A, 7C))",  # ~has(A, 7D) follows
        "02.3": "has(B, 7H)",
        "02.4": _blocks_by_hand(m4, "C"),
        "03.3": [("m1 | m2 | m3", "m1"), ("~m3", "m1 & m2"), ("m1", "K_2 m1")],
        "05.4": sum_hands,
        "06.4": kw.make_agent("search", "A").policy.objective,
    }


RIGHT = ["01.1", "01.5", "02.1", "02.2", "02.3", "02.4", "03.3", "05.4", "06.4"]


def _blocks_by_hand(model: kw.KripkeModel, player: str) -> list[set[int]]:
    """The player's blocks, found from the drawn worlds' labels (the player's hand in each)."""
    labels = kw.viz.world_labels(model)
    seat = "ABC".index(player)
    hands: dict[str, set[int]] = {}
    for world, label in enumerate(labels):
        hands.setdefault(label.split("|")[seat], set()).add(world)
    return list(hands.values())


def test_right_answer_keys() -> None:
    assert sorted(_right_answers()) == RIGHT


@pytest.mark.parametrize("key", RIGHT)
def test_right_answers_pass(key: str) -> None:
    assert exercises.check(key, _right_answers()[key], quiet=True).correct is True


def test_natural_forms_are_accepted() -> None:
    game, model = _tiny()
    assert exercises.check("02.1", [56, 10], quiet=True)
    assert exercises.check("02.1", (np.int64(56), 10.0), quiet=True)
    assert exercises.check(
        "02.2", kw.parse("has(C, 7D) & (has(A, 7S) | has(A, 7H) | has(A, 7C))"), quiet=True
    )
    sum_hands = [h for h in itertools.combinations(range(7), 3) if sum(h) % 7 == 3]
    assert exercises.check("05.4", {"".join(map(str, h)) for h in reversed(sum_hands)}, quiet=True)
    assert exercises.check("05.4", [list(h) for h in sum_hands], quiet=True)
    assert exercises.check(
        "01.5", "  " + kw.Deck.themed("dutch_masters").cards[0].name.upper(), quiet=True
    )


def test_a_card_answer_reads_codes_symbols_and_cards() -> None:
    state_game = exercises._language_game()[12]
    deck = state_game.deck
    for spelling in ["QS", "Q♠", "queen of spades", deck.card("QS")]:
        assert exercises.check("03.2", (spelling, None), quiet=True), spelling


WRONG = {
    "01.1": (8, []),
    "01.5": "Picasso",
    "02.1": (8, 70),
    "02.2": "has(C, 7D)",
    "02.3": "has(B, 8H) | ~has(B, 8H)",
    "02.4": [[0, 1, 2, 3, 4, 5]],
    "03.2": ("7S", None),
    "05.3": ["012", "034", "056", "135", "246"],
    "05.4": ["012", "345"],
    "06.4": "score",
}


@pytest.mark.parametrize("key", sorted(WRONG))
def test_wrong_answers_fail_with_a_hint(key: str) -> None:
    result = exercises.check(key, WRONG[key])
    assert result.correct is False and not result
    assert result.message.startswith(f"{key}: not right. Hint: ") and len(result.message) > 40


def test_a_hint_does_not_print_the_answer() -> None:
    answers = _right_answers()
    for key, wrong in WRONG.items():
        message = exercises.check(key, wrong, quiet=True).message
        if key in answers and isinstance(answers[key], int | str) and key != "06.4":
            assert re.search(rf"\b{re.escape(str(answers[key]))}\b", message) is None, key


@pytest.mark.parametrize(
    ("key", "answer"),
    [
        ("01.1", "seven"),
        ("01.1", (7,)),
        ("01.3", 5),
        ("02.1", "56"),
        ("02.2", "has(C, 7D) &"),
        ("02.4", True),
        ("03.2", ("ZZ", None)),
        ("03.4", ("AB", "Q", "QH")),
        ("05.1", (3, "yes")),
        ("02.5", "z"),
        ("02.5", 3),
        ("03.1", True),
        ("02.4", [[0, 1], [1, 2, 3, 4, 5]]),
        ("05.3", ["0123"]),
        ("06.3", "swap them"),
    ],
)
def test_malformed_answers_are_kwartet_errors_naming_the_exercise(key: str, answer: object) -> None:
    with pytest.raises(kw.KwartetError, match=rf"exercise {re.escape(key)}: .*expected"):
        exercises.check(key, answer)


def test_unknown_exercise_is_refused() -> None:
    with pytest.raises(kw.KwartetError, match="exercise '07.1': expected an exercise id"):
        exercises.check("07.1", 3)
    with pytest.raises(kw.KwartetError, match="exercise 21: expected"):
        exercises.check(21, 3)  # type: ignore[arg-type]


def test_a_formula_on_unknown_atoms_is_wrong_not_a_crash() -> None:
    result = exercises.check("02.3", "has(A, QH)", quiet=True)
    assert result.correct is False and "cannot be read" in result.message


def test_student_function_for_01_3() -> None:
    def fullest(view: kw.PlayerView) -> list[kw.Ask]:
        counts: dict[object, int] = {}
        for card in view.hand:
            counts[card.family] = counts.get(card.family, 0) + 1
        top = max(counts.values())
        return [a for a in view.legal_asks() if counts.get(a.card.family, 0) == top]

    assert exercises.check("01.3", fullest, quiet=True)
    assert not exercises.check("01.3", lambda view: view.legal_asks(), quiet=True)
    broken = exercises.check("01.3", lambda view: 1 / 0, quiet=True)
    assert broken.correct is False and "ZeroDivisionError" in broken.message


def test_game_answers_from_the_notebooks_positions() -> None:
    # 03.5: the first move after which ~has(B, 7S) is public and A knows C holds 7S
    positions = exercises._language_game()
    first = next(
        n
        for n in range(13, len(positions))
        if kw.knowledge(positions[n]).holds("C_{A,B,C,D} ~has(B, 7S) & K_A has(C, 7S)")
    )
    assert exercises.check("03.5", first, quiet=True)
    assert not exercises.check("03.5", first - 1, quiet=True)
    # 03.1: the formula and its truth value; a different formula with another truth value fails
    b_knows = " | ".join(f"K_B has({p}, JH)" for p in "ABCD")
    truth = bool(kw.knowledge(positions[12]).holds(f"K_A ~({b_knows})"))
    assert exercises.check("03.1", (f"K_A ~({b_knows})", truth))
    assert not exercises.check("03.1", (f"K_A ~({b_knows})", not truth))
    assert not exercises.check("03.1", (f"K_A ({b_knows})", not truth))


def test_no_answer_is_written_in_the_notebooks() -> None:
    answers = _right_answers()
    text = "\n".join(_source(p) for p in NOTEBOOKS)
    plain = [
        str(answers["01.1"]),
        str(answers["02.1"]),
        str(list(answers["02.1"])),  # type: ignore[call-overload]
        str(answers["01.5"]),
        str(answers["06.4"]),
        str(answers["05.4"]),
    ]
    for answer in plain:
        assert answer not in text, answer


def test_the_module_does_not_spell_the_stored_answers() -> None:
    source = Path(exercises.__file__).read_text()
    # the stored answer is a salted digest; the words it accepts are listed only as options
    assert exercises._digest("05.2", "polynomial") in source
    assert exercises.check("05.2", "Polynomial")
