"""The referee: the worked example of RULES.md, illegal asks, dealing and every rule option."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.errors import GameSetupError, IllegalAskError, UnknownCardError

PIQUET = kw.Deck.piquet()


def full_state(game: kw.Game) -> dict[str, Any]:
    """Every attribute of the referee, deep-copied: equal before and after means unchanged."""
    return copy.deepcopy(vars(game))


def codes(cards: tuple[kw.Card, ...]) -> list[str]:
    return [c.code for c in cards]


# ----- the worked example of RULES.md (seed 000, section 06) ---------------------------

# A holds Q♠ Q♦ Q♣ and other cards; nobody holds a complete family.
B_HAS_QH = {
    "A": ["QS", "QD", "QC", "7S", "8S", "KS", "AS"],
    "B": ["QH", "7H", "8H", "9S", "9H", "KH", "AH"],
    "C": ["7D", "8D", "9D", "10S", "10H", "JS", "JH", "KD", "AD"],
    "D": ["7C", "8C", "9C", "10D", "10C", "JD", "JC", "KC", "AC"],
}
# The same deal with Q♥ swapped for 10♠: now C holds Q♥ and B does not.
C_HAS_QH = {
    "A": B_HAS_QH["A"],
    "B": ["10S", "7H", "8H", "9S", "9H", "KH", "AH"],
    "C": ["7D", "8D", "9D", "QH", "10H", "JS", "JH", "KD", "AD"],
    "D": B_HAS_QH["D"],
}


def test_worked_example_yes_only_the_queen_of_hearts_moves_and_a_lays_down_the_queens() -> None:
    game = kw.Game.from_hands(PIQUET, B_HAS_QH, first="A")
    before = {p: set(codes(game.hand(p))) for p in game.players}
    events = game.ask("B", "QH")
    assert events == [
        kw.Asked("A", "B", PIQUET.card("QH")),
        kw.Answered("B", PIQUET.card("QH"), True),
        kw.CardMoved(PIQUET.card("QH"), "B", "A"),
        kw.QuartetExposed("A", "Q", "queens"),
    ]
    # Only Q♥ left B; the four queens left A's hand for the table.
    assert set(codes(game.hand("B"))) == before["B"] - {"QH"}
    assert set(codes(game.hand("A"))) == before["A"] - {"QS", "QD", "QC"}
    assert {p: set(codes(game.hand(p))) for p in "CD"} == {p: before[p] for p in "CD"}
    assert game.exposed == {"Q": "A"} and game.scores["A"] == 1
    assert game.to_move == "A"  # A still holds cards, so A asks again
    assert kw.events.transcript(events) == (
        "A asks B: may I have the queen of hearts? B: yes. B gives the queen of hearts "
        "to A. A lays down the quartet of queens."
    )


def test_worked_example_no_nothing_moves_b_asks_next_and_c_keeps_the_queen() -> None:
    game = kw.Game.from_hands(PIQUET, C_HAS_QH, first="A")
    hands_before = {p: game.hand(p) for p in game.players}
    events = game.ask("B", "queen of hearts")
    assert events == [
        kw.Asked("A", "B", PIQUET.card("QH")),
        kw.Answered("B", PIQUET.card("QH"), False),
        kw.TurnPassed("B", "refusal"),
    ]
    assert kw.events.transcript(events) == (
        "A asks B: may I have the queen of hearts? B: no. B's turn."
    )
    assert {p: game.hand(p) for p in game.players} == hands_before  # nothing moved
    assert game.to_move == "B"  # the asked player, not the next seat
    assert PIQUET.card("QH") in game.hand("C")  # C heard the ask but hands nothing over
    assert not any(isinstance(e, kw.CardMoved) for e in game.record)


def test_worked_example_finish_a3_b2_c2_d1_a_wins_although_d_emptied_first() -> None:
    hands = {
        "A": ["7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C", "QS", "QD"],
        "B": ["9S", "9H", "9D", "9C", "10S", "10H", "10D", "10C", "QC"],
        "C": ["JS", "JH", "JD", "JC", "KS", "KH", "KD", "KC", "AC", "QH"],
        "D": ["AS", "AH", "AD"],
    }
    game = kw.Game.from_hands(PIQUET, hands, first="D")
    assert game.scores == {"A": 2, "B": 2, "C": 2, "D": 0}  # exposed at the deal
    game.ask("C", "AC")  # D completes the aces and has no cards left
    assert game.hand("D") == () and game.to_move == "A"  # D is skipped from now on
    game.ask("C", "QH")
    game.ask("B", "QC")
    assert game.is_over and game.to_move is None
    assert game.scores == {"A": 3, "B": 2, "C": 2, "D": 1}
    assert sum(game.scores.values()) == 8 == len(PIQUET) // 4
    assert game.winners == ("A",)
    emptied = [e.player for e in game.record if isinstance(e, kw.HandEmptied)]
    assert emptied[0] == "D"  # D emptied first and still does not win
    ended = game.record[-1]
    assert isinstance(ended, kw.GameEnded) and ended.winners == ("A",)
    assert ended.sentence() == "Game over. Quartets: A 3, B 2, C 2, D 1. A wins."


def test_refusal_under_clockwise_rules_passes_to_the_next_seat_not_the_asked_player() -> None:
    publisher = kw.Game.from_hands(PIQUET, C_HAS_QH, first="A")
    publisher.ask("D", "QH")
    assert publisher.to_move == "D"
    lamas = kw.Game.from_hands(PIQUET, C_HAS_QH, first="A", rules=kw.RuleSet.preset("lamas"))
    lamas.ask("D", "QH")
    assert lamas.to_move == "B"


# ----- illegal asks ---------------------------------------------------------------


def finish_position() -> kw.Game:
    """A mid-game position: sevens and eights exposed by A, D's hand empty, A to move."""
    hands = {
        "A": ["7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C", "QS", "QD"],
        "B": ["9S", "9H", "9D", "9C", "10S", "10H", "10D", "10C", "QC"],
        "C": ["JS", "JH", "JD", "JC", "KS", "KH", "KD", "KC", "AC", "QH"],
        "D": ["AS", "AH", "AD"],
    }
    game = kw.Game.from_hands(PIQUET, hands, first="D")
    game.ask("C", "AC")
    return game


