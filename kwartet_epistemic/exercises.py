"""Exercises that check themselves: ``check("02.3", answer)`` says right or wrong.

Every exercise at the end of the six tutorial notebooks has an id ``"NN.k"`` (notebook
``NN``, exercise ``k``).  :func:`check` reads the answer in its natural forms (an int, card
codes or :class:`~kwartet_epistemic.Card` objects, a list or a set, formula text or a
:class:`~kwartet_epistemic.Formula`), says whether it is right, and gives a hint when it is
not, without ever showing the answer.  Most checks compute the right answer from the
library at check time (the notebook's own game replayed, a world count, the truth of a
formula; formulas are compared by their truth sets on the model the exercise is about, not
as text); the few answers that cannot be computed are stored as salted SHA-256 digests of
their canonical form.  An answer of ``None`` (the notebooks' placeholder) is "not answered
yet", and an answer of the wrong kind is a :class:`~kwartet_epistemic.KwartetError`
naming the exercise and what was expected.

Questions whose answer could only be one of two or three values (a bool, a player, a tiny
int) are either asked for their reasoning (a formula, a partition of worlds, a list of
counts: something that cannot be guessed in a few tries) or are *explained multiple
choice*: :func:`choices` lists the options, the student passes a letter (``"b"``) or the
option's text, and the verdict explains the option chosen with numbers computed from the
library, whether it is right or wrong.

Display: :func:`check` never prints.  It returns a :class:`CheckResult` whose display *is*
the verdict: a notebook cell ending with ``check(...)`` shows the message once (HTML), the
Python prompt shows it as text, and a script writes ``print(check(...))``.

>>> import kwartet_epistemic as kw
>>> kw.exercises.check("02.5", None)
02.5: not answered yet (expected one letter of the options a-d (or the option's text): ...)
>>> kw.exercises.check("02.4", [[0], [1, 2, 3, 4, 5]]).correct
False
>>> kw.exercises.check("02.4", "many")
Traceback (most recent call last):
...
kwartet_epistemic.errors.ExerciseAnswerError: exercise 02.4: answer 'many': expected C's blocks in m4: a list of sets of worlds (world indices 0-5 or names), each world in exactly one block
>>> len(kw.exercises.exercise_ids())
30
"""

from __future__ import annotations

import functools
import hashlib
import html
import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.errors import ExerciseAnswerError, KwartetError

__all__ = ["CheckResult", "check", "choices", "describe", "exercise_ids"]

_LETTERS = "abcdefgh"


@dataclass(frozen=True)
class CheckResult:
    """The verdict of :func:`check`: ``correct`` is True, False, or None (not answered).

    Its display is the message, once: ``repr`` and ``str`` are the message, and Jupyter
    shows it as HTML (``check`` itself prints nothing, so nothing is shown twice).

    >>> CheckResult("01.1", True, "01.1: right!")
    01.1: right!
    >>> CheckResult("01.1", True, "01.1: right!").correct
    True
    """

    exercise: str
    correct: bool | None
    message: str

    def __bool__(self) -> bool:
        return self.correct is True

    def __str__(self) -> str:
        return self.message

    def __repr__(self) -> str:
        return self.message

    def _repr_html_(self) -> str:
        # a mark the eye finds before reading: green right, red wrong, grey not answered
        mark, colour = {True: ("✔", "#1a7f37"), False: ("✘", "#cf222e"), None: ("…", "#57606a")}[
            self.correct
        ]
        return (
            f'<div class="kwartet-check"><span style="color:{colour};font-weight:bold">'
            f"{mark}</span> {html.escape(self.message)}</div>"
        )


class _Wrong(Exception):
    """Raised inside a check: the answer is well formed but wrong (carries the hint)."""


@dataclass(frozen=True)
class _Exercise:
    expects: str
    hint: str
    judge: Callable[[str, Any], Any]  # a bool, or (bool, evidence) for multiple choice
    # multiple choice: (option text, what choosing it means); the judge then takes the
    # option's index and returns (right, evidence computed from the library)
    options: tuple[tuple[str, str], ...] = ()


_EXERCISES: dict[str, _Exercise] = {}


def _exercise(key: str, expects: str, hint: str) -> Callable[[Callable[[str, Any], bool]], Any]:
    def register(judge: Callable[[str, Any], bool]) -> Callable[[str, Any], bool]:
        _EXERCISES[key] = _Exercise(expects, hint, judge)
        return judge

    return register


def _choice_exercise(
    key: str, hint: str, options: Iterable[tuple[str, str]]
) -> Callable[[Callable[[str, int], tuple[bool, str]]], Any]:
    listed = tuple(options)
    letters = _LETTERS[: len(listed)]
    expects = f"one letter of the options {letters[0]}-{letters[-1]} (or the option's text): " + (
        "; ".join(f"({letter}) {text}" for letter, (text, _) in zip(letters, listed, strict=True))
    )

    def register(
        judge: Callable[[str, int], tuple[bool, str]],
    ) -> Callable[[str, int], tuple[bool, str]]:
        _EXERCISES[key] = _Exercise(expects, hint, judge, listed)
        return judge

    return register


def exercise_ids() -> list[str]:
    """Every exercise id, in notebook order.

    >>> exercise_ids()[:3]
    ['01.1', '01.2', '01.3']
    """
    return sorted(_EXERCISES)


def describe(exercise: str) -> str:
    """What the check of ``exercise`` expects as an answer.

    >>> describe("02.1")
    'a pair (number of blocks, worlds per block) of ints'
    """
    return _lookup(exercise).expects


