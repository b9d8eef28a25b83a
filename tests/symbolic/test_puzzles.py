"""The classic puzzles on the symbolic engine: textbook answers, on both backends."""

from __future__ import annotations

import itertools
import random
from collections.abc import Iterator
from math import comb
from typing import Any

import pytest

from kwartet_epistemic.errors import FalseAnnouncementError, ModelError
from kwartet_epistemic.logic import Announce, Atom, C, Formula, Kw, Not, conjunction
from kwartet_epistemic.symbolic import (
    KnowledgeStructure,
    available_backends,
    muddy_children_father,
    muddy_children_muddy_know,
    muddy_children_nobody_knows,
    muddy_children_rounds,
    muddy_children_state,
    muddy_children_structure,
    russian_cards_alice_says,
    russian_cards_atom,
    russian_cards_bob_knows_alice,
    russian_cards_cath_ignorant,
    russian_cards_deal,
    russian_cards_structure,
)


@pytest.fixture(scope="module", params=available_backends())
def backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


# ---------------------------------------------------------------- muddy children


Chains = dict[tuple[int, str], tuple[KnowledgeStructure, ...]]


@pytest.fixture(scope="module")
def chains() -> Iterator[Chains]:
    """Shared between tests; emptied at the end so the BDDs go before their manager."""
    built: Chains = {}
    yield built
    built.clear()


def rounds_of_silence(chains: Chains, n: int, backend: str) -> tuple[KnowledgeStructure, ...]:
    """The structures after the father and 0, 1, ..., n - 1 rounds of "nobody knows"."""
    if (n, backend) in chains:
        return chains[n, backend]
    structure = muddy_children_structure(n, backend=backend).announce(muddy_children_father(n))
    silence = muddy_children_nobody_knows(n)
    structures = [structure]
    for _ in range(n - 1):
        structures.append(structures[-1].announce(silence))
    chains[n, backend] = tuple(structures)
    return chains[n, backend]


def muddy_sets(n: int, rng: random.Random) -> list[set[int]]:
    """For every k: the first k children, and one random set of k children."""
    children = list(range(1, n + 1))
    return [set(children[:k]) for k in children] + [set(rng.sample(children, k)) for k in children]


def knowing(structure: KnowledgeStructure, muddy: set[int], n: int) -> set[int]:
    """The children who know whether they are muddy, in the state of ``muddy``."""
    state = muddy_children_state(muddy)
    return {i for i in range(1, n + 1) if structure.holds(Kw(str(i), Atom(f"m{i}")), state)}


@pytest.mark.parametrize("n", [3, 4, 5, 6, 7, 8, 20, 40])
def test_muddy_children_know_after_exactly_k_minus_1_rounds(
    n: int, backend: str, chains: Chains
) -> None:
    if backend == "autoref" and n > 20:
        pytest.skip("the pure-Python backend is slow here; CUDD covers the large sizes")
    structures = rounds_of_silence(chains, n, backend)
    for muddy in muddy_sets(n, random.Random(n)):
        k = len(muddy)
        state = muddy_children_state(muddy)
        after = structures[k - 1]
        # After k - 1 rounds every muddy child knows, and the clean ones do not yet.
        assert after.holds(muddy_children_muddy_know(muddy), state), (n, sorted(muddy))
        assert knowing(after, muddy, n) == muddy
        if k >= 2:
            # One round earlier nobody knows: that is why the silence could be announced.
            assert knowing(structures[k - 2], muddy, n) == set(), (n, sorted(muddy))


@pytest.mark.parametrize("n", [5, 12, 40])
def test_muddy_children_as_one_nested_announcement_formula(n: int, backend: str) -> None:
    if backend == "autoref" and n > 20:
        pytest.skip("the pure-Python backend is slow here; CUDD covers the large sizes")
    k = n
    silence = muddy_children_nobody_knows(n)
    goal: Formula = muddy_children_muddy_know(range(1, k + 1))
    not_yet: Formula = Not(goal)
    for _ in range(k - 1):
        goal = Announce(silence, goal)
    for _ in range(k - 2):
        not_yet = Announce(silence, not_yet)
    father = muddy_children_father(n)
    ks = muddy_children_structure(n, backend=backend)
    state = muddy_children_state(range(1, k + 1))
    assert ks.holds(Announce(father, goal), state)
    assert ks.holds(Announce(father, not_yet), state)


