"""The search agent's weighted play-out in the compiled kernel gives the Python path's
scores, world for world and ask for ask (``Playout.play`` in C).

Positions come from real games of several rule sets, decks and numbers of players; the
worlds are the true one and random re-deals of the cards the viewer cannot see; the
views' public masks are also scrambled, to reach corners the games do not.  The
likeliest-yes choice's C twin is checked on random masks by hypothesis.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import kwartet_epistemic as kw
from kwartet_epistemic.agents import make_agent, search
from kwartet_epistemic.agents.knowledge import ExactKnowledge
from kwartet_epistemic.agents.search import Playout, PreparedWorld, _likeliest
from kwartet_epistemic.epistemics import counting

kernel = search._kernel
pytestmark = pytest.mark.skipif(
    search._KERNEL_PLAYOUT is None, reason="the compiled kernel is not built"
)

# (rules, deck, players, use exact knowledge for the view's masks)
CASES = [
    (kw.RuleSet(), kw.Deck.piquet(), 4, True),
    (kw.RuleSet.preset("lamas"), kw.Deck.piquet(families=3), 3, True),
    (kw.RuleSet.preset("dutch"), kw.Deck.piquet(families=5), 3, False),
    (kw.RuleSet.preset("fish"), kw.Deck.standard(), 5, False),
    (kw.RuleSet.preset("fish").replace(bonus_turn=True), kw.Deck.piquet(), 3, False),
    (kw.RuleSet(bluffing=True), kw.Deck.standard(families=10), 6, False),
    (kw.RuleSet.preset("lamas").replace(bluffing=True), kw.Deck.piquet(), 5, True),
    (kw.RuleSet(memory_cards=4), kw.Deck.piquet(), 4, False),
    (kw.RuleSet(draw_pile=True, cards_each=3, bonus_turn=True), kw.Deck.piquet(families=4), 3,
     False),
]  # fmt: skip


def _both(playout: Playout, prepared: PreparedWorld, ask: kw.Ask) -> tuple[list, list]:
    """(kernel scores, Python scores) of one play-out."""
    rng = np.random.default_rng(0)
    with counting.options(kernel=True):
        fast = playout.play(prepared, ask, rng)
    with counting.options(kernel=False):
        slow = playout.play(prepared, ask, rng)
    return fast, slow


def _redeal(view: kw.PlayerView, rng: np.random.Generator) -> tuple[tuple[int, ...], dict]:
    """A random world consistent with the hand sizes: the cards the viewer cannot see
    shuffled into the other hands and the face-down piles."""
    deck = view.deck
    exposed = {deck.family_index(f) for f in view.exposed}
    face_up = {c.index for c in view.middle if c is not None}
    own = {c.index for c in view.hand}
    hidden = [
        c for c in range(len(deck)) if c // 4 not in exposed and c not in face_up and c not in own
    ]
    rng.shuffle(hidden)
    hands = []
    at = 0
    for p in view.players:
        if p == view.player:
            hands.append(sum(1 << c for c in own))
            continue
        size = view.hand_sizes[p]
        hands.append(sum(1 << c for c in hidden[at : at + size]))
        at += size
    rest = hidden[at:]
    piles: dict[str, list[int]] = {}
    if view.stock_size:
        piles["stock"], rest = rest[: view.stock_size], rest[view.stock_size :]
    if rest:
        piles["middle" if view.rules.memory_cards else "aside"] = rest
    return tuple(hands), piles


def _scrambled(playout: Playout, rng: np.random.Generator) -> Playout:
    """The play-out with random extra public facts (seen, lacks, claims, the viewer's own
    knowledge): not what a record gives, but any masks must give the same scores."""
    cards = 4 * playout.n_families

    def mask(density: float) -> int:
        return sum(1 << c for c in range(cards) if rng.random() < density)

    def families(density: float) -> int:
        return sum(0b1111 << (4 * f) for f in range(cards // 4) if rng.random() < density)

    return Playout(
        playout.view,
        [s | mask(0.05) for s in playout.seen],
        [s | mask(0.2) for s in playout.lacks],
        [s | mask(0.05) for s in playout.mine],
        [c | families(0.2) for c in playout.claims],
        weighted=True,
    )


def _positions(rules: kw.RuleSet, deck: kw.Deck, n: int, seed: int, every: int):
    """Views of the player to move, every ``every`` turns of a game of simple agents."""
    players = [chr(ord("A") + i) for i in range(n)]
    game = kw.Game.deal(deck, players, seed=seed, rules=rules)
    agents = {
        p: make_agent("greedy:facts", p, np.random.default_rng([seed, i]))
        for i, p in enumerate(players)
    }
    turn = 0
    while not game.is_over:
        player = game.to_move
        assert player is not None
        view = game.view(player)
        if turn % every == 0:
            yield game, view
        game.play(agents[player].choose(view))
        turn += 1


@pytest.mark.parametrize("case", range(len(CASES)))
def test_the_kernel_plays_out_as_the_python_path(case: int) -> None:
    rules, deck, n, exact = CASES[case]
    rng = np.random.default_rng(case)
    played = 0
    for game, view in _positions(rules, deck, n, seed=case, every=2 + len(deck) // 8):
        knowledge = None
        if exact:
            knowledge = ExactKnowledge(view.player)
            knowledge.update(view)
        playout = Playout.from_view(view, knowledge, weighted=True)
        variants = [playout, _scrambled(playout, rng)]
        true_hands = tuple(sum(1 << c.index for c in game.hand(p)) for p in view.players)
        worlds = [(true_hands, _redeal(view, rng)[1])] + [_redeal(view, rng) for _ in range(2)]
        asks = view.legal_asks()
        for hands, piles in worlds:
            prepared = playout.prepare_masks(hands, piles, np.random.default_rng(played))
            for variant in variants:
                for k in rng.choice(len(asks), size=min(3, len(asks)), replace=False):
                    fast, slow = _both(variant, prepared, asks[int(k)])
                    assert fast == slow
                    assert sum(fast) >= sum(view.scores.values())
                    played += 1
    assert played >= 20


def test_the_kernel_keeps_the_step_cap_and_the_stock() -> None:
    # Masks that say every card is lacked everywhere: after the stock runs out the
    # players ask the same refused cards round and round, until the 10,000-step cap.
    rules = kw.RuleSet.preset("fish").replace(bonus_turn=True)
    game = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C"], seed=2, rules=rules)
    view = game.view(game.to_move or "")
    full = (1 << 32) - 1
    playout = Playout(view, [0, 0, 0], [full] * 3, weighted=True)
    rng = np.random.default_rng(5)
    capped = finished = 0
    for _ in range(10):
        hands, piles = _redeal(view, rng)
        prepared = playout.prepare_masks(hands, piles, rng)
        for ask in view.legal_asks()[:3]:
            fast, slow = _both(playout, prepared, ask)
            assert fast == slow
            # No dead cards: a play-out stops short of 8 quartets only at the cap.
            capped += sum(fast) < 8
            finished += sum(fast) == 8
    assert capped and finished


def test_the_python_path_runs_without_the_kernel_and_beyond_64_cards(
    monkeypatch, counting_options
) -> None:
    calls = []
    real = search._KERNEL_PLAYOUT

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(search, "_KERNEL_PLAYOUT", spy)
    counting_options(kernel=True)
    view = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=1).view("A")
    weighted = Playout.from_view(view, weighted=True)
    prepared = weighted.prepare_masks(*_redeal(view, np.random.default_rng(1)),
                                      np.random.default_rng(0))  # fmt: skip
    ask = view.legal_asks()[0]
    weighted.play(prepared, ask, np.random.default_rng(0))
    assert len(calls) == 1
    Playout.from_view(view).play(prepared, ask, np.random.default_rng(0))  # not weighted
    with counting.options(kernel=False):
        weighted.play(prepared, ask, np.random.default_rng(0))
    assert len(calls) == 1
    # 68 cards do not fit 64-bit masks: the Python path plays.
    deck = kw.Deck.from_families("big", {f"F{i}": [f"c{i}{j}" for j in "abcd"] for i in range(17)})
    game = kw.Game.deal(deck, ["A", "B", "C"], seed=1)
    big = game.view(game.to_move or "")
    playout = Playout.from_view(big, weighted=True)
    scores = playout.play(
        playout.prepare_masks(*_redeal(big, np.random.default_rng(2)), np.random.default_rng(0)),
        big.legal_asks()[0],
        np.random.default_rng(0),
    )
    assert len(calls) == 1 and sum(scores) == 17


def test_the_kernel_names_bad_input() -> None:
    view = kw.Game.deal(kw.Deck.piquet(), ["A", "B", "C", "D"], seed=1).view("A")
    playout = Playout.from_view(view, weighted=True)
    prepared = playout.prepare_masks(*_redeal(view, np.random.default_rng(1)),
                                     np.random.default_rng(0))  # fmt: skip
    ask = view.legal_asks()[0]
    args = [
        prepared.hands, prepared.stock, prepared.rank, prepared.dead_cards, playout.seen,
        playout.lacks, playout.mine, playout.claims, playout.scores, playout.blocked,
        playout.n_families, playout.me, view.players.index(ask.target), ask.card.index,
        False, False, False,
    ]  # fmt: skip
    assert kernel.playout(*args) == _both(playout, prepared, ask)[1]
    for at, bad, message in [
        (0, (0,) * 17, "hands"),
        (5, playout.lacks[:3], "lacks"),
        (2, prepared.rank[:5], "rank"),
        (4, [1 << 70] * 4, "seen"),
        (10, 17, "n_families"),
        (12, 4, "out of range"),
        (1, [40], "stock"),
    ]:
        wrong = list(args)
        wrong[at] = bad
        with pytest.raises(ValueError, match=message):
            kernel.playout(*wrong)


masks = st.integers(min_value=0, max_value=(1 << 64) - 1)


@settings(max_examples=200, deadline=None)
@given(
    n=st.integers(min_value=2, max_value=6),
    data=st.data(),
)
def test_the_likeliest_yes_in_c_is_the_python_one(n: int, data: st.DataObject) -> None:
    wanted = data.draw(masks.filter(bool), label="wanted")
    targets = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=1), label="targets"))
    hands = data.draw(st.lists(masks, min_size=n, max_size=n), label="hands")
    seen = data.draw(st.lists(masks, min_size=n, max_size=n), label="seen")
    mine = data.draw(st.none() | st.lists(masks, min_size=n, max_size=n), label="mine")
    lacks = data.draw(st.lists(masks, min_size=n, max_size=n), label="lacks")
    claims = data.draw(st.lists(masks, min_size=n, max_size=n), label="claims")
    rank = data.draw(st.permutations(range(64 * n)), label="rank")
    args = (wanted, targets, hands, seen, mine, lacks, claims, list(rank), n)
    assert kernel.likeliest(*args) == _likeliest(*args)