def choices(exercise: str) -> tuple[str, ...]:
    """The options of a multiple-choice exercise, in letter order (empty for the others).

    >>> choices("05.2")
    ('constant', 'linear', 'polynomial', 'exponential')
    >>> choices("02.1")
    ()
    """
    return tuple(text for text, _ in _lookup(exercise).options)


def _lookup(exercise: object) -> _Exercise:
    if not isinstance(exercise, str) or exercise not in _EXERCISES:
        raise ExerciseAnswerError(
            f"exercise {exercise!r}: expected an exercise id such as '02.3' "
            f"(notebook 02, exercise 3); known: {', '.join(sorted(_EXERCISES))}"
        )
    return _EXERCISES[exercise]


def check(exercise: str, answer: object, *, quiet: bool = True) -> CheckResult:
    """Check ``answer`` to ``exercise`` (e.g. ``"02.3"``) and return the verdict.

    ``None`` is "not answered yet".  A wrong answer gets a hint; the answer to a
    multiple-choice exercise (see :func:`choices`) gets an explanation of the option
    chosen, right or wrong.  An answer of the wrong kind raises an
    :class:`~kwartet_epistemic.ExerciseAnswerError` naming the exercise and what was
    expected.  Nothing is printed: the verdict displays itself (see the module docstring);
    ``quiet`` is accepted for older code and changes nothing.

    >>> import kwartet_epistemic as kw
    >>> kw.exercises.check("02.1", (6, 10)).correct
    False
    >>> print(kw.exercises.check("05.2", "a").message.split(":")[1])
     not right
    """
    del quiet  # check never prints; the keyword stays so that older calls keep working
    entry = _lookup(exercise)
    if answer is None:
        return CheckResult(
            exercise, None, f"{exercise}: not answered yet (expected {entry.expects})"
        )
    if entry.options:
        return _check_choice(exercise, entry, answer)
    try:
        right = entry.judge(exercise, answer)
    except _Wrong as wrong:
        right, detail = False, str(wrong)
    else:
        detail = ""
    if right:
        return CheckResult(exercise, True, f"{exercise}: right!")
    hint = f"{detail} {entry.hint}".strip()
    return CheckResult(exercise, False, f"{exercise}: not right. Hint: {hint}")


def _check_choice(exercise: str, entry: _Exercise, answer: object) -> CheckResult:
    index = _option(exercise, answer, [text for text, _ in entry.options])
    right, evidence = cast(tuple[bool, str], entry.judge(exercise, index))
    text, meaning = entry.options[index]
    verdict = "right" if right else "not right"
    # the feedback explains the option chosen (what it claims, and the library's numbers
    # that confirm or refute it); it never names which other option is right
    message = f"{exercise}: {verdict}: ({_LETTERS[index]}) {text}. {meaning} {evidence}".strip()
    if not right:
        message += f" Hint: {entry.hint}"
    return CheckResult(exercise, right, message)


def _option(exercise: str, answer: object, options: list[str]) -> int:
    if isinstance(answer, str):
        word = answer.strip().lower().strip("()").strip()
        letters = _LETTERS[: len(options)]
        if len(word) == 1 and word in letters:
            return letters.index(word)
        texts = [" ".join(o.lower().replace("_", " ").split()) for o in options]
        spoken = " ".join(word.replace("_", " ").split())
        if spoken in texts:
            return texts.index(spoken)
    raise _bad(exercise, answer)


# ----- reading answers -------------------------------------------------------------


def _bad(exercise: str, answer: object, expected: str | None = None) -> KwartetError:
    text = repr(answer)
    if len(text) > 80:
        text = text[:77] + "..."
    return ExerciseAnswerError(
        f"exercise {exercise}: answer {text}: expected {expected or _EXERCISES[exercise].expects}"
    )


def _int(exercise: str, answer: object, expected: str | None = None) -> int:
    if isinstance(answer, bool) or not isinstance(answer, int | np.integer):
        if isinstance(answer, float | np.floating) and float(answer).is_integer():
            return int(answer)
        raise _bad(exercise, answer, expected)
    return int(answer)


def _float(exercise: str, answer: object, expected: str | None = None) -> float:
    if isinstance(answer, bool) or not isinstance(answer, int | float | np.integer | np.floating):
        raise _bad(exercise, answer, expected)
    return float(answer)


def _bool(exercise: str, answer: object, expected: str | None = None) -> bool:
    if isinstance(answer, bool | np.bool_):
        return bool(answer)
    raise _bad(exercise, answer, expected)


def _text(exercise: str, answer: object, expected: str | None = None) -> str:
    if not isinstance(answer, str):
        raise _bad(exercise, answer, expected)
    return " ".join(answer.strip().lower().replace("_", " ").split())


def _sequence(exercise: str, answer: object, length: int, expected: str | None = None) -> list[Any]:
    if isinstance(answer, str | bytes) or not isinstance(answer, Iterable):
        raise _bad(exercise, answer, expected)
    items = list(answer)
    if len(items) != length:
        raise _bad(exercise, answer, expected)
    return items


def _card(exercise: str, answer: object, deck: Deck, expected: str | None = None) -> str:
    if isinstance(answer, Card):
        answer = answer.code
    if not isinstance(answer, str):
        raise _bad(exercise, answer, expected)
    try:
        return deck.card(answer).code
    except KwartetError:
        raise _bad(exercise, answer, expected or "a card of the deck, e.g. 'QH'") from None


def _player(
    exercise: str, answer: object, players: Iterable[str], expected: str | None = None
) -> str:
    names = list(players)
    if isinstance(answer, str) and answer.strip().upper() in names:
        return answer.strip().upper()
    raise _bad(exercise, answer, expected or f"one of the players {', '.join(names)}")


