"""Formulas of any depth and size, and cards in any spelling, on every engine.

- Deep formulas (far past Python's recursion limit of about 1,000 frames) get the same
  answer on the auto, counting, explicit and symbolic engines as their shallow
  equivalents: no evaluator recurses.
- Formulas nested 100,000 deep or 1 MB long go through every entry point (parser,
  constructors, printing, pickling, sympy, ``holds`` on every engine), or are refused
  with a KwartetError that names the input and the limit, changing nothing.
- A card spelled ``7S``, ``7s``, ``7♠`` or ``seven of spades`` is the same card at any
  depth of a formula, on every engine.
"""

from __future__ import annotations

import copy
import pickle
import sys
import tracemalloc
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import SMALL_SETUPS, nested_formulas, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.logic import (
    FORMULA_PRINT_LIMIT,
    FORMULA_TEXT_LIMIT,
    SYMPY_DEPTH_LIMIT,
    And,
    Announce,
    Atom,
    Formula,
    FormulaTooLargeError,
    FormulaTypeError,
    K,
    M,
    Not,
    Or,
    Top,
    conjunction,
    disjunction,
    has,
    parse,
)
from kwartet_epistemic.logic.formula import formula_excerpt

ENGINES = ["auto", "counting", "explicit", "symbolic"]
DEEP = 3 * sys.getrecursionlimit()  # deeper than any recursive evaluator could go
HUGE = 100_000


def small_game() -> kw.Game:
    """2 families, 3 players, after one refused ask: 560 worlds, A holds 7S and 8S."""
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "7D")
    return game


GAME = small_game()
ATOMS: list[Formula] = [has(p, c.code) for c in GAME.deck.cards for p in GAME.players]


def state_of(game: kw.Game) -> tuple[Any, ...]:
    """What a refused query must leave as it was."""
    return (
        list(game.record),
        {p: game.hand(p) for p in game.players},
        game.to_move,
    )


def answers(formula: Formula | str, game: kw.Game = GAME) -> dict[str, bool]:
    return {engine: kw.knowledge(game, engine=engine).holds(formula) for engine in ENGINES}


def reference(formula: Formula | str, game: kw.Game = GAME) -> bool:
    return kw.knowledge(game, engine="explicit").holds(formula)


# ----- 1. the deep formulas of the issue, on every engine ---------------------------

# A's own literals, which A knows, repeated to 332 atoms: K_A of their conjunction.
_KNOWN_TO_A = [
    "has(A, 7S)",
    "has(A, 8S)",
    "~has(A, 7H)",
    "~has(B, 7S)",
    "~has(C, 8S)",
    "~has(A, 8D)",
]
_MANY_KNOWN = [_KNOWN_TO_A[i % len(_KNOWN_TO_A)] for i in range(332)]


