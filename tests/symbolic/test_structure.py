"""Knowledge structures: semantics of every operator, counting, errors, both backends."""

from __future__ import annotations

import itertools
from math import comb

import pytest

from kwartet_epistemic.errors import (
    FalseAnnouncementError,
    FormulaSyntaxError,
    KwartetError,
    ModelError,
    ModelTooLargeError,
)
from kwartet_epistemic.logic import Announce, Atom, C, K, Top, conjunction, disjunction, parse
from kwartet_epistemic.symbolic import (
    BddKnowledgeStructure,
    KnowledgeStructure,
    UnknownAgentError,
    UnknownAtomError,
    available_backends,
)
from kwartet_epistemic.symbolic.backend import (
    and_exists,
    and_exists_function,
    exact_count,
    new_manager,
)


@pytest.fixture(scope="module", params=available_backends())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def two_agents(backend: str) -> KnowledgeStructure:
    """p, q free; A sees p, B sees q."""
    return KnowledgeStructure(["p", "q"], "top", {"A": ["p"], "B": ["q"]}, backend=backend)


# ---------------------------------------------------------------- construction


def test_cudd_is_available_here() -> None:
    # The project's environment ships dd.cudd; without it only the fallback is tested.
    assert available_backends() == ("cudd", "autoref")


def test_structure_uses_the_requested_backend(backend: str) -> None:
    assert two_agents(backend).backend == backend


def test_law_given_as_text_formula_or_bdd_gives_the_same_states(backend: str) -> None:
    from_text = KnowledgeStructure(["p", "q"], "p -> q", {"A": ["p"]}, backend=backend)
    from_formula = KnowledgeStructure(
        ["p", "q"], parse("p -> q"), {"A": ["p"]}, manager=from_text.manager
    )
    manager = from_text.manager
    from_bdd = KnowledgeStructure(["p", "q"], ~manager.var("p") | manager.var("q"), {"A": ["p"]})
    assert from_text.law == from_formula.law == from_bdd.law
    assert from_bdd.manager is manager
    assert sorted(map(sorted, from_text.states())) == [[], ["p", "q"], ["q"]]


def test_variable_order_follows_vocabulary_unless_given(backend: str) -> None:
    ks = KnowledgeStructure(["q", "p", "r"], "top", {}, backend=backend)
    assert [ks.manager.level_of_var(v) for v in ("q", "p", "r")] == [0, 1, 2]
    ordered = KnowledgeStructure(["q", "p", "r"], "top", {}, backend=backend, order=["r", "p", "q"])
    assert [ordered.manager.level_of_var(v) for v in ("r", "p", "q")] == [0, 1, 2]
    assert ordered.vocabulary == ("q", "p", "r")


def test_reordering_is_off(backend: str) -> None:
    assert two_agents(backend).manager.configure()["reordering"] is False


def test_game_atoms_are_canonicalised(backend: str) -> None:
    ks = KnowledgeStructure(
        ["has(A,QH)", "has(B, QH)"],
        "has(A, QH) <-> ~has(B,QH)",
        {"A": ["has(A, QH)"], "B": [Atom("has(B,QH)")]},
        backend=backend,
    )
    assert ks.vocabulary == ("has(A, QH)", "has(B, QH)")
    assert ks.is_valid("K_A has(B, QH) | K_A ~has(B, QH)")
    assert ks.holds("K_B has(A, QH)", {"has(A, QH)"})


def test_observed_and_unobserved_are_read_only_views(backend: str) -> None:
    ks = two_agents(backend)
    assert dict(ks.observed) == {"A": frozenset({"p"}), "B": frozenset({"q"})}
    assert dict(ks.unobserved_vars) == {"A": frozenset({"q"}), "B": frozenset({"p"})}
    with pytest.raises(TypeError):
        ks.observed["C"] = frozenset()  # type: ignore[index]
    assert ks.agents == ("A", "B")
    assert ks.count_vars == ("p", "q")


# ---------------------------------------------------------------- semantics


def test_knowledge_is_truth_in_every_indistinguishable_state(backend: str) -> None:
    ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"], "B": ["q"]}, backend=backend)
    # A sees p; when p is false, q must be true by the law, and A knows it.
    assert ks.holds("K_A q", {"q"})
    assert not ks.holds("K_A q", {"p"})
    assert ks.holds("K_A p", {"p", "q"})
    assert ks.holds("M_A q", {"p"}) and not ks.holds("M_A ~q", {"q"})
    assert ks.holds("Kw_A q", {"q"}) and not ks.holds("Kw_A q", {"p", "q"})
    assert ks.holds("Kw_A ~p", {"q"}) and ks.holds("Kw_A p", {"q"})  # A knows p is false


