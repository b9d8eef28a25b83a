"""Game records: JSON round trips, replays, and corrupt or tampered records refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.errors import RecordError
from kwartet_epistemic.record import RECORD_FORMAT, RECORD_VERSION
from kwartet_epistemic.record_format import is_plain_action


def random_game(
    rules: kw.RuleSet, seed: int, *, deck: kw.Deck | None = None, players: int = 4
) -> kw.Game:
    game = kw.Game.deal(deck or kw.Deck.piquet(), list("ABCDEF"[:players]), seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        down = [i for i, c in enumerate(game.middle) if c is None]
        if down and rng.random() < 0.3:
            try:
                game.turn_over(down[0])
                continue
            except kw.IllegalAskError:
                pass
        game.play(game.random_legal_ask(rng))
    return game


def finished_record() -> dict[str, Any]:
    """A finished publisher game as JSON data, for tampering with."""
    data: dict[str, Any] = json.loads(
        kw.GameRecord.from_game(random_game(kw.RuleSet(), 7)).to_json()
    )
    return data


RULES = [
    kw.RuleSet.preset("publisher"),
    kw.RuleSet.preset("dutch"),
    kw.RuleSet.preset("lamas"),
    kw.RuleSet.preset("fish"),
    kw.RuleSet(draw_pile=True, bonus_turn=True, cards_each=5),
    kw.RuleSet(memory_cards=4, bluffing=True),
]


@pytest.mark.parametrize("rules", RULES, ids=lambda r: r.name)
def test_a_record_round_trips_through_json_and_replays_to_the_same_game(
    rules: kw.RuleSet,
) -> None:
    game = random_game(rules, 3)
    record = kw.GameRecord.from_game(game)
    text = record.to_json()
    again = kw.GameRecord.from_json(text)
    assert again == record
    assert again.to_json() == text
    replayed = again.replay()
    assert replayed.events == game.events
    assert replayed.record == game.record
    assert replayed.actions == game.actions
    assert replayed.winners == game.winners
    assert [replayed.view(p) for p in game.players] == [game.view(p) for p in game.players]


def test_record_holds_format_version_deck_rules_deal_seed_and_actions() -> None:
    game = random_game(kw.RuleSet.preset("fish"), 5)
    data = json.loads(kw.GameRecord.from_game(game).to_json())
    assert data["format"] == RECORD_FORMAT == "kwartet-game-record"
    assert data["version"] == RECORD_VERSION == 1
    assert data["deck"] == "piquet()"
    assert kw.RuleSet.from_dict(data["rules"]) == kw.RuleSet.preset("fish")
    assert data["players"] == ["A", "B", "C", "D"] and data["seed"] == 5
    assert data["deal"] == game.initial_deal
    assert len(data["deal"]["stock"]) == 4  # 32 - 4 x 7, listed bottom to top
    assert [tuple(a) for a in data["actions"]] == list(game.actions)
    assert all(a[0] == "ask" and isinstance(a[4], bool) for a in data["actions"])


def test_memory_kwartet_records_keep_turn_over_actions() -> None:
    game = random_game(kw.RuleSet(memory_cards=4), 2)
    turned = [a for a in game.actions if a[0] == "turn_over"]
    assert turned and turned[0] == ("turn_over", turned[0][1], 0)
    assert kw.GameRecord.from_json(kw.GameRecord.from_game(game).to_json()).replay().middle == (
        game.middle
    )


def test_a_game_in_progress_and_a_chosen_deal_round_trip_too() -> None:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "8H")
    record = kw.GameRecord.from_game(game)
    assert record.seed is None
    replayed = kw.GameRecord.from_json(record.to_json()).replay()
    assert replayed.events == game.events and replayed.to_move == game.to_move == "A"


def test_a_themed_deck_round_trips() -> None:
    game = random_game(kw.RuleSet(), 4, deck=kw.Deck.themed("dutch_masters"), players=3)
    again = kw.GameRecord.from_json(kw.GameRecord.from_game(game).to_json())
    assert again.deck == kw.Deck.themed("dutch_masters")
    assert again.replay().events == game.events


def test_save_and_load_files(tmp_path: Path) -> None:
    game = random_game(kw.RuleSet.preset("dutch"), 9)
    path = tmp_path / "game.json"
    game.save(path)
    assert kw.Game.load(path).events == game.events
    assert kw.GameRecord.load(path) == kw.GameRecord.from_game(game)
    kw.GameRecord.from_game(game).save(tmp_path / "again.json")
    assert (tmp_path / "again.json").read_text(encoding="utf-8") == path.read_text(encoding="utf-8")


def test_records_are_frozen_values() -> None:
    record = kw.GameRecord.from_game(random_game(kw.RuleSet(), 1))
    with pytest.raises(dataclasses.FrozenInstanceError):
        record.seed = 2  # type: ignore[misc]
    assert record == kw.GameRecord.from_game(random_game(kw.RuleSet(), 1))


def test_a_seed_the_deal_did_not_come_from_is_not_recorded() -> None:
    deal = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=1).initial_deal
    game = kw.Game(
        kw.Deck.piquet(),
        ["A", "B", "C"],
        deal["hands"],
        dealer=deal["dealer"],
        seed=2,  # not the seed of this deal
    )
    assert kw.GameRecord.from_game(game).seed is None
    kw.GameRecord.from_game(game).replay()


# ----- corrupt and tampered records ---------------------------------------------------


def refused(data: Any) -> str:
    text = data if isinstance(data, str) else json.dumps(data)
    with pytest.raises(RecordError) as info:
        kw.GameRecord.from_json(text)
    assert isinstance(info.value, ValueError)
    return str(info.value)


def test_bad_json_is_refused() -> None:
    assert refused('{"format": "kwartet-game-record",').startswith("record: not valid JSON")
    assert "not valid JSON" in refused("\u0000")
    assert "expected a JSON object" in refused([1, 2, 3])
    with pytest.raises(RecordError, match="not valid JSON"):
        kw.GameRecord.from_json(b"\xff\xfe\x00")
    assert "not valid JSON" in refused("[" * 100_000)  # too deep: no RecursionError escapes


def test_wrong_format_or_version_is_refused() -> None:
    data = finished_record()
    assert refused({**data, "format": "chess"}).startswith("format: 'chess'")
    assert "newer version" in refused({**data, "version": 2})
    assert refused({**data, "version": "1"}).startswith("version: '1' is not supported")
    assert "unknown field(s) 'comment'" in refused({**data, "comment": "hi"})
    missing = dict(data)
    del missing["actions"]
    assert "missing field(s) actions" in refused(missing)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"deck": "tarot()"}, "deck: deck spec 'tarot()'"),
        ({"deck": 'themed("/etc/passwd")'}, "must hold a JSON object"),
        ({"deck": 32}, "deck: 32"),
        ({"rules": {"jokers": True}}, "rules: unknown rule option"),
        ({"rules": {"bluffing": "maybe"}}, "rules: rule option bluffing='maybe'"),
        ({"players": "ABCD"}, "players: 'ABCD'"),
        # Python's $ matches before a final newline; the schema's patterns must not
        ({"players": ["A", "B", "C", "D\n"]}, "player 4 'D\\n': expected a player name"),
        ({"seed": -3}, "seed: -3"),
        ({"seed": True}, "seed: True"),
    ],
)
def test_bad_fields_are_refused_naming_the_field(change: dict[str, Any], message: str) -> None:
    assert message in refused({**finished_record(), **change})


def test_a_tampered_deal_is_refused() -> None:
    data = finished_record()
    hands = data["deal"]["hands"]
    duplicate = json.loads(json.dumps(data))
    duplicate["deal"]["hands"]["B"].append(hands["A"][0])
    assert "deal: card" in refused(duplicate) and "placed twice" in refused(duplicate)
    unknown = json.loads(json.dumps(data))
    unknown["deal"]["hands"]["A"][0] = "ZZ"
    assert refused(unknown).startswith("deal: A's hand: no card 'ZZ'")
    lost = json.loads(json.dumps(data))
    lost["deal"]["hands"]["A"].pop()
    assert "placed nowhere" in refused(lost)
    wrong_dealer = json.loads(json.dumps(data))
    wrong_dealer["deal"]["dealer"] = "Z"
    assert "dealer 'Z'" in refused(wrong_dealer)


def test_swapping_cards_between_hands_breaks_the_seed_or_the_answers() -> None:
    data = finished_record()
    hands = data["deal"]["hands"]
    a_card, b_card = hands["A"][0], hands["B"][0]
    hands["A"][0], hands["B"][0] = b_card, a_card
    assert "deal: it is not the deal that seed 7 gives" in refused(data)
    data["seed"] = None  # without the seed, the replay gives the swap away
    assert refused(data).startswith("entry ")  # an answer or a move that no longer fits


def test_an_answer_that_disagrees_with_the_deal_names_the_first_bad_entry() -> None:
    data = finished_record()
    number = 12
    action = data["actions"][number - 1]
    action[4] = not action[4]
    data["actions"][number + 3][4] = not data["actions"][number + 3][4]  # a later one too
    message = refused(data)
    _, asker, target, card, answer = action
    assert message.startswith(f"entry {number} ({asker} asks {target} for {card}): ")
    assert f"the record says {'yes' if answer else 'no'}" in message


def test_an_illegal_move_names_the_first_bad_entry() -> None:
    data = finished_record()
    first = data["actions"][0]
    data["actions"][0] = ["ask", first[2], first[1], first[3], first[4]]  # out of turn
    message = refused(data)
    assert message.startswith(f"entry 1 ({first[2]} asks {first[1]} for {first[3]}): ")
    assert "turn" in message


@pytest.mark.parametrize(
    ("entry", "message"),
    [
        (["ask", "A", "B"], "expected an ask of 5 parts"),
        (["ask", "A", "B", "QH", 1], "answer 1: expected true or false"),
        (["ask", "A", "B", "QX", False], "no card 'QX'"),
        (["fold", "A"], "unknown action 'fold'"),
        ({"ask": "A"}, "expected a list"),
        (["turn_over", "MOVER", 0], "there are no middle cards"),
        (["turn_over", "A", "0"], "slot '0': expected a middle slot number"),
        (["ask", "MOVER\n", "B", "QH", False], "expected a player"),
    ],
)
def test_malformed_entries_are_refused_with_their_number(entry: Any, message: str) -> None:
    data = finished_record()
    mover = data["actions"][4][1]  # whose turn it is after four actions
    if isinstance(entry, list):
        entry = [mover if part == "MOVER" else part for part in entry]
    data["actions"].insert(4, entry)
    text = refused(data)
    assert text.startswith("entry 5 (") and message in text


def test_an_action_after_the_end_is_refused() -> None:
    data = finished_record()
    last = data["actions"][-1]
    data["actions"].append(last)
    message = refused(data)
    assert message.startswith(f"entry {len(data['actions'])} (")
    assert "the game is over" in message


def test_a_file_that_cannot_be_read_or_is_corrupt_is_a_record_error(tmp_path: Path) -> None:
    with pytest.raises(RecordError, match="cannot read game record"):
        kw.GameRecord.load(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    with pytest.raises(RecordError, match="bad.json: record: not valid JSON"):
        kw.Game.load(bad)


def test_loading_never_evaluates_text() -> None:
    data = finished_record()
    data["deck"] = "__import__('os').system('echo hacked')"
    assert refused(data).startswith("deck: deck spec")
    data = finished_record()
    data["actions"][0][3] = "__import__('os')"
    assert "no card" in refused(data)


# ----- the published JSON Schema -------------------------------------------


def schema_validator() -> Any:
    """A validator of the published schema file, built here straight from the file with
    jsonschema (not through the library's own loading code)."""
    import jsonschema

    schema = json.loads(kw.record_schema_path().read_text(encoding="utf-8"))
    jsonschema.Draft202012Validator.check_schema(schema)
    return jsonschema.Draft202012Validator(schema)


def test_the_schema_is_published_in_the_package_and_is_draft_2020_12() -> None:
    path = kw.record_schema_path()
    assert path.is_file() and path.parent.name == "schemas"
    assert path.parent.parent == Path(kw.__file__).parent
    schema = kw.record_schema()
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["properties"]["format"]["const"] == RECORD_FORMAT
    assert schema["properties"]["version"]["const"] == RECORD_VERSION
    assert set(schema["required"]) == set(
        kw.GameRecord.from_game(random_game(kw.RuleSet(), 1)).to_dict()
    )
    schema["title"] = "changed"
    assert kw.record_schema()["title"] != "changed"  # a fresh copy each call
    schema_validator()  # check_schema passes
    pyproject = (Path(__file__).resolve().parents[2] / "pyproject.toml").read_text(encoding="utf-8")
    assert '"schemas/*.json"' in pyproject and '"jsonschema' in pyproject


WRITERS = [
    (kw.RuleSet.preset(name), players, deck)
    for name in ("publisher", "dutch", "lamas", "fish")
    for players, deck in ((3, None), (4, None), (6, kw.Deck.standard()))
] + [
    (kw.RuleSet(memory_cards=4, bluffing=True), 3, None),
    (kw.RuleSet(draw_pile=True, bonus_turn=True, cards_each=5), 2, None),
    (kw.RuleSet(dealing="equal", memory_cards=3, tie_break="earliest_last_quartet"), 5, None),
    (kw.RuleSet(), 4, kw.Deck.themed("dutch_masters")),
    (kw.RuleSet(), 3, kw.Deck.piquet(families=1)),
]


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(WRITERS), st.integers(0, 2**256 - 1), st.integers(0, 200), st.booleans())
def test_every_record_the_library_writes_validates_against_the_schema(
    writer: tuple[kw.RuleSet, int, kw.Deck | None], seed: int, moves: int, dealt: bool
) -> None:
    rules, players, deck = writer
    if players == 2 and not rules.draw_pile:
        return
    game = kw.Game.deal(deck or kw.Deck.piquet(), list("ABCDEF"[:players]), seed=seed, rules=rules)
    rng = np.random.default_rng(seed % 2**32)
    for _ in range(moves):  # a game in progress or finished
        if game.is_over:
            break
        down = [i for i, c in enumerate(game.middle) if c is None]
        if down and game.view(game.to_move).may_turn_over and rng.random() < 0.3:  # type: ignore[arg-type]
            game.turn_over(down[0])
        else:
            game.play(game.random_legal_ask(rng))
    if not dealt:  # set up by hand: no seed in the record
        deal = game.initial_deal
        game = kw.Game(
            game.deck,
            game.players,
            deal["hands"],
            dealer=deal["dealer"],
            rules=rules,
            stock=deal["stock"],
            aside=deal["aside"],
            middle=deal["middle"],
        )
    text = kw.GameRecord.from_game(game).to_json()
    errors = list(schema_validator().iter_errors(json.loads(text)))
    assert not errors, [e.message for e in errors]
    assert kw.GameRecord.from_json(text).replay().events == game.events


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (
            lambda d: d["actions"][9].__setitem__(4, "yes"),
            "entry 10 ({a}): answer 'yes': expected true or false (at $.actions[9][4])",
        ),
        (lambda d: d["actions"][2].append(1), "entry 3 ("),
        (
            lambda d: d["actions"].__setitem__(6, ["ask", "A", "B", "", True]),
            "entry 7 (A asks B for ): card '': expected a card code such as 'QH'",
        ),
        (
            lambda d: d["actions"].__setitem__(6, ["ask", "Ä", "B", "QH", True]),
            "entry 7 (Ä asks B for QH): asker 'Ä': expected a player name of 1 to 40 ASCII",
        ),
        (lambda d: d["actions"].__setitem__(3, []), "entry 4 ([]): expected a list such as"),
        (
            lambda d: d["actions"].__setitem__(3, ["turn_over", "A", -1]),
            "entry 4 (A turns over middle card -1): slot -1: expected a middle slot number",
        ),
        (
            lambda d: d["actions"].__setitem__(3, ["turn_over", "A", 1.0]),
            "slot 1.0: expected a middle slot number",
        ),
        (
            lambda d: d["deal"]["hands"]["B"].__setitem__(2, 7),
            "deal: B's hand: card 3 7: expected a card code such as 'QH'",
        ),
        (
            lambda d: d["deal"]["hands"].__setitem__("Ω", []),
            "deal: hands: key 'Ω': expected a player name",
        ),
        (
            lambda d: d["deal"].__setitem__("stock", "QH"),
            "deal: stock: 'QH': expected a list of at most 256 card codes (at $.deal.stock)",
        ),
        (
            lambda d: d["deal"].pop("aside"),
            "deal: missing field(s) aside; expected an object with exactly",
        ),
        (lambda d: d["deal"].__setitem__("extra", 1), "deal: unknown field(s) 'extra'"),
        (
            lambda d: d["rules"].__setitem__("cards_each", 1.0),
            "rules: rule option cards_each=1.0: expected an integer from 1 to 256 (at $.rules.cards_each)",
        ),
        (
            lambda d: d["rules"].__setitem__("dealing", "diagonal"),
            "rules: rule option dealing='diagonal': expected 'all' or 'equal'",
        ),
        (lambda d: d["rules"].__setitem__("jokers", 2), "rules: unknown rule option(s) 'jokers'"),
        (
            lambda d: d.__setitem__("players", ["A", "B", "C", "D", "E", "F", "G"]),
            "players: ['A', 'B', 'C', 'D', 'E', 'F', ...]: expected a list of 2 to 6 unique player names",
        ),
        (
            lambda d: d.__setitem__("players", ["A", "A", "C", "D"]),
            "expected a list of 2 to 6 unique player names in seat order (at $.players)",
        ),
        (
            lambda d: d["players"].__setitem__(2, "x y"),
            "players: player 3 'x y': expected a player name",
        ),
        (
            lambda d: d.__setitem__("seed", 2**256),
            "seed: 115792089237316195...7584007913129639936: expected null, or the integer",
        ),
        (lambda d: d.__setitem__("seed", 7.0), "seed: 7.0: expected null, or the integer"),
        (lambda d: d.__setitem__("deck", ["piquet()"]), "deck: ['piquet()']: expected a deck spec"),
    ],
)
def test_broken_records_are_refused_naming_the_first_bad_entry_and_its_json_path(
    edit: Any, message: str
) -> None:
    data = finished_record()
    action = data["actions"][9]
    edit(data)
    data["actions"][-1][4] = not data["actions"][-1][4]  # a later error too: not the first
    text = refused(data)
    expected = message.format(a=f"{action[1]} asks {action[2]} for {action[3]}")
    assert expected in text, text
    assert " (at $" in text


