"""Formula trees: construction, operators, canonical atoms, traversals, printers."""

from __future__ import annotations

import pickle

import pytest
import sympy

import kwartet_epistemic as kw
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
    NotPropositionalError,
    Or,
    Top,
    conjunction,
    disjunction,
    has,
    parse,
)

p, q, r = Atom("p"), Atom("q"), Atom("r")


def test_python_operators_build_the_nodes() -> None:
    assert ~p == Not(p)
    assert p & q == And(p, q)
    assert p | q == Or(p, q)
    assert p >> q == Implies(p, q)
    assert (p & q).args == (p, q)
    assert K("A", p).args == (p,) and Announce(p, q).args == (p, q)
    assert Top().args == () and p.args == ()


def test_formulas_are_frozen_hashable_values() -> None:
    f = K("A", p & q)
    assert f == K("A", And(Atom("p"), Atom("q")))
    assert hash(f) == hash(K("A", And(Atom("p"), Atom("q"))))
    assert len({f, K("A", p & q), K("B", p & q)}) == 2
    with pytest.raises(AttributeError):
        f.agent = "B"  # type: ignore[misc]
    assert pickle.loads(pickle.dumps(f)) == f
    assert f != "K_A (p & q)"


def test_structurally_different_formulas_differ() -> None:
    different = [p & q, q & p, p | q, Iff(p, q), p >> q, K("A", p), M("A", p), Kw("A", p),
                 E(["A"], p), C(["A"], p), D(["A"], p), Announce(p, q), AnnounceDual(p, q),
                 E(["A", "B"], p), E(["A", "C"], p)]  # fmt: skip
    assert len(set(different)) == len(different)


def test_groups_are_sets() -> None:
    assert E(["B", "A"], p) == E(["A", "B"], p) == E(["A", "B", "A"], p)
    assert hash(C(["B", "A"], p)) == hash(C(["A", "B"], p))
    assert str(D(["B", "A"], p)) == "D_{A,B} p"


def test_atom_names_are_canonical() -> None:
    assert Atom("has(B,QH)") == Atom(" has( B ,  QH ) ") == has("B", "QH")
    assert Atom("has(B,QH)").name == "has(B, QH)"
    atom = has("B", "Q♥")
    assert (atom.predicate, atom.arguments) == ("has", ("B", "Q♥"))
    assert (Atom("muddy3").predicate, Atom("muddy3").arguments) == (None, ())
    assert has("Ann", "Mr  Bun").arguments == ("Ann", "Mr Bun")


@pytest.mark.parametrize(
    "name",
    ["", "3p", "top", "bot", "K_A", "Kw_x", "C_", "p q", "has(B, Q(H))", "has(B,)", "has(B",
     "p&q", "has(B, x\x00y)"],
)  # fmt: skip
def test_bad_atom_names_are_refused(name: str) -> None:
    with pytest.raises(FormulaSyntaxError, match="atom"):
        Atom(name)


def test_agents_and_groups() -> None:
    assert K(1, p).agent == "1"  # type: ignore[arg-type]
    assert E("A", p).group == ("A",)
    assert C(iter(["B", "A"]), p).group == ("A", "B")  # a set, in a fixed order
    with pytest.raises(FormulaSyntaxError, match="bad agent name"):
        K("A B", p)
    with pytest.raises(FormulaSyntaxError, match="empty group"):
        D([], p)
    with pytest.raises(TypeError, match="must be a Formula"):
        K("A", "p")  # type: ignore[arg-type]


def test_atoms_agents_variables_and_depth() -> None:
    f = parse("K_A has(B, ?c) & [!p]C_{B,C} (q | M_D K_A r)")
    assert f.atoms() == {has("B", "?c"), p, q, r}
    assert f.agents() == {"A", "B", "C", "D"}
    assert f.variables() == {"?c"}
    assert f.modal_depth() == 3
    assert f.substitute({"?c": "Q♥"}).atoms() == {has("B", "Q♥"), p, q, r}
    assert f.substitute({}) is f
    assert (p & ~p).size() == 4


def test_conjunction_and_disjunction_nest_to_the_left() -> None:
    assert conjunction([p, q, r]) == (p & q) & r == parse("p & q & r")
    assert disjunction([p, q, r]) == parse("p | q | r")
    assert conjunction([]) == Top() and disjunction([]) == Bottom()
    assert conjunction([p]) is p


