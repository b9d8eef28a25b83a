"""The folk tips: the ``watch`` switch and ``tips[none]``, and experiments/folk_tips.py.

``watch`` (watch who receives) is checked against the true hands over seeded games of
every preset (every holder it names is right), on a constructed position (a sure ask it
alone finds; the card followed when handed on, forgotten when laid down), and by
construction: with ``remember`` on it changes no choice.  The experiment's core runs at
a tiny size: seat rotation, shares that add up, intervals around the share, the fair
share, resuming without new games, and the matches that by design replay each other.
"""

from __future__ import annotations

import csv
import gzip
from pathlib import Path

import numpy as np
import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.agents import TIPS, ExactKnowledge, FactKnowledge, Tips, make_agent
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.agents.policies import _watched_holders
from kwartet_epistemic.tournament import play_game

ROOT = Path(__file__).resolve().parents[2]


folk = load_script("experiments/folk_tips.py")


def test_the_seven_tips_of_the_issue_are_switches() -> None:
    assert TIPS == ("remember", "rarest", "hide", "spread", "bluff", "watch", "endgame")
    assert make_agent("tips", "A").policy == Tips(TIPS)
    assert make_agent("tips[none]:facts", "A").policy == Tips(())
    with pytest.raises(kw.GameSetupError, match="'none' switches every tip off"):
        make_agent("tips[none,spread]", "A")


@pytest.mark.parametrize("preset", ["publisher", "dutch", "lamas", "fish"])
def test_every_watched_holder_holds_the_card(preset: str) -> None:
    rules = kw.RuleSet.preset(preset)
    named = 0
    for seed in range(4):
        game = kw.Game.deal(kw.Deck.piquet(), list("ABCD"), seed=seed, rules=rules)
        specs = ["tips[watch]", "tips[none]", "random", "knowledge:facts"]
        agents = {
            p: make_player(s, p, np.random.default_rng(seed))
            for p, s in zip("ABCD", specs, strict=True)
        }
        while not game.is_over:
            for p in "ABCD":
                view = game.view(p)
                for card, holder in _watched_holders(view).items():
                    assert game.deck.cards[card] in game.hand(holder)
                    assert game.deck.cards[card] not in view.hand
                    named += 1
            player = game.to_move
            assert player is not None
            choice = agents[player].choose(game.view(player))
            if isinstance(choice, kw.Ask):
                game.play(choice)
            else:
                game.turn_over(choice)
    assert named > 50  # the check had something to check


def test_watch_finds_the_sure_ask_follows_the_card_and_forgets_laid_down_families() -> None:
    deck = kw.Deck.piquet(families=2)
    hands = {"A": ["7H", "8S"], "B": ["7S", "8H"], "C": ["7D", "7C", "8D", "8C"]}
    game = kw.Game.from_hands(deck, hands, first="A")
    game.ask("B", "7S")  # yes: A holds 7S now
    game.ask("C", "8H")  # no: C's turn
    view = game.view("C")
    assert _watched_holders(view) == {deck.card("7S").index: "A"}
    asks = view.legal_asks()
    for seed in range(5):
        rng = np.random.default_rng(seed)
        ask = Tips(("watch",)).choose(view, ExactKnowledge("C"), asks, rng)
        assert (ask.target, ask.card) == ("A", deck.card("7S"))
    # Without watching (and without remembering) 7S is not a sure ask: some seeds ask
    # someone else or for another card.
    other = {
        Tips(()).choose(view, ExactKnowledge("C"), asks, np.random.default_rng(s))
        for s in range(20)
    }
    assert len(other) > 1
    # C takes 7S from A and then 7H: the family is laid down, nothing left to watch in it.
    game.ask("A", "7S")
    assert _watched_holders(game.view("B")) == {deck.card("7S").index: "C"}
    game.ask("A", "7H")
    assert game.scores["C"] == 1
    assert _watched_holders(game.view("B")) == {}