@pytest.mark.parametrize(
    ("deep", "shallow"),
    [
        ("~" * 1000 + "has(A, 7S)", "has(A, 7S)"),
        ("~" * 1001 + "has(A, 7S)", "~has(A, 7S)"),
        ("~" * DEEP + "has(B, 7S)", "has(B, 7S)" if DEEP % 2 == 0 else "~has(B, 7S)"),
        (" & ".join(["has(A, 7S)"] * 1000), "has(A, 7S)"),
        (" | ".join(["has(B, 7S)"] * DEEP), "has(B, 7S)"),
        ("K_A (" + " & ".join(_MANY_KNOWN) + ")", "top"),
        ("K_A (" + " & ".join([*_MANY_KNOWN, "has(B, 8C)"]) + ")", "K_A has(B, 8C)"),
        ("K_A (" + " -> ".join(["has(A, 7H)"] * DEEP + ["has(A, 7S)"]) + ")", "top"),
        ("K_A (" + " <-> ".join(["has(A, 7S)"] * 400) + ")", "top"),
        ("[!top]" * 491 + "has(A, 7S)", "has(A, 7S)"),
        ("[!top]" * DEEP + "K_B has(C, 7D)", "K_B has(C, 7D)"),
        ("[!has(A, 7S)]" * DEEP + "K_B has(A, 7S)", "[!has(A, 7S)]K_B has(A, 7S)"),
        ("K_B " * DEEP + "has(C, 7D)", "K_B has(C, 7D)"),  # S5: K K p = K p
        ("M_C " * DEEP + "has(A, 7C)", "M_C has(A, 7C)"),
        ("(K_A ~K_B ~" * (DEEP // 2) + "has(A, 7S)" + ")" * (DEEP // 2), None),
        ("C_{A,B,C} " * DEEP + "~has(C, 7S)", "C_{A,B,C} ~has(C, 7S)"),
    ],
    ids=lambda text: None if text is None else text[:24],
)
def test_deep_formulas_agree_with_their_shallow_equivalents_on_every_engine(
    deep: str, shallow: str | None
) -> None:
    found = answers(deep)
    assert len(set(found.values())) == 1, found  # every engine, the same answer
    if shallow is not None:
        assert set(found.values()) == {reference(shallow)}


_PADDINGS = ["not not", "announce top", "and itself", "or bot", "K again", "M again"]


def _pad(f: Formula, how: str, times: int, agent: str) -> tuple[Formula, Formula]:
    """A deep formula and a shallow one that are equivalent in every S5 model."""
    deep = f
    if how == "not not":
        for _ in range(times):
            deep = Not(Not(deep))
        return deep, f
    if how == "announce top":
        for _ in range(times):
            deep = Announce(Top(), deep)
        return deep, f
    if how == "and itself":
        return conjunction([f] * times), f
    if how == "or bot":
        for _ in range(times):
            deep = Or(deep, kw.Bottom())
        return deep, f
    modal = K if how == "K again" else M
    for _ in range(times):
        deep = modal(agent, deep)
    return deep, modal(agent, f)


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    f=nested_formulas(list(GAME.players), ATOMS),
    how=st.sampled_from(_PADDINGS),
    agent=st.sampled_from(list(GAME.players)),
)
def test_random_formulas_padded_past_the_recursion_limit_keep_their_value(
    f: Formula, how: str, agent: str
) -> None:
    deep, shallow = _pad(f, how, sys.getrecursionlimit() + 100, agent)
    expected = reference(shallow)
    assert answers(deep) == dict.fromkeys(ENGINES, expected)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 12),
    data=st.data(),
)
def test_knowledge_of_few_literals_agrees_with_the_explicit_engine_in_every_preset(
    setup: Any, seed: int, steps: int, data: Any
) -> None:
    # One-literal terms of the normal form are read off the group's origin table.
    game = random_game(setup, seed, steps)
    players = list(game.players)
    atoms = [has(p, c.code) for c in game.deck.cards for p in players]
    literal = st.sampled_from(atoms).flatmap(lambda a: st.sampled_from([a, Not(a)]))
    operand = data.draw(
        st.lists(literal, min_size=1, max_size=3).flatmap(
            lambda ls: st.sampled_from([conjunction(ls), disjunction(ls)])
        )
    )
    agent = data.draw(st.sampled_from(players))
    group = data.draw(st.lists(st.sampled_from(players), min_size=1, unique=True))
    counting = kw.knowledge(game, engine="counting")
    explicit = kw.knowledge(game, engine="explicit")
    for query in (K(agent, operand), M(agent, operand), kw.D(group, operand), kw.E(group, operand)):
        assert counting.holds(query) == explicit.holds(query), str(query)


_FACTORS = [f"(has(A, {c}) | has(B, {c}))" for c in ("7H", "8H", "7D", "8D", "7C", "8C")]


def test_a_long_chain_under_k_costs_the_counting_engine_one_pass() -> None:
    # 64 terms, then 20,000 conjuncts each already in every term: nothing to multiply.
    text = "K_C ~(" + " & ".join(_FACTORS) + " & has(C, 7D)" * 20_000 + ")"
    expected = reference("K_C ~(" + " & ".join(_FACTORS) + " & has(C, 7D))")
    assert answers(text) == dict.fromkeys(ENGINES, expected)


