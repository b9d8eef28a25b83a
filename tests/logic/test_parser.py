"""The text syntax: precedence, Unicode, errors with positions, round trips, fuzzing."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kwartet_epistemic.errors import FormulaSyntaxError
from kwartet_epistemic.logic import (
    And,
    Announce,
    AnnounceDual,
    Atom,
    Bottom,
    C,
    D,
    E,
    Formula,
    Iff,
    Implies,
    K,
    Kw,
    M,
    Not,
    Or,
    Top,
    as_formula,
    has,
    parse,
)

p, q, r, s = Atom("p"), Atom("q"), Atom("r"), Atom("s")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("p & q | r", Or(And(p, q), r)),
        ("p | q & r", Or(p, And(q, r))),
        ("p -> q | r", Implies(p, Or(q, r))),
        ("p -> q -> r", Implies(p, Implies(q, r))),
        ("p <-> q -> r", Iff(p, Implies(q, r))),
        ("p <-> q <-> r", Iff(Iff(p, q), r)),
        ("p & q & r", And(And(p, q), r)),
        ("~p & q", And(Not(p), q)),
        ("K_A p & q", And(K("A", p), q)),
        ("K_A ~p", K("A", Not(p))),
        ("~K_A p", Not(K("A", p))),
        ("K_1 K_2 p", K("1", K("2", p))),
        ("[!p]q & r", And(Announce(p, q), r)),
        ("[!p & q]r", Announce(And(p, q), r)),
        ("[![!p]q]r", Announce(Announce(p, q), r)),
        ("<!p>K_A q", AnnounceDual(p, K("A", q))),
        ("<!p -> q>r", AnnounceDual(Implies(p, q), r)),
        ("E_{A,B} p", E(("A", "B"), p)),
        ("C_{ A , B , C } p", C(("A", "B", "C"), p)),
        ("D_A p", D(("A",), p)),
        ("K_{A} p", K("A", p)),
        ("K_A(p)", K("A", p)),
        ("Kw_me has(B,QH)", Kw("me", has("B", "QH"))),
        ("M_A top", M("A", Top())),
        ("(((p)))", p),
        ("top | bot", Or(Top(), Bottom())),
    ],
)
def test_precedence_and_associativity(text: str, expected: Formula) -> None:
    assert parse(text) == expected


def test_unicode_alternatives() -> None:
    assert parse("¬p ∧ q ∨ r → s ↔ ⊤") == parse("~p & q | r -> s <-> top")
    assert parse("⟨!p⟩⊥") == AnnounceDual(p, Bottom())
    assert parse("has(B, Q♥) ∧ has(C, 10♠)") == has("B", "Q♥") & has("C", "10♠")
    assert parse("K_Ä p") == K("Ä", p)


def test_atoms_with_variables_and_card_names() -> None:
    assert parse("has(?p, ?c)").arguments == ("?p", "?c")  # type: ignore[attr-defined]
    assert parse("has(Ann, Mr Bun)") == has("Ann", "Mr Bun")
    assert parse("in_stock(7S)").predicate == "in_stock"  # type: ignore[attr-defined]


@pytest.mark.parametrize(
    ("text", "position", "expected"),
    [
        ("", 0, "expected a formula"),
        ("p &", 3, "expected a formula"),
        ("p & & q", 4, "expected a formula"),
        ("(p", 2, "')'"),
        ("p)", 1, "unmatched ')'"),
        ("[p]q", 0, "'!'"),
        ("[!p q", 4, "']'"),
        ("<!p]q", 3, "'>'"),
        ("K_ p", 3, "an agent or '{'"),
        ("K_{A,B} p", 0, "takes one agent"),
        ("E_{A B} p", 5, "',' or '}'"),
        ("E_{} p", 3, "an agent name"),
        ("has(B, QH", 9, "')' closing the arguments"),
        ("has(, QH)", 4, "empty argument"),
        ("p q", 2, "an operator"),
        ("p - q", 2, "'->'"),
        ("p < q", 2, "'<->' or '<!'"),
        ("p $ q", 2, "unexpected character '$'"),
        ("K_A", 3, "expected a formula"),
    ],
)
def test_syntax_errors_name_the_position_and_what_was_expected(
    text: str, position: int, expected: str
) -> None:
    with pytest.raises(FormulaSyntaxError) as raised:
        parse(text)
    error = raised.value
    assert error.position == position
    assert error.text == text
    assert expected in str(error)
    assert f"position {position}" in str(error) or "takes one agent" in str(error)
    assert isinstance(error, ValueError)


def test_as_formula_accepts_text_or_formulas_only() -> None:
    assert as_formula("p") == p and as_formula(p) is p
    with pytest.raises(TypeError):
        as_formula(3)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        parse(None)  # type: ignore[arg-type]


# ---------------------------------------------------------------- round trips

identifiers = st.from_regex(r"[a-z][a-z0-9_]{0,5}", fullmatch=True).filter(
    lambda word: word not in ("top", "bot") and not word.startswith(("k_", "m_"))
)
agents = st.from_regex(r"[A-Za-z0-9_]{1,4}", fullmatch=True)
arguments = st.from_regex(
    r"(\?[a-z]{1,3}|[0-9]{0,2}[A-Z♥♠♦♣]{1,2}|[A-Z][a-z]{0,4})", fullmatch=True
)
atoms = st.one_of(
    identifiers.filter(lambda w: w[0] != "_").map(Atom),
    st.builds(
        lambda name, args: Atom(f"{name}({', '.join(args)})"),
        identifiers,
        st.lists(arguments, min_size=1, max_size=3),
    ),
)


def _extend(children: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    group = st.lists(agents, min_size=1, max_size=3)
    return st.one_of(
        children.map(Not),
        st.builds(And, children, children),
        st.builds(Or, children, children),
        st.builds(Implies, children, children),
        st.builds(Iff, children, children),
        st.builds(K, agents, children),
        st.builds(M, agents, children),
        st.builds(Kw, agents, children),
        st.builds(E, group, children),
        st.builds(C, group, children),
        st.builds(D, group, children),
        st.builds(Announce, children, children),
        st.builds(AnnounceDual, children, children),
    )


formulas = st.recursive(st.one_of(atoms, st.just(Top()), st.just(Bottom())), _extend, max_leaves=10)


@given(formulas)
@settings(max_examples=250, deadline=None)
def test_printing_then_parsing_gives_the_formula_back(formula: Formula) -> None:
    text = str(formula)
    assert parse(text) == formula
    # Spacing is free: the same formula without optional spaces, and with more.
    assert parse(text.replace(" & ", "&").replace(" -> ", "->")) == formula
    assert parse(" " + text.replace("(", "( ").replace(")", " )") + "\n") == formula


# ---------------------------------------------------------------- fuzzing

syntax_pieces = st.sampled_from(
    ["p", "q", "has(", "B", ",", " ", ")", "(", "~", "&", "|", "->", "<->", "<", ">", "-",
     "[", "]", "!", "[!", "<!", "K_", "A", "M_A", "Kw_1", "E_{", "}", "C_", "D_{A,B}", "top",
     "bot", "⊤", "¬", "∧", "→", "⟨", "⟩", "?x", "♥", "{", "_", "1", "\n", "\x00", "é"]
)  # fmt: skip


@given(st.one_of(st.text(max_size=40), st.lists(syntax_pieces, max_size=25).map("".join)))
@settings(max_examples=1000, deadline=None)
def test_junk_text_raises_only_formula_syntax_errors(text: str) -> None:
    try:
        formula = parse(text)
    except FormulaSyntaxError as error:
        assert 0 <= error.position <= len(text)
        assert error.text == text
    else:
        assert parse(str(formula)) == formula


@pytest.mark.parametrize("group", [["W", "0", "00"], ["W", "00", "0"], ["00", "0", "W"]])
def test_a_group_has_one_order_even_for_names_equal_as_numbers(group: list[str]) -> None:
    # "0" and "00" compare equal by their numbers alone; found by the round trip above
    for modal in (E, C, D):
        formula = modal(group, Top())
        assert formula.group == ("0", "00", "W")
        assert parse(str(formula)) == formula
