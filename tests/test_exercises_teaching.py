"""kw.exercises as teaching material: small answers cannot be guessed except in the
deliberate multiple-choice questions, whose feedback explains the option chosen; hints
point at the idea, not at the call that computes the answer; every exercise's text says
what its check accepts; the verdict shows once in a notebook; the worked solutions live in
the teachers' folder."""

from __future__ import annotations

import itertools
import json
import re
import tomllib
from pathlib import Path

import pytest

import kwartet_epistemic as kw
from kwartet_epistemic import exercises

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = sorted((ROOT / "notebooks").glob("0*.ipynb"))
SOURCE = Path(exercises.__file__).read_text(encoding="utf-8")

# what a student would try first in a loop: small ints, booleans, the players, option letters
SMALL: list[object] = [*range(21), True, False, *"ABCD", *"abcdefgh"]


def _guesses() -> list[object]:
    return [*SMALL, *itertools.product(SMALL, repeat=2)]


def _recovered(key: str) -> list[object]:
    found = []
    for guess in _guesses():
        try:
            if exercises.check(key, guess):
                found.append(guess)
        except kw.KwartetError:
            continue
    return found


def test_guessing_small_answers_recovers_only_the_multiple_choice_ones() -> None:
    recovered = {key for key in exercises.exercise_ids() if _recovered(key)}
    multiple_choice = {key for key in exercises.exercise_ids() if exercises.choices(key)}
    assert recovered <= multiple_choice, sorted(recovered - multiple_choice)
    # the questions that were guessable are now multiple choice or ask for reasoning
    assert {"02.5", "04.2", "04.4", "05.2"} <= multiple_choice


@pytest.mark.parametrize(
    "key", [k for k in exercises.exercise_ids() if exercises.choices(k)] or ["none"]
)
def test_multiple_choice_feedback_explains_the_option_chosen(key: str) -> None:
    options = exercises.choices(key)
    results = [exercises.check(key, letter) for letter in "abcdefgh"[: len(options)]]
    assert sum(r.correct is True for r in results) == 1, [r.message for r in results]
    for letter, option, result in zip("abcdefgh", options, results, strict=False):
        verdict = "right" if result.correct else "not right"
        head = f"{key}: {verdict}: ({letter}) {option}."
        assert result.message.startswith(head)
        # more than right/wrong: an explanation of this option follows the verdict
        explanation = result.message[len(head) :].split(" Hint: ")[0].strip()
        assert len(explanation) > 30, result.message
    explanations = {r.message.split(". ", 1)[1] for r in results}
    assert len(explanations) == len(options)  # each option gets its own explanation
    # the option's text picks it as well as its letter
    assert exercises.check(key, options[0].upper()).correct == results[0].correct


def test_an_answer_that_is_not_an_option_names_the_options() -> None:
    with pytest.raises(kw.ExerciseAnswerError, match=r"exercise 05\.2: answer 'z': .*\(a\) "):
        exercises.check("05.2", "z")
    with pytest.raises(kw.ExerciseAnswerError, match=r"exercise 02\.5: answer 2:"):
        exercises.check("02.5", 2)
    assert issubclass(kw.ExerciseAnswerError, ValueError)


def test_the_tip_options_are_the_library_tips() -> None:
    assert exercises.choices("06.5") == tuple(t for t in kw.agents.TIPS if t != "remember")


# ----- no answers in the package or the notebooks ----------------------------------


def _student_text() -> str:
    return "\n".join(
        "".join(c["source"])
        for p in NOTEBOOKS
        for c in json.loads(p.read_text(encoding="utf-8"))["cells"]
    )


def test_no_answer_literal_in_the_package_or_the_student_notebooks() -> None:
    # the yes announcement of notebook 2 is built from the ask, not written out
    assert "has(C, 7D)" not in SOURCE and "has(A, 7S)" not in SOURCE
    # the muddy-children question no longer states its own answer
    text = _student_text()
    assert "after exactly 3 rounds" not in text
    assert "it is common knowledge that at least 3 are muddy" not in text
    # nor does the question on search's objective
    assert "which scores its final lead" not in text
    assert "family_cards(0)[0]" not in text


def test_the_stored_answer_is_a_digest_of_an_option() -> None:
    digest = exercises._digest("05.2", "polynomial")
    assert digest in SOURCE
    assert exercises.check("05.2", "polynomial")


# ----- hints point at the idea -----------------------------------------------------


def _hints() -> dict[str, str]:
    hints = {}
    for key in exercises.exercise_ids():
        wrong = {"05.3": ["012", "034", "056", "135", "246"]}.get(key)
        if exercises.choices(key):
            message = exercises.check(key, "a").message
            if "Hint: " not in message:
                message = exercises.check(key, "b").message
        elif wrong is not None:
            message = exercises.check(key, wrong).message
        else:
            continue
        hints[key] = message.split("Hint: ", 1)[1]
    return hints


def test_hints_name_no_call_that_computes_the_answer() -> None:
    calls = re.compile(r"kw\.|\.\w+\(|\w\(\)|help\(")
    for key, hint in _hints().items():
        assert calls.search(hint) is None, (key, hint)
    # the hints that used to be the code of the answer
    assert "use kw.viz.kripke_to_tikz" not in SOURCE
    assert "print(deck.family_cards" not in SOURCE


