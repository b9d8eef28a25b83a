"""Known answers: muddy children and Russian cards on explicit Kripke models."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import combinations

import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.errors import FalseAnnouncementError, ModelError
from kwartet_epistemic.examples import (
    alice_says_one_of,
    bob_knows_alice_hand,
    card_deals,
    cath_ignorant,
    father_announcement,
    muddy_children,
    nobody_knows,
    russian_cards,
)
from kwartet_epistemic.kripke import KripkeModel
from kwartet_epistemic.logic import Announce, C, Formula, K, Kw, conjunction, has

# ----------------------------------------------------------------- muddy children


def _knows_own_state(child: int) -> Formula:
    return Kw(str(child), kw.Atom(f"m{child}"))


@pytest.mark.parametrize("n", range(3, 9))
def test_muddy_children_know_after_exactly_k_minus_one_rounds_of_silence(n: int) -> None:
    for k in range(1, n + 1):
        # The muddy ones are the last k, so that child numbering plays no part.
        muddy = range(n - k + 1, n + 1)
        model = muddy_children(n, muddy).announce(father_announcement(n))
        for silent_rounds in range(k - 1):
            assert not any(model.holds(_knows_own_state(c)) for c in range(1, n + 1)), (
                n,
                k,
                silent_rounds,
            )
            model = model.announce(nobody_knows(n))  # true, so this does not raise
        assert all(model.holds(K(str(c), kw.Atom(f"m{c}"))) for c in muddy), (n, k)
        # the clean children know only one round later
        assert not any(model.holds(_knows_own_state(c)) for c in range(1, n - k + 1))
        with pytest.raises(FalseAnnouncementError):
            model.announce(nobody_knows(n))


def test_muddy_children_as_one_formula_on_the_initial_model() -> None:
    n = 6
    for k in range(1, n + 1):
        model = muddy_children(n, k)
        muddy_know = conjunction(K(str(c), kw.Atom(f"m{c}")) for c in range(1, k + 1))
        too_early: Formula = muddy_know
        in_time: Formula = muddy_know
        for _ in range(k - 2):
            too_early = Announce(nobody_knows(n), too_early)
        for _ in range(k - 1):
            in_time = Announce(nobody_knows(n), in_time)
        assert model.holds(Announce(father_announcement(n), in_time))
        if k >= 2:
            assert not model.holds(Announce(father_announcement(n), too_early))


def test_without_the_father_nobody_ever_learns_anything() -> None:
    model = muddy_children(4, 2)
    assert model.holds(nobody_knows(4))
    # "nobody knows" is then true everywhere, so announcing it changes nothing
    assert model.announce(nobody_knows(4)).n_worlds == model.n_worlds == 16


def test_muddy_children_arguments_are_checked() -> None:
    with pytest.raises(ModelError, match="do not exist"):
        muddy_children(3, [4])
    with pytest.raises(ModelError, match="at least one child"):
        muddy_children(0, 0)


# ----------------------------------------------------------------- Russian cards

EVERYONE = ("Alice", "Bob", "Cath")
ACTUAL_HAND = (0, 1, 2)
TEXTBOOK_ANNOUNCEMENT = ["012", "034", "056", "135", "246"]


def test_russian_cards_model_has_140_deals_and_everyone_knows_only_their_hand() -> None:
    deal = russian_cards()
    assert deal.n_worlds == 140
    assert deal.world_name(deal.actual) == "012|345|6"
    assert deal.holds(cath_ignorant()) and not deal.holds(bob_knows_alice_hand())
    assert deal.holds("K_Cath has(Cath, 6) & ~K_Cath has(Alice, 0) & ~K_Cath has(Bob, 0)")


def test_alices_announcement_tells_bob_the_deal_and_cath_no_card() -> None:
    after = russian_cards().announce(alice_says_one_of(TEXTBOOK_ANNOUNCEMENT))
    assert after.n_worlds == 5 * 4  # five hands of Alice, four places for Cath's card
    bob_knows_the_deal = conjunction(
        Kw("Bob", has(player, card)) for player in EVERYONE for card in range(7)
    )
    assert after.holds(bob_knows_the_deal)
    # For every card c of Alice or Bob, Cath does not know whether Alice holds c.
    for card in range(6):
        assert not after.holds(Kw("Cath", has("Alice", card))), card
    assert after.holds(C(EVERYONE, bob_knows_alice_hand() & cath_ignorant()))
    assert after.holds(C(("Alice", "Bob"), bob_knows_the_deal))


def test_bobs_answer_that_cath_has_6_completes_the_exchange() -> None:
    after = (
        russian_cards()
        .announce(alice_says_one_of(TEXTBOOK_ANNOUNCEMENT))
        .announce(K("Bob", has("Cath", 6)))
    )
    alice_knows_bob_hand = conjunction(Kw("Alice", has("Bob", card)) for card in range(7))
    assert after.holds(C(("Alice", "Bob"), alice_knows_bob_hand & bob_knows_alice_hand()))
    assert after.holds(C(EVERYONE, cath_ignorant()))


def test_saying_two_hands_that_share_two_cards_is_never_informative() -> None:
    # If two announced hands share two cards, there is a deal in which Alice holds one
    # and Bob holds none of the other: there Bob cannot tell the two apart.  Adding
    # hands only adds deals (and Bob's doubts), so no announcement containing such a
    # pair is good; this licenses the search below, which skips them.
    deal = russian_cards()
    hands = [frozenset(h) for h in combinations(range(7), 3)]
    for first, second in combinations(hands, 2):
        if len(first & second) == 2:
            announced = deal.restrict(deal.truth_set(alice_says_one_of([first, second])))
            assert not announced.is_valid(bob_knows_alice_hand()), (first, second)


def _announcements(size: int) -> Iterator[tuple[frozenset[int], ...]]:
    """Sets of ``size`` hands with Alice's hand 012, pairwise sharing at most one card."""
    actual = frozenset(ACTUAL_HAND)
    others = [frozenset(h) for h in combinations(range(7), 3) if len(frozenset(h) & actual) <= 1]

    def extend(
        chosen: tuple[frozenset[int], ...], start: int
    ) -> Iterator[tuple[frozenset[int], ...]]:
        if len(chosen) == size:
            yield chosen
            return
        for position in range(start, len(others)):
            hand = others[position]
            if all(len(hand & earlier) <= 1 for earlier in chosen):
                yield from extend((*chosen, hand), position + 1)

    return extend((actual,), 0)