def _formula(exercise: str, answer: object, expected: str | None = None) -> Any:
    from kwartet_epistemic.logic import Formula, parse

    if isinstance(answer, Formula):
        return answer
    if isinstance(answer, str):
        try:
            return parse(answer)
        except KwartetError as error:
            raise ExerciseAnswerError(
                f"exercise {exercise}: answer {answer!r}: expected formula text: {error}"
            ) from None
    raise _bad(exercise, answer, expected)


def _truth(exercise: str, holds: Callable[[Any], Any], formula: Any) -> Any:
    """Evaluate ``formula`` with ``holds``; a formula about unknown atoms or agents is wrong
    for this exercise (a hint says so) rather than a crash."""
    try:
        return holds(formula)
    except KwartetError as error:
        raise _Wrong(f"your formula cannot be read on this model ({error}).") from None


# Stored answers: salted SHA-256 of the canonical text, so that no answer is readable here.
_SALT = "kwartet-epistemic exercises v1"


def _digest(exercise: str, canonical: str) -> str:
    return hashlib.sha256(f"{_SALT}|{exercise}|{canonical}".encode()).hexdigest()


# ----- notebook 1: a first game ----------------------------------------------------


@_exercise(
    "01.1",
    "a pair (cards each player gets, the cards left in the stock: a list of cards)",
    "the rules say how many cards each player gets; the referee (not any player's view) "
    "knows what is left to draw, and the stock's size follows from the deck's 32 cards.",
)
def _check_01_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.game import Game
    from kwartet_epistemic.rules import RuleSet

    each_answer, stock_answer = _sequence(key, answer, 2)
    each = _int(key, each_answer)
    game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=1, rules=RuleSet.preset("fish"))
    expected = "a list of cards, e.g. ['7S', 'QH']"
    if isinstance(stock_answer, str) or not isinstance(stock_answer, Iterable):
        raise _bad(key, answer, f"the stock as {expected}")
    stock = [_card(key, c, game.deck, expected) for c in stock_answer]
    return each == len(game.hand("A")) and sorted(stock) == sorted(c.code for c in game.stock)


@_exercise(
    "01.2",
    "a pair (mean asks under publisher, mean asks under lamas) of numbers",
    "each mean is over the 200 games of the tournament of each preset, of every game's "
    "number of asks; two decimals are enough.",
)
def _check_01_2(key: str, answer: object) -> bool:
    means = [_float(key, x) for x in _sequence(key, answer, 2)]
    return all(abs(m - t) < 0.01 for m, t in zip(means, _mean_asks(), strict=True))


@functools.lru_cache(maxsize=1)
def _mean_asks() -> tuple[float, float]:
    from kwartet_epistemic.rules import RuleSet
    from kwartet_epistemic.tournament import tournament

    return tuple(  # type: ignore[return-value]
        float(
            np.mean(
                [
                    g.asks
                    for g in tournament(["random"] * 4, 200, seed=1, rules=RuleSet.preset(n)).games
                ]
            )
        )
        for n in ("publisher", "lamas")
    )


@_exercise(
    "01.3",
    "a function that takes a PlayerView and returns a list of Asks",
    "count the player's cards per family first; only legal asks count, and with a tie "
    "between families any of the tied families (or all of them) will do.",
)
def _check_01_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.game import Game

    if not callable(answer):
        raise _bad(key, answer)
    for seed in range(6):
        game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=seed)
        for _ in range(seed * 3):
            if game.is_over:
                break
            game.play(game.random_legal_ask(np.random.default_rng(seed)))
        if game.is_over:
            continue
        view = game.view(str(game.to_move))
        try:
            got = answer(view)
        except Exception as error:  # the student's function: report how it failed
            raise _Wrong(f"your function raised {type(error).__name__}: {error}.") from None
        if isinstance(got, str) or not isinstance(got, Iterable):
            raise _Wrong("your function should return a list of Asks.")
        got_set = {(a.target, a.card.code) for a in got if hasattr(a, "card")}
        counts: dict[Any, int] = {}
        for card in view.hand:
            counts[card.family] = counts.get(card.family, 0) + 1
        top = max(counts.values())
        families = [f for f, n in counts.items() if n == top]
        legal = view.legal_asks()
        options = [{(a.target, a.card.code) for a in legal if a.card.family == f} for f in families]
        if got_set not in [*options, set().union(*options)]:
            return False
    return True


@_exercise(
    "01.4",
    "a pair (the error's class or its name, the number (an int) of the entry it names) for "
    "the notebook's finished game saved with the answer of its 5th action "
    "(record.actions[4]) flipped",
    "a saved game is replayed move by move when it is loaded, and the referee stops at the "
    "first entry that cannot have happened; catch the error and read its type and message.",
)
def _check_01_4(key: str, answer: object) -> bool:
    kind_answer, entry_answer = _sequence(key, answer, 2)
    if isinstance(kind_answer, type):
        kind_answer = kind_answer.__name__
    kind = _text(key, kind_answer, "the error's class or its name, e.g. 'KwartetError'")
    given = _int(key, entry_answer)
    raised, entry = _flipped_answer_error()
    if kind != raised.lower():
        raise _Wrong("that is not the class of the error raised.")
    return given == entry