def test_group_operators_on_a_hand_checked_structure(backend: str) -> None:
    ks = two_agents(backend)
    state = {"p"}
    assert ks.holds("E_{A,B} (p | q)", state) is False  # B does not see p
    assert ks.holds("E_{A,B} (p | ~p)", state)
    assert ks.holds("D_{A,B} (p & ~q)", state)  # together they see everything
    assert not ks.holds("D_{A} (p & ~q)", state)
    assert ks.is_valid("C_{A,B} (p | ~p)")
    assert not ks.is_satisfiable("C_{A,B} p")


def test_common_knowledge_needs_chains_longer_than_everybody_knows(backend: str) -> None:
    # A chain 0 -A- 1 -B- 2 -A- 3 of states (counter x), A sees bit a, B sees bit b.
    vocabulary = ["a", "b"]
    law = "(~a & ~b) | (~a & b) | (a & b)"  # states 00, 01, 11 in a line
    ks = KnowledgeStructure(vocabulary, law, {"A": ["a"], "B": ["b"]}, backend=backend)
    # At 00: everybody knows "not (a & b)"? A at 00 considers 01 (a=0): fine; B at 00
    # considers states with b=0: only 00. So E holds, but C fails (00-A-01-B-11).
    target = "~(a & b)"
    assert ks.holds(f"E_{{A,B}} {target}", set())
    assert not ks.holds(f"E_{{A,B}} E_{{A,B}} {target}", set())
    assert not ks.holds(f"C_{{A,B}} {target}", set())
    assert ks.holds("C_{A,B} (a -> b)", set())


def test_announcement_semantics_and_its_dual(backend: str) -> None:
    ks = two_agents(backend)
    assert ks.holds("[!p]K_A p", set())  # vacuous: p is false
    assert not ks.holds("<!p>K_A p", set())
    # Once the empty state is gone, B (seeing ~q) knows p | q, though not before.
    assert ks.holds("<!p | q>K_B (p | q)", {"p"}) and not ks.holds("K_B (p | q)", {"p"})
    assert ks.holds("[!p & q]C_{A,B} (p & q)", {"p", "q"})
    assert ks.holds("[!~K_B p]K_B ~p", set()) is False


def test_moores_sentence_becomes_false_by_being_announced(backend: str) -> None:
    ks = two_agents(backend)
    moore = "q & ~K_A q"
    assert ks.holds(moore, {"q"})
    assert ks.holds(f"[!{moore}]~({moore})", {"q"})
    assert ks.announce(moore).is_valid(f"~({moore})")


def test_announce_shares_the_manager_and_leaves_the_original(backend: str) -> None:
    ks = two_agents(backend)
    after = ks.announce("p -> q")
    assert after.manager is ks.manager
    assert isinstance(after, KnowledgeStructure)
    assert (ks.count_states(), after.count_states()) == (4, 3)
    assert after.observed == ks.observed and after.vocabulary == ks.vocabulary


def test_announcement_false_everywhere_is_refused(backend: str) -> None:
    ks = two_agents(backend)
    with pytest.raises(FalseAnnouncementError, match="false in every state"):
        ks.announce("p & ~p")


def test_announcement_false_at_the_actual_state_is_refused(backend: str) -> None:
    ks = two_agents(backend)
    with pytest.raises(FalseAnnouncementError, match="actual state"):
        ks.announce("p", actual={"q"})
    assert ks.announce("p", actual={"p"}).count_states() == 2
    assert ks.count_states() == 4


def test_bdd_is_the_set_of_law_states_where_the_formula_holds(backend: str) -> None:
    ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"]}, backend=backend)
    assert ks.bdd("K_A q") == ks.bdd("~p & q")
    assert ks.bdd("top") == ks.law
    assert ks.count_states("K_A q") == 1