def test_the_number_of_good_announcements_is_102_as_in_the_literature() -> None:
    # Alice announces "my hand is one of these"; the announcement is good when
    # afterwards it is common knowledge among all three that Bob knows Alice's hand
    # and that Cath knows no card of Alice or Bob.  Counting the good announcements
    # that contain the actual hand 012:
    #   5 hands: 60, 6 hands: 36, 7 hands: 6; 102 in all.
    # The total of 102 is the number reported in the literature for the deal
    # 012|345|6: H. van Ditmarsch, "The Russian cards problem", Studia Logica 75(1),
    # 2003, 31-62, and the test suite of SMCDEL (J. van Benthem, J. van Eijck,
    # M. Gattinger, K. Su, "Symbolic model checking for Dynamic Epistemic Logic",
    # 2015/2018): "there are 102 solutions" over announcements of 5, 6 or 7 hands.
    # (Sometimes quoted as "102 five-hand announcements"; five-hand ones are 60.)
    deal = russian_cards()
    goal = C(EVERYONE, bob_knows_alice_hand() & cath_ignorant())
    hand_worlds = {
        frozenset(h): deal.truth_set(alice_says_one_of([h])) for h in combinations(range(7), 3)
    }
    good_by_size = {}
    for size in (5, 6, 7):
        good = 0
        for hands in _announcements(size):
            worlds = hand_worlds[hands[0]].copy()
            for hand in hands[1:]:
                worlds |= hand_worlds[hand]
            after = deal.restrict(worlds)
            is_good = after.holds(goal)
            # The updated model is connected, so "commonly known" = "true everywhere".
            assert is_good == after.is_valid(bob_knows_alice_hand() & cath_ignorant())
            good += is_good
        good_by_size[size] = good
    assert good_by_size == {5: 60, 6: 36, 7: 6}
    assert sum(good_by_size.values()) == 102
    assert deal.announce(alice_says_one_of(TEXTBOOK_ANNOUNCEMENT)).holds(goal)


# ----------------------------------------------------------------- card deals


def test_card_deals_count_multinomially_and_partition_by_own_hand() -> None:
    deals = card_deals({"A": 2, "B": 2, "C": 1})
    assert deals.n_worlds == 30  # 5! / (2! 2! 1!)
    for player in "ABC":
        hands = {
            frozenset(c for c in range(5) if deals.holds(has(player, c), world=w))
            for w in range(deals.n_worlds)
        }
        assert deals.block_count(player) == len(hands)
    assert deals.holds("D_{A,B} has(C, 4)") and not deals.holds("K_A has(C, 4)")


def test_card_deals_take_named_cards_and_an_actual_deal() -> None:
    deals = card_deals(
        {"Ann": 2, "Bo": 1}, cards=["Q♥", "Q♠", "K♥"], actual={"Ann": ["K♥", "Q♠"], "Bo": ["Q♥"]}
    )
    assert deals.world_name(deals.actual) == "Q♠,K♥|Q♥"
    assert deals.holds("K_Bo (has(Ann, Q♠) & has(Ann, K♥))")
    with pytest.raises(ModelError, match="unknown card"):
        card_deals({"A": 1, "B": 1}, cards=["x", "y"], actual={"A": ["z"]})
    with pytest.raises(ModelError, match="expected exactly as many distinct cards"):
        card_deals({"A": 1, "B": 1}, cards=["x", "y", "z"])
    with pytest.raises(ModelError, match="does not give every card once"):
        card_deals({"A": 1, "B": 1}, cards=["x", "y"], actual={"A": ["x"], "B": ["x"]})


def test_examples_module_is_an_attribute_of_the_package() -> None:
    assert kw.examples.russian_cards is russian_cards
    assert isinstance(kw.examples.muddy_children(2, 1), KripkeModel)