@functools.lru_cache(maxsize=1)
def _flipped_answer_error() -> tuple[str, int]:
    """The class name of the error that loading the flipped game raises, and its entry."""
    import re

    from kwartet_epistemic.agents import make_agent
    from kwartet_epistemic.game import Game
    from kwartet_epistemic.record import GameRecord

    game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    game.ask("D", "KD")
    specs = ["knowledge", "random", "knowledge", "random"]
    agents = {
        p: make_agent(s, p, np.random.default_rng(i))
        for i, (p, s) in enumerate(zip(game.players, specs, strict=True))
    }
    while not game.is_over:
        player = str(game.to_move)
        game.play(agents[player].choose(game.view(player)))
    actions = list(GameRecord.from_game(game).actions)
    action = list(actions[4])
    action[4] = not action[4]
    actions[4] = tuple(action)
    try:
        GameRecord.from_game(game).with_actions(actions).replay()
    except KwartetError as error:
        found = re.search(r"entry (\d+)", str(error))
        return type(error).__name__, int(found.group(1)) if found else -1
    return "", -1


@_exercise(
    "01.5",
    "the name (a str) of the first card of the themed deck's first family",
    "a themed deck names its cards after its theme; the first family comes first in the "
    "transcript's deck, and spelling and case do not matter.",
)
def _check_01_5(key: str, answer: object) -> bool:
    deck = Deck.themed("dutch_masters")
    return _text(key, answer) == _text(key, deck.family_cards(0)[0].name)


# ----- notebook 2: Kripke models of a tiny game ------------------------------------


def _tiny_game() -> Any:
    from kwartet_epistemic.game import Game

    hands = {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}
    return Game.from_hands(Deck.piquet(families=2), hands, first="A")


@functools.lru_cache(maxsize=1)
def _tiny_models() -> tuple[Any, Any, Any]:
    """The models of notebook 2: at the deal, ``m3`` (45 worlds) and ``m4`` (6 worlds)."""
    from kwartet_epistemic.epistemics import knowledge

    game = _tiny_game()
    deal = knowledge(game).kripke_model()
    for target, card in [("B", "7D"), ("C", "7D"), ("C", "8C")]:
        game.ask(target, card)
    m3 = knowledge(game).kripke_model()
    game.ask("A", "8S")
    return deal, m3, knowledge(game).kripke_model()