def test_muddy_children_rounds_counts_the_silences(backend: str) -> None:
    n = 10
    ks = muddy_children_structure(n, backend=backend).announce(muddy_children_father(n))
    assert [muddy_children_rounds(ks, set(range(1, k + 1))) for k in range(1, n + 1)] == list(
        range(n)
    )
    with pytest.raises(ModelError, match="no muddy child"):
        muddy_children_rounds(ks, set())
    # Without the father nobody ever learns anything: refused, not an endless loop.
    with pytest.raises(ModelError, match="nobody ever knows"):
        muddy_children_rounds(muddy_children_structure(n, backend=backend), {1})


def test_muddy_children_state_counts(backend: str, chains: Chains) -> None:
    # After the father and r silent rounds the states are those with more than r muddy.
    n = 20
    structures = rounds_of_silence(chains, n, backend)

    for r in (0, 1, 7, 19):
        assert structures[r].count_states() == sum(comb(n, j) for j in range(r + 1, n + 1))


def test_muddy_children_bad_size() -> None:
    with pytest.raises(ModelError, match="positive integer"):
        muddy_children_structure(0)


# ---------------------------------------------------------------- Russian cards

DEAL = russian_cards_deal((0, 1, 2), (3, 4, 5), (6,))
SAFE_HANDS = [(0, 1, 2), (0, 3, 4), (0, 5, 6), (1, 3, 5), (2, 4, 6)]


def alice_knows_bob() -> Formula:
    return conjunction(Kw("Alice", russian_cards_atom("Bob", c)) for c in range(7))


def test_russian_cards_structure_has_140_deals(backend: str) -> None:
    ks = russian_cards_structure(backend=backend)
    assert ks.count_states() == 140  # 7!/(3! 3! 1!)
    assert ks.is_valid(russian_cards_cath_ignorant())
    assert not ks.holds(russian_cards_bob_knows_alice(), DEAL)


def test_russian_cards_alices_announcement_informs_bob_not_cath(backend: str) -> None:
    ks = russian_cards_structure(backend=backend)
    after = ks.announce(russian_cards_alice_says(SAFE_HANDS), actual=DEAL)
    assert after.count_states() == 20  # 5 hands for Alice, then 4 ways to split the rest
    assert after.holds(russian_cards_bob_knows_alice(), DEAL)
    assert after.holds(russian_cards_cath_ignorant(), DEAL)
    everyone = ("Alice", "Bob", "Cath")
    outcome = russian_cards_bob_knows_alice() & russian_cards_cath_ignorant()
    assert after.holds(C(everyone, outcome), DEAL)
    # The same as one formula on the initial structure.
    assert ks.holds(Announce(russian_cards_alice_says(SAFE_HANDS), C(everyone, outcome)), DEAL)


def test_russian_cards_bobs_reply_completes_the_exchange(backend: str) -> None:
    ks = russian_cards_structure(backend=backend)
    after = ks.announce(russian_cards_alice_says(SAFE_HANDS)).announce(
        "K_Bob has(Cath, 6)", actual=DEAL
    )
    everyone = ("Alice", "Bob", "Cath")
    outcome = russian_cards_bob_knows_alice() & alice_knows_bob() & russian_cards_cath_ignorant()
    assert after.holds(C(everyone, outcome), DEAL)
    assert not ks.announce(russian_cards_alice_says(SAFE_HANDS)).holds(alice_knows_bob(), DEAL)


def test_russian_cards_unsafe_announcement_informs_cath(backend: str) -> None:
    # "012 or 016": Cath, holding 6, rules out 016 and learns the whole deal.
    ks = russian_cards_structure(backend=backend)
    after = ks.announce(russian_cards_alice_says([(0, 1, 2), (0, 1, 6)]), actual=DEAL)
    assert not after.holds(russian_cards_bob_knows_alice(), DEAL)  # Bob cannot rule out 016
    assert not after.holds(russian_cards_cath_ignorant(), DEAL)
    whole_deal = " & ".join(sorted(DEAL))
    assert after.holds(f"K_Cath ({whole_deal})", DEAL)


def test_russian_cards_bad_input() -> None:
    with pytest.raises(ModelError, match="not a deal"):
        russian_cards_deal((0, 1), (3, 4, 5), (6, 2))
    with pytest.raises(ModelError, match="hands"):
        russian_cards_alice_says([(0, 1)])
    with pytest.raises(ModelError, match="agent"):
        russian_cards_atom("Dave", 1)


