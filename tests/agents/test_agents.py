"""Agents: every policy with every knowledge plays legal games under every rule preset;
agents see only their view; the policies do what the issue says they do."""

from __future__ import annotations

import re

import numpy as np
import pytest

import kwartet_epistemic as kw
from kwartet_epistemic.agents import (
    KNOWLEDGE_KINDS,
    Agent,
    AgentSpec,
    ExactKnowledge,
    FactKnowledge,
    KnowledgePolicy,
    Playout,
    Search,
    Tips,
    make_agent,
    make_policy,
    policy_names,
    register_policy,
)
from kwartet_epistemic.agents.agent import legal_asks
from kwartet_epistemic.agents.policies import TIPS, HigherOrder, Situation
from kwartet_epistemic.agents.search import _stratified_terms
from kwartet_epistemic.epistemics.state import World

FAST_SPECS = {"search": "search[samples=2,candidates=2]"}


def _play(game: kw.Game, specs: list[str], seed: int = 0) -> kw.Game:
    agents = {
        p: make_agent(s, p, np.random.default_rng([seed, i]))
        for i, (p, s) in enumerate(zip(game.players, specs, strict=True))
    }
    for _ in range(2000):
        if game.is_over:
            break
        player = game.to_move
        assert player is not None
        ask = agents[player].choose(game.view(player))
        assert ask in game.legal_asks()
        game.play(ask)
    assert game.is_over
    return game


@pytest.mark.parametrize("policy", sorted(set(policy_names()) - {"cautious_doc"}))
@pytest.mark.parametrize("knowledge", list(KNOWLEDGE_KINDS))
def test_every_policy_with_every_knowledge_plays_a_whole_game(policy: str, knowledge: str) -> None:
    spec = FAST_SPECS.get(policy, policy) + f":{knowledge}"
    game = kw.Game.deal(kw.Deck.piquet(families=5), ["A", "B", "C"], seed=len(policy))
    _play(game, [spec, "random", spec])
    assert sum(game.scores.values()) == 5


@pytest.mark.parametrize(
    "rules",
    [
        kw.RuleSet.preset("publisher"),
        kw.RuleSet.preset("dutch"),
        kw.RuleSet.preset("lamas"),
        kw.RuleSet.preset("fish"),
        kw.RuleSet(bluffing=True),
        kw.RuleSet(memory_cards=4),
        kw.RuleSet(draw_pile=True, cards_each=7, bonus_turn=True),
    ],
    ids=lambda r: r.name,
)
def test_agents_play_every_rule_option_to_the_end(rules: kw.RuleSet) -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=3, rules=rules)
    # Exact public knowledge with a stock is slow (every draw is a slot): higher_order
    # plays the rules without one.
    second = "greedy" if rules.draw_pile else "higher_order"
    _play(game, ["knowledge", second, "defensive:facts", "tips:facts"], seed=3)


def test_silent_bluffs_only_when_the_rules_allow_it() -> None:
    for bluffing in (False, True):
        game = kw.Game.deal(
            kw.Deck.piquet(), ["A", "B", "C", "D"], seed=4, rules=kw.RuleSet(bluffing=bluffing)
        )
        view = game.view(game.to_move or "")
        asks = [
            make_agent("silent", view.player, np.random.default_rng(seed)).choose(view)
            for seed in range(20)
        ]
        bluffs = sum(ask.card in view.hand for ask in asks)
        assert (bluffs > 0) is bluffing and bluffs < len(asks)


# ----- agents see only their view ------------------------------------------------------


def test_agents_never_touch_the_game_while_choosing(monkeypatch: pytest.MonkeyPatch) -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=8)
    specs = ["knowledge", "higher_order", "search[samples=2,candidates=2]", "owner_program"]
    agents = {
        p: make_agent(s, p, np.random.default_rng(i))
        for i, (p, s) in enumerate(zip(game.players, specs, strict=True))
    }
    original = kw.Game.__getattribute__

    def forbidden(self: kw.Game, name: str) -> object:
        raise AssertionError(f"an agent read Game.{name}")

    moves = 0
    while not game.is_over and moves < 60:
        player = game.to_move
        assert player is not None
        view = game.view(player)
        monkeypatch.setattr(kw.Game, "__getattribute__", forbidden)
        try:
            with pytest.raises(AssertionError, match="read Game.players"):
                _ = game.players  # the guard is armed
            ask = agents[player].choose(view)
        finally:
            monkeypatch.setattr(kw.Game, "__getattribute__", original)
        game.play(ask)
        moves += 1