def test_holds_and_count_agree_with_enumeration(backend: str) -> None:
    ks = KnowledgeStructure(
        ["p", "q", "r"], "p | q | r", {"A": ["p"], "B": ["q", "r"]}, backend=backend
    )
    formula = "K_B (p | q) | M_A (q & r) -> D_{A,B} r"
    states = list(ks.states())
    assert len(states) == 7
    assert ks.count_states(formula) == sum(ks.holds(formula, s) for s in states)


def test_formula_objects_and_text_give_the_same_answers(backend: str) -> None:
    ks = two_agents(backend)
    assert ks.holds(C(("A", "B"), Top()), set())
    assert ks.holds(K("A", Atom("p")), {"p"}) == ks.holds("K_A p", {"p"})


def test_long_conjunctions_evaluate_without_recursion(backend: str) -> None:
    names = [f"x{i}" for i in range(20)]
    ks = KnowledgeStructure(names, "top", {"A": names[:10]}, backend=backend)
    # 5000-deep formula trees over 20 atoms (deeper than Python's recursion limit).
    everything = conjunction(Atom(names[i % 20]) for i in range(5000))
    assert ks.count_states(everything) == 1
    anything = disjunction(Atom(names[i % 20]) for i in range(5000))
    assert ks.count_states(K("A", anything)) == 2**20 - 2**10


def test_repeated_subformulas_are_evaluated_once(backend: str) -> None:
    # A DAG-shaped formula with 2**60 paths: only feasible if shared subtrees are cached.
    formula = parse("K_A p")
    for _ in range(60):
        formula = formula & formula
    assert two_agents(backend).count_states(formula) == 2


def test_subformulas_shared_between_formulas_are_translated_once(backend: str) -> None:
    from kwartet_epistemic.symbolic import structure as module

    ks = two_agents(backend)
    goal = parse("K_A p & ~K_B q")
    first = module._compile(parse("K_A p | q") & goal)
    table_size = len(first.table.nodes)
    second = module._compile(Announce(parse("p"), goal))
    # Only the announcement, its announced atom (known already) and nothing of the goal
    # is new: the goal object was numbered with the first formula.
    assert second.table is first.table and len(first.table.nodes) == table_size + 1
    assert ks.holds(Announce(parse("p"), goal), {"p", "q"}) == ks.announce("p").holds(
        goal, {"p", "q"}
    )