# ---------------------------------------------------------------- against the explicit engine


def test_russian_cards_agree_with_the_explicit_model_in_every_deal(backend: str) -> None:
    from kwartet_epistemic import examples

    model = examples.russian_cards()
    ks = russian_cards_structure(backend=backend)
    announcement = examples.alice_says_one_of(["012", "034", "056", "135", "246"])
    formulas = [
        examples.bob_knows_alice_hand(),
        examples.cath_ignorant(),
        Announce(announcement, examples.bob_knows_alice_hand() & examples.cath_ignorant()),
        Announce(announcement, C(("Alice", "Bob", "Cath"), examples.cath_ignorant())),
        russian_cards_bob_knows_alice() | russian_cards_cath_ignorant(),
    ]
    for formula in formulas:
        explicit = model.truth_set(formula)
        for world in range(model.n_worlds):
            state = frozenset(atom.name for atom in model.true_atoms(world))
            assert ks.holds(formula, state) == bool(explicit[world]), (str(formula), state)


def test_muddy_children_agree_with_the_explicit_model_in_every_state(backend: str) -> None:
    from kwartet_epistemic import examples

    n = 5
    model = examples.muddy_children(n, muddy=[1, 2])
    ks = muddy_children_structure(n, backend=backend)
    father, silence = examples.father_announcement(n), examples.nobody_knows(n)
    someone_knows = Not(muddy_children_nobody_knows(n))
    formula: Formula = someone_knows
    formulas = []
    for _ in range(n):
        formulas.append(Announce(father, formula))
        formula = Announce(silence, formula)
    for formula in formulas:
        explicit = model.truth_set(formula)
        for world in range(model.n_worlds):
            state = frozenset(atom.name for atom in model.true_atoms(world))
            assert ks.holds(formula, state) == bool(explicit[world]), (str(formula), state)


def announcements_with_012(size: int) -> list[tuple[tuple[int, ...], ...]]:
    """Sets of ``size`` hands that contain 012 and pairwise share at most one card.

    Any other announcement fails: if two announced hands share two cards, {x, y, u}
    and {x, y, v}, then in the remaining deal where Alice holds the first and Cath
    holds v, Bob's view leaves both hands possible.
    """
    hands = [h for h in itertools.combinations(range(7), 3) if h != (0, 1, 2)]
    found: list[tuple[tuple[int, ...], ...]] = []

    def extend(chosen: tuple[tuple[int, ...], ...], start: int) -> None:
        if len(chosen) == size:
            found.append(chosen)
            return
        for index in range(start, len(hands)):
            hand = hands[index]
            if all(len(set(hand) & set(other)) <= 1 for other in chosen):
                extend((*chosen, hand), index + 1)

    extend(((0, 1, 2),), 0)
    return found


def test_russian_cards_good_announcements_number_102(backend: str) -> None:
    # Good: afterwards it is common knowledge that Bob knows Alice's hand and that Cath
    # knows no card.  At the deal 012|345|6 there are 60 good announcements of five
    # hands, 36 of six and 6 of seven, 102 in all: the number reported by H. van
    # Ditmarsch, "The Russian cards problem", Studia Logica 75(1), 2003, 31-62, and
    # found by SMCDEL; the explicit engine's test finds the same split.
    # (experiments/bench_symbolic.py --all-announcements checks all 46,376 five-hand
    # announcements without the pruning above and also finds 60.)
    ks = russian_cards_structure(backend=backend)
    outcome = russian_cards_bob_knows_alice() & russian_cards_cath_ignorant()
    hand_bdd: dict[tuple[int, ...], Any] = {
        hand: ks.bdd(russian_cards_alice_says([hand]))
        for hand in itertools.combinations(range(7), 3)
    }
    expected = {5: 60, 6: 36, 7: 6}
    if backend == "autoref":  # the pure-Python backend takes ~40 ms a check: a sample
        del expected[5]
    good_by_size = {}
    for size in expected:
        good = 0
        for hands in announcements_with_012(size):
            announced = hand_bdd[hands[0]]
            for hand in hands[1:]:
                announced = announced | hand_bdd[hand]
            after = ks.restrict(announced)
            is_good = after.holds(C(("Alice", "Bob", "Cath"), outcome), DEAL)
            assert is_good == after.is_valid(outcome)
            good += is_good
        good_by_size[size] = good
    assert good_by_size == expected