def test_the_first_bad_entry_is_named_in_the_order_of_the_file() -> None:
    data = finished_record()
    data["actions"][30] = ["ask", "A"]
    data["actions"][5][4] = 0
    data["actions"][12] = "junk"
    assert refused(data).startswith("entry 6 (")
    data["seed"] = "x"  # seed comes before the actions in a record
    assert refused(data).startswith("seed: 'x'")


# ----- deep, huge and junk JSON never escapes as another error ------------------------


def test_deep_and_huge_records_are_record_errors(tmp_path: Path) -> None:
    assert "nested more than 8 levels" in refused("[" * 100_000 + "]" * 100_000)
    deep: Any = []
    for _ in range(100_000):
        deep = [deep]
    data = finished_record()
    data["actions"].append(deep)
    with pytest.raises(RecordError, match="nested more than 8 levels"):
        kw.GameRecord.from_dict(data)  # Python data, not text: still no RecursionError
    data = finished_record()
    data["seed"] = 10**5000
    with pytest.raises(RecordError, match="record: <an integer of about 5001 digits>: numbers"):
        kw.GameRecord.from_dict(data)
    for where in ('"seed": 7', '"version": 1', '"cards_each": 7'):
        text = json.dumps(finished_record()).replace(where, where.split(":")[0] + ": " + "9" * 5000)
        assert "a number of 5000 digits; numbers have at most 100 digits" in refused(text)
    assert "key 'seed' appears twice" in refused(
        json.dumps(finished_record())[:-1] + ', "seed": 7}'
    )
    assert "at most 10,000,000 are read" in refused(" " * 10_000_001)
    huge = tmp_path / "huge.json"
    with huge.open("wb") as handle:  # sparse: no 20 MB written
        handle.truncate(20_000_000)
    with pytest.raises(RecordError, match="huge.json: record: larger than 10,000,000 bytes"):
        kw.GameRecord.load(huge)
    with pytest.raises(RecordError, match="cannot read game record"):
        kw.GameRecord.load(tmp_path)  # a folder
    with pytest.raises(RecordError, match="cannot read game record"):
        kw.GameRecord.load(str(tmp_path / "nul\0.json"))
    many = finished_record()
    many["actions"] = many["actions"] * 2000  # 10**5 entries: refused at the first replay error
    with pytest.raises(RecordError, match="entry "):
        kw.GameRecord.from_dict(many)