@_exercise(
    "02.1",
    "a pair (number of blocks, worlds per block) of ints",
    "B cannot tell apart worlds in which B's hand is the same: count B's possible hands of "
    "three cards out of eight, and the ways to place the other cards.",
)
def _check_02_1(key: str, answer: object) -> bool:
    blocks, size = (_int(key, x) for x in _sequence(key, answer, 2))
    model = _tiny_models()[0]
    count = model.block_count("B")
    return (blocks, size) == (count, model.n_worlds // count)


@_exercise(
    "02.2",
    "the announcement of the yes answer as a formula (text or a Formula)",
    "what does the yes say about where 7♦ is, and what does the ask itself say about the "
    "asker's hand under the rules (and, without bluffing, about the asked card)?",
)
def _check_02_2(key: str, answer: object) -> bool:
    from kwartet_epistemic.logic import Not, conjunction, disjunction, has

    model = _tiny_models()[0]
    mine = _truth(key, model.truth_set, _formula(key, answer))
    # built from the ask itself (A asks C for 7♦), not written out: a yes puts the card with
    # the asked player; the ask shows a card of the family in the asker's hand, not that one
    asker, asked, card = "A", "C", Deck.piquet(families=2).card("7D")
    family = [c.code for c in Deck.piquet(families=2).family_cards(card.family) if c != card]
    target = model.truth_set(
        conjunction(
            [
                has(asked, card.code),
                Not(has(asker, card.code)),
                disjunction(has(asker, c) for c in family),
            ]
        )
    )
    return bool(np.array_equal(np.asarray(mine), np.asarray(target)))


@_exercise(
    "02.3",
    "a formula (text or a Formula) about the 45-world model m3",
    "it must be true at the actual world while C_{A,B,C} of it is not; a fact that "
    "only one player can see is a good candidate.",
)
def _check_02_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.logic import C

    m3 = _tiny_models()[1]
    formula = _formula(key, answer)
    return bool(_truth(key, m3.holds, formula)) and not m3.holds(C(["A", "B", "C"], formula))


@_exercise(
    "02.4",
    "C's blocks in m4: a list of sets of worlds (world indices 0-5 or names), each world in "
    "exactly one block",
    "C tells apart two worlds exactly when C's hand differs between them; what does C hold "
    "in each of the six worlds?",
)
def _check_02_4(key: str, answer: object) -> bool:
    model = _tiny_models()[2]
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        raise _bad(key, answer)
    blocks = []
    for block in answer:
        if isinstance(block, str) or not isinstance(block, Iterable):
            raise _bad(key, answer)
        try:
            blocks.append(frozenset(model.world_index(w) for w in block))
        except (KwartetError, TypeError, IndexError):
            raise _bad(key, answer) from None
    if sorted(w for b in blocks for w in b) != list(range(model.n_worlds)):
        raise _bad(key, answer)
    labels = model.labels("C")
    truth = {frozenset(np.flatnonzero(labels == label).tolist()) for label in set(labels.tolist())}
    return set(blocks) == truth


@_choice_exercise(
    "02.5",
    "generated_submodel keeps the worlds that the actual world reaches; what links them?",
    [
        (
            "every world is reached from the actual world by a chain of steps, each step "
            "along some player's relation",
            "This claims the model is connected through the players' relations taken together.",
        ),
        (
            "every player considers every world possible at the actual world",
            "This claims each player's block at the actual world is the whole model.",
        ),
        (
            "generated_submodel always returns the whole model",
            "This claims the method never removes a world.",
        ),
        (
            "nobody has asked yet, so no world has been ruled out",
            "This claims the whole model is generated only because nothing was announced.",
        ),
    ],
)
def _choose_02_5(key: str, index: int) -> tuple[bool, str]:
    import networkx as nx

    from kwartet_epistemic.kripke import KripkeModel

    deal, m3, _ = _tiny_models()
    whole = deal.generated_submodel().n_worlds == deal.n_worlds
    steps = int(nx.eccentricity(nx.Graph(deal.to_networkx()), deal.actual))
    blocks = {p: len(deal.indistinguishable(p, deal.actual)) for p in deal.agents}
    # two worlds that nobody links: the actual world generates a submodel of one world
    apart = KripkeModel(2, {"A": [0, 1]}, actual=0).generated_submodel().n_worlds
    m3_whole = m3.generated_submodel().n_worlds == m3.n_worlds
    seen = ", ".join(f"{p} {n}" for p, n in blocks.items())
    evidence = [
        (
            whole,
            f"In the model at the deal every one of the {deal.n_worlds} worlds is at most "
            f"{steps} steps from the actual world.",
        ),
        (
            all(n == deal.n_worlds for n in blocks.values()),
            f"At the actual world the players consider possible: {seen} of the "
            f"{deal.n_worlds} worlds.",
        ),
        (apart == 2, f"On a model of two worlds that no relation links, it keeps {apart} world."),
        (
            not m3_whole,
            f"After three asks, m3's generated submodel is "
            f"{'still' if m3_whole else 'no longer'} the whole model.",
        ),
    ]
    return evidence[index]


# ----- notebook 3: the epistemic language ------------------------------------------


@functools.lru_cache(maxsize=1)
def _language_game() -> tuple[Any, ...]:
    """Notebook 3's game (seed 7, four knowledge agents) after every move: the games."""
    from kwartet_epistemic.agents import make_agent
    from kwartet_epistemic.game import Game

    game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    agents = {
        p: make_agent("knowledge", p, np.random.default_rng(i)) for i, p in enumerate(game.players)
    }
    positions = [game.copy()]
    while not game.is_over:
        player = str(game.to_move)
        game.play(agents[player].choose(game.view(player)))
        positions.append(game.copy())
    return tuple(positions)


@functools.cache
def _state_after(moves: int) -> Any:
    from kwartet_epistemic.epistemics import knowledge

    return knowledge(_language_game()[moves])


def _knows_where(agent: str, card: str, players: Iterable[str]) -> Any:
    from kwartet_epistemic.logic import K, disjunction, has

    return disjunction(K(agent, has(p, card)) for p in players)


@_exercise(
    "03.1",
    "a pair (the formula (text or a Formula), its truth value on `state`: a bool)",
    "'B knows where J♥ is' says that for some player P, B knows that P holds J♥; put the "
    "negation and A's knowledge around it. Then read the transcript: what does A know about "
    "B's J♥?",
)
def _check_03_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.logic import K, Not

    formula_answer, truth_answer = _sequence(key, answer, 2)
    formula = _formula(key, formula_answer)
    truth = _bool(key, truth_answer, "the formula's truth value on `state`: a bool")
    players = _language_game()[0].players
    target = K("A", Not(_knows_where("B", "JH", players)))
    for moves in range(13):  # the same truth value after every move of the first twelve
        state = _state_after(moves)
        if bool(_truth(key, state.holds, formula)) != bool(state.holds(target)):
            raise _Wrong("your formula does not say what the sentence says.")
    return truth == bool(_state_after(12).holds(target))


@_exercise(
    "03.2",
    "a pair (card whose location is common knowledge, card everybody knows but that is not "
    "common knowledge, or None if there is none)",
    "common knowledge needs everybody to know that everybody knows, and so on: it comes "
    "from public events. Which locations did the asks and answers make public?",
)
def _check_03_2(key: str, answer: object) -> bool:
    game = _language_game()[12]
    first, second = _sequence(key, answer, 2)
    common = _card(key, first, game.deck)
    state = _state_after(12)
    group = "{" + ",".join(game.players) + "}"

    def located(op: str, code: str) -> bool:
        return any(state.holds(f"{op}_{group} has({p}, {code})") for p in game.players)

    if not located("C", common):
        raise _Wrong("the first card's location is not common knowledge.")
    everybody = [
        c.code
        for c in game.deck.cards
        if c.family not in game.exposed and located("E", c.code) and not located("C", c.code)
    ]
    if second is None:
        return not everybody
    return _card(key, second, game.deck) in everybody


@_exercise(
    "03.3",
    "a list of at least three pairs (phi, psi) of formulas about the muddy children mc",
    "each instance [!phi]K_a psi <-> (phi -> K_a [!phi] psi) must be valid on mc for every "
    "child a, and at least one phi must be a real announcement (not valid already).",
)
def _check_03_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.examples import muddy_children
    from kwartet_epistemic.logic import Announce, Iff, Implies, K

    expected = "a list of at least three pairs (phi, psi) of formulas"
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        raise _bad(key, answer, expected)
    pairs = [
        [_formula(key, f, expected) for f in _sequence(key, pair, 2, expected)] for pair in answer
    ]
    if len(pairs) < 3:
        raise _bad(key, answer, expected)
    mc = muddy_children(3, muddy=[1, 2])
    real = False
    for phi, psi in pairs:
        for a in mc.agents:
            law = Iff(Announce(phi, K(a, psi)), Implies(phi, K(a, Announce(phi, psi))))
            if not _truth(key, mc.is_valid, law):
                return False
        real = real or not mc.is_valid(phi)
    if not real:
        raise _Wrong("every phi you chose is valid already, so announcing it changes nothing.")
    return True


@_exercise(
    "03.4",
    "a triple (group of players, player P, card c) about `state` after move 12",
    "pool the hands of a group that does not contain P: the cards none of them holds are "
    "somewhere else. Check D_G has(P, c), no member's K, and no smaller group.",
)
def _check_03_4(key: str, answer: object) -> bool:
    from kwartet_epistemic.logic import D, K, has

    game = _language_game()[12]
    group_answer, player, card = _sequence(key, answer, 3)
    if isinstance(group_answer, str):
        group_answer = [g for g in group_answer if g.isalpha()]
    if not isinstance(group_answer, list | tuple | set | frozenset) or not group_answer:
        raise _bad(key, answer)
    group = sorted({_player(key, g, game.players) for g in group_answer})
    owner = _player(key, player, game.players)
    code = _card(key, card, game.deck)
    state = _state_after(12)
    fact = has(owner, code)
    if not state.holds(D(group, fact)):
        raise _Wrong("the group does not have distributed knowledge of that fact.")
    if any(state.holds(K(g, fact)) for g in group):
        raise _Wrong("a member of the group knows it alone.")
    for size in range(2, len(group)):
        if any(state.holds(D(list(sub), fact)) for sub in itertools.combinations(group, size)):
            raise _Wrong("a smaller group has the same distributed knowledge.")
    return True


@_exercise(
    "03.5",
    "the number of the move (counting moves from 1, as the loop of the notebook does) after "
    "which the table first knows ~has(B, 7S) and K_A has(C, 7S) holds, or that move's Ask",
    "no one says ~has(B, 7S) aloud: what does an ask reveal about the asker's own hand, "
    "and who could reveal that B lacks 7♠?",
)
def _check_03_5(key: str, answer: object) -> bool:
    positions = _language_game()
    first = _first_public_lack()
    if hasattr(answer, "target") and hasattr(answer, "card"):
        from kwartet_epistemic.events import Asked

        asked = [e for e in positions[first].record if isinstance(e, Asked)][-1]
        card = _card(key, answer.card, positions[0].deck)
        return (asked.target, asked.card.code) == (answer.target, card)
    return _int(key, answer) == first


@functools.lru_cache(maxsize=1)
def _first_public_lack() -> int:
    positions = _language_game()
    group = "{" + ",".join(positions[0].players) + "}"
    return next(
        n
        for n in range(13, len(positions))
        if _state_after(n).holds(f"C_{group} ~has(B, 7S) & K_A has(C, 7S)")
    )


# ----- notebook 4: deduction at full size ------------------------------------------


@functools.cache
def _play(spec: str, seed: int) -> Any:
    from kwartet_epistemic.agents import make_agent
    from kwartet_epistemic.game import Game

    game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=seed)
    agents = {p: make_agent(spec, p, np.random.default_rng(i)) for i, p in enumerate(game.players)}
    while not game.is_over:
        player = str(game.to_move)
        game.play(agents[player].choose(game.view(player)))
    return game