# ---------------------------------------------------------------- the textbook answer


def test_muddy_children_textbook_answer_for_every_set_of_muddy_children(backend: str) -> None:
    # After the father, the father asks "do you know whether you are muddy?" again and
    # again.  With k muddy children nobody knows at questions 1 .. k - 1 (so each
    # silence is a true announcement), and at question k exactly the muddy ones know.
    n = 6
    father, silence = muddy_children_father(n), muddy_children_nobody_knows(n)
    for k in range(1, n + 1):
        for muddy in itertools.combinations(range(1, n + 1), k):
            state = muddy_children_state(muddy)
            structure = muddy_children_structure(n, backend=backend).announce(father, actual=state)
            for _question in range(1, k):
                assert knowing(structure, set(muddy), n) == set()
                structure = structure.announce(silence, actual=state)  # checked true
            assert knowing(structure, set(muddy), n) == set(muddy), muddy
            assert structure.holds(muddy_children_muddy_know(muddy), state)
            # Silence at question k would be a lie.
            with pytest.raises(FalseAnnouncementError):
                structure.announce(silence, actual=state)


def test_muddy_children_rounds_match_the_explicit_model_child_by_child(backend: str) -> None:
    # For n = 4, every state, every child and every number of silent rounds: does the
    # child know whether it is muddy?  The symbolic structure after the updates, the
    # explicit Kripke model after the same updates, the explicit model translated from
    # the symbolic structure, and one nested-announcement formula must all agree.
    from kwartet_epistemic import examples

    n = 4
    father, silence = muddy_children_father(n), muddy_children_nobody_knows(n)
    structure = muddy_children_structure(n, backend=backend).announce(father)
    model = examples.muddy_children(n, muddy=range(1, n + 1)).announce(father)
    initial = muddy_children_structure(n, backend=backend)
    for rounds in range(n):
        states = [frozenset(a.name for a in model.true_atoms(w)) for w in range(model.n_worlds)]
        assert sorted(map(sorted, structure.states())) == sorted(map(sorted, states))
        translated = structure.to_kripke(muddy_children_state(range(1, n + 1)))
        translated_states = {
            frozenset(a.name for a in translated.true_atoms(w)): w
            for w in range(translated.n_worlds)
        }
        for child in range(1, n + 1):
            knows = Kw(str(child), Atom(f"m{child}"))
            nested: Formula = knows
            for _ in range(rounds):
                nested = Announce(silence, nested)
            nested = Announce(father, nested)
            explicit = model.truth_set(knows)
            via_translation = translated.truth_set(knows)
            for world, state in enumerate(states):
                expected = bool(explicit[world])
                assert structure.holds(knows, state) == expected, (rounds, child, state)
                assert bool(via_translation[translated_states[state]]) == expected
                assert initial.holds(nested, state) == expected, (rounds, child, state)
        if rounds < n - 1:
            structure = structure.announce(silence)
            model = model.announce(silence)


def test_each_puzzle_is_defined_once_and_both_kinds_agree_on_its_formulas() -> None:
    from kwartet_epistemic import examples, puzzles
    from kwartet_epistemic.symbolic import puzzles as built

    for n in (2, 3, 4):
        assert examples.father_announcement(n) == built.muddy_children_father(n)
        assert examples.nobody_knows(n) == built.muddy_children_nobody_knows(n)
        model = examples.muddy_children(n, n)
        structure = built.muddy_children_structure(n)
        assert {a.name for a in model.atoms} == set(structure.vocabulary)
        assert structure.observed == {a: frozenset(o) for a, o in puzzles.muddy_observed(n).items()}
    assert examples.bob_knows_alice_hand() == built.russian_cards_bob_knows_alice()
    assert examples.cath_ignorant() == built.russian_cards_cath_ignorant()
    model, structure = examples.russian_cards(), built.russian_cards_structure()
    assert model.n_worlds == structure.count_states() == 140
    hands = ["012", "034", "056", "135", "246"]
    explicit = model.announce(examples.alice_says_one_of(hands))
    symbolic = structure.announce(
        built.russian_cards_alice_says([tuple(map(int, h)) for h in hands])
    )
    assert explicit.n_worlds == symbolic.count_states()
