"""Game records: JSON round trips, replays, and corrupt or tampered records refused."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.errors import RecordError
from kwartet_epistemic.record import RECORD_FORMAT, RECORD_VERSION


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
        (["ask", "A", "B"], "an ask has 5 parts"),
        (["ask", "A", "B", "QH", 1], "answer 1: expected true or false"),
        (["ask", "A", "B", "QX", False], "no card 'QX'"),
        (["fold", "A"], "unknown action 'fold'"),
        ({"ask": "A"}, "expected a list"),
        (["turn_over", "MOVER", 0], "there are no middle cards"),
        (["turn_over", "A", "0"], "expected ('turn_over', player, slot number)"),
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