@pytest.mark.parametrize(
    "spec", ["knowledge", "higher_order", "defensive:facts", "search[samples=3]"]
)
def test_the_choice_depends_on_the_view_only_not_on_the_hidden_deal(spec: str) -> None:
    # Two deals that A cannot tell apart (B and C swap cards, hand sizes kept): A sees
    # the same view in both, so with the same random numbers A asks the same.
    deck = kw.Deck.piquet(families=4)
    a = ["7S", "8S", "9S", "10S", "7H"]
    b = ["8H", "9H", "10H", "7D", "8D", "9D"]
    c = ["10D", "7C", "8C", "9C", "10C"]
    one = kw.Game.from_hands(deck, {"A": a, "B": b, "C": c}, first="A")
    two = kw.Game.from_hands(deck, {"A": a, "B": c + [b[0]], "C": b[1:]}, first="A")
    assert one.view("A").record == two.view("A").record
    choices = [
        make_agent(spec, "A", np.random.default_rng(5)).choose(g.view("A")) for g in (one, two)
    ]
    assert choices[0] == choices[1]


def test_an_agent_refuses_a_view_that_is_not_its_own() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    agent = make_agent("knowledge", "B", np.random.default_rng(0))
    with pytest.raises(kw.GameSetupError, match="given A's view"):
        agent.choose(game.view("A"))
    with pytest.raises(kw.IllegalAskError, match="not their turn"):
        agent.choose(game.view("B"))


def test_fast_legal_asks_equal_the_views_own() -> None:
    for seed, rules in enumerate(
        [kw.RuleSet(), kw.RuleSet(bluffing=True), kw.RuleSet(memory_cards=4)]
    ):
        game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=seed, rules=rules)
        rng = np.random.default_rng(seed)
        while not game.is_over:
            for p in game.players:
                assert legal_asks(game.view(p)) == game.view(p).legal_asks()
            game.play(game.random_legal_ask(rng))


# ----- what the policies do ------------------------------------------------------------


def _two_refusals() -> kw.Game:
    """A to move, knowing that C holds 7D and 7C (B refused 7D; B asked A for 7C)."""
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=2),
        {"A": ["7S", "8S"], "B": ["7H", "8H", "8D"], "C": ["7D", "7C", "8C"]},
        first="A",
    )
    game.ask("B", "7D")
    game.ask("A", "7C")
    return game


@pytest.mark.parametrize(
    "spec", ["knowledge", "owner", "defensive", "aggressive", "greedy", "higher_order",
             "owner_program", "greedy_program", "search[samples=2]", "tips"],
)  # fmt: skip
def test_a_known_holder_is_asked_first(spec: str) -> None:
    game = _two_refusals()
    for seed in range(5):
        ask = make_agent(spec, "A", np.random.default_rng(seed)).choose(game.view("A"))
        assert (ask.target, ask.card.code) in {("C", "7D"), ("C", "7C")}


def test_knowledge_asks_the_most_likely_holder() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=12)
    rng = np.random.default_rng(12)
    for _ in range(15):
        game.play(game.random_legal_ask(rng))
    view = game.view(game.to_move or "")
    knowledge = ExactKnowledge(view.player)
    knowledge.update(view)
    p = knowledge.probabilities()
    column = {q: i for i, q in enumerate(view.players)}
    ask = KnowledgePolicy().choose(view, knowledge, view.legal_asks(), rng)
    best = max(p[a.card.index, column[a.target]] for a in view.legal_asks())
    assert p[ask.card.index, column[ask.target]] == best


def test_defensive_works_on_the_fullest_family_and_the_fewest_candidates() -> None:
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7S", "7H", "7D", "8S"], "B": ["7C", "8H", "9S", "9H"], "C": ["8D", "8C", "9D", "9C"]},
        first="A",
    )  # fmt: skip
    agent = make_agent("defensive:facts", "A", np.random.default_rng(0))
    assert agent.choose(game.view("A")).card.code == "7C"  # three sevens held


