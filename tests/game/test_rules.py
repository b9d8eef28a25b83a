"""Rule sets: the publisher default, the named presets, validation and round trips."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.errors import RuleOptionError
from kwartet_epistemic.rules import PRESETS


def test_default_rules_are_the_publisher_profile_of_rules_md() -> None:
    rules = kw.RuleSet()
    assert rules == kw.RuleSet.preset("publisher")
    assert rules.refusal_turn == "asked"  # the asked player takes the turn after a no
    assert rules.draw_pile is False and rules.uses_stock is False
    assert rules.bonus_turn is False
    assert rules.bluffing is False
    assert rules.dealing == "all"  # every card dealt, uneven hands allowed
    assert rules.tie_break == "shared"
    assert rules.memory_cards == 0


def test_dutch_preset_is_clockwise_equal_hands_earliest_last_quartet() -> None:
    rules = kw.RuleSet.preset("dutch")
    assert (rules.refusal_turn, rules.dealing, rules.tie_break) == (
        "clockwise",
        "equal",
        "earliest_last_quartet",
    )
    assert not rules.draw_pile and not rules.bluffing


def test_lamas_preset_is_the_simplified_model_clockwise_without_draws_or_bluffs() -> None:
    rules = kw.RuleSet.preset("lamas")
    assert rules.refusal_turn == "clockwise"
    assert not rules.draw_pile and not rules.bluffing and rules.dealing == "all"


def test_fish_preset_deals_seven_each_with_a_draw_pile() -> None:
    rules = kw.RuleSet.preset("fish")
    assert rules.draw_pile and rules.cards_each == 7 and rules.uses_stock


def test_presets_are_found_by_name_case_insensitively_and_unknown_names_are_refused() -> None:
    assert set(PRESETS) == {"publisher", "dutch", "lamas", "fish"}
    assert kw.RuleSet.preset(" Dutch ") == PRESETS["dutch"]
    with pytest.raises(RuleOptionError, match="expected one of dutch, fish, lamas, publisher"):
        kw.RuleSet.preset("belote")


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_round_trips_through_a_dict_and_names_itself(name: str) -> None:
    rules = kw.RuleSet.preset(name)
    assert kw.RuleSet.from_dict(rules.to_dict()) == rules
    assert rules.name == name == str(rules)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_every_preset_plays_a_full_game_whose_points_add_up(name: str) -> None:
    rules = kw.RuleSet.preset(name)
    deck = kw.Deck.piquet()
    game = kw.Game.deal(deck, ["A", "B", "C", "D"], seed=11, rules=rules)
    rng = np.random.default_rng(11)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
    aside = len(game.initial_deal["aside"])
    assert sum(game.scores.values()) == len(game.exposed)
    if aside == 0:
        assert sum(game.scores.values()) == deck.n_families
    assert game.winners and set(game.winners) <= set(game.players)


def test_rule_names_say_how_they_differ_from_the_nearest_preset() -> None:
    assert kw.RuleSet(bluffing=True).name == "publisher+bluffing"
    assert kw.RuleSet(draw_pile=True, cards_each=5).name == "fish+cards_each=5"
    assert kw.RuleSet(memory_cards=4).name == "publisher+memory_cards=4"


def test_replace_changes_one_option_and_keeps_the_rest() -> None:
    rules = kw.RuleSet.preset("dutch").replace(bluffing=True)
    assert rules.bluffing and rules.dealing == "equal"
    assert kw.RuleSet().replace(refusal_turn="clockwise") == kw.RuleSet.preset("lamas")


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"refusal_turn": "left"}, "refusal_turn='left'"),
        ({"dealing": "diagonal"}, "dealing='diagonal'"),
        ({"tie_break": "coin"}, "tie_break='coin'"),
        ({"draw_pile": 1}, "draw_pile=1: expected True or False"),
        ({"bluffing": "yes"}, "bluffing='yes'"),
        ({"cards_each": 0}, "cards_each=0"),
        ({"cards_each": True}, "cards_each=True"),
        ({"memory_cards": -1}, "memory_cards=-1"),
        ({"bonus_turn": True}, "needs draw_pile=True"),
        ({"draw_pile": True, "dealing": "equal"}, "exclude each other"),
    ],
)
def test_bad_option_values_are_refused_with_the_option_named(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(RuleOptionError) as info:
        kw.RuleSet(**options)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_unknown_options_in_a_dict_are_refused_and_listed() -> None:
    with pytest.raises(RuleOptionError, match="unknown rule option.*'jokers'"):
        kw.RuleSet.from_dict({"jokers": 2})
    with pytest.raises(RuleOptionError, match="expected a mapping"):
        kw.RuleSet.from_dict([("bluffing", True)])  # type: ignore[arg-type]


def test_rule_sets_are_frozen_values() -> None:
    rules = kw.RuleSet()
    with pytest.raises(dataclasses.FrozenInstanceError):
        rules.bluffing = True  # type: ignore[misc]
    assert hash(rules) == hash(kw.RuleSet.preset("publisher"))


# ----- bad input is a RuleOptionError ---------------------------------------


@pytest.mark.parametrize("name", [["x"], None, 5, {"fish": 1}, b"fish", ""])
def test_a_preset_name_that_is_not_a_known_name_is_refused(name: object) -> None:
    with pytest.raises(RuleOptionError, match="rule preset .*expected one of dutch, fish"):
        kw.RuleSet.preset(name)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"cards_each": 10**5000}, "cards_each=<an integer of about 5001 digits>"),
        ({"cards_each": 257}, "cards_each=257: expected an integer from 1 to 256"),
        ({"memory_cards": 1000}, "memory_cards=1000: expected an integer from 0 to 256"),
        ({"memory_cards": 2.0}, "memory_cards=2.0"),
        ({"dealing": ["all"]}, "dealing=['all']: expected one of"),
        ({"refusal_turn": None}, "refusal_turn=None"),
    ],
)
def test_out_of_range_or_unhashable_values_are_refused(
    options: dict[str, object], message: str
) -> None:
    with pytest.raises(RuleOptionError) as info:
        kw.RuleSet(**options)  # type: ignore[arg-type]
    assert message in str(info.value)


def test_a_dict_with_keys_that_are_not_option_names_is_refused() -> None:
    with pytest.raises(RuleOptionError, match="unknown rule option.*1"):
        kw.RuleSet.from_dict({1: True})  # type: ignore[dict-item]
    with pytest.raises(RuleOptionError, match="unknown rule option"):
        kw.RuleSet().replace(**{"bluff": True})


@settings(max_examples=300, deadline=None)
@given(
    st.dictionaries(
        st.sampled_from(["bluffing", "cards_each", "dealing", "memory_cards", "x", "tie_break"]),
        st.one_of(
            st.none(),
            st.booleans(),
            st.integers(-10, 10**6),
            st.floats(),
            st.text(max_size=5),
            st.lists(st.integers(), max_size=2),
        ),
    )
)
def test_any_junk_options_give_a_rule_set_or_a_rule_option_error(data: dict[str, object]) -> None:
    try:
        rules = kw.RuleSet.from_dict(data)
    except RuleOptionError:
        return
    assert kw.RuleSet.from_dict(rules.to_dict()) == rules