@pytest.mark.parametrize(
    ("make", "action", "message"),
    [
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.ask("C", "7D", asker="B"),
            "it is not B's turn: A is to move",
        ),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.play(kw.Ask("C", "D", PIQUET.card("7C"))),
            "it is not C's turn",
        ),
        (finish_position, lambda g: g.ask("D", "QC"), "A may not ask D: D has no cards"),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.ask("B", "9S"),
            "A may not ask for 9S: A holds no card of the nines",
        ),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.ask("B", "QS"),
            "A may not ask for QS: A holds it already",
        ),
        (
            finish_position,
            lambda g: g.ask("B", "7S"),
            "A may not ask for 7S: the quartet of sevens is already exposed",
        ),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.ask("B", "QX"),
            "A may not ask for an unknown card",
        ),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.ask("A", "QH"),
            "A may not ask themselves for a card",
        ),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.ask("E", "QH"),
            "A may not ask 'E': no such player",
        ),
        (
            lambda: kw.Game.from_hands(PIQUET, B_HAS_QH, first="A"),
            lambda g: g.play("B QH"),
            "expected an Ask",
        ),
    ],
    ids=[
        "not-your-turn",
        "not-your-turn-play",
        "target-has-no-cards",
        "family-not-held",
        "card-held",
        "family-exposed",
        "unknown-card",
        "asking-yourself",
        "no-such-player",
        "not-an-ask",
    ],
)
def test_illegal_ask_is_refused_with_the_rule_and_changes_nothing(
    make: Any, action: Any, message: str
) -> None:
    game = make()
    before = full_state(game)
    with pytest.raises(IllegalAskError) as info:
        action(game)
    assert message in str(info.value)
    assert full_state(game) == before


