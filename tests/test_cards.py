"""Decks: the piquet and standard substitutes, card lookup, themed packs and deck specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.errors import InvalidDeckError, UnknownCardError


def test_piquet_deck_is_32_cards_in_8_families_of_four_ordered_family_by_family() -> None:
    deck = kw.Deck.piquet()
    assert len(deck) == 32
    assert deck.families == ("7", "8", "9", "10", "J", "Q", "K", "A")
    assert [c.code for c in deck.cards[:8]] == ["7S", "7H", "7D", "7C", "8S", "8H", "8D", "8C"]
    for index, card in enumerate(deck.cards):
        assert card.index == index
        assert card.family_index == index // 4
        assert card.family == deck.families[index // 4]


def test_piquet_with_fewer_families_keeps_the_first_ranks() -> None:
    small = kw.Deck.piquet(families=3)
    assert len(small) == 12
    assert small.families == ("7", "8", "9")
    assert small.spec == "piquet(families=3)"


@pytest.mark.parametrize("families", [0, 9, -1, 2.5, "3"])
def test_piquet_refuses_a_family_count_out_of_range(families: object) -> None:
    with pytest.raises(InvalidDeckError, match="families"):
        kw.Deck.piquet(families=families)  # type: ignore[arg-type]


def test_standard_deck_is_52_cards_in_13_families_ace_to_king() -> None:
    deck = kw.Deck.standard()
    assert len(deck) == 52
    assert deck.families == ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
    assert deck.family_cards("K")[-1].code == "KC"
    assert kw.Deck.standard(families=10).families[-1] == "10"  # the 40-card deck


@pytest.mark.parametrize(
    "text",
    ["QH", "qh", "Q♥", "q♥", "queen of hearts", "Queen Of Hearts", " Q of hearts ", "Qhearts"],
)
def test_card_lookup_accepts_code_symbol_and_name_case_insensitively(text: str) -> None:
    card = kw.Deck.piquet().card(text)
    assert card.code == "QH"
    assert (card.family, card.member, card.symbol) == ("Q", "H", "Q♥")
    assert card.name == "queen of hearts"


def test_card_lookup_knows_ten_as_10_and_t() -> None:
    deck = kw.Deck.piquet()
    assert deck.card("10S") is deck.card("TS") is deck.card("ten of spades") is deck.card("T♠")


def test_card_lookup_of_a_card_object_returns_the_decks_own_card() -> None:
    deck = kw.Deck.piquet()
    twin = kw.Deck.piquet().card("7S")  # an equal deck built again
    assert deck.card(twin) is deck.cards[0]
    with pytest.raises(UnknownCardError):
        deck.card(kw.Deck.standard().card("2S"))


def test_unknown_card_lists_the_closest_names() -> None:
    with pytest.raises(UnknownCardError) as info:
        kw.Deck.piquet().card("QX")
    message = str(info.value)
    assert "'QX'" in message and "closest" in message and "QS" in message


def test_unknown_card_that_resembles_nothing_still_says_what_cards_look_like() -> None:
    with pytest.raises(UnknownCardError, match="no card '@@@'"):
        kw.Deck.piquet().card("@@@")
    with pytest.raises(UnknownCardError, match="expected a string"):
        kw.Deck.piquet().card(7)  # type: ignore[arg-type]


def test_a_2_of_spades_is_not_in_the_piquet_deck() -> None:
    with pytest.raises(UnknownCardError):
        kw.Deck.piquet().card("2S")
    assert kw.Deck.standard().card("2 of spades").code == "2S"


def test_family_lookups_by_name_title_and_index() -> None:
    deck = kw.Deck.piquet()
    assert deck.family_index("q") == deck.family_index("queens") == 5
    assert deck.family_title(5) == deck.family_title("Q") == "queens"
    assert [c.code for c in deck.family_cards(0)] == ["7S", "7H", "7D", "7C"]
    with pytest.raises(UnknownCardError, match="families are"):
        deck.family_index("jokers")


def test_bundled_themed_packs_exist_and_are_valid_decks() -> None:
    packs = kw.bundled_packs()
    assert len(packs) >= 2
    for name in packs:
        deck = kw.Deck.themed(name)
        assert len(deck) % 4 == 0 and len(deck) == 4 * deck.n_families
        assert len({c.code for c in deck.cards}) == len(deck)
        for card in deck.cards:
            assert deck.card(card.name) is card  # every label finds its own card


def test_themed_label_lookup_ignores_case_and_spaces() -> None:
    deck = kw.Deck.themed("dutch_masters")
    assert deck.card("VERMEER").family == "Dutch painters"
    assert deck.card("vermeer") is deck.card(" Vermeer ")


PACK = {
    "name": "Test pack",
    "families": {
        "Painters": ["Rembrandt", "Vermeer", "Van Gogh", "Mondriaan"],
        "Rivers": ["Rhine", "Meuse", "Scheldt", "IJssel"],
    },
}


def test_themed_pack_from_a_toml_file(tmp_path: Path) -> None:
    path = tmp_path / "pack.toml"
    path.write_text(
        'name = "Test pack"\n[families]\n'
        '"Painters" = ["Rembrandt", "Vermeer", "Van Gogh", "Mondriaan"]\n'
        '"Rivers" = ["Rhine", "Meuse", "Scheldt", "IJssel"]\n',
        encoding="utf-8",
    )
    deck = kw.Deck.themed(path)
    assert len(deck) == 8 and deck.families == ("Painters", "Rivers")
    assert deck.card("van gogh").code == "VanGogh"
    assert deck.card("ijssel").family == "Rivers"


def test_themed_pack_from_a_json_file_equals_the_same_data(tmp_path: Path) -> None:
    path = tmp_path / "pack.json"
    path.write_text(json.dumps(PACK), encoding="utf-8")
    from_file = kw.Deck.themed(path)
    assert from_file == kw.Deck.themed(PACK)
    assert [c.code for c in from_file.family_cards("Rivers")] == [
        "Rhine",
        "Meuse",
        "Scheldt",
        "IJssel",
    ]


def test_themed_pack_with_a_duplicate_label_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "dup.json"
    bad = {"name": "dup", "families": {"A": ["w", "x", "y", "z"], "B": ["p", "q", "r", "X"]}}
    path.write_text(json.dumps(bad), encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="duplicates"):
        kw.Deck.themed(path)


@pytest.mark.parametrize("members", [["a", "b", "c"], ["a", "b", "c", "d", "e"], []])
def test_themed_pack_with_a_family_not_of_four_is_refused(
    tmp_path: Path, members: list[str]
) -> None:
    path = tmp_path / "short.toml"
    labels = ", ".join(json.dumps(m) for m in members)
    path.write_text(f'name = "short"\n[families]\n"Only" = [{labels}]\n', encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="exactly 4"):
        kw.Deck.themed(path)


def test_themed_pack_errors_name_the_problem(tmp_path: Path) -> None:
    broken = tmp_path / "broken.toml"
    broken.write_text("name = [unclosed", encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="not valid toml"):
        kw.Deck.themed(broken)
    with pytest.raises(InvalidDeckError, match="no such file"):
        kw.Deck.themed(tmp_path / "missing.toml")
    with pytest.raises(InvalidDeckError, match="appears twice"):
        kw.Deck.from_families("x", {"F": ["a", "b", "c", "d"], "f": ["e", "g", "h", "i"]})
    with pytest.raises(InvalidDeckError, match="empty label"):
        kw.Deck.from_families("x", {"F": ["a", "b", "c", " "]})


@pytest.mark.parametrize(
    "deck",
    [
        kw.Deck.piquet(),
        kw.Deck.piquet(families=3),
        kw.Deck.standard(),
        kw.Deck.standard(families=12),
        kw.Deck.themed("animals"),
        kw.Deck.themed(PACK),
    ],
    ids=repr,
)
def test_deck_spec_rebuilds_an_equal_deck(deck: kw.Deck) -> None:
    again = kw.Deck.from_spec(deck.spec)
    assert again == deck
    assert [c.code for c in again.cards] == [c.code for c in deck.cards]
    assert [c.name for c in again.cards] == [c.name for c in deck.cards]


@pytest.mark.parametrize(
    "spec", ["hearts()", "piquet(families=0)", 'themed("animals")', "themed([1, 2])", "themed({"]
)
def test_bad_deck_specs_are_refused(spec: str) -> None:
    # themed("animals") must not load a bundled pack or a file named inside a record.
    with pytest.raises(InvalidDeckError):
        kw.Deck.from_spec(spec)


def test_repr_rebuilds_the_deck() -> None:
    assert repr(kw.Deck.piquet(families=3)) == "Deck.piquet(families=3)"
    assert repr(kw.Deck.standard()) == "Deck.standard()"
    for name in kw.bundled_packs():
        deck = kw.Deck.themed(name)
        title = repr(deck).removeprefix("Deck.themed('").removesuffix("')")
        assert kw.Deck.themed(title) == deck  # the bundled pack found by its title
