"""Laws of S5 and public announcement logic on random models and formulas (hypothesis).

Every law is checked as validity on random small Kripke models; the numpy engine is
also cross-checked against a plain set-based evaluator written here from the
textbook definitions, and bisimulation contraction, generated submodels, restriction
and product update are checked to preserve truth.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from kwartet_epistemic.kripke import ActionModel, KripkeModel
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
)

AGENTS = ("a", "b", "c")
ATOMS = ("p", "q", "r")
GROUPS = [("a",), ("a", "b"), ("b", "c"), ("a", "b", "c")]


@st.composite
def models(draw: st.DrawFn, max_worlds: int = 7) -> KripkeModel:
    n = draw(st.integers(1, max_worlds))
    labels = st.lists(st.integers(0, n - 1), min_size=n, max_size=n)
    masks = st.lists(st.booleans(), min_size=n, max_size=n)
    # Atoms past the first few are false everywhere, so that worlds often agree on
    # every atom and bisimilar worlds are common.
    varying = draw(st.integers(1, len(ATOMS)))
    return KripkeModel(
        n,
        {agent: draw(labels) for agent in AGENTS},
        {atom: draw(masks) if i < varying else [False] * n for i, atom in enumerate(ATOMS)},
        actual=draw(st.integers(0, n - 1)),
    )


def _extend(children: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    agent = st.sampled_from(AGENTS)
    group = st.sampled_from(GROUPS)
    return st.one_of(
        children.map(Not),
        st.builds(And, children, children),
        st.builds(Or, children, children),
        st.builds(Implies, children, children),
        st.builds(Iff, children, children),
        st.builds(K, agent, children),
        st.builds(M, agent, children),
        st.builds(Kw, agent, children),
        st.builds(E, group, children),
        st.builds(C, group, children),
        st.builds(D, group, children),
        st.builds(Announce, children, children),
        st.builds(AnnounceDual, children, children),
    )


formulas = st.recursive(
    st.one_of(st.sampled_from([Atom(a) for a in ATOMS]), st.just(Top()), st.just(Bottom())),
    _extend,
    max_leaves=8,
)
agents = st.sampled_from(AGENTS)
groups = st.sampled_from(GROUPS)


def reference_truth(model: KripkeModel, formula: Formula, worlds: frozenset[int]) -> set[int]:
    """The truth set in the submodel on ``worlds``, straight from the definitions."""

    def related(agent: str, w: int) -> set[int]:
        labels = model.labels(agent)
        return {v for v in worlds if labels[v] == labels[w]}

    def reach(group: tuple[str, ...], w: int) -> set[int]:
        seen, frontier = {w}, [w]
        while frontier:
            u = frontier.pop()
            for agent in group:
                for v in related(agent, u) - seen:
                    seen.add(v)
                    frontier.append(v)
        return seen

    def truth(f: Formula) -> set[int]:
        return reference_truth(model, f, worlds)

    if isinstance(f := formula, Atom):
        return {w for w in worlds if model.truth_set(f)[w]}
    if isinstance(f, Top):
        return set(worlds)
    if isinstance(f, Bottom):
        return set()
    if isinstance(f, Not):
        return set(worlds) - truth(f.operand)
    if isinstance(f, And):
        return truth(f.left) & truth(f.right)
    if isinstance(f, Or):
        return truth(f.left) | truth(f.right)
    if isinstance(f, Implies):
        return (set(worlds) - truth(f.left)) | truth(f.right)
    if isinstance(f, Iff):
        left, right = truth(f.left), truth(f.right)
        return {w for w in worlds if (w in left) == (w in right)}
    if isinstance(f, K | M | Kw):
        inner = truth(f.operand)
        knows = {w for w in worlds if related(f.agent, w) <= inner}
        if isinstance(f, K):
            return knows
        if isinstance(f, M):
            return {w for w in worlds if related(f.agent, w) & inner}
        knows_not = {w for w in worlds if not related(f.agent, w) & inner}
        return knows | knows_not
    if isinstance(f, E | C | D):
        inner = truth(f.operand)
        if isinstance(f, E):
            return {w for w in worlds if all(related(a, w) <= inner for a in f.group)}
        if isinstance(f, C):
            return {w for w in worlds if reach(f.group, w) <= inner}
        return {w for w in worlds if set.intersection(*(related(a, w) for a in f.group)) <= inner}
    if isinstance(f, Announce | AnnounceDual):
        announced = truth(f.announced)
        inside = reference_truth(model, f.operand, frozenset(announced))
        if isinstance(f, Announce):
            return (set(worlds) - announced) | inside
        return announced & inside
    raise AssertionError(f"unknown node {f!r}")


@given(models(), formulas)
@settings(max_examples=300, deadline=None)
def test_numpy_engine_agrees_with_set_based_definitions(
    model: KripkeModel, formula: Formula
) -> None:
    expected = reference_truth(model, formula, frozenset(range(model.n_worlds)))
    assert set(np.flatnonzero(model.truth_set(formula)).tolist()) == expected


Law = Callable[[Formula, Formula, str, tuple[str, ...]], Formula]

LAWS: dict[str, Law] = {
    "T: K_a φ -> φ": lambda f, g, a, G: K(a, f) >> f,
    "4: K_a φ -> K_a K_a φ": lambda f, g, a, G: K(a, f) >> K(a, K(a, f)),
    "5: ~K_a φ -> K_a ~K_a φ": lambda f, g, a, G: ~K(a, f) >> K(a, ~K(a, f)),
    "K: K_a (φ -> ψ) -> K_a φ -> K_a ψ": lambda f, g, a, G: K(a, f >> g) >> (K(a, f) >> K(a, g)),
    "M is the dual of K": lambda f, g, a, G: Iff(M(a, f), ~K(a, ~f)),
    "Kw is knowing whether": lambda f, g, a, G: Iff(Kw(a, f), K(a, f) | K(a, ~f)),
    "C_G φ -> E_G φ": lambda f, g, a, G: C(G, f) >> E(G, f),
    "C_G φ -> E_G C_G φ": lambda f, g, a, G: C(G, f) >> E(G, C(G, f)),
    "induction: C_G (φ -> E_G φ) -> φ -> C_G φ": lambda f, g, a, G: (
        C(G, f >> E(G, f)) >> (f >> C(G, f))
    ),
    "E_G φ -> D_G φ": lambda f, g, a, G: E(G, f) >> D(G, f),
    "T for D: D_G φ -> φ": lambda f, g, a, G: D(G, f) >> f,
    "[!φ]p <-> (φ -> p)": lambda f, g, a, G: Iff(Announce(f, Atom("p")), f >> Atom("p")),
    "[!φ]~ψ <-> (φ -> ~[!φ]ψ)": lambda f, g, a, G: Iff(Announce(f, ~g), f >> ~Announce(f, g)),
    "[!φ](ψ & χ) <-> [!φ]ψ & [!φ]χ": lambda f, g, a, G: Iff(
        Announce(f, g & Atom("q")), Announce(f, g) & Announce(f, Atom("q"))
    ),
    "[!φ]K_a ψ <-> (φ -> K_a [!φ]ψ)": lambda f, g, a, G: Iff(
        Announce(f, K(a, g)), f >> K(a, Announce(f, g))
    ),
    "[!φ][!ψ]χ <-> [!φ & [!φ]ψ]χ": lambda f, g, a, G: Iff(
        Announce(f, Announce(g, Atom("r"))), Announce(f & Announce(f, g), Atom("r"))
    ),
    "<!φ>ψ <-> φ & [!φ]ψ": lambda f, g, a, G: Iff(AnnounceDual(f, g), f & Announce(f, g)),
    "[!φ]C_G ψ -> [!φ]ψ": lambda f, g, a, G: Announce(f, C(G, g)) >> Announce(f, g),
    "announcing an atom makes it common knowledge": lambda f, g, a, G: Announce(
        Atom("p"), C(G, Atom("p"))
    ),
}


@given(models(), formulas, formulas, agents, groups, st.sampled_from(sorted(LAWS)))
@settings(max_examples=400, deadline=None)
def test_laws_of_s5_and_public_announcement_are_valid(
    model: KripkeModel,
    phi: Formula,
    psi: Formula,
    agent: str,
    group: tuple[str, ...],
    law: str,
) -> None:
    instance = LAWS[law](phi, psi, agent, group)
    assert model.is_valid(instance), f"{law}: {instance} fails"


@given(models(), formulas)
@settings(max_examples=200, deadline=None)
def test_contraction_preserves_every_formula(model: KripkeModel, formula: Formula) -> None:
    classes = model.bisimulation_classes()
    contracted = model.contract()
    assert contracted.n_worlds == int(classes.max()) + 1
    truth = model.truth_set(formula)
    small_truth = contracted.truth_set(formula)
    assert np.array_equal(truth, small_truth[classes])
    assert contracted.holds(formula) == model.holds(formula)


@given(models())
@settings(max_examples=100, deadline=None)
def test_contraction_is_idempotent_and_minimal(model: KripkeModel) -> None:
    contracted = model.contract()
    assert contracted.contract().n_worlds == contracted.n_worlds
    assert len(set(contracted.bisimulation_classes().tolist())) == contracted.n_worlds


@given(models(), formulas)
@settings(max_examples=150, deadline=None)
def test_generated_submodel_preserves_truth_at_the_actual_world(
    model: KripkeModel, formula: Formula
) -> None:
    assert model.generated_submodel().holds(formula) == model.holds(formula)


@given(models(), formulas, formulas)
@settings(max_examples=200, deadline=None)
def test_announcing_then_checking_equals_checking_the_announcement_formula(
    model: KripkeModel, announced: Formula, formula: Formula
) -> None:
    if not model.holds(announced):
        return
    after = model.announce(announced)
    assert after.holds(formula) == model.holds(Announce(announced, formula))
    via_action = model.product_update(ActionModel.public_announcement(announced, AGENTS))
    assert via_action.n_worlds == after.n_worlds
    assert np.array_equal(via_action.truth_set(formula), after.truth_set(formula))


@given(models(), formulas, formulas, st.sampled_from(AGENTS))
@settings(max_examples=150, deadline=None)
def test_semi_private_learning_is_knowing_whether_for_the_observer(
    model: KripkeModel, secret: Formula, formula: Formula, observer: str
) -> None:
    actual = "yes" if model.holds(secret) else "no"
    action = ActionModel.semi_private({"yes": secret, "no": ~secret}, [observer], AGENTS, actual)
    after = model.product_update(action)
    # The observer learns whether the secret held before the event; the others learn
    # only that the observer learnt it, so that fact is common knowledge.
    before = model.truth_set(secret)
    assert after.holds(Kw(observer, Atom("p"))) == bool(
        _knows_whether_after_learning(model, observer, before, Atom("p"))
    )
    # Exactly one of the two events can happen at each world.
    assert after.n_worlds == model.n_worlds
    # Learning a fact semi-privately makes it common knowledge that the observer knows
    # whether it holds.
    q = Atom("q")
    learnt = model.product_update(
        ActionModel.semi_private(
            {"q": q, "not q": ~q}, [observer], AGENTS, "q" if model.holds(q) else "not q"
        )
    )
    assert learnt.holds(C(AGENTS, Kw(observer, q)))


def _knows_whether_after_learning(
    model: KripkeModel, observer: str, secret: np.ndarray, atom: Atom
) -> bool:
    assert model.actual is not None
    labels = model.labels(observer)
    same_block = labels == labels[model.actual]
    same_secret = secret == secret[model.actual]
    values = model.truth_set(atom)[same_block & same_secret]
    return bool(values.all() or not values.any())