def test_unknown_card_in_an_ask_is_both_an_illegal_ask_and_an_unknown_card() -> None:
    game = kw.Game.from_hands(PIQUET, B_HAS_QH, first="A")
    with pytest.raises(kw.UnknownAskCardError) as info:
        game.ask("B", "QX")
    assert isinstance(info.value, IllegalAskError) and isinstance(info.value, UnknownCardError)
    assert "closest" in str(info.value)


def test_no_ask_after_the_game_is_over() -> None:
    game = finish_position()
    game.ask("C", "QH")
    game.ask("B", "QC")
    before = full_state(game)
    with pytest.raises(IllegalAskError, match="the game is over"):
        game.ask("B", "QC")
    with pytest.raises(IllegalAskError, match="the game is over"):
        game.random_legal_ask(np.random.default_rng(0))
    assert game.legal_asks() == [] and full_state(game) == before


def test_a_card_face_up_in_the_middle_cannot_be_asked_for() -> None:
    game = memory_game()
    game.turn_over(0)  # the 7♣
    before = full_state(game)
    with pytest.raises(IllegalAskError, match="7C: it lies face up in the middle"):
        game.ask("B", "7C")
    assert full_state(game) == before


# ----- dealing ------------------------------------------------------------------------

SEED_7_DEAL = {
    "dealer": "D",
    "hands": {
        "A": ["8H", "10D", "10C", "JD", "JC", "KS", "KH", "AS"],
        "B": ["7C", "8D", "9S", "9D", "QH", "QC", "AD", "AC"],
        "C": ["7S", "8C", "9H", "JS", "JH", "QD", "KC", "AH"],
        "D": ["7H", "7D", "8S", "9C", "10S", "10H", "QS", "KD"],
    },
    "stock": [],
    "aside": [],
    "middle": [],
}


def test_deal_with_seed_7_is_the_pinned_regression_deal() -> None:
    # Computed once; numpy's PCG64 stream makes it the same on every machine.
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    deal = game.initial_deal
    assert {p: sorted(h, key=lambda c: PIQUET.card(c).index) for p, h in deal["hands"].items()} == (
        SEED_7_DEAL["hands"]
    )
    assert deal["dealer"] == "D" and game.to_move == "A"
    assert kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7).events == game.events


@pytest.mark.parametrize("n", [3, 4, 5, 6])
def test_deal_shuffles_with_numpy_picks_the_dealer_and_deals_singly_clockwise(n: int) -> None:
    players = [f"P{i}" for i in range(n)]
    game = kw.Game.deal(PIQUET, players, seed=100 + n)
    rng = np.random.default_rng(100 + n)
    order = [PIQUET.cards[int(i)].code for i in rng.permutation(32)]
    dealer = int(rng.integers(n))
    assert game.dealer == players[dealer]
    expected: dict[str, list[str]] = {p: [] for p in players}
    for k, code in enumerate(order):
        expected[players[(dealer + 1 + k) % n]].append(code)
    in_deck_order = {p: sorted(h, key=lambda c: PIQUET.card(c).index) for p, h in expected.items()}
    assert game.initial_deal["hands"] == in_deck_order
    sizes = [len(expected[players[(dealer + 1 + k) % n]]) for k in range(n)]
    assert sizes == sorted(sizes, reverse=True) and sizes[0] - sizes[-1] <= 1
    left_of_dealer = players[(dealer + 1) % n]
    dealt_sizes = tuple(len(expected[p]) for p in players)  # public: sizes before exposing
    assert game.record[0] == kw.Dealt(tuple(players), players[dealer], dealt_sizes)
    if game.hand(left_of_dealer):
        assert game.to_move == left_of_dealer