def test_a_normal_form_too_large_to_count_is_refused_by_counting_and_answered_by_auto() -> None:
    factors = [f"(has(A, {c}) | has(B, {c}) | has(C, {c}))" for c in ("7H", "8H", "7D", "8D")]
    factors += _FACTORS[4:]  # 3**4 * 2**2 = 324 terms, then 8S and 7S: 1,296 > 512
    factors += [f"(has(B, {c}) | has(C, {c}))" for c in ("8S", "7S")]
    text = "K_A ~(" + " & ".join(factors) + ")"
    before = state_of(GAME)
    with pytest.raises(kw.KwartetError, match="normal form has more than 512 terms"):
        kw.knowledge(GAME, engine="counting").holds(text)
    assert state_of(GAME) == before
    expected = reference(text)
    for engine in ("auto", "symbolic"):
        assert kw.knowledge(GAME, engine=engine).holds(text) is expected


def test_shared_subformulas_are_evaluated_once_on_every_engine() -> None:
    f: Formula = K("A", has("A", "7s"))
    for _ in range(80):
        f = f & M("B", f)  # a tree of about 3**80 nodes: only its 241 objects are visited
    assert answers(f) == dict.fromkeys(ENGINES, True)


def test_a_kripke_model_takes_deep_formulas_and_nested_announcements() -> None:
    model = kw.knowledge(GAME).kripke_model()
    deep = parse("[!~has(B, 8C)]" * DEEP + "K_C ~has(B, 8C)")
    assert model.holds(deep) == model.holds("[!~has(B, 8C)]K_C ~has(B, 8C)")
    truth = model.truth_set("~" * (2 * DEEP) + "M_A has(B, 7S)")
    assert (truth == model.truth_set("M_A has(B, 7S)")).all()