def test_aggressive_targets_the_leader() -> None:
    # B lays down the sevens at the deal and leads; A's missing cards could be with B or C.
    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["8S", "8C", "9C"], "B": ["7S", "7H", "7D", "7C", "8H", "9S"], "C": ["8D", "9H", "9D"]},
        first="A",
    )  # fmt: skip
    assert game.scores["B"] == 1
    for seed in range(5):
        ask = make_agent("aggressive:facts", "A", np.random.default_rng(seed)).choose(
            game.view("A")
        )
        assert ask.target == "B"


def test_each_tip_can_be_switched_on_alone() -> None:
    for tip in (*TIPS, "none"):  # every tip alone, and none
        game = kw.Game.deal(kw.Deck.piquet(families=5), ["A", "B", "C"], seed=2)
        _play(game, [f"tips[{tip}]", "knowledge", f"tips[{tip}]:facts"])
    with pytest.raises(kw.GameSetupError, match="tip 'psychic'"):
        make_agent("tips[psychic]", "A")


def test_tip_spread_prefers_the_opponent_asked_least() -> None:
    policy = Tips(("remember", "spread"))
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=21)
    player = game.to_move or ""
    view = game.view(player)
    knowledge = FactKnowledge(player)
    knowledge.update(view)
    # At the deal every opponent is equally likely: no ask so far, any target is fine;
    # after asking B, an equal ask goes to someone else.
    first = policy.choose(view, knowledge, view.legal_asks(), np.random.default_rng(0))
    game.play(first)
    if game.to_move == player:
        view = game.view(player)
        knowledge.update(view)
        second = policy.choose(view, knowledge, view.legal_asks(), np.random.default_rng(0))
        assert second.target != first.target or knowledge.known_holder(second.card)


def test_search_plays_legal_asks_within_a_time_budget() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=9)
    agent = make_agent("search[ms=20,candidates=3]", game.to_move or "", np.random.default_rng(0))
    assert isinstance(agent.policy, Search) and agent.policy.milliseconds == 20.0
    assert agent.choose(game.view(game.to_move or "")) in game.legal_asks()
    with pytest.raises(kw.GameSetupError, match="objective"):
        make_agent("search[objective=money]", "A")


def test_search_candidates_are_one_ask_per_target_and_family_led_by_the_default() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=12)
    view = game.view(game.to_move or "")
    knowledge = ExactKnowledge(view.player)
    knowledge.update(view)
    situation = Situation(view, knowledge, view.legal_asks())
    default = HigherOrder().decide(situation, np.random.default_rng(0))
    policy = Search(candidates=4, spread=0.5)
    ranked = policy._candidates(situation, default, np.random.default_rng(1))
    assert ranked[0] == default and 2 <= len(ranked) <= 5
    pairs = [(a.target, a.card.family_index) for a in ranked]
    assert len(set(pairs)) == len(pairs)
    best = max(situation.chance(a) for a in situation.asks)
    for ask in ranked[1:]:
        assert ask in view.legal_asks()
        assert situation.chance(ask) >= 0.5 * best
        # the likeliest card of its (target, family)
        assert situation.chance(ask) == max(
            situation.chance(a) for a in situation.asks
            if (a.target, a.card.family_index) == (ask.target, ask.card.family_index)
        )  # fmt: skip


def test_search_is_reproducible_and_rejects_bad_settings() -> None:
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=21)
    for _ in range(6):  # into the game, past the first sure asks
        game.play(game.random_legal_ask(np.random.default_rng(len(game.record))))
    view = game.view(game.to_move or "")
    choices = []
    for _ in range(2):
        knowledge = ExactKnowledge(view.player)
        knowledge.update(view)
        choices.append(
            Search(samples=3, candidates=4).choose(
                view, knowledge, view.legal_asks(), np.random.default_rng(5)
            )
        )
    assert choices[0] == choices[1] and choices[0] in view.legal_asks()
    for bad, message in [
        ("search[rollout=psychic]", "rollout='psychic'"),
        ("search[spread=2]", "spread=2.0"),
        ("search[candidates=0]", "candidates=0"),
    ]:
        with pytest.raises(kw.GameSetupError, match=re.escape(message)):
            make_agent(bad, "A")


