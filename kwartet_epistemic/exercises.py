"""Exercises that check themselves: ``check("02.3", answer)`` says right or wrong.

Every exercise at the end of the six tutorial notebooks has an id ``"NN.k"`` (notebook
``NN``, exercise ``k``).  :func:`check` reads the answer in its natural forms (an int, card
codes or :class:`~kwartet_epistemic.Card` objects, a list or a set, formula text or a
:class:`~kwartet_epistemic.Formula`), says whether it is right, and gives a hint when it is
not, without ever printing the answer.  Most checks compute the right answer from the
library at check time (the notebook's own game replayed, a world count, the truth of a
formula; formulas are compared by their truth sets on the model the exercise is about, not
as text); the few answers that cannot be computed are stored as salted SHA-256 digests of
their canonical form.  An answer of ``None`` (the notebooks' placeholder) is "not answered
yet", and an answer of the wrong kind is a :class:`~kwartet_epistemic.KwartetError`
naming the exercise and what was expected.  After :data:`MAX_WRONG` wrong answers to one
exercise in a session, its check stops saying right or wrong, so that a loop over guesses
learns nothing; a question with a few possible answers offers them as explained choices
(a wrong choice is told what it would mean).  In Jupyter a check's verdict shows once.

>>> import kwartet_epistemic as kw
>>> kw.exercises.check("02.1", None)
02.1: not answered yet (expected a pair (number of blocks, worlds per block) of ints)
CheckResult('02.1', correct=None)
>>> kw.exercises.check("02.1", (1, 560)).correct
02.1: not right. Hint: ...
False
>>> kw.exercises.check("02.1", "many")
Traceback (most recent call last):
...
kwartet_epistemic.errors.KwartetError: exercise 02.1: answer 'many': expected a pair (number of blocks, worlds per block) of ints
>>> len(kw.exercises.exercise_ids())
30
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from kwartet_epistemic.cards import Card, Deck
from kwartet_epistemic.errors import KwartetError

__all__ = ["MAX_WRONG", "CheckResult", "check", "describe", "exercise_ids"]


@dataclass(frozen=True)
class CheckResult:
    """The verdict of :func:`check`: ``correct`` is True, False, or None (not answered).

    >>> CheckResult("01.1", True, "right").correct
    True
    """

    exercise: str
    correct: bool | None
    message: str

    def __bool__(self) -> bool:
        return self.correct is True

    def __repr__(self) -> str:
        return f"CheckResult({self.exercise!r}, correct={self.correct})"

    def __str__(self) -> str:
        return self.message

    def _ipython_display_(self) -> None:
        # In Jupyter a check cell shows its verdict once: check() has printed it (then
        # this shows nothing), or the result was made quietly and is shown here.
        if getattr(self, "_printed", False):
            return
        from IPython.display import Markdown, display

        mark = {True: "✅", False: "❌", None: "⬜"}[self.correct]
        display(Markdown(f"{mark} {self.message}"))


class _Wrong(Exception):
    """Raised inside a check: the answer is well formed but wrong (carries the hint)."""


@dataclass(frozen=True)
class _Exercise:
    expects: str
    hint: str
    judge: Callable[[str, Any], bool]


_EXERCISES: dict[str, _Exercise] = {}


def _exercise(key: str, expects: str, hint: str) -> Callable[[Callable[[str, Any], bool]], Any]:
    def register(judge: Callable[[str, Any], bool]) -> Callable[[str, Any], bool]:
        _EXERCISES[key] = _Exercise(expects, hint, judge)
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


def _lookup(exercise: object) -> _Exercise:
    if not isinstance(exercise, str) or exercise not in _EXERCISES:
        raise KwartetError(
            f"exercise {exercise!r}: expected an exercise id such as '02.3' "
            f"(notebook 02, exercise 3); known: {', '.join(sorted(_EXERCISES))}"
        )
    return _EXERCISES[exercise]


MAX_WRONG = 3
"""Wrong answers an exercise takes in one Python process before :func:`check` stops saying
right or wrong (a loop over guesses learns nothing past them; restart to try again)."""

_WRONG_SO_FAR: dict[str, int] = {}  # exercise -> wrong answers in this process


def check(exercise: str, answer: object, *, quiet: bool = False) -> CheckResult:
    """Check ``answer`` to ``exercise`` (e.g. ``"02.3"``); print and return the verdict.

    ``None`` is "not answered yet".  A wrong answer gets a hint; an answer of the wrong
    kind raises a KwartetError naming the exercise and what was expected.  ``quiet``
    returns the verdict without printing it.

    >>> import kwartet_epistemic as kw
    >>> kw.exercises.check("02.4", [[0, 1, 2], [3, 4, 5]], quiet=True).correct
    False
    """
    entry = _lookup(exercise)
    if answer is None:
        result = CheckResult(
            exercise, None, f"{exercise}: not answered yet (expected {entry.expects})"
        )
    elif _WRONG_SO_FAR.get(exercise, 0) >= MAX_WRONG:
        result = CheckResult(
            exercise,
            None,
            f"{exercise}: {MAX_WRONG} wrong answers already in this session: work it out in the "
            "notebook, then restart the kernel to check again.",
        )
    else:
        try:
            right = entry.judge(exercise, answer)
        except _Wrong as wrong:
            right, detail = False, str(wrong)
        else:
            detail = ""
        if right:
            result = CheckResult(exercise, True, f"{exercise}: right!")
        else:
            _WRONG_SO_FAR[exercise] = _WRONG_SO_FAR.get(exercise, 0) + 1
            hint = f"{detail} {entry.hint}".strip()
            result = CheckResult(exercise, False, f"{exercise}: not right. Hint: {hint}")
    if not quiet:
        print(result.message)
        object.__setattr__(result, "_printed", True)  # not shown a second time in Jupyter
    return result


# ----- reading answers -------------------------------------------------------------


def _bad(exercise: str, answer: object, expected: str | None = None) -> KwartetError:
    text = repr(answer)
    if len(text) > 80:
        text = text[:77] + "..."
    return KwartetError(
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


def _items(exercise: str, answer: object) -> list[Any]:
    """The items of a list-like answer of any length (not a string)."""
    if isinstance(answer, str | bytes) or not isinstance(answer, Iterable):
        raise _bad(exercise, answer)
    return list(answer)


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
            raise KwartetError(
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
    "a pair (cards each player gets, cards in the stock) of ints",
    "the fish preset deals fewer cards to each player and keeps the rest face down as a "
    "stock: count both in a fish deal.",
)
def _check_01_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.game import Game
    from kwartet_epistemic.rules import RuleSet

    each, stock = (_int(key, x) for x in _sequence(key, answer, 2))
    game = Game.deal(Deck.piquet(), ["A", "B", "C", "D"], seed=1, rules=RuleSet.preset("fish"))
    return (each, stock) == (len(game.hand("A")), game.stock_size)


@_exercise(
    "01.2",
    "a pair (mean asks under publisher, mean asks under lamas) of numbers, over a tournament "
    "of four random agents, 200 games, seed 1",
    "play many games of random players under each preset and compare the average number "
    "of asks a game takes (the notebook shows how a tournament is run).",
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
    "keep only the legal asks (view.legal_asks()) whose card is in a family of which the "
    "player holds the most cards; with a tie, any of the tied families will do.",
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
    "the message (str(error), text) of the error that loading the notebook's finished game "
    "raises once the answer of its 5th action (record.actions[4]) is flipped in the file",
    "the loader replays the record and names the first entry that cannot have happened; "
    "catch the error and pass its message, as the library words it.",
)
def _check_01_4(key: str, answer: object) -> bool:

    from kwartet_epistemic.agents import make_agent
    from kwartet_epistemic.game import Game
    from kwartet_epistemic.record import GameRecord

    if not isinstance(answer, str):
        raise _bad(key, answer)
    given = " ".join(answer.split())  # the message as the library words it, spacing aside
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
        return given == " ".join(str(error).split())
    return False


@_exercise(
    "01.5",
    "the name (a str) of the first card of the themed deck's first family",
    "a themed deck keeps its families and each family's cards in order: look at the "
    "first card of the first family of the Dutch masters' deck.",
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
    "an ask and its answer say two things in public: what the asker must hold to be allowed "
    "to ask, and where the card is now.",
)
def _check_02_2(key: str, answer: object) -> bool:
    # Compared by the digest of the worlds where it holds: no formula to read here.
    model = _tiny_models()[0]
    mine = np.asarray(_truth(key, model.truth_set, _formula(key, answer)))
    return _digest(key, "".join("1" if b else "0" for b in mine)) == _YES_WORLDS_DIGEST


_YES_WORLDS_DIGEST = "65e754b607924ef088e603756f092f0105a185c0596fb8fb2a9045314450d03f"


@_exercise(
    "02.3",
    "a formula (text or a Formula) about the 45-world model m3",
    "it must hold at the actual world (m3.holds(f)) while C_{A,B,C} f does not; a fact that "
    "only one player can see is a good candidate.",
)
def _check_02_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.logic import C

    m3 = _tiny_models()[1]
    formula = _formula(key, answer)
    return bool(_truth(key, m3.holds, formula)) and not m3.holds(C(["A", "B", "C"], formula))


@_exercise(
    "02.4",
    "C's blocks in m4: a list of groups of world numbers (0 to 5, in the order of "
    "kw.viz.world_labels(m4)), each group the worlds C cannot tell apart",
    "C tells two worlds apart exactly when C's hand differs between them; what does C hold "
    "in each of the six worlds?",
)
def _check_02_4(key: str, answer: object) -> bool:
    model = _tiny_models()[2]
    groups = _items(key, answer)
    given: set[frozenset[int]] = set()
    for group in groups:
        if not isinstance(group, list | tuple | set | frozenset) or not group:
            raise _bad(key, answer)
        given.add(frozenset(_int(key, w) for w in group))
    labels = np.asarray(model.labels("C"))
    blocks = {frozenset(np.flatnonzero(labels == b).tolist()) for b in np.unique(labels)}
    return given == blocks


@_exercise(
    "02.5",
    "a shortest path from the actual world of the model at the deal to a world farthest from "
    "it: a list of world numbers, each related to the one before by some player's relation",
    "a step along one player's relation keeps that player's hand and lets the other two "
    "trade cards; which deal is farthest from the actual one, and by which trades is it "
    "reached?",
)
def _check_02_5(key: str, answer: object) -> bool:
    import networkx as nx

    model = _tiny_models()[0]
    path = [_int(key, w) for w in _items(key, answer)]
    if not path or any(not 0 <= w < model.n_worlds for w in path):
        raise _bad(key, answer)
    if path[0] != model.actual:
        raise _Wrong("a path starts at the actual world.")
    for u, v in itertools.pairwise(path):
        if u == v or not any(model.labels(a)[u] == model.labels(a)[v] for a in model.agents):
            raise _Wrong(f"no player confuses world {u} with world {v}: that is no step.")
    graph = nx.Graph(model.to_networkx())
    distance = nx.single_source_shortest_path_length(graph, model.actual)
    if len(path) - 1 != distance[path[-1]]:
        raise _Wrong("the path is longer than it needs to be.")
    return distance[path[-1]] == max(distance.values())


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


def _state_after(moves: int) -> Any:
    from kwartet_epistemic.epistemics import knowledge

    return knowledge(_language_game()[moves])


def _knows_where(agent: str, card: str, players: Iterable[str]) -> Any:
    from kwartet_epistemic.logic import K, disjunction, has

    return disjunction(K(agent, has(p, card)) for p in players)


@_exercise(
    "03.1",
    "the formula (text or a Formula)",
    "say 'B knows where J♥ is' first (B knows, of some one player, that this player holds "
    "it), then that A knows it is not so. Then read the transcript: what does A know about "
    "B's J♥?",
)
def _check_03_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.logic import K, Not

    players = _language_game()[0].players
    target = K("A", Not(_knows_where("B", "JH", players)))
    if isinstance(answer, bool | np.bool_):  # a truth value alone could be guessed
        raise _bad(key, answer)
    formula = _formula(key, answer)
    for moves in range(13):  # the same truth value after every move of the first twelve
        state = _state_after(moves)
        if bool(_truth(key, state.holds, formula)) != bool(state.holds(target)):
            return False
    return True


@_exercise(
    "03.2",
    "a pair (card whose location is common knowledge, card everybody knows but that is not "
    "common knowledge, or None if there is none)",
    "test C_{A,B,C,D} has(P, c) and E_{A,B,C,D} has(P, c) for every player P and card c "
    "still in play after move 12.",
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
    "play the game on with the same agents and test both formulas after every move from 13 "
    "on; who can announce that B lacks 7♠ by asking?",
)
def _check_03_5(key: str, answer: object) -> bool:
    positions = _language_game()
    group = "{" + ",".join(positions[0].players) + "}"
    first = next(
        n
        for n in range(13, len(positions))
        if _state_after(n).holds(f"C_{group} ~has(B, 7S) & K_A has(C, 7S)")
    )
    if hasattr(answer, "target") and hasattr(answer, "card"):
        from kwartet_epistemic.events import Asked

        asked = [e for e in positions[first].record if isinstance(e, Asked)][-1]
        card = _card(key, answer.card, positions[0].deck)
        return (asked.target, asked.card.code) == (answer.target, card)
    return _int(key, answer) == first


# ----- notebook 4: deduction at full size ------------------------------------------


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
    "compare math.log10 of progress.public_worlds step by step and take the largest fall.",
)
def _check_04_1(key: str, answer: object) -> bool:
    counts = _full_size_progress().public_worlds
    logs = [math.log10(c) for c in counts]
    falls = [logs[s - 1] - logs[s] for s in range(1, len(logs))]
    return _int(key, answer) == int(np.argmax(falls)) + 1


@_exercise(
    "04.2",
    "the spec of the agents whose game is shorter: 'random' or 'higher_order'",
    "the same deal and the same random numbers for each agent as in the notebook; compare "
    "how many moves each game takes.",
)
def _check_04_2(key: str, answer: object) -> bool:
    choice = _text(key, answer)
    if choice not in ("random", "higher order"):
        raise _bad(key, answer)
    lengths = {s: len(_play(s, 3).record) for s in ("random", "higher_order")}
    shorter = min(lengths, key=lengths.__getitem__)
    return choice == shorter.replace("_", " ")


@_exercise(
    "04.3",
    "the number of worlds (an int) player A still considers possible at the end of fish_game",
    "read fish.worlds[-1] in the notebook's last cell: a world is a history of draws.",
)
def _check_04_3(key: str, answer: object) -> bool:
    from kwartet_epistemic.rules import RuleSet
    from kwartet_epistemic.viz.many import play_game
    from kwartet_epistemic.viz.progress import game_progress

    rules = RuleSet.preset("fish").replace(cards_each=5)
    fish = game_progress(play_game(rules, Deck.piquet(families=6), "ABC", seed=0))
    return _int(key, answer) == int(fish.worlds[-1, 0])


@_exercise(
    "04.4",
    "'more' or 'fewer': moves until the median located share reaches one half, with 5 players "
    "compared with 3 (6 games each, seed 0, the default rules)",
    "the bands of many games show, move by move, the median share of located cards; find "
    "where it first reaches one half with three players and with five.",
)
def _check_04_4(key: str, answer: object) -> bool:
    from kwartet_epistemic.rules import RuleSet
    from kwartet_epistemic.viz.many import progress_over_games

    choice = _text(key, answer)
    if choice not in ("more", "fewer"):
        raise _bad(key, answer)
    steps = []
    for players in ("ABC", "ABCDE"):
        median = progress_over_games(RuleSet(), games=6, seed=0, players=players).share_median
        steps.append(int(np.flatnonzero(median >= 0.5)[0]))
    return choice == ("more" if steps[1] > steps[0] else "fewer")


@_exercise(
    "04.5",
    "the move number (an int) after which C first knows where every ace is",
    "progress.known[step, 2] says which cards C (seat 2) has located; a card in a quartet on "
    "the table (progress.exposed) counts as known.",
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
    "a pair (rounds of 'nobody knows' until the four know, a formula about m1..m4 that holds "
    "in exactly the worlds the children cannot tell apart in common after 2 rounds) of an "
    "int and a formula",
    "announce the father's words, then 'nobody knows' round after round, and test after each "
    "round whether every child knows; after the second round, look at which worlds are left "
    "and what they have in common.",
)
def _check_05_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.examples import father_announcement, muddy_children, nobody_knows
    from kwartet_epistemic.logic import conjunction, parse

    rounds_answer, formula_answer = _sequence(key, answer, 2)
    rounds_given, formula = _int(key, rounds_answer), _formula(key, formula_answer)
    model = muddy_children(4, muddy=4).announce(father_announcement(4))
    everyone = conjunction(parse(f"K_{i} m{i}") for i in range(1, 5))
    rounds = 0
    common_block = None
    while not model.holds(everyone):
        model = model.announce(nobody_knows(4))
        rounds += 1
        if rounds == 2:
            labels = model.common_knowledge_labels([str(i) for i in range(1, 5)])
            assert model.actual is not None
            block = np.asarray(labels) == labels[model.actual]
            common_block = (model, block)
    if rounds_given != rounds:
        raise _Wrong("the number of rounds is not right.")
    if common_block is None:  # pragma: no cover - the puzzle takes more than 2 rounds
        return False
    after_two, block = common_block
    holds = np.asarray(_truth(key, after_two.truth_set, formula))
    if not np.array_equal(holds, block):
        raise _Wrong("the rounds are right, but the formula does not pick out those worlds.")
    return True


@_exercise(
    "05.2",
    "one word for how the times grow with n: 'constant', 'linear', 'polynomial' or 'exponential'",
    "the explicit model has 2**n worlds, but the structure keeps the law as a BDD; compare the "
    "time ratios of n=20 to n=40 with 2 and with 2**20.",
)
def _check_05_2(key: str, answer: object) -> bool:
    word = _text(key, answer).removesuffix("ly")
    if word not in ("constant", "linear", "polynomial", "polynomia", "exponential", "exponentia"):
        raise _bad(key, answer)
    word = {"polynomia": "polynomial", "exponentia": "exponential"}.get(word, word)
    return _digest(key, word) in _GROWTH_DIGESTS


# the accepted canonical answer, as a salted digest (see _digest)
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
    "the announcement must be true (it contains 012); Bob must know Alice's hand "
    "(bob_knows_alice_hand()) and Cath must learn a card (cath_ignorant() false).",
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
    "every drawing of kw.viz has a twin that writes TikZ for a paper; draw Bob's relation "
    "only, with the defaults.",
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
    "a pair (the card D asked for in its last ask, whether the fact-list player C also knows "
    "where the ten of hearts is: a bool)",
    "an ask says two things about the asker's hand; bring C's agent up to date with the "
    "game before you ask what it knows.",
)
def _check_06_1(key: str, answer: object) -> bool:
    from kwartet_epistemic.events import Asked

    game, agents = _agents_game()
    card_answer, knows_answer = _sequence(key, answer, 2)
    card, knows = _card(key, card_answer, game.deck), _bool(key, knows_answer)
    last = [e for e in game.record if isinstance(e, Asked) and e.asker == "D"][-1]
    facts = agents["C"]
    facts.observe(game.view("C"))
    return (card, knows) == (last.card.code, facts.knowledge.known_holder("10H") is not None)


_INTERVAL_CHOICES = {
    "above": "the whole interval lies above 0.25: knowledge wins more than a fair share, and "
    "400 games are enough to tell",
    "below": "the whole interval lies below 0.25: knowledge would be worse than its opponents",
    "overlaps": "the interval contains 0.25: 400 games could not tell knowledge from a fair share",
}


@_exercise(
    "06.2",
    "one of 'above', 'below' or 'overlaps': where the 95% interval of `knowledge` lies with "
    "respect to 0.25",
    "read both ends of the interval in result.table(): is 0.25 below the low end, above the "
    "high end, or between them?",
)
def _check_06_2(key: str, answer: object) -> bool:
    from kwartet_epistemic.tournament import tournament

    given = _text(key, answer).strip().lower()
    if given not in _INTERVAL_CHOICES:
        raise _bad(key, answer)
    specs = ["knowledge", "defensive:facts", "defensive:facts", "defensive:facts"]
    low, high = tournament(specs, 400, seed=1, jobs=2).summary()[0].win_interval
    right = "above" if low > 0.25 else "below" if high < 0.25 else "overlaps"
    if given != right:  # an explained choice: what the option picked would mean
        raise _Wrong(f"'{given}' would mean {_INTERVAL_CHOICES[given]}; the table says otherwise.")
    return True


@_exercise(
    "06.3",
    "the KnowledgeProgram with the two rules of `careful` swapped",
    "a knowledge program tries its rules in order: swap the two, each keeping its "
    "condition and its action.",
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
    "the search policy's options are its attributes; its documentation says which one it "
    "maximises.",
)
def _check_06_4(key: str, answer: object) -> bool:
    from kwartet_epistemic.agents.search import Search

    return _text(key, answer) == _text(key, Search().objective)


@_exercise(
    "06.5",
    "the name (a str) of the tip, e.g. 'rarest' (each beside remember, against three "
    "defensive:facts players, 200 games, seed 1)",
    "play each tip beside remember against the same opponents on the same games, and "
    "compare the win shares.",
)
def _check_06_5(key: str, answer: object) -> bool:
    from kwartet_epistemic.agents.policies import TIPS
    from kwartet_epistemic.tournament import tournament

    tips = [t for t in TIPS if t != "remember"]
    choice = _text(key, answer)
    if choice not in tips:
        raise _bad(key, answer, f"one of {', '.join(tips)}")
    shares = {
        tip: tournament([f"tips[remember,{tip}]"] + ["defensive:facts"] * 3, 200, seed=1)
        .summary()[0]
        .win_share
        for tip in tips
    }
    return choice == max(shares, key=shares.__getitem__)