@functools.lru_cache(maxsize=1)
def _full_size_progress() -> Any:
    from kwartet_epistemic.viz.progress import game_progress

    return game_progress(_play("higher_order", 3))


@_exercise(
    "04.1",
    "the move number (an int, the step of `progress`, 1 is the first move)",
    "a large fall of the public count (in log10) is a move that rules out a large share "
    "of the deals at once: which kind of event does that?",
)
def _check_04_1(key: str, answer: object) -> bool:
    counts = _full_size_progress().public_worlds
    logs = [math.log10(c) for c in counts]
    falls = [logs[s - 1] - logs[s] for s in range(1, len(logs))]
    return _int(key, answer) == int(np.argmax(falls)) + 1


@_choice_exercise(
    "04.2",
    "play both games with seed=3 and agent i given its own generator seeded with i, as in "
    "the notebook, and count their moves.",
    [
        ("the game of four random agents", "This claims the random agents finish first."),
        (
            "the game of four higher_order agents",
            "This claims the higher_order agents finish first.",
        ),
        ("both games are equally long", "This claims the two games take the same number of moves."),
    ],
)
def _choose_04_2(key: str, index: int) -> tuple[bool, str]:
    lengths = [len(_play(s, 3).record) for s in ("random", "higher_order")]
    claims = [lengths[0] < lengths[1], lengths[1] < lengths[0], lengths[0] == lengths[1]]
    return claims[index], (
        f"The random agents' game has {lengths[0]} events, the higher_order agents' game "
        f"{lengths[1]}."
    )


@_exercise(
    "04.3",
    "the number of worlds (an int) player A still considers possible at the end of fish_game",
    "a world is a history of draws: at the end every card is located, but is the order in "
    "which they were drawn?",
)
def _check_04_3(key: str, answer: object) -> bool:
    return _int(key, answer) == _fish_worlds()


@functools.lru_cache(maxsize=1)
def _fish_worlds() -> int:
    from kwartet_epistemic.rules import RuleSet
    from kwartet_epistemic.viz.many import play_game
    from kwartet_epistemic.viz.progress import game_progress

    rules = RuleSet.preset("fish").replace(cards_each=5)
    fish = game_progress(play_game(rules, Deck.piquet(families=6), "ABC", seed=0))
    return int(fish.worlds[-1, 0])


@_choice_exercise(
    "04.4",
    "compare the first move at which the median located share reaches one half, for 'ABC' "
    "and for 'ABCDE' (games=6, seed=0).",
    [
        ("more moves with 5 players", "This claims five players need longer to locate half."),
        ("fewer moves with 5 players", "This claims five players locate half sooner."),
        ("the same number of moves", "This claims the number of players does not matter here."),
    ],
)
def _choose_04_4(key: str, index: int) -> tuple[bool, str]:
    three, five = _half_located()
    claims = [five > three, five < three, five == three]
    return claims[index], (
        f"The median located share first reaches one half after {three} moves with 3 players "
        f"and after {five} with 5."
    )