def test_watch_changes_nothing_when_remember_is_on() -> None:
    # Remembering every ask includes its answer: the same choices, the same random numbers.
    for seed in (3, 4):
        for knowledge in ("facts", "exact"):
            base = [f"tips[remember]:{knowledge}", "knowledge:facts", "random", "greedy"]
            watching = [f"tips[remember,watch]:{knowledge}"] + base[1:]
            assert play_game(base, seed).scores == play_game(watching, seed).scores
            a, b = play_game(base, seed), play_game(watching, seed)
            assert (a.asks, a.winners) == (b.asks, b.winners)


def test_a_watching_forgetful_player_knows_less_than_a_remembering_one() -> None:
    # What watch knows is a part of what the fact list knows: every sure holder it names
    # is a sure holder for FactKnowledge too.
    for seed in range(3):
        game = kw.Game.deal(kw.Deck.piquet(), list("ABCD"), seed=seed)
        agents = {p: make_player("knowledge:facts", p, np.random.default_rng(seed)) for p in "ABCD"}
        while not game.is_over:
            player = game.to_move
            assert player is not None
            view = game.view(player)
            facts = FactKnowledge(player)
            facts.update(view)
            for card, holder in _watched_holders(view).items():
                assert facts.known_holder(game.deck.cards[card]) == holder
            game.play(agents[player].choose(view))


# ----- experiments/folk_tips.py at a tiny size ---------------------------------------


def test_the_design_plays_every_tip_alone_and_on_remember() -> None:
    matches = folk.all_matches()
    assert len({m.key for m in matches}) == len(matches) == 28
    alone = {m.variant for m in matches if m.series == "alone" and m.knowledge == "facts"}
    assert alone == set(TIPS) | {"all"}
    on_remember = {m.variant for m in matches if m.series == "remember"}
    assert on_remember == set(TIPS) - {"remember", "watch"} | {"all"}
    for m in matches:
        assert m.agents[0] == m.tipped != m.base and m.agents[1:] == (m.base,) * 3
        make_agent(m.tipped, "A")  # every spec parses
    assert {m.rules for m in matches if m.variant not in ("bluff", "all")} == {"publisher"}


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list, list]:
    out = tmp_path_factory.mktemp("folk_tips")
    matches = [
        folk.Match("alone", "facts", "publisher", "spread"),
        folk.Match("alone", "exact", "publisher", "spread"),
        folk.Match("remember", "facts", "bluffing", "bluff"),
    ]
    rows = folk.run(matches, 8, 5, 1, out)
    return out, matches, rows