def _junk() -> st.SearchStrategy[Any]:
    leaves = st.one_of(
        st.none(),
        st.booleans(),
        st.integers(-(10**30), 10**30),
        st.floats(allow_nan=False),
        st.text(max_size=8),
        st.sampled_from(["ask", "turn_over", "A", "B", "QH", "7S"]),
    )
    return st.recursive(
        leaves,
        lambda children: st.one_of(
            st.lists(children, max_size=5),
            st.dictionaries(st.text(max_size=6), children, max_size=5),
        ),
        max_leaves=20,
    )


@settings(max_examples=300, deadline=None)
@given(_junk())
def test_random_junk_json_is_a_record_error(junk: Any) -> None:
    with pytest.raises(RecordError):
        kw.GameRecord.from_json(json.dumps(junk))


def _paths(node: Any, path: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [path]
    if isinstance(node, dict):
        for key, value in node.items():
            found += _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            found += _paths(value, (*path, index))
    return found


FINISHED = finished_record()
FINISHED_PATHS = _paths(FINISHED)[1:]


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(FINISHED_PATHS), _junk())
def test_a_record_with_any_one_value_replaced_by_junk_loads_or_is_a_record_error(
    path: tuple[Any, ...], junk: Any
) -> None:
    data = json.loads(json.dumps(FINISHED))
    node = data
    for step in path[:-1]:
        node = node[step]
    node[path[-1]] = junk
    text = json.dumps(data)
    try:
        record = kw.GameRecord.from_json(text)
    except RecordError as err:
        assert str(err)  # a message, and nothing else escaped
        return
    # Accepted: then it is a valid record and a legal game.
    assert not list(schema_validator().iter_errors(json.loads(record.to_json())))