@functools.lru_cache(maxsize=1)
def _half_located() -> tuple[int, int]:
    from kwartet_epistemic.rules import RuleSet
    from kwartet_epistemic.viz.many import progress_over_games

    three, five = (
        int(
            np.flatnonzero(
                progress_over_games(RuleSet(), games=6, seed=0, players=players).share_median >= 0.5
            )[0]
        )
        for players in ("ABC", "ABCDE")
    )
    return three, five


@_exercise(
    "04.5",
    "the move number (an int) after which C first knows where every ace is",
    "an ace is certain for C when C has located it or when its quartet lies on the table; "
    "all four must be certain at once.",
)
def _check_04_5(key: str, answer: object) -> bool:
    progress = _full_size_progress()
    aces = [c.index for c in progress.deck.family_cards("A")]
    seat = progress.players.index("C")
    first = next(
        s
        for s in range(progress.n_steps + 1)
        if all(progress.known[s, seat, i] or progress.exposed[s, i] for i in aces)
    )
    return _int(key, answer) == first


# ----- notebook 5: classic puzzles -------------------------------------------------


@_exercise(
    "05.1",
    "the list of world counts (ints): the model after the father's announcement, then after "
    "each announcement of nobody_knows(4) until all four children know",
    "each 'nobody knows' removes the worlds in which some child would have known: which "
    "worlds are those, counted by their number of muddy children?",
)
def _check_05_1(key: str, answer: object) -> bool:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        raise _bad(key, answer)
    counts = [_int(key, x) for x in answer]
    return counts == _muddy_counts()


@functools.lru_cache(maxsize=1)
def _muddy_counts() -> list[int]:
    from kwartet_epistemic.examples import father_announcement, muddy_children, nobody_knows
    from kwartet_epistemic.logic import conjunction, parse

    model = muddy_children(4, muddy=4).announce(father_announcement(4))
    everyone = conjunction(parse(f"K_{i} m{i}") for i in range(1, 5))
    counts = [model.n_worlds]
    while not model.holds(everyone):
        model = model.announce(nobody_knows(4))
        counts.append(model.n_worlds)
    return counts


@_choice_exercise(
    "05.2",
    "the explicit model has 2**n worlds, but the structure keeps its law as a BDD; compare "
    "the ratio of your times for n=40 and n=20 with what each option predicts.",
    [
        ("constant", "Constant growth would give about the same time for n=10, 20 and 40."),
        ("linear", "Linear growth would double the time when n doubles."),
        (
            "polynomial",
            "Polynomial growth of degree k would multiply the time by about 2**k when n "
            "doubles, the same factor from 10 to 20 as from 20 to 40.",
        ),
        (
            "exponential",
            "Exponential growth (like the explicit model's 2**n worlds) would multiply the "
            "time by about 2**20, a million, from n=20 to n=40.",
        ),
    ],
)
def _choose_05_2(key: str, index: int) -> tuple[bool, str]:
    # the growth is measured, not computed at check time: the accepted option is stored as a
    # salted digest of its text (see _digest)
    return _digest(key, choices(key)[index]) in _GROWTH_DIGESTS, ""


# the accepted option's text, as a salted digest (see _digest)
_GROWTH_DIGESTS = frozenset({"be81b2c09c9452b6fe6b1f36adcbf574524fbffdf5b6a0ee783190faaa262022"})


def _hands(key: str, answer: object, expected: str) -> set[frozenset[int]]:
    if isinstance(answer, str) or not isinstance(answer, Iterable):
        raise _bad(key, answer, expected)
    hands = set()
    for hand in answer:
        cards = [int(c) for c in hand] if isinstance(hand, str) and hand.isdigit() else hand
        if isinstance(cards, str) or not isinstance(cards, Iterable):
            raise _bad(key, answer, expected)
        cards = list(cards)
        if len(cards) != 3 or not all(isinstance(c, int) and 0 <= c <= 6 for c in cards):
            raise _bad(key, answer, expected)
        hands.add(frozenset(cards))
    return hands


@_exercise(
    "05.3",
    "Alice's announcement: a list of five hands, each three cards 0-6 (e.g. '012' or (0, 1, 2))",
    "the announcement must be true (it contains 012); after it Bob must know Alice's hand "
    "and Cath must learn where at least one card is.",
)
def _check_05_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.examples import (
        alice_says_one_of,
        bob_knows_alice_hand,
        cath_ignorant,
        russian_cards,
    )

    hands = _hands(key, answer, _EXERCISES[key].expects)
    if len(hands) != 5:
        raise _bad(key, answer)
    if frozenset({0, 1, 2}) not in hands:
        raise _Wrong("Alice may only announce something true: her hand 012 must be among them.")
    after = russian_cards().announce(alice_says_one_of([sorted(h) for h in hands]))
    return bool(after.holds(bob_knows_alice_hand())) and not after.holds(cath_ignorant())


@_exercise(
    "05.4",
    "the hands Alice's 'sum modulo 7' announcement allows: a list of hands of three cards 0-6",
    "Alice's hand 012 sums to 3; list every three-card hand whose sum is 3 modulo 7, then "
    "check Bob and Cath on the model after announcing them.",
)
def _check_05_4(key: str, answer: object) -> bool:
    hands = _hands(key, answer, _EXERCISES[key].expects)
    target = sum((0, 1, 2)) % 7
    allowed = {frozenset(h) for h in itertools.combinations(range(7), 3) if sum(h) % 7 == target}
    return hands == allowed