def test_deal_is_the_same_for_the_same_seed_and_differs_for_another() -> None:
    deals = [kw.Game.deal(PIQUET, ["A", "B", "C"], seed=s).initial_deal for s in (5, 5, 6)]
    assert deals[0] == deals[1] != deals[2]


def test_complete_quartets_are_exposed_at_the_deal() -> None:
    hands = {
        "A": ["7S", "7H", "7D", "7C", "8S"],
        "B": ["8H", "9S", "9H"],
        "C": ["8D", "8C", "9D", "9C"],
    }
    game = kw.Game.from_hands(kw.Deck.piquet(families=3), hands, first="B")
    assert game.exposed == {"7": "A"} and game.scores["A"] == 1
    assert codes(game.hand("A")) == ["8S"]
    assert game.record[1] == kw.QuartetExposed("A", "7", "sevens")


def test_dutch_rules_deal_equal_hands_and_set_the_rest_aside_until_the_end() -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D", "E"], seed=3, rules=kw.RuleSet.preset("dutch"))
    deal = game.initial_deal
    assert [len(h) for h in deal["hands"].values()] == [6] * 5
    assert len(deal["aside"]) == 2
    dealt = game.record[0]
    assert isinstance(dealt, kw.Dealt) and dealt.aside_size == 2
    rng = np.random.default_rng(3)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
    aside_families = {PIQUET.card(c).family for c in deal["aside"]}
    assert set(game.exposed) == set(PIQUET.families) - aside_families
    ended = game.record[-1]
    assert isinstance(ended, kw.GameEnded)
    assert sorted(codes(ended.revealed)) == sorted(deal["aside"])  # revealed at the end


def test_setup_errors() -> None:
    with pytest.raises(GameSetupError, match="2 players"):
        kw.Game.deal(PIQUET, ["A", "B"], seed=1)
    with pytest.raises(GameSetupError, match="7 players"):
        kw.Game.deal(PIQUET, list("ABCDEFG"), seed=1)
    with pytest.raises(GameSetupError, match="unique"):
        kw.Game.deal(PIQUET, ["A", "B", "A"], seed=1)
    with pytest.raises(GameSetupError, match="player name"):
        kw.Game.deal(PIQUET, ["A", "B", "C D"], seed=1)
    with pytest.raises(GameSetupError, match="seed -1"):
        kw.Game.deal(PIQUET, ["A", "B", "C"], seed=-1)
    small = kw.Deck.piquet(families=1)
    with pytest.raises(GameSetupError, match="placed twice"):
        kw.Game.from_hands(small, {"A": ["7S", "7H"], "B": ["7H"], "C": ["7C", "7D"]})
    with pytest.raises(GameSetupError, match="placed nowhere"):
        kw.Game.from_hands(small, {"A": ["7S"], "B": ["7H"], "C": ["7C"]})
    with pytest.raises(GameSetupError, match="A's hand: no card 'QH'"):
        kw.Game.from_hands(small, {"A": ["QH"], "B": ["7H"], "C": ["7C"]})


# ----- rule options -------------------------------------------------------------------

FISH_HANDS = {"A": ["7S", "7H", "7D", "8S"], "B": ["8H", "9S", "9H"]}
FISH_STOCK = ["9D", "8D", "8C", "9C", "7C"]  # bottom to top: A will draw the 7♣


@pytest.mark.parametrize("bonus", [False, True])
def test_draw_pile_refused_asker_draws_the_top_card_privately(bonus: bool) -> None:
    rules = kw.RuleSet(draw_pile=True, cards_each=4, bonus_turn=bonus)
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3), FISH_HANDS, first="A", rules=rules, stock=FISH_STOCK
    )
    events = game.ask("B", "7C")
    seven_clubs = game.deck.card("7C")
    assert events[:3] == [
        kw.Asked("A", "B", seven_clubs),
        kw.Answered("B", seven_clubs, False),
        kw.Drew("A", seven_clubs),
    ]
    assert game.exposed == {"7": "A"} and game.stock_size == 4
    # Bonus turn: completing a quartet with the drawn card lets A ask again.
    assert game.to_move == ("A" if bonus else "B")
    assert kw.Drew("A", None) in game.view("B").record
    assert kw.Drew("A", seven_clubs) in game.view("A").record
    assert kw.Drew("A", None) in game.record  # the public record hides the card


