"""The folk tips: the ``watch`` switch and ``tips[none]``, and experiments/folk_tips.py.

``watch`` (watch who receives) is checked against the true hands over seeded games of
every preset (every holder it names is right), on a constructed position (a sure ask it
alone finds; the card followed when handed on, forgotten when laid down), and by
construction: with ``remember`` on it changes no choice.  The experiment's core runs at
a tiny size: seat rotation, shares that add up, intervals around the share, the fair
share, resuming without new games, and the matches that by design replay each other.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.agents import TIPS, ExactKnowledge, FactKnowledge, Tips, make_agent
from kwartet_epistemic.agents.agent import make_player
from kwartet_epistemic.agents.policies import _watched_holders
from kwartet_epistemic.tournament import play_game

ROOT = Path(__file__).resolve().parent.parent


def _load():
    spec = importlib.util.spec_from_file_location("folk_tips", ROOT / "experiments/folk_tips.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["folk_tips"] = module  # its dataclass looks its module up while defined
    spec.loader.exec_module(module)
    return module


folk = _load()


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
