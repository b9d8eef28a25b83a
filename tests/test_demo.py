"""The demo: the game it plays, every sentence of what the table learns checked against the
epistemic state, the figures it writes, and `kwartet demo --out`."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from PIL import Image

import kwartet_epistemic as kw
from kwartet_epistemic.cli import main
from kwartet_epistemic.demo import DEMO_AGENTS, demo_agent, narrate, run_demo
from kwartet_epistemic.viz import game_progress


@pytest.fixture(scope="module")
def told() -> tuple[kw.Game, str]:
    out = io.StringIO()
    game = run_demo(5, out)
    return game, out.getvalue()


def test_the_demo_plays_the_strongest_agent_to_the_end_and_tells_every_move(
    told: tuple[kw.Game, str],
) -> None:
    game, text = told
    assert game.is_over and sum(game.scores.values()) == 8
    first = text.splitlines()[0]
    assert first.startswith("Kwartet demo, seed 5: 4 players (A, B, C, D)")
    assert f"'{demo_agent()}' agent" in first and demo_agent() == DEMO_AGENTS[0]
    assert all(line in text for line in game.transcript().splitlines())
    assert text.rstrip().endswith(game.events[-1].sentence())
    again = io.StringIO()
    run_demo(5, again)
    assert again.getvalue() == text  # the same seed tells the same story


def test_every_learned_fact_is_true_and_new(told: tuple[kw.Game, str]) -> None:
    game, _ = told
    progress = game_progress(game)
    record = kw.GameRecord.from_game(game)
    checked = 0
    for step in range(1, progress.n_steps + 1):
        sentences = narrate(progress, step)
        if not sentences:
            continue
        before = kw.knowledge(record.with_actions(record.actions[: step - 1]).replay())
        after = kw.knowledge(record.with_actions(record.actions[:step]).replay())
        for sentence in sentences:
            if match := re.fullmatch(r"Now (.+) knows? (\w) holds (.+)\.", sentence):
                who, holder, cards = match.groups()
                learners = (
                    [p for p in game.players if p != holder]
                    if who == "everyone"
                    else re.split(r", | and ", who)
                )
                for card in re.split(r", | and ", cards):
                    for player in learners:
                        assert after.knows_location(player, card) == holder, sentence
                        assert before.knows_location(player, card) != holder, sentence
                    checked += 1
            elif match := re.fullmatch(
                r"It is now common knowledge that (\w) holds (.+)\.", sentence
            ):
                holder, cards = match.groups()
                for card in re.split(r", | and ", cards):
                    code = game.deck.card(card).code
                    assert after.holds(f"C_{{A,B,C,D}} has({holder}, {code})"), sentence
                    checked += 1
            elif match := re.fullmatch(r"(\w) has no (.+)\.", sentence):
                target, card = match.groups()
                ask = progress.asks[step]
                assert ask is not None and ask.target == target and ask.card.symbol == card
    assert checked > 5


def test_narration_of_a_hand_worked_refusal() -> None:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "7D")  # no: A holds a seven but not 7D, B lacks it, so C has it
    assert narrate(game_progress(game), 1) == [
        "B has no 7♦.",
        "It is now common knowledge that C holds 7♦.",
    ]


def test_kwartet_demo_out_and_no_figures(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["demo", "--seed", "2", "--no-figures"]) == 0
    assert "Figures in" not in capsys.readouterr().out
    # The figures (the slow part, a few seconds) are written once, here.
    assert main(["demo", "--seed", "2", "--out", str(tmp_path / "x")]) == 0
    text = capsys.readouterr().out
    folder = (tmp_path / "x").resolve()
    assert f"Figures in {folder}:" in text
    names = ["heatmap_A.gif", "progress.png", "timeline.png"]
    assert sorted(p.name for p in folder.iterdir()) == names
    assert all(name in text and (folder / name).stat().st_size > 1000 for name in names)
    moves = len(re.findall(r"^ *\d+\. ", text, re.M))
    with Image.open(folder / "heatmap_A.gif") as gif:
        assert gif.n_frames == moves + 1  # the deal and every move
    with Image.open(folder / "progress.png") as png:
        assert png.format == "PNG" and png.width > 600
    (tmp_path / "file").write_text("not a folder")
    assert main(["demo", "--seed", "2", "--out", str(tmp_path / "file")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("kwartet: error: ") and err.count("\n") == 1
