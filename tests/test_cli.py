"""The `kwartet` command: play with piped input, simulate, replay, demo, and bad input."""

from __future__ import annotations

import io
import json
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.cli import deck_from_option, main, rules_from_options
from kwartet_epistemic.demo import run_demo
from kwartet_epistemic.opponents import (
    RandomPlayer,
    make_opponent,
    opponent_names,
    register_opponent,
)
from kwartet_epistemic.play import Session


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
    # the hand in the narration's card symbols
    assert "Your hand (8): eights: 8♥ | tens: 10♦ 10♣ | jacks: J♦ J♣ | kings: K♠ K♥ | aces: A♠" in (
        out
    )
    assert "Hand sizes: A 8 (you), B 8, C 8, D 8" in out
    assert "Quartets laid down: none yet" in out
    assert "save FILE" in out  # the help text
    assert "Not allowed: A may not ask for QH: A holds no card of the queens" in out
    assert "Unknown command 'foo': type 'help' for the commands" in out
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
    assert "Final score (quartets):" in out
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


def test_the_player_registry_has_random_and_can_be_extended() -> None:
    assert "random" in kw.player_names()
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=1)
    player = kw.make_player("Random", game.to_move or "", np.random.default_rng(0))
    assert player.choose(game.view(game.to_move or "")) in game.legal_asks()

    class FirstAsk:
        def __init__(self, name: str, rng: np.random.Generator) -> None:
            self.name = name

        def choose(self, view: kw.PlayerView) -> kw.Ask:
            return view.legal_asks()[0]

    kw.register_player("first_test_only", FirstAsk, replace=True)
    assert "first_test_only" in kw.player_names()
    made = kw.make_player("first_test_only", "A", np.random.default_rng(0))
    assert made.choose(game.view(game.to_move or "")) == game.legal_asks()[0]
    with pytest.raises(kw.GameSetupError, match="already registered"):
        kw.register_player("first_test_only", FirstAsk)
    with pytest.raises(kw.GameSetupError, match="plain computer player"):
        kw.make_agent("first_test_only", "A")


def test_the_old_opponent_functions_warn_and_use_the_one_registry() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=1)
    seat = game.to_move or ""
    with pytest.warns(DeprecationWarning, match="one player registry"):
        assert opponent_names() == kw.player_names()
    with pytest.warns(DeprecationWarning, match="the one constructor"):
        assert isinstance(make_opponent("random", seat, np.random.default_rng(0)), RandomPlayer)
    with pytest.warns(DeprecationWarning, match="the one constructor"):
        assert isinstance(make_opponent("knowledge", seat, np.random.default_rng(0)), kw.Agent)
    with pytest.warns(DeprecationWarning, match="one player registry"):
        register_opponent("coin_test_only", RandomPlayer, replace=True)
    assert "coin_test_only" in kw.player_names()


# ----- play teaches --------------------------------------------------------


@dataclass
class Scripted:
    """A computer player that makes the given asks in order."""

    player: str
    asks: list[str]

    def choose(self, view: kw.PlayerView) -> kw.Ask:
        target, card = self.asks.pop(0).split()
        return kw.Ask(self.player, target, view.deck.card(card))


def session_output(game: kw.Game, opponents: dict[str, Scripted], lines: str) -> str:
    out = io.StringIO()
    assert Session(game, "A", opponents, io.StringIO(lines), out, None).run() == 0
    return out.getvalue()


def small_game() -> kw.Game:
    # Two families, three players: A holds 7S 8S, B 7H 8H 8D, C 7D 7C 8C.
    hands = {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]}
    return kw.Game.from_hands(kw.Deck.piquet(families=2), hands, first="A")


