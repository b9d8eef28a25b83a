"""Decks: the piquet and standard substitutes, card lookup, themed packs and deck specs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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


# ----- themed packs whose labels give no usable card code ------------------


def _pack(first_family: list[str]) -> dict[str, object]:
    families: dict[str, list[str]] = {"Odd": first_family}
    families.update({f"F{i}": [f"m{i}a", f"m{i}b", f"m{i}c", f"m{i}d"] for i in range(1, 8)})
    return {"name": "clash", "families": families}


@pytest.mark.parametrize(
    ("labels", "first", "second", "code"),
    [
        (["Cat!", "Cat?", "Dog", "Cow"], "Cat!", "Cat?", "Cat"),
        (["a-b", "a+b", "Dog", "Cow"], "a-b", "a+b", "ab"),
        (["Ab!", "aB?", "Dog", "Cow"], "Ab!", "aB?", "aB"),  # codes differ only in case
    ],
)
def test_labels_that_give_one_card_code_are_refused_naming_both(
    tmp_path: Path, labels: list[str], first: str, second: str, code: str
) -> None:
    data = _pack(labels)
    path = tmp_path / "clash.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    for source in (data, path):
        with pytest.raises(InvalidDeckError) as info:
            kw.Deck.themed(source)  # type: ignore[arg-type]
        message = str(info.value)
        assert repr(first) in message and repr(second) in message
        assert f"card code {code!r}" in message


def test_a_label_whose_code_is_another_cards_label_is_refused() -> None:
    # 'a_b' is found by its squashed label 'ab'; 'a+b' has the code 'ab': one name, two cards
    with pytest.raises(InvalidDeckError, match=r"'a_b' \(Odd\) and 'a\+b' \(Odd\)"):
        kw.Deck.themed(_pack(["a_b", "a+b", "Dog", "Cow"]))  # type: ignore[arg-type]


@pytest.mark.parametrize("label", ["🐱", "🐶🐶", "?!", "♠"])
def test_a_label_without_letters_or_digits_is_refused(label: str) -> None:
    with pytest.raises(InvalidDeckError, match="empty card code") as info:
        kw.Deck.themed(_pack([label, "Dog", "Cow", "Pig"]))  # type: ignore[arg-type]
    assert repr(label) in str(info.value)


def test_unicode_labels_with_letters_deal_save_and_load(tmp_path: Path) -> None:
    deck = kw.Deck.themed(_pack(["Käse 🧀", "Ñandú", "Łoś", "ねこ"]))  # type: ignore[arg-type]
    assert [c.code for c in deck.family_cards("Odd")] == ["Käse", "Ñandú", "Łoś", "ねこ"]
    for card in deck.cards:
        assert deck.card(card.code) is card and deck.card(card.member) is card
    game = kw.Game.deal(deck, ["A", "B", "C"], seed=4)
    for _ in range(10):
        game.play(game.legal_asks()[0])
    game.save(tmp_path / "game.json")
    assert kw.Game.load(tmp_path / "game.json").events == game.events


def _label_text() -> st.SearchStrategy[str]:
    return st.text(st.sampled_from(list("ab_-+!? .'Ää1🐱")), min_size=1, max_size=4)


@settings(max_examples=200, deadline=None)
@given(st.lists(_label_text(), min_size=4, max_size=4))
def test_every_pack_that_is_read_finds_its_cards_by_code_and_round_trips(
    labels: list[str],
) -> None:
    try:
        deck = kw.Deck.themed(_pack(labels))  # type: ignore[arg-type]
    except InvalidDeckError:
        return  # refused when read: fine
    codes = [c.code.lower() for c in deck.cards]
    assert all(codes) and len(set(codes)) == len(codes)
    for card in deck.cards:
        assert deck.card(card.code) is card and deck.card(card.member) is card
    again = kw.Deck.from_spec(deck.spec)
    assert again == deck and [c.code for c in again.cards] == [c.code for c in deck.cards]


# ----- bad pack files and arguments are InvalidDeckErrors ------------------------------


def test_bad_pack_files_are_invalid_deck_errors(tmp_path: Path) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000, encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="deep.json.*nested more than"):
        kw.Deck.themed(deep)
    latin = tmp_path / "latin.toml"
    latin.write_bytes('name = "Kühe"\n'.encode("latin-1"))
    with pytest.raises(InvalidDeckError, match="latin.toml.*not UTF-8"):
        kw.Deck.themed(latin)
    latin_json = tmp_path / "latin.json"
    latin_json.write_bytes('{"name": "Kühe"}'.encode("latin-1"))
    with pytest.raises(InvalidDeckError, match="latin.json.*not UTF-8"):
        kw.Deck.themed(latin_json)
    digits = tmp_path / "digits.toml"
    digits.write_text("name = " + "9" * 5000 + "\n", encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="5000 digits.*at most 100"):
        kw.Deck.themed(digits)
    digits_json = tmp_path / "digits.json"
    digits_json.write_text('{"name": ' + "9" * 5000 + "}", encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="5000 digits; numbers have at most 100"):
        kw.Deck.themed(digits_json)
    twice = tmp_path / "twice.json"
    twice.write_text(
        '{"name": "t", "families": {"A": ["a", "b", "c", "d"], "A": ["e", "f", "g", "h"]}}',
        encoding="utf-8",
    )
    with pytest.raises(InvalidDeckError, match="key 'A' appears twice"):
        kw.Deck.themed(twice)  # JSON would keep the last family silently
    huge = tmp_path / "huge.toml"
    huge.write_text("# " + "x" * 2_000_000 + "\n", encoding="utf-8")
    with pytest.raises(InvalidDeckError, match="larger than 1,000,000 bytes"):
        kw.Deck.themed(huge)
    with pytest.raises(InvalidDeckError, match="no such file"):
        kw.Deck.themed(tmp_path)  # a folder
    with pytest.raises(InvalidDeckError, match="no such file"):
        kw.Deck.themed("x" * 5000)  # a name too long for the file system
    with pytest.raises(InvalidDeckError, match="NUL"):
        kw.Deck.themed("pack\0.toml")


@pytest.mark.parametrize("source", [5, None, 2.5, ["animals"], b"animals"])
def test_a_themed_source_of_the_wrong_type_is_refused(source: object) -> None:
    with pytest.raises(InvalidDeckError, match="expected a bundled pack's name"):
        kw.Deck.themed(source)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({"name": 5, "families": {"A": ["a", "b", "c", "d"]}}, "name 5: expected text"),
        ({"families": {"A": ["a", "b", "c", 7]}}, "empty label 7"),
        ({"families": {"A": ["a", "b", "c", "x" * 101]}}, "101 characters; at most 100"),
        (
            {"families": {f"F{i}": [f"{i}a", f"{i}b", f"{i}c", f"{i}d"] for i in range(65)}},
            "65 families; a pack has at most 64",
        ),
    ],
)
def test_themed_data_out_of_bounds_is_refused(data: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidDeckError, match=message):
        kw.Deck.themed(data)


def test_the_largest_pack_plays() -> None:
    deck = kw.Deck.themed(
        {"families": {f"F{i}": [f"{i}a", f"{i}b", f"{i}c", f"{i}d"] for i in range(64)}}
    )
    game = kw.Game.deal(deck, ["A", "B", "C"], seed=1)
    for _ in range(20):
        game.play(game.legal_asks()[0])
    assert sum(game.hand_sizes.values()) + 4 * len(game.exposed) == 256


@pytest.mark.parametrize("families", [True, False])
def test_a_bool_is_not_a_family_count(families: bool) -> None:
    with pytest.raises(InvalidDeckError, match="families"):
        kw.Deck.piquet(families=families)
    with pytest.raises(InvalidDeckError, match="families"):
        kw.Deck.standard(families=families)


@pytest.mark.parametrize(
    "spec",
    [
        "piquet(families=" + "9" * 5000 + ")",
        "standard(families=" + "0" * 5000 + "1)",
        "themed(" + "[" * 100_000 + "]" * 100_000 + ")",
        'themed({"name": "x", "families": ' + "9" * 5000 + "})",
        5,
        None,
    ],
    ids=["piquet digits", "standard digits", "deep themed", "themed digits", "int", "None"],
)
def test_deck_specs_that_python_itself_would_choke_on_are_invalid_deck_errors(
    spec: object,
) -> None:
    with pytest.raises(InvalidDeckError):
        kw.Deck.from_spec(spec)  # type: ignore[arg-type]


@pytest.mark.parametrize("family", [8, -1, True, 2.0, None, ["Q"]])
def test_a_family_that_is_not_a_name_or_a_number_in_range_is_an_unknown_card_error(
    family: object,
) -> None:
    deck = kw.Deck.piquet()
    for lookup in (deck.family_cards, deck.family_title, deck.family_index):
        with pytest.raises(UnknownCardError, match="family"):
            lookup(family)  # type: ignore[operator]
    assert deck.family_cards(7) == deck.family_cards("A")


def _junk() -> st.SearchStrategy[object]:
    leaves = st.one_of(
        st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
        st.text(max_size=6), st.sampled_from(["name", "families", "Cat!", "Cat?", "🐱"]),
    )  # fmt: skip
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(
                st.one_of(st.text(max_size=4), st.just("families")), children, max_size=5
            ),
        ),  # fmt: skip
        max_leaves=25,
    )


@settings(max_examples=300, deadline=None)
@given(_junk())
def test_random_junk_pack_data_and_json_give_a_deck_or_an_invalid_deck_error(
    junk: object,
) -> None:
    for attempt in (
        lambda: kw.Deck.themed({"name": "junk", "families": junk}),  # type: ignore[dict-item]
        lambda: kw.Deck.from_spec("themed(" + json.dumps(junk) + ")"),
        lambda: kw.Deck.from_spec("themed(" + json.dumps({"families": junk}) + ")"),
    ):
        try:
            deck = attempt()
        except InvalidDeckError:
            continue
        assert kw.Deck.from_spec(deck.spec) == deck