@_exercise(
    "05.5",
    "the TikZ text (a str) of the model after Alice's announcement, drawn with agent='Bob'",
    "draw the model after the announcement (not the deal) and only Bob's relation, with the "
    "export's default options, so that your text and the check's agree.",
)
def _check_05_5(key: str, answer: object) -> bool:
    from kwartet_epistemic.examples import alice_says_one_of, russian_cards
    from kwartet_epistemic.viz import kripke_to_tikz

    if not isinstance(answer, str):
        raise _bad(key, answer)
    after = russian_cards().announce(alice_says_one_of(["012", "034", "056", "135", "246"]))
    return answer.split() == kripke_to_tikz(after, agent="Bob").split()


# ----- notebook 6: agents and tournaments ------------------------------------------


@functools.lru_cache(maxsize=1)
def _agents_game() -> tuple[Any, dict[str, Any]]:
    from kwartet_epistemic.agents import make_agent
    from kwartet_epistemic.game import Game

    game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=11)
    specs = {"A": "knowledge", "B": "higher_order", "C": "defensive:facts", "D": "random"}
    agents = {
        p: make_agent(s, p, np.random.default_rng(i)) for i, (p, s) in enumerate(specs.items())
    }
    while len(game.record) < 30 or game.to_move != "A":
        player = str(game.to_move)
        game.play(agents[player].choose(game.view(player)))
    return game, agents


@_exercise(
    "06.1",
    "a pair (the card D asked for in its last ask, the tens A holds itself: a list of cards)",
    "an ask announces that the asker holds a card of the family and not the asked card; "
    "which tens are then left for D, once A's own are set aside?",
)
def _check_06_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.events import Asked

    game, _ = _agents_game()
    card_answer, tens_answer = _sequence(key, answer, 2)
    card = _card(key, card_answer, game.deck)
    expected = "A's tens as a list of cards, e.g. ['10S']"
    if isinstance(tens_answer, str) or not isinstance(tens_answer, Iterable):
        raise _bad(key, answer, expected)
    tens = {_card(key, c, game.deck, expected) for c in tens_answer}
    last = [e for e in game.record if isinstance(e, Asked) and e.asker == "D"][-1]
    family = last.card.family
    own = {c.code for c in game.hand("A") if c.family == family}
    return card == last.card.code and tens == own


@_exercise(
    "06.2",
    "a pair (low, high): the 95% interval of `knowledge`'s win share, to two decimals",
    "the table of the result shows each player's interval; is its low end above a quarter, "
    "the share of a player no better than the others?",
)
def _check_06_2(key: str, answer: object) -> bool:
    low, high = (_float(key, x) for x in _sequence(key, answer, 2))
    true_low, true_high = _knowledge_interval()
    return abs(low - true_low) < 0.006 and abs(high - true_high) < 0.006


@functools.lru_cache(maxsize=1)
def _knowledge_interval() -> tuple[float, float]:
    from kwartet_epistemic.tournament import tournament

    specs = ["knowledge", "defensive:facts", "defensive:facts", "defensive:facts"]
    # one process: the games and so the interval do not depend on jobs, and a check run from
    # a script must not start workers that import the script again
    low, high = tournament(specs, 400, seed=1, jobs=1).summary()[0].win_interval
    return float(low), float(high)


@_exercise(
    "06.3",
    "the KnowledgeProgram with the two rules of `careful` swapped",
    "keep each rule's condition and action as they are: only their order changes, and the "
    "first rule that applies decides.",
)
def _check_06_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.agents import KnowledgeProgram
    from kwartet_epistemic.logic import parse

    if not isinstance(answer, KnowledgeProgram):
        raise _bad(key, answer)
    rules = [(r.condition, r.target, r.card) for r in answer.rules]
    careful = [
        (parse("K_me has(?p, ?c) & need(?c)"), "?p", "?c"),
        (parse("M_me has(?p, ?c) & need(?c) & ~asked(?p, ?c)"), "?p", "?c"),
    ]
    return rules == careful[::-1]


@_exercise(
    "06.4",
    "the value (a str) of the objective option that `search` uses by default",
    "an agent's options and their defaults are documented with its policy class.",
)
def _check_06_4(key: str, answer: object) -> bool:
    from kwartet_epistemic.agents.search import Search

    return _text(key, answer) == _text(key, Search().objective)


# The options of the tip question: every folk tip but the base one, spelled here because
# the options must be known when the module is imported (a test compares them with TIPS)
_SINGLE_TIPS = ("rarest", "hide", "spread", "bluff", "watch", "endgame")


@_choice_exercise(
    "06.5",
    "run each tip added to remember against three defensive:facts players (games=200, seed=1) "
    "and compare the win shares of the first seat.",
    [
        (tip, f"This claims tips[remember,{tip}] has the highest win share of the single tips.")
        for tip in _SINGLE_TIPS
    ],
)
def _choose_06_5(key: str, index: int) -> tuple[bool, str]:
    shares = _tip_shares()
    tip = _SINGLE_TIPS[index]
    best = max(shares.values())
    return shares[tip] == best, (
        f"tips[remember,{tip}] won {shares[tip]:.1%} of the games; the best single tip "
        f"won {best:.1%}."
    )


@functools.lru_cache(maxsize=1)
def _tip_shares() -> dict[str, float]:
    from kwartet_epistemic.tournament import tournament

    return {
        tip: float(
            tournament([f"tips[remember,{tip}]"] + ["defensive:facts"] * 3, 200, seed=1)
            .summary()[0]
            .win_share
        )
        for tip in _SINGLE_TIPS
    }
