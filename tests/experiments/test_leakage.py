"""experiments/leakage.py: bits per ask, policy likelihoods, the policy-aware posterior.

Cross-checks on small decks: the bits of an ask and the family entropies against the
enumerated worlds, the enumeration against the counting engine, each modelled policy's
choice probabilities against the policy itself, the exact posterior against the uniform
one (equal before any opponent asks, bit for bit), the true world kept by the right
model, and importance sampling converging on exact reweighting.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path

import numpy as np
import pytest
from kwartet_testing import load_script

import kwartet_epistemic as kw
from kwartet_epistemic.agents.knowledge import ExactKnowledge
from kwartet_epistemic.agents.policies import (
    Greedy,
    KnowledgePolicy,
    Mixed,
    RandomPolicy,
    Silent,
    Situation,
)
from kwartet_epistemic.epistemics.counting import WorldCounter
from kwartet_epistemic.epistemics.history import PublicHistory, private_info
from kwartet_epistemic.events import Asked
from kwartet_epistemic.tournament import play_game, replay_game

ROOT = Path(__file__).resolve().parents[2]


lk = load_script("experiments/leakage.py")
SMALL = kw.Deck.piquet(families=4)


def _history(game, upto):
    history = PublicHistory(game.deck, game.players, game.rules)
    history.extend(game.record[:upto])
    return history


@pytest.fixture(scope="module")
def small_games():
    return [
        replay_game(play_game(["knowledge"] * 3, seed=s, deck=SMALL), deck=SMALL) for s in range(3)
    ]


def test_enumerated_worlds_are_the_counted_worlds(small_games):
    for game in small_games:
        asks = [i for i, e in enumerate(game.record) if type(e) is Asked]
        for i in asks[::2]:
            history = _history(game, i)
            for p in game.players:
                info = private_info(game.deck, p, game.view(p).hand, game.record)
                worlds = lk.enumerate_worlds(history, info)
                assert len(worlds) == WorldCounter(history, [info]).count
                assert len({tuple(w) for w in worlds.tolist()}) == len(worlds)


def test_bits_of_an_ask_are_the_surprisal_of_its_announcement(small_games):
    """2^-bits_ask is the share of the observer's worlds in which the asker holds a card
    of the family and (no bluffing) not the asked card; the entropies are those of the
    enumerated worlds."""
    game = small_games[0]
    rows = lk.ask_leakage(game)
    asks = [(i, e) for i, e in enumerate(game.record) if type(e) is Asked]
    assert len(rows) == len(asks)
    for row, (i, event) in zip(rows[:6], asks[:6], strict=False):
        history = _history(game, i)
        observers = [p for p in game.players if p != event.asker]
        bits, h0 = [], []
        for o in observers:
            info = private_info(game.deck, o, game.view(o).hand, game.record)
            worlds = lk.enumerate_worlds(history, info)
            held = np.array([lk._current_holders(history, w) for w in worlds])
            column = game.players.index(event.asker)
            f = event.card.family_index
            mine = held[:, 4 * f : 4 * f + 4] == column
            ok = mine.any(axis=1) & ~mine[:, event.card.index - 4 * f]
            bits.append(-math.log2(ok.mean()))
            patterns = Counter(map(tuple, mine.tolist()))
            h0.append(-sum(n / len(worlds) * math.log2(n / len(worlds)) for n in patterns.values()))
        assert row.bits_ask == pytest.approx(np.mean(bits), abs=1e-9)
        assert row.h_before == pytest.approx(np.mean(h0), abs=1e-9)
        assert 0.0 <= row.h_after <= 4.0 and row.bits_answer >= 0.0


def test_modelled_policies_choose_as_their_distributions_say():
    policies = {"random": RandomPolicy(), "greedy": Greedy(), "knowledge": KnowledgePolicy(),
                "silent": Silent(), "mixed": Mixed()}  # fmt: skip
    rng = np.random.default_rng(5)
    for rules in (kw.RuleSet(), kw.RuleSet(bluffing=True)):
        game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=11, rules=rules)
        for _ in range(12):
            game.play(game.legal_asks()[int(rng.integers(len(game.legal_asks())))])
        view = game.view(game.to_move)
        knowledge = ExactKnowledge(view.player)
        knowledge.update(view)
        situation = Situation(view, knowledge, view.legal_asks())
        for name, policy in policies.items():
            dist = lk.ask_distribution(name, situation)
            assert dist.sum() == pytest.approx(1.0) and (dist >= 0).all()
            draws = 400
            counts = Counter(
                situation.asks.index(policy.decide(situation, np.random.default_rng(s)))
                for s in range(draws)
            )
            for index in counts:
                assert dist[index] > 0, (name, situation.asks[index])
            top = int(dist.argmax())
            sd = math.sqrt(dist[top] * (1 - dist[top]) / draws)
            assert abs(counts[top] / draws - dist[top]) <= 5 * sd + 1e-9, name


def test_policy_aware_posterior_keeps_the_true_world_and_starts_uniform(small_games):
    for game in small_games[:2]:
        asks = [i for i, e in enumerate(game.record) if type(e) is Asked]
        for observer in game.players:
            info = private_info(game.deck, observer, game.view(observer).hand, game.record)
            posterior = lk.PolicyPosterior(
                observer, {q: "knowledge" for q in game.players if q != observer}
            )
            dealt = {
                p: private_info(game.deck, p, game.view(p).hand, game.record).dealt
                for p in game.players
            }
            truth = np.zeros(len(game.deck), dtype=np.int64)
            for p, cards in dealt.items():
                truth[sorted(cards)] = game.players.index(p)
            for i in asks[:8]:
                history = _history(game, i)
                worlds = lk.enumerate_worlds(history, info)
                weights = posterior.weights(game.deck, game.rules, history, game.record[:i], worlds)
                true = np.flatnonzero((worlds == truth).all(axis=1)).tolist()
                assert len(true) == 1 and weights[true[0]] > 0  # the model is the policy played
                opponents_asked = any(
                    e.asker != observer for e in game.record[:i] if type(e) is Asked
                )
                if not opponents_asked:
                    assert all(w == 1 for w in weights.tolist())
                    # Equal weights give the counting engine's probabilities, bit for bit.
                    exact = lk.location_matrix(history, worlds, weights)
                    assert np.array_equal(exact, lk._uniform_exact(history, info)[0])


def test_importance_sampling_converges_on_exact_reweighting(small_games):
    game = small_games[1]
    asks = [i for i, e in enumerate(game.record) if type(e) is Asked]
    i = asks[min(4, len(asks) - 1)]
    observer = game.record[i].asker
    history = _history(game, i)
    info = private_info(game.deck, observer, game.view(observer).hand, game.record)
    posterior = lk.PolicyPosterior(
        observer, {q: "knowledge" for q in game.players if q != observer}
    )
    worlds = lk.enumerate_worlds(history, info)
    exact = lk.location_matrix(
        history, worlds, posterior.weights(game.deck, game.rules, history, game.record[:i], worlds)
    )
    cards = lk._unknown_cards(history, info)
    counter = WorldCounter(history, [info])
    errors = []
    for n in (30, 3000):
        sample = counter.sample_many(n, np.random.default_rng(n))
        w = posterior.weights(game.deck, game.rules, history, game.record[:i], sample)
        estimate = lk.location_matrix(history, sample, np.array([float(x) for x in w.tolist()]))
        errors.append(lk.compare(exact, estimate, cards)[0])
    assert errors[1] < 0.05 and errors[1] < errors[0]


def test_posterior_agent_plays_knowledge_until_an_opponent_asks():
    game = kw.Game.deal(SMALL, ["A", "B", "C"], seed=9)
    me = game.to_move
    view = game.view(me)
    plain = KnowledgePolicy()
    aware = lk.PosteriorKnowledge()
    knowledge = ExactKnowledge(me)
    knowledge.update(view)
    for s in range(5):
        a = plain.choose(view, knowledge, view.legal_asks(), np.random.default_rng(s))
        b = aware.choose(view, None, view.legal_asks(), np.random.default_rng(s))
        assert a == b
    result = play_game(["posterior_knowledge", "knowledge", "knowledge"], seed=3, deck=SMALL)
    assert result.finished and sum(result.scores) == SMALL.n_families


def test_macro_letters_are_letters():
    for rules, policy in lk.POLICIES:
        for part in lk._letters(rules, policy):
            assert part.isalpha()
    names = [tuple(lk._letters(r, p)) for r, p in lk.POLICIES]
    assert len(set(names)) == len(names)
