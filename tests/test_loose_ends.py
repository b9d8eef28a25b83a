"""Loose ends a newcomer hit: the rules shipped with the package,
the command's messages, --version, python -m, replay from stdin, printed forms that read
back, groups as sets, unequal tournament seatings, notebooks without "the issue"."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import types
import warnings
from pathlib import Path

import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.cli import main

ROOT = Path(__file__).resolve().parent.parent


# ----- the rules ship with the package --------------------------------------------------


def test_the_rules_ship_with_the_package_and_kwartet_rules_prints_them(
    capsys: pytest.CaptureFixture[str],
) -> None:
    text = kw.rules_text()
    assert kw.rules_path().parent == Path(kw.__file__).parent
    for section in ("## Default profile", "## Rule options", "## What is public, exactly",
                    "## The worked example"):  # fmt: skip
        assert section in text
    assert main(["rules"]) == 0
    assert capsys.readouterr().out == text
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert '"RULES.md"' in pyproject  # package data: installed with the package


def test_every_rules_md_section_a_docstring_cites_exists() -> None:
    text = kw.rules_text()
    cited = set()
    for path in (ROOT / "kwartet_epistemic").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        cited.update(re.findall(r'RULES\.md, "([^"]+)"', source))
    headings = {h.strip() for h in re.findall(r"^## (.+)$", text, flags=re.M)}
    for section in cited:
        assert any(h.startswith(section) for h in headings), section


# ----- the command ----------------------------------------------------------------------


def test_play_with_too_many_players_names_the_number_asked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["play", "--players", "9"]) == 2
    err = capsys.readouterr().err
    assert "9 players" in err and "3 to 6" in err and "8 players" not in err


@pytest.mark.parametrize("games", ["0", "-5", "many"])
def test_bad_game_counts_get_one_message(games: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", "--games", games]) == 2
    assert f"argument --games: '{games}': expected a whole number >= 1" in capsys.readouterr().err
    if games == "0":  # a tournament of no games is allowed (it resumes a results file)
        return
    assert main(["tournament", "--agents", "random,random,random", "--games", games]) == 2
    assert f"'{games}': expected a whole number >= 0" in capsys.readouterr().err


def test_tournament_calls_an_unknown_agent_an_agent(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["tournament", "--agents", "knowledge,genius,random", "--games", "1"]) == 2
    err = capsys.readouterr().err
    assert "unknown agent 'genius'" in err and "opponent" not in err
    with pytest.raises(kw.GameSetupError, match="unknown agent 'oracle'; known: .*knowledge"):
        kw.tournament(["knowledge", "oracle:facts", "random"], games=1)


def test_simulate_without_a_seed_prints_the_seed_that_repeats_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["simulate", "--games", "3", "--no-progress"]) == 0
    first = capsys.readouterr().out
    seed = re.search(r"--seed (\d+) repeats the run", first)
    assert seed is not None
    assert main(["simulate", "--games", "3", "--no-progress", "--seed", seed.group(1)]) == 0
    again = capsys.readouterr().out
    assert f"seed {seed.group(1)}" in again
    keep = re.compile(r"Win rate.*Mean game length[^\n]*", flags=re.S)  # the results, no speed
    assert keep.search(first).group() == keep.search(again).group()  # type: ignore[union-attr]


def _command(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "kwartet_epistemic", *args],
        input=stdin, capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip


def test_version_and_python_dash_m(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--version"]) == 0
    assert capsys.readouterr().out.strip() == f"kwartet {kw.__version__}"
    done = _command("--version")
    assert done.returncode == 0 and done.stdout.strip() == f"kwartet {kw.__version__}"
    done = _command("simulate", "--players", "9")
    assert done.returncode == 2 and "9 players" in done.stderr


def test_replay_dash_reads_the_record_from_stdin(tmp_path: Path) -> None:
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=4)
    game.play(game.legal_asks()[0])
    path = tmp_path / "g.json"
    game.save(path)
    done = _command("replay", "-", stdin=path.read_text(encoding="utf-8"))
    assert done.returncode == 0, done.stderr
    assert "(stdin)" in done.stdout and game.transcript() in done.stdout
    bad = _command("replay", "-", stdin="{not json")
    assert bad.returncode == 2 and "stdin: record: not valid JSON" in bad.stderr
    assert "Traceback" not in bad.stderr


# ----- printed forms read back ----------------------------------------------------------


def test_an_asks_printed_forms_parse_back() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    for ask in game.legal_asks()[:10]:
        assert kw.parse_ask(str(ask), game) == ask
        assert kw.parse_ask(repr(ask), game) == ask
        assert kw.parse_ask(str(ask), game.view("A")) == ask
    ask = game.legal_asks()[0]
    with pytest.raises(kw.IllegalAskError, match="the asker is A, not B"):
        kw.parse_ask(str(ask), game, asker="B")
    with pytest.raises(kw.UnknownCardError, match="no card"):
        kw.parse_ask("A asks B for QX", game)


def test_an_ask_built_with_a_text_card_prints_and_plays() -> None:
    ask = kw.Ask("A", "B", "QH")  # type: ignore[arg-type]
    assert repr(ask) == "Ask('A', 'B', 'QH')" and str(ask) == "A asks B for QH"
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    legal = game.legal_asks()[0]
    text_ask = kw.Ask(legal.asker, legal.target, legal.card.code)  # type: ignore[arg-type]
    assert kw.parse_ask(repr(text_ask), game) == legal
    game.play(text_ask)
    assert len(game.events) > 0


@pytest.mark.parametrize(
    "deck",
    [kw.Deck.piquet(), kw.Deck.piquet(families=3), kw.Deck.standard(),
     kw.Deck.standard(families=10), *(kw.Deck.themed(n) for n in kw.bundled_packs())],
    ids=repr,
)  # fmt: skip
def test_a_decks_repr_and_a_cards_repr_read_back(deck: kw.Deck) -> None:
    assert kw.Deck.from_spec(repr(deck)) == deck
    assert kw.Deck.from_spec(deck.spec) == deck
    for card in deck.cards:
        assert deck.card(repr(card)) == card
        assert deck.card(str(card)) == card


def test_a_record_still_names_no_pack(tmp_path: Path) -> None:
    with pytest.raises(kw.InvalidDeckError, match="bundled pack"):
        kw.Deck.from_spec("Deck.themed('/etc/passwd')")
    game = kw.Game.deal(kw.Deck.piquet(families=3), ["A", "B", "C"], seed=4)
    path = tmp_path / "g.json"
    game.save(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    data["deck"] = "Deck.themed('animals')"
    with pytest.raises(kw.RecordError, match="inline"):
        kw.GameRecord.from_json(json.dumps(data))


def test_groups_are_sets() -> None:
    assert kw.parse("C_{B,A} p") == kw.parse("C_{A,B} p")
    assert kw.parse("E_{B,A,B} p") == kw.parse("E_{A,B} p")
    assert str(kw.parse("D_{B,A} p")) == "D_{A,B} p"
    assert str(kw.parse("C_{10,2,1} p")) == "C_{1,2,10} p"  # numbers in number order
    game = kw.Game.deal(kw.Deck.piquet(families=2), ["A", "B", "C"], seed=1)
    k = kw.knowledge(game)
    assert k.holds("C_{C,B,A} (has(A, 7S) | ~has(A, 7S))")
    assert k.holds("C_{C,B,A} has(A, 7S)") == k.holds("C_{A,B,C} has(A, 7S)")


# ----- tournaments and seatings ---------------------------------------------------------


def test_a_tournament_that_cannot_seat_everyone_equally_says_so() -> None:
    agents = ["greedy", "defensive:facts", "random", "random"]  # 12 seatings
    with pytest.warns(UserWarning, match="40 games cannot seat everyone equally: 12 seatings"):
        result = kw.tournament(agents, games=40, seed=1, deck=kw.Deck.piquet(families=4))
    assert "use a multiple of 12 (36 or 48)" in result.table()
    assert len(result.games) == 40
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        equal = kw.tournament(agents, games=12, seed=1, deck=kw.Deck.piquet(families=4))
    assert "cannot seat" not in equal.table()
    seatings = [g.agents for g in equal.games]
    assert len(set(seatings)) == 12


def test_kwartet_tournament_prints_the_unequal_seating_without_a_python_warning(
    capsys: pytest.CaptureFixture[str],
) -> None:
    args = ["tournament", "--agents", "greedy,random,random", "--games", "4", "--seed", "1",
            "--deck", "piquet:3", "--no-progress"]  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(args) == 0
    out = capsys.readouterr().out
    assert "4 games cannot seat everyone equally: 3 seatings, 1 of them played twice" in out


# ----- the agent-writing API --------------------------------------------------------------


def test_the_agent_writing_api_is_exported() -> None:
    for name in ("Policy", "Situation", "KnowledgeBase", "register_policy", "KnowledgeProgram",
                 "make_agent", "rules_text", "rules_path"):  # fmt: skip
        assert name in kw.__all__ and hasattr(kw, name)

    class First(kw.Policy):
        name = "first_loose_end"

        def decide(self, situation: kw.Situation, rng: object) -> kw.Ask:
            return situation.asks[0]

    kw.register_policy("first_loose_end", lambda options: First(), replace=True)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    agent = kw.make_agent("first_loose_end", game.to_move)
    assert agent.choose(game.view(game.to_move)) == game.view(game.to_move).legal_asks()[0]


# ----- notebooks --------------------------------------------------------------------------


def test_no_notebook_text_refers_to_the_issue() -> None:
    for path in sorted((ROOT / "notebooks").rglob("*.ipynb")):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        for number, cell in enumerate(notebook["cells"], 1):
            text = "".join(cell["source"])
            assert not re.search(r"\bissues?\b", text, flags=re.I), (path.name, number, text)


def test_the_package_face_lists_no_stray_module_globals() -> None:
    """``dir(kw)`` is what a student tab-completes: no ``annotations`` from the future
    import, and every public name is in ``__all__``."""
    public = {name for name in dir(kw) if not name.startswith("_")}
    assert "annotations" not in public
    assert public <= set(kw.__all__) | {
        name for name in public if isinstance(getattr(kw, name), types.ModuleType)
    }