def test_a_fresh_formula_table_gives_the_same_answers(
    backend: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kwartet_epistemic.symbolic import structure as module

    ks = two_agents(backend)
    formulas = [parse(text) for text in ("K_A p", "[!p] K_A p", "C_{A,B} (p | q)", "~K_B q")]
    expected = [ks.count_states(f) for f in formulas]
    monkeypatch.setattr(module, "_TABLE_LIMIT", 0)  # every formula starts a new table
    for _ in range(2):
        again = [ks.count_states(parse(str(f))) for f in formulas]
        assert again == expected
        programs = [module._compile(parse(str(f))) for f in formulas]  # kept alive
        assert len({id(program.table) for program in programs}) == len(formulas)


def test_remembered_parts_depend_on_the_law(backend: str) -> None:
    # The memo of (subformula, law) pairs is shared by a structure and those announced
    # from it; the same formula must still be evaluated under each structure's own law.
    ks = two_agents(backend)
    goal = parse("K_A q")
    assert not ks.is_valid(goal)
    after = ks.announce("q")
    assert after.is_valid(goal) and not ks.is_satisfiable(goal)
    assert ks.holds("[!q] K_A q", {"p", "q"}) and not ks.holds("K_A q", {"p", "q"})
    assert not after.announce("p").is_satisfiable("~K_A q")


def test_a_state_checked_before_an_announcement_is_checked_again_after_it(
    backend: str,
) -> None:
    ks = two_agents(backend)
    state = frozenset({"q"})
    assert ks.holds("K_B q", state) and ks.holds("~K_A q", state)  # the second is cached
    after = ks.announce("p")
    with pytest.raises(ModelError, match="not a state"):
        after.holds("K_B q", state)
    assert ks.holds("K_B q", state)
    # Announced true at the state, the state stays one (and is not checked again).
    told = ks.announce("q", actual=state)
    assert told.holds("K_B q", state) and told.count_states() == 2
    with pytest.raises(ModelError, match="not a state"):
        told.holds("p", frozenset({"p"}))
    mutable = {"q"}
    assert not ks.holds("p", mutable)
    mutable.add("p")  # a set may change between queries: it is never taken as checked
    assert ks.holds("p", mutable)


def test_knowing_whether_the_one_unobserved_atom_agrees_with_two_products(
    backend: str,
) -> None:
    # Agent A does not observe p only: Kw_A p and Kw_A ~p take the one-quantification
    # route, Kw_A (p & q) and Kw_B p (B does not observe two atoms) the general one.
    names = ["p", "q", "r"]
    for law in ("top", "p | q", "(p -> q) & (r | ~q)", "p <-> (q & r)", "~p | r"):
        ks = KnowledgeStructure(names, law, {"A": ["q", "r"], "B": ["r"]}, backend=backend)
        manager = ks.manager
        for agent, target in (("A", "p"), ("A", "~p"), ("A", "p & q"), ("B", "p")):
            truth = ks.bdd(target)
            hidden = set(ks.unobserved_vars[agent])
            knows = ~manager.exist(hidden, ks.law & ~truth)
            knows_not = ~manager.exist(hidden, ks.law & truth)
            expected = ks.law & (knows | knows_not)
            assert ks.bdd(f"Kw_{agent} ({target})") == expected, (law, agent, target)
            # With an announcement inside, Kw is evaluated by the general stepper.
            assert ks.bdd(f"Kw_{agent} [!top] ({target})") == expected


# ---------------------------------------------------------------- counting


def test_counts_are_exact_python_integers_above_float_precision(backend: str) -> None:
    n = 70
    names = [f"m{i}" for i in range(n)]
    ks = KnowledgeStructure(names, disjunction(Atom(m) for m in names), {}, backend=backend)
    assert ks.count_states() == 2**n - 1
    assert isinstance(ks.count_states(), int)
    assert ks.count_states("m0 & ~m1") == 2 ** (n - 2)


def test_exact_count_of_cardinality_constraint(backend: str) -> None:
    manager = new_manager(backend)
    names = [f"x{i}" for i in range(64)]
    manager.declare(*names)
    # "exactly 5 of 64": exactly[k] says k of the variables seen so far are true.
    exactly = [manager.true] + [manager.false] * 5
    for name in reversed(names):
        x = manager.var(name)
        exactly = [~x & exactly[0]] + [
            (~x & exactly[k]) | (x & exactly[k - 1]) for k in (1, 2, 3, 4, 5)
        ]
    assert exact_count(manager, exactly[5], names) == comb(64, 5)


def test_relational_product_equals_quantified_conjunction(backend: str) -> None:
    manager = new_manager(backend)
    manager.declare("a", "b", "c", "d")
    u = manager.add_expr(r"(a /\ b) \/ (c /\ ~d)")
    v = manager.add_expr(r"(b \/ c) /\ (a \/ ~d)")
    product = and_exists_function(manager)
    for size in range(5):
        for quantified in itertools.combinations("abcd", size):
            expected = manager.exist(set(quantified), u & v)
            assert and_exists(u, v, set(quantified)) == expected
            assert product(u, v, frozenset(quantified)) == expected


def test_a_manager_with_a_small_computed_table_gives_the_same_answers(backend: str) -> None:
    small = new_manager(backend, initial_cache_size=16)
    default = new_manager(backend)
    for manager in (small, default):
        ks = KnowledgeStructure(["p", "q"], "p | q", {"A": ["p"]}, manager=manager)
        assert ks.count_states("K_A q") == 1
    if backend == "cudd":
        with pytest.raises(ModelError, match="initial_cache_size"):
            new_manager("cudd", initial_cache_size=0)


# ---------------------------------------------------------------- the lower layer


def test_lower_layer_with_binary_owner_encoding(backend: str) -> None:
    # Two cards, owners 0..2 in two bits each (value 3 excluded by the law).  Agent
    # "seer0" sees who holds card 0 (the bits of card 0), "blind" sees nothing.
    manager = new_manager(backend)
    bits = ["c0_hi", "c0_lo", "c1_hi", "c1_lo"]
    manager.declare(*bits)

    def owner_is(card: int, owner: int):  # noqa: ANN202 - a BDD node
        hi, lo = manager.var(f"c{card}_hi"), manager.var(f"c{card}_lo")
        return (hi if owner & 2 else ~hi) & (lo if owner & 1 else ~lo)

    def atom_bdd(atom: Atom):  # noqa: ANN202 - a BDD node
        if atom.predicate != "has":
            raise UnknownAtomError(f"unknown atom {atom.name!r}")
        owner, card = atom.arguments
        return owner_is(int(card), int(owner))

    law = ~owner_is(0, 3) & ~owner_is(1, 3) & ~(owner_is(0, 2) & owner_is(1, 2))
    ks = BddKnowledgeStructure(
        manager, law, {"seer0": {"c1_hi", "c1_lo"}, "blind": set(bits)}, atom_bdd, bits
    )
    assert ks.count_states() == 8  # 9 placements minus "player 2 holds both"
    assert ks.count_states("has(2, 0)") == 2
    state = {"c0_hi": True, "c0_lo": False, "c1_hi": False, "c1_lo": True}  # 0->2, 1->1
    assert ks.holds_at("K_seer0 has(2, 0)", state)
    assert ks.holds_at("K_seer0 ~has(2, 1)", state)  # by the law: 2 does not hold both
    assert not ks.holds_at("K_blind ~has(2, 1)", state)
    after = ks.announce("~has(0, 1)")
    assert isinstance(after, BddKnowledgeStructure)
    assert after.count_states() == 5  # card 1 with player 1 (3 ways) or 2 (2 ways)
    assert len(list(after.assignments())) == 5
    with pytest.raises(UnknownAtomError):
        ks.holds_at("K_blind q", state)


def test_lower_layer_rejects_a_law_over_variables_it_does_not_count(backend: str) -> None:
    manager = new_manager(backend)
    manager.declare("x", "aux")
    with pytest.raises(ModelError, match="aux"):
        BddKnowledgeStructure(manager, manager.var("aux"), {}, lambda a: manager.true, ["x"])


# ---------------------------------------------------------------- bad input


def test_unknown_atom_in_formula_names_the_atom(backend: str) -> None:
    ks = two_agents(backend)
    assert issubclass(UnknownAtomError, KwartetError) and issubclass(UnknownAtomError, ValueError)
    with pytest.raises(UnknownAtomError, match="'pp'.*did you mean"):
        ks.holds("K_A pp", {"p"})
    with pytest.raises(UnknownAtomError, match="'r'"):
        ks.count_states("p | r")


def test_unknown_atom_in_state_or_observations(backend: str) -> None:
    with pytest.raises(UnknownAtomError, match="'r'"):
        two_agents(backend).holds("p", {"p", "r"})
    with pytest.raises(UnknownAtomError, match="'r'.*agent 'A'"):
        KnowledgeStructure(["p"], "top", {"A": ["r"]}, backend=backend)
    with pytest.raises(UnknownAtomError, match="'r'"):
        KnowledgeStructure(["p"], "r", {}, backend=backend)


def test_unknown_agent_is_refused(backend: str) -> None:
    with pytest.raises(UnknownAgentError, match="'Z'"):
        two_agents(backend).is_valid("C_{A,Z} p")


def test_state_outside_the_law_is_refused(backend: str) -> None:
    ks = KnowledgeStructure(["p"], "p", {}, backend=backend)
    with pytest.raises(ModelError, match="violates the law"):
        ks.holds("p", set())
    with pytest.raises(ModelError, match="collection of true atoms"):
        ks.holds("p", "p")


def test_bad_vocabulary_order_law_and_backend(backend: str) -> None:
    with pytest.raises(ModelError, match="repeats"):
        KnowledgeStructure(["p", "p"], "top", {}, backend=backend)
    with pytest.raises(ModelError, match="permutation"):
        KnowledgeStructure(["p", "q"], "top", {}, backend=backend, order=["p"])
    with pytest.raises(ModelError, match="propositional"):
        KnowledgeStructure(["p"], "K_A p", {"A": []}, backend=backend)
    with pytest.raises(ModelError, match="backend"):
        KnowledgeStructure(["p"], "top", {}, backend="sylvan")
    with pytest.raises(FormulaSyntaxError):
        KnowledgeStructure(["p"], "p &", {}, backend=backend)


def test_enumerating_too_many_states_is_refused(backend: str) -> None:
    ks = KnowledgeStructure([f"x{i}" for i in range(30)], "top", {}, backend=backend)
    with pytest.raises(ModelTooLargeError, match="1073741824 states"):
        next(ks.states())
    fixed = ks.announce(conjunction(Atom(f"x{i}") for i in range(26)))
    assert len(set(fixed.states(limit=16))) == 16