def test_two_players_may_play_only_with_a_draw_pile() -> None:
    game = kw.Game.deal(PIQUET, ["A", "B"], seed=2, rules=kw.RuleSet.preset("fish"))
    assert list(game.hand_sizes.values()) == [7, 7] or game.exposed  # quartets may go at once
    assert game.stock_size == 18
    rng = np.random.default_rng(2)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
    assert sum(game.scores.values()) == 8


def test_bluffing_lets_a_player_ask_for_a_card_they_hold() -> None:
    with_bluffs = kw.Game.from_hands(PIQUET, B_HAS_QH, first="A", rules=kw.RuleSet(bluffing=True))
    assert kw.Ask("A", "B", PIQUET.card("QS")) in with_bluffs.legal_asks()
    events = with_bluffs.ask("B", "QS")
    assert events[1] == kw.Answered("B", PIQUET.card("QS"), False)
    assert with_bluffs.to_move == "B"


def memory_game() -> kw.Game:
    """Sevens and eights each have a card in the middle; nines and tens can be completed."""
    small = kw.Deck.piquet(families=4)
    hands = {
        "A": ["7S", "7H", "9S", "10S"],
        "B": ["7D", "8H", "9H", "10H"],
        "C": ["8S", "8D", "9D", "10D", "9C", "10C"],
    }
    return kw.Game.from_hands(
        small, hands, first="A", rules=kw.RuleSet(memory_cards=2), middle=["7C", "8C"]
    )


def test_memory_kwartet_turn_over_shows_a_middle_card_to_all_once_per_turn() -> None:
    game = memory_game()
    assert game.middle == (None, None)
    events = game.turn_over(0)
    assert events == [kw.MiddleCardTurned("A", 0, game.deck.card("7C"))]
    assert game.middle == (game.deck.card("7C"), None)
    assert game.view("B").middle == game.middle
    before = full_state(game)
    with pytest.raises(IllegalAskError, match="already turned over a middle card this turn"):
        game.turn_over(1)
    with pytest.raises(IllegalAskError, match="already face up"):
        game.turn_over(0)
    with pytest.raises(IllegalAskError, match="expected an integer from 0 to 1"):
        game.turn_over(2)
    assert full_state(game) == before
    assert game.to_move == "A" and game.legal_asks()  # A still asks this turn


def test_memory_kwartet_next_turn_may_turn_over_again_and_the_end_reveals_the_middle() -> None:
    game = memory_game()
    game.turn_over(0)
    game.ask("B", "9D")  # no: B lacks it, so it is B's turn
    assert game.to_move == "B"
    game.turn_over(1)  # a new turn, a new turn-over
    rng = np.random.default_rng(5)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
    assert set(game.exposed) == {"9", "10"}  # sevens and eights can never be completed
    ended = game.record[-1]
    assert isinstance(ended, kw.GameEnded) and codes(ended.revealed) == ["7C", "8C"]


def test_memory_kwartet_game_ends_when_no_quartet_can_be_completed() -> None:
    small = kw.Deck.piquet(families=3)
    hands = {"A": ["7S", "7H", "8S"], "B": ["7D", "8H", "9S"], "C": ["8D", "9H", "9D"]}
    game = kw.Game.from_hands(
        small, hands, first="A", rules=kw.RuleSet(memory_cards=3), middle=["7C", "8C", "9C"]
    )  # every family has a card in the middle: none can be completed
    assert game.is_over
    ended = game.record[-1]
    assert isinstance(ended, kw.GameEnded) and codes(ended.revealed) == ["7C", "8C", "9C"]
    assert ended.winners == ("A", "B", "C")  # 0 points each: a shared win