def test_play_tells_each_move_with_what_it_teaches_from_your_seat() -> None:
    game = small_game()
    # A asks B for 7D: no.  B asks C for 7D: yes; B asks A for 7C: no, A's turn.
    opponents = {"B": Scripted("B", ["C 7D", "A 7C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "B 7D\nquit\n")
    lines = out.splitlines()
    assert lines[0] == "  0. C deals 8 cards: A 2, B 3, C 3. A's turn."
    move1 = lines.index("  1. A asks B: may I have the seven of diamonds? B: no. B's turn.")
    # The table learns B's refusal; as A cannot see C's hand the rest is what A works out:
    # A and B hold no 7D, so C does (and everyone can tell).
    assert lines[move1 + 1 : move1 + 3] == [
        "       B has no 7♦.",
        "       It is now common knowledge that C holds 7♦.",
    ]
    assert "  2. B asks C: may I have the seven of diamonds? C: yes." in out
    assert "  3. B asks A: may I have the seven of clubs? A: no. A's turn." in out
    assert "       Everyone now knows you have no 7♣." in out


def test_play_tells_what_the_others_know_about_your_hand() -> None:
    game = small_game()
    # A asks B for 7C: no (so C holds 7C).  B asks A for 8C: no.  A asks B for 7D: no (so
    # C holds 7D, and A holds a seven other than 7D).  B holds 7H, 8H and 8D, as A can work
    # out: so B now knows A's two cards are 7S and 8S, and A can be sure of it.
    opponents = {"B": Scripted("B", ["A 8C", "A 8C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "B 7C\nB 7D\nquit\n")
    move3 = out.split("  3. A asks B: may I have the seven of diamonds? B: no. B's turn.\n")[1]
    assert move3.startswith(
        "       B has no 7♦.\n"
        "       It is now common knowledge that C holds 7♦.\n"
        "       Now B knows you hold 7♠ and 8♠.\n"
    )  # fmt: skip
    state = kw.knowledge(game)
    assert state.holds("K_A K_B has(A, 7S) & K_A K_B has(A, 8S)")
    assert not state.holds("K_C has(A, 7S)")
    assert "C knows you hold" not in out  # C cannot tell 7S from 7H


def test_play_commands_worlds_chances_knows_log_why(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.json"
    commands = "worlds\nchances\nknows\nknows b\nwhy AC\nwhy 7S\nlog\nhelp\n"
    argv = ["play", "--seed", "3", "--opponents", "higher_order", "--save", str(path)]
    status, out, _ = run(argv, capsys, monkeypatch, commands + "quit\n")
    assert status == 0
    game = kw.Game.load(path)
    assert len(game.actions) == 2  # B asks D for AC (yes), then A for AH (no): A's turn
    state = kw.knowledge(game)
    # worlds: every player's exact count, and the public record's
    for player in game.players:
        label = f"{player} (you)" if player == "A" else player
        assert re.search(rf"^  {re.escape(label)} +{state.count_worlds(player):,}$", out, re.M)
    assert re.search(rf"^  public record +{state.count_worlds():,}$", out, re.M)
    # chances: A's exact probabilities, in percent, one row per card A cannot see
    table = out.split("A> chances\n")[1].split("A> ")[0].splitlines()
    assert table[1].split() == ["B", "C", "D"] * 3
    probabilities = state.location_probabilities("A")
    cells = {}
    for row in table[2:]:
        for found in re.finditer(r"(\S+) +(\S+) +(\S+) +(\S+)", row):
            cells[found.group(1)] = found.groups()[1:]
    assert len(cells) == 24 and "7♠" not in cells  # A's own cards are left out
    assert cells["A♣"] == ("100", ".", ".")  # B took it from D at move 1
    for card in game.deck.cards:
        if card.symbol in cells:
            for seat, shown in zip((1, 2, 3), cells[card.symbol], strict=True):
                p = float(probabilities[card.index, seat])
                assert shown == ("." if p == 0 else "100" if p == 1 else str(round(100 * p)))
    # knows: the cards A has located and the move that settled each
    assert "A> knows\nYou know where 1 card outside your hand is:\n  B: A♣ (move 1)\n" in out
    assert state.knows_location("A", "AC") == "B"
    assert "You can be sure B knows where 0 cards outside B's hand are." in out
    # why: the explanation of the epistemic state when there is one
    if hasattr(state, "explain"):
        assert str(state.explain("A", game.deck.card("AC"))) in out
    else:
        assert "You know B holds A♣ (since move 1)." in out
    assert "7♠ is in your hand." in out or (hasattr(state, "explain") and "A> why 7S\n" in out)
    # log: numbered moves
    log = out.split("A> log\n")[1].split("A> ")[0].splitlines()
    assert log == [
        "  0. A deals 32 cards: A 8, B 8, C 8, D 8. B's turn.",
        "  1. B asks D: may I have the ace of clubs? D: yes. D gives the ace of clubs to B.",
        "  2. B asks A: may I have the ace of hearts? A: no. A's turn.",
    ]
    assert "knows [PLAYER]" in out and "why CARD" in out and "chances" in out  # help


def test_play_knows_another_player_lists_only_what_you_can_be_sure_of() -> None:
    game = small_game()
    # A asks B for 7D: no, so C holds 7D (public).  B asks A for 8C: no, A's turn.
    opponents = {"B": Scripted("B", ["A 8C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "B 7D\nknows B\nknows C\nknows\nquit\n")
    about_b = out.split("A> knows B\n")[1].split("A> ")[0]
    assert about_b.startswith("You can be sure B knows where ")
    assert "  C: 7♦ (move 1)" in about_b
    about_c = out.split("A> knows C\n")[1].split("A> ")[0]
    assert "7♦" not in about_c  # C's own card is not listed as located by C
    state = kw.knowledge(game)
    for section, player in ((about_b, "B"), (about_c, "C")):
        for holder, cards in re.findall(r"^  (you|[ABC]): (.+)$", section, re.M):
            owner = "A" if holder == "you" else holder
            for card in re.findall(r"(\S+) \((?:move \d+|dealt)\)", cards):
                code = next(c.code for c in game.deck.cards if c.symbol == card)
                assert state.holds(f"K_A K_{player} has({owner}, {code})")


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_the_tutor_with_a_draw_pile_claims_only_what_is_true(seed: int) -> None:
    """With a draw pile the tutor does not ask the nested query (the symbolic engine
    would take minutes per move): every "you can be sure P knows" it claims, checked
    here with that query on a small game, holds; the public record's places count only
    while few cards have been drawn."""
    from kwartet_epistemic.play import PUBLIC_DRAWS, Tutor

    rules = kw.RuleSet.preset("fish").replace(cards_each=2)
    game = kw.Game.deal(kw.Deck.piquet(families=4), ["A", "B", "C"], seed=seed, rules=rules)
    tutor = Tutor(game, "A")
    rng = np.random.default_rng(seed)
    while not game.is_over and len(game.record) < 40:
        start = len(game.record)
        game.play(game.random_legal_ask(rng))
        tutor.follow(game.record[start:])
        moment = tutor.moments[-1]
        if not tutor.counts_public():
            assert (moment.public_known == moment.exposed).all()
        state = kw.knowledge(game)
        for seat, player in enumerate(game.players[1:], start=1):
            for card in game.deck.cards:
                owner = int(moment.holder[card.index])
                if moment.known[seat, card.index] and owner >= 0 and owner != seat:
                    claim = f"K_A K_{player} has({game.players[owner]}, {card.code})"
                    assert state.holds(claim), claim
    drawn = sum(isinstance(e, kw.events.Drew) for e in game.record)
    assert drawn > 0 and tutor.counts_public() == (drawn <= PUBLIC_DRAWS)


def test_play_hints_before_repeating_a_refused_ask_and_asks_when_told_twice() -> None:
    game = small_game()
    # A asks C for 8C: yes, A goes on; A asks B for 8H... use asks that fail: A asks B for
    # 8C (no: C holds it).  B asks A for 7S?  That would be yes; B asks A for 8C: no, A's
    # turn.  B received no card in between, so asking B for 8C again gets the hint.
    opponents = {"B": Scripted("B", ["A 8C", "A 8C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "B 8C\nB 8C\nB 8C\nquit\n")
    hint = (
        "Hint: you asked B for 8♣ at move 1 and B said no; nothing since could have "
        "brought 8♣ to B, so B still has no 8♣.\nType the ask again to ask anyway, or choose another "
        "('asks' lists them).\n"
    )
    assert out.count(hint) == 1
    after_hint = out.split(hint)[1]
    assert after_hint.startswith("A> B 8C\n  3. A asks B: may I have the eight of clubs? B: no.")
    assert out.count("A asks B: may I have the eight of clubs?") == 2  # the hint asked nothing


def test_play_gives_no_hint_once_the_card_has_moved_since_the_refusal() -> None:
    game = small_game()
    # A asks B for 7C: no.  B asks C for 7C: yes (now B holds it), B asks A for 8C: no.
    opponents = {"B": Scripted("B", ["C 7C", "A 8C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "B 7C\nB 7C\nquit\n")
    assert "Hint" not in out
    assert "  4. A asks B: may I have the seven of clubs? B: yes." in out


def test_play_hints_when_you_can_work_out_the_answer_is_no() -> None:
    game = small_game()
    # A asks B for 7D: no.  B asks A for 8C: no, so B holds no 8C (nobody bluffs).
    opponents = {"B": Scripted("B", ["A 8C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "B 7D\nB 8C\nquit\n")
    assert "Hint: you can work out that B has no 8♣ (type 'why 8C').\n" in out
    assert "A asks B: may I have the eight of clubs?" not in out
    assert float(kw.knowledge(game).location_probabilities("A")[7, 1]) == 0.0  # 8C, B


def test_play_bad_commands_name_the_input_and_change_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "g.json"
    bad = "knows Z\nwhy\nwhy XX\nworlds now\nchances 3\nlog all\nturn\nturn x\nfoo bar\n"
    argv = ["play", "--seed", "7", "--opponents", "random", "--save", str(path)]
    status, out, _ = run(argv, capsys, monkeypatch, bad + "quit\n")
    assert status == 0
    for message in (
        "knows 'Z': expected a player, one of A, B, C, D",
        "why needs a card: why CARD, e.g. why QH",
        "why 'XX': expected a card of this deck (no card 'XX' in Deck.piquet()",
        "worlds 'now': worlds takes nothing after it; type just worlds",
        "chances '3': chances takes nothing after it; type just chances",
        "log 'all': log takes nothing after it; type just log",
        "turn needs a middle slot number: turn N",
        "turn 'x': expected a middle slot number, turn N",
        "Unknown command 'foo': type 'help' for the commands, or an ask such as 'B QH'.",
    ):
        assert message in out
    assert kw.Game.load(path).actions == ()  # seed 7: A moves first, and nothing was played


def test_play_ends_with_the_last_moves_and_the_final_score(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    deck = kw.Deck.piquet(families=3)
    every_ask = [f"{p} {c.code}" for p in "BC" for c in deck.cards]
    moves = "\n".join(every_ask * 60) + "\n"
    argv = ["play", "--players", "3", "--deck", "piquet:3", "--seed", "5"]
    status, out, _ = run(argv + ["--opponents", "knowledge"], capsys, monkeypatch, moves)
    assert status == 0
    head, summary = out.split("\nGame over after ")
    numbers = [int(m) for m in re.findall(r"^ *(\d+)\. ", head, re.M)]
    assert numbers == list(range(len(numbers)))  # every move told, none hidden
    assert summary.startswith(f"{numbers[-1]} moves. Final score (quartets):\n")
    assert "earlier lines" not in out
    scores = dict(re.findall(r"^  ([ABC])(?: \(you\))? +(\d)", summary, re.M))
    assert sorted(scores) == ["A", "B", "C"] and sum(map(int, scores.values())) == 3
    assert re.search(r"(You win!|You share the win\.|[BC]( and [BC])? (wins|share the win)\.)\n$",
                     summary)  # fmt: skip


def test_play_default_opponents_search_with_a_time_budget(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    status, out, _ = run(["play", "--seed", "7"], capsys, monkeypatch, "quit\n")
    assert status == 0
    assert "opponents B (search[ms=300]), C (search[ms=300]), D (search[ms=300])" in out
    agent = make_player("search[ms=300]", "B")
    assert agent.policy.milliseconds == 300


def test_play_reads_an_ask_typed_with_the_word_ask() -> None:
    game = small_game()
    opponents = {"B": Scripted("B", ["A 8C"]), "C": Scripted("C", [])}
    out = session_output(game, opponents, "ask B 7D\nquit\n")
    assert "A asks B: may I have the seven of diamonds? B: no." in out
    assert "Not allowed" not in out


@pytest.mark.parametrize("word", ["clear", "ls", "cls", "exit()", "hello there", "may I"])
def test_play_words_that_are_no_command_are_unknown_commands_not_players(
    word: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["play", "--seed", "7", "--opponents", "random"]
    status, out, _ = run(argv, capsys, monkeypatch, word + "\nquit\n")
    assert status == 0
    first = word.split()[0]
    assert f"Unknown command {first!r}: type 'help' for the commands" in out
    assert "is not a player" not in out


def test_play_pauses_between_computer_turns_and_sums_up_the_wait() -> None:
    """With the step pace, the computer players' moves come a turn at a time: Enter shows
    the next turn, 'rest' the rest; then one line says what the human learnt."""
    game = small_game()
    # A asks B for 7D: no.  B asks C for 7D: yes, then A for 7C: no; A's turn.
    opponents = {"B": Scripted("B", ["C 7D", "A 7C"]), "C": Scripted("C", [])}
    out = io.StringIO()
    session = Session(game, "A", opponents, io.StringIO("B 7D\nquit\n"), out, None, "step")
    session.run()
    text = out.getvalue()
    # measured from the end of A's own move (A had learnt 1 card and 10 worlds by then)
    assert (
        "While the others played (2 moves): you know where 3 of the 6 cards you cannot see "
        "are (before: 1 of 6); you consider 3 worlds possible (before: 10)."
    ) in text
    # a turn of C in between makes a pause; here B moved twice and then it was A's turn
    game = small_game()
    # A asks B for 7D: no.  B asks C for 8S: no (C's turn: a pause).  C asks A for 8H: no.
    opponents = {"B": Scripted("B", ["C 8S"]), "C": Scripted("C", ["A 8H"])}
    steps = io.StringIO("B 7D\n\nquit\n")  # the ask, Enter at the pause, quit
    out = io.StringIO()
    Session(game, "A", opponents, steps, out, None, "step").run()
    text = out.getvalue()
    assert "(C's turn next: Enter for it, 'rest' for all moves up to yours, 'quit' to stop)" in text
    before, _, after = text.partition("C's turn next")
    assert "B asks C" in before and "C asks A" in after  # C's turn came after the Enter
    with pytest.raises(kw.GameSetupError, match="pace 'slow'"):
        Session(small_game(), "A", {}, io.StringIO(""), io.StringIO(), None, "slow")


def test_why_gives_percentages_as_chances_does(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    argv = ["play", "--seed", "7", "--opponents", "random"]
    _, out, _ = run(argv, capsys, monkeypatch, "why QH\nquit\n")
    line = next(x for x in out.splitlines() if "does not know where Q♥ is" in x)
    parts = line.split(": ", 1)[1].rstrip(".").split(", ")
    assert [p.split()[0] for p in parts] == ["B", "C", "D"]
    for part in parts:
        fraction, percent = part.split()[1], part.split()[2]
        value = Fraction(fraction)
        assert percent == f"({round(100 * value)}%)"
