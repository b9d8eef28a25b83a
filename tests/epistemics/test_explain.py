"""Explanations: why a player knows where a card is."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kwartet_testing import SMALL_SETUPS, random_game

import kwartet_epistemic as kw
from kwartet_epistemic.epistemics.explain import HAND_SIZES, fact_set, facts_force


def _kinds(explanation: kw.Explanation) -> list[str]:
    return [fact.kind for fact in explanation.facts]


def _refusal_game() -> kw.Game:
    deck = kw.Deck.piquet(families=3)
    hands = {
        "A": ["7S", "8S", "9S", "9H"],
        "B": ["7H", "8H", "9D", "7C"],
        "C": ["7D", "8D", "8C", "9C"],
    }
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "7D")  # no: only C can have it now
    return game


def test_a_refusal_alone_explains_the_last_candidate() -> None:
    game = _refusal_game()
    k = kw.knowledge(game)
    why = k.explain("A", "7D")
    assert why.known_holder == "C" and why.known
    assert why.facts == (kw.Fact(1, "B has no 7♦: B said no to A.", "refusal"),)
    assert why.probabilities == (("C", Fraction(1)),)
    assert str(why) == "A knows C holds 7♦, because:\n  move 1: B has no 7♦: B said no to A."
    # B refused, so B's own hand says B lacks it: what B needs is that A asked for it.
    assert _kinds(k.explain("B", "7D")) == ["no bluff"]
    # C holds it: no public fact needed.
    own = k.explain("C", "7D")
    assert own.facts == () and "own hand" in str(own)
    assert "<li>" in why._repr_html_()


def test_hand_sizes_count_across_families() -> None:
    # C holds one card and asked for a seven: C's card is a seven, so A, holding 8S and
    # 8H, knows the other eights are with B.  Neither fact alone says so.
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7S", "8S", "8H"], "B": ["7H", "7C", "8D", "8C"], "C": ["7D"]}
    game = kw.Game.from_hands(deck, hands, first="C")
    game.ask("A", "7C")  # no
    k = kw.knowledge(game)
    for card in ("8D", "8C"):
        why = k.explain("A", card)
        assert why.known_holder == "B"
        assert _kinds(why) == ["hand sizes", "ask"]
        assert why.facts[1].sentence == "C asks for 7♣, so C holds one of the sevens."
        assert why.facts[0].move == 0 and why.facts[1].move == 1
    # Which seven C holds stays open.
    assert k.explain("A", "7H").known_holder is None


def test_the_no_complete_family_rule() -> None:
    # From test_epistemics_counting: C knows B holds 8H only because B, holding 7S and
    # 7D, cannot hold both 7H and 7C as well.
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7H", "7D", "8C"], "B": ["7C", "8S", "8H"], "C": ["7S", "8D"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "8D")  # no
    game.ask("C", "7S")  # B: yes
    game.ask("A", "7D")  # B: yes
    game.ask("A", "8C")  # B: yes
    k = kw.knowledge(game)
    why = k.explain("C", "8H")
    assert why.known_holder == "B"
    kinds = _kinds(why)
    assert "rule" in kinds and "hand sizes" in kinds
    rule = next(f for f in why.facts if f.kind == "rule")
    assert rule.sentence == "B does not hold all four sevens (they would be laid down)."
    assert facts_force(k, "C", "8H", why.facts)
    assert not facts_force(k, "C", "8H", [f for f in why.facts if f.kind != "rule"])
    unknown = k.explain("C", "7H")
    assert unknown.known_holder is None and unknown.facts == ()
    assert dict(unknown.probabilities) == {"A": Fraction(1, 2), "B": Fraction(1, 2)}
    assert str(unknown) == "C does not know where 7♥ is: A 1/2 (50%), B 1/2 (50%)."


def test_two_refusals_together() -> None:
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H"], "C": ["7D", "8D"], "D": ["7C", "8C"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "7C")  # no: B's turn
    game.ask("C", "7C")  # no
    k = kw.knowledge(game)
    why = k.explain("A", "7C")
    assert why.known_holder == "D"
    assert _kinds(why) == ["refusal", "refusal"]
    assert [f.move for f in why.facts] == [1, 2]
    assert [f.sentence for f in why.facts] == [
        "B has no 7♣: B said no to A.",
        "C has no 7♣: C said no to B.",
    ]
    for fact in why.facts:
        assert not facts_force(k, "A", "7C", [f for f in why.facts if f != fact])


def test_a_card_seen_moving_is_explained_by_the_move() -> None:
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H"], "C": ["7D", "8D", "7C", "8C"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("C", "7D")  # yes
    why = kw.knowledge(game).explain("B", "7D")
    assert why.known_holder == "A"
    assert why.facts == (kw.Fact(1, "C gives 7♦ to A.", "move"),)


def test_bad_input_names_it_and_changes_nothing() -> None:
    game = _refusal_game()
    k = kw.knowledge(game)
    before = (k.count_worlds("A"), len(game.record))
    with pytest.raises(kw.KwartetError, match="player 'Z'"):
        k.explain("Z", "7D")
    with pytest.raises(kw.UnknownCardError, match="ZZ"):
        k.explain("A", "ZZ")
    with pytest.raises(kw.KwartetError):
        k.explain("A", 7)  # type: ignore[arg-type]
    assert (k.count_worlds("A"), len(game.record)) == before
    assert k.explain("A", "7D").known_holder == "C"


def test_a_view_explains_only_its_own_player() -> None:
    game = _refusal_game()
    view = kw.knowledge(game.view("A"))
    assert view.explain("A", "7D") == kw.knowledge(game).explain("A", "7D")
    with pytest.raises(kw.UnknownToViewerError):
        view.explain("B", "7D")


def test_the_facts_replay_to_the_public_history() -> None:
    # Every constraint of the public history is attributed to a fact: all facts together
    # rebuild it exactly (allowed origins and clauses), on every small preset.
    for number, setup in enumerate(SMALL_SETUPS):
        for seed in range(3):
            game = random_game(setup, 100 * number + seed, 12)
            k = kw.knowledge(game)
            base = fact_set(k, game.players[0])
            rebuilt = base.history(frozenset([HAND_SIZES, *base.keys]))
            history = k.history
            assert rebuilt.allowed == history.allowed
            assert rebuilt.clauses == history.clauses
            assert rebuilt.capacity == history.capacity


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    setup=st.sampled_from(SMALL_SETUPS),
    seed=st.integers(0, 10_000),
    steps=st.integers(0, 14),
)
def test_explanations_are_minimal_and_probabilities_exact(setup, seed, steps) -> None:
    game = random_game(setup, seed, steps)
    k = kw.knowledge(game)
    for p in game.players:
        table = k.location_probabilities(p)
        hand = fact_set(k, p).fact(HAND_SIZES)
        for card in game.deck.cards:
            why = k.explain(p, card)
            assert why.known_holder == k.knows_location(p, card)
            if why.known_holder is None:
                chances = dict(why.probabilities)
                assert sum(chances.values()) == 1
                for seat, q in enumerate(game.players):
                    assert float(chances.get(q, 0)) == pytest.approx(table[card.index, seat])
                continue
            if k.history.location[card.index] is not None:
                assert len(why.facts) == 1
                continue
            if not why.facts:
                assert why.note
                continue
            facts = list(why.facts)
            assert facts_force(k, p, card, facts)
            # The counting engine agrees where the hand sizes were not needed.
            assert facts_force(k, p, card, [*facts, hand])
            for fact in facts:
                assert not facts_force(k, p, card, [f for f in facts if f != fact])


def test_the_demo_says_why() -> None:
    import io

    out = io.StringIO()
    from kwartet_epistemic.demo import EXPLAINED_DEDUCTIONS, run_demo

    game = run_demo(7, out)
    text = out.getvalue()
    assert game.is_over
    reasons = [line.strip() for line in text.splitlines() if "knows because:" in line]
    assert 1 <= len(reasons) <= EXPLAINED_DEDUCTIONS
    assert all("(move " in line for line in reasons)