def test_huge_formulas_need_no_recursion() -> None:
    many = conjunction(Atom(f"p{i}") for i in range(5_000))
    same = conjunction(Atom(f"p{i}") for i in range(5_000))
    assert many == same and hash(many) == hash(same)
    text = str(many)
    assert text.startswith("p0 & p1 & ") and parse(text) == many
    deep: Formula = p
    for _ in range(2_000):
        deep = K("A", Not(deep))
    assert parse(str(deep)) == deep and deep.modal_depth() == 2_000
    assert repr(deep).startswith("K(agent='A', operand=Not(operand=K(")
    assert len(deep.atoms()) == 1


def test_shared_subformulas_are_visited_once() -> None:
    f: Formula = p
    for _ in range(60):
        f = f & f  # a tree of 2**60 leaves, but 61 distinct nodes
    assert len(list(f.subformulas())) == 61
    assert f.atoms() == {p}
    assert f.modal_depth() == 0


def test_printing_uses_the_fewest_parentheses() -> None:
    cases = {
        p & q | r: "p & q | r",
        p & (q | r): "p & (q | r)",
        (p >> q) >> r: "(p -> q) -> r",
        p >> (q >> r): "p -> q -> r",
        Iff(p >> q, r): "p -> q <-> r",
        Iff(p, Iff(q, r)): "p <-> (q <-> r)",
        ~(p & q): "~(p & q)",
        ~~p: "~~p",
        K("A", ~p): "K_A ~p",
        K("A", p & q): "K_A (p & q)",
        K("A", p) & q: "K_A p & q",
        E(["A", "B"], p): "E_{A,B} p",
        Announce(p & q, K("A", r)): "[!p & q]K_A r",
        Announce(p, q | r): "[!p](q | r)",
        AnnounceDual(Top(), Bottom()): "<!top>bot",
        Kw("me", has("B", "10H")): "Kw_me has(B, 10H)",
    }
    for formula, text in cases.items():
        assert str(formula) == text
        assert parse(text) == formula


def test_latex_for_jupyter() -> None:
    assert K("A", has("B", "Q♥"))._repr_latex_() == r"$K_{A}\,\mathit{has}(B, Q\heartsuit)$"
    assert (~p >> Kw("B", q)).to_latex() == r"\neg p \rightarrow \mathit{Kw}_{B}\,q"
    assert C(["A", "B"], p | q).to_latex() == r"C_{A,B}\,\left(p \lor q\right)"
    assert Announce(p, q).to_latex() == r"[ !p]\,q"
    assert Atom("m_3").to_latex() == r"\mathit{m\_3}"


def test_sympy_for_the_propositional_part() -> None:
    f = Iff(p >> q, ~q >> ~p)
    converted = f.to_sympy()
    assert isinstance(converted, sympy.logic.boolalg.Boolean)
    assert sympy.logic.inference.valid(converted)
    assert (Top() & has("B", "QH")).to_sympy() == sympy.Symbol("has(B, QH)")
    with pytest.raises(NotPropositionalError, match="K in 'K_A p'"):
        (q | K("A", p)).to_sympy()
    with pytest.raises(NotPropositionalError):
        Announce(p, q).to_sympy()


def test_the_package_exports_the_formula_language() -> None:
    for name in ["parse", "Formula", "Top", "Bottom", "Atom", "Not", "And", "Or", "Implies",
                 "Iff", "K", "M", "Kw", "E", "C", "D", "Announce", "AnnounceDual", "has",
                 "KripkeModel", "ActionModel"]:  # fmt: skip
        assert name in kw.__all__ and hasattr(kw, name)
    assert kw.parse("K_A p") == K("A", p)


def test_card_codes_render_with_their_suit_in_latex() -> None:
    from kwartet_epistemic.logic import parse

    assert parse("K_A has(B, QH)")._repr_latex_() == r"$K_{A}\,\mathit{has}(B, Q\heartsuit)$"
    assert r"10\spadesuit" in parse("has(B, 10S)")._repr_latex_()
    assert parse("has(B, QH)") == parse("has(B, QH)")  # the text form is unchanged
    assert str(parse("has(B, QH)")) == "has(B, QH)"


def test_equality_of_separately_built_formulas_with_shared_subtrees() -> None:
    # Each side is a DAG of 61 nodes standing for a tree of 2**61 nodes: comparing them
    # must visit the shared subtrees once (this would never finish otherwise).
    from kwartet_epistemic.logic import Atom

    def doubled(n: int, leaf: str = "p"):
        f = Atom(leaf)
        for _ in range(n):
            f = f & f
        return f

    assert doubled(60) == doubled(60)
    assert doubled(60) != doubled(60, "q")