def _games(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_seating_equally_often_and_shares_add_up(tiny) -> None:
    out, matches, rows = tiny
    for match, row in zip(matches, rows, strict=True):
        games = _games(out / "games" / f"{match.key}.csv")
        assert len(games) == row["games"] == 8
        seats = [next(s for s in "ABCD" if g[f"agent_{s}"] == match.tipped) for g in games]
        assert sorted(seats) == sorted("ABCD" * 2)
        assert row["win_share"] + 3 * row["base_share"] == pytest.approx(1.0)
        assert row["low"] <= row["win_share"] <= row["high"]
        assert row["diff"] == pytest.approx(row["win_share"] - 0.25)
        assert row["diff_low"] == pytest.approx(row["low"] - 0.25)
        assert row["verdict"] == folk.verdict(row["low"], row["high"])
        # the share recounted from the CSV: shared wins split
        share = np.mean(
            [1 / len(g["winners"].split()) if s in g["winners"].split() else 0.0
             for g, s in zip(games, seats, strict=True)]
        )  # fmt: skip
        assert share == pytest.approx(row["win_share"])
    assert rows[2]["rules"] == "publisher+bluffing"


def test_without_remember_the_knowledge_is_not_used(tiny) -> None:
    # Why the alone series plays only remember and all on exact knowledge: the others
    # replay the facts games move for move.
    out, _, _ = tiny
    facts = _games(out / "games" / "alone-facts-publisher-spread.csv")
    exact = _games(out / "games" / "alone-exact-publisher-spread.csv")
    keep = ["seed", "score_A", "score_B", "score_C", "score_D", "winners", "asks"]
    assert [[g[k] for k in keep] for g in facts] == [[g[k] for k in keep] for g in exact]


def test_paired_against_the_all_base_games_on_the_same_deals(tiny) -> None:
    out, matches, rows = tiny
    # With fact lists every candidate holder of a card has the same chance, so the bluff
    # tip (ask a less likely holder) never fires: the base's own games, move for move.
    bluff = rows[2]
    assert bluff["changed"] == 0.0 and bluff["gain"] == bluff["gain_low"] == 0.0
    base = _games(out / "games" / "base-remember-facts-bluffing.csv")
    games = _games(out / "games" / f"{matches[2].key}.csv")
    keep = ["seed", "score_A", "score_B", "score_C", "score_D", "winners", "asks"]
    assert [[g[k] for k in keep] for g in games] == [[g[k] for k in keep] for g in base]
    # spread alone on a forgetful base changes games; the paired gain is the share minus
    # the same seats' mean share in the all-base games
    spread = rows[0]
    assert spread["changed"] > 0
    base = _games(out / "games" / "base-alone-facts-publisher.csv")
    match = _games(out / "games" / f"{matches[0].key}.csv")
    seat_shares = []
    for g, b in zip(match, base, strict=True):
        assert g["seed"] == b["seed"]
        seat = next(s for s in "ABCD" if g[f"agent_{s}"] == matches[0].tipped)
        seat_shares.append(1 / len(b["winners"].split()) if seat in b["winners"].split() else 0.0)
    assert spread["gain"] == pytest.approx(spread["win_share"] - np.mean(seat_shares))
    assert spread["gain_low"] <= spread["gain"] <= spread["gain_high"]


def test_a_second_run_resumes_with_no_new_game(tiny) -> None:
    out, matches, rows = tiny
    before = {p.name: p.read_bytes() for p in (out / "games").iterdir()}
    again = folk.run(matches, 8, 5, 1, out)
    assert {p.name: p.read_bytes() for p in (out / "games").iterdir()} == before
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in rows]
    assert [{k: v for k, v in r.items() if k != "seconds"} for r in again] == strip
    with gzip.open(out / "folk_tips_games.csv.gz", "rt", newline="") as handle:
        compact = list(csv.DictReader(handle))
    bases = {"base-alone-facts-publisher", "base-alone-exact-publisher",
             "base-remember-facts-bluffing"}  # fmt: skip
    assert len(compact) == 48 and {g["match"] for g in compact} == {m.key for m in matches} | bases
    assert all(bool(g["tipped_seat"]) != g["match"].startswith("base-") for g in compact)
    saved = _games(out / "folk_tips.csv")
    assert [r["match"] for r in saved] == [m.key for m in matches]
    assert [float(r["win_share"]) for r in saved] == pytest.approx(
        [r["win_share"] for r in rows], abs=1e-6
    )


def test_the_paper_files(tiny) -> None:
    out, matches, rows = tiny
    folk.write_latex(out, rows)
    numbers = (out / "folk_tips_numbers.tex").read_text()
    assert "\\newcommand{\\kwTipsAloneFactsSpreadShare}" in numbers
    assert "\\newcommand{\\kwTipsRemFactsBluffingBluffCI}" in numbers
    assert numbers.count("\\newcommand") == len(folk.numbers(rows))
    table = (out / "folk_tips_table.tex").read_text()
    body = [line for line in table.splitlines() if line.endswith("\\\\")][1:]
    assert len(body) == len(folk.VARIANTS) + 2 and all(line.count("&") == 4 for line in body)
    assert folk.figure(out, rows).stat().st_size > 10_000
