"""Where exact counting does not fit in memory.

The counting programme refuses tables above its memory limit before it allocates them
(the options' ``memory_limit``, or a ``counting.memory_limit`` block); the maps of the
reachable states are tried first and keep within the limit themselves, so a position
whose dense tables do not fit can still be answered, with the same answer.  An agent
decides under a fixed limit (``AGENT_MEMORY_LIMIT``) and, where its exact knowledge does
not fit, on its fallback knowledge (facts), so that a 52-card draw-pile tournament goes
on instead of stopping; with ``fallback=None`` the error reaches the caller."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.agents import agent as agent_module
from kwartet_epistemic.agents.agent import Agent, make_agent
from kwartet_epistemic.agents.knowledge import make_knowledge
from kwartet_epistemic.agents.policies import KnowledgePolicy
from kwartet_epistemic.epistemics import counting
from kwartet_epistemic.epistemics.counting import memory_limit
from kwartet_epistemic.events import Drew
from kwartet_epistemic.tournament import play_game


def _draw_pile_view(draws: int, seed: int = 1) -> kw.PlayerView:
    """A's view of a fish game (4 players, 3 cards each) after ``draws`` draws."""
    rules = kw.RuleSet.preset("fish").replace(cards_each=3)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=seed, rules=rules)
    rng = np.random.default_rng(seed)
    while not game.is_over and sum(isinstance(e, Drew) for e in game.record) < draws:
        game.play(game.random_legal_ask(rng))
    return game.view("A")


def _probabilities(view: kw.PlayerView, limit: int, sparse: bool | None) -> np.ndarray | None:
    """A's location probabilities within ``limit`` bytes, or None where refused."""
    try:
        with counting.options(sparse=sparse, memory_limit=limit):
            return kw.knowledge(view).location_probabilities("A")
    except kw.ModelTooLargeError:
        return None


def test_a_memory_limit_block_refuses_and_restores() -> None:
    before = counting.current_options()
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3)
    game.ask("A", "7S")
    expected = kw.knowledge(game).count_worlds()
    with memory_limit(1 << 30):
        with (
            memory_limit(1 << 40),
            pytest.raises(kw.ModelTooLargeError, match="100 bytes"),
            memory_limit(100),  # the innermost counts ...
        ):
            kw.knowledge(game).count_worlds()
        with memory_limit(1 << 40):  # ... and an inner one never lifts an outer one
            assert counting.current_options().memory_limit == 1 << 30
        assert kw.knowledge(game).count_worlds() == expected
    assert counting.current_options() == before  # restored after the error too
    exact = make_knowledge("exact", "A")  # family_probabilities: the kernel's recount
    exact.update(game.view("A"))
    with counting.options(memory_limit=100), memory_limit(1 << 40):  # never lifted
        for answer in (
            kw.knowledge(game).count_worlds,
            kw.knowledge(game.view("A")).location_probabilities,
            exact.probabilities,
        ):
            with pytest.raises(kw.ModelTooLargeError, match="100 bytes"):
                answer()
    for bad in (0, -5, 1.5, True, "4GB", None):
        with pytest.raises(kw.KwartetError, match="memory limit"), memory_limit(bad):  # type: ignore[arg-type]
            pass
    assert counting.current_options() == before


@pytest.mark.parametrize("draws", [6, 8, 10])
def test_the_maps_answer_where_the_dense_tables_do_not_fit(
    draws: int, monkeypatch: pytest.MonkeyPatch, counting_options
) -> None:
    # Ryser's formula would answer without tables (test_counting_ryser): the maps alone.
    counting_options(ryser=False)
    view = _draw_pile_view(draws)
    expected = _probabilities(view, 1 << 40, sparse=False)
    assert expected is not None
    # The smallest limit within which the dense tables fit, by bisection.
    low, high = 1, 1 << 40
    while low < high:
        middle = (low + high) // 2
        if _probabilities(view, middle, sparse=False) is None:
            low = middle + 1
        else:
            high = middle
    assert np.array_equal(_probabilities(view, low, sparse=False), expected)
    got = _probabilities(view, low - 1, sparse=True)  # the maps, one byte short
    assert got is not None and np.array_equal(got, expected)