def test_stratified_values_use_the_exact_chance_of_a_yes() -> None:
    values = [3.0, 1.0, 1.0, 1.0, 1.0]
    yes = [True, False, False, False, False]
    # one sampled yes in five, but the chance is 0.5: 0.5 * 3 + 0.5 * 1
    assert _stratified_terms(values, yes, 0.5).mean() == pytest.approx(2.0)
    # a stratum without worlds leaves the plain mean
    assert _stratified_terms(values, [False] * 5, 0.5).mean() == pytest.approx(1.4)


def test_playouts_end_with_every_quartet_scored() -> None:
    for rules in (kw.RuleSet(), kw.RuleSet.preset("lamas"), kw.RuleSet.preset("fish")):
        game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=1, rules=rules)
        view = game.view(game.to_move or "")
        world = World(
            {p: game.hand(p) for p in game.players},
            {"stock": tuple(game.deck.card(c) for c in game.initial_deal["stock"])},
        )
        for seed in range(5):
            for weighted in (False, True):
                scores = Playout.from_view(view, weighted=weighted).run(
                    world, view.legal_asks()[seed], np.random.default_rng(seed)
                )
                assert sum(scores) == 8


# ----- specs and the registry ------------------------------------------------------------


def test_specs_round_trip_and_name_their_errors() -> None:
    for text in [
        "knowledge",
        "defensive:facts",
        "search[candidates=3,samples=8]",
        "tips[hide]:hand",
    ]:
        assert str(AgentSpec.parse(text)) == text
    assert str(AgentSpec.parse("Higher-Order:EXACT")) == "higher_order"
    for bad, message in [
        ("knowledge:oracle", "knowledge 'oracle'"),
        ("know ledge", "expected POLICY"),
        ("search[samples=many]", "not a int"),
        ("greedy[fast]", "takes no options"),
        ("genius", "unknown agent 'genius'"),
    ]:
        with pytest.raises(kw.GameSetupError, match=message):
            make_agent(bad, "A")


def test_policies_are_offered_as_kwartet_play_opponents() -> None:
    names = kw.player_names()
    for name in ("random", "knowledge", "higher_order", "search", "defensive", "openspiel:"):
        assert name in names
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=7)
    player = kw.make_player("knowledge", game.to_move or "", np.random.default_rng(0))
    assert isinstance(player, Agent)
    assert player.choose(game.view(game.to_move or "")) in game.legal_asks()


def test_register_policy_adds_a_name_and_refuses_a_duplicate() -> None:
    register_policy("always_first_test", lambda options: KnowledgePolicy(), replace=True)
    assert "always_first_test" in policy_names()
    assert isinstance(make_policy("always_first_test"), KnowledgePolicy)
    with pytest.raises(kw.GameSetupError, match="already registered"):
        register_policy("always_first_test", lambda options: KnowledgePolicy())