def test_tie_shared_by_default_or_won_by_the_earliest_last_quartet() -> None:
    small = kw.Deck.piquet(families=4)
    hands = {
        "A": ["7S", "7H", "7D", "7C", "9S", "9H", "9D"],
        "B": ["8S", "8H", "8D", "8C", "10S", "10H", "10D"],
        "C": ["9C", "10C"],
    }
    for rules, winners in [
        (kw.RuleSet(), ("A", "B")),
        (kw.RuleSet(tie_break="earliest_last_quartet"), ("A",)),
    ]:
        game = kw.Game.from_hands(small, hands, first="A", rules=rules)
        game.ask("C", "9C")  # A's last quartet; A's hand is now empty
        assert game.to_move == "B"
        game.ask("C", "10C")  # B's last quartet, later
        assert game.is_over and game.scores == {"A": 2, "B": 2, "C": 0}
        assert game.winners == winners


def test_empty_hands_are_skipped_clockwise_after_a_refusal() -> None:
    hands = {
        "A": ["7S", "7H", "8S"],
        "B": ["8H", "8D", "8C", "9S", "7D"],
        "C": [],
        "D": ["7C", "9H", "9D", "9C"],
    }
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3), hands, first="B", rules=kw.RuleSet.preset("lamas")
    )
    game.ask("A", "9H")  # no: clockwise from B is C, whose hand is empty, so D moves
    assert game.to_move == "D"
    assert game.record[-1] == kw.TurnPassed("D", "empty hand")


# ----- views, parsing, text -----------------------------------------------------------


def test_view_holds_only_the_players_own_hand_and_public_facts() -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    view = game.view("B")
    assert view.hand == game.hand("B")
    assert view.hand_sizes == game.hand_sizes and view.record == game.record
    assert view.legal_asks() == [] and game.view("A").legal_asks() == game.legal_asks()
    other_cards = {c for p in "ACD" for c in game.hand(p)}
    assert not other_cards & set(view.hand)
    with pytest.raises(GameSetupError, match="not in this game"):
        game.view("Z")


def test_random_legal_ask_is_one_of_the_legal_asks_and_covers_them() -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    rng = np.random.default_rng(0)
    legal = game.legal_asks()
    seen = {game.random_legal_ask(rng) for _ in range(2000)}
    assert seen == set(legal)  # 36 asks, 2000 draws: all of them come up


@pytest.mark.parametrize(
    "text",
    [
        "C QH",
        "c qh",
        "C, may I have the queen of hearts?",
        "C: do you have Q♥",
        "c may i please have the Queen of Hearts",
    ],
)
def test_parse_ask_reads_typed_asks(text: str) -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    assert kw.parse_ask(text, game) == kw.Ask("A", "C", PIQUET.card("QH"))


@pytest.mark.parametrize(
    ("text", "message"),
    [("Z QH", "'Z' is not a player"), ("C QX", "no card"), ("", "expected a player and a card")],
)
def test_parse_ask_refuses_bad_text(text: str, message: str) -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    with pytest.raises(IllegalAskError, match=message):
        kw.parse_ask(text, game)


def test_copy_is_independent_of_the_original() -> None:
    game = kw.Game.from_hands(PIQUET, B_HAS_QH, first="A")
    before = full_state(game)
    twin = game.copy()
    twin.ask("B", "QH")
    assert full_state(game) == before
    assert twin.scores["A"] == 1 and game.scores["A"] == 0


def test_transcript_has_one_line_per_ask() -> None:
    game = kw.Game.from_hands(PIQUET, C_HAS_QH, first="A")
    game.ask("B", "QH")
    lines = game.transcript().splitlines()
    assert lines == [
        "D deals 32 cards: A 7, B 7, C 9, D 9. A's turn.",
        "A asks B: may I have the queen of hearts? B: no. B's turn.",
    ]


# ----- speed without visible change ------------------------------------------