def test_a_long_chain_holds_a_few_truth_sets_not_one_per_link() -> None:
    # The right-hand operands of a left-nested chain are evaluated after the chain
    # below them, so each is dropped as soon as it is used: 300 conjuncts on a million
    # worlds hold a few MB at once, not 300.
    n = 1_000_000
    model = kw.KripkeModel(n, {"A": np.arange(n) // 2}, {"p": np.arange(n) % 3 == 0})
    chain = conjunction([Not(Or(Atom("p"), Atom("p"))) for _ in range(300)])
    tracemalloc.start()
    try:
        truth = model.truth_set(chain)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert (truth == (np.arange(n) % 3 != 0)).all()
    assert peak < 20 * n


def test_nested_announcements_beyond_the_memory_bound_are_refused_and_change_nothing() -> None:
    n = 2_000_000
    model = kw.KripkeModel(n, {"A": np.zeros(n, dtype=np.int64)}, {"p": np.ones(n, bool)})
    assert model.holds("K_A p")
    cached = dict(model._cache)
    deep = parse("[!p]" * 200 + "K_A p")
    with pytest.raises(kw.ModelTooLargeError, match=r"200 deep.*2,000,000 worlds.*limit is"):
        model.holds(deep)
    assert model._cache.keys() == cached.keys() and model.holds("K_A p")
    assert model.holds("[!p]" * 20 + "K_A p")  # 20 levels fit in the bound


# ----- 2. 100,000 deep and 1 MB long through every entry point ----------------------


def _huge_formulas() -> dict[str, tuple[str, int]]:
    """Text nested 100,000 deep, or 1 MB long, and its number of nodes."""
    one_mb = "has(A, 7S) & " * (1_000_000 // 13) + "top"
    return {
        "not": ("~" * HUGE + "has(A, 7S)", HUGE + 1),
        "parentheses": ("(" * HUGE + "has(A, 7S)" + ")" * HUGE, 1),
        "knowledge": ("K_B ~" * (HUGE // 2) + "has(A, 7S)", HUGE + 1),
        "announcements": ("[!top]" * HUGE + "has(A, 7S)", 2 * HUGE + 1),
        "implications": ("has(A, 7H) -> " * (HUGE // 2) + "has(A, 7S)", HUGE + 1),
        "one megabyte": (one_mb, 2 * (1_000_000 // 13) + 1),
    }


HUGE_FORMULAS = _huge_formulas()


@pytest.mark.slow
@pytest.mark.parametrize("name", list(HUGE_FORMULAS))
def test_huge_text_parses_and_prints(name: str) -> None:
    text, size = HUGE_FORMULAS[name]
    f = parse(text)
    assert f.size() == size
    printed = str(f)
    assert len(printed) <= len(text) + 4 * text.count("->")  # spaces around operators
    again = parse(printed)
    assert again == f and hash(again) == hash(f)
    assert f.to_latex().count(r"\neg") == text.count("~")
    assert repr(f).startswith(type(f).__name__ + "(")
    if size > 1:  # Jupyter shows it as text, not as pages of math
        assert f._repr_latex_() is None
    assert f.atoms() <= {has("A", "7S"), has("A", "7H")}


@pytest.mark.slow
@pytest.mark.parametrize("engine", ENGINES)
def test_every_engine_answers_formulas_100_000_deep_and_1_mb_long(engine: str) -> None:
    k = kw.knowledge(GAME, engine=engine)
    expected = {
        "not": reference("~~has(A, 7S)"),
        "knowledge": reference("K_B ~K_B ~has(A, 7S)"),
        "one megabyte": True,
    }
    for name, value in expected.items():
        assert k.holds(HUGE_FORMULAS[name][0]) is value, name


@pytest.mark.slow
def test_the_explicit_engine_answers_100_000_nested_announcements() -> None:
    assert kw.knowledge(GAME, engine="explicit").holds(HUGE_FORMULAS["announcements"][0])


def _unit(f: Formula) -> Formula:
    """[!top]~M_C K_A f: four constructors, two of them modal."""
    return Announce(Top(), Not(M("C", K("A", f))))


@pytest.mark.slow
def test_deep_constructed_formulas_need_no_recursion() -> None:
    f: Formula = has("B", "7S")
    for _ in range(HUGE // 4):
        f = _unit(f)
    assert f.size() == HUGE + HUGE // 4 + 1
    assert f.modal_depth() == HUGE // 2
    assert parse(str(f)) == f
    unpickled = pickle.loads(pickle.dumps(f))
    assert unpickled == f and hash(unpickled) == hash(f)
    # On this model the unit's truth sets repeat with period 2 from the start (so at
    # every depth): 25,000 units are worth 2.
    model = kw.knowledge(GAME).kripke_model()
    two = _unit(_unit(has("B", "7S")))
    assert (model.truth_set(_unit(_unit(two))) == model.truth_set(two)).all()
    assert model.holds(f) == model.holds(two)
    assert kw.knowledge(GAME, engine="explicit").holds(f) == model.holds(two)


def test_deep_formulas_pickle_and_copy_as_flat_lists_keeping_shared_parts() -> None:
    f: Formula = parse("[!top]" * DEEP + "K_A has(A, 7S)")
    shared = f & K("B", f)
    for copied in (pickle.loads(pickle.dumps(shared)), copy.deepcopy(shared), copy.copy(shared)):
        assert copied == shared and hash(copied) == hash(shared)
        assert isinstance(copied, And) and copied.left is copied.right.args[0]


def test_text_beyond_the_limit_is_refused_naming_its_length_and_the_limit() -> None:
    text = "p" + " & p" * 600_000
    with pytest.raises(FormulaTooLargeError, match=r"2,400,001 characters.*limit is 2,000,000"):
        parse(text)
    before = state_of(GAME)
    for engine in ENGINES:
        with pytest.raises(kw.KwartetError, match="limit is 2,000,000"):
            kw.knowledge(GAME, engine=engine).holds(text)
    assert state_of(GAME) == before
    assert len(text) > FORMULA_TEXT_LIMIT >= 1_000_000
    assert FORMULA_PRINT_LIMIT >= 3 * FORMULA_TEXT_LIMIT  # LaTeX of any parsed text prints


def test_a_formula_whose_text_would_be_too_long_is_refused_by_str_only() -> None:
    f: Formula = has("A", "7S")
    for _ in range(70):
        f = f & f  # 2**70 atoms as text, 71 objects
    with pytest.raises(FormulaTooLargeError, match=r"as text; the limit is 20,000,000 char"):
        str(f)
    with pytest.raises(FormulaTooLargeError, match=r"as LaTeX; the limit is 20,000,000 char"):
        f.to_latex()
    assert f._repr_latex_() is None
    shown = repr(f)
    assert shown.startswith("And(left=And(") and "characters in all>" in shown
    assert len(shown) < 2_000
    assert formula_excerpt(f, 10).startswith("has(A, 7S)...")
    assert f.size() == 2**71 - 1 and f.atoms() == {has("A", "7S")}
    assert answers(f) == dict.fromkeys(ENGINES, True)  # and every engine evaluates it


def test_to_sympy_flattens_chains_and_refuses_what_sympy_cannot_take() -> None:
    wide = conjunction(Atom(f"p{i}") for i in range(5_000))
    assert len(wide.to_sympy().args) == 5_000
    assert (Atom("p") >> (Atom("q") | Atom("r") | Atom("s"))).to_sympy().args[1].args
    for text in ("~" * HUGE + "p", "p -> " * (SYMPY_DEPTH_LIMIT + 1) + "p"):
        with pytest.raises(FormulaTooLargeError, match=r"nests [\d,]+ deep; to_sympy takes at"):
            parse(text).to_sympy()
    shallow = " -> ".join(f"p{i}" for i in range(SYMPY_DEPTH_LIMIT))
    converted = parse(shallow).to_sympy()
    assert str(converted).startswith("Implies(p0, Implies(p1, Implies(p2")
    assert len(converted.free_symbols) == SYMPY_DEPTH_LIMIT


def _junk(value: object) -> Any:
    """``value``, typed as anything (the calls below pass wrong types on purpose)."""
    return value


@pytest.mark.parametrize(
    "call",
    [
        lambda: parse(_junk(5)),
        lambda: parse(_junk(b"p")),
        lambda: kw.as_formula(_junk(None)),
        lambda: Not(_junk("p")),
        lambda: And(Atom("p"), _junk(5)),
        lambda: Atom("p") & _junk("q"),
        lambda: kw.E(_junk(None), Atom("p")),
        lambda: conjunction(_junk(5)),
        lambda: conjunction(_junk(["p"])),
        lambda: kw.KripkeModel(1, {"A": [0]}, {"p": [True]}).holds(_junk(3.5)),
    ],
)
def test_formulas_of_the_wrong_type_are_kwartet_errors(call: Any) -> None:
    with pytest.raises(FormulaTypeError) as raised:
        call()
    assert isinstance(raised.value, kw.KwartetError) and isinstance(raised.value, TypeError)


# ----- 3. cards in any spelling, at any depth, on every engine ----------------------

SPELLINGS = ["7S", "7s", "7♠", "7 ♠", "seven of spades", "Seven of Spades", "7 of spades"]
TEMPLATES = [
    "has(A, {c})",
    "K_B K_C has(A, {c})",
    "K_B M_C has(A, {c})",
    "M_B ~K_C ~has(A, {c})",
    "K_A has(A, {c}) & D_{{B,C}} has(A, {c})",
    "C_{{A,B,C}} (has(A, {c}) | ~has(A, {c}))",
    "E_{{B,C}} ~has(B, {c})",
    "[!has(A, {c})] K_B has(A, {c})",
    "<!~has(B, {c})> K_C ~has(B, {c})",
    "Kw_B has(C, {c}) -> K_A K_B has(A, {c})",
]


@pytest.mark.parametrize("template", TEMPLATES)
def test_one_card_in_every_spelling_gives_one_answer_on_every_engine(template: str) -> None:
    expected = reference(template.format(c="7S"))
    for spelling in SPELLINGS:
        found = answers(template.format(c=spelling))
        assert found == dict.fromkeys(ENGINES, expected), spelling


def _respell(f: Formula, choose: st.DrawFn) -> Formula:
    """``f`` with each card atom in a spelling drawn at random."""
    spellings: dict[str, list[str]] = {}
    for card in GAME.deck.cards:
        suit = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}[card.code[-1]]
        spellings[card.code] = [card.code, card.code.lower(), card.code[:-1] + suit, card.name]

    def rebuild(node: Formula, children: list[Formula]) -> Formula:
        if isinstance(node, Atom):
            player, code = node.arguments
            return has(player, choose(st.sampled_from(spellings[code])))
        return node.rebuild(children)

    return f.fold(rebuild)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(f=nested_formulas(list(GAME.players), ATOMS), data=st.data())
def test_random_formulas_in_random_spellings_keep_their_value(f: Formula, data: Any) -> None:
    respelled = _respell(f, data.draw)
    expected = reference(f)
    assert answers(respelled) == dict.fromkeys(ENGINES, expected)


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize(
    ("text", "error", "words"),
    [
        ("K_B K_C has(A, 7X)", kw.UnknownCardError, "no card '7X'"),
        ("K_B has(A, seven of swords)", kw.UnknownCardError, "seven of swords"),
        ("K_B M_C has(Z, 7S)", kw.KwartetError, "'Z' is not a player"),
        ("K_B K_C p", kw.KwartetError, "atoms has"),
        ("~" * DEEP + "holds(A, 7S)", kw.KwartetError, "atoms has"),
    ],
)
def test_a_bad_atom_at_any_depth_is_the_same_error_on_every_engine(
    engine: str, text: str, error: type[Exception], words: str
) -> None:
    before = state_of(GAME)
    k = kw.knowledge(GAME, engine=engine)
    worlds = k.count_worlds()
    with pytest.raises(error, match=words):
        k.holds(text)
    assert state_of(GAME) == before and k.count_worlds() == worlds


def test_a_view_reads_cards_in_any_spelling_too() -> None:
    for engine in ENGINES:
        view = kw.knowledge(GAME.view("A"), engine=engine)
        assert view.holds("K_A has(A, seven of spades)") is True
        assert view.holds("~" * DEEP + "has(A, 7♠)") is (DEEP % 2 == 0)


# ----- knowledge-based programs read conditions of any depth ------------------------


def test_a_program_condition_past_the_recursion_limit_chooses_as_the_shallow_one() -> None:
    from kwartet_epistemic.agents.knowledge import ExactKnowledge
    from kwartet_epistemic.agents.programs import KnowledgeProgram

    game = small_game()
    game.ask("A", "7C")  # B asks A for 7C: refused, A to move; A knows C holds 7C
    assert game.to_move == "A"
    view = game.view("A")
    knowledge = ExactKnowledge("A")
    knowledge.update(view)
    shallow = [("K_me has(?p, ?c) & need(?c)", "ask ?p ?c"), ("need(?c)", "ask ?p ?c")]
    deep = [
        ("~~" * DEEP + "K_me " * DEEP + "has(?p, ?c) & need(?c)", "ask ?p ?c"),
        ("K_me (" + " <-> ".join(["need(?c)"] * 41) + ")", "ask ?p ?c"),
    ]
    choices = []
    for rules in (shallow, deep):
        program = KnowledgeProgram.from_rules(rules)
        asks = view.legal_asks()
        choices.append(program.choose(view, knowledge, asks, np.random.default_rng(3)))
    assert choices[0] == choices[1]
    assert (choices[0].target, choices[0].card.code) == ("C", "7C")  # the first rule fired
