"""The `kwartet` command: play with piped input, simulate, replay, demo, and bad input."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.cli import deck_from_option, main, rules_from_options
from kwartet_epistemic.demo import run_demo
from kwartet_epistemic.opponents import make_opponent, opponent_names, register_opponent


def run(
    argv: list[str],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    stdin: str = "",
) -> tuple[int, str, str]:
    monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
    status = main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def assert_one_line_error(status: int, err: str, text: str) -> None:
    assert status == 2
    assert err.startswith("kwartet: error: ") and text in err
    assert err.count("\n") == 1 and "Traceback" not in err


# ----- help ---------------------------------------------------------------------------


@pytest.mark.parametrize("command", [[], ["play"], ["simulate"], ["replay"], ["demo"]])
def test_every_subcommand_has_help(
    command: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = run([*command, "--help"], capsys, monkeypatch)
    assert status == 0 and out.startswith("usage: kwartet")


def test_no_subcommand_prints_usage_and_fails(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, _, err = run([], capsys, monkeypatch)
    assert status == 2 and "play" in err and "simulate" in err


def test_the_installed_entry_point_runs() -> None:
    script = shutil.which("kwartet")  # installed by pip install -e . ([project.scripts])
    command = [script] if script else [sys.executable, "-m", "kwartet_epistemic.cli"]
    done = subprocess.run(
        [*command, "demo", "--seed", "1", "--no-figures"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0 and "Game over" in done.stdout
    bad = subprocess.run(
        [*command, "simulate", "--rules", "poker"], capture_output=True, text=True, timeout=60
    )
    assert bad.returncode == 2 and bad.stderr.startswith("kwartet: error: rule preset 'poker'")


# ----- demo ---------------------------------------------------------------------------


def test_demo_prints_a_header_and_the_transcript_of_a_finished_game(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = run(["demo", "--seed", "7", "--no-figures"], capsys, monkeypatch)
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith("Kwartet demo, seed 7: 4 players (A, B, C, D)")
    assert "32 cards" in lines[0]
    assert lines[-1].startswith("Game over. Quartets: ")
    game = run_demo(7, io.StringIO())
    assert game.is_over and sum(game.scores.values()) == 8
    # The story interleaves what the table learns with the transcript, in order.
    position = 0
    for line in game.transcript().splitlines():
        position = out.index(line, position) + len(line)
    again = io.StringIO()
    run_demo(7, again)
    assert again.getvalue() == out  # the same seed prints the same game


# ----- simulate -----------------------------------------------------------------------


def simulated(out: str) -> dict[str, float]:
    rates = {m[0]: float(m[1]) for m in re.findall(r"^  ([A-F])\s+([\d.]+)%", out, re.M)}
    return rates


def test_simulate_prints_win_rates_that_add_up_game_length_and_speed(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["simulate", "--players", "4", "--games", "40", "--seed", "1", "--no-progress"]
    status, out, err = run(argv, capsys, monkeypatch)
    assert status == 0 and err == ""
    rates = simulated(out)
    assert list(rates) == ["A", "B", "C", "D"]
    assert sum(rates.values()) == pytest.approx(100, abs=0.3)  # shared wins are split
    assert re.search(r"Mean game length: \d+\.\d asks", out)
    assert re.search(r"Speed: \d+ games per second", out)
    status, again, _ = run(argv, capsys, monkeypatch)
    strip = re.compile(r"^Speed:.*$", re.M)
    assert strip.sub("", again) == strip.sub("", out)  # the seed fixes every game


def test_simulate_shows_a_progress_bar_on_stderr_and_takes_rules_and_decks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["simulate", "--players", "3", "--games", "5", "--seed", "2", "--rules", "dutch"]
    status, out, err = run([*argv, "--deck", "standard"], capsys, monkeypatch)
    assert status == 0 and "dutch rules" in out and "52 cards" in out
    assert "5/5" in err  # tqdm
    status, out, _ = run(
        ["simulate", "--players", "2", "--games", "3", "--rules", "fish", "--no-progress"],
        capsys,
        monkeypatch,
    )
    assert status == 0 and list(simulated(out)) == ["A", "B"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["simulate", "--players", "2", "--games", "3"], "2 players"),
        (["simulate", "--players", "7", "--games", "3"], "7 players"),
        (["simulate", "--rules", "poker", "--games", "3"], "rule preset 'poker'"),
        (["simulate", "--deck", "tarot", "--games", "3"], "themed pack 'tarot'"),
        (["simulate", "--option", "jokers=2", "--games", "3"], "unknown rule option"),
        (["simulate", "--option", "memory", "--games", "3"], "expected KEY=VALUE"),
        (["replay", "/no/such/file.json"], "cannot read game record"),
        (["play", "--opponents", "genius"], "unknown opponent 'genius'"),
        (["play", "--opponents", "random,random"], "give one name for all or 3 names"),
        (["play", "--name", "A B"], "player name 'A B'"),
    ],
)
def test_bad_input_is_one_line_on_stderr_and_status_2(
    argv: list[str],
    message: str,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    status, _, err = run(argv, capsys, monkeypatch)
    assert_one_line_error(status, err, message)


@pytest.mark.parametrize(
    "argv", [["simulate", "--games", "0"], ["demo", "--seed", "-1"], ["play", "--players", "x"]]
)
def test_bad_option_values_are_usage_errors(
    argv: list[str], capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, _, err = run(argv, capsys, monkeypatch)
    assert status == 2 and "usage: kwartet" in err and "Traceback" not in err


# ----- replay -------------------------------------------------------------------------


def finished_game(rules: kw.RuleSet, seed: int) -> kw.Game:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    while not game.is_over:
        game.play(game.random_legal_ask(rng))
    return game


def test_replay_prints_the_transcript_and_a_players_view(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    game = finished_game(kw.RuleSet.preset("fish"), 4)
    path = tmp_path / "game.json"
    game.save(path)
    status, out, _ = run(["replay", str(path)], capsys, monkeypatch)
    assert status == 0
    header, _, body = out.partition("\n")
    assert "players A, B, C, D, fish rules" in header and "seed 4" in header
    assert body == game.transcript() + "\n"
    status, out, _ = run(["replay", str(path), "--view", "B"], capsys, monkeypatch)
    assert out.partition("\n")[2] == game.view("B").transcript() + "\n"
    assert "A draws a card" in out or "C draws a card" in out or "D draws a card" in out


def test_replay_of_a_tampered_record_names_the_bad_entry(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    data = json.loads(kw.GameRecord.from_game(finished_game(kw.RuleSet(), 2)).to_json())
    data["actions"][2][4] = not data["actions"][2][4]
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    status, _, err = run(["replay", str(path)], capsys, monkeypatch)
    assert_one_line_error(status, err, "entry 3 (")


# ----- play ---------------------------------------------------------------------------


def test_play_shows_the_hand_by_family_and_refuses_bad_asks_with_the_reason(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # Seed 7: A (the human) holds 8H 10D 10C JD JC KS KH AS and moves first.
    moves = "help\nB QH\nfoo bar\nB 8H\nasks\nD, may I have the king of diamonds?\nquit\n"
    argv = ["play", "--seed", "7", "--opponents", "random"]
    status, out, _ = run(argv, capsys, monkeypatch, moves)
    assert status == 0
    assert out.startswith("Kwartet: you are A; opponents B (random), C (random), D (random)")
    assert "Your hand (8): eights: 8H | tens: 10D 10C | jacks: JD JC | kings: KS KH | aces: AS" in (
        out
    )
    assert "Hand sizes: A 8 (you), B 8, C 8, D 8" in out
    assert "Quartets laid down: none yet" in out
    assert "save FILE" in out  # the help text
    assert "Not allowed: A may not ask for QH: A holds no card of the queens" in out
    assert "Not allowed: ask 'foo bar': 'foo' is not a player" in out
    assert "Not allowed: A may not ask for 8H: A holds it already" in out
    assert "  B 8S 8D 8C 10S 10H JS JH KD KC AH AD AC" in out  # the legal asks of A
    assert "A asks D: may I have the king of diamonds? D: yes." in out
    assert out.rstrip().endswith("Stopping the game.")


def test_play_to_the_end_with_piped_input_and_save_the_record(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deck = kw.Deck.piquet(families=3)
    every_ask = [f"{p} {c.code}" for p in "BC" for c in deck.cards]
    moves = "\n".join(every_ask * 60) + "\n"  # illegal ones are refused, legal ones played
    path = tmp_path / "played.json"
    argv = ["play", "--players", "3", "--deck", "piquet:3", "--seed", "5", "--save", str(path)]
    status, out, _ = run(argv, capsys, monkeypatch, moves)
    assert status == 0
    assert "Game over. Quartets: " in out
    assert re.search(r"(You win!|You share the win\.|[BC]( and [BC])? (wins|share the win)\.)", out)
    game = kw.Game.load(path)
    assert game.is_over and sum(game.scores.values()) == 3
    assert f"Saved the game to {path}" in out


def test_play_save_command_and_end_of_input_keep_the_game(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "mid.json"
    moves = f"D KD\nsave\nsave {path}\n"  # no quit: the input just ends
    status, out, _ = run(["play", "--seed", "7"], capsys, monkeypatch, moves)
    assert status == 0
    assert "save needs a file name" in out and "Input ended" in out
    game = kw.Game.load(path)
    assert game.actions[0] == ("ask", "A", "D", "KD", True)


def test_play_memory_kwartet_turn_command(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    moves = "turn 1\nturn 2\nturn x\nquit\n"
    argv = ["play", "--seed", "3", "--option", "memory_cards=4", "--players", "3"]
    argv += ["--name", "Ann", "--deck", "animals", "--opponents", "random"]
    status, out, _ = run(argv, capsys, monkeypatch, moves)
    assert status == 0
    assert "you are Ann; opponents A (random), B (random)" in out
    assert "Middle: [0] face down, [1] face down, [2] face down, [3] face down" in out
    assert "Ann turns over middle card 1: the " in out
    assert "already turned over a middle card this turn" in out
    assert "turn 'x': expected a middle slot number, turn N" in out


def test_play_without_memory_cards_refuses_turn(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = run(["play", "--seed", "7"], capsys, monkeypatch, "turn 0\nquit\n")
    assert status == 0 and "Not allowed: there are no middle cards" in out


# ----- options and the opponent registry ------------------------------------------------


def test_deck_and_rule_options() -> None:
    assert deck_from_option("standard:10") == kw.Deck.standard(families=10)
    assert deck_from_option("piquet(families=5)") == kw.Deck.piquet(families=5)
    assert deck_from_option("Dutch_Masters") == kw.Deck.themed("dutch_masters")
    with pytest.raises(kw.GameSetupError):
        deck_from_option("piquet:x")
    with pytest.raises(kw.GameSetupError):
        deck_from_option("33")
    rules = rules_from_options("fish", ["bonus_turn=yes", "cards_each=5"])
    assert rules == kw.RuleSet(draw_pile=True, cards_each=5, bonus_turn=True)


def test_opponent_registry_has_random_and_can_be_extended() -> None:
    assert "random" in opponent_names()
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=1)
    player = make_opponent("Random", game.to_move or "", np.random.default_rng(0))
    assert player.choose(game.view(game.to_move or "")) in game.legal_asks()

    class FirstAsk:
        def __init__(self, name: str, rng: np.random.Generator) -> None:
            self.name = name

        def choose(self, view: kw.PlayerView) -> kw.Ask:
            return view.legal_asks()[0]

    register_opponent("first_test_only", FirstAsk)
    try:
        assert "first_test_only" in opponent_names()
        assert (
            make_opponent("first_test_only", "A", np.random.default_rng(0)).choose(
                game.view(game.to_move or "")
            )
            == game.legal_asks()[0]
        )
    finally:
        from kwartet_epistemic import opponents

        opponents._REGISTRY.pop("first_test_only")