def test_the_maps_get_a_bounded_budget_where_the_dense_tables_do_not_fit(
    monkeypatch: pytest.MonkeyPatch,
    counting_options,
) -> None:
    # Ryser's formula would count without tables (test_counting_ryser): the maps alone.
    counting_options(ryser=False)
    view = _draw_pile_view(10)  # tables of 8,192 entries: the maps are tried by default
    expected = _probabilities(view, 1 << 40, sparse=False)
    low = 1 << 10
    while _probabilities(view, low, sparse=False) is None:
        low *= 2  # a limit the dense tables fit in, and half of it, which they do not
    assert np.array_equal(_probabilities(view, low // 2, sparse=None), expected)
    monkeypatch.setattr(counting.plan, "_SPARSE_UNFIT_WORK", 1)  # the maps give up at once
    assert _probabilities(view, low // 2, sparse=None) is None
    assert np.array_equal(_probabilities(view, low, sparse=None), expected)  # as before


@pytest.mark.parametrize("seed", [0, 1])
def test_an_agent_whose_exact_knowledge_does_not_fit_plays_on_facts(
    seed: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(agent_module, "AGENT_MEMORY_LIMIT", 100)  # nothing exact fits
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        limited = play_game(["knowledge"] * 4, seed=seed)
    assert caught and all(issubclass(w.category, RuntimeWarning) for w in caught)
    assert "memory limit of 100 bytes" in str(caught[0].message)
    # Every decision on facts, and the same random numbers: the fact-list game itself.
    facts = play_game(["knowledge:facts"] * 4, seed=seed)
    assert (limited.scores, limited.asks, limited.winners) == (
        facts.scores,
        facts.asks,
        facts.winners,
    )
    monkeypatch.setattr(agent_module, "AGENT_MEMORY_LIMIT", 4 << 30)
    exact = play_game(["knowledge"] * 4, seed=seed)
    assert (exact.scores, exact.asks) != (facts.scores, facts.asks)  # the limit mattered


def test_the_fallback_counts_its_decisions_and_can_be_refused() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    game.play(game.legal_asks()[0])  # past the deal, where counting needs tables
    player = game.to_move
    view = game.view(player)
    rng = np.random.default_rng(0)
    agent = Agent(player, KnowledgePolicy(), make_knowledge("exact", player), rng, memory_limit=100)
    with pytest.warns(RuntimeWarning, match=f"agent {player}"):
        ask = agent.choose(view)
    assert ask in view.legal_asks() and agent.fallbacks == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # warned once per agent
        agent.choose(view)
    assert agent.fallbacks == 2
    roomy = Agent(player, KnowledgePolicy(), make_knowledge("exact", player), rng)
    roomy.choose(view)
    assert roomy.fallbacks == 0
    strict = Agent(
        player,
        KnowledgePolicy(),
        make_knowledge("exact", player),
        rng,
        fallback=None,
        memory_limit=100,
    )
    with pytest.raises(kw.ModelTooLargeError, match="100 bytes"):
        strict.choose(view)
    assert strict.fallbacks == 0


def test_bad_fallback_settings_are_refused() -> None:
    knowledge = make_knowledge("exact", "A")
    for kwargs, match in (
        ({"fallback": "psychic"}, "fallback 'psychic'"),
        ({"memory_limit": 0}, "memory_limit=0"),
        ({"memory_limit": "4GB"}, "memory_limit='4GB'"),
        ({"memory_limit": True}, "memory_limit=True"),
    ):
        with pytest.raises(kw.GameSetupError, match=match):
            Agent("A", KnowledgePolicy(), knowledge, **kwargs)  # type: ignore[arg-type]
    assert make_agent("knowledge", "A").fallback == "facts"


def test_the_agents_limit_comes_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KWARTET_AGENT_MEMORY_LIMIT", "123456789")
    assert agent_module._agent_limit_from_environment() == 123456789
    for text in ("", "0", "-5", "4GB", "1" * 25):
        monkeypatch.setenv("KWARTET_AGENT_MEMORY_LIMIT", text)
        assert agent_module._agent_limit_from_environment() == 4 << 30