def test_higher_order_measures_what_a_refusal_would_reveal() -> None:
    # A received 7D openly, so everybody knows A collects sevens; nobody knows A holds
    # an eight.  Asking for an eight (and being refused) tells the table more than asking
    # for another seven.
    from kwartet_epistemic.agents.policies import Situation, _revealed_by_refusal

    game = kw.Game.from_hands(
        kw.Deck.piquet(families=3),
        {"A": ["7S", "8S", "9S"], "B": ["7D", "8H", "9H", "9D"], "C": ["7H", "7C", "8D", "8C", "9C"]},
        first="A",
    )  # fmt: skip
    game.ask("B", "7D")  # yes: A keeps the turn
    view = game.view("A")
    knowledge = ExactKnowledge("A")
    knowledge.update(view)
    situation = Situation(view, knowledge, view.legal_asks())
    public = knowledge.public_probabilities()
    exposure = {
        f: float(sum(public[c, 0] for c in situation.own if c // 4 == f))
        for f in situation.held_families
    }
    seven = next(a for a in view.legal_asks() if a.card.code == "7H" and a.target == "C")
    eight = next(a for a in view.legal_asks() if a.card.code == "8H" and a.target == "C")
    reveal_seven = _revealed_by_refusal(knowledge, situation, seven, exposure)
    reveal_eight = _revealed_by_refusal(knowledge, situation, eight, exposure)
    assert 0.0 <= reveal_seven < reveal_eight <= 1.0


def _likeliest_reference(
    wanted: int,
    targets: list[int],
    hands: list[int],
    seen: list[int],
    lacks: list[int],
    claims: list[int],
    rank: list[int],
    n: int,
) -> tuple[int, int]:
    """The play-out's likeliest-yes choice as it was first written: card by card, target
    by target (the specification of search._likeliest)."""
    free = [0] * n
    for t in targets:
        free[t] = hands[t].bit_count() - (seen[t] & hands[t]).bit_count()
    best, choices = 0.0, []
    for c in range(64):
        low = 1 << c
        if not wanted & low:
            continue
        family = 0b1111 << (4 * (c // 4))
        weights = []
        for t in targets:
            if lacks[t] & low or free[t] <= 0:
                continue
            claimed = claims[t] & low and not seen[t] & family
            weights.append((free[t] * (2.0 if claimed else 1.0), t))
        if not weights:
            continue
        total = sum(w for w, _ in weights)
        for w, t in weights:
            chance = w / total
            if chance > best + 1e-9:
                best, choices = chance, [(t, c)]
            elif chance > best - 1e-9:
                choices.append((t, c))
    if not choices:
        choices = [(t, c) for t in targets for c in range(64) if wanted >> c & 1]
    return max(choices, key=lambda tc: rank[tc[1] * n + tc[0]])


def test_the_grouped_likeliest_yes_of_a_playout_is_the_card_by_card_one() -> None:
    from kwartet_epistemic.agents.search import _likeliest

    rng = np.random.default_rng(7)
    for _ in range(3000):
        n = int(rng.integers(3, 6))
        cards = 4 * int(rng.integers(2, 9))
        full = (1 << cards) - 1

        def mask(density: float, cards: int = cards) -> int:
            return sum(1 << c for c in range(cards) if rng.random() < density)

        wanted = mask(0.5) or 1
        targets = [t for t in range(1, n) if rng.random() < 0.8] or [1]
        hands = [mask(0.3) for _ in range(n)]
        seen = [mask(0.1) & hands[t] if rng.random() < 0.7 else mask(0.1) for t in range(n)]
        lacks = [mask(0.3) & full for _ in range(n)]
        claims = [
            sum(0b1111 << (4 * f) for f in range(cards // 4) if rng.random() < 0.3)
            for _ in range(n)
        ]
        rank = rng.permutation(cards * n).tolist()
        args = (wanted, targets, hands, seen, lacks, claims, rank, n)
        expected = _likeliest_reference(*args)
        assert _likeliest(wanted, targets, hands, seen, None, lacks, claims, rank, n) == expected


def test_situation_arrays_agree_with_the_per_ask_helpers() -> None:
    for preset in ("publisher", "fish"):
        rules = kw.RuleSet.preset(preset).replace(bluffing=True)
        game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=11, rules=rules)
        rng = np.random.default_rng(0)
        for _ in range(25):
            if game.is_over:
                break
            view = game.view(game.to_move or "")
            for knowledge in (ExactKnowledge(view.player), FactKnowledge(view.player)):
                knowledge.update(view)
                s = Situation(view, knowledge, view.legal_asks())
                assert s.chances.tolist() == [s.chance(a) for a in s.asks]
                assert s.family_counts.tolist() == [s.family_count(a.card.index) for a in s.asks]
                assert s.known_asks() == [a for a in s.asks if s.chance(a) == 1.0]
                row = s.probabilities
                for c in s.missing_cards():
                    expected = [
                        a.target
                        for a in s.asks
                        if a.card.index == c and row[c, s.column[a.target]] > 0.0
                    ]
                    assert s.candidates(c) == expected
            asks = game.legal_asks()
            game.play(asks[int(rng.integers(len(asks)))])


def test_best_index_takes_the_same_choice_as_the_tuple_key() -> None:
    from kwartet_epistemic.agents.policies import _best, _best_index

    rng = np.random.default_rng(3)
    for _ in range(500):
        size = int(rng.integers(1, 30))
        first = rng.choice([0.0, 0.25, 0.5, 1.0], size)
        second = rng.integers(0, 4, size)
        items = list(range(size))
        seed = int(rng.integers(1000))
        keys = list(zip(first.tolist(), second.tolist(), strict=True))
        old = _best(items, keys.__getitem__, np.random.default_rng(seed))
        new = _best_index(np.arange(size), [first, second], np.random.default_rng(seed))
        assert old == new