def test_legal_asks_are_shared_immutable_values_equal_to_fresh_ones() -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    twin = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    asks = game.legal_asks()
    assert asks is not game.legal_asks()  # a fresh list every call: callers may change it
    assert all(a is b for a, b in zip(asks, twin.legal_asks(), strict=True))
    assert asks == [kw.Ask(a.asker, a.target, PIQUET.card(a.card.code)) for a in asks]
    assert asks == game.view("A").legal_asks()
    assert hash(asks[0]) == hash(kw.Ask("A", "B", PIQUET.card("8S")))
    assert repr(asks[0]) == "Ask('A', 'B', '8S')"
    with pytest.raises(AttributeError):
        asks[0].target = "C"  # type: ignore[misc]
    asks.clear()
    assert len(game.legal_asks()) == 36


def test_an_ask_built_by_hand_or_with_another_decks_card_plays_the_same() -> None:
    game = kw.Game.deal(PIQUET, ["A", "B", "C", "D"], seed=7)
    twin = game.copy()
    first = game.legal_asks()[0]
    other_card = kw.Deck.piquet().card(first.card.code)  # equal, but not the deck's object
    assert game.play(first) == twin.play(kw.Ask(first.asker, first.target, other_card))
    assert game.events == twin.events
    assert twin.events[-2].card is PIQUET.card(first.card.code)  # the game's own card


def test_deep_copies_and_pickles_of_a_game_play_with_their_own_deck() -> None:
    import pickle

    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    for _ in range(5):
        game.play(game.legal_asks()[0])
    for other in (copy.deepcopy(game), pickle.loads(pickle.dumps(game))):
        assert other.deck is not game.deck and other.events == game.events
        ask = other.legal_asks()[0]
        assert ask == game.legal_asks()[0] and ask.card is other.deck.cards[ask.card.index]
        assert other.play(ask) == game.copy().play(ask)


def test_the_shared_tables_go_with_their_deck() -> None:
    import gc

    from kwartet_epistemic import game as game_module

    deck = kw.Deck.piquet(families=3)
    kw.Game.deal(deck, ["A", "B", "C"], seed=1).legal_asks()
    key = id(deck)
    assert key in game_module._TABLES
    del deck
    gc.collect()
    assert key not in game_module._TABLES


def test_deal_refuses_what_is_not_a_deck_or_rule_set() -> None:
    with pytest.raises(GameSetupError, match="expected a RuleSet"):
        kw.Game.deal(PIQUET, ["A", "B", "C"], seed=1, rules="dutch")  # type: ignore[arg-type]
    with pytest.raises(GameSetupError, match="expected a Deck"):
        kw.Game.deal("piquet", ["A", "B", "C"], seed=1)  # type: ignore[arg-type]
    with pytest.raises(GameSetupError, match="memory_cards=40"):
        kw.Game.deal(PIQUET, ["A", "B", "C"], seed=1, rules=kw.RuleSet(memory_cards=40))


def test_a_view_is_exactly_the_dataclass_its_constructor_would_build() -> None:
    # Game.view fills the frozen PlayerView's __dict__ directly (speed): it must hold
    # every field, nothing else, and equal the view PlayerView(...) builds from them.
    rules = kw.RuleSet.preset("publisher").replace(memory_cards=1)
    for game in (
        kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=11),
        kw.Game.deal(kw.Deck.piquet(families=4), ["A", "B", "C"], seed=2, rules=rules),
    ):
        rng = np.random.default_rng(0)
        for _ in range(12):
            for player in game.players:
                view = game.view(player)
                names = [f.name for f in dataclasses.fields(kw.PlayerView)]
                assert sorted(vars(view)) == sorted(names)
                rebuilt = kw.PlayerView(**{name: getattr(view, name) for name in names})
                assert rebuilt == view
                assert hash(rebuilt.hand) == hash(view.hand)
            if game.is_over:
                break
            game.play(game.random_legal_ask(rng))