def _near_actions() -> st.SearchStrategy[Any]:
    part = st.one_of(
        st.sampled_from(["ask", "turn_over", "A", "B", "QH", "", "A\n", "Ä", "x" * 41, "c" * 301]),
        st.text(max_size=5),
        st.booleans(),
        st.integers(-3, 300),
        st.floats(-1, 300),
        st.none(),
    )
    return st.one_of(
        st.lists(part, max_size=6),
        st.tuples(st.just("ask"), part, part, part, part).map(list),
        st.tuples(st.just("turn_over"), part, part).map(list),
        part,
    )


@settings(max_examples=1000, deadline=None)
@given(_near_actions())
def test_the_fast_check_of_actions_accepts_nothing_the_schema_refuses(entry: Any) -> None:
    if is_plain_action(entry):
        assert schema_validator().is_valid({**FINISHED, "actions": [entry]})


def test_every_action_the_library_writes_takes_the_fast_check() -> None:
    for rules in RULES:
        game = random_game(rules, 5)
        assert all(is_plain_action(list(a)) for a in game.actions)


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (5, "actions 5: expected a list of actions"),
        ("ask", "actions 'ask': expected a list"),
        ([5], "entry 1 (5): expected an action"),
        (
            [("ask", ["A"], "B", "QH", True)],
            "entry 1 (['A'] asks B for QH): asker, target and card must be text",
        ),
        ([("ask", "A", "B", {"x": 1}, True)], "must be text"),
        ([("turn_over", "A", True)], "expected ('turn_over', player, slot number)"),
    ],
)
def test_records_built_in_python_with_junk_actions_are_record_errors(
    actions: Any, message: str
) -> None:
    record = kw.GameRecord.from_game(random_game(kw.RuleSet(memory_cards=2), 2))
    before = record.to_json()
    with pytest.raises(RecordError) as info:
        record.with_actions(actions).replay()
    assert message in str(info.value)
    assert record.to_json() == before


def test_a_record_built_in_python_with_junk_fields_is_a_record_error() -> None:
    record = kw.GameRecord.from_game(random_game(kw.RuleSet(), 2))
    for change in (
        {"players": ("A", "B", "C", "D", "E", "F", "G")},
        {"players": (["A"], "B", "C", "D")},
        {"hands": (("7S",),)},
        {"dealer": ["A"]},
        {"deck": "piquet()"},
        {"rules": {"bluffing": True}},
        {"stock": 5},
        {"seed": "7"},
    ):
        with pytest.raises(RecordError):
            dataclasses.replace(record, **change).replay()  # type: ignore[arg-type]