# ----- the text of every exercise says what its check accepts ----------------------


def _exercise_cells() -> dict[str, tuple[str, str]]:
    cells: dict[str, tuple[str, str]] = {}
    for path in NOTEBOOKS:
        notebook = json.loads(path.read_text(encoding="utf-8"))["cells"]
        for text_cell, code_cell in itertools.pairwise(notebook):
            code = "".join(code_cell["source"])
            found = re.search(r'kw\.exercises\.check\("(\d\d\.\d)"', code)
            if found:
                cells[found.group(1)] = ("".join(text_cell["source"]), code)
    return cells


def test_every_answer_comment_is_what_the_check_describes() -> None:
    cells = _exercise_cells()
    assert sorted(cells) == exercises.exercise_ids()
    for key, (text, code) in cells.items():
        if exercises.choices(key):
            assert "# Answer: one letter of the options above" in code, key
            for letter, option in zip("abcdefgh", exercises.choices(key), strict=False):
                plain = " ".join(text.replace("`", "").replace("- ", " ").split())
                assert f"({letter}) {option}" in plain, (key, option)
        else:
            assert f"# Answer: {exercises.describe(key)}\n" in code, key


def test_texts_that_used_to_ask_for_something_else() -> None:
    cells = _exercise_cells()
    # the position is the notebook's state after move 12, which is what the check uses
    assert "of your choice" not in cells["03.4"][0] and "after move 12" in cells["03.4"][0]
    assert "after move 12" in exercises.describe("03.4")
    # "why is it the whole model?" is answered by a reason, not a number
    assert exercises.choices("02.5") and "Why is it the whole model?" in cells["02.5"][0]
    # "which worlds can C tell apart" is answered by C's blocks
    assert "blocks" in cells["02.4"][0] and "blocks" in exercises.describe("02.4")
    # "which error, and which entry" asks for both
    assert "error's class" in exercises.describe("01.4")
    assert exercises.check("01.4", (kw.RecordError, 0)).correct is False


def test_reasoning_answers_are_checked() -> None:
    # 05.1: the world counts round by round, not a pair (int, bool)
    model = kw.examples.muddy_children(4, muddy=4).announce(kw.examples.father_announcement(4))
    counts = [model.n_worlds]
    while not model.holds("K_1 m1 & K_2 m2 & K_3 m3 & K_4 m4"):
        model = model.announce(kw.examples.nobody_knows(4))
        counts.append(model.n_worlds)
    assert exercises.check("05.1", counts)
    assert not exercises.check("05.1", counts[:-1])
    with pytest.raises(kw.ExerciseAnswerError, match="exercise 05.1"):
        exercises.check("05.1", (3, True))
    # 03.1: a truth value alone is no longer an answer
    with pytest.raises(kw.ExerciseAnswerError, match="exercise 03.1"):
        exercises.check("03.1", False)


# ----- display ---------------------------------------------------------------------


def test_check_prints_nothing_and_its_verdict_displays_the_message_once(
    capsys: pytest.CaptureFixture[str],
) -> None:
    result = exercises.check("02.1", (1, 2))
    assert capsys.readouterr().out == ""
    assert repr(result) == str(result) == result.message
    assert "CheckResult" not in repr(result)
    page = result._repr_html_()
    assert page.count("02.1: not right") == 1
    # formula text in a message is escaped, not read as markup
    tagged = exercises.CheckResult("02.3", False, "02.3: not right. Hint: <b> & C_{A,B}")
    assert "&lt;b&gt; &amp; C_{A,B}" in tagged._repr_html_()
    # quiet is still accepted from older code and changes nothing
    assert exercises.check("02.1", (1, 2), quiet=True).message == result.message


def test_the_module_docstring_documents_the_display() -> None:
    assert "never prints" in (exercises.__doc__ or "")


# ----- the worked solutions are for teachers ---------------------------------------


def test_the_solutions_live_in_the_teachers_folder() -> None:
    teacher = ROOT / "notebooks" / "teacher"
    assert (teacher / "solutions.ipynb").is_file()
    assert not (ROOT / "notebooks" / "solutions").exists()
    note = (teacher / "README.md").read_text(encoding="utf-8")
    assert "notebooks/*.ipynb" in note and "notebooks/assignment" in note
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "notebooks/teacher/solutions.ipynb" in readme
    assert "notebooks/solutions/" not in readme
    # nbmake still runs it: the notebooks folder is collected recursively
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_ini = config["tool"]["pytest"]["ini_options"]
    assert "notebooks" in pytest_ini["testpaths"] and "--nbmake" in pytest_ini["addopts"]
    assert "teacher" not in " ".join(pytest_ini.get("norecursedirs", []))
    solutions = json.loads((teacher / "solutions.ipynb").read_text(encoding="utf-8"))
    code = "\n".join("".join(c["source"]) for c in solutions["cells"])
    for key in exercises.exercise_ids():
        assert f'kw.exercises.check("{key}"' in code, key
    for cell in solutions["cells"]:
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
