"""Random structures and formulas: the symbolic engine against a brute-force reference,
and the laws of S5, common/distributed knowledge and public announcement logic."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Mapping

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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
    conjunction,
    disjunction,
)
from kwartet_epistemic.symbolic import KnowledgeStructure, available_backends

VOCABULARY = ("p", "q", "r")
AGENTS = ("a", "b", "c")
ALL_STATES = [
    frozenset(name for name, value in zip(VOCABULARY, values, strict=True) if value)
    for values in itertools.product((False, True), repeat=len(VOCABULARY))
]

State = frozenset[str]
Observed = Mapping[str, frozenset[str]]

SETTINGS = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@pytest.fixture(scope="module", params=available_backends())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# ---------------------------------------------------------------- strategies

atoms = st.sampled_from(VOCABULARY).map(Atom)
agents = st.sampled_from(AGENTS)
groups = st.lists(agents, min_size=1, max_size=3, unique=True).map(tuple)


def extend(children: st.SearchStrategy[Formula]) -> st.SearchStrategy[Formula]:
    pairs = st.tuples(children, children)
    return st.one_of(
        children.map(Not),
        pairs.map(lambda t: And(*t)),
        pairs.map(lambda t: Or(*t)),
        pairs.map(lambda t: Implies(*t)),
        pairs.map(lambda t: Iff(*t)),
        st.tuples(agents, children).map(lambda t: K(*t)),
        st.tuples(agents, children).map(lambda t: M(*t)),
        st.tuples(agents, children).map(lambda t: Kw(*t)),
        st.tuples(groups, children).map(lambda t: E(*t)),
        st.tuples(groups, children).map(lambda t: C(*t)),
        st.tuples(groups, children).map(lambda t: D(*t)),
        pairs.map(lambda t: Announce(*t)),
        pairs.map(lambda t: AnnounceDual(*t)),
    )


formulas = st.recursive(st.one_of(atoms, st.just(Top()), st.just(Bottom())), extend, max_leaves=10)
laws = st.lists(st.sampled_from(ALL_STATES), min_size=1, unique=True).map(frozenset)
observations = st.fixed_dictionaries(
    {agent: st.frozensets(st.sampled_from(VOCABULARY)) for agent in AGENTS}
)


def minterm(state: State) -> Formula:
    return conjunction(Atom(n) if n in state else Not(Atom(n)) for n in VOCABULARY)


def build(states: frozenset[State], observed: Observed, backend: str) -> KnowledgeStructure:
    law = disjunction(minterm(s) for s in sorted(states, key=sorted))
    return KnowledgeStructure(VOCABULARY, law, observed, backend=backend)


# ---------------------------------------------------------------- the reference


def reference(formula: Formula, states: frozenset[State], observed: Observed) -> set[State]:
    """The states where the formula holds, by the textbook definitions, state by state."""

    def truth(f: Formula, model: frozenset[State]) -> set[State]:
        return reference(f, model, observed)

    def knows(seen: frozenset[str], target: set[State]) -> set[State]:
        return {s for s in states if all(t in target for t in states if t & seen == s & seen)}

    match formula:
        case Top():
            return set(states)
        case Bottom():
            return set()
        case Atom():
            return {s for s in states if formula.name in s}
        case Not():
            return set(states) - truth(formula.operand, states)
        case And() | Or() | Implies() | Iff():
            left, right = truth(formula.left, states), truth(formula.right, states)
            combine: dict[type, Callable[[State], bool]] = {
                And: lambda s: s in left and s in right,
                Or: lambda s: s in left or s in right,
                Implies: lambda s: s not in left or s in right,
                Iff: lambda s: (s in left) == (s in right),
            }
            return {s for s in states if combine[type(formula)](s)}
        case K():
            return knows(observed[formula.agent], truth(formula.operand, states))
        case M():
            inner = truth(formula.operand, states)
            seen = observed[formula.agent]
            return {s for s in states if any(t in inner for t in states if t & seen == s & seen)}
        case Kw():
            inner = truth(formula.operand, states)
            seen = observed[formula.agent]
            return knows(seen, inner) | knows(seen, set(states) - inner)
        case E():
            inner = truth(formula.operand, states)
            return set.intersection(*(knows(observed[a], inner) for a in formula.group))
        case D():
            pooled = frozenset().union(*(observed[a] for a in formula.group))
            return knows(pooled, truth(formula.operand, states))
        case C():
            inner = truth(formula.operand, states)
            result = set()
            for start in states:
                reached, frontier = {start}, [start]
                while frontier:
                    s = frontier.pop()
                    for t in states:
                        if t not in reached and any(
                            t & observed[a] == s & observed[a] for a in formula.group
                        ):
                            reached.add(t)
                            frontier.append(t)
                if reached <= inner:
                    result.add(start)
            return result
        case Announce() | AnnounceDual():
            announced = truth(formula.announced, states)
            after = truth(formula.operand, frozenset(announced))
            if isinstance(formula, Announce):
                return (set(states) - announced) | (announced & after)
            return announced & after
    raise AssertionError(f"unexpected formula {formula!r}")


# ---------------------------------------------------------------- agreement


@SETTINGS
@given(states=laws, observed=observations, formula=formulas)
def test_truth_agrees_with_the_brute_force_reference(
    backend: str, states: frozenset[State], observed: Observed, formula: Formula
) -> None:
    ks = build(states, observed, backend)
    expected = reference(formula, states, observed)
    assert {s for s in ks.states() if ks.holds(formula, s)} == expected
    assert ks.count_states(formula) == len(expected)
    assert ks.is_valid(formula) == (expected == set(states))


@SETTINGS
@given(states=laws, observed=observations, announced=formulas, formula=formulas)
def test_announcing_updates_to_the_reference_submodel(
    backend: str, states: frozenset[State], observed: Observed, announced: Formula, formula: Formula
) -> None:
    ks = build(states, observed, backend)
    remaining = frozenset(reference(announced, states, observed))
    if not remaining:
        return
    after = ks.announce(announced)
    assert set(after.states()) == remaining
    assert {s for s in remaining if after.holds(formula, s)} == reference(
        formula, remaining, observed
    )
    assert after.is_valid(formula) == ks.is_valid(Announce(announced, formula))


# ---------------------------------------------------------------- laws


def schemata(phi: Formula, psi: Formula, a: str, b: str, group: tuple[str, ...]) -> list[Formula]:
    """Validities of S5 with common and distributed knowledge and of PAL."""
    return [
        K(a, phi) >> phi,  # T
        K(a, phi) >> K(a, K(a, phi)),  # 4
        Not(K(a, phi)) >> K(a, Not(K(a, phi))),  # 5
        (K(a, phi >> psi) & K(a, phi)) >> K(a, psi),  # K
        Iff(M(a, phi), Not(K(a, Not(phi)))),
        Iff(Kw(a, phi), K(a, phi) | K(a, Not(phi))),
        Iff(E(group, phi), conjunction(K(g, phi) for g in group)),
        C(group, phi) >> E(group, phi & C(group, phi)),  # fixpoint
        (E(group, phi) & C(group, phi >> E(group, phi))) >> C(group, phi),  # induction
        K(a, phi) >> D((a, b), phi),
        D(group, phi) >> phi,
        # public announcement: reduction axioms
        Iff(Announce(phi, Atom("p")), phi >> Atom("p")),
        Iff(Announce(phi, Not(psi)), phi >> Not(Announce(phi, psi))),
        Iff(Announce(phi, psi & Atom("q")), Announce(phi, psi) & Announce(phi, Atom("q"))),
        Iff(Announce(phi, K(a, psi)), phi >> K(a, Announce(phi, psi))),
        Iff(AnnounceDual(phi, psi), phi & Announce(phi, psi)),
        Iff(Announce(phi, Announce(psi, Atom("r"))), Announce(phi & Announce(phi, psi), Atom("r"))),
    ]


@SETTINGS
@given(
    states=laws,
    observed=observations,
    phi=formulas,
    psi=formulas,
    a=agents,
    b=agents,
    group=groups,
)
def test_laws_of_s5_and_public_announcement_are_valid(
    backend: str,
    states: frozenset[State],
    observed: Observed,
    phi: Formula,
    psi: Formula,
    a: str,
    b: str,
    group: tuple[str, ...],
) -> None:
    ks = build(states, observed, backend)
    for law in schemata(phi, psi, a, b, group):
        assert ks.is_valid(law), str(law)


@SETTINGS
@given(states=laws, observed=observations, phi=formulas)
def test_common_knowledge_of_an_announced_fact_when_everyone_sees_it(
    backend: str, states: frozenset[State], observed: Observed, phi: Formula
) -> None:
    # Announcing a propositional fact makes it common knowledge ([!p]C p), but a
    # Moore-style sentence need not survive its announcement.
    ks = build(states, observed, backend)
    assert ks.is_valid(Announce(Atom("p") | Atom("q"), C(AGENTS, Atom("p") | Atom("q"))))
    assert ks.is_valid(Announce(phi, Top()))


# ---------------------------------------------------------------- the explicit engine


@SETTINGS
@given(states=laws, observed=observations, formula=formulas)
def test_explicit_kripke_model_of_a_structure_agrees_in_every_state(
    backend: str, states: frozenset[State], observed: Observed, formula: Formula
) -> None:
    ks = build(states, observed, backend)
    ordered = list(ks.states())
    model = ks.to_kripke(ordered[-1])
    assert model.n_worlds == len(ordered)
    assert model.world_name(model.actual) == "{" + ", ".join(sorted(ordered[-1])) + "}"
    explicit = model.truth_set(formula).tolist()
    assert explicit == [ks.holds(formula, state) for state in ordered], str(formula)
