"""KripkeModel: construction in every accepted form, checking, updates, export."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.errors import FalseAnnouncementError, ModelError, ModelTooLargeError
from kwartet_epistemic.kripke import ActionModel, KripkeModel, Relation
from kwartet_epistemic.logic import Atom, has, parse

# Two agents, four worlds: A knows p, B knows q (worlds named by their true atoms).
WORLDS = ["pq", "p", "q", "none"]
VALUATION = {"pq": ["p", "q"], "p": ["p"], "q": ["q"]}


def four_worlds(actual: str = "pq") -> KripkeModel:
    return KripkeModel.from_worlds(
        WORLDS,
        VALUATION,
        partitions={"A": [["pq", "p"], ["q", "none"]], "B": [["pq", "q"], ["p", "none"]]},
        actual=actual,
    )


@pytest.mark.parametrize(
    "partition",
    [
        [0, 0, 1, 1],
        np.array([5, 5, 9, 9]),
        ["x", "x", "y", "y"],
        [{0, 1}, {2, 3}],
        [[0, 1], [2, 3]],
        Relation([(0, 0), (1, 1), (2, 2), (3, 3), (0, 1), (1, 0), (2, 3), (3, 2)]),
        {(0, 0), (1, 1), (2, 2), (3, 3), (0, 1), (1, 0), (2, 3), (3, 2)},
        {0: [0, 1], 1: [0, 1], 2: [2, 3], 3: [3, 2]},
        np.array([[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 1], [0, 0, 1, 1]], dtype=bool),
    ],
    ids=["labels", "array", "text labels", "set blocks", "list blocks", "Relation", "pairs",
         "mapping", "matrix"],
)  # fmt: skip
def test_every_partition_form_gives_the_same_model(partition: object) -> None:
    model = KripkeModel(4, {"A": partition}, {"p": [1, 1, 0, 0]})  # type: ignore[dict-item]
    assert model.truth_set("K_A p").tolist() == [True, True, False, False]
    labels = model.labels("A")
    assert labels[0] == labels[1] != labels[2] == labels[3]


def test_worlds_left_out_of_every_block_are_alone() -> None:
    model = KripkeModel(3, {"A": [[0, 1]], "B": []}, {"p": [1, 0, 1]})
    assert model.block_count("A") == 2
    assert model.block_count("B") == 3
    assert model.holds("K_B p") and not model.holds("K_A p")


@pytest.mark.parametrize(
    ("relation", "property_named", "witness"),
    [
        ({(0, 0), (1, 1), (0, 1), (1, 0)}, "reflexive", "world 2"),
        ({(0, 0), (1, 1), (2, 2), (0, 1)}, "symmetric", "relates 0 to 1"),
        ({(0, 0), (1, 1), (2, 2), (0, 1), (1, 0), (1, 2), (2, 1)}, "transitive", "but not"),
    ],
)
def test_a_relation_that_is_no_equivalence_is_refused_with_a_witness(
    relation: set[tuple[int, int]], property_named: str, witness: str
) -> None:
    with pytest.raises(ModelError, match=property_named) as raised:
        KripkeModel(3, {"A": relation})
    assert witness in str(raised.value)
    assert isinstance(raised.value, ValueError)


@pytest.mark.parametrize(
    ("partitions", "valuation", "message"),
    [
        ({"A": [0, 1]}, {}, "expected one per world"),
        ({"A": [[0, 1], [1, 2]]}, {}, "in two blocks"),
        ({"A": [[0, 7]]}, {}, "world 7"),
        ({"A bad": [0, 0, 0]}, {}, "bad agent name"),
        ({"A": [0, 0, 0]}, {"p": [True, False]}, "one truth value per world"),
        ({"A": [0, 0, 0]}, {"p": [0, 2, 1]}, "not boolean"),
        ({"A": [0, 0, 0]}, {"K_A": [0, 0, 1]}, "bad atom name"),
    ],
)
def test_malformed_models_are_refused(
    partitions: dict[str, object], valuation: dict[str, object], message: str
) -> None:
    with pytest.raises(kw.KwartetError, match=message):
        KripkeModel(3, partitions, valuation)  # type: ignore[arg-type]


def test_from_worlds_names_worlds_and_refuses_unknown_ones() -> None:
    model = four_worlds()
    assert model.world_names == tuple(WORLDS)
    assert model.actual == 0 and model.world_index("none") == 3
    assert sorted(str(a) for a in model.true_atoms("p")) == ["p"]
    with pytest.raises(ModelError, match="did you mean"):
        KripkeModel.from_worlds(["pq"], {"pqq": ["p"]}, partitions={"A": []})
    with pytest.raises(ModelError, match="single 'p'"):
        KripkeModel.from_worlds(["w"], {"w": "p"}, partitions={"A": []})
    with pytest.raises(ModelError, match="both a partition and a relation"):
        KripkeModel.from_worlds(["w"], {}, partitions={"A": []}, relations={"A": [("w", "w")]})


def test_knowledge_operators_on_the_four_world_model() -> None:
    model = four_worlds()
    expected = {
        "K_A p": True,
        "K_A q": False,
        "K_B q & ~K_B p": True,
        "M_A ~q & M_B ~p": True,
        "Kw_A p & ~Kw_A q": True,
        "E_{A,B} (p | q)": True,
        "E_{A,B} p": False,
        "D_{A,B} (p & q)": True,  # pooled, A and B pin down the world
        "C_{A,B} (p | q)": False,  # the world 'none' is reachable
        "K_A K_B q | K_A K_B ~q": False,  # A cannot tell whether B knows q
        "K_A (K_B q | K_B ~q)": True,  # but A knows that B knows whether q
    }
    for text, value in expected.items():
        assert model.holds(text) is value, text
    assert model.truth_set("K_A p").tolist() == [True, True, False, False]
    assert model.holds("K_A p", world="q") is False


def test_unknown_atoms_and_agents_are_named_in_the_error() -> None:
    model = four_worlds()
    with pytest.raises(ModelError, match="atom 'pp' .*did you mean p"):
        model.holds("pp")
    with pytest.raises(ModelError, match="agent 'Z' is not in the model"):
        model.holds("K_Z p")


def test_truth_sets_are_read_only_and_cached() -> None:
    model = four_worlds()
    first = model.truth_set("K_A p & K_B q")
    assert not first.flags.writeable
    assert model.truth_set(parse("K_A p & K_B q")) is first


def test_announcement_restricts_and_a_false_one_changes_nothing() -> None:
    model = four_worlds()
    after = model.announce("p")
    assert after.n_worlds == 2 and after.world_names == ("pq", "p")
    assert after.holds("C_{A,B} p") and not after.holds("K_A q")
    assert after.holds("K_B q")
    with pytest.raises(FalseAnnouncementError, match="false at the actual world 'pq'"):
        model.announce("~q")
    assert model.n_worlds == 4 and model.holds("K_B q")
    # announcing a formula evaluated before the announcement (Moore): true, then false
    moore = "p & ~K_B p"
    assert model.holds(moore) and not model.announce(moore).holds(moore)


def test_restrict_keeps_order_and_drops_a_removed_actual_world() -> None:
    model = four_worlds(actual="q")
    kept = model.restrict([0, 2])
    assert kept.world_names == ("pq", "q") and kept.actual == 1
    dropped = model.restrict(np.array([True, True, False, False]))
    assert dropped.actual is None
    with pytest.raises(ModelError, match="no actual world"):
        dropped.holds("p")
    assert dropped.holds("p", world="p")


def test_nested_announcements_agree_with_successive_announcements() -> None:
    model = four_worlds()
    formula = "[!p | q][!K_A p]C_{A,B} p"
    assert model.holds(formula)
    assert model.announce("p | q").announce("K_A p").holds("C_{A,B} p")
    assert model.holds("<!p><!q>(p & q)") and not model.holds("<!~p>top")


def test_product_update_with_factual_change_flips_a_coin_privately() -> None:
    coin = KripkeModel.from_worlds(["heads"], {"heads": ["h"]}, partitions={"A": [], "B": []})
    toss = ActionModel(
        {"heads": "top", "tails": "top"},
        {"A": [["heads"], ["tails"]], "B": [["heads", "tails"]]},
        actual="tails",
        postconditions={"heads": {"h": "top"}, "tails": {"h": "bot"}},
    )
    after = coin.product_update(toss)
    assert after.n_worlds == 2
    assert after.world_names == ("(heads, heads)", "(heads, tails)")
    assert after.holds("~h & K_A ~h & ~Kw_B h & K_B Kw_A h")
    assert coin.holds("h")  # the model updated is unchanged


def test_a_card_shown_privately_in_a_small_deal() -> None:
    deals = kw.examples.card_deals({"A": 1, "B": 1, "C": 1}, cards=["x", "y", "z"])
    shown = ActionModel.semi_private(
        {card: has("C", card) for card in "xyz"}, observers=["B", "C"], agents=["A", "B", "C"],
        actual="z",
    )  # fmt: skip
    after = deals.product_update(shown)
    assert after.holds("K_B has(C, z) & K_B has(A, x)")
    assert not after.holds("Kw_A has(B, y)")
    assert after.holds("K_A (K_B has(A, x))")  # B knows the deal, and A knows it


def test_product_update_refuses_impossible_events_and_missing_agents() -> None:
    model = four_worlds()
    lie = ActionModel.public_announcement("~p", ["A", "B"])
    with pytest.raises(FalseAnnouncementError, match="cannot happen"):
        model.product_update(lie)
    with pytest.raises(ModelError, match="missing \\['B'\\]"):
        model.product_update(ActionModel.public_announcement("p", ["A"]))
    with pytest.raises(ModelError, match="unknown event"):
        ActionModel({"e": "top"}, {"A": [["e", "f"]]}, actual="e")
    with pytest.raises(ModelError, match="not in the model's vocabulary"):
        model.product_update(
            ActionModel({"e": "top"}, {"A": [0], "B": [0]}, "e", {"e": {"zz": "top"}})
        )


def test_contraction_merges_bisimilar_worlds() -> None:
    # Worlds 0 and 2 (and 1 and 3) are copies: the contraction has two worlds.
    model = KripkeModel(4, {"A": [0, 0, 1, 1]}, {"p": [1, 0, 1, 0]}, actual=3)
    contracted = model.contract()
    assert contracted.n_worlds == 2
    assert model.bisimulation_classes().tolist() == [0, 1, 0, 1]
    assert contracted.holds("~p & M_A p") and model.holds("~p & M_A p")
    assert contracted.actual is not None and not contracted.holds("p")


def test_contraction_tells_apart_worlds_with_different_knowledge() -> None:
    # Same valuation, but at world 0 agent A knows p and at world 2 not.
    model = KripkeModel(3, {"A": [0, 1, 1]}, {"p": [1, 1, 0]})
    assert model.contract().n_worlds == 3


def test_generated_submodel_keeps_the_reachable_worlds() -> None:
    model = KripkeModel(5, {"A": [0, 0, 1, 2, 2], "B": [0, 1, 1, 2, 3]}, {"p": [1, 1, 1, 0, 0]})
    sub = model.generated_submodel()
    assert sub.n_worlds == 3 and sub.is_valid("p")
    assert model.with_actual(4).generated_submodel().n_worlds == 2


def test_networkx_export_has_worlds_atoms_and_labelled_edges() -> None:
    graph = four_worlds().to_networkx()
    assert isinstance(graph, nx.Graph)
    assert graph.number_of_nodes() == 4
    assert graph.nodes[0] == {"name": "pq", "atoms": ["p", "q"], "actual": True}
    assert graph.edges[0, 1]["agents"] == ("A",)
    assert graph.edges[0, 2]["agents"] == ("B",)
    assert not graph.has_edge(0, 3)
    with pytest.raises(ModelTooLargeError, match="at most 3 worlds"):
        four_worlds().to_networkx(max_worlds=3)


def test_a_lazy_valuation_is_fetched_once_per_atom() -> None:
    calls: list[str] = []

    def valuation(name: str) -> np.ndarray | None:
        calls.append(name)
        return np.array([True, False, True]) if name == "p" else None

    model = KripkeModel(3, {"A": [0, 0, 1]}, valuation, atoms=["p"])
    assert model.truth_set("M_A ~p").tolist() == [True, True, False]
    assert model.truth_set("K_A p").tolist() == [False, False, True]
    assert calls == ["p"]
    assert model.announce("p").truth_set("p").tolist() == [True, True]
    with pytest.raises(ModelError, match="atom 'q'"):
        model.holds("q")


def test_repr_names_size_agents_atoms_and_actual_world() -> None:
    assert (
        repr(four_worlds()) == "<KripkeModel: 4 worlds, agents A B, atoms p q, actual world 0 'pq'>"
    )
    assert "atoms" in repr(KripkeModel(0, {}, {}, actual=None))


def test_card_deals_without_names_know_their_own_hands() -> None:
    # 16 choose 4 = 1820 deals.
    deals = kw.examples.card_deals({"A": 4, "B": 12}, world_names=False)
    assert deals.n_worlds == 1820 and deals.world_names is None
    assert deals.holds("K_A has(A, 0) & ~K_B has(B, 0) & K_B ~has(B, 0)")
    assert Atom("has(A, 0)") in deals.atoms
